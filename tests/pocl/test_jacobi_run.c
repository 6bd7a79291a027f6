/* application.jacobi end to end on the first OpenCL device (PoCL in CI):
 * the 17 variants build, run and pass the host reference (a failed check
 * fails the benchmark), each records its time with statistics and its work
 * record, Table 2's figures agree with the times, and the guide reads the
 * result back. No timing is asserted: which variant wins on a shared CPU
 * is the measurement, not a property. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/results.h"
#include "gpuchar/gpuchar.h"
#include "gpuchar/guide.h"
#include "model/appwork.h"
#include "model/jacobi.h"

static char cache_dir[256];
static struct gc_results *results;
static gc_context *ctx;

static int setup(void **state)
{
    static const char *const pats[] = {"application.jacobi", NULL};
    struct gc_run_options o;
    int rc;

    (void)state;
    snprintf(cache_dir, sizeof(cache_dir), "/tmp/gpuchar-test-jacobi-%ld", (long)getpid());
    if (gc_context_create(&ctx))
        return -1;
    gc_run_options_init(&o);
    o.device = "opencl:0";
    o.patterns = pats;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 3;
    o.min_time_ms = 2;
    o.cache_dir = cache_dir;
    rc = gc_run(ctx, &o, &results);
    if (rc)
        fprintf(stderr, "run: %s: %s\n", gc_strerror(rc), gc_last_error(ctx));
    return results ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[300];

    (void)state;
    gc_results_free(results);
    gc_context_destroy(ctx);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cache_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const struct gc_bench_result *jacobi(void)
{
    const struct gc_bench_result *b = gc__results_find(results, "application.jacobi");

    assert_non_null(b);
    if (b->status != GC_BENCH_OK)
        fprintf(stderr, "application.jacobi: %s\n", b->error);
    assert_int_equal(b->status, GC_BENCH_OK);
    return b;
}

/* Every variant measured (verified: a failed check fails the benchmark),
 * with its statistics and its work record. */
static void test_variants(void **state)
{
    const struct gc_bench_result *b = jacobi();
    const struct gc_metric *pts = gc__bench_find_metric(b, "grid_points");
    const struct gc_series *s = gc__bench_find_series(b, "time_per_variant");

    (void)state;
    assert_non_null(pts);
    assert_non_null(s);
    assert_int_equal(s->npoints, GC_JACOBI_NVARIANTS);
    for (int i = 0; i < GC_JACOBI_NVARIANTS; i++) {
        char name[32], mn[64];
        struct gc_app_work w;

        gc__jacobi_name(gc__jacobi_variant(i), name, sizeof(name));
        snprintf(mn, sizeof(mn), "%s.time", name);
        const struct gc_metric *t = gc__bench_find_metric(b, mn);
        assert_non_null(t);
        assert_string_equal(t->unit, "s");
        assert_true(isfinite(t->value) && t->value > 0);
        assert_true(t->stats.n >= 1 && t->stats.min <= t->value && t->value <= t->stats.max);
        assert_true(gc__app_work_get(b, name, &w));
        assert_true(w.threads >= w.block_threads && w.block_threads > 0);
        /* Compulsory traffic: u read over the whole grid, at least: from DRAM,
         * or, where the grid fits the last-level cache the device reports
         * (no DRAM bytes in the record), through the cache levels. */
        if (w.bytes[GC_APP_LVL_DRAM] > 0)
            assert_true(w.bytes[GC_APP_LVL_DRAM] >= 4.0 * pts->value);
        else
            assert_true(w.bytes[GC_APP_LVL_L2] >= 4.0 * pts->value);
        assert_int_equal(w.shared_per_block > 0, gc__jacobi_variant(i)->mc != GC_JMC_NONE);
    }
}

/* Table 2's figures are those of the times. */
static void test_table(void **state)
{
    const struct gc_bench_result *b = jacobi();
    double t[GC_JACOBI_NVARIANTS];
    struct gc_jtable tb;

    (void)state;
    for (int i = 0; i < GC_JACOBI_NVARIANTS; i++) {
        char name[32], mn[64];
        gc__jacobi_name(gc__jacobi_variant(i), name, sizeof(name));
        snprintf(mn, sizeof(mn), "%s.time", name);
        t[i] = gc__bench_find_metric(b, mn)->value;
    }
    gc__jacobi_table(t, &tb);
    assert_int_equal(tb.measured, GC_JACOBI_NVARIANTS);
    assert_true(gc__bench_find_metric(b, "best_variant")->value == tb.best);
    for (int i = 0; i < GC_JACOBI_NVARIANTS; i++)
        assert_true(t[tb.best] <= t[i]);
    assert_true(fabs(gc__bench_find_metric(b, "improvement")->value - tb.improvement_pct) <=
                1e-9 * fabs(tb.improvement_pct) + 1e-12);
    const struct gc_metric *pc = gc__bench_find_metric(b, "primary_contribution");
    assert_int_equal(pc != NULL, tb.primary >= 0);
}

/* The guide reads the result: measured class and Table 2 as above. */
static void test_guide(void **state)
{
    struct gc_guide g;
    char err[256];

    (void)state;
    jacobi();
    assert_int_equal(gc_guide(results, &g, err, sizeof(err)), 0);
    assert_true(g.jacobi.present);
    assert_int_equal(gc__jacobi_find(g.jacobi.best),
                     (int)gc__bench_find_metric(jacobi(), "best_variant")->value);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_guide),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
