/* The L2 variants of the pointer chase: near and far partitions seen from
 * one SM (memory.latency.l2_partition), and every SM chasing at once so that
 * the whole L2 holds the footprint (memory.latency.l2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"
#include "core/devfill.h"
#include "core/stats.h"
#include "core/kcache.h"
#include "model/cache.h"

/* ---- The near/far L2 benchmark (CUDA) ----------------------------------- */

/* The partition kernel and the chain installer, built together. */
static int l2part_kernels(struct chase_ctx *c, struct gc_kreq req[2], char names[2][16], int loads,
                          struct gc_kern **k)
{
    struct gc_device *d = c->s->dev;
    int rc;

    req[0].label = names[0];
    req[0].src = gc__chase_gen_l2part(d->ops->dialect, loads);
    req[1].label = names[1];
    req[1].src = gc__chase_gen_install(d->ops->dialect);
    if (!req[0].src || !req[1].src)
        return GC_ENOMEM;
    rc = gc__kcache_build(c->s, req, 2);
    if (rc)
        return rc;
    if ((rc = d->ops->kernel(req[0].prog, "gc_l2part", k)) ||
        (rc = d->ops->kernel(req[1].prog, "gc_install", &c->install)))
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    return rc;
}

/* Phase 0: SM `sm` touches the chain's first `touch` lines; phase 1: SM 0
 * chases `loads` of them and times it (o[1]). Each phase checks that exactly
 * one block ran on its SM and that the chase ended where the host's walk
 * does. */
static int touch_then_chase(struct chase_ctx *c, struct gc_kern *k, int sm, size_t touch, int loads,
                            const uint32_t *next, size_t m, uint64_t o[3])
{
    struct gc_device *d = c->s->dev;
    const struct gc_device_info *info = &d->info;
    struct gc_bench_result *r = c->r;
    int rc, nsm = info->compute_units;
    size_t fp = c->pl.fp[0];
    double el;

    for (int phase = 0; phase < 2; phase++) {
        struct gc_arg a[6] = {
            {.type = GC_ARG_BUF, .v.buf = c->buf},
            {.type = GC_ARG_U64, .v.u64 = 0},
            {.type = GC_ARG_U32, .v.u32 = (uint32_t)touch},
            {.type = GC_ARG_U32, .v.u32 = phase ? 0u : (uint32_t)sm},
            {.type = GC_ARG_U32, .v.u32 = (uint32_t)phase},
            {.type = GC_ARG_BUF, .v.buf = c->out},
        };
        /* A block takes all the shared memory one may have, so at most one
         * fits on an SM and the nsm blocks cover every SM. */
        struct gc_launch l = {
            {(unsigned)nsm, 1, 1}, {32, 1, 1}, info->shared_per_block_optin, a, 6, 1};
        o[0] = o[1] = ~0ULL;
        o[2] = 0;
        if ((rc = gc__dev_write(d, c->out, 0, o, 3 * sizeof(*o))) ||
            (rc = gc__dev_launch(d, k, &l, &el)) ||
            (rc = gc__dev_read(d, c->out, 0, o, 3 * sizeof(*o))))
            return rc;
        uint64_t want =
            gc__chase_slot_of(&c->pl, gc__chase_walk(next, m, phase ? (uint64_t)loads : touch));
        if (o[2] != 1) {
            gc__bench_set_error(r, GC_BENCH_ERROR,
                                "%llu blocks ran on SM %d (expected exactly one): the "
                                "one-block-per-SM placement did not hold",
                                (unsigned long long)o[2], phase ? 0 : sm);
            rc = GC_EVERIFY;
            return rc;
        }
        rc = gc__chase_verify_end(c, o[0], want, fp);
        if (rc)
            return rc;
    }
    return 0;
}

/* The nearest and the farthest SM as SM 0 sees them: the L2's near and far
 * partitions. */
