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

#include "bench/hiding_run.h"
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

static int run_mix(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    const struct mixdef *m = self->param;
    const struct gc_device_info *info = &s->dev->info;
    struct gc_hid_ctx x;
    struct gc_hid_kern *ks = calloc(1 + NALPHA * 2, sizeof(*ks));
    struct gc_hid_curve *cv = calloc(NALPHA * 2, sizeof(*cv)), *alu = calloc(1, sizeof(*alu));
    struct gc_hid_type ta, tt;
    struct gc_hiding_hw hw;
    struct gc_hiding_fit fit;
    struct errs e = {0};
    int al[NALPHA], nal, nk, w[GC_HID_MAX_POINTS], nw, reps, rc, nilp = m->nilp;
    double bytes, clk, fx[NALPHA * 2 * GC_HID_MAX_POINTS], fl[NALPHA * 2 * GC_HID_MAX_POINTS];
    int nf = 0;
    bool mem = m->op == GC_MIX_GLOBAL, fitted = false;
    const char *tn = gc__hiding_name(m->type);

    if (!ks || !cv || !alu) {
        rc = GC_ENOMEM;
        goto out;
    }
    rc = gc__hid_open(&x, s, r, mem);
    if (rc)
        goto out;
    nk = plan_kernels(m, info, s->profile, ks, al, &nal);
    rc = gc__hid_build(&x, ks, nk);
    if (rc)
        goto out;
    nw = gc__hid_occupancies(&x, w, GC_HID_MAX_POINTS);
    reps = gc__hid_reps(&x);
    bytes = 4.0 * x.simd;

    /* The parameters of the model, measured here (§6.1, §6.3): the adds,
     * and the other type from the alpha = 0 sweeps. */
    rc = gc__hid_sweep(&x, &ks[0], w, nw, reps, alu);
    for (int a = 0; !rc && a < nal; a++)
        for (int i = 0; !rc && i < nilp; i++)
            rc = gc__hid_sweep(&x, &ks[1 + a * nilp + i], w, nw, reps, &cv[a * nilp + i]);
    if (rc)
        goto out;
    clk = gc__hid_clock_mhz(&x);
    gc__hid_type_params(alu, 1, &ta);
    gc__hid_type_params(&cv[0], nilp, &tt);
    if (!(ta.peak > 0 && isfinite(ta.latency) && tt.peak > 0 && isfinite(tt.latency))) {
        gc__bench_set_error(r, GC_BENCH_ERROR,
                            "no sample of the add or the alpha = 0 sweep attained its occupancy "
                            "(see excluded_samples)");
        rc = GC_EVERIFY;
        goto out;
    }
    if ((rc = gc__hid_add_curve(&x, alu, "alu_ilp1", 1, "throughput", "inst/clk/SM")) != 0)
        goto out;
    memset(&hw, 0, sizeof(hw));
    hw.unit[GC_HIDING_ALU] = (struct gc_hiding_unit){true, ta.latency, ta.peak, 1};
    hw.unit[m->type] = (struct gc_hiding_unit){true, tt.latency, tt.peak, mem && x.sm ? 2 : 1};
    hw.issue_thru = x.d->arch.issue_per_scheduler ? x.schedulers : ta.peak;
    hw.mem_bytes_per_inst = bytes;
    hw.max_warps = x.max_warps;
    hw.clock_hz = clk * 1e6;
    hw.sm_count = x.cus;

    /* §6.4: memory latency against throughput from the small-alpha mixes,
     * the adds' latency taken out. */
    if (mem && x.clocks) {
        for (int a = 0; a < nal && al[a] <= FIT_ALPHA_MAX; a++)
            for (int i = 0; i < nilp; i++) {
                const struct gc_hid_curve *c = &cv[a * nilp + i];
                double per = gc__mix_groups(&c->hk->cfg);

                for (int k = 0; k < c->n; k++) {
                    if (!c->pt[k].kept || !isfinite(c->pt[k].warp_cycles))
                        continue;
                    fx[nf] = c->pt[k].thru * bytes;
                    fl[nf++] = c->pt[k].warp_cycles / per - al[a] * ta.latency;
                }
            }
        rc = gc__hiding_fit_contention(fx, fl, nf, tt.peak * bytes, &fit);
        if (rc == 0) {
            hw.cont = (struct gc_hiding_contention){true, fit.a, fit.b, fit.c / bytes};
            fitted = true;
        } else if (rc != GC_ERANGE && rc != GC_EINVAL) {
            goto out;
        }
        rc = 0;
    }
    if (mem && gc__hiding_hw_check(&hw, x.d->err, sizeof(x.d->err)) != 0) {
        rc = GC_EINVAL;
        goto out;
    }

    /* The parameters used. */
    metric(r, "alu_latency_cycles", ta.latency, "cycles",
           "fp32 add latency (least mean warp latency per add over the sweep)");
    metric(r, "alu_thru_per_clk_sm", ta.peak, "inst/clk/SM", "fp32 add peak over the sweep");
    {
        char name[64];

        snprintf(name, sizeof(name), "%s_latency_cycles", tn);
        metric(r, name, tt.latency, "cycles",
               "latency of a group with alpha = 0 (least over the ILP 1 sweep)%s",
               mem && x.sm ? "; IMAD.WIDE + LDG" : "");
        if (mem) {
            metric(r, "mem_thru_bytes_per_clk_sm", tt.peak * bytes, "B/clk/SM",
                   "best alpha = 0 sample over ILP 1..%d (ILP %d, %d warps/SM)", nilp, tt.peak_ilp,
                   tt.peak_warps);
        } else {
            snprintf(name, sizeof(name), "%s_thru_per_clk_sm", tn);
            metric(r, name, tt.peak, "inst/clk/SM", "best alpha = 0 sample (%d warps/SM)",
                   tt.peak_warps);
        }
    }
    metric(r, "issue_thru_per_clk_sm", hw.issue_thru, "inst/clk/SM",
           x.d->arch.issue_per_scheduler ? "warp schedulers x 1 per clock"
                                         : "the measured add peak (no documented issue rate)");
    if (mem && x.sm)
        metric(r, "mem_issue_cycles", 2, "cycles", "IMAD.WIDE + LDG per memory group");
    if (fitted) {
        metric(r, "contention_a_cycles", fit.a, "cycles",
               "§6.4 fit over the alpha <= %d samples (adds' latency subtracted)", FIT_ALPHA_MAX);
        metric(r, "contention_b_cycles", fit.b, "cycles", "§6.4 fit");
        metric(r, "contention_c_bytes_per_clk_sm", fit.c, "B/clk/SM",
               "§6.4 fit; %.3f x the measured peak", fit.c / (tt.peak * bytes));
    } else if (mem) {
        metric(r, "contention_fit_points", fit.nenvelope, "points",
               "no fit (%s): the refined model equals the basic one",
               x.clocks ? "not enough points" : "needs per-warp clocks");
    }

    /* Measured against the model, per alpha and ILP. */
    {
        int si_nb =
            series(r, "needed_basic", "alpha", "adds per op", "warps for 90% of bound", "warps/SM");
        int si_nr = series(r, "needed_refined", "alpha", "adds per op", "warps for 90% of bound",
                           "warps/SM");
        int si_nm = series(r, "needed_measured", "alpha", "adds per op", "warps for 90% of bound",
                           "warps/SM");
        int si_eb = series(r, "error_basic_max", "alpha", "adds per op", "model / measured", "x");
        int si_ebn = series(r, "error_basic_min", "alpha", "adds per op", "model / measured", "x");
        int si_er = series(r, "error_refined_max", "alpha", "adds per op", "model / measured", "x");
        int si_ern =
            series(r, "error_refined_min", "alpha", "adds per op", "model / measured", "x");
        double nmax = -1, nmax_alpha = NAN, bmax = -1;

        if (si_nb < 0 || si_nr < 0 || si_nm < 0 || si_eb < 0 || si_ebn < 0 || si_er < 0 ||
            si_ern < 0) {
            rc = GC_ENOMEM;
            goto out;
        }
        e.cap = nal * nilp * GC_HID_MAX_POINTS;
        e.basic = malloc((size_t)e.cap * sizeof(double));
        e.refined = malloc((size_t)e.cap * sizeof(double));
        if (!e.basic || !e.refined) {
            rc = GC_ENOMEM;
            goto out;
        }
        for (int a = 0; a < nal; a++) {
            for (int i = 0; i < nilp; i++) {
                const struct gc_hid_curve *c = &cv[a * nilp + i];
                struct gc_hiding_mix mix = {{0}, i + 1};
                /* Throughput in the unit of the plots: memory GB/s, else
                 * adds per clock per SM (the op's own rate at alpha 0). */
                double unit = mem ? bytes * x.cus * clk / 1e3 : al[a] > 0 ? al[a] * x.simd : 1;
                const char *un = mem ? "GB/s" : al[a] > 0 ? "adds/clk/SM" : "inst/clk/SM";
                char nm[64];
                double lo = INFINITY, hi = 0, lor = INFINITY, hir = 0;
                int si_m, si_b, si_r, si_a = -1;

                mix.count[GC_HIDING_ALU] = al[a];
                mix.count[m->type] = 1;
                snprintf(nm, sizeof(nm), "a%d_ilp%d", al[a], i + 1);
                if ((rc = gc__hid_add_curve(&x, c, nm, unit, "measured", un)) != 0)
                    goto out;
                si_m = r->nseries - 1;
                snprintf(nm, sizeof(nm), "a%d_ilp%d_basic", al[a], i + 1);
                si_b = series(r, nm, "warps per CU", "warps", "basic model", un);
                snprintf(nm, sizeof(nm), "a%d_ilp%d_refined", al[a], i + 1);
                si_r = series(r, nm, "warps per CU", "warps", "refined model", un);
                if (mem && al[a] > 0 && i == 0) {
                    snprintf(nm, sizeof(nm), "a%d_ilp%d_adds", al[a], i + 1);
                    si_a = series(r, nm, "warps per CU", "warps", "measured", "adds/clk/SM");
                }
                if (si_b < 0 || si_r < 0 || (mem && al[a] > 0 && i == 0 && si_a < 0)) {
                    rc = GC_ENOMEM;
                    goto out;
                }
                (void)si_m;
                for (int k = 0; k < c->n; k++) {
                    const struct gc_hid_sample *p = &c->pt[k];
                    struct gc_hiding_point pb, pr;

                    if (gc__hiding_basic(&hw, &mix, p->warps, &pb) ||
                        gc__hiding_refined(&hw, &mix, p->warps, &pr))
                        continue;
                    if ((rc = point(r, si_b, p->warps, pb.thru * unit, NULL)) ||
                        (rc = point(r, si_r, p->warps, pr.thru * unit, NULL)))
                        goto out;
                    if (!p->kept || !(p->thru > 0))
                        continue;
                    if (si_a >= 0 &&
                        (rc = point(r, si_a, p->warps, p->thru * al[a] * x.simd, NULL)))
                        goto out;
                    /* §7.9: alpha 1..512, integer warps per scheduler
                     * only, where occupancy does not oscillate (§5.8). */
                    if (i != 0 || al[a] == 0 || p->warps % x.schedulers != 0)
                        continue;
                    lo = fmin(lo, pb.thru / p->thru);
                    hi = fmax(hi, pb.thru / p->thru);
                    lor = fmin(lor, pr.thru / p->thru);
                    hir = fmax(hir, pr.thru / p->thru);
                    e.basic[e.n] = pb.thru / p->thru;
                    e.refined[e.n++] = pr.thru / p->thru;
                }
                if (i != 0)
                    continue;
                if (hi > 0 && ((rc = point(r, si_eb, al[a], hi, NULL)) ||
                               (rc = point(r, si_ebn, al[a], lo, NULL)) ||
                               (rc = point(r, si_er, al[a], hir, NULL)) ||
                               (rc = point(r, si_ern, al[a], lor, NULL))))
                    goto out;
                /* §4.5: the least occupancy reaching 90% of the bound, in
                 * the model and in the measurement (ILP 1). */
                {
                    double xs[GC_HID_MAX_POINTS], ys[GC_HID_MAX_POINTS], bound, nb, nr, nm2;
                    int n = 0;

                    bound = gc__hiding_bound(&hw, &mix, NULL);
                    for (int k = 0; k < c->n; k++)
                        if (c->pt[k].kept) {
                            xs[n] = c->pt[k].warps;
                            ys[n++] = c->pt[k].thru;
                        }
                    nm2 = gc__occupancy_for(xs, ys, n, bound, 0.9);
                    nb = gc__hiding_needed(&hw, &mix, 0.9, false);
                    nr = gc__hiding_needed(&hw, &mix, 0.9, true);
                    if ((rc = point(r, si_nb, al[a], nb, NULL)) ||
                        (rc = point(r, si_nr, al[a], nr, NULL)) ||
                        (rc = point(r, si_nm, al[a], nm2, NULL)))
                        goto out;
                    if (isfinite(nm2) && nm2 > nmax) {
                        nmax = nm2;
                        nmax_alpha = al[a];
                    }
                    if (isfinite(nb) && nb > bmax)
                        bmax = nb;
                }
            }
        }
        {
            struct gc_hiding_mix others = {{0}, 1};
            double ca, cw;

            others.count[m->type] = 1;
            int crc = gc__hiding_cusp(&hw, &others, &ca, &cw);
            if (crc != 0) {
                /* Said so, never left out: where the measured parameters put
                 * the adds' bound above the unit's at every alpha (on CPU
                 * devices the two can come close, and noise decides). */
                metric(r, "cusp_alpha", NAN, "adds per op", "§4.5: no cusp: %s",
                       crc == GC_ERANGE ? "with the measured parameters the bound never passes "
                                          "from the unit to the adds or issue"
                                        : "the model lacks the adds' or the unit's parameters");
                metric(r, "cusp_warps", NAN, "warps/SM", "§4.5: no cusp (see cusp_alpha)");
            } else {
                metric(r, "cusp_alpha", ca, "adds per op",
                       "§4.5: alpha where the bound passes from the %s unit to the adds or "
                       "issue (basic model)",
                       tn);
                metric(r, "cusp_warps", cw, "warps/SM",
                       "§4.5: occupancy the basic model needs for the whole bound there "
                       "(alu_lat x alu_thru + %s_lat x %s_thru)",
                       tn, tn);
            }
            metric(r, "needed_max_basic", bmax >= 0 ? bmax : NAN, "warps/SM",
                   "the most warps the basic model needs for 90%% of the bound over the alphas");
            metric(r, "needed_max_measured", nmax >= 0 ? nmax : NAN, "warps/SM",
                   "the most warps measured to reach 90%% of the bound (at alpha %g); none "
                   "where the SM cannot hold enough",
                   nmax_alpha);
        }
        if (e.n > 0) {
            double bm = 0, rm = 0, bu = INFINITY;

            for (int k = 0; k < e.n; k++) {
                bm = fmax(bm, e.basic[k]);
                rm = fmax(rm, e.refined[k]);
                bu = fmin(bu, e.basic[k]);
            }
            metric(r, "basic_max_overestimate", bm, "x",
                   "Figs. 7.11-7.12: largest model / measured over %d samples (alpha >= 1, "
                   "ILP 1, whole warps per scheduler)",
                   e.n);
            metric(r, "basic_median_overestimate", median_of(e.basic, e.n), "x",
                   "median of model / measured over the same samples");
            metric(r, "basic_max_underestimate", 1 / bu, "x",
                   "largest measured / model over the same samples");
            metric(r, "refined_max_overestimate", rm, "x",
                   "the same for the contention-refined model (§6.5)%s",
                   hw.cont.present ? "" : "; no fit: equals the basic model");
            metric(r, "refined_median_overestimate", median_of(e.refined, e.n), "x",
                   "median of refined model / measured");
        }
    }
    metric(r, "verified_launches", (double)x.verified, "launches",
           "launches whose chains were checked against the host model");
    gc__hid_context(&x, clk, reps, r);
out:
    if (rc == 0 && gc__stopped(s))
        rc = GC_EINTR;
    gc__hid_close(&x);
    free(e.basic);
    free(e.refined);
    free(ks);
    free(cv);
    free(alu);
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
        .run = run_mix, .param = &defs[i], .sources = sources_mix, .report = &mix_report,          \
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
