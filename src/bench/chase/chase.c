/* memory.latency.<path>: dependent-load latency against footprint through
 * each memory path (Lemeire et al. SVI-B/C random walk and varying-size
 * random walk; uCLbench S2.2/S3.2 latency per address space; Volkov S6.7
 * footprint and TLB), described as a kernel sweep (core/ksweep.h): the
 * footprints to sweep (per path, from the device's and on CPUs the host's
 * cache sizes), the per-point work (the chase timed by the cycle counter
 * between segments, or by launch events as the difference of a short and a
 * long kernel) and its check, the buffers, the staircase's cache levels into
 * metrics (names, sizes against the device's reports and the architecture
 * table, latencies) and the benchmark table. The kernels and the chain
 * (gen.c) and the L2 variants (l2.c) live beside it (chase.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"
#include "core/cpucache.h"
#include "core/devfill.h"
#include "core/kcache.h"
#include "core/sensors.h"
#include "core/stats.h"
#include "model/cache.h"

/* The host CPU's caches (for OpenCL CPU devices; core/cpucache.h): sizes in
 * bytes of one instance, 0 unknown, and the source that gave them. */
struct chase_cpu_caches {
    size_t l1d, l2, l3, line;
    char source[16];
};

/* ---- What to sweep ------------------------------------------------------ */

static void cpu_caches(struct chase_cpu_caches *c)
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
    pl->n = gc__ksweep_grid(lo, hi, per_oct, pl->spacing, pl->fp, CHASE_MAX_POINTS);
    pl->bytes = pl->fp[pl->n - 1];
}

static size_t clamp_sz(size_t v, size_t lo, size_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The paths and their axes, in enum chase_path order (the benchmark table
 * at the end of the file points into it). */
static const struct chase_def defs[] = {
    {PATH_GLOBAL, false, {0, 0, 1024, TOP_CACHES, 0, false}},
    {PATH_L2, true, {0, 0, 1024, TOP_CACHES, 0, false}},
    {PATH_READONLY, true, {0, 0, 1024, TOP_CACHES, 0, false}},
    /* At most 2^27 texels of 8 bytes. */
    {PATH_TEXTURE, true, {0, 0, 1024, TOP_CACHES, (size_t)1 << 30, false}},
    {PATH_CONSTANT, false, {64, 64, 512, TOP_FIXED, 64 << 10, false}},
    {PATH_SHARED, false, {0, 0, 1024, TOP_SHARED, 256u << 10, false}},
    {PATH_PRIVATE, false, {0, 0, 512, TOP_FIXED, CHASE_PRIVATE_BYTES, false}},
    {PATH_TLB, false, {(size_t)2 << 20, 4096, 0, TOP_PAGES, 0, true}},
    {PATH_L2_PARTITION, true, {0, 0, 1024, TOP_CACHES, 0, false}},
};
_Static_assert(sizeof(defs) / sizeof(defs[0]) == PATH_L2_PARTITION + 1, "a row per path");

/* The top of TOP_CACHES. */
static size_t top_caches(const struct gc_session *s, const struct plan *pl)
{
    const struct gc_device_info *info = &s->dev->info;

    if (info->type == GC_DEVICE_GPU) {
        /* DRAM's plateau starts within 1.3x L2 (a split L2's far partition
         * holds the last footprints before it): 2x L2 gives it four planned
         * quarter-octave points, and every point past L2 costs a warm pass
         * over its whole footprint at DRAM latency. The quick profile's
         * half-octave steps need 3x for three. */
        size_t mult = s->profile == GC_PROFILE_FULL ? 4 : s->profile == GC_PROFILE_QUICK ? 3 : 2;
        size_t hi = info->l2_size ? mult * info->l2_size : (size_t)256 << 20;
        return clamp_sz(hi, (size_t)16 << 20, (size_t)2 << 30);
    }
    /* A few times the last-level cache, bounded so that CPU runs stay short
     * (the warm pass walks the whole footprint every launch). */
    size_t cap = s->profile == GC_PROFILE_QUICK  ? (size_t)32 << 20
                 : s->profile == GC_PROFILE_FULL ? (size_t)1 << 30
                                                 : (size_t)64 << 20;
    return clamp_sz(4 * (pl->llc ? pl->llc : (size_t)8 << 20), (size_t)4 << 20, cap);
}

/* The top of TOP_PAGES. */
static size_t top_pages(const struct gc_session *s)
{
    if (s->dev->info.type == GC_DEVICE_GPU)
        return s->profile == GC_PROFILE_QUICK  ? (size_t)4 << 30
               : s->profile == GC_PROFILE_FULL ? (size_t)64 << 30
                                               : (size_t)16 << 30;
    return s->profile == GC_PROFILE_QUICK  ? (size_t)64 << 20
           : s->profile == GC_PROFILE_FULL ? (size_t)1 << 30
                                           : (size_t)256 << 20;
}

/* The largest footprint of an axis on the device. */
static size_t axis_top(const struct gc_session *s, const struct chase_axis *ax,
                       const struct plan *pl)
{
    const struct gc_device_info *info = &s->dev->info;
    size_t hi, mem_cap = (size_t)1 << 40;

    if (info->max_alloc)
        mem_cap = info->max_alloc;
    if (info->global_mem && mem_cap > info->global_mem / 2)
        mem_cap = info->global_mem / 2;
    switch (ax->top) {
    case TOP_FIXED:
        return ax->top_bytes;
    case TOP_SHARED:
        /* The opt-in limit (equal to the default where there is no opt-in). */
        hi = info->shared_per_block_optin;
        if (info->type != GC_DEVICE_GPU && ax->top_bytes && hi > ax->top_bytes)
            hi = ax->top_bytes;
        return hi;
    case TOP_PAGES:
        hi = top_pages(s);
        break;
    default:
        hi = top_caches(s, pl);
        if (ax->top_bytes && hi > ax->top_bytes)
            hi = ax->top_bytes;
        break;
    }
    return hi > mem_cap ? mem_cap : hi;
}

void gc__chase_make_plan(const struct gc_session *s, enum chase_path p, struct plan *pl)
{
    const struct gc_device_info *info = &s->dev->info;
    const struct chase_axis *ax = &defs[p].axis;
    bool gpu = info->type == GC_DEVICE_GPU;
    int per_oct = s->profile == GC_PROFILE_QUICK ? 2 : s->profile == GC_PROFILE_FULL ? 8 : 4;
    struct chase_cpu_caches cc;
    size_t spacing = gpu ? ax->spacing_gpu : ax->spacing_cpu;

    memset(pl, 0, sizeof(*pl));
    cpu_caches(&cc);
    pl->line = gpu ? 128 : cc.line ? cc.line : 64;
    pl->spacing = spacing ? spacing : pl->line;
    pl->paged = ax->paged;
    pl->esize = gc__chase_words_path(p) ? 4 : 8;
    pl->llc = gpu ? info->l2_size : cc.l3 ? cc.l3 : cc.l2 ? cc.l2 : info->l2_size;
    sweep(pl, ax->lo ? ax->lo : 16 * pl->spacing, axis_top(s, ax, pl), per_oct);
}

bool gc__chase_clocks(const struct gc_device_info *info)
{
    unsigned need = GC_CAP_INLINE_ASM | GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER;

    return (info->caps & need) == need;
}

/* ---- One point ---------------------------------------------------------- */

/* The chain's order for the ordered touch, into the pairs buffer (free once
 * the chain is installed): the slot of the k-th element from element 0. */
static int chase_order(struct chase_ctx *c, const uint32_t *next, size_t m)
{
    uint32_t *ord = malloc(m * sizeof(*ord));
    int rc;

    if (!ord)
        return GC_ENOMEM;
    /* The walk's order is stored after the chain (gc__chase_install_chain). */
    gc__chase_order_slots(&c->pl, next + m, m, ord);
    rc = gc__dev_write(c->s->dev, c->pairs, 0, ord, m * sizeof(*ord));
    free(ord);
    return rc;
}

static int point_clocks(struct chase_ctx *c, struct gc_kern *k, size_t fp, const uint32_t *next,
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
        /* A launch already times CHASE_CL_CPU_TIMED_S of loads: a sample
         * is that long (one launch; a few of the shortest), not the
         * engine's batch of ten, which the estimate from the least
         * disturbed samples does not need. */
        if (!m->sample_time_set && m->target_sample_s > CHASE_CL_CPU_TIMED_S)
            m->target_sample_s = CHASE_CL_CPU_TIMED_S;
    }
    return p;
}

