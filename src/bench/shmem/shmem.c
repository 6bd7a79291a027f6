/* memory.shared: shared-memory bandwidth with 4-, 8- and 16-byte elements
 * (gpumembench shmembench, Konstantinidis & Cotronis §III-B and Table III),
 * latency and throughput against bank conflicts and broadcast (Volkov §6.1-6.2;
 * MIPP §IV-B bank-conflict benchmark), on the harness: every configuration
 * (each element size of the swap and load kernels; per lane stride the
 * chain's two one-warp latency launches and its full-device throughput
 * launch) is a point of a series, so each is measured in full and verified;
 * the figures come from those measurements. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/shmem/shmem.h"
#include "bench/launchcfg.h"
#include "core/benchcfg.h"
#include "core/cpulimits.h"
#include "core/harness.h"
#include "core/occupancy.h"
#include "core/stats.h"
#include "util/parallel.h"

static unsigned gcd32(unsigned s)
{
    unsigned a = s, b = 32;

    while (b) {
        unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static bool shape_enforced(const struct gc_device_info *info)
{
    return (info->caps & GC_CAP_DYN_SHARED) && info->max_threads_per_cu > 0 &&
           info->shared_per_cu > 0;
}

int gc__shmem_shape_per_cu(const struct gc_device_info *info)
{
    int per_cu = shape_enforced(info) ? info->max_threads_per_cu / SH_BLOCK : 4;

    if (shape_enforced(info) && info->max_blocks_per_cu > 0 && per_cu > info->max_blocks_per_cu)
        per_cu = info->max_blocks_per_cu;
    return per_cu;
}

int gc__shmem_full_shape(struct gc_device *d, struct gc_kern *k, size_t need,
                         struct gc_shmem_shape *sh)
{
    const struct gc_device_info *info = &d->info;
    bool occ = shape_enforced(info);

    sh->per_cu = gc__shmem_shape_per_cu(info);
    sh->dyn = need;
    snprintf(sh->note, sizeof(sh->note), "%d blocks of %d per CU", sh->per_cu, SH_BLOCK);
    if (occ) {
        struct gc_occupancy oc;
        int rc = gc__occupancy_set(d, k, SH_BLOCK, sh->per_cu, &oc);
        if (rc)
            return rc;
        if (oc.dyn_shared < need) {
            snprintf(d->err, sizeof(d->err),
                     "%d blocks of %zu bytes of shared memory do not fit on a compute unit",
                     sh->per_cu, need);
            return GC_ERANGE;
        }
        sh->dyn = oc.dyn_shared;
        snprintf(sh->note, sizeof(sh->note), "%d blocks of %d per CU (%s)", sh->per_cu, SH_BLOCK,
                 oc.note);
    }
    sh->grid = (unsigned)(sh->per_cu * (info->compute_units > 0 ? info->compute_units : 1));
    return 0;
}

/* ---- the description ----------------------------------------------------- */

enum sh_kind {
    SH_SWAP, /* shmembench swap, one element size */
    SH_LOAD, /* independent loads, one element size */
    SH_LAT,  /* the chain: one warp, t_lat trips */
    SH_LAT2, /* ... 2 t_lat trips (latency = the difference) */
    SH_THR,  /* ... every CU full, t_thr trips */
};

struct sh_cfg {
    enum sh_kind kind;
    int bytes;       /* element size (swap, load) */
    unsigned stride; /* lane stride (chain; 0 = broadcast) */
    unsigned trips;  /* chain trips */
    struct gc_shmem_shape sh;
};

#define SH_MAX_CFG (6 + 3 * 33)

struct gc_shmem_run {
    struct gc_hdesc desc;
    struct sh_cfg cfg[SH_MAX_CFG];
    unsigned flags;
    int iters;    /* swap iterations: not a multiple of 6, so the rows end permuted */
    int ld_iters; /* load trips: a multiple of SH_LD_PERIOD */
    unsigned t_lat, t_thr;
    uint32_t swap_seed, load_seed;
    struct gc_buf *out, *laneb;
    int s0; /* the first of the benchmark's series */
};

static const int sizes[3] = {4, 8, 16};

static size_t chain_need(void)
{
    return SH_PAGES * SH_PAGE * 4;
}

/* The launch shape and the work of one launch (bytes moved; for the
 * latency launches the dependent loads). */
