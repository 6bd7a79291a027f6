/* The latency-hiding model of Volkov (2016): throughput and latency bounds,
 * the memory-contention refinement solved by bisection, needed occupancy and
 * the cusp, the fit of the contention model and latency percentiles from
 * measurements, and the reading of its parameters from a results document.
 * The equations and units are in hiding.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/hiding.h"
#include "core/results.h"

/* Relative width at which the bisection stops: far below any precision the
 * inputs have, and reached in about 50 halvings. */
#define BISECT_TOL 1e-14
#define BISECT_MAX 200

static const char *const names[] = {"alu", "sfu", "shared", "mem", "issue", "latency"};

const char *gc__hiding_name(int what)
{
    if (what < 0 || what > GC_HIDING_LATENCY)
        return "?";
    return names[what];
}

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

void gc__hiding_worksheet(const struct gc_hiding_row *rows, int nrows, struct gc_hiding_sheet *out)
{
    memset(out, 0, sizeof(*out));
    out->tightest = -1;
    for (int i = 0; i < nrows; i++) {
        if (rows[i].resource < 0 || rows[i].resource >= GC_HIDING_NRES)
            continue;
        out->cycles[rows[i].resource] += rows[i].cpi * rows[i].count;
    }
    /* Ties go to the first resource, so that a kernel bound equally by the
     * CUDA cores and by issue reads as arithmetic-bound. */
    for (int r = 0; r < GC_HIDING_NRES; r++) {
        if (out->cycles[r] > out->tightest_cycles) {
            out->tightest_cycles = out->cycles[r];
            out->tightest = r;
        }
    }
}

static bool positive(double v)
{
    return !isnan(v) && v > 0;
}

static bool finite_positive(double v)
{
    return isfinite(v) && v > 0;
}

int gc__hiding_hw_check(const struct gc_hiding_hw *hw, char *err, size_t errlen)
{
    for (int t = 0; t < GC_HIDING_NTYPES; t++) {
        const struct gc_hiding_unit *u = &hw->unit[t];

        if (!u->present)
            continue;
        if (!finite_positive(u->latency))
            return fail(err, errlen, GC_EINVAL, "%s latency %g cycles: must be positive", names[t],
                        u->latency);
        if (!finite_positive(u->thru))
            return fail(err, errlen, GC_EINVAL, "%s throughput %g inst/clk/SM: must be positive",
                        names[t], u->thru);
        if (!(isfinite(u->issue_cycles) && u->issue_cycles >= 1))
            return fail(err, errlen, GC_EINVAL, "%s issue cost %g cycles: must be at least 1",
                        names[t], u->issue_cycles);
    }
    if (!hw->unit[GC_HIDING_ALU].present || !hw->unit[GC_HIDING_MEM].present)
        return fail(err, errlen, GC_EINVAL, "the alu and mem units are required");
    if (!positive(hw->issue_thru))
        return fail(err, errlen, GC_EINVAL, "issue throughput %g inst/clk/SM: must be positive",
                    hw->issue_thru);
    if (!finite_positive(hw->mem_bytes_per_inst))
        return fail(err, errlen, GC_EINVAL, "bytes per memory instruction %g: must be positive",
                    hw->mem_bytes_per_inst);
    if (!(isfinite(hw->max_warps) && hw->max_warps >= 1))
        return fail(err, errlen, GC_EINVAL, "max warps per SM %g: must be at least 1",
                    hw->max_warps);
    if (hw->cont.present) {
        if (!finite_positive(hw->cont.a))
            return fail(err, errlen, GC_EINVAL, "contention a %g cycles: must be positive",
                        hw->cont.a);
        if (!(isfinite(hw->cont.b) && hw->cont.b >= 0))
            return fail(err, errlen, GC_EINVAL, "contention b %g cycles: must be at least 0",
                        hw->cont.b);
        if (!finite_positive(hw->cont.c) || hw->cont.c <= hw->unit[GC_HIDING_MEM].thru)
            return fail(err, errlen, GC_EINVAL,
                        "contention c %g inst/clk/SM must exceed the memory peak %g "
                        "inst/clk/SM: the fitted latency diverges at c, and the peak was "
                        "reached at a finite latency",
                        hw->cont.c, hw->unit[GC_HIDING_MEM].thru);
    }
    return 0;
}

