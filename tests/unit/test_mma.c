/* compute.mma.* and compute.wgmma.* on the harness, on the simulated (null)
 * device given the matrix-unit rates of a compute capability 9.0 GPU: the
 * plan of each profile (the sweep, its series, the compiler options), the
 * run (every configuration screened and drawn, the leaders measured in
 * full), the figures evaluated on the null device's timings (throughput,
 * per clock per SM and instructions per clock per SM against the dense
 * limit at the observed clock, from full measurements only), the record for
 * the energy workload, and the check rejecting accumulators the launches
 * did not write. The null device runs no kernel, so the runs replace the
 * verification. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/null/null.h"
#include "bench/bench.h"
#include "bench/mma/mma.h"
#include "core/stats.h"
#include "bench/launchcfg.h"
#include "core/benchcfg.h"
#include "core/devfill.h"
#include "core/harness.h"
#include "core/results.h"
#include "nullfx.h"

static const struct gc_hbench hb = {gc__mma_plan, gc__mma_derive, gc__mma_free};

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-4, .noise_rel = 0.01, .seed = 9};

    (void)state;
    nullfx_open(&fx, &cfg, 31);
    fx.dev->info.type = GC_DEVICE_GPU;
    fx.dev->arch.cc = 90;
    fx.dev->arch.wgmma = true;
    for (int i = 0; i < GC_MMA_NCLASS; i++)
        fx.dev->arch.mma_rate[i] = 4096;
    return 0;
}

static const struct gc_bench *bench(const char *name)
{
    const struct gc_bench *b = gc__bench_find(name);

    assert_non_null(b);
    return b;
}

/* Configurations and series per profile: mma.sync accumulators x warps per
 * SM (2x2, 3x3, 4x4), one series per warps-per-SM; wgmma warpgroups per SM
 * (2, 2, 3), one series, compiled for sm_90a. Labels are unique. */
static void test_plan(void **state)
{
    static const struct {
        const char *name;
        enum gc_profile p;
        int ncfg, nseries;
    } want[] = {
        {"compute.mma.f16_f32", GC_PROFILE_QUICK, 4, 2},
        {"compute.mma.f16_f32", GC_PROFILE_DEFAULT, 9, 3},
        {"compute.mma.s8_s32", GC_PROFILE_FULL, 16, 4},
        {"compute.wgmma.f16_f32", GC_PROFILE_QUICK, 2, 1},
        {"compute.wgmma.bf16_f32", GC_PROFILE_DEFAULT, 2, 1},
        {"compute.wgmma.e4m3_f32", GC_PROFILE_FULL, 3, 1},
    };

    (void)state;
    for (size_t t = 0; t < sizeof(want) / sizeof(want[0]); t++) {
        const struct gc_bench *b = bench(want[t].name);
        bool wg = strstr(want[t].name, "wgmma") != NULL;
        struct gc_bench_result *r = gc__results_add_bench(fx.res, b->info.name, "compute");
        struct gc_harness h;

        fx.s.profile = want[t].p;
        memset(&h, 0, sizeof(h));
        assert_int_equal(gc__mma_plan(&fx.s, r, &h), 0);
        assert_int_equal(h.ncfg, want[t].ncfg);
        assert_int_equal(r->nseries, want[t].nseries);
        /* The screening parameters: 3 x 5 ms ranked per clock, within 5%
         * of the best, at most 3 in full (--quick: the best only);
         * throttled samples kept. */
        bool quick = want[t].p == GC_PROFILE_QUICK;
        assert_true(h.d->screen_per_clock);
        assert_float_equal(h.d->screen_sample_s, 0.005, 0);
        assert_int_equal(h.d->screen_samples, 3);
        assert_float_equal(h.d->refine_within, quick ? 0 : 0.05, 0);
        assert_int_equal(h.d->refine_max, quick ? 1 : 3);
        assert_false(h.sampling.redo_throttled);
        for (int i = 0; i < h.ncfg; i++) {
            const struct gc_hconf *c = &h.cfg[i];

            assert_non_null(c->src);
            assert_true(c->series >= 0 && c->series < r->nseries);
            assert_true(c->x >= 1 && c->x <= (wg ? 3 : 8));
            if (wg)
                assert_string_equal(c->options, "--gpu-architecture=sm_90a");
            else
                assert_null(c->options);
            for (int j = 0; j < i; j++)
                assert_string_not_equal(c->label, h.cfg[j].label);
        }
        gc__mma_free(&fx.s, &h);
        assert_true(fx.s.sampling.redo_throttled); /* the session's untouched */
    }
    fx.s.profile = GC_PROFILE_DEFAULT;
}

