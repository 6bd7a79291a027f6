/* The text report's section for application benchmarks (apptext.c). */
#ifndef GC_REPORT_APPTEXT_H
#define GC_REPORT_APPTEXT_H

#include <stdio.h>

#include "gpuchar/gpuchar.h"

/* Per application benchmark of r that ran, a table of its kernels: time,
 * predicted time, error, the bound, the dominant resource, its attained
 * rate, the measured peak and the percentage (ABOVE when over the peak),
 * then the median |error|. Nothing when r has no such benchmark. */
void gc__app_text(const struct gc_results *r, FILE *f);

#endif