/* The event path at footprint fp: the kernel launched with `loads` timed
 * loads (the short launch) and with twice as many (the long one). */
static int point_events(struct chase_ctx *c, struct gc_kern *k, int loads, size_t fp,
                        const uint32_t *next, size_t m, struct gc_stats *ns, double *best,
                        const char **how, double *mhz, struct gc_measurement *keep)
{
    struct gc_device *d = c->s->dev;
    struct gc_measurement m1 = {0}, m2 = {0};
    struct gc_arg a[6];
    int na = 0, rc, trips_at;
    unsigned block = 1;
    size_t dyn = 0;
    uint64_t o = ~0ULL;

    if (gc__chase_words_path(c->path)) {
        a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->words};
        if (c->path != PATH_CONSTANT)
            a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)(fp / 4)};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 0};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)m};
        trips_at = na++;
        if (c->path == PATH_SHARED) {
            dyn = fp;
            block = d->info.max_threads_per_block >= 64 ? 64 : 1;
        }
    } else {
        a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->buf};
        a[na++] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = 0};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)m};
        trips_at = na++;
    }
    a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->out};
    if (c->carveout && dyn == 0)
        dyn = CH_L1_DYN;
    struct gc_launch l = {{1, 1, 1}, {block, 1, 1}, dyn, a, na, 1};
    struct gc_sampling sp = events_sampling(c);
    gc__sampling_record(&sp, &c->r->sampling);
    for (int pass = 0; pass < 2; pass++) {
        uint64_t timed = (uint64_t)loads * (pass + 1);
        a[trips_at] =
            (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)(timed / CHASE_UNROLL)};
        rc = gc__dev_write(d, c->out, 0, &o, sizeof(o));
        if (rc)
            break;
        rc = gc__measure(c->s, sp, k, &l, NULL, NULL, 0, pass ? &m2 : &m1);
        if (rc)
            break;
        uint64_t got;
        rc = gc__dev_read(d, c->out, 0, &got, sizeof(got));
        if (rc)
            break;
        rc = gc__chase_verify_end(
            c, got, gc__chase_slot_of(&c->pl, gc__chase_walk(next, m, m + timed)), fp);
        if (rc)
            break;
    }
    if (rc)
        goto out;
    /* ns per load from the kernels' times per launch (their difference, or
     * a kernel's bound where it is inconsistent: gc__ksweep_diff). */
    rc = gc__ksweep_diff(m1.per_sample_s, m1.samples, m2.per_sample_s, m2.samples, (double)m,
                         (double)loads, CHASE_CL_MAX_OVERHEAD, 1e9, ns, best, how);
    if (rc)
        goto out;
    *mhz = m2.clock_mhz;
    gc__measurement_free(keep);
    *keep = m2;
    m2.per_sample_s = NULL;
    m2.per_sample_cycles = NULL;
out:
    gc__measurement_free(&m1);
    gc__measurement_free(&m2);
    return rc;
}

/* ---- The staircase benchmarks ------------------------------------------- */

/* One run of a one-SM chase benchmark: its context, kernels and curve. */
struct chase_run {
    struct chase_ctx c;
    struct gc_kern *k1; /* the chase kernel (cycle-path constant chase: per point) */
    struct gc_measurement keep;
    char (*labels)[48];
    uint32_t **cnext; /* cycle-path constant chase: the chain of kernel i */
    struct gc_ksweep_curve cv;
    double *xs;
    bool *planned;
    int nchase, all_req, per_oct, budget;
    size_t large;     /* bytes of the chase buffer on large pages */
    bool cconst;      /* cycle-path constant chase: one kernel per footprint */
    bool all;         /* memory.latency.l2's every-SM chase follows */
    bool clk_nominal; /* the event path's cycles come from the nominal clock */
};

/* The event path's timed loads of the short launch at footprint fp: on a
 * CPU as many as last CHASE_CL_CPU_TIMED_S at the latency of the nearest
 * smaller footprint measured (latency grows with the footprint), within
 * [CHASE_CL_CPU_MIN_LOADS, c->loads]; elsewhere c->loads. A multiple of
 * CHASE_UNROLL. */
static int event_loads(const struct chase_run *R, size_t fp)
{
    const struct chase_ctx *c = &R->c;
    double lat = NAN;

    if (c->s->dev->info.type == GC_DEVICE_GPU)
        return c->loads;
    for (int i = 0; i < R->cv.n; i++)
        if (R->cv.pt[i].x < (double)fp && isfinite(R->cv.pt[i].y[1]) && R->cv.pt[i].y[1] > 0)
            lat = R->cv.pt[i].y[1]; /* ns per load; the points are in x order */
    if (!isfinite(lat))
        return c->loads;
    double want = CHASE_CL_CPU_TIMED_S / (lat * 1e-9);
    int n = want >= c->loads                 ? c->loads
            : want <= CHASE_CL_CPU_MIN_LOADS ? CHASE_CL_CPU_MIN_LOADS
                                             : (int)want;
    return n / CHASE_UNROLL * CHASE_UNROLL;
}

/* The per-point work of the one-SM staircase (gc_ksweep_point_fn): the
 * chain of footprint fp installed, the chase launched and checked. */
static int one_point(void *u, size_t fp, int i, struct gc_ksweep_pt *p)
{
    struct chase_run *R = u;
    struct chase_ctx *c = &R->c;
    struct gc_session *s = c->s;
    struct gc_device *d = s->dev;
    struct gc_kern *k = R->k1;
    uint32_t *next = NULL;
    size_t m = 0;
    struct gc_stats cyc = {0}, ns = {0};
    double mhz = NAN, best = NAN, to_cyc = NAN;
    const char *how = NULL;
    int rc;

    if (R->cconst) {
        next = R->cnext[i];
        R->cnext[i] = NULL;
        m = fp / c->pl.spacing;
        rc = d->ops->kernel(c->reqs[i].prog, "gc_chase", &k);
        if (rc)
            snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    } else {
        rc = gc__chase_install_chain(c, fp, 1, gc__chase_point_seed(s, i), &next, &m);
    }
    if (!rc && c->path == PATH_TEXTURE) {
        rc = d->ops->tex_create(c->buf, 0, fp, 2, &c->tex);
        if (rc)
            snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    }
    if (!rc) {
        if (c->clocks)
            rc = point_clocks(c, k, fp, next, m, &cyc, &ns, &mhz);
        else
            rc = point_events(c, k, event_loads(R, fp), fp, next, m, &ns, &best, &how, &mhz,
                              &R->keep);
    }
    if (c->tex) {
        d->ops->tex_destroy(d->dev, c->tex);
        c->tex = 0;
    }
    free(next);
    if (rc)
        return rc;
    if (c->clocks) {
        best = cyc.median;
        to_cyc = 1;
    } else {
        if (!(best > 0)) {
            gc__bench_set_error(c->r, GC_BENCH_ERROR,
                                "the %zu-byte footprint gave %.3g ns per load: the timing "
                                "noise exceeds the chase",
                                fp, best);
            return GC_EUNSTABLE;
        }
        R->clk_nominal = strcmp(R->keep.clock_source, "nominal") == 0;
        cyc = ns;
        if (isfinite(mhz) && mhz > 0) {
            gc__stats_scale(&cyc, mhz * 1e-3);
            to_cyc = mhz * 1e-3;
        } else {
            cyc.n = 0;
        }
    }
    /* CUDA: medians of the segments; OpenCL: the difference of the minima, or
     * a kernel's bound where it is inconsistent (gc__ksweep_diff), the spread
     * from the paired samples. */
    p->x = (double)fp;
    p->y[0] = cyc.n ? best * to_cyc : NAN;
    p->y[1] = c->clocks ? (ns.n ? ns.median : NAN) : best;
    p->mhz = mhz;
    p->st[0] = cyc;
    p->st[1] = ns;
    p->label = how;
    return 0;
}