static double metric(const struct gc_bench_result *r, const char *name, double *limit)
{
    const struct gc_metric *m = gc__bench_find_metric(r, name);

    assert_non_null(m);
    if (limit)
        *limit = m->limit;
    return m->value;
}

/* One run of a benchmark with the verification replaced; the figures are
 * those of the best full measurement whatever the screens say. */
static void check_run(const char *name, const char *thr, const char *per_clk, double fpi)
{
    const struct gc_bench *b = bench(name);
    struct gc_bench_result *r = gc__results_add_bench(fx.res, name, "compute");
    struct gc_harness h;
    int refined = 0, drawn = 0, cu = fx.dev->info.compute_units;
    double lim;

    (void)b;
    memset(&h, 0, sizeof(h));
    assert_int_equal(gc__mma_plan(&fx.s, r, &h), 0);
    nullfx_no_verify(&h);
    assert_int_equal(gc__harness_run(&h), 0);
    assert_int_equal(gc__mma_derive(&fx.s, &h, name), 0);
    assert_true(h.best >= 0);
    for (int i = 0; i < h.ncfg; i++) {
        const struct gc_hconf *c = &h.cfg[i];

        refined += c->state == GC_H_REFINED;
        assert_true(c->state == GC_H_REFINED || c->state == GC_H_SCREENED ||
                    c->state == GC_H_ABSENT);
        if (c->state == GC_H_REFINED)
            assert_true(c->value <= h.cfg[h.best].value);
    }
    for (int k = 0; k < r->nseries; k++)
        drawn += r->series[k].npoints;
    assert_int_equal(drawn, h.ncfg - h.absent);
    if (h.screen)
        assert_true(refined >= 1 && refined <= h.d->refine_max);
    else
        assert_int_equal(refined, h.ncfg - h.absent);

    const struct gc_hconf *bc = &h.cfg[h.best];
    double clk = bc->m.clock_mhz * 1e6, clk_max = bc->m.clock_max_mhz * 1e6;
    double v = metric(r, thr, &lim);
    struct gc_stats st;
    assert_float_equal(v, bc->value, 0);
    /* The rate: the median over samples of work / time. */
    gc__stats_inverse(bc->m.per_sample_s, bc->m.samples, bc->hl.work, &st);
    assert_float_equal(v, st.median, 1e-9 * v);
    assert_true(isfinite(clk) && clk > 0 && clk_max >= clk);
    /* Its limit at the highest clock a sample ran at. */
    assert_float_equal(lim, 4096.0 * cu * clk_max, 1e-9 * lim);
    /* Per clock: each sample's work over its own cycles, median; within the
     * simulated clock's noise of the rate over the median clock. */
    double pc = metric(r, per_clk, &lim);
    assert_non_null(bc->m.per_sample_cycles);
    gc__stats_inverse(bc->m.per_sample_cycles, bc->m.samples, bc->hl.work / cu, &st);
    assert_float_equal(pc, st.median, 1e-9 * pc);
    assert_float_equal(pc, v / (clk * cu), 0.02 * pc);
    assert_float_equal(lim, 4096.0, 0);
    double ic = metric(r, "instructions_per_clk_per_sm", &lim);
    assert_float_equal(ic, pc / fpi, 1e-6 * ic);
    assert_float_equal(lim, 4096.0 / fpi, 1e-12);
    assert_string_equal(r->stop_rule, bc->m.stop_rule);

    /* The configuration in the result (the energy meter's) is the best's. */
    int acc = 0, units = 0;
    assert_true(gc__config_int(r, NULL, "accumulators", &acc));
    assert_true(gc__config_int(r, NULL, "units_per_sm", &units));
    assert_true(strstr(bc->hl.desc, "/SM") != NULL);
    bool wg = strstr(name, "wgmma") != NULL;
    double want_x = wg ? units : acc;
    assert_float_equal(bc->x, want_x, 0);

    /* A screen far above every full measurement changes no figure. */
    for (int i = 0; i < h.ncfg; i++)
        if (h.cfg[i].state == GC_H_SCREENED)
            h.cfg[i].screen_value = 1e30;
    struct gc_bench_result *r2 = gc__results_add_bench(fx.res, name, "compute");
    h.r = r2;
    assert_int_equal(gc__mma_derive(&fx.s, &h, name), 0);
    assert_float_equal(metric(r2, thr, NULL), v, 0);
    gc__mma_free(&fx.s, &h);
}

static void test_run_sync(void **state)
{
    (void)state;
    check_run("compute.mma.f16_f32", "f16_f32_throughput", "flop_per_clk_per_sm",
              2.0 * 16 * 8 * 16);
}

static void test_run_int(void **state)
{
    (void)state;
    check_run("compute.mma.s8_s32", "s8_s32_throughput", "op_per_clk_per_sm", 2.0 * 16 * 8 * 32);
}

