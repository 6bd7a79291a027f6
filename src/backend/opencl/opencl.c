/* The OpenCL backend: the platforms' devices, opening and closing them, the
 * error messages, and the vtable. Device facts are in device.c, programs in
 * program.c, buffers in buffer.c, launches in launch.c. */
#include "backend/opencl/opencl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/opencl/loader.h"
#include "backend/opencl/opencl_int.h"

/* Returned by the ICD loader's clGetPlatformIDs when no vendor driver is
 * installed (cl_khr_icd); it means zero platforms, not a failure. */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* The native codes named in error messages. */
#define GC_CL_CODES(XX)                                                                            \
    XX(CL_SUCCESS)                                                                                 \
    XX(CL_DEVICE_NOT_FOUND)                                                                        \
    XX(CL_DEVICE_NOT_AVAILABLE)                                                                    \
    XX(CL_COMPILER_NOT_AVAILABLE)                                                                  \
    XX(CL_MEM_OBJECT_ALLOCATION_FAILURE)                                                           \
    XX(CL_OUT_OF_RESOURCES)                                                                        \
    XX(CL_OUT_OF_HOST_MEMORY)                                                                      \
    XX(CL_PROFILING_INFO_NOT_AVAILABLE)                                                            \
    XX(CL_MEM_COPY_OVERLAP)                                                                        \
    XX(CL_BUILD_PROGRAM_FAILURE)                                                                   \
    XX(CL_MAP_FAILURE)                                                                             \
    XX(CL_MISALIGNED_SUB_BUFFER_OFFSET)                                                            \
    XX(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)                                               \
    XX(CL_COMPILE_PROGRAM_FAILURE)                                                                 \
    XX(CL_LINKER_NOT_AVAILABLE)                                                                    \
    XX(CL_LINK_PROGRAM_FAILURE)                                                                    \
    XX(CL_INVALID_VALUE)                                                                           \
    XX(CL_INVALID_DEVICE_TYPE)                                                                     \
    XX(CL_INVALID_PLATFORM)                                                                        \
    XX(CL_INVALID_DEVICE)                                                                          \
    XX(CL_INVALID_CONTEXT)                                                                         \
    XX(CL_INVALID_QUEUE_PROPERTIES)                                                                \
    XX(CL_INVALID_COMMAND_QUEUE)                                                                   \
    XX(CL_INVALID_HOST_PTR)                                                                        \
    XX(CL_INVALID_MEM_OBJECT)                                                                      \
    XX(CL_INVALID_BINARY)                                                                          \
    XX(CL_INVALID_BUILD_OPTIONS)                                                                   \
    XX(CL_INVALID_PROGRAM)                                                                         \
    XX(CL_INVALID_PROGRAM_EXECUTABLE)                                                              \
    XX(CL_INVALID_KERNEL_NAME)                                                                     \
    XX(CL_INVALID_KERNEL_DEFINITION)                                                               \
    XX(CL_INVALID_KERNEL)                                                                          \
    XX(CL_INVALID_ARG_INDEX)                                                                       \
    XX(CL_INVALID_ARG_VALUE)                                                                       \
    XX(CL_INVALID_ARG_SIZE)                                                                        \
    XX(CL_INVALID_KERNEL_ARGS)                                                                     \
    XX(CL_INVALID_WORK_DIMENSION)                                                                  \
    XX(CL_INVALID_WORK_GROUP_SIZE)                                                                 \
    XX(CL_INVALID_WORK_ITEM_SIZE)                                                                  \
    XX(CL_INVALID_GLOBAL_OFFSET)                                                                   \
    XX(CL_INVALID_EVENT_WAIT_LIST)                                                                 \
    XX(CL_INVALID_EVENT)                                                                           \
    XX(CL_INVALID_OPERATION)                                                                       \
    XX(CL_INVALID_BUFFER_SIZE)                                                                     \
    XX(CL_INVALID_GLOBAL_WORK_SIZE)                                                                \
    XX(CL_INVALID_PROPERTY)                                                                        \
    XX(CL_INVALID_COMPILER_OPTIONS)                                                                \
    XX(CL_INVALID_LINKER_OPTIONS)                                                                  \
    XX(CL_PLATFORM_NOT_FOUND_KHR)

