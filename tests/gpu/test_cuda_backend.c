/* The CUDA backend on a real NVIDIA GPU, driven only through its vtable:
 * device facts, buffers, NVRTC compilation, launches, occupancy, sensors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda.h"

static const struct gc_backend_ops *ops = &gc__cuda_ops;

struct fixture {
    struct gc_device_info info;
    struct gc_dev *dev;
};

static const char add1_src[] = "extern \"C\" __global__ void add1(int *a, int n)\n"
                               "{\n"
                               "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "    if (i < n)\n"
                               "        a[i] += 1;\n"
                               "}\n";

/* Reverses each block's slice through dynamic shared memory, of which the
 * launch gives more than the 48 KiB a kernel gets without opting in. */
static const char reverse_src[] = "extern \"C\" __global__ void reverse(int *a)\n"
                                  "{\n"
                                  "    extern __shared__ int s[];\n"
                                  "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                  "    s[threadIdx.x] = a[i];\n"
                                  "    __syncthreads();\n"
                                  "    a[i] = s[blockDim.x - 1 - threadIdx.x];\n"
                                  "}\n";

static const char bad_src[] = "extern \"C\" __global__ void bad(int *a)\n"
                              "{\n"
                              "    a[0] = undeclared_name;\n"
                              "}\n";

