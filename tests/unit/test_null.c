/* Tests of the simulated backend (src/backend/null/null.c). */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/null/null.h"
#include "util/random.h"

static const struct gc_backend_ops *ops = &gc__null_ops;

/* Every test starts from the unconfigured backend without the variable. */
static int reset(void **state)
{
    (void)state;
    unsetenv("GPUCHAR_NULL_DEVICES");
    gc__null_configure(NULL);
    return 0;
}

static struct gc_dev *open_configured(const struct gc_null_config *cfg)
{
    struct gc_dev *d = NULL;
    char err[256] = "";

    gc__null_configure(cfg);
    assert_int_equal(ops->open(0, &d, err, sizeof(err)), 0);
    assert_non_null(d);
    return d;
}

static void test_no_devices_by_default(void **state)
{
    char why[128] = "x";
    struct gc_device_info info;
    struct gc_dev *d = NULL;
    char err[256] = "";

    (void)state;
    assert_int_equal(ops->init(why, sizeof(why)), 0);
    assert_int_equal(ops->device_count(), 0);
    assert_int_equal(ops->device_info(0, &info), GC_ENODEV);
    assert_int_equal(ops->open(0, &d, err, sizeof(err)), GC_ENODEV);
    assert_null(d);
    assert_non_null(strstr(err, "no device 0"));
    /* Nonsense in the variable is zero devices too. */
    setenv("GPUCHAR_NULL_DEVICES", "abc", 1);
    assert_int_equal(ops->device_count(), 0);
    setenv("GPUCHAR_NULL_DEVICES", "0", 1);
    assert_int_equal(ops->device_count(), 0);
    setenv("GPUCHAR_NULL_DEVICES", "2x", 1);
    assert_int_equal(ops->device_count(), 0);
}

static void test_device_count(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-5};
    struct gc_device_info info;

    (void)state;
    setenv("GPUCHAR_NULL_DEVICES", "3", 1);
    assert_int_equal(ops->device_count(), 3);
    assert_int_equal(ops->device_info(2, &info), 0);
    assert_int_equal(ops->device_info(3, &info), GC_ENODEV);
    unsetenv("GPUCHAR_NULL_DEVICES");
    assert_int_equal(ops->device_count(), 0);
    gc__null_configure(&cfg);
    assert_int_equal(ops->device_count(), 1);
    gc__null_configure(NULL);
    assert_int_equal(ops->device_count(), 0);
}

static void test_device_info(void **state)
{
    struct gc_device_info info;

    (void)state;
    setenv("GPUCHAR_NULL_DEVICES", "1", 1);
    assert_int_equal(ops->device_info(0, &info), 0);
    assert_string_equal(info.name, "null simulated device");
    assert_int_equal(info.type, GC_DEVICE_OTHER);
    assert_int_equal(info.compute_units, 4);
    assert_int_equal(info.simd_width, 32);
    assert_true(info.clock_mhz == 1500);
    assert_true(info.global_mem == (size_t)1 << 30);
    assert_int_equal(info.caps, GC_CAP_SENSOR_CLOCK | GC_CAP_SENSOR_THROTTLE | GC_CAP_DYN_SHARED);
    assert_int_equal(ops->dialect, GC_DIALECT_OPENCL);
    assert_string_equal(ops->name, "null");
}

