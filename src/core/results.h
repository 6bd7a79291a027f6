/* Builders for the results tree (the structs are public in gpuchar.h). */
#ifndef GC_CORE_RESULTS_H
#define GC_CORE_RESULTS_H

#include "gpuchar/gpuchar.h"

struct gc_results *gc__results_new(void);
/* Appends a benchmark row (zeroed, name/group set). NULL on ENOMEM. */
struct gc_bench_result *gc__results_add_bench(struct gc_results *r, const char *name,
                                              const char *group);
struct gc_series *gc__bench_add_series(struct gc_bench_result *b, const char *name,
                                       const char *x_name, const char *x_unit, const char *y_name,
                                       const char *y_unit);
/* stats may be NULL (a derived point); label may be NULL. */
int gc__series_add(struct gc_series *s, double x, double y, const struct gc_stats *stats,
                   const char *label);
/* The rule for a figure formed as the difference of two measurements (or
 * a positive multiple of one, or a fitted parameter), value with resolution
 * res in the same unit (gc__diff_resolution scaled alike, gc__line_fit):
 * true when |value| < res, the difference is below what the measurements
 * resolve. NAN res: resolved. */
bool gc__below_resolution(double value, double res);

/* Applies that rule to a metric already added: where |value| < res, the
 * value becomes NAN and the note begins "below resolution (< res unit)".
 * A negative value beyond its resolution (or with none measured) becomes
 * NAN too, its note beginning "not resolved": the quantities differenced
 * here are not negative, so such a value is no figure. Returns true when it
 * marked the metric. */
bool gc__metric_resolve(struct gc_metric *m, double res);

/* Adds such a figure as a metric: the value where it is resolved, else no
 * value (NAN) and a note that begins "below resolution (< res unit)",
 * never a negative or noise-sized number. note may be NULL. */
struct gc_metric *gc__bench_add_difference(struct gc_bench_result *b, const char *name,
                                           double value, double res, const char *unit,
                                           const char *note);

/* limit NAN when unknown; stats and note may be NULL. */
struct gc_metric *gc__bench_add_metric(struct gc_bench_result *b, const char *name, double value,
                                       const char *unit, double limit, const struct gc_stats *stats,
                                       const char *note);
void gc__bench_set_error(struct gc_bench_result *b, enum gc_bench_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void gc__context_info_init(struct gc_context_info *c);

/* Lookups by exact name; NULL when absent. */
const struct gc_bench_result *gc__results_find(const struct gc_results *r, const char *name);
const struct gc_metric *gc__bench_find_metric(const struct gc_bench_result *b, const char *name);
const struct gc_series *gc__bench_find_series(const struct gc_bench_result *b, const char *name);

#endif
