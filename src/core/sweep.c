/* Occupancy sweeps and per-warp timestamp analysis (Lemeire §III and eqs.
 * 3-5 timeOfRun; Volkov §5.5-5.7). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "core/progress.h"
#include "core/sweep.h"

int gc__sweep_warps(int max_warps, int *out, int cap)
{
    int n = 0;

    for (int w = 1; w <= max_warps && n < cap;) {
        out[n++] = w;
        w += w < 8 ? 1 : w < 16 ? 2 : w < 32 ? 4 : 8;
        if (w > max_warps && out[n - 1] != max_warps && n < cap)
            out[n++] = max_warps;
    }
    return n;
}

int gc__sweep_doublings(int max_warps, int *out, int cap)
{
    int n = 0;

    for (int w = 1; w <= max_warps && n < cap; w *= 2)
        out[n++] = w;
    if (n > 0 && n < cap && out[n - 1] != max_warps)
        out[n++] = max_warps;
    return n;
}

int gc__sweep_blocks(const struct gc_device_info *info, int simd, int warps, int *blocks,
                     int *block)
{
    int per_block_max = info->max_threads_per_block / simd, kb;

    if (warps < 1 || per_block_max < 1)
        return GC_ERANGE;
    kb = (warps + per_block_max - 1) / per_block_max;
    while (kb <= warps && warps % kb)
        kb++;
    if (kb > warps)
        return GC_ERANGE;
    *blocks = kb;
    *block = warps / kb * simd;
    return 0;
}

int gc__sweep_shape(struct gc_device *d, struct gc_kern *k, int warps, struct gc_shape *out)
{
    const struct gc_device_info *info = &d->info;
    int simd = info->simd_width > 0 ? info->simd_width : 32;
    int kb, rc;

    memset(out, 0, sizeof(*out));
    out->warps = warps;
    if ((rc = gc__sweep_blocks(info, simd, warps, &kb, &out->block)))
        return rc;
    out->blocks_per_cu = kb;
    out->grid = (unsigned)(kb * info->compute_units);
    if (info->max_threads_per_cu > 0 && warps * simd > info->max_threads_per_cu)
        return GC_ERANGE;
    if ((info->caps & GC_CAP_DYN_SHARED) && info->shared_per_cu > 0 &&
        info->max_threads_per_cu > 0) {
        if ((rc = gc__occupancy_set(d, k, out->block, kb, &out->occ)))
            return rc;
        out->enforced = true;
    }
    return 0;
}

/* SM ids below this are grouped by counting; no device has more SMs. */
#define SM_ID_MAX 4096
/* A warp's record is kept when it was written and its times run forward. */
static bool rec_valid(const unsigned long long *w)
{
    return w[3] != 0 && w[2] >= w[1] && w[4] >= w[3];
}

struct sm_idx {
    unsigned sm, i;
};

static int cmp_sm_idx(const void *a, const void *b)
{
    const struct sm_idx *x = a, *y = b;

    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* group_by_sm for SM ids beyond any device's: a comparison sort of (SM,
 * index) pairs, which gives the same order. Ids are taken as unsigned, as
 * the grouping loop compares them. */
static int group_by_sort(const unsigned long long *ts, unsigned nwarps, unsigned *ord,
                         unsigned *count)
{
    struct sm_idx *p = malloc((nwarps ? nwarps : 1) * sizeof(*p));
    unsigned n = 0;

    if (!p)
        return GC_ENOMEM;
    for (unsigned i = 0; i < nwarps; i++)
        if (rec_valid(ts + (size_t)i * 5))
            p[n++] = (struct sm_idx){(unsigned)ts[(size_t)i * 5], i};
    qsort(p, n, sizeof(*p), cmp_sm_idx);
    for (unsigned q = 0; q < n; q++)
        ord[q] = p[q].i;
    free(p);
    *count = n;
    return 0;
}

/* The valid records of ts, grouped by SM in increasing SM order and in
 * record order within an SM: ord[] gets their indices, *count how many. A
 * counting pass over the SM ids: this runs after every launch of a sweep,
 * over up to tens of thousands of warps, where a comparison sort of the
 * records cost milliseconds. */
