/* The OpenCL backend's device facts: what the platform reports of a device
 * (device_info), with NVIDIA's attribute query, and what a trivial kernel
 * learns once the device is open. */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/opencl/loader.h"
#include "backend/opencl/devices.h"
#include "backend/opencl/opencl_int.h"

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

/* A string property of a device (device != NULL) or of a platform, malloc'ed
 * and NUL-terminated; NULL when the query fails or memory runs out. */
char *gc__cl_info_str(cl_platform_id platform, cl_device_id device, cl_uint param)
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
bool gc__cl_dev_get(cl_device_id d, cl_uint param, void *v, size_t n)
{
    return gc__cl.clGetDeviceInfo(d, param, n, v, NULL) == CL_SUCCESS;
}

/* True when the space-separated extension list exts names ext. */
bool gc__cl_has_ext(const char *exts, const char *ext)
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

    if (gc__cl_has_ext(exts, "cl_khr_pci_bus_info") &&
        gc__cl_dev_get(d, GC_CL_PCI_BUS_INFO_KHR, &pci, sizeof(pci))) {
        snprintf(out, len, "%04x:%02x:%02x.%x", pci.domain & 0xffffu, pci.bus & 0xffu,
                 pci.device & 0x1fu, pci.function & 7u);
        return;
    }
    if (!gc__cl_has_ext(exts, "cl_nv_device_attribute_query"))
        return;
    if (!gc__cl_dev_get(d, GC_CL_NV_PCI_BUS, &bus, sizeof(bus)) ||
        !gc__cl_dev_get(d, GC_CL_NV_PCI_SLOT, &slot, sizeof(slot)))
        return;
    if (!gc__cl_dev_get(d, GC_CL_NV_PCI_DOMAIN, &domain, sizeof(domain)))
        domain = 0;
    snprintf(out, len, "%04x:%02x:%02x.%x", domain & 0xffffu, bus & 0xffu, (slot >> 3) & 0x1fu,
             slot & 7u);
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

        if (gc__cl_dev_get(d, q[i].param, &w, sizeof(w)) && w > 0 && w <= 64 &&
            (int)w * q[i].size > best)
            best = (int)w * q[i].size;
    }
    return best;
}

/* The in-kernel clocks, probed once per device: only on NVIDIA's platform,
 * whose compiler is the one that takes inline PTX (elsewhere the probe
 * would only cost a compile that must fail). */
static unsigned nv_clock_caps(struct gc__cl_devent *e, const char *exts, int compute_units)
{
    int v = atomic_load(&e->clock_caps);

    if (v > 0)
        return (unsigned)(v - 1);
    if (!gc__cl_has_ext(exts, "cl_nv_device_attribute_query"))
        return 0;
    v = (int)gc__cl_probe_clocks(e->platform, e->device, compute_units) + 1;
    atomic_store(&e->clock_caps, v);
    return (unsigned)(v - 1);
}

/* The capability flags, NVIDIA's compute capability, and the SIMD width.
 * simd_width: the warp size where the device says it (NVIDIA); else the
 * preferred work-group multiple of a trivial kernel, which is only known once
 * the device has been opened (probe_simd_width). Before that it is 1, the one
 * value that is true of every device. */
static void caps_and_simd(struct gc__cl_devent *e, const char *exts, struct gc_device_info *out)
{
    cl_ulong fp64 = 0;
    cl_uint nv;
    int simd;

    out->caps = GC_CAP_DYN_SHARED;
    if (!gc__cl_dev_get(e->device, CL_DEVICE_DOUBLE_FP_CONFIG, &fp64, sizeof(fp64)))
        fp64 = 0;
    if (fp64 != 0 || gc__cl_has_ext(exts, "cl_khr_fp64"))
        out->caps |= GC_CAP_FP64;
    if (gc__cl_has_ext(exts, "cl_khr_fp16"))
        out->caps |= GC_CAP_FP16;

    simd = atomic_load(&e->simd_width);
    if (gc__cl_has_ext(exts, "cl_nv_device_attribute_query")) {
        if (gc__cl_dev_get(e->device, GC_CL_NV_CC_MAJOR, &nv, sizeof(nv)))
            out->cc_major = (int)nv;
        if (gc__cl_dev_get(e->device, GC_CL_NV_CC_MINOR, &nv, sizeof(nv)))
            out->cc_minor = (int)nv;
        if (gc__cl_dev_get(e->device, GC_CL_NV_WARP_SIZE, &nv, sizeof(nv)) && nv > 0)
            simd = (int)nv;
        /* NVIDIA's figure is the per-SM L1, not the L2: unknown is truer. */
        out->l2_size = 0;
    }
    out->caps |= nv_clock_caps(e, exts, out->compute_units);
    out->simd_width = simd > 0 ? simd : 1;
}