int gc__hiding_mix_check(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, char *err,
                         size_t errlen)
{
    double total = 0;

    for (int t = 0; t < GC_HIDING_NTYPES; t++) {
        double c = mix->count[t];

        if (!(isfinite(c) && c >= 0))
            return fail(err, errlen, GC_EINVAL, "count of %s instructions %g: must be >= 0",
                        names[t], c);
        if (c > 0 && !hw->unit[t].present)
            return fail(err, errlen, GC_EINVAL,
                        "the mix has %s instructions but the profile has no %s_latency_cycles "
                        "and %s_thru_per_clk_sm",
                        names[t], names[t], names[t]);
        total += c;
    }
    if (!(total > 0))
        return fail(err, errlen, GC_EINVAL, "the mix has no instructions");
    if (!(isfinite(mix->ilp) && mix->ilp >= 1))
        return fail(err, errlen, GC_EINVAL, "ILP %g: must be at least 1", mix->ilp);
    if (!(mix->mem_ilp == 0 || (isfinite(mix->mem_ilp) && mix->mem_ilp >= 1)))
        return fail(err, errlen, GC_EINVAL, "memory ILP %g: must be 0 or at least 1", mix->mem_ilp);
    return 0;
}

double gc__hiding_mem_latency(const struct gc_hiding_hw *hw, double m, bool refined)
{
    const struct gc_hiding_contention *k = &hw->cont;

    if (!refined || !k->present)
        return hw->unit[GC_HIDING_MEM].latency;
    if (m >= k->c)
        return INFINITY;
    return k->a + k->b * m / (k->c - m);
}

double gc__hiding_latency(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, double x,
                          bool refined)
{
    double sum = 0;

    for (int t = 0; t < GC_HIDING_NTYPES; t++) {
        if (mix->count[t] <= 0)
            continue;
        if (t == GC_HIDING_MEM)
            sum += mix->count[t] * gc__hiding_mem_latency(hw, mix->count[t] * x, refined) /
                   (mix->mem_ilp >= 1 ? mix->mem_ilp : 1);
        else
            sum += mix->count[t] * hw->unit[t].latency;
    }
    return sum / mix->ilp;
}

double gc__hiding_bound(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, int *limit)
{
    struct gc_hiding_row rows[2 * GC_HIDING_NTYPES];
    struct gc_hiding_sheet sheet;
    int n = 0;

    /* One group's cycles of exclusive use of each resource: the worksheet
     * of Table 3.4 with one row per type and one issue row per type. */
    for (int t = 0; t < GC_HIDING_NTYPES; t++) {
        if (mix->count[t] <= 0)
            continue;
        rows[n++] = (struct gc_hiding_row){t, 1.0 / hw->unit[t].thru, mix->count[t]};
        rows[n++] = (struct gc_hiding_row){
            GC_HIDING_ISSUE, hw->unit[t].issue_cycles / hw->issue_thru, mix->count[t]};
    }
    gc__hiding_worksheet(rows, n, &sheet);
    if (limit)
        *limit = sheet.tightest;
    return sheet.tightest_cycles > 0 ? 1.0 / sheet.tightest_cycles : INFINITY;
}

int gc__hiding_basic(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, double n,
                     struct gc_hiding_point *out)
{
    int limit;
    double lat, bound, xl;

    if (!finite_positive(n) || gc__hiding_mix_check(hw, mix, NULL, 0) != 0)
        return GC_EINVAL;
    lat = gc__hiding_latency(hw, mix, 0, false);
    bound = gc__hiding_bound(hw, mix, &limit);
    xl = n / lat;
    memset(out, 0, sizeof(*out));
    out->n = n;
    out->latency = lat;
    out->mem_latency = hw->unit[GC_HIDING_MEM].latency;
    if (xl < bound) {
        out->thru = xl;
        out->limit = GC_HIDING_LATENCY;
    } else {
        out->thru = bound;
        out->limit = limit;
    }
    return 0;
}

