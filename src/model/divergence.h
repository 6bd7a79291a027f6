/* Reading the branch-penalty table (uCLbench §3.3): the SIMD width that the
 * growth of time with the number of divergent branches implies, and the
 * check of the cutoff rule "once branching width x branch count >= SIMD
 * width, more branches cost nothing more". */
#ifndef GC_MODEL_DIVERGENCE_H
#define GC_MODEL_DIVERGENCE_H

#include <stdbool.h>

/* A doubling of the branch count that raises the time by less than this
 * factor counts as no growth (linear growth doubles it). */
#define GC_DIVERGENCE_FLAT 1.25
/* Times within this factor of the plateau count as on it. */
#define GC_DIVERGENCE_PLATEAU_TOL 1.15

/* rel[i] is the time with counts[i] branches (powers of two, ascending,
 * counts[0] == 1) of one work item each, relative to one branch. The SIMD
 * width is the branch count after which doubling the count stops raising the
 * time: the first counts[i] with rel[i+1] < GC_DIVERGENCE_FLAT x rel[i]
 * (1 when the table is flat from the start: no penalty). When the time still
 * grows at the last count, that count is returned and *saturated is false.
 * Returns 0 when the table is unusable (n < 2, counts[0] != 1, a
 * non-finite entry). saturated may be NULL. */
int gc__simd_width_from_branches(const int *counts, const double *rel, int n, bool *saturated);

/* Checks the cutoff rule on the full table: rel[w * ncounts + c] is the time
 * with counts[c] branches of widths[w] work items each, relative to one
 * branch of that width. For each width w the predicted cutoff is
 * c_w = max(1, simd / w) branches: the rule holds for w when every count at
 * or above c_w stays within GC_DIVERGENCE_PLATEAU_TOL of the time at c_w, and
 * every doubling below c_w raises the time by at least GC_DIVERGENCE_FLAT.
 * Returns the number of widths for which it holds (widths whose c_w lies
 * beyond the largest count are not checked and not counted); *checked gets
 * how many were checked. */
int gc__cutoff_rule_check(const int *widths, int nwidths, const int *counts, int ncounts,
                          const double *rel, int simd, int *checked);

#endif
