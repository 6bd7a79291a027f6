/* memory.constant: constant-cache broadcast bandwidth (gpumembench
 * constbench, Konstantinidis & Cotronis §III-C, §IV-B and Table III) and its
 * serialisation when the lanes of a warp read k distinct words. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/launchcfg.h"
#include "bench/constmem/constmem.h"
#include "core/benchcfg.h"
#include "core/harness.h"
#include "util/random.h"
#include "core/cpulimits.h"
#include "core/stats.h"
#include "core/kcache.h"
#include "kgen/kgen.h"

#define CM_BLOCK 256
#define CM_LOADS 64   /* constant loads in one trip of the timed loop */
#define CM_BYTES 4096 /* the constant array, as constbench's 1024 ints */
#define CM_ACC 4      /* independent accumulators */

/* Elements of the array and the mask that keeps a trip's base inside it:
 * base + lane offset (< 32) + CM_LOADS stays below the array's end. */
static unsigned n_elems(int bytes)
{
    return CM_BYTES / (unsigned)bytes;
}

static unsigned base_mask(int bytes)
{
    return n_elems(bytes) / 2 - 1;
}

/* The array's contents are random literals of the source: constant memory
 * cannot be written from the host through the backend, and a file-scope
 * initialiser is the one way both dialects share. The loads are indexed
 * with a per-thread register (base + lane offset), so nothing folds and each
 * is a real constant-cache load. */
static char *gen_const(enum gc_dialect d, unsigned flags, int bytes, const uint64_t *vals)
{
    struct gc_sbuf b;
    const char *t = bytes == 4 ? "GC_U32" : "GC_U64";
    unsigned n = n_elems(bytes);

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, flags);
    gc__sbuf_printf(&b, "GC_CONSTANT_ARRAY %s gc_cdata[%u] = {", t, n);
    for (unsigned i = 0; i < n; i++)
        gc__sbuf_printf(&b, "%s0x%llx",
                        i == 0  ? "\n    "
                        : i % 8 ? ", "
                                : ",\n    ",
                        (unsigned long long)(bytes == 4 ? (uint32_t)vals[i] : vals[i]));
    gc__sbuf_printf(&b,
                    "};\n"
                    "GC_KERNEL void gc_const(GC_GLOBAL const GC_U32 *lane_off, GC_GLOBAL %s *out, "
                    "GC_U32 trips GC_TS_PARAM)\n{\n"
                    "    GC_TS_BEGIN\n"
                    "    int off = (int)lane_off[GC_TID & 31u], q = 0;\n",
                    t);
    for (int a = 0; a < CM_ACC; a++)
        gc__sbuf_printf(&b, "    %s s%d = 0;\n", t, a);
    /* A signed index lets the compiler fold each load's literal offset into
     * the instruction; the loop is kept as written (trips is a run-time
     * value, and unrolling it further would change the loop body). */
    gc__sbuf_puts(&b, "#pragma unroll 1\n"
                      "    for (GC_U32 i = 0; i < trips; i++) {\n"
                      "        int p = q + off;\n");
    for (int j = 0; j < CM_LOADS; j++)
        gc__sbuf_printf(&b, "        s%d += gc_cdata[p + %d];\n", j % CM_ACC, j);
    gc__sbuf_printf(&b, "        q = (q + %d) & %d;\n    }\n", CM_LOADS, (int)base_mask(bytes));
    gc__sbuf_puts(&b, "    out[GC_GID] = s0");
    for (int a = 1; a < CM_ACC; a++)
        gc__sbuf_printf(&b, " + s%d", a);
    gc__sbuf_puts(&b, ";\n    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

/* What every lane with offset off must produce (wrapping arithmetic). */
static uint64_t host_sum(const uint64_t *vals, int bytes, unsigned off, unsigned trips)
{
    uint64_t s = 0;
    unsigned q = 0;

    for (unsigned t = 0; t < trips; t++) {
        for (unsigned j = 0; j < CM_LOADS; j++)
            s += bytes == 4 ? (uint32_t)vals[q + off + j] : vals[q + off + j];
        q = (q + CM_LOADS) & base_mask(bytes);
    }
    return bytes == 4 ? (uint32_t)s : s;
}

static void fill_values(uint64_t seed, uint64_t *vals, unsigned n)
{
    uint64_t st = seed ? seed : 1;

    for (unsigned i = 0; i < n; i++)
        vals[i] = gc__xorshift64s(&st);
}

/* Blocks per CU of every launch: the CU full. */
static int full_per_cu(const struct gc_device_info *info)
{
    return info->max_threads_per_cu >= CM_BLOCK ? info->max_threads_per_cu / CM_BLOCK : 4;
}

/* ---- The run on the harness ---------------------------------------------
 *
 * Every (element size, k) pair is one configuration and a point of a series:
 * each is measured in full (no screen), its last launch's sums checked. */

#define CM_MAX_CFG 12

static const int cm_sizes[] = {4, 8};

struct cm_cfg {
    int bytes;  /* element size */
    unsigned k; /* distinct words per warp */
};

struct gc_const_run {
    uint64_t vals[CM_BYTES / 4];
    unsigned flags, trips, grid;
    int per_cu, s0;
    size_t nthreads;
    struct gc_buf *out, *laneb, *tsb;
    uint64_t *got;
    struct cm_cfg cf[CM_MAX_CFG];
    struct gc_hdesc desc;
};

/* Lane l reads offset l mod k. */
static void lane_offsets(unsigned k, unsigned off[32])
{
    for (unsigned l = 0; l < 32; l++)
        off[l] = l % k;
}

static int cm_setup(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out)
{
    struct gc_const_run *cr = h->d->user;
    const struct cm_cfg *cf = c->user;
    int na = 0;

    out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = cr->laneb};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = cr->out};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = cr->trips};
    if (cr->tsb) {
        out->ts = (struct gc_timestamps){cr->tsb, cr->grid};
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = cr->tsb};
    }
    out->l = (struct gc_launch){{cr->grid, 1, 1}, {CM_BLOCK, 1, 1}, 0, out->args, na, 1};
    /* Counted as gpumembench counts it: every lane's load moves the
     * element, broadcast or not. */
    out->work = (double)cr->nthreads * cr->trips * CM_LOADS * cf->bytes;
    snprintf(out->desc, sizeof(out->desc), "%d-byte elements, k = %u", cf->bytes, cf->k);
    return 0;
}

