/* hiding.params: the hardware parameters of Volkov's latency-hiding model
 * measured on this device with his synthetic kernels (Tables 6.1-6.4 and
 * 6.7), the memory contention fit (§6.4, Table 6.5), per-access latency
 * percentiles under load (§6.6, Table 6.6) and the thread-block replacement
 * latency (§3.7). Its metrics are the profile 'gpuchar model' reads (the
 * contract in model/hiding.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/hiding/hiding.h"
#include "core/cpulimits.h"
#include "core/occupancy.h"
#include "core/stats.h"
#include "model/hiding.h"

enum { T_ALU, T_SFU, T_SHARED, T_SHARED2, T_MEM, T_RANDOM, NTYPES };

struct tdef {
    const char *key;
    enum gc_mix_op op;
    int alpha;
    const char *what;
};

static const struct tdef tdefs[NTYPES] = {
    {"alu", GC_MIX_ADD, 1, "dependent fp32 adds of zero (FADD)"},
    {"sfu", GC_MIX_SFU, 0, "dependent reciprocal square roots of 1.0 (MUFU.RSQ)"},
    {"shared", GC_MIX_SHARED, 0, "dependent shared-memory loads, every lane the same word"},
    {"shared2", GC_MIX_SHARED2, 0, "dependent shared-memory loads, 2-way bank conflict"},
    {"mem", GC_MIX_GLOBAL, 0, "streaming pointer chase: coalesced 4-byte loads, no cache hit"},
    {"random", GC_MIX_RANDOM, 0, "pseudo-random pointer chase: 32 lines per warp access"},
};

/* Curves: one per type, the memory one at ILP 1, 2, 4 and 8 (§6.3; 8 for the
 * peak: the 4-byte chase still gains from 4 to 8 chains on Hopper). */
#define C_MEM 4
#define NMEM 4
#define C_RANDOM (C_MEM + NMEM)
#define NCURVES (C_RANDOM + 1)

static const int mem_ilps[NMEM] = {1, 2, 4, 8};
static const int lines_grid[] = {1, 2, 4, 8, 16, 32};
#define NLINES ((int)(sizeof(lines_grid) / sizeof(lines_grid[0])))

/* Percentiles of §6.6 (Table 6.6: min, 5th ... 95th, max). */
static const double pcts[7] = {0, 5, 25, 50, 75, 95, 100};
static const char *const pct_names[7] = {"min", "p5", "p25", "p50", "p75", "p95", "max"};

struct kset {
    struct gc_hid_kern k[24];
    int n;
    int curve[NCURVES]; /* kernel of each curve */
    int nmem;
    int lines[NLINES];
    int nlines;
    int pct[2]; /* sampling kernels, ILP 1 and 2 */
    int npct;
};

static int kernel(struct kset *ks, const struct gc_device_info *info, enum gc_mix_op op, int alpha,
                  int ilp, int lines, bool sample, int warps_max, const char *label)
{
    struct gc_hid_kern *k = &ks->k[ks->n];

    gc__hid_plan(info, op, alpha, ilp, lines, sample, warps_max, &k->cfg);
    snprintf(k->label, sizeof(k->label), "%s", label);
    return ks->n++;
}

/* The kernels of a run on INFO (the same for sources). CPU devices take
 * fewer; sampling needs the in-kernel clock. */
static void plan_kernels(const struct gc_device_info *info, bool clocks, struct kset *ks)
{
    bool gpu = info->type == GC_DEVICE_GPU;
    char label[64];

    memset(ks, 0, sizeof(*ks));
    for (int t = 0; t < NTYPES; t++) {
        int c = t < T_MEM ? t : t == T_MEM ? C_MEM : C_RANDOM;

        snprintf(label, sizeof(label), "hiding_%s", tdefs[t].key);
        ks->curve[c] = kernel(ks, info, tdefs[t].op, tdefs[t].alpha, 1, 32, false, 0, label);
    }
    ks->nmem = gpu ? NMEM : 2;
    for (int i = 1; i < ks->nmem; i++) {
        snprintf(label, sizeof(label), "hiding_mem_ilp%d", mem_ilps[i]);
        ks->curve[C_MEM + i] = kernel(ks, info, GC_MIX_GLOBAL, 0, mem_ilps[i], 0, false, 0, label);
    }
    for (int i = 0; i < NLINES; i++) {
        if (!gpu && lines_grid[i] != 1 && lines_grid[i] != 32)
            continue;
        /* Latency at one warp per SM: long chains fit the array. */
        snprintf(label, sizeof(label), "hiding_random_l%d", lines_grid[i]);
        ks->lines[ks->nlines++] =
            kernel(ks, info, GC_MIX_RANDOM, 0, 1, lines_grid[i], false, 1, label);
    }
    for (int i = 0; clocks && i < 2; i++) {
        snprintf(label, sizeof(label), "hiding_pct_ilp%d", i + 1);
        ks->pct[ks->npct++] = kernel(ks, info, GC_MIX_GLOBAL, 0, i + 1, 0, true, 0, label);
    }
}