static int sh_shape(struct gc_harness *h, struct gc_hconf *c, struct sh_cfg *cf, double *work)
{
    const struct gc_shmem_run *sr = h->d->user;
    struct gc_device *d = h->s->dev;
    double threads;
    int rc;

    if (cf->kind == SH_LAT || cf->kind == SH_LAT2) {
        cf->sh = (struct gc_shmem_shape){.grid = 1, .dyn = chain_need(), .per_cu = 1};
        *work = (double)cf->trips * SH_CHAIN;
        return 0;
    }
    rc = gc__shmem_full_shape(d, c->k,
                              cf->kind == SH_SWAP   ? (size_t)SH_ROWS * SH_BLOCK * (size_t)cf->bytes
                              : cf->kind == SH_LOAD ? (size_t)SH_LD_BYTES
                                                    : chain_need(),
                              &cf->sh);
    threads = (double)cf->sh.grid * SH_BLOCK;
    /* Swap: 5 swaps x (2 loads + 2 stores) per iteration (the 12 set-up and
     * read-back accesses are left out). Load: SH_LD_BYTES / SH_BLOCK per
     * thread per trip (the one-off fill is left out). Chain: 32 x 4 bytes
     * delivered per warp load, broadcasts included (gpumembench counts a
     * broadcast the same way). */
    if (cf->kind == SH_SWAP)
        *work = threads * sr->iters * 20.0 * cf->bytes;
    else if (cf->kind == SH_LOAD)
        *work = threads * sr->ld_iters * (double)(SH_LD_BYTES / SH_BLOCK);
    else
        *work = threads / 32.0 * cf->trips * SH_CHAIN * 128.0;
    return rc;
}

static int sh_setup(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out)
{
    const struct gc_shmem_run *sr = h->d->user;
    struct sh_cfg *cf = (struct sh_cfg *)c->user;
    struct gc_device *d = h->s->dev;
    bool chain = cf->kind != SH_SWAP && cf->kind != SH_LOAD;
    unsigned block = cf->kind == SH_LAT || cf->kind == SH_LAT2 ? 32 : SH_BLOCK;
    int na = 0, rc;

    if (chain)
        snprintf(out->desc, sizeof(out->desc), cf->stride ? "chain, stride %u" : "chain, broadcast",
                 cf->stride);
    else
        snprintf(out->desc, sizeof(out->desc), "%s, %d-byte elements",
                 cf->kind == SH_SWAP ? "swap" : "loads", cf->bytes);
    if ((rc = sh_shape(h, c, cf, &out->work)))
        return rc;
    if (chain) {
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = sr->laneb};
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = sr->out};
        out->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = cf->trips};
    } else {
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = sr->out};
        out->args[na++] = (struct gc_arg){
            .type = GC_ARG_U32, .v.u32 = cf->kind == SH_SWAP ? sr->swap_seed : sr->load_seed};
    }
    if (sr->flags & GC_KGEN_TIMESTAMPS) {
        if ((rc = gc__dev_alloc(d, (size_t)cf->sh.grid * GC_TS_WORDS * 8, &out->own[0])))
            return rc;
        out->ts = (struct gc_timestamps){out->own[0], cf->sh.grid};
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = out->own[0]};
    }
    out->l = (struct gc_launch){{cf->sh.grid, 1, 1}, {block, 1, 1}, cf->sh.dyn, out->args, na, 1};
    return 0;
}

/* Words of the output one launch of c writes. */
static size_t out_words(const struct gc_hconf *c)
{
    const struct sh_cfg *cf = c->user;
    size_t threads = (size_t)c->hl.l.grid[0] * c->hl.l.block[0];

    return cf->kind == SH_SWAP ? threads * SH_ROWS * (size_t)(cf->bytes / 4) : threads;
}

static void lane_offsets(unsigned stride, unsigned *off)
{
    for (unsigned l = 0; l < 32; l++)
        off[l] = l * stride;
}

/* Random words over the output (the poison), and the chain's lane offsets. */
static int sh_before(struct gc_harness *h, struct gc_hconf *c)
{
    const struct gc_shmem_run *sr = h->d->user;
    const struct sh_cfg *cf = c->user;
    struct gc_device *d = h->s->dev;
    unsigned off[32];
    int rc;

    if (cf->kind == SH_SWAP)
        return gc__dev_fill_random(d, sr->out, out_words(c) * 4, sr->swap_seed + 1u);
    if (cf->kind == SH_LOAD)
        return gc__dev_fill_random(d, sr->out, out_words(c) * 4, sr->load_seed + 7u);
    lane_offsets(cf->stride, off);
    if ((rc = gc__dev_write(d, sr->laneb, 0, off, sizeof(off))))
        return rc;
    return gc__dev_fill_random(d, sr->out, out_words(c) * 4, h->s->seed ^ 0xC4A1ULL);
}

/* What a load or chain check compares, thread by thread. */
struct sh_check {
    const uint32_t *got;
    const struct gc_shmem_run *sr;
    const struct sh_cfg *cf;
    size_t block;
    unsigned off[32];
};

/* Thread g's expected word: the load's sum, else the word its chain ends
 * on. */