/* The configuration's lane offsets, and a random output the sums replace. */
static int cm_before(struct gc_harness *h, struct gc_hconf *c)
{
    struct gc_const_run *cr = h->d->user;
    const struct cm_cfg *cf = c->user;
    unsigned off[32];
    int rc;

    lane_offsets(cf->k, off);
    if ((rc = gc__dev_write(h->s->dev, cr->laneb, 0, off, sizeof(off))))
        return rc;
    return gc__dev_fill_random(h->s->dev, cr->out, cr->nthreads * (size_t)cf->bytes,
                               h->s->seed + 3u + cf->k);
}

/* Every launch writes the same sums; the last one is checked. A thread's
 * sum depends only on its lane's offset: the 32 of them are summed once. */
static int cm_verify(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    struct gc_const_run *cr = h->d->user;
    const struct cm_cfg *cf = c->user;
    uint64_t lane_sum[32];
    unsigned off[32];
    int rc = gc__dev_read(h->s->dev, cr->out, 0, cr->got, cr->nthreads * (size_t)cf->bytes);

    lane_offsets(cf->k, off);
    for (unsigned ln = 0; ln < 32; ln++)
        lane_sum[ln] = host_sum(cr->vals, cf->bytes, off[ln], cr->trips);
    for (size_t t = 0; rc == 0 && t < cr->nthreads; t++) {
        uint64_t want = lane_sum[(t % CM_BLOCK) & 31u];
        uint64_t have = cf->bytes == 4 ? ((const uint32_t *)cr->got)[t] : cr->got[t];

        if (have != want) {
            snprintf(msg, len, "thread %zu summed 0x%llx, expected 0x%llx", t,
                     (unsigned long long)have, (unsigned long long)want);
            rc = GC_EVERIFY;
        }
    }
    return rc;
}

/* The series (bandwidth and relative throughput per element size) and one
 * configuration per (size, k); the kernel of a size is shared by its ks. */
