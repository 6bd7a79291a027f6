/* The Hockney model of a transfer, t(n) = t0 + n / r_inf: the latency t0,
 * the asymptotic bandwidth r_inf and the half-performance size n_half =
 * t0 r_inf (the size at which half of r_inf is reached), fitted to measured
 * (size, time) points. */
#ifndef GC_MODEL_HOCKNEY_H
#define GC_MODEL_HOCKNEY_H

struct gc_hockney {
    double latency_s;     /* t0, >= 0 */
    double bandwidth;     /* r_inf, bytes/s */
    double n_half;        /* bytes: t0 r_inf */
    double max_rel_resid; /* largest |fit - measured| / measured over the points */
    int npoints;
};

/* Fits t = t0 + n / r_inf to n points (bytes[i], seconds[i]) by least squares
 * on relative errors (weights 1 / t^2), so that microsecond copies of a few
 * bytes weigh as much as second-long ones of a gigabyte. A negative intercept
 * (latency below the timer's reach) is refitted as a line through the origin,
 * t0 = 0. Points with a non-finite or non-positive size or time are skipped.
 * Returns 0, or GC_EINVAL when fewer than two distinct sizes remain or the
 * fitted slope is not positive. */
int gc__hockney_fit(const double *bytes, const double *seconds, int n, struct gc_hockney *out);

#endif