int gc__hiding_bisect(double (*f)(double x, void *user), void *user, double lo, double hi,
                      double tol, double *root, int *iterations)
{
    double flo, fhi;
    int it = 0;

    if (!(lo < hi))
        return GC_EINVAL;
    flo = f(lo, user);
    fhi = f(hi, user);
    if (!(flo < 0 && fhi > 0))
        return GC_EINVAL;
    while (it < BISECT_MAX && hi - lo > tol * fabs(hi)) {
        double mid = lo + (hi - lo) / 2;

        /* No double lies strictly between: the interval cannot shrink. */
        if (mid <= lo || mid >= hi)
            break;
        if (f(mid, user) < 0)
            lo = mid;
        else
            hi = mid;
        it++;
    }
    *root = lo + (hi - lo) / 2;
    if (iterations)
        *iterations = it;
    return 0;
}

struct refined_eq {
    const struct gc_hiding_hw *hw;
    const struct gc_hiding_mix *mix;
    double n;
};

/* x - n / Latency(x): increasing in x, since the latency only grows with
 * throughput; its root is the self-consistent latency-bound throughput. */
static double refined_residual(double x, void *user)
{
    const struct refined_eq *e = user;

    return x - e->n / gc__hiding_latency(e->hw, e->mix, x, true);
}

int gc__hiding_refined(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, double n,
                       struct gc_hiding_point *out)
{
    struct refined_eq eq = {hw, mix, n};
    double bound, diverge, hi, root;
    int limit, it, err;

    if (!hw->cont.present || mix->count[GC_HIDING_MEM] <= 0)
        return gc__hiding_basic(hw, mix, n, out);
    if (!finite_positive(n) || gc__hiding_mix_check(hw, mix, NULL, 0) != 0)
        return GC_EINVAL;
    bound = gc__hiding_bound(hw, mix, &limit);
    /* The group throughput at which the memory latency diverges. */
    diverge = hw->cont.c / mix->count[GC_HIDING_MEM];
    hi = bound < diverge ? bound : diverge;
    memset(out, 0, sizeof(*out));
    out->n = n;
    /* When even the throughput bound leaves the latency bound above it, the
     * solution of x = min(n / Latency(x), Bound) is the bound itself. */
    if (hi == bound && refined_residual(bound, &eq) <= 0) {
        out->thru = bound;
        out->limit = limit;
    } else {
        err = gc__hiding_bisect(refined_residual, &eq, 0, hi, BISECT_TOL, &root, &it);
        if (err)
            return err;
        out->thru = root;
        out->limit = GC_HIDING_LATENCY;
        out->iterations = it;
    }
    out->latency = gc__hiding_latency(hw, mix, out->thru, true);
    out->mem_latency = gc__hiding_mem_latency(hw, mix->count[GC_HIDING_MEM] * out->thru, true);
    return 0;
}

double gc__hiding_in_execution(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                               int t, double x, bool refined)
{
    double lat;

    if (t < 0 || t >= GC_HIDING_NTYPES || mix->count[t] <= 0)
        return 0;
    lat = t == GC_HIDING_MEM ? gc__hiding_mem_latency(hw, mix->count[t] * x, refined)
                             : hw->unit[t].latency;
    return mix->count[t] * x * lat;
}

double gc__hiding_needed(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                         double fraction, bool refined)
{
    double x;

    if (!(fraction > 0 && fraction <= 1) || gc__hiding_mix_check(hw, mix, NULL, 0) != 0)
        return NAN;
    x = fraction * gc__hiding_bound(hw, mix, NULL);
    /* Little's law: the occupancy that sustains throughput x is x times the
     * warp latency at x; the refined latency depends on x only, so no
     * equation has to be solved in this direction. */
    return x * gc__hiding_latency(hw, mix, x, refined);
}

