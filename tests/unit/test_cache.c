/* Cache-level detection on synthetic staircases: known capacities and
 * latencies with noise are recovered, and degenerate curves are handled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/random.h"
#include "gpuchar/gpuchar.h"
#include "model/cache.h"

#define MAXN 256

/* Generalised eq. 6: level k serves the share of the footprint that fits in
 * it and not in the smaller levels. */
static double staircase(const double *cap, const double *lat, int nl, double x)
{
    double m = 0, prev = 0;

    for (int k = 0; k < nl; k++) {
        double h = k == nl - 1 ? 1.0 : (cap[k] >= x ? 1.0 : cap[k] / x);
        m += lat[k] * (h - prev);
        prev = h;
    }
    return m;
}

/* Footprints from lo to hi in steps of 2^(1/per_octave). */
static int sweep(double lo, double hi, int per_octave, double *x)
{
    int n = 0;

    for (double v = lo; v <= hi * 1.0001 && n < MAXN; v *= pow(2.0, 1.0 / per_octave))
        x[n++] = v;
    return n;
}

/* Relative noise uniform in [-amp, amp]. */
static double noisy(double v, double amp, uint64_t *st)
{
    double u = (double)(gc__xorshift64s(st) >> 11) / 9007199254740992.0;
    return v * (1.0 + amp * (2 * u - 1));
}

static void check_levels(const double *cap, const double *lat, int nl, double noise, int per_octave,
                         double lo, double hi, uint64_t seed)
{
    double x[MAXN] = {0}, y[MAXN] = {0};
    uint64_t st = seed;
    int n = sweep(lo, hi, per_octave, x);
    struct gc_cache_fit f;

    for (int i = 0; i < n; i++)
        y[i] = noisy(staircase(cap, lat, nl, x[i]), noise, &st);
    assert_int_equal(gc__cache_detect(x, y, n, &f), 0);
    if (f.nlevels != nl) {
        for (int i = 0; i < n; i++)
            fprintf(stderr, "%g %g\n", x[i], y[i]);
    }
    assert_int_equal(f.nlevels, nl);
    for (int k = 0; k < nl; k++) {
        double rel = fabs(f.level[k].latency / lat[k] - 1);
        if (rel > 0.05)
            fprintf(stderr, "level %d latency %g, expected %g\n", k, f.level[k].latency, lat[k]);
        assert_true(rel <= 0.05);
        if (k == nl - 1) {
            assert_true(isnan(f.level[k].capacity));
            continue;
        }
        rel = fabs(f.level[k].capacity / cap[k] - 1);
        if (rel > 0.10)
            fprintf(stderr, "level %d capacity %g, expected %g\n", k, f.level[k].capacity, cap[k]);
        assert_true(rel <= 0.10);
        assert_true(f.level[k].capacity_lo < f.level[k].capacity_hi);
    }
    assert_true(f.rms_rel < 2 * noise + 0.01);
    /* The model goes through the data. */
    for (int i = 0; i < n; i++)
        assert_true(fabs(gc__cache_model(&f, x[i]) / y[i] - 1) < 3 * noise + 0.02);
}

/* A GPU-like hierarchy: L1 256 KiB at 33 cycles, L2 50 MiB at 260, DRAM
 * 640, swept from 1 KiB to 4x L2 in quarter octaves, 2% noise. */
static void test_gpu_like(void **state)
{
    static const double cap[] = {256.0 * 1024, 50.0 * 1024 * 1024};
    static const double lat[] = {33, 260, 640};

    (void)state;
    check_levels(cap, lat, 3, 0.02, 4, 1024, 256.0 * 1024 * 1024, 1);
    check_levels(cap, lat, 3, 0.0, 4, 1024, 256.0 * 1024 * 1024, 2);
}

/* A CPU-like hierarchy with sizes that are not powers of two (48 KiB L1d,
 * 2 MiB L2, 30 MiB L3) and smaller ratios between levels, 3% noise. */
static void test_cpu_like(void **state)
{
    static const double cap[] = {48.0 * 1024, 2.0 * 1024 * 1024, 30.0 * 1024 * 1024};
    static const double lat[] = {5, 15, 45, 200};

    (void)state;
    for (uint64_t seed = 3; seed < 6; seed++)
        check_levels(cap, lat, 4, 0.03, 4, 1024, 256.0 * 1024 * 1024, seed);
}

/* A sweep that stops inside the second level: two levels, the last without a
 * capacity. */
static void test_sweep_ends_in_a_cache(void **state)
{
    static const double cap[] = {32.0 * 1024};
    static const double lat[] = {4, 12};

    (void)state;
    check_levels(cap, lat, 2, 0.02, 4, 1024, 4.0 * 1024 * 1024, 9);
}