static int cm_plan_cfgs(struct gc_session *s, struct gc_harness *h, struct gc_const_run *cr)
{
    static const unsigned ks_d[] = {1, 2, 4, 8, 16, 32}, ks_q[] = {1, 2, 8, 32};
    const unsigned *ks = s->profile == GC_PROFILE_QUICK ? ks_q : ks_d;
    int nk = s->profile == GC_PROFILE_QUICK ? 4 : 6;

    cr->s0 = h->r->nseries;
    for (int si = 0; si < 2; si++) {
        char name[48];

        snprintf(name, sizeof(name), "bandwidth_%dB", cm_sizes[si]);
        if (!gc__bench_add_series(h->r, name, "distinct words per warp", "k",
                                  "bandwidth (32 lanes counted per warp load)", "B/s"))
            return GC_ENOMEM;
        snprintf(name, sizeof(name), "relative_throughput_%dB", cm_sizes[si]);
        if (!gc__bench_add_series(h->r, name, "distinct words per warp", "k",
                                  "throughput relative to k = 1", ""))
            return GC_ENOMEM;
    }
    for (int si = 0; si < 2; si++)
        for (int ki = 0; ki < nk; ki++) {
            struct gc_hconf *c = gc__harness_add(h);
            struct cm_cfg *cf = &cr->cf[h->ncfg - 1];

            if (!c)
                return GC_ENOMEM;
            *cf = (struct cm_cfg){cm_sizes[si], ks[ki]};
            if (ks[ki] == 1)
                snprintf(c->label, sizeof(c->label), "const_%dB", cf->bytes);
            else
                snprintf(c->label, sizeof(c->label), "const_%dB_k%u", cf->bytes, ks[ki]);
            c->src = gen_const(s->dev->ops->dialect, cr->flags, cf->bytes, cr->vals);
            c->kernel = "gc_const";
            c->x = ks[ki];
            c->user = cf;
        }
    return 0;
}

/* The run's compile plan: the kernels plan_cfgs requests, one per word
 * size (the k points share them). */
static int plan_constant(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out,
                         int *n)
{
    uint64_t *vals = malloc(CM_BYTES / 4 * sizeof(*vals));
    struct gc_ksrc *k = calloc(2, sizeof(*k));
    int rc = 0;

    (void)self;
    *out = NULL;
    *n = 0;
    if (!vals || !k) {
        free(vals);
        free(k);
        return GC_ENOMEM;
    }
    fill_values(s->seed ^ 0xC0457ULL, vals, CM_BYTES / 4);
    for (int si = 0; si < 2 && rc == 0; si++) {
        snprintf(k[si].label, sizeof(k[si].label), "const_%dB", cm_sizes[si]);
        k[si].src = gen_const(s->dev->ops->dialect, gc__harness_ts_flags(&s->dev->info),
                              cm_sizes[si], vals);
        if (!k[si].src)
            rc = GC_ENOMEM;
    }
    free(vals);
    if (rc) {
        gc__ksrc_free(k, 2);
        return rc;
    }
    *out = k;
    *n = 2;
    return 0;
}

int gc__constant_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h)
{
    const struct gc_device_info *info = &s->dev->info;
    struct gc_const_run *cr = calloc(1, sizeof(*cr));
    int rc;

    if (!cr) {
        snprintf(s->dev->err, sizeof(s->dev->err), "out of host memory");
        return GC_ENOMEM;
    }
    fill_values(s->seed ^ 0xC0457ULL, cr->vals, CM_BYTES / 4);
    cr->flags = gc__harness_ts_flags(info);
    cr->trips = info->type == GC_DEVICE_GPU ? 128 : 8;
    cr->per_cu = full_per_cu(info);
    cr->grid = (unsigned)(cr->per_cu * (info->compute_units > 0 ? info->compute_units : 1));
    cr->nthreads = (size_t)cr->grid * CM_BLOCK;
    /* Every configuration is a point of a series: each in full. */
    cr->desc = (struct gc_hdesc){
        .refine_top = CM_MAX_CFG,
        .setup = cm_setup,
        .before = cm_before,
        .verify = cm_verify,
        .user = cr,
    };
    gc__harness_init(h, s, r, &cr->desc);
    if ((rc = cm_plan_cfgs(s, h, cr)))
        return rc;
    if (!(cr->got = malloc(cr->nthreads * 8)))
        return GC_ENOMEM;
    if ((rc = gc__dev_alloc(s->dev, cr->nthreads * 8, &cr->out)) ||
        (rc = gc__dev_alloc(s->dev, 32 * 4, &cr->laneb)))
        return rc;
    if (cr->flags & GC_KGEN_TIMESTAMPS)
        rc = gc__dev_alloc(s->dev, (size_t)cr->grid * GC_TS_WORDS * 8, &cr->tsb);
    return rc;
}

