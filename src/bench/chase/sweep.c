/* The sweep of a staircase: the planned footprints (on the event path coarse
 * to fine), then points added where the latency steps (bench/chase/chase.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"
#include "core/sensors.h"
#include "model/cache.h"
#include "model/coarse.h"

static void curve_add(struct curve *cv, const struct chase_pt *p)
{
    int at = cv->n;

    while (at > 0 && cv->pt[at - 1].x > p->x)
        at--;
    if ((at > 0 && cv->pt[at - 1].x == p->x) || cv->n >= CHASE_MAX_POINTS)
        return;
    memmove(cv->pt + at + 1, cv->pt + at, (size_t)(cv->n - at) * sizeof(*cv->pt));
    cv->pt[at] = *p;
    cv->n++;
}

/* Measures grid point g of the planned sweep into the curve; *y is the
 * latency the sweep steers by (cycles where the device counts them). */
static int grid_point(struct chase_ctx *c, point_fn fn, void *arg, const size_t *fps, int g,
                      struct curve *cv, double *y)
{
    struct chase_pt p = {0};
    int rc = fn(c, arg, fps[g], g, &p);

    if (rc)
        return rc;
    p.planned = true;
    curve_add(cv, &p);
    *y = c->clocks ? p.cyc : p.ns;
    return 0;
}

/* The planned sweep: on the cycle path every footprint of the grid; on the
 * event path (a point costs two kernels sampled for tenths of a second on a
 * CPU) every CHASE_COARSE_STRIDE-th first, then the grid's footprints
 * between them where the latency climbs (gc__coarse_fill_next), so that
 * steps keep the grid's resolution and flat stretches cost a fraction. */
static int planned_sweep(struct chase_ctx *c, point_fn fn, void *arg, const size_t *fps, int nfp,
                         struct curve *cv)
{
    int *idx = malloc((size_t)(nfp > 0 ? nfp : 1) * sizeof(*idx));
    double *y = malloc((size_t)(nfp > 0 ? nfp : 1) * sizeof(*y));
    int m, rc = 0;

    if (!idx || !y) {
        rc = GC_ENOMEM;
        goto out;
    }
    m = gc__coarse_plan(nfp, c->clocks ? 1 : CHASE_COARSE_STRIDE, idx);
    /* Too few coarse points to make plateaus of three: the whole grid. */
    if (m < CHASE_COARSE_MIN_POINTS)
        m = gc__coarse_plan(nfp, 1, idx);
    for (int k = 0; k < m && !gc__stopped(c->s); k++)
        if ((rc = grid_point(c, fn, arg, fps, idx[k], cv, &y[k])))
            goto out;
    while (!gc__stopped(c->s)) {
        int g = gc__coarse_fill_next(idx, y, m, CHASE_COARSE_JUMP, CHASE_MAX_POINTS);
        if (g < 0)
            break;
        int at = m;
        while (at > 0 && idx[at - 1] > g)
            at--;
        memmove(idx + at + 1, idx + at, (size_t)(m - at) * sizeof(*idx));
        memmove(y + at + 1, y + at, (size_t)(m - at) * sizeof(*y));
        idx[at] = g;
        m++;
        if ((rc = grid_point(c, fn, arg, fps, g, cv, &y[at])))
            goto out;
    }
    cv->complete = !gc__stopped(c->s) && cv->n == m;
out:
    free(idx);
    free(y);
    return rc;
}

int gc__chase_sweep_curve(struct chase_ctx *c, point_fn fn, void *arg, const size_t *fps, int nfp,
                          int budget, size_t granule, struct curve *cv)
{
    bool gpu = c->s->dev->info.type == GC_DEVICE_GPU;
    double jump = gpu ? CHASE_REFINE_JUMP_GPU : CHASE_REFINE_JUMP_CPU;
    double *x = malloc(CHASE_MAX_POINTS * sizeof(*x)), *y = malloc(CHASE_MAX_POINTS * sizeof(*y));
    double t0 = gc__now(), t_planned;
    struct chase_pt p;
    int rc = 0;

    if (!x || !y) {
        rc = GC_ENOMEM;
        goto out;
    }
    rc = planned_sweep(c, fn, arg, fps, nfp, cv);
    if (rc)
        goto out;
    cv->planned = cv->n;
    /* A CPU's refinement may take a quarter of the planned sweep's time
     * (the coarse pass and its fill on the event path). */
    t_planned = gc__now() - t0;
    t0 = gc__now();
    /* Every point must have landed (a stop, or a footprint measured twice,
     * ends the refinement). Each round splits every step once. */
    int want = cv->n;
    double after = 0;
    for (int k = 0; k < budget && cv->n < CHASE_MAX_POINTS && !gc__stopped(c->s); k++) {
        if (!gpu && gc__now() - t0 > 0.25 * t_planned)
            break;
        bool ok = cv->n == want;
        for (int i = 0; ok && i < cv->n; i++) {
            x[i] = cv->pt[i].x;
            y[i] = c->clocks ? cv->pt[i].cyc : cv->pt[i].ns;
            ok = isfinite(y[i]) && y[i] > 0;
        }
        double nx = ok ? gc__cache_refine_next(x, y, cv->n, jump, CHASE_REFINE_WIDTH,
                                               (double)granule, after)
                       : NAN;
        if (isnan(nx))
            break;
        after = nx;
        p = (struct chase_pt){0};
        rc = fn(c, arg, (size_t)nx, nfp + k, &p);
        if (rc)
            goto out;
        p.planned = false;
        curve_add(cv, &p);
        want++;
    }
out:
    free(x);
    free(y);
    return rc;
}

int gc__chase_curve_series(struct gc_bench_result *r, const struct curve *cv, const char *suffix,
                           const char *y_cyc_name, double **xs, bool **planned)
{
    char n1[64], n2[64];
    int n = cv->n;
    double *x = malloc(3 * (size_t)(n ? n : 1) * sizeof(*x));
    bool *pl = malloc((size_t)(n ? n : 1) * sizeof(*pl));

    *xs = x;
    *planned = pl;
    if (!x || !pl)
        return GC_ENOMEM;
    for (int i = 0; i < n; i++)
        pl[i] = cv->pt[i].planned;
    snprintf(n1, sizeof(n1), "latency_cycles%s", suffix);
    snprintf(n2, sizeof(n2), "latency_ns%s", suffix);
    struct gc_series *scyc =
        gc__bench_add_series(r, n1, "footprint", "B", y_cyc_name, "cycles/load");
    if (!scyc)
        return GC_ENOMEM;
    for (int i = 0; i < n; i++) {
        x[i] = cv->pt[i].x;
        x[n + i] = cv->pt[i].ns;
        x[2 * n + i] = cv->pt[i].cyc;
        if (isfinite(cv->pt[i].cyc))
            gc__series_add(scyc, x[i], cv->pt[i].cyc, cv->pt[i].scyc.n ? &cv->pt[i].scyc : NULL,
                           cv->pt[i].how);
    }
    struct gc_series *sns = gc__bench_add_series(r, n2, "footprint", "B", "latency", "ns/load");
    if (!sns)
        return GC_ENOMEM;
    for (int i = 0; i < n; i++)
        if (isfinite(cv->pt[i].ns))
            gc__series_add(sns, x[i], cv->pt[i].ns, cv->pt[i].sns.n ? &cv->pt[i].sns : NULL,
                           cv->pt[i].how);
    return 0;
}
