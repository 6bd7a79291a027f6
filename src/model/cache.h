/* Cache-level detection from a latency staircase (Lemeire et al. SVI-C,
 * varying-size random walk): the plateaus of latency against footprint are
 * the levels, each level's latency is its plateau, and each capacity is where
 * the latency leaves the plateau, refined by fitting eq. 6 around the step;
 * and where to sample the staircase (gc__cache_refine_next, the coarse
 * pass of gc__coarse_plan and gc__coarse_fill_next). */
#ifndef GC_MODEL_CACHE_H
#define GC_MODEL_CACHE_H

#include <stdbool.h>

#define GC_CACHE_MAX_LEVELS 8

struct gc_cache_level {
    /* Median over the plateau's points of the latency with the hits that the
     * smaller levels still give subtracted (the fitted model's residuals
     * added to the fitted latency); for the first level simply the plateau's
     * median. Same unit as y. */
    double latency;
    double latency_fit; /* the level's latency in the eq. 6 fit */
    /* Bytes (x unit) of footprint that fit in this level: the capacity C of
     * the eq. 6 fit of the step that ends the plateau; where the fit failed
     * (rms_rel NAN), the largest footprint whose latency is within 3% of
     * the plateau's median. NAN for the last level, whose end the sweep did
     * not reach. */
    double capacity;
    /* The last footprint on this plateau and the first on the next one: the
     * step lies between them. NAN for the last level. */
    double capacity_lo, capacity_hi;
    int first, last; /* indices of the plateau's first and last points */
};

struct gc_cache_fit {
    int nlevels; /* plateaus found, the last one being the backing store */
    struct gc_cache_level level[GC_CACHE_MAX_LEVELS];
    double rms_rel; /* root-mean-square relative residual of the fit */
};

/* Detects the levels of the staircase y(x): x footprints strictly increasing
 * and > 0, y latencies finite and > 0, n points. y is first smoothed by a
 * running median of three (isolated disturbed samples go, steps stay where
 * they are). A plateau is a run of at
 * least 3 points (2 when n < 12) spanning at least a factor 1.15 of
 * footprint, whose latencies stay within 12% of the
 * run's median; runs closer than that to each other, or lower than the one
 * before, are one level. Between two plateaus more than 1.12^2 apart, and
 * after the last one, the longest stretch of as many points over as much
 * footprint whose latencies stay within 1.12^2 of each other is a candidate
 * level too (a level that rises with TLB misses). Candidates that the model
 * explains as the approach to the next level are dropped. With K + 1
 * plateaus the whole curve is then fitted
 * by the generalisation of eq. 6 to K caches with random replacement,
 *   y(F) = sum_k L_k (min(1, C_k / F) - min(1, C_{k-1} / F)),
 * C_0 = 0 and C_{K+1} = infinity: the fraction of accesses served by level k
 * is the share of the footprint that fits in it but not in the level above.
 * Returns 0 (out->nlevels may be 0 when no plateau exists, 1 when the curve
 * is flat), or GC_EINVAL for bad input. */
int gc__cache_detect(const double *x, const double *y, int n, struct gc_cache_fit *out);

/* The same for a curve whose planned sweep was refined where the latency
 * steps: only the points with planned[i] set make plateaus (a gradual step
 * sampled densely would otherwise show short runs of nearly equal
 * latencies); a plateau then extends over the refined points beside it that
 * are still at its level, and every point takes part in the fit. planned
 * NULL: every point is planned (gc__cache_detect). */
int gc__cache_detect_refined(const double *x, const double *y, int n, const bool *planned,
                             struct gc_cache_fit *out);

/* The fitted model's latency at footprint x (NAN when no level was found). */
double gc__cache_model(const struct gc_cache_fit *f, double x);

/* Adaptive sampling of a staircase: the next footprint to measure so that
 * the steps get points on them. An interval [x[i], x[i+1]] of the sorted
 * curve (x increasing, y > 0) qualifies when its latency changes by more
 * than the factor 1 + jump (y smoothed by the running median of three that
 * gc__cache_detect applies, so that one disturbed sample draws no points)
 * and its width x[i+1] / x[i] exceeds 1 + width. Takes the first qualifying
 * interval that starts above `after`, else the first of all, and returns
 * its geometric midpoint rounded down to a multiple of granule (> 0);
 * intervals with no multiple of granule strictly inside are passed over.
 * Passing the previous answer as `after` splits each step once per round,
 * from the smallest footprint up, so that a budget cut short still leaves
 * points on every step. Returns NAN when no interval qualifies (the curve
 * is then sampled finely enough at every step). */
double gc__cache_refine_next(const double *x, const double *y, int n, double jump, double width,
                             double granule, double after);

/* ---- Coarse-to-fine sampling of a latency staircase over a planned grid of
 * footprints: every stride-th footprint first, then the grid's footprints
 * between coarse ones only where the latency climbs, so that flat stretches
 * cost a fraction of their points and every step keeps the grid's full
 * resolution. */

/* The grid indices of the coarse pass over a grid of n footprints: 0, stride,
 * 2 stride, ... and n - 1 (the sweep's ends always), ascending, into idx
 * (room for n). stride < 1 counts as 1 (every footprint). Returns how many. */
int gc__coarse_plan(int n, int stride, int *idx);

/* The next grid index to measure given the m grid indices measured so far
 * (idx ascending) and their latencies y (> 0): the middle index of the first
 * pair of neighbours (smallest footprints first) that are more than one grid
 * step apart and whose latencies differ by more than the factor 1 + jump,
 * y smoothed by the running median of three that the level detection applies
 * (an isolated disturbed sample draws no points; a step stays where it is).
 * Bisecting so until no such pair remains fills every climbing stretch to
 * the grid's resolution and leaves flat ones coarse. Returns -1 when no pair
 * qualifies, when m has reached cap (the most points the sweep may hold), or
 * for bad input. */
int gc__coarse_fill_next(const int *idx, const double *y, int m, double jump, int cap);

#endif
