/* control.divergence: the branching penalty (uCLbench §2.3, §3.3). A kernel
 * whose threads each take one of 128 branches, chosen by an array (thread g
 * takes branch (g / width) % count), timed for 1..128 branches x widths
 * 1..32, relative to one branch; the SIMD width the growth implies and the
 * cutoff rule width x count >= SIMD width; a uniform vs a divergent if (two
 * branches, width 32 vs 1); the cost of a barrier per block size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/divergence/divergence.h"
#include "util/parallel.h"
#include "util/random.h"
#include "core/harness.h"
#include "core/sensors.h"
#include "core/stats.h"
#include "kgen/kgen.h"
#include "model/divergence.h"

#define DV_BRANCHES 128
#define DV_TRIPS 64 /* loop trips around the switch */
#define DV_BLOCK 256
#define DV_BAR_TRIPS 256
#define DV_MAX_PER_BRANCH 16 /* operations per branch at most (GPUs: 16, CPUs: 4) */
#define DV_VERIFY_STRIDE 61  /* threads checked: every 61st (reaches every lane and branch) */

static const int dv_counts[] = {1, 2, 4, 8, 16, 32, 64, 128};
static const int dv_widths[] = {1, 2, 4, 8, 16, 32};
#define DV_NC ((int)(sizeof(dv_counts) / sizeof(dv_counts[0])))
#define DV_NW ((int)(sizeof(dv_widths) / sizeof(dv_widths[0])))

/* Operation j of branch i: one of three forms of a fused multiply-add, so
 * that no two branches are the same code with other constants (a compiler
 * could merge those into one), each one FMA. */
static int op_of(int i, int j)
{
    return ((i >> (j % 7)) + j + i) % 3;
}

static float const_of(int i, int j, int which)
{
    uint64_t st = 0xD1B54A32D192ED03ULL ^ ((uint64_t)(i * 131 + j) << 8) ^ (uint64_t)which;
    float u = (float)(gc__xorshift64s(&st) >> 40) * (1.0f / 16777216.0f);

    /* op 0: x * a + c, c in [0.01, 0.5); op 1: x * c + b, c in [0.9, 1);
     * op 2: -x * c + a, c in [0.5, 0.9): every chain stays bounded. */
    switch (op_of(i, j)) {
    case 0:
        return 0.01f + 0.49f * u;
    case 1:
        return 0.9f + 0.1f * u;
    default:
        return 0.5f + 0.4f * u;
    }
}

static char *gen_branch(enum gc_dialect dl, int per_branch)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, dl, 0);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_branch(GC_GLOBAL const GC_U32 *sel, GC_GLOBAL const float "
                      "*in, GC_GLOBAL float *out, float a, float b)\n{\n"
                      "    GC_U32 g = GC_GID;\n    GC_U32 s = sel[g];\n    float x = in[g];\n");
    gc__sbuf_printf(&b, "#pragma unroll 1\n    for (int r = 0; r < %d; r++) {\n", DV_TRIPS);
    gc__sbuf_puts(&b, "        switch (s) {\n");
    for (int i = 0; i < DV_BRANCHES; i++) {
        gc__sbuf_printf(&b, "        case %du:\n", i);
        for (int j = 0; j < per_branch; j++) {
            float c = const_of(i, j, 0);
            switch (op_of(i, j)) {
            case 0:
                gc__sbuf_printf(&b, "            x = GC_FMAF(x, a, %.9gf);\n", (double)c);
                break;
            case 1:
                gc__sbuf_printf(&b, "            x = GC_FMAF(x, %.9gf, b);\n", (double)c);
                break;
            default:
                gc__sbuf_printf(&b, "            x = GC_FMAF(-x, %.9gf, a);\n", (double)c);
                break;
            }
        }
        gc__sbuf_puts(&b, "            break;\n");
    }
    gc__sbuf_puts(&b, "        }\n    }\n    out[g] = x;\n}\n");
    return gc__sbuf_take(&b);
}

/* Barriers: each trip exchanges a word with the neighbour in the block
 * between two barriers; gc_bar4 adds two more barriers per trip, so the
 * difference is the cost of two barriers. */
