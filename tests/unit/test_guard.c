/* The limit guard: a metric above its physical limit fails its benchmark and
 * is not reported as a number; metrics at or under the limit (within the
 * margin) pass untouched. The plausibility floors warn without failing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "core/guard.h"
#include "core/results.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_above_limit_fails),
        cmocka_unit_test(test_margin),
        cmocka_unit_test(test_keeps_earlier_error),
        cmocka_unit_test(test_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
