/* The CUDA backend: devices, buffers and launches through the driver API,
 * kernels compiled with NVRTC, clocks, power and throttling read with NVML. */
#include "backend/cuda/cuda.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/cuda/cuda_int.h"
#include "backend/cuda/loader.h"
#include "backend/cuda/nvrtc.h"

/* Dynamic shared memory a kernel may use without opting in. */
#define DEFAULT_DYN_SHARED_LIMIT (48u * 1024u)

/* What map() puts in front of the host copy it returns, so that unmap() finds
 * the range to write back from the pointer alone. The union keeps the copy
 * aligned for any type. */
union map_hdr {
    struct {
        struct gc_buf *buf;
        size_t offset, bytes;
    } m;
    max_align_t align;
};

/* Backend state shared by every device, guarded by g_lock in init/fini. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_refs;
static int g_ndev;
static int g_driver_version; /* 13000 for CUDA 13.0 */
static bool g_have_nvrtc;
static int g_nvrtc_major, g_nvrtc_minor;
static char g_nvrtc_why[768];
static bool g_have_nvml;
static char g_nvml_driver[GC_NVML_DRIVER_VERSION_LEN];
static char g_nvml_why[512];

static int nvml_fail(struct gc_dev *d, nvmlReturn_t res, const char *call, const char *func,
                     int line)
{
    char api[96];

    gc__cu_api_name(call, api, sizeof(api));
    gc__cu_set_error(d, "%s failed: %s (NVML error %d, in %s, line %d)", api,
                     gc__nvml.nvmlErrorString(res), (int)res, func, line);
    return res == NVML_ERROR_NOT_SUPPORTED ? GC_ENOTSUP : GC_EBACKEND;
}