static char *gen_barrier(enum gc_dialect dl)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, dl, 0);
    for (int v = 2; v <= 4; v += 2) {
        gc__sbuf_printf(&b,
                        "GC_KERNEL void gc_bar%d(GC_GLOBAL GC_U32 *out, GC_U32 seed "
                        "GC_DYN_SHARED_PARAM(GC_U32, sm))\n{\n"
                        "    GC_DYN_SHARED_DECL(GC_U32, sm)\n"
                        "    GC_U32 t = GC_TID, n = GC_BDIM, x = seed ^ GC_GID;\n",
                        v);
        gc__sbuf_printf(&b, "#pragma unroll 1\n    for (int r = 0; r < %d; r++) {\n", DV_BAR_TRIPS);
        gc__sbuf_puts(&b, "        sm[t] = x;\n        GC_BARRIER();\n");
        if (v == 4)
            gc__sbuf_puts(&b, "        GC_BARRIER();\n        GC_BARRIER();\n");
        gc__sbuf_puts(&b, "        x = x * 3u + sm[(t + 1u) % n];\n        GC_BARRIER();\n    }\n"
                          "    out[GC_GID] = x;\n}\n");
    }
    return gc__sbuf_take(&b);
}

/* One configuration of the harness: a layout (width, count) of the branch
 * kernel, or the barrier kernel with nbar barriers per trip in blocks of
 * bs threads. */
struct dv_point {
    int width, count; /* a layout; 0 for a barrier point */
    int bs, nbar;
    bool again; /* the reference layout measured a second time (a CPU's warm-up) */
};

#define DV_MAX_POINTS (2 + DV_NW * (DV_NC - 1) + 2 * 6)

struct dv {
    struct gc_session *s;
    struct gc_device *d;
    struct gc_bench_result *r;
    struct gc_hdesc desc;
    int per_branch;
    unsigned grid;
    size_t n;
    uint32_t *sel;
    float *in, *out;
    float *want; /* the host's result of every checked thread */
    struct gc_buf *bsel, *bin, *bout;
    /* The barrier kernel's output, its host copy and two rows of the host's
     * model; the seed of its data. */
    struct gc_buf *bar_out;
    uint32_t *bar_host, *bar_cur, *bar_nxt, bar_seed;
    size_t bar_words;
    struct dv_point pts[DV_MAX_POINTS];
    /* Each branch's operations and constants (op_of, const_of), made once:
     * the check replays them for thousands of threads per layout. */
    unsigned char op[DV_BRANCHES][DV_MAX_PER_BRANCH];
    float c[DV_BRANCHES][DV_MAX_PER_BRANCH];
};

static void dv_tables(struct dv *v)
{
    for (int i = 0; i < DV_BRANCHES; i++)
        for (int j = 0; j < v->per_branch; j++) {
            v->op[i][j] = (unsigned char)op_of(i, j);
            v->c[i][j] = const_of(i, j, 0);
        }
}

/* One thread's result on the host: the kernel's operations (gen_branch)
 * replayed from the tables. */
static float dv_expect(const struct dv *v, float x, int br, float a, float b)
{
    for (int r = 0; r < DV_TRIPS; r++)
        for (int j = 0; j < v->per_branch; j++) {
            float c = v->c[br][j];
            x = v->op[br][j] == 0   ? fmaf(x, a, c)
                : v->op[br][j] == 1 ? fmaf(x, c, b)
                                    : fmaf(-x, c, a);
        }
    return x;
}

static const float DV_A = 0.75f, DV_B = 0.01f;

/* The host's results of checked threads lo..hi (every DV_VERIFY_STRIDE-th
 * thread) into want. */
static void dv_check_range(void *ctx, size_t lo, size_t hi)
{
    struct dv *v = ctx;

    for (size_t k = lo; k < hi; k++) {
        size_t g = k * DV_VERIFY_STRIDE;
        v->want[k] = dv_expect(v, v->in[g], (int)v->sel[g], DV_A, DV_B);
    }
}

/* The barrier kernel's result for every thread of block blk, into cur. */
static void bar_host(uint32_t seed, unsigned block, unsigned blk, uint32_t *cur, uint32_t *nxt)
{
    for (unsigned i = 0; i < block; i++)
        cur[i] = seed ^ (blk * block + i);
    for (int r = 0; r < DV_BAR_TRIPS; r++) {
        for (unsigned i = 0; i < block; i++)
            nxt[i] = cur[i] * 3u + cur[(i + 1) % block];
        memcpy(cur, nxt, block * sizeof(*cur));
    }
}

