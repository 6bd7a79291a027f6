/* Unit tests of the sample statistics (src/core/stats.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/stats.h"

#define assert_near(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_odd_median(void **state)
{
    const double x[3] = {3, 1, 2};
    double copy[3];
    struct gc_stats s;

    (void)state;
    memcpy(copy, x, sizeof(x));
    gc__stats_compute(copy, 3, &s);
    assert_int_equal(s.n, 3);
    assert_near(s.median, 2, 0);
    assert_near(s.min, 1, 0);
    assert_near(s.max, 3, 0);
    assert_near(s.mean, 2, 1e-15);
    assert_near(s.stddev, 1, 1e-15);
    /* t(0.975, 2) = 4.302652730, times 1/sqrt(3). */
    assert_near(s.ci95, 4.302652730 / sqrt(3.0), 1e-9);
    assert_near(s.cv, 0.5, 1e-15);
    /* The input is left in its order. */
    assert_memory_equal(copy, x, sizeof(x));
}

static void test_even_median(void **state)
{
    const double x[4] = {4, 1, 3, 2};
    struct gc_stats s;

    (void)state;
    gc__stats_compute(x, 4, &s);
    assert_near(s.median, 2.5, 0);
    assert_near(s.mean, 2.5, 1e-15);
    assert_near(s.stddev, sqrt(5.0 / 3.0), 1e-15);
    assert_near(s.ci95, 3.182446305 * sqrt(5.0 / 3.0) / 2, 1e-9);
    assert_near(s.cv, sqrt(5.0 / 3.0) / 2.5, 1e-15);
    assert_near(s.min, 1, 0);
    assert_near(s.max, 4, 0);
}

static void test_single_sample(void **state)
{
    const double x[1] = {5};
    struct gc_stats s;

    (void)state;
    gc__stats_compute(x, 1, &s);
    assert_int_equal(s.n, 1);
    assert_near(s.median, 5, 0);
    assert_near(s.min, 5, 0);
    assert_near(s.max, 5, 0);
    assert_near(s.mean, 5, 0);
    assert_near(s.stddev, 0, 0);
    assert_true(isnan(s.ci95));
    assert_near(s.cv, 0, 0);
}

static void test_empty(void **state)
{
    struct gc_stats s;

    (void)state;
    memset(&s, 0x55, sizeof(s));
    gc__stats_compute(NULL, 0, &s);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.median) && isnan(s.min) && isnan(s.max) && isnan(s.mean));
    assert_true(isnan(s.stddev) && isnan(s.ci95) && isnan(s.cv));
}

static void test_zero_mean_cv(void **state)
{
    const double x[2] = {-1, 1};
    struct gc_stats s;

    (void)state;
    gc__stats_compute(x, 2, &s);
    assert_near(s.mean, 0, 0);
    assert_true(isnan(s.cv));
}

/* Large offsets with a small spread: a one-pass sum of squares loses every
 * digit here, the two-pass form is exact. */
static void test_precision(void **state)
{
    const double x[3] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    struct gc_stats s;

    (void)state;
    gc__stats_compute(x, 3, &s);
    assert_near(s.stddev, 1, 1e-9);
    assert_near(s.median, 1e9 + 2, 0);
}

/* More samples than the stack buffer: the heap path gives the same answers. */
static void test_many_samples(void **state)
{
    enum { N = 1001 };
    double *x = malloc(N * sizeof(*x));
    struct gc_stats s;

    (void)state;
    assert_non_null(x);
    /* A permutation of 0..1000: 10 is coprime with 1001 = 7 * 11 * 13. */
    for (int i = 0; i < N; i++)
        x[i] = (double)((i * 10) % N);
    gc__stats_compute(x, N, &s);
    assert_int_equal(s.n, N);
    assert_near(s.median, 500, 0);
    assert_near(s.min, 0, 0);
    assert_near(s.max, 1000, 0);
    assert_near(s.mean, 500, 1e-9);
    assert_near(s.ci95, gc__t95(1000) * s.stddev / sqrt((double)N), 1e-12);
    assert_near(x[1], 10, 0);
    free(x);
}

static void test_t_table(void **state)
{
    (void)state;
    assert_true(isnan(gc__t95(0)));
    assert_near(gc__t95(1), 12.706204736, 1e-9);
    assert_near(gc__t95(2), 4.302652730, 1e-9);
    assert_near(gc__t95(10), 2.228138852, 1e-9);
    assert_near(gc__t95(24), 2.063898562, 1e-9);
    assert_near(gc__t95(30), 2.042272456, 1e-9);
    /* Past the table: reference quantiles of Student's t. */
    assert_near(gc__t95(31), 2.039513446, 1e-7);
    assert_near(gc__t95(40), 2.021075390, 1e-7);
    assert_near(gc__t95(60), 2.000297822, 1e-7);
    assert_near(gc__t95(100), 1.983971519, 1e-7);
    assert_near(gc__t95(1000), 1.962339081, 1e-8);
    assert_near(gc__t95(100000000), 1.959963985, 5e-8);
    /* Decreasing towards the normal quantile. */
    for (int dof = 1; dof < 2000; dof++) {
        assert_true(gc__t95(dof + 1) < gc__t95(dof));
        assert_true(gc__t95(dof) > 1.959963984);
    }
}

static void test_inverse(void **state)
{
    const double t[3] = {1, 2, 4};
    double copy[3];
    struct gc_stats s;

    (void)state;
    memcpy(copy, t, sizeof(t));
    gc__stats_inverse(copy, 3, 8, &s);
    assert_int_equal(s.n, 3);
    /* 8/x = {8, 4, 2}. */
    assert_near(s.median, 4, 0);
    assert_near(s.min, 2, 0);
    assert_near(s.max, 8, 0);
    assert_near(s.mean, 14.0 / 3.0, 1e-14);
    assert_near(s.stddev, sqrt(28.0 / 3.0), 1e-14);
    assert_memory_equal(copy, t, sizeof(t));

    gc__stats_inverse(NULL, 0, 8, &s);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.median));
}

/* An even count of times: the median of k/x is the mean of the two middle
 * rates, not k over the median time. */
static void test_inverse_even(void **state)
{
    const double t[2] = {1, 4};
    struct gc_stats s;

    (void)state;
    gc__stats_inverse(t, 2, 4, &s);
    assert_near(s.median, 2.5, 1e-15);
    assert_true(fabs(s.median - 4 / 2.5) > 0.5);
}

static void test_scale(void **state)
{
    const double x[4] = {1, 2, 3, 6};
    struct gc_stats s, k;

    (void)state;
    gc__stats_compute(x, 4, &s);
    k = s;
    gc__stats_scale(&k, 1e3);
    assert_int_equal(k.n, 4);
    assert_near(k.median, s.median * 1e3, 1e-9);
    assert_near(k.min, 1e3, 1e-9);
    assert_near(k.max, 6e3, 1e-9);
    assert_near(k.mean, s.mean * 1e3, 1e-9);
    assert_near(k.stddev, s.stddev * 1e3, 1e-9);
    assert_near(k.ci95, s.ci95 * 1e3, 1e-9);
    assert_near(k.cv, s.cv, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_odd_median),    cmocka_unit_test(test_even_median),
        cmocka_unit_test(test_single_sample), cmocka_unit_test(test_empty),
        cmocka_unit_test(test_zero_mean_cv),  cmocka_unit_test(test_precision),
        cmocka_unit_test(test_many_samples),  cmocka_unit_test(test_t_table),
        cmocka_unit_test(test_inverse),       cmocka_unit_test(test_inverse_even),
        cmocka_unit_test(test_scale),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
