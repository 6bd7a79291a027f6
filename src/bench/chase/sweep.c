/* The staircase of the pointer chase: what it sweeps (footprints per path
 * from the device's, and on CPUs the host's, cache sizes), one point (the
 * chase timed by the cycle counter between segments, or by launch events as
 * the difference of a short and a long kernel), and the sweep (the planned
 * footprints, on the event path coarse to fine, then points added where the
 * latency steps). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"
#include "core/cpucache.h"
#include "core/sensors.h"
#include "core/stats.h"
#include "model/cache.h"

/* ---- What to sweep ------------------------------------------------------ */

void gc__chase_cpu_caches(struct chase_cpu_caches *c)
{
    const struct gc_cpu_caches *h = gc__cpu_caches();

    c->l1d = h->l1d;
    c->l2 = h->l2;
    c->l3 = h->l3;
    c->line = h->line;
    snprintf(c->source, sizeof(c->source), "%s", h->source);
}

static void sweep(struct plan *pl, size_t lo, size_t hi, int per_oct)
{
    pl->n = 0;
    if (hi < lo)
        hi = lo;
    for (int k = 0; pl->n < CHASE_MAX_POINTS; k++) {
        double v = (double)lo * pow(2.0, (double)k / per_oct);
        size_t f = (size_t)v / pl->spacing * pl->spacing;
        if (f < 2 * pl->spacing)
            f = 2 * pl->spacing;
        if (f > hi)
            f = hi / pl->spacing * pl->spacing;
        if (pl->n == 0 || f > pl->fp[pl->n - 1])
            pl->fp[pl->n++] = f;
        if (v >= (double)hi)
            break;
    }
    pl->bytes = pl->fp[pl->n - 1];
}