void gc__constant_free(struct gc_session *s, struct gc_harness *h)
{
    struct gc_const_run *cr = h->d ? h->d->user : NULL;

    gc__harness_free(h);
    if (!cr)
        return;
    free(cr->got);
    gc__dev_free(s->dev, cr->tsb);
    gc__dev_free(s->dev, cr->out);
    gc__dev_free(s->dev, cr->laneb);
    free(cr);
}

/* The broadcast bandwidth of the best element size at k = 1, and Table
 * III's normalisation of it, 32-bit words per CU per clock. */
static void cm_headline(const struct gc_harness *h, const struct gc_const_run *cr,
                        const struct gc_hconf *best)
{
    const struct gc_device_info *info = &h->s->dev->info;
    const struct cm_cfg *cf = best->user;
    /* CPU devices: a lane's word comes through a load of at most one
     * vector (a broadcast load serves a vector of lanes). */
    double lim = gc__cpu_stream_limit(info, 1, 0), clk = best->m.clock_mhz;
    char note[200];

    snprintf(note, sizeof(note),
             "best with %d-byte elements; all lanes of a warp read one word, counted as 32 "
             "loads (gpumembench); %d blocks of %d per CU",
             cf->bytes, cr->per_cu, CM_BLOCK);
    gc__bench_add_metric(h->r, "constant_broadcast_bandwidth", best->value, "B/s", lim,
                         &best->stats, note);
    if (isfinite(clk) && info->compute_units > 0) {
        struct gc_stats w = best->stats;

        gc__stats_scale(&w, 1.0 / (4.0 * clk * 1e6 * info->compute_units));
        gc__bench_add_metric(h->r, "constant_words_per_clk_per_cu", w.median, "words/clk/CU",
                             lim / (4.0 * clk * 1e6 * info->compute_units), &w,
                             "32-bit words delivered to lanes per clock per CU");
    }
}

/* Throughput for k words relative to k = 1 of the same size: quotients,
 * not products with the reciprocal, so that k = 1 is exactly 1. */
static void cm_relative(struct gc_series *sr, const struct gc_hconf *c, double bw_k1)
{
    struct gc_stats rel = c->stats;

    rel.median /= bw_k1;
    rel.min /= bw_k1;
    rel.max /= bw_k1;
    rel.mean /= bw_k1;
    rel.stddev /= bw_k1;
    rel.ci95 /= bw_k1;
    gc__series_add(sr, c->x, rel.median, &rel, NULL);
}

int gc__constant_derive(struct gc_session *s, const struct gc_harness *h, const char *bench)
{
    const struct gc_const_run *cr = h->d->user;
    const struct gc_hconf *best = NULL;
    double bw_k1[2] = {NAN, NAN};

    for (int i = 0; i < h->ncfg; i++) {
        const struct gc_hconf *c = &h->cfg[i];
        const struct cm_cfg *cf = c->user;
        int si = cf->bytes == cm_sizes[0] ? 0 : 1;

        if (c->state != GC_H_REFINED)
            continue;
        gc__series_add(&h->r->series[cr->s0 + si * 2], c->x, c->value, &c->stats, NULL);
        if (cf->k == 1)
            bw_k1[si] = c->value;
        if (isfinite(bw_k1[si]) && bw_k1[si] > 0)
            cm_relative(&h->r->series[cr->s0 + si * 2 + 1], c, bw_k1[si]);
        if (cf->k == 1 && c->value > 0 && (!best || c->value > best->value))
            best = c;
    }
    if (!best)
        return 0;
    cm_headline(h, cr, best);
    h->r->context = best->m.ctx;
    snprintf(h->r->stop_rule, sizeof(h->r->stop_rule), "%s", best->m.stop_rule);
    /* The configuration, in the results (the energy meter runs the same
     * launch: constant_launch_at). */
    (void)bench;
    int rc =
        gc__config_set_num(h->r, NULL, "elem_bytes", ((const struct cm_cfg *)best->user)->bytes);
    return rc ? rc : gc__config_set_num(h->r, NULL, "blocks_per_cu", cr->per_cu);
}

