/* The OpenCL backend: device discovery and facts, programs built from OpenCL C,
 * buffers, and launches timed with event profiling on an in-order queue. */
#include "backend/opencl/opencl.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backend/opencl/loader.h"
#include "backend/opencl/opencl_int.h"

/* Returned by the ICD loader's clGetPlatformIDs when no vendor driver is
 * installed (cl_khr_icd); it means zero platforms, not a failure. */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* cl_nv_device_attribute_query. The PCI queries are not in every CL/cl_ext.h,
 * so all of them are spelled here with their registry values. */
#define GC_CL_NV_CC_MAJOR 0x4000
#define GC_CL_NV_CC_MINOR 0x4001
#define GC_CL_NV_WARP_SIZE 0x4003
#define GC_CL_NV_PCI_BUS 0x4008
#define GC_CL_NV_PCI_SLOT 0x4009
#define GC_CL_NV_PCI_DOMAIN 0x400A

/* cl_khr_pci_bus_info: preferred where present, since it is portable and
 * carries the PCI domain. */
#define GC_CL_PCI_BUS_INFO_KHR 0x410F
struct pci_bus_info_khr {
    cl_uint domain, bus, device, function;
};

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

/* One enumerated device. simd_width is learnt when the device is first
 * opened (see probe_simd_width) and read by device_info from any thread. */
struct ocl_devent {
    cl_platform_id platform;
    cl_device_id device;
    atomic_int simd_width; /* 0 until known */
};

static struct ocl_devent *g_devs;
static int g_ndev;
static bool g_ready;

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

/* A string property of a device (device != NULL) or of a platform, malloc'ed
 * and NUL-terminated; NULL when the query fails or memory runs out. */
static char *info_str(cl_platform_id platform, cl_device_id device, cl_uint param)
{
    size_t n = 0;
    char *s = NULL;
    cl_int clrc;

    if (device)
        clrc = gc__cl.clGetDeviceInfo(device, param, 0, NULL, &n);
    else
        clrc = gc__cl.clGetPlatformInfo(platform, param, 0, NULL, &n);
    if (clrc != CL_SUCCESS)
        return NULL;
    s = malloc(n + 1);
    if (!s)
        return NULL;
    if (device)
        clrc = gc__cl.clGetDeviceInfo(device, param, n, s, NULL);
    else
        clrc = gc__cl.clGetPlatformInfo(platform, param, n, s, NULL);
    if (clrc != CL_SUCCESS) {
        free(s);
        return NULL;
    }
    s[n] = '\0';
    return s;
}

/* A fixed-size device property. */
static bool dev_get(cl_device_id d, cl_uint param, void *v, size_t n)
{
    return gc__cl.clGetDeviceInfo(d, param, n, v, NULL) == CL_SUCCESS;
}

