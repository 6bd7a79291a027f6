/* memory.bandwidth: bandwidth against footprint through each load path
 * (gpumembench cachebench, Konstantinidis & Cotronis §III-A, Table III;
 * MIPP §IV-B L2/DRAM; uCLbench §2.2 global streaming), from working sets
 * that live in L1 to far above the last-level cache. Plateaus give the L1,
 * L2 and DRAM bandwidths, also per SM per clock. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/cachebw/cachebw.h"
#include "bench/dram/dram.h"
#include "core/devfill.h"
#include "core/harness.h"
#include "bench/cachebw/verify.h"
#include "bench/launchcfg.h"
#include "core/stats.h"
#include "kgen/gen_stream.h"
#include "core/kcache.h"

#define CB_BLOCK GC_CACHEBW_BLOCK
#define CB_CHUNK_MAX GC_CACHEBW_CHUNK_MAX
#define CB_MAX_CURVES 12
#define CB_MAX_FP 24
/* Chunks per block per launch in the CPU form (gen_cachebw): one, and as
 * many blocks as the launch needs; more passes per block read slower on
 * PoCL (docs/results/pocl.md). */
#define CB_CPU_PASSES 1
#define CB_NU 3 /* chunk sizes 4, 8 and 16 KiB */
#define CB_CMP ((size_t)16 << 20)
/* Streamed once per launch when the last-level cache size is unknown. */
#define CB_STREAM_UNKNOWN_L2 ((size_t)64 << 20)

struct curve {
    bool copy;
    int vec_bytes;
    enum gc_ldpath ld;
    size_t fp_max; /* the largest footprint measured; 0: every footprint */
};

static const char *const path_names[] = {"default", "cg", "nc"};

static int chunk_index(size_t fp)
{
    return fp >= CB_CHUNK_MAX ? 2 : fp >= CB_CHUNK_MAX / 2 ? 1 : 0;
}

static int unroll_of(int ci, int vec)
{
    return (int)(((size_t)4096 << ci) / ((size_t)CB_BLOCK * (size_t)vec));
}

/* One pass's loads of unroll vectors from index i, then their stores (copy)
 * or their sums. */
static void pass_body(struct gc_sbuf *b, const struct curve *cv, int unroll, const char *ind)
{
    int vw = cv->vec_bytes / 4;

    for (int u = 0; u < unroll; u++)
        gc__sbuf_printf(b, "%sGC_V v%d = gc_ld(src + i + %du);\n", ind, u, u * CB_BLOCK);
    for (int u = 0; u < unroll; u++) {
        if (cv->copy)
            gc__sbuf_printf(b, "%sgc_st(dst + i + %du, v%d);\n", ind, u * CB_BLOCK, u);
        else
            for (int w = 0; w < vw; w++)
                gc__sbuf_printf(b, "%sa%d += v%d%s;\n", ind, w, u, gc__vec_comp(cv->vec_bytes, w));
    }
}

static void body_loop(struct gc_sbuf *b, const struct curve *cv, int unroll)
{
    gc__sbuf_printf(b,
                    "    GC_U32 c = (GC_BID * passes) %% nchunks;\n"
                    "    GC_U32 off = GC_TID;\n"
                    "    #pragma unroll 1\n"
                    "    for (GC_U32 t = 0; t < passes; t++) {\n"
                    "        GC_U32 i = c * %uu + off;\n",
                    (unsigned)(CB_BLOCK * unroll));
    pass_body(b, cv, unroll, "        ");
    gc__sbuf_printf(b,
                    "        off += v%d%s & zero;\n"
                    "        c = c + 1u == nchunks ? 0u : c + 1u;\n"
                    "    }\n",
                    unroll - 1, gc__vec_comp(cv->vec_bytes, 0));
}

static void body_unrolled(struct gc_sbuf *b, const struct curve *cv, int unroll, int passes)
{
    gc__sbuf_puts(b, "    GC_U32 c0 = GC_BID * passes;\n");
    for (int k = 0; k < passes; k++) {
        gc__sbuf_printf(b, "    {\n        GC_U32 i = ((c0 + %du) %% nchunks) * %uu + GC_TID;\n", k,
                        (unsigned)(CB_BLOCK * unroll));
        pass_body(b, cv, unroll, "        ");
        gc__sbuf_puts(b, "    }\n");
    }
}

/* Every block reads `passes` chunks of block x unroll vectors, starting at
 * chunk (block index x passes) mod nchunks and wrapping: small footprints are
 * re-read by every block many times (per-SM working set = footprint), large
 * ones are streamed once. The next pass's addresses depend on the last
 * loaded value masked with a run-time zero, so no compiler can hoist or merge
 * the re-reads; the loop is kept rolled with unroll loads per trip.
 *
 * cpu_passes > 0: the form for CPU devices, the same words per thread in
 * cpu_passes passes written out without a loop or the dependence. An
 * OpenCL CPU compiler vectorizes only a kernel body without loops across
 * work-items (16 work-items' 4-byte loads become one 64-byte load); with
 * the pass loop each work-item runs alone, one dependent pass after another
 * (an EPYC core's L1 then read 7 B/clk). The chunks of one block differ at
 * run time (nchunks is an argument), so nothing can merge their loads. */