/* A layout's launch: its selectors written, one thread per element over a
 * full wave. */
static int setup_layout(struct dv *v, const struct dv_point *p, struct gc_hlaunch *out)
{
    /* sel[g] = (g / width) % count, by counting (no division per thread). */
    uint32_t sel = 0;
    for (size_t g = 0, run = 0; g < v->n; g++) {
        v->sel[g] = sel;
        if (++run == (size_t)p->width) {
            run = 0;
            sel = sel + 1 == (uint32_t)p->count ? 0 : sel + 1;
        }
    }
    out->args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = v->bsel};
    out->args[1] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = v->bin};
    out->args[2] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = v->bout};
    out->args[3] = (struct gc_arg){.type = GC_ARG_F32, .v.f32 = DV_A};
    out->args[4] = (struct gc_arg){.type = GC_ARG_F32, .v.f32 = DV_B};
    out->l = (struct gc_launch){{v->grid, 1, 1}, {DV_BLOCK, 1, 1}, 0, out->args, 5, 1};
    out->work = 1;
    snprintf(out->desc, sizeof(out->desc), "%d branches of width %d", p->count, p->width);
    return gc__dev_write(v->d, v->bsel, 0, v->sel, v->n * 4);
}

/* A barrier point's launch: a full wave of blocks of bs threads. */
static void setup_barrier(struct dv *v, const struct dv_point *p, struct gc_hlaunch *out)
{
    const struct gc_device_info *info = &v->d->info;
    unsigned cus = (unsigned)(info->compute_units > 0 ? info->compute_units : 1);
    unsigned per_cu =
        info->max_threads_per_cu >= p->bs ? (unsigned)info->max_threads_per_cu / p->bs : 1;
    unsigned grid = cus * per_cu;

    if ((size_t)grid * p->bs > v->bar_words)
        grid = (unsigned)(v->bar_words / p->bs);
    out->args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = v->bar_out};
    out->args[1] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = v->bar_seed};
    out->l = (struct gc_launch){
        {grid, 1, 1}, {(unsigned)p->bs, 1, 1}, (size_t)p->bs * 4, out->args, 2, 1};
    out->work = 1;
    snprintf(out->desc, sizeof(out->desc), "%d barriers per trip, blocks of %d", p->nbar, p->bs);
}

/* A CPU device's warm-up before the table: its reference layout launched
 * back to back for DV_WARMUP_S (a measurement's own two warm-up launches
 * are not enough: on PoCL the first layouts read 15-30% slow for a tenth
 * of a second and more). */
#define DV_WARMUP_S 0.3

static int warm_up(struct dv *v, struct gc_kern *k, const struct gc_launch *l)
{
    double t0 = gc__now(), el;
    int rc = 0;

    while (rc == 0 && gc__now() - t0 < DV_WARMUP_S && !gc__stopped(v->s))
        rc = gc__dev_launch(v->d, k, l, &el);
    return rc;
}

static int dv_setup(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out)
{
    struct dv *v = h->d->user;
    const struct dv_point *p = c->user;
    int rc;

    if (p->width == 0) {
        setup_barrier(v, p, out);
        return 0;
    }
    if ((rc = setup_layout(v, p, out)) || !p->again)
        return rc;
    return warm_up(v, c->k, &out->l);
}

/* A layout's check: one more launch, every DV_VERIFY_STRIDE-th thread
 * against the host (the selectors are still the layout's). */
static int verify_layout(struct dv *v, struct gc_hconf *c, char *msg, size_t len)
{
    double el;
    int rc;

    if ((rc = gc__dev_launch(v->d, c->k, &c->hl.l, &el)) ||
        (rc = gc__dev_read(v->d, v->bout, 0, v->out, v->n * 4)))
        return rc;
    gc__parallel_for((v->n + DV_VERIFY_STRIDE - 1) / DV_VERIFY_STRIDE, 256, dv_check_range, v);
    for (size_t g = 0; g < v->n; g += DV_VERIFY_STRIDE) {
        float x = v->want[g / DV_VERIFY_STRIDE];
        if (memcmp(&x, &v->out[g], sizeof(x)) != 0) {
            snprintf(msg, len, "thread %zu (branch %u) gave %.9g, expected %.9g", g, v->sel[g],
                     (double)v->out[g], (double)x);
            return GC_EVERIFY;
        }
    }
    return 0;
}

