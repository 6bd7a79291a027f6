/* The run loop of the core runs the benchmark descriptions its caller gives
 * (it knows no benchmark itself), and the default device is never one that
 * a backend only simulates. Only the null backend has a device here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"

static gc_context *ctx;
static int runs; /* calls of the descriptions' run function */

static int setup(void **state)
{
    (void)state;
    setenv("GPUCHAR_NULL_DEVICES", "1", 1);
    setenv("GPUCHAR_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    setenv("GPUCHAR_LIBOPENCL", "/nonexistent/libOpenCL.so.1", 1);
    unsetenv("GPUCHAR_FAULT");
    return gc_context_create(&ctx) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gc_context_destroy(ctx);
    ctx = NULL;
    return 0;
}

/* Records the value its description carries, so that the test sees which
 * description ran. */
static int run_value(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    (void)s;
    runs++;
    return gc__bench_add_metric(r, "value", *(const double *)self->param, "1", NAN, NULL, NULL)
               ? 0
               : GC_ENOMEM;
}

static const double one = 1.5, two = 2.5, three = 3.5;

static const struct gc_bench plain = {
    .info = {"t.plain", "t", "test", "test"}, .run = run_value, .param = &one};
/* The null device has no cycle counter. */
static const struct gc_bench needs_clock = {.info = {"t.clock", "t", "test", "test"},
                                            .needs_caps = GC_CAP_CLOCK64,
                                            .run = run_value,
                                            .param = &two};
static const struct gc_bench on_request = {
    .info = {"t.long", "t", "test", "test"}, .run = run_value, .param = &three, .opt_in = true};

static int run_list(const char *const *patterns, const struct gc_bench *const *list, int n,
                    struct gc_results **out)
{
    struct gc_run_options o;

    gc_run_options_init(&o);
    o.device = "null:0";
    o.patterns = patterns;
    o.profile = GC_PROFILE_QUICK;
    o.no_cache = true;
    runs = 0;
    return gc__run_benches(ctx, &o, list, n, out);
}

static void test_runs_the_callers_list(void **state)
{
    const struct gc_bench *const list[] = {&plain, &needs_clock, &on_request};
    struct gc_results *r = NULL;

    (void)state;
    assert_int_equal(run_list(NULL, list, 3, &r), 0);
    /* The opt-in description is left out of a run without patterns. */
    assert_int_equal(r->nbenches, 2);
    assert_string_equal(r->benches[0].name, "t.plain");
    assert_int_equal(r->benches[0].status, GC_BENCH_OK);
    assert_int_equal(r->benches[0].nmetrics, 1);
    assert_true(r->benches[0].metrics[0].value == one);
    assert_string_equal(r->benches[1].name, "t.clock");
    assert_int_equal(r->benches[1].status, GC_BENCH_NOT_AVAILABLE);
    assert_non_null(strstr(r->benches[1].error, "cycle counter"));
    assert_int_equal(runs, 1);
    assert_true(r->complete);
    gc_results_free(r);
}

static void test_patterns_select_from_the_list(void **state)
{
    static const char *const pats[] = {"t.long", NULL};
    static const char *const other[] = {"memory.copy", NULL};
    const struct gc_bench *const list[] = {&plain, &on_request};
    struct gc_results *r = NULL;

    (void)state;
    assert_int_equal(run_list(pats, list, 2, &r), 0);
    assert_int_equal(r->nbenches, 1);
    assert_string_equal(r->benches[0].name, "t.long");
    assert_true(r->benches[0].metrics[0].value == three);
    gc_results_free(r);
    /* A registered benchmark is not in this list: nothing matches. */
    assert_int_equal(run_list(other, list, 2, &r), GC_ENOBENCH);
    assert_int_equal(r->nbenches, 0);
    gc_results_free(r);
}

static void test_empty_list(void **state)
{
    struct gc_results *r = NULL;

    (void)state;
    assert_int_equal(run_list(NULL, NULL, 0, &r), GC_ENOBENCH);
    assert_int_equal(runs, 0);
    gc_results_free(r);
}

static void test_default_device_is_never_simulated(void **state)
{
    struct gc_device_summary d;

    (void)state;
    /* The null device exists but is only used when named. */
    assert_int_equal(gc_device_resolve(ctx, NULL, &d), GC_ENODEV);
    assert_int_equal(gc_device_resolve(ctx, "", &d), GC_ENODEV);
    assert_int_equal(gc_device_resolve(ctx, "null", &d), 0);
    assert_string_equal(d.spec, "null:0");
}

/* "backend:index" resolves to what the whole list names so; an index the
 * backend lacks or a malformed one names no device. */
static void test_exact_spec(void **state)
{
    struct gc_device_summary d, *list = NULL;
    int n = 0;

    (void)state;
    assert_int_equal(gc_device_list(ctx, &list, &n), 0);
    for (int i = 0; i < n; i++) {
        assert_int_equal(gc_device_resolve(ctx, list[i].spec, &d), 0);
        assert_string_equal(d.spec, list[i].spec);
        assert_string_equal(d.name, list[i].name);
        assert_int_equal(d.compute_units, list[i].compute_units);
    }
    free(list);
    assert_int_equal(gc_device_resolve(ctx, "null:99", &d), GC_ENODEV);
    assert_int_equal(gc_device_resolve(ctx, "null:0x", &d), GC_ENODEV);
    assert_int_equal(gc_device_resolve(ctx, "null:-1", &d), GC_ENODEV);
    assert_int_equal(gc_device_resolve(ctx, "nosuch:0", &d), GC_ENODEV);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_the_callers_list),
        cmocka_unit_test(test_patterns_select_from_the_list),
        cmocka_unit_test(test_empty_list),
        cmocka_unit_test(test_default_device_is_never_simulated),
        cmocka_unit_test(test_exact_spec),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
