/* Coarse-to-fine sampling of a latency staircase over a planned grid of
 * footprints: every stride-th footprint first, then the grid's footprints
 * between coarse ones only where the latency climbs, so that flat stretches
 * cost a fraction of their points and every step keeps the grid's full
 * resolution. */
#ifndef GC_MODEL_COARSE_H
#define GC_MODEL_COARSE_H

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
