/* application.jacobi: uCLbench §4's ω-Jacobi relaxation of the 2-D Poisson
 * problem in the 17 variants of §4.2 (vectorization x4/x8/x16, branch
 * elimination, manual caching in local memory, dynamic and static, and
 * their combinations), each with its work-group shape tuned by the
 * harness, each verified against the host reference; the paper's Table 2
 * for the device from the measured times (model/jacobi.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/jacobi/jacobi.h"
#include "core/cpulimits.h"
#include "core/devfill.h"
#include "core/harness.h"
#include "core/occupancy.h"
#include "core/stats.h"
#include "util/random.h"

#define J_OMEGA 0.8f /* the usual smoothing weight of ω-Jacobi, 4/5 */
#define J_MAX_SHAPES 10
#define J_POISON 0x7FC00000u /* a quiet NaN: a point left unwritten fails */

struct j_shape {
    int bx, by;
};

/* Work-group shapes the search tries for every variant; a shape that the
 * variant cannot use on this grid or device is absent. */
static const struct j_shape shapes_quick[] = {{16, 4}, {32, 8}};
static const struct j_shape shapes_default[] = {{16, 4}, {32, 4},  {64, 4},
                                                {32, 8}, {16, 16}, {128, 1}};
static const struct j_shape shapes_full[] = {{8, 8},   {16, 4}, {32, 4},  {64, 4},  {32, 8},
                                             {16, 16}, {64, 8}, {128, 1}, {128, 2}, {256, 1}};

struct j_cfg {
    int variant;
    struct j_shape sh;
    struct gc_jlaunch l;
    int regs;            /* registers per work-item where the backend reports them, else -1 */
    double warps_per_cu; /* resident warps of 32 per CU as launched; NAN unknown */
};

struct j_run {
    struct gc_jgrid g;
    float h2;
    float *u, *f, *got; /* host copies and the read-back */
    struct gc_buf *du, *df, *dun;
    struct j_cfg cf[GC_JACOBI_NVARIANTS * J_MAX_SHAPES];
    int nshapes, left_out;
    struct gc_hdesc desc;
};

/* Interior points per side: a power of two whose u array is at least a
 * multiple of the last-level cache on a GPU (1x quick, 4x default, 16x
 * full: the largest level it streams from is DRAM), three arrays within a
 * quarter of device memory; fixed small grids on a CPU device. */
static unsigned grid_n(const struct gc_session *s)
{
    const struct gc_device_info *i = &s->dev->info;
    int p = s->profile;
    unsigned n = p == GC_PROFILE_QUICK ? 256 : p == GC_PROFILE_FULL ? 2048 : 1024;
    double want = (double)gc__gpu_l2_or_bound(i) * (p == GC_PROFILE_QUICK  ? 1
                                                    : p == GC_PROFILE_FULL ? 16
                                                                           : 4);

    if (i->type == GC_DEVICE_GPU)
        for (n = 2048; n < 32768 && 4.0 * n * n < want; n *= 2)
            ;
    for (struct gc_jgrid g; n > 256; n /= 2) {
        gc__jacobi_grid(n, &g);
        size_t bytes = g.elems * 4;
        if ((!i->max_alloc || bytes <= i->max_alloc) &&
            (!i->global_mem || 3 * bytes <= i->global_mem / 4))
            break;
    }
    return n;
}

static int j_setup(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out)
{
    struct j_run *jr = h->d->user;
    struct j_cfg *cf = &jr->cf[c - h->cfg];
    struct gc_device *d = h->s->dev;
    size_t st = 0;
    int na = 0, maxt = 0;

    /* The kernel's attributes while it exists (the runner releases the
     * programs before the figures are derived); 0 registers: not reported. */
    if (!d->ops->kernel_attrs || d->ops->kernel_attrs(c->k, &cf->regs, &st, &maxt) || cf->regs <= 0)
        cf->regs = -1;
    size_t dyn = gc__jacobi_variant(cf->variant)->mc == GC_JMC_DYN ? cf->l.tile_bytes : 0;
    cf->warps_per_cu = gc__occupancy_warps(d, c->k, cf->sh.bx * cf->sh.by, cf->regs, st, dyn,
                                           (double)cf->l.nbx * cf->l.nby);

    out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = jr->du};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = jr->df};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = jr->dun};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_F32, .v.f32 = J_OMEGA};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_F32, .v.f32 = jr->h2};
    out->l = (struct gc_launch){{cf->l.nbx * cf->l.nby, 1, 1},
                                {(unsigned)(cf->sh.bx * cf->sh.by), 1, 1},
                                dyn,
                                out->args,
                                na,
                                1};
    out->work = (double)jr->g.n * jr->g.n;
    snprintf(out->desc, sizeof(out->desc), "%s, work-group %dx%d", c->point, cf->sh.bx, cf->sh.by);
    return 0;
}