/* NVML calls: like GC_CU_CALL (cuda_int.h). */
#define GC_NVML_CALL(dev, call)                                                                    \
    do {                                                                                           \
        nvmlReturn_t gc__res = (call);                                                             \
        if (gc__res != NVML_SUCCESS) {                                                             \
            rc = nvml_fail((dev), gc__res, #call, __func__, __LINE__);                             \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- Init -------------------------------------------------------------- */

/* Starts NVML; on failure the reason goes to g_nvml_why and sensors are
 * absent, which is not an error of the backend. */
static void nvml_start(void)
{
    int rc = 0;

    g_have_nvml = false;
    g_nvml_driver[0] = '\0';
    if (gc__nvml_load(g_nvml_why, sizeof(g_nvml_why)))
        return;
    GC_NVML_CALL(NULL, gc__nvml.nvmlInit());
    g_have_nvml = true;
    if (gc__nvml.nvmlSystemGetDriverVersion(g_nvml_driver, sizeof(g_nvml_driver)) != NVML_SUCCESS)
        g_nvml_driver[0] = '\0';
out:
    if (rc) {
        snprintf(g_nvml_why, sizeof(g_nvml_why), "%.*s", (int)sizeof(g_nvml_why) - 1,
                 gc__cu_backend_error());
        gc__nvml_unload();
    }
}

static int cuda_init(char *why, size_t whylen)
{
    bool loaded = false, started = false;
    int rc = 0, n = 0, ver = 0;
    CUresult res;

    pthread_mutex_lock(&g_lock);
    if (g_refs > 0) {
        g_refs++;
        goto out;
    }
    gc__cu_set_error(NULL, "%s", "");
    rc = gc__cu_load(why, whylen);
    if (rc)
        goto out;
    loaded = true;
    res = gc__cu.cuInit(0);
    /* A driver without a visible GPU is a machine with zero devices. */
    if (res != CUDA_SUCCESS && res != CUDA_ERROR_NO_DEVICE) {
        rc = gc__cu_fail(NULL, res, "cuInit(0)", __func__, __LINE__);
        gc__cu_append_error(NULL, " [driver library %s]", gc__cu_libname());
        /* The toolkit's stub libcuda, or a driver older than the API it was
         * asked for, means there is no usable driver. */
        if (res == CUDA_ERROR_STUB_LIBRARY || res == CUDA_ERROR_INSUFFICIENT_DRIVER)
            rc = GC_ENOLIB;
        goto out;
    }
    started = true;
    GC_CU_CALL(NULL, gc__cu.cuDriverGetVersion(&ver));
    if (res == CUDA_SUCCESS)
        GC_CU_CALL(NULL, gc__cu.cuDeviceGetCount(&n));
    g_have_nvrtc = gc__nvrtc_load(ver / 1000, &g_nvrtc_major, &g_nvrtc_minor, g_nvrtc_why,
                                  sizeof(g_nvrtc_why)) == 0;
    nvml_start();
    g_ndev = n;
    g_driver_version = ver;
    g_refs = 1;
out:
    if (rc && gc__cu_backend_error()[0])
        snprintf(why, whylen, "%s", gc__cu_backend_error());
    if (rc && loaded)
        gc__cu_unload(started);
    pthread_mutex_unlock(&g_lock);
    return rc;
}

static void cuda_fini(void)
{
    pthread_mutex_lock(&g_lock);
    if (g_refs > 0 && --g_refs == 0) {
        if (g_have_nvml)
            gc__nvml.nvmlShutdown();
        gc__nvml_unload();
        /* NVRTC and the driver stay mapped (see loader.h). */
        gc__nvrtc_unload(true);
        gc__cu_unload(true);
        g_have_nvml = g_have_nvrtc = false;
        g_ndev = 0;
    }
    pthread_mutex_unlock(&g_lock);
}

static int cuda_device_count(void)
{
    return g_ndev;
}

/* ---- Device information ------------------------------------------------ */

/* An attribute that a driver may not know (a newer one than it supports):
 * 0 when the query fails, which device_info documents as unknown. */
static int attr(CUdevice cu, CUdevice_attribute a)
{
    int v = 0;

    if (gc__cu.cuDeviceGetAttribute(&v, a, cu) != CUDA_SUCCESS)
        v = 0;
    return v;
}

/* The NVML handle of a CUDA device, found by PCI bus id since the two
 * libraries may number devices differently (CUDA_VISIBLE_DEVICES). */
static nvmlDevice_t nvml_handle(CUdevice cu, char *why, size_t whylen)
{
    nvmlDevice_t h = NULL;
    char pci[32];
    nvmlReturn_t res;

    if (!g_have_nvml) {
        snprintf(why, whylen, "NVML not available: %s", g_nvml_why);
        return NULL;
    }
    if (gc__cu.cuDeviceGetPCIBusId(pci, (int)sizeof(pci), cu) != CUDA_SUCCESS) {
        snprintf(why, whylen, "the device's PCI bus id is unknown");
        return NULL;
    }
    res = gc__nvml.nvmlDeviceGetHandleByPciBusId(pci, &h);
    if (res != NVML_SUCCESS) {
        snprintf(why, whylen, "nvmlDeviceGetHandleByPciBusId(%s) failed: %s", pci,
                 gc__nvml.nvmlErrorString(res));
        return NULL;
    }
    return h;
}

/* Capability flags of the sensors that answer on this device: each is set
 * only when a first reading succeeds, so that a sensor the board lacks is
 * reported as absent rather than read as zeros later. */
static unsigned sensor_caps(nvmlDevice_t h)
{
    unsigned caps = 0, v;
    unsigned long long u;

    if (!h)
        return 0;
    if (gc__nvml.nvmlDeviceGetClockInfo(h, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
        caps |= GC_CAP_SENSOR_CLOCK;
    if (gc__nvml.nvmlDeviceGetPowerUsage(h, &v) == NVML_SUCCESS)
        caps |= GC_CAP_SENSOR_POWER;
    if (gc__nvml.nvmlDeviceGetCurrentClocksEventReasons &&
        gc__nvml.nvmlDeviceGetCurrentClocksEventReasons(h, &u) == NVML_SUCCESS)
        caps |= GC_CAP_SENSOR_THROTTLE;
    if (gc__nvml.nvmlDeviceGetTotalEnergyConsumption &&
        gc__nvml.nvmlDeviceGetTotalEnergyConsumption(h, &u) == NVML_SUCCESS)
        caps |= GC_CAP_ENERGY;
    return caps;
}

static int query_info(struct gc_dev *d, int index, struct gc_device_info *out)
{
    char pci[32], why[1024];
    int rc = 0, ecc = 0, mem_khz, clock_khz;
    CUdevice cu;

    memset(out, 0, sizeof(*out));
    if (index < 0 || index >= g_ndev) {
        gc__cu_set_error(d, "no CUDA device %d (%d found)", index, g_ndev);
        return GC_ENODEV;
    }
    GC_CU_CALL(d, gc__cu.cuDeviceGet(&cu, index));
    GC_CU_CALL(d, gc__cu.cuDeviceGetName(out->name, (int)sizeof(out->name), cu));
    GC_CU_CALL(d, gc__cu.cuDeviceTotalMem(&out->global_mem, cu));
    GC_CU_CALL(d, gc__cu.cuDeviceGetAttribute(&out->cc_major,
                                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cu));
    GC_CU_CALL(d, gc__cu.cuDeviceGetAttribute(&out->cc_minor,
                                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cu));
    GC_CU_CALL(d, gc__cu.cuDeviceGetAttribute(&out->compute_units,
                                              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, cu));
    GC_CU_CALL(d, gc__cu.cuDeviceGetAttribute(&out->simd_width, CU_DEVICE_ATTRIBUTE_WARP_SIZE, cu));
    snprintf(out->vendor, sizeof(out->vendor), "NVIDIA");
    snprintf(out->arch, sizeof(out->arch), "sm_%d%d", out->cc_major, out->cc_minor);
    if (g_nvml_driver[0])
        snprintf(out->driver, sizeof(out->driver), "CUDA driver %d.%d (%s)",
                 g_driver_version / 1000, g_driver_version % 1000 / 10, g_nvml_driver);
    else
        snprintf(out->driver, sizeof(out->driver), "CUDA driver %d.%d", g_driver_version / 1000,
                 g_driver_version % 1000 / 10);
    if (g_have_nvrtc)
        snprintf(out->compiler, sizeof(out->compiler), "NVRTC %d.%d", g_nvrtc_major, g_nvrtc_minor);
    else
        snprintf(out->compiler, sizeof(out->compiler), "NVRTC not available");
    out->type = GC_DEVICE_GPU;
    out->max_threads_per_block = attr(cu, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    out->max_threads_per_cu = attr(cu, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    out->max_blocks_per_cu = attr(cu, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    out->regs_per_cu = attr(cu, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    out->shared_per_cu = (size_t)attr(cu, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    out->shared_per_block = (size_t)attr(cu, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    out->shared_per_block_optin =
        (size_t)attr(cu, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    if (out->shared_per_block_optin == 0)
        out->shared_per_block_optin = out->shared_per_block;
    out->shared_reserved_per_block =
        (size_t)attr(cu, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    out->max_alloc = out->global_mem;
    out->l2_size = (size_t)attr(cu, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    clock_khz = attr(cu, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    mem_khz = attr(cu, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    out->clock_mhz = clock_khz / 1e3;
    out->mem_clock_mhz = mem_khz / 1e3;
    out->mem_bus_width = attr(cu, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    /* Double data rate: two transfers per memory clock over the whole bus. */
    out->mem_bw_spec = mem_khz > 0 && out->mem_bus_width > 0
                           ? 2.0 * (mem_khz * 1e3) * out->mem_bus_width / 8.0
                           : NAN;
    if (gc__cu.cuDeviceGetAttribute(&ecc, CU_DEVICE_ATTRIBUTE_ECC_ENABLED, cu) == CUDA_SUCCESS)
        out->ecc_enabled = ecc != 0;
    else
        out->ecc_enabled = -1;
    if (gc__cu.cuDeviceGetPCIBusId(pci, (int)sizeof(pci), cu) == CUDA_SUCCESS) {
        for (size_t i = 0; pci[i] && i + 1 < sizeof(out->pci_bus_id); i++)
            out->pci_bus_id[i] = (char)tolower((unsigned char)pci[i]);
    }
    out->caps = GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER | GC_CAP_SMID | GC_CAP_INLINE_ASM |
                GC_CAP_OCCUPANCY_API | GC_CAP_DYN_SHARED | GC_CAP_FP64 | GC_CAP_CACHE_HINTS;
    if (out->cc_major > 5 || (out->cc_major == 5 && out->cc_minor >= 3))
        out->caps |= GC_CAP_FP16;
    out->caps |= sensor_caps(nvml_handle(cu, why, sizeof(why)));
out:
    return rc;
}

static int cuda_device_info(int index, struct gc_device_info *out)
{
    return query_info(NULL, index, out);
}

/* ---- Open / close ------------------------------------------------------ */

static void destroy(struct gc_dev *d)
{
    if (d->ctx) {
        /* Releasing what open() created; errors here have nowhere to go. */
        gc__cu.cuCtxSetCurrent(d->ctx);
        gc__cu_overhead_release(d);
        if (d->ev_end)
            gc__cu.cuEventDestroy(d->ev_end);
        if (d->ev_start)
            gc__cu.cuEventDestroy(d->ev_start);
        if (d->stream)
            gc__cu.cuStreamDestroy(d->stream);
        gc__cu.cuCtxSetCurrent(NULL);
        gc__cu.cuDevicePrimaryCtxRelease(d->cu);
    }
    pthread_mutex_destroy(&d->err_lock);
    free(d);
}

static int cuda_open(int index, struct gc_dev **out, char *err, size_t errlen)
{
    struct gc_dev *d;
    int rc = 0;

    *out = NULL;
    d = calloc(1, sizeof(*d));
    if (!d) {
        snprintf(err, errlen, "out of host memory opening CUDA device %d", index);
        return GC_ENOMEM;
    }
    pthread_mutex_init(&d->err_lock, NULL);
    d->index = index;
    rc = query_info(d, index, &d->info);
    if (rc)
        goto out;
    GC_CU_CALL(d, gc__cu.cuDeviceGet(&d->cu, index));
    GC_CU_CALL(d, gc__cu.cuDevicePrimaryCtxRetain(&d->ctx, d->cu));
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    /* Non-blocking: work that other code queues on the legacy default stream
     * neither waits for nor delays the timed launches. */
    GC_CU_CALL(d, gc__cu.cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING));
    GC_CU_CALL(d, gc__cu.cuEventCreate(&d->ev_start, CU_EVENT_DEFAULT));
    GC_CU_CALL(d, gc__cu.cuEventCreate(&d->ev_end, CU_EVENT_DEFAULT));
    d->nvml = nvml_handle(d->cu, d->nvml_why, sizeof(d->nvml_why));
    *out = d;
    d = NULL;
out:
    if (d) {
        snprintf(err, errlen, "%s", d->err);
        destroy(d);
    }
    return rc;
}

static int cuda_open_compiler(int index, struct gc_dev **out, char *err, size_t errlen)
{
    struct gc_dev *d = calloc(1, sizeof(*d));
    int rc;

    *out = NULL;
    if (!d) {
        snprintf(err, errlen, "out of host memory opening CUDA device %d", index);
        return GC_ENOMEM;
    }
    pthread_mutex_init(&d->err_lock, NULL);
    d->index = index;
    if ((rc = query_info(d, index, &d->info)) != 0) {
        snprintf(err, errlen, "%s", d->err);
        destroy(d);
        return rc;
    }
    *out = d;
    return 0;
}

static void cuda_close(struct gc_dev *d)
{
    if (d)
        destroy(d);
}

static const char *cuda_last_error(struct gc_dev *d)
{
    return d ? d->err : gc__cu_backend_error();
}

/* ---- Compile ----------------------------------------------------------- */

static int cuda_compile(struct gc_dev *d, const char *src, const char *options, void **bin,
                        size_t *binlen, char **log)
{
    char err[GC_ERRLEN];
    int rc;

    *bin = NULL;
    *binlen = 0;
    if (log)
        *log = NULL;
    if (!g_have_nvrtc) {
        gc__cu_set_error(d,
                         "cannot compile: NVRTC (the CUDA run-time compiler) is not available: %s",
                         g_nvrtc_why);
        return GC_ENOLIB;
    }
    rc = gc__nvrtc_compile(&gc__nvrtc, src, options, d->info.arch, false, bin, binlen, log, err,
                           sizeof(err));
    if (rc)
        gc__cu_set_error(d, "%s", err);
    return rc;
}

/* NVRTC's compilations on threads of one process mostly wait for each
 * other: the run's plan compiles faster in worker processes
 * (docs/methodology.md, compile workers). Without NVRTC there is nothing
 * for them to do. */
static bool cuda_compile_in_processes(struct gc_dev *d)
{
    (void)d;
    return g_have_nvrtc;
}

/* ---- Modules and kernels ----------------------------------------------- */

static bool is_elf(const void *bin, size_t len)
{
    static const char magic[4] = {0x7f, 'E', 'L', 'F'};

    return len >= sizeof(magic) && memcmp(bin, magic, sizeof(magic)) == 0;
}

static int cuda_load(struct gc_dev *d, const void *bin, size_t binlen, struct gc_prog **out)
{
    struct gc_prog *p = NULL;
    const void *image = bin;
    char *copy = NULL;
    int rc = 0;

    *out = NULL;
    if (!bin || binlen == 0) {
        gc__cu_set_error(d, "cannot load an empty kernel binary");
        return GC_EINVAL;
    }
    /* PTX is text that the driver reads up to its terminating NUL, which a
     * blob read back from a file may lack. */
    if (!is_elf(bin, binlen) && ((const char *)bin)[binlen - 1] != '\0') {
        copy = malloc(binlen + 1);
        if (!copy) {
            gc__cu_set_error(d, "out of host memory loading a kernel");
            return GC_ENOMEM;
        }
        memcpy(copy, bin, binlen);
        copy[binlen] = '\0';
        image = copy;
    }
    p = calloc(1, sizeof(*p));
    if (!p) {
        gc__cu_set_error(d, "out of host memory loading a kernel");
        rc = GC_ENOMEM;
        goto out;
    }
    pthread_mutex_init(&p->lock, NULL);
    p->dev = d;
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    GC_CU_CALL(d, gc__cu.cuModuleLoadData(&p->mod, image));
    *out = p;
    p = NULL;
out:
    if (rc && g_have_nvrtc && g_nvrtc_major > g_driver_version / 1000)
        gc__cu_append_error(d,
                            "; NVRTC %d.%d is newer than the driver's CUDA %d.%d, whose loader may "
                            "not accept its output: point %s at an older NVRTC",
                            g_nvrtc_major, g_nvrtc_minor, g_driver_version / 1000,
                            g_driver_version % 1000 / 10, GC_NVRTC_LIBENV);
    if (p) {
        pthread_mutex_destroy(&p->lock);
        free(p);
    }
    free(copy);
    return rc;
}

static void cuda_unload(struct gc_prog *p)
{
    if (!p)
        return;
    while (p->kerns) {
        struct gc_kern *k = p->kerns;

        p->kerns = k->next;
        free(k);
    }
    gc__cu.cuCtxSetCurrent(p->dev->ctx);
    gc__cu.cuModuleUnload(p->mod);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static int cuda_kernel(struct gc_prog *p, const char *name, struct gc_kern **out)
{
    struct gc_dev *d = p->dev;
    struct gc_kern *k;
    CUfunction fn;
    size_t n = strlen(name);
    int rc = 0;

    *out = NULL;
    pthread_mutex_lock(&p->lock);
    for (k = p->kerns; k; k = k->next) {
        if (strcmp(k->name, name) == 0) {
            *out = k;
            goto out;
        }
    }
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    GC_CU_CALL(d, gc__cu.cuModuleGetFunction(&fn, p->mod, name));
    k = malloc(sizeof(*k) + n + 1);
    if (!k) {
        gc__cu_set_error(d, "out of host memory looking up kernel %s", name);
        rc = GC_ENOMEM;
        goto out;
    }
    k->prog = p;
    k->fn = fn;
    memcpy(k->name, name, n + 1);
    k->next = p->kerns;
    p->kerns = k;
    *out = k;
out:
    if (rc == GC_EBACKEND)
        gc__cu_append_error(d, " (kernel '%s'; was it declared extern \"C\"?)", name);
    pthread_mutex_unlock(&p->lock);
    return rc;
}

static int cuda_kernel_attrs(struct gc_kern *k, int *regs, size_t *static_shared, int *max_threads)
{
    struct gc_dev *d = k->prog->dev;
    int rc = 0, r = 0, s = 0, t = 0;

    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    GC_CU_CALL(d, gc__cu.cuFuncGetAttribute(&r, CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn));
    GC_CU_CALL(d, gc__cu.cuFuncGetAttribute(&s, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn));
    GC_CU_CALL(d, gc__cu.cuFuncGetAttribute(&t, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn));
    if (regs)
        *regs = r;
    if (static_shared)
        *static_shared = (size_t)s;
    if (max_threads)
        *max_threads = t;
out:
    return rc;
}

/* Dynamic shared memory above the default 48 KiB must be allowed on the
 * function before it can be launched or asked about with that much. */
static int allow_dyn_shared(struct gc_dev *d, struct gc_kern *k, size_t dyn)
{
    int rc = 0;

    if (dyn <= DEFAULT_DYN_SHARED_LIMIT)
        return 0;
    if (dyn > INT_MAX) {
        gc__cu_set_error(d, "%zu bytes of dynamic shared memory is beyond any device", dyn);
        return GC_EINVAL;
    }
    GC_CU_CALL(d, gc__cu.cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                            (int)dyn));
out:
    return rc;
}

static int cuda_kernel_set_carveout(struct gc_kern *k, int shared_percent)
{
    struct gc_dev *d = k->prog->dev;
    int rc = 0;

    if (shared_percent < -1 || shared_percent > 100) {
        gc__cu_set_error(d, "a shared-memory carveout of %d%% is outside -1..100", shared_percent);
        return GC_EINVAL;
    }
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    GC_CU_CALL(d, gc__cu.cuFuncSetAttribute(
                      k->fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, shared_percent));
out:
    return rc;
}

static int cuda_max_active_blocks(struct gc_kern *k, int block_threads, size_t dyn_shared, int *out)
{
    struct gc_dev *d = k->prog->dev;
    int rc = 0, n = 0, stat = 0;

    *out = 0;
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    GC_CU_CALL(d, gc__cu.cuFuncGetAttribute(&stat, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn));
    /* A block that needs more shared memory than a block may have is never
     * resident: zero blocks, which is the answer rather than an error. */
    if (dyn_shared + (size_t)stat > d->info.shared_per_block_optin)
        goto out;
    rc = allow_dyn_shared(d, k, dyn_shared);
    if (rc)
        goto out;
    GC_CU_CALL(d, gc__cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, k->fn, block_threads,
                                                                     dyn_shared));
    *out = n;
out:
    return rc;
}

/* ---- Buffers ----------------------------------------------------------- */

static int check_range(struct gc_buf *b, size_t offset, size_t bytes, const char *what)
{
    if (offset > b->size || bytes > b->size - offset) {
        gc__cu_set_error(b->dev, "%s of %zu bytes at offset %zu is outside the %zu-byte buffer",
                         what, bytes, offset, b->size);
        return GC_EINVAL;
    }
    return 0;
}

static int cuda_alloc(struct gc_dev *d, size_t bytes, struct gc_buf **out)
{
    struct gc_buf *b = NULL;
    int rc = 0;

    *out = NULL;
    if (bytes == 0) {
        gc__cu_set_error(d, "cannot allocate a buffer of 0 bytes");
        return GC_EINVAL;
    }
    b = calloc(1, sizeof(*b));
    if (!b) {
        gc__cu_set_error(d, "out of host memory allocating a buffer");
        return GC_ENOMEM;
    }
    b->dev = d;
    b->size = bytes;
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    GC_CU_CALL(d, gc__cu.cuMemAlloc(&b->ptr, bytes));
    *out = b;
    b = NULL;
out:
    free(b);
    return rc;
}

static void cuda_free(struct gc_buf *b)
{
    if (!b || b->borrowed)
        return;
    gc__cu.cuCtxSetCurrent(b->dev->ctx);
    gc__cu.cuMemFree(b->ptr);
    free(b);
}

static int cuda_write(struct gc_buf *b, size_t offset, const void *src, size_t bytes)
{
    struct gc_dev *d = b->dev;
    int rc = check_range(b, offset, bytes, "write");

    if (rc || bytes == 0)
        return rc;
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    GC_CU_CALL(d, gc__cu.cuMemcpyHtoD(b->ptr + offset, src, bytes));
    /* A copy from pageable memory may still be in flight when cuMemcpyHtoD
     * returns, and it is not ordered with the non-blocking launch stream. */
    GC_CU_CALL(d, gc__cu.cuCtxSynchronize());
out:
    return rc;
}

static int cuda_read(struct gc_buf *b, size_t offset, void *dst, size_t bytes)
{
    struct gc_dev *d = b->dev;
    int rc = check_range(b, offset, bytes, "read");

    if (rc || bytes == 0)
        return rc;
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    /* Launches have completed (launch() waits), so the data is final; a copy
     * to pageable memory returns once done. */
    GC_CU_CALL(d, gc__cu.cuMemcpyDtoH(dst, b->ptr + offset, bytes));
out:
    return rc;
}

static int cuda_copy(struct gc_buf *dst, size_t dst_off, struct gc_buf *src, size_t src_off,
                     size_t bytes)
{
    struct gc_dev *d = dst->dev;
    int rc = check_range(dst, dst_off, bytes, "copy destination");

    if (rc == 0)
        rc = check_range(src, src_off, bytes, "copy source");
    if (rc || bytes == 0)
        return rc;
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    GC_CU_CALL(d, gc__cu.cuMemcpyDtoD(dst->ptr + dst_off, src->ptr + src_off, bytes));
    /* Device-to-device copies are asynchronous to the host. */
    GC_CU_CALL(d, gc__cu.cuCtxSynchronize());
out:
    return rc;
}

static int cuda_map(struct gc_buf *b, size_t offset, size_t bytes, void **host)
{
    union map_hdr *h;
    int rc = check_range(b, offset, bytes, "map");

    *host = NULL;
    if (rc)
        return rc;
    h = malloc(sizeof(*h) + bytes);
    if (!h) {
        gc__cu_set_error(b->dev, "out of host memory mapping %zu bytes", bytes);
        return GC_ENOMEM;
    }
    h->m.buf = b;
    h->m.offset = offset;
    h->m.bytes = bytes;
    rc = cuda_read(b, offset, h + 1, bytes);
    if (rc) {
        free(h);
        return rc;
    }
    *host = h + 1;
    return 0;
}

static int cuda_unmap(struct gc_buf *b, void *host)
{
    union map_hdr *h;
    int rc;

    if (!host) {
        gc__cu_set_error(b->dev, "unmap of a NULL pointer");
        return GC_EINVAL;
    }
    h = (union map_hdr *)host - 1;
    if (h->m.buf != b) {
        gc__cu_set_error(b->dev, "unmap of a pointer that this buffer's map() did not return");
        return GC_EINVAL;
    }
    rc = cuda_write(b, h->m.offset, host, h->m.bytes);
    free(h);
    return rc;
}

/* ---- Launch ------------------------------------------------------------ */

int gc__cu_prepare_launch(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                          union gc__cu_arg **pvals, void ***pparams)
{
    union gc__cu_arg *vals = NULL;
    void **params = NULL;
    int rc = 0;

    *pvals = NULL;
    *pparams = NULL;
    if (!l) {
        gc__cu_set_error(d, "invalid launch: no launch description");
        return GC_EINVAL;
    }
    if (!k || l->count < 1 || l->nargs < 0 || (l->nargs > 0 && !l->args) ||
        l->dyn_shared > UINT_MAX) {
        gc__cu_set_error(d,
                         "invalid launch: kernel %p, count %d, %d arguments, %zu bytes of dynamic "
                         "shared memory",
                         (void *)k, l->count, l->nargs, l->dyn_shared);
        return GC_EINVAL;
    }
    for (int i = 0; i < 3; i++) {
        if (l->grid[i] == 0 || l->block[i] == 0) {
            gc__cu_set_error(d, "invalid launch of %s: grid %ux%ux%u, block %ux%ux%u", k->name,
                             l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                             l->block[2]);
            return GC_EINVAL;
        }
    }
    if (l->nargs > 0) {
        vals = calloc((size_t)l->nargs, sizeof(*vals));
        params = calloc((size_t)l->nargs, sizeof(*params));
        if (!vals || !params) {
            gc__cu_set_error(d, "out of host memory launching %s", k->name);
            rc = GC_ENOMEM;
            goto out;
        }
    }
    for (int i = 0; i < l->nargs; i++) {
        const struct gc_arg *a = &l->args[i];

        switch (a->type) {
        case GC_ARG_BUF:
            vals[i].ptr = a->v.buf ? a->v.buf->ptr : 0;
            break;
        case GC_ARG_I32:
            vals[i].i32 = a->v.i32;
            break;
        case GC_ARG_U32:
            vals[i].u32 = a->v.u32;
            break;
        case GC_ARG_I64:
            vals[i].i64 = a->v.i64;
            break;
        case GC_ARG_U64:
            vals[i].u64 = a->v.u64;
            break;
        case GC_ARG_F32:
            vals[i].f32 = a->v.f32;
            break;
        case GC_ARG_F64:
            vals[i].f64 = a->v.f64;
            break;
        default:
            gc__cu_set_error(d, "argument %d of %s has an unknown type %d", i, k->name,
                             (int)a->type);
            rc = GC_EINVAL;
            goto out;
        }
        params[i] = &vals[i];
    }
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    rc = allow_dyn_shared(d, k, l->dyn_shared);
out:
    if (rc) {
        free(vals);
        free(params);
        return rc;
    }
    *pvals = vals;
    *pparams = params;
    return 0;
}

static int cuda_launch(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                       double *elapsed_s)
{
    union gc__cu_arg *vals = NULL;
    void **params = NULL;
    bool queued = false;
    float ms = 0;
    int rc = 0;

    *elapsed_s = 0;
    rc = gc__cu_prepare_launch(d, k, l, &vals, &params);
    if (rc)
        return rc;
    queued = true;
    GC_CU_CALL(d, gc__cu.cuEventRecord(d->ev_start, d->stream));
    for (int i = 0; i < l->count; i++)
        GC_CU_CALL(d, gc__cu.cuLaunchKernel(k->fn, l->grid[0], l->grid[1], l->grid[2], l->block[0],
                                            l->block[1], l->block[2], (unsigned)l->dyn_shared,
                                            d->stream, params, NULL));
    GC_CU_CALL(d, gc__cu.cuEventRecord(d->ev_end, d->stream));
    /* Errors of the kernels themselves (an illegal address, say) surface
     * here, at the first call that waits for them. */
    GC_CU_CALL(d, gc__cu.cuEventSynchronize(d->ev_end));
    GC_CU_CALL(d, gc__cu.cuEventElapsedTime(&ms, d->ev_start, d->ev_end));
    *elapsed_s = ms * 1e-3;
out:
    if (rc && queued) {
        /* Nothing of a failed launch may still run when the caller goes on. */
        gc__cu.cuStreamSynchronize(d->stream);
    }
    if (rc == GC_EBACKEND || rc == GC_EDEVMEM) {
        gc__cu_append_error(d,
                            " (kernel %s, grid %ux%ux%u, block %ux%ux%u, %zu bytes dynamic shared)",
                            k->name, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                            l->block[2], l->dyn_shared);
        rc = GC_ELAUNCH;
    }
    free(params);
    free(vals);
    return rc;
}

/* ---- Texture objects ----------------------------------------------------- */

static int cuda_tex_create(struct gc_buf *b, size_t offset, size_t bytes, int channels,
                           uint64_t *handle)
{
    struct gc_dev *d = b->dev;
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC tex;
    CUtexObject t = 0;
    int rc = check_range(b, offset, bytes, "texture");

    *handle = 0;
    if (rc)
        return rc;
    if (channels != 1 && channels != 2 && channels != 4) {
        gc__cu_set_error(d, "a texture element has 1, 2 or 4 channels, not %d", channels);
        return GC_EINVAL;
    }
    memset(&res, 0, sizeof(res));
    res.resType = CU_RESOURCE_TYPE_LINEAR;
    res.res.linear.devPtr = b->ptr + offset;
    res.res.linear.format = CU_AD_FORMAT_UNSIGNED_INT32;
    res.res.linear.numChannels = (unsigned)channels;
    res.res.linear.sizeInBytes = bytes;
    /* Point sampling of integers without normalisation: a fetch returns the
     * stored words unchanged, so a chase through the texture path is exact. */
    memset(&tex, 0, sizeof(tex));
    tex.addressMode[0] = CU_TR_ADDRESS_MODE_CLAMP;
    tex.filterMode = CU_TR_FILTER_MODE_POINT;
    tex.flags = CU_TRSF_READ_AS_INTEGER;
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    GC_CU_CALL(d, gc__cu.cuTexObjectCreate(&t, &res, &tex, NULL));
    *handle = t;
out:
    return rc;
}

static void cuda_tex_destroy(struct gc_dev *d, uint64_t handle)
{
    if (!handle)
        return;
    gc__cu.cuCtxSetCurrent(d->ctx);
    gc__cu.cuTexObjectDestroy((CUtexObject)handle);
}

/* ---- Sensors and description ------------------------------------------- */

static int cuda_sensors(struct gc_dev *d, struct gc_sensor_sample *s)
{
    const unsigned long long slowing = GC_NVML_REASON_SW_POWER_CAP | GC_NVML_REASON_HW_SLOWDOWN |
                                       GC_NVML_REASON_SW_THERMAL | GC_NVML_REASON_HW_THERMAL |
                                       GC_NVML_REASON_HW_POWER_BRAKE;
    nvmlDevice_t h = d->nvml;
    unsigned v;
    unsigned long long u;

    memset(s, 0, sizeof(*s));
    s->t = now();
    if (!h) {
        gc__cu_set_error(d, "no sensors: %s", d->nvml_why);
        return GC_ENOTSUP;
    }
    /* NVML is thread-safe, so this runs beside launches on another thread.
     * Each reading stands alone: one failing leaves only its bit clear. */
    if (gc__nvml.nvmlDeviceGetClockInfo(h, NVML_CLOCK_SM, &v) == NVML_SUCCESS) {
        s->sm_clock_mhz = v;
        s->valid |= GC_SENSOR_SM_CLOCK;
    }
    if (gc__nvml.nvmlDeviceGetClockInfo(h, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) {
        s->mem_clock_mhz = v;
        s->valid |= GC_SENSOR_MEM_CLOCK;
    }
    if (gc__nvml.nvmlDeviceGetPowerUsage(h, &v) == NVML_SUCCESS) {
        s->power_w = v * 1e-3;
        s->valid |= GC_SENSOR_POWER;
    }
    if (gc__nvml.nvmlDeviceGetEnforcedPowerLimit(h, &v) == NVML_SUCCESS) {
        s->power_limit_w = v * 1e-3;
        s->valid |= GC_SENSOR_POWER_LIMIT;
    }
    if (gc__nvml.nvmlDeviceGetTemperature(h, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) {
        s->temp_c = v;
        s->valid |= GC_SENSOR_TEMP;
    }
    if (gc__nvml.nvmlDeviceGetTotalEnergyConsumption &&
        gc__nvml.nvmlDeviceGetTotalEnergyConsumption(h, &u) == NVML_SUCCESS) {
        s->energy_j = (double)u * 1e-3;
        s->valid |= GC_SENSOR_ENERGY;
    }
    if (gc__nvml.nvmlDeviceGetCurrentClocksEventReasons &&
        gc__nvml.nvmlDeviceGetCurrentClocksEventReasons(h, &u) == NVML_SUCCESS) {
        s->throttle = u;
        s->throttled = (u & slowing) != 0;
        s->valid |= GC_SENSOR_THROTTLE;
    }
    if (!s->valid) {
        gc__cu_set_error(d, "no NVML sensor of this device answered");
        return GC_EBACKEND;
    }
    return 0;
}

/* The energy counter (mJ since the driver was loaded) and the instantaneous
 * power field, nothing else: the energy meter polls this in a tight loop. */
static int cuda_power(struct gc_dev *d, unsigned what, struct gc_power_reading *out)
{
    nvmlDevice_t h = d->nvml;
    nvmlReturn_t res = NVML_ERROR_NOT_SUPPORTED;
    const char *missing = NULL;

    memset(out, 0, sizeof(*out));
    if (!h) {
        gc__cu_set_error(d, "no power meter: %s", d->nvml_why);
        return GC_ENOTSUP;
    }
    if (what & GC_POWER_ENERGY) {
        unsigned long long mj;

        if (!gc__nvml.nvmlDeviceGetTotalEnergyConsumption)
            missing = "nvmlDeviceGetTotalEnergyConsumption is not exported by this driver's NVML";
        else if ((res = gc__nvml.nvmlDeviceGetTotalEnergyConsumption(h, &mj)) == NVML_SUCCESS) {
            out->energy_j = (double)mj * 1e-3;
            out->valid |= GC_POWER_ENERGY;
        }
    }
    if (what & GC_POWER_INSTANT) {
        nvmlFieldValue_t f;

        memset(&f, 0, sizeof(f));
        f.fieldId = GC_NVML_FI_DEV_POWER_INSTANT;
        if (!gc__nvml.nvmlDeviceGetFieldValues)
            missing = "nvmlDeviceGetFieldValues is not exported by this driver's NVML";
        else if ((res = gc__nvml.nvmlDeviceGetFieldValues(h, 1, &f)) == NVML_SUCCESS &&
                 (res = f.nvmlReturn) == NVML_SUCCESS) {
            double mw = NAN;

            switch (f.valueType) {
            case NVML_VALUE_TYPE_DOUBLE:
                mw = f.value.dVal;
                break;
            case NVML_VALUE_TYPE_UNSIGNED_INT:
                mw = f.value.uiVal;
                break;
            case NVML_VALUE_TYPE_UNSIGNED_LONG:
                mw = (double)f.value.ulVal;
                break;
            case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
                mw = (double)f.value.ullVal;
                break;
            case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
                mw = (double)f.value.sllVal;
                break;
            case NVML_VALUE_TYPE_SIGNED_INT:
                mw = f.value.siVal;
                break;
            }
            if (isfinite(mw) && mw >= 0) {
                out->power_w = mw * 1e-3;
                out->valid |= GC_POWER_INSTANT;
            }
        }
    }
    if (out->valid)
        return 0;
    if (missing)
        gc__cu_set_error(d, "%s", missing);
    else
        gc__cu_set_error(d, "NVML %s: %s (NVML error %d)",
                         what & GC_POWER_ENERGY ? "total energy counter" : "instantaneous power",
                         gc__nvml.nvmlErrorString(res), (int)res);
    return GC_ENOTSUP;
}

/* The PCIe link now and at most ("pcie_gen=5; pcie_width=16; ...") and the
 * UUID, for the fleet analysis; "" where NVML cannot say. */
static void link_facts(struct gc_dev *d, char *buf, size_t len)
{
    unsigned g = 0, w = 0, gm = 0, wm = 0;
    char uuid[96] = "";

    buf[0] = '\0';
    if (!d->nvml)
        return;
    if (gc__nvml.nvmlDeviceGetCurrPcieLinkGeneration)
        gc__nvml.nvmlDeviceGetCurrPcieLinkGeneration(d->nvml, &g);
    if (gc__nvml.nvmlDeviceGetCurrPcieLinkWidth)
        gc__nvml.nvmlDeviceGetCurrPcieLinkWidth(d->nvml, &w);
    if (gc__nvml.nvmlDeviceGetMaxPcieLinkGeneration)
        gc__nvml.nvmlDeviceGetMaxPcieLinkGeneration(d->nvml, &gm);
    if (gc__nvml.nvmlDeviceGetMaxPcieLinkWidth)
        gc__nvml.nvmlDeviceGetMaxPcieLinkWidth(d->nvml, &wm);
    if (gc__nvml.nvmlDeviceGetUUID &&
        gc__nvml.nvmlDeviceGetUUID(d->nvml, uuid, sizeof(uuid)) != NVML_SUCCESS)
        uuid[0] = '\0';
    snprintf(buf, len, "; pcie_gen=%u; pcie_width=%u; pcie_gen_max=%u; pcie_width_max=%u%s%s", g, w,
             gm, wm, uuid[0] ? "; uuid=" : "", uuid);
}

static void cuda_describe(struct gc_dev *d, char *buf, size_t len)
{
    char nvrtc[32] = "unavailable", limit[32] = "unknown", smclk[32] = "unknown",
         memclk[32] = "unknown", link[256];
    unsigned v;

    if (g_have_nvrtc)
        snprintf(nvrtc, sizeof(nvrtc), "%d.%d", g_nvrtc_major, g_nvrtc_minor);
    if (d->nvml) {
        if (gc__nvml.nvmlDeviceGetEnforcedPowerLimit(d->nvml, &v) == NVML_SUCCESS)
            snprintf(limit, sizeof(limit), "%.0f", v * 1e-3);
        if (gc__nvml.nvmlDeviceGetMaxClockInfo(d->nvml, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
            snprintf(smclk, sizeof(smclk), "%u", v);
        if (gc__nvml.nvmlDeviceGetMaxClockInfo(d->nvml, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
            snprintf(memclk, sizeof(memclk), "%u", v);
    }
    link_facts(d, link, sizeof(link));
    snprintf(buf, len,
             "driver=%d.%d; nvrtc=%s; nvml_driver=%s; pci=%s; ecc=%s; power_limit_w=%s; "
             "max_sm_clock_mhz=%s; max_mem_clock_mhz=%s%s",
             g_driver_version / 1000, g_driver_version % 1000 / 10, nvrtc,
             g_nvml_driver[0] ? g_nvml_driver : "unavailable",
             d->info.pci_bus_id[0] ? d->info.pci_bus_id : "unknown",
             d->info.ecc_enabled < 0 ? "unknown"
             : d->info.ecc_enabled   ? "on"
                                     : "off",
             limit, smclk, memclk, link);
}

const struct gc_backend_ops gc__cuda_ops = {
    .name = "cuda",
    .dialect = GC_DIALECT_CUDA,
    .init = cuda_init,
    .fini = cuda_fini,
    .device_count = cuda_device_count,
    .device_info = cuda_device_info,
    .open = cuda_open,
    .open_compiler = cuda_open_compiler,
    .close = cuda_close,
    .last_error = cuda_last_error,
    .compile = cuda_compile,
    .compile_threads = 2,
    .compile_in_processes = cuda_compile_in_processes,
    .load = cuda_load,
    .unload = cuda_unload,
    .kernel = cuda_kernel,
    .kernel_attrs = cuda_kernel_attrs,
    .max_active_blocks = cuda_max_active_blocks,
    .kernel_set_carveout = cuda_kernel_set_carveout,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .write = cuda_write,
    .read = cuda_read,
    .copy = cuda_copy,
    .map = cuda_map,
    .unmap = cuda_unmap,
    .launch = cuda_launch,
    .sensors = cuda_sensors,
    .describe = cuda_describe,
    .tex_create = cuda_tex_create,
    .tex_destroy = cuda_tex_destroy,
    .power = cuda_power,
    .host_alloc = gc__cu_host_alloc,
    .host_free = gc__cu_host_free,
    .transfer = gc__cu_transfer,
    .launch_timed = gc__cu_launch_timed,
    .sync = gc__cu_sync,
    .graph_create = gc__cu_graph_create,
    .graph_launch = gc__cu_graph_launch,
    .graph_destroy = gc__cu_graph_destroy,
    .link_info = gc__cu_link_info,
    .mem_info = gc__cu_mem_info,
    .peer_info = gc__cu_peer_info,
    .peer_enable = gc__cu_peer_enable,
    .peer_copies = gc__cu_peer_copies,
};