/* A barrier point's check: one more launch, its first and last block
 * against the host's model (both kernels compute the same). */
static int verify_barrier(struct dv *v, struct gc_hconf *c, char *msg, size_t len)
{
    unsigned grid = c->hl.l.grid[0], bs = c->hl.l.block[0];
    double el;
    int rc;

    if ((rc = gc__dev_launch(v->d, c->k, &c->hl.l, &el)) ||
        (rc = gc__dev_read(v->d, v->bar_out, 0, v->bar_host, (size_t)grid * bs * 4)))
        return rc;
    for (unsigned blk = 0; blk<grid; blk += grid - 1> 0 ? grid - 1 : 1) {
        bar_host(v->bar_seed, bs, blk, v->bar_cur, v->bar_nxt);
        for (unsigned t = 0; t < bs; t++)
            if (v->bar_host[(size_t)blk * bs + t] != v->bar_cur[t]) {
                snprintf(msg, len, "block %u: thread %u gave 0x%08x, expected 0x%08x", blk, t,
                         v->bar_host[(size_t)blk * bs + t], v->bar_cur[t]);
                return GC_EVERIFY;
            }
    }
    return 0;
}

static int dv_verify(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    struct dv *v = h->d->user;
    const struct dv_point *p = c->user;

    return p->width > 0 ? verify_layout(v, c, msg, len) : verify_barrier(v, c, msg, len);
}

/* The layouts' data: one thread per element over a full wave, random
 * inputs on the device, the selectors' host buffer; the barrier kernel's
 * output and host rows. */
static int dv_data(struct dv *v)
{
    const struct gc_device_info *info = &v->d->info;
    int rc;
    unsigned per_cu =
        info->max_threads_per_cu >= DV_BLOCK ? (unsigned)info->max_threads_per_cu / DV_BLOCK : 1;

    v->grid = (unsigned)(info->compute_units > 0 ? info->compute_units : 1) * per_cu;
    v->n = (size_t)v->grid * DV_BLOCK;
    v->sel = malloc(v->n * 4);
    v->in = malloc(v->n * 4);
    v->out = malloc(v->n * 4);
    v->want = malloc((v->n / DV_VERIFY_STRIDE + 1) * sizeof(float));
    v->bar_words = (size_t)(info->compute_units > 0 ? info->compute_units : 1) *
                   (size_t)(info->max_threads_per_cu > 0 ? info->max_threads_per_cu : 1024);
    if (v->bar_words < 1024)
        v->bar_words = 1024;
    v->bar_host = malloc(v->bar_words * 4);
    v->bar_cur = malloc(1024 * 4);
    v->bar_nxt = malloc(1024 * 4);
    if (!v->sel || !v->in || !v->out || !v->want || !v->bar_host || !v->bar_cur || !v->bar_nxt)
        return GC_ENOMEM;
    uint64_t st = v->s->seed ^ 0xD17ULL;
    for (size_t g = 0; g < v->n; g++)
        v->in[g] = gc__random_float(&st, -1.0f, 1.0f);
    st = v->s->seed ^ 0xBA77ULL;
    v->bar_seed = (uint32_t)gc__xorshift64s(&st);
    if ((rc = gc__dev_alloc(v->d, v->n * 4, &v->bsel)) ||
        (rc = gc__dev_alloc(v->d, v->n * 4, &v->bin)) ||
        (rc = gc__dev_alloc(v->d, v->n * 4, &v->bout)) ||
        (rc = gc__dev_write(v->d, v->bin, 0, v->in, v->n * 4)))
        return rc;
    if (info->caps & GC_CAP_DYN_SHARED)
        rc = gc__dev_alloc(v->d, v->bar_words * 4, &v->bar_out);
    return rc;
}

/* One configuration on source src (copied) and kernel name, for point p. */
static int add_point(struct gc_harness *h, struct dv *v, const char *src, const char *kernel,
                     struct dv_point p)
{
    struct gc_hconf *c = gc__harness_add(h);
    int i = h->ncfg - 1;