/* The context and the plan; 1 (recorded as not available) where the device
 * cannot run the path. */
static int chase_setup(struct chase_run *R, struct gc_session *s, const struct chase_def *def,
                       struct gc_bench_result *r)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    struct chase_ctx *c = &R->c;

    R->all_req = -1;
    R->per_oct = s->profile == GC_PROFILE_QUICK ? 2 : s->profile == GC_PROFILE_FULL ? 8 : 4;
    /* Refinement costs little on a GPU (one launch per point, at most a few
     * tenths of a second past L2); a CPU chase lasts about a second per
     * point, so its budget is smaller, as is the quick profile's. */
    R->budget = info->type == GC_DEVICE_GPU && s->profile != GC_PROFILE_QUICK ? CHASE_MAX_POINTS
                                                                              : 6 * R->per_oct;
    if (def->path == PATH_TEXTURE && !d->ops->tex_create) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available on this device: the backend has no texture objects");
        return 1;
    }
    c->s = s;
    c->r = r;
    c->path = def->path;
    /* The cycle path's constant chase keeps its chain in the program's
     * constant array (one kernel per footprint). Where constant memory also
     * comes as buffer arguments (OpenCL), those are no constant-cache path
     * on an NVIDIA SM: the compiler reads an indexed __constant argument
     * with global loads through L1 (LDG.E.CONSTANT, docs/results/h200.md);
     * the program's array is in a constant bank, which it shares with other
     * data, so there the chase stops at CHASE_CONST_ARRAY_MAX. */
    c->clocks = gc__chase_clocks(info);
    c->nseg = s->profile == GC_PROFILE_QUICK ? 5 : s->profile == GC_PROFILE_FULL ? 25 : 9;
    /* The clock path's samples are its segments: an explicit --repeat is
     * their count (at most the full profile's). */
    if (s->sampling.samples_set)
        c->nseg = s->sampling.max_samples < 25 ? s->sampling.max_samples : 25;
    c->loads = c->clocks                     ? CHASE_SEG_LOADS
               : info->type == GC_DEVICE_GPU ? CHASE_CL_LOADS
                                             : CHASE_CL_CPU_LOADS;
    c->nsm = info->compute_units;
    gc__chase_make_plan(s, c->path, &c->pl);
    if (c->clocks && c->path == PATH_CONSTANT && gc__kgen_constant_args(s->dev->ops->dialect)) {
        while (c->pl.n > 2 && c->pl.fp[c->pl.n - 1] > CHASE_CONST_ARRAY_MAX)
            c->pl.n--;
        c->pl.bytes = c->pl.fp[c->pl.n - 1];
    }
    if (c->pl.n < 1 || c->pl.bytes < 2 * c->pl.spacing) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available on this device: too little memory for a %s chase",
                            gc__chase_path_name(c->path));
        return 1;
    }
    R->cconst = c->clocks && c->path == PATH_CONSTANT;
    /* The every-SM chase: memory.latency.l2 where the device has SM ids and
     * the shared memory to pin one block per SM, which only a backend that
     * knows the per-SM limits (the one with the occupancy API) can take:
     * OpenCL's per-group limit leaves several groups on an SM. */
    R->all = c->clocks && c->path == PATH_L2 && (info->caps & GC_CAP_SMID) &&
             (info->caps & GC_CAP_OCCUPANCY_API) && c->nsm > 1 && info->shared_per_block_optin > 0;
    return 0;
}

/* The kernel sources: the cycle-path constant chase has one per footprint (the
 * chain is its __constant__ data); CUDA has one chase kernel otherwise,
 * OpenCL two (short and long); global paths add the install kernel, and
 * memory.latency.l2 the every-SM chase. */
static int chase_gen_sources(struct chase_run *R)
{
    struct chase_ctx *c = &R->c;
    struct gc_session *s = c->s;
    enum gc_dialect dialect = s->dev->ops->dialect;

    R->nchase = R->cconst ? c->pl.n : 1;
    c->nreq = R->nchase + (gc__chase_words_path(c->path) ? 0 : 1) + (R->all ? 1 : 0);
    c->reqs = calloc((size_t)c->nreq, sizeof(*c->reqs));
    R->labels = calloc((size_t)c->nreq, sizeof(*R->labels));
    R->cnext = calloc((size_t)c->pl.n, sizeof(*R->cnext));
    R->cv.pt = calloc(CHASE_MAX_POINTS, sizeof(*R->cv.pt));
    if (!c->reqs || !R->labels || !R->cnext || !R->cv.pt)
        return GC_ENOMEM;
    for (int i = 0; i < R->nchase; i++) {
        struct kspec ks = {c->path, dialect, c->clocks, c->clocks ? c->loads : 0, c->nseg, NULL, 0};
        uint32_t *w = NULL;
        size_t m;
        if (R->cconst) {
            w = gc__chase_chain_words(&c->pl, c->pl.fp[i], gc__chase_point_seed(s, i), &R->cnext[i],
                                      &m);
            if (!w)
                return GC_ENOMEM;
            ks.cwords = w;
            ks.ncwords = c->pl.fp[i] / 4;
            snprintf(R->labels[i], sizeof(R->labels[i]), "chase_constant_%zu", c->pl.fp[i]);
        } else {
            if (c->clocks)
                snprintf(R->labels[i], sizeof(R->labels[i]), "chase_%s_%d",
                         gc__chase_path_name(c->path), ks.loads);
            else
                snprintf(R->labels[i], sizeof(R->labels[i]), "chase_%s_events",
                         gc__chase_path_name(c->path));
        }
        c->reqs[i].label = R->labels[i];
        c->reqs[i].src = gc__chase_gen(&ks);
        free(w);
        if (!c->reqs[i].src)
            return GC_ENOMEM;
    }
    if (!gc__chase_words_path(c->path)) {
        snprintf(R->labels[R->nchase], sizeof(R->labels[R->nchase]), "chase_install");
        c->reqs[R->nchase].label = R->labels[R->nchase];
        c->reqs[R->nchase].src = gc__chase_gen_install(dialect);
        if (!c->reqs[R->nchase].src)
            return GC_ENOMEM;
    }
    if (R->all) {
        R->all_req = c->nreq - 1;
        snprintf(R->labels[R->all_req], sizeof(R->labels[R->all_req]), "chase_l2_all_sms_%d",
                 c->nseg);
        c->reqs[R->all_req].label = R->labels[R->all_req];
        c->reqs[R->all_req].src = gc__chase_gen_all(dialect, c->loads, c->nseg, c->pl.spacing);
        if (!c->reqs[R->all_req].src)
            return GC_ENOMEM;
    }
    return 0;
}