static int group_by_sm(const unsigned long long *ts, unsigned nwarps, unsigned *ord,
                       unsigned *count)
{
    unsigned start[SM_ID_MAX + 1];
    unsigned n = 0, max_sm = 0;

    memset(start, 0, sizeof(start));
    for (unsigned i = 0; i < nwarps; i++) {
        const unsigned long long *w = ts + (size_t)i * 5;

        if (!rec_valid(w))
            continue;
        if (w[0] >= SM_ID_MAX) /* not an SM id of any device */
            return group_by_sort(ts, nwarps, ord, count);
        start[w[0] + 1]++;
        max_sm = (unsigned)w[0] > max_sm ? (unsigned)w[0] : max_sm;
    }
    for (unsigned k = 1; k <= max_sm + 1; k++)
        start[k] += start[k - 1];
    for (unsigned i = 0; i < nwarps; i++) {
        const unsigned long long *w = ts + (size_t)i * 5;

        if (!rec_valid(w))
            continue;
        ord[start[w[0]]++] = i;
        n++;
    }
    *count = n;
    return 0;
}

/* Sorts v[0..n) ascending. Insertion: a launch's warps start and end
 * nearly in the order they were placed on the SM, so this is about linear
 * (a merge sort was no faster for an SM's few dozen in any order). */
static void sort_u64(unsigned long long *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        unsigned long long x = v[i];
        unsigned j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* Resident warps over time on one SM: starts st[] and ends en[] (n each,
 * sorted) swept in time order, an end before a start at the same cycle.
 * Returns the peak; *area the integral of residency over cycles. */
static int residency(const unsigned long long *st, const unsigned long long *en, unsigned n,
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
        if (start) {
            cur++;
            i++;
            peak = cur > peak ? cur : peak;
        } else {
            cur--;
            j++;
        }
    }
    return peak;
}

/* The k-th smallest of v[0..n) (Wirth's selection): v is reordered so that
 * v[0..k) <= v[k] <= v[k+1..n). Linear, where sorting the SMs' spans and
 * clocks after every launch cost more than the rest of its analysis. */
static double select_kth(double *v, int n, int k)
{
    int lo = 0, hi = n - 1;

    while (lo < hi) {
        double x = v[k];
        int i = lo, j = hi;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        } while (i <= j);
        if (j < k)
            lo = i;
        if (k < i)
            hi = j;
    }
    return v[k];
}

/* The median of v[0..n) (reordered); NAN when n is 0. */
static double median_of(double *v, int n)
{
    double hi, lo;

    if (n == 0)
        return NAN;
    hi = select_kth(v, n, n / 2);
    if (n % 2)
        return hi;
    lo = v[0];
    for (int i = 1; i < n / 2; i++)
        lo = v[i] > lo ? v[i] : lo;
    return 0.5 * (lo + hi);
}

/* What gc__warp_times adds up over the SMs, in increasing SM order; spans
 * and rates have room for every SM. */
struct wt_sum {
    int nsm, nrates;
    double wsum, occ_sum;
    double *spans, *rates;
};

/* One SM's figures into a and out: its first start c0 and last end c1,
 * first and last timer t0 and t1, peak and residency integral. */
static void add_sm(struct wt_sum *a, struct gc_warp_times *out, unsigned long long c0,
                   unsigned long long c1, unsigned long long t0, unsigned long long t1, int peak,
                   double area)
{
    a->spans[a->nsm++] = (double)(c1 - c0);
    if (c1 > c0)
        a->occ_sum += area / (double)(c1 - c0);
    if (out->occ_max_min < 0 || peak < out->occ_max_min)
        out->occ_max_min = peak;
    out->occ_max_max = peak > out->occ_max_max ? peak : out->occ_max_max;
    /* Spans under 20 us are dominated by the timer's granularity. */
    if (t1 > t0 && t1 - t0 >= 20000)
        a->rates[a->nrates++] = (double)(c1 - c0) / (double)(t1 - t0) * 1e3;
}

/* The launch's figures from the SMs' (n valid records). */
static void finish(struct wt_sum *a, unsigned n, struct gc_warp_times *out)
{
    out->sms = a->nsm;
    out->warps = (int)n;
    out->warp_cycles = a->wsum / n;
    out->occ_mean = a->occ_sum / a->nsm;
    for (int i = 0; i < a->nsm; i++)
        out->span_max_cycles =
            i == 0 || a->spans[i] > out->span_max_cycles ? a->spans[i] : out->span_max_cycles;
    out->span_cycles = median_of(a->spans, a->nsm);
    out->clock_mhz = median_of(a->rates, a->nrates);
}