static struct gc__cl_devent *g_devs;
static int g_ndev;
static bool g_ready;

struct gc__cl_devent *gc__cl_devent(int index)
{
    return g_ready && index >= 0 && index < g_ndev ? &g_devs[index] : NULL;
}

const char *gc__cl_code_name(cl_int code)
{
    static const struct {
        cl_int code;
        const char *name;
    } codes[] = {
#define GC__CL_CODE(c) {c, #c},
        GC_CL_CODES(GC__CL_CODE)
#undef GC__CL_CODE
    };
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        if (codes[i].code == code)
            return codes[i].name;
    }
    return "unknown OpenCL error";
}

void gc__cl_set_error(struct gc_dev *d, const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&d->lock);
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof(d->err), fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&d->lock);
}

/* Writes "<api> failed: <name> (<code>) in <func>() line <line>" and, when
 * detail is given (a build log), the detail on the following lines. The API
 * name is recovered from the stringised call: the identifier after "gc__cl.". */
void gc__cl_set_cl_error(struct gc_dev *d, const char *call, cl_int code, const char *func,
                         int line, const char *detail)
{
    const char *api = strstr(call, "gc__cl.");
    int n;

    api = api ? api + strlen("gc__cl.") : call;
    n = (int)strcspn(api, "( ");
    if (detail && *detail)
        gc__cl_set_error(d, "%.*s failed: %s (%d) in %s() line %d\n%s", n, api,
                         gc__cl_code_name(code), (int)code, func, line, detail);
    else
        gc__cl_set_error(d, "%.*s failed: %s (%d) in %s() line %d", n, api, gc__cl_code_name(code),
                         (int)code, func, line);
}

static void ocl_fini(void)
{
    free(g_devs);
    g_devs = NULL;
    g_ndev = 0;
    g_ready = false;
    gc__cl_unload();
}

static int ocl_init(char *why, size_t whylen)
{
    cl_platform_id *plats = NULL;
    cl_device_id *ids = NULL;
    cl_uint nplat = 0;
    cl_int clrc;
    int rc;

    if (g_ready)
        return 0;
    rc = gc__cl_load(why, whylen);
    if (rc)
        return rc;
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
        ocl_fini();
    return rc;
}

static int ocl_device_count(void)
{
    return g_ready ? g_ndev : 0;
}