    if (!c || !(c->src = strdup(src)))
        return GC_ENOMEM;
    v->pts[i] = p;
    c->user = &v->pts[i];
    c->kernel = kernel;
    if (p.width > 0)
        snprintf(c->label, sizeof(c->label), "divergence_w%d_c%d%s", p.width, p.count,
                 p.again ? "_warmup" : "");
    else
        snprintf(c->label, sizeof(c->label), "divergence_bar%d_b%d", p.nbar, p.bs);
    return 0;
}

/* The run's compile plan: the branch kernel every layout shares and, where
 * blocks can have dynamic shared memory, the barrier kernel. */
static int plan_divergence(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out,
                           int *n)
{
    const struct gc_device *d = s->dev;
    bool gpu = d->info.type == GC_DEVICE_GPU;
    bool bar = d->info.caps & GC_CAP_DYN_SHARED;
    struct gc_ksrc *k = calloc(2, sizeof(*k));

    (void)self;
    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    snprintf(k[0].label, sizeof(k[0].label), "divergence_branch");
    k[0].src = gen_branch(d->ops->dialect, gpu ? DV_MAX_PER_BRANCH : 4);
    if (bar) {
        snprintf(k[1].label, sizeof(k[1].label), "divergence_barrier");
        k[1].src = gen_barrier(d->ops->dialect);
    }
    if (!k[0].src || (bar && !k[1].src)) {
        gc__ksrc_free(k, 2);
        return GC_ENOMEM;
    }
    *out = k;
    *n = bar ? 2 : 1;
    return 0;
}

/* The layouts: one branch first (the reference), then 2..128 branches of
 * each width; the barrier kernels per block size where blocks can have
 * dynamic shared memory. */
static int dv_points(struct gc_harness *h, struct dv *v)
{
    const struct gc_device_info *info = &v->d->info;
    char *br = gen_branch(v->d->ops->dialect, v->per_branch), *bar = NULL;
    int rc = br ? 0 : GC_ENOMEM;

    /* A CPU device's first layout runs on a device still waking up (its
     * worker threads, the cores' clocks): on PoCL it read 15-30% slow and
     * made every other layout look faster than one branch. There the
     * reference is measured twice, first as the device's warm-up, and the
     * faster measurement stands. */
    if (rc == 0 && info->type == GC_DEVICE_CPU)
        rc = add_point(h, v, br, "gc_branch",
                       (struct dv_point){.width = 1, .count = 1, .again = true});
    if (rc == 0)
        rc = add_point(h, v, br, "gc_branch", (struct dv_point){.width = 1, .count = 1});
    for (int w = 0; w < DV_NW && rc == 0; w++)
        for (int c = 1; c < DV_NC && rc == 0; c++)
            rc = add_point(h, v, br, "gc_branch",
                           (struct dv_point){.width = dv_widths[w], .count = dv_counts[c]});
    if (rc == 0 && (info->caps & GC_CAP_DYN_SHARED)) {
        int maxb = info->max_threads_per_block > 0 ? info->max_threads_per_block : 256;
        maxb = maxb > 1024 ? 1024 : maxb;
        bar = gen_barrier(v->d->ops->dialect);
        rc = bar ? 0 : GC_ENOMEM;
        for (int bs = 32; bs <= maxb && rc == 0; bs *= 2)
            for (int nb = 2; nb <= 4 && rc == 0; nb += 2)
                rc = add_point(h, v, bar, nb == 2 ? "gc_bar2" : "gc_bar4",
                               (struct dv_point){.bs = bs, .nbar = nb});
    }
    free(br);
    free(bar);
    return rc;
}

