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
#include "bench/overhead.h"
#include "util/parallel.h"
#include "util/random.h"
#include "core/stats.h"
#include "core/kcache.h"
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

struct dv {
    struct gc_session *s;
    struct gc_device *d;
    struct gc_bench_result *r;
    int per_branch;
    unsigned grid;
    size_t n;
    uint32_t *sel;
    float *in, *out;
    float *want; /* the host's result of every checked thread */
    struct gc_buf *bsel, *bin, *bout;
    struct gc_kern *k;
    bool ctx_set; /* the measurement context of the first layout is the row's */
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

/* Times one layout and checks every DV_VERIFY_STRIDE-th thread. */
static int measure_layout(struct dv *v, int width, int count, double *t, struct gc_stats *st)
{
    struct gc_device *d = v->d;
    struct gc_measurement m;
    double el;
    int rc;

    for (size_t g = 0; g < v->n; g++)
        v->sel[g] = (uint32_t)((g / (size_t)width) % (size_t)count);
    if ((rc = gc__dev_write(d, v->bsel, 0, v->sel, v->n * 4)))
        return rc;
    struct gc_arg args[5] = {{.type = GC_ARG_BUF, .v.buf = v->bsel},
                             {.type = GC_ARG_BUF, .v.buf = v->bin},
                             {.type = GC_ARG_BUF, .v.buf = v->bout},
                             {.type = GC_ARG_F32, .v.f32 = DV_A},
                             {.type = GC_ARG_F32, .v.f32 = DV_B}};
    struct gc_launch l = {{v->grid, 1, 1}, {DV_BLOCK, 1, 1}, 0, args, 5, 1};
    rc = gc__measure(v->s, v->k, &l, NULL, NULL, 0, &m);
    if (rc) {
        gc__measurement_free(&m);
        return rc;
    }
    /* On a CPU device other work on the host only adds time, and the table
     * compares kernels measured one after another: the fastest sample is
     * the one other load disturbed least. GPUs keep the median. */
    *t = v->s->dev->info.type == GC_DEVICE_CPU ? m.seconds.min : m.seconds.median;
    *st = m.seconds;
    if (!v->ctx_set) {
        v->ctx_set = true;
        v->r->context = m.ctx;
        snprintf(v->r->stop_rule, sizeof(v->r->stop_rule), "%s", m.stop_rule);
    }
    gc__measurement_free(&m);
    if ((rc = gc__dev_launch(d, v->k, &l, &el)) ||
        (rc = gc__dev_read(d, v->bout, 0, v->out, v->n * 4)))
        return rc;
    gc__parallel_for((v->n + DV_VERIFY_STRIDE - 1) / DV_VERIFY_STRIDE, 256, dv_check_range, v);
    for (size_t g = 0; g < v->n; g += DV_VERIFY_STRIDE) {
        int br = (int)v->sel[g];
        float x = v->want[g / DV_VERIFY_STRIDE];
        if (memcmp(&x, &v->out[g], sizeof(x)) != 0) {
            gc__bench_set_error(v->r, GC_BENCH_ERROR,
                                "verification failed: %d branches of width %d: thread %zu (branch "
                                "%d) gave %.9g, expected %.9g",
                                count, width, g, br, (double)v->out[g], (double)x);
            return GC_EVERIFY;
        }
    }
    return 0;
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

/* The barrier check's buffers: the device's output, its host copy, and two
 * rows of the host's model. */
struct bar_bufs {
    struct gc_buf *out;
    uint32_t *host, *cur, *nxt;
};

/* Both kernels compute the same: each runs once and its first and last block
 * are checked against the host's model. */
static int check_barriers(struct dv *v, struct gc_kern *const ks[2], const struct gc_launch *l,
                          const struct bar_bufs *bb, uint32_t seed)
{
    struct gc_device *d = v->d;
    unsigned grid = l->grid[0];
    int bs = (int)l->block[0], rc = 0;
    double el;

    for (int kk = 0; kk < 2 && rc == 0; kk++) {
        if ((rc = gc__dev_launch(d, ks[kk], l, &el)) ||
            (rc = gc__dev_read(d, bb->out, 0, bb->host, (size_t)grid * bs * 4)))
            break;
        for (unsigned blk = 0; blk < grid && rc == 0; blk += grid - 1 > 0 ? grid - 1 : 1) {
            bar_host(seed, (unsigned)bs, blk, bb->cur, bb->nxt);
            for (int t = 0; t < bs; t++) {
                uint32_t want = bb->cur[t];
                if (bb->host[(size_t)blk * bs + t] != want) {
                    gc__bench_set_error(v->r, GC_BENCH_ERROR,
                                        "verification failed: barrier kernel, block %u of %d: "
                                        "thread %d gave 0x%08x, expected 0x%08x",
                                        blk, bs, t, bb->host[(size_t)blk * bs + t], want);
                    rc = GC_EVERIFY;
                    break;
                }
            }
            if (grid == 1)
                break;
        }
    }
    return rc;
}

static int run_barriers(struct dv *v)
{
    struct gc_device *d = v->d;
    const struct gc_device_info *info = &d->info;
    struct gc_kreq req = {.label = "divergence_barrier", .src = gen_barrier(d->ops->dialect)};
    struct gc_kern *k2, *k4;
    struct gc_buf *out = NULL;
    uint32_t *host = NULL, *cur = NULL, *nxt = NULL;
    int rc, maxb = info->max_threads_per_block > 0 ? info->max_threads_per_block : 256;
    unsigned cus = (unsigned)(info->compute_units > 0 ? info->compute_units : 1);
    struct gc_series *sn, *sc;
    uint64_t st = v->s->seed ^ 0xBA77ULL;
    uint32_t seed = (uint32_t)gc__xorshift64s(&st);

    if (!req.src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(v->s, &req, 1)))
        goto out;
    if (d->ops->kernel(req.prog, "gc_bar2", &k2) || d->ops->kernel(req.prog, "gc_bar4", &k4)) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        rc = GC_EBACKEND;
        goto out;
    }
    maxb = maxb > 1024 ? 1024 : maxb;
    sn = gc__bench_add_series(v->r, "barrier_time_vs_block", "block size", "threads",
                              "time per barrier (one block's timeline)", "s");
    sc = gc__bench_add_series(v->r, "barrier_cycles_vs_block", "block size", "threads",
                              "cycles per barrier at the observed clock", "cycles");
    size_t words =
        (size_t)cus * (size_t)(info->max_threads_per_cu > 0 ? info->max_threads_per_cu : 1024);
    if (words < 1024)
        words = 1024;
    host = malloc(words * 4);
    cur = malloc(1024 * 4);
    nxt = malloc(1024 * 4);
    if (!sn || !sc || !host || !cur || !nxt) {
        rc = GC_ENOMEM;
        goto out;
    }
    if ((rc = gc__dev_alloc(d, words * 4, &out)))
        goto out;
    for (int bs = 32; bs <= maxb && rc == 0; bs *= 2) {
        unsigned per_cu =
            info->max_threads_per_cu >= bs ? (unsigned)info->max_threads_per_cu / bs : 1;
        unsigned grid = cus * per_cu;
        if ((size_t)grid * bs > words)
            grid = (unsigned)(words / bs);
        struct gc_arg args[2] = {{.type = GC_ARG_BUF, .v.buf = out},
                                 {.type = GC_ARG_U32, .v.u32 = seed}};
        struct gc_launch l = {{grid, 1, 1}, {(unsigned)bs, 1, 1}, (size_t)bs * 4, args, 2, 1};
        struct gc_measurement m2, m4;

        if ((rc = gc__measure(v->s, k2, &l, NULL, NULL, 0, &m2)))
            goto out_m2;
        if ((rc = gc__measure(v->s, k4, &l, NULL, NULL, 0, &m4)))
            goto out_m4;
        double per = (m4.seconds.median - m2.seconds.median) / (2.0 * DV_BAR_TRIPS);
        gc__series_add(sn, bs, per, NULL, NULL);
        if (isfinite(m2.clock_mhz))
            gc__series_add(sc, bs, per * m2.clock_mhz * 1e6, NULL, NULL);
        if (bs == 256) {
            gc__bench_add_metric(v->r, "barrier_time_256", per, "s", NAN, NULL,
                                 "per barrier, blocks of 256, one wave: (t(4 barriers/trip) - "
                                 "t(2)) / (2 x trips)");
            if (isfinite(m2.clock_mhz))
                gc__bench_add_metric(v->r, "barrier_cycles_256", per * m2.clock_mhz * 1e6, "cycles",
                                     NAN, NULL, "the same at the observed clock");
        }
        struct gc_kern *ks[2] = {k2, k4};
        struct bar_bufs bb = {out, host, cur, nxt};
        rc = check_barriers(v, ks, &l, &bb, seed);
    out_m4:
        gc__measurement_free(&m4);
    out_m2:
        gc__measurement_free(&m2);
    }
out:
    gc__dev_free(d, out);
    free(host);
    free(cur);
    free(nxt);
    gc__kreq_release(v->s, &req, 1);
    return rc;
}

