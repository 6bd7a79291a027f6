/* The enumerated OpenCL devices (devices.h): every device of every platform,
 * listed once at init, indexed as the backend numbers them. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend/opencl/devices.h"
#include "backend/opencl/error.h"
#include "backend/opencl/loader.h"
#include "backend/opencl/opencl_int.h"

static struct gc__cl_devent *g_devs;
static int g_ndev;
static bool g_ready;

struct gc__cl_devent *gc__cl_devent(int index)
{
    return g_ready && index >= 0 && index < g_ndev ? &g_devs[index] : NULL;
}

int gc__cl_devices_count(void)
{
    return g_ready ? g_ndev : -1;
}

void gc__cl_devices_forget(void)
{
    free(g_devs);
    g_devs = NULL;
    g_ndev = 0;
    g_ready = false;
}

int gc__cl_devices_list(char *why, size_t whylen)
{
    cl_platform_id *plats = NULL;
    cl_device_id *ids = NULL;
    cl_uint nplat = 0;
    cl_int clrc;
    int rc;

    if (g_ready)
        return 0;
    rc = GC_EBACKEND;
    clrc = gc__cl.clGetPlatformIDs(0, NULL, &nplat);
    if (clrc == CL_PLATFORM_NOT_FOUND_KHR)
        nplat = 0;
    else if (clrc != CL_SUCCESS) {
        snprintf(why, whylen, "clGetPlatformIDs failed: %s (%d)", gc__cl_code_name(clrc),
                 (int)clrc);
        goto out;
    }
    if (nplat > 0) {
        plats = malloc(nplat * sizeof(*plats));
        if (!plats) {
            rc = GC_ENOMEM;
            snprintf(why, whylen, "out of host memory listing OpenCL platforms");
            goto out;
        }
        clrc = gc__cl.clGetPlatformIDs(nplat, plats, NULL);
        if (clrc != CL_SUCCESS) {
            snprintf(why, whylen, "clGetPlatformIDs failed: %s (%d)", gc__cl_code_name(clrc),
                     (int)clrc);
            goto out;
        }
    }
    for (cl_uint p = 0; p < nplat; p++) {
        cl_uint ndev = 0;
        struct gc__cl_devent *grown;

        /* A platform that cannot list its devices contributes none, as a
         * platform without devices does: the others stay usable (clinfo
         * behaves the same way). */
        if (gc__cl.clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev) != CL_SUCCESS ||
            ndev == 0)
            continue;
        free(ids);
        ids = malloc(ndev * sizeof(*ids));
        grown = realloc(g_devs, ((size_t)g_ndev + ndev) * sizeof(*g_devs));
        if (!ids || !grown) {
            if (grown)
                g_devs = grown;
            rc = GC_ENOMEM;
            snprintf(why, whylen, "out of host memory listing OpenCL devices");
            goto out;
        }
        g_devs = grown;
        if (gc__cl.clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, ndev, ids, NULL) != CL_SUCCESS)
            continue;
        for (cl_uint i = 0; i < ndev; i++) {
            g_devs[g_ndev].platform = plats[p];
            g_devs[g_ndev].device = ids[i];
            atomic_init(&g_devs[g_ndev].simd_width, 0);
            atomic_init(&g_devs[g_ndev].clock_caps, 0);
            g_ndev++;
        }
    }
    g_ready = true;
    rc = 0;
out:
    free(plats);
    free(ids);
    if (rc)
        gc__cl_devices_forget();
    return rc;
}
