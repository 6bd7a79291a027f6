/* The measurement engine of the latency-hiding benchmarks (Volkov §5.5-5.10,
 * §6.1-6.3): mixes planned per device, chase arrays laid out on the device,
 * one launch shape per occupancy with every chain verified, per-warp
 * timestamps turned into span, warp latency and attained occupancy, and the
 * per-type figures of Tables 6.1-6.4. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/hiding/hiding.h"
#include "core/cpulimits.h"
#include "core/devfill.h"
#include "core/stats.h"
#include "model/pipeline.h"
#include "util/parallel.h"

#define KiB ((size_t)1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)

/* Cycles one warp should spend in a launch on a GPU: long against the
 * prologue (a few hundred cycles at most: under 0.5%) and against the clock
 * granularity, short enough that a whole sweep takes seconds. */
#define WARP_TARGET_CYCLES 2e5
/* Instructions in one trip of the timed loop on a GPU (§5.1: 500 to 1,000,
 * so that the instruction cache holds the loop), and on a CPU device, whose
 * OpenCL compiler takes seconds on long bodies. */
#define BODY_GPU 768
#define BODY_CPU 48
/* Latencies assumed for planning only (cycles per group on a current GPU);
 * measurements never use them. */
static const double plan_latency[GC_MIX_NOPS] = {0, 20, 30, 40, 700, 1000};
#define PLAN_ADD_LATENCY 4.5
/* Most timed launches per point. */
#define MAX_REPS 256

static bool chase_op(enum gc_mix_op op)
{
    return op == GC_MIX_GLOBAL || op == GC_MIX_RANDOM;
}

int gc__hid_max_warps(const struct gc_device_info *info)
{
    int simd = info->simd_width > 0 ? info->simd_width : 32;
    int m;

    if (info->type != GC_DEVICE_GPU) {
        /* A CPU runs work-groups one after another per core: a few "warps"
         * show the trend without long runs. */
        m = info->max_threads_per_block / simd;
        return m < 1 ? 1 : m > 4 ? 4 : m;
    }
    /* No resident-thread limit reported (NVIDIA's OpenCL gives its compute
     * capability only): the architecture's, so that the sweep reaches full
     * occupancy rather than one work-group per SM. The attained occupancy
     * is read from the warps' timestamps either way. */
    struct gc_device_info in = *info;
    struct gc_arch a;

    gc__arch_lookup(info, &a);
    gc__arch_fill_residency(&a, &in);
    m = in.max_threads_per_cu > 0 ? in.max_threads_per_cu / simd : in.max_threads_per_block / simd;
    return m < 1 ? 1 : m;
}

size_t gc__hid_chain_bytes(const struct gc_device_info *info)
{
    bool gpu = info->type == GC_DEVICE_GPU;
    size_t want = gpu ? (info->l2_size ? 16 * info->l2_size : 256 * MiB) : 16 * MiB;
    size_t lo = gpu ? 64 * MiB : 4 * MiB, hi = gpu ? 4 * GiB : 16 * MiB, p = lo;

    /* A power of two: the random layout orders 2^k lines. 4 GiB keeps the
     * biased indices of the stream layout below 2^31 and the random one's
     * lines at 2^25. */
    while (p < want && p < hi)
        p *= 2;
    while (p > lo / 16 && ((info->max_alloc && p > info->max_alloc) ||
                           (info->global_mem && p > info->global_mem / 4)))
        p /= 2;
    return p;
}

static int ilog2(size_t v)
{
    int k = 0;

    while (((size_t)1 << (k + 1)) <= v)
        k++;
    return k;
}