static uint32_t sh_want(const struct sh_check *k, size_t g)
{
    if (k->cf->kind == SH_LOAD)
        return gc__shmem_load_sum(g, k->cf->bytes, k->sr->ld_iters, k->sr->load_seed);
    return gc__shmem_chain_end(k->off[(g % k->block) & 31u], k->cf->trips);
}

static bool sh_bad(void *u, size_t g)
{
    const struct sh_check *k = u;

    return k->got[g] != sh_want(k, g);
}

/* Every thread's output: the swap's six rows against the permutation of
 * the swap sequence, the load's sum, the word the chain ends on (the loads
 * and chains checked on the host's cores). */
static int sh_verify(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    const struct gc_shmem_run *sr = h->d->user;
    const struct sh_cfg *cf = c->user;
    size_t n = out_words(c);
    uint32_t *got = malloc(n * 4);
    struct sh_check k = {got, sr, cf, c->hl.l.block[0], {0}};
    int rc;

    if (!got)
        return GC_ENOMEM;
    if ((rc = gc__dev_read(h->s->dev, sr->out, 0, got, n * 4)) || cf->kind == SH_SWAP) {
        if (rc == 0)
            rc = gc__shmem_check_swap(got, n / SH_ROWS / (size_t)(cf->bytes / 4), cf->bytes,
                                      sr->iters, sr->swap_seed, msg, len);
        free(got);
        return rc;
    }
    lane_offsets(cf->stride, k.off);
    size_t g = gc__parallel_first(n, 4096, sh_bad, &k);
    if (g != SIZE_MAX) {
        if (cf->kind == SH_LOAD)
            snprintf(msg, len, "thread %zu summed 0x%08x, expected 0x%08x", g, got[g],
                     sh_want(&k, g));
        else
            snprintf(msg, len, "thread %zu ended at word %u, expected %u", g, got[g],
                     sh_want(&k, g));
        rc = GC_EVERIFY;
    }
    free(got);
    return rc;
}

static int add_cfg(struct gc_session *s, struct gc_harness *h, struct gc_shmem_run *sr,
                   struct sh_cfg cf)
{
    struct gc_device *d = s->dev;
    struct gc_hconf *c;
    static const char *const kinds[] = {"swap", "load", "lat", "lat2", "thr"};

    if (h->ncfg >= SH_MAX_CFG || !(c = gc__harness_add(h)))
        return GC_ENOMEM;
    sr->cfg[h->ncfg - 1] = cf;
    c->user = &sr->cfg[h->ncfg - 1];
    if (cf.kind == SH_SWAP || cf.kind == SH_LOAD) {
        snprintf(c->label, sizeof(c->label), "shmem_%s_%dB", kinds[cf.kind], cf.bytes);
        c->src = cf.kind == SH_SWAP
                     ? gc__shmem_gen_swap(d->ops->dialect, sr->flags, cf.bytes, sr->iters,
                                          d->info.type == GC_DEVICE_CPU)
                     : gc__shmem_gen_load(d->ops->dialect, sr->flags, cf.bytes, sr->ld_iters);
        c->kernel = cf.kind == SH_SWAP ? "gc_shswap" : "gc_shload";
    } else {
        snprintf(c->label, sizeof(c->label), "shmem_chain_s%u_%s", cf.stride, kinds[cf.kind]);
        c->src = gc__shmem_gen_chain(d->ops->dialect, sr->flags);
        c->kernel = "gc_shchain";
    }
    return 0;
}

/* Swap and load kernels per element size, then per lane stride the chain's
 * two latency launches and its throughput launch. */
static int plan_cfgs(struct gc_session *s, struct gc_harness *h, struct gc_shmem_run *sr)
{
    static const unsigned strides_q[] = {0, 1, 2, 3, 4, 8, 32};
    static const unsigned strides_d[] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
    bool quick = s->profile == GC_PROFILE_QUICK, full = s->profile == GC_PROFILE_FULL;
    int nstrides = quick ? 7 : full ? 33 : 11, rc = 0;

    for (int k = SH_SWAP; k <= SH_LOAD; k++)
        for (int i = 0; i < 3 && rc == 0; i++)
            rc = add_cfg(s, h, sr, (struct sh_cfg){.kind = (enum sh_kind)k, .bytes = sizes[i]});
    for (int i = 0; i < nstrides && rc == 0; i++) {
        unsigned st = quick ? strides_q[i] : full ? (unsigned)i : strides_d[i];

        rc = add_cfg(s, h, sr, (struct sh_cfg){.kind = SH_LAT, .stride = st, .trips = sr->t_lat});
        if (rc == 0)
            rc = add_cfg(s, h, sr,
                         (struct sh_cfg){.kind = SH_LAT2, .stride = st, .trips = 2 * sr->t_lat});
        if (rc == 0)
            rc = add_cfg(s, h, sr,
                         (struct sh_cfg){.kind = SH_THR, .stride = st, .trips = sr->t_thr});
    }
    return rc;
}