size_t gc__chase_clamp_sz(size_t v, size_t lo, size_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void gc__chase_make_plan(const struct gc_session *s, enum chase_path p, struct plan *pl)
{
    const struct gc_device_info *info = &s->dev->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    int per_oct = s->profile == GC_PROFILE_QUICK ? 2 : s->profile == GC_PROFILE_FULL ? 8 : 4;
    struct chase_cpu_caches cc;
    size_t hi, mem_cap = (size_t)1 << 40;

    memset(pl, 0, sizeof(*pl));
    gc__chase_cpu_caches(&cc);
    if (info->max_alloc)
        mem_cap = info->max_alloc;
    if (info->global_mem && mem_cap > info->global_mem / 2)
        mem_cap = info->global_mem / 2;
    pl->line = gpu ? 128 : cc.line ? cc.line : 64;
    pl->spacing = pl->line;
    pl->esize = gc__chase_words_path(p) ? 4 : 8;
    pl->llc = gpu ? info->l2_size : cc.l3 ? cc.l3 : cc.l2 ? cc.l2 : info->l2_size;
    switch (p) {
    case PATH_TLB:
        pl->paged = true;
        pl->spacing = gpu ? (size_t)2 << 20 : 4096;
        if (gpu)
            hi = s->profile == GC_PROFILE_QUICK  ? (size_t)4 << 30
                 : s->profile == GC_PROFILE_FULL ? (size_t)64 << 30
                                                 : (size_t)16 << 30;
        else
            hi = s->profile == GC_PROFILE_QUICK  ? (size_t)64 << 20
                 : s->profile == GC_PROFILE_FULL ? (size_t)1 << 30
                                                 : (size_t)256 << 20;
        if (hi > mem_cap)
            hi = mem_cap;
        sweep(pl, 16 * pl->spacing, hi, per_oct);
        break;
    case PATH_CONSTANT:
        pl->spacing = 64;
        sweep(pl, 512, 64 << 10, per_oct);
        break;
    case PATH_SHARED:
        /* The opt-in limit (equal to the default where there is no opt-in). */
        hi = info->shared_per_block_optin;
        if (!gpu && hi > (256u << 10))
            hi = 256u << 10;
        sweep(pl, 1024, hi, per_oct);
        break;
    case PATH_PRIVATE:
        sweep(pl, 512, CHASE_PRIVATE_BYTES, per_oct);
        break;
    default:
        if (gpu) {
            /* DRAM's plateau starts within 1.3x L2 (a split L2's far
             * partition holds the last footprints before it): 2x L2 gives it
             * four planned quarter-octave points, and every point past L2
             * costs a warm pass over its whole footprint at DRAM latency.
             * The quick profile's half-octave steps need 3x for three. */
            size_t mult = s->profile == GC_PROFILE_FULL    ? 4
                          : s->profile == GC_PROFILE_QUICK ? 3
                                                           : 2;
            hi = info->l2_size ? mult * info->l2_size : (size_t)256 << 20;
            hi = gc__chase_clamp_sz(hi, (size_t)16 << 20, (size_t)2 << 30);
        } else {
            /* A few times the last-level cache, bounded so that CPU runs stay
             * short (the warm pass walks the whole footprint every launch). */
            size_t cap = s->profile == GC_PROFILE_QUICK  ? (size_t)32 << 20
                         : s->profile == GC_PROFILE_FULL ? (size_t)1 << 30
                                                         : (size_t)64 << 20;
            hi =
                gc__chase_clamp_sz(4 * (pl->llc ? pl->llc : (size_t)8 << 20), (size_t)4 << 20, cap);
        }
        if (p == PATH_TEXTURE && hi > ((size_t)1 << 30))
            hi = (size_t)1 << 30; /* 2^27 texels of 8 bytes */
        if (hi > mem_cap)
            hi = mem_cap;
        sweep(pl, 1024, hi, per_oct);
        break;
    }
}

/* ---- Measuring one path ------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;

    return (u > v) - (u < v);
}

int gc__chase_cmp_u64(const void *a, const void *b)
{
    uint64_t u = *(const uint64_t *)a, v = *(const uint64_t *)b;

    return (u > v) - (u < v);
}

bool gc__chase_clocks(const struct gc_device_info *info)
{
    unsigned need = GC_CAP_INLINE_ASM | GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER;

    return (info->caps & need) == need;
}

int gc__chase_verify_end(struct chase_ctx *c, uint64_t got, uint64_t want, size_t fp)
{
    if (got == want)
        return 0;
    gc__bench_set_error(c->r, GC_BENCH_ERROR,
                        "verification failed (%s, %zu-byte footprint): the chase ended at "
                        "element index %llu, the cycle says %llu",
                        gc__chase_path_name(c->path), fp, (unsigned long long)got,
                        (unsigned long long)want);
    return GC_EVERIFY;
}

/* The chain's order for the ordered touch, into the pairs buffer (free once
 * the chain is installed): the slot of the k-th element from element 0. */
static int chase_order(struct chase_ctx *c, const uint32_t *next, size_t m)
{
    uint32_t *ord = malloc(m * sizeof(*ord));
    int rc;

    if (!ord)
        return GC_ENOMEM;
    /* The walk's order is stored after the chain (gc__chase_install_chain). */
    for (size_t k = 0; k < m; k++)
        ord[k] = (uint32_t)gc__chase_slot_of(&c->pl, next[m + k]);
    rc = gc__dev_write(c->s->dev, c->pairs, 0, ord, m * sizeof(*ord));
    free(ord);
    return rc;
}

int gc__chase_point_clocks(struct chase_ctx *c, struct gc_kern *k, size_t fp, const uint32_t *next,
                           size_t m, struct gc_stats *cyc, struct gc_stats *ns, double *mhz)
{
    struct gc_device *d = c->s->dev;
    int nw = 3 + c->nseg, rc;
    uint64_t *o = malloc((size_t)nw * sizeof(*o));
    double *v = malloc((size_t)c->nseg * sizeof(*v));
    struct gc_arg a[7];
    int na = 0;
    unsigned block = 32;
    size_t dyn = 0;
    /* Large footprints: the ordered touch instead of the walk (CHASE_TOUCH_MIN). */
    bool touch = !gc__chase_words_path(c->path) && m >= CHASE_TOUCH_MIN;
    size_t warm = touch ? 0 : m;

    if (!o || !v) {
        rc = GC_ENOMEM;
        goto out;
    }
    if (touch) {
        rc = chase_order(c, next, m);
        if (rc)
            goto out;
        block = CHASE_TOUCH_THREADS;
    }
    for (int i = 0; i < nw; i++)
        o[i] = ~0ULL; /* poison */
    rc = gc__dev_write(d, c->out, 0, o, (size_t)nw * sizeof(*o));
    if (rc)
        goto out;
    if (gc__chase_words_path(c->path)) {
        if (c->path != PATH_CONSTANT) {
            a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->words};
            a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)(fp / 4)};
        }
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 0};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)m};
        if (c->path == PATH_SHARED) {
            dyn = fp;
            block = 256;
        }
    } else {
        a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->buf};
        if (c->path == PATH_TEXTURE)
            a[na++] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = c->tex};
        a[na++] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = 0};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)warm};
        a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->pairs};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = touch ? (uint32_t)m : 0};
    }
    a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->out};
    if (c->carveout && dyn == 0)
        dyn = CH_L1_DYN;
    struct gc_launch l = {{1, 1, 1}, {block, 1, 1}, dyn, a, na, 1};
    double el;
    rc = gc__dev_launch(d, k, &l, &el);
    if (rc)
        goto out;
    rc = gc__dev_read(d, c->out, 0, o, (size_t)nw * sizeof(*o));
    if (rc)
        goto out;
    uint64_t want =
        gc__chase_slot_of(&c->pl, gc__chase_walk(next, m, warm + (uint64_t)c->nseg * c->loads));
    rc = gc__chase_verify_end(c, o[0], want, fp);
    if (rc)
        goto out;
    for (int i = 0; i < c->nseg; i++)
        v[i] = (double)(o[3 + i] - o[2 + i]) / c->loads;
    gc__stats_compute(v, c->nseg, cyc);
    *mhz = o[1] > 0 ? gc__clock_mhz(d, (double)(o[2 + c->nseg] - o[2]), (double)o[1]) : NAN;
    *ns = *cyc;
    if (isfinite(*mhz) && *mhz > 0)
        gc__stats_scale(ns, 1e3 / *mhz);
    else
        ns->n = 0;
