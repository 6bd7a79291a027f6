/* The occupancy-point engine (core/sweep.c): synthetic per-warp timestamps
 * of several launches, summarised by gc__occ_point as the compute sweeps and
 * the latency-hiding benchmarks summarised them with their own code before
 * (transcribed below), and on a launch set worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/random.h"
#include "core/stats.h"
#include "core/sweep.h"

#define MAXL 8
#define SMS 3
#define MAXW 6

/* One launch's records: warps per SM, all overlapping (the occupancy each SM
 * attains is its warp count) unless `late` moves the last warp of SM 0 after
 * the others (one fewer resident at once). short_t leaves the timer span
 * under the 20 us the clock needs. */
static void make_launch(uint64_t *st, int warps, bool late, bool short_t, unsigned long long *ts,
                        unsigned *nw)
{
    unsigned n = 0;

    for (int sm = 0; sm < SMS; sm++) {
        unsigned long long base = 1000 + gc__xorshift64s(st) % 5000;
        for (int w = 0; w < warps; w++) {
            unsigned long long c0 = base + gc__xorshift64s(st) % 50;
            unsigned long long len = 40000 + gc__xorshift64s(st) % 20000;
            if (late && sm == 0 && w == warps - 1)
                c0 = base + 200000; /* after every other warp of the SM ended */
            unsigned long long t0 = 5000000 + c0 / 2, t1 = t0 + (short_t ? 100 : len / 2);
            unsigned long long *r = ts + (size_t)n * 5;
            r[0] = (unsigned long long)sm;
            r[1] = c0;
            r[2] = c0 + len;
            r[3] = t0;
            r[4] = t1;
            n++;
        }
    }
    *nw = n;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double med(double *v, int n)
{
    if (n < 1)
        return NAN;
    qsort(v, (size_t)n, sizeof(*v), cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static bool same(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

/* The compute sweep's former summary (gc__measure_warps). */
static void old_core(const struct gc_warp_times *wt, int n, struct gc_stats *cycles, double *clock,
                     int *omin, int *omax)
{
    double cyc[MAXL], clk[MAXL];
    int nclk = 0;

    *omin = -1;
    *omax = 0;
    for (int i = 0; i < n; i++) {
        cyc[i] = wt[i].span_cycles;
        if (!isnan(wt[i].clock_mhz))
            clk[nclk++] = wt[i].clock_mhz;
        if (*omin < 0 || wt[i].occ_max_min < *omin)
            *omin = wt[i].occ_max_min;
        if (wt[i].occ_max_max > *omax)
            *omax = wt[i].occ_max_max;
    }
    gc__stats_compute(cyc, n, cycles);
    *clock = med(clk, nclk);
}

/* The latency-hiding benchmarks' former summary (gc__hid_measure). */
struct old_hid {
    int launches, kept, occ_min, occ_max;
    double cycles, warp_cycles, clock;
    struct gc_stats thru;
};

static void old_hiding(const struct gc_warp_times *wt, int n, int warps, double work,
                       struct old_hid *o)
{
    double spans[MAXL], wlat[MAXL], clks[MAXL], all_spans[MAXL], all_wlat[MAXL];
    int nk = 0, na = 0, nclk = 0;

    memset(o, 0, sizeof(*o));
    o->occ_min = o->occ_max = -1;
    for (int i = 0; i < n; i++) {
        bool kept = wt[i].occ_max_min == warps && wt[i].occ_max_max == warps;
        o->launches++;
        if (o->occ_min < 0 || wt[i].occ_max_min < o->occ_min)
            o->occ_min = wt[i].occ_max_min;
        o->occ_max = wt[i].occ_max_max > o->occ_max ? wt[i].occ_max_max : o->occ_max;
        all_spans[na] = wt[i].span_max_cycles;
        all_wlat[na++] = wt[i].warp_cycles;
        if (isfinite(wt[i].clock_mhz))
            clks[nclk++] = wt[i].clock_mhz;
        if (!kept)
            continue;
        spans[nk] = wt[i].span_max_cycles;
        wlat[nk++] = wt[i].warp_cycles;
    }
    o->kept = nk;
    if (nk == 0) {
        memcpy(spans, all_spans, (size_t)na * sizeof(double));
        memcpy(wlat, all_wlat, (size_t)na * sizeof(double));
        nk = na;
    }
    gc__stats_inverse(spans, nk, work, &o->thru);
    o->cycles = med(spans, nk);
    o->warp_cycles = med(wlat, nk);
    o->clock = med(clks, nclk);
}

static bool same_stats(const struct gc_stats *a, const struct gc_stats *b)
{
    return a->n == b->n && same(a->median, b->median) && same(a->min, b->min) &&
           same(a->max, b->max) && same(a->mean, b->mean);
}

/* Random launch sets: all kept, none kept, mixed; with and without clocks. */
static void test_against_former_paths(void **state)
{
    (void)state;
    uint64_t st = 0x0CC9017ULL;
    unsigned long long ts[SMS * MAXW * 5];

    for (int trial = 0; trial < 200; trial++) {
        int warps = 1 + (int)(gc__xorshift64s(&st) % MAXW),
            n = 1 + (int)(gc__xorshift64s(&st) % MAXL);
        struct gc_warp_times wt[MAXL];
        struct gc_occ_point pt;
        double work = 1e6 * (1 + trial);

        assert_int_equal(gc__occ_point_init(&pt, warps, n), 0);
        for (int i = 0; i < n; i++) {
            unsigned nw;
            bool late = warps > 1 && gc__xorshift64s(&st) % 3 == 0;
            make_launch(&st, warps, late, gc__xorshift64s(&st) % 4 == 0, ts, &nw);
            assert_int_equal(gc__warp_times(ts, nw, &wt[i]), 0);
            assert_true(gc__occ_point_add(&pt, &wt[i]) == !late);
        }

        /* The compute sweep's figures. */
        struct gc_stats c_old, c_new;
        double clk_old, v[MAXL];
        int omin, omax;
        old_core(wt, n, &c_old, &clk_old, &omin, &omax);
        int nv = gc__occ_point_values(&pt, GC_OCC_SPAN, false, v);
        gc__stats_compute(v, nv, &c_new);
        assert_true(same_stats(&c_old, &c_new));
        assert_true(same(clk_old, gc__occ_point_clock(&pt)));
        assert_int_equal(omin, pt.occ_min);
        assert_int_equal(omax, pt.occ_max);

        /* The latency-hiding figures. */
        struct old_hid o;
        double spans[MAXL], wlat[MAXL];
        struct gc_stats thru;
        old_hiding(wt, n, warps, work, &o);
        int nk = gc__occ_point_values(&pt, GC_OCC_SPAN_MAX, true, spans);
        assert_int_equal(gc__occ_point_values(&pt, GC_OCC_WARP_CYCLES, true, wlat), nk);
        gc__stats_inverse(spans, nk, work, &thru);
        assert_int_equal(o.launches, pt.n);
        assert_int_equal(o.kept, pt.kept);
        assert_int_equal(o.occ_min, pt.occ_min);
        assert_int_equal(o.occ_max, pt.occ_max);
        assert_true(same_stats(&o.thru, &thru));
        assert_true(same(o.cycles, med(spans, nk)));
        assert_true(same(o.warp_cycles, med(wlat, nk)));
        assert_true(same(o.clock, gc__occ_point_clock(&pt)));
        gc__occ_point_free(&pt);
    }
}

/* A worked case: two launches at 2 warps per CU, one of which left a warp of
 * SM 0 alone (attained 1 there): only the other is kept. */
static void test_worked(void **state)
{
    (void)state;
    /* sm, c0, c1, t0, t1: SM 0 spans 100 cycles, SM 1 200 cycles. */
    unsigned long long a[4 * 5] = {
        0, 0, 100, 1000000, 1050000, 0, 0,  100, 1000000, 1050000,
        1, 0, 200, 1000000, 1100000, 1, 50, 150, 1000000, 1050000,
    };
    /* The same, but SM 0's second warp starts when its first has ended. */
    unsigned long long b[4 * 5] = {
        0, 0, 100, 1000000, 1050000, 0, 100, 300, 1050000, 1150000,
        1, 0, 200, 1000000, 1100000, 1, 50,  150, 1000000, 1050000,
    };
    struct gc_warp_times wa, wb;
    struct gc_occ_point pt;
    double v[4];

    assert_int_equal(gc__warp_times(a, 4, &wa), 0);
    assert_int_equal(gc__warp_times(b, 4, &wb), 0);
    assert_int_equal(gc__occ_point_init(&pt, 2, 4), 0);
    assert_true(gc__occ_point_add(&pt, &wa));
    assert_false(gc__occ_point_add(&pt, &wb));
    assert_int_equal(pt.n, 2);
    assert_int_equal(pt.kept, 1);
    assert_int_equal(pt.occ_min, 1);
    assert_int_equal(pt.occ_max, 2);
    /* Kept only: launch a's slowest SM (200 cycles); all: a and b (300). */
    assert_int_equal(gc__occ_point_values(&pt, GC_OCC_SPAN_MAX, true, v), 1);
    assert_true(v[0] == 200);
    assert_int_equal(gc__occ_point_values(&pt, GC_OCC_SPAN_MAX, false, v), 2);
    assert_true(v[0] == 200 && v[1] == 300);
    /* Median span over SMs: a (100, 200) -> 150. */
    assert_int_equal(gc__occ_point_values(&pt, GC_OCC_SPAN, true, v), 1);
    assert_true(v[0] == 150);
    assert_int_equal(gc__occ_point_values(&pt, GC_OCC_WARP_CYCLES, true, v), 1);
    assert_true(fabs(v[0] - (100 + 100 + 200 + 100) / 4.0) < 1e-12);
    /* Clock: 200 cycles in 100 us on SM 1 -> 2 MHz, SM 0: 100 cycles in
     * 50 us -> 2 MHz; b's SM 0: 300 cycles in 150 us -> 2 MHz. */
    assert_true(fabs(gc__occ_point_clock(&pt) - 2.0) < 1e-12);
    gc__occ_point_free(&pt);

    /* Nothing kept at 3 warps: every launch counts, as excluded. */
    assert_int_equal(gc__occ_point_init(&pt, 3, 4), 0);
    assert_false(gc__occ_point_add(&pt, &wa));
    assert_int_equal(gc__occ_point_values(&pt, GC_OCC_SPAN_MAX, true, v), 1);
    gc__occ_point_free(&pt);

    /* No launch: no clock, no occupancy. */
    assert_int_equal(gc__occ_point_init(&pt, 2, 1), 0);
    assert_true(isnan(gc__occ_point_clock(&pt)));
    assert_int_equal(pt.occ_min, -1);
    assert_int_equal(gc__occ_point_values(&pt, GC_OCC_SPAN, false, v), 0);
    gc__occ_point_free(&pt);
}

static bool same_times(const struct gc_warp_times *a, const struct gc_warp_times *b)
{
    return a->sms == b->sms && a->warps == b->warps && a->occ_max_min == b->occ_max_min &&
           a->occ_max_max == b->occ_max_max && same(a->span_cycles, b->span_cycles) &&
           same(a->span_max_cycles, b->span_max_cycles) && same(a->clock_mhz, b->clock_mhz) &&
           fabs(a->warp_cycles - b->warp_cycles) <= 1e-9 * fabs(a->warp_cycles) &&
           fabs(a->occ_mean - b->occ_mean) <= 1e-9 * fabs(a->occ_mean);
}

/* The records' order does not matter (a launch's warps record in any
 * order), unrecorded warps (zero timer) are skipped, and SM ids beyond any
 * device's (the grouping's table) give the same figures as small ones. */
static void test_record_order(void **state)
{
    (void)state;
    uint64_t st = 0x5EC0DULL;
    unsigned long long ts[SMS * MAXW * 5], sh[SMS * MAXW * 5 + 5], big[SMS * MAXW * 5];

    for (int trial = 0; trial < 100; trial++) {
        unsigned nw;
        struct gc_warp_times a, b, c;

        make_launch(&st, 1 + (int)(gc__xorshift64s(&st) % MAXW), false, false, ts, &nw);
        memcpy(sh, ts, sizeof(unsigned long long) * 5 * nw);
        for (unsigned i = nw - 1; i > 0; i--) { /* Fisher-Yates over records */
            unsigned j = (unsigned)(gc__xorshift64s(&st) % (i + 1));
            unsigned long long t[5];
            memcpy(t, sh + 5 * i, sizeof(t));
            memcpy(sh + 5 * i, sh + 5 * j, sizeof(t));
            memcpy(sh + 5 * j, t, sizeof(t));
        }
        memset(sh + 5 * nw, 0, 5 * sizeof(unsigned long long)); /* a warp that never ran */
        memcpy(big, ts, sizeof(unsigned long long) * 5 * nw);
        for (unsigned i = 0; i < nw; i++)
            big[5 * i] = big[5 * i] * 100000 + 7;
        assert_int_equal(gc__warp_times(ts, nw, &a), 0);
        assert_int_equal(gc__warp_times(sh, nw + 1, &b), 0);
        assert_int_equal(gc__warp_times(big, nw, &c), 0);
        assert_int_equal(a.warps, (int)nw);
        /* The peaks by brute force: at each warp's start, the warps of its
         * SM resident then (started at or before, ending after). */
        int pmin = -1, pmax = 0;
        for (int sm = 0; sm < SMS; sm++) {
            int peak = 0;
            for (unsigned i = 0; i < nw; i++) {
                int cur = 0;
                if ((int)ts[5 * i] != sm)
                    continue;
                for (unsigned k = 0; k < nw; k++)
                    cur += (int)ts[5 * k] == sm && ts[5 * k + 1] <= ts[5 * i + 1] &&
                           ts[5 * k + 2] > ts[5 * i + 1];
                peak = cur > peak ? cur : peak;
            }
            pmin = pmin < 0 || peak < pmin ? peak : pmin;
            pmax = peak > pmax ? peak : pmax;
        }
        assert_int_equal(a.occ_max_min, pmin);
        assert_int_equal(a.occ_max_max, pmax);
        assert_true(same_times(&a, &b));
        assert_true(same_times(&a, &c));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_former_paths),
        cmocka_unit_test(test_worked),
        cmocka_unit_test(test_record_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
