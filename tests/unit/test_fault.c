/* GPUCHAR_FAULT's syntax: every valid setting parses to its faults, and any
 * other text is refused whole, naming the bad item. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "backend/null/null.h"
#include "core/device.h"
#include "core/fault.h"

static void test_valid_settings(void **state)
{
    struct gc_faults f;
    char err[256];

    (void)state;
    assert_int_equal(gc__faults_parse(NULL, &f, err, sizeof(err)), 0);
    assert_int_equal(f.alloc_at + f.launch_at, 0);
    assert_false(f.compile);
    assert_int_equal(gc__faults_parse("", &f, err, sizeof(err)), 0);
    assert_false(f.compile);
    assert_int_equal(gc__faults_parse("compile", &f, err, sizeof(err)), 0);
    assert_true(f.compile);
    assert_int_equal(f.alloc_at, 0);
    assert_int_equal(gc__faults_parse("alloc:1", &f, err, sizeof(err)), 0);
    assert_int_equal(f.alloc_at, 1);
    assert_false(f.compile);
    assert_int_equal(gc__faults_parse("launch:3,alloc:12,compile", &f, err, sizeof(err)), 0);
    assert_int_equal(f.launch_at, 3);
    assert_int_equal(f.alloc_at, 12);
    assert_true(f.compile);
    assert_int_equal(f.worker_at, 0);
    assert_int_equal(gc__faults_parse("worker", &f, err, sizeof(err)), 0);
    assert_int_equal(f.worker_at, 1);
    assert_int_equal(gc__faults_parse("compile,worker:4", &f, err, sizeof(err)), 0);
    assert_int_equal(f.worker_at, 4);
    assert_true(f.compile);
    assert_int_equal(gc__faults_parse("crash:2,hang:5", &f, err, sizeof(err)), 0);
    assert_int_equal(f.crash_at, 2);
    assert_int_equal(f.hang_at, 5);
    assert_int_equal(f.alloc_at + f.launch_at, 0);
}

static void test_invalid_settings(void **state)
{
    static const char *const bad[] = {
        "nonsense",
        "compiles",
        "Compile",
        "alloc",
        "alloc:",
        "alloc:0",
        "alloc:-1",
        "alloc:3x",
        "alloc: 3",
        "launch:x",
        "launch:+2",
        "compile,",
        ",",
        ",compile",
        "alloc:1;launch:2",
        "alloc:99999999999999999999999",
        "launch:1,nonsense",
        "workers",
        "worker:",
        "worker:0",
        "worker:2x",
        "crash",
        "crash:0",
        "hang:",
        "hang:1s",
    };
    struct gc_faults f;
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        if (gc__faults_parse(bad[i], &f, err, sizeof(err)) != GC_EINVAL)
            fail_msg("'%s' was accepted", bad[i]);
        assert_non_null(strstr(err, "invalid GPUCHAR_FAULT"));
        assert_non_null(strstr(err, "alloc:N"));
        /* Nothing of a refused setting applies. */
        assert_int_equal(f.alloc_at + f.launch_at + f.crash_at + f.hang_at, 0);
        assert_false(f.compile);
    }
    assert_int_equal(gc__faults_parse("launch:1,nonsense", &f, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "bad item 'nonsense'"));
}

/* A device is not opened under a setting that does not parse: the test that
 * set it would otherwise run without its fault. */
/* scale:METRIC:FACTOR scales the named metric (by name or bench/name) and
 * nothing else; a factor that is not positive is refused. */
static void test_scale(void **state)
{
    struct gc_faults f;
    struct gc_metric m[2] = {{.name = "per_clk_per_cu", .value = 10, .fraction = 0.5},
                             {.name = "issue_latency", .value = 4, .fraction = NAN}};
    struct gc_bench_result b = {.name = "compute.fp32.add", .metrics = m, .nmetrics = 2};
    char err[256];

    (void)state;
    assert_int_equal(gc__faults_parse("scale:compute.fp32.add/per_clk_per_cu:0.5,launch:3", &f, err,
                                      sizeof(err)),
                     0);
    assert_string_equal(f.scale_metric, "compute.fp32.add/per_clk_per_cu");
    assert_true(f.scale_factor == 0.5 && f.launch_at == 3);
    gc__faults_scale(f.scale_metric, f.scale_factor, &b);
    assert_true(m[0].value == 5 && m[0].fraction == 0.25 && m[1].value == 4);
    assert_non_null(strstr(m[0].note, "GPUCHAR_FAULT"));
    gc__faults_scale("issue_latency", 2, &b);
    assert_true(m[1].value == 8);
    gc__faults_scale("compute.fp64.add/issue_latency", 2, &b);
    assert_true(m[1].value == 8);
    assert_int_equal(gc__faults_parse("scale:x:0", &f, err, sizeof(err)), GC_EINVAL);
    assert_int_equal(gc__faults_parse("scale::2", &f, err, sizeof(err)), GC_EINVAL);
    assert_int_equal(gc__faults_parse("scale:x", &f, err, sizeof(err)), GC_EINVAL);
    assert_int_equal(gc__faults_parse("scale:x:-1", &f, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "scale:METRIC:FACTOR"));
}

static void test_device_open_refuses_bad_setting(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-5};
    struct gc_device *dev = NULL;
    char why[64], err[256];

    (void)state;
    gc__null_configure(&cfg);
    assert_int_equal(gc__null_ops.init(why, sizeof(why)), 0);
    setenv("GPUCHAR_FAULT", "alloc:2,launch:5", 1);
    assert_int_equal(gc__device_open(&gc__null_ops, 0, &dev, err, sizeof(err)), 0);
    assert_int_equal(dev->fault_alloc_at, 2);
    assert_int_equal(dev->fault_launch_at, 5);
    assert_false(dev->fault_compile);
    gc__device_close(dev);
    dev = NULL;
    setenv("GPUCHAR_FAULT", "nonsense", 1);
    assert_int_equal(gc__device_open(&gc__null_ops, 0, &dev, err, sizeof(err)), GC_EINVAL);
    assert_null(dev);
    assert_non_null(strstr(err, "invalid GPUCHAR_FAULT 'nonsense'"));
    unsetenv("GPUCHAR_FAULT");
    gc__null_configure(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_settings),
        cmocka_unit_test(test_invalid_settings),
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_device_open_refuses_bad_setting),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