static int run_constant(struct gc_session *s, const struct gc_bench *self,
                        struct gc_bench_result *r)
{
    static const struct gc_hbench hb = {gc__constant_plan, gc__constant_derive, gc__constant_free};

    return gc__harness_bench(s, r, self->info.name, &hb);
}

static int sources_constant(const struct gc_bench *self, const struct gc_device_info *info,
                            struct gc_ksrc **out, int *n)
{
    uint64_t vals[CM_BYTES / 4];
    struct gc_ksrc *k = calloc(2, sizeof(*k));

    (void)self;
    (void)info;
    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    fill_values(0xC0457ULL, vals, CM_BYTES / 4);
    for (int i = 0; i < 2; i++) {
        snprintf(k[i].label, sizeof(k[i].label), "const_%dB", 4 << i);
        k[i].src = gen_const(gc__kgen_inspect_dialect(), 0, 4 << i, vals);
        k[i].expect[0] = (struct gc_sass_expect){i ? "LDC.64" : "LDC", CM_LOADS};
        k[i].nexpect = 1;
        if (!k[i].src) {
            gc__ksrc_free(k, 2);
            return GC_ENOMEM;
        }
    }
    *out = k;
    *n = 2;
    return 0;
}

/* Words of 4 bytes per clock, shown as bytes per clock. */
static const struct gc_sum_cell constant_cells[] = {
    {.table = &gc__sum_memory,
     .row = "constant",
     .col = 0,
     .metric = "constant_words_per_clk_per_cu",
     .scale = 4.0},
    GC_SUM_P(gc__sum_memory, "constant", 1, "constant_words_per_clk_per_cu"),
    {0},
};
static const struct gc_fig_rule constant_figures[] = {
    {"*", "constant memory: broadcast and serialisation", 0, NULL, false, false, false},
    {0},
};
static const struct gc_bench_report constant_report = {constant_cells, constant_figures};

static int constant_launch_at(struct gc_session *s, const struct gc_bench *self,
                              const struct gc_config_ask *ask, struct gc_meter_launch *w);

const struct gc_bench gc__bench_constant = {
    .info =
        {
            .name = "memory.constant",
            .group = "memory",
            .summary = "constant-cache broadcast bandwidth and serialisation over k distinct "
                       "words per warp",
            .method =
                "gpumembench constbench (Konstantinidis & Cotronis SIII-C, SIV-B, Table III): a "
                "4 KiB constant-memory array (CUDA __constant__, OpenCL __constant) of random "
                "words; every thread sums 64 elements per loop trip into 4 accumulators, the "
                "trip's base advancing by 64 elements, and lane l adds offset l mod k, so a "
                "warp reads k distinct words per load (k = 1: broadcast). Elements of 4 and 8 "
                "bytes (CUDA has no 16-byte constant load). Bytes = threads x loads x element "
                "size, a broadcast counted as 32 loads as gpumembench counts it; also as 32-bit "
                "words per clock per CU (Table III's normalisation). Throughput for k words is "
                "reported relative to k = 1. One wave of full CUs. Verification: every "
                "thread's sum is read back from a poisoned output and compared with the host's "
                "wrapping sum.",
        },
    .needs_caps = 0,
    .run = run_constant,
    .sources = sources_constant,
    .plan = plan_constant,
    .launch_at = constant_launch_at,
    .report = &constant_report,
};

/* ---- workload for the energy meter (bench/launchcfg.h) -------------------- */

/* The element size of the best broadcast (k = 1), over the record's blocks
 * per CU when the device holds them; else 4-byte words over a full
 * device. */
void gc__constant_pick(const struct gc_session *s, const struct gc_config_ask *ask,
                       struct gc_best_elem *c, struct gc_cfg_pick *p)
{
    struct gc_best_elem rec, *b = &rec;
    int per_cu = full_per_cu(&s->dev->info);
    const struct gc_bench_result *from = gc__cfg_pick_start(p, gc__bench_constant.info.name, ask);