static char *gen_cachebw(enum gc_dialect d, unsigned flags, const struct curve *cv, int unroll,
                         int cpu_passes)
{
    struct gc_sbuf b;
    int vw = cv->vec_bytes / 4;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, flags);
    gc__gen_ldst(&b, d, cv->vec_bytes, cv->ld, cv->copy);
    gc__sbuf_printf(&b,
                    "GC_KERNEL void gc_cachebw(GC_GLOBAL const GC_V *src, GC_GLOBAL %s *dst, "
                    "GC_U32 nchunks, GC_U32 passes, GC_U32 zero GC_TS_PARAM)\n{\n"
                    "    GC_TS_BEGIN\n",
                    cv->copy ? "GC_V" : "GC_U32");
    if (!cv->copy)
        for (int w = 0; w < vw; w++)
            gc__sbuf_printf(&b, "    GC_U32 a%d = 0;\n", w);
    if (cpu_passes > 0)
        body_unrolled(&b, cv, unroll, cpu_passes);
    else
        body_loop(&b, cv, unroll);
    if (!cv->copy) {
        gc__sbuf_puts(&b, "    dst[GC_GID] = a0");
        for (int w = 1; w < vw; w++)
            gc__sbuf_printf(&b, " + a%d", w);
        gc__sbuf_puts(&b, ";\n");
    }
    gc__sbuf_puts(&b, "    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

/* hints: the device's loads take cache operators (GC_CAP_CACHE_HINTS).
 * The quick profile keeps the narrower loads on a GPU's L1 footprints only:
 * the L1 figure is the best load of any width (an H200's L1 serves 8-byte
 * loads at 125 B/clk/SM, 16-byte ones at 117), and the application kernels'
 * attained L1 rates are set against it. */
static int build_curves(enum gc_profile p, bool hints, bool gpu, struct curve *c)
{
    int n = 0;

    c[n++] = (struct curve){false, 16, GC_LD_DEFAULT, 0};
    if (hints)
        c[n++] = (struct curve){false, 16, GC_LD_CG, 0};
    if (p != GC_PROFILE_QUICK) {
        if (hints)
            c[n++] = (struct curve){false, 16, GC_LD_NC, 0};
        c[n++] = (struct curve){false, 8, GC_LD_DEFAULT, 0};
        c[n++] = (struct curve){false, 4, GC_LD_DEFAULT, 0};
    } else if (gpu) {
        c[n++] = (struct curve){false, 8, GC_LD_DEFAULT, CB_L1_MAX_FP};
        c[n++] = (struct curve){false, 4, GC_LD_DEFAULT, CB_L1_MAX_FP};
    }
    if (p == GC_PROFILE_FULL && hints)
        for (int v = 4; v <= 8; v *= 2) {
            c[n++] = (struct curve){false, v, GC_LD_CG, 0};
            c[n++] = (struct curve){false, v, GC_LD_NC, 0};
        }
    c[n++] = (struct curve){true, 16, GC_LD_DEFAULT, 0};
    if (p == GC_PROFILE_FULL)
        for (int v = 4; v <= 8; v *= 2)
            c[n++] = (struct curve){true, v, GC_LD_DEFAULT, 0};
    return n;
}

/* Footprints: 4 KiB doubling (quadrupling in the quick profile) up to 16x
 * the last-level cache, bounded by the device; CPUs stop at 16 MiB. */
static int build_footprints(enum gc_profile p, const struct gc_device_info *i, size_t *fp)
{
    bool gpu = i->type == GC_DEVICE_GPU;
    size_t hi = gpu ? (i->l2_size ? 16 * i->l2_size : (size_t)1 << 30) : (size_t)16 << 20;
    int n = 0;

    if (hi > ((size_t)1 << 30) && p != GC_PROFILE_FULL)
        hi = (size_t)1 << 30;
    if (hi > ((size_t)2 << 30))
        hi = (size_t)2 << 30;
    if (i->max_alloc && hi > i->max_alloc / 2)
        hi = i->max_alloc / 2;
    for (size_t f = 4096; f <= hi && n < CB_MAX_FP; f *= p == GC_PROFILE_QUICK ? 4 : 2)
        fp[n++] = f;
    /* The last point must stand well above the cache: round up to the next
     * step past hi when the loop stopped short of it. */
    return n;
}

#define CB_POISON 0xDEADBEEFu

/* Chunks each block reads per launch. A footprint the last-level cache can
 * hold is re-read until the launch moves about target bytes. A larger one is
 * read once per launch, each block its own contiguous range: re-reading it
 * within a launch would make blocks that started one footprint apart read
 * the same chunks at nearly the same time, served by the cache, not by
 * DRAM (an H200 reported 128% of its DRAM bandwidth at 512 MiB that way). */
static unsigned cb_passes(double target, size_t fp, size_t l2, unsigned grid, size_t cbytes)
{
    size_t nchunks = fp / cbytes;
    unsigned once = (unsigned)((nchunks + grid - 1) / grid);
    bool beyond = l2 ? fp > l2 : fp > CB_STREAM_UNKNOWN_L2;

    if (beyond)
        return once ? once : 1;
    unsigned passes = (unsigned)ceil(target / grid / (double)cbytes);
    return passes < once ? once : passes;
}

/* The launch of one point on a CPU device (the unrolled form, cpu_passes
 * chunks per block): as many blocks as reach the target bytes where the
 * cache holds the footprint, else as cover it once, each block its own
 * contiguous chunks; never fewer than cover it, nor more than max_grid (the
 * per-thread sums' buffer). */
static unsigned cpu_grid(double target, size_t fp, size_t l2, int cpu_passes, size_t cbytes,
                         size_t max_grid)
{
    size_t per = (size_t)cpu_passes * cbytes,
           need = (fp / cbytes + (size_t)cpu_passes - 1) / (size_t)cpu_passes;
    bool beyond = l2 ? fp > l2 : fp > CB_STREAM_UNKNOWN_L2;
    double g = beyond ? (double)need : ceil(target / (double)per);

    if (g > (double)max_grid)
        g = (double)max_grid;
    return (unsigned)(g > (double)need ? g : (double)need);
}

static int cpu_passes_of(const struct gc_device_info *i)
{
    return i->type == GC_DEVICE_CPU ? CB_CPU_PASSES : 0;
}

static int resident(struct gc_device *d, struct gc_kern *k)
{
    const struct gc_device_info *i = &d->info;
    int per_cu = i->max_threads_per_cu > 0 ? i->max_threads_per_cu / CB_BLOCK : 2, api = 0;

    if (per_cu < 1)
        per_cu = 1;
    if (i->max_blocks_per_cu > 0 && per_cu > i->max_blocks_per_cu)
        per_cu = i->max_blocks_per_cu;
    if ((i->caps & GC_CAP_OCCUPANCY_API) &&
        gc__dev_max_active_blocks(d, k, CB_BLOCK, 0, &api) == 0 && api > 0 && api < per_cu)
        per_cu = api;
    return per_cu * (i->compute_units > 0 ? i->compute_units : 1);
}

/* Bytes each launch reads: enough that the launch lasts ~100 us or more at
 * L1 speed (its start and drain then cost about 1%; a launch a quarter as
 * long reads the L1 and L2 some 3-5% lower), and at least the whole
 * footprint; the same in every profile, whose samples last min_time
 * however many launches that takes. */
static double cb_target(bool gpu)
{
    return gpu ? 4.0 * (1u << 30) : (double)(64u << 20);
}

int gc__cachebw_point(const struct gc_device_info *info, enum gc_dialect d, int vec_bytes,
                      enum gc_ldpath ld, size_t fp, unsigned grid, struct gc_cachebw_point *out)
{
    struct curve cv = {false, vec_bytes, ld, 0};
    int ci = chunk_index(fp), unroll = unroll_of(ci, vec_bytes);

    memset(out, 0, sizeof(*out));
    out->chunk = (size_t)4096 << ci;
    out->nchunks = fp / out->chunk;
    out->passes =
        cb_passes(cb_target(info->type == GC_DEVICE_GPU), fp, info->l2_size, grid, out->chunk);
    out->bytes_read = (double)grid * out->passes * (double)out->chunk;
    out->src = gen_cachebw(d, 0, &cv, unroll, 0);
    return out->src ? 0 : GC_ENOMEM;
}

/* ---- the run on the harness ------------------------------------------------
 *
 * Every (curve, footprint) point is one configuration of the harness. Each is
 * screened; only the leaders of each plateau the figures are derived from
 * are measured with the full stopping rule, and every figure comes from a
 * full measurement. The others stay in their curve as "(screened)" points.
 *
 * Why the screen is enough: a launch moves about 4 GiB below the last-level
 * cache (0.13 ms on an H200's L1 plateau, 0.45 ms in L2) and the footprint
 * once above it (15 us at 64 MiB, 0.12 ms at 512 MiB). The full rule spent
 * per point 2 warm-ups, a calibration batch and 5..25 samples of 10 ms until
 * the 95% interval was within 0.5%, then a verification that summed the
 * whole footprint on the host: about 155 ms, 16.8 s for 108 points. A screen
 * is one warm-up, one calibration batch and 3 samples of 2 ms (4 to 130
 * launches each, so the launch gaps and the timer's microsecond are below
 * 0.1% of a sample), about 9 ms, and its verification one pass of the
 * device's reference kernel and the per-thread sums read back (1 MiB): the
 * median of 3 ranks a plateau's candidates to a few percent, which is why
 * each plateau refines its best 2, any within 2% of its best, at most 3. */

#define CB_SCREEN_S 0.002
#define CB_SCREEN_N 3

/* Resident blocks the grid can have at most (resident() without the
 * occupancy calculator): the size of the timestamp buffer, and the grid the
 * plan assumes for the L2 plateau's range until setup knows the real one. */
static unsigned grid_bound(const struct gc_device_info *i)
{
    int per_cu = i->max_threads_per_cu > 0 ? i->max_threads_per_cu / CB_BLOCK : 2;

    if (per_cu < 1)
        per_cu = 1;
    if (i->max_blocks_per_cu > 0 && per_cu > i->max_blocks_per_cu)
        per_cu = i->max_blocks_per_cu;
    return (unsigned)per_cu * (unsigned)(i->compute_units > 0 ? i->compute_units : 1);
}

struct cb_pt {
    int c, f; /* curve and footprint */
    unsigned grid, passes;
};

struct gc_cachebw_run {
    struct curve cv[CB_MAX_CURVES];
    size_t fp[CB_MAX_FP], fmax;
    int ncv, nfp;
    double target;
    unsigned flags, grid_max;
    int cpu_passes; /* 0 on a GPU: the kernel's form (gen_cachebw) */
    uint64_t seed;
    struct gc_buf *src, *dst; /* the run's pool: one allocation for every footprint */
    struct gc_buf *ref, *tsb; /* the lane sums' scratch, the timestamps */
    struct cb_pt pt[CB_MAX_CURVES * CB_MAX_FP]; /* per configuration */
    struct gc_cb_lanes lanes;
    struct gc_hdesc desc;
};

static size_t chunk_of(size_t fp)
{
    return (size_t)4096 << chunk_index(fp);
}

static int cb_setup(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out)
{
    struct gc_cachebw_run *cr = h->d->user;
    struct cb_pt *p = &cr->pt[c - h->cfg];
    const struct curve *cv = &cr->cv[p->c];
    struct gc_device *d = h->s->dev;
    size_t fp = cr->fp[p->f], cbytes = chunk_of(fp);
    unsigned rgrid = (unsigned)resident(d, c->k), grid = rgrid;
    int na = 0;

    if (cr->cpu_passes)
        grid = cpu_grid(cr->target, fp, d->info.l2_size, cr->cpu_passes, cbytes,
                        cr->fmax / (CB_BLOCK * 4));
    if ((!cr->cpu_passes && grid > cr->grid_max) ||
        (!cv->copy && (size_t)grid * CB_BLOCK * 4 > cr->fmax)) {
        gc__bench_set_error(h->r, GC_BENCH_ERROR,
                            "a grid of %u blocks exceeds the buffers (sized for %u blocks, %zu B)",
                            grid, cr->grid_max, cr->fmax);
        return GC_ERANGE;
    }
    p->grid = grid;
    p->passes = cr->cpu_passes ? (unsigned)cr->cpu_passes
                               : cb_passes(cr->target, fp, d->info.l2_size, grid, cbytes);
    out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = cr->src};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = cr->dst};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)(fp / cbytes)};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = p->passes};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 0};
    if (cr->flags & GC_KGEN_TIMESTAMPS) {
        out->ts = (struct gc_timestamps){cr->tsb, grid};
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = cr->tsb};
    }
    out->l = (struct gc_launch){{grid, 1, 1}, {CB_BLOCK, 1, 1}, 0, out->args, na, 1};
    out->work = (double)grid * p->passes * (double)cbytes * (cv->copy ? 2.0 : 1.0) +
                (cv->copy ? 0.0 : (double)grid * CB_BLOCK * 4);
    snprintf(out->desc, sizeof(out->desc),
             "%s, %d-byte elements, %s path, footprint %zu B, %u blocks x %u passes of %zu KiB "
             "chunks",
             cv->copy ? "copy" : "load", cv->vec_bytes, path_names[cv->ld], fp, grid, p->passes,
             cbytes >> 10);
    /* The L2 plateau's range follows the resident grid that runs (on a CPU
     * the blocks resident at once, whatever the launch's count). */
    c->plateaus = gc__cachebw_plateaus(&d->info, cv->copy, cv->ld, fp, cr->fmax, rgrid);
    return 0;
}