/* True when the space-separated extension list exts names ext. */
static bool has_ext(const char *exts, const char *ext)
{
    size_t n = strlen(ext);

    for (const char *p = exts; p && (p = strstr(p, ext)); p += n) {
        if ((p == exts || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    }
    return false;
}

/* Fills pci_bus_id from cl_khr_pci_bus_info or, on NVIDIA, from
 * cl_nv_device_attribute_query. The NVIDIA slot value packs device and
 * function as (device << 3) | function, as clinfo decodes it; the domain
 * query is missing from older drivers, which leaves domain 0. */
static void pci_bus_id(cl_device_id d, const char *exts, char *out, size_t len)
{
    struct pci_bus_info_khr pci;
    cl_uint bus, slot, domain = 0;

    if (has_ext(exts, "cl_khr_pci_bus_info") &&
        dev_get(d, GC_CL_PCI_BUS_INFO_KHR, &pci, sizeof(pci))) {
        snprintf(out, len, "%04x:%02x:%02x.%x", pci.domain & 0xffffu, pci.bus & 0xffu,
                 pci.device & 0x1fu, pci.function & 7u);
        return;
    }
    if (!has_ext(exts, "cl_nv_device_attribute_query"))
        return;
    if (!dev_get(d, GC_CL_NV_PCI_BUS, &bus, sizeof(bus)) ||
        !dev_get(d, GC_CL_NV_PCI_SLOT, &slot, sizeof(slot)))
        return;
    if (!dev_get(d, GC_CL_NV_PCI_DOMAIN, &domain, sizeof(domain)))
        domain = 0;
    snprintf(out, len, "%04x:%02x:%02x.%x", domain & 0xffffu, bus & 0xffu, (slot >> 3) & 0x1fu,
             slot & 7u);
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
        struct ocl_devent *grown;

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

/* Bytes of the widest native vector the device reports for any type (a CPU
 * device's SIMD register); 0 when it reports none. */
static int vector_bytes(cl_device_id d)
{
    static const struct {
        cl_uint param;
        int size;
    } q[] = {
        {CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, 1},  {CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, 2},
        {CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, 4},   {CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, 8},
        {CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, 4}, {CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, 8},
    };
    int best = 0;

    for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
        cl_uint w = 0;

        if (dev_get(d, q[i].param, &w, sizeof(w)) && w > 0 && w <= 64 && (int)w * q[i].size > best)
            best = (int)w * q[i].size;
    }
    return best;
}

static int ocl_device_info(int index, struct gc_device_info *out)
{
    const struct ocl_devent *e;
    char *name = NULL, *vendor = NULL, *pname = NULL, *pver = NULL, *dver = NULL, *dev_ver = NULL,
         *exts = NULL;
    cl_device_type type;
    cl_uint cu, clock, nv, cache_type;
    size_t wg;
    cl_ulong local, global, alloc, cache, fp64 = 0;
    cl_bool ecc;
    int simd, rc = GC_EBACKEND;

    if (!g_ready || index < 0 || index >= g_ndev || !out)
        return GC_ENODEV;
    e = &g_devs[index];
    memset(out, 0, sizeof(*out));

    name = info_str(NULL, e->device, CL_DEVICE_NAME);
    vendor = info_str(NULL, e->device, CL_DEVICE_VENDOR);
    dver = info_str(NULL, e->device, CL_DRIVER_VERSION);
    dev_ver = info_str(NULL, e->device, CL_DEVICE_VERSION);
    exts = info_str(NULL, e->device, CL_DEVICE_EXTENSIONS);
    pname = info_str(e->platform, NULL, CL_PLATFORM_NAME);
    pver = info_str(e->platform, NULL, CL_PLATFORM_VERSION);
    if (!name || !vendor || !dver || !dev_ver || !exts || !pname || !pver)
        goto out;
    if (!dev_get(e->device, CL_DEVICE_TYPE, &type, sizeof(type)) ||
        !dev_get(e->device, CL_DEVICE_MAX_COMPUTE_UNITS, &cu, sizeof(cu)) ||
        !dev_get(e->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, &wg, sizeof(wg)) ||
        !dev_get(e->device, CL_DEVICE_LOCAL_MEM_SIZE, &local, sizeof(local)) ||
        !dev_get(e->device, CL_DEVICE_GLOBAL_MEM_SIZE, &global, sizeof(global)) ||
        !dev_get(e->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, &alloc, sizeof(alloc)) ||
        !dev_get(e->device, CL_DEVICE_MAX_CLOCK_FREQUENCY, &clock, sizeof(clock)))
        goto out;

    snprintf(out->name, sizeof(out->name), "%s", name);
    snprintf(out->vendor, sizeof(out->vendor), "%s", vendor);
    snprintf(out->driver, sizeof(out->driver), "%s %s %s", pname, pver, dver);
    snprintf(out->compiler, sizeof(out->compiler), "%s %s", pver, dver);
    snprintf(out->arch, sizeof(out->arch), "%s %s", dev_ver, name);

    if (type & CL_DEVICE_TYPE_GPU)
        out->type = GC_DEVICE_GPU;
    else if (type & CL_DEVICE_TYPE_CPU)
        out->type = GC_DEVICE_CPU;
    else if (type & CL_DEVICE_TYPE_ACCELERATOR)
        out->type = GC_DEVICE_ACCELERATOR;
    else
        out->type = GC_DEVICE_OTHER;
    out->compute_units = (int)cu;
    out->max_threads_per_block = (int)wg;
    /* OpenCL reports local memory per work-group only; there is no per-CU
     * figure, so the per-CU size is taken to be the per-group limit. Resident
     * work-groups per CU, threads per CU and registers stay 0 (unknown). */
    out->shared_per_block = (size_t)local;
    out->shared_per_block_optin = (size_t)local;
    out->shared_per_cu = (size_t)local;
    out->global_mem = (size_t)global;
    out->max_alloc = (size_t)alloc;
    /* The global memory cache as the driver reports it. This is not always the
     * last level: NVIDIA's OpenCL gives 32 KiB per SM there (4325376 bytes on
     * an H200, whose L2 is 50 MiB), so cache models must not trust it blindly. */
    if (dev_get(e->device, CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, &cache_type, sizeof(cache_type)) &&
        cache_type != CL_NONE &&
        dev_get(e->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, &cache, sizeof(cache)))
        out->l2_size = (size_t)cache;
    out->clock_mhz = (double)clock;
    out->mem_bw_spec = NAN;
    out->ecc_enabled = -1;
    if (dev_get(e->device, CL_DEVICE_ERROR_CORRECTION_SUPPORT, &ecc, sizeof(ecc)))
        out->ecc_enabled = ecc ? 1 : 0;

    out->caps = GC_CAP_DYN_SHARED;
    if (!dev_get(e->device, CL_DEVICE_DOUBLE_FP_CONFIG, &fp64, sizeof(fp64)))
        fp64 = 0;
    if (fp64 != 0 || has_ext(exts, "cl_khr_fp64"))
        out->caps |= GC_CAP_FP64;
    if (has_ext(exts, "cl_khr_fp16"))
        out->caps |= GC_CAP_FP16;

    /* simd_width: the warp size where the device says it (NVIDIA); else the
     * preferred work-group multiple of a trivial kernel, which is only known
     * once the device has been opened (probe_simd_width). Before that it is
     * 1, the one value that is true of every device. */
    simd = atomic_load(&e->simd_width);
    if (has_ext(exts, "cl_nv_device_attribute_query")) {
        if (dev_get(e->device, GC_CL_NV_CC_MAJOR, &nv, sizeof(nv)))
            out->cc_major = (int)nv;
        if (dev_get(e->device, GC_CL_NV_CC_MINOR, &nv, sizeof(nv)))
            out->cc_minor = (int)nv;
        if (dev_get(e->device, GC_CL_NV_WARP_SIZE, &nv, sizeof(nv)) && nv > 0)
            simd = (int)nv;
        /* NVIDIA's figure is the per-SM L1, not the L2: unknown is truer. */
        out->l2_size = 0;
    }
    out->simd_width = simd > 0 ? simd : 1;
    if (out->type == GC_DEVICE_CPU)
        out->vector_bytes = vector_bytes(e->device);
    pci_bus_id(e->device, exts, out->pci_bus_id, sizeof(out->pci_bus_id));
    rc = 0;
out:
    free(name);
    free(vendor);
    free(pname);
    free(pver);
    free(dver);
    free(dev_ver);
    free(exts);
    return rc;
}

/* Learns the preferred work-group size multiple from a trivial kernel and
 * stores it for device_info. Best effort: a device without a compiler keeps
 * the default, and the failure is not an error of open(). */
static void probe_simd_width(struct gc_dev *d)
{
    static const char *src = "__kernel void gc_probe(__global int *p)\n"
                             "{\n"
                             "    p[get_global_id(0)] = (int)get_local_id(0);\n"
                             "}\n";
    cl_program prog = NULL;
    cl_kernel k = NULL;
    size_t multiple = 0;
    cl_int clrc;

    if (atomic_load(&g_devs[d->index].simd_width) > 0)
        return;
    prog = gc__cl.clCreateProgramWithSource(d->ctx, 1, &src, NULL, &clrc);
    if (clrc != CL_SUCCESS || !prog)
        goto out;
    if (gc__cl.clBuildProgram(prog, 1, &d->device, NULL, NULL, NULL) != CL_SUCCESS)
        goto out;
    k = gc__cl.clCreateKernel(prog, "gc_probe", &clrc);
    if (clrc != CL_SUCCESS || !k)
        goto out;
    if (gc__cl.clGetKernelWorkGroupInfo(k, d->device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                        sizeof(multiple), &multiple, NULL) != CL_SUCCESS)
        goto out;
    if (multiple > 0 && multiple <= 1u << 16)
        atomic_store(&g_devs[d->index].simd_width, (int)multiple);
out:
    if (k)
        gc__cl.clReleaseKernel(k);
    if (prog)
        gc__cl.clReleaseProgram(prog);
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
    probe_simd_width(d);
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

/* The build log of prog for the device, malloc'ed; NULL when empty or not
 * available. */
static char *build_log(cl_program prog, cl_device_id device)
{
    size_t n = 0;
    char *s;

    if (gc__cl.clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) !=
            CL_SUCCESS ||
        n == 0)
        return NULL;
    s = malloc(n + 1);
    if (!s)
        return NULL;
    if (gc__cl.clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, n, s, NULL) !=
        CL_SUCCESS) {
        free(s);
        return NULL;
    }
    s[n] = '\0';
    /* Implementations pad the log with blank lines; trim them so that an
     * empty log reads as none. */
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\0'))
        s[--n] = '\0';
    if (n == 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Builds prog for the device; a failure is GC_ECOMPILE with the log in the
 * error message, which names the calling function and line. The log is
 * handed to *log when log is not NULL. */
static int build(struct gc_dev *d, cl_program prog, const char *options, char **log,
                 const char *func, int line)
{
    cl_int clrc = gc__cl.clBuildProgram(prog, 1, &d->device, options, NULL, NULL);
    char *lg = build_log(prog, d->device);

    if (clrc != CL_SUCCESS)
        gc__cl_set_cl_error(d, "clBuildProgram", clrc, func, line,
                            lg ? lg : "(the compiler wrote no log)");
    if (log)
        *log = lg;
    else
        free(lg);
    return clrc == CL_SUCCESS ? 0 : GC_ECOMPILE;
}

/* Each call builds its own program object, and OpenCL allows building
 * distinct programs from several threads at once, so compile() needs no lock
 * of its own. */
static int ocl_compile(struct gc_dev *d, const char *src, const char *options, void **bin,
                       size_t *binlen, char **log)
{
    cl_program prog = NULL;
    unsigned char *b = NULL;
    unsigned char *ptrs[1];
    size_t n = 0;
    cl_int clrc;
    int rc = GC_EBACKEND;

    *bin = NULL;
    *binlen = 0;
    if (log)
        *log = NULL;
    GC_CL_CREATE(d, prog, gc__cl.clCreateProgramWithSource(d->ctx, 1, &src, NULL, &clrc));
    rc = build(d, prog, options, log, __func__, __LINE__);
    if (rc)
        goto out;
    rc = GC_EBACKEND;
    GC_CL_CALL(d, gc__cl.clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(n), &n, NULL));
    if (n == 0) {
        gc__cl_set_error(d, "clGetProgramInfo reports an empty binary for the built program");
        goto out;
    }
    b = malloc(n);
    if (!b) {
        rc = GC_ENOMEM;
        gc__cl_set_error(d, "out of host memory for a %zu-byte program binary", n);
        goto out;
    }
    ptrs[0] = b;
    GC_CL_CALL(d, gc__cl.clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(ptrs), ptrs, NULL));
    *bin = b;
    *binlen = n;
    b = NULL;
    rc = 0;
out:
    free(b);
    if (prog)
        gc__cl.clReleaseProgram(prog);
    return rc;
}

static void ocl_unload(struct gc_prog *p)
{
    if (!p)
        return;
    while (p->kernels) {
        struct gc_kern *k = p->kernels;

        p->kernels = k->next;
        gc__cl.clReleaseKernel(k->kernel);
        free(k);
    }
    if (p->program)
        gc__cl.clReleaseProgram(p->program);
    free(p);
}

static int ocl_load(struct gc_dev *d, const void *bin, size_t binlen, struct gc_prog **out)
{
    struct gc_prog *p = NULL;
    const unsigned char *b = bin;
    cl_int status = CL_SUCCESS, clrc;
    int rc = GC_EBACKEND;

    *out = NULL;
    p = calloc(1, sizeof(*p));
    if (!p) {
        gc__cl_set_error(d, "out of host memory loading a program");
        return GC_ENOMEM;
    }
    p->dev = d;
    GC_CL_CREATE(
        d, p->program,
        gc__cl.clCreateProgramWithBinary(d->ctx, 1, &d->device, &binlen, &b, &status, &clrc));
    /* A binary must still be built before kernels can be created from it;
     * for most implementations this only finalises it (NVIDIA translates its
     * PTX here). */
    rc = build(d, p->program, NULL, NULL, __func__, __LINE__);
    if (rc)
        goto out;
    *out = p;
    p = NULL;
out:
    ocl_unload(p);
    return rc;
}

static int ocl_kernel(struct gc_prog *p, const char *name, struct gc_kern **out)
{
    struct gc_dev *d = p->dev;
    struct gc_kern *k = NULL;
    cl_ulong local = 0;
    cl_int clrc = CL_SUCCESS;
    int rc = GC_EBACKEND;

    *out = NULL;
    k = calloc(1, sizeof(*k));
    if (!k) {
        gc__cl_set_error(d, "out of host memory creating kernel %s", name);
        return GC_ENOMEM;
    }
    k->prog = p;
    snprintf(k->name, sizeof(k->name), "%s", name);
    GC_CL_CREATE(d, k->kernel, gc__cl.clCreateKernel(p->program, name, &clrc));
    GC_CL_CALL(d, gc__cl.clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof(k->nargs), &k->nargs,
                                         NULL));
    GC_CL_CALL(d, gc__cl.clGetKernelWorkGroupInfo(k->kernel, d->device, CL_KERNEL_WORK_GROUP_SIZE,
                                                  sizeof(k->max_wg), &k->max_wg, NULL));
    /* Queried now, while no __local argument is set: later the figure would
     * include the dynamic local memory of the last launch. */
    GC_CL_CALL(d, gc__cl.clGetKernelWorkGroupInfo(k->kernel, d->device, CL_KERNEL_LOCAL_MEM_SIZE,
                                                  sizeof(local), &local, NULL));
    k->static_local = (size_t)local;
    k->next = p->kernels;
    p->kernels = k;
    *out = k;
    k = NULL;
    rc = 0;
out:
    if (k) {
        if (k->kernel)
            gc__cl.clReleaseKernel(k->kernel);
        free(k);
        if (clrc == CL_INVALID_KERNEL_NAME)
            rc = GC_EINVAL;
    }
    return rc;
}