static void l2part_metrics(struct gc_bench_result *r, size_t fp, const double *lat, int nmeas,
                           int kmin, int kmax, int step)
{
    char note[256];
    snprintf(note, sizeof(note),
             "SM 0 chasing %.0f KiB with ld.global.cg after SM %d touched it (L2 flushed "
             "before each touch); min over %d SMs",
             fp / 1024.0, kmin * step, nmeas);
    gc__bench_add_metric(r, "l2_near_latency_cycles", lat[kmin], "cycles", NAN, NULL, note);
    snprintf(note, sizeof(note),
             "SM 0 chasing %.0f KiB with ld.global.cg after SM %d touched it (L2 flushed "
             "before each touch); max over %d SMs",
             fp / 1024.0, kmax * step, nmeas);
    gc__bench_add_metric(r, "l2_far_latency_cycles", lat[kmax], "cycles", NAN, NULL, note);
}

int gc__chase_run_l2part(struct gc_session *s, struct gc_bench_result *r)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    const int loads = 4096;
    size_t fp = info->l2_size ? info->l2_size / 8 : (size_t)4 << 20;
    struct chase_ctx c;
    struct gc_kreq req[2];
    struct gc_kern *k = NULL;
    struct gc_buf *flush = NULL;
    size_t flush_bytes = info->l2_size ? 2 * info->l2_size : (size_t)256 << 20;
    uint32_t *next = NULL;
    size_t m = 0;
    double *lat = NULL;
    int rc, nsm = info->compute_units, step = s->profile == GC_PROFILE_QUICK ? 8 : 1;
    char names[2][16] = {"l2part", "install"};

    memset(&c, 0, sizeof(c));
    memset(req, 0, sizeof(req));
    c.s = s;
    c.r = r;
    c.path = PATH_L2_PARTITION;
    c.clocks = true;
    fp = fp < ((size_t)1 << 20) ? (size_t)1 << 20 : fp > ((size_t)8 << 20) ? (size_t)8 << 20 : fp;
    c.pl.spacing = c.pl.line = 128;
    c.pl.esize = 8;
    c.pl.n = 1;
    c.pl.fp[0] = fp;
    if (nsm < 1 || !info->shared_per_block_optin) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available: the SM count or shared memory size is unknown");
        return 0;
    }
    rc = l2part_kernels(&c, req, names, loads, &k);
    if (rc)
        goto out;
    if ((rc = gc__dev_alloc(d, fp, &c.buf)) || (rc = gc__dev_alloc(d, 64, &c.out)) ||
        (rc = gc__dev_alloc(d, 2 * (fp / 128) * 8, &c.pairs)) ||
        (rc = gc__dev_alloc(d, flush_bytes, &flush)))
        goto out;
    if ((rc = gc__devfill_hash(s, c.buf, fp, s->seed ^ 0xC4A5EULL)) ||
        (rc = gc__devfill_hash(s, flush, flush_bytes, s->seed ^ 0xF1ULL)))
        goto out;
    rc = gc__chase_install_chain(&c, fp, 1, s->seed ^ 0x12ULL, &next, &m);
    if (rc)
        goto out;
    /* The touch walks exactly the lines the timed chase loads (the chain's
     * first `loads` elements): the rest of the cycle is never timed, and
     * walking it from one SM after a flush cost ~20 ms per SM at DRAM
     * latency. */
    size_t touch = m < (size_t)loads ? m : (size_t)loads;
    lat = malloc((size_t)nsm * sizeof(*lat));
    if (!lat) {
        rc = GC_ENOMEM;
        goto out;
    }
    struct gc_series *ser = gc__bench_add_series(r, "sm0_latency_after_touch_from_sm",
                                                 "SM that "
                                                 "touched the data",
                                                 "SM id", "latency on SM 0", "cycles/load");
    if (!ser) {
        rc = GC_ENOMEM;
        goto out;
    }
    int nmeas = 0, kmin = -1, kmax = -1;
    for (int sm = 0; sm < nsm && !gc__stopped(s); sm += step) {
        uint64_t o[3];
        /* Flush L2, let SM `sm` touch the chain, then chase it from SM 0. */
        rc = d->ops->copy(flush, flush_bytes / 2, flush, 0, flush_bytes / 2);
        if (rc) {
            snprintf(d->err, sizeof(d->err), "L2 flush: %s", d->ops->last_error(d->dev));
            goto out;
        }
        rc = touch_then_chase(&c, k, sm, touch, loads, next, m, o);
        if (rc)
            goto out;
        lat[nmeas] = (double)o[1] / loads;
        gc__series_add(ser, sm, lat[nmeas], NULL, NULL);
        if (kmin < 0 || lat[nmeas] < lat[kmin])
            kmin = nmeas;
        if (kmax < 0 || lat[nmeas] > lat[kmax])
            kmax = nmeas;
        nmeas++;
    }
    if (nmeas > 0)
        l2part_metrics(r, fp, lat, nmeas, kmin, kmax, step);
    if (gc__stopped(s))
        rc = GC_EINTR;
