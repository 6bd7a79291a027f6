/* The kernel-sweep runner: the planned grid of an axis (coarse to fine
 * where the description asks), then points added where the measured value
 * steps, into a curve and its series; and the short/long launch difference
 * that times a point without an in-kernel clock. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ksweep.h"
#include "core/sensors.h"

int gc__ksweep_grid(size_t lo, size_t hi, int per_oct, size_t granule, size_t *out, int cap)
{
    int n = 0;

    if (hi < lo)
        hi = lo;
    for (int k = 0; n < cap; k++) {
        double v = (double)lo * pow(2.0, (double)k / per_oct);
        size_t f = (size_t)v / granule * granule;
        if (f < 2 * granule)
            f = 2 * granule;
        if (f > hi)
            f = hi / granule * granule;
        if (n == 0 || f > out[n - 1])
            out[n++] = f;
        if (v >= (double)hi)
            break;
    }
    return n;
}

int gc__ksweep_curve_init(struct gc_ksweep_curve *cv, int max_points)
{
    memset(cv, 0, sizeof(*cv));
    cv->pt = calloc((size_t)(max_points > 0 ? max_points : 1), sizeof(*cv->pt));
    return cv->pt ? 0 : GC_ENOMEM;
}

void gc__ksweep_curve_free(struct gc_ksweep_curve *cv)
{
    free(cv->pt);
    cv->pt = NULL;
    cv->n = 0;
}

/* Inserts p in x order; a point at an x already measured, or past the
 * curve's room, is dropped. */
static void curve_add(struct gc_ksweep_curve *cv, int max_points, const struct gc_ksweep_pt *p)
{
    int at = cv->n;

    while (at > 0 && cv->pt[at - 1].x > p->x)
        at--;
    if ((at > 0 && cv->pt[at - 1].x == p->x) || cv->n >= max_points)
        return;
    memmove(cv->pt + at + 1, cv->pt + at, (size_t)(cv->n - at) * sizeof(*cv->pt));
    cv->pt[at] = *p;
    cv->n++;
}

/* Measures grid point g into the curve; *y is the value that steers. */
static int grid_point(const struct gc_ksweep_desc *d, int g, struct gc_ksweep_curve *cv, double *y)
{
    struct gc_ksweep_pt p = {0};
    int rc = d->point(d->u, d->grid[g], g, &p);

    if (rc)
        return rc;
    p.planned = true;
    curve_add(cv, d->max_points, &p);
    *y = p.y[d->steer];
    return 0;
}

/* The grid indices measured first. */
static int coarse_plan(const struct gc_ksweep_desc *d, int *idx)
{
    int m;

    if (!d->coarse) {
        for (m = 0; m < d->ngrid; m++)
            idx[m] = m;
        return m;
    }
    m = d->coarse(d->ngrid, d->stride, idx);
    /* Too few coarse points to make plateaus of: the whole grid. */
    if (m < d->min_coarse)
        m = d->coarse(d->ngrid, 1, idx);
    return m;
}

/* The planned sweep: the coarse pass, then the grid's points between
 * measured neighbours that fill asks for, so that steps keep the grid's
 * resolution and flat stretches cost a fraction. */
static int planned_sweep(struct gc_session *s, const struct gc_ksweep_desc *d,
                         struct gc_ksweep_curve *cv)
{
    int nfp = d->ngrid;
    int *idx = malloc((size_t)(nfp > 0 ? nfp : 1) * sizeof(*idx));
    double *y = malloc((size_t)(nfp > 0 ? nfp : 1) * sizeof(*y));
    int m, rc = 0;

    if (!idx || !y) {
        rc = GC_ENOMEM;
        goto out;
    }
    m = coarse_plan(d, idx);
    for (int k = 0; k < m && !gc__stopped(s); k++)
        if ((rc = grid_point(d, idx[k], cv, &y[k])))
            goto out;
    while (d->fill && !gc__stopped(s)) {
        int g = d->fill(idx, y, m, d->fill_jump, d->max_points);
        if (g < 0)
            break;
        int at = m;
        while (at > 0 && idx[at - 1] > g)
            at--;
        memmove(idx + at + 1, idx + at, (size_t)(m - at) * sizeof(*idx));
        memmove(y + at + 1, y + at, (size_t)(m - at) * sizeof(*y));
        idx[at] = g;
        m++;
        if ((rc = grid_point(d, g, cv, &y[at])))
            goto out;
    }
    cv->complete = !gc__stopped(s) && cv->n == m;
out:
    free(idx);
    free(y);
    return rc;
}

/* The refinement: up to budget points where the steering value steps, each
 * round splitting every step once. Every point must have landed (a stop, or
 * an x measured twice, ends it). */
static int refine(struct gc_session *s, const struct gc_ksweep_desc *d, double t_planned,
                  struct gc_ksweep_curve *cv)
{
    int cap = d->max_points, want = cv->n, rc = 0;
    double *x = malloc((size_t)(cap > 0 ? cap : 1) * sizeof(*x));
    double *y = malloc((size_t)(cap > 0 ? cap : 1) * sizeof(*y));
    double t0 = gc__now(), after = 0;

