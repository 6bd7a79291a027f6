/* memory.coalescing on the harness, on the simulated (null) device: the
 * plan of each profile (read patterns and copy sizes, one read kernel shared
 * by every pattern, six series), the figures on the null device's synthetic
 * timings (useful and sector bandwidth, computed sectors, the coalesced and
 * permuted headlines, the stride-32 slowdown, the copy's bandwidth, the
 * buffer size), and the verification rejecting sums no kernel wrote. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "bench/coalesce/coalesce.h"
#include "core/harness.h"
#include "core/results.h"
#include "nullfx.h"

static const struct gc_hbench hb = {gc__coalescing_plan, gc__coalescing_derive,
                                    gc__coalescing_free};

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-4, .noise_rel = 0.01, .seed = 7};

    (void)state;
    nullfx_open(&fx, &cfg, 43);
    fx.dev->info.mem_bw_spec = 3e12;
    return 0;
}

/* Default and full: strides 1..32, groups of 1..32 lanes, the permutation
 * and 5 copy sizes (18); quick: 3 strides, groups of 8, the permutation, 3
 * sizes (8). One read kernel for every pattern, one copy kernel per size. */
static void test_plan(void **state)
{
    static const struct {
        enum gc_profile p;
        int ncfg, nsrc;
    } want[] = {{GC_PROFILE_QUICK, 8, 4}, {GC_PROFILE_DEFAULT, 18, 6}, {GC_PROFILE_FULL, 18, 6}};

    (void)state;
    for (size_t t = 0; t < sizeof(want) / sizeof(want[0]); t++) {
        struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.coalescing", "memory");
        struct gc_harness h;

        fx.s.profile = want[t].p;
        memset(&h, 0, sizeof(h));
        assert_int_equal(gc__coalescing_plan(&fx.s, r, &h), 0);
        assert_int_equal(h.ncfg, want[t].ncfg);
        assert_int_equal(nullfx_distinct_sources(&h), want[t].nsrc);
        assert_int_equal(r->nseries, 6);
        assert_string_equal(r->series[0].name, "bandwidth_vs_stride");
        assert_string_equal(r->series[5].name, "bandwidth_vs_access_size");
        assert_non_null(nullfx_by_label(&h, "coalesce_read"));
        assert_non_null(nullfx_by_label(&h, "access_size_16B"));
        gc__coalescing_free(&fx.s, &h);
    }
    fx.s.profile = GC_PROFILE_DEFAULT;
}

/* Every configuration in full; the figures follow from their measurements. */
static void test_run(void **state)
{
    struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.coalescing", "memory");
    struct gc_harness h;

    (void)state;
    nullfx_run_all(&hb, r, &h, "memory.coalescing");
    const struct gc_hconf *s1 = nullfx_by_label(&h, "coalesce_read");
    const struct gc_hconf *s32 = nullfx_by_label(&h, "coalesce_read_s32");
    const struct gc_hconf *perm = nullfx_by_label(&h, "coalesce_read_p0");
    const struct gc_hconf *c16 = nullfx_by_label(&h, "access_size_16B");
    double bytes = nullfx_metric(r, "buffer_size")->value;

    assert_non_null(s32);
    assert_non_null(perm);
    /* Useful bytes: threads x 8 loads x 4 B; stride 32 has 1/32 the threads. */
    double threads = (double)s1->hl.l.grid[0] * s1->hl.l.block[0];
    assert_float_equal(s1->hl.work, threads * 8 * 4, 0);
    assert_float_equal(threads * 8 * 4, bytes, 0);
    assert_float_equal(s32->hl.work * 32, s1->hl.work, 0);
    assert_float_equal(c16->hl.work, 2 * bytes, 0);
    assert_non_null(strstr(s32->hl.desc, "stride 32"));

    const struct gc_metric *m = nullfx_metric(r, "coalesced_bandwidth");
    assert_float_equal(m->value, s1->value, 0);
    assert_float_equal(m->value, s1->hl.work / s1->m.seconds.median, 0.02 * m->value);
    assert_float_equal(m->limit, 3e12, 0);
    assert_float_equal(nullfx_metric(r, "permuted_bandwidth")->value, perm->value, 0);
    assert_float_equal(nullfx_metric(r, "stride32_slowdown")->value, s1->value / s32->value, 1e-12);

    /* Strides: useful, computed sectors min(32, 4 s), sector traffic =
     * useful x sectors x 32 / 128. */
    const struct gc_series *bw = &r->series[0], *sec = &r->series[1], *sb = &r->series[2];
    assert_int_equal(bw->npoints, 6);
    for (int i = 0; i < bw->npoints; i++) {
        double s = bw->points[i].x;

        assert_float_equal(sec->points[i].y, 4 * s < 32 ? 4 * s : 32, 0);
        assert_float_equal(sb->points[i].y, bw->points[i].y * sec->points[i].y / 4,
                           1e-9 * sb->points[i].y);
    }
    /* Groups of g lanes, each in its own line: 32 / g lines, 4 g words. */
    const struct gc_series *gs = &r->series[4];
    assert_int_equal(gs->npoints, 6);
    assert_float_equal(gs->points[3].x, 8 / 32.0, 0);
    assert_string_equal(gs->points[3].label, "8/32");
    assert_string_equal(gs->points[5].label, "full");
    assert_float_equal(gs->points[0].y, 32, 0);
    assert_float_equal(gs->points[5].y, 4, 0);
    assert_int_equal(r->series[5].npoints, 5);
    assert_float_equal(r->series[5].points[4].y, c16->value, 0);
    assert_string_equal(r->stop_rule, s1->m.stop_rule);
    gc__coalescing_free(&fx.s, &h);
}

/* The null device runs no kernel: the poisoned output is no thread's sum. */
static void test_verify_rejects(void **state)
{
    (void)state;
    nullfx_rejects(&hb, "memory.coalescing", "(stride 1): thread 0 summed 0xdeadbeef");
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
