/* The text report's section for application benchmarks (apptext.c). */
#ifndef GC_REPORT_APPTEXT_H
#define GC_REPORT_APPTEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "gpuchar/gpuchar.h"

/* The columns of a kernel's row: kernel, time, predicted, error, bound,
 * dominant, attained, peak, % of peak. */
#define GC_APP_NCOLS 9
#define GC_APP_MAXK 64

struct gc_app_row {
    char c[GC_APP_NCOLS][48];
};

/* The column titles, and whether a column is numeric (right-aligned). */
extern const char *const gc__app_titles[GC_APP_NCOLS];
extern const bool gc__app_numeric[GC_APP_NCOLS];

/* The rows of b's kernels (those with a "<kernel>.time" and a work
 * record), at most GC_APP_MAXK; returns how many. */
int gc__app_rows(const struct gc_bench_result *b, struct gc_app_row *rows);

/* Per application benchmark of r that ran, a table of its kernels: time,
 * predicted time, error, the bound, the dominant resource, its attained
 * rate, the measured peak and the percentage (ABOVE when over the peak),
 * then the median |error|. Nothing when r has no such benchmark. */
void gc__app_text(const struct gc_results *r, FILE *f);

#endif
