/* The sampling policy of one benchmark: how many samples, how long each,
 * and when to stop. Built once per benchmark from the profile, the user's
 * options, the benchmark's method rules and the device type, and passed by
 * value to the measurement engine. An explicit --repeat or --min-time wins
 * over every method's own rule; those rules shape the defaults only. */
#ifndef GC_CORE_SAMPLING_H
#define GC_CORE_SAMPLING_H

#include <stdbool.h>

#include "gpuchar/gpuchar.h"

struct gc_sampling {
    int warmup;             /* untimed launches before calibration (>= 1) */
    int min_samples;        /* never stop before this many samples */
    int max_samples;        /* stop at this many (the --repeat value) */
    double target_sample_s; /* one sample lasts at least this long (--min-time) */
    double rel_spread;      /* stop once ci95 / median <= this ... */
    double time_cap_s;      /* ... or once this much time went into sampling */
    bool redo_throttled;    /* measure a throttled sample again */
    int max_redo;           /* at most this many redone samples per measurement */
    /* The calibration's launch that lasts a sample is discarded instead of
     * counted as the first sample: for sustained, power-limited rates,
     * whose first tens of milliseconds run at a burst clock. */
    bool discard_calibration;
    /* Set by the user: --repeat (min_samples, max_samples) and --min-time
     * (target_sample_s). The method rules below leave such a field alone. */
    bool samples_set, sample_time_set;
};

/* The run's policy for a profile on a GPU (gpu) or another device; repeat
 * and min_time_ms are the user's settings when > 0. */
void gc__sampling_defaults(struct gc_sampling *p, enum gc_profile prof, bool gpu, int repeat,
                           double min_time_ms);

/* A benchmark's policy: the run's with its description's rules (a sample
 * of at least min_sample_s, discarding the calibration launch; at most
 * max_sampling_s of samples, half with --quick; 0: none). */
struct gc_sampling gc__sampling_for_bench(struct gc_sampling run, double min_sample_s,
                                          double max_sampling_s, bool quick);

/* Method rules; each leaves a field the user set alone. The least samples
 * (max_samples raised to it where lower): */
void gc__sampling_least(struct gc_sampling *p, int n);
/* The most samples (min_samples lowered to it where higher): */
void gc__sampling_most(struct gc_sampling *p, int n);
/* A sample lasts at least s: */
void gc__sampling_time_floor(struct gc_sampling *p, double s);
/* A sample lasts s (shorter or longer than the profile's): */
void gc__sampling_time(struct gc_sampling *p, double s);

/* What the results record of a policy (gc_bench_result.sampling). */
void gc__sampling_record(const struct gc_sampling *p, struct gc_sampling_info *out);

#endif
