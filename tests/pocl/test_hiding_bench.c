/* The latency-hiding benchmarks end to end on the first OpenCL device (PoCL
 * in CI), scaled down: hiding.params and hiding.mix.mem complete with every
 * chain verified, their figures are sane, the params document satisfies the
 * profile contract of model/hiding.h (also after a JSON round trip), and the
 * model's predictions stay within its bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"
#include "model/hiding.h"
#include "core/results.h"

/* A metric that must be there, in UNIT, finite and positive. */
static double positive(const struct gc_bench_result *b, const char *name, const char *unit)
{
    const struct gc_metric *m = gc__bench_find_metric(b, name);

    if (!m)
        fail_msg("%s has no metric %s", b->name, name);
    if (strcmp(m->unit, unit) != 0)
        fail_msg("%s: unit \"%s\", expected \"%s\"", name, m->unit, unit);
    if (!(isfinite(m->value) && m->value > 0))
        fail_msg("%s = %g: not finite and positive", name, m->value);
    return m->value;
}

static struct gc_results *results;
static char dir[128];

static int setup(void **state)
{
    static const char *const pats[] = {"hiding.params", "hiding.mix.mem", NULL};
    struct gc_run_options o;
    gc_context *ctx = NULL;
    int rc;

    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/gpuchar-test-hiding-%ld", (long)getpid());
    if (gc_context_create(&ctx))
        return -1;
    gc_run_options_init(&o);
    o.device = "opencl:0";
    o.patterns = pats;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 3;
    o.min_time_ms = 2;
    o.cache_dir = dir;
    rc = gc_run(ctx, &o, &results);
    if (rc)
        fprintf(stderr, "run: %s: %s\n", gc_strerror(rc), gc_last_error(ctx));
    gc_context_destroy(ctx);
    return rc == 0 && results ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[200];

    (void)state;
    gc_results_free(results);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Every benchmark completed: each launch's chains ended where the host
 * model said (a wrong end is an error, never a number). */
static void test_completed(void **state)
{
    (void)state;
    assert_int_equal(results->nbenches, 2);
    for (int i = 0; i < results->nbenches; i++) {
        const struct gc_bench_result *b = &results->benches[i];

        if (b->status != GC_BENCH_OK)
            fprintf(stderr, "%s: %s\n", b->name, b->error);
        assert_int_equal(b->status, GC_BENCH_OK);
        assert_true(positive(b, "verified_launches", "launches") >= 3);
    }
}

/* The figures of Tables 6.1-6.4: positive latencies and peaks, each peak
 * the best point of its sweep, needed occupancies within the sweep. */
static void test_params_figures(void **state)
{
    static const char *const keys[] = {"alu", "sfu", "shared", "shared2", "random"};
    const struct gc_bench_result *b = gc__results_find(results, GC_HIDING_BENCH);
    double maxw;

    (void)state;
    assert_non_null(b);
    maxw = positive(b, "max_warps_per_sm", "warps/SM");
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        char name[64];
        double peak, best = 0;
        const struct gc_series *s;
        const struct gc_metric *w90;

        snprintf(name, sizeof(name), "%s_latency_cycles", keys[i]);
        positive(b, name, "cycles");
        snprintf(name, sizeof(name), "%s_thru_per_clk_sm", keys[i]);
        peak = positive(b, name, "inst/clk/SM");
        snprintf(name, sizeof(name), "%s_ilp1", keys[i]);
        s = gc__bench_find_series(b, name);
        assert_non_null(s);
        assert_true(s->npoints >= 2);
        for (int p = 0; p < s->npoints; p++) {
            assert_true(s->points[p].y > 0 && isfinite(s->points[p].y));
            assert_true(s->points[p].x >= 1 && s->points[p].x <= maxw);
            best = fmax(best, s->points[p].y);
        }
        assert_true(fabs(best - peak) <= 1e-9 * peak);
        snprintf(name, sizeof(name), "%s_warps_90pct", keys[i]);
        w90 = gc__bench_find_metric(b, name);
        assert_non_null(w90);
        assert_true(w90->value >= 1 && w90->value <= maxw);
    }
    /* The streaming chase over ILP 1 and 2: its peak is the best of both. */
    {
        double peak = positive(b, "mem_thru_bytes_per_clk_sm", "B/clk/SM"), best = 0;

        positive(b, "mem_latency_cycles", "cycles");
        for (int k = 1; k <= 2; k++) {
            char name[32];
            const struct gc_series *s;

            snprintf(name, sizeof(name), "mem_ilp%d", k);
            s = gc__bench_find_series(b, name);
            assert_non_null(s);
            for (int p = 0; p < s->npoints; p++)
                best = fmax(best, s->points[p].y);
        }
        assert_true(fabs(best - peak) <= 1e-9 * peak);
    }
    /* One and 32 lines per warp access, both with a positive latency. */
    {
        const struct gc_series *s = gc__bench_find_series(b, "random_latency_vs_lines");

        assert_non_null(s);
        assert_int_equal(s->npoints, 2);
        for (int p = 0; p < s->npoints; p++)
            assert_true(s->points[p].y > 0);
    }
}