void gc__hid_plan(const struct gc_device_info *info, enum gc_mix_op op, int alpha, int ilp,
                  int lines, bool sample, int warps_max, struct gc_mix_cfg *out)
{
    bool gpu = info->type == GC_DEVICE_GPU;
    int simd = info->simd_width > 0 ? info->simd_width : 32;
    int cus = info->compute_units > 0 ? info->compute_units : 1;
    int wmax = warps_max > 0 ? warps_max : gc__hid_max_warps(info);
    /* Instructions per group: the studied one (two for a global load: the
     * 64-bit address takes an IMAD.WIDE) and the adds. */
    int ipg = (op == GC_MIX_ADD ? 0 : chase_op(op) ? 2 : 1) + alpha;
    double groups, words = (double)(gc__hid_chain_bytes(info) / 4);
    double threads = (double)cus * wmax * simd;
    int unroll;

    if (ipg < 1)
        ipg = 1;
    memset(out, 0, sizeof(*out));
    out->op = op;
    out->alpha = alpha;
    out->ilp = ilp;
    out->lines = op == GC_MIX_RANDOM ? lines : 0;
    out->sample = sample;
    unroll = (gpu ? BODY_GPU : BODY_CPU) / (ipg * ilp);
    if (unroll < 1)
        unroll = 1;
    if (gpu) {
        double lat = plan_latency[op] + PLAN_ADD_LATENCY * alpha;
        /* One warp lasts about WARP_TARGET_CYCLES; at the most warps, issue
         * (4 per clock per SM) lets a launch last at most 16 times that. */
        groups = WARP_TARGET_CYCLES / lat;
        groups = fmin(groups, 16 * WARP_TARGET_CYCLES / ((double)wmax * ilp * ipg));
    } else {
        groups = (chase_op(op) ? 256.0 : 1024.0) / ilp;
    }
    /* Every entry at most once per launch (§5.10, §6.7). */
    if (op == GC_MIX_GLOBAL)
        groups = fmin(groups, floor(words / (threads * ilp)));
    if (op == GC_MIX_RANDOM) {
        double chains = ceil(threads / 32) * lines * ilp;

        groups = fmin(groups, floor(words / 32 / chains));
    }
    if (groups < 1)
        groups = 1;
    /* At least two trips: a loop of one trip is no loop to the compiler, and
     * the SASS checks look for the timed loop. */
    if (unroll > groups / 2)
        unroll = groups >= 2 ? (int)(groups / 2) : 1;
    if (sample) {
        unroll = unroll / 8 * 8;
        if (unroll < 8)
            unroll = 8;
    }
    out->unroll = unroll;
    out->trips = (int)(groups / unroll);
    if (out->trips < 1)
        out->trips = 1;
}

int gc__hid_occupancies(const struct gc_hid_ctx *x, int *out, int cap)
{
    static const int quick[] = {1, 2, 4, 8, 16, 24, 32, 48, 64};
    int n = 0;

    if (!x->gpu || x->s->profile == GC_PROFILE_QUICK) {
        int lim = x->gpu ? (int)(sizeof(quick) / sizeof(quick[0])) : 3;

        for (int i = 0; i < lim && n < cap && quick[i] <= x->max_warps; i++)
            out[n++] = quick[i];
        if (n < cap && n > 0 && out[n - 1] != x->max_warps && x->gpu)
            out[n++] = x->max_warps;
        return n;
    }
    return gc__sweep_warps(x->max_warps, out, cap);
}

/* Kept launches per point (after the checked warm-up): every launch gives
 * each warp's clocks, and the points of two launches agree to a fraction of
 * a percent on a GPU, so a third only adds time outside --full. An explicit
 * --repeat is the count. */
int gc__hid_reps(const struct gc_hid_ctx *x)
{
    if (x->s->sampling.samples_set)
        return x->s->sampling.max_samples;
    return x->s->profile == GC_PROFILE_FULL ? 5 : 2;
}

int gc__hid_ops_per_group(const struct gc_mix_cfg *c)
{
    return c->op == GC_MIX_ADD ? c->alpha : 1;
}

/* ---- Context ------------------------------------------------------------ */

static int add_reqs(struct gc_hid_ctx *x, int n, struct gc_kreq **first)
{
    struct gc_kreq *r = realloc(x->reqs, (size_t)(x->nreqs + n) * sizeof(*r));

    if (!r)
        return GC_ENOMEM;
    x->reqs = r;
    memset(r + x->nreqs, 0, (size_t)n * sizeof(*r));
    *first = r + x->nreqs;
    x->nreqs += n;
    return 0;
}

static int lookup(struct gc_hid_ctx *x, struct gc_prog *prog, const char *name, struct gc_kern **k)
{
    struct gc_device *d = x->d;
    int rc = d->ops->kernel(prog, name, k);

    if (rc)
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    return rc;
}

int gc__hid_build_src(struct gc_hid_ctx *x, const char *label, char *src, const char *name,
                      struct gc_kern **k)
{
    struct gc_kreq *rq;
    int rc;

    if (!src)
        return GC_ENOMEM;
    rc = add_reqs(x, 1, &rq);
    if (rc) {
        free(src);
        return rc;
    }
    rq->label = label;
    rq->src = src;
    rc = gc__kcache_build(x->s, rq, 1);
    if (!rc)
        rc = lookup(x, rq->prog, name, k);
    return rc;
}

int gc__hid_build(struct gc_hid_ctx *x, struct gc_hid_kern *ks, int n)
{
    struct gc_kreq *rq;
    int rc = add_reqs(x, n, &rq);

    if (rc)
        return rc;
    for (int i = 0; i < n; i++) {
        rq[i].label = ks[i].label;
        rq[i].src = gc__gen_mix(x->d->ops->dialect, x->flags, &ks[i].cfg);
        if (!rq[i].src)
            return GC_ENOMEM;
    }
    rc = gc__kcache_build(x->s, rq, n);
    for (int i = 0; !rc && i < n; i++)
        rc = lookup(x, rq[i].prog, "gc_mix", &ks[i].k);
    return rc;
}