/* ---- Metrics ------------------------------------------------------------ */

static void metric(struct gc_bench_result *r, const char *name, double v, const char *unit,
                   double limit, const struct gc_stats *st, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static void metric(struct gc_bench_result *r, const char *name, double v, const char *unit,
                   double limit, const struct gc_stats *st, const char *fmt, ...)
{
    char note[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(note, sizeof(note), fmt, ap);
    va_end(ap);
    gc__bench_add_metric(r, name, v, unit, limit, st, note);
}

/* Thread operations per clock per SM the vendor specifies for a type on a
 * CUDA device (CUDA C Programming Guide, arithmetic instructions and shared
 * memory); NAN unknown. */
static double spec_ops(const struct gc_hid_ctx *x, int t)
{
    const struct gc_arch *a = &x->d->arch;

    switch (t) {
    case T_ALU:
        return a->fp32_fma_per_clk;
    case T_SFU:
        return a->sfu_per_clk;
    case T_SHARED:
        return a->shared_words_per_clk; /* 32 banks, one word each per clock */
    case T_SHARED2:
        return a->shared2_words_per_clk;
    default:
        return NAN;
    }
}

static void emit_type(struct gc_hid_ctx *x, int t, const struct gc_hid_type *p, double bytes,
                      double clk_mhz)
{
    struct gc_bench_result *r = x->r;
    const char *k = tdefs[t].key;
    double ops = spec_ops(x, t), sch = x->schedulers;
    char name[64];

    snprintf(name, sizeof(name), "%s_samples_kept", k);
    metric(r, name, p->kept, "samples", NAN, NULL,
           "§5.7: sweep samples at the requested occupancy; %d excluded (attained another, see "
           "excluded_samples)",
           p->excluded);
    /* A latency and its throughput come in pairs in the profile, and a
     * missing value must not be null there: without a kept sample the type
     * is left out (the model then refuses mixes that use it). */
    if (!(isfinite(p->latency) && p->latency > 0 && p->peak > 0))
        return;
    snprintf(name, sizeof(name), "%s_latency_cycles", k);
    metric(r, name, p->latency, "cycles", NAN, NULL,
           "Table 6.2: least mean warp latency per instruction over the ILP 1 sweep; %s%s",
           tdefs[t].what,
           x->sm && (t == T_MEM || t == T_RANDOM) ? "; a group is IMAD.WIDE (64-bit address) + LDG"
                                                  : "");
    if (t == T_MEM) {
        /* CPU devices: the cores' loads bound the chase. */
        double bw_lim = isfinite(x->d->info.mem_bw_spec) ? x->d->info.mem_bw_spec
                                                         : gc__cpu_stream_limit(&x->d->info, 1, 0);
        double lim = bw_lim / (x->cus * clk_mhz * 1e6);

        metric(r, "mem_thru_bytes_per_clk_sm", p->peak * bytes, "B/clk/SM",
               isfinite(lim) ? lim : NAN, NULL,
               "Table 6.1/6.4: best over ILP 1, 2, 4, 8 (CPUs: 1, 2) and occupancy (ILP %d, %d "
               "warps/SM); %g B "
               "per warp load",
               p->peak_ilp, p->peak_warps, bytes);
        metric(r, "mem_peak_bandwidth", p->peak * bytes * x->cus * clk_mhz * 1e6, "B/s", bw_lim,
               NULL, "the same at the observed clock, all SMs");
    } else {
        snprintf(name, sizeof(name), "%s_thru_per_clk_sm", k);
        metric(r, name, p->peak, "inst/clk/SM", ops / x->simd, NULL,
               "Table 6.1: best warp instructions per clock per SM over the ILP 1 sweep (%d "
               "warps/SM)",
               p->peak_warps);
    }
    snprintf(name, sizeof(name), "%s_peak_ops_per_clk_sm", k);
    metric(r, name, p->peak * x->simd, "ops/clk/SM", ops, NULL,
           "Table 6.1 per SM: thread operations (%d per warp instruction) per clock", x->simd);
    snprintf(name, sizeof(name), "%s_peak_ops_per_clk_sched", k);
    metric(r, name, p->peak * x->simd / sch, "ops/clk/scheduler", ops / sch, NULL,
           "Table 6.1: thread operations per clock per warp scheduler (%g per SM)", sch);
    snprintf(name, sizeof(name), "%s_warps_90pct", k);
    metric(r, name, p->w90, "warps/SM", NAN, NULL,
           "Table 6.3/6.4: least occupancy of the ILP 1 sweep reaching 90%% of the peak%s",
           isnan(p->w90) ? " (not reached)" : "");
    snprintf(name, sizeof(name), "%s_warps_95pct", k);
    metric(r, name, p->w95, "warps/SM", NAN, NULL,
           "Table 6.4: least occupancy of the ILP 1 sweep reaching 95%% of the peak%s",
           isnan(p->w95) ? " (not reached)" : "");
    snprintf(name, sizeof(name), "%s_warps_per_sched_90pct", k);
    metric(r, name, p->w90 / sch, "warps/scheduler", NAN, NULL,
           "Table 6.3: the 90%% occupancy per warp scheduler");
    snprintf(name, sizeof(name), "%s_warps_linear", k);
    metric(r, name, p->linear, "warps/SM", NAN, NULL,
           "Table 6.4 'linear': latency x peak throughput (Little's law)");
    snprintf(name, sizeof(name), "%s_pct_of_peak_at_linear", k);
    metric(r, name, 100 * p->at_linear, "%", 100, NULL,
           "Table 6.4: ILP 1 throughput at the linear occupancy / peak (interpolated)%s",
           isnan(p->at_linear) ? "; beyond the occupancies swept" : "");
}

/* ---- §6.7: latency against lines per warp access ------------------------ */

static int random_lines(struct gc_hid_ctx *x, struct kset *ks, double mem_latency, int reps)
{
    struct gc_series *s;
    double d[NLINES], lat[NLINES], u[NLINES], l32 = NAN, u32 = NAN;
    int n = 0, si;

    if (!gc__bench_add_series(x->r, "random_latency_vs_lines", "distinct lines per warp access",
                              "lines", "dependent-load latency", "cycles"))
        return GC_ENOMEM;
    si = x->r->nseries - 1;
    for (int i = 0; i < ks->nlines; i++) {
        const struct gc_hid_kern *hk = &ks->k[ks->lines[i]];
        struct gc_hid_sample p;
        double per = gc__mix_groups(&hk->cfg);
        int rc = gc__hid_measure(x, hk, 1, reps, &p);

        if (rc == GC_ERANGE)
            continue;
        if (rc)
            return rc;
        d[n] = hk->cfg.lines;
        lat[n] = (isfinite(p.warp_cycles) ? p.warp_cycles : p.cycles) / per;
        /* The point's uncertainty: its launches' relative 95% half-width. */
        u[n] = p.thru_stats.n >= 2 && p.thru_stats.median > 0
                   ? lat[n] * p.thru_stats.ci95 / p.thru_stats.median
                   : 0;
        if (hk->cfg.lines == 32) {
            l32 = lat[n];
            u32 = u[n];
        }
        s = &x->r->series[si];
        if (gc__series_add(s, d[n], lat[n], NULL, p.kept ? "1 warp/SM" : "occupancy not attained"))
            return GC_ENOMEM;
        n++;
    }
    /* A slope within its resolution of zero is below resolution, never a
     * negative increment. */
    if (n >= 2) {
        struct gc_line fit;
        gc__line_fit(d, lat, u, n, &fit);
        gc__bench_add_difference(x->r, "random_increment_per_line_cycles", fit.b, fit.b_res,
                                 "cycles/line",
                                 "§6.7: least-squares slope of the dependent-load latency "
                                 "against the distinct lines one warp access touches (1..32), "
                                 "one warp per SM");
    }
    /* Table 6.7: a fully divergent access issues 32 one-sector transactions
     * where a coalesced one issues 4 (128 B); the difference's resolution is
     * the 32-line point's (the streaming latency is a fit). */
    if (x->sm && isfinite(l32) && isfinite(mem_latency)) {
        char note[200];
        snprintf(note, sizeof(note),
                 "Table 6.7: (latency at 32 lines %.0f - streaming latency %.0f) / (32 - 4) "
                 "sectors; one warp per SM",
                 l32, mem_latency);
        gc__bench_add_difference(x->r, "random_increment_per_transaction_cycles",
                                 (l32 - mem_latency) / 28, u32 / 28, "cycles", note);
    }
    return 0;
}

/* ---- §6.4: memory latency against throughput --------------------------- */

static int contention(struct gc_hid_ctx *x, const struct gc_hid_curve *mc, int nmem, double peak,
                      double bytes)
{
    double xs[NMEM * GC_HID_MAX_POINTS], ls[NMEM * GC_HID_MAX_POINTS];
    struct gc_hiding_fit f;
    int n = 0, si, rc;

    if (!gc__bench_add_series(x->r, "mem_latency_vs_throughput", "attained memory throughput",
                              "B/clk/SM", "mean memory latency", "cycles"))
        return GC_ENOMEM;
    si = x->r->nseries - 1;
    for (int k = 0; k < nmem; k++) {
        double per = gc__mix_groups(&mc[k].hk->cfg);

        for (int i = 0; i < mc[k].n; i++) {
            const struct gc_hid_sample *p = &mc[k].pt[i];
            char label[64];

            if (!p->kept || !isfinite(p->warp_cycles))
                continue;
            xs[n] = p->thru * bytes;
            ls[n] = p->warp_cycles / per;
            snprintf(label, sizeof(label), "ILP %d, %d warps/SM", mc[k].hk->cfg.ilp, p->warps);
            if (gc__series_add(&x->r->series[si], xs[n], ls[n], NULL, label))
                return GC_ENOMEM;
            n++;
        }
    }
    rc = gc__hiding_fit_contention(xs, ls, n, peak, &f);
    if (rc == GC_ERANGE || rc == GC_EINVAL) {
        metric(x->r, "contention_fit_points", f.nenvelope, "points", NAN, NULL,
               "§6.4 fit not made: not enough points (%d samples, %d on the outer envelope; "
               "needs %d spanning %gx in throughput)",
               f.npoints, f.nenvelope, GC_HIDING_FIT_MIN, GC_HIDING_FIT_SPAN);
        return 0;
    }
    if (rc)
        return rc;
    metric(x->r, "contention_a_cycles", f.a, "cycles", NAN, NULL,
           "§6.4: latency = a + b x / (c - x) fitted to the outer envelope of the streaming "
           "sweeps (ILP 1, 2, 4, 8; CPUs: 1, 2); a ~ unloaded latency");
    metric(x->r, "contention_b_cycles", f.b, "cycles", NAN, NULL,
           "§6.4: how fast latency grows with throughput x (B/clk/SM)");
    metric(x->r, "contention_c_bytes_per_clk_sm", f.c, "B/clk/SM", NAN, NULL,
           "§6.4: the throughput where latency diverges; searched above the measured peak");
    metric(x->r, "contention_c_over_peak", f.c / peak, "x", NAN, NULL,
           "c / measured streaming peak (%.4g B/clk/SM); Table 6.5 has 1.01-1.10", peak);
    metric(x->r, "contention_fit_rms", 100 * f.rms_rel, "%", NAN, NULL,
           "root mean square relative residual over the %d envelope points of %d", f.nenvelope,
           f.npoints);
    metric(x->r, "contention_fit_points", f.nenvelope, "points", NAN, NULL,
           "samples on the outer envelope the fit used (of %d)", f.npoints);
    if (!gc__bench_add_series(x->r, "contention_fit", "memory throughput", "B/clk/SM",
                              "fitted mean memory latency", "cycles"))
        return GC_ENOMEM;
    for (int i = 0; i <= 40; i++) {
        double v = peak * i / 40.0;

        if (gc__series_add(&x->r->series[x->r->nseries - 1], v, gc__hiding_fit_eval(&f, v), NULL,
                           NULL))
            return GC_ENOMEM;
    }
    return 0;
}

/* ---- §6.6: latency percentiles ----------------------------------------- */

struct level {
    double gbps, p[7], mean;
    int warps, ilp;
    size_t n;
};

/* The levels to sample: ILP 1 over occupancies, then ILP 2 at the most
 * warps: the highest throughput levels (§6.3). Returns their number. */
static int pct_levels(const struct gc_hid_ctx *x, const struct kset *ks, int *lk, int *lw)
{
    static const int low[5] = {1, 4, 8, 16, 32};
    int nlv = 0;

    for (int i = 0; i < 5; i++)
        if (low[i] < x->max_warps) {
            lk[nlv] = ks->pct[0];
            lw[nlv++] = low[i];
        }
    lk[nlv] = ks->pct[0];
    lw[nlv++] = x->max_warps;
    if (ks->npct > 1) {
        lk[nlv] = ks->pct[1];
        lw[nlv++] = x->max_warps;
    }
    return nlv;
}

/* By attained throughput, as Table 6.6 lists them: one series per
 * percentile (and the mean) against the throughput. */
static int pct_series(struct gc_hid_ctx *x, struct level *lv, int nl)
{
    for (int i = 1; i < nl; i++)
        for (int j = i; j > 0 && lv[j].gbps < lv[j - 1].gbps; j--) {
            struct level t = lv[j];
            lv[j] = lv[j - 1];
            lv[j - 1] = t;
        }
    for (int q = 0; q <= 7; q++) {
        char name[64];
        int si;

        snprintf(name, sizeof(name), "latency_%s_vs_throughput", q < 7 ? pct_names[q] : "mean");
        if (!gc__bench_add_series(x->r, name, "attained memory throughput", "GB/s",
                                  "per-access latency", "cycles"))
            return GC_ENOMEM;
        si = x->r->nseries - 1;
        for (int i = 0; i < nl; i++) {
            char label[64];

            snprintf(label, sizeof(label), "%d warps/SM, ILP %d, %zu samples", lv[i].warps,
                     lv[i].ilp, lv[i].n);
            if (gc__series_add(&x->r->series[si], lv[i].gbps, q < 7 ? lv[i].p[q] : lv[i].mean, NULL,
                               label))
                return GC_ENOMEM;
        }
    }
    return 0;
}

/* The median and the spread at the lowest and the highest throughput. */
static void pct_metrics(struct gc_hid_ctx *x, const struct level *lv, int nl)
{
    const struct level *lo = &lv[0], *hi = &lv[nl - 1];
    metric(x->r, "percentile_p50_low_cycles", lo->p[3], "cycles", NAN, NULL,
           "§6.6: median per-access latency at %.0f GB/s (%d warps/SM, ILP %d, %zu samples)",
           lo->gbps, lo->warps, lo->ilp, lo->n);
    metric(x->r, "percentile_p50_high_cycles", hi->p[3], "cycles", NAN, NULL,
           "§6.6: median per-access latency at %.0f GB/s (%d warps/SM, ILP %d, %zu samples)",
           hi->gbps, hi->warps, hi->ilp, hi->n);
    metric(x->r, "percentile_spread_low_cycles", lo->p[5] - lo->p[1], "cycles", NAN, NULL,
           "95th - 5th percentile at the lowest throughput (%.0f GB/s)", lo->gbps);
    metric(x->r, "percentile_spread_high_cycles", hi->p[5] - hi->p[1], "cycles", NAN, NULL,
           "95th - 5th percentile at the highest throughput (%.0f GB/s)", hi->gbps);
    metric(x->r, "percentile_spread_ratio", (hi->p[5] - hi->p[1]) / (lo->p[5] - lo->p[1]), "x", NAN,
           NULL, "how much the middle 90%% widens from the lowest to the highest load");
    metric(x->r, "percentile_max_high_cycles", hi->p[6], "cycles", NAN, NULL,
           "slowest sampled access at the highest throughput");
}

static int percentiles(struct gc_hid_ctx *x, struct kset *ks, double bytes)
{
    struct level lv[8];
    int lk[8], lw[8], nlv, nl = 0;
    /* Some two thousand samples per level by default (one warp records one
     * load in eight of its chain per launch). */
    int launches = x->s->profile == GC_PROFILE_QUICK  ? 16
                   : x->s->profile == GC_PROFILE_FULL ? 256
                                                      : 64;
    size_t cap = 0;
    int rc = 0;

    nlv = pct_levels(x, ks, lk, lw);
    for (int i = 0; i < ks->npct; i++) {
        size_t c = (size_t)launches * (size_t)(gc__mix_groups(&ks->k[ks->pct[i]].cfg) / 8);

        cap = c > cap ? c : cap;
    }
    x->samples = malloc((cap ? cap : 1) * sizeof(double));
    if (!x->samples)
        return GC_ENOMEM;
    x->cap_samples = cap;
    for (int i = 0; i < nlv && !rc; i++) {
        const struct gc_hid_kern *hk = &ks->k[lk[i]];
        struct gc_hid_sample p;

        x->nsamples = 0;
        rc = gc__hid_measure(x, hk, lw[i], launches, &p);
        if (rc == GC_ERANGE) {
            rc = 0;
            continue;
        }
        if (rc || x->nsamples == 0 || !p.kept)
            continue;
        struct level *l = &lv[nl];
        l->gbps = p.thru * bytes * x->cus * gc__hid_clock_mhz(x, NULL) / 1e3;
        l->warps = lw[i];
        l->ilp = hk->cfg.ilp;
        l->n = x->nsamples;
        l->mean = 0;
        for (size_t k = 0; k < x->nsamples; k++)
            l->mean += x->samples[k] / x->nsamples;
        rc = gc__hiding_percentiles(x->samples, (int)x->nsamples, pcts, 7, l->p);
        if (!rc)
            nl++;
    }
    free(x->samples);
    x->samples = NULL;
    x->nsamples = x->cap_samples = 0;
    if (rc || nl == 0)
        return rc;
    if ((rc = pct_series(x, lv, nl)))
        return rc;
    pct_metrics(x, lv, nl);
    return 0;
}

/* ---- §3.7: thread-block replacement ------------------------------------ */

struct rec {
    unsigned sm;
    unsigned long long c0, c1;
};

static int cmp_rec(const void *a, const void *b)
{
    const struct rec *p = a, *q = b;

    if (p->sm != q->sm)
        return p->sm < q->sm ? -1 : 1;
    return (p->c0 > q->c0) - (p->c0 < q->c0);
}

static int block_replacement(struct gc_hid_ctx *x, int reps)
{
    struct gc_device *d = x->d;
    struct gc_kern *k = NULL;
    struct gc_occupancy occ;
    unsigned grid = (unsigned)x->cus * 64u;
    struct rec *rv = NULL;
    double *gaps = NULL;
    size_t ngaps = 0;
    struct gc_stats st;
    int rc;

    if (grid > x->ts_warps - 64)
        grid = (unsigned)(x->ts_warps - 64);
    rc = gc__hid_build_src(x, "hiding_empty", gc__gen_mix_empty(d->ops->dialect, x->flags),
                           "gc_mix_empty", &k);
    if (rc)
        return rc;
    /* One block per SM at a time: each block on an SM replaces the last. */
    rc = gc__occupancy_set(d, k, 32, 1, &occ);
    if (rc == GC_ERANGE)
        return 0;
    if (rc)
        return rc;
    rv = malloc(grid * sizeof(*rv));
    gaps = malloc((size_t)grid * (size_t)reps * sizeof(*gaps));
    if (!rv || !gaps) {
        rc = GC_ENOMEM;
        goto out;
    }
    struct gc_arg args[2] = {{.type = GC_ARG_BUF, .v.buf = x->out},
                             {.type = GC_ARG_BUF, .v.buf = x->ts}};
    struct gc_launch l = {{grid, 1, 1}, {32, 1, 1}, occ.dyn_shared, args, 2, 1};
    for (int i = -1; i < reps; i++) {
        double el;
        unsigned n = 0;

        memset(x->hts, 0, (size_t)grid * 40);
        if ((rc = gc__dev_write(d, x->ts, 0, x->hts, (size_t)grid * 40)) ||
            (rc = gc__dev_launch(d, k, &l, &el)) ||
            (rc = gc__dev_read(d, x->ts, 0, x->hts, (size_t)grid * 40)))
            goto out;
        if (i < 0)
            continue;
        for (unsigned b = 0; b < grid; b++) {
            const unsigned long long *w = x->hts + (size_t)b * 5;

            if (w[3] == 0 || w[2] < w[1])
                continue;
            rv[n++] = (struct rec){(unsigned)w[0], w[1], w[2]};
        }
        if (n < grid / 2) {
            gc__bench_set_error(x->r, GC_BENCH_ERROR,
                                "empty kernel: %u of %u blocks wrote their timestamps", n, grid);
            rc = GC_EVERIFY;
            goto out;
        }
        qsort(rv, n, sizeof(*rv), cmp_rec);
        for (unsigned b = 1; b < n; b++)
            if (rv[b].sm == rv[b - 1].sm && rv[b].c0 >= rv[b - 1].c1)
                gaps[ngaps++] = (double)(rv[b].c0 - rv[b - 1].c1);
    }
    if (ngaps == 0)
        goto out;
    gc__stats_compute(gaps, (int)ngaps, &st);
    metric(x->r, "block_replacement_cycles", st.median, "cycles", NAN, &st,
           "§3.7: gap between a block's last timestamp and the next block's first on the same "
           "SM, empty kernel, 1 block/SM, %u blocks; median of %zu gaps",
           grid, ngaps);
out:
    free(rv);
    free(gaps);
    return rc;
}

/* ---- The run ------------------------------------------------------------ */

/* Warp-by-warp sweeps of every type (§6.1, §6.3, §6.7). */
static int sweep_curves(struct gc_hid_ctx *x, const struct kset *ks, const int *w, int nw, int reps,
                        struct gc_hid_curve *cv)
{
    for (int c = 0; c < NCURVES; c++) {
        if (c >= C_MEM + ks->nmem && c < C_RANDOM)
            continue;
        int rc = gc__hid_sweep(x, &ks->k[ks->curve[c]], w, nw, reps, &cv[c]);
        if (rc)
            return rc;
    }
    return 0;
}

/* Each type's parameters from its curves, and the curves as series. */
static int type_curves(struct gc_hid_ctx *x, const struct kset *ks, struct gc_hid_curve *cv,
                       double bytes, struct gc_hid_type *tp)
{
    for (int t = 0; t < NTYPES; t++) {
        int c = t < T_MEM ? t : t == T_MEM ? C_MEM : C_RANDOM;
        char name[64];

        gc__hid_type_params(&cv[c], t == T_MEM ? ks->nmem : 1, &tp[t]);
        for (int k = 0; k < (t == T_MEM ? ks->nmem : 1); k++) {
            snprintf(name, sizeof(name), "%s_ilp%d", tdefs[t].key, cv[c + k].hk->cfg.ilp);
            int rc = t == T_MEM
                         ? gc__hid_add_curve(x, &cv[c + k], name, bytes, "throughput", "B/clk/SM")
                         : gc__hid_add_curve(x, &cv[c + k], name, 1, "throughput", "inst/clk/SM");
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* The rest of the profile contract (model/hiding.h): the issue rate, the
 * clock, the device's shape. */
static void profile_metrics(struct gc_hid_ctx *x, double alu_peak, double bytes, double clk,
                            const char *how)
{
    struct gc_bench_result *r = x->r;
    const struct gc_device_info *info = &x->s->dev->info;
    double issue;

    metric(r, "mem_bytes_per_inst", bytes, "B/inst", NAN, NULL,
           "%d lanes x 4 bytes: one coalesced warp load of the streaming chase", x->simd);
    if (x->d->arch.issue_per_scheduler) {
        issue = x->schedulers;
        metric(r, "issue_thru_per_clk_sm", issue, "inst/clk/SM", NAN, NULL,
               "%d warp schedulers x 1 instruction per clock (CUDA C Programming Guide); the "
               "add peak reaches %.1f%% of it",
               x->schedulers, 100 * alu_peak / issue);
    } else {
        metric(r, "issue_thru_per_clk_sm", alu_peak, "inst/clk/SM", NAN, NULL,
               "the measured add peak: this device documents no issue rate");
    }
    if (x->sm)
        metric(r, "mem_issue_cycles", 2, "cycles", NAN, NULL,
               "issue slots of one memory group: IMAD.WIDE (64-bit address) + LDG");
    metric(r, "max_warps_per_sm", x->max_warps, "warps/SM", NAN, NULL,
           x->gpu ? "most resident warps per SM"
                  : "most work-groups of the preferred multiple "
                    "swept per compute unit");
    if (x->clock_n)
        metric(r, "clock_hz", clk * 1e6, "Hz", gc__clock_ceiling_mhz(info) * 1e6, NULL,
               "SM clock observed (clock64 against globaltimer), the points weighted by the "
               "cycles they spanned; %.0f-%.0f MHz over the points; limit: the reported "
               "%.0f MHz maximum plus one clock step (1%%)",
               x->clock_min, x->clock_max, info->clock_mhz);
    else
        metric(r, "clock_hz", clk * 1e6, "Hz", NAN, NULL,
               "the %s clock (no in-kernel clock): cycles are event time x this clock", how);
    metric(r, "sm_count", x->cus, "SMs", NAN, NULL, "compute units of the device");
    metric(r, "schedulers_per_sm", x->schedulers, "schedulers", NAN, NULL,
           x->sm ? "warp schedulers per SM (compute capability)" : "unknown: taken as 1");
}

static int run_params(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    struct gc_hid_ctx x;
    struct kset *ks = malloc(sizeof(*ks));
    struct gc_hid_curve *cv = calloc(NCURVES, sizeof(*cv));
    struct gc_hid_type tp[NTYPES];
    int w[GC_HID_MAX_POINTS], nw, reps, rc;
    double bytes, clk;
    const char *how;
    const struct gc_device_info *info = &s->dev->info;

    (void)self;
    if (!ks || !cv) {
        free(ks);
        free(cv);
        return GC_ENOMEM;
    }
    rc = gc__hid_open(&x, s, r, true);
    if (rc)
        goto out;
    /* The latency samples (§6.6) need the clocks and single-access stamps
     * the dialect can write. */
    plan_kernels(info, x.clocks && gc__gen_mix_samples(s->dev->ops->dialect), ks);
    rc = gc__hid_build(&x, ks->k, ks->n);
    if (rc)
        goto out;
    nw = gc__hid_occupancies(&x, w, GC_HID_MAX_POINTS);
    reps = gc__hid_reps(&x);
    bytes = 4.0 * x.simd; /* one 4-byte word per lane */

    rc = sweep_curves(&x, ks, w, nw, reps, cv);
    if (rc)
        goto out;
    clk = gc__hid_clock_mhz(&x, &how);
    rc = type_curves(&x, ks, cv, bytes, tp);
    if (rc)
        goto out;
    if (!(tp[T_ALU].peak > 0 && isfinite(tp[T_ALU].latency) && tp[T_MEM].peak > 0 &&
          isfinite(tp[T_MEM].latency))) {
        gc__bench_set_error(r, GC_BENCH_ERROR,
                            "no sample of the add or the streaming sweep attained its occupancy "
                            "(see excluded_samples)");
        rc = GC_EVERIFY;
        goto out;
    }
    for (int t = 0; t < NTYPES; t++)
        emit_type(&x, t, &tp[t], bytes, clk);

    profile_metrics(&x, tp[T_ALU].peak, bytes, clk, how);

    rc = random_lines(&x, ks, tp[T_MEM].latency, reps);
    if (!rc && x.clocks)
        rc = contention(&x, &cv[C_MEM], ks->nmem, tp[T_MEM].peak * bytes, bytes);
    if (!rc && x.clocks && ks->npct > 0)
        rc = percentiles(&x, ks, bytes);
    /* One block per SM at a time needs the per-SM shared-memory limit that
     * only the occupancy API's backend knows (OpenCL's per-group limit
     * leaves several groups on an SM), as the every-SM chase does. */
    if (!rc && x.clocks && (info->caps & GC_CAP_OCCUPANCY_API))
        rc = block_replacement(&x, reps);
    if (rc)
        goto out;
    if (!x.clocks)
        metric(r, "contention_fit_points", 0, "points", NAN, NULL,
               "§6.4 fit not made: the latency samples need per-warp clocks");
    metric(r, "verified_launches", (double)x.verified, "launches", NAN, NULL,
           x.clocks ? "launches whose chains were checked against the host model"
                    : "launches checked against the host model; without an in-kernel clock, "
                      "latencies are launches of one warp per CU (overhead included) and there "
                      "is no contention fit, no percentiles, no block replacement");
    gc__hid_context(&x, clk, how, reps, r);
out:
    if (rc == 0 && gc__stopped(s))
        rc = GC_EINTR;
    gc__hid_close(&x);
    free(ks);
    free(cv);
    return rc;
}

/* The run's compile plan: the kernels run_params builds. */
static int plan_params(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out,
                       int *n)
{
    struct kset *ks = malloc(sizeof(*ks));
    unsigned need = GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER | GC_CAP_SMID;
    int rc;

    (void)self;
    *out = NULL;
    *n = 0;
    if (!ks)
        return GC_ENOMEM;
    plan_kernels(&s->dev->info,
                 (s->dev->info.caps & need) == need && gc__gen_mix_samples(s->dev->ops->dialect),
                 ks);
    rc = gc__hid_plan_sources(s, ks->k, ks->n, true, out, n);
    free(ks);
    return rc;
}

static int sources_params(const struct gc_bench *self, const struct gc_device_info *info,
                          struct gc_ksrc **out, int *n)
{
    struct kset *ks = malloc(sizeof(*ks));
    struct gc_ksrc *k = NULL;
    int rc = 0;

    (void)self;
    *out = NULL;
    *n = 0;
    if (!ks)
        return GC_ENOMEM;
    plan_kernels(info, true, ks);
    k = calloc((size_t)ks->n, sizeof(*k));
    if (!k) {
        free(ks);
        return GC_ENOMEM;
    }
    for (int i = 0; i < ks->n && !rc; i++)
        rc = gc__hid_ksrc(&ks->k[i].cfg, ks->k[i].label, &k[i]);
    if (rc) {
        gc__ksrc_free(k, ks->n);
        free(ks);
        return rc;
    }
    *out = k;
    *n = ks->n;
    free(ks);
    return 0;
}

static const struct gc_sum_cell params_cells[] = {
    GC_SUM_V(gc__sum_hiding, "fp32 add", 0, "alu_latency_cycles", "cycles"),
    GC_SUM_V(gc__sum_hiding, "fp32 add", 1, "alu_thru_per_clk_sm", "inst/clk/SM"),
    GC_SUM_V(gc__sum_hiding, "rsqrt (SFU)", 0, "sfu_latency_cycles", "cycles"),
    GC_SUM_V(gc__sum_hiding, "rsqrt (SFU)", 1, "sfu_thru_per_clk_sm", "inst/clk/SM"),
    GC_SUM_V(gc__sum_hiding, "shared load", 0, "shared_latency_cycles", "cycles"),
    GC_SUM_V(gc__sum_hiding, "shared load", 1, "shared_thru_per_clk_sm", "inst/clk/SM"),
    GC_SUM_V(gc__sum_hiding, "global load (streaming)", 0, "mem_latency_cycles", "cycles"),
    GC_SUM_V(gc__sum_hiding, "global load (streaming)", 2, "mem_thru_bytes_per_clk_sm", "B/clk/SM"),
    {0},
};
/* Shared with the hiding.mix benchmarks (their series follow the same
 * names; the alpha sweeps are theirs only). */
const struct gc_fig_rule gc__hiding_figures[] = {
    {"peak_*", "peak throughput vs independent chains", 0, NULL, true, false, false},
    {"a[0-9]*_ilp*", "throughput vs occupancy, alpha = %s: measured and model", 1, "_", false,
     false, false},
    {"needed_*", "warps needed for 90% of the bound vs alpha (the cusp)", 0, NULL, false, false,
     false},
    {"error_*", "model error: model / measured vs alpha", 0, NULL, false, false, false},
    {"mem_latency_vs_throughput|contention_fit",
     "memory latency vs throughput with the fitted contention model", 0, NULL, true, false, false},
    {"latency_*_vs_throughput", "per-access latency percentiles under load", 0, NULL, false, false,
     false},
    {0},
};
static const struct gc_bench_report params_report = {params_cells, gc__hiding_figures};

const struct gc_bench gc__bench_hiding_params = {
    .info =
        {
            .name = GC_HIDING_BENCH,
            .group = "hiding",
            .summary = "latency-hiding model parameters: latency, peak and needed occupancy of "
                       "fp32 add, SFU, shared (and 2-way conflict), streaming and random global "
                       "loads; memory contention fit; latency percentiles; block replacement",
            .method = "Volkov's synthetic kernels (2016, ch. 5-6): each thread runs ILP chains of "
                      "back-to-back dependent instructions of one type (an fp32 add of zero, rsqrt "
                      "of 1.0, a shared load of its own address, a global load of the next index) "
                      "in a loop of some 500-1000 instructions with literal trip counts; chain "
                      "values are floats whose bits are indices biased into the normal range, so "
                      "adds keep them exact and the host knows where every chain ends (the output "
                      "is poisoned and every launch checked). Streaming chase (S5.10): entry i "
                      "holds i + ILP x block, thread t of block j starts at j x spacing + t; "
                      "random chase (S6.7): lines in a pseudo-random cycle, 1-32 lines per warp "
                      "access; no entry is read twice in a launch and successive launches rotate "
                      "through an array 16x the L2. Occupancy is set warp by warp with dynamic "
                      "shared memory, one launch wave; per-warp clock64/smid records give each "
                      "SM's span (throughput = work / slowest SM's span), the mean warp latency "
                      "and the attained occupancy, which must equal the request (else the sample "
                      "is excluded, S5.7). Latency = least mean warp latency per instruction "
                      "(Table 6.2); peak = best sample, streaming over ILP 1, 2, 4, 8 (Table 6.1); "
                      "needed occupancy = least of the ILP 1 sweep reaching 90%/95% of the peak; "
                      "linear = latency x peak (Table 6.4). Contention: latency = a + b x/(c - x) "
                      "fitted to the outer envelope of all streaming samples (S6.4). Percentiles: "
                      "one warp times one load in eight into shared memory (S6.6). Block "
                      "replacement: empty kernel, one block per SM, gap between consecutive blocks "
                      "(S3.7). OpenCL: event-timed, no occupancy check, no clock-based figures.",
        },
    .run = run_params,
    .sources = sources_params,
    .plan = plan_params,
    .report = &params_report,
};
