/* compute.<itype> on devices without an in-kernel clock (every OpenCL device
 * today): the occupancy roofline and the pipeline model's lambda and Lambda
 * from whole-kernel times over an occupancy sweep, Lemeire's own method
 * (timeOfRun, eqs. 3-5; OpenCL, whole kernels timed). Devices with the
 * clock take the per-warp path in compute.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/compute/compute.h"
#include "core/cpulimits.h"
#include "core/kcache.h"
#include "core/stats.h"
#include "core/sweep.h"
#include "model/pipeline.h"

/* Work-items per CU at the top of a CPU's sweep: a CPU runs one work-group
 * per CU at a time, whose work-items the compiler packs into SIMD vectors
 * (16 fp32 lanes with AVX-512) and interleaves; 4 such vectors show it. */
#define KT_CPU_MAX_THREADS 64
/* A CPU launch is repeated over runs per CU until it lasts this long, so
 * that its overhead (tens of us on PoCL) is a few percent of it. */
#define KT_CPU_TARGET_S 1e-3
#define KT_CPU_MAX_RUNS 4096

struct kt {
    struct compute_ctx *x;
    struct gc_device *d;
    const struct gc_device_info *info;
    bool cpu, cycles;
    double clock_hz; /* the cycle clock (gc__cycle_clock_mhz), or 1e9: times in ns */
    const char *clock_source;
    const char *tu;    /* "clk" or "ns" */
    int reps;          /* timed launches per point (the first two checked) */
    double warp_run_s; /* the last CPU point's time per warp and run, 0 none */
    int trials;        /* trial launches so far (kt_runs) */
    double target_s;   /* a CPU launch's length (KT_CPU_TARGET_S, half with --quick) */
};

/* Runs per CU that make a CPU launch of `per_run` threads last about
 * K->target_s, within the buffers (max_threads): predicted from the
 * previous point's time per warp and run where there is one, else found by
 * up to three trial launches. 1 on other devices: their launch holds every
 * point's warps at once. */
static int kt_runs(struct kt *K, struct gc_kern *k, struct gc_launch *l, int warps, size_t per_run,
                   size_t max_threads, int *runs)
{
    unsigned grid = l->grid[0];
    int cap = (int)(max_threads / per_run);
    double el;

    *runs = 1;
    cap = cap > KT_CPU_MAX_RUNS ? KT_CPU_MAX_RUNS : cap;
    if (K->cpu && K->warp_run_s > 0)
        *runs = (int)fmin(cap, ceil(K->target_s / (K->warp_run_s * warps)));
    for (int it = 0; K->cpu && !(K->warp_run_s > 0) && it < 3 && *runs < cap; it++) {
        int rc, nr;

        l->grid[0] = grid * (unsigned)*runs;
        if ((rc = gc__dev_launch(K->d, k, l, &el)))
            return rc;
        K->trials++;
        if (el >= 0.5 * K->target_s)
            break;
        nr = (int)ceil(*runs * K->target_s / fmax(el, 1e-7));
        *runs = nr < cap ? nr : cap;
    }
    *runs = *runs < 1 ? 1 : *runs;
    l->grid[0] = grid * (unsigned)*runs;
    return 0;
}

/* One point: config ci at `warps` warps per CU, its checked launches timed
 * whole. *skip where the device cannot lay the point out. */
static int kt_point(struct kt *K, struct gc_kern *k, const struct compute_cfg *c, int ci, int warps,
                    struct gc_ktime_point *out, struct gc_stats *cpi_st, bool *skip)
{
    const struct gc_itype *t = K->x->t;
    struct gc_arg args[4] = {{.type = GC_ARG_BUF, .v.buf = K->x->in},
                             {.type = GC_ARG_BUF, .v.buf = K->x->out}};
    int simd = K->info->simd_width > 0 ? K->info->simd_width : 1;
    int cus = K->info->compute_units > 0 ? K->info->compute_units : 1;
    size_t max_threads = K->x->in_elems / (size_t)(c->nch * c->vw);
    struct gc_shape sh;
    struct gc_stats st;
    /* A CPU curve's first point is warmed up by its trial launches, the
     * others by the points before them (the same kernel). */
    bool warm = K->cpu && K->warp_run_s > 0;
    int trials = K->trials, runs, rc = gc__sweep_shape(K->d, k, warps, &sh);
    char what[96];

