/* Descriptive statistics of repeated samples: median, extremes, mean, sample
 * standard deviation, Student-t 95% confidence interval and CV. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

/* Samples up to this count are sorted in a stack buffer; more are copied to
 * the heap. 256 covers every measurement the engine makes. */
#define STACK_SAMPLES 256

/* Two-sided 95% quantiles t(0.975, dof) for dof = 1..30. */
static const double t975[30] = {
    12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836, 2.446911851,
    2.364624252,  2.306004135, 2.262157163, 2.228138852, 2.200985160, 2.178812830,
    2.160368656,  2.144786688, 2.131449546, 2.119905299, 2.109815578, 2.100922040,
    2.093024054,  2.085963447, 2.079613845, 2.073873068, 2.068657610, 2.063898562,
    2.059538553,  2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
};

double gc__t95(int dof)
{
    /* Beyond the table the Cornish-Fisher expansion of t around the normal
     * quantile z = 1.96 is accurate to better than 3e-8 for dof > 30 and
     * tends to the 1.96 asymptote. */
    const double z = 1.959963984540054;
    double z2 = z * z, n;

    if (dof < 1)
        return NAN;
    if (dof <= 30)
        return t975[dof - 1];
    n = (double)dof;
    return z + (z2 + 1) * z / (4 * n) + ((5 * z2 + 16) * z2 + 3) * z / (96 * n * n) +
           (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / (384 * n * n * n) +
           ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / (92160 * n * n * n * n);
}

/* Total order with NaN last, so that qsort's contract holds on any input. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);
    return (x > y) - (x < y);
}

static void stats_nan(struct gc_stats *out, int n)
{
    out->n = n;
    out->median = out->min = out->max = out->mean = out->stddev = NAN;
    out->ci95 = out->cv = NAN;
}

void gc__stats_compute(const double *x, int n, struct gc_stats *out)
{
    double stack[STACK_SAMPLES];
    double *sorted = stack;
    double sum = 0, ss = 0, mean;

    if (n <= 0 || !x) {
        stats_nan(out, 0);
        return;
    }
    out->n = n;
    out->min = out->max = x[0];
    for (int i = 0; i < n; i++) {
        sum += x[i];
        if (x[i] < out->min)
            out->min = x[i];
        if (x[i] > out->max)
            out->max = x[i];
    }
    /* Two passes: the deviations from the mean are summed, not x^2, so that
     * nanosecond-level spreads of values near 1e-3 keep their precision. */
    mean = sum / n;
    for (int i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    out->mean = mean;
    out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    out->ci95 = n > 1 ? gc__t95(n - 1) * out->stddev / sqrt((double)n) : NAN;
    out->cv = mean != 0 ? out->stddev / mean : NAN;

    /* The input stays untouched: the median is taken from a sorted copy. A
     * failed allocation leaves only the median unknown. */
    if (n > STACK_SAMPLES)
        sorted = malloc((size_t)n * sizeof(*sorted));
    if (!sorted) {
        out->median = NAN;
        return;
    }
    memcpy(sorted, x, (size_t)n * sizeof(*sorted));
    qsort(sorted, (size_t)n, sizeof(*sorted), cmp_double);
    out->median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    if (sorted != stack)
        free(sorted);
}

void gc__stats_scale(struct gc_stats *s, double k)
{
    s->median *= k;
    s->min *= k;
    s->max *= k;
    s->mean *= k;
    s->stddev *= k;
    s->ci95 *= k;
}

/* One measurement's share of a difference's resolution (stats.h). */
static double half_width(const struct gc_stats *s)
{
    if (s->n >= 2 && isfinite(s->ci95))
        return s->ci95;
    return s->n >= 1 && isfinite(s->max - s->min) ? 0.5 * (s->max - s->min) : NAN;
}

double gc__diff_resolution(const struct gc_stats *a, const struct gc_stats *b)
{
    double ua = half_width(a), ub = half_width(b);

    if (isnan(ua) && isnan(ub))
        return NAN;
    ua = isnan(ua) ? 0 : ua;
    ub = isnan(ub) ? 0 : ub;
    return sqrt(ua * ua + ub * ub);
}

void gc__line_fit(const double *x, const double *y, const double *u, int n, struct gc_line *out)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0, pa = 0, pb = 0, ssr = 0;
    bool known = false;

    out->a = out->b = out->a_res = out->b_res = NAN;
    for (int i = 0; i < n; i++) {
        mx += x[i] / n;
        my += y[i] / n;
    }
    for (int i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (n < 2 || !(sxx > 0))
        return;
    out->b = sxy / sxx;
    out->a = my - out->b * mx;
    for (int i = 0; i < n; i++) {
        double wb = (x[i] - mx) / sxx, wa = 1.0 / n - mx * wb;
        double r = y[i] - out->a - out->b * x[i], ui = u && isfinite(u[i]) ? u[i] : 0;

        known = known || ui > 0;
        pb += wb * wb * ui * ui;
        pa += wa * wa * ui * ui;
        ssr += r * r;
    }
    if (known) {
        out->b_res = sqrt(pb);
        out->a_res = sqrt(pa);
    }
    if (n > 2) {
        double s2 = ssr / (n - 2), t = gc__t95(n - 2);
        double rb = t * sqrt(s2 / sxx), ra = t * sqrt(s2 * (1.0 / n + mx * mx / sxx));

        out->b_res = known ? fmax(out->b_res, rb) : rb;
        out->a_res = known ? fmax(out->a_res, ra) : ra;
    }
}

void gc__stats_inverse(const double *x, int n, double k, struct gc_stats *out)
{
    double stack[STACK_SAMPLES];
    double *y = stack;

    if (n <= 0 || !x) {
        stats_nan(out, 0);
        return;
    }
    if (n > STACK_SAMPLES)
        y = malloc((size_t)n * sizeof(*y));
    if (!y) {
        stats_nan(out, n);
        return;
    }
    for (int i = 0; i < n; i++)
        y[i] = k / x[i];
    gc__stats_compute(y, n, out);
    if (y != stack)
        free(y);
}

void gc__percentiles(const double *x, int n, const double *p, int np, double *out)
{
    double stack[STACK_SAMPLES];
    double *sorted = stack;

    for (int i = 0; i < np; i++)
        out[i] = NAN;
    if (n <= 0 || !x)
        return;
    if (n > STACK_SAMPLES)
        sorted = malloc((size_t)n * sizeof(*sorted));
    if (!sorted)
        return;
    memcpy(sorted, x, (size_t)n * sizeof(*sorted));
    qsort(sorted, (size_t)n, sizeof(*sorted), cmp_double);
    for (int i = 0; i < np; i++) {
        if (!(p[i] >= 0 && p[i] <= 100))
            continue;
        double rank = (n - 1) * p[i] / 100.0;
        int lo = (int)floor(rank);
        int hi = lo + 1 < n ? lo + 1 : lo;
        out[i] = sorted[lo] + (rank - lo) * (sorted[hi] - sorted[lo]);
    }
    if (sorted != stack)
        free(sorted);
}

double gc__percentile(const double *x, int n, double p)
{
    double v;

    gc__percentiles(x, n, &p, 1, &v);
    return v;
}