static void test_buffers(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-5};
    struct gc_dev *d = open_configured(&cfg);
    struct gc_buf *a = NULL, *b = NULL;
    unsigned char src[4096], dst[4096];
    void *host = NULL;

    (void)state;
    gc__random_fill(src, sizeof(src), 1);
    assert_int_equal(ops->alloc(d, sizeof(src), &a), 0);
    assert_int_equal(ops->alloc(d, sizeof(src), &b), 0);
    assert_int_equal(ops->write(a, 0, src, sizeof(src)), 0);
    assert_int_equal(ops->read(a, 0, dst, sizeof(dst)), 0);
    assert_memory_equal(src, dst, sizeof(src));

    /* Copy with offsets: b[100..1100) = a[1000..2000). */
    memset(dst, 0, sizeof(dst));
    assert_int_equal(ops->write(b, 0, dst, sizeof(dst)), 0);
    assert_int_equal(ops->copy(b, 100, a, 1000, 1000), 0);
    assert_int_equal(ops->read(b, 100, dst, 1000), 0);
    assert_memory_equal(dst, src + 1000, 1000);
    assert_int_equal(ops->read(b, 0, dst, 100), 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(dst[i], 0);

    /* A mapped range is the buffer's content; writes through it stay. */
    assert_int_equal(ops->map(a, 16, 64, &host), 0);
    assert_memory_equal(host, src + 16, 64);
    memset(host, 0xAB, 64);
    assert_int_equal(ops->unmap(a, host), 0);
    assert_int_equal(ops->read(a, 16, dst, 64), 0);
    for (int i = 0; i < 64; i++)
        assert_int_equal(dst[i], 0xAB);

    /* Out of range: refused with a message, nothing written. */
    assert_int_equal(ops->write(a, 4000, src, 200), GC_EINVAL);
    assert_non_null(strstr(ops->last_error(d), "exceeds the 4096-byte buffer"));
    assert_int_equal(ops->read(a, SIZE_MAX, dst, 2), GC_EINVAL);
    assert_int_equal(ops->copy(b, 0, a, 4095, 2), GC_EINVAL);
    assert_int_equal(ops->map(a, 0, 4097, &host), GC_EINVAL);
    assert_null(host);
    ops->free(a);
    ops->free(b);
    ops->close(d);
}

static void test_alloc_limits(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-5, .fail_alloc_after = 2};
    struct gc_dev *d = open_configured(&cfg);
    struct gc_buf *b[3] = {NULL, NULL, NULL};

    (void)state;
    assert_int_equal(ops->alloc(d, 64, &b[0]), 0);
    assert_int_equal(ops->alloc(d, 64, &b[1]), 0);
    assert_int_equal(ops->alloc(d, 64, &b[2]), GC_EDEVMEM);
    assert_null(b[2]);
    assert_non_null(strstr(ops->last_error(d), "fail_alloc_after=2"));
    ops->free(b[0]);
    ops->free(b[1]);
    ops->close(d);

    /* The 1 GiB of the device is a limit on the sum of live buffers. */
    cfg.fail_alloc_after = 0;
    d = open_configured(&cfg);
    assert_int_equal(ops->alloc(d, (size_t)1 << 30, &b[0]), 0);
    assert_int_equal(ops->alloc(d, 1, &b[1]), GC_EDEVMEM);
    assert_non_null(strstr(ops->last_error(d), "out of device memory"));
    ops->free(b[0]);
    assert_int_equal(ops->alloc(d, 1, &b[1]), 0);
    ops->free(b[1]);
    ops->close(d);
}

static void test_compile(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-5};
    struct gc_dev *d = open_configured(&cfg);
    const char *src = "__kernel void k(__global int *p) { p[0] = 1; }";
    void *bin = NULL;
    size_t len = 0;
    char *log = NULL;
    struct gc_prog *p = NULL;
    struct gc_kern *k1 = NULL, *k2 = NULL;

    (void)state;
    assert_int_equal(ops->compile(d, src, "-O3", &bin, &len, &log), 0);
    assert_int_equal(len, strlen(src));
    assert_memory_equal(bin, src, len);
    assert_int_equal(ops->load(d, bin, len, &p), 0);
    assert_int_equal(ops->kernel(p, "k", &k1), 0);
    assert_int_equal(ops->kernel(p, "k", &k2), 0);
    assert_non_null(k1);
    assert_true(k1 != k2);
    free(bin);
    free(log);
    /* The program owns its kernels: unload frees them (ASan checks). */
    ops->unload(p);

    assert_int_equal(ops->compile(d, "int x;\n#error broken\n", "", &bin, &len, &log), GC_ECOMPILE);
    assert_null(bin);
    assert_non_null(log);
    assert_string_equal(log, "null: #error found");
    assert_non_null(strstr(ops->last_error(d), "#error"));
    free(log);
    ops->close(d);
}