static void ocl_close(struct gc_dev *d)
{
    if (!d)
        return;
    gc__cl_overhead_release(d);
    if (d->queue)
        gc__cl.clReleaseCommandQueue(d->queue);
    if (d->ctx)
        gc__cl.clReleaseContext(d->ctx);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

static int ocl_open(int index, struct gc_dev **out, char *err, size_t errlen)
{
    struct gc_dev *d = NULL;
    cl_context_properties props[3];
    cl_ulong alloc = 0, local = 0;
    cl_int clrc;
    int rc = GC_EBACKEND;

    *out = NULL;
    if (!g_ready || index < 0 || index >= g_ndev) {
        snprintf(err, errlen, "no OpenCL device %d (%d devices)", index, ocl_device_count());
        return GC_ENODEV;
    }
    d = calloc(1, sizeof(*d));
    if (!d || pthread_mutex_init(&d->lock, NULL) != 0) {
        free(d);
        snprintf(err, errlen, "out of host memory opening OpenCL device %d", index);
        return GC_ENOMEM;
    }
    d->index = index;
    d->platform = g_devs[index].platform;
    d->device = g_devs[index].device;
    props[0] = CL_CONTEXT_PLATFORM;
    props[1] = (cl_context_properties)d->platform;
    props[2] = 0;
    GC_CL_CREATE(d, d->ctx, gc__cl.clCreateContext(props, 1, &d->device, NULL, NULL, &clrc));
    /* In order, so that back-to-back launches of one timing run one after the
     * other; profiling, for the device-side start and end times. */
    GC_CL_CREATE(d, d->queue,
                 gc__cl.clCreateCommandQueue(d->ctx, d->device, CL_QUEUE_PROFILING_ENABLE, &clrc));
    GC_CL_CALL(d, gc__cl.clGetDeviceInfo(d->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(alloc),
                                         &alloc, NULL));
    d->max_alloc = (size_t)alloc;
    GC_CL_CALL(d, gc__cl.clGetDeviceInfo(d->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local), &local,
                                         NULL));
    d->local_mem = (size_t)local;
    cl_device_type type = 0;
    GC_CL_CALL(d, gc__cl.clGetDeviceInfo(d->device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
    d->cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    gc__cl_probe_simd_width(d);
    rc = 0;
out:
    if (rc) {
        snprintf(err, errlen, "%s", d->err);
        ocl_close(d);
        return rc;
    }
    *out = d;
    return 0;
}

static const char *ocl_last_error(struct gc_dev *d)
{
    return d ? d->err : "";
}

static void ocl_describe(struct gc_dev *d, char *buf, size_t len)
{
    char *pname = gc__cl_info_str(d->platform, NULL, CL_PLATFORM_NAME);
    char *pver = gc__cl_info_str(d->platform, NULL, CL_PLATFORM_VERSION);
    char *drv = gc__cl_info_str(NULL, d->device, CL_DRIVER_VERSION);
    char *dver = gc__cl_info_str(NULL, d->device, CL_DEVICE_VERSION);
    char *cver = gc__cl_info_str(NULL, d->device, CL_DEVICE_OPENCL_C_VERSION);
    char *exts = gc__cl_info_str(NULL, d->device, CL_DEVICE_EXTENSIONS);

    struct gc__cl_devent *e = gc__cl_devent(d->index);
    int clocks = e ? atomic_load(&e->clock_caps) - 1 : -1;

    /* in_kernel_clocks: the probe's verdict (clock.c); "not probed" off
     * NVIDIA's platform. */
    snprintf(buf, len,
             "platform=%s; platform_version=%s; driver=%s; device_version=%s; opencl_c=%s; "
             "extensions_fp64=%s; in_kernel_clocks=%s",
             pname ? pname : "?", pver ? pver : "?", drv ? drv : "?", dver ? dver : "?",
             cver ? cver : "?", gc__cl_has_ext(exts, "cl_khr_fp64") ? "yes" : "no",
             clocks < 0   ? "not probed"
             : clocks > 0 ? "yes (inline PTX)"
                          : "no (probe failed)");
    free(pname);
    free(pver);
    free(drv);
    free(dver);
    free(cver);
    free(exts);
}

const struct gc_backend_ops gc__opencl_ops = {
    .name = "opencl",
    .dialect = GC_DIALECT_OPENCL,
    .init = ocl_init,
    .fini = ocl_fini,
    .device_count = ocl_device_count,
    .device_info = gc__cl_device_info,
    .open = ocl_open,
    .close = ocl_close,
    .last_error = ocl_last_error,
    .compile = gc__cl_compile,
    .compile_threads = 0,
    .load_threadsafe = true,
    .load = gc__cl_load_prog,
    .unload = gc__cl_unload_prog,
    .kernel = gc__cl_kernel,
    .kernel_attrs = gc__cl_kernel_attrs,
    /* OpenCL has no occupancy query. */
    .max_active_blocks = NULL,
    .alloc = gc__cl_alloc,
    .alloc_large_pages = gc__cl_alloc_large_pages,
    .free = gc__cl_free,
    .write = gc__cl_write,
    .read = gc__cl_read,
    .copy = gc__cl_copy,
    .map = gc__cl_map,
    .unmap = gc__cl_unmap,
    .launch = gc__cl_launch,
    /* OpenCL exposes no power, clock or temperature sensors. */
    .sensors = NULL,
    .describe = ocl_describe,
    .host_alloc = gc__cl_host_alloc,
    .host_free = gc__cl_host_free,
    .transfer = gc__cl_transfer,
    .launch_timed = gc__cl_launch_timed,
    .sync = gc__cl_sync,
    /* OpenCL 1.2-3.0 has no graphs; the PCIe link comes from sysfs. */
    .graph_create = NULL,
    .link_info = NULL,
    /* No portable query of free device memory. */
    .mem_info = NULL,
    .peer_info = gc__cl_peer_info,
    .peer_enable = gc__cl_peer_enable,
    .peer_copies = gc__cl_peer_copies,
};