out:
    free(o);
    free(v);
    return rc;
}

/* Labels of the OpenCL points whose latency is a kernel's upper bound. */
static const char cl_bound_long[] = "upper bound (long kernel)";
static const char cl_bound_short[] = "upper bound (short kernel)";

/* Seconds per load from one launch time t1 of the short kernel (m warm-up
 * loads, then L = `loads` timed ones) and t2 of the long one (m + 2L):
 * with a launch overhead o >= 0, t_k = o + (m + kL) t. The difference
 * d = (t2 - t1) / L cancels o. The overhead it implies, o = t1 - (m + L) d,
 * equals t2 - (m + 2L) d, so o >= 0 is the bound d <= t2 / (m + 2L). d
 * stands when o is neither negative nor a large share of t1
 * (CHASE_CL_MAX_OVERHEAD): the two times then come from one mode of the
 * device. Otherwise they do not (one kernel in a slow mode: a sibling
 * hardware thread taking part of the cache, bimodal hits near a capacity;
 * a short kernel in a slow mode makes d far too small) and the tighter of
 * the upper bounds t_k / (m + kL) stands, overhead included, which is
 * small against the milliseconds of a CPU chase. *how is NULL for d, else
 * the bound's label. */
static double cl_latency(double t1, double t2, size_t m, uint64_t loads, const char **how)
{
    double n1 = (double)m + (double)loads, n2 = (double)m + 2.0 * (double)loads;
    double d = (t2 - t1) / (double)loads, o = t1 - n1 * d;

    *how = NULL;
    if (o >= 0 && o <= CHASE_CL_MAX_OVERHEAD * t1)
        return d;
    /* t_k / (m + kL) = d + o / (m + kL): the long kernel's bound is the
     * tighter one where o >= 0, the short kernel's where o < 0 (the long
     * kernel's minimum in a slower mode than the short's). */
    if (t2 / n2 <= t1 / n1) {
        *how = cl_bound_long;
        return t2 / n2;
    }
    *how = cl_bound_short;
    return t1 / n1;
}