/* Poisoned, so that verification proves the launch wrote every word. */
static int cb_before(struct gc_harness *h, struct gc_hconf *c)
{
    const struct gc_cachebw_run *cr = h->d->user;
    const struct cb_pt *p = &cr->pt[c - h->cfg];
    size_t outn = cr->cv[p->c].copy ? cr->fp[p->f] : (size_t)p->grid * CB_BLOCK * 4;

    return gc__devfill_word(h->s, cr->dst, outn, CB_POISON);
}

static int cb_verify(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    struct gc_cachebw_run *cr = h->d->user;
    const struct cb_pt *p = &cr->pt[c - h->cfg];
    const struct curve *cv = &cr->cv[p->c];
    size_t fp = cr->fp[p->f];
    struct gc_cb_check ck = {
        .src = cr->src,
        .out = cr->dst,
        .ref = cr->ref,
        .seed = cr->seed,
        .fp = fp,
        .chunk = chunk_of(fp),
        .vec_bytes = cv->vec_bytes,
        .unroll = unroll_of(chunk_index(fp), cv->vec_bytes),
        .block = CB_BLOCK,
        .copy = cv->copy,
        .grid = p->grid,
        .passes = p->passes,
    };

    return gc__cb_check(h->s, &ck, &cr->lanes, msg, len);
}

