/* The OpenCL backend end to end on whatever OpenCL the machine has (PoCL in
 * CI): discovery, device facts, buffers, compile/load/launch and its errors. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/opencl/opencl.h"
#include "backend/opencl/devices.h"
#include "backend/opencl/opencl_int.h"

static const struct gc_backend_ops *const ops = &gc__opencl_ops;

/* The device every test of the main group uses, opened by its setup. */
static int g_index = -1;
static struct gc_dev *g_dev;
static struct gc_device_info g_info;

static uint64_t xorshift64(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* With an empty vendor directory the ICD loader finds no platform: init
 * must succeed with zero devices. The loader caches its platform list, so
 * this runs in a child before this process ever loads it. */
static void test_zero_platforms(void **state)
{
    char dir[] = "/tmp/gc_no_icd_XXXXXX";
    int status = 0;
    pid_t pid;

    (void)state;
    assert_non_null(mkdtemp(dir));
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char why[512] = "";
        int rc, n;

        setenv("OCL_ICD_VENDORS", dir, 1);
        rc = ops->init(why, sizeof(why));
        n = ops->device_count();
        ops->fini();
        if (rc != 0)
            fprintf(stderr, "init with no platform returned %d: %s\n", rc, why);
        /* Devices with a successful init come from the loader itself: one
         * that ignores OCL_ICD_VENDORS (the CUDA toolkit's libOpenCL) cannot
         * be given zero platforms this way. */
        if (rc == 0 && n > 0)
            _exit(77);
        _exit(rc == 0 ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    rmdir(dir);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) {
        fprintf(stderr, "skipped: the ICD loader ignores OCL_ICD_VENDORS\n");
        skip();
    }
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* Prefers a PoCL device, so that the test also runs where a GPU platform
 * is listed first; falls back to the first device. */
static int pick_device(void)
{
    struct gc_device_info info;

    for (int i = 0; i < ops->device_count(); i++) {
        if (ops->device_info(i, &info) == 0 && strstr(info.driver, "Portable Computing Language"))
            return i;
    }
    return 0;
}

static int setup_device(void **state)
{
    char why[512] = "", err[GC_ERRLEN] = "";
    int rc;

    (void)state;
    rc = ops->init(why, sizeof(why));
    if (rc != 0) {
        fprintf(stderr, "init: %d: %s\n", rc, why);
        return -1;
    }
    if (ops->device_count() < 1) {
        fprintf(stderr, "no OpenCL device\n");
        return -1;
    }
    g_index = pick_device();
    rc = ops->open(g_index, &g_dev, err, sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "open: %d: %s\n", rc, err);
        return -1;
    }
    return ops->device_info(g_index, &g_info) == 0 ? 0 : -1;
}

static int teardown_device(void **state)
{
    (void)state;
    ops->close(g_dev);
    g_dev = NULL;
    ops->fini();
    return 0;
}

static void test_vtable(void **state)
{
    (void)state;
    assert_string_equal(ops->name, "opencl");
    assert_int_equal(ops->dialect, GC_DIALECT_OPENCL);
    assert_null(ops->max_active_blocks);
    assert_null(ops->sensors);
    assert_non_null(ops->describe);
    assert_non_null(ops->kernel_attrs);
}

static void test_init_twice_and_count(void **state)
{
    char why[512] = "";

    (void)state;
    assert_true(ops->device_count() >= 1);
    assert_int_equal(ops->init(why, sizeof(why)), 0);
    assert_true(ops->device_count() >= 1);
}

static void test_device_info(void **state)
{
    struct gc_device_info info;

    (void)state;
    for (int i = 0; i < ops->device_count(); i++)
        assert_int_equal(ops->device_info(i, &info), 0);
    assert_int_equal(ops->device_info(ops->device_count(), &info), GC_ENODEV);
    assert_int_equal(ops->device_info(-1, &info), GC_ENODEV);

    info = g_info;
    assert_true(strlen(info.name) > 0);
    assert_true(strlen(info.vendor) > 0);
    assert_true(strlen(info.driver) > 0);
    assert_true(strlen(info.compiler) > 0);
    assert_true(strncmp(info.arch, "OpenCL ", 7) == 0);
    assert_true(info.compute_units >= 1);
    assert_true(info.max_threads_per_block >= 1);
    assert_true(info.simd_width >= 1);
    assert_true(info.global_mem > 0);
    assert_true(info.max_alloc > 0 && info.max_alloc <= info.global_mem);
    assert_true(info.shared_per_block > 0);
    assert_true(info.shared_per_block_optin == info.shared_per_block);
    assert_true(info.shared_per_cu == info.shared_per_block);
    assert_true(info.clock_mhz > 0);
    assert_true(isnan(info.mem_bw_spec));
    assert_true(info.ecc_enabled == 0 || info.ecc_enabled == 1);
    assert_true(info.caps & GC_CAP_DYN_SHARED);
    assert_false(info.caps & GC_CAP_OCCUPANCY_API);
    assert_int_equal(info.max_threads_per_cu, 0);
    assert_int_equal(info.max_blocks_per_cu, 0);
    assert_int_equal(info.regs_per_cu, 0);
    if (strstr(info.driver, "Portable Computing Language")) {
        assert_int_equal(info.type, GC_DEVICE_CPU);
        assert_int_equal(info.cc_major, 0);
        assert_string_equal(info.pci_bus_id, "");
    }
}

/* The in-kernel clock probe: a compiler without inline PTX (PoCL's) fails
 * its build, so the device gets none of the clock caps and stays usable
 * (a kernel still builds and runs on it afterwards). On NVIDIA's platform
 * the probe passes and the caps come together. */
static void test_clock_probe(void **state)
{
    const unsigned clock_caps = GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER | GC_CAP_SMID;
    struct gc__cl_devent *e = gc__cl_devent(g_index);
    struct gc_device_info info;
    unsigned caps;

    (void)state;
    assert_non_null(e);
    assert_null(gc__cl_devent(ops->device_count()));
    caps = gc__cl_probe_clocks(e->platform, e->device, g_info.compute_units);
    assert_int_equal(ops->device_info(g_index, &info), 0);
    if (strstr(g_info.driver, "Portable Computing Language")) {
        assert_int_equal(caps, 0);
        assert_int_equal(info.caps & clock_caps, 0);
    } else if (caps) {
        assert_int_equal(caps & clock_caps, clock_caps);
    }
    /* All or nothing, in the device's caps too. */
    assert_true((info.caps & clock_caps) == 0 || (info.caps & clock_caps) == clock_caps);
    assert_int_equal(info.caps & ~(unsigned)GC_CAP_INLINE_ASM & ~clock_caps,
                     g_info.caps & ~(unsigned)GC_CAP_INLINE_ASM & ~clock_caps);
    /* The device still builds and runs a kernel after the failed probe. */
    static const char src[] = "__kernel void k(__global uint *p) { p[get_global_id(0)] = 7u; }\n";
    void *bin = NULL;
    size_t n = 0;
    struct gc_prog *prog = NULL;
    struct gc_kern *k = NULL;
    struct gc_buf *b = NULL;
    uint32_t got[32];
    double el = 0;
    assert_int_equal(ops->compile(g_dev, src, NULL, &bin, &n, NULL), 0);
    assert_int_equal(ops->load(g_dev, bin, n, &prog), 0);
    assert_int_equal(ops->kernel(prog, "k", &k), 0);
    assert_int_equal(ops->alloc(g_dev, sizeof(got), &b), 0);
    struct gc_arg a = {.type = GC_ARG_BUF, .v.buf = b};
    struct gc_launch l = {{1, 1, 1}, {32, 1, 1}, 0, &a, 1, 1};
    assert_int_equal(ops->launch(g_dev, k, &l, &el), 0);
    assert_int_equal(ops->read(b, 0, got, sizeof(got)), 0);
    for (int i = 0; i < 32; i++)
        assert_int_equal(got[i], 7);
    ops->free(b);
    ops->unload(prog);
    free(bin);
}

static void test_describe(void **state)
{
    char buf[1024] = "";

    (void)state;
    ops->describe(g_dev, buf, sizeof(buf));
    assert_non_null(strstr(buf, "platform="));
    assert_non_null(strstr(buf, "; platform_version="));
    assert_non_null(strstr(buf, "; driver="));
    assert_non_null(strstr(buf, "; device_version=OpenCL "));
    assert_non_null(strstr(buf, "; opencl_c=OpenCL C "));
    assert_true(strstr(buf, "; extensions_fp64=yes") || strstr(buf, "; extensions_fp64=no"));
    assert_non_null(strstr(buf, "; in_kernel_clocks="));
    assert_non_null(ops->last_error(g_dev));
}

static void test_open_bad_index(void **state)
{
    struct gc_dev *d = (struct gc_dev *)1;
    char err[256] = "";

    (void)state;
    assert_int_equal(ops->open(ops->device_count(), &d, err, sizeof(err)), GC_ENODEV);
    assert_null(d);
    assert_true(strlen(err) > 0);
}

static void test_buffers(void **state)
{
    const size_t n = 1u << 20;
    struct gc_buf *a = NULL, *b = NULL;
    uint8_t *src = malloc(n), *dst = malloc(n);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    void *host = NULL;

    (void)state;
    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < n; i += 8) {
        uint64_t r = xorshift64(&seed);
        memcpy(src + i, &r, 8);
    }
    assert_int_equal(ops->alloc(g_dev, n, &a), 0);
    assert_int_equal(ops->alloc(g_dev, n, &b), 0);

    assert_int_equal(ops->write(a, 0, src, n), 0);
    memset(dst, 0, n);
    assert_int_equal(ops->read(a, 0, dst, n), 0);
    assert_memory_equal(src, dst, n);

    /* Offsets on both sides of a copy. */
    assert_int_equal(ops->copy(b, 4096, a, 1024, n / 2), 0);
    memset(dst, 0, n);
    assert_int_equal(ops->read(b, 4096, dst, n / 2), 0);
    assert_memory_equal(src + 1024, dst, n / 2);

    /* Map: what the host writes is on the device after unmap. */
    assert_int_equal(ops->map(a, 256, 4096, &host), 0);
    assert_non_null(host);
    assert_memory_equal(host, src + 256, 4096);
    memset(host, 0xa5, 4096);
    assert_int_equal(ops->unmap(a, host), 0);
    assert_int_equal(ops->read(a, 0, dst, n), 0);
    assert_memory_equal(dst, src, 256);
    for (size_t i = 256; i < 256 + 4096; i++)
        assert_int_equal(dst[i], 0xa5);
    assert_memory_equal(dst + 256 + 4096, src + 256 + 4096, n - 256 - 4096);

    /* Out of range and empty requests are refused before OpenCL sees them. */
    assert_int_equal(ops->read(a, n - 8, dst, 16), GC_EINVAL);
    assert_non_null(strstr(ops->last_error(g_dev), "exceeds"));
    assert_int_equal(ops->copy(b, 0, a, 1, n), GC_EINVAL);
    assert_int_equal(ops->write(a, SIZE_MAX, src, 2), GC_EINVAL);

    ops->free(a);
    ops->free(b);
    ops->free(NULL);
    free(src);
    free(dst);
}