/* gc__warp_times by grouping the records by SM and sweeping each SM's
 * sorted starts and ends: any records. */
static int times_sorted(const unsigned long long *ts, unsigned nwarps, struct gc_warp_times *out)
{
    size_t m = nwarps ? nwarps : 1;
    /* One allocation: per record its index, start and end, per SM its span
     * and clock. */
    unsigned long long *st = malloc(m * (2 * sizeof(*st) + 2 * sizeof(double) + sizeof(unsigned)));
    unsigned long long *en;
    struct wt_sum a = {0};
    unsigned *ord, n = 0;
    int rc = 0;

    if (!st)
        return GC_ENOMEM;
    en = st + m;
    a.spans = (double *)(en + m);
    a.rates = a.spans + m;
    ord = (unsigned *)(a.rates + m);
    if ((rc = group_by_sm(ts, nwarps, ord, &n)) || n == 0) {
        free(st);
        return rc ? rc : GC_EVERIFY;
    }
    for (unsigned i = 0; i < n;) {
        unsigned j = i, sm = (unsigned)ts[(size_t)ord[i] * 5];
        unsigned long long t0 = ~0ULL, t1 = 0;
        double area;

        while (j < n && (unsigned)ts[(size_t)ord[j] * 5] == sm)
            j++;
        for (unsigned q = i; q < j; q++) {
            const unsigned long long *r = ts + (size_t)ord[q] * 5;
            t0 = r[3] < t0 ? r[3] : t0;
            t1 = r[4] > t1 ? r[4] : t1;
            a.wsum += (double)(r[2] - r[1]);
            st[q - i] = r[1];
            en[q - i] = r[2];
        }
        sort_u64(st, j - i);
        sort_u64(en, j - i);
        int peak = residency(st, en, j - i, &area);
        add_sm(&a, out, st[0], en[j - i - 1], t0, t1, peak, area);
        i = j;
    }
    finish(&a, n, out);
    free(st);
    return 0;
}

/* One SM's warps: how many, and the extremes of their times. */
struct sm_acc {
    unsigned n;
    unsigned long long c0_min, c0_max, c1_min, c1_max, t0, t1;
    unsigned long long cycles; /* the latencies' sum */
};

/* gc__warp_times in one pass where every SM had all its warps resident at
 * once (its last start before its first end: the peak is its warp count,
 * exactly what an occupancy point asks for) and the warps' latencies add up
 * to less than 2^53 cycles. Then the sweep over an SM's sorted times adds
 * whole numbers below 2^53, which doubles hold exactly, so its integral is
 * the sum of the SM's latencies, and the mean latency is the same in any
 * order of summation: the same figures, without sorting. 1 (nothing
 * written) where that does not hold. */
static int times_overlapping(const unsigned long long *ts, unsigned nwarps,
                             struct gc_warp_times *out)
{
    unsigned max_sm = 0, n = 0;
    unsigned long long sum = 0;
    struct sm_acc *acc = NULL;
    struct wt_sum a = {0};
    int rc = 1;

    for (unsigned i = 0; i < nwarps; i++) {
        const unsigned long long *w = ts + (size_t)i * 5;
        if (!rec_valid(w))
            continue;
        if (w[0] >= SM_ID_MAX)
            return 1;
        max_sm = (unsigned)w[0] > max_sm ? (unsigned)w[0] : max_sm;
        n++;
    }
    if (n == 0)
        return GC_EVERIFY;
    acc = malloc((max_sm + 1) * (sizeof(*acc) + 2 * sizeof(double)));
    if (!acc)
        return GC_ENOMEM;
    a.spans = (double *)(acc + max_sm + 1);
    a.rates = a.spans + max_sm + 1;
    for (unsigned sm = 0; sm <= max_sm; sm++)
        acc[sm] = (struct sm_acc){0, ~0ULL, 0, ~0ULL, 0, ~0ULL, 0, 0};
    for (unsigned i = 0; i < nwarps; i++) {
        const unsigned long long *w = ts + (size_t)i * 5;
        unsigned long long c0 = w[1], c1 = w[2];
        if (!rec_valid(w))
            continue;
        struct sm_acc c = acc[w[0]];
        if (sum + (c1 - c0) < sum) /* beyond 2^64: not exact */
            goto out;
        sum += c1 - c0;
        c.n++;
        c.cycles += c1 - c0;
        c.c0_min = c0 < c.c0_min ? c0 : c.c0_min;
        c.c0_max = c0 > c.c0_max ? c0 : c.c0_max;
        c.c1_min = c1 < c.c1_min ? c1 : c.c1_min;
        c.c1_max = c1 > c.c1_max ? c1 : c.c1_max;
        c.t0 = w[3] < c.t0 ? w[3] : c.t0;
        c.t1 = w[4] > c.t1 ? w[4] : c.t1;
        acc[w[0]] = c;
    }
    if (sum >= 1ULL << 53)
        goto out;
    for (unsigned sm = 0; sm <= max_sm; sm++)
        if (acc[sm].n > 0 && acc[sm].c0_max >= acc[sm].c1_min)
            goto out;
    for (unsigned sm = 0; sm <= max_sm; sm++) {
        const struct sm_acc *c = acc + sm;
        if (c->n > 0)
            add_sm(&a, out, c->c0_min, c->c1_max, c->t0, c->t1, (int)c->n, (double)c->cycles);
    }
    a.wsum = (double)sum;
    finish(&a, n, out);
    rc = 0;
out:
    free(acc);
    return rc;
}

