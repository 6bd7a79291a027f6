/* Cache levels from a latency staircase: plateau segmentation, then one fit
 * of the generalised Lemeire eq. 6 over the whole curve; the coarse-to-fine
 * sampling of a staircase over its planned grid (see cache.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuchar/gpuchar.h"
#include "model/cache.h"

/* A point joins a plateau while its latency is within this factor of the
 * plateau's median: above the noise of a latency measurement (a few %), below
 * the smallest step between levels worth naming. */
#define PLATEAU_TOL 0.12
/* ... and while it spans at least this factor of footprint: three points of
 * the finest planned sweep (2^(1/8) apart) span 1.19, while a run of points
 * that refinement put 3% apart on a gradual step spans less and is part of
 * the step, not a level. */
#define PLATEAU_MIN_SPAN 1.15

static int cmp_double(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;

    return (u > v) - (u < v);
}

/* Median of v[0..n) (n >= 1), using tmp as scratch. */
static double median(const double *v, int n, double *tmp)
{
    memcpy(tmp, v, (size_t)n * sizeof(*v));
    qsort(tmp, (size_t)n, sizeof(*tmp), cmp_double);
    return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

static bool within(double a, double ref)
{
    return fabs(log(a / ref)) <= log1p(PLATEAU_TOL);
}

struct run {
    int first, last;
    double med;
    bool weak; /* a stretch found by gap_runs, not a run within the tolerance */
};

/* Share of the accesses at footprint x that hit in a level of capacity c or
 * smaller ones, for random replacement (Lemeire eq. 6: hit ratio = C / F). */
static double hit(double c, double x)
{
    return c >= x ? 1.0 : c / x;
}

/* Basis function of level k (0-based) of nl levels at footprint x. */
static double basis(const double *cap, int nl, int k, double x)
{
    double hi = k == nl - 1 ? 1.0 : hit(cap[k], x);
    double lo = k == 0 ? 0.0 : hit(cap[k - 1], x);

    return hi - lo;
}

/* Solves the nl x nl system a * s = b in place (Gaussian elimination with
 * partial pivoting). Returns false when it is singular. */
static bool solve(double a[GC_CACHE_MAX_LEVELS][GC_CACHE_MAX_LEVELS], double *b, int nl, double *s)
{
    for (int c = 0; c < nl; c++) {
        int p = c;
        for (int r = c + 1; r < nl; r++)
            if (fabs(a[r][c]) > fabs(a[p][c]))
                p = r;
        if (fabs(a[p][c]) < 1e-300)
            return false;
        if (p != c) {
            for (int k = 0; k < nl; k++) {
                double t = a[c][k];
                a[c][k] = a[p][k];
                a[p][k] = t;
            }
            double t = b[c];
            b[c] = b[p];
            b[p] = t;
        }
        for (int r = c + 1; r < nl; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < nl; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int r = nl - 1; r >= 0; r--) {
        double v = b[r];
        for (int k = r + 1; k < nl; k++)
            v -= a[r][k] * s[k];
        s[r] = v / a[r][r];
    }
    return true;
}

/* For fixed capacities, the latencies minimising the relative squared error
 * (a linear least-squares problem); returns that error, INFINITY when the
 * system is singular. */
static double fit_latencies(const double *x, const double *y, int n, const double *cap, int nl,
                            double *lat)
{
    double a[GC_CACHE_MAX_LEVELS][GC_CACHE_MAX_LEVELS] = {{0}};
    double b[GC_CACHE_MAX_LEVELS] = {0};
    double err = 0;

    for (int i = 0; i < n; i++) {
        double w = 1.0 / (y[i] * y[i]), f[GC_CACHE_MAX_LEVELS];
        for (int k = 0; k < nl; k++)
            f[k] = basis(cap, nl, k, x[i]);
        for (int r = 0; r < nl; r++) {
            b[r] += w * f[r] * y[i];
            for (int c = 0; c < nl; c++)
                a[r][c] += w * f[r] * f[c];
        }
    }
    if (!solve(a, b, nl, lat))
        return INFINITY;
    for (int i = 0; i < n; i++) {
        double m = 0;
        for (int k = 0; k < nl; k++)
            m += lat[k] * basis(cap, nl, k, x[i]);
        err += (m - y[i]) * (m - y[i]) / (y[i] * y[i]);
    }
    return err;
}

/* Best capacity of step k in [lo, hi] with the others fixed: a grid in log
 * space, then a golden-section search around the best grid point (the error
 * is piecewise smooth in C, with kinks at the sample footprints). */
static void fit_step(const double *x, const double *y, int n, double *cap, int nl, int k, double lo,
                     double hi, double *lat)
{
    enum { GRID = 32 };
    double best = INFINITY, bc = cap[k], l0 = log(lo), l1 = log(hi);

    if (!(hi > lo))
        return;
    for (int g = 0; g <= GRID; g++) {
        cap[k] = exp(l0 + (l1 - l0) * g / GRID);
        double e = fit_latencies(x, y, n, cap, nl, lat);
        if (e < best) {
            best = e;
            bc = cap[k];
        }
    }
    double a = fmax(l0, log(bc) - (l1 - l0) / GRID), b = fmin(l1, log(bc) + (l1 - l0) / GRID);
    const double gr = 0.6180339887498949;
    for (int it = 0; it < 24; it++) {
        double c1 = b - gr * (b - a), c2 = a + gr * (b - a);
        cap[k] = exp(c1);
        double e1 = fit_latencies(x, y, n, cap, nl, lat);
        cap[k] = exp(c2);
        double e2 = fit_latencies(x, y, n, cap, nl, lat);
        if (e1 < best) {
            best = e1;
            bc = exp(c1);
        }
        if (e2 < best) {
            best = e2;
            bc = exp(c2);
        }
        if (e1 < e2)
            b = c2;
        else
            a = c1;
    }
    cap[k] = bc;
}

double gc__cache_model(const struct gc_cache_fit *f, double x)
{
    double cap[GC_CACHE_MAX_LEVELS], m = 0;
    int nl = f->nlevels;

    if (nl < 1)
        return NAN;
    for (int k = 0; k < nl; k++)
        cap[k] = f->level[k].capacity;
    for (int k = 0; k < nl; k++)
        m += f->level[k].latency_fit * basis(cap, nl, k, x);
    return m;
}

/* A level whose latency keeps rising with the footprint (more TLB misses,
 * longer page walks) climbs faster than a run can follow within the
 * tolerance of its median, and breaks up into pieces too short to count.
 * Where two runs are more than twice the tolerance apart, or after the last
 * run where the sweep ends higher, the points between get the longest
 * stretch of consecutive points within twice the tolerance of each other,
 * of minpts points over the plateau span, that lies between the two runs'
 * latencies (after the last run: that ends the sweep). It is a candidate
 * level, which the fit keeps only where the model needs it; the gaps on
 * either side of it are searched in turn. Returns the new number of runs
 * (at most 4 GC_CACHE_MAX_LEVELS). */
static int gap_runs(const double *x, const double *y, int n, int minpts, struct run *runs, int nr,
                    double *tmp)
{
    const double span = (1 + PLATEAU_TOL) * (1 + PLATEAU_TOL);

    for (int r = 0; r < nr && nr < 4 * GC_CACHE_MAX_LEVELS; r++) {
        bool tail = r + 1 == nr;
        int end = tail ? n : runs[r + 1].first;
        double below = runs[r].med, above = tail ? INFINITY : runs[r + 1].med;
        int ba = -1, bb = -1;
        if (!(above > below * span))
            continue;
        for (int a = runs[r].last + 1; a < end; a++) {
            double lo = y[a], hi = y[a];
            int b = a;
            while (b + 1 < end && fmax(hi, y[b + 1]) <= span * fmin(lo, y[b + 1])) {
                b++;
                lo = fmin(lo, y[b]);
                hi = fmax(hi, y[b]);
            }
            if (b - a + 1 >= minpts && x[b] >= x[a] * PLATEAU_MIN_SPAN && lo > below &&
                hi < above && (!tail || b == n - 1) && (ba < 0 || b - a > bb - ba)) {
                ba = a;
                bb = b;
            }
        }
        if (ba < 0)
            continue;
        double med = median(y + ba, bb - ba + 1, tmp);
        if (within(med, below) || within(med, above))
            continue;
        memmove(&runs[r + 2], &runs[r + 1], (size_t)(nr - r - 1) * sizeof(*runs));
        runs[r + 1] = (struct run){ba, bb, med, true};
        nr++;
        r--; /* the gap below the new run next, then the one above it */
    }
    return nr;
}

/* Splits the curve into runs of points within the tolerance of the run's
 * median; returns the number of runs kept as plateaus (enough points over
 * enough footprint), merged where two are the same level. */
static int find_plateaus(const double *x, const double *y, int n, struct run *runs, double *tmp)
{
    int minpts = n < 12 ? 2 : 3, nr = 0, s = 0;

    for (int i = 1; i <= n; i++) {
        if (i < n && within(y[i], median(y + s, i - s, tmp)))
            continue;
        if (i - s >= minpts && x[i - 1] >= x[s] * PLATEAU_MIN_SPAN && nr < 4 * GC_CACHE_MAX_LEVELS)
            runs[nr++] = (struct run){s, i - 1, median(y + s, i - s, tmp), false};
        s = i;
    }
    nr = gap_runs(x, y, n, minpts, runs, nr, tmp);
    /* A run that is no higher than the one before (a dip, noise), or not
     * distinguishable from it, continues that level: the two become one
     * plateau spanning both, the points between included. */
    int k = 0;
    for (int r = 0; r < nr; r++) {
        if (k > 0 && (runs[r].med <= runs[k - 1].med || within(runs[r].med, runs[k - 1].med))) {
            runs[k - 1].last = runs[r].last;
            runs[k - 1].weak = runs[k - 1].weak && runs[r].weak;
            runs[k - 1].med =
                median(y + runs[k - 1].first, runs[k - 1].last - runs[k - 1].first + 1, tmp);
            continue;
        }
        runs[k++] = runs[r];
    }
    return k;
}

/* Whether the model of nl levels (cap, lat) follows the points of run r
 * within the plateau tolerance: a plateau that the model without it
 * explains so well is the approach to the next level, not a level. The
 * rms of the whole fit cannot tell where other parts of the curve fit
 * badly (sharp steps, levels that rise with TLB misses): their residuals
 * would hide a real level's. */
static bool explains(const double *x, const double *y, const struct run *r, const double *cap,
                     const double *lat, int nl)
{
    for (int p = r->first; p <= r->last; p++) {
        double m = 0;
        for (int k = 0; k < nl; k++)
            m += lat[k] * basis(cap, nl, k, x[p]);
        if (!(m > 0) || !within(m, y[p]))
            return false;
    }
    return true;
}

/* Fits the capacities and latencies of the levels given by runs[0..nl):
 * each step starts midway (geometrically) between its plateaus and is refined
 * one at a time, two rounds. Step k is searched from the last point of its
 * plateau that is still at the plateau's level (lo[k]: a small step hides the
 * first misses within the tolerance) to the first point of the next plateau.
 * Returns the relative squared error. */
static double fit_all(const double *x, const double *y, int n, const struct run *runs,
                      const double *lo, int nl, double *cap, double *lat)
{
    for (int k = 0; k + 1 < nl; k++)
        cap[k] = sqrt(x[runs[k].last] * x[runs[k + 1].first]);
    for (int round = 0; round < 2; round++)
        for (int k = 0; k + 1 < nl; k++) {
            double a = lo[k], b = x[runs[k + 1].first];
            if (k > 0 && a < cap[k - 1] * 1.01)
                a = cap[k - 1] * 1.01;
            if (k + 2 < nl && b > cap[k + 1] / 1.01)
                b = cap[k + 1] / 1.01;
            fit_step(x, y, n, cap, nl, k, a, b, lat);
        }
    return fit_latencies(x, y, n, cap, nl, lat);
}

/* The last footprint of a run whose latency is within 3% of the run's
 * median: where the level certainly still holds the whole footprint. */
static double level_end(const double *x, const double *y, const struct run *r)
{
    double end = x[r->first];

    for (int i = r->first; i <= r->last; i++)
        if (y[i] <= r->med * 1.03)
            end = x[i];
    return end;
}

/* Whether the plateau of level k (points first..last) rises with the
 * footprint the way the fitted model says: the least-squares slope of the
 * data against the model over the plateau is at least one half. A plateau
 * over which the model itself hardly moves (less than 2% of the level's
 * latency) follows it by definition. */
static bool follows_model(const double *x, const double *y, int first, int last, const double *cap,
                          const double *lat, int nl, int k)
{
    double mlo = INFINITY, mhi = -INFINITY, sm = 0, sy = 0, smm = 0, smy = 0;
    int np = last - first + 1;

    if (np < 2)
        return true;
    for (int p = first; p <= last; p++) {
        double m = 0;
        for (int j = 0; j < nl; j++)
            m += lat[j] * basis(cap, nl, j, x[p]);
        mlo = fmin(mlo, m);
        mhi = fmax(mhi, m);
        sm += m;
        sy += y[p];
        smm += m * m;
        smy += m * y[p];
    }
    if (mhi - mlo < 0.02 * lat[k])
        return true;
    double var = smm - sm * sm / np;
    if (!(var > 0))
        return true;
    return (smy - sm * sy / np) / var >= 0.5;
}

/* Point i of y after a running median of three (the ends unchanged). */
static double smooth3(const double *y, int n, int i)
{
    if (i == 0 || i == n - 1)
        return y[i];
    double a = y[i - 1], b = y[i], c = y[i + 1];
    return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

/* The midpoint of the first interval starting above `from` that qualifies
 * (see gc__cache_refine_next), NAN when none does. */
static double refine_from(const double *x, const double *y, int n, double lim, double width,
                          double granule, double from)
{
    for (int i = 0; i + 1 < n; i++) {
        if (!(x[i] > from) || !(x[i] > 0) || !(x[i + 1] > x[i] * (1 + width)))
            continue;
        /* The latencies as gc__cache_detect sees them (a running median of
         * three), so that an isolated disturbed sample draws no points. */
        double a = smooth3(y, n, i), b = smooth3(y, n, i + 1);
        if (!(a > 0) || !(b > 0))
            continue;
        if (!(fabs(log(b / a)) > lim))
            continue;
        double mid = floor(sqrt(x[i] * x[i + 1]) / granule) * granule;
        if (!(mid > x[i]) || !(mid < x[i + 1])) {
            /* The midpoint rounds onto an end: any multiple of the granule
             * strictly inside will do. */
            mid = (floor(x[i] / granule) + 1) * granule;
            if (!(mid < x[i + 1]))
                continue;
        }
        return mid;
    }
    return NAN;
}

/* Refinement of a sampled staircase: see cache.h. */
double gc__cache_refine_next(const double *x, const double *y, int n, double jump, double width,
                             double granule, double after)
{
    double lim = log1p(jump);

    if (!x || !y || n < 2 || !(granule > 0))
        return NAN;
    /* Two passes: the intervals above `after`, then from the start. */
    for (int pass = 0; pass < 2; pass++) {
        double v = refine_from(x, y, n, lim, width, granule, pass ? -INFINITY : after);
        if (!isnan(v))
            return v;
    }
    return NAN;
}

/* The plateaus of the planned points (planned[i]; all points when planned is
 * NULL), mapped back to indices of the whole curve and widened over the
 * refined points next to them that are still at their level. Refined points
 * sit on steps, so they narrow the brackets of the steps but make no level
 * of their own: a gradual step sampled 3% apart would otherwise show short
 * runs of nearly equal latencies. work holds 3 n doubles. */
static int plateaus_of_planned(const double *x, const double *y, int n, const bool *planned,
                               struct run *runs, double *work)
{
    double *sx = work, *sy = work + n, *tmp = work + 2 * n;
    int *idx = NULL, np = 0, nl;

    if (!planned)
        return find_plateaus(x, y, n, runs, tmp);
    idx = malloc((size_t)n * sizeof(*idx));
    if (!idx)
        return -1;
    for (int i = 0; i < n; i++)
        if (planned[i]) {
            sx[np] = x[i];
            sy[np] = y[i];
            idx[np++] = i;
        }
    nl = np > 0 ? find_plateaus(sx, sy, np, runs, tmp) : 0;
    for (int k = 0; k < nl; k++) {
        runs[k].first = idx[runs[k].first];
        runs[k].last = idx[runs[k].last];
    }
    for (int k = 0; k < nl; k++) {
        int below = k > 0 ? runs[k - 1].last : -1, above = k + 1 < nl ? runs[k + 1].first : n;
        while (runs[k].first - 1 > below && !planned[runs[k].first - 1] &&
               within(y[runs[k].first - 1], runs[k].med))
            runs[k].first--;
        while (runs[k].last + 1 < above && !planned[runs[k].last + 1] &&
               within(y[runs[k].last + 1], runs[k].med))
            runs[k].last++;
    }
    free(idx);
    return nl;
}

int gc__cache_detect(const double *x, const double *y, int n, struct gc_cache_fit *out)
{
    return gc__cache_detect_refined(x, y, n, NULL, out);
}

/* More runs than levels: keep the longest. Returns the runs left. */
static int keep_longest(struct run *runs, double *lo, int nl)
{
    while (nl > GC_CACHE_MAX_LEVELS) {
        int w = 0;
        for (int k = 1; k < nl; k++)
            if (runs[k].last - runs[k].first < runs[w].last - runs[w].first)
                w = k;
        memmove(&runs[w], &runs[w + 1], (size_t)(nl - w - 1) * sizeof(*runs));
        memmove(&lo[w], &lo[w + 1], (size_t)(nl - w - 1) * sizeof(*lo));
        nl--;
    }
    return nl;
}

/* The candidate level the model needs least: the one whose removal hurts the
 * fit least (a stretch from gap_runs before a run) while the fit without it
 * still explains its points and stays within noise of the full fit (rms
 * `full`). -1 when every candidate is needed. cap and lat are scratch. */
static int least_needed(const double *x, const double *y, int n, const struct run *runs,
                        const double *lo, int nl, double full, double *cap, double *lat)
{
    struct run trial[4 * GC_CACHE_MAX_LEVELS];
    double tlo[4 * GC_CACHE_MAX_LEVELS];

    int best = -1;
    double best_rms = INFINITY;
    /* With three or more plateaus the first (the smallest cache)
     * and the last (the backing store) stay: only a plateau between
     * two others can be the approach to the next level. Dense
     * points on sharp steps, which eq. 6 cannot follow, would
     * otherwise let the fit drop a real end level as cheaply. */
    int j0 = nl >= 3 ? 1 : 0, j1 = nl >= 3 ? nl - 1 : nl, best_weak = -1;
    double weak_rms = INFINITY, lim = 1.25 * full + 0.004;
    for (int j = j0; j < j1; j++) {
        int m = 0;
        for (int k = 0; k < nl; k++) {
            if (k == j)
                continue;
            trial[m] = runs[k];
            tlo[m++] = lo[k];
        }
        /* A dropped plateau's points become part of the step. */
        double r = sqrt(fit_all(x, y, n, trial, tlo, m, cap, lat) / n);
        if (!explains(x, y, &runs[j], cap, lat, m))
            continue;
        if (r < best_rms) {
            best_rms = r;
            best = j;
        }
        if (runs[j].weak && r < weak_rms) {
            weak_rms = r;
            best_weak = j;
        }
    }
    /* A stretch between two runs and a run next to it can be one
     * level (the stretch on the step into it) and fit alike without
     * either: the stretch goes first. */
    if (best_weak >= 0 && weak_rms <= lim)
        return best_weak;
    if (best < 0 || !(best_rms <= lim))
        return -1;
    return best;
}

/* Level k of the fit: its place between the runs, its capacity, and its
 * latency (the plateau's median, corrected through the fit for the hits the
 * smaller levels still serve where the data follow eq. 6). tmp holds 2 n
 * doubles of scratch. */
static void fill_level(const double *x, const double *y, int n, const struct run *runs,
                       const double *lo, int nl, int k, const double *cap, const double *lat,
                       bool ok, struct gc_cache_fit *out, double *tmp)
{
    struct gc_cache_level *L = &out->level[k];
    int np = runs[k].last - runs[k].first + 1;

    L->first = runs[k].first;
    L->last = runs[k].last;
    if (k + 1 < nl) {
        L->capacity_lo = x[runs[k].last];
        L->capacity_hi = x[runs[k + 1].first];
        /* Without a fit (eq. 6 cannot follow steps sharper than random
         * replacement gives, e.g. a thrashing LRU-like cache sampled
         * densely) the capacity is the largest footprint still at the
         * plateau's latency: such a level holds what fits and nothing
         * more. */
        L->capacity = ok ? cap[k] : lo[k];
    } else {
        L->capacity = L->capacity_lo = L->capacity_hi = NAN;
    }
    L->latency_fit = ok ? lat[k] : runs[k].med;
    if (!ok || out->rms_rel > 0.05) {
        /* The fit failed or the steps are not the shape of eq. 6 (sharp
         * steps of a cache that thrashes): plain plateau medians. */
        L->latency = runs[k].med;
        return;
    }
    if (!follows_model(x, y, runs[k].first, runs[k].last, cap, lat, nl, k)) {
        /* Eq. 6 says this plateau still climbs (the smaller levels keep
         * a share C / F of the hits), the data say it is flat: the level
         * above kept nothing once the footprint outgrew it (LRU-like
         * thrashing). Taking out hits that did not happen would
         * overstate the latency, so the plain median stands. */
        L->latency = runs[k].med;
        return;
    }
    /* The plateau's median, with the share of accesses that smaller levels
     * still serve at each footprint taken out through the fit. */
    for (int i = 0; i < np; i++) {
        int p = runs[k].first + i;
        double m = 0;
        for (int j = 0; j < nl; j++)
            m += lat[j] * basis(cap, nl, j, x[p]);
        tmp[i] = y[p] - m + lat[k];
    }
    L->latency = median(tmp, np, tmp + n);
}

int gc__cache_detect_refined(const double *x, const double *y, int n, const bool *planned,
                             struct gc_cache_fit *out)
{
    struct run runs[4 * GC_CACHE_MAX_LEVELS];
    double cap[GC_CACHE_MAX_LEVELS], lat[GC_CACHE_MAX_LEVELS], lo[4 * GC_CACHE_MAX_LEVELS];
    double *tmp = NULL, err = INFINITY;
    int nl;

    if (!x || !y || !out || n < 1)
        return GC_EINVAL;
    memset(out, 0, sizeof(*out));
    out->rms_rel = NAN;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]) || x[i] <= 0 || y[i] <= 0)
            return GC_EINVAL;
        if (i > 0 && !(x[i] > x[i - 1]))
            return GC_EINVAL;
    }
    tmp = malloc(6 * (size_t)n * sizeof(*tmp));
    if (!tmp)
        return GC_ENOMEM;
    /* A running median of three removes isolated spikes (a sample disturbed
     * by other work) and keeps every step where it is. */
    double *yf = tmp + 2 * n;
    for (int i = 0; i < n; i++)
        yf[i] = smooth3(y, n, i);
    y = yf;
    nl = plateaus_of_planned(x, y, n, planned, runs, tmp + 3 * n);
    if (nl < 0) {
        free(tmp);
        return GC_ENOMEM;
    }
    for (int k = 0; k < nl; k++)
        lo[k] = level_end(x, y, &runs[k]);

    /* The slow approach of eq. 6 to the next level's latency (a hit ratio of
     * C / F) can look like a short plateau of its own. A candidate level is
     * kept only when the model needs it: candidates are dropped one at a time,
     * the one whose removal hurts least first (stretches from gap_runs before
     * runs), while the fit without it still follows its points within the
     * plateau tolerance and the whole fit stays within noise of the fit with
     * every candidate. */
    if (nl > GC_CACHE_MAX_LEVELS)
        nl = keep_longest(runs, lo, nl);
    if (nl > 0) {
        double full = sqrt(fit_all(x, y, n, runs, lo, nl, cap, lat) / n);
        while (nl > 1 && isfinite(full)) {
            int best = least_needed(x, y, n, runs, lo, nl, full, cap, lat);
            if (best < 0)
                break;
            memmove(&runs[best], &runs[best + 1], (size_t)(nl - best - 1) * sizeof(*runs));
            memmove(&lo[best], &lo[best + 1], (size_t)(nl - best - 1) * sizeof(*lo));
            nl--;
        }
        for (int k = 0; k < nl; k++)
            runs[k].med = median(y + runs[k].first, runs[k].last - runs[k].first + 1, tmp);
        err = fit_all(x, y, n, runs, lo, nl, cap, lat);
    }
    out->nlevels = nl;
    if (nl == 0)
        goto out;
    bool ok = isfinite(err);
    for (int k = 0; ok && k < nl; k++)
        ok = isfinite(lat[k]) && lat[k] > 0 && (k == 0 || lat[k] > lat[k - 1]);
    out->rms_rel = ok ? sqrt(err / n) : NAN;

    for (int k = 0; k < nl; k++)
        fill_level(x, y, n, runs, lo, nl, k, cap, lat, ok, out, tmp);