/* Loads a kernel for launching. */
static struct gc_kern *make_kernel(struct gc_dev *d, struct gc_prog **p)
{
    const char *src = "kernel";
    void *bin;
    size_t len;
    char *log;
    struct gc_kern *k;

    assert_int_equal(ops->compile(d, src, "", &bin, &len, &log), 0);
    assert_int_equal(ops->load(d, bin, len, p), 0);
    free(bin);
    free(log);
    assert_int_equal(ops->kernel(*p, "k", &k), 0);
    return k;
}

static void test_launch_scaling(void **state)
{
    struct gc_null_config cfg = {.launch_s = 2e-5, .noise_rel = 0, .seed = 7};
    struct gc_launch l = {.grid = {4, 1, 1}, .block = {256, 1, 1}, .count = 1};
    struct gc_dev *d = open_configured(&cfg);
    struct gc_prog *p;
    struct gc_kern *k = make_kernel(d, &p);
    double el, sum = 0;

    (void)state;
    /* Without noise the time is exactly count * launch_s. */
    for (int count = 1; count <= 1000; count *= 10) {
        l.count = count;
        assert_int_equal(ops->launch(d, k, &l, &el), 0);
        assert_true(fabs(el - count * 2e-5) <= 1e-15 * count);
    }
    ops->unload(p);
    ops->close(d);

    /* With 5% noise each sample stays within +-5% and the mean is near
     * launch_s; the noise is not constant. */
    cfg.noise_rel = 0.05;
    d = open_configured(&cfg);
    k = make_kernel(d, &p);
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < 2000; i++) {
        l.count = 100;
        assert_int_equal(ops->launch(d, k, &l, &el), 0);
        el /= 100 * 2e-5;
        assert_true(el >= 0.95 - 1e-12 && el <= 1.05 + 1e-12);
        lo = el < lo ? el : lo;
        hi = el > hi ? el : hi;
        sum += el;
    }
    assert_true(fabs(sum / 2000 - 1) < 0.005);
    assert_true(hi - lo > 0.05);
    ops->unload(p);
    ops->close(d);
}

/* The same seed gives the same timings on a fresh device, and sensor reads
 * in between do not change them. */
static void test_launch_deterministic(void **state)
{
    struct gc_null_config cfg = {
        .launch_s = 1e-5, .noise_rel = 0.1, .seed = 99, .throttle_prob = 0.5};
    struct gc_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .count = 3};
    double first[50], el;
    struct gc_sensor_sample s;

    (void)state;
    for (int round = 0; round < 2; round++) {
        struct gc_dev *d = open_configured(&cfg);
        struct gc_prog *p;
        struct gc_kern *k = make_kernel(d, &p);

        for (int i = 0; i < 50; i++) {
            if (round == 1)
                ops->sensors(d, &s);
            assert_int_equal(ops->launch(d, k, &l, &el), 0);
            if (round == 0)
                first[i] = el;
            else
                assert_true(first[i] == el);
        }
        ops->unload(p);
        ops->close(d);
    }
}

static void test_launch_errors(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-5};
    struct gc_dev *d = open_configured(&cfg);
    struct gc_prog *p;
    struct gc_kern *k = make_kernel(d, &p);
    struct gc_arg arg = {.type = GC_ARG_BUF, .v.buf = NULL};
    struct gc_launch l = {.grid = {1, 1, 1}, .block = {2048, 1, 1}, .count = 1};
    double el;

    (void)state;
    assert_int_equal(ops->launch(d, k, &l, &el), GC_ELAUNCH);
    assert_non_null(strstr(ops->last_error(d), "2048 threads"));
    l.block[0] = 64;
    l.dyn_shared = 1 << 20;
    assert_int_equal(ops->launch(d, k, &l, &el), GC_ELAUNCH);
    l.dyn_shared = 0;
    l.count = 0;
    assert_int_equal(ops->launch(d, k, &l, &el), GC_EINVAL);
    l.count = 1;
    l.grid[1] = 0;
    assert_int_equal(ops->launch(d, k, &l, &el), GC_EINVAL);
    l.grid[1] = 1;
    l.args = &arg;
    l.nargs = 1;
    assert_int_equal(ops->launch(d, k, &l, &el), GC_EINVAL);
    ops->unload(p);
    ops->close(d);
}