    *skip = rc == GC_ERANGE || (rc == 0 && K->cpu && sh.blocks_per_cu != 1) ||
            (size_t)sh.grid * (size_t)sh.block > max_threads;
    if (*skip || rc)
        return *skip ? 0 : rc;
    gc__compute_fill_args(t, args);
    struct gc_launch l = {
        {sh.grid, 1, 1}, {(unsigned)sh.block, 1, 1}, sh.occ.dyn_shared, args, 4, 1};
    if ((rc = kt_runs(K, k, &l, warps, (size_t)sh.grid * (size_t)sh.block, max_threads, &runs)))
        return rc;
    warm = warm || K->trials > trials;
    size_t nthreads = (size_t)l.grid[0] * (size_t)sh.block;
    snprintf(what, sizeof(what), "kernel-time sweep ILP %d, %d warps/CU, %d runs/CU", c->ilp, warps,
             runs);
    struct compute_sweep_check sc = {.ci = ci, .what = what};
    struct gc_rep_hook hook = {gc__compute_check_before, gc__compute_check_after, &sc};
    if ((rc = gc__compute_vrun_init(&sc.v, K->x, c, nthreads)) == 0)
        rc = gc__measure_runs(K->x->s, k, &l, warm ? 0 : 1, K->reps, &hook, &st);
    gc__compute_vrun_free(&sc.v);
    if (rc)
        return rc;
    if (!sc.checked) {
        gc__bench_set_error(K->x->r, GC_BENCH_ERROR,
                            "verification failed (%s): fewer than two checked launches", what);
        return GC_EVERIFY;
    }
    /* A CPU's fastest launch: host load only adds time. */
    double sec = K->cpu ? st.min : st.median;
    K->warp_run_s = sec / runs / warps;
    struct gc_lemeire_launch ll = {.work_items = (double)nthreads,
                                   .wg_size = sh.block,
                                   .max_conc_wg = K->cpu ? 1 : sh.blocks_per_cu,
                                   .max_local_mem = 1,
                                   .warp_size = simd,
                                   .max_conc_warps = warps,
                                   .cus = cus,
                                   .instr_kernel = (double)c->per_rnd * c->unroll * c->trips,
                                   .runtime_s = sec,
                                   .clock_hz = K->clock_hz};
    gc__ktime_point(&ll, (double)t->lanes * t->counted * c->vw, out);
    *cpi_st = st;
    gc__stats_scale(cpi_st, out->cpi / sec);
    return 0;
}

/* One curve: config ci over the warps, series roofline_ilp<N> and
 * cpi_ilp<N> (the names of the per-warp path). */
static int kt_curve(struct kt *K, const struct compute_cfg *c, int ci, struct gc_prog *prog,
                    const int *warps, int nw, struct gc_ktime_point *pts, int *np)
{
    struct gc_kern *k = NULL;
    struct gc_series *thr, *cpi;
    char nm[64], unit[48];
    int rc;

    *np = 0;
    if ((rc = K->d->ops->kernel(prog, "gc_op", &k))) {
        snprintf(K->d->err, sizeof(K->d->err), "%s", K->d->ops->last_error(K->d->dev));
        return rc;
    }
    snprintf(nm, sizeof(nm), "roofline_ilp%d", c->ilp);
    snprintf(unit, sizeof(unit), "results/%s/CU", K->tu);
    thr = gc__bench_add_series(K->x->r, nm, "warps per CU", "warps", "throughput", unit);
    snprintf(nm, sizeof(nm), "cpi_ilp%d", c->ilp);
    snprintf(unit, sizeof(unit), "%s/warp-instruction", K->cycles ? "cycles" : "ns");
    cpi = gc__bench_add_series(K->x->r, nm, "warps per CU", "warps", "CPI per warp", unit);
    if (!thr || !cpi)
        return GC_ENOMEM;
    thr = cpi - 1; /* adding cpi may have moved the result's series */
    for (int i = 0; i < nw && !gc__stopped(K->x->s); i++) {
        struct gc_stats cs;
        bool skip;

        if ((rc = kt_point(K, k, c, ci, warps[i], &pts[*np], &cs, &skip)))
            return rc;
        if (skip)
            continue;
        gc__series_add(cpi, pts[*np].warps, pts[*np].cpi, &cs, NULL);
        gc__series_add(thr, pts[*np].warps, pts[*np].thr, NULL, NULL);
        (*np)++;
    }
    return 0;
}

/* The pipeline model's metrics from the curves (Lemeire eqs. 4-5), under
 * the names of the per-warp path, each note saying where it comes from. */