static int chase_lookup(struct gc_device *d, struct gc_prog *prog, const char *name,
                        struct gc_kern **k)
{
    int rc = d->ops->kernel(prog, name, k);

    if (rc)
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    return rc;
}

/* Builds the kernels and sets what depends on them: the shared path's
 * largest footprint, the L1 paths' carve-out. */
static int chase_kernels(struct chase_run *R)
{
    struct chase_ctx *c = &R->c;
    struct gc_device *d = c->s->dev;
    int rc = gc__kcache_build(c->s, c->reqs, c->nreq);

    if (rc)
        return rc;
    if (!gc__chase_words_path(c->path) &&
        (rc = chase_lookup(d, c->reqs[R->nchase].prog, "gc_install", &c->install)))
        return rc;
    if (R->all && (rc = chase_lookup(d, c->reqs[R->all_req].prog, "gc_chase_all", &c->all)))
        return rc;
    if (!R->cconst && (rc = chase_lookup(d, c->reqs[0].prog, "gc_chase", &R->k1)))
        return rc;
    /* The shared path's largest footprints leave room for what the kernel
     * keeps in shared / local memory statically, known once it is built
     * (NVIDIA's OpenCL keeps a byte: 48 KiB of dynamic memory then fail to
     * launch). */
    if (!R->cconst && c->path == PATH_SHARED && d->ops->kernel_attrs) {
        int regs = 0, maxt = 0;
        size_t st = 0, cap = d->info.shared_per_block_optin;
        if (d->ops->kernel_attrs(R->k1, &regs, &st, &maxt) == 0 && st > 0 && cap > st)
            while (c->pl.n > 1 && c->pl.fp[c->pl.n - 1] > cap - st)
                c->pl.n--;
    }
    if (c->clocks &&
        (c->path == PATH_GLOBAL || c->path == PATH_READONLY || c->path == PATH_TEXTURE)) {
        /* The L1 paths ask for the largest L1 the SM can have: the unified
         * array's shared-memory carve-out at its minimum. */
        if (!d->ops->kernel_set_carveout)
            snprintf(c->carveout_err, sizeof(c->carveout_err),
                     "the backend cannot set the carve-out");
        else if (d->ops->kernel_set_carveout(R->k1, 0) == 0)
            c->carveout = true;
        else
            snprintf(c->carveout_err, sizeof(c->carveout_err), "carve-out not set: %.120s",
                     d->ops->last_error(d->dev));
    }
    return 0;
}

static int chase_buffers(struct chase_run *R)
{
    struct chase_ctx *c = &R->c;
    struct gc_device *d = c->s->dev;
    const struct gc_device_info *info = &d->info;
    int rc = gc__dev_alloc(d, 8 * (size_t)(3 + c->nseg), &c->out);

    if (rc)
        return rc;
    c->bytes = c->pl.bytes;
    if (gc__chase_words_path(c->path))
        return R->cconst ? 0 : gc__dev_alloc(d, c->pl.bytes, &c->words);
    /* The every-SM chase sweeps to 4x L2 whatever the profile: a point is
     * one slice per SM, so even the largest costs little, and its eq. 6 fit
     * of the whole L2 wants the DRAM plateau's full extent. */
    if (R->all && info->l2_size && 4 * info->l2_size > c->bytes &&
        4 * info->l2_size <= info->global_mem / 2)
        c->bytes = 4 * info->l2_size;
    size_t mmax = c->bytes / c->pl.spacing;
    /* The cache paths on a device that runs on host memory take large pages
     * where the host has them: the first-level TLB of a CPU core covers less
     * than its L2 with 4 KiB pages, and its misses would blur the L2 step.
     * The page-strided path measures the TLB itself and keeps the default
     * pages. */
    if (c->pl.paged)
        rc = gc__dev_alloc(d, c->bytes, &c->buf);
    else
        rc = gc__dev_alloc_large_pages(d, c->bytes, &c->buf, &R->large);
    if (rc || (rc = gc__dev_alloc(d, 2 * mmax * 8, &c->pairs)))
        return rc;
    /* Random data around the chain of the dense paths; the page-strided
     * buffer (up to GiBs) is left as allocated: only the chain is read. */
    return c->pl.paged ? 0 : gc__devfill_hash(c->s, c->buf, c->bytes, c->s->seed ^ 0xB0FULL);
}

/* The staircase's levels, the run's clock and the footprints metric. */
static int chase_metrics(struct chase_run *R, struct gc_ksweep_desc *sd)
{
    struct chase_ctx *c = &R->c;
    struct gc_bench_result *r = c->r;
    int np = R->cv.n;
    int rc;

    sd->series[0] = (struct gc_ksweep_series){
        "latency_cycles", "footprint", "B", R->clk_nominal ? "latency (nominal clock)" : "latency",
        "cycles/load"};
    sd->series[1] = (struct gc_ksweep_series){"latency_ns", "footprint", "B", "latency", "ns/load"};
    rc = gc__ksweep_series(r, sd, &R->cv, &R->xs, &R->planned);
    if (rc || np < 1 || !R->cv.complete)
        return rc;
    double *x = R->xs, *ycyc = R->xs + np, *yns = R->xs + 2 * np;
    bool have_cyc = true, have_ns = true;
    for (int i = 0; i < np; i++) {
        have_cyc = have_cyc && isfinite(ycyc[i]) && ycyc[i] > 0;
        have_ns = have_ns && isfinite(yns[i]) && yns[i] > 0;
    }
    if (have_ns && (c->clocks ? have_cyc : true))
        gc__chase_level_metrics(c, x, yns, ycyc, R->planned, np, have_cyc, c->clocks);
    double *mhzs = malloc((size_t)np * sizeof(*mhzs));
    if (!mhzs)
        return GC_ENOMEM;
    for (int i = 0; i < np; i++)
        mhzs[i] = R->cv.pt[i].mhz;
    struct gc_stats cs;
    gc__stats_compute(mhzs, np, &cs);
    free(mhzs);
    if (c->clocks) {
        r->context.sm_clock_mhz = cs.median;
        snprintf(r->context.sm_clock_source, sizeof(r->context.sm_clock_source),
                 "clock64/globaltimer");
    } else {
        r->context = R->keep.ctx;
        snprintf(r->stop_rule, sizeof(r->stop_rule), "%s", R->keep.stop_rule);
    }
    char note[400], bounds[96] = "", pages[64] = "", coarse[80] = "";
    int nb = 0;
    for (int i = 0; i < np; i++)
        nb += R->cv.pt[i].label != NULL;
    if (!c->clocks)
        snprintf(bounds, sizeof(bounds),
                 "; %d at a kernel's upper bound (labelled), the difference being "
                 "inconsistent",
                 nb);
    if (R->large > 0)
        snprintf(pages, sizeof(pages), "; %.0f of %.0f MiB on 2 MiB pages",
                 (double)R->large / 1048576.0, (double)c->bytes / 1048576.0);
    if (R->cv.planned < c->pl.n)
        snprintf(coarse, sizeof(coarse), "%d of the %d planned (the others on flat stretches), ",
                 R->cv.planned, c->pl.n);
    snprintf(note, sizeof(note),
             "%d footprints from %.0f B to %.0f B (%s%d added where the latency steps), "
             "elements %zu B apart%s%s%s",
             np, x[0], x[np - 1], coarse, np - R->cv.planned, c->pl.spacing,
             c->pl.paged ? " (one per page, at a random line of it)" : "", bounds, pages);
    gc__bench_add_metric(r, "footprints", np, "", NAN, NULL, note);
    return 0;
}