/* Whether the host gives transparent huge pages to a region that asks for
 * them (enabled: [always] or [madvise]). */
static bool thp_on_request(void)
{
    char line[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

    if (!f)
        return false;
    if (!fgets(line, sizeof(line), f))
        line[0] = '\0';
    fclose(f);
    return strstr(line, "[always]") || strstr(line, "[madvise]");
}

/* A buffer on large pages: on a CPU device it holds what is written (through
 * a kernel-visible copy too), and on a host that gives huge pages on request
 * part of it is backed by them; elsewhere the op declines. */
static void test_large_pages(void **state)
{
    const size_t n = 6u << 20;
    struct gc_buf *a = NULL, *b = NULL;
    size_t large = 1;
    uint8_t *src = malloc(n), *dst = malloc(n);
    uint64_t seed = 0x2545f4914f6cdd1dull;

    (void)state;
    assert_non_null(ops->alloc_large_pages);
    assert_non_null(src);
    assert_non_null(dst);
    int rc = ops->alloc_large_pages(g_dev, n, &a, &large);
    if (g_info.type != GC_DEVICE_CPU) {
        assert_int_equal(rc, GC_ENOTSUP);
        assert_null(a);
        assert_int_equal(large, 0);
        free(src);
        free(dst);
        skip();
    }
    assert_int_equal(rc, 0);
    assert_true(large <= ((n + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1)));
    if (thp_on_request())
        assert_true(large >= (2u << 20));
    for (size_t i = 0; i < n; i += 8) {
        uint64_t r = xorshift64(&seed);
        memcpy(src + i, &r, 8);
    }
    assert_int_equal(ops->write(a, 0, src, n), 0);
    assert_int_equal(ops->alloc(g_dev, n, &b), 0);
    assert_int_equal(ops->copy(b, 0, a, 0, n), 0);
    memset(dst, 0, n);
    assert_int_equal(ops->read(b, 0, dst, n), 0);
    assert_memory_equal(src, dst, n);
    ops->free(a);
    ops->free(b);
    free(src);
    free(dst);
}

static void test_alloc_too_large(void **state)
{
    struct gc_buf *b = (struct gc_buf *)1;

    (void)state;
    assert_int_equal(ops->alloc(g_dev, g_info.max_alloc + 1, &b), GC_EDEVMEM);
    assert_null(b);
    assert_non_null(strstr(ops->last_error(g_dev), "CL_DEVICE_MAX_MEM_ALLOC_SIZE"));
    assert_int_equal(ops->alloc(g_dev, 0, &b), GC_EINVAL);
}

/* Reverses each work-group's slice through __local memory, so the output is
 * right only if the dynamic __local argument works. */
static const char *const k_src =
    "__kernel void reverse(__global const int *in, __global int *out, int mul, uint add,\n"
    "                      __local int *tmp)\n"
    "{\n"
    "    size_t l = get_local_id(0), g = get_global_id(0);\n"
    "    tmp[l] = in[g] * mul;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[g] = tmp[get_local_size(0) - 1 - l] + (int)add;\n"
    "}\n"
    "__kernel void fill(__global int *out, int v, __local int *unused)\n"
    "{\n"
    "    out[get_global_id(0)] = v;\n"
    "}\n";

static const char *const k_src_scalars =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "__kernel void scalars(__global long *o, long a, ulong b, float c, double d)\n"
    "{\n"
    "    o[0] = a;\n"
    "    o[1] = (long)(b >> 32);\n"
    "    o[2] = (long)(c * 4.0f);\n"
    "    o[3] = (long)(d * 8.0);\n"
    "}\n";

/* Compiles src and loads it; the program is returned. */
static struct gc_prog *build(const char *src)
{
    struct gc_prog *p = NULL;
    void *bin = NULL;
    size_t len = 0;
    char *log = NULL;
    int rc = ops->compile(g_dev, src, "-cl-std=CL1.2", &bin, &len, &log);

    if (rc != 0)
        fprintf(stderr, "compile: %d: %s\n", rc, ops->last_error(g_dev));
    assert_int_equal(rc, 0);
    assert_non_null(bin);
    assert_true(len > 0);
    free(log);
    rc = ops->load(g_dev, bin, len, &p);
    if (rc != 0)
        fprintf(stderr, "load: %d: %s\n", rc, ops->last_error(g_dev));
    assert_int_equal(rc, 0);
    free(bin);
    return p;
}

static void test_launch(void **state)
{
    enum { BLOCK = 64, GRID = 16, N = BLOCK * GRID };
    struct gc_prog *p;
    struct gc_kern *k = NULL, *kf = NULL;
    struct gc_buf *in = NULL, *out = NULL;
    int32_t hin[N], hout[N];
    uint64_t seed = 12345;
    struct gc_arg args[4];
    struct gc_launch l;
    double elapsed = 0;
    int regs = -1, max_threads = 0;
    size_t static_shared = 1;

    (void)state;
    p = build(k_src);
    assert_int_equal(ops->kernel(p, "reverse", &k), 0);
    assert_int_equal(ops->kernel(p, "fill", &kf), 0);
    assert_int_equal(ops->kernel_attrs(k, &regs, &static_shared, &max_threads), 0);
    assert_int_equal(regs, 0);
    assert_true(max_threads >= BLOCK);
    assert_true(static_shared < 1024);

    for (int i = 0; i < N; i++)
        hin[i] = (int32_t)(xorshift64(&seed) & 0xffff);
    assert_int_equal(ops->alloc(g_dev, sizeof(hin), &in), 0);
    assert_int_equal(ops->alloc(g_dev, sizeof(hout), &out), 0);
    assert_int_equal(ops->write(in, 0, hin, sizeof(hin)), 0);

    args[0].type = GC_ARG_BUF;
    args[0].v.buf = in;
    args[1].type = GC_ARG_BUF;
    args[1].v.buf = out;
    args[2].type = GC_ARG_I32;
    args[2].v.i32 = -3;
    args[3].type = GC_ARG_U32;
    args[3].v.u32 = 7;
    memset(&l, 0, sizeof(l));
    l.grid[0] = GRID;
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = BLOCK;
    l.block[1] = l.block[2] = 1;
    l.dyn_shared = 1024;
    l.args = args;
    l.nargs = 4;
    l.count = 3;
    assert_int_equal(ops->launch(g_dev, k, &l, &elapsed), 0);
    assert_true(elapsed > 0);
    assert_int_equal(ops->read(out, 0, hout, sizeof(hout)), 0);
    for (int g = 0; g < GRID; g++) {
        for (int i = 0; i < BLOCK; i++)
            assert_int_equal(hout[g * BLOCK + i], hin[g * BLOCK + BLOCK - 1 - i] * -3 + 7);
    }

    /* The argument count is checked against the kernel's. */
    l.nargs = 3;
    assert_int_equal(ops->launch(g_dev, k, &l, &elapsed), GC_EINVAL);
    assert_non_null(strstr(ops->last_error(g_dev), "takes 5 arguments"));
    l.nargs = 4;
    l.count = 0;
    assert_int_equal(ops->launch(g_dev, k, &l, &elapsed), GC_EINVAL);

    /* More __local memory than the device has fails as a launch error. */
    l.count = 1;
    l.dyn_shared = g_info.shared_per_block + 4096;
    assert_int_equal(ops->launch(g_dev, k, &l, &elapsed), GC_ELAUNCH);
    assert_non_null(strstr(ops->last_error(g_dev), "CL_DEVICE_LOCAL_MEM_SIZE"));

    /* A kernel that declares the dynamic __local parameter also runs with
     * none requested. */
    args[0].v.buf = out;
    args[1].type = GC_ARG_I32;
    args[1].v.i32 = 42;
    l.nargs = 2;
    l.dyn_shared = 0;
    l.count = 1;
    assert_int_equal(ops->launch(g_dev, kf, &l, &elapsed), 0);
    assert_int_equal(ops->read(out, 0, hout, sizeof(hout)), 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(hout[i], 42);

    assert_int_equal(ops->kernel(p, "no_such_kernel", &k), GC_EINVAL);
    assert_non_null(strstr(ops->last_error(g_dev), "CL_INVALID_KERNEL_NAME"));
    ops->unload(p);
    ops->free(in);
    ops->free(out);
}

/* Every scalar type reaches the kernel with its exact size. */
static void test_launch_scalars(void **state)
{
    struct gc_prog *p;
    struct gc_kern *k = NULL;
    struct gc_buf *o = NULL;
    struct gc_arg args[5];
    struct gc_launch l;
    int64_t h[4];
    double elapsed;

    (void)state;
    if (!(g_info.caps & GC_CAP_FP64))
        skip();
    p = build(k_src_scalars);
    assert_int_equal(ops->kernel(p, "scalars", &k), 0);
    assert_int_equal(ops->alloc(g_dev, sizeof(h), &o), 0);
    args[0].type = GC_ARG_BUF;
    args[0].v.buf = o;
    args[1].type = GC_ARG_I64;
    args[1].v.i64 = -5000000000ll;
    args[2].type = GC_ARG_U64;
    args[2].v.u64 = 0xabcdef0012345678ull;
    args[3].type = GC_ARG_F32;
    args[3].v.f32 = 2.25f;
    args[4].type = GC_ARG_F64;
    args[4].v.f64 = 1.125;
    memset(&l, 0, sizeof(l));
    l.grid[0] = l.grid[1] = l.grid[2] = 1;
    l.block[0] = l.block[1] = l.block[2] = 1;
    l.args = args;
    l.nargs = 5;
    l.count = 1;
    assert_int_equal(ops->launch(g_dev, k, &l, &elapsed), 0);
    assert_int_equal(ops->read(o, 0, h, sizeof(h)), 0);
    assert_true(h[0] == -5000000000ll);
    assert_true(h[1] == 0xabcdef00ll);
    assert_true(h[2] == 9);
    assert_true(h[3] == 9);
    ops->unload(p);
    ops->free(o);
}

static void test_compile_error(void **state)
{
    void *bin = (void *)1;
    size_t len = 1;
    char *log = NULL;

    (void)state;
    assert_int_equal(ops->compile(g_dev, "__kernel void broken(__global int *p) { p[0] = ; }", NULL,
                                  &bin, &len, &log),
                     GC_ECOMPILE);
    assert_null(bin);
    assert_int_equal(len, 0);
    assert_non_null(log);
    assert_true(strlen(log) > 0);
    assert_non_null(
        strstr(ops->last_error(g_dev), "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE"));
    free(log);
}

/* compile() on several threads at once, as the kernel cache does. */
struct compile_job {
    char src[256];
    int rc;
    size_t len;
};

static void *compile_thread(void *arg)
{
    struct compile_job *j = arg;
    void *bin = NULL;
    char *log = NULL;

    j->rc = ops->compile(g_dev, j->src, NULL, &bin, &j->len, &log);
    free(bin);
    free(log);
    return NULL;
}

static void test_compile_parallel(void **state)
{
    enum { T = 4 };
    struct compile_job jobs[T];
    pthread_t th[T];

    (void)state;
    for (int i = 0; i < T; i++) {
        snprintf(jobs[i].src, sizeof(jobs[i].src),
                 "__kernel void k%d(__global int *p) { p[get_global_id(0)] += %d; }\n", i, i + 1);
        assert_int_equal(pthread_create(&th[i], NULL, compile_thread, &jobs[i]), 0);
    }
    for (int i = 0; i < T; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(jobs[i].rc, 0);
        assert_true(jobs[i].len > 0);
    }
}

/* A library that exists but is no OpenCL loader: the first missing symbol is
 * named. */
static void test_missing_symbol(void **state)
{
    char why[512] = "";

    (void)state;
    setenv("GPUCHAR_LIBOPENCL", "libm.so.6", 1);
    assert_int_equal(ops->init(why, sizeof(why)), GC_ENOLIB);
    unsetenv("GPUCHAR_LIBOPENCL");
    assert_non_null(strstr(why, "clGetPlatformIDs"));
    assert_int_equal(ops->device_count(), 0);
}

/* No loader at all; afterwards init works again, which shows that a failed
 * init and fini leave a clean state. */
static void test_missing_loader(void **state)
{
    char why[512] = "";

    (void)state;
    setenv("GPUCHAR_LIBOPENCL", "/nonexistent", 1);
    assert_int_equal(ops->init(why, sizeof(why)), GC_ENOLIB);
    unsetenv("GPUCHAR_LIBOPENCL");
    assert_non_null(strstr(why, "/nonexistent"));
    assert_int_equal(ops->device_count(), 0);

    assert_int_equal(ops->init(why, sizeof(why)), 0);
    assert_true(ops->device_count() >= 1);
    ops->fini();
    assert_int_equal(ops->device_count(), 0);
}

int main(void)
{
    const struct CMUnitTest first[] = {
        cmocka_unit_test(test_zero_platforms),
    };
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_vtable),        cmocka_unit_test(test_init_twice_and_count),
        cmocka_unit_test(test_device_info),   cmocka_unit_test(test_clock_probe),
        cmocka_unit_test(test_describe),      cmocka_unit_test(test_open_bad_index),
        cmocka_unit_test(test_buffers),       cmocka_unit_test(test_alloc_too_large),
        cmocka_unit_test(test_launch),        cmocka_unit_test(test_launch_scalars),
        cmocka_unit_test(test_compile_error), cmocka_unit_test(test_compile_parallel),
        cmocka_unit_test(test_large_pages),
    };
    const struct CMUnitTest loader[] = {
        cmocka_unit_test(test_missing_symbol),
        cmocka_unit_test(test_missing_loader),
    };
    int failed = 0;

    failed += cmocka_run_group_tests_name("opencl_no_platform", first, NULL, NULL);
    failed += cmocka_run_group_tests_name("opencl_device", device, setup_device, teardown_device);
    failed += cmocka_run_group_tests_name("opencl_loader", loader, NULL, NULL);
    return failed ? 1 : 0;
}
