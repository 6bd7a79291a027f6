/* The kernel-sweep runner (core/ksweep.h) on synthetic point functions: the
 * geometric grid, the planned sweep coarse to fine, the refinement at a
 * step, a stop, a failing point, the series written from a description,
 * and the short/long launch difference. No device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/ksweep.h"
#include "model/cache.h"

#define STEP 65536.0 /* where the synthetic staircase steps */
#define MAXP 64

/* A staircase with one step: 10 below STEP, 100 from it on; records every
 * x it was asked for and the index it was given. */
struct synth {
    size_t xs[4 * MAXP];
    int is[4 * MAXP];
    int n;
    int fail_at;                 /* call number that fails (-1 never) */
    int stop_at;                 /* call number after which the session stops */
    volatile sig_atomic_t *stop; /* the session's stop flag */
};

static int synth_point(void *u, size_t x, int i, struct gc_ksweep_pt *p)
{
    struct synth *sy = u;
    double y = (double)x < STEP ? 10.0 : 100.0;

    if (sy->n == sy->fail_at)
        return GC_EVERIFY;
    sy->xs[sy->n] = x;
    sy->is[sy->n] = i;
    sy->n++;
    if (sy->n == sy->stop_at)
        *sy->stop = 1;
    p->x = (double)x;
    p->y[0] = y;
    p->y[1] = 2 * y;
    p->st[0].n = 1;
    p->st[0].median = y;
    p->mhz = 1000;
    p->label = (double)x >= STEP ? "above" : NULL;
    return 0;
}

static struct gc_ksweep_desc synth_desc(struct synth *sy, const size_t *grid, int n, int stride)
{
    return (struct gc_ksweep_desc){
        .grid = grid,
        .ngrid = n,
        .max_points = MAXP,
        .coarse = gc__coarse_plan,
        .stride = stride,
        .min_coarse = 4,
        .fill = gc__coarse_fill_next,
        .fill_jump = 0.08,
        .refine = gc__cache_refine_next,
        .budget = 8,
        .refine_jump = 0.05,
        .refine_width = 0.03,
        .granule = 128,
        .steer = 0,
        .point = synth_point,
        .u = sy,
        .series = {{"cyc", "footprint", "B", "latency", "cycles/load"},
                   {"ns", "footprint", "B", "latency", "ns/load"}},
    };
}

static void test_grid(void **state)
{
    size_t g[MAXP];
    int n;

    (void)state;
    /* One point per octave from 1 KiB to 1 MiB: the powers of two. */
    n = gc__ksweep_grid(1024, 1 << 20, 1, 128, g, MAXP);
    assert_int_equal(n, 11);
    for (int i = 0; i < n; i++)
        assert_int_equal(g[i], (size_t)1024 << i);
    /* Four per octave, odd ends: ascending, distinct multiples of the
     * granule, at least two granules, no gap wider than the step allows
     * once the granule no longer rounds (above 16 granules), the last the
     * top rounded down. */
    n = gc__ksweep_grid(100, 1000000, 4, 128, g, MAXP);
    assert_true(n > 4 * 9 && n <= 4 * 14 + 1);
    for (int i = 0; i < n; i++) {
        assert_int_equal(g[i] % 128, 0);
        assert_true(g[i] >= 256);
        if (i)
            assert_true(g[i] > g[i - 1]);
        if (i && g[i - 1] >= 16 * 128)
            assert_true((double)g[i] <= (double)g[i - 1] * pow(2.0, 0.25) * 1.07);
    }
    assert_int_equal(g[n - 1], 1000000 / 128 * 128);
    /* The cap holds; a top below the bottom gives the bottom. */
    assert_int_equal(gc__ksweep_grid(1024, 1 << 30, 8, 128, g, 5), 5);
    n = gc__ksweep_grid(4096, 1024, 4, 128, g, MAXP);
    assert_int_equal(n, 1);
    assert_int_equal(g[0], 4096);
}

/* Every point in x order, planned ones first measured with their grid
 * index, added ones with indices from ngrid on. */
static void check_curve(const struct gc_ksweep_curve *cv, const struct synth *sy,
                        const size_t *grid, int n)
{
    int planned = 0;

    for (int i = 1; i < cv->n; i++)
        assert_true(cv->pt[i].x > cv->pt[i - 1].x);
    for (int i = 0; i < cv->n; i++)
        planned += cv->pt[i].planned;
    assert_int_equal(planned, cv->planned);
    for (int k = 0; k < sy->n; k++) {
        if (k < cv->planned) {
            assert_true(sy->is[k] >= 0 && sy->is[k] < n);
            assert_int_equal(sy->xs[k], grid[sy->is[k]]);
        } else {
            assert_int_equal(sy->is[k], n + (k - cv->planned));
        }
    }
}

