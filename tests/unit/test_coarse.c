/* Coarse-to-fine sampling of a staircase (model/cache.h) on synthetic
 * curves: the coarse pass keeps the ends, fills land only between coarse
 * neighbours whose latency climbs and resolve every climb to the grid's
 * step, flat curves get none, and the point cap holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/cache.h"
#include "util/random.h"

#define MAXN 256
#define JUMP 0.08

/* Latency of a sharp staircase at grid index g: level k from index edge[k]
 * on (edge ascending), lat[0] below the first edge. */
static double stairs(const int *edge, const double *lat, int ne, int g)
{
    double y = lat[0];

    for (int k = 0; k < ne; k++)
        if (g >= edge[k])
            y = lat[k + 1];
    return y;
}

/* Runs the coarse pass and the fills over latencies yg[0..n-1] of the grid;
 * marks what was measured in meas and returns how many points, -1 where the
 * planner asked for a point twice or outside the grid. */
static int sweep(const double *yg, int n, int stride, int cap, bool *meas)
{
    int idx[MAXN];
    double y[MAXN];
    int m = gc__coarse_plan(n, stride, idx);

    memset(meas, 0, (size_t)n * sizeof(*meas));
    for (int k = 0; k < m; k++) {
        y[k] = yg[idx[k]];
        meas[idx[k]] = true;
    }
    for (;;) {
        int g = gc__coarse_fill_next(idx, y, m, JUMP, cap);
        if (g < 0)
            break;
        if (g >= n || meas[g])
            return -1;
        int at = m;
        while (at > 0 && idx[at - 1] > g)
            at--;
        memmove(idx + at + 1, idx + at, (size_t)(m - at) * sizeof(*idx));
        memmove(y + at + 1, y + at, (size_t)(m - at) * sizeof(*y));
        idx[at] = g;
        y[at] = yg[g];
        meas[g] = true;
        m++;
    }
    return m;
}

static void test_plan(void **state)
{
    int idx[MAXN];

    (void)state;
    assert_int_equal(gc__coarse_plan(65, 2, idx), 33);
    for (int k = 0; k < 33; k++)
        assert_int_equal(idx[k], 2 * k);
    /* The last footprint of the grid is always measured. */
    assert_int_equal(gc__coarse_plan(10, 4, idx), 4);
    assert_int_equal(idx[2], 8);
    assert_int_equal(idx[3], 9);
    assert_int_equal(gc__coarse_plan(5, 0, idx), 5);
    assert_int_equal(idx[4], 4);
    assert_int_equal(gc__coarse_plan(1, 2, idx), 1);
    assert_int_equal(gc__coarse_plan(0, 2, idx), 0);
}

/* Every grid step across which the latency climbs has both its ends
 * measured (the step is resolved to the grid), and every point past the
 * coarse pass lies between coarse neighbours whose latency differs. */
static void check_stairs(int n, int stride, const int *edge, const double *lat, int ne)
{
    double yg[MAXN];
    bool meas[MAXN];
    int coarse[MAXN], nc = gc__coarse_plan(n, stride, coarse);

    for (int g = 0; g < n; g++)
        yg[g] = stairs(edge, lat, ne, g);
    int m = sweep(yg, n, stride, MAXN, meas);
    assert_true(m >= nc);
    assert_true(m < n);
    for (int g = 0; g + 1 < n; g++)
        if (yg[g + 1] > yg[g] * (1 + JUMP)) {
            assert_true(meas[g]);
            assert_true(meas[g + 1]);
        }
    for (int k = 0; k + 1 < nc; k++) {
        bool climbs = yg[coarse[k + 1]] > yg[coarse[k]] * (1 + JUMP);
        for (int g = coarse[k] + 1; g < coarse[k + 1]; g++)
            if (meas[g])
                assert_true(climbs);
    }
}

static void test_refines_only_at_steps(void **state)
{
    const int edge[] = {20, 41, 52};
    const double lat[] = {1.6, 5.2, 12.0, 130.0};
    const int edge1[] = {33};
    const double lat1[] = {4, 40};

    (void)state;
    check_stairs(65, 2, edge, lat, 3);
    check_stairs(65, 4, edge, lat, 3);
    check_stairs(65, 8, edge, lat, 3);
    check_stairs(49, 4, edge1, lat1, 1);
    /* A step right at the last footprint. */
    const int last[] = {64};
    check_stairs(65, 4, last, lat1, 1);
}

static void test_flat_gets_none(void **state)
{
    double yg[MAXN];
    bool meas[MAXN];
    uint64_t st = 7;

    (void)state;
    for (int g = 0; g < 65; g++)
        yg[g] = 1.6;
    assert_int_equal(sweep(yg, 65, 2, MAXN, meas), 33);
    /* Noise well within the jump, and one disturbed sample that the running
     * median removes: still no point past the coarse pass. */
    for (int g = 0; g < 65; g++)
        yg[g] = 1.6 * (1 + 0.03 * ((double)(gc__xorshift64s(&st) >> 11) / 9007199254740992.0));
    yg[30] = 9.0;
    assert_int_equal(sweep(yg, 65, 2, MAXN, meas), 33);
}

/* A climb that never flattens (TLB misses growing with the footprint) is
 * filled throughout, never past the cap. */
static void test_cap(void **state)
{
    double yg[MAXN];
    bool meas[MAXN];

    (void)state;
    for (int g = 0; g < 200; g++)
        yg[g] = pow(1.2, g / 4.0);
    assert_int_equal(sweep(yg, 200, 4, MAXN, meas), 200);
    for (int cap = 60; cap <= 130; cap += 35)
        assert_int_equal(sweep(yg, 200, 4, cap, meas), cap);
    /* Bad input. */
    int idx[2] = {0, 4};
    double y[2] = {1, 2};
    assert_int_equal(gc__coarse_fill_next(idx, y, 1, JUMP, MAXN), -1);
    assert_int_equal(gc__coarse_fill_next(NULL, y, 2, JUMP, MAXN), -1);
    assert_int_equal(gc__coarse_fill_next(idx, y, 2, JUMP, 2), -1);
    assert_int_equal(gc__coarse_fill_next(idx, y, 2, JUMP, 3), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan),
        cmocka_unit_test(test_refines_only_at_steps),
        cmocka_unit_test(test_flat_gets_none),
        cmocka_unit_test(test_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
