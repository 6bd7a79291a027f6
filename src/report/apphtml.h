/* The HTML page's views of an application benchmark (apphtml.c). */
#ifndef GC_REPORT_APPHTML_H
#define GC_REPORT_APPHTML_H

#include <stdio.h>

#include "gpuchar/gpuchar.h"

/* For an application benchmark b that ran: uCLbench's Table 2 where b holds
 * it (best_variant, improvement, primary_contribution), then the table of
 * its kernels' measured and predicted time and Table IV columns with the
 * median |error|. Nothing for other benchmarks. */
void gc__app_html(FILE *f, const struct gc_bench_result *b);

#endif