/* OpenCL does not report registers per work-item: regs is 0 (unknown). */
static int ocl_kernel_attrs(struct gc_kern *k, int *regs, size_t *static_shared, int *max_threads)
{
    if (regs)
        *regs = 0;
    if (static_shared)
        *static_shared = k->static_local;
    if (max_threads)
        *max_threads = (int)k->max_wg;
    return 0;
}

static int ocl_alloc(struct gc_dev *d, size_t bytes, struct gc_buf **out)
{
    struct gc_buf *b = NULL;
    const unsigned char zero = 0;
    cl_int clrc = CL_SUCCESS;
    int rc = GC_EBACKEND;

    *out = NULL;
    if (bytes == 0) {
        gc__cl_set_error(d, "cannot allocate a buffer of 0 bytes");
        return GC_EINVAL;
    }
    if (bytes > d->max_alloc) {
        gc__cl_set_error(d,
                         "cannot allocate %zu bytes: the device's largest buffer "
                         "(CL_DEVICE_MAX_MEM_ALLOC_SIZE) is %zu bytes",
                         bytes, d->max_alloc);
        return GC_EDEVMEM;
    }
    b = calloc(1, sizeof(*b));
    if (!b) {
        gc__cl_set_error(d, "out of host memory allocating a buffer");
        return GC_ENOMEM;
    }
    b->dev = d;
    b->size = bytes;
    GC_CL_CREATE(d, b->mem, gc__cl.clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &clrc));
    /* Implementations may defer the allocation to the first use of the
     * buffer; one byte written now makes a shortage show here, as
     * GC_EDEVMEM, rather than later as a failed launch. */
    GC_CL_CALL(d,
               gc__cl.clEnqueueWriteBuffer(d->queue, b->mem, CL_TRUE, 0, 1, &zero, 0, NULL, NULL));
    *out = b;
    b = NULL;
    rc = 0;