static void kt_metrics(struct kt *K, const struct gc_ktime_point *const *curves, const int *n,
                       const int *ilps, int ncurves)
{
    struct gc_bench_result *r = K->x->r;
    const struct gc_itype *t = K->x->t;
    const char *lu = K->cycles ? "cycles" : "ns";
    struct gc_ktime_marks mk;
    char src[200], note[400], nm[64];

    if (K->cycles)
        snprintf(src, sizeof(src),
                 "from whole-kernel times (timeOfRun, Lemeire eqs. 3-5) in cycles of the "
                 "%s clock (%.0f MHz: no clock is read in the kernel)",
                 K->clock_source, K->clock_hz * 1e-6);
    else
        snprintf(src, sizeof(src),
                 "from whole-kernel times (timeOfRun, Lemeire eqs. 3-5) in ns (the device "
                 "reports no clock)");
    gc__ktime_marks(curves, n, ncurves, 0.05, &mk);
    snprintf(note, sizeof(note), "Lambda: max CPI per warp over the sweep (Lemeire eq. 5), %s",
             src);
    gc__bench_add_metric(r, "completion_latency", mk.Lambda, lu, NAN, NULL, note);
    snprintf(note, sizeof(note), "lambda: min CPI per warp over the sweep (Lemeire eq. 4), %s",
             src);
    gc__bench_add_metric(r, "issue_latency", mk.lambda, lu, NAN, NULL, note);
    for (int i = 0; i < ncurves; i++) {
        if (!n[i])
            continue;
        snprintf(nm, sizeof(nm), "ridge_warps_ilp%d", ilps[i]);
        snprintf(note, sizeof(note),
                 "smallest warps/CU within 5%% of the kernel-time sweep's peak (%.4g results/%s/"
                 "CU)%s%s; from whole-kernel times",
                 mk.peak, K->tu, isnan(mk.ridge[i]) ? "; not reached with this ILP" : "",
                 mk.monotone[i] ? "; monotone within 5%" : "; NOT monotone within 5%");
        gc__bench_add_metric(r, nm, mk.ridge[i], "warps", NAN, NULL, note);
        snprintf(nm, sizeof(nm), "warps_90pct_ilp%d", ilps[i]);
        gc__bench_add_metric(r, nm, mk.w90[i], "warps", NAN, NULL,
                             "smallest warps/CU reaching 90% of the kernel-time sweep's peak "
                             "(Volkov 6.3); from whole-kernel times");
    }
    /* Little's law: warps needed = latency x peak warp-instructions per time unit. */
    double simd = K->info->simd_width > 0 ? K->info->simd_width : 1;
    double ipc = mk.peak / (simd * t->lanes * t->counted);
    gc__bench_add_metric(r, "littles_law_warps", mk.Lambda * ipc, "warps", NAN, NULL,
                         "Lambda x peak warp-instructions per time unit per CU: warps needed to "
                         "hide the latency with one chain; from whole-kernel times");
}

/* Index of the scalar config with ILP ilp, -1 if none. */
static int kt_cfg(const struct compute_cfg *cfgs, int ncfg, int ilp)
{
    for (int i = 0; i < ncfg; i++)
        if (cfgs[i].ilp == ilp && cfgs[i].vw == 1)
            return i;
    return -1;
}

int gc__compute_ktime(struct compute_ctx *x, const struct compute_cfg *cfgs,
                      const struct gc_kreq *reqs, int ncfg)
{
    struct gc_device *d = x->s->dev;
    const struct gc_device_info *info = &d->info;
    bool quick = x->s->profile == GC_PROFILE_QUICK;
    struct kt K = {
        .x = x, .d = d, .info = info, .cpu = info->type == GC_DEVICE_CPU, .reps = quick ? 2 : 3};
    int simd = info->simd_width > 0 ? info->simd_width : 1;
    int maxw =
        (info->max_threads_per_cu > 0 ? info->max_threads_per_cu : info->max_threads_per_block) /
        simd;
    int warps[MAX_SWEEP], nw, ci[2], ilps[2] = {1, 4}, n[2] = {0, 0}, rc = 0;
    struct gc_ktime_point pts[2][MAX_SWEEP];
    const struct gc_ktime_point *curves[2] = {pts[0], pts[1]};

    K.clock_hz = gc__cycle_clock_mhz(info, &K.clock_source) * 1e6;
    K.cycles = K.clock_hz > 0;
    if (!K.cycles)
        K.clock_hz = 1e9;
    K.tu = K.cycles ? "clk" : "ns";
    if (K.cpu && maxw > KT_CPU_MAX_THREADS / simd)
        maxw = KT_CPU_MAX_THREADS / simd > 0 ? KT_CPU_MAX_THREADS / simd : 1;
    nw = K.cpu ? gc__sweep_doublings(maxw, warps, MAX_SWEEP)
               : gc__sweep_warps(maxw, warps, MAX_SWEEP);
    /* --quick: every third doubling on a CPU (1, 8, 64, ...; the top kept),
     * half as long launches, ILP 1 only and the two checked launches per
     * point. */
    if (quick && K.cpu) {
        int j = 0;
        for (int i = 0; i < nw; i++)
            if (i % 3 == 0 || i == nw - 1)
                warps[j++] = warps[i];
        nw = j;
    }
    /* ILP 1 (Lambda) and the better of ILP 2 and 4 by the measured peak. */
    ci[0] = kt_cfg(cfgs, ncfg, 1);
    int c2 = kt_cfg(cfgs, ncfg, 2), c4 = kt_cfg(cfgs, ncfg, 4);
    ci[1] = quick ? -1 : c2 >= 0 && (c4 < 0 || x->rate[c2] > x->rate[c4]) ? c2 : c4;
    if ((rc = gc__compute_model01(x, cfgs, ci, 2)))
        return rc;
    for (int i = 0; i < 2 && !rc && !gc__stopped(x->s); i++) {
        if (ci[i] < 0)
            continue;
        ilps[i] = cfgs[ci[i]].ilp;
        K.warp_run_s = 0; /* each curve calibrates its first point */
        rc = kt_curve(&K, &cfgs[ci[i]], ci[i], reqs[ci[i]].prog, warps, nw, pts[i], &n[i]);
    }
    if (!rc && n[0] > 0)
        kt_metrics(&K, curves, n, ilps, ci[1] >= 0 ? 2 : 1);
    return rc;
}
