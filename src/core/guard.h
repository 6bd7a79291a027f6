/* The limit guard and the plausibility floors, applied by the run to every
 * benchmark: a figure above its physical limit is a failed measurement, and
 * a figure far below a level measured in the same run is flagged. */
#ifndef GC_CORE_GUARD_H
#define GC_CORE_GUARD_H

#include "gpuchar/gpuchar.h"

/* How far above its limit a median may lie before it counts as impossible:
 * the limits are exact products of unit counts, rates and the observed
 * clock, so only the clock's own measurement error (well under 0.5%) stands
 * between an honest figure and its limit. */
#define GC_LIMIT_MARGIN 0.005

/* Checks every metric of b against its limit. A metric above limit x (1 +
 * GC_LIMIT_MARGIN) is not reported as a number (value and fraction become
 * NAN, the note says what was rejected) and b fails with a message naming
 * the metric, value, limit, the metric's own spread and the likely causes.
 * Returns the number of metrics rejected. */
int gc__limit_guard(struct gc_bench_result *b);

/* True for units whose figures cannot be negative: times and latencies
 * (s, ms, us, ns, ps, cycles, clk, cycles/..., ns/...), bandwidths (B/...)
 * and rates per second (.../s). */
bool gc__unit_nonnegative(const char *unit);

/* Checks every metric of b for a negative time, latency or bandwidth
 * (gc__unit_nonnegative): such a figure is a failed measurement, not a
 * number (value and fraction become NAN, the note says what was rejected)
 * and b fails with a message naming it. A difference too small to resolve
 * never gets here: it is reported "below resolution" without a value
 * (gc__bench_add_difference). Returns the number of metrics rejected. */
int gc__negative_guard(struct gc_bench_result *b);

/* A plausibility floor: metric of this benchmark should be at least
 * min_ratio x ref_metric of ref_bench (measured in the same run); below, a
 * warning (not a failure) saying why the figure is suspect. */
struct gc_floor {
    const char *metric;
    const char *ref_bench;
    const char *ref_metric;
    double min_ratio;
    const char *why; /* what a figure under the floor usually means */
};

/* Applies floors (terminated by an entry whose metric is NULL) to b,
 * looking up the reference in r. Appends to b->warning; returns the number
 * of warnings added. References that were not measured are skipped. */
int gc__plausibility(const struct gc_results *r, struct gc_bench_result *b,
                     const struct gc_floor *floors);

#endif