out:
    if (b) {
        if (clrc == CL_MEM_OBJECT_ALLOCATION_FAILURE || clrc == CL_OUT_OF_RESOURCES ||
            clrc == CL_INVALID_BUFFER_SIZE)
            rc = GC_EDEVMEM;
        else if (clrc == CL_OUT_OF_HOST_MEMORY)
            rc = GC_ENOMEM;
        if (b->mem)
            gc__cl.clReleaseMemObject(b->mem);
        free(b);
    }
    return rc;
}

#if defined(__linux__) && defined(MADV_HUGEPAGE)
/* Bytes of [p, p + len) that the kernel backs with transparent huge pages:
 * the AnonHugePages of the mappings that overlap the range
 * (/proc/self/smaps), at most len. */
static size_t huge_bytes(const void *p, size_t len)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + len;
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    bool in = false;
    size_t kib = 0, total = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long a, b;
        char c;
        if (sscanf(line, "%lx-%lx %c", &a, &b, &c) == 3 && strchr(line, '-') < strchr(line, ' ')) {
            in = a < hi && b > lo;
            continue;
        }
        if (in && sscanf(line, "AnonHugePages: %zu kB", &kib) == 1)
            total += kib * 1024;
    }
    fclose(f);
    return total < len ? total : len;
}
#endif