/* The event path's sampling. Every launch walks the whole cycle before its
 * timed loads, so one engine warm-up (module load, first touch of the
 * pages) is enough; and launches that last a tenth of a second (a CPU's
 * large footprints at DRAM latency) stop after the least samples once
 * CHASE_CL_SAMPLING_S of them are in: the estimate pairs the kernels'
 * fastest samples, which more of the same length hardly move. */
static struct gc_sampling events_sampling(struct chase_ctx *c)
{
    struct gc_sampling p = c->s->sampling, *m = &p;

    m->warmup = 1;
    if (m->time_cap_s > CHASE_CL_SAMPLING_S)
        m->time_cap_s = CHASE_CL_SAMPLING_S;
    if (c->s->dev->info.type == GC_DEVICE_CPU && m->min_samples > CHASE_CL_MIN_SAMPLES) {
        /* Fewer least samples, and no stop on a small spread: short launches
         * still take every sample that fits in the sampling time (the spread
         * rule would end them at the third), long ones stop once it is in. */
        gc__sampling_least(m, CHASE_CL_MIN_SAMPLES);
        m->rel_spread = 0;
    }
    return p;
}

int gc__chase_point_events(struct chase_ctx *c, struct gc_kern *k1, struct gc_kern *k2, size_t fp,
                           const uint32_t *next, size_t m, struct gc_stats *ns, double *best,
                           const char **how, double *mhz, struct gc_measurement *keep)
{
    struct gc_device *d = c->s->dev;
    struct gc_measurement m1 = {0}, m2 = {0};
    struct gc_arg a[5];
    int na = 0, rc;
    unsigned block = 1;
    size_t dyn = 0;
    uint64_t o = ~0ULL;
    double *v = NULL;

    if (gc__chase_words_path(c->path)) {
        a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->words};
        if (c->path != PATH_CONSTANT)
            a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)(fp / 4)};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 0};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)m};
        if (c->path == PATH_SHARED) {
            dyn = fp;
            block = d->info.max_threads_per_block >= 64 ? 64 : 1;
        }
    } else {
        a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->buf};
        a[na++] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = 0};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)m};
    }
    a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->out};
    if (c->carveout && dyn == 0)
        dyn = CH_L1_DYN;
    struct gc_launch l = {{1, 1, 1}, {block, 1, 1}, dyn, a, na, 1};
    struct gc_sampling sp = events_sampling(c);
    gc__sampling_record(&sp, &c->r->sampling);
    for (int pass = 0; pass < 2; pass++) {
        uint64_t loads = (uint64_t)c->loads * (pass + 1);
        rc = gc__dev_write(d, c->out, 0, &o, sizeof(o));
        if (rc)
            break;
        rc = gc__measure(c->s, sp, pass ? k2 : k1, &l, NULL, NULL, 0, pass ? &m2 : &m1);
        if (rc)
            break;
        uint64_t got;
        rc = gc__dev_read(d, c->out, 0, &got, sizeof(got));
        if (rc)
            break;
        rc = gc__chase_verify_end(
            c, got, gc__chase_slot_of(&c->pl, gc__chase_walk(next, m, m + loads)), fp);
        if (rc)
            break;
    }
    if (rc)
        goto out;
    int n = m1.samples < m2.samples ? m1.samples : m2.samples;
    v = malloc((size_t)(n ? n : 1) * sizeof(*v));
    if (!v) {
        rc = GC_ENOMEM;
        goto out;
    }
    /* Interference from other work on the device (a CPU's other processes)
     * only adds time, so the samples of each kernel are paired in sorted
     * order, and the reported value is the pair of minima's; every pair
     * gives an estimate of its own under the same bounds, and those give the
     * spread. */
    qsort(m1.per_sample_s, (size_t)m1.samples, sizeof(double), cmp_double);
    qsort(m2.per_sample_s, (size_t)m2.samples, sizeof(double), cmp_double);
    *how = NULL;
    for (int i = 0; i < n; i++) {
        const char *h;
        v[i] = cl_latency(m1.per_sample_s[i], m2.per_sample_s[i], m, (uint64_t)c->loads, &h) * 1e9;
        if (i == 0)
            *how = h;
    }
    gc__stats_compute(v, n, ns);
    *best = n > 0 ? v[0] : NAN;
    *mhz = m2.clock_mhz;
    gc__measurement_free(keep);
    *keep = m2;
    m2.per_sample_s = NULL;
    m2.per_sample_cycles = NULL;