static int dv_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h)
{
    bool gpu = s->dev->info.type == GC_DEVICE_GPU;
    struct dv *v = calloc(1, sizeof(*v));

    if (!v) {
        snprintf(s->dev->err, sizeof(s->dev->err), "out of host memory");
        return GC_ENOMEM;
    }
    *v = (struct dv){.s = s, .d = s->dev, .r = r, .per_branch = gpu ? DV_MAX_PER_BRANCH : 4};
    dv_tables(v);
    /* Every configuration in full, in plan order: no screen, no search. */
    v->desc = (struct gc_hdesc){
        .refine_top = DV_MAX_POINTS,
        .setup = dv_setup,
        .verify = dv_verify,
        .user = v,
    };
    gc__harness_init(h, s, r, &v->desc);
    /* 43 layouts and 12 barrier points: shorter samples than the engine's
     * default keep the table within a second or two; every point still gets
     * several samples. */
    gc__sampling_time(&h->sampling, h->sampling.target_sample_s / 5);
    gc__sampling_most(&h->sampling, 9);
    if (h->sampling.min_samples > 3)
        gc__sampling_least(&h->sampling, 3);
    /* A CPU point's time is its fastest sample (point_time): six of them,
     * so that a burst of other work on the host spoils fewer points. An
     * explicit --repeat is taken as it is. */
    if (!gpu)
        gc__sampling_least(&h->sampling, 6);
    int rc = dv_data(v);
    return rc ? rc : dv_points(h, v);
}

/* A point's time: on a CPU device other work on the host only adds time,
 * and the table compares kernels measured one after another, so the fastest
 * sample (the one other load disturbed least); GPUs keep the median. */
static double point_time(const struct gc_session *s, const struct gc_hconf *c)
{
    if (c->state != GC_H_REFINED)
        return NAN;
    return s->dev->info.type == GC_DEVICE_CPU ? c->m.seconds.min : c->m.seconds.median;
}

/* The barrier rows: (t(4 barriers/trip) - t(2)) / (2 x trips) per block
 * size, in time and in cycles at the observed clock. */
static int barrier_figures(struct gc_session *s, const struct gc_harness *h)
{
    struct gc_series *sn = NULL, *sc = NULL;
    int first = -1;

    for (int i = 0; i < h->ncfg && first < 0; i++)
        if (((const struct dv_point *)h->cfg[i].user)->width == 0)
            first = i;
    if (first < 0)
        return 0;
    sn = gc__bench_add_series(h->r, "barrier_time_vs_block", "block size", "threads",
                              "time per barrier (one block's timeline)", "s");
    sc = gc__bench_add_series(h->r, "barrier_cycles_vs_block", "block size", "threads",
                              "cycles per barrier at the observed clock", "cycles");
    if (!sn || !sc)
        return GC_ENOMEM;
    sn = sc - 1; /* adding sc may have moved the result's series */
    for (int i = first; i + 1 < h->ncfg; i += 2) {
        const struct gc_hconf *c2 = &h->cfg[i], *c4 = &h->cfg[i + 1];
        int bs = ((const struct dv_point *)c2->user)->bs;
        if (c2->state != GC_H_REFINED || c4->state != GC_H_REFINED)
            continue;
        /* A difference of two medians: a barrier cheaper than the two
         * measurements' noise is below resolution, never a negative time. */
        double per = (c4->m.seconds.median - c2->m.seconds.median) / (2.0 * DV_BAR_TRIPS);
        double res = gc__diff_resolution(&c4->m.seconds, &c2->m.seconds) / (2.0 * DV_BAR_TRIPS);
        double clk = c2->m.clock_mhz;
        bool below = gc__below_resolution(per, res);
        char label[64] = "";
        if (below)
            snprintf(label, sizeof(label), "below resolution (< %.3g s)", res);
        gc__series_add(sn, bs, below ? NAN : per, NULL, label);
        if (isfinite(clk))
            gc__series_add(sc, bs, below ? NAN : per * clk * 1e6, NULL, label);
        if (bs != 256)
            continue;
        gc__bench_add_difference(h->r, "barrier_time_256", per, res, "s",
                                 "per barrier, blocks of 256, one wave: (t(4 barriers/trip) - "
                                 "t(2)) / (2 x trips)");
        if (isfinite(clk))
            gc__bench_add_difference(h->r, "barrier_cycles_256", per * clk * 1e6, res * clk * 1e6,
                                     "cycles", "the same at the observed clock");
    }
    (void)s;
    return 0;
}

