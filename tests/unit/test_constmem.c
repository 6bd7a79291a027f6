/* memory.constant on the harness, on the simulated (null) device: the plan
 * of each profile (element sizes x k, one kernel per element size, four
 * series), the figures on the null device's synthetic timings (bandwidth
 * per configuration, throughput relative to k = 1, the broadcast headline
 * and its words per clock per CU, the record for the energy workload), and
 * the verification rejecting sums no kernel wrote. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "bench/constmem/constmem.h"
#include "bench/launchcfg.h"
#include "core/benchcfg.h"
#include "core/harness.h"
#include "core/results.h"
#include "nullfx.h"

static const struct gc_hbench hb = {gc__constant_plan, gc__constant_derive, gc__constant_free};

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-4, .noise_rel = 0.01, .seed = 5};

    (void)state;
    nullfx_open(&fx, &cfg, 41);
    fx.dev->info.type = GC_DEVICE_GPU;
    return 0;
}

/* Default: 4 and 8-byte elements x k = 1, 2, 4, 8, 16, 32; quick: k = 1,
 * 2, 8, 32. Two kernels (the ks share their size's), the k = 1 ones
 * labelled as the kernels are. */
static void test_plan(void **state)
{
    static const struct {
        enum gc_profile p;
        int ncfg;
    } want[] = {{GC_PROFILE_QUICK, 8}, {GC_PROFILE_DEFAULT, 12}, {GC_PROFILE_FULL, 12}};

    (void)state;
    for (size_t t = 0; t < sizeof(want) / sizeof(want[0]); t++) {
        struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.constant", "memory");
        struct gc_harness h;

        fx.s.profile = want[t].p;
        memset(&h, 0, sizeof(h));
        assert_int_equal(gc__constant_plan(&fx.s, r, &h), 0);
        assert_int_equal(h.ncfg, want[t].ncfg);
        assert_int_equal(r->nseries, 4);
        assert_string_equal(r->series[0].name, "bandwidth_4B");
        assert_string_equal(r->series[3].name, "relative_throughput_8B");
        assert_int_equal(nullfx_distinct_sources(&h), 2);
        assert_non_null(nullfx_by_label(&h, "const_4B"));
        assert_non_null(nullfx_by_label(&h, "const_8B_k32"));
        assert_int_equal(h.cfg[0].x, 1);
        gc__constant_free(&fx.s, &h);
    }
    fx.s.profile = GC_PROFILE_DEFAULT;
}

/* Every configuration in full; the headline is the better k = 1 element
 * size, bytes = threads x trips x 64 loads x element size. */
static void test_run(void **state)
{
    struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.constant", "memory");
    const struct gc_device_info *info = &fx.dev->info;
    struct gc_harness h;

    (void)state;
    nullfx_run_all(&hb, r, &h, "memory.constant");
    const struct gc_hconf *c4 = nullfx_by_label(&h, "const_4B");
    const struct gc_hconf *c8 = nullfx_by_label(&h, "const_8B");
    const struct gc_hconf *best = c4->value >= c8->value ? c4 : c8;
    double threads = (double)c4->hl.l.grid[0] * c4->hl.l.block[0];

    assert_int_equal(c4->hl.l.block[0], 256);
    assert_float_equal(c4->hl.work, threads * 128 * 64 * 4, 0);
    assert_float_equal(c8->hl.work, threads * 128 * 64 * 8, 0);
    assert_non_null(strstr(nullfx_by_label(&h, "const_8B_k16")->hl.desc, "k = 16"));

    const struct gc_metric *m = nullfx_metric(r, "constant_broadcast_bandwidth");
    assert_float_equal(m->value, best->value, 0);
    /* The median of work / time: within the null device's 1% noise of
     * work / median time (they differ for an even number of samples). */
    assert_float_equal(m->value, best->hl.work / best->m.seconds.median, 0.02 * m->value);
    assert_non_null(strstr(m->note, best == c4 ? "best with 4-byte" : "best with 8-byte"));
    double clk = best->m.clock_mhz * 1e6;
    assert_true(isfinite(clk) && clk > 0);
    const struct gc_metric *w = nullfx_metric(r, "constant_words_per_clk_per_cu");
    assert_float_equal(w->value, m->value / (4.0 * clk * info->compute_units), 1e-9 * w->value);

    /* One point per configuration; relative to k = 1 of its own size. */
    for (int si = 0; si < 2; si++) {
        const struct gc_series *bw = &r->series[si * 2], *rel = &r->series[si * 2 + 1];

        assert_int_equal(bw->npoints, 6);
        assert_int_equal(rel->npoints, 6);
        assert_float_equal(rel->points[0].y, 1.0, 0);
        for (int p = 0; p < 6; p++)
            assert_float_equal(rel->points[p].y, bw->points[p].y / bw->points[0].y,
                               1e-12 * rel->points[p].y);
    }
    assert_string_equal(r->stop_rule, best->m.stop_rule);
    int eb = 0, per_cu = 0;
    assert_true(gc__config_int(r, NULL, "elem_bytes", &eb));
    assert_true(gc__config_int(r, NULL, "blocks_per_cu", &per_cu));
    assert_int_equal(eb, best == c4 ? 4 : 8);
    assert_int_equal(per_cu * 256, (int)(threads / info->compute_units));
    gc__constant_free(&fx.s, &h);
}

/* The null device runs no kernel: the random output is no thread's sum. */
static void test_verify_rejects(void **state)
{
    (void)state;
    nullfx_rejects(&hb, "memory.constant", "(4-byte elements, k = 1): thread 0 summed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plan, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_run, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_verify_rejects, setup, nullfx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