static int ocl_alloc_large_pages(struct gc_dev *d, size_t bytes, struct gc_buf **out,
                                 size_t *large_bytes)
{
    *out = NULL;
    *large_bytes = 0;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t page = (size_t)2 << 20;
    struct gc_buf *b = NULL;
    cl_int clrc = CL_SUCCESS;
    int rc = GC_EBACKEND;
    size_t len;
    void *host;

    if (!d->cpu) {
        gc__cl_set_error(d, "the device does not run on host memory");
        return GC_ENOTSUP;
    }
    if (bytes == 0 || bytes > d->max_alloc)
        return ocl_alloc(d, bytes, out);
    len = (bytes + page - 1) / page * page;
    host = aligned_alloc(page, len);
    if (!host) {
        gc__cl_set_error(d, "out of host memory allocating %zu bytes", len);
        return GC_ENOMEM;
    }
    if (madvise(host, len, MADV_HUGEPAGE) != 0) {
        free(host);
        gc__cl_set_error(d,
                         "madvise(MADV_HUGEPAGE) failed: the host has no transparent huge pages");
        return GC_ENOTSUP;
    }
    /* Touched now, so that the pages are the huge ones and counted. */
    memset(host, 0, len);
    b = calloc(1, sizeof(*b));
    if (!b) {
        free(host);
        gc__cl_set_error(d, "out of host memory allocating a buffer");
        return GC_ENOMEM;
    }
    b->dev = d;
    b->size = bytes;
    b->host = host;
    GC_CL_CREATE(
        d, b->mem,
        gc__cl.clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &clrc));
    *large_bytes = huge_bytes(host, len);
    *out = b;
    b = NULL;
    rc = 0;