struct gc_hdesc *gc__cachebw_desc(struct gc_cachebw_run *cr)
{
    return &cr->desc;
}

/* Series, one per curve, and the configurations footprint by footprint
 * (the three 16-byte load curves of a footprint share their lane sums). */
static int plan_points(struct gc_session *s, struct gc_harness *h, struct gc_cachebw_run *cr)
{
    const struct gc_device_info *info = &s->dev->info;
    int s0 = h->r->nseries;

    for (int c = 0; c < cr->ncv; c++) {
        char name[64];

        snprintf(name, sizeof(name), "%s_%s_vec%dB", cr->cv[c].copy ? "copy" : "load",
                 path_names[cr->cv[c].ld], cr->cv[c].vec_bytes);
        if (!gc__bench_add_series(h->r, name, "footprint", "B", "bandwidth", "B/s"))
            return GC_ENOMEM;
    }
    for (int f = 0; f < cr->nfp; f++)
        for (int c = 0; c < cr->ncv; c++) {
            const struct curve *cv = &cr->cv[c];
            size_t fp = cr->fp[f];
            int unroll = unroll_of(chunk_index(fp), cv->vec_bytes);

            if (cv->fp_max && fp > cv->fp_max)
                continue;
            struct gc_hconf *hc = gc__harness_add(h);
            if (!hc)
                return GC_ENOMEM;
            cr->pt[h->ncfg - 1] = (struct cb_pt){c, f, 0, 0};
            snprintf(hc->label, sizeof(hc->label), "cachebw_%s_v%d_%s_u%d_fp%zu",
                     cv->copy ? "copy" : "load", cv->vec_bytes, path_names[cv->ld], unroll, fp);
            hc->src = gen_cachebw(s->dev->ops->dialect, cr->flags, cv, unroll, cr->cpu_passes);
            hc->kernel = "gc_cachebw";
            hc->series = s0 + c;
            hc->x = (double)fp;
            if (fp >= (size_t)1 << 20)
                snprintf(hc->point, sizeof(hc->point), "%zu MiB", fp >> 20);
            else
                snprintf(hc->point, sizeof(hc->point), "%zu KiB", fp >> 10);
            hc->plateaus = gc__cachebw_plateaus(info, cv->copy, cv->ld, fp, cr->fmax, cr->grid_max);
        }
    return 0;
}

/* The buffers of the run: input and output from the pool, sized for the
 * largest footprint; the lane sums' scratch; the timestamps. */
