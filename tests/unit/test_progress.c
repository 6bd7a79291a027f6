/* Tests of the progress of a run: the events (src/core/progress.c), the
 * configuration count and its total, the estimate of the time left from
 * the priors and the finished benchmarks, and the live line's text
 * (src/cli/progress.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/cli.h"
#include "core/progress.h"

struct seen {
    struct gc_progress_info last;
    int events, finished;
};

static void record(void *user, const struct gc_progress_info *p)
{
    struct seen *s = user;

    s->last = *p;
    s->events++;
    s->finished += p->finished;
}

static void test_events_and_eta(void **state)
{
    struct gc_run_options o;
    struct gc_progress_state p;
    struct seen s = {0};

    (void)state;
    gc_run_options_init(&o);
    o.progress_detail = record;
    o.progress_user = &s;
    gc__run_progress_init(&p, &o, 0);
    gc__run_progress_plan(&p, "compute", 2.0);
    gc__run_progress_plan(&p, "compute", 2.0);
    gc__run_progress_plan(&p, "compute", 2.0);
    gc__run_progress_plan(&p, "memory", 4.0);
    gc__run_progress_plan(&p, "memory", 0.0); /* the default prior */
    assert_int_equal(p.total, 5);

    /* Nothing finished: the priors, 2 + 2 + 2 + 4 + default. The running
     * one's prior counts in full until time passes. */
    gc__run_progress_start(&p, "compute.a", "compute", 2.0);
    assert_int_equal(s.events, 1);
    assert_false(s.last.finished);
    assert_string_equal(s.last.bench, "compute.a");
    assert_true(fabs(gc__run_progress_eta(&p, p.t_bench) - (10.0 + GC_PROGRESS_DEFAULT_S)) < 1e-9);
    /* 1.5 s into it: 0.5 s of it left. */
    assert_true(fabs(gc__run_progress_eta(&p, p.t_bench + 1.5) - (8.5 + GC_PROGRESS_DEFAULT_S)) <
                1e-9);
    /* Past its prior: nothing of it left (never negative). */
    assert_true(fabs(gc__run_progress_eta(&p, p.t_bench + 9) - (8.0 + GC_PROGRESS_DEFAULT_S)) <
                1e-9);
    gc__run_progress_config(&p);
    gc__run_progress_config(&p);
    assert_int_equal(p.configs, 2);
    gc__run_progress_done(&p, 2.0, "ok");
    assert_true(s.last.finished);
    assert_string_equal(s.last.bench, "compute.a");
    assert_int_equal(s.last.configs, 2);
    assert_int_equal(s.last.done, 1);
    /* Took its prior exactly: every correction 1. */
    assert_true(fabs(s.last.eta_s - (8.0 + GC_PROGRESS_DEFAULT_S)) < 1e-9);
}

/* The correction: a group that takes twice its priors. With k the mean
 * prior (2 s here), c = (A + k) / (P + k) over the run and
 * c_g = (A_g + k c) / (P_g + k) per group. */
static void test_eta_correction(void **state)
{
    struct gc_run_options o;
    struct gc_progress_state p;
    struct seen s = {0};

    (void)state;
    gc_run_options_init(&o);
    o.progress_detail = record;
    o.progress_user = &s;
    gc__run_progress_init(&p, &o, 0);
    for (int i = 0; i < 4; i++)
        gc__run_progress_plan(&p, "memory", 2.0);
    for (int i = 0; i < 4; i++)
        gc__run_progress_plan(&p, "compute", 2.0);
    for (int i = 0; i < 2; i++) {
        gc__run_progress_start(&p, "memory.x", "memory", 2.0);
        gc__run_progress_done(&p, 4.0, "ok");
    }
    /* A = 8, P = 4, k = 2: c = 10 / 6; memory: (8 + 2c) / 6 = 1.888...;
     * compute (nothing finished): c. Left: 2 memory x 2 s, 4 compute x 2 s. */
    double c = 10.0 / 6.0, cm = (8.0 + 2.0 * c) / 6.0;
    assert_true(fabs(s.last.eta_s - (4.0 * cm + 8.0 * c)) < 1e-9);
    /* The more a group has finished, the closer its correction to its own
     * ratio (2), never past it. */
    assert_true(cm > c && cm < 2.0);

    /* A harness budget replaces the running benchmark's estimate. */
    gc__run_progress_start(&p, "memory.y", "memory", 2.0);
    gc__run_progress_hint(&p, 30.0);
    double with_hint = gc__run_progress_eta(&p, p.t_bench);
    assert_true(with_hint > 30.0 && with_hint < 30.0 + 1.0 * cm * 2 + 8.0 * c + 0.5);
    /* A "not available" benchmark takes no time: the corrections stay. */
    gc__run_progress_done(&p, 0.0, "n/a");
    assert_true(fabs(s.last.eta_s - (2.0 * cm + 8.0 * c)) < 1e-9);

    /* The quick profile scales every prior by 1/4, a CPU device by 4. */
    o.profile = GC_PROFILE_QUICK;
    gc__run_progress_init(&p, &o, 0);
    gc__run_progress_plan(&p, "compute", 8.0);
    assert_true(fabs(gc__run_progress_eta(&p, 0) - 2.0) < 1e-9);
    gc__run_progress_device(&p, false);
    assert_true(fabs(gc__run_progress_eta(&p, 0) - 8.0) < 1e-9);
    gc__run_progress_init(&p, &o, 0);
    assert_true(isnan(gc__run_progress_eta(&p, 0)));
}