/* The profile contract: the document feeds the model's reader, also after
 * a round trip through JSON, and the parameters are the metrics. */
static void test_params_profile(void **state)
{
    const struct gc_bench_result *b = gc__results_find(results, GC_HIDING_BENCH);
    struct gc_hiding_hw hw, hw2;
    struct gc_results *back = NULL;
    char err[512], path[256];

    (void)state;
    assert_non_null(b);
    if (gc__hiding_from_results(results, &hw, err, sizeof(err)) != 0)
        fail_msg("profile refused: %s", err);
    assert_true(hw.unit[GC_HIDING_ALU].present && hw.unit[GC_HIDING_MEM].present);
    assert_true(hw.unit[GC_HIDING_SFU].present && hw.unit[GC_HIDING_SHARED].present);
    assert_true(hw.unit[GC_HIDING_ALU].latency == positive(b, "alu_latency_cycles", "cycles"));
    assert_true(fabs(hw.unit[GC_HIDING_MEM].thru * hw.mem_bytes_per_inst -
                     positive(b, "mem_thru_bytes_per_clk_sm", "B/clk/SM")) <=
                1e-12 * hw.mem_bytes_per_inst);
    assert_true(hw.issue_thru > 0 && hw.max_warps >= 1 && hw.sm_count >= 1);
    positive(b, "clock_hz", "Hz");
    /* No in-kernel clock on PoCL: no contention fit, which is optional. */
    assert_false(hw.cont.present);

    snprintf(path, sizeof(path), "%s/params.json", dir);
    assert_int_equal(gc_write_json(results, path), 0);
    if (gc_read_json(path, &back, err, sizeof(err)) != 0)
        fail_msg("read back: %s", err);
    if (gc__hiding_from_results(back, &hw2, err, sizeof(err)) != 0)
        fail_msg("profile refused after the round trip: %s", err);
    assert_true(fabs(hw2.unit[GC_HIDING_MEM].latency - hw.unit[GC_HIDING_MEM].latency) <=
                1e-12 * hw.unit[GC_HIDING_MEM].latency);
    assert_true(fabs(hw2.unit[GC_HIDING_SHARED].thru - hw.unit[GC_HIDING_SHARED].thru) <=
                1e-12 * hw.unit[GC_HIDING_SHARED].thru);
    gc_results_free(back);

    /* The model on these parameters: throughput never negative, never above
     * the bound, the refinement never above the basic model (it has no
     * contention here: equal), needed occupancy positive. */
    for (int a = 0; a <= 64; a = a ? a * 4 : 1) {
        struct gc_hiding_mix mix = {{0}, 1, 1};
        double bound;

        mix.count[GC_HIDING_ALU] = a;
        mix.count[GC_HIDING_MEM] = 1;
        bound = gc__hiding_bound(&hw, &mix, NULL);
        for (double n = 1; n <= hw.max_warps; n++) {
            struct gc_hiding_point pb, pr;

            assert_int_equal(gc__hiding_basic(&hw, &mix, n, &pb), 0);
            assert_int_equal(gc__hiding_refined(&hw, &mix, n, &pr), 0);
            assert_true(pb.thru > 0 && pb.thru <= bound * (1 + 1e-12));
            assert_true(pr.thru <= pb.thru * (1 + 1e-12));
        }
        assert_true(gc__hiding_needed(&hw, &mix, 0.9, false) > 0);
    }
}

