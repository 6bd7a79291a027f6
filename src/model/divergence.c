/* The SIMD width and cutoff rule read from the branch-penalty table (see
 * divergence.h). */
#include <math.h>
#include <stddef.h>

#include "model/divergence.h"

int gc__simd_width_from_branches(const int *counts, const double *rel, int n, bool *saturated)
{
    if (saturated)
        *saturated = false;
    if (n < 2 || counts[0] != 1)
        return 0;
    for (int i = 0; i < n; i++)
        if (!(isfinite(rel[i]) && rel[i] > 0))
            return 0;
    for (int i = 0; i + 1 < n; i++) {
        if (rel[i + 1] < GC_DIVERGENCE_FLAT * rel[i]) {
            if (saturated)
                *saturated = true;
            return counts[i];
        }
    }
    return counts[n - 1];
}

int gc__cutoff_rule_check(const int *widths, int nwidths, const int *counts, int ncounts,
                          const double *rel, int simd, int *checked)
{
    int holds = 0, nchecked = 0;

    for (int w = 0; w < nwidths; w++) {
        const double *row = rel + (size_t)w * ncounts;
        int cut = widths[w] >= simd ? 1 : simd / widths[w];
        int ci = -1;
        bool ok = true;

        for (int c = 0; c < ncounts; c++)
            if (counts[c] == cut)
                ci = c;
        if (ci < 0)
            continue;
        nchecked++;
        for (int c = 0; c < ncounts && ok; c++) {
            if (!(isfinite(row[c]) && row[c] > 0))
                ok = false;
            else if (c > ci)
                ok = row[c] <= GC_DIVERGENCE_PLATEAU_TOL * row[ci] &&
                     row[c] >= row[ci] / GC_DIVERGENCE_PLATEAU_TOL;
            else if (c > 0 && c <= ci)
                ok = row[c] >= GC_DIVERGENCE_FLAT * row[c - 1];
        }
        holds += ok;
    }
    if (checked)
        *checked = nchecked;
    return holds;
}