static void chase_free(struct chase_run *R)
{
    struct chase_ctx *c = &R->c;
    struct gc_device *d = c->s ? c->s->dev : NULL;

    gc__measurement_free(&R->keep);
    if (R->cnext)
        for (int i = 0; i < c->pl.n; i++)
            free(R->cnext[i]);
    free(R->cnext);
    free(R->cv.pt);
    free(R->xs);
    free(R->planned);
    if (d) {
        gc__dev_free(d, c->buf);
        gc__dev_free(d, c->out);
        gc__dev_free(d, c->pairs);
        gc__dev_free(d, c->words);
    }
    if (c->reqs)
        gc__kreq_release(c->s, c->reqs, c->nreq);
    free(c->reqs);
    free(R->labels);
}

/* The run's compile plan: the kernels run_chase builds (chase_setup and
 * chase_gen_sources on a scratch result, nothing measured). The L2
 * partition chase builds its own when it runs. */
static int plan_chase(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out,
                      int *n)
{
    const struct chase_def *def = self->param;
    struct gc_bench_result *scratch = NULL;
    struct gc_ksrc *k = NULL;
    struct chase_run R;
    int rc;

    *out = NULL;
    *n = 0;
    if (def->path == PATH_L2_PARTITION)
        return 0;
    if (!(scratch = calloc(1, sizeof(*scratch))))
        return GC_ENOMEM;
    memset(&R, 0, sizeof(R));
    rc = chase_setup(&R, s, def, scratch);
    if (rc == 0)
        rc = chase_gen_sources(&R);
    if (rc == 0 && !(k = calloc((size_t)R.c.nreq, sizeof(*k))))
        rc = GC_ENOMEM;
    for (int i = 0; rc == 0 && i < R.c.nreq; i++) {
        snprintf(k[i].label, sizeof(k[i].label), "%s", R.c.reqs[i].label);
        k[i].src = (char *)R.c.reqs[i].src; /* moves */
        R.c.reqs[i].src = NULL;
    }
    if (rc == 0) {
        *out = k;
        *n = R.c.nreq;
    }
    chase_free(&R);
    free(scratch);
    return rc > 0 ? 0 : rc;
}

static int run_chase(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    const struct chase_def *def = self->param;
    struct chase_run R;
    int rc;

    if (def->path == PATH_L2_PARTITION)
        return gc__chase_run_l2part(s, r);
    memset(&R, 0, sizeof(R));
    rc = chase_setup(&R, s, def, r);
    if (rc)
        return rc > 0 ? 0 : rc;
    if ((rc = chase_gen_sources(&R)) || (rc = chase_kernels(&R)) || (rc = chase_buffers(&R)))
        goto out;
    /* The planned sweep, then points where the latency steps (the CUDA
     * constant path compiles a kernel per footprint: planned ones only). */
    struct gc_ksweep_desc sd = gc__chase_staircase(
        &R.c, R.c.pl.fp, R.c.pl.n, R.cconst ? 0 : R.budget, R.c.pl.spacing, one_point, &R);
    rc = gc__ksweep_run(s, &sd, &R.cv);
    if (!rc)
        rc = chase_metrics(&R, &sd);
    if (!rc && R.all && !gc__stopped(s))
        rc = gc__chase_run_all_sms(&R.c, R.per_oct, R.budget);
    if (!rc && gc__stopped(s))
        rc = GC_EINTR;
out:
    chase_free(&R);
    return rc;
}

/* ---- Levels into metrics ------------------------------------------------ */

/* The L1 an SM keeps with the carve-out preference at 0: the unified L1 /
 * shared-memory array of the architecture table (the device reports only the
 * largest carve-out, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
 * less the carve-out the driver must still make (the smallest one, or the
 * smallest non-zero one where the system reserves shared memory in every
 * block). NAN where the array is not known; why says how it is derived. */
static double l1_expected(const struct gc_device *d, char *why, size_t len)
{
    const struct gc_device_info *info = &d->info;
    const struct gc_arch *a = &d->arch;
    int keep = a->l1_smallest_kib;

    why[0] = '\0';
    if (a->l1_unified_kib <= 0)
        return NAN;
    if (keep == 0 && info->shared_reserved_per_block > 0)
        keep = a->l1_nonzero_kib;
    snprintf(why, len,
             "carve-out pref. 0%%: %d KiB L1/shared array (CC %d.%d) less %d KiB kept "
             "(%s); at the %.0f KiB shared maximum L1 is %.0f KiB",
             a->l1_unified_kib, a->cc / 10, a->cc % 10, keep,
             keep == a->l1_smallest_kib ? "the smallest carve-out"
                                        : "smallest non-zero: blocks reserve some",
             info->shared_per_cu / 1024.0, a->l1_unified_kib - info->shared_per_cu / 1024.0);
    return (double)(a->l1_unified_kib - keep) * 1024;
}

/* Names the detected levels of a path's staircase: name[k] is the metric
 * prefix of level k. x_max is the largest footprint measured. */
static void level_names(const struct chase_ctx *c, const struct gc_cache_fit *f, double x_max,
                        char name[][24])
{
    const struct gc_device_info *info = &c->s->dev->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    int nl = f->nlevels;
    /* The sweep reached the backing store when it went well past the largest
     * cache known. */
    bool memory = c->pl.llc && x_max >= 2.0 * (double)c->pl.llc;
    /* One SM sees the L2 partition next to it first; where its footprint
     * outgrows that share, a plateau between the L2 and DRAM latencies can
     * follow until the footprint outgrows the whole L2 (H100/H200). */
    double l2 = (double)info->l2_size;

    for (int k = 0; k < nl; k++)
        snprintf(name[k], 24, "level%d", k + 1);
    switch (c->path) {
    case PATH_TLB:
        for (int k = 0; k < nl; k++)
            snprintf(name[k], 24, "tlb%d", k + 1);
        return;
    case PATH_CONSTANT:
    case PATH_SHARED:
    case PATH_PRIVATE:
        for (int k = 0; k < nl; k++)
            /* Path names have at most 8 characters and there are at most
             * GC_CACHE_MAX_LEVELS levels: the name always fits. */
            snprintf(name[k], 24, "%.8s_level%u", gc__chase_path_name(c->path),
                     (unsigned)(k + 1) & 0xffu);
        return;
    case PATH_L2:
        if (nl >= 1)
            snprintf(name[0], 24, "l2");
        if (nl >= 2)
            snprintf(name[nl - 1], 24, "dram");
        if (nl == 3 && l2 > 0 && f->level[1].capacity >= l2 / 2 && f->level[1].capacity <= 2 * l2)
            snprintf(name[1], 24, "l2_spill");
        return;
    default:
        break;
    }
    if (!gpu) {
        /* A CPU staircase has more steps than caches (the TLBs add theirs,
         * and part of L1 can be taken by other work on the core), so L1, L2
         * and L3 are the steps nearest to the sizes sysfs gives, when within
         * a factor of 4, L1 first; the other steps keep their position as
         * name. Without a sysfs size for L1, the first plateau is L1. */
        struct chase_cpu_caches cc;
        size_t want[3];
        cpu_caches(&cc);
        want[0] = cc.l1d;
        want[1] = cc.l2;
        want[2] = cc.l3;
        for (int w = 0; w < 3; w++) {
            int best = -1;
            for (int k = 0; want[w] && k + 1 < nl; k++) {
                double dk = fabs(log(f->level[k].capacity / (double)want[w]));
                if (dk < log(4.0) && strncmp(name[k], "level", 5) == 0 &&
                    (best < 0 || dk < fabs(log(f->level[best].capacity / (double)want[w]))))
                    best = k;
            }
            if (best >= 0)
                snprintf(name[best], 24, "l%d", w + 1);
            else if (w == 0 && nl >= 1)
                snprintf(name[0], 24, "l1");
        }
        if (memory && nl >= 2)
            snprintf(name[nl - 1], 24, "dram");
        return;
    }
    if (nl == 2 && l2 > 0 && f->level[0].capacity > l2 / 4) {
        /* No L1 step: the path does not cache in L1. */
        snprintf(name[0], 24, "l2");
        snprintf(name[1], 24, "dram");
        return;
    }
    /* L1, then the L2 as one SM sees it (the first level after L1, whatever
     * its size: a partitioned L2 gives one SM less than the whole), DRAM. */
    if (nl >= 1)
        snprintf(name[0], 24, "l1");
    if (nl >= 2)
        snprintf(name[1], 24, "l2");
    if (nl >= 3 || (nl >= 2 && memory))
        snprintf(name[nl - 1], 24, "dram");
    if (nl == 4 && l2 > 0 && f->level[2].capacity >= l2 / 2 && f->level[2].capacity <= 2 * l2)
        snprintf(name[2], 24, "l2_spill");
}

