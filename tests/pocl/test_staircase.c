/* The latency staircase on the first OpenCL device (PoCL's CPU device in CI):
 * memory.latency.global runs, verifies its chase, and the levels it finds
 * are the CPU's own L1d and L2 as the host describes them (core/cpucache.h:
 * sysfs, sysconf or cpuid, the facts the benchmark itself names levels by). */
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
#include "core/cpucache.h"
#include "core/results.h"

static void test_staircase_finds_l1d_and_l2(void **state)
{
    static const char *const pats[] = {"memory.latency.global", NULL};
    char cache_dir[64];
    struct gc_run_options o;
    struct gc_results *r = NULL;
    gc_context *ctx = NULL;
    int rc;

    (void)state;
    snprintf(cache_dir, sizeof(cache_dir), "/tmp/gpuchar-test-staircase-%ld", (long)getpid());
    assert_int_equal(gc_context_create(&ctx), 0);
    gc_run_options_init(&o);
    o.device = "opencl:0";
    o.patterns = pats;
    /* The default profile's quarter octaves: in half octaves a level that a
     * VM's core sees over a factor of 2 or 3 of footprint (its share of a
     * shared L3) gets two planned points, too few for a plateau, and the
     * step below it is then fitted into the next level. */
    o.profile = GC_PROFILE_DEFAULT;
    o.repeat = 5;
    o.min_time_ms = 2;
    o.cache_dir = cache_dir;
    rc = gc_run(ctx, &o, &r);
    assert_non_null(r);
    if (rc)
        fprintf(stderr, "run: %s: %s\n", gc_strerror(rc), gc_last_error(ctx));
    if (r->nbenches > 0 && r->benches[0].error[0])
        fprintf(stderr, "%s: %s\n", r->benches[0].name, r->benches[0].error);
    assert_int_equal(rc, 0);
    assert_int_equal(r->nbenches, 1);
    const struct gc_bench_result *b = &r->benches[0];
    assert_string_equal(b->name, "memory.latency.global");
    assert_int_equal(b->status, GC_BENCH_OK);

    /* The staircase: one point per footprint in both units, ascending
     * footprints, positive latencies (the chase ended where the cycle says,
     * or the benchmark would have failed). */
    assert_true(b->nseries >= 2);
    const struct gc_series *ns = NULL;
    for (int i = 0; i < b->nseries; i++)
        if (strcmp(b->series[i].name, "latency_ns") == 0)
            ns = &b->series[i];
    assert_non_null(ns);
    assert_true(ns->npoints >= 10);
    for (int i = 0; i < ns->npoints; i++) {
        assert_true(ns->points[i].y > 0 && isfinite(ns->points[i].y));
        if (i > 0)
            assert_true(ns->points[i].x > ns->points[i - 1].x);
    }
    /* Refined footprints join the planned ones in order; the count says
     * how many were measured in all. */
    const struct gc_metric *fpm = gc__bench_find_metric(b, "footprints");
    assert_non_null(fpm);
    assert_true(fpm->value == ns->npoints);
    /* The largest footprint is slower than the smallest: the sweep left L1. */
    assert_true(ns->points[ns->npoints - 1].y > ns->points[0].y);

    const struct gc_cpu_caches *cc = gc__cpu_caches();
    double l1 = (double)cc->l1d, l2 = (double)cc->l2;
    const struct gc_metric *m1 = gc__bench_find_metric(b, "l1_size_bytes");
    const struct gc_metric *m2 = gc__bench_find_metric(b, "l2_size_bytes");
    for (int i = 0; i < b->nmetrics; i++)
        fprintf(stderr, "  %s = %g %s (limit %g)\n", b->metrics[i].name, b->metrics[i].value,
                b->metrics[i].unit, b->metrics[i].limit);
    fprintf(stderr, "  host (%s): L1d %.0f B, L2 %.0f B\n", cc->source, l1, l2);
    if (l1 <= 0 || l2 <= 0) {
        /* No source describes the caches: the structure checks above are
         * what can be asserted. */
        gc_results_free(r);
        gc_context_destroy(ctx);
        skip();
    }
    /* A factor of 2 either way: the staircase is sampled in quarter octaves,
     * and on a VM the L2 seen by one core may be shared
     * or partly taken by a neighbour; a level missed or an extra step makes
     * the sizes land far outside this band. The caches are measured as one
     * hardware thread sees them: heavy work on its SMT sibling (a parallel
     * build) takes part of L1d and L2 and can push them below the band. */
    assert_non_null(m1);
    assert_non_null(m2);
    assert_true(m1->value >= l1 / 2 && m1->value <= l1 * 2);
    /* L2 within the factor of 4 by which the benchmark names its levels
     * after the host's sizes: on a VM whose cores share L2 and L3 with
     * neighbours the step moves (2.97 MB for a 1 MiB L2 was seen). */
    assert_true(m2->value >= l2 / 4 && m2->value <= l2 * 4);
    /* Latencies grow with the level. */
    const struct gc_metric *t1 = gc__bench_find_metric(b, "l1_latency_ns");
    const struct gc_metric *t2 = gc__bench_find_metric(b, "l2_latency_ns");
    assert_non_null(t1);
    assert_non_null(t2);
    assert_true(t1->value > 0 && t2->value > t1->value);

    gc_results_free(r);
    gc_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_staircase_finds_l1d_and_l2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