out:
    free(v);
    gc__measurement_free(&m1);
    gc__measurement_free(&m2);
    return rc;
}

/* ---- The sweep ---------------------------------------------------------- */

static void curve_add(struct curve *cv, const struct chase_pt *p)
{
    int at = cv->n;

    while (at > 0 && cv->pt[at - 1].x > p->x)
        at--;
    if ((at > 0 && cv->pt[at - 1].x == p->x) || cv->n >= CHASE_MAX_POINTS)
        return;
    memmove(cv->pt + at + 1, cv->pt + at, (size_t)(cv->n - at) * sizeof(*cv->pt));
    cv->pt[at] = *p;
    cv->n++;
}

/* Measures grid point g of the planned sweep into the curve; *y is the
 * latency the sweep steers by (cycles where the device counts them). */
static int grid_point(struct chase_ctx *c, point_fn fn, void *arg, const size_t *fps, int g,
                      struct curve *cv, double *y)
{
    struct chase_pt p = {0};
    int rc = fn(c, arg, fps[g], g, &p);

    if (rc)
        return rc;
    p.planned = true;
    curve_add(cv, &p);
    *y = c->clocks ? p.cyc : p.ns;
    return 0;
}

/* The planned sweep: on the cycle path every footprint of the grid; on the
 * event path (a point costs two kernels sampled for tenths of a second on a
 * CPU) every CHASE_COARSE_STRIDE-th first, then the grid's footprints
 * between them where the latency climbs (gc__coarse_fill_next), so that
 * steps keep the grid's resolution and flat stretches cost a fraction. */
static int planned_sweep(struct chase_ctx *c, point_fn fn, void *arg, const size_t *fps, int nfp,
                         struct curve *cv)
{
    int *idx = malloc((size_t)(nfp > 0 ? nfp : 1) * sizeof(*idx));
    double *y = malloc((size_t)(nfp > 0 ? nfp : 1) * sizeof(*y));
    int m, rc = 0;

    if (!idx || !y) {
        rc = GC_ENOMEM;
        goto out;
    }
    m = gc__coarse_plan(nfp, c->clocks ? 1 : CHASE_COARSE_STRIDE, idx);
    /* Too few coarse points to make plateaus of three: the whole grid. */
    if (m < CHASE_COARSE_MIN_POINTS)
        m = gc__coarse_plan(nfp, 1, idx);
    for (int k = 0; k < m && !gc__stopped(c->s); k++)
        if ((rc = grid_point(c, fn, arg, fps, idx[k], cv, &y[k])))
            goto out;
    while (!gc__stopped(c->s)) {
        int g = gc__coarse_fill_next(idx, y, m, CHASE_COARSE_JUMP, CHASE_MAX_POINTS);
        if (g < 0)
            break;
        int at = m;
        while (at > 0 && idx[at - 1] > g)
            at--;
        memmove(idx + at + 1, idx + at, (size_t)(m - at) * sizeof(*idx));
        memmove(y + at + 1, y + at, (size_t)(m - at) * sizeof(*y));
        idx[at] = g;
        m++;
        if ((rc = grid_point(c, fn, arg, fps, g, cv, &y[at])))
            goto out;
    }
    cv->complete = !gc__stopped(c->s) && cv->n == m;
out:
    free(idx);
    free(y);
    return rc;
}