int gc__hid_plan_sources(struct gc_session *s, const struct gc_hid_kern *ks, int n, bool chase,
                         struct gc_ksrc **out, int *nout)
{
    const struct gc_device *d = s->dev;
    unsigned need = GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER | GC_CAP_SMID;
    unsigned flags = (d->info.caps & need) == need ? GC_KGEN_WARP_TIMESTAMPS : 0;
    struct gc_ksrc *k = calloc((size_t)n + 1, sizeof(*k));
    int m = 0;

    *out = NULL;
    *nout = 0;
    if (!k)
        return GC_ENOMEM;
    if (chase) {
        snprintf(k[m].label, sizeof(k[m].label), "hiding_fill");
        if (!(k[m++].src = gc__gen_mix_fill(d->ops->dialect)))
            goto nomem;
    }
    for (int i = 0; i < n; i++) {
        snprintf(k[m].label, sizeof(k[m].label), "%s", ks[i].label);
        if (!(k[m++].src = gc__gen_mix(d->ops->dialect, flags, &ks[i].cfg)))
            goto nomem;
    }
    *out = k;
    *nout = m;
    return 0;
nomem:
    gc__ksrc_free(k, m);
    return GC_ENOMEM;
}

int gc__hid_open(struct gc_hid_ctx *x, struct gc_session *s, struct gc_bench_result *r, bool chase)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    size_t threads;
    int rc;

    memset(x, 0, sizeof(*x));
    x->s = s;
    x->r = r;
    x->d = d;
    x->sm = d->arch.sm;
    x->clocks = (info->caps & GC_CAP_CLOCK64) && (info->caps & GC_CAP_GLOBALTIMER) &&
                (info->caps & GC_CAP_SMID);
    x->gpu = info->type == GC_DEVICE_GPU;
    x->cus = info->compute_units > 0 ? info->compute_units : 1;
    x->simd = info->simd_width > 0 ? info->simd_width : 32;
    x->max_warps = gc__hid_max_warps(info);
    /* Warp schedulers per SM (the architecture table; OpenCL says nothing
     * of them: 1). */
    x->schedulers = d->arch.schedulers;
    x->flags = x->clocks ? GC_KGEN_WARP_TIMESTAMPS : 0;
    threads = (size_t)x->cus * (size_t)x->max_warps * (size_t)x->simd;
    x->out_words = threads * GC_HID_MAX_ILP;
    x->lat_words = (size_t)1 << 16;
    x->ts_warps = (threads + 31) / 32 + 64;
    if ((rc = gc__dev_hostbuf_alloc(d, x->out_words * sizeof(*x->hout), &x->hout_mem)) ||
        (rc = gc__dev_hostbuf_alloc(d, x->ts_warps * 5 * sizeof(*x->hts), &x->hts_mem)))
        return rc;
    x->hout = x->hout_mem.ptr;
    x->hts = x->hts_mem.ptr;
    x->hlat = malloc(x->lat_words * sizeof(*x->hlat));
    if (!x->hlat)
        return GC_ENOMEM;
    if ((rc = gc__dev_alloc(d, x->out_words * 4, &x->out)) ||
        (rc = gc__dev_alloc(d, x->lat_words * 4, &x->lat)))
        return rc;
    if (x->clocks && (rc = gc__dev_alloc(d, x->ts_warps * 5 * 8, &x->ts)))
        return rc;
    if (!chase)
        return 0;
    x->chain_words = gc__hid_chain_bytes(info) / 4;
    x->log2_lines = ilog2(x->chain_words / 32);
    if ((rc = gc__dev_alloc(d, x->chain_words * 4, &x->chain)))
        return rc;
    if (x->gpu) {
        x->flush_words = (info->l2_size ? 4 * info->l2_size : 64 * MiB) / 4;
        if ((rc = gc__dev_alloc(d, x->flush_words * 4, &x->flush)))
            return rc;
    }
    rc = gc__hid_build_src(x, "hiding_fill", gc__gen_mix_fill(d->ops->dialect),
                           "gc_mix_fill_stream", &x->fill_stream);
    if (!rc)
        rc = lookup(x, x->reqs[x->nreqs - 1].prog, "gc_mix_fill_random", &x->fill_random);
    return rc;
}

void gc__hid_close(struct gc_hid_ctx *x)
{
    struct gc_device *d = x->d;

    if (!d)
        return;
    gc__dev_free(d, x->chain);
    gc__dev_free(d, x->flush);
    gc__dev_free(d, x->out);
    gc__dev_free(d, x->lat);
    gc__dev_free(d, x->ts);
    gc__kreq_release(x->s, x->reqs, x->nreqs);
    free(x->reqs);
    gc__dev_hostbuf_free(d, &x->hout_mem);
    gc__dev_hostbuf_free(d, &x->hts_mem);
    free(x->hlat);
    memset(x, 0, sizeof(*x));
}

