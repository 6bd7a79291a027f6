/* OpenCL devices opened together (the backend's open_group): the devices of
 * one platform share one context, so that clEnqueueCopyBuffer copies between
 * their buffers (peer.c). A platform that refuses one context for them, or a
 * device alone on its platform, gets a context of its own, and the reason
 * stays with the device for peer_info to give. */
#include <stdio.h>

#include "backend/opencl/devices.h"
#include "backend/opencl/opencl.h"
#include "backend/opencl/loader.h"
#include "backend/opencl/opencl_int.h"

/* One context over the devices index[list[0..m)] of platform p; NULL with
 * why when the platform refuses it. */
static cl_context shared_context(cl_platform_id p, const int *index, const int *list, int m,
                                 char *why, size_t len)
{
    cl_context_properties props[3] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
    cl_device_id ids[64];
    cl_context ctx;
    cl_int clrc = CL_SUCCESS;

    for (int k = 0; k < m; k++)
        ids[k] = gc__cl_devent(index[list[k]])->device;
    ctx = gc__cl.clCreateContext(props, (cl_uint)m, ids, NULL, NULL, &clrc);
    if (!ctx || clrc != CL_SUCCESS)
        snprintf(why, len,
                 "the platform refused one context for its %d devices: clCreateContext: %s (%d)", m,
                 gc__cl_code_name(clrc), (int)clrc);
    return clrc == CL_SUCCESS ? ctx : NULL;
}

/* Opens the devices of list (one platform) in ctx (NULL: each alone, why
 * kept as the reason). */
static int open_list(const int *index, const int *list, int m, cl_context ctx, const char *why,
                     struct gc_dev **out, char *err, size_t errlen)
{
    for (int k = 0; k < m; k++) {
        int rc = gc__cl_open_in(index[list[k]], ctx, &out[list[k]], err, errlen);

        if (rc)
            return rc;
        if (!ctx)
            snprintf(out[list[k]]->share_why, sizeof(out[list[k]]->share_why), "%s", why);
    }
    return 0;
}

int gc__cl_open_group(const int *index, int n, struct gc_dev **out, char *err, size_t errlen)
{
    int list[64], rc = 0;

    if (n > 64) {
        snprintf(err, errlen, "%d OpenCL devices: at most 64 open together", n);
        return GC_EINVAL;
    }
    for (int i = 0; i < n; i++)
        out[i] = NULL;
    for (int i = 0; i < n && rc == 0; i++) {
        const struct gc__cl_devent *e = gc__cl_devent(index[i]);
        char why[256] = "";
        cl_context ctx = NULL;
        int m = 0;

        if (out[i])
            continue;
        if (!e) {
            snprintf(err, errlen, "no OpenCL device %d", index[i]);
            rc = GC_ENODEV;
            break;
        }
        for (int j = i; j < n; j++)
            if (!out[j] && gc__cl_devent(index[j]) &&
                gc__cl_devent(index[j])->platform == e->platform)
                list[m++] = j;
        if (m >= 2)
            ctx = shared_context(e->platform, index, list, m, why, sizeof(why));
        else
            snprintf(why, sizeof(why), "the only device of its OpenCL platform in the list");
        rc = open_list(index, list, m, ctx, why, out, err, errlen);
        /* The devices hold their own references. */
        if (ctx)
            gc__cl.clReleaseContext(ctx);
    }
    for (int i = 0; rc && i < n; i++) {
        if (out[i])
            gc__opencl_ops.close(out[i]);
        out[i] = NULL;
    }
    return rc;
}