/* The metric name of a level's capacity, its limit where the device or the
 * host says it, and what the note adds. */
static double level_size(const struct chase_ctx *c, const char *name, char *mname, size_t mlen,
                         char *src, size_t len)
{
    const struct gc_device_info *info = &c->s->dev->info;
    struct chase_cpu_caches cc;

    src[0] = '\0';
    snprintf(mname, mlen, "%s_%s_bytes", name, c->path == PATH_TLB ? "reach" : "size");
    if (info->type == GC_DEVICE_GPU) {
        if (strcmp(name, "l2") == 0) {
            if (info->l2_size)
                snprintf(src, len,
                         "one SM: its share of L2 (a split L2's near partition); the whole %.0f "
                         "KiB reported%s",
                         info->l2_size / 1024.0,
                         c->clocks ? " is measured from every SM in memory.latency.l2 "
                                     "(l2_all_sms_size_bytes)"
                                   : "");
            return NAN;
        }
        if (strcmp(name, "l2_spill") == 0) {
            snprintf(src, len,
                     "one SM: end of the plateau between its L2 and DRAM latencies; %.0f KiB "
                     "of L2 reported in all",
                     info->l2_size / 1024.0);
            return NAN;
        }
        if (strcmp(name, "l1") == 0) {
            char why[400];
            double v = c->carveout ? l1_expected(c->s->dev, why, sizeof(why)) : NAN;
            if (isfinite(v)) {
                snprintf(src, len, "%s", why);
                return v;
            }
            if (info->shared_per_cu)
                snprintf(src, len,
                         "L1 and shared memory share one array per SM; shared memory may take "
                         "up to %.0f KiB of it%s%s",
                         info->shared_per_cu / 1024.0, c->carveout_err[0] ? "; " : "",
                         c->carveout_err);
            else if (c->carveout_err[0])
                snprintf(src, len, "%s", c->carveout_err);
        }
        return NAN;
    }
    if (info->type != GC_DEVICE_CPU)
        return NAN;
    cpu_caches(&cc);
    size_t v = strcmp(name, "l1") == 0   ? cc.l1d
               : strcmp(name, "l2") == 0 ? cc.l2
               : strcmp(name, "l3") == 0 ? cc.l3
                                         : 0;
    if (!v)
        return NAN;
    snprintf(src, len, "%s says %.0f KiB for cpu0 (the OpenCL driver reports %.0f KiB)", cc.source,
             v / 1024.0, info->l2_size / 1024.0);
    return (double)v;
}

void gc__chase_level_metrics(struct chase_ctx *c, const double *x, const double *y_ns,
                             const double *y_cyc, const bool *planned, int n, bool have_cyc,
                             bool detect_on_cycles)
{
    struct gc_bench_result *r = c->r;
    const double *y = detect_on_cycles ? y_cyc : y_ns;
    struct gc_cache_fit f;
    char names[GC_CACHE_MAX_LEVELS][24], mname[64], note[768], src[512];

    if (gc__cache_detect_refined(x, y, n, planned, &f) != 0 || f.nlevels == 0)
        return;
    level_names(c, &f, x[n - 1], names);
    /* The ratio between the two series (the clock) converts the levels. */
    for (int k = 0; k < f.nlevels; k++) {
        const struct gc_cache_level *L = &f.level[k];
        double to_cyc = 1, to_ns = 1;
        if (have_cyc && y_ns[L->first] > 0)
            to_cyc = y_cyc[L->first] / y_ns[L->first];
        if (detect_on_cycles && y_cyc[L->first] > 0)
            to_ns = y_ns[L->first] / y_cyc[L->first];
        double lat_ns = detect_on_cycles ? L->latency * to_ns : L->latency;
        double lat_cyc = detect_on_cycles ? L->latency : L->latency * to_cyc;

        if (isfinite(f.rms_rel))
            snprintf(note, sizeof(note),
                     "plateau of %d footprints (%.0f B .. %.0f B), median; eq. 6 fit %.4g %s, "
                     "fit rms %.1f%%",
                     L->last - L->first + 1, x[L->first], x[L->last], L->latency_fit,
                     detect_on_cycles ? "cycles" : "ns", 100 * f.rms_rel);
        else
            snprintf(note, sizeof(note),
                     "plateau of %d footprints (%.0f B .. %.0f B), median; no eq. 6 fit",
                     L->last - L->first + 1, x[L->first], x[L->last]);
        if (have_cyc) {
            snprintf(mname, sizeof(mname), "%s_latency_cycles", names[k]);
            gc__bench_add_metric(r, mname, lat_cyc, "cycles", NAN, NULL, note);
        }
        snprintf(mname, sizeof(mname), "%s_latency_ns", names[k]);
        gc__bench_add_metric(r, mname, lat_ns, "ns", NAN, NULL, note);
        if (!isfinite(L->capacity))
            continue;
        /* The size the device or the host reports is a reference, not a
         * bound: a chase's step lies where latency starts to rise, which
         * replacement, hashing and a victim cache below can move either way
         * (a 2 MiB L2 over a non-inclusive L3 was seen at 2.4 MiB). It goes
         * into the note, not into the limit the guard enforces. */
        double ref = level_size(c, names[k], mname, sizeof(mname), src, sizeof(src));
        char refs[64] = "";
        if (isfinite(ref))
            snprintf(refs, sizeof(refs), "; %.0f%% of the %.0f KiB reported",
                     100 * L->capacity / ref, ref / 1024);
        snprintf(note, sizeof(note), "%s, step between %.0f B and %.0f B%s%s%s",
                 isfinite(f.rms_rel) ? "eq. 6 fit" : "last footprint at the plateau (no eq. 6 fit)",
                 L->capacity_lo, L->capacity_hi, refs, src[0] ? "; " : "", src);
        gc__bench_add_metric(r, mname, L->capacity, "B", NAN, NULL, note);
    }
    if (c->path == PATH_TLB && f.nlevels >= 2) {
        snprintf(note, sizeof(note),
                 "first step of the page-strided chase (one access per %zu-byte page)",
                 c->pl.spacing);
        gc__bench_add_metric(r, "tlb_reach_bytes", f.level[0].capacity, "B", NAN, NULL, note);
    }
}