static void test_run_wgmma(void **state)
{
    (void)state;
    fx.s.profile = GC_PROFILE_FULL; /* 3 points: screened */
    check_run("compute.wgmma.f16_f32", "f16_f32_throughput", "flop_per_clk_per_sm",
              2.0 * 64 * 256 * 16);
}

/* Poisoned accumulators (the launches wrote nothing) fail the check, and
 * the benchmark then reports the error with the configuration. */
static void test_verify_rejects_poison(void **state)
{
    (void)state;
    nullfx_rejects(&hb, "compute.mma.bf16_f32", "verification failed");
}

/* The whole run through gc__harness_bench (the benchmark's own entry):
 * figures, the record for the energy workload, the session's measurement
 * settings as they were. */
static void test_bench(void **state)
{
    const struct gc_bench *b = bench("compute.wgmma.bf16_f32");
    struct gc_bench_result *r = gc__results_add_bench(fx.res, b->info.name, "compute");

    (void)state;
    assert_true(fx.s.sampling.redo_throttled);
    /* The null device runs no kernel: the check rejects what it left. */
    assert_int_equal(b->run(&fx.s, b, r), GC_EVERIFY);
    assert_int_equal(r->status, GC_BENCH_ERROR);
    assert_int_equal(r->nmetrics, 0);
    assert_int_equal(r->nconfig, 0);
    assert_true(fx.s.sampling.redo_throttled);
}

/* The words a check expects (C + A.B in the output's layout) pass the value
 * check, so a launch that wrote them passes by comparison alone; one value
 * off is caught, with the element named. */
static void expected(const char *name, size_t nblocks, int ilp)
{
    const struct mma_op *op = bench(name)->param;
    struct mma_bufs b;
    char why[256] = "";
    uint32_t *bad;

    assert_int_equal(gc__mma_bufs_make(&fx.s, op, nblocks, &b), 0);
    size_t nth = b.nthreads;
    if (op->kind == K_SYNC)
        assert_int_equal(gc__mma_sync_check(op, nth, ilp, b.hc, b.hab, b.hexp, why, sizeof(why)),
                         0);
    else
        assert_int_equal(gc__mma_wg_check(op, nblocks, b.hab, b.hc, b.hexp, why, sizeof(why)), 0);
    assert_int_equal(gc__dev_write(fx.dev, b.bout, 0, b.hexp, b.cwords * 4), 0);
    assert_int_equal(gc__mma_check(fx.dev, op, &b, nblocks, ilp, why, sizeof(why)), 0);
    bad = malloc(b.cwords * 4);
    assert_non_null(bad);
    memcpy(bad, b.hexp, b.cwords * 4);
    bad[gc__mma_acc_words(op) + 1] ^= 0x00010000u; /* thread 0's or 1's value changes */
    assert_int_equal(gc__dev_write(fx.dev, b.bout, 0, bad, b.cwords * 4), 0);
    assert_int_equal(gc__mma_check(fx.dev, op, &b, nblocks, ilp, why, sizeof(why)), GC_EVERIFY);
    assert_non_null(strstr(why, "expected"));
    free(bad);
    gc__mma_bufs_free(fx.dev, &b);
}

static void test_expected_words(void **state)
{
    (void)state;
    expected("compute.mma.f16_f16", 2, 4);
    expected("compute.mma.f16_f32", 2, 2);
    expected("compute.mma.s8_s32", 2, 8);
    expected("compute.wgmma.f16_f16", 2, 1);
    expected("compute.wgmma.bf16_f32", 2, 1);
}

/* A result that names no matrix-unit benchmark is refused at planning. */
static void test_plan_refuses_other(void **state)
{
    struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.constant", "memory");
    struct gc_harness h;

    (void)state;
    memset(&h, 0, sizeof(h));
    assert_int_equal(gc__mma_plan(&fx.s, r, &h), GC_EINVAL);
    gc__mma_free(&fx.s, &h);
    assert_true(fx.s.sampling.redo_throttled);
}

/* Where the device has no matrix unit for the op (no compute capability:
 * OpenCL), the benchmark says so and measures nothing. */
static void test_not_available(void **state)
{
    const struct gc_bench *b = bench("compute.wgmma.s8_s32");
    struct gc_bench_result *r = gc__results_add_bench(fx.res, b->info.name, "compute");

    (void)state;
    fx.dev->arch.cc = 0;
    assert_int_equal(b->run(&fx.s, b, r), 0);
    assert_int_equal(r->status, GC_BENCH_NOT_AVAILABLE);
    assert_int_equal(r->nmetrics, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plan, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_run_sync, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_run_int, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_run_wgmma, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_verify_rejects_poison, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_bench, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_expected_words, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_plan_refuses_other, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_not_available, setup, nullfx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