int gc__cl_device_info(int index, struct gc_device_info *out)
{
    struct gc__cl_devent *e = gc__cl_devent(index);
    char *name = NULL, *vendor = NULL, *pname = NULL, *pver = NULL, *dver = NULL, *dev_ver = NULL,
         *exts = NULL;
    cl_device_type type;
    cl_uint cu, clock, cache_type;
    size_t wg;
    cl_ulong local, global, alloc, cache;
    cl_bool ecc;
    int rc = GC_EBACKEND;

    if (!e || !out)
        return GC_ENODEV;
    memset(out, 0, sizeof(*out));

    name = gc__cl_info_str(NULL, e->device, CL_DEVICE_NAME);
    vendor = gc__cl_info_str(NULL, e->device, CL_DEVICE_VENDOR);
    dver = gc__cl_info_str(NULL, e->device, CL_DRIVER_VERSION);
    dev_ver = gc__cl_info_str(NULL, e->device, CL_DEVICE_VERSION);
    exts = gc__cl_info_str(NULL, e->device, CL_DEVICE_EXTENSIONS);
    pname = gc__cl_info_str(e->platform, NULL, CL_PLATFORM_NAME);
    pver = gc__cl_info_str(e->platform, NULL, CL_PLATFORM_VERSION);
    if (!name || !vendor || !dver || !dev_ver || !exts || !pname || !pver)
        goto out;
    if (!gc__cl_dev_get(e->device, CL_DEVICE_TYPE, &type, sizeof(type)) ||
        !gc__cl_dev_get(e->device, CL_DEVICE_MAX_COMPUTE_UNITS, &cu, sizeof(cu)) ||
        !gc__cl_dev_get(e->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, &wg, sizeof(wg)) ||
        !gc__cl_dev_get(e->device, CL_DEVICE_LOCAL_MEM_SIZE, &local, sizeof(local)) ||
        !gc__cl_dev_get(e->device, CL_DEVICE_GLOBAL_MEM_SIZE, &global, sizeof(global)) ||
        !gc__cl_dev_get(e->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, &alloc, sizeof(alloc)) ||
        !gc__cl_dev_get(e->device, CL_DEVICE_MAX_CLOCK_FREQUENCY, &clock, sizeof(clock)))
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
    if (gc__cl_dev_get(e->device, CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, &cache_type,
                       sizeof(cache_type)) &&
        cache_type != CL_NONE &&
        gc__cl_dev_get(e->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, &cache, sizeof(cache)))
        out->l2_size = (size_t)cache;
    out->clock_mhz = (double)clock;
    out->mem_bw_spec = NAN;
    out->ecc_enabled = -1;
    if (gc__cl_dev_get(e->device, CL_DEVICE_ERROR_CORRECTION_SUPPORT, &ecc, sizeof(ecc)))
        out->ecc_enabled = ecc ? 1 : 0;

    caps_and_simd(e, exts, out);
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
void gc__cl_probe_simd_width(struct gc_dev *d)
{
    static const char *src = "__kernel void gc_probe(__global int *p)\n"
                             "{\n"
                             "    p[get_global_id(0)] = (int)get_local_id(0);\n"
                             "}\n";
    cl_program prog = NULL;
    cl_kernel k = NULL;
    size_t multiple = 0;
    cl_int clrc;

    struct gc__cl_devent *e = gc__cl_devent(d->index);

    if (!e || atomic_load(&e->simd_width) > 0)
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
        atomic_store(&e->simd_width, (int)multiple);
out:
    if (k)
        gc__cl.clReleaseKernel(k);
    if (prog)
        gc__cl.clReleaseProgram(prog);
}