static void test_run_coarse_fill_refine(void **state)
{
    volatile sig_atomic_t stop = 0;
    struct gc_session s = {.stop = &stop};
    struct synth sy = {.fail_at = -1, .stop_at = -1, .stop = &stop};
    struct gc_ksweep_curve cv;
    size_t grid[MAXP];
    int n = gc__ksweep_grid(1024, 1 << 20, 4, 128, grid, MAXP);

    (void)state;
    struct gc_ksweep_desc d = synth_desc(&sy, grid, n, 2);
    assert_int_equal(gc__ksweep_curve_init(&cv, d.max_points), 0);
    assert_int_equal(gc__ksweep_run(&s, &d, &cv), 0);
    assert_true(cv.complete);
    /* Coarse to fine: flat stretches keep every second point only, so
     * fewer than the grid were planned, and the step's neighbours on the
     * grid were both measured. */
    assert_true(cv.planned < n);
    int below = -1, above = -1;
    for (int g = 0; g < n; g++) {
        if ((double)grid[g] < STEP)
            below = g;
        else if (above < 0)
            above = g;
    }
    bool saw_below = false, saw_above = false;
    for (int i = 0; i < cv.n; i++) {
        saw_below = saw_below || (cv.pt[i].planned && cv.pt[i].x == (double)grid[below]);
        saw_above = saw_above || (cv.pt[i].planned && cv.pt[i].x == (double)grid[above]);
    }
    assert_true(saw_below && saw_above);
    /* The refinement added points, all inside the step's grid interval,
     * multiples of the granule. */
    assert_true(cv.n > cv.planned);
    for (int i = 0; i < cv.n; i++) {
        if (cv.pt[i].planned)
            continue;
        assert_true(cv.pt[i].x > (double)grid[below] && cv.pt[i].x < (double)grid[above]);
        assert_int_equal((size_t)cv.pt[i].x % 128, 0);
    }
    check_curve(&cv, &sy, grid, n);
    gc__ksweep_curve_free(&cv);
}

static void test_every_point_without_placement(void **state)
{
    volatile sig_atomic_t stop = 0;
    struct gc_session s = {.stop = &stop};
    struct synth sy = {.fail_at = -1, .stop_at = -1, .stop = &stop};
    struct gc_ksweep_curve cv;
    size_t grid[MAXP];
    int n = gc__ksweep_grid(1024, 1 << 20, 2, 128, grid, MAXP);

    (void)state;
    struct gc_ksweep_desc d = synth_desc(&sy, grid, n, 2);
    d.coarse = NULL;
    d.fill = NULL;
    d.refine = NULL;
    assert_int_equal(gc__ksweep_curve_init(&cv, d.max_points), 0);
    assert_int_equal(gc__ksweep_run(&s, &d, &cv), 0);
    assert_int_equal(cv.n, n);
    assert_int_equal(cv.planned, n);
    assert_int_equal(sy.n, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(sy.is[i], i);
    check_curve(&cv, &sy, grid, n);
    gc__ksweep_curve_free(&cv);
}

static void test_stop_and_failure(void **state)
{
    volatile sig_atomic_t stop = 0;
    struct gc_session s = {.stop = &stop};
    struct synth sy = {.fail_at = -1, .stop_at = 3, .stop = &stop};
    struct gc_ksweep_curve cv;
    size_t grid[MAXP];
    int n = gc__ksweep_grid(1024, 1 << 20, 4, 128, grid, MAXP);

    (void)state;
    struct gc_ksweep_desc d = synth_desc(&sy, grid, n, 1);
    assert_int_equal(gc__ksweep_curve_init(&cv, d.max_points), 0);
    assert_int_equal(gc__ksweep_run(&s, &d, &cv), 0);
    assert_int_equal(sy.n, 3);
    assert_int_equal(cv.n, 3);
    assert_false(cv.complete);
    gc__ksweep_curve_free(&cv);

    /* A failing point ends the sweep with its code. */
    stop = 0;
    memset(&sy, 0, sizeof(sy));
    sy.fail_at = 2;
    sy.stop_at = -1;
    sy.stop = &stop;
    assert_int_equal(gc__ksweep_curve_init(&cv, d.max_points), 0);
    assert_int_equal(gc__ksweep_run(&s, &d, &cv), GC_EVERIFY);
    assert_int_equal(cv.n, 2);
    gc__ksweep_curve_free(&cv);
}

static void test_series(void **state)
{
    struct gc_results *res = gc__results_new();
    struct gc_bench_result *r;
    struct gc_ksweep_curve cv;
    struct synth sy = {0};
    struct gc_ksweep_desc d = synth_desc(&sy, NULL, 0, 1);
    double *xs = NULL;
    bool *planned = NULL;

    (void)state;
    assert_non_null(res);
    r = gc__results_add_bench(res, "x.y", "x");
    assert_non_null(r);
    assert_int_equal(gc__ksweep_curve_init(&cv, 4), 0);
    for (int i = 0; i < 3; i++) {
        cv.pt[i].x = 1000.0 * (i + 1);
        cv.pt[i].y[0] = 5.0 + i;
        cv.pt[i].y[1] = i == 1 ? NAN : 50.0 + i;
        cv.pt[i].planned = i != 2;
        cv.pt[i].label = i == 0 ? "bound" : NULL;
    }
    cv.n = 3;
    d.series[1].name = "ns_named";
    assert_int_equal(gc__ksweep_series(r, &d, &cv, &xs, &planned), 0);
    const struct gc_series *a = gc__bench_find_series(r, "cyc");
    const struct gc_series *b = gc__bench_find_series(r, "ns_named");
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a->y_unit, "cycles/load");
    assert_string_equal(b->x_name, "footprint");
    /* Only finite values become points. */
    assert_int_equal(a->npoints, 3);
    assert_int_equal(b->npoints, 2);
    /* The arrays: x, then each value, n apiece; and which were planned. */
    for (int i = 0; i < 3; i++) {
        assert_true(xs[i] == cv.pt[i].x);
        assert_true(xs[3 + i] == cv.pt[i].y[0]);
        assert_int_equal(planned[i], cv.pt[i].planned);
    }
    assert_true(isnan(xs[6 + 1]));
    free(xs);
    free(planned);
    gc__ksweep_curve_free(&cv);
    gc_results_free(res);
}