struct cusp_eq {
    const struct gc_hiding_hw *hw;
    double fixed;       /* the bound of the alpha-independent resources */
    double issue_other; /* issue cycles of the other instructions */
};

/* The alpha-dependent bound (CUDA cores or issue) falls with alpha; the
 * cusp is where it meets the fixed one. */
static double cusp_var(const struct cusp_eq *e, double alpha)
{
    const struct gc_hiding_unit *alu = &e->hw->unit[GC_HIDING_ALU];
    double a = alpha > 0 ? alu->thru / alpha : INFINITY;
    double issue = e->hw->issue_thru / (e->issue_other + alpha * alu->issue_cycles);

    return a < issue ? a : issue;
}

static double cusp_residual(double alpha, void *user)
{
    const struct cusp_eq *e = user;

    return e->fixed - cusp_var(e, alpha);
}

int gc__hiding_cusp(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *others,
                    double *alpha, double *warps)
{
    struct gc_hiding_mix mix = *others;
    struct cusp_eq eq = {hw, INFINITY, 0};
    double hi = 1, root;
    int err;

    mix.count[GC_HIDING_ALU] = 0;
    if (!hw->unit[GC_HIDING_ALU].present || gc__hiding_mix_check(hw, &mix, NULL, 0) != 0)
        return GC_EINVAL;
    for (int t = 0; t < GC_HIDING_NTYPES; t++) {
        if (t == GC_HIDING_ALU || mix.count[t] <= 0)
            continue;
        if (hw->unit[t].thru / mix.count[t] < eq.fixed)
            eq.fixed = hw->unit[t].thru / mix.count[t];
        eq.issue_other += mix.count[t] * hw->unit[t].issue_cycles;
    }
    if (!(cusp_var(&eq, 0) > eq.fixed))
        return GC_ERANGE;
    while (cusp_residual(hi, &eq) <= 0) {
        hi *= 2;
        if (hi > 1e12)
            return GC_ERANGE;
    }
    err = gc__hiding_bisect(cusp_residual, &eq, 0, hi, BISECT_TOL, &root, NULL);
    if (err)
        return err;
    mix.count[GC_HIDING_ALU] = root;
    *alpha = root;
    *warps = eq.fixed * gc__hiding_latency(hw, &mix, 0, false);
    return 0;
}

/* ---- Contention fit and percentiles ----------------------------------- */

static bool usable(double x, double lat)
{
    return isfinite(x) && x > 0 && isfinite(lat) && lat > 0;
}

int gc__hiding_envelope(const double *x, const double *lat, int n, bool *on)
{
    int count = 0;

    for (int i = 0; i < n; i++) {
        on[i] = usable(x[i], lat[i]);
        for (int j = 0; j < n && on[i]; j++) {
            if (j == i || !usable(x[j], lat[j]))
                continue;
            if (x[j] >= x[i] && lat[j] <= lat[i] && (x[j] > x[i] || lat[j] < lat[i]))
                on[i] = false;
        }
        count += on[i];
    }
    return count;
}

struct fit_data {
    const double *x, *lat;
    const bool *on;
    int n;
};

/* For a given c, the weighted least-squares a and b (weights 1 / lat^2, so
 * that residuals are relative) and the residual sum; INFINITY when no
 * positive a fits. */
static double fit_at(const struct fit_data *d, double c, double *a, double *b)
{
    double s0 = 0, s1 = 0, s2 = 0, t0 = 0, t1 = 0, det, ssr = 0;

    for (int i = 0; i < d->n; i++) {
        double w, g;

        if (!d->on[i])
            continue;
        w = 1.0 / (d->lat[i] * d->lat[i]);
        g = d->x[i] / (c - d->x[i]);
        s0 += w;
        s1 += w * g;
        s2 += w * g * g;
        t0 += w * d->lat[i];
        t1 += w * g * d->lat[i];
    }
    det = s0 * s2 - s1 * s1;
    if (det > 1e-12 * s0 * s2) {
        *a = (t0 * s2 - t1 * s1) / det;
        *b = (s0 * t1 - s1 * t0) / det;
    } else {
        *b = -1;
    }
    /* Latency cannot fall with throughput: a negative slope means the
     * constant model fits best. */
    if (!(*b >= 0)) {
        *b = 0;
        *a = t0 / s0;
    }
    if (!(*a > 0))
        return INFINITY;
    for (int i = 0; i < d->n; i++) {
        double r;

        if (!d->on[i])
            continue;
        r = (d->lat[i] - *a - *b * d->x[i] / (c - d->x[i])) / d->lat[i];
        ssr += r * r;
    }
    return ssr;
}