/* Series 0-5 keep their long-standing order; the load kernels' two come
 * last. */
static int add_series(struct gc_bench_result *r)
{
    if (!gc__bench_add_series(r, "bandwidth_vs_element_size", "element size", "B",
                              "shared-memory bandwidth (shmembench swap)", "B/s") ||
        !gc__bench_add_series(r, "bytes_per_clk_per_cu_vs_element_size", "element size", "B",
                              "shared-memory bandwidth per CU (shmembench swap)", "B/clk/CU") ||
        !gc__bench_add_series(r, "throughput_vs_lane_stride", "lane stride (0 = broadcast)",
                              "words", "bytes delivered per CU", "B/clk/CU") ||
        !gc__bench_add_series(r, "latency_vs_lane_stride", "lane stride (0 = broadcast)", "words",
                              "dependent-load latency", "cycles") ||
        !gc__bench_add_series(r, "throughput_vs_conflict_degree", "bank-conflict degree", "ways",
                              "bytes delivered per CU", "B/clk/CU") ||
        !gc__bench_add_series(r, "latency_vs_conflict_degree", "bank-conflict degree", "ways",
                              "dependent-load latency", "cycles") ||
        !gc__bench_add_series(r, "load_bandwidth_vs_element_size", "element size", "B",
                              "shared-memory load bandwidth", "B/s") ||
        !gc__bench_add_series(r, "load_bytes_per_clk_per_cu_vs_element_size", "element size", "B",
                              "shared-memory load bandwidth per CU", "B/clk/CU"))
        return GC_ENOMEM;
    return 0;
}

/* The run's compile plan: the kernels plan_cfgs requests (swap and load
 * per element size, and the chain every stride shares), with the trip
 * counts gc__shmem_plan gives them. */
static int plan_shmem(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out,
                      int *n)
{
    const struct gc_device *d = s->dev;
    bool gpu = d->info.type == GC_DEVICE_GPU;
    unsigned flags = gc__harness_ts_flags(&d->info);
    struct gc_ksrc *k = calloc(7, sizeof(*k));
    int m = 0;

    (void)self;
    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    for (int i = 0; i < 3; i++) {
        snprintf(k[m].label, sizeof(k[m].label), "shmem_swap_%dB", sizes[i]);
        if (!(k[m++].src = gc__shmem_gen_swap(d->ops->dialect, flags, sizes[i], gpu ? 2048 : 64,
                                              d->info.type == GC_DEVICE_CPU)))
            goto nomem;
        snprintf(k[m].label, sizeof(k[m].label), "shmem_load_%dB", sizes[i]);
        if (!(k[m++].src = gc__shmem_gen_load(d->ops->dialect, flags, sizes[i], gpu ? 4096 : 64)))
            goto nomem;
    }
    snprintf(k[m].label, sizeof(k[m].label), "shmem_chain");
    if (!(k[m++].src = gc__shmem_gen_chain(d->ops->dialect, flags)))
        goto nomem;
    *out = k;
    *n = m;
    return 0;
nomem:
    gc__ksrc_free(k, m);
    return GC_ENOMEM;
}

int gc__shmem_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h)
{
    const struct gc_device_info *info = &s->dev->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    struct gc_shmem_run *sr = calloc(1, sizeof(*sr));
    int rc;

    if (!sr) {
        snprintf(s->dev->err, sizeof(s->dev->err), "out of host memory");
        return GC_ENOMEM;
    }
    sr->flags = gc__harness_ts_flags(info);
    sr->iters = gpu ? 2048 : 64;
    /* 4096 load trips last about 2 ms on an H100-class GPU, so launch gaps
     * cost well under 1%. */
    sr->ld_iters = gpu ? 4096 : 64;
    sr->t_lat = gpu ? 256 : 64;
    sr->t_thr = gpu ? 128 : 4;
    sr->swap_seed = (uint32_t)(s->seed ^ (s->seed >> 32)) ^ 0x5A5Au;
    sr->load_seed = (uint32_t)(s->seed ^ (s->seed >> 29)) ^ 0xC3A5u;
    /* Every configuration is a point of a series: each in full. */
    sr->desc = (struct gc_hdesc){
        .refine_top = SH_MAX_CFG,
        .setup = sh_setup,
        .before = sh_before,
        .verify = sh_verify,
        .user = sr,
    };
    gc__harness_init(h, s, r, &sr->desc);
    sr->s0 = r->nseries;
    if ((rc = add_series(r)) || (rc = plan_cfgs(s, h, sr)))
        return rc;
    /* The largest launch: a full device of 16-byte swap rows. */
    int cus = info->compute_units > 0 ? info->compute_units : 1;
    int per_cu = info->max_threads_per_cu / SH_BLOCK > 4 ? info->max_threads_per_cu / SH_BLOCK : 4;
    size_t out_bytes = (size_t)per_cu * cus * SH_BLOCK * SH_ROWS * 16;
    if ((rc = gc__dev_alloc(s->dev, out_bytes, &sr->out)))
        return rc;
    return gc__dev_alloc(s->dev, 32 * 4, &sr->laneb);
}

