/* memory.copy_kernel on the harness, on the simulated (null) device: the
 * plan (every occupancy point per element size and Fig. 6's loop bounds,
 * one kernel per distinct source), the metric formulas on the null device's
 * synthetic timings (bandwidth, CPMR per warp, lambda and Lambda, the Fig. 6
 * ratio; every figure from a full measurement), and the verification, which
 * rejects an output the kernel never wrote (the null device runs none). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/copykernel/copykernel.h"
#include "core/harness.h"
#include "core/results.h"
#include "nullfx.h"

static const struct gc_hbench hb = {gc__copyk_plan, gc__copyk_derive, gc__copyk_free};

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-4, .noise_rel = 0.01, .seed = 9};

    (void)state;
    nullfx_open(&fx, &cfg, 41);
    return 0;
}

/* A GPU of 64 warps per CU, quick profile: 7 occupancy points (1..64) x 5
 * element sizes and 2 x 2 Fig. 6 points at full occupancy; 5 + 1 + 1
 * kernels (Fig. 6's literal 64 reads is the 4-byte sweep's kernel). A
 * device that is no GPU: 2 occupancy points, 7 x 2 Fig. 6 points. */
static void test_plan(void **state)
{
    struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.copy_kernel", "memory");
    struct gc_harness h;

    (void)state;
    fx.dev->info.type = GC_DEVICE_GPU;
    fx.dev->info.max_alloc = fx.dev->info.global_mem; /* the quick source: 336 MiB */
    fx.s.profile = GC_PROFILE_QUICK;
    assert_int_equal(gc__copyk_plan(&fx.s, r, &h), 0);
    assert_int_equal(r->nseries, 12);
    assert_int_equal(h.ncfg, 5 * 7 + 2 * 2);
    assert_int_equal(nullfx_distinct_sources(&h), 7);
    for (int i = 0; i < h.ncfg; i++) {
        const struct gc_copyk_cfg *cf = gc__copyk_cfg(&h.cfg[i]);

        assert_true(cf->runs >= 1);
        assert_int_equal(cf->block * cf->bps, cf->warps * 32);
        if (cf->fig6) {
            assert_int_equal(cf->warps, 64);
            assert_int_equal(h.cfg[i].series, 10 + cf->fig6 - 1);
            assert_float_equal(h.cfg[i].x, cf->reads, 0);
        } else {
            assert_int_equal(cf->reads, 64);
            assert_float_equal(h.cfg[i].x, cf->warps, 0);
        }
    }
    gc__copyk_free(&fx.s, &h);

    fx.dev->info.type = GC_DEVICE_OTHER;
    fx.s.profile = GC_PROFILE_DEFAULT;
    r = gc__results_add_bench(fx.res, "memory.copy_kernel", "memory");
    assert_int_equal(gc__copyk_plan(&fx.s, r, &h), 0);
    assert_int_equal(h.ncfg, 5 * 2 + 7 * 2);
    gc__copyk_free(&fx.s, &h);
}

/* CPMR per warp on synthetic timings: 1 ms for 2 runs at 1 GHz is 5e5
 * cycles per run; 64 reads x 256 work-items x 1 block is 16384 requests
 * per run, x 32 lanes per warp; a block smaller than a warp counts its
 * own lanes. */
static void test_cpmr(void **state)
{
    struct gc_copyk_cfg cf = {
        .elem = 4, .reads = 64, .warps = 8, .bps = 1, .block = 256, .runs = 2};

    (void)state;
    assert_float_equal(gc__copyk_cpmr(&cf, 1e-3, 1000, 32), 5e5 / 16384 * 32, 1e-9);
    cf.block = 16;
    assert_float_equal(gc__copyk_cpmr(&cf, 1e-3, 1000, 32), 5e5 / (64 * 16) * 16, 1e-9);
    assert_true(isnan(gc__copyk_cpmr(&cf, 1e-3, NAN, 32)));
}

/* Every configuration measured in full (none screened); the metrics are
 * the formulas over those measurements. */
static void test_run(void **state)
{
    struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.copy_kernel", "memory");
    struct gc_harness h;
    static const int elems[5] = {1, 2, 4, 8, 16};

    (void)state;
    nullfx_run_all(&hb, r, &h, "memory.copy_kernel");
    for (int e = 0; e < 5; e++) {
        char n[64];
        double best = 0, lam = INFINITY, Lam = 0;

        for (int i = 0; i < h.ncfg; i++) {
            const struct gc_hconf *c = &h.cfg[i];
            const struct gc_copyk_cfg *cf = gc__copyk_cfg(c);

            if (cf->fig6 || cf->elem != elems[e])
                continue;
            assert_true(c->m.samples >= fx.s.sampling.min_samples);
            assert_float_equal(c->value, c->stats.median, 0);
            best = c->value > best ? c->value : best;
            double cpmr = gc__copyk_cpmr(cf, c->m.seconds.median, c->m.clock_mhz, 32);
            lam = fmin(lam, cpmr);
            Lam = fmax(Lam, cpmr);
        }
        snprintf(n, sizeof(n), "bandwidth_%dB", elems[e]);
        assert_float_equal(nullfx_metric(r, n)->value, best, 0);
        snprintf(n, sizeof(n), "issue_latency_%dB", elems[e]);
        assert_float_equal(nullfx_metric(r, n)->value, lam, 0);
        snprintf(n, sizeof(n), "completion_latency_%dB", elems[e]);
        assert_float_equal(nullfx_metric(r, n)->value, Lam, 0);
        assert_true(lam > 0 && lam <= Lam);
        assert_int_equal(r->series[2 * e].npoints, 2);
        assert_int_equal(r->series[2 * e + 1].npoints, 2);
    }
    const struct gc_metric *mc = nullfx_metric(r, "constant_loop_bandwidth"),
                           *md = nullfx_metric(r, "dynamic_loop_bandwidth"),
                           *ratio = nullfx_metric(r, "dynamic_loop_ratio");
    assert_non_null(mc);
    assert_non_null(md);
    assert_float_equal(ratio->value, md->value / mc->value, 1e-12);
    assert_int_equal(r->series[10].npoints, 7);
    assert_int_equal(r->series[11].npoints, 7);
    gc__copyk_free(&fx.s, &h);
}

/* The null device runs no kernel: the verification launch leaves the
 * poison, which no work-item's sum is, and the benchmark fails naming the
 * configuration and the work-item. */
static void test_verify_rejects(void **state)
{
    (void)state;
    nullfx_rejects(&hb, "memory.copy_kernel", "verification failed (1-byte elements");
    nullfx_rejects(&hb, "memory.copy_kernel", "stored 0xdeadbeef, expected");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plan, setup, nullfx_teardown),
        cmocka_unit_test(test_cpmr),
        cmocka_unit_test_setup_teardown(test_run, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_verify_rejects, setup, nullfx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