out:
    free(lat);
    free(next);
    gc__dev_free(d, flush);
    gc__dev_free(d, c.buf);
    gc__dev_free(d, c.out);
    gc__dev_free(d, c.pairs);
    gc__kreq_release(s, req, 2);
    return rc;
}

/* ---- The whole L2: every SM at once (CUDA) -------------------------------- */

/* qsort comparison of uint64_t. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t u = *(const uint64_t *)a, v = *(const uint64_t *)b;

    return (u > v) - (u < v);
}

/* One footprint of the every-SM chase: nsm disjoint cycles (slices), one
 * warp per SM chasing its own, all at once. The point's latency is the
 * median over the SMs of each SM's median segment (its own clock64); the
 * spread is over the SMs. Checked: every slice ended where its cycle says,
 * every block ran on its own SM, and the timed loads of all SMs overlapped. */
static int all_point(void *u, size_t fp, int i, struct gc_ksweep_pt *p)
{
    struct chase_ctx *c = u;
    struct gc_device *d = c->s->dev;
    const struct gc_device_info *info = &d->info;
    int nsm = c->nsm, w = ALL_REC_HEAD + c->nseg, rc;
    size_t nw = (size_t)nsm * (size_t)w, m = 0;
    uint64_t *o = malloc(nw * sizeof(*o)), *smid = malloc((size_t)nsm * sizeof(*smid));
    double *lat = malloc((size_t)nsm * sizeof(*lat)), *mhz = malloc((size_t)nsm * sizeof(*mhz));
    double *seg = malloc((size_t)c->nseg * sizeof(*seg));
    uint32_t *next = NULL;
    struct gc_stats st;

    if (!o || !smid || !lat || !mhz || !seg) {
        rc = GC_ENOMEM;
        goto out;
    }
    rc = gc__chase_install_chain(c, fp, nsm, gc__chase_point_seed(c->s, 4096 + i), &next, &m);
    if (rc)
        goto out;
    size_t ms = m / (size_t)nsm;
    memset(o, 0xFF, nw * sizeof(*o)); /* poison */
    if ((rc = gc__dev_write(d, c->all_out, 0, o, nw * sizeof(*o))))
        goto out;
    struct gc_arg a[3] = {
        {.type = GC_ARG_BUF, .v.buf = c->buf},
        {.type = GC_ARG_U32, .v.u32 = (uint32_t)ms},
        {.type = GC_ARG_BUF, .v.buf = c->all_out},
    };
    /* A block takes all the shared memory one may have, so at most one fits
     * on an SM and the nsm blocks cover every SM. */
    struct gc_launch l = {{(unsigned)nsm, 1, 1}, {32, 1, 1}, info->shared_per_block_optin, a, 3, 1};
    double el;
    if ((rc = gc__dev_launch(d, c->all, &l, &el)) ||
        (rc = gc__dev_read(d, c->all_out, 0, o, nw * sizeof(*o))))
        goto out;
    uint64_t t0max = 0, t1min = UINT64_MAX;
    for (int b = 0; b < nsm; b++) {
        const uint64_t *ob = o + (size_t)b * (size_t)w;
        uint32_t first = (uint32_t)((size_t)b * ms);
        uint64_t want = gc__chase_slot_of(
            &c->pl, gc__chase_end(next, m, first, ms, ms + (uint64_t)c->nseg * (uint64_t)c->loads));
        rc = gc__chase_verify_end(c, ob[0], want, fp);
        if (rc)
            goto out;
        smid[b] = ob[1];
        t0max = ob[2] > t0max ? ob[2] : t0max;
        t1min = ob[3] < t1min ? ob[3] : t1min;
        for (int k = 0; k < c->nseg; k++)
            seg[k] = (double)(ob[ALL_REC_HEAD + k] - ob[ALL_REC_HEAD - 1 + k]) / c->loads;
        gc__stats_compute(seg, c->nseg, &st);
        lat[b] = st.median;
        mhz[b] =
            ob[3] > ob[2]
                ? gc__clock_mhz(d, (double)(ob[ALL_REC_HEAD - 1 + c->nseg] - ob[ALL_REC_HEAD - 1]),
                                (double)(ob[3] - ob[2]))
                : NAN;
    }
    qsort(smid, (size_t)nsm, sizeof(*smid), cmp_u64);
    for (int b = 1; b < nsm; b++)
        if (smid[b] == smid[b - 1]) {
            gc__bench_set_error(c->r, GC_BENCH_ERROR,
                                "two blocks of the every-SM chase ran on SM %llu (one per SM "
                                "expected): the one-block-per-SM placement did not hold",
                                (unsigned long long)smid[b]);
            rc = GC_EVERIFY;
            goto out;
        }
    if (!(t0max < t1min)) {
        gc__bench_set_error(c->r, GC_BENCH_ERROR,
                            "the SMs of the every-SM chase did not all chase at once (%zu-byte "
                            "footprint): the last started after the first finished",
                            fp);
        rc = GC_EVERIFY;
        goto out;
    }
    gc__stats_compute(lat, nsm, &p->st[0]);
    gc__stats_compute(mhz, nsm, &st);
    p->x = (double)(ms * (size_t)nsm * c->pl.spacing);
    p->y[0] = p->st[0].median;
    p->mhz = st.median;
    p->st[1] = p->st[0];
    if (isfinite(p->mhz) && p->mhz > 0) {
        gc__stats_scale(&p->st[1], 1e3 / p->mhz);
        p->y[1] = p->st[1].median;
    } else {
        p->st[1].n = 0;
        p->y[1] = NAN;
    }
out:
    free(next);
    free(o);
    free(smid);
    free(lat);
    free(mhz);
    free(seg);
    return rc;
}

