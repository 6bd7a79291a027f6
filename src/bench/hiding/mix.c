/* hiding.mix.{mem,shared,sfu}: Volkov's instruction mixes (§4.1, §4.7,
 * §5.1-5.2): alpha dependent fp32 adds per global load, shared load or
 * reciprocal square root, alpha on the sqrt(2) grid 0..512, occupancy swept
 * warp by warp, ILP 1 and 2 for the memory mix (§6.3, Fig. 6.2). Measured
 * throughput against the basic and the contention-refined model (§4.1,
 * §6.5) fed with parameters this run measures itself, the occupancy needed
 * for 90% of the bound against alpha (the cusp, §4.5), and the model's
 * error (Figs. 7.11-7.12). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/hiding/hiding.h"
#include "model/hiding.h"
#include "model/pipeline.h"

/* §7.9: alpha at about every integer power of sqrt(2), and 0. */
static const int alpha_grid[] = {0,  1,  2,  3,  4,   6,   8,   11,  16, 23,
                                 32, 45, 64, 91, 128, 181, 256, 362, 512};
#define NALPHA ((int)(sizeof(alpha_grid) / sizeof(alpha_grid[0])))
/* Alphas whose memory latency (mean group latency minus the adds') joins
 * the contention fit: their adds' share of the latency stays small. */
#define FIT_ALPHA_MAX 8

struct mixdef {
    const char *name;
    enum gc_mix_op op;
    int type; /* enum gc_hiding_type */
    int nilp;
    const char *summary;
};

#define MEM_SUMMARY                                                                                \
    "alpha fp32 adds per streaming global load (ILP 1, 2) against occupancy and the "              \
    "latency-hiding model: error, cusp"
#define SHARED_SUMMARY                                                                             \
    "alpha fp32 adds per shared-memory load against occupancy and the latency-hiding model: "      \
    "error, cusp"
#define SFU_SUMMARY                                                                                \
    "alpha fp32 adds per reciprocal square root against occupancy and the latency-hiding "         \
    "model: error, cusp"

static const struct mixdef defs[] = {
    {"hiding.mix.mem", GC_MIX_GLOBAL, GC_HIDING_MEM, 2, MEM_SUMMARY},
    {"hiding.mix.shared", GC_MIX_SHARED, GC_HIDING_SHARED, 1, SHARED_SUMMARY},
    {"hiding.mix.sfu", GC_MIX_SFU, GC_HIDING_SFU, 1, SFU_SUMMARY},
};
#define NDEFS ((int)(sizeof(defs) / sizeof(defs[0])))

/* Alphas a profile runs: all of them; every other one for quick runs; four
 * on a CPU device. */
static int alphas(const struct gc_device_info *info, enum gc_profile p, int *out)
{
    static const int cpu[] = {0, 2, 8, 32};
    int n = 0;

    if (info->type != GC_DEVICE_GPU) {
        memcpy(out, cpu, sizeof(cpu));
        return 4;
    }
    for (int i = 0; i < NALPHA; i += p == GC_PROFILE_QUICK ? 2 : 1)
        out[n++] = alpha_grid[i];
    return n;
}

/* Kernel 0 is the add chain that gives the ALU parameters; then alpha-major,
 * ILP-minor. */
static int plan_kernels(const struct mixdef *m, const struct gc_device_info *info,
                        enum gc_profile p, struct gc_hid_kern *k, int *al, int *nal)
{
    int n = 0;

    *nal = alphas(info, p, al);
    gc__hid_plan(info, GC_MIX_ADD, 1, 1, 32, false, 0, &k[n].cfg);
    snprintf(k[n++].label, sizeof(k[0].label), "mix_%s_alu", gc__mix_op_name(m->op));
    for (int a = 0; a < *nal; a++)
        for (int i = 1; i <= m->nilp; i++) {
            gc__hid_plan(info, m->op, al[a], i, 32, false, 0, &k[n].cfg);
            snprintf(k[n++].label, sizeof(k[0].label), "mix_%s_a%d_ilp%d", gc__mix_op_name(m->op),
                     al[a], i);
        }
    return n;
}