int gc__hiding_fit_contention(const double *x, const double *lat, int n, double c_min,
                              struct gc_hiding_fit *out)
{
    enum { GRID = 400 };
    struct fit_data d = {x, lat, NULL, n};
    bool *on = NULL;
    double xmax = 0, emin = INFINITY, emax = 0, m, best = INFINITY, best_t = 0, a, b;
    double lo, hi;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    out->a = out->b = out->c = out->rms_rel = NAN;
    if (n < 1 || !x || !lat || isnan(c_min))
        return GC_EINVAL;
    on = malloc((size_t)n * sizeof(*on));
    if (!on)
        return GC_ENOMEM;
    d.on = on;
    out->nenvelope = gc__hiding_envelope(x, lat, n, on);
    for (int i = 0; i < n; i++) {
        if (!usable(x[i], lat[i]))
            continue;
        out->npoints++;
        xmax = fmax(xmax, x[i]);
        if (on[i]) {
            emin = fmin(emin, x[i]);
            emax = fmax(emax, x[i]);
        }
    }
    if (out->nenvelope < GC_HIDING_FIT_MIN || !(emax >= GC_HIDING_FIT_SPAN * emin)) {
        rc = GC_ERANGE;
        goto out;
    }
    m = fmax(xmax, c_min > 0 ? c_min : 0);
    /* c = m (1 + t): t on a logarithmic grid from 1e-5 to 3, then golden
     * section in the bracket around the best grid point. */
    for (int k = 0; k <= GRID; k++) {
        double t = 1e-5 * pow(3e5, (double)k / GRID);
        double r = fit_at(&d, m * (1 + t), &a, &b);

        if (r < best) {
            best = r;
            best_t = t;
        }
    }
    if (!isfinite(best)) {
        rc = GC_ERANGE;
        goto out;
    }
    lo = log(best_t) - log(3e5) / GRID;
    hi = log(best_t) + log(3e5) / GRID;
    for (int it = 0; it < 100 && hi - lo > 1e-10; it++) {
        const double phi = 0.6180339887498949;
        double u1 = hi - phi * (hi - lo), u2 = lo + phi * (hi - lo);
        double r1 = fit_at(&d, m * (1 + exp(u1)), &a, &b);
        double r2 = fit_at(&d, m * (1 + exp(u2)), &a, &b);

        if (r1 < r2)
            hi = u2;
        else
            lo = u1;
    }
    {
        double t = exp(0.5 * (lo + hi)), r = fit_at(&d, m * (1 + t), &a, &b);

        if (r > best) {
            t = best_t;
            r = fit_at(&d, m * (1 + t), &a, &b);
        }
        out->c = m * (1 + t);
        out->a = a;
        out->b = b;
        out->rms_rel = sqrt(r / out->nenvelope);
    }
out:
    free(on);
    return rc;
}