/* The memory mix: measured and modelled curves per alpha, the model within
 * the memory bound and never negative, the refined model at most the basic
 * one, errors and the cusp reported. */
static void test_mix(void **state)
{
    const struct gc_bench_result *b = gc__results_find(results, "hiding.mix.mem");
    double peak, gbps_bound;
    int curves = 0;

    (void)state;
    assert_non_null(b);
    peak = positive(b, "mem_thru_bytes_per_clk_sm", "B/clk/SM");
    positive(b, "alu_latency_cycles", "cycles");
    positive(b, "mem_latency_cycles", "cycles");
    gbps_bound = peak * results->meta.device.compute_units * b->context.sm_clock_mhz / 1e3;
    assert_true(gbps_bound > 0);
    for (int i = 0; i < b->nseries; i++) {
        const struct gc_series *s = &b->series[i], *basic, *refined;
        char name[80];

        if (s->name[0] != 'a' || !isdigit((unsigned char)s->name[1]) ||
            strchr(s->name, '_') == NULL || strcmp(strchr(s->name, '_'), "_ilp1") != 0)
            continue;
        curves++;
        assert_string_equal(s->y_unit, "GB/s");
        snprintf(name, sizeof(name), "%s_basic", s->name);
        basic = gc__bench_find_series(b, name);
        snprintf(name, sizeof(name), "%s_refined", s->name);
        refined = gc__bench_find_series(b, name);
        assert_non_null(basic);
        assert_non_null(refined);
        assert_true(s->npoints >= 2);
        assert_int_equal(basic->npoints, refined->npoints);
        for (int p = 0; p < s->npoints; p++)
            assert_true(s->points[p].y > 0 && isfinite(s->points[p].y));
        for (int p = 0; p < basic->npoints; p++) {
            assert_true(basic->points[p].y > 0);
            assert_true(basic->points[p].y <= gbps_bound * (1 + 1e-9));
            assert_true(refined->points[p].y <= basic->points[p].y * (1 + 1e-9));
            assert_true(basic->points[p].x == refined->points[p].x);
        }
    }
    assert_int_equal(curves, 4); /* alpha 0, 2, 8, 32 on a CPU device */
    assert_true(positive(b, "basic_max_overestimate", "x") >=
                positive(b, "basic_median_overestimate", "x"));
    positive(b, "refined_max_overestimate", "x");
    /* The cusp is reported, or said not to exist with the reason (on a CPU
     * the adds' and the memory unit's bounds can come close; noise in the
     * measured parameters then decides). */
    {
        const struct gc_metric *cusp = gc__bench_find_metric(b, "cusp_alpha");

        assert_non_null(cusp);
        assert_string_equal(cusp->unit, "adds per op");
        if (isfinite(cusp->value))
            assert_true(cusp->value > 0);
        else
            assert_non_null(strstr(cusp->note, "no cusp"));
    }
    {
        const struct gc_series *nb = gc__bench_find_series(b, "needed_basic");

        assert_non_null(nb);
        assert_int_equal(nb->npoints, 4);
        for (int p = 0; p < nb->npoints; p++)
            assert_true(nb->points[p].y > 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_completed),
        cmocka_unit_test(test_params_figures),
        cmocka_unit_test(test_params_profile),
        cmocka_unit_test(test_mix),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
