/* The limit guard: a metric above its physical limit fails its benchmark and
 * is not reported as a number; metrics at or under the limit (within the
 * margin) pass untouched. The negative guard: a negative time, latency or
 * bandwidth fails likewise. The resolution rule: a difference of two
 * measurements within their noise is "below resolution", no number. The
 * plausibility floors warn without failing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "core/guard.h"
#include "core/results.h"
#include "core/stats.h"

static struct gc_stats sampled(double median, double ci95)
{
    struct gc_stats st;

    memset(&st, 0, sizeof(st));
    st.n = 10;
    st.median = st.mean = st.min = st.max = median;
    st.ci95 = ci95;
    return st;
}

static void test_above_limit_fails(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "memory.bandwidth", "memory");
    struct gc_stats st = sampled(6.16e12, 0.01e12);

    (void)state;
    /* The H200 case: 6.16 TB/s against 4.81 TB/s. */
    gc__bench_add_metric(b, "dram_read_bandwidth", 6.16e12, "B/s", 4.81e12, &st, "largest");
    gc__bench_add_metric(b, "l1_bandwidth", 30e12, "B/s", 33e12, NULL, "fine");
    assert_int_equal(gc__limit_guard(b), 1);
    assert_int_equal(b->status, GC_BENCH_ERROR);
    assert_non_null(strstr(b->error, "dram_read_bandwidth"));
    assert_non_null(strstr(b->error, "6.16e+12"));
    assert_non_null(strstr(b->error, "4.81e+12"));
    assert_non_null(strstr(b->error, "Likely causes"));
    assert_true(isnan(b->metrics[0].value));
    assert_true(isnan(b->metrics[0].fraction));
    assert_non_null(strstr(b->metrics[0].note, "rejected"));
    /* The metric under its limit is untouched. */
    assert_true(b->metrics[1].value == 30e12);
    gc_results_free(r);
}

static void test_margin(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "compute.fp32.fma", "compute");

    (void)state;
    gc__bench_add_metric(b, "at_limit", 100.0, "x", 100.0, NULL, "");
    gc__bench_add_metric(b, "within_margin", 100.0 * (1 + GC_LIMIT_MARGIN * 0.9), "x", 100.0, NULL,
                         "");
    gc__bench_add_metric(b, "no_limit", 1e30, "x", NAN, NULL, "");
    gc__bench_add_metric(b, "zero_limit", 5, "x", 0, NULL, "");
    assert_int_equal(gc__limit_guard(b), 0);
    assert_int_equal(b->status, GC_BENCH_OK);
    assert_string_equal(b->error, "");
    gc__bench_add_metric(b, "past_margin", 100.0 * (1 + GC_LIMIT_MARGIN * 1.1), "x", 100.0, NULL,
                         "");
    assert_int_equal(gc__limit_guard(b), 1);
    assert_int_equal(b->status, GC_BENCH_ERROR);
    assert_non_null(strstr(b->error, "past_margin"));
    assert_null(strstr(b->error, "within_margin"));
    gc_results_free(r);
}

/* An earlier error of the benchmark is kept in the message. */
static void test_keeps_earlier_error(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "x", "memory");

    (void)state;
    gc__bench_set_error(b, GC_BENCH_INTERRUPTED, "interrupted; partial data");
    gc__bench_add_metric(b, "bw", 2.0, "B/s", 1.0, NULL, "");
    assert_int_equal(gc__limit_guard(b), 1);
    assert_int_equal(b->status, GC_BENCH_ERROR);
    assert_non_null(strstr(b->error, "interrupted; partial data"));
    gc_results_free(r);
}