int gc__warp_times(const unsigned long long *ts, unsigned nwarps, struct gc_warp_times *out)
{
    int rc;

    memset(out, 0, sizeof(*out));
    out->clock_mhz = NAN;
    out->span_cycles = out->span_max_cycles = out->warp_cycles = out->occ_mean = NAN;
    out->occ_max_min = -1;
    rc = times_overlapping(ts, nwarps, out);
    if (rc == 1)
        rc = times_sorted(ts, nwarps, out);
    if (rc) /* no SM analysed */
        out->occ_max_min = 0;
    return rc;
}

int gc__occ_point_init(struct gc_occ_point *p, int warps, int cap)
{
    size_t n = (size_t)(cap > 0 ? cap : 1);

    memset(p, 0, sizeof(*p));
    p->warps = warps;
    p->occ_min = p->occ_max = -1;
    p->span = malloc(n * sizeof(double));
    p->span_max = malloc(n * sizeof(double));
    p->warp_cycles = malloc(n * sizeof(double));
    p->clock_mhz = malloc(n * sizeof(double));
    p->is_kept = malloc(n * sizeof(bool));
    if (!p->span || !p->span_max || !p->warp_cycles || !p->clock_mhz || !p->is_kept) {
        gc__occ_point_free(p);
        return GC_ENOMEM;
    }
    p->cap = (int)n;
    return 0;
}

void gc__occ_point_free(struct gc_occ_point *p)
{
    free(p->span);
    free(p->span_max);
    free(p->warp_cycles);
    free(p->clock_mhz);
    free(p->is_kept);
    p->span = p->span_max = p->warp_cycles = p->clock_mhz = NULL;
    p->is_kept = NULL;
    p->cap = p->n = 0;
}

bool gc__occ_point_add(struct gc_occ_point *p, const struct gc_warp_times *wt)
{
    bool kept = p->warps > 0 && wt->occ_max_min == p->warps && wt->occ_max_max == p->warps;

    if (p->n >= p->cap)
        return false;
    if (p->occ_min < 0 || wt->occ_max_min < p->occ_min)
        p->occ_min = wt->occ_max_min;
    if (wt->occ_max_max > p->occ_max)
        p->occ_max = wt->occ_max_max;
    p->span[p->n] = wt->span_cycles;
    p->span_max[p->n] = wt->span_max_cycles;
    p->warp_cycles[p->n] = wt->warp_cycles;
    p->clock_mhz[p->n] = wt->clock_mhz;
    p->is_kept[p->n] = kept;
    p->n++;
    p->kept += kept;
    return kept;
}

int gc__occ_point_values(const struct gc_occ_point *p, enum gc_occ_value v, bool kept_only,
                         double *out)
{
    const double *src = v == GC_OCC_SPAN       ? p->span
                        : v == GC_OCC_SPAN_MAX ? p->span_max
                                               : p->warp_cycles;
    bool only = kept_only && p->kept > 0;
    int n = 0;

    for (int i = 0; i < p->n; i++)
        if (!only || p->is_kept[i])
            out[n++] = src[i];
    return n;
}