double gc__hid_clock_mhz(const struct gc_hid_ctx *x, const char **how)
{
    const char *src = "clock64/globaltimer";
    double mhz = x->clock_n && x->clock_us > 0 ? x->clock_sum / x->clock_us
                                               : gc__cycle_clock_mhz(&x->d->info, &src);

    if (how)
        *how = src;
    return mhz;
}

/* ---- One occupancy point ------------------------------------------------ */

/* Lays the chase array out for KIND (1 stream with STRIDE, 2 random) unless
 * it already holds it. */
static int layout(struct gc_hid_ctx *x, int kind, uint32_t stride)
{
    struct gc_device *d = x->d;
    int tpb = d->info.max_threads_per_block;
    unsigned block = (unsigned)(tpb > 0 && tpb < 256 ? tpb : 256);
    struct gc_arg args[3] = {{.type = GC_ARG_BUF, .v.buf = x->chain}};
    struct gc_launch l = {
        {(unsigned)x->cus * (x->gpu ? 16u : 2u), 1, 1}, {block, 1, 1}, 0, args, 3, 1};
    double el;
    int rc;

    if (x->layout == kind && (kind != 1 || x->layout_stride == stride))
        return 0;
    if (kind == 1) {
        args[1] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)x->chain_words};
        args[2] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = stride};
        rc = gc__dev_launch(d, x->fill_stream, &l, &el);
    } else {
        args[1] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)x->log2_lines};
        l.nargs = 2;
        rc = gc__dev_launch(d, x->fill_random, &l, &el);
    }
    x->layout = rc ? 0 : kind;
    x->layout_stride = stride;
    /* The fill leaves the array's last-written lines in L2 (dirty): writing
     * four times the L2's size elsewhere evicts them, so that the launches
     * that follow find none of the array there. */
    if (!rc && x->flush) {
        args[0].v.buf = x->flush;
        args[1] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)x->flush_words};
        args[2] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 0};
        l.nargs = 3;
        rc = gc__dev_launch(d, x->fill_stream, &l, &el);
    }
    return rc;
}

static bool chain_ok(const struct gc_mix_cfg *c, uint32_t got, uint32_t want)
{
    float f;

    if (got == want)
        return true;
    if (c->op != GC_MIX_SFU)
        return false;
    /* rsqrt(1) may be off in the last bits where the instruction is
     * approximate (OpenCL native_rsqrt); a chain that did not run still
     * holds the poison, a NaN. */
    memcpy(&f, &got, 4);
    return fabsf(f - 1.0f) <= 1.0f / 1024;
}

/* What a check compares: the chains' ends against the host model. */
struct chain_check {
    const uint32_t *got;
    const struct gc_mix_cfg *c;
    const struct gc_mix_args *a;
};

/* Whether chain e (thread e / ilp, chain e % ilp) is wrong. */
static bool chain_bad(void *u, size_t e)
{
    const struct chain_check *k = u;
    size_t ilp = (size_t)k->c->ilp;

    return !chain_ok(k->c, k->got[e], gc__mix_expect(k->c, k->a, e / ilp, (int)(e % ilp)));
}

/* Checks the chains of NTHREADS threads in x->hout: every one when FULL
 * (on the host's cores: a full-occupancy launch has millions), else about
 * 500 spread over the launch and the last one. The error names the first
 * wrong chain in thread order either way. */
static int check_out(struct gc_hid_ctx *x, const struct gc_hid_kern *hk,
                     const struct gc_mix_args *a, size_t nthreads, bool full, int warps)
{
    const struct gc_mix_cfg *c = &hk->cfg;
    size_t step = full || nthreads < 1024 ? 1 : nthreads / 509, ilp = (size_t)c->ilp;
    struct chain_check k = {x->hout, c, a};
    size_t bad = SIZE_MAX;

    if (step == 1)
        bad = gc__parallel_first(nthreads * ilp, 4096, chain_bad, &k);
    for (size_t t = 0; step > 1 && bad == SIZE_MAX;) {
        for (size_t j = 0; j < ilp && bad == SIZE_MAX; j++)
            bad = chain_bad(&k, t * ilp + j) ? t * ilp + j : SIZE_MAX;
        if (t == nthreads - 1)
            break;
        t = t + step < nthreads ? t + step : nthreads - 1;
    }
    if (bad != SIZE_MAX) {
        size_t t = bad / ilp;
        int j = (int)(bad % ilp);
        uint32_t got = x->hout[bad], want = gc__mix_expect(c, a, t, j);

        gc__bench_set_error(x->r, GC_BENCH_ERROR,
                            "verification failed (%s, %d warps/CU): thread %zu chain %d "
                            "ended at 0x%08x, the host model says 0x%08x%s",
                            hk->label, warps, t, j, got, want,
                            got == 0xFFFFFFFFu ? " (not written)" : "");
        return GC_EVERIFY;
    }
    x->verified++;
    return 0;
}

/* One launch into a poisoned output (and zeroed timestamps), read back and
 * checked. */