static int alloc_run(struct gc_session *s, struct gc_cachebw_run *cr)
{
    struct gc_device *d = s->dev;
    size_t lanes = cr->fmax / chunk_of(cr->fmax) * CB_BLOCK * 4;
    int rc;

    if ((rc = gc__pool_input(s, "cachebw.src", cr->fmax, cr->seed, &cr->src)) ||
        (rc = gc__pool_output(s, "cachebw.dst", cr->fmax, &cr->dst)) ||
        (rc = gc__dev_alloc(d, lanes, &cr->ref)))
        return rc;
    if (cr->flags & GC_KGEN_TIMESTAMPS)
        rc = gc__dev_alloc(d, (size_t)cr->grid_max * GC_TS_WORDS * 8, &cr->tsb);
    return rc;
}

int gc__cachebw_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h,
                     struct gc_cachebw_run **out)
{
    const struct gc_device_info *info = &s->dev->info;
    bool hints = info->caps & GC_CAP_CACHE_HINTS, gpu = info->type == GC_DEVICE_GPU;
    struct gc_cachebw_run *cr = calloc(1, sizeof(*cr));
    int rc;

    *out = cr;
    if (!cr) {
        snprintf(s->dev->err, sizeof(s->dev->err), "out of host memory");
        return GC_ENOMEM;
    }
    cr->ncv = build_curves(s->profile, hints, gpu, cr->cv);
    cr->nfp = build_footprints(s->profile, info, cr->fp);
    cr->fmax = cr->fp[cr->nfp - 1];
    cr->target = cb_target(gpu);
    cr->flags = (info->caps & GC_CAP_CLOCK64) && (info->caps & GC_CAP_GLOBALTIMER) &&
                        (info->caps & GC_CAP_SMID)
                    ? GC_KGEN_TIMESTAMPS
                    : 0;
    cr->grid_max = grid_bound(info);
    cr->cpu_passes = cpu_passes_of(info);
    cr->seed = s->seed ^ 0xCBB5ULL;
    /* No time budget: every point is drawn (a screen each), and the full
     * measurements are bounded by the plateaus' refine_max. */
    cr->desc = (struct gc_hdesc){
        .refine_top = 2,
        .refine_within = 0.02,
        .refine_max = 3,
        .screen_sample_s = CB_SCREEN_S,
        .screen_samples = CB_SCREEN_N,
        .setup = cb_setup,
        .before = cb_before,
        .verify = cb_verify,
        .user = cr,
    };
    gc__harness_init(h, s, r, &cr->desc);
    if ((rc = plan_points(s, h, cr)))
        return rc;
    return alloc_run(s, cr);
}

/* The run's compile plan: the kernels plan_points requests (one per curve
 * and unroll factor; the harness builds each distinct source once). */
static int cachebw_plan(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out,
                        int *n)
{
    const struct gc_device_info *info = &s->dev->info;
    unsigned need = GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER | GC_CAP_SMID;
    unsigned flags = (info->caps & need) == need ? GC_KGEN_TIMESTAMPS : 0;
    struct gc_cachebw_run *cr = calloc(1, sizeof(*cr));
    struct gc_ksrc *k = NULL;
    int m = 0, rc = GC_ENOMEM;

    (void)self;
    *out = NULL;
    *n = 0;
    if (!cr)
        return GC_ENOMEM;
    cr->ncv = build_curves(s->profile, info->caps & GC_CAP_CACHE_HINTS, info->type == GC_DEVICE_GPU,
                           cr->cv);
    cr->nfp = build_footprints(s->profile, info, cr->fp);
    if (!(k = calloc((size_t)(cr->nfp * cr->ncv + 1), sizeof(*k))))
        goto out;
    for (int f = 0; f < cr->nfp; f++)
        for (int c = 0; c < cr->ncv; c++) {
            const struct curve *cv = &cr->cv[c];
            int unroll = unroll_of(chunk_index(cr->fp[f]), cv->vec_bytes);

            if (cv->fp_max && cr->fp[f] > cv->fp_max)
                continue;
            snprintf(k[m].label, sizeof(k[m].label), "cachebw_%s_v%d_%s_u%d",
                     cv->copy ? "copy" : "load", cv->vec_bytes, path_names[cv->ld], unroll);
            if (!(k[m++].src =
                      gen_cachebw(s->dev->ops->dialect, flags, cv, unroll, cpu_passes_of(info))))
                goto out;
        }
    *out = k;
    *n = m;
    k = NULL;
    rc = 0;
out:
    gc__ksrc_free(k, m);
    free(cr);
    return rc;
}

int gc__cachebw_derive(struct gc_session *s, const struct gc_harness *h,
                       const struct gc_cachebw_run *cr, const char *name)
{
    static const struct {
        unsigned bit;
        const char *part;
    } lv[] = {{GC_CB_L1, "l1"}, {GC_CB_L2, "l2"}};
    int rc = 0;

    (void)name;
    gc__cachebw_figures(s, h, cr->fmax);
    /* The plateaus' points, in the results (the energy meter runs the same
     * launches: cachebw_launch_at); a plateau not found has no part. */
    for (int i = 0; i < 2 && rc == 0; i++) {
        const struct gc_hconf *c = gc__cachebw_plateau_best(h, lv[i].bit);
        if (!c)
            continue;
        const struct cb_pt *p = &cr->pt[c - h->cfg];
        const struct curve *cv = &cr->cv[p->c];
        if ((rc = gc__config_set_num(h->r, lv[i].part, "vector_bytes", cv->vec_bytes)) ||
            (rc = gc__config_set_text(h->r, lv[i].part, "load_path", gc__ldpath_ptx(cv->ld))) ||
            (rc = gc__config_set_num(h->r, lv[i].part, "footprint", (double)cr->fp[p->f])))
            break;
        rc = gc__config_set_num(h->r, lv[i].part, "grid", p->grid);
    }
    return rc;
}