/* ---- Declared kernels and the family ------------------------------------ */

static int chase_sources(const struct gc_bench *self, const struct gc_device_info *info,
                         struct gc_ksrc **out, int *n)
{
    const struct chase_def *def = self->param;
    /* memory.latency.l2 also declares its every-SM chase. */
    struct gc_ksrc *k = calloc(2, sizeof(*k));
    struct plan pl = {.spacing = 64, .line = 64, .esize = 4};
    uint32_t *next = NULL, *w = NULL;
    size_t m;

    (void)info;
    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    if (def->path == PATH_L2_PARTITION) {
        k->src = gc__chase_gen_l2part(gc__kgen_inspect_dialect(), 4096);
    } else {
        struct kspec ks = {def->path, gc__kgen_inspect_dialect(), true, CHASE_SEG_LOADS, 9, NULL,
                           0};
        if (def->path == PATH_CONSTANT) {
            w = gc__chase_chain_words(&pl, 4096, 1, &next, &m);
            if (!w) {
                free(k);
                return GC_ENOMEM;
            }
            ks.cwords = w;
            ks.ncwords = 1024;
        }
        k->src = gc__chase_gen(&ks);
    }
    free(w);
    free(next);
    if (!k->src) {
        free(k);
        return GC_ENOMEM;
    }
    snprintf(k->label, sizeof(k->label), "chase_%s", gc__chase_path_name(def->path));
    k->expect[0] = (struct gc_sass_expect){gc__chase_path_sass(def->path), CHASE_UNROLL};
    k->nexpect = 1;
    *out = k;
    *n = 1;
    if (def->path == PATH_L2) {
        k[1].src = gc__chase_gen_all(gc__kgen_inspect_dialect(), CHASE_SEG_LOADS, 9, 128);
        if (!k[1].src) {
            gc__ksrc_free(k, 2);
            *out = NULL;
            *n = 0;
            return GC_ENOMEM;
        }
        snprintf(k[1].label, sizeof(k[1].label), "chase_l2_all_sms");
        k[1].expect[0] = (struct gc_sass_expect){gc__chase_path_sass(PATH_L2), CHASE_UNROLL};
        k[1].nexpect = 1;
        *n = 2;
    }
    return 0;
}

#define CHASE_METHOD_COMMON                                                                        \
    "Random walk (Lemeire et al. SVI-B/C; uCLbench S2.2): a random cycle over the elements of "    \
    "a footprint, built on the host, so that one pass visits every element once in random "        \
    "order and no prefetcher can guess the next. One thread chases j = next[j]: first a whole "    \
    "pass (warm-up: every access then has a reuse distance of the footprint), then a "             \
    "compile-time number of dependent loads in a loop unrolled 32 times. Devices with an "         \
    "in-kernel cycle counter (CUDA; NVIDIA's OpenCL through inline PTX): clock64 read "            \
    "between segments of 2048 loads (5/9/25 segments by profile are the samples), cycles per "     \
    "load = elapsed / loads, ns through the SM clock observed against %globaltimer. Others: "      \
    "event times of an N-load and a 2N-load kernel (N = 32768 on GPUs, 524288 on CPUs); ns per "   \
    "load = difference of the two kernels' minima over samples / N (launch overhead and warm-up "  \
    "cancel) where the launch overhead it implies is neither negative nor above 10% of the short " \
    "kernel's time; otherwise the two kernels ran in different modes and the tighter of their "    \
    "upper bounds, time / loads with the overhead included, stands (the point's label says "       \
    "which); cycles through the clock the engine observed "                                        \
    "(nominal where the device has no sensor, as the series says). The chase's final element "     \
    "is checked against the one the cycle predicts. Timed by events, the planned footprints are "  \
    "swept coarse to fine: every second one first, then, by bisection, those between measured "    \
    "neighbours whose latency differs by more than 8%, so flat stretches keep half their points. " \
    "After the planned footprints, every "                                                         \
    "interval where the latency changes by more than 5% (15% on CPUs) is split at its middle "     \
    "until neighbours are less than 3% apart, so that each step has points on it (CPUs: within "   \
    "a budget). Levels: plateaus of the staircase, capacity from a fit of eq. 6 (hit ratio = "     \
    "capacity / footprint) around each step, latency the plateau's median (see "                   \
    "docs/methodology.md). "

#define CUDA_CAPS (GC_CAP_INLINE_ASM | GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER)

/* The memory table's latency and capacity columns (2, 3); where two chases
 * measure a level, the one that isolates it has rank 0. */
static const struct gc_sum_cell global_cells[] = {
    GC_SUM_V(gc__sum_memory, "L1", 2, "l1_latency_cycles", "cycles"),
    GC_SUM_V(gc__sum_memory, "L1", 3, "l1_size_bytes", "B"),
    {.table = &gc__sum_memory,
     .row = "L2 (one SM)",
     .col = 2,
     .metric = "l2_latency_cycles",
     .unit = "cycles",
     .rank = 1},
    {.table = &gc__sum_memory,
     .row = "L2 (one SM)",
     .col = 3,
     .metric = "l2_size_bytes",
     .unit = "B",
     .rank = 1},
    GC_SUM_V(gc__sum_memory, "DRAM", 2, "dram_latency_cycles", "cycles"),
    {0},
};
static const struct gc_sum_cell l2_cells[] = {
    GC_SUM_V(gc__sum_memory, "L2 (one SM)", 2, "l2_latency_cycles", "cycles"),
    GC_SUM_V(gc__sum_memory, "L2 (one SM)", 3, "l2_size_bytes", "B"),
    GC_SUM_V(gc__sum_memory, "L2 (all SMs)", 2, "l2_all_sms_latency_cycles", "cycles"),
    GC_SUM_V(gc__sum_memory, "L2 (all SMs)", 3, "l2_total_size_bytes", "B"),
    {.table = &gc__sum_memory,
     .row = "L2 (all SMs)",
     .col = 3,
     .metric = "l2_all_sms_size_bytes",
     .unit = "B",
     .rank = 1},
    {.table = &gc__sum_memory,
     .row = "DRAM",
     .col = 2,
     .metric = "dram_latency_cycles",
     .unit = "cycles",
     .rank = 1},
    {0},
};
static const struct gc_sum_cell readonly_cells[] = {
    {.table = &gc__sum_memory,
     .row = "read-only / texture",
     .col = 2,
     .metric = "l1_latency_cycles",
     .unit = "cycles",
     .rank = 1},
    {0},
};
static const struct gc_sum_cell texture_cells[] = {
    GC_SUM_V(gc__sum_memory, "read-only / texture", 2, "l1_latency_cycles", "cycles"),
    {0},
};
static const struct gc_sum_cell constant_cells[] = {
    GC_SUM_V(gc__sum_memory, "constant", 2, "constant_level1_latency_cycles", "cycles"),
    {0},
};
static const struct gc_sum_cell shared_cells[] = {
    {.table = &gc__sum_memory,
     .row = "shared",
     .col = 2,
     .metric = "shared_level1_latency_cycles",
     .unit = "cycles",
     .rank = 1},
    {0},
};
static const struct gc_sum_cell private_cells[] = {
    GC_SUM_V(gc__sum_memory, "local / private", 2, "private_level1_latency_cycles", "cycles"),
    {0},
};
static const struct gc_sum_cell partition_cells[] = {
    GC_SUM_V(gc__sum_memory, "L2 near partition", 2, "l2_near_latency_cycles", "cycles"),
    GC_SUM_V(gc__sum_memory, "L2 far partition", 2, "l2_far_latency_cycles", "cycles"),
    {0},
};
static const struct gc_fig_rule chase_figures[] = {
    {"latency_cycles*|latency_ns*", "latency staircase", 0, NULL, false, true, false},
    {0},
};
static const struct gc_bench_report chase_reports[] = {
    {global_cells, chase_figures},    {l2_cells, chase_figures},
    {readonly_cells, chase_figures},  {texture_cells, chase_figures},
    {constant_cells, chase_figures},  {shared_cells, chase_figures},
    {private_cells, chase_figures},   {NULL, chase_figures},
    {partition_cells, chase_figures},
};

