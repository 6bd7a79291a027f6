/* One point of the staircase: the chase timed by the cycle counter between
 * segments, or by launch events as the difference of a short and a long
 * kernel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"
#include "core/stats.h"

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