out:
    if (b) {
        if (clrc == CL_MEM_OBJECT_ALLOCATION_FAILURE || clrc == CL_OUT_OF_RESOURCES ||
            clrc == CL_INVALID_BUFFER_SIZE)
            rc = GC_EDEVMEM;
        else if (clrc == CL_OUT_OF_HOST_MEMORY)
            rc = GC_ENOMEM;
        free(b->host);
        free(b);
    }
    return rc;
#else
    (void)bytes;
    gc__cl_set_error(d, "no transparent huge pages on this host");
    return GC_ENOTSUP;
#endif
}

static void ocl_free(struct gc_buf *b)
{
    if (!b || b->borrowed)
        return;
    gc__cl.clReleaseMemObject(b->mem);
    if (b->host) {
        /* The driver may use the host memory until the queue has drained. */
        gc__cl.clFinish(b->dev->queue);
        free(b->host);
    }
    free(b);
}

/* Checks that [offset, offset + bytes) lies inside the buffer. */
static int check_range(const struct gc_buf *b, size_t offset, size_t bytes, const char *what)
{
    if (offset > b->size || bytes > b->size - offset) {
        gc__cl_set_error(b->dev, "%s of %zu bytes at offset %zu exceeds the %zu-byte buffer", what,
                         bytes, offset, b->size);
        return GC_EINVAL;
    }
    return 0;
}

static int ocl_write(struct gc_buf *b, size_t offset, const void *src, size_t bytes)
{
    struct gc_dev *d = b->dev;
    cl_int clrc;
    int rc = check_range(b, offset, bytes, "write");

    if (rc || bytes == 0)
        return rc;
    rc = GC_EBACKEND;
    GC_CL_CALL(d, gc__cl.clEnqueueWriteBuffer(d->queue, b->mem, CL_TRUE, offset, bytes, src, 0,
                                              NULL, NULL));
    rc = 0;
out:
    return rc;
}

static int ocl_read(struct gc_buf *b, size_t offset, void *dst, size_t bytes)
{
    struct gc_dev *d = b->dev;
    cl_int clrc;
    int rc = check_range(b, offset, bytes, "read");

    if (rc || bytes == 0)
        return rc;
    rc = GC_EBACKEND;
    GC_CL_CALL(d, gc__cl.clEnqueueReadBuffer(d->queue, b->mem, CL_TRUE, offset, bytes, dst, 0, NULL,
                                             NULL));
    rc = 0;
out:
    return rc;
}

static int ocl_copy(struct gc_buf *dst, size_t dst_off, struct gc_buf *src, size_t src_off,
                    size_t bytes)
{
    struct gc_dev *d = dst->dev;
    cl_int clrc;
    int rc;

    if (src->dev != d) {
        gc__cl_set_error(d, "cannot copy between buffers of two different devices");
        return GC_EINVAL;
    }
    rc = check_range(dst, dst_off, bytes, "copy destination");
    if (!rc)
        rc = check_range(src, src_off, bytes, "copy source");
    if (rc || bytes == 0)
        return rc;
    rc = GC_EBACKEND;
    GC_CL_CALL(d, gc__cl.clEnqueueCopyBuffer(d->queue, src->mem, dst->mem, src_off, dst_off, bytes,
                                             0, NULL, NULL));
    GC_CL_CALL(d, gc__cl.clFinish(d->queue));
    rc = 0;
out:
    return rc;
}