static const char wild_src[] = "extern \"C\" __global__ void wild(int *a)\n"
                               "{\n"
                               "    a[0] = 1;\n"
                               "}\n";

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void fill_random(void *p, size_t n, uint64_t seed)
{
    unsigned char *b = p;

    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(xorshift(&seed) >> 24);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    char why[512] = "", err[GC_ERRLEN] = "";
    int rc;

    if (!f)
        return -1;
    rc = ops->init(why, sizeof(why));
    if (rc) {
        fprintf(stderr, "cuda init failed: %s\n", why);
        free(f);
        return -1;
    }
    if (ops->device_count() < 1 || ops->device_info(0, &f->info) ||
        ops->open(0, &f->dev, err, sizeof(err))) {
        fprintf(stderr, "no usable CUDA device: %s\n", err);
        ops->fini();
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    /* cmocka runs the group teardown also when the setup failed. */
    if (!f)
        return 0;
    ops->close(f->dev);
    ops->fini();
    free(f);
    return 0;
}

/* Compiles, loads and looks up one kernel; fails the test on any error. */
static struct gc_prog *build(struct fixture *f, const char *src, const char *options,
                             const char *name, struct gc_kern **k)
{
    struct gc_prog *p = NULL;
    void *bin = NULL;
    size_t len = 0;
    char *log = NULL;
    int rc;

    rc = ops->compile(f->dev, src, options, &bin, &len, &log);
    if (rc)
        fprintf(stderr, "compile: %s\nlog: %s\n", ops->last_error(f->dev), log ? log : "");
    assert_int_equal(rc, 0);
    assert_non_null(bin);
    assert_true(len > 0);
    free(log);
    rc = ops->load(f->dev, bin, len, &p);
    free(bin);
    if (rc)
        fprintf(stderr, "load: %s\n", ops->last_error(f->dev));
    assert_int_equal(rc, 0);
    assert_int_equal(ops->kernel(p, name, k), 0);
    assert_non_null(*k);
    return p;
}

static void test_count_and_info(void **state)
{
    struct fixture *f = *state;
    const struct gc_device_info *i = &f->info;

    assert_true(ops->device_count() >= 1);
    assert_string_equal(ops->name, "cuda");
    assert_int_equal(ops->dialect, GC_DIALECT_CUDA);
    assert_true(i->compute_units > 0);
    assert_int_equal(strncmp(i->arch, "sm_", 3), 0);
    assert_true(i->cc_major >= 3);
    assert_int_equal(i->simd_width, 32);
    assert_true(i->max_threads_per_block >= 512);
    assert_true(i->max_threads_per_cu >= i->max_threads_per_block);
    assert_true(i->max_blocks_per_cu > 0);
    assert_true(i->regs_per_cu > 0);
    assert_true(i->shared_per_cu >= i->shared_per_block);
    assert_true(i->shared_per_block_optin >= i->shared_per_block);
    assert_true(i->global_mem > 0);
    assert_true(i->max_alloc == i->global_mem);
    assert_true(i->l2_size > 0);
    assert_true(i->clock_mhz > 0);
    assert_true(i->mem_bus_width > 0);
    assert_true(i->mem_bw_spec > 1e9);
    assert_string_equal(i->vendor, "NVIDIA");
    assert_int_equal(i->type, GC_DEVICE_GPU);
    assert_non_null(strstr(i->driver, "CUDA driver"));
    assert_non_null(strstr(i->compiler, "NVRTC"));
    assert_true(i->ecc_enabled == 0 || i->ecc_enabled == 1);
    assert_true(strlen(i->pci_bus_id) >= 7);
    assert_true(i->caps & GC_CAP_CLOCK64);
    assert_true(i->caps & GC_CAP_OCCUPANCY_API);
    assert_true(i->caps & GC_CAP_DYN_SHARED);
    assert_int_equal(ops->device_info(ops->device_count(), &(struct gc_device_info){0}), GC_ENODEV);
    printf("device 0: %s, %s, %d SMs, %.0f MHz, %s, %s, caps 0x%x\n", i->name, i->arch,
           i->compute_units, i->clock_mhz, i->driver, i->compiler, i->caps);
}

static void test_buffers(void **state)
{
    struct fixture *f = *state;
    const size_t n = (4u << 20) + 12345;
    unsigned char *src = malloc(n), *dst = malloc(n);
    struct gc_buf *a = NULL, *b = NULL;
    void *host = NULL;

    assert_non_null(src);
    assert_non_null(dst);
    fill_random(src, n, 0x9E3779B97F4A7C15ULL);
    assert_int_equal(ops->alloc(f->dev, n, &a), 0);
    assert_int_equal(ops->alloc(f->dev, n, &b), 0);
    assert_int_equal(ops->write(a, 0, src, n), 0);
    memset(dst, 0, n);
    assert_int_equal(ops->read(a, 0, dst, n), 0);
    assert_memory_equal(src, dst, n);

    assert_int_equal(ops->copy(b, 0, a, 0, n), 0);
    memset(dst, 0, n);
    assert_int_equal(ops->read(b, 0, dst, n), 0);
    assert_memory_equal(src, dst, n);

    /* Offsets on both sides of a copy. */
    assert_int_equal(ops->copy(b, 100, a, 7, 1000), 0);
    assert_int_equal(ops->read(b, 100, dst, 1000), 0);
    assert_memory_equal(src + 7, dst, 1000);

    /* Map a range, change it on the host, write it back on unmap. */
    assert_int_equal(ops->map(a, 4096, 8192, &host), 0);
    assert_non_null(host);
    assert_memory_equal(host, src + 4096, 8192);
    memset(host, 0xA5, 8192);
    assert_int_equal(ops->unmap(a, host), 0);
    assert_int_equal(ops->read(a, 4096, dst, 8192), 0);
    for (size_t i = 0; i < 8192; i++)
        assert_int_equal(dst[i], 0xA5);

    /* Out of range is refused before reaching the driver. */
    assert_int_equal(ops->write(a, n - 10, src, 11), GC_EINVAL);
    assert_true(strlen(ops->last_error(f->dev)) > 0);

    ops->free(b);
    ops->free(a);
    free(dst);
    free(src);
}

static void test_out_of_memory(void **state)
{
    struct fixture *f = *state;
    struct gc_buf *b = NULL;

    /* Twice the device's memory can never be allocated. */
    assert_int_equal(ops->alloc(f->dev, f->info.global_mem * 2, &b), GC_EDEVMEM);
    assert_null(b);
    assert_non_null(strstr(ops->last_error(f->dev), "cuMemAlloc"));
}

static void test_compile_and_launch(void **state)
{
    struct fixture *f = *state;
    const int n = 100003;
    int *host = malloc(n * sizeof(*host)), *back = malloc(n * sizeof(*back));
    struct gc_kern *k = NULL;
    struct gc_buf *buf = NULL;
    struct gc_prog *p;
    double elapsed = 0;
    int regs = -1, max_threads = 0, blocks = 0;
    size_t stat = 1;

    assert_non_null(host);
    assert_non_null(back);
    /* Two options, to check that the string is split into words. */
    p = build(f, add1_src, "-lineinfo --use_fast_math", "add1", &k);
    assert_int_equal(ops->kernel_attrs(k, &regs, &stat, &max_threads), 0);
    assert_true(regs > 0);
    assert_int_equal(stat, 0);
    assert_true(max_threads >= 256);
    assert_int_equal(ops->max_active_blocks(k, 256, 0, &blocks), 0);
    assert_true(blocks > 0);

    fill_random(host, n * sizeof(*host), 42);
    assert_int_equal(ops->alloc(f->dev, n * sizeof(*host), &buf), 0);
    assert_int_equal(ops->write(buf, 0, host, n * sizeof(*host)), 0);
    struct gc_arg args[] = {{.type = GC_ARG_BUF, .v.buf = buf}, {.type = GC_ARG_I32, .v.i32 = n}};
    struct gc_launch l = {
        .grid = {(unsigned)(n + 255) / 256, 1, 1},
        .block = {256, 1, 1},
        .args = args,
        .nargs = 2,
        .count = 3,
    };
    int rc = ops->launch(f->dev, k, &l, &elapsed);
    if (rc)
        fprintf(stderr, "launch: %s\n", ops->last_error(f->dev));
    assert_int_equal(rc, 0);
    assert_true(elapsed > 0);
    assert_true(elapsed < 1.0);
    assert_int_equal(ops->read(buf, 0, back, n * sizeof(*back)), 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(back[i], (int)((unsigned)host[i] + 3u));

    /* The same name again is the same kernel; a missing one is an error. */
    struct gc_kern *again = NULL, *none = NULL;
    assert_int_equal(ops->kernel(p, "add1", &again), 0);
    assert_ptr_equal(again, k);
    assert_int_not_equal(ops->kernel(p, "no_such_kernel", &none), 0);
    assert_null(none);
    assert_non_null(strstr(ops->last_error(f->dev), "cuModuleGetFunction"));

    ops->free(buf);
    ops->unload(p);
    free(back);
    free(host);
}

static void test_large_dynamic_shared(void **state)
{
    struct fixture *f = *state;
    const unsigned threads = 1024, nblocks = 264;
    const size_t dyn = 64 * 1024;
    const size_t n = (size_t)threads * nblocks;
    int *host = malloc(n * sizeof(*host)), *back = malloc(n * sizeof(*back));
    struct gc_kern *k = NULL;
    struct gc_buf *buf = NULL;
    struct gc_prog *p;
    double elapsed = 0;
    int blocks = 0;

    if (f->info.shared_per_block_optin < dyn)
        skip();
    assert_non_null(host);
    assert_non_null(back);
    p = build(f, reverse_src, NULL, "reverse", &k);
    assert_int_equal(ops->max_active_blocks(k, (int)threads, dyn, &blocks), 0);
    assert_true(blocks >= 1);
    /* More than a block may ever have: no block fits. */
    assert_int_equal(
        ops->max_active_blocks(k, (int)threads, f->info.shared_per_block_optin + 1, &blocks), 0);
    assert_int_equal(blocks, 0);

    fill_random(host, n * sizeof(*host), 7);
    assert_int_equal(ops->alloc(f->dev, n * sizeof(*host), &buf), 0);
    assert_int_equal(ops->write(buf, 0, host, n * sizeof(*host)), 0);
    struct gc_arg arg = {.type = GC_ARG_BUF, .v.buf = buf};
    struct gc_launch l = {
        .grid = {nblocks, 1, 1},
        .block = {threads, 1, 1},
        .dyn_shared = dyn,
        .args = &arg,
        .nargs = 1,
        .count = 1,
    };
    int rc = ops->launch(f->dev, k, &l, &elapsed);
    if (rc)
        fprintf(stderr, "launch: %s\n", ops->last_error(f->dev));
    assert_int_equal(rc, 0);
    assert_int_equal(ops->read(buf, 0, back, n * sizeof(*back)), 0);
    for (size_t b = 0; b < nblocks; b++)
        for (size_t t = 0; t < threads; t++)
            assert_int_equal(back[b * threads + t], host[b * threads + threads - 1 - t]);
    ops->free(buf);
    ops->unload(p);
    free(back);
    free(host);
}

static void test_compile_error(void **state)
{
    struct fixture *f = *state;
    void *bin = NULL;
    size_t len = 0;
    char *log = NULL;

    assert_int_equal(ops->compile(f->dev, bad_src, "", &bin, &len, &log), GC_ECOMPILE);
    assert_null(bin);
    assert_int_equal(len, 0);
    assert_non_null(log);
    assert_true(strlen(log) > 0);
    assert_non_null(strstr(log, "undeclared_name"));
    assert_non_null(strstr(ops->last_error(f->dev), "NVRTC_ERROR_COMPILATION"));
    free(log);

    /* An option NVRTC does not know is a compile error too, with a log. */
    log = NULL;
    assert_int_equal(ops->compile(f->dev, add1_src, "--no-such-option", &bin, &len, &log),
                     GC_ECOMPILE);
    assert_non_null(log);
    assert_true(strlen(log) > 0);
    free(log);
}

static void test_sensors(void **state)
{
    struct fixture *f = *state;
    struct gc_sensor_sample s;
    char desc[1024] = "";

    ops->describe(f->dev, desc, sizeof(desc));
    printf("describe: %s\n", desc);
    assert_non_null(strstr(desc, "driver="));
    assert_non_null(strstr(desc, "pci="));
    assert_non_null(strstr(desc, "ecc="));
    if (!(f->info.caps & GC_CAP_SENSOR_CLOCK)) {
        int rc = ops->sensors(f->dev, &s);

        assert_true(rc == 0 || rc == GC_ENOTSUP);
        skip();
    }
    assert_int_equal(ops->sensors(f->dev, &s), 0);
    assert_true(s.valid & GC_SENSOR_SM_CLOCK);
    assert_true(s.sm_clock_mhz > 0);
    assert_true(s.t > 0);
    if (f->info.caps & GC_CAP_SENSOR_POWER)
        assert_true((s.valid & GC_SENSOR_POWER) && s.power_w > 0);
    if (f->info.caps & GC_CAP_ENERGY)
        assert_true((s.valid & GC_SENSOR_ENERGY) && s.energy_j > 0);
    printf("sensors: valid 0x%x, sm %.0f MHz, mem %.0f MHz, %.1f W of %.0f W, %.0f C, "
           "%.1f J, reasons 0x%llx%s\n",
           s.valid, s.sm_clock_mhz, s.mem_clock_mhz, s.power_w, s.power_limit_w, s.temp_c,
           s.energy_j, s.throttle, s.throttled ? " (throttled)" : "");
}

struct sampler {
    struct gc_dev *dev;
    atomic_int stop;
    int reads, failures;
    double max_sm_clock;
};

static void *sample(void *arg)
{
    struct sampler *s = arg;

    while (!atomic_load(&s->stop)) {
        struct gc_sensor_sample x;

        if (ops->sensors(s->dev, &x) == 0 && (x.valid & GC_SENSOR_SM_CLOCK)) {
            if (x.sm_clock_mhz > s->max_sm_clock)
                s->max_sm_clock = x.sm_clock_mhz;
        } else {
            s->failures++;
        }
        s->reads++;
    }
    return NULL;
}

/* The core samples sensors from a second thread while it launches. */
static void test_sensors_during_launches(void **state)
{
    struct fixture *f = *state;
    const int n = 1 << 22;
    struct sampler s = {.dev = f->dev};
    struct gc_kern *k = NULL;
    struct gc_buf *buf = NULL;
    struct gc_prog *p;
    pthread_t t;
    double elapsed = 0;

    if (!(f->info.caps & GC_CAP_SENSOR_CLOCK))
        skip();
    p = build(f, add1_src, NULL, "add1", &k);
    assert_int_equal(ops->alloc(f->dev, n * sizeof(int), &buf), 0);
    struct gc_arg args[] = {{.type = GC_ARG_BUF, .v.buf = buf}, {.type = GC_ARG_I32, .v.i32 = n}};
    struct gc_launch l = {
        .grid = {n / 256, 1, 1}, .block = {256, 1, 1}, .args = args, .nargs = 2, .count = 200};
    assert_int_equal(pthread_create(&t, NULL, sample, &s), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(ops->launch(f->dev, k, &l, &elapsed), 0);
    atomic_store(&s.stop, 1);
    pthread_join(t, NULL);
    printf("sensors during launches: %d reads, %d failed, max SM clock %.0f MHz\n", s.reads,
           s.failures, s.max_sm_clock);
    assert_true(s.reads > 0);
    assert_int_equal(s.failures, 0);
    assert_true(s.max_sm_clock > 0);
    ops->free(buf);
    ops->unload(p);
}

/* Runs last: an illegal address poisons the context for good. */
static void test_illegal_address(void **state)
{
    struct fixture *f = *state;
    struct gc_kern *k = NULL;
    struct gc_prog *p = build(f, wild_src, NULL, "wild", &k);
    struct gc_arg arg = {.type = GC_ARG_U64, .v.u64 = 0x10};
    struct gc_launch l = {
        .grid = {1, 1, 1}, .block = {1, 1, 1}, .args = &arg, .nargs = 1, .count = 1};
    double elapsed = 0;

    assert_int_equal(ops->launch(f->dev, k, &l, &elapsed), GC_ELAUNCH);
    assert_non_null(strstr(ops->last_error(f->dev), "CUDA_ERROR_ILLEGAL_ADDRESS"));
    ops->unload(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_and_info),
        cmocka_unit_test(test_buffers),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_compile_and_launch),
        cmocka_unit_test(test_large_dynamic_shared),
        cmocka_unit_test(test_compile_error),
        cmocka_unit_test(test_sensors),
        cmocka_unit_test(test_sensors_during_launches),
        cmocka_unit_test(test_illegal_address),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