static void test_floor(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *a = gc__results_add_bench(r, "memory.bandwidth", "memory");
    struct gc_bench_result *ref = gc__results_add_bench(r, "memory.dram.read", "memory");
    static const struct gc_floor floors[] = {
        {"dram_read_bandwidth", "memory.dram.read", "read_bandwidth", 0.75, "a slow kernel"},
        {"missing_metric", "memory.dram.read", "read_bandwidth", 0.75, "never applies"},
        {"dram_read_bandwidth", "memory.nothing", "x", 0.75, "reference not measured"},
        {NULL, NULL, NULL, 0, NULL},
    };

    (void)state;
    gc__bench_add_metric(a, "dram_read_bandwidth", 3.0e12, "B/s", 4.81e12, NULL, "");
    gc__bench_add_metric(ref, "read_bandwidth", 4.5e12, "B/s", 4.81e12, NULL, "");
    assert_int_equal(gc__plausibility(r, a, floors), 1);
    assert_int_equal(a->status, GC_BENCH_OK);
    assert_non_null(strstr(a->warning, "dram_read_bandwidth"));
    assert_non_null(strstr(a->warning, "a slow kernel"));
    /* At or above the floor: no warning. */
    a->warning[0] = '\0';
    a->metrics[0].value = 0.8 * 4.5e12;
    assert_int_equal(gc__plausibility(r, a, floors), 0);
    assert_string_equal(a->warning, "");
    gc_results_free(r);
}

/* Times, latencies and bandwidths may not be negative; other units (a
 * power difference, a ratio) may. */
static void test_negative_fails(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "control.divergence", "control");

    (void)state;
    gc__bench_add_metric(b, "barrier_time_256", -29.2e-9, "s", NAN, NULL, "difference");
    gc__bench_add_metric(b, "random_increment_per_line_cycles", -3.32, "cycles/line", NAN, NULL,
                         "slope");
    gc__bench_add_metric(b, "copy_bandwidth", -1e9, "B/s", NAN, NULL, "");
    gc__bench_add_metric(b, "static_minus_idle", -2.0, "W", NAN, NULL, "");
    gc__bench_add_metric(b, "zero_time", 0.0, "s", NAN, NULL, "");
    gc__bench_add_metric(b, "slowdown", -1.0, "x", NAN, NULL, "");
    assert_int_equal(gc__negative_guard(b), 3);
    assert_int_equal(b->status, GC_BENCH_ERROR);
    assert_non_null(strstr(b->error, "barrier_time_256"));
    assert_non_null(strstr(b->error, "random_increment_per_line_cycles"));
    assert_non_null(strstr(b->error, "copy_bandwidth"));
    assert_null(strstr(b->error, "static_minus_idle"));
    for (int i = 0; i < 3; i++) {
        assert_true(isnan(b->metrics[i].value));
        assert_non_null(strstr(b->metrics[i].note, "rejected"));
    }
    assert_true(b->metrics[3].value == -2.0);
    assert_true(b->metrics[4].value == 0.0);
    assert_true(b->metrics[5].value == -1.0);
    /* Nothing negative: nothing changes. */
    struct gc_bench_result *c = gc__results_add_bench(r, "memory.latency", "memory");
    gc__bench_add_metric(c, "latency", 5e-9, "s", NAN, NULL, "");
    assert_int_equal(gc__negative_guard(c), 0);
    assert_int_equal(c->status, GC_BENCH_OK);
    assert_true(gc__unit_nonnegative("ns/load") && gc__unit_nonnegative("B/clk/CU") &&
                gc__unit_nonnegative("FLOP/s") && gc__unit_nonnegative("cycles"));
    assert_false(gc__unit_nonnegative("W") || gc__unit_nonnegative("x") ||
                 gc__unit_nonnegative("%") || gc__unit_nonnegative("B"));
    gc_results_free(r);
}

/* The resolution of a difference: the two half-widths in quadrature, the
 * half-range for a measurement without a CI, nothing for one sample. */
static void test_diff_resolution(void **state)
{
    struct gc_stats a = sampled(10.0, 0.3), b = sampled(9.0, 0.4), one, none;

    (void)state;
    assert_float_equal(gc__diff_resolution(&a, &b), 0.5, 1e-12);
    memset(&one, 0, sizeof(one));
    one.n = 1;
    one.median = one.min = one.max = 7.0;
    one.ci95 = NAN;
    assert_float_equal(gc__diff_resolution(&a, &one), 0.3, 1e-12);
    memset(&none, 0, sizeof(none));
    none.ci95 = NAN;
    assert_true(isnan(gc__diff_resolution(&none, &none)));
    /* Two samples with an unknown CI: half their range. */
    struct gc_stats two = sampled(5.0, NAN);
    two.n = 2;
    two.min = 4.0;
    two.max = 6.0;
    assert_float_equal(gc__diff_resolution(&two, &one), 1.0, 1e-12);
}