static int ocl_map(struct gc_buf *b, size_t offset, size_t bytes, void **host)
{
    struct gc_dev *d = b->dev;
    cl_int clrc;
    int rc = check_range(b, offset, bytes, "map");

    *host = NULL;
    if (rc)
        return rc;
    if (bytes == 0) {
        gc__cl_set_error(d, "cannot map 0 bytes");
        return GC_EINVAL;
    }
    rc = GC_EBACKEND;
    GC_CL_CREATE(d, *host,
                 gc__cl.clEnqueueMapBuffer(d->queue, b->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                           offset, bytes, 0, NULL, NULL, &clrc));
    rc = 0;
out:
    return rc;
}

/* Waits for the unmap, so that the data is on the device when it returns. */
static int ocl_unmap(struct gc_buf *b, void *host)
{
    struct gc_dev *d = b->dev;
    cl_int clrc;
    int rc = GC_EBACKEND;

    GC_CL_CALL(d, gc__cl.clEnqueueUnmapMemObject(d->queue, b->mem, host, 0, NULL, NULL));
    GC_CL_CALL(d, gc__cl.clFinish(d->queue));
    rc = 0;
out:
    return rc;
}

/* Sets the launch's arguments. The dynamic local memory is the kernel's last
 * parameter (GC_DYN_SHARED_PARAM of the kernel vocabulary). A kernel that
 * declares it gets a 16-byte placeholder when the launch asks for none,
 * since OpenCL rejects a __local argument of size 0. */
int gc__cl_set_args(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l)
{
    cl_int clrc;
    int rc = GC_EINVAL;
    size_t dyn = l->dyn_shared;

    if (l->nargs < 0 || (l->nargs > 0 && !l->args)) {
        gc__cl_set_error(d, "launch of %s: invalid argument list (nargs %d)", k->name, l->nargs);
        goto out;
    }
    if (dyn == 0 && k->nargs == (cl_uint)l->nargs + 1)
        dyn = 16;
    if (k->nargs != (cl_uint)l->nargs + (dyn > 0)) {
        gc__cl_set_error(d, "launch of %s: the kernel takes %u arguments, the launch gives %d%s",
                         k->name, (unsigned)k->nargs, l->nargs,
                         dyn > 0 ? " plus the dynamic __local one" : "");
        goto out;
    }
    /* Some implementations (PoCL) accept any __local size; checked here so
     * that every device refuses an oversized request the same way. */
    if (dyn > d->local_mem || k->static_local > d->local_mem - dyn) {
        gc__cl_set_error(
            d,
            "launch of %s: %zu bytes of static and %zu of dynamic __local memory exceed "
            "the device's %zu (CL_DEVICE_LOCAL_MEM_SIZE)",
            k->name, k->static_local, dyn, d->local_mem);
        rc = GC_ELAUNCH;
        goto out;
    }
    rc = GC_ELAUNCH;
    for (int i = 0; i < l->nargs; i++) {
        const struct gc_arg *a = &l->args[i];
        cl_mem mem;

        switch (a->type) {
        case GC_ARG_BUF:
            mem = a->v.buf ? a->v.buf->mem : NULL;
            GC_CL_CALL(d, gc__cl.clSetKernelArg(k->kernel, (cl_uint)i, sizeof(mem), &mem));
            break;
        case GC_ARG_I32:
            GC_CL_CALL(d,
                       gc__cl.clSetKernelArg(k->kernel, (cl_uint)i, sizeof(a->v.i32), &a->v.i32));
            break;
        case GC_ARG_U32:
            GC_CL_CALL(d,
                       gc__cl.clSetKernelArg(k->kernel, (cl_uint)i, sizeof(a->v.u32), &a->v.u32));
            break;
        case GC_ARG_I64:
            GC_CL_CALL(d,
                       gc__cl.clSetKernelArg(k->kernel, (cl_uint)i, sizeof(a->v.i64), &a->v.i64));
            break;
        case GC_ARG_U64:
            GC_CL_CALL(d,
                       gc__cl.clSetKernelArg(k->kernel, (cl_uint)i, sizeof(a->v.u64), &a->v.u64));
            break;
        case GC_ARG_F32:
            GC_CL_CALL(d,
                       gc__cl.clSetKernelArg(k->kernel, (cl_uint)i, sizeof(a->v.f32), &a->v.f32));
            break;
        case GC_ARG_F64:
            GC_CL_CALL(d,
                       gc__cl.clSetKernelArg(k->kernel, (cl_uint)i, sizeof(a->v.f64), &a->v.f64));
            break;
        default:
            gc__cl_set_error(d, "launch of %s: argument %d has unknown type %d", k->name, i,
                             (int)a->type);
            rc = GC_EINVAL;
            goto out;
        }
    }
    if (dyn > 0)
        GC_CL_CALL(d, gc__cl.clSetKernelArg(k->kernel, (cl_uint)l->nargs, dyn, NULL));
    rc = 0;
out:
    return rc;
}