void gc__shmem_free(struct gc_session *s, struct gc_harness *h)
{
    struct gc_shmem_run *sr = h->d ? h->d->user : NULL;

    gc__harness_free(h);
    if (!sr)
        return;
    gc__dev_free(s->dev, sr->out);
    gc__dev_free(s->dev, sr->laneb);
    free(sr);
}

/* ---- the figures ---------------------------------------------------------- */

/* Bytes per clock per CU of a full measurement (n = 0: the clock or the CU
 * count is unknown). */
static void per_clk(const struct gc_harness *h, const struct gc_hconf *c, struct gc_stats *pc)
{
    int cus = h->s->dev->info.compute_units;

    memset(pc, 0, sizeof(*pc));
    if (isfinite(c->m.clock_mhz) && cus > 0)
        gc__stats_inverse(c->m.per_sample_s, c->m.samples,
                          c->hl.work / (c->m.clock_mhz * 1e6 * cus), pc);
}

/* The best of one family of bandwidth kernels (swap or load). */
struct bw_best {
    const struct gc_hconf *c; /* NULL: none measured */
    struct gc_stats bpc;      /* n = 0: unknown */
};

/* The two series of one family and its best element size; bpc_by_size[i]
 * gets each size's bytes per clock per CU (NAN unknown). */
static int derive_family(const struct gc_harness *h, enum sh_kind kind, int ser_bw, int ser_bpc,
                         struct bw_best *best, double *bpc_by_size)
{
    struct gc_bench_result *r = h->r;

    memset(best, 0, sizeof(*best));
    for (int i = 0, k = 0; i < h->ncfg; i++) {
        const struct gc_hconf *c = &h->cfg[i];
        const struct sh_cfg *cf = c->user;
        struct gc_stats pc;

        if (cf->kind != kind)
            continue;
        bpc_by_size[k++] = NAN;
        if (c->state != GC_H_REFINED)
            continue;
        per_clk(h, c, &pc);
        if (gc__series_add(&r->series[ser_bw], cf->bytes, c->value, &c->stats, NULL))
            return GC_ENOMEM;
        if (pc.n && gc__series_add(&r->series[ser_bpc], cf->bytes, pc.median, &pc, NULL))
            return GC_ENOMEM;
        if (pc.n)
            bpc_by_size[k - 1] = pc.median;
        if (c->value > 0 && (!best->c || c->value > best->c->value)) {
            best->c = c;
            best->bpc = pc;
        }
    }
    return 0;
}

/* shared_bandwidth (the load kernel) and its per-clock form; the element
 * size and shape go into the results as its configuration (the energy
 * meter runs the same launch: gc__shared_launch_at). */
static int load_metrics(struct gc_session *s, const struct gc_harness *h, const struct bw_best *b,
                        const char *bench)
{
    const struct gc_device_info *info = &s->dev->info;
    const struct gc_measurement *m = &b->c->m;
    const struct sh_cfg *cf = b->c->user;
    bool cuda7 = isfinite(s->dev->arch.l1_bytes_per_clk);
    int cus = info->compute_units > 0 ? info->compute_units : 1;
    double clk = m->clock_mhz * 1e6;
    double lim = cuda7 && isfinite(clk) ? SH_BANK_BYTES * info->compute_units * clk : NAN;
    double bpc_lim = cuda7 ? SH_BANK_BYTES : NAN;
    char note[768], lim_note[200];

    snprintf(lim_note, sizeof(lim_note), "limit 128 B/clk/SM x %d SMs x %.0f MHz (%s)",
             info->compute_units, m->clock_mhz, m->clock_source);
    if (info->type == GC_DEVICE_CPU) {
        /* Local memory is ordinary cached memory: the cores' loads. */
        lim = gc__cpu_stream_limit(info, 1, 0);
        bpc_lim = isfinite(clk) && clk > 0 ? lim / (clk * cus) : NAN;
        gc__cpu_limit_note(info, GC_CPU_LOAD, lim_note, sizeof(lim_note));
    }
    snprintf(note, sizeof(note),
             "independent %d-byte loads%s, conflict-free, best of 4/8/16 B (swap: "
             "swap_bandwidth); %s; %s",
             cf->bytes, cf->bytes == 16 && cuda7 ? " (LDS.128)" : "", lim_note, cf->sh.note);
    gc__bench_add_metric(h->r, "shared_bandwidth", b->c->value, "B/s", lim, &b->c->stats, note);
    if (b->bpc.n)
        gc__bench_add_metric(
            h->r, "shared_bytes_per_clk_per_cu", b->bpc.median, "B/clk/CU", bpc_lim, &b->bpc,
            info->type == GC_DEVICE_CPU ? "the load kernel of shared_bandwidth at the observed "
                                          "clock; limit: the CPU limit at that clock"
                                        : "the load kernel of shared_bandwidth at the observed SM "
                                          "clock; limit 32 banks x 4 B (CUDA CC >= 7.0)");
    h->r->context = m->ctx;
    snprintf(h->r->stop_rule, sizeof(h->r->stop_rule), "%s", m->stop_rule);
    (void)bench;
    int rc = gc__config_set_num(h->r, NULL, "elem_bytes", cf->bytes);
    return rc ? rc : gc__config_set_num(h->r, NULL, "blocks_per_cu", cf->sh.per_cu);
}

