/* The instruction catalogue end to end on the first OpenCL device (PoCL in
 * CI), scaled down: every selected entry runs, verifies its kernels and gives
 * sane figures; entries without a trustworthy OpenCL form say why. */
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

static void test_catalogue_on_opencl(void **state)
{
    static const char *const pats[] = {"compute.fp32.fma",
                                       "compute.fp32.sin.fast",
                                       "compute.int32.popc",
                                       "compute.cvt.f32.i32",
                                       "compute.int32.add",
                                       "compute.bf16x2.fma",
                                       NULL};
    struct gc_run_options o;
    struct gc_results *r = NULL;
    gc_context *ctx = NULL;
    char dir[128];
    int rc;

    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/gpuchar-test-compute-%ld", (long)getpid());
    assert_int_equal(gc_context_create(&ctx), 0);
    gc_run_options_init(&o);
    o.device = "opencl:0";
    o.patterns = pats;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 3;
    o.min_time_ms = 2;
    o.cache_dir = dir;
    rc = gc_run(ctx, &o, &r);
    if (rc)
        fprintf(stderr, "run: %s: %s\n", gc_strerror(rc), gc_last_error(ctx));
    assert_int_equal(rc, 0);
    assert_non_null(r);
    assert_int_equal(r->nbenches, 6);
    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_bench_result *b = &r->benches[i];

        if (strcmp(b->name, "compute.int32.add") == 0 ||
            strcmp(b->name, "compute.bf16x2.fma") == 0) {
            /* No OpenCL form: reported with the reason, never a number. */
            assert_int_equal(b->status, GC_BENCH_NOT_AVAILABLE);
            assert_non_null(strstr(b->error, "OpenCL"));
            assert_int_equal(b->nmetrics, 0);
            continue;
        }
        if (b->status != GC_BENCH_OK)
            fprintf(stderr, "%s: %s\n", b->name, b->error);
        assert_int_equal(b->status, GC_BENCH_OK);
        const struct gc_metric *thr = gc__bench_find_metric(b, "throughput");
        assert_non_null(thr);
        /* Positive and below 1e13 results/s: more than any CPU can do. */
        assert_true(thr->value > 1e5 && thr->value < 1e13);
        assert_true(thr->stats.min <= thr->stats.median && thr->stats.median <= thr->stats.max);
        /* The best configuration is the best of its series. */
        double best = 0;
        for (int s = 0; s < b->nseries; s++)
            for (int p = 0; p < b->series[s].npoints; p++)
                best = fmax(best, b->series[s].points[p].y);
        assert_true(fabs(best - thr->value) <= 1e-9 * thr->value);
        const struct gc_metric *seq = gc__bench_find_metric(b, "sequential_latency");
        assert_non_null(seq);
        assert_true(seq->value > 0 && seq->value < 1e6);
    }
    gc_results_free(r);
    gc_context_destroy(ctx);
    char cmd[200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalogue_on_opencl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
