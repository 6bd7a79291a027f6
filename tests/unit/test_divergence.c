/* control.divergence on the harness, on the simulated (null) device: the
 * plan (43 layouts of one branch kernel, the barrier kernels per block
 * size, two programs, shorter samples that the release gives back), the
 * run (every point measured in full, none screened), the figures evaluated
 * on the null device's timings (the relative table and its series, the if
 * rows, the barrier cost as a difference of two points), and the check
 * rejecting outputs the launches did not write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/null/null.h"
#include "bench/divergence/divergence.h"
#include "core/harness.h"
#include "core/results.h"
#include "nullfx.h"

#define NAME "control.divergence"

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-4, .noise_rel = 0.02, .seed = 5};

    (void)state;
    nullfx_open(&fx, &cfg, 17);
    fx.dev->info.type = GC_DEVICE_GPU;
    return 0;
}

static struct gc_bench_result *result(void)
{
    struct gc_bench_result *r = gc__results_add_bench(fx.res, NAME, "control");

    assert_non_null(r);
    return r;
}

/* 1 reference + 6 widths x 7 counts, then 2 kernels x 6 block sizes (32 to
 * 1024); labels unique; the sources are the branch and barrier programs;
 * samples a fifth of the session's in the harness's policy, the session's
 * untouched; on a CPU at least 6 samples, unless --repeat said otherwise. */
static void test_plan(void **state)
{
    const struct gc_hbench *hb = &gc__divergence_hbench;
    struct gc_bench_result *r = result();
    double sample_s = fx.s.sampling.target_sample_s;
    struct gc_harness h;

    (void)state;
    memset(&h, 0, sizeof(h));
    assert_int_equal(hb->plan(&fx.s, r, &h), 0);
    assert_int_equal(h.ncfg, 43 + 12);
    assert_int_equal(nullfx_distinct_sources(&h), 2);
    assert_float_equal(h.sampling.target_sample_s, sample_s / 5, 1e-15);
    assert_true(h.sampling.max_samples <= 9);
    assert_float_equal(fx.s.sampling.target_sample_s, sample_s, 0);
    assert_non_null(nullfx_by_label(&h, "divergence_w1_c1"));
    assert_non_null(nullfx_by_label(&h, "divergence_w32_c128"));
    assert_null(nullfx_by_label(&h, "divergence_w2_c1"));
    assert_string_equal(nullfx_by_label(&h, "divergence_bar4_b1024")->kernel, "gc_bar4");
    for (int i = 0; i < h.ncfg; i++)
        for (int j = 0; j < i; j++)
            assert_string_not_equal(h.cfg[i].label, h.cfg[j].label);
    hb->release(&fx.s, &h);
    assert_float_equal(fx.s.sampling.target_sample_s, sample_s, 0);
    /* A CPU device warms up on the reference first, measured as well. */
    fx.dev->info.type = GC_DEVICE_CPU;
    memset(&h, 0, sizeof(h));
    assert_int_equal(hb->plan(&fx.s, r, &h), 0);
    assert_int_equal(h.ncfg, 44 + 12);
    assert_string_equal(h.cfg[0].label, "divergence_w1_c1_warmup");
    assert_string_equal(h.cfg[1].label, "divergence_w1_c1");
    assert_int_equal(h.sampling.min_samples, 6);
    assert_true(h.sampling.max_samples >= 6);
    hb->release(&fx.s, &h);
    /* An explicit --repeat 2 and --min-time 3: the method's rules give way. */
    struct gc_sampling run = fx.s.sampling;
    gc__sampling_defaults(&fx.s.sampling, GC_PROFILE_DEFAULT, false, 2, 3);
    memset(&h, 0, sizeof(h));
    assert_int_equal(hb->plan(&fx.s, r, &h), 0);
    assert_int_equal(h.sampling.max_samples, 2);
    assert_true(h.sampling.min_samples <= 2);
    assert_float_equal(h.sampling.target_sample_s, 3e-3, 1e-15);
    hb->release(&fx.s, &h);
    fx.s.sampling = run;
}