static void swap_metrics(const struct gc_harness *h, const struct gc_shmem_run *sr,
                         const struct bw_best *b)
{
    const struct gc_device_info *info = &h->s->dev->info;
    const struct sh_cfg *cf = b->c->user;
    bool cuda7 = isfinite(h->s->dev->arch.l1_bytes_per_clk);
    int cus = info->compute_units > 0 ? info->compute_units : 1;
    double sclk = b->c->m.clock_mhz * 1e6;
    double lim = cuda7 && isfinite(sclk) ? SH_BANK_BYTES * info->compute_units * sclk : NAN;
    double bpc_lim = cuda7 ? SH_BANK_BYTES : NAN;
    char note[512];

    if (info->type == GC_DEVICE_CPU) {
        /* Two loads and two stores per swap. */
        lim = gc__cpu_stream_limit(info, 1, 1);
        bpc_lim = isfinite(sclk) && sclk > 0 ? lim / (sclk * cus) : NAN;
    }
    snprintf(note, sizeof(note),
             "gpumembench shmembench swap (2 loads + 2 stores per swap, fences), best: "
             "%d-byte elements, %d iterations x 20 accesses; %s",
             cf->bytes, sr->iters, cf->sh.note);
    gc__bench_add_metric(h->r, "swap_bandwidth", b->c->value, "B/s", lim, &b->c->stats, note);
    if (b->bpc.n)
        gc__bench_add_metric(h->r, "swap_bytes_per_clk_per_cu", b->bpc.median, "B/clk/CU", bpc_lim,
                             &b->bpc, "the swap kernel of swap_bandwidth at the observed SM clock");
}

/* One lane stride's figures from its three launches. */
struct chain_res {
    double lat_cycles; /* per dependent load, one warp */
    double lat_res;    /* its resolution (a difference of two times), cycles */
    double thr_bpc;    /* bytes delivered per clock per CU at full occupancy */
    double thr_mhz;    /* the clock thr_bpc is per */
    struct gc_stats thr;
};

/* c: the stride's first latency launch; c[1] and c[2] follow it (plan
 * order). Latency: the difference of the two trip counts removes launch and
 * set-up time (Volkov §6.1: time per dependent instruction). */
static void chain_figures(const struct gc_harness *h, const struct gc_hconf *c,
                          struct chain_res *res)
{
    const struct gc_measurement *m1 = &c[0].m, *m2 = &c[1].m;

    res->lat_cycles = res->lat_res = res->thr_bpc = res->thr_mhz = NAN;
    memset(&res->thr, 0, sizeof(res->thr));
    if (c[0].state == GC_H_REFINED && c[1].state == GC_H_REFINED) {
        double clk = isfinite(m2->clock_mhz) ? m2->clock_mhz : m1->clock_mhz;
        const struct sh_cfg *cf = c[0].user;

        double per_s = clk * 1e6 / ((double)cf->trips * SH_CHAIN);

        res->lat_cycles = (m2->seconds.median - m1->seconds.median) * per_s;
        res->lat_res = gc__diff_resolution(&m2->seconds, &m1->seconds) * per_s;
    }
    if (c[2].state == GC_H_REFINED) {
        per_clk(h, &c[2], &res->thr);
        if (res->thr.n) {
            res->thr_bpc = res->thr.median;
            res->thr_mhz = c[2].m.clock_mhz;
        }
    }
}

/* The figures of the conflict-free (stride 1) and broadcast (stride 0)
 * chains; issue: why 4-byte figures stay under the banks' rate. */