double gc__hiding_fit_eval(const struct gc_hiding_fit *f, double x)
{
    if (x >= f->c)
        return INFINITY;
    return f->a + f->b * x / (f->c - x);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int gc__hiding_percentiles(const double *v, int n, const double *p, int np, double *out)
{
    double *s;

    if (n < 1 || !v || (np > 0 && (!p || !out)))
        return GC_EINVAL;
    for (int i = 0; i < np; i++)
        if (!(p[i] >= 0 && p[i] <= 100))
            return GC_EINVAL;
    s = malloc((size_t)n * sizeof(*s));
    if (!s)
        return GC_ENOMEM;
    memcpy(s, v, (size_t)n * sizeof(*s));
    qsort(s, (size_t)n, sizeof(*s), cmp_dbl);
    for (int i = 0; i < np; i++) {
        double pos = p[i] / 100.0 * (n - 1);
        int k = (int)floor(pos);

        out[i] = k + 1 < n ? s[k] + (pos - k) * (s[k + 1] - s[k]) : s[n - 1];
    }
    free(s);
    return 0;
}

/* ---- Profile ---------------------------------------------------------- */

/* Range a metric's value must lie in. */
enum range { POSITIVE, NONNEG, AT_LEAST_ONE, COUNT };

struct reader {
    const struct gc_bench_result *b;
    char *err;
    size_t errlen;
};

/* Reads metric NAME in UNIT into *v. A missing optional metric leaves *v
 * NAN and returns 0; *found says whether it was there. */
static int get(struct reader *rd, const char *name, const char *unit, enum range range,
               bool required, double *v, bool *found)
{
    const struct gc_metric *m = gc__bench_find_metric(rd->b, name);
    double x;
    bool ok;

    *v = NAN;
    if (found)
        *found = m != NULL;
    if (!m) {
        if (!required)
            return 0;
        return fail(rd->err, rd->errlen, GC_EINVAL,
                    "benchmark %s has no metric \"%s\" (%s), which the model requires",
                    GC_HIDING_BENCH, name, unit);
    }
    if (strcmp(m->unit, unit) != 0)
        return fail(rd->err, rd->errlen, GC_EINVAL,
                    "metric \"%s\" of %s has unit \"%s\"; the model requires \"%s\"", name,
                    GC_HIDING_BENCH, m->unit, unit);
    x = m->value;
    if (isnan(x))
        return fail(rd->err, rd->errlen, GC_EINVAL,
                    "metric \"%s\" of %s is null (unknown); the model needs a value", name,
                    GC_HIDING_BENCH);
    switch (range) {
    case POSITIVE:
        ok = isfinite(x) && x > 0;
        break;
    case NONNEG:
        ok = isfinite(x) && x >= 0;
        break;
    case AT_LEAST_ONE:
        ok = isfinite(x) && x >= 1;
        break;
    case COUNT:
    default:
        ok = isfinite(x) && x >= 1 && x <= 1e6 && x == floor(x);
        break;
    }
    if (!ok) {
        static const char *const want[] = {"positive", "at least 0", "at least 1",
                                           "a whole number of at least 1"};

        return fail(rd->err, rd->errlen, GC_EINVAL, "metric \"%s\" of %s is %g %s; it must be %s",
                    name, GC_HIDING_BENCH, x, unit, want[range]);
    }
    *v = x;
    return 0;
}

/* An optional unit: both its latency and its throughput, or neither. */
static int get_unit(struct reader *rd, int t, bool required, struct gc_hiding_unit *u)
{
    char lat_name[64], thru_name[64], issue_name[64];
    bool has_lat, has_thru, has_issue;
    double issue;
    int err;

    snprintf(lat_name, sizeof(lat_name), "%s_latency_cycles", names[t]);
    if (t == GC_HIDING_MEM)
        snprintf(thru_name, sizeof(thru_name), "mem_thru_bytes_per_clk_sm");
    else
        snprintf(thru_name, sizeof(thru_name), "%s_thru_per_clk_sm", names[t]);
    snprintf(issue_name, sizeof(issue_name), "%s_issue_cycles", names[t]);
    err = get(rd, lat_name, "cycles", POSITIVE, required, &u->latency, &has_lat);
    if (!err)
        err = get(rd, thru_name, t == GC_HIDING_MEM ? "B/clk/SM" : "inst/clk/SM", POSITIVE,
                  required, &u->thru, &has_thru);
    if (!err)
        err = get(rd, issue_name, "cycles", AT_LEAST_ONE, false, &issue, &has_issue);
    if (err)
        return err;
    if (has_lat != has_thru)
        return fail(rd->err, rd->errlen, GC_EINVAL,
                    "benchmark %s has metric \"%s\" but not \"%s\": a latency and its "
                    "throughput come together",
                    GC_HIDING_BENCH, has_lat ? lat_name : thru_name,
                    has_lat ? thru_name : lat_name);
    u->present = has_lat;
    u->issue_cycles = has_issue ? issue : 1;
    return 0;
}

int gc__hiding_from_results(const struct gc_results *r, struct gc_hiding_hw *hw, char *err,
                            size_t errlen)
{
    const struct gc_bench_result *b = NULL;
    struct reader rd = {NULL, err, errlen};
    double mem_bytes_clk, sms, c_bytes;
    bool has_a, has_b, has_c;
    int e;

    memset(hw, 0, sizeof(*hw));
    for (int i = 0; r && i < r->nbenches; i++) {
        if (strcmp(r->benches[i].name, GC_HIDING_BENCH) == 0) {
            b = &r->benches[i];
            break;
        }
    }
    if (!b)
        return fail(err, errlen, GC_ENOBENCH,
                    "the results have no benchmark \"%s\" (measure it with 'gpuchar run "
                    "--bench %s --json FILE')",
                    GC_HIDING_BENCH, GC_HIDING_BENCH);
    if (b->status != GC_BENCH_OK)
        return fail(err, errlen, GC_ENOBENCH, "benchmark %s did not complete%s%s", GC_HIDING_BENCH,
                    b->error[0] ? ": " : "", b->error);
    rd.b = b;
    for (int t = 0; t < GC_HIDING_NTYPES; t++) {
        e = get_unit(&rd, t, t == GC_HIDING_ALU || t == GC_HIDING_MEM, &hw->unit[t]);
        if (e)
            return e;
    }
    mem_bytes_clk = hw->unit[GC_HIDING_MEM].thru;
    if ((e = get(&rd, "mem_bytes_per_inst", "B/inst", POSITIVE, true, &hw->mem_bytes_per_inst,
                 NULL)) ||
        (e = get(&rd, "issue_thru_per_clk_sm", "inst/clk/SM", POSITIVE, true, &hw->issue_thru,
                 NULL)) ||
        (e = get(&rd, "max_warps_per_sm", "warps/SM", AT_LEAST_ONE, true, &hw->max_warps, NULL)) ||
        (e = get(&rd, "clock_hz", "Hz", POSITIVE, true, &hw->clock_hz, NULL)) ||
        (e = get(&rd, "sm_count", "SMs", COUNT, true, &sms, NULL)) ||
        (e = get(&rd, "contention_a_cycles", "cycles", POSITIVE, false, &hw->cont.a, &has_a)) ||
        (e = get(&rd, "contention_b_cycles", "cycles", NONNEG, false, &hw->cont.b, &has_b)) ||
        (e = get(&rd, "contention_c_bytes_per_clk_sm", "B/clk/SM", POSITIVE, false, &c_bytes,
                 &has_c)))
        return e;
    hw->sm_count = (int)sms;
    hw->unit[GC_HIDING_MEM].thru = mem_bytes_clk / hw->mem_bytes_per_inst;
    if ((has_a || has_b || has_c) && !(has_a && has_b && has_c))
        return fail(err, errlen, GC_EINVAL,
                    "benchmark %s has only some of contention_a_cycles, contention_b_cycles "
                    "and contention_c_bytes_per_clk_sm: the latency fit needs all three",
                    GC_HIDING_BENCH);
    if (has_c && c_bytes <= mem_bytes_clk)
        return fail(err, errlen, GC_EINVAL,
                    "metric \"contention_c_bytes_per_clk_sm\" of %s is %g B/clk/SM; it must "
                    "exceed mem_thru_bytes_per_clk_sm (%g B/clk/SM): the fitted latency "
                    "diverges at c, and the peak was reached at a finite latency",
                    GC_HIDING_BENCH, c_bytes, mem_bytes_clk);
    hw->cont.present = has_c;
    if (has_c)
        hw->cont.c = c_bytes / hw->mem_bytes_per_inst;
    return gc__hiding_hw_check(hw, err, errlen);
}