    if (!x || !y) {
        rc = GC_ENOMEM;
        goto out;
    }
    for (int k = 0; d->refine && k < d->budget && cv->n < cap && !gc__stopped(s); k++) {
        if (d->refine_time_share > 0 && gc__now() - t0 > d->refine_time_share * t_planned)
            break;
        bool ok = cv->n == want;
        for (int i = 0; ok && i < cv->n; i++) {
            x[i] = cv->pt[i].x;
            y[i] = cv->pt[i].y[d->steer];
            ok = isfinite(y[i]) && y[i] > 0;
        }
        double nx =
            ok ? d->refine(x, y, cv->n, d->refine_jump, d->refine_width, (double)d->granule, after)
               : NAN;
        if (isnan(nx))
            break;
        after = nx;
        struct gc_ksweep_pt p = {0};
        rc = d->point(d->u, (size_t)nx, d->ngrid + k, &p);
        if (rc)
            goto out;
        p.planned = false;
        curve_add(cv, cap, &p);
        want++;
    }
out:
    free(x);
    free(y);
    return rc;
}

int gc__ksweep_run(struct gc_session *s, const struct gc_ksweep_desc *d, struct gc_ksweep_curve *cv)
{
    double t0 = gc__now();
    int rc = planned_sweep(s, d, cv);

    if (rc)
        return rc;
    cv->planned = cv->n;
    return refine(s, d, gc__now() - t0, cv);
}

int gc__ksweep_series(struct gc_bench_result *r, const struct gc_ksweep_desc *d,
                      const struct gc_ksweep_curve *cv, double **xs, bool **planned)
{
    int n = cv->n;
    double *x = malloc((1 + GC_KSWEEP_NY) * (size_t)(n ? n : 1) * sizeof(*x));
    bool *pl = malloc((size_t)(n ? n : 1) * sizeof(*pl));

    *xs = x;
    *planned = pl;
    if (!x || !pl)
        return GC_ENOMEM;
    for (int i = 0; i < n; i++) {
        pl[i] = cv->pt[i].planned;
        x[i] = cv->pt[i].x;
        for (int k = 0; k < GC_KSWEEP_NY; k++)
            x[(size_t)(k + 1) * n + i] = cv->pt[i].y[k];
    }
    for (int k = 0; k < GC_KSWEEP_NY; k++) {
        const struct gc_ksweep_series *sd = &d->series[k];
        if (!sd->name)
            continue;
        struct gc_series *se =
            gc__bench_add_series(r, sd->name, sd->x_name, sd->x_unit, sd->y_name, sd->y_unit);
        if (!se)
            return GC_ENOMEM;
        for (int i = 0; i < n; i++) {
            const struct gc_ksweep_pt *p = &cv->pt[i];
            if (isfinite(p->y[k]))
                gc__series_add(se, p->x, p->y[k], p->st[k].n ? &p->st[k] : NULL, p->label);
        }
    }
    return 0;
}

/* ---- The short/long launch difference ------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;

    return (u > v) - (u < v);
}

static const char bound_long[] = "upper bound (long kernel)";
static const char bound_short[] = "upper bound (short kernel)";

/* Time per unit from one time t1 of the short kernel (w warm units, then L
 * timed ones) and t2 of the long one (w + 2L): with a launch overhead
 * o >= 0, t_k = o + (w + kL) t. The difference d = (t2 - t1) / L cancels o.
 * The overhead it implies, o = t1 - (w + L) d, equals t2 - (w + 2L) d, so
 * o >= 0 is the bound d <= t2 / (w + 2L). d stands when o is neither
 * negative nor a large share of t1: the two times then come from one mode
 * of the device. Otherwise they do not (one kernel in a slow mode makes d
 * far off) and the tighter of the upper bounds t_k / (w + kL) stands,
 * overhead included. *how is NULL for d, else the bound's label. */
static double diff_one(double t1, double t2, double w, double L, double max_overhead,
                       const char **how)
{
    double n1 = w + L, n2 = w + 2.0 * L;
    double d = (t2 - t1) / L, o = t1 - n1 * d;

    *how = NULL;
    if (o >= 0 && o <= max_overhead * t1)
        return d;
    /* t_k / (w + kL) = d + o / (w + kL): the long kernel's bound is the
     * tighter one where o >= 0, the short kernel's where o < 0 (the long
     * kernel's minimum in a slower mode than the short's). */
    if (t2 / n2 <= t1 / n1) {
        *how = bound_long;
        return t2 / n2;
    }
    *how = bound_short;
    return t1 / n1;
}

int gc__ksweep_diff(double *t1, int n1, double *t2, int n2, double warm, double units,
                    double max_overhead, double scale, struct gc_stats *st, double *best,
                    const char **how)
{
    int n = n1 < n2 ? n1 : n2;
    double *v = malloc((size_t)(n ? n : 1) * sizeof(*v));

    if (!v)
        return GC_ENOMEM;
    /* Interference from other work on the device only adds time, so the
     * samples of each kernel are paired in sorted order, and the reported
     * value is the pair of minima's; every pair gives an estimate of its own
     * under the same bounds, and those give the spread. */
    qsort(t1, (size_t)n1, sizeof(double), cmp_double);
    qsort(t2, (size_t)n2, sizeof(double), cmp_double);
    *how = NULL;
    for (int i = 0; i < n; i++) {
        const char *h;
        v[i] = diff_one(t1[i], t2[i], warm, units, max_overhead, &h) * scale;
        if (i == 0)
            *how = h;
    }
    gc__stats_compute(v, n, st);
    *best = n > 0 ? v[0] : NAN;
    free(v);
    return 0;
}