void gc__cachebw_free(struct gc_session *s, struct gc_harness *h, struct gc_cachebw_run *cr)
{
    gc__harness_free(h);
    if (!cr)
        return;
    gc__cb_lanes_free(&cr->lanes);
    gc__dev_free(s->dev, cr->ref);
    gc__dev_free(s->dev, cr->tsb);
    free(cr);
}

static int run_cachebw(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    struct gc_harness h;
    struct gc_cachebw_run *cr = NULL;
    int rc;

    memset(&h, 0, sizeof(h));
    rc = gc__cachebw_plan(s, r, &h, &cr);
    if (rc == 0)
        rc = gc__harness_run(&h);
    if (rc == 0 || rc == GC_EINTR) {
        int drc = gc__cachebw_derive(s, &h, cr, self->info.name);
        if (rc == 0)
            rc = drc;
    }
    if (rc == 0 && gc__stopped(s))
        rc = GC_EINTR;
    gc__cachebw_free(s, &h, cr);
    return rc;
}

static int cachebw_sources(const struct gc_bench *self, const struct gc_device_info *info,
                           struct gc_ksrc **out, int *n)
{
    struct curve cv[CB_MAX_CURVES];
    int ncv = build_curves(GC_PROFILE_FULL, true, true, cv);
    struct gc_ksrc *k = calloc((size_t)(ncv * CB_NU), sizeof(*k));

    (void)self;
    (void)info;
    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    for (int c = 0; c < ncv; c++)
        for (int u = 0; u < CB_NU; u++) {
            struct gc_ksrc *e = &k[c * CB_NU + u];
            int unroll = unroll_of(u, cv[c].vec_bytes);

            snprintf(e->label, sizeof(e->label), "cachebw_%s_v%d_%s_u%d",
                     cv[c].copy ? "copy" : "load", cv[c].vec_bytes, path_names[cv[c].ld], unroll);
            e->src = gen_cachebw(gc__kgen_inspect_dialect(), 0, &cv[c], unroll, 0);
            if (!e->src) {
                gc__ksrc_free(k, ncv * CB_NU);
                return GC_ENOMEM;
            }
            e->expect[e->nexpect++] = (struct gc_sass_expect){
                gc__stream_sass(cv[c].vec_bytes, cv[c].ld, false, false), unroll};
            if (cv[c].copy)
                e->expect[e->nexpect++] = (struct gc_sass_expect){
                    gc__stream_sass(cv[c].vec_bytes, cv[c].ld, true, true), unroll};
        }
    *out = k;
    *n = ncv * CB_NU;
    return 0;
}

/* The DRAM plateau streams like memory.dram.read's best configuration: far
 * below it means the plateau's kernel is latency-bound or mis-sized. */
static const struct gc_floor cachebw_floors[] = {
    {"dram_read_bandwidth", "memory.dram.read", "read_bandwidth", 0.75,
     "too few loads in flight for DRAM's latency, or a footprint that was not streamed"},
    {NULL, NULL, NULL, 0, NULL},
};

/* DRAM's row prefers memory.dram.read (rank 0). */
static const struct gc_sum_cell cachebw_cells[] = {
    GC_SUM_V(gc__sum_memory, "L1", 0, "l1_bytes_per_clk_per_sm", "B/clk/SM"),
    GC_SUM_P(gc__sum_memory, "L1", 1, "l1_bytes_per_clk_per_sm"),
    GC_SUM_V(gc__sum_memory, "L2 (one SM)", 0, "l2_bytes_per_clk_per_sm", "B/clk/SM"),
    GC_SUM_P(gc__sum_memory, "L2 (one SM)", 1, "l2_bytes_per_clk_per_sm"),
    {.table = &gc__sum_memory,
     .row = "DRAM",
     .col = 0,
     .metric = "dram_read_bytes_per_clk_per_sm",
     .unit = "B/clk/SM",
     .rank = 1},
    {.table = &gc__sum_memory,
     .row = "DRAM",
     .col = 1,
     .metric = "dram_read_bandwidth",
     .pick = GC_SUM_PERCENT,
     .rank = 1},
    {0},
};
static const struct gc_fig_rule cachebw_figures[] = {
    {"load_*|copy_*", "bandwidth vs footprint, %s path", 5, "_", false, false, false},
    {0},
};
static const struct gc_bench_report cachebw_report = {cachebw_cells, cachebw_figures};

static int cachebw_launch_at(struct gc_session *s, const struct gc_bench *self,
                             const struct gc_config_ask *ask, struct gc_meter_launch *w);