static int launch_checked(struct gc_hid_ctx *x, const struct gc_hid_kern *hk,
                          const struct gc_launch *l, const struct gc_mix_args *a, size_t nthreads,
                          unsigned nwarps, bool full, int warps)
{
    struct gc_device *d = x->d;
    size_t n = nthreads * (size_t)hk->cfg.ilp;
    double el;
    int rc;

    /* Poisoned and zeroed on the device: a host fill and copy of the
     * megabytes of a full-occupancy launch cost more than the launch. */
    rc = gc__devfill_word(x->s, x->out, n * 4, 0xFFFFFFFFu);
    if (!rc && x->clocks)
        rc = gc__devfill_word(x->s, x->ts, (size_t)nwarps * 5 * 8, 0);
    if (!rc)
        rc = gc__dev_launch(d, hk->k, l, &el);
    if (!rc)
        rc = gc__dev_read(d, x->out, 0, x->hout, n * 4);
    if (!rc && x->clocks)
        rc = gc__dev_read(d, x->ts, 0, x->hts, (size_t)nwarps * 5 * 8);
    if (!rc)
        rc = check_out(x, hk, a, nthreads, full, warps);
    return rc;
}

/* Appends the latency samples of the last launch (§6.6) to x->samples. */
static int collect(struct gc_hid_ctx *x, const struct gc_hid_kern *hk, uint32_t n, int warps)
{
    int rc = gc__dev_read(x->d, x->lat, 0, x->hlat, (size_t)n * 4);

    if (rc)
        return rc;
    for (uint32_t i = 0; i < n && x->nsamples < x->cap_samples; i++) {
        if (x->hlat[i] == 0xFFFFFFFFu || x->hlat[i] == 0) {
            gc__bench_set_error(x->r, GC_BENCH_ERROR,
                                "%s, %d warps/CU: latency sample %u was not recorded", hk->label,
                                warps, (unsigned)i);
            return GC_EVERIFY;
        }
        x->samples[x->nsamples++] = x->hlat[i];
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    if (n < 1)
        return NAN;
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* What a clocked point's launches share. */
struct clocked {
    const struct gc_hid_kern *hk;
    struct gc_launch *l;
    struct gc_arg *args;
    struct gc_mix_args *a;
    size_t nthreads, region;
    unsigned nwarps;
    uint32_t groups;
    int warps, reps;
};

/* The clocked launches of a point: a warm-up, then reps launches, each
 * verified and its per-warp records added to pt; latency samples only from
 * launches at the intended occupancy. */
static int clocked_launches(struct gc_hid_ctx *x, const struct clocked *k, struct gc_occ_point *pt)
{
    const struct gc_mix_cfg *c = &k->hk->cfg;
    struct gc_device *d = x->d;
    int rc;

    for (int i = -1; i < k->reps; i++) {
        struct gc_warp_times wt;

        if (gc__stopped(x->s))
            return GC_EINTR;
        if (c->sample && x->samples && (size_t)(k->groups / 8) <= x->lat_words) {
            memset(x->hlat, 0xFF, (size_t)(k->groups / 8) * 4);
            rc = gc__dev_write(d, x->lat, 0, x->hlat, (size_t)(k->groups / 8) * 4);
            if (rc)
                return rc;
        }
        /* Each launch reads a region no launch read since the whole array
         * went by, so that no line is found in L2 (§5.10). */
        if (c->op == GC_MIX_GLOBAL) {
            if (x->base + k->region > x->chain_words)
                x->base = 0;
            k->args[6].v.u32 = x->base;
        } else if (c->op == GC_MIX_RANDOM) {
            x->base &= ((uint32_t)1 << x->log2_lines) - 1;
            k->args[6].v.u32 = x->base;
        }
        k->a->base = k->args[6].v.u32;
        rc = launch_checked(x, k->hk, k->l, k->a, k->nthreads, k->nwarps, i < 0, k->warps);
        if (rc)
            return rc;
        x->base += c->op == GC_MIX_GLOBAL   ? (uint32_t)k->region
                   : c->op == GC_MIX_RANDOM ? k->groups
                                            : 0;
        rc = gc__warp_times(x->hts, k->nwarps, &wt);
        wt.clock_mhz = gc__clock_corrected(x->d, wt.clock_mhz);
        if (rc == GC_EVERIFY)
            gc__bench_set_error(x->r, GC_BENCH_ERROR,
                                "%s, %d warps/CU: no warp wrote its timestamps", k->hk->label,
                                k->warps);
        if (rc)
            return rc;
        if (i < 0 || !gc__occ_point_add(pt, &wt))
            continue;
        if (c->sample && x->samples && (rc = collect(x, k->hk, k->groups / 8, k->warps)) != 0)
            return rc;
    }
    return 0;
}

/* A clocked point's figures from its launches: over the kept ones, or over
 * all of them (reported as excluded, with what they did attain) when none
 * attained the occupancy. */
static void clocked_figures(struct gc_hid_ctx *x, const struct gc_occ_point *pt, double work,
                            struct gc_hid_sample *out)
{
    double spans[MAX_REPS], wlat[MAX_REPS];
    int nk = gc__occ_point_values(pt, GC_OCC_SPAN_MAX, true, spans);

    gc__occ_point_values(pt, GC_OCC_WARP_CYCLES, true, wlat);
    out->launches = pt->n;
    out->kept_launches = pt->kept;
    out->kept = pt->kept > 0;
    out->occ_min = pt->occ_min;
    out->occ_max = pt->occ_max;
    gc__stats_inverse(spans, nk, work, &out->thru_stats);
    out->thru = out->thru_stats.median;
    out->cycles = median(spans, nk);
    out->warp_cycles = median(wlat, nk);
    out->clock_mhz = gc__occ_point_clock(pt);
    if (isfinite(out->clock_mhz) && out->cycles > 0) {
        x->clock_sum += out->cycles;
        x->clock_us += out->cycles / out->clock_mhz;
        x->clock_min = x->clock_n ? fmin(x->clock_min, out->clock_mhz) : out->clock_mhz;
        x->clock_max = x->clock_n ? fmax(x->clock_max, out->clock_mhz) : out->clock_mhz;
        x->clock_n++;
    }
}

/* The kernel's arguments for the mix's operation: a seed, and for the
 * chases the spacing of the chains laid out in the chain buffer (*region
 * words for the streaming one). GC_ERANGE when the buffers cannot hold it. */
static int mix_args(struct gc_hid_ctx *x, const struct gc_mix_cfg *c, const struct gc_shape *sh,
                    unsigned nwarps, uint32_t groups, struct gc_mix_args *a, size_t *region)
{
    int rc = 0;

    a->block = (unsigned)sh->block;
    a->log2_lines = x->log2_lines;
    switch (c->op) {
    case GC_MIX_ADD:
    case GC_MIX_SFU:
        a->seed = GC_MIX_ONE_BITS;
        break;
    case GC_MIX_SHARED:
    case GC_MIX_SHARED2:
        a->seed = (uint32_t)(x->s->seed % GC_MIX_RING);
        break;
    case GC_MIX_GLOBAL:
        a->spacing = (uint32_t)c->ilp * (uint32_t)sh->block * groups;
        *region = (size_t)sh->grid * a->spacing;
        if (!x->chain || *region > x->chain_words)
            return GC_ERANGE;
        rc = layout(x, 1, (uint32_t)c->ilp * (uint32_t)sh->block);
        break;
    case GC_MIX_RANDOM:
        a->seed = (uint32_t)x->log2_lines;
        a->spacing = gc__mix_random_spacing(x->log2_lines, (uint64_t)nwarps * c->lines * c->ilp);
        if (!x->chain || a->spacing < groups)
            return GC_ERANGE;
        rc = layout(x, 2, 0);
        break;
    default:
        return GC_EINVAL;
    }
    return rc;
}

/* Event-timed (no in-kernel clock): verified once, then the engine's
 * samples, converted to groups per clock at the observed (else nominal)
 * clock. */
static int event_timed(struct gc_hid_ctx *x, const struct gc_hid_kern *hk,
                       const struct gc_launch *l, const struct gc_mix_args *a, size_t nthreads,
                       unsigned nwarps, int warps, double work, struct gc_hid_sample *out)
{
    struct gc_measurement m;
    struct gc_stats st;
    double clk;
    int rc;

    rc = launch_checked(x, hk, l, a, nthreads, nwarps, true, warps);
    if (rc)
        return rc;
    rc = gc__measure(x->s, x->s->sampling, hk->k, l, NULL, NULL, 0, &m);
    if (rc && !(rc == GC_EINTR && m.samples > 0)) {
        gc__measurement_free(&m);
        return rc;
    }
    clk = isfinite(m.clock_mhz) && m.clock_mhz > 0 ? m.clock_mhz : gc__hid_clock_mhz(x, NULL);
    if (!(clk > 0))
        clk = 1000;
    gc__stats_inverse(m.per_sample_s, m.samples, work / (clk * 1e6), &st);
    out->thru_stats = st;
    out->thru = st.median;
    out->cycles = work / st.median;
    out->clock_mhz = clk;
    out->launches = out->kept_launches = m.samples;
    out->kept = true;
    gc__measurement_free(&m);
    return rc;
}

int gc__hid_measure(struct gc_hid_ctx *x, const struct gc_hid_kern *hk, int warps, int reps,
                    struct gc_hid_sample *out)
{
    struct gc_device *d = x->d;
    const struct gc_mix_cfg *c = &hk->cfg;
    uint32_t groups = (uint32_t)gc__mix_groups(c);
    struct gc_shape sh;
    struct gc_mix_args a = {0};
    size_t nthreads, region = 0;
    unsigned nwarps;
    int rc;

    memset(out, 0, sizeof(*out));
    out->warps = warps;
    out->occ_min = out->occ_max = -1;
    out->cycles = out->warp_cycles = out->thru = out->clock_mhz = NAN;
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    rc = gc__sweep_shape(d, hk->k, warps, &sh);
    if (rc)
        return rc;
    out->block = sh.block;
    out->blocks_per_cu = sh.blocks_per_cu;
    out->grid = sh.grid;
    out->enforced = sh.enforced;
    nthreads = (size_t)sh.grid * (size_t)sh.block;
    nwarps = (unsigned)((nthreads + 31) / 32);
    if (nthreads * (size_t)c->ilp > x->out_words || nwarps > x->ts_warps ||
        (c->sample && (size_t)(groups / 8) > x->lat_words))
        return GC_ERANGE;
    rc = mix_args(x, c, &sh, nwarps, groups, &a, &region);
    if (rc)
        return rc;

    struct gc_arg args[9] = {
        {.type = GC_ARG_BUF, .v.buf = x->chain ? x->chain : x->out},
        {.type = GC_ARG_BUF, .v.buf = x->out},
        {.type = GC_ARG_BUF, .v.buf = x->lat},
        {.type = GC_ARG_F32, .v.f32 = 0.0f},
        {.type = GC_ARG_F32, .v.f32 = 0.0f},
        {.type = GC_ARG_U32, .v.u32 = a.seed},
        {.type = GC_ARG_U32, .v.u32 = 0},
        {.type = GC_ARG_U32, .v.u32 = a.spacing},
        {.type = GC_ARG_BUF, .v.buf = x->ts},
    };
    struct gc_launch l = {
        {sh.grid, 1, 1}, {(unsigned)sh.block, 1, 1}, sh.occ.dyn_shared, args, x->clocks ? 9 : 8, 1};
    double work = (double)warps * c->ilp * groups; /* groups per CU per launch */

    if (!x->clocks)
        return event_timed(x, hk, &l, &a, nthreads, nwarps, warps, work, out);

    struct clocked k = {hk, &l, args, &a, nthreads, region, nwarps, groups, warps, reps};
    struct gc_occ_point pt;

    if ((rc = gc__occ_point_init(&pt, warps, reps)) != 0)
        return rc;
    rc = clocked_launches(x, &k, &pt);
    if (!rc)
        clocked_figures(x, &pt, work, out);
    gc__occ_point_free(&pt);
    return rc;
}

int gc__hid_sweep(struct gc_hid_ctx *x, const struct gc_hid_kern *hk, const int *w, int nw,
                  int reps, struct gc_hid_curve *out)
{
    out->hk = hk;
    out->n = 0;
    for (int i = 0; i < nw && out->n < GC_HID_MAX_POINTS; i++) {
        int rc;

        if (gc__stopped(x->s))
            return GC_EINTR;
        rc = gc__hid_measure(x, hk, w[i], reps, &out->pt[out->n]);
        if (rc == GC_ERANGE)
            continue; /* this occupancy cannot be laid out for the kernel */
        if (rc)
            return rc;
        out->n++;
    }
    return 0;
}

/* ---- Figures ------------------------------------------------------------ */

void gc__hid_type_params(const struct gc_hid_curve *curves, int ncurves, struct gc_hid_type *out)
{
    double xs[GC_HID_MAX_POINTS], ys[GC_HID_MAX_POINTS];
    int n = 0;

    memset(out, 0, sizeof(*out));
    out->latency = out->w90 = out->w95 = out->linear = out->at_linear = NAN;
    for (int k = 0; k < ncurves; k++) {
        const struct gc_mix_cfg *c = &curves[k].hk->cfg;
        double per = (double)gc__mix_groups(c) * gc__hid_ops_per_group(c);

        for (int i = 0; i < curves[k].n; i++) {
            const struct gc_hid_sample *p = &curves[k].pt[i];
            double thr = p->thru * gc__hid_ops_per_group(c);

            if (!p->kept) {
                out->excluded++;
                continue;
            }
            out->kept++;
            if (thr > out->peak) {
                out->peak = thr;
                out->peak_warps = p->warps;
                out->peak_ilp = c->ilp;
            }
            if (k != 0)
                continue;
            /* Table 6.2: the least mean warp latency per instruction over
             * the occupancies; without timestamps, the launch of the fewest
             * warps (its time is one warp's latency plus the overhead). */
            if (isfinite(p->warp_cycles))
                out->latency =
                    fmin(isnan(out->latency) ? INFINITY : out->latency, p->warp_cycles / per);
            else if (n == 0)
                out->latency = p->cycles / per;
            xs[n] = p->warps;
            ys[n++] = thr;
        }
    }
    if (!(out->peak > 0) || n == 0)
        return;
    out->w90 = gc__occupancy_for(xs, ys, n, out->peak, 0.90);
    out->w95 = gc__occupancy_for(xs, ys, n, out->peak, 0.95);
    if (!isfinite(out->latency))
        return;
    out->linear = out->latency * out->peak;
    /* Throughput at the linear estimate: interpolated between the sweep's
     * points, and proportional to occupancy below the first (Little's law
     * in the latency-bound mode). */
    if (out->linear <= xs[0]) {
        out->at_linear = ys[0] * out->linear / xs[0] / out->peak;
        return;
    }
    for (int i = 1; i < n; i++) {
        if (xs[i] < out->linear)
            continue;
        out->at_linear =
            (ys[i - 1] + (ys[i] - ys[i - 1]) * (out->linear - xs[i - 1]) / (xs[i] - xs[i - 1])) /
            out->peak;
        return;
    }
}

static int series_index(struct gc_bench_result *r, const char *name)
{
    for (int i = 0; i < r->nseries; i++)
        if (strcmp(r->series[i].name, name) == 0)
            return i;
    return -1;
}

int gc__hid_add_curve(struct gc_hid_ctx *x, const struct gc_hid_curve *c, const char *name,
                      double scale, const char *y_name, const char *unit)
{
    struct gc_bench_result *r = x->r;
    double opg = gc__hid_ops_per_group(&c->hk->cfg);
    int si, ei = series_index(r, "excluded_samples");

    /* Series are found by index: adding one may move the array. */
    if (!gc__bench_add_series(r, name, "warps per CU", "warps", y_name, unit))
        return GC_ENOMEM;
    si = r->nseries - 1;
    for (int i = 0; i < c->n; i++) {
        const struct gc_hid_sample *p = &c->pt[i];
        struct gc_stats st = p->thru_stats;
        char label[64];

        if (!p->kept) {
            if (ei < 0) {
                if (!gc__bench_add_series(r, "excluded_samples", "requested warps per CU", "warps",
                                          "attained warps per CU", "warps"))
                    return GC_ENOMEM;
                ei = r->nseries - 1;
            }
            if (gc__series_add(&r->series[ei], p->warps, p->occ_min, NULL, c->hk->label))
                return GC_ENOMEM;
            continue;
        }
        if (p->occ_min >= 0)
            snprintf(label, sizeof(label), "attained %d", p->occ_min);
        else
            snprintf(label, sizeof(label), "attained unknown");
        if (st.n > 0)
            gc__stats_scale(&st, opg * scale);
        if (gc__series_add(&r->series[si], p->warps, p->thru * opg * scale, st.n > 0 ? &st : NULL,
                           label))
            return GC_ENOMEM;
    }
    return 0;
}

/* ---- Declared kernels --------------------------------------------------- */

int gc__hid_ksrc(const struct gc_mix_cfg *c, const char *label, struct gc_ksrc *k)
{
    int per = c->unroll * c->ilp;

    memset(k, 0, sizeof(*k));
    snprintf(k->label, sizeof(k->label), "%s", label);
    k->src = gc__gen_mix(gc__kgen_inspect_dialect(), GC_KGEN_WARP_TIMESTAMPS, c);
    if (!k->src)
        return GC_ENOMEM;
    /* The studied instruction first: it names the timed loop. */
    switch (c->op) {
    case GC_MIX_SFU:
        k->expect[k->nexpect++] = (struct gc_sass_expect){"MUFU.RSQ", per};
        break;
    case GC_MIX_SHARED:
    case GC_MIX_SHARED2:
        k->expect[k->nexpect++] = (struct gc_sass_expect){"LDS", per};
        break;
    case GC_MIX_GLOBAL:
    case GC_MIX_RANDOM:
        k->expect[k->nexpect++] = (struct gc_sass_expect){"LDG", per};
        /* The one extra instruction per group: the 64-bit address. */
        if (!c->sample)
            k->expect[k->nexpect++] = (struct gc_sass_expect){"IMAD.WIDE", per};
        break;
    default:
        break;
    }
    k->expect[k->nexpect++] = (struct gc_sass_expect){"FADD", per * c->alpha};
    return 0;
}

void gc__hid_context(const struct gc_hid_ctx *x, double clk, const char *how, int reps,
                     struct gc_bench_result *r)
{
    gc__context_info_init(&r->context);
    r->context.sm_clock_mhz = clk;
    r->context.sm_clock_min_mhz = x->clock_n ? x->clock_min : NAN;
    r->context.sm_clock_max_mhz = x->clock_n ? x->clock_max : NAN;
    snprintf(r->context.sm_clock_source, sizeof(r->context.sm_clock_source), "%s", how);
    if (x->clocks)
        snprintf(r->stop_rule, sizeof(r->stop_rule), "%d launches per point", reps);
    else
        snprintf(r->stop_rule, sizeof(r->stop_rule), "engine per point");
}