static void chain_metrics(const struct gc_harness *h, unsigned st, const struct chain_res *cr,
                          double chain_lim, const char *issue)
{
    char note[320];

    if (st == 1) {
        gc__bench_add_difference(h->r, "shared_latency_cycles", cr->lat_cycles, cr->lat_res,
                                 "cycles",
                                 "one warp, dependent 4-byte loads a = sm[a], conflict-free; "
                                 "(time(2n) - time(n)) / n loads at the observed clock");
        snprintf(note, sizeof(note), "dependent 4-byte loads, conflict-free, every CU full%s",
                 issue);
        if (isfinite(cr->thr_bpc))
            gc__bench_add_metric(h->r, "shared_load_bytes_per_clk_per_cu", cr->thr_bpc, "B/clk/CU",
                                 chain_lim, &cr->thr, note);
    }
    if (st == 0) {
        gc__bench_add_difference(h->r, "broadcast_latency_cycles", cr->lat_cycles, cr->lat_res,
                                 "cycles", "one warp, every lane loads the same word");
        snprintf(note, sizeof(note),
                 "every lane loads the same word; 128 B counted per warp load%s", issue);
        if (isfinite(cr->thr_bpc))
            gc__bench_add_metric(h->r, "broadcast_bytes_per_clk_per_cu", cr->thr_bpc, "B/clk/CU",
                                 chain_lim, &cr->thr, note);
    }
}

/* Latency and throughput per lane stride and per conflict degree. */
static void derive_chain(const struct gc_harness *h, const struct gc_shmem_run *sr,
                         const char *issue)
{
    const struct gc_device_info *info = &h->s->dev->info;
    struct gc_series *ser = &h->r->series[sr->s0];
    bool cuda7 = isfinite(h->s->dev->arch.l1_bytes_per_clk);
    int cus = info->compute_units > 0 ? info->compute_units : 1;
    double stride1_bpc = NAN;

    for (int i = 0; i + 2 < h->ncfg; i++) {
        const struct sh_cfg *cf = h->cfg[i].user;
        unsigned st = cf->stride, deg = st ? gcd32(st) : 1;
        struct chain_res cr;
        char lab[32];

        if (cf->kind != SH_LAT)
            continue;
        chain_figures(h, &h->cfg[i], &cr);
        snprintf(lab, sizeof(lab), st ? "%u-way" : "broadcast", deg);
        if (isfinite(cr.thr_bpc))
            gc__series_add(&ser[2], st, cr.thr_bpc, &cr.thr, lab);
        /* A latency below the two times' resolution is no point of the
         * curve: its y is left unknown and the label says why. */
        bool below = gc__below_resolution(cr.lat_cycles, cr.lat_res);
        if (below)
            gc__series_add(&ser[3], st, NAN, NULL, "below resolution");
        else if (isfinite(cr.lat_cycles))
            gc__series_add(&ser[3], st, cr.lat_cycles, NULL, lab);
        /* Power-of-two strides give conflict degree = stride. */
        if (st && (st & (st - 1)) == 0) {
            if (isfinite(cr.thr_bpc))
                gc__series_add(&ser[4], deg, cr.thr_bpc, &cr.thr, lab);
            if (below)
                gc__series_add(&ser[5], deg, NAN, NULL, "below resolution");
            else if (isfinite(cr.lat_cycles))
                gc__series_add(&ser[5], deg, cr.lat_cycles, NULL, lab);
        }
        /* CPU devices: every lane's word comes through a load of at most
         * one vector (a broadcast too), at the clock of the figure. */
        double chain_lim = cuda7 ? SH_BANK_BYTES : NAN;
        if (info->type == GC_DEVICE_CPU && cr.thr_mhz > 0)
            chain_lim = gc__cpu_stream_limit(info, 1, 0) / (cr.thr_mhz * 1e6 * cus);
        if (st == 1)
            stride1_bpc = cr.thr_bpc;
        chain_metrics(h, st, &cr, chain_lim, issue);
        if (st == 32 && isfinite(stride1_bpc) && isfinite(cr.thr_bpc) && cr.thr_bpc > 0)
            gc__bench_add_metric(h->r, "conflict32_slowdown", stride1_bpc / cr.thr_bpc, "x", NAN,
                                 NULL,
                                 "throughput at lane stride 1 / at stride 32 (32-way); 32 "
                                 "expected where 32 banks serve one word each per clock");
    }
}

int gc__shmem_derive(struct gc_session *s, const struct gc_harness *h, const char *bench)
{
    const struct gc_shmem_run *sr = h->d->user;
    struct bw_best swap, load;
    double swap_bpc[3], load_bpc[3];
    char issue[160] = "";
    int rc;

    if ((rc = derive_family(h, SH_SWAP, sr->s0, sr->s0 + 1, &swap, swap_bpc)) ||
        (rc = derive_family(h, SH_LOAD, sr->s0 + 6, sr->s0 + 7, &load, load_bpc)))
        return rc;
    if (load.c && (rc = load_metrics(s, h, &load, bench)))
        return rc;
    if (swap.c)
        swap_metrics(h, sr, &swap);
    /* Why the 4-byte figures stay under the banks' 128 B/clk: a warp-wide
     * 4-byte load delivers at most 128 B, so reaching the banks' rate takes
     * one shared-memory instruction per clock per SM; the independent loads
     * show what that issue rate gives, against the wider loads' bandwidth. */
    if (isfinite(load_bpc[0]) && isfinite(load_bpc[2]))
        snprintf(issue, sizeof(issue),
                 "; a 4-byte warp load moves 128 B, so 128 B/clk needs 1 LDS/clk/SM: "
                 "independent 4-byte loads give %.0f, 16-byte %.0f B/clk/CU",
                 load_bpc[0], load_bpc[2]);
    derive_chain(h, sr, issue);
    return 0;
}