const struct gc_bench gc__bench_cachebw = {
    .info =
        {
            .name = "memory.bandwidth",
            .group = "memory",
            .summary = "bandwidth vs footprint through L1, L2-only and read-only paths (load and "
                       "copy); L1, L2 and DRAM plateaus in B/s and per SM per clock",
            .method =
                "gpumembench cachebench (Konstantinidis & Cotronis SIII-A, Table III), with MIPP "
                "SIV-B and uCLbench S2.2. A resident grid of 256-thread blocks (threads per SM / "
                "256 per SM, checked with the occupancy calculator) reads chunks of 4-16 KiB: each "
                "thread loads its unroll elements of a chunk at a stride of the block size (4, 8 "
                "or 16-byte elements; 64 bytes per thread per pass), then the block moves to the "
                "next chunk modulo the footprint, starting at chunk (block x passes). Small "
                "footprints are re-read by every block (per-SM working set = footprint); large "
                "ones are streamed. The next pass's addresses depend on the last loaded value "
                "masked with a run-time zero so nothing is hoisted or merged. Each launch moves "
                "about 4 GiB (1 GiB quick) and at least the footprint; a footprint larger than the "
                "last-level cache is read exactly once per launch, each block its own range, so "
                "that no chunk is read twice within a launch. Loads: on CUDA inline PTX "
                "ld.global (L1 + L2), ld.global.cg (L2 only), ld.global.nc (read-only path); on "
                "OpenCL ordinary global loads. Load-only: each thread stores the sum of the words "
                "it read, checked against the host; copy: streaming stores (st.global.cs) to a "
                "second buffer, compared with the source. Footprints 4 KiB doubling to 16x the "
                "last-level cache (1 GiB max by default). Bandwidth = bytes read (+ written) / "
                "time per launch. Plateaus: L1 = best caching load anywhere (limit on CUDA CC >= "
                "7.0: 128 B/clk/SM x SMs x observed clock, the L1/shared data path), L2 = best .cg "
                "load with footprint <= L2/2 (OpenCL: best load in [L2/8, L2/2]), L2 copy, DRAM "
                "read = best load at the largest footprint (limit: the DRAM spec). Each plateau "
                "also in B/clk/SM and 32-bit words/clk/SM at the observed clock (Table III). "
                "Every point is screened (3 samples of 2 ms, drawn as \"(screened)\"); each "
                "plateau's best 2 (and any within 2%, at most 3) are measured in full, and the "
                "plateau figures come from those full measurements only.",
        },
    .needs_caps = 0,
    .run = run_cachebw,
    .sources = cachebw_sources,
    .plan = cachebw_plan,
    .launch_at = cachebw_launch_at,
    .floors = cachebw_floors,
    .report = &cachebw_report,
};

/* ---- workload for the energy meter (bench/launchcfg.h) -------------------- */

/* Why the record b cannot serve the plateau of `level`, or NULL. */
static const char *cachebw_refusal(const struct gc_device_info *info, int level,
                                   const struct gc_best_cachebw *b, char *buf, size_t len)
{
    bool hints = info->caps & GC_CAP_CACHE_HINTS;
    size_t chunk = b->footprint >= 4096 ? (size_t)4096 << chunk_index(b->footprint) : 4096;
    int per_cu = info->max_threads_per_cu > 0 ? info->max_threads_per_cu / CB_BLOCK : 0;
    /* A CPU's launch grid covers the footprint (cpu_grid), recomputed by
     * the meter: the L2 range follows the blocks resident at once. */
    bool cpu = cpu_passes_of(info) > 0;
    unsigned rgrid = cpu ? grid_bound(info) : b->grid;

    if (b->vec_bytes != 4 && b->vec_bytes != 8 && b->vec_bytes != 16)
        snprintf(buf, len, "%d-byte vectors are not a curve of the benchmark", b->vec_bytes);
    else if (b->ld < GC_LD_DEFAULT || b->ld > GC_LD_NC || (b->ld != GC_LD_DEFAULT && !hints))
        snprintf(buf, len, "load path %d is not one this device's loads take", b->ld);
    else if (b->footprint < 4096 || b->footprint % chunk)
        snprintf(buf, len, "footprint of %zu B is not a whole number of chunks", b->footprint);
    else if (b->grid < 1 || (size_t)b->grid * CB_BLOCK * 4 > CB_CMP ||
             (!cpu && per_cu > 0 && info->compute_units > 0 &&
              b->grid > (unsigned)(per_cu * info->compute_units)))
        snprintf(buf, len, "a grid of %u blocks is not resident on this device", b->grid);
    else if (level == 1 && b->ld == GC_LD_CG)
        snprintf(buf, len, "the L2-only path does not load through L1");
    else if (level == 1 && b->footprint > CB_L1_MAX_FP)
        snprintf(buf, len, "footprint %zu KiB is above the 64 KiB every L1 holds",
                 b->footprint >> 10);
    else if (level == 2 && (!info->l2_size || b->footprint > info->l2_size / 2 ||
                            b->footprint < gc__cachebw_l2_min_fp(rgrid)))
        snprintf(buf, len, "footprint %zu KiB is not in [resident blocks x 16 KiB / 4, L2/2]",
                 b->footprint >> 10);
    else if (level == 2 && hints && b->ld != GC_LD_CG)
        snprintf(buf, len, "loads through L1 would be served there, not by L2");
    else
        return NULL;
    return buf;
}

/* The plateau's record when it still lies in its level; else the fixed
 * load kernel with 16-byte vectors on the L1 plateau (a 16 KiB footprint
 * that every block re-reads) or the L2 plateau (a quarter of the cache read
 * through the L2-only path on CUDA, so that no load hits L1), over the
 * resident blocks (grid 0). */
void gc__cachebw_pick(const struct gc_session *s, int level, const struct gc_config_ask *ask,
                      struct gc_best_cachebw *c, struct gc_cfg_pick *p)
{
    const struct gc_device_info *info = &s->dev->info;
    bool hints = info->caps & GC_CAP_CACHE_HINTS;
    const char *part = level == 1 ? "l1" : "l2";
    const struct gc_bench_result *from = gc__cfg_pick_start(p, gc__bench_cachebw.info.name, ask);
    struct gc_best_cachebw rec;
    int fp = 0, grid = 0;
    char why[sizeof(p->why)];