/* Levels of the every-SM staircase: the capacity of the step into its last
 * level (the backing store) is the L2 the whole GPU holds, compared with the
 * size the device reports. */
static void add_all_sms_metrics(struct chase_ctx *c, const double *x, const double *y_ns,
                                const double *y_cyc, const bool *planned, int n)
{
    const struct gc_device_info *info = &c->s->dev->info;
    struct gc_cache_fit f;
    char mname[64], note[256];

    if (gc__cache_detect_refined(x, y_cyc, n, planned, &f) != 0 || f.nlevels == 0)
        return;
    int nl = f.nlevels;
    for (int k = 0; k < nl; k++) {
        const struct gc_cache_level *L = &f.level[k];
        char name[32];
        if (k == 0)
            snprintf(name, sizeof(name), "l2_all_sms");
        else if (k == nl - 1)
            snprintf(name, sizeof(name), "dram_all_sms");
        else
            snprintf(name, sizeof(name), "all_sms_level%d", k + 1);
        snprintf(note, sizeof(note),
                 "every SM chasing its own slice at once, median over SMs; plateau of %d "
                 "footprints (%.0f B .. %.0f B)",
                 L->last - L->first + 1, x[L->first], x[L->last]);
        snprintf(mname, sizeof(mname), "%s_latency_cycles", name);
        gc__bench_add_metric(c->r, mname, L->latency, "cycles", NAN, NULL, note);
        double to_ns = y_cyc[L->first] > 0 ? y_ns[L->first] / y_cyc[L->first] : NAN;
        snprintf(mname, sizeof(mname), "%s_latency_ns", name);
        gc__bench_add_metric(c->r, mname, L->latency * to_ns, "ns", NAN, NULL, note);
        if (!isfinite(L->capacity))
            continue;
        bool whole = k == nl - 2;
        if (whole)
            snprintf(mname, sizeof(mname), "l2_all_sms_size_bytes");
        else
            snprintf(mname, sizeof(mname), "all_sms_step%d_bytes", k + 1);
        snprintf(note, sizeof(note),
                 "every SM chasing its own slice at once (ld.global.cg): %s of the step %s, "
                 "between %.0f B and %.0f B; the device reports %.0f KiB of L2",
                 isfinite(f.rms_rel) ? "eq. 6 fit" : "last footprint at the plateau",
                 whole ? "into the last level" : "before the last one", L->capacity_lo,
                 L->capacity_hi, info->l2_size / 1024.0);
        gc__bench_add_metric(c->r, mname, L->capacity, "B", NAN, NULL, note);
    }
}