/* One series per branch width: time against the branch count. */
static int dv_series(struct gc_bench_result *r, struct gc_series *ser[DV_NW])
{
    for (int w = 0; w < DV_NW; w++) {
        char name[64], yname[96];
        snprintf(name, sizeof(name), "relative_time_width_%d", dv_widths[w]);
        snprintf(yname, sizeof(yname), "time relative to one branch, branch width %d",
                 dv_widths[w]);
        ser[w] = gc__bench_add_series(r, name, "branches", "branches", yname, "x");
        if (!ser[w])
            return GC_ENOMEM;
    }
    return 0;
}

/* The SIMD width read off the width-1 curve, and how well the cutoff rule
 * (time flat once width x count reaches it) holds over the table. */
static void dv_fit_metrics(struct gc_bench_result *r, const struct gc_device_info *info,
                           const double *rel)
{
    bool saturated;
    int simd = gc__simd_width_from_branches(dv_counts, rel, DV_NC, &saturated);
    int checked = 0,
        holds = gc__cutoff_rule_check(dv_widths, DV_NW, dv_counts, DV_NC, rel, simd, &checked);
    char note[256];
    snprintf(note, sizeof(note),
             "branch count after which doubling it raises the time by < %.2fx (width 1)%s; "
             "device reports %d",
             GC_DIVERGENCE_FLAT, saturated ? "" : "; still growing at 128: at least this",
             info->simd_width);
    gc__bench_add_metric(r, "simd_width", simd, "lanes", NAN, NULL, note);
    snprintf(note, sizeof(note),
             "widths whose time stops growing once width x count >= %d and grows before: %d of "
             "%d checked",
             simd, holds, checked);
    gc__bench_add_metric(r, "cutoff_rule_holds", checked > 0 ? (double)holds / checked : NAN, "",
                         1.0, NULL, note);
    gc__bench_add_metric(r, "max_relative_time", rel[DV_NC - 1], "x", NAN, NULL,
                         "128 branches of width 1 relative to one branch");
}

/* The measured layouts' times by width and count (count 1: the reference,
 * the faster of its measurements); NAN where none was measured. Returns
 * the first measured layout's configuration, -1 none. */
static int layout_times(const struct gc_session *s, const struct gc_harness *h,
                        double t[DV_NW][DV_NC])
{
    int first = -1;

    for (int w = 0; w < DV_NW; w++)
        for (int c = 0; c < DV_NC; c++)
            t[w][c] = NAN;
    for (int i = 0; i < h->ncfg; i++) {
        const struct dv_point *p = h->cfg[i].user;
        double ti = point_time(s, &h->cfg[i]);
        int wi = 0, ci = 0;

        if (p->width == 0 || !isfinite(ti))
            continue;
        first = first < 0 ? i : first;
        while (dv_widths[wi] != p->width)
            wi++;
        while (dv_counts[ci] != p->count)
            ci++;
        for (int w = 0; w < DV_NW; w++)
            if (p->count == 1 || w == wi)
                t[w][ci] = isfinite(t[w][ci]) && t[w][ci] < ti ? t[w][ci] : ti;
    }
    return first;
}

static int dv_derive(struct gc_session *s, const struct gc_harness *h, const char *bench)
{
    struct gc_series *ser[DV_NW];
    double t[DV_NW][DV_NC], rel[DV_NW * DV_NC];
    int rc, first = layout_times(s, h, t);
    double t1 = t[0][0];

    (void)bench;
    if (first < 0 || !isfinite(t1))
        return 0;
    h->r->context = h->cfg[first].m.ctx;
    snprintf(h->r->stop_rule, sizeof(h->r->stop_rule), "%s", h->cfg[first].m.stop_rule);
    if ((rc = dv_series(h->r, ser)))
        return rc;
    bool complete = true;
    for (int w = 0; w < DV_NW; w++)
        for (int c = 0; c < DV_NC; c++) {
            rel[w * DV_NC + c] = t[w][c] / t1;
            complete = complete && isfinite(t[w][c]);
            if (isfinite(t[w][c]))
                gc__series_add(ser[w], dv_counts[c], t[w][c] / t1, NULL, NULL);
        }
    if (!complete)
        return 0; /* stopped: the series keep what was measured */
    /* Two branches: width 32 (uniform per warp) and width 1 (divergent). */
    double t_uni = t[DV_NW - 1][1], t_div = t[0][1];
    dv_fit_metrics(h->r, &s->dev->info, rel);
    gc__bench_add_metric(h->r, "one_branch_time", t1, "s", NAN, NULL,
                         "kernel time, every thread on branch 0 (the reference; on a CPU "
                         "device the faster of two measurements, the first the device's warm-up)");
    gc__bench_add_metric(h->r, "if_uniform_time", t_uni, "s", NAN, NULL,
                         "two branches (an if/else), each taken by whole groups of 32 threads");
    gc__bench_add_metric(h->r, "if_divergent_time", t_div, "s", NAN, NULL,
                         "two branches (an if/else) alternating thread by thread");
    gc__bench_add_metric(h->r, "if_divergent_slowdown", t_div / t_uni, "x", NAN, NULL,
                         "divergent / uniform if: 2 where the two sides run one after the other");
    return barrier_figures(s, h);
}