/* The layouts' data: one thread per element over a full wave, random
 * inputs on the device, the selectors' host buffer. */
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
    if (!v->sel || !v->in || !v->out || !v->want)
        return GC_ENOMEM;
    uint64_t st = v->s->seed ^ 0xD17ULL;
    for (size_t g = 0; g < v->n; g++)
        v->in[g] = gc__random_float(&st, -1.0f, 1.0f);
    if ((rc = gc__dev_alloc(v->d, v->n * 4, &v->bsel)) ||
        (rc = gc__dev_alloc(v->d, v->n * 4, &v->bin)) ||
        (rc = gc__dev_alloc(v->d, v->n * 4, &v->bout)) ||
        (rc = gc__dev_write(v->d, v->bin, 0, v->in, v->n * 4)))
        return rc;
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

static int run_divergence(struct gc_session *s, const struct gc_bench *self,
                          struct gc_bench_result *r)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    struct dv v = {.s = s, .d = d, .r = r, .per_branch = gpu ? DV_MAX_PER_BRANCH : 4};
    struct gc_kreq req = {.label = "divergence_branch"};
    struct gc_measure_cfg saved = s->mcfg;
    double t1 = NAN, rel[DV_NW * DV_NC];
    struct gc_series *ser[DV_NW];
    int rc = 0;

    (void)self;
    dv_tables(&v);
    /* 48 layouts: shorter samples than the engine's default keep the table
     * within a second or two; every layout still gets several samples. */
    s->mcfg.target_sample_s = s->mcfg.target_sample_s / 5;
    if (s->mcfg.max_samples > 9)
        s->mcfg.max_samples = 9;
    if (s->mcfg.min_samples > 3)
        s->mcfg.min_samples = 3;
    req.src = gen_branch(d->ops->dialect, v.per_branch);
    if (!req.src) {
        rc = GC_ENOMEM;
        goto out;
    }
    if ((rc = gc__kcache_build(s, &req, 1)))
        goto out;
    if (d->ops->kernel(req.prog, "gc_branch", &v.k)) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        rc = GC_EBACKEND;
        goto out;
    }
    if ((rc = dv_data(&v)) || (rc = dv_series(r, ser)))
        goto out;
    struct gc_stats s1;
    if ((rc = measure_layout(&v, 1, 1, &t1, &s1)))
        goto out;
    double t_uni = NAN, t_div = NAN;
    for (int w = 0; w < DV_NW && rc == 0; w++)
        for (int c = 0; c < DV_NC && rc == 0; c++) {
            double t;
            struct gc_stats sc;
            if (gc__stopped(s)) {
                rc = GC_EINTR;
                break;
            }
            if (dv_counts[c] == 1) {
                t = t1;
            } else if ((rc = measure_layout(&v, dv_widths[w], dv_counts[c], &t, &sc))) {
                break;
            }
            rel[w * DV_NC + c] = t / t1;
            gc__series_add(ser[w], dv_counts[c], t / t1, NULL, NULL);
            if (dv_counts[c] == 2 && dv_widths[w] == 32)
                t_uni = t;
            if (dv_counts[c] == 2 && dv_widths[w] == 1)
                t_div = t;
        }
    if (rc)
        goto out;
    dv_fit_metrics(r, info, rel);
    gc__bench_add_metric(r, "one_branch_time", t1, "s", NAN, &s1,
                         "kernel time, every thread on branch 0 (the reference)");
    gc__bench_add_metric(r, "if_uniform_time", t_uni, "s", NAN, NULL,
                         "two branches (an if/else), each taken by whole groups of 32 threads");
    gc__bench_add_metric(r, "if_divergent_time", t_div, "s", NAN, NULL,
                         "two branches (an if/else) alternating thread by thread");
    gc__bench_add_metric(r, "if_divergent_slowdown", t_div / t_uni, "x", NAN, NULL,
                         "divergent / uniform if: 2 where the two sides run one after the other");
    if (info->caps & GC_CAP_DYN_SHARED)
        rc = run_barriers(&v);
out:
    s->mcfg = saved;
    free(v.sel);
    free(v.in);
    free(v.out);
    free(v.want);
    gc__dev_free(d, v.bsel);
    gc__dev_free(d, v.bin);
    gc__dev_free(d, v.bout);
    if (req.src)
        gc__kreq_release(s, &req, 1);
    return rc;
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
    .sources = sources_divergence,
    .report = &divergence_report,
};