/* On a CPU device the reference is the faster of its two measurements. */
static void test_cpu_reference(void **state)
{
    const struct gc_hbench *hb = &gc__divergence_hbench;
    struct gc_bench_result *r = result();
    struct gc_harness h;

    (void)state;
    fx.dev->info.type = GC_DEVICE_CPU;
    nullfx_run_all(hb, r, &h, NAME);
    const struct gc_hconf *w = nullfx_by_label(&h, "divergence_w1_c1_warmup");
    const struct gc_hconf *c = nullfx_by_label(&h, "divergence_w1_c1");
    assert_non_null(w);
    assert_non_null(c);
    double t1 = fmin(w->m.seconds.min, c->m.seconds.min);
    assert_float_equal(nullfx_metric(r, "one_branch_time")->value, t1, 0);
    const struct gc_series *s = gc__bench_find_series(r, "relative_time_width_4");
    const struct gc_hconf *c8 = nullfx_by_label(&h, "divergence_w4_c8");
    assert_float_equal(s->points[3].y, c8->m.seconds.min / t1, 1e-12);
    hb->release(&fx.s, &h);
}

static double t_of(const struct gc_harness *h, const char *label)
{
    const struct gc_hconf *c = nullfx_by_label(h, label);

    assert_non_null(c);
    assert_int_equal(c->state, GC_H_REFINED);
    return c->m.seconds.median;
}

/* Every point in full; the table relative to the reference, the if rows
 * and the barrier cost from the points' median times. */
static void test_run(void **state)
{
    const struct gc_hbench *hb = &gc__divergence_hbench;
    struct gc_bench_result *r = result();
    struct gc_harness h;
    char nm[64];

    (void)state;
    nullfx_run_all(hb, r, &h, NAME);
    double t1 = t_of(&h, "divergence_w1_c1");
    for (int w = 1; w <= 32; w *= 2) {
        snprintf(nm, sizeof(nm), "relative_time_width_%d", w);
        const struct gc_series *s = gc__bench_find_series(r, nm);
        assert_non_null(s);
        assert_int_equal(s->npoints, 8);
        assert_float_equal(s->points[0].y, 1.0, 1e-12);
        snprintf(nm, sizeof(nm), "divergence_w%d_c64", w);
        assert_float_equal(s->points[6].x, 64, 0);
        assert_float_equal(s->points[6].y, t_of(&h, nm) / t1, 1e-12);
    }
    assert_float_equal(nullfx_metric(r, "one_branch_time")->value, t1, 0);
    double uni = t_of(&h, "divergence_w32_c2"), div = t_of(&h, "divergence_w1_c2");
    assert_float_equal(nullfx_metric(r, "if_uniform_time")->value, uni, 0);
    assert_float_equal(nullfx_metric(r, "if_divergent_slowdown")->value, div / uni, 1e-12);
    double rule = nullfx_metric(r, "cutoff_rule_holds")->value;
    assert_true(rule >= 0 && rule <= 1);
    double per = (t_of(&h, "divergence_bar4_b256") - t_of(&h, "divergence_bar2_b256")) / 512;
    assert_float_equal(nullfx_metric(r, "barrier_time_256")->value, per, 1e-15);
    const struct gc_series *bs = gc__bench_find_series(r, "barrier_time_vs_block");
    assert_non_null(bs);
    assert_int_equal(bs->npoints, 6);
    assert_non_null(gc__bench_find_series(r, "barrier_cycles_vs_block"));
    hb->release(&fx.s, &h);
}

/* The null device runs no kernel: the layouts' check rejects the output. */
static void test_rejects(void **state)
{
    (void)state;
    nullfx_rejects(&gc__divergence_hbench, NAME, "verification failed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plan, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_run, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_cpu_reference, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_rejects, setup, nullfx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