static void dv_release(struct gc_session *s, struct gc_harness *h)
{
    struct dv *v = h->d ? h->d->user : NULL;

    gc__harness_free(h);
    if (!v)
        return;
    free(v->sel);
    free(v->in);
    free(v->out);
    free(v->want);
    free(v->bar_host);
    free(v->bar_cur);
    free(v->bar_nxt);
    gc__dev_free(v->d, v->bsel);
    gc__dev_free(v->d, v->bin);
    gc__dev_free(v->d, v->bout);
    gc__dev_free(v->d, v->bar_out);
    free(v);
}

const struct gc_hbench gc__divergence_hbench = {dv_plan, dv_derive, dv_release};

static int run_divergence(struct gc_session *s, const struct gc_bench *self,
                          struct gc_bench_result *r)
{
    return gc__harness_bench(s, r, self->info.name, &gc__divergence_hbench);
}

static int sources_divergence(const struct gc_bench *self, const struct gc_device_info *info,
                              struct gc_ksrc **out, int *n)
{
    struct gc_ksrc *k = calloc(1, sizeof(*k));

    (void)self;
    (void)info;
    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    snprintf(k->label, sizeof(k->label), "divergence_branch");
    k->src = gen_branch(gc__kgen_inspect_dialect(), 16);
    /* Every branch keeps its own 16 FMAs: 128 x 16 in the loop. */
    k->expect[0] = (struct gc_sass_expect){"FFMA", DV_BRANCHES * 16};
    k->nexpect = 1;
    if (!k->src) {
        free(k);
        return GC_ENOMEM;
    }
    *out = k;
    *n = 1;
    return 0;
}

/* Rows "width N" from the series relative_time_width_N. */
static const struct gc_sum_cell divergence_cells[] = {
    {.table = &gc__sum_divergence, .row = "width ", .metric = "relative_time_width_"},
    {0},
};
static const struct gc_bench_report divergence_report = {.cells = divergence_cells};

const struct gc_bench gc__bench_divergence = {
    .info =
        {
            .name = "control.divergence",
            .group = "control",
            .summary = "branch penalty: 1-128 divergent branches x width 1-32 relative to one "
                       "branch, implied SIMD width, cutoff rule, divergent if, barrier cost",
            .method =
                "uCLbench's brancharray (§2.3): thread g takes branch (g / width) % count of a "
                "128-case switch, chosen by an array; each case is 16 dependent fused "
                "multiply-adds (4 on a CPU device) in one of three operand forms and its own "
                "constants, so no two cases are the same code, inside a loop of 64 trips. One "
                "wave of 256-thread blocks; counts 1..128 x widths 1..32 (powers of two), "
                "time (engine, shorter samples) relative to one branch. SIMD width: the count "
                "after which doubling it raises the time by less than 1.25x at width 1 (1 "
                "when flat). Cutoff rule (§3.3): for each width w the time stops growing once "
                "w x count >= SIMD width (within 15%) and grows by >= 1.25x per doubling "
                "before. If: two branches, uniform per 32 threads vs alternating. Barrier: a "
                "loop of 256 trips exchanging a word with the neighbour between barriers, "
                "with 2 vs 4 barriers per trip; cost = difference / (2 x 256), per block size "
                "32..1024 in a full wave. Every 61st thread (every branch) and two blocks of "
                "the barrier kernel are checked exactly against the host.",
        },
    .needs_caps = 0,
    .run = run_divergence,
    .plan = plan_divergence,
    .sources = sources_divergence,
    .report = &divergence_report,
};
