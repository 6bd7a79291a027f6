/* Tests of the progress events of a run (src/core/progress.c): the order
 * of the events, the configuration count, and the estimate of the time left
 * from the finished benchmarks of each group. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

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
    gc__run_progress_plan(&p, "compute");
    gc__run_progress_plan(&p, "compute");
    gc__run_progress_plan(&p, "compute");
    gc__run_progress_plan(&p, "memory");
    gc__run_progress_plan(&p, "memory");
    assert_int_equal(p.total, 5);

    /* Nothing finished: no estimate. */
    gc__run_progress_start(&p, "compute.a", "compute");
    assert_int_equal(s.events, 1);
    assert_false(s.last.finished);
    assert_string_equal(s.last.bench, "compute.a");
    assert_true(isnan(s.last.eta_s));
    gc__run_progress_config(&p);
    gc__run_progress_config(&p);
    assert_int_equal(p.configs, 2);
    /* A compute benchmark of 2 s: two compute left at 2 s, two memory at
     * the overall mean (2 s) = 8 s. */
    gc__run_progress_done(&p, 2.0, "ok");
    assert_true(s.last.finished);
    assert_string_equal(s.last.bench, "compute.a");
    assert_int_equal(s.last.configs, 2);
    assert_int_equal(s.last.done, 1);
    assert_true(fabs(s.last.eta_s - 8.0) < 1e-9);

    /* A memory benchmark of 10 s: two compute (2 s each) and one memory
     * (10 s) left. */
    gc__run_progress_start(&p, "memory.a", "memory");
    assert_int_equal(s.last.configs, 0);
    gc__run_progress_done(&p, 10.0, "ok");
    assert_true(fabs(s.last.eta_s - 14.0) < 1e-9);

    /* A benchmark not available takes no time and does not lower the mean:
     * one compute (2 s) and one memory (10 s) left. */
    gc__run_progress_start(&p, "compute.b", "compute");
    gc__run_progress_done(&p, 0.0, "n/a");
    assert_true(fabs(s.last.eta_s - 12.0) < 1e-9);
    assert_int_equal(s.finished, 3);
    assert_int_equal(s.last.done, 3);
    assert_int_equal(s.last.total, 5);
}

static void test_silent_without_callback(void **state)
{
    struct gc_run_options o;
    struct gc_progress_state p;

    (void)state;
    gc_run_options_init(&o);
    gc__run_progress_init(&p, &o, 0);
    gc__run_progress_plan(&p, "compute");
    gc__run_progress_start(&p, "compute.a", "compute");
    gc__run_progress_config(&p);
    gc__run_progress_config(NULL);
    gc__run_progress_done(&p, 1.0, "ok");
    assert_int_equal(p.configs, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_and_eta),
        cmocka_unit_test(test_silent_without_callback),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