static const struct gc_bench benches[] = {
    {.info = {.name = "memory.latency.global",
              .group = "memory",
              .summary = "global-memory load latency vs footprint (L1, L2, DRAM staircase)",
              .method = CHASE_METHOD_COMMON
              "Path: default global loads (ld.global, cached in L1 and L2; OpenCL __global). "
              "Elements one cache line apart (128 B on GPUs, the CPU's line on CPUs); "
              "footprints 1 KiB to 4x the L2 in 2^(1/4) steps (CPUs: a few times the LLC, "
              "bounded by profile). Reports L1/L2/DRAM latency and the L1/L2 sizes. CUDA: the "
              "kernel's shared-memory carve-out preference is 0 (the largest L1); the L1 limit "
              "is the unified L1/shared array of the compute capability less the carve-out the "
              "driver keeps. On GPUs the L2 size is what one SM reaches (on a split L2, its "
              "near partition's share); memory.latency.l2 measures the whole L2."},
     .run = run_chase,
     .param = &defs[0],
     .sources = chase_sources,
     .plan = plan_chase,
     .report = &chase_reports[0]},
    {.info = {.name = "memory.latency.l2",
              .group = "memory",
              .summary = "L2-only load latency vs footprint (ld.global.cg: L1 bypassed)",
              .method = CHASE_METHOD_COMMON
              "Path: ld.global.cg (cache global: L2 only). One SM's staircase gives the L2 it "
              "reaches (l2_size_bytes: on a split L2, its near partition's share). The whole L2: "
              "the same chase from every SM at once, one warp per SM pinned by the shared "
              "memory it takes, each SM on its own disjoint slice (a cycle of its own) of the "
              "footprint, latency per SM from its own clock64, median over SMs; footprints L2/32 "
              "to 4x L2 in every profile, refined the same way; "
              "checked: every slice's end, one block per SM "
              "(%smid), overlapping timed windows. l2_all_sms_size_bytes = the step into DRAM, "
              "against the L2 size the device reports."},
     .needs_caps = CUDA_CAPS,
     .run = run_chase,
     .param = &defs[1],
     .sources = chase_sources,
     .plan = plan_chase,
     .report = &chase_reports[1]},
    {.info = {.name = "memory.latency.readonly",
              .group = "memory",
              .summary = "read-only (non-coherent) load latency vs footprint (ld.global.nc)",
              .method = CHASE_METHOD_COMMON "Path: ld.global.nc (the read-only data path)."},
     .needs_caps = CUDA_CAPS,
     .run = run_chase,
     .param = &defs[2],
     .sources = chase_sources,
     .plan = plan_chase,
     .report = &chase_reports[2]},
    {.info = {.name = "memory.latency.texture",
              .group = "memory",
              .summary = "texture fetch latency vs footprint (tex.1d on a linear texture object)",
              .method = CHASE_METHOD_COMMON
              "Path: tex.1d.v4.u32.s32 through a texture object over the buffer (linear, "
              "2 x u32 per texel, point sampling, integer reads); the chase carries indices."},
     .needs_caps = CUDA_CAPS,
     .run = run_chase,
     .param = &defs[3],
     .sources = chase_sources,
     .plan = plan_chase,
     .report = &chase_reports[3]},
    {.info = {.name = "memory.latency.constant",
              .group = "memory",
              .summary = "constant-memory load latency vs footprint (up to 64 KiB)",
              .method = CHASE_METHOD_COMMON
              "Path: constant memory, elements 64 B apart, 512 B to 64 KiB. CUDA: the chain is "
              "the initialiser of a __constant__ array, one kernel per footprint (LDC with a "
              "register index); OpenCL: a __constant pointer parameter."},
     .run = run_chase,
     .param = &defs[4],
     .sources = chase_sources,
     .plan = plan_chase,
     .report = &chase_reports[4]},
    {.info = {.name = "memory.latency.shared",
              .group = "memory",
              .summary = "shared-memory (OpenCL __local) load latency vs footprint",
              .method = CHASE_METHOD_COMMON
              "Path: shared memory (OpenCL __local) of the block, sized per footprint up to the "
              "per-block limit; the block copies the chain in, then thread 0 chases 32-bit "
              "indices."},
     .run = run_chase,
     .param = &defs[5],
     .sources = chase_sources,
     .plan = plan_chase,
     .report = &chase_reports[5]},
    {.info = {.name = "memory.latency.private",
              .group = "memory",
              .summary = "per-thread array (CUDA local / OpenCL __private) load latency",
              .method = CHASE_METHOD_COMMON
              "Path: a 4 KiB per-thread array indexed by the chase (so it cannot live in "
              "registers: CUDA local memory, OpenCL private), filled from global memory, "
              "footprints 512 B to 4 KiB."},
     .run = run_chase,
     .param = &defs[6],
     .sources = chase_sources,
     .plan = plan_chase,
     .report = &chase_reports[6]},
    {.info = {.name = "memory.latency.tlb",
              .group = "memory",
              .summary = "load latency vs footprint with one access per page (TLB reach)",
              .method = CHASE_METHOD_COMMON
              "Page-strided variant (Volkov S6.7): one element per page (2 MiB on GPUs, 4 KiB "
              "on CPUs) at a random line of the page so cache sets do not collide; footprints "
              "from 16 pages to several GiB on GPUs (4/16/64 GiB by profile, at most half the "
              "memory). CUDA uses ld.global.cg, so the few lines stay L2 hits and the steps "
              "are the TLBs'. tlb_reach_bytes = the first step."},
     .run = run_chase,
     .param = &defs[7],
     .sources = chase_sources,
     .plan = plan_chase,
     .report = &chase_reports[7]},
    {.info = {.name = "memory.latency.l2_partition",
              .group = "memory",
              .summary = "near/far L2 latency: SM 0 chasing data that SM k touched",
              .method =
                  "A chain of L2/8 (1..8 MiB, fits L2, not L1) with ld.global.cg. For each SM k "
                  "(every 8th in the quick profile): L2 flushed (a copy of 2x L2), one launch "
                  "of one block per SM (each takes the whole shared memory, so one fits per "
                  "SM) where only the block whose %smid is k walks the chain's first 4096 "
                  "elements, then the "
                  "same with SM 0 chasing 4096 loads timed by clock64. Series: SM 0's cycles "
                  "per load by toucher SM; near/far = min/max. Checks: exactly one block ran "
                  "on the chosen SM, and the chase ended where the cycle says."},
     /* One block per SM, pinned by its shared memory (see R->all). */
     .needs_caps = CUDA_CAPS | GC_CAP_SMID | GC_CAP_OCCUPANCY_API,
     .run = run_chase,
     .param = &defs[8],
     .sources = chase_sources,
     .plan = plan_chase,
     .report = &chase_reports[8]},
};

static int chase_count(void)
{
    return (int)(sizeof(benches) / sizeof(benches[0]));
}

static const struct gc_bench *chase_at(int i)
{
    return i >= 0 && i < chase_count() ? &benches[i] : NULL;
}

const struct gc_bench_family gc__bench_chase_family = {chase_count, chase_at};