static void metric(struct gc_bench_result *r, const char *name, double v, const char *unit,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void metric(struct gc_bench_result *r, const char *name, double v, const char *unit,
                   const char *fmt, ...)
{
    char note[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(note, sizeof(note), fmt, ap);
    va_end(ap);
    gc__bench_add_metric(r, name, v, unit, NAN, NULL, note);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    if (n < 1)
        return NAN;
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One series point; series are found by index since adding one may move
 * the array. */
static int point(struct gc_bench_result *r, int si, double x, double y, const char *label)
{
    if (si < 0 || !isfinite(y))
        return 0;
    return gc__series_add(&r->series[si], x, y, NULL, label);
}

static int series(struct gc_bench_result *r, const char *name, const char *x_name,
                  const char *x_unit, const char *y_name, const char *y_unit)
{
    return gc__bench_add_series(r, name, x_name, x_unit, y_name, y_unit) ? r->nseries - 1 : -1;
}

struct errs {
    double *basic, *refined;
    int n, cap;
};

/* One run of a mix: its kernels and curves, the parameters measured for the
 * model, and the model-against-measurement errors. */
struct mix_run {
    const struct mixdef *m;
    struct gc_bench_result *r;
    struct gc_hid_ctx x;
    struct gc_hid_kern *ks;
    struct gc_hid_curve *cv, *alu;
    int al[NALPHA], nal, nilp, reps;
    double bytes, clk;
    const char *clk_how; /* the clock's source (gc__hid_clock_mhz) */
    bool mem, fitted;
    struct gc_hid_type ta, tt;
    struct gc_hiding_hw hw;
    struct gc_hiding_fit fit;
    struct errs e;
    const char *tn;
};

/* The sweeps: the add chain, then every alpha and ILP (§6.1, §6.3). */
static int mix_sweeps(struct mix_run *M)
{
    int w[GC_HID_MAX_POINTS], nw, nk, rc;

    nk = plan_kernels(M->m, &M->x.s->dev->info, M->x.s->profile, M->ks, M->al, &M->nal);
    if ((rc = gc__hid_build(&M->x, M->ks, nk)))
        return rc;
    nw = gc__hid_occupancies(&M->x, w, GC_HID_MAX_POINTS);
    M->reps = gc__hid_reps(&M->x);
    rc = gc__hid_sweep(&M->x, &M->ks[0], w, nw, M->reps, M->alu);
    for (int a = 0; !rc && a < M->nal; a++)
        for (int i = 0; !rc && i < M->nilp; i++)
            rc = gc__hid_sweep(&M->x, &M->ks[1 + a * M->nilp + i], w, nw, M->reps,
                               &M->cv[a * M->nilp + i]);
    return rc;
}

/* The model's parameters from the add and the alpha = 0 sweeps. */
static int mix_params(struct mix_run *M)
{
    struct gc_hid_ctx *x = &M->x;
    int rc;

    M->clk = gc__hid_clock_mhz(x, &M->clk_how);
    gc__hid_type_params(M->alu, 1, &M->ta);
    gc__hid_type_params(&M->cv[0], M->nilp, &M->tt);
    if (!(M->ta.peak > 0 && isfinite(M->ta.latency) && M->tt.peak > 0 && isfinite(M->tt.latency))) {
        gc__bench_set_error(M->r, GC_BENCH_ERROR,
                            "no sample of the add or the alpha = 0 sweep attained its occupancy "
                            "(see excluded_samples)");
        return GC_EVERIFY;
    }
    if ((rc = gc__hid_add_curve(x, M->alu, "alu_ilp1", 1, "throughput", "inst/clk/SM")) != 0)
        return rc;
    memset(&M->hw, 0, sizeof(M->hw));
    M->hw.unit[GC_HIDING_ALU] = (struct gc_hiding_unit){true, M->ta.latency, M->ta.peak, 1};
    M->hw.unit[M->m->type] =
        (struct gc_hiding_unit){true, M->tt.latency, M->tt.peak, M->mem && x->sm ? 2 : 1};
    M->hw.issue_thru = x->d->arch.issue_per_scheduler ? x->schedulers : M->ta.peak;
    M->hw.mem_bytes_per_inst = M->bytes;
    M->hw.max_warps = x->max_warps;
    M->hw.clock_hz = M->clk * 1e6;
    M->hw.sm_count = x->cus;
    return 0;
}

/* §6.4: memory latency against throughput from the small-alpha mixes, the
 * adds' latency taken out. */
static int mix_contention(struct mix_run *M)
{
    double fx[NALPHA * 2 * GC_HID_MAX_POINTS], fl[NALPHA * 2 * GC_HID_MAX_POINTS];
    int nf = 0, rc;

    for (int a = 0; a < M->nal && M->al[a] <= FIT_ALPHA_MAX; a++)
        for (int i = 0; i < M->nilp; i++) {
            const struct gc_hid_curve *c = &M->cv[a * M->nilp + i];
            double per = gc__mix_groups(&c->hk->cfg);

            for (int k = 0; k < c->n; k++) {
                if (!c->pt[k].kept || !isfinite(c->pt[k].warp_cycles))
                    continue;
                fx[nf] = c->pt[k].thru * M->bytes;
                fl[nf++] = c->pt[k].warp_cycles / per - M->al[a] * M->ta.latency;
            }
        }
    rc = gc__hiding_fit_contention(fx, fl, nf, M->tt.peak * M->bytes, &M->fit);
    if (rc == 0) {
        M->hw.cont = (struct gc_hiding_contention){true, M->fit.a, M->fit.b, M->fit.c / M->bytes};
        M->fitted = true;
    }
    return rc == GC_ERANGE || rc == GC_EINVAL ? 0 : rc;
}

/* The parameters used. */
static void mix_param_metrics(struct mix_run *M)
{
    struct gc_bench_result *r = M->r;
    const struct gc_hid_ctx *x = &M->x;
    char name[64];

    metric(r, "alu_latency_cycles", M->ta.latency, "cycles",
           "fp32 add latency (least mean warp latency per add over the sweep)");
    metric(r, "alu_thru_per_clk_sm", M->ta.peak, "inst/clk/SM", "fp32 add peak over the sweep");
    snprintf(name, sizeof(name), "%s_latency_cycles", M->tn);
    metric(r, name, M->tt.latency, "cycles",
           "latency of a group with alpha = 0 (least over the ILP 1 sweep)%s",
           M->mem && x->sm ? "; IMAD.WIDE + LDG" : "");
    if (M->mem) {
        metric(r, "mem_thru_bytes_per_clk_sm", M->tt.peak * M->bytes, "B/clk/SM",
               "best alpha = 0 sample over ILP 1..%d (ILP %d, %d warps/SM)", M->nilp,
               M->tt.peak_ilp, M->tt.peak_warps);
    } else {
        snprintf(name, sizeof(name), "%s_thru_per_clk_sm", M->tn);
        metric(r, name, M->tt.peak, "inst/clk/SM", "best alpha = 0 sample (%d warps/SM)",
               M->tt.peak_warps);
    }
    metric(r, "issue_thru_per_clk_sm", M->hw.issue_thru, "inst/clk/SM",
           x->d->arch.issue_per_scheduler ? "warp schedulers x 1 per clock"
                                          : "the measured add peak (no documented issue rate)");
    if (M->mem && x->sm)
        metric(r, "mem_issue_cycles", 2, "cycles", "IMAD.WIDE + LDG per memory group");
    if (M->fitted) {
        metric(r, "contention_a_cycles", M->fit.a, "cycles",
               "§6.4 fit over the alpha <= %d samples (adds' latency subtracted)", FIT_ALPHA_MAX);
        metric(r, "contention_b_cycles", M->fit.b, "cycles", "§6.4 fit");
        metric(r, "contention_c_bytes_per_clk_sm", M->fit.c, "B/clk/SM",
               "§6.4 fit; %.3f x the measured peak", M->fit.c / (M->tt.peak * M->bytes));
    } else if (M->mem) {
        metric(r, "contention_fit_points", M->fit.nenvelope, "points",
               "no fit (%s): the refined model equals the basic one",
               x->clocks ? "not enough points" : "needs per-warp clocks");
    }
}

/* The summary series (indices into r->series) of the comparison. */
struct mix_sums {
    int nb, nr, nm, eb, ebn, er, ern;
    double nmax, nmax_alpha, bmax;
};

/* §4.5: the least occupancy reaching 90% of the bound, in the model and in
 * the measurement, for alpha index a at ILP 1. */
static int mix_needed(struct mix_run *M, struct mix_sums *S, int a, const struct gc_hid_curve *c,
                      const struct gc_hiding_mix *mix)
{
    struct gc_bench_result *r = M->r;
    double xs[GC_HID_MAX_POINTS], ys[GC_HID_MAX_POINTS], bound, nb, nr, nm;
    int n = 0, rc;

    bound = gc__hiding_bound(&M->hw, mix, NULL);
    for (int k = 0; k < c->n; k++)
        if (c->pt[k].kept) {
            xs[n] = c->pt[k].warps;
            ys[n++] = c->pt[k].thru;
        }
    nm = gc__occupancy_for(xs, ys, n, bound, 0.9);
    nb = gc__hiding_needed(&M->hw, mix, 0.9, false);
    nr = gc__hiding_needed(&M->hw, mix, 0.9, true);
    if ((rc = point(r, S->nb, M->al[a], nb, NULL)) || (rc = point(r, S->nr, M->al[a], nr, NULL)) ||
        (rc = point(r, S->nm, M->al[a], nm, NULL)))
        return rc;
    if (isfinite(nm) && nm > S->nmax) {
        S->nmax = nm;
        S->nmax_alpha = M->al[a];
    }
    if (isfinite(nb) && nb > S->bmax)
        S->bmax = nb;
    return 0;
}

/* One curve (alpha index a, ILP i + 1) against the basic and the refined
 * model: its series, and at ILP 1 its errors and needed occupancy. */
static int mix_curve(struct mix_run *M, struct mix_sums *S, int a, int i)
{
    struct gc_bench_result *r = M->r;
    const struct gc_hid_curve *c = &M->cv[a * M->nilp + i];
    struct gc_hiding_mix mix = {{0}, i + 1, 1};
    int al = M->al[a], simd = M->x.simd;
    /* Throughput in the unit of the plots: memory GB/s, else adds per clock
     * per SM (the op's own rate at alpha 0). */
    double unit = M->mem ? M->bytes * M->x.cus * M->clk / 1e3 : al > 0 ? al * simd : 1;
    const char *un = M->mem ? "GB/s" : al > 0 ? "adds/clk/SM" : "inst/clk/SM";
    char nm[64];
    double lo = INFINITY, hi = 0, lor = INFINITY, hir = 0;
    int si_b, si_r, si_a = -1, rc;
    bool adds = M->mem && al > 0 && i == 0;

    mix.count[GC_HIDING_ALU] = al;
    mix.count[M->m->type] = 1;
    snprintf(nm, sizeof(nm), "a%d_ilp%d", al, i + 1);
    if ((rc = gc__hid_add_curve(&M->x, c, nm, unit, "measured", un)) != 0)
        return rc;
    snprintf(nm, sizeof(nm), "a%d_ilp%d_basic", al, i + 1);
    si_b = series(r, nm, "warps per CU", "warps", "basic model", un);
    snprintf(nm, sizeof(nm), "a%d_ilp%d_refined", al, i + 1);
    si_r = series(r, nm, "warps per CU", "warps", "refined model", un);
    if (adds) {
        snprintf(nm, sizeof(nm), "a%d_ilp%d_adds", al, i + 1);
        si_a = series(r, nm, "warps per CU", "warps", "measured", "adds/clk/SM");
    }
    if (si_b < 0 || si_r < 0 || (adds && si_a < 0))
        return GC_ENOMEM;
    for (int k = 0; k < c->n; k++) {
        const struct gc_hid_sample *p = &c->pt[k];
        struct gc_hiding_point pb, pr;

        if (gc__hiding_basic(&M->hw, &mix, p->warps, &pb) ||
            gc__hiding_refined(&M->hw, &mix, p->warps, &pr))
            continue;
        if ((rc = point(r, si_b, p->warps, pb.thru * unit, NULL)) ||
            (rc = point(r, si_r, p->warps, pr.thru * unit, NULL)))
            return rc;
        if (!p->kept || !(p->thru > 0))
            continue;
        if (si_a >= 0 && (rc = point(r, si_a, p->warps, p->thru * al * simd, NULL)))
            return rc;
        /* §7.9: alpha 1..512, integer warps per scheduler only, where
         * occupancy does not oscillate (§5.8). */
        if (i != 0 || al == 0 || p->warps % M->x.schedulers != 0)
            continue;
        lo = fmin(lo, pb.thru / p->thru);
        hi = fmax(hi, pb.thru / p->thru);
        lor = fmin(lor, pr.thru / p->thru);
        hir = fmax(hir, pr.thru / p->thru);
        M->e.basic[M->e.n] = pb.thru / p->thru;
        M->e.refined[M->e.n++] = pr.thru / p->thru;
    }
    if (i != 0)
        return 0;
    if (hi > 0 && ((rc = point(r, S->eb, al, hi, NULL)) || (rc = point(r, S->ebn, al, lo, NULL)) ||
                   (rc = point(r, S->er, al, hir, NULL)) || (rc = point(r, S->ern, al, lor, NULL))))
        return rc;
    return mix_needed(M, S, a, c, &mix);
}

/* §4.5: where the bound passes from the unit to the adds, and the most
 * warps needed over the alphas. */
static void mix_cusp_metrics(struct mix_run *M, const struct mix_sums *S)
{
    struct gc_bench_result *r = M->r;
    struct gc_hiding_mix others = {{0}, 1, 1};
    double ca, cw;

    others.count[M->m->type] = 1;
    int crc = gc__hiding_cusp(&M->hw, &others, &ca, &cw);
    if (crc != 0) {
        /* Said so, never left out: where the measured parameters put the
         * adds' bound above the unit's at every alpha (on CPU devices the
         * two can come close, and noise decides). */
        metric(r, "cusp_alpha", NAN, "adds per op", "§4.5: no cusp: %s",
               crc == GC_ERANGE ? "with the measured parameters the bound never passes "
                                  "from the unit to the adds or issue"
                                : "the model lacks the adds' or the unit's parameters");
        metric(r, "cusp_warps", NAN, "warps/SM", "§4.5: no cusp (see cusp_alpha)");
    } else {
        metric(r, "cusp_alpha", ca, "adds per op",
               "§4.5: alpha where the bound passes from the %s unit to the adds or "
               "issue (basic model)",
               M->tn);
        metric(r, "cusp_warps", cw, "warps/SM",
               "§4.5: occupancy the basic model needs for the whole bound there "
               "(alu_lat x alu_thru + %s_lat x %s_thru)",
               M->tn, M->tn);
    }
    metric(r, "needed_max_basic", S->bmax >= 0 ? S->bmax : NAN, "warps/SM",
           "the most warps the basic model needs for 90%% of the bound over the alphas");
    metric(r, "needed_max_measured", S->nmax >= 0 ? S->nmax : NAN, "warps/SM",
           "the most warps measured to reach 90%% of the bound (at alpha %g); none "
           "where the SM cannot hold enough",
           S->nmax_alpha);
}

/* Figs. 7.11-7.12: the model's error over the samples. */
static void mix_error_metrics(struct mix_run *M)
{
    struct gc_bench_result *r = M->r;
    const struct errs *e = &M->e;
    double bm = 0, rm = 0, bu = INFINITY;

    if (e->n == 0)
        return;
    for (int k = 0; k < e->n; k++) {
        bm = fmax(bm, e->basic[k]);
        rm = fmax(rm, e->refined[k]);
        bu = fmin(bu, e->basic[k]);
    }
    metric(r, "basic_max_overestimate", bm, "x",
           "Figs. 7.11-7.12: largest model / measured over %d samples (alpha >= 1, "
           "ILP 1, whole warps per scheduler)",
           e->n);
    metric(r, "basic_median_overestimate", median_of(e->basic, e->n), "x",
           "median of model / measured over the same samples");
    metric(r, "basic_max_underestimate", 1 / bu, "x",
           "largest measured / model over the same samples");
    metric(r, "refined_max_overestimate", rm, "x",
           "the same for the contention-refined model (§6.5)%s",
           M->hw.cont.present ? "" : "; no fit: equals the basic model");
    metric(r, "refined_median_overestimate", median_of(e->refined, e->n), "x",
           "median of refined model / measured");
}

/* Measured against the model, per alpha and ILP. */
static int mix_compare(struct mix_run *M)
{
    struct gc_bench_result *r = M->r;
    struct mix_sums S = {.nmax = -1, .nmax_alpha = NAN, .bmax = -1};
    int rc;

    S.nb = series(r, "needed_basic", "alpha", "adds per op", "warps for 90% of bound", "warps/SM");
    S.nr =
        series(r, "needed_refined", "alpha", "adds per op", "warps for 90% of bound", "warps/SM");
    S.nm =
        series(r, "needed_measured", "alpha", "adds per op", "warps for 90% of bound", "warps/SM");
    S.eb = series(r, "error_basic_max", "alpha", "adds per op", "model / measured", "x");
    S.ebn = series(r, "error_basic_min", "alpha", "adds per op", "model / measured", "x");
    S.er = series(r, "error_refined_max", "alpha", "adds per op", "model / measured", "x");
    S.ern = series(r, "error_refined_min", "alpha", "adds per op", "model / measured", "x");
    if (S.nb < 0 || S.nr < 0 || S.nm < 0 || S.eb < 0 || S.ebn < 0 || S.er < 0 || S.ern < 0)
        return GC_ENOMEM;
    M->e.cap = M->nal * M->nilp * GC_HID_MAX_POINTS;
    M->e.basic = malloc((size_t)M->e.cap * sizeof(double));
    M->e.refined = malloc((size_t)M->e.cap * sizeof(double));
    if (!M->e.basic || !M->e.refined)
        return GC_ENOMEM;
    for (int a = 0; a < M->nal; a++)
        for (int i = 0; i < M->nilp; i++)
            if ((rc = mix_curve(M, &S, a, i)))
                return rc;
    mix_cusp_metrics(M, &S);
    mix_error_metrics(M);
    return 0;
}

static int mix_measure(struct mix_run *M)
{
    int rc;

    if ((rc = mix_sweeps(M)) || (rc = mix_params(M)))
        return rc;
    if (M->mem && M->x.clocks && (rc = mix_contention(M)))
        return rc;
    if (M->mem && gc__hiding_hw_check(&M->hw, M->x.d->err, sizeof(M->x.d->err)) != 0)
        return GC_EINVAL;
    mix_param_metrics(M);
    if ((rc = mix_compare(M)))
        return rc;
    metric(M->r, "verified_launches", (double)M->x.verified, "launches",
           "launches whose chains were checked against the host model");
    gc__hid_context(&M->x, M->clk, M->clk_how, M->reps, M->r);
    return 0;
}

static int run_mix(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    const struct mixdef *m = self->param;
    struct mix_run *M = calloc(1, sizeof(*M));
    int rc;

    if (!M)
        return GC_ENOMEM;
    M->m = m;
    M->r = r;
    M->nilp = m->nilp;
    M->mem = m->op == GC_MIX_GLOBAL;
    M->tn = gc__hiding_name(m->type);
    M->ks = calloc(1 + NALPHA * 2, sizeof(*M->ks));
    M->cv = calloc(NALPHA * 2, sizeof(*M->cv));
    M->alu = calloc(1, sizeof(*M->alu));
    if (!M->ks || !M->cv || !M->alu)
        rc = GC_ENOMEM;
    else if ((rc = gc__hid_open(&M->x, s, r, M->mem)) == 0) {
        M->bytes = 4.0 * M->x.simd;
        rc = mix_measure(M);
    }
    gc__hid_close(&M->x); /* also after a failed open (a NULL device: nothing) */
    if (rc == 0 && gc__stopped(s))
        rc = GC_EINTR;
    free(M->e.basic);
    free(M->e.refined);
    free(M->ks);
    free(M->cv);
    free(M->alu);
    free(M);
    return rc;
}

/* The run's compile plan: the kernels run_mix builds (mix_sweeps). */
static int plan_mix(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out, int *n)
{
    const struct mixdef *m = self->param;
    struct gc_hid_kern *ks = calloc(1 + NALPHA * 2, sizeof(*ks));
    int al[NALPHA], nal, nk, rc;

    *out = NULL;
    *n = 0;
    if (!ks)
        return GC_ENOMEM;
    nk = plan_kernels(m, &s->dev->info, s->profile, ks, al, &nal);
    rc = gc__hid_plan_sources(s, ks, nk, m->op == GC_MIX_GLOBAL, out, n);
    free(ks);
    return rc;
}

static int sources_mix(const struct gc_bench *self, const struct gc_device_info *info,
                       struct gc_ksrc **out, int *n)
{
    const struct mixdef *m = self->param;
    struct gc_hid_kern *ks = calloc(1 + NALPHA * 2, sizeof(*ks));
    struct gc_ksrc *k = NULL;
    int al[NALPHA], nal, nk, rc = 0;

    *out = NULL;
    *n = 0;
    if (!ks)
        return GC_ENOMEM;
    nk = plan_kernels(m, info, GC_PROFILE_DEFAULT, ks, al, &nal);
    k = calloc((size_t)nk, sizeof(*k));
    if (!k) {
        free(ks);
        return GC_ENOMEM;
    }
    for (int i = 0; i < nk && !rc; i++)
        rc = gc__hid_ksrc(&ks[i].cfg, ks[i].label, &k[i]);
    free(ks);
    if (rc) {
        gc__ksrc_free(k, nk);
        return rc;
    }
    *out = k;
    *n = nk;
    return 0;
}

#define MIX_METHOD                                                                                 \
    "Volkov's mixes (2016, S4.1, S4.7, S5.1-5.2): every thread runs ILP chains of groups 'one "    \
    "op, then alpha dependent fp32 adds of zero', all back to back dependent, alpha on the "       \
    "sqrt(2) grid 0..512 (every other one with --quick), in loops of some 500-1000 "               \
    "instructions; op = a streaming global load (the S5.10 chase, ILP 1 and 2), a broadcast "      \
    "shared load, or rsqrt(1.0). Chain values are floats whose bits are biased indices, so the "   \
    "adds keep them exact and every launch's chains are checked. Occupancy is swept warp by "      \
    "warp (dynamic shared memory, one wave), each point timed by per-warp clocks (throughput = "   \
    "work / slowest SM's span) with its attained occupancy checked (S5.7). The model's "           \
    "parameters come from this run: the add chain (latency, peak), the alpha = 0 sweeps "          \
    "(latency, peak) and, for memory, the fit latency = a + b x/(c - x) over the alpha <= 8 "      \
    "samples (S6.4); issue = 4 schedulers x 1 per clock. Basic model min(n / Latency, bounds) "    \
    "and refined (S6.5, bisection) at every occupancy; error = model / measured over alpha >= 1, " \
    "whole warps per scheduler, ILP 1 (S7.9); needed occupancy = least reaching 90% of the "       \
    "bound, "                                                                                      \
    "measured and modelled, against alpha (the cusp, S4.5)."

/* hiding.c's rules: the mix's alpha sweeps and the curves it shares. */
extern const struct gc_fig_rule gc__hiding_figures[];
static const struct gc_bench_report mix_report = {.figures = gc__hiding_figures};

/* Names and summaries are repeated as literals: C requires constant
 * initialisers. */
#define MIX_BENCH(i, nm, sum)                                                                      \
    {                                                                                              \
        .info = {.name = nm, .group = "hiding", .summary = sum, .method = MIX_METHOD},             \
        .run = run_mix, .param = &defs[i], .sources = sources_mix, .plan = plan_mix,               \
        .report = &mix_report,                                                                     \
    }

static const struct gc_bench benches[NDEFS] = {
    MIX_BENCH(0, "hiding.mix.mem", MEM_SUMMARY),
    MIX_BENCH(1, "hiding.mix.shared", SHARED_SUMMARY),
    MIX_BENCH(2, "hiding.mix.sfu", SFU_SUMMARY),
};

static int mix_count(void)
{
    return NDEFS;
}

static const struct gc_bench *mix_at(int i)
{
    return i >= 0 && i < NDEFS ? &benches[i] : NULL;
}

const struct gc_bench_family gc__family_hiding_mix = {mix_count, mix_at};