/* The configuration count: a total set by the benchmark (a harness phase,
 * a transfer's sizes) is the count so far plus what it announces. */
static void test_config_total(void **state)
{
    struct gc_run_options o;
    struct gc_progress_state p;
    struct seen s = {0};

    (void)state;
    gc_run_options_init(&o);
    o.progress_detail = record;
    o.progress_user = &s;
    gc__run_progress_init(&p, &o, 0);
    gc__run_progress_plan(&p, "memory", 1.0);
    gc__run_progress_start(&p, "memory.a", "memory", 1.0);
    assert_int_equal(s.last.configs_total, 0);
    gc__run_progress_expect(&p, 31);
    assert_int_equal(s.last.configs_total, 31);
    for (int i = 0; i < 31; i++)
        gc__run_progress_config(&p);
    gc__run_progress_expect(&p, 4); /* refinement: 4 more */
    assert_int_equal(s.last.configs, 31);
    assert_int_equal(s.last.configs_total, 35);
    gc__run_progress_done(&p, 1.0, "ok");
    assert_int_equal(s.last.configs_total, 35);
    /* The next benchmark starts without a total. */
    gc__run_progress_plan(&p, "memory", 1.0);
    gc__run_progress_start(&p, "memory.b", "memory", 1.0);
    assert_int_equal(s.last.configs_total, 0);
    assert_int_equal(s.last.configs, 0);
    gc__run_progress_expect(NULL, 3);
    gc__run_progress_hint(NULL, 3);
}

/* The live line's text. */
static void test_format(void **state)
{
    struct gc_progress_info i = {.done = 4,
                                 .total = 40,
                                 .bench = "memory.dram.copy",
                                 .configs = 12,
                                 .configs_total = 31,
                                 .bench_s = 3.2,
                                 .elapsed_s = 62,
                                 .eta_s = 70};
    char buf[256];

    (void)state;
    assert_true(gc__progress_format(buf, sizeof(buf), &i) > 0);
    assert_string_equal(buf, "[5/40] memory.dram.copy  config 12/31, 3 s  elapsed 1m02s  ETA "
                             "~1m10s");
    i.configs_total = 0;
    i.configs = 1;
    i.eta_s = NAN;
    i.elapsed_s = 5;
    gc__progress_format(buf, sizeof(buf), &i);
    assert_string_equal(buf, "[5/40] memory.dram.copy  1 config, 3 s  elapsed 5s  ETA -");
    /* A count past its total shows the count only. */
    i.configs = 40;
    i.configs_total = 31;
    i.eta_s = 3725;
    gc__progress_format(buf, sizeof(buf), &i);
    assert_string_equal(buf, "[5/40] memory.dram.copy  40 configs, 3 s  elapsed 5s  ETA ~1h02m");
}

static void test_silent_without_callback(void **state)
{
    struct gc_run_options o;
    struct gc_progress_state p;

    (void)state;
    gc_run_options_init(&o);
    gc__run_progress_init(&p, &o, 0);
    gc__run_progress_plan(&p, "compute", 1.0);
    gc__run_progress_start(&p, "compute.a", "compute", 1.0);
    gc__run_progress_config(&p);
    gc__run_progress_config(NULL);
    gc__run_progress_done(&p, 1.0, "ok");
    assert_int_equal(p.configs, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_and_eta),
        cmocka_unit_test(test_eta_correction),
        cmocka_unit_test(test_config_total),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_silent_without_callback),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