int gc__chase_sweep_curve(struct chase_ctx *c, point_fn fn, void *arg, const size_t *fps, int nfp,
                          int budget, size_t granule, struct curve *cv)
{
    bool gpu = c->s->dev->info.type == GC_DEVICE_GPU;
    double jump = gpu ? CHASE_REFINE_JUMP_GPU : CHASE_REFINE_JUMP_CPU;
    double *x = malloc(CHASE_MAX_POINTS * sizeof(*x)), *y = malloc(CHASE_MAX_POINTS * sizeof(*y));
    double t0 = gc__now(), t_planned;
    struct chase_pt p;
    int rc = 0;

    if (!x || !y) {
        rc = GC_ENOMEM;
        goto out;
    }
    rc = planned_sweep(c, fn, arg, fps, nfp, cv);
    if (rc)
        goto out;
    cv->planned = cv->n;
    /* A CPU's refinement may take a quarter of the planned sweep's time
     * (the coarse pass and its fill on the event path). */
    t_planned = gc__now() - t0;
    t0 = gc__now();
    /* Every point must have landed (a stop, or a footprint measured twice,
     * ends the refinement). Each round splits every step once. */
    int want = cv->n;
    double after = 0;
    for (int k = 0; k < budget && cv->n < CHASE_MAX_POINTS && !gc__stopped(c->s); k++) {
        if (!gpu && gc__now() - t0 > 0.25 * t_planned)
            break;
        bool ok = cv->n == want;
        for (int i = 0; ok && i < cv->n; i++) {
            x[i] = cv->pt[i].x;
            y[i] = c->clocks ? cv->pt[i].cyc : cv->pt[i].ns;
            ok = isfinite(y[i]) && y[i] > 0;
        }
        double nx = ok ? gc__cache_refine_next(x, y, cv->n, jump, CHASE_REFINE_WIDTH,
                                               (double)granule, after)
                       : NAN;
        if (isnan(nx))
            break;
        after = nx;
        p = (struct chase_pt){0};
        rc = fn(c, arg, (size_t)nx, nfp + k, &p);
        if (rc)
            goto out;
        p.planned = false;
        curve_add(cv, &p);
        want++;
    }
out:
    free(x);
    free(y);
    return rc;
}

int gc__chase_curve_series(struct gc_bench_result *r, const struct curve *cv, const char *suffix,
                           const char *y_cyc_name, double **xs, bool **planned)
{
    char n1[64], n2[64];
    int n = cv->n;
    double *x = malloc(3 * (size_t)(n ? n : 1) * sizeof(*x));
    bool *pl = malloc((size_t)(n ? n : 1) * sizeof(*pl));

    *xs = x;
    *planned = pl;
    if (!x || !pl)
        return GC_ENOMEM;
    for (int i = 0; i < n; i++)
        pl[i] = cv->pt[i].planned;
    snprintf(n1, sizeof(n1), "latency_cycles%s", suffix);
    snprintf(n2, sizeof(n2), "latency_ns%s", suffix);
    struct gc_series *scyc =
        gc__bench_add_series(r, n1, "footprint", "B", y_cyc_name, "cycles/load");
    if (!scyc)
        return GC_ENOMEM;
    for (int i = 0; i < n; i++) {
        x[i] = cv->pt[i].x;
        x[n + i] = cv->pt[i].ns;
        x[2 * n + i] = cv->pt[i].cyc;
        if (isfinite(cv->pt[i].cyc))
            gc__series_add(scyc, x[i], cv->pt[i].cyc, cv->pt[i].scyc.n ? &cv->pt[i].scyc : NULL,
                           cv->pt[i].how);
    }
    struct gc_series *sns = gc__bench_add_series(r, n2, "footprint", "B", "latency", "ns/load");
    if (!sns)
        return GC_ENOMEM;
    for (int i = 0; i < n; i++)
        if (isfinite(cv->pt[i].ns))
            gc__series_add(sns, x[i], cv->pt[i].ns, cv->pt[i].sns.n ? &cv->pt[i].sns : NULL,
                           cv->pt[i].how);
    return 0;
}