static int run_shared(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    static const struct gc_hbench hb = {gc__shmem_plan, gc__shmem_derive, gc__shmem_free};

    return gc__harness_bench(s, r, self->info.name, &hb);
}

static const struct gc_sum_cell shared_cells[] = {
    GC_SUM_V(gc__sum_memory, "shared", 0, "shared_bytes_per_clk_per_cu", NULL),
    GC_SUM_P(gc__sum_memory, "shared", 1, "shared_bytes_per_clk_per_cu"),
    GC_SUM_V(gc__sum_memory, "shared", 2, "shared_latency_cycles", "cycles"),
    {0},
};
static const struct gc_fig_rule shared_figures[] = {
    {"*conflict*", "shared memory: bank-conflict sweep", 0, NULL, false, false, false},
    {"*lane_stride*", "shared memory: lane stride (0 = broadcast)", 0, NULL, false, false, false},
    {"*element_size*", "shared memory: element size", 0, NULL, false, false, false},
    {0},
};
static const struct gc_bench_report shared_report = {shared_cells, shared_figures};

const struct gc_bench gc__bench_shared = {
    .info =
        {
            .name = "memory.shared",
            .group = "memory",
            .summary = "shared-memory bandwidth (4/8/16-byte elements), latency, bank-conflict "
                       "sweep and broadcast",
            .method =
                "Bandwidth (shared_bandwidth, the headline): a load kernel. Each block fills "
                "16 KiB of shared memory with a hash of (block, word, seed); per loop trip "
                "every thread issues 16 KiB / (256 x e) independent loads of e = 4, 8 or 16 "
                "bytes (LDS, LDS.64, LDS.128 on CUDA) at literal offsets from one address, "
                "tid ^ ((trip mod 8) << 5): whole warps trade places each trip, so a warp reads "
                "32 consecutive elements (conflict-free) and the loads cannot be hoisted; the "
                "words are added into one sum per thread (4096 trips, 64 on CPUs). Bytes = "
                "threads x trips x 64; the best element size is reported, against 128 "
                "B/clk/SM x SMs x the observed clock. Verified: every thread's sum equals "
                "trips / 8 x the sum of the words it reads in 8 trips. A 4-byte warp load "
                "moves at most 128 B, so 4-byte figures at 128 B/clk need one shared load "
                "per clock per SM: below that the instruction issue rate limits, not the "
                "banks (the notes give the load kernel's 4- and 16-byte figures). "
                "Swap (swap_bandwidth, gpumembench's figure): shmembench's swap kernel "
                "(Konstantinidis & Cotronis "
                "SIII-B): each thread owns 6 elements of 4, 8 or 16 bytes in shared memory and "
                "per iteration swaps rows (0,1) (2,3) (4,5), fences, swaps (1,2) (3,4), fences "
                "(2048 iterations, 8 per loop trip); bytes = threads x iterations x 20 accesses "
                "x element size; blocks of 256, every SM full (occupancy enforced with dynamic "
                "shared memory). Normalised as bytes per clock per SM at the observed clock "
                "(Table III's per-SM per-clock form); limit 32 banks x 4 B = 128 B/clk/SM on "
                "CUDA CC >= 7.0. Verified: each thread's six rows read back and compared with "
                "the permutation the host derives from the swap sequence. Latency and bank "
                "conflicts (Volkov S6.1-6.2; MIPP SIV-B): a dependent chain a = sm[a] (64 "
                "loads per trip) through three pages whose word w points to word w of the next "
                "page, so each lane stays in one bank; lane l starts at word l x stride "
                "(stride 0 = broadcast), giving a gcd(stride, 32)-way conflict (strides 0-32 with "
                "--full, a subset by default). One warp: "
                "latency = (time(2n trips) - time(n trips)) x clock / (64 n). Every SM full: "
                "throughput = warp loads x 128 B / (time x clock x SMs). Verified: every lane "
                "must end on the word its start and the trip count predict.",
        },
    .needs_caps = GC_CAP_DYN_SHARED,
    .run = run_shared,
    .sources = gc__shmem_sources,
    .plan = plan_shmem,
    .launch_at = gc__shared_launch_at,
    .report = &shared_report,
};