    *c = (struct gc_best_cachebw){
        16, level == 2 && hints ? GC_LD_CG : GC_LD_DEFAULT,
        level == 1 ? CB_CHUNK_MAX : info->l2_size / 4 / CB_CHUNK_MAX * CB_CHUNK_MAX, 0};
    if (!from)
        return;
    if (!gc__config_has_part(from, part)) {
        gc__cfg_refuse(p, "it found no %s plateau in this run", level == 1 ? "L1" : "L2");
        return;
    }
    rec.ld = gc__ldpath_named(gc__config_text(from, part, "load_path"));
    if (!gc__config_int(from, part, "vector_bytes", &rec.vec_bytes) ||
        !gc__config_int(from, part, "footprint", &fp) ||
        !gc__config_int(from, part, "grid", &grid) || fp < 0 || grid < 0 || rec.ld < 0) {
        gc__cfg_refuse(p, "its %s plateau records no vector size, load path, footprint and grid",
                       level == 1 ? "L1" : "L2");
        return;
    }
    rec.footprint = (size_t)fp;
    rec.grid = (unsigned)grid;
    if (cachebw_refusal(info, level, &rec, why, sizeof(why))) {
        gc__cfg_refuse(p, "%s", why);
        return;
    }
    *c = rec;
    p->origin = GC_CFG_RESULT;
}

/* memory.bandwidth's launch_at: the load kernel at the configuration of
 * gc__cachebw_pick for ask's part "l1" or "l2". */
static int cachebw_launch_at(struct gc_session *s, const struct gc_bench *self,
                             const struct gc_config_ask *ask, struct gc_meter_launch *w)
{
    int level = ask->part && strcmp(ask->part, "l2") == 0 ? 2 : 1;
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    struct gc_best_cachebw pc;
    struct gc_cfg_pick pick;

    (void)self;
    gc__cachebw_pick(s, level, ask, &pc, &pick);
    struct curve cv = {false, pc.vec_bytes, (enum gc_ldpath)pc.ld, 0};
    size_t fp = pc.footprint;
    int ci = chunk_index(fp), unroll = unroll_of(ci, cv.vec_bytes), rc;
    size_t cbytes = (size_t)4096 << ci, nchunks = fp / cbytes;
    double target = cb_target(gpu);
    uint64_t seed = s->seed ^ 0xCBE5ULL;
    char msg[256];

    if (level == 2 && fp < 2 * CB_CHUNK_MAX) {
        snprintf(w->why, sizeof(w->why),
                 "memory.bandwidth found no L2 plateau here: none of its footprints lies in the "
                 "L2 range of the last-level cache this device or its host reports");
        return GC_ENOTSUP;
    }
    w->req[0].label = level == 1 ? "energy_l1_load" : "energy_l2_load";
    w->req[0].src = gen_cachebw(d->ops->dialect, 0, &cv, unroll, cpu_passes_of(info));
    w->nreq = 1;
    if (!w->req[0].src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(s, w->req, 1)))
        return rc;
    if ((rc = d->ops->kernel(w->req[0].prog, "gc_cachebw", &w->k))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    unsigned grid = (unsigned)resident(d, w->k), passes;
    if (pc.grid > 0 && pc.grid < grid)
        grid = pc.grid;
    if (cpu_passes_of(info)) {
        passes = (unsigned)cpu_passes_of(info);
        grid = cpu_grid(target, fp, info->l2_size, (int)passes, cbytes, CB_CMP / (CB_BLOCK * 4));
    } else {
        passes = cb_passes(target, fp, info->l2_size, grid, cbytes);
    }
    size_t outn = (size_t)grid * CB_BLOCK * 4;
    if ((rc = gc__dev_alloc(d, fp, &w->bufs[0])) || (rc = gc__dev_alloc(d, outn, &w->bufs[1])) ||
        (rc = gc__devfill_hash(s, w->bufs[0], fp, seed)) ||
        (rc = gc__devfill_word(s, w->bufs[1], outn, CB_POISON)))
        return rc;
    w->args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[0]};
    w->args[1] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[1]};
    w->args[2] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)nchunks};
    w->args[3] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = passes};
    w->args[4] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 0};
    w->l = (struct gc_launch){{grid, 1, 1}, {CB_BLOCK, 1, 1}, 0, w->args, 5, 1};
    if ((rc = gc__meter_launch_once(d, w)))
        return rc;
    struct gc_cb_check ck = {.src = w->bufs[0],
                             .out = w->bufs[1],
                             .seed = seed,
                             .fp = fp,
                             .chunk = cbytes,
                             .vec_bytes = cv.vec_bytes,
                             .unroll = unroll,
                             .block = CB_BLOCK,
                             .grid = grid,
                             .passes = passes};
    struct gc_cb_lanes lanes = {0};
    rc = gc__cb_check(s, &ck, &lanes, msg, sizeof(msg));
    gc__cb_lanes_free(&lanes);
    if (rc == GC_EVERIFY)
        snprintf(w->why, sizeof(w->why), "verification failed: %s", msg);
    if (rc)
        return rc;
    w->bytes = (double)grid * passes * (double)cbytes + (double)outn;
    w->ops = w->bytes / cv.vec_bytes;
    w->op_unit = "access";
    /* L1 serves 128-byte lines per warp request, L2 32-byte sectors. */
    w->transactions = level == 1 ? w->bytes / 128 : w->bytes / 32;
    w->spec_per_clk_cu = NAN;
    w->warps_per_cu =
        (int)(grid / (unsigned)(info->compute_units > 0 ? info->compute_units : 1)) * CB_BLOCK / 32;
    gc__meter_launch_describe(w, &pick, "memory.bandwidth load kernel",
                              "%d-byte vectors, %s path, %zu KiB footprint (%s), block %d, %u "
                              "blocks, %u passes of %zu KiB chunks",
                              cv.vec_bytes, path_names[cv.ld], fp >> 10,
                              level == 1 ? "per-SM working set in L1" : "in L2", CB_BLOCK, grid,
                              passes, cbytes >> 10);
    return 0;
}
