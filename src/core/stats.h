/* Descriptive statistics of a sample vector (median, spread, 95% CI). */
#ifndef GC_CORE_STATS_H
#define GC_CORE_STATS_H

#include "gpuchar/gpuchar.h"

/* Computes the statistics of x[0..n). n == 0 gives n = 0 and NAN fields.
 * x is not modified. The 95% CI half-width uses Student's t for n - 1
 * degrees of freedom. */
void gc__stats_compute(const double *x, int n, struct gc_stats *out);

/* Two-sided 95% Student t quantile for dof degrees of freedom (dof >= 1). */
double gc__t95(int dof);

/* Scales every location/spread field by k (cv unchanged); k > 0. */
void gc__stats_scale(struct gc_stats *s, double k);

/* The resolution of the difference a.median - b.median of two
 * measurements: their 95% half-widths combined in quadrature,
 * sqrt(a.ci95^2 + b.ci95^2). A measurement without a spread (fewer than two
 * samples) contributes the half-range of its samples, 0 for one sample; NAN
 * when neither has samples. */
double gc__diff_resolution(const struct gc_stats *a, const struct gc_stats *b);

/* A least-squares line y = a + b x with the resolution of each parameter. */
struct gc_line {
    double a, b;         /* intercept, slope; NAN with fewer than two distinct x */
    double a_res, b_res; /* resolutions; NAN unknown */
};

/* Fits y = a + b x over n points; u[i] (NULL: none) is point i's own 95%
 * half-width. Each resolution is the larger of the points' half-widths
 * carried through the fit (sqrt(sum(w_i^2 u_i^2)), w_i the weight of y_i in
 * the parameter) and, with more than two points, the 95% half-width from
 * the residuals (t(n - 2) x the parameter's standard error); NAN when
 * neither is known (two points without spreads). */
void gc__line_fit(const double *x, const double *y, const double *u, int n, struct gc_line *out);

/* Statistics of the reciprocal quantity k / x (e.g. bandwidth from time):
 * each sample is transformed, so the median is exact and spreads are right. */
void gc__stats_inverse(const double *x, int n, double k, struct gc_stats *out);

/* The p-th percentile (0 <= p <= 100) of x[0..n), interpolated linearly
 * between the order statistics at rank (n - 1) p / 100 (the definition R
 * calls type 7 and NumPy uses by default). NAN when n == 0 or p is outside
 * 0..100. x is not modified. */
double gc__percentile(const double *x, int n, double p);

/* The percentiles of x[0..n) at each of p[0..np) into out[0..np), sorting
 * once. Every out is NAN when n == 0. */
void gc__percentiles(const double *x, int n, const double *p, int np, double *out);

#endif