int gc__chase_run_all_sms(struct chase_ctx *c, int per_oct, int budget)
{
    struct gc_device *d = c->s->dev;
    const struct gc_device_info *info = &d->info;
    size_t granule = c->pl.spacing * (size_t)c->nsm, lo, hi = c->bytes;
    size_t fps[CHASE_MAX_POINTS];
    struct gc_ksweep_curve cv = {0};
    double *xs = NULL;
    bool *planned = NULL;
    int nfp = 0, rc;

    lo = info->l2_size ? info->l2_size / 32 : (size_t)1 << 20;
    if (lo < 4 * granule)
        lo = 4 * granule;
    for (int k = 0; nfp < CHASE_MAX_POINTS / 2; k++) {
        double v = (double)lo * pow(2.0, (double)k / per_oct);
        size_t f = (size_t)v / granule * granule;
        if (f > hi)
            break;
        if (nfp == 0 || f > fps[nfp - 1])
            fps[nfp++] = f;
    }
    if (nfp < 3)
        return 0;
    if (gc__ksweep_curve_init(&cv, CHASE_MAX_POINTS))
        return GC_ENOMEM;
    rc = gc__dev_alloc(d, (size_t)c->nsm * (ALL_REC_HEAD + (size_t)c->nseg) * 8, &c->all_out);
    if (rc)
        goto out;
    struct gc_ksweep_desc sd = gc__chase_staircase(c, fps, nfp, budget, granule, all_point, c);
    sd.series[0] =
        (struct gc_ksweep_series){"latency_cycles_all_sms", "footprint", "B",
                                  "latency, every SM at once (median over SMs)", "cycles/load"};
    sd.series[1] =
        (struct gc_ksweep_series){"latency_ns_all_sms", "footprint", "B", "latency", "ns/load"};
    rc = gc__ksweep_run(c->s, &sd, &cv);
    if (rc)
        goto out;
    rc = gc__ksweep_series(c->r, &sd, &cv, &xs, &planned);
    if (rc)
        goto out;
    if (!gc__stopped(c->s) && cv.n >= 3)
        add_all_sms_metrics(c, xs, xs + 2 * cv.n, xs + cv.n, planned, cv.n);
    char note[256];
    snprintf(note, sizeof(note),
             "%d footprints from %.0f B to %.0f B (%d added where the latency steps), each "
             "split into %d disjoint slices, one per SM, chased by all SMs at once",
             cv.n, cv.n ? cv.pt[0].x : 0.0, cv.n ? cv.pt[cv.n - 1].x : 0.0, cv.n - cv.planned,
             c->nsm);
    gc__bench_add_metric(c->r, "footprints_all_sms", cv.n, "", NAN, NULL, note);
out:
    free(xs);
    free(planned);
    gc__ksweep_curve_free(&cv);
    gc__dev_free(d, c->all_out);
    c->all_out = NULL;
    return rc;
}
