/* The run's status is honest: a failed benchmark makes the results
 * incomplete, benchmarks never started after a stop are "skipped" (not
 * "interrupted"), and a fault-injection setting that does not parse stops
 * the run before it opens the device. Runs on the null device, whose
 * kernels never execute: every benchmark that launches one fails its
 * verification, and those that need inline assembly are not available. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "gpuchar/gpuchar.h"

static gc_context *ctx;

static int setup(void **state)
{
    (void)state;
    /* Only the null backend has a device; the real ones are kept away. */
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
    unsetenv("GPUCHAR_FAULT");
    return 0;
}

static int run(const char *const *patterns, gc_progress_fn progress, struct gc_results **out)
{
    struct gc_run_options o;

    gc_run_options_init(&o);
    o.device = "null:0";
    o.patterns = patterns;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 2;
    o.no_cache = true;
    o.progress = progress;
    return gc_run(ctx, &o, out);
}

static int count_status(const struct gc_results *r, enum gc_bench_status st)
{
    int n = 0;

    for (int i = 0; i < r->nbenches; i++)
        n += r->benches[i].status == st;
    return n;
}

static void test_only_not_available_is_complete(void **state)
{
    static const char *const pats[] = {"compute.wgmma.*", NULL};
    struct gc_results *r = NULL;

    (void)state;
    assert_int_equal(run(pats, NULL, &r), 0);
    assert_true(r->nbenches > 0);
    assert_int_equal(count_status(r, GC_BENCH_NOT_AVAILABLE), r->nbenches);
    assert_true(r->complete);
    assert_string_equal(r->incomplete_reason, "");
    gc_results_free(r);
}

static void test_failed_benchmark_makes_incomplete(void **state)
{
    static const char *const pats[] = {"compute.wgmma.f16_f32", "memory.constant", NULL};
    struct gc_results *r = NULL;

    (void)state;
    assert_int_equal(run(pats, NULL, &r), GC_EBACKEND);
    assert_int_equal(r->nbenches, 2);
    assert_int_equal(count_status(r, GC_BENCH_ERROR), 1);
    assert_int_equal(count_status(r, GC_BENCH_NOT_AVAILABLE), 1);
    assert_false(r->complete);
    assert_non_null(strstr(r->incomplete_reason, "1 benchmark failed: memory.constant"));
    gc_results_free(r);
}

static void test_stop_before_start_skips_all(void **state)
{
    static const char *const pats[] = {"memory.copy", "memory.constant", NULL};
    struct gc_results *r = NULL;

    (void)state;
    gc_request_stop(ctx);
    assert_int_equal(run(pats, NULL, &r), GC_EINTR);
    assert_int_equal(r->nbenches, 2);
    assert_int_equal(count_status(r, GC_BENCH_SKIPPED), 2);
    assert_int_equal(count_status(r, GC_BENCH_INTERRUPTED), 0);
    assert_false(r->complete);
    assert_non_null(strstr(r->incomplete_reason, "2 benchmarks skipped"));
    gc_results_free(r);
}

static void stop_after_first(void *user, int done, int total, const char *bench,
                             const char *status_line)
{
    (void)user;
    (void)total;
    (void)bench;
    (void)status_line;
    if (done == 1)
        gc_request_stop(ctx);
}

/* A stop that arrives between benchmarks: the one that finished keeps its
 * status, the rest are skipped; none of them was interrupted. */
static void test_stop_between_benchmarks(void **state)
{
    static const char *const pats[] = {"memory.constant", "memory.copy", "compute.wgmma.*", NULL};
    struct gc_results *r = NULL;

    (void)state;
    assert_int_equal(run(pats, stop_after_first, &r), GC_EINTR);
    assert_true(r->nbenches >= 3);
    assert_int_equal(r->benches[0].status, GC_BENCH_ERROR);
    for (int i = 1; i < r->nbenches; i++) {
        assert_int_equal(r->benches[i].status, GC_BENCH_SKIPPED);
        assert_non_null(strstr(r->benches[i].error, "not run"));
    }
    assert_false(r->complete);
    /* The failure before the stop is not hidden by it. */
    assert_non_null(strstr(r->incomplete_reason, "1 failed"));
    gc_results_free(r);
}

static void test_bad_fault_setting_fails_the_run(void **state)
{
    static const char *const pats[] = {"memory.copy", NULL};
    struct gc_results *r = NULL;

    (void)state;
    setenv("GPUCHAR_FAULT", "nonsense", 1);
    assert_int_equal(run(pats, NULL, &r), GC_EINVAL);
    assert_non_null(strstr(gc_last_error(ctx), "GPUCHAR_FAULT"));
    assert_false(r->complete);
    assert_int_equal(r->nbenches, 0);
    gc_results_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_only_not_available_is_complete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_benchmark_makes_incomplete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_before_start_skips_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_between_benchmarks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_fault_setting_fails_the_run, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