    *c = (struct gc_best_elem){4, per_cu};
    if (!from || !gc__elem_read(from, b, p))
        return;
    if (b->elem_bytes != 4 && b->elem_bytes != 8)
        gc__cfg_refuse(p, "%d-byte elements are not a kernel of the benchmark", b->elem_bytes);
    else if (b->blocks_per_cu < 1 || b->blocks_per_cu > per_cu)
        gc__cfg_refuse(p, "%d blocks of %d per CU do not fit on a CU", b->blocks_per_cu, CM_BLOCK);
    else {
        *c = *b;
        p->origin = GC_CFG_RESULT;
    }
}

/* The broadcast configuration (every lane of a warp reads the same word:
 * k = 1) at the element size and shape of gc__constant_pick, every lane's
 * sum checked after one launch. */
static int constant_launch_at(struct gc_session *s, const struct gc_bench *self,
                              const struct gc_config_ask *ask, struct gc_meter_launch *w)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    struct gc_best_elem pc;
    struct gc_cfg_pick pick;
    int rc;

    (void)self;
    gc__constant_pick(s, ask, &pc, &pick);
    int bytes = pc.elem_bytes, per_cu = pc.blocks_per_cu;
    unsigned trips = gpu ? 512 : 8, off[32];
    unsigned grid = (unsigned)(per_cu * (info->compute_units > 0 ? info->compute_units : 1));
    size_t nthreads = (size_t)grid * CM_BLOCK;
    uint64_t vals[CM_BYTES / 4], *got;
    char label[32];

    fill_values(s->seed ^ 0xC0457ULL, vals, CM_BYTES / 4);
    snprintf(label, sizeof(label), "energy_const_%dB", bytes);
    w->req[0].label = label;
    w->req[0].src = gen_const(d->ops->dialect, 0, bytes, vals);
    w->nreq = 1;
    if (!w->req[0].src)
        return GC_ENOMEM;
    rc = gc__kcache_build(s, w->req, 1);
    w->req[0].label = NULL;
    if (rc)
        return rc;
    if ((rc = d->ops->kernel(w->req[0].prog, "gc_const", &w->k))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    for (unsigned l = 0; l < 32; l++)
        off[l] = 0;
    if ((rc = gc__dev_alloc(d, 32 * 4, &w->bufs[0])) ||
        (rc = gc__dev_alloc(d, nthreads * 8, &w->bufs[1])) ||
        (rc = gc__dev_write(d, w->bufs[0], 0, off, sizeof(off))) ||
        (rc = gc__dev_fill_random(d, w->bufs[1], nthreads * 8, s->seed + 5u)))
        return rc;
    w->args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[0]};
    w->args[1] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[1]};
    w->args[2] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = trips};
    w->l = (struct gc_launch){{grid, 1, 1}, {CM_BLOCK, 1, 1}, 0, w->args, 3, 1};
    if ((rc = gc__meter_launch_once(d, w)))
        return rc;
    got = w->host[0] = malloc(nthreads * 8);
    if (!got)
        return GC_ENOMEM;
    if ((rc = gc__dev_read(d, w->bufs[1], 0, got, nthreads * (size_t)bytes)))
        return rc;
    uint64_t want = host_sum(vals, bytes, 0, trips);
    for (size_t g = 0; g < nthreads; g++) {
        uint64_t have = bytes == 4 ? ((const uint32_t *)got)[g] : got[g];
        if (have != want) {
            snprintf(w->why, sizeof(w->why),
                     "verification failed (constant broadcast, %d-byte words): thread %zu summed "
                     "0x%llx, expected 0x%llx",
                     bytes, g, (unsigned long long)have, (unsigned long long)want);
            return GC_EVERIFY;
        }
    }
    /* Loads as the throughput measurement counts them: 32 lanes per warp. */
    w->ops = (double)nthreads * trips * CM_LOADS;
    w->bytes = w->ops * bytes;
    w->op_unit = "access";
    w->transactions = w->ops / 32; /* one broadcast per warp load */
    w->spec_per_clk_cu = NAN;
    w->warps_per_cu = per_cu * CM_BLOCK / 32;
    gc__meter_launch_describe(w, &pick, "memory.constant kernel",
                              "%d-byte words, broadcast (k = 1), %d loads per trip, %u trips, %d "
                              "blocks of %d per CU",
                              bytes, CM_LOADS, trips, per_cu, CM_BLOCK);
    return 0;
}