static void test_sensors(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-5, .throttle_prob = 1};
    struct gc_dev *d = open_configured(&cfg);
    struct gc_sensor_sample s;
    int throttled = 0;

    (void)state;
    for (int i = 0; i < 100; i++) {
        assert_int_equal(ops->sensors(d, &s), 0);
        assert_true(s.valid & GC_SENSOR_SM_CLOCK);
        assert_true(s.valid & GC_SENSOR_THROTTLE);
        assert_true(s.throttled);
        assert_true(s.sm_clock_mhz == 1200);
        assert_true(s.throttle != 0);
    }
    ops->close(d);

    cfg.throttle_prob = 0;
    d = open_configured(&cfg);
    for (int i = 0; i < 100; i++) {
        assert_int_equal(ops->sensors(d, &s), 0);
        assert_false(s.throttled);
        assert_true(s.sm_clock_mhz == 1500);
        assert_true(s.throttle == 0);
    }
    ops->close(d);

    cfg.throttle_prob = 0.3;
    d = open_configured(&cfg);
    for (int i = 0; i < 2000; i++) {
        assert_int_equal(ops->sensors(d, &s), 0);
        throttled += s.throttled;
        assert_true(s.sm_clock_mhz == (s.throttled ? 1200 : 1500));
    }
    /* 600 expected, sigma about 20. */
    assert_true(throttled > 500 && throttled < 700);
    ops->close(d);
}

struct sampler_arg {
    struct gc_dev *d;
    int reads;
};

static void *sampler(void *p)
{
    struct sampler_arg *a = p;
    struct gc_sensor_sample s;

    for (int i = 0; i < 20000; i++)
        if (ops->sensors(a->d, &s) == 0 && (s.valid & GC_SENSOR_SM_CLOCK))
            a->reads++;
    return NULL;
}

/* A sampling thread reads sensors while the main thread launches. */
static void test_concurrent_sensors(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-5, .noise_rel = 0.01, .throttle_prob = 0.1};
    struct gc_dev *d = open_configured(&cfg);
    struct gc_prog *p;
    struct gc_kern *k = make_kernel(d, &p);
    struct gc_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .count = 1};
    struct sampler_arg a = {d, 0};
    pthread_t t;
    double el;

    (void)state;
    assert_int_equal(pthread_create(&t, NULL, sampler, &a), 0);
    for (int i = 0; i < 20000; i++)
        assert_int_equal(ops->launch(d, k, &l, &el), 0);
    pthread_join(t, NULL);
    assert_int_equal(a.reads, 20000);
    ops->unload(p);
    ops->close(d);
}

static void test_describe(void **state)
{
    struct gc_null_config cfg = {.launch_s = 3e-5, .seed = 0x10};
    struct gc_dev *d = open_configured(&cfg);
    char buf[256];

    (void)state;
    ops->describe(d, buf, sizeof(buf));
    assert_non_null(strstr(buf, "simulated=1"));
    assert_non_null(strstr(buf, "launch_s=3e-05"));
    assert_non_null(strstr(buf, "seed=0x10"));
    ops->close(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_no_devices_by_default, reset),
        cmocka_unit_test_setup(test_device_count, reset),
        cmocka_unit_test_setup(test_device_info, reset),
        cmocka_unit_test_setup(test_buffers, reset),
        cmocka_unit_test_setup(test_alloc_limits, reset),
        cmocka_unit_test_setup(test_compile, reset),
        cmocka_unit_test_setup(test_launch_scaling, reset),
        cmocka_unit_test_setup(test_launch_deterministic, reset),
        cmocka_unit_test_setup(test_launch_errors, reset),
        cmocka_unit_test_setup(test_sensors, reset),
        cmocka_unit_test_setup(test_concurrent_sensors, reset),
        cmocka_unit_test_setup(test_describe, reset),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
