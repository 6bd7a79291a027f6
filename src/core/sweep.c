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

struct rec {
    unsigned sm;
    unsigned long long c0, c1, t0, t1;
};

static int cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;

    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    return (x->c0 > y->c0) - (x->c0 < y->c0);
}

/* The valid records of ts into r, grouped by SM in increasing SM order (the
 * order within an SM does not matter to gc__warp_times); their count. A
 * counting pass over the SM ids: this runs after every launch of a sweep,
 * over up to tens of thousands of warps, where a comparison sort of the
 * records cost milliseconds. */
#define SM_ID_MAX 4096
/* A warp's record is kept when it was written and its times run forward. */
static bool rec_valid(const unsigned long long *w)
{
    return w[3] != 0 && w[2] >= w[1] && w[4] >= w[3];
}

static unsigned group_by_sm(const unsigned long long *ts, unsigned nwarps, struct rec *r)
{
    unsigned start[SM_ID_MAX + 1];
    unsigned n = 0, max_sm = 0;

    memset(start, 0, sizeof(start));
    for (unsigned i = 0; i < nwarps; i++) {
        const unsigned long long *w = ts + (size_t)i * 5;

        if (!rec_valid(w))
            continue;
        if (w[0] >= SM_ID_MAX) { /* not an SM id of any device: sort instead */
            max_sm = SM_ID_MAX;
            break;
        }
        start[w[0] + 1]++;
        max_sm = (unsigned)w[0] > max_sm ? (unsigned)w[0] : max_sm;
    }
    if (max_sm >= SM_ID_MAX) {
        for (unsigned i = 0; i < nwarps; i++) {
            const unsigned long long *w = ts + (size_t)i * 5;

            if (rec_valid(w))
                r[n++] = (struct rec){(unsigned)w[0], w[1], w[2], w[3], w[4]};
        }
        qsort(r, n, sizeof(*r), cmp_rec);
        return n;
    }
    for (unsigned k = 1; k <= max_sm + 1; k++)
        start[k] += start[k - 1];
    for (unsigned i = 0; i < nwarps; i++) {
        const unsigned long long *w = ts + (size_t)i * 5;

        if (!rec_valid(w))
            continue;
        r[start[w[0]]++] = (struct rec){(unsigned)w[0], w[1], w[2], w[3], w[4]};
        n++;
    }
    return n;
}

/* Sorts v[0..n) ascending. Insertion: a launch's warps start and end
 * nearly in the order they were placed on the SM, so this is about linear
 * (qsort's calls through a comparator cost more for the SM's few dozen). */
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int gc__warp_times(const unsigned long long *ts, unsigned nwarps, struct gc_warp_times *out)
{
    struct rec *r = malloc((nwarps ? nwarps : 1) * sizeof(*r));
    unsigned long long *st = malloc((nwarps ? nwarps : 1) * sizeof(*st));
    unsigned long long *en = malloc((nwarps ? nwarps : 1) * sizeof(*en));
    double *spans = malloc((nwarps ? nwarps : 1) * sizeof(double));
    double *rates = malloc((nwarps ? nwarps : 1) * sizeof(double));
    unsigned n = 0;
    int rc = 0, nsm = 0, nrates = 0;
    double wsum = 0, occ_sum = 0;

    memset(out, 0, sizeof(*out));
    out->clock_mhz = NAN;
    out->span_cycles = out->span_max_cycles = out->warp_cycles = out->occ_mean = NAN;
    if (!r || !st || !en || !spans || !rates) {
        rc = GC_ENOMEM;
        goto out;
    }
    n = group_by_sm(ts, nwarps, r);
    if (n == 0) {
        rc = GC_EVERIFY;
        goto out;
    }
    out->occ_max_min = -1;
    for (unsigned i = 0; i < n;) {
        unsigned j = i;
        unsigned long long c0 = ~0ULL, c1 = 0, t0 = ~0ULL, t1 = 0;
        int peak;
        double area;

        while (j < n && r[j].sm == r[i].sm)
            j++;
        for (unsigned q = i; q < j; q++) {
            c0 = r[q].c0 < c0 ? r[q].c0 : c0;
            c1 = r[q].c1 > c1 ? r[q].c1 : c1;
            t0 = r[q].t0 < t0 ? r[q].t0 : t0;
            t1 = r[q].t1 > t1 ? r[q].t1 : t1;
            wsum += (double)(r[q].c1 - r[q].c0);
            st[q - i] = r[q].c0;
            en[q - i] = r[q].c1;
        }
        sort_u64(st, j - i);
        sort_u64(en, j - i);
        peak = residency(st, en, j - i, &area);
        spans[nsm] = (double)(c1 - c0);
        if (c1 > c0)
            occ_sum += area / (double)(c1 - c0);
        if (out->occ_max_min < 0 || peak < out->occ_max_min)
            out->occ_max_min = peak;
        out->occ_max_max = peak > out->occ_max_max ? peak : out->occ_max_max;
        /* Spans under 20 us are dominated by the timer's granularity. */
        if (t1 > t0 && t1 - t0 >= 20000)
            rates[nrates++] = (double)(c1 - c0) / (double)(t1 - t0) * 1e3;
        nsm++;
        i = j;
    }
    out->sms = nsm;
    out->warps = (int)n;
    out->warp_cycles = wsum / n;
    out->occ_mean = occ_sum / nsm;
    for (int i = 0; i < nsm; i++)
        out->span_max_cycles =
            i == 0 || spans[i] > out->span_max_cycles ? spans[i] : out->span_max_cycles;
    out->span_cycles = median_of(spans, nsm);
    out->clock_mhz = median_of(rates, nrates);
out:
    free(r);
    free(st);
    free(en);
    free(spans);
    free(rates);
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
                      struct gc_buf *tsb, unsigned nwarps, int reps, const struct gc_rep_hook *hook,
                      struct gc_warp_measurement *out)
{
    struct gc_device *d = s->dev;
    struct gc_launch one = *l;
    size_t bytes = (size_t)nwarps * 5 * sizeof(unsigned long long);
    unsigned long long *ts = malloc(bytes ? bytes : 1);
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
    free(ts);
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