out:
    free(tmp);
    return 0;
}

/* ---- Coarse-to-fine sampling of a staircase over its planned grid -------- */

int gc__coarse_plan(int n, int stride, int *idx)
{
    int m = 0;

    if (n < 1 || !idx)
        return 0;
    if (stride < 1)
        stride = 1;
    for (int i = 0; i < n; i += stride)
        idx[m++] = i;
    if (idx[m - 1] != n - 1)
        idx[m++] = n - 1;
    return m;
}

/* y[i] after a running median of three (the ends unchanged), as the level
 * detection smooths the curve. */
static double med3(const double *y, int m, int i)
{
    if (i == 0 || i == m - 1)
        return y[i];
    double a = y[i - 1], b = y[i], c = y[i + 1];
    return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

int gc__coarse_fill_next(const int *idx, const double *y, int m, double jump, int cap)
{
    double lim = log1p(jump);

    if (!idx || !y || m < 2 || m >= cap || !(jump >= 0))
        return -1;
    for (int i = 0; i + 1 < m; i++) {
        if (idx[i + 1] - idx[i] < 2)
            continue;
        double a = med3(y, m, i), b = med3(y, m, i + 1);
        /* An unknown latency cannot say the stretch is flat. */
        if (!(a > 0) || !(b > 0) || fabs(log(b / a)) > lim)
            return idx[i] + (idx[i + 1] - idx[i]) / 2;
    }
    return -1;
}