static int j_before(struct gc_harness *h, struct gc_hconf *c)
{
    struct j_run *jr = h->d->user;

    (void)c;
    return gc__devfill_word(h->s, jr->dun, jr->g.elems * 4, J_POISON);
}

static int j_verify(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    struct j_run *jr = h->d->user;
    const struct j_cfg *cf = c->user;
    int rc = gc__dev_read(h->s->dev, jr->dun, 0, jr->got, jr->g.elems * 4);

    if (rc)
        return rc;
    return gc__jacobi_check(&jr->g, jr->u, jr->f, J_OMEGA, jr->h2,
                            gc__jacobi_variant(cf->variant)->be, jr->got, msg, len);
}

/* Configuration (variant vi, shape sh), left out (counted) when the
 * variant cannot use the shape on this grid or device. */
static int j_plan_cfg(struct gc_session *s, struct gc_harness *h, struct j_run *jr, int vi,
                      struct j_shape sh)
{
    const struct gc_device_info *info = &s->dev->info;
    const struct gc_jvariant *v = gc__jacobi_variant(vi);
    struct gc_jlaunch l;
    char why[200] = "", name[32];

    if (gc__jacobi_launch(v, &jr->g, sh.bx, sh.by, &l, why, sizeof(why)) == 0 &&
        sh.bx * sh.by > info->max_threads_per_block)
        snprintf(why, sizeof(why), "work-group exceeds the device's %d work-items",
                 info->max_threads_per_block);
    if (!why[0] && l.tile_bytes > info->shared_per_block)
        snprintf(why, sizeof(why), "tile exceeds the local memory per group");
    if (why[0]) {
        jr->left_out++;
        return 0;
    }
    struct gc_hconf *c = gc__harness_add(h);
    struct j_cfg *cf = &jr->cf[h->ncfg - 1];

    if (!c)
        return GC_ENOMEM;
    *cf = (struct j_cfg){.variant = vi, .sh = sh, .l = l, .regs = -1, .warps_per_cu = NAN};
    gc__jacobi_name(v, name, sizeof(name));
    snprintf(c->label, sizeof(c->label), "jacobi_%s_%dx%d", name, sh.bx, sh.by);
    snprintf(c->point, sizeof(c->point), "%s", name);
    c->kernel = "gc_jacobi";
    c->plateaus = 1u << vi;
    c->user = cf;
    c->src = gc__jacobi_gen(s->dev->ops->dialect, v, &jr->g, sh.bx, sh.by, &cf->l);
    return c->src ? 0 : GC_ENOMEM;
}

/* u uniform in [0, 1) and f in [-1, 1): random data, never a constant, the
 * same on the host (the reference) and the device. */
static int j_data(struct gc_session *s, struct j_run *jr)
{
    size_t bytes = jr->g.elems * 4;
    uint64_t st = s->seed ^ 0x1AC0B1ULL;
    int rc;

    jr->u = malloc(bytes);
    jr->f = malloc(bytes);
    jr->got = malloc(bytes);
    if (!jr->u || !jr->f || !jr->got)
        return GC_ENOMEM;
    for (size_t i = 0; i < jr->g.elems; i++) {
        jr->u[i] = gc__random_float(&st, 0.0f, 1.0f);
        jr->f[i] = gc__random_float(&st, -1.0f, 1.0f);
    }
    if ((rc = gc__dev_alloc(s->dev, bytes, &jr->du)) ||
        (rc = gc__dev_alloc(s->dev, bytes, &jr->df)) ||
        (rc = gc__dev_alloc(s->dev, bytes, &jr->dun)) ||
        (rc = gc__dev_write(s->dev, jr->du, 0, jr->u, bytes)))
        return rc;
    return gc__dev_write(s->dev, jr->df, 0, jr->f, bytes);
}

