/* The OpenCL backend: opening and closing devices, and the vtable. The
 * enumerated devices are in devices.c, the error messages in error.c, device
 * facts in device.c, programs in program.c, buffers in buffer.c, launches in
 * launch.c. */
#include "backend/opencl/opencl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/opencl/devices.h"
#include "backend/opencl/loader.h"
#include "backend/opencl/opencl_int.h"

static void ocl_fini(void)
{
    gc__cl_devices_forget();
    gc__cl_unload();
}

static int ocl_init(char *why, size_t whylen)
{
    int rc;

    if (gc__cl_devices_count() >= 0)
        return 0;
    rc = gc__cl_load(why, whylen);
    if (rc)
        return rc;
    rc = gc__cl_devices_list(why, whylen);
    if (rc)
        ocl_fini();
    return rc;
}

static int ocl_device_count(void)
{
    int n = gc__cl_devices_count();

    return n > 0 ? n : 0;
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
    if (d->own_ctx)
        gc__cl.clReleaseContext(d->own_ctx);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

int gc__cl_open_in(int index, cl_context shared, struct gc_dev **out, char *err, size_t errlen)
{
    struct gc_dev *d = NULL;
    cl_context_properties props[3];
    cl_ulong alloc = 0, local = 0;
    cl_int clrc;
    int rc = GC_EBACKEND;

    *out = NULL;
    const struct gc__cl_devent *e = gc__cl_devent(index);

    if (!e) {
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
    d->platform = e->platform;
    d->device = e->device;
    props[0] = CL_CONTEXT_PLATFORM;
    props[1] = (cl_context_properties)d->platform;
    props[2] = 0;
    if (shared) {
        GC_CL_CALL(d, gc__cl.clRetainContext(shared));
        d->ctx = shared;
        d->shared = true;
        GC_CL_CREATE(d, d->own_ctx,
                     gc__cl.clCreateContext(props, 1, &d->device, NULL, NULL, &clrc));
    } else {
        GC_CL_CREATE(d, d->ctx, gc__cl.clCreateContext(props, 1, &d->device, NULL, NULL, &clrc));
    }
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
    char *exts = gc__cl_info_str(NULL, d->device, CL_DEVICE_EXTENSIONS);
    char *pname = gc__cl_info_str(d->platform, NULL, CL_PLATFORM_NAME);
    d->compile_serialized = gc__cl_has_ext(exts, "cl_nv_device_attribute_query") ||
                            (pname && strcmp(pname, "Portable Computing Language") == 0);
    free(pname);
    free(exts);
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

static bool ocl_compile_in_processes(struct gc_dev *d)
{
    return d->compile_serialized;
}

static int ocl_open(int index, struct gc_dev **out, char *err, size_t errlen)
{
    return gc__cl_open_in(index, NULL, out, err, errlen);
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
    .open_group = gc__cl_open_group,
    .close = ocl_close,
    .last_error = ocl_last_error,
    .compile = gc__cl_compile,
    .compile_threads = 0,
    .compile_in_processes = ocl_compile_in_processes,
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
