/* End-to-end on the first OpenCL device (PoCL in CI): both benchmarks run,
 * verify their kernels, and give sane, limit-respecting figures; the results
 * survive a JSON round trip and the kernel cache is used on a second run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"
#include "core/results.h"

static char cache_dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(cache_dir, sizeof(cache_dir), "/tmp/gpuchar-test-cache-%ld", (long)getpid());
    return 0;
}

static struct gc_results *run_quick(gc_context *ctx, int *rc)
{
    static const char *const pats[] = {"memory.copy", "compute.fp32.fma", NULL};
    struct gc_run_options o;
    struct gc_results *r = NULL;

    gc_run_options_init(&o);
    o.device = "opencl:0";
    o.patterns = pats;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 3;
    o.min_time_ms = 2;
    o.cache_dir = cache_dir;
    *rc = gc_run(ctx, &o, &r);
    return r;
}

static void test_quick_run_on_opencl(void **state)
{
    gc_context *ctx = NULL;
    int rc;

    (void)state;
    assert_int_equal(gc_context_create(&ctx), 0);
    struct gc_results *r = run_quick(ctx, &rc);
    assert_non_null(r);
    if (rc)
        fprintf(stderr, "run: %s: %s\n", gc_strerror(rc), gc_last_error(ctx));
    assert_int_equal(rc, 0);
    assert_true(r->complete);
    assert_int_equal(r->nbenches, 2);
    assert_string_equal(r->meta.device.backend, "opencl");

    /* memory.copy selects memory.dram.copy, which it measured the same. */
    const struct gc_bench_result *copy = gc__results_find(r, "memory.dram.copy"),
                                 *fma = gc__results_find(r, "compute.fp32.fma");
    assert_non_null(copy);
    assert_non_null(fma);
    assert_null(gc__results_find(r, "memory.copy"));
    assert_int_equal(copy->status, GC_BENCH_OK);
    const struct gc_metric *bw = gc__bench_find_metric(copy, "copy_bandwidth");
    assert_non_null(bw);
    /* Positive, finite, and below anything a host memory system does. */
    assert_true(bw->value > 1e6 && bw->value < 1e13);
    assert_true(bw->stats.n >= 1);
    assert_true(bw->stats.min <= bw->stats.median && bw->stats.median <= bw->stats.max);
    assert_true(copy->kernels_compiled + copy->kernels_cached + copy->kernels_planned >= 1);

    assert_string_equal(fma->name, "compute.fp32.fma");
    assert_int_equal(fma->status, GC_BENCH_OK);
    const struct gc_metric *fl = gc__bench_find_metric(fma, "flops");
    assert_non_null(fl);
    assert_true(fl->value > 1e6 && fl->value < 1e14);
    assert_true(fma->nseries >= 1 && fma->series[0].npoints >= 1);

    /* JSON round trip keeps the figures. */
    char path[300];
    snprintf(path, sizeof(path), "%s.json", cache_dir);
    assert_int_equal(gc_write_json(r, path), 0);
    struct gc_results *back = NULL;
    char err[256];
    assert_int_equal(gc_read_json(path, &back, err, sizeof(err)), 0);
    assert_int_equal(back->nbenches, 2);
    const struct gc_bench_result *copy_back = gc__results_find(back, "memory.dram.copy");
    assert_non_null(copy_back);
    assert_true(fabs(copy_back->metrics[0].value - copy->metrics[0].value) <=
                1e-12 * copy->metrics[0].value);
    gc_results_free(back);
    remove(path);

    /* A second run finds every kernel in the cache: its compile plan
     * reads them from there, and the benchmarks compile nothing. */
    struct gc_results *r2 = run_quick(ctx, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(r2->plan.compiled, 0);
    assert_true(r2->plan.cached >= 1);
    for (int i = 0; i < r2->nbenches; i++) {
        assert_int_equal(r2->benches[i].kernels_compiled, 0);
        assert_true(r2->benches[i].kernels_cached + r2->benches[i].kernels_planned >= 1);
    }
    gc_results_free(r2);
    gc_results_free(r);
    gc_context_destroy(ctx);
}

static int teardown(void **state)
{
    char cmd[300];

    (void)state;
    /* The directory is this test's own, named after its pid. */
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cache_dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_quick_run_on_opencl, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