/* A sharp step (LRU-like thrashing: every access misses past the capacity):
 * the capacity still lies between the last point of the plateau and the first
 * point of the next one. */
static void test_sharp_step(void **state)
{
    double x[MAXN] = {0}, y[MAXN] = {0};
    struct gc_cache_fit f;
    int n = sweep(1024, 64.0 * 1024 * 1024, 4, x);

    (void)state;
    for (int i = 0; i < n; i++)
        y[i] = x[i] <= 64 * 1024 ? 30 : x[i] <= 8.0 * 1024 * 1024 ? 200 : 500;
    assert_int_equal(gc__cache_detect(x, y, n, &f), 0);
    assert_int_equal(f.nlevels, 3);
    assert_true(f.level[0].capacity >= 64 * 1024 * 0.99 &&
                f.level[0].capacity <= 64 * 1024 * 1.19 * 1.01);
    assert_true(f.level[1].capacity >= 8.0 * 1024 * 1024 * 0.99 &&
                f.level[1].capacity <= 8.0 * 1024 * 1024 * 1.19 * 1.01);
    assert_true(fabs(f.level[0].latency - 30) < 1.5);
    assert_true(fabs(f.level[2].latency - 500) < 25);
}

/* A single outlier in a plateau neither splits the level nor makes one. */
static void test_outlier(void **state)
{
    static const double cap[] = {128.0 * 1024};
    static const double lat[] = {20, 300};
    double x[MAXN] = {0}, y[MAXN] = {0};
    struct gc_cache_fit f;
    int n = sweep(1024, 64.0 * 1024 * 1024, 4, x);

    (void)state;
    for (int i = 0; i < n; i++)
        y[i] = staircase(cap, lat, 2, x[i]);
    y[10] *= 2.5; /* 5.6 KiB: inside the first plateau */
    assert_int_equal(gc__cache_detect(x, y, n, &f), 0);
    assert_int_equal(f.nlevels, 2);
    assert_true(fabs(f.level[0].capacity / cap[0] - 1) < 0.10);
    assert_true(fabs(f.level[0].latency - 20) < 1);
}

/* Flat curves are one level; a ramp without plateaus is none; bad input is
 * refused. */
static void test_degenerate(void **state)
{
    double x[MAXN] = {0}, y[MAXN] = {0};
    struct gc_cache_fit f;
    int n = sweep(1024, 1024.0 * 1024, 4, x);

    (void)state;
    for (int i = 0; i < n; i++)
        y[i] = 42;
    assert_int_equal(gc__cache_detect(x, y, n, &f), 0);
    assert_int_equal(f.nlevels, 1);
    assert_true(fabs(f.level[0].latency - 42) < 1e-9);
    assert_true(isnan(f.level[0].capacity));
    assert_true(fabs(gc__cache_model(&f, 5000) - 42) < 1e-9);

    /* Each point 30% above the one before: no two points form a plateau. */
    for (int i = 0; i < n; i++)
        y[i] = 10 * pow(1.3, i);
    assert_int_equal(gc__cache_detect(x, y, n, &f), 0);
    assert_int_equal(f.nlevels, 0);
    assert_true(isnan(gc__cache_model(&f, 5000)));

    /* A falling curve is one level (nothing is slower than what fits). */
    for (int i = 0; i < n; i++)
        y[i] = 100 - i;
    assert_int_equal(gc__cache_detect(x, y, n, &f), 0);
    assert_true(f.nlevels <= 1);

    /* One point and two points. */
    assert_int_equal(gc__cache_detect(x, y, 1, &f), 0);
    assert_true(f.nlevels <= 1);
    assert_int_equal(gc__cache_detect(x, y, 2, &f), 0);
    assert_true(f.nlevels <= 1);

    y[3] = NAN;
    assert_int_equal(gc__cache_detect(x, y, n, &f), GC_EINVAL);
    y[3] = -1;
    assert_int_equal(gc__cache_detect(x, y, n, &f), GC_EINVAL);
    y[3] = 50;
    x[5] = x[4]; /* not strictly increasing */
    assert_int_equal(gc__cache_detect(x, y, n, &f), GC_EINVAL);
    assert_int_equal(gc__cache_detect(NULL, y, n, &f), GC_EINVAL);
    assert_int_equal(gc__cache_detect(x, y, 0, &f), GC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_like),
        cmocka_unit_test(test_cpu_like),
        cmocka_unit_test(test_sweep_ends_in_a_cache),
        cmocka_unit_test(test_sharp_step),
        cmocka_unit_test(test_outlier),
        cmocka_unit_test(test_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