double gc__occ_point_clock(const struct gc_occ_point *p)
{
    double *v = malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof(double));
    double m;
    int n = 0;

    if (!v)
        return NAN;
    for (int i = 0; i < p->n; i++)
        if (isfinite(p->clock_mhz[i]))
            v[n++] = p->clock_mhz[i];
    m = median_of(v, n);
    free(v);
    return m;
}

int gc__measure_warps(struct gc_session *s, struct gc_kern *k, const struct gc_launch *l,
                      struct gc_buf *tsb, unsigned nwarps, unsigned long long *host, int reps,
                      const struct gc_rep_hook *hook, struct gc_warp_measurement *out)
{
    struct gc_device *d = s->dev;
    struct gc_launch one = *l;
    size_t bytes = (size_t)nwarps * 5 * sizeof(unsigned long long);
    unsigned long long *own = host ? NULL : malloc(bytes ? bytes : 1);
    unsigned long long *ts = host ? host : own;
    double *cyc = calloc((size_t)(reps > 0 ? reps : 1), sizeof(double));
    struct gc_occ_point pt;
    int rc = 0, n;
    double el;

    gc__run_progress_config(s->progress);

    memset(out, 0, sizeof(*out));
    out->clock_mhz = NAN;
    out->occ_attained_min = -1;
    if (gc__occ_point_init(&pt, 0, reps) || !ts || !cyc) {
        rc = GC_ENOMEM;
        goto out;
    }
    one.count = 1;
    /* One warm-up launch: module load, page mapping and clock ramp-up. */
    rc = gc__dev_launch(d, k, &one, &el);
    for (int i = 0; !rc && i < reps; i++) {
        if (gc__stopped(s)) {
            rc = GC_EINTR;
            break;
        }
        /* Zeroed records: a warp that did not run cannot leave an old one. */
        memset(ts, 0, bytes);
        rc = gc__dev_write(d, tsb, 0, ts, bytes);
        if (!rc && hook && hook->before)
            rc = hook->before(hook->u, i);
        if (!rc)
            rc = gc__dev_launch(d, k, &one, &el);
        if (!rc && hook && hook->after)
            rc = hook->after(hook->u, i);
        if (!rc)
            rc = gc__dev_read(d, tsb, 0, ts, bytes);
        if (!rc)
            rc = gc__warp_times(ts, nwarps, &out->last);
        if (!rc)
            out->last.clock_mhz = gc__clock_corrected(d, out->last.clock_mhz);
        if (rc == GC_EVERIFY)
            snprintf(d->err, sizeof(d->err), "no warp wrote its timestamps");
        if (rc)
            break;
        gc__occ_point_add(&pt, &out->last);
    }
    n = gc__occ_point_values(&pt, GC_OCC_SPAN, false, cyc);
    gc__stats_compute(cyc, n, &out->cycles);
    out->clock_mhz = gc__occ_point_clock(&pt);
    out->occ_attained_min = pt.occ_min;
    out->occ_attained_max = pt.occ_max > 0 ? pt.occ_max : 0;
out:
    gc__occ_point_free(&pt);
    free(own);
    free(cyc);
    return rc;
}

int gc__measure_runs(struct gc_session *s, struct gc_kern *k, const struct gc_launch *l, int warmup,
                     int reps, const struct gc_rep_hook *hook, struct gc_stats *seconds)
{
    struct gc_device *d = s->dev;
    struct gc_launch one = *l;
    double *t = calloc((size_t)(reps > 0 ? reps : 1), sizeof(double));
    int rc = 0, n = 0;
    double el;

    gc__run_progress_config(s->progress);
    memset(seconds, 0, sizeof(*seconds));
    if (!t)
        return GC_ENOMEM;
    one.count = 1;
    /* Warm-up: code and page mapping, thread pools, clocks. */
    for (int i = 0; !rc && i < warmup; i++)
        rc = gc__dev_launch(d, k, &one, &el);
    for (int i = 0; !rc && i < reps; i++) {
        if (gc__stopped(s)) {
            rc = GC_EINTR;
            break;
        }
        if (hook && hook->before)
            rc = hook->before(hook->u, i);
        if (!rc)
            rc = gc__dev_launch(d, k, &one, &el);
        if (!rc && hook && hook->after)
            rc = hook->after(hook->u, i);
        if (!rc)
            t[n++] = el;
    }
    gc__stats_compute(t, n, seconds);
    free(t);
    return rc;
}