static int j_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h)
{
    struct j_run *jr = calloc(1, sizeof(*jr));
    const struct j_shape *sh = s->profile == GC_PROFILE_QUICK  ? shapes_quick
                               : s->profile == GC_PROFILE_FULL ? shapes_full
                                                               : shapes_default;
    int rc = 0;

    if (!jr) {
        gc__bench_set_error(r, GC_BENCH_ERROR, "out of host memory");
        return GC_ENOMEM;
    }
    jr->nshapes = s->profile == GC_PROFILE_QUICK  ? 2
                  : s->profile == GC_PROFILE_FULL ? J_MAX_SHAPES
                                                  : 6;
    gc__jacobi_grid(grid_n(s), &jr->g);
    jr->h2 = 1.0f / ((float)(jr->g.N - 1) * (float)(jr->g.N - 1));
    /* Each variant is a plateau: the screen ranks its shapes and the best
     * (and any within 3%) is measured in full. No time budget: every
     * variant needs its figure for Table 2. */
    jr->desc = (struct gc_hdesc){
        .refine_top = 1,
        .refine_within = 0.03,
        .refine_max = 2,
        .setup = j_setup,
        .before = j_before,
        .verify = j_verify,
        .user = jr,
    };
    gc__harness_init(h, s, r, &jr->desc);
    for (int v = 0; v < GC_JACOBI_NVARIANTS && rc == 0; v++)
        for (int k = 0; k < jr->nshapes && rc == 0; k++)
            rc = j_plan_cfg(s, h, jr, v, sh[k]);
    if (rc == 0)
        rc = j_data(s, jr);
    if (rc == GC_ENOMEM)
        gc__bench_set_error(r, GC_BENCH_ERROR, "out of host memory for the %ux%u grid", jr->g.N,
                            jr->g.N);
    return rc;
}

static void j_release(struct gc_session *s, struct gc_harness *h)
{
    struct j_run *jr = h->d ? h->d->user : NULL;

    gc__harness_free(h);
    if (!jr)
        return;
    gc__dev_free(s->dev, jr->du);
    gc__dev_free(s->dev, jr->df);
    gc__dev_free(s->dev, jr->dun);
    free(jr->u);
    free(jr->f);
    free(jr->got);
    free(jr);
}

/* The variant's fastest full measurement (-1 none). */
static int j_best_of(const struct gc_harness *h, int v)
{
    int best = -1;

    for (int i = 0; i < h->ncfg; i++) {
        const struct gc_hconf *c = &h->cfg[i];
        const struct j_cfg *cf = c->user;

        if (c->state != GC_H_REFINED || cf->variant != v)
            continue;
        if (best < 0 || c->m.seconds.median < h->cfg[best].m.seconds.median)
            best = i;
    }
    return best;
}

/* The last-level cache the device reports (a GPU's L2 or the bound used
 * where it is unknown; a CPU device's own figure, else the host's). */
static size_t j_llc(const struct gc_device_info *info)
{
    if (info->type == GC_DEVICE_GPU)
        return gc__gpu_l2_or_bound(info);
    return info->l2_size ? info->l2_size : gc__cpu_llc_bytes(info);
}

/* "<variant>.time" with its stats, its work record, its speedup. Where u,
 * f and un together fit the last-level cache (a CPU device's fixed grid),
 * launches back to back find them there: the record has no DRAM traffic,
 * the cache levels' counts stand. */
static int j_derive_variant(const struct gc_harness *h, int v, int ci, double t_base,
                            struct gc_series *ser)
{
    const struct j_run *jr = h->d->user;
    const struct gc_hconf *c = &h->cfg[ci];
    const struct j_cfg *cf = c->user;
    const struct gc_jvariant *jv = gc__jacobi_variant(v);
    struct gc_app_work w;
    char name[32], mn[64], note[200];
    int rc;

    gc__jacobi_name(jv, name, sizeof(name));
    gc__jacobi_work(jv, &jr->g, cf->sh.bx, cf->sh.by, &cf->l, &w);
    w.regs_per_thread = cf->regs;
    w.access_bytes = gc__jacobi_access_bytes(h->s->dev->ops->dialect, jv);
    if (h->s->dev->info.type == GC_DEVICE_GPU)
        w.l1_wavefronts = gc__jacobi_wavefronts(h->s->dev->ops->dialect, jv, &jr->g, cf->sh.bx,
                                                cf->sh.by, &cf->l);
    size_t llc = j_llc(&h->s->dev->info);
    if (llc && 12.0 * jr->g.N * jr->g.N <= (double)llc)
        w.bytes[GC_APP_LVL_DRAM] = 0;
    if ((rc = gc__app_work_put(h->r, name, &w)))
        return rc;
    snprintf(mn, sizeof(mn), "%s.time", name);
    snprintf(note, sizeof(note),
             "one relaxation step of the %ux%u grid, work-group %dx%d (%d x %d "
             "work-items), the fastest shape measured",
             jr->g.N, jr->g.N, cf->sh.bx, cf->sh.by, cf->l.nbx * cf->sh.bx, cf->l.nby * cf->sh.by);
    if (!gc__bench_add_metric(h->r, mn, c->m.seconds.median, "s", NAN, &c->m.seconds, note))
        return GC_ENOMEM;
    snprintf(mn, sizeof(mn), "%s.warps_per_cu", name);
    if (!gc__bench_add_metric(h->r, mn, cf->warps_per_cu, "warps", NAN, NULL,
                              "resident warps of 32 threads per CU as launched: the occupancy "
                              "API, else the device's thread, block, register and "
                              "shared-memory limits"))
        return GC_ENOMEM;
    snprintf(mn, sizeof(mn), "%s.speedup", name);
    if (!gc__bench_add_metric(h->r, mn, t_base / c->m.seconds.median, "x", NAN, NULL,
                              "T_baseline / T_variant"))
        return GC_ENOMEM;
    return gc__series_add(ser, v, c->m.seconds.median, &c->m.seconds, name);
}

