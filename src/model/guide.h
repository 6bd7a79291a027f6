/* The guide's rules (include/gpuchar/guide.h), one per optimization, over
 * a results tree; model/guide.c combines them. */
#ifndef GC_MODEL_GUIDE_H
#define GC_MODEL_GUIDE_H

#include "gpuchar/guide.h"

/* Thresholds (docs/methodology.md, "The guide"). */
#define GC_GUIDE_PAYS_PCT 25.0     /* an expected gain this large pays off */
#define GC_GUIDE_SMALL_PCT 5.0     /* ... this large is small; below, none */
#define GC_GUIDE_MEASURED_PCT 10.0 /* a measured improvement below this is no class's */
#define GC_GUIDE_CACHED 0.5        /* smallest-footprint latency / largest: cached below */
#define GC_GUIDE_LOCAL 0.5         /* local latency / cache-hit latency: local pays below */
#define GC_GUIDE_VARIANCE 2.0      /* branch-penalty spread (max / min): high from here */
#define GC_GUIDE_STENCIL_LOADS 5   /* loads of u per point of the 5-point stencil */
#define GC_GUIDE_STENCIL_OPS 6     /* fp32 operations per interior point */
#define GC_GUIDE_STENCIL_BYTES 12  /* DRAM bytes per point: u and f read, un written */

/* A benchmark's row when it ran (ok or interrupted: its figures are
 * numbers); NULL otherwise. */
const struct gc_bench_result *gc__guide_bench(const struct gc_results *r, const char *bench);
/* A figure's value by "bench:metric" or "bench:series" (the series' best
 * point); NAN when absent. */
double gc__guide_metric(const struct gc_results *r, const char *bench, const char *metric,
                        const char **unit);
double gc__guide_series_max(const struct gc_results *r, const char *bench, const char *series,
                            const char **unit);
/* The smallest-footprint and largest-footprint points of a staircase
 * series (false when it has fewer than two points). */
bool gc__guide_series_ends(const struct gc_results *r, const char *bench, const char *series,
                           double *first, double *last);
/* Adds a figure to it (silently full). */
void gc__guide_fig(struct gc_guide_item *it, const char *bench, const char *name, double value,
                   const char *unit);
/* verdict from an expected gain. */
enum gc_guide_verdict gc__guide_verdict_of(double gain_pct);

void gc__guide_rule_vec(const struct gc_results *r, struct gc_guide_item *it);
void gc__guide_rule_mc(const struct gc_results *r, struct gc_guide_item *it);
void gc__guide_rule_be(const struct gc_results *r, struct gc_guide_item *it);
void gc__guide_rule_wide(const struct gc_results *r, struct gc_guide_item *it);
void gc__guide_rule_occ(const struct gc_results *r, struct gc_guide_item *it);

#endif