int gc__cl_launch_shape(struct gc_dev *d, const struct gc_kern *k, const struct gc_launch *l,
                        size_t global[3], size_t local[3], cl_uint *dims)
{
    if (l->count < 1) {
        gc__cl_set_error(d, "launch of %s: count %d must be at least 1", k->name, l->count);
        return GC_EINVAL;
    }
    *dims = 1;
    for (int i = 0; i < 3; i++) {
        if (l->grid[i] == 0 || l->block[i] == 0) {
            gc__cl_set_error(d, "launch of %s: grid %ux%ux%u and block %ux%ux%u must have no 0",
                             k->name, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                             l->block[2]);
            return GC_EINVAL;
        }
        global[i] = (size_t)l->grid[i] * l->block[i];
        local[i] = l->block[i];
        /* The work dimension is the highest one in use, so that kernels see
         * get_work_dim() as the caller meant it. */
        if (i > 0 && (l->grid[i] != 1 || l->block[i] != 1))
            *dims = (cl_uint)i + 1;
    }
    return 0;
}

static int ocl_launch(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                      double *elapsed_s)
{
    cl_event first = NULL, last = NULL;
    size_t global[3], local[3];
    cl_ulong start = 0, end = 0;
    cl_uint dims = 1;
    cl_int clrc;
    int rc;

    *elapsed_s = 0;
    rc = gc__cl_launch_shape(d, k, l, global, local, &dims);
    if (rc)
        return rc;
    rc = gc__cl_set_args(d, k, l);
    if (rc)
        return rc;
    rc = GC_ELAUNCH;
    for (int i = 0; i < l->count; i++) {
        cl_event *ev = i == 0 ? &first : i == l->count - 1 ? &last : NULL;

        GC_CL_CALL(d, gc__cl.clEnqueueNDRangeKernel(d->queue, k->kernel, dims, NULL, global, local,
                                                    0, NULL, ev));
    }
    GC_CL_CALL(d, gc__cl.clFinish(d->queue));
    if (!last)
        last = first;
    /* clFinish does not report a command that failed while executing; the
     * wait on its event does. */
    GC_CL_CALL(d, gc__cl.clWaitForEvents(1, &last));
    GC_CL_CALL(d, gc__cl.clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof(start),
                                                 &start, NULL));
    GC_CL_CALL(
        d, gc__cl.clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL));
    *elapsed_s = end > start ? (double)(end - start) * 1e-9 : 0.0;
    rc = 0;
out:
    if (last && last != first)
        gc__cl.clReleaseEvent(last);
    if (first)
        gc__cl.clReleaseEvent(first);
    return rc;
}

static void ocl_describe(struct gc_dev *d, char *buf, size_t len)
{
    char *pname = info_str(d->platform, NULL, CL_PLATFORM_NAME);
    char *pver = info_str(d->platform, NULL, CL_PLATFORM_VERSION);
    char *drv = info_str(NULL, d->device, CL_DRIVER_VERSION);
    char *dver = info_str(NULL, d->device, CL_DEVICE_VERSION);
    char *cver = info_str(NULL, d->device, CL_DEVICE_OPENCL_C_VERSION);
    char *exts = info_str(NULL, d->device, CL_DEVICE_EXTENSIONS);

    snprintf(buf, len,
             "platform=%s; platform_version=%s; driver=%s; device_version=%s; opencl_c=%s; "
             "extensions_fp64=%s",
             pname ? pname : "?", pver ? pver : "?", drv ? drv : "?", dver ? dver : "?",
             cver ? cver : "?", has_ext(exts, "cl_khr_fp64") ? "yes" : "no");
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
    .device_info = ocl_device_info,
    .open = ocl_open,
    .close = ocl_close,
    .last_error = ocl_last_error,
    .compile = ocl_compile,
    .load = ocl_load,
    .unload = ocl_unload,
    .kernel = ocl_kernel,
    .kernel_attrs = ocl_kernel_attrs,
    /* OpenCL has no occupancy query. */
    .max_active_blocks = NULL,
    .alloc = ocl_alloc,
    .alloc_large_pages = ocl_alloc_large_pages,
    .free = ocl_free,
    .write = ocl_write,
    .read = ocl_read,
    .copy = ocl_copy,
    .map = ocl_map,
    .unmap = ocl_unmap,
    .launch = ocl_launch,
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
};