/* Table 2 (§4.3): the best version, its improvement over the baseline, and
 * for a combination its primary optimization and that one's own gain. */
static int j_table(const struct gc_harness *h, const double *t)
{
    const struct j_run *jr = h->d->user;
    const struct gc_device_info *info = &h->s->dev->info;
    struct gc_jtable tb;
    char best[32], prim[32] = "-", note[256];

    gc__jacobi_table(t, &tb);
    if (tb.best < 0)
        return 0;
    gc__jacobi_name(gc__jacobi_variant(tb.best), best, sizeof(best));
    if (tb.primary >= 0)
        gc__jacobi_name(gc__jacobi_variant(tb.primary), prim, sizeof(prim));
    snprintf(note, sizeof(note), "best version %s (%s); (T_baseline / T_best - 1) x 100", best,
             gc__jacobi_class_name(tb.best_class));
    if (!gc__bench_add_metric(h->r, "best_variant", tb.best, "", NAN, NULL, note) ||
        !gc__bench_add_metric(h->r, "improvement", tb.improvement_pct, "%", NAN, NULL, note))
        return GC_ENOMEM;
    snprintf(note, sizeof(note),
             "primary optimization of %s: %s alone, (T_baseline / T_%s - 1) x 100", best, prim,
             prim);
    if (tb.primary >= 0 && !gc__bench_add_metric(h->r, "primary_contribution", tb.contribution_pct,
                                                 "%", NAN, NULL, note))
        return GC_ENOMEM;
    /* The compulsory traffic of the best step against the memory's limit:
     * a step faster than DRAM allows is a failed measurement (the guard),
     * where the grid is far above the cache. */
    double bytes = 4.0 * jr->g.N * jr->g.N + 4.0 * jr->g.n * jr->g.n * 2;
    size_t llc = j_llc(info);
    bool dram = llc && 4.0 * jr->g.N * jr->g.N >= 4.0 * (double)llc;
    snprintf(note, sizeof(note), "%s: u and f read once, un written once, per step%s", best,
             dram ? "" : " (the grid is not far above the cache: no DRAM limit applies)");
    if (!gc__bench_add_metric(h->r, "best_dram_bandwidth", bytes / t[tb.best], "B/s",
                              dram && isfinite(info->mem_bw_spec) ? info->mem_bw_spec : NAN, NULL,
                              note))
        return GC_ENOMEM;
    return 0;
}

static int j_derive(struct gc_session *s, const struct gc_harness *h, const char *bench)
{
    const struct j_run *jr = h->d->user;
    double t[GC_JACOBI_NVARIANTS];
    int ci[GC_JACOBI_NVARIANTS], rc = 0;
    char note[200];

    (void)s;
    (void)bench;
    struct gc_series *ser = gc__bench_add_series(
        h->r, "time_per_variant", "variant (index, in the order of the summary table)", "",
        "time per relaxation step", "s");
    if (!ser)
        return GC_ENOMEM;
    for (int v = 0; v < GC_JACOBI_NVARIANTS; v++) {
        ci[v] = j_best_of(h, v);
        t[v] = ci[v] >= 0 ? h->cfg[ci[v]].m.seconds.median : NAN;
    }
    for (int v = 0; v < GC_JACOBI_NVARIANTS && rc == 0; v++)
        if (ci[v] >= 0)
            rc = j_derive_variant(h, v, ci[v], t[0], &h->r->series[h->r->nseries - 1]);
    if (rc == 0)
        rc = j_table(h, t);
    snprintf(note, sizeof(note), "%ux%u points (with the boundary ring), omega %.2f, h = 1/%u",
             jr->g.N, jr->g.N, (double)J_OMEGA, jr->g.N - 1);
    if (rc == 0 && !gc__bench_add_metric(h->r, "grid_points", (double)jr->g.N * jr->g.N, "points",
                                         NAN, NULL, note))
        rc = GC_ENOMEM;
    if (ci[0] >= 0) {
        h->r->context = h->cfg[ci[0]].m.ctx;
        snprintf(h->r->stop_rule, sizeof(h->r->stop_rule), "%s", h->cfg[ci[0]].m.stop_rule);
    }
    return rc;
}