/* A difference within its resolution is no number: the metric has no value
 * and its note says "below resolution (< x unit)"; resolved positive
 * differences keep their value, negative ones none ("not resolved"). */
static void test_below_resolution(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "control.divergence", "control");
    struct gc_stats t2 = sampled(1.000e-3, 2e-6), t4 = sampled(0.999e-3, 2e-6);
    double res = gc__diff_resolution(&t4, &t2), diff = t4.median - t2.median;

    (void)state;
    assert_true(gc__below_resolution(diff, res));
    assert_false(gc__below_resolution(3 * res, res));
    assert_false(gc__below_resolution(-3 * res, res));
    assert_false(gc__below_resolution(diff, NAN));
    assert_false(gc__below_resolution(NAN, res));
    struct gc_metric *m = gc__bench_add_difference(b, "barrier_time_256", diff, res, "s", "how");
    assert_non_null(m);
    assert_true(isnan(m->value));
    assert_true(strncmp(m->note, "below resolution (< ", 20) == 0);
    assert_non_null(strstr(m->note, " s)"));
    assert_non_null(strstr(m->note, "how"));
    m = gc__bench_add_difference(b, "resolved", 5 * res, res, "s", NULL);
    assert_true(m->value == 5 * res);
    m = gc__bench_add_difference(b, "negative", -5 * res, res, "s", NULL);
    /* Beyond its resolution but negative: no figure either, and said so
     * (an H200's compile-time fit and a Xeon's hiding.params read such
     * differences; the benchmark keeps its other figures). */
    assert_true(isnan(m->value));
    assert_true(strncmp(m->note, "not resolved: ", 14) == 0);
    assert_int_equal(gc__negative_guard(b), 0);
    assert_true(isnan(b->metrics[2].value));
    assert_true(b->metrics[1].value == 5 * res);
    assert_non_null(strstr(b->metrics[0].note, "below resolution"));
    gc_results_free(r);
}

/* A fitted line's parameters and their resolutions: exact points give
 * zero residual resolution; the points' own half-widths carry through; two
 * points without spreads leave it unknown, and then a negative slope is
 * below resolution by its own magnitude, never a negative time. */
static void test_line_fit(void **state)
{
    const double x[4] = {1, 2, 3, 4}, y[4] = {3, 5, 7, 9}, noisy[4] = {3.1, 4.8, 7.2, 8.9};
    const double u[2] = {0.5, 0.5};
    struct gc_line f;

    (void)state;
    gc__line_fit(x, y, NULL, 4, &f);
    assert_float_equal(f.b, 2.0, 1e-12);
    assert_float_equal(f.a, 1.0, 1e-12);
    assert_float_equal(f.b_res, 0.0, 1e-12);
    gc__line_fit(x, noisy, NULL, 4, &f);
    assert_true(f.b_res > 0 && f.a_res > 0);
    /* Two points, each +-0.5: slope resolution sqrt(2) x 0.5 / (x2 - x1). */
    gc__line_fit(x, y, u, 2, &f);
    assert_float_equal(f.b_res, sqrt(2.0) * 0.5, 1e-12);
    gc__line_fit(x, y, NULL, 2, &f);
    assert_true(isnan(f.b_res) && isnan(f.a_res));
    gc__line_fit(x, y, NULL, 1, &f);
    assert_true(isnan(f.b));

    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "overhead.compile", "overhead");
    const double down[2] = {1e-3, 0.9e-3};
    gc__line_fit(x, down, NULL, 2, &f);
    struct gc_metric *m = gc__bench_add_difference(b, "load_per_line", f.b, f.b_res, "s", "fit");
    assert_true(isnan(m->value));
    assert_true(strncmp(m->note, "not resolved: ", 14) == 0);
    /* A positive slope without a spread stays a figure. */
    m = gc__bench_add_difference(b, "compile_per_line", 2e-4, NAN, "s", "fit");
    assert_true(m->value == 2e-4);
    assert_int_equal(gc__negative_guard(b), 0);
    gc_results_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_above_limit_fails),   cmocka_unit_test(test_margin),
        cmocka_unit_test(test_keeps_earlier_error), cmocka_unit_test(test_floor),
        cmocka_unit_test(test_negative_fails),      cmocka_unit_test(test_diff_resolution),
        cmocka_unit_test(test_below_resolution),    cmocka_unit_test(test_line_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