/* t_k = o + (w + kL) t for k = 1, 2: the difference recovers t exactly
 * where the overhead o is small and positive; a negative or a large
 * overhead leaves the tighter kernel bound, labelled. */
static void test_diff(void **state)
{
    const double t = 2e-9, w = 1000, L = 4000;
    double t1[3], t2[3], best;
    struct gc_stats st;
    const char *how;

    (void)state;
    for (int i = 0; i < 3; i++) {
        double o = 1e-7 * (3 - i); /* unsorted on purpose */
        t1[i] = o + (w + L) * t;
        t2[i] = o + (w + 2 * L) * t;
    }
    assert_int_equal(gc__ksweep_diff(t1, 3, t2, 3, w, L, 0.10, 1e9, &st, &best, &how), 0);
    assert_null(how);
    assert_true(fabs(best - t * 1e9) < 1e-9);
    assert_int_equal(st.n, 3);
    /* Sorted in place, pair by pair. */
    assert_true(t1[0] <= t1[1] && t1[1] <= t1[2]);

    /* The long kernel ran slow: the overhead the difference implies is
     * negative; the short kernel's bound stands. */
    t1[0] = (w + L) * t;
    t2[0] = (w + 2 * L) * t * 1.5;
    assert_int_equal(gc__ksweep_diff(t1, 1, t2, 1, w, L, 0.10, 1, &st, &best, &how), 0);
    assert_non_null(how);
    assert_non_null(strstr(how, "short"));
    assert_true(best == t1[0] / (w + L));

    /* The short kernel ran slow: a large overhead; the long kernel's bound. */
    t1[0] = (w + L) * t * 1.5;
    t2[0] = (w + 2 * L) * t;
    assert_int_equal(gc__ksweep_diff(t1, 1, t2, 1, w, L, 0.10, 1, &st, &best, &how), 0);
    assert_non_null(how);
    assert_non_null(strstr(how, "long"));
    assert_true(best == t2[0] / (w + 2 * L));

    /* Fewer pairs than samples of one kernel: the shorter count. */
    assert_int_equal(gc__ksweep_diff(t1, 1, t2, 0, w, L, 0.10, 1, &st, &best, &how), 0);
    assert_int_equal(st.n, 0);
    assert_true(isnan(best));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_run_coarse_fill_refine),
        cmocka_unit_test(test_every_point_without_placement),
        cmocka_unit_test(test_stop_and_failure),
        cmocka_unit_test(test_series),
        cmocka_unit_test(test_diff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