static int run_jacobi(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    static const struct gc_hbench hb = {j_plan, j_derive, j_release};

    return gc__harness_bench(s, r, self->info.name, &hb);
}

#define J_ROW(nm)                                                                                  \
    {.table = &gc__sum_jacobi,                                                                     \
     .row = nm,                                                                                    \
     .col = 0,                                                                                     \
     .metric = nm ".time",                                                                         \
     .unit = "s",                                                                                  \
     .scale = 1e6},                                                                                \
    {                                                                                              \
        .table = &gc__sum_jacobi, .row = nm, .col = 1, .metric = nm ".speedup", .unit = "x"        \
    }

static const struct gc_sum_cell jacobi_cells[] = {
    J_ROW("baseline"),
    J_ROW("vec4"),
    J_ROW("vec8"),
    J_ROW("vec16"),
    J_ROW("BE"),
    J_ROW("mcDyn"),
    J_ROW("mcStat"),
    J_ROW("vec4_BE"),
    J_ROW("vec8_BE"),
    J_ROW("vec16_BE"),
    J_ROW("vec4_mcStat"),
    J_ROW("vec8_mcStat"),
    J_ROW("vec16_mcStat"),
    J_ROW("BE_mcStat"),
    J_ROW("vec4_BE_mcStat"),
    J_ROW("vec8_BE_mcStat"),
    J_ROW("vec16_BE_mcStat"),
    {0},
};

static const struct gc_fig_rule jacobi_figures[] = {
    {"time_per_variant", "omega-Jacobi: time per relaxation step per variant", 0, NULL, false,
     false, true},
    {0},
};
static const struct gc_bench_report jacobi_report = {.cells = jacobi_cells,
                                                     .figures = jacobi_figures};

const struct gc_bench gc__bench_jacobi = {
    .info =
        {
            .name = "application.jacobi",
            .group = "application",
            .summary = "omega-Jacobi relaxation of the 2-D Poisson problem in the 17 variants of "
                       "uCLbench S4.2 (vectorization, branch elimination, manual caching); the "
                       "paper's Table 2 for the device",
            .method =
                "uCLbench S4. One step u_new = (1 - w) u + w/4 (u_W + u_E + u_S + u_N + h^2 f), "
                "w = 0.8, on an N x N grid of the unit square (n = N - 2 interior points per side, "
                "a power of two: u at least 1x/4x/16x the last-level cache in the quick/default/"
                "full profile on a GPU, 256/1024/2048 on a CPU device), random u in [0,1) and f "
                "in [-1,1). Variants: the baseline (one work-item per point, a branch copying "
                "the Dirichlet boundary), vecW (W = 4, 8, 16 points per work-item: OpenCL "
                "floatW with vloadW/vstoreW; CUDA float4 loads and stores, lane-wise "
                "arithmetic), BE (interior-only kernel on whole work-groups, the boundary kept "
                "by a separate step: no branch), mcDyn / mcStat (the work-group's tile with a "
                "halo of one loaded into local memory passed as an argument / declared in the "
                "kernel), and the combinations of vecW, BE and mcStat: 17 kernels. Each "
                "variant's work-group shape is searched (screen of every shape, the best "
                "measured in full); its time is the median per launch. Every measurement is "
                "verified against a double-precision host step within 2^-20 of the sum of the "
                "terms' magnitudes (the fp32 rounding bound, doubled). Table 2: the best "
                "version, improvement = (T_baseline / T_best - 1) x 100, and for a combined "
                "best its primary optimization (the component whose single variant gains "
                "most) with that variant's own improvement.",
        },
    .run = run_jacobi,
    .report = &jacobi_report,
    .expect_s = 40,
    /* 17 variants, each with its launch shapes searched and every sample
     * checked against a host step of a grid four times the last-level
     * cache: about a minute on an H200, more than the rest of the default
     * run. It runs with --full or when named (--bench application.jacobi,
     * --bench application). */
    .opt_in = true,
};
