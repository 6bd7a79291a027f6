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

/* The period over which a board's power controller holds the enforced
 * power limit. NVML documents the limit only as "the upper boundary for
 * the card's power draw; if the card's total power draw reaches this limit
 * the power management algorithm kicks in" (nvmlDeviceGetPowerManagementLimit)
 * and gives no averaging window; the power it reports and regulates on
 * Ampere (except GA100) and later is "averaged over 1 sec interval"
 * (NVML_FI_DEV_POWER_AVERAGE, nvmlDeviceGetPowerUsage). One second is
 * therefore the shortest span over which an average above the limit says
 * the limit was broken; shorter excursions above it are real. */
#define GC_POWER_LIMIT_PERIOD_S 1.0

enum gc_power_verdict {
    GC_POWER_WITHIN, /* at or below the limit */
    GC_POWER_WARN,   /* above it within the uncertainty, or for less than the period */
    GC_POWER_OVER,   /* above it by more than the uncertainty for at least the period */
};

/* Judges an average power power_w (uncertainty +-u_w, W) measured over
 * span_s seconds against an enforced limit limit_w (NAN: none, WITHIN).
 * WARN and OVER write a sentence naming the excursion into msg. */
enum gc_power_verdict gc__power_limit_check(double power_w, double u_w, double span_s,
                                            double limit_w, char *msg, size_t len);

/* Appends text to b->warning ("; "-separated, cut where it does not fit). */
void gc__bench_warn(struct gc_bench_result *b, const char *text);

#endif
