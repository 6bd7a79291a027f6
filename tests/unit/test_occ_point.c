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

/* ---- gc__warp_times against a straightforward reference ------------------ */

/* The analysis as it was first written: the valid records sorted by (SM,
 * record index), each SM's starts and ends sorted and swept in time order
 * (an end before a start at the same cycle), medians by sorting. */
struct ref_rec {
    unsigned sm, i;
    unsigned long long c0, c1, t0, t1;
};

static int cmp_ref_rec(const void *a, const void *b)
{
    const struct ref_rec *x = a, *y = b;

    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int cmp_u64(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

    return (x > y) - (x < y);
}

static int ref_sweep(const unsigned long long *st, const unsigned long long *en, unsigned n,
                     double *area)
{
    unsigned i = 0, j = 0;
    int cur = 0, peak = 0;
    unsigned long long prev = 0;

    *area = 0;
    while (i < n || j < n) {
        bool start = i < n && (j == n || st[i] < en[j]);
        unsigned long long t = start ? st[i] : en[j];
        if (i + j > 0)
            *area += (double)cur * (double)(t - prev);
        prev = t;
        cur += start ? 1 : -1;
        i += start;
        j += !start;
        peak = cur > peak ? cur : peak;
    }
    return peak;
}

#define REF_MAX 256

static int ref_warp_times(const unsigned long long *ts, unsigned nw, struct gc_warp_times *o)
{
    static struct ref_rec r[REF_MAX];
    unsigned long long st[REF_MAX], en[REF_MAX];
    double spans[REF_MAX], rates[REF_MAX], wsum = 0, occ = 0;
    unsigned n = 0;
    int nsm = 0, nr = 0;

    memset(o, 0, sizeof(*o));
    o->clock_mhz = o->span_cycles = o->span_max_cycles = o->warp_cycles = o->occ_mean = NAN;
    for (unsigned i = 0; i < nw; i++) {
        const unsigned long long *w = ts + 5 * i;
        if (w[3] != 0 && w[2] >= w[1] && w[4] >= w[3])
            r[n++] = (struct ref_rec){(unsigned)w[0], i, w[1], w[2], w[3], w[4]};
    }
    if (n == 0)
        return GC_EVERIFY;
    qsort(r, n, sizeof(*r), cmp_ref_rec);
    o->occ_max_min = -1;
    for (unsigned i = 0, j; i < n; i = j) {
        unsigned long long t0 = ~0ULL, t1 = 0;
        double area;
        for (j = i; j < n && r[j].sm == r[i].sm; j++) {
            wsum += (double)(r[j].c1 - r[j].c0);
            st[j - i] = r[j].c0;
            en[j - i] = r[j].c1;
            t0 = r[j].t0 < t0 ? r[j].t0 : t0;
            t1 = r[j].t1 > t1 ? r[j].t1 : t1;
        }
        qsort(st, j - i, sizeof(*st), cmp_u64);
        qsort(en, j - i, sizeof(*en), cmp_u64);
        int peak = ref_sweep(st, en, j - i, &area);
        unsigned long long c0 = st[0], c1 = en[j - i - 1];
        spans[nsm++] = (double)(c1 - c0);
        if (c1 > c0)
            occ += area / (double)(c1 - c0);
        o->occ_max_min = o->occ_max_min < 0 || peak < o->occ_max_min ? peak : o->occ_max_min;
        o->occ_max_max = peak > o->occ_max_max ? peak : o->occ_max_max;
        if (t1 > t0 && t1 - t0 >= 20000)
            rates[nr++] = (double)(c1 - c0) / (double)(t1 - t0) * 1e3;
    }
    o->sms = nsm;
    o->warps = (int)n;
    o->warp_cycles = wsum / n;
    o->occ_mean = occ / nsm;
    o->span_max_cycles = spans[0];
    for (int i = 1; i < nsm; i++)
        o->span_max_cycles = spans[i] > o->span_max_cycles ? spans[i] : o->span_max_cycles;
    o->span_cycles = med(spans, nsm);
    o->clock_mhz = med(rates, nr);
    return 0;
}

static bool identical_times(const struct gc_warp_times *a, const struct gc_warp_times *b)
{
    return a->sms == b->sms && a->warps == b->warps && a->occ_max_min == b->occ_max_min &&
           a->occ_max_max == b->occ_max_max && same(a->span_cycles, b->span_cycles) &&
           same(a->span_max_cycles, b->span_max_cycles) && same(a->clock_mhz, b->clock_mhz) &&
           same(a->warp_cycles, b->warp_cycles) && same(a->occ_mean, b->occ_mean);
}

/* Random launches: SM ids small, sparse and beyond any device's; times from
 * a narrow range (equal starts, equal ends, an end at another warp's start,
 * warps of no length), from a wide one, or with every warp of an SM
 * resident at once (the occupancy points' case) down to single cycles; a
 * few latencies near 2^52 cycles, where doubles no longer add them exactly;
 * records in any order and some never written or running backwards. Every
 * figure equals the reference's bit for bit. */
static void test_against_reference(void **state)
{
    (void)state;
    static const unsigned long long ids[] = {0, 1, 2, 3, 7, 131, 4095, 4096, 1ULL << 33, 99999};
    uint64_t st = 0xA11CE5ULL;
    static unsigned long long ts[REF_MAX * 5];

    for (int trial = 0; trial < 4000; trial++) {
        unsigned nsm = 1 + (unsigned)(gc__xorshift64s(&st) % 8), nw = 0;
        int kind = (int)(gc__xorshift64s(&st) % 5), idset = (int)(gc__xorshift64s(&st) % 3);
        struct gc_warp_times a, b;

        for (unsigned s = 0; s < nsm; s++) {
            unsigned long long sm = idset == 0   ? s
                                    : idset == 1 ? ids[gc__xorshift64s(&st) % 7]
                                                 : ids[gc__xorshift64s(&st) % 10];
            unsigned long long base = gc__xorshift64s(&st) % (1ULL << 40);
            unsigned w = 1 + (unsigned)(gc__xorshift64s(&st) % 24);
            for (unsigned k = 0; k < w && nw < REF_MAX; k++, nw++) {
                unsigned long long *r = ts + 5 * nw, x = gc__xorshift64s(&st);
                unsigned long long c0 = base, c1 = base;
                if (kind == 0) { /* narrow: ties of every sort */
                    c0 += x % 8;
                    c1 = c0 + (x >> 8) % 6;
                } else if (kind == 1) { /* wide */
                    c0 += x % 1000000;
                    c1 = c0 + (x >> 20) % 3000000;
                } else if (kind == 2) { /* all resident at once */
                    c0 += x % 50;
                    c1 = base + 60 + (x >> 8) % 1000;
                } else if (kind == 3) { /* all resident, in single cycles */
                    c1 = base + 1;
                } else { /* latencies near 2^52 */
                    c0 += x % 4;
                    c1 = c0 + (1ULL << 52) + (x >> 8) % 1024;
                }
                r[0] = sm;
                r[1] = c0;
                r[2] = c1;
                r[3] = 1000000 + (x >> 40) % 40000;
                r[4] = r[3] + (x >> 24) % 60000;
                switch ((x >> 56) % 16) {
                case 0:
                    r[3] = 0; /* never written */
                    break;
                case 1:
                    r[1] = r[2] + 1; /* ends before it starts */
                    break;
                case 2:
                    r[4] = r[3] - 1;
                    break;
                default:
                    break;
                }
            }
        }
        for (unsigned i = nw - 1; i > 0 && trial % 2; i--) { /* any order */
            unsigned j = (unsigned)(gc__xorshift64s(&st) % (i + 1));
            unsigned long long t[5];
            memcpy(t, ts + 5 * i, sizeof(t));
            memcpy(ts + 5 * i, ts + 5 * j, sizeof(t));
            memcpy(ts + 5 * j, t, sizeof(t));
        }
        int ra = gc__warp_times(ts, nw, &a), rb = ref_warp_times(ts, nw, &b);
        assert_int_equal(ra, rb);
        assert_true(identical_times(&a, &b));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_former_paths),
        cmocka_unit_test(test_worked),
        cmocka_unit_test(test_record_order),
        cmocka_unit_test(test_against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
