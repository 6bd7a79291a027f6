/* The measurement engine shared by every benchmark: warm-up, calibration of
 * launches per sample, repeated samples with a stopping rule, statistics in
 * seconds and cycles, clock and throttle monitoring, optional L2 flush. */
#ifndef GC_CORE_MEASURE_H
#define GC_CORE_MEASURE_H

#include "core/device.h"
#include "core/sampling.h"

struct gc_session;

/* In-kernel timestamps written by kernels generated with timestamps on: per
 * block {smid, clock64 start, clock64 end, globaltimer start, globaltimer end}
 * (GC_TS_WORDS u64 words), in a buffer passed as the kernel's last argument. */
#define GC_TS_WORDS 5

struct gc_timestamps {
    struct gc_buf *buf;
    unsigned nblocks;
};

struct gc_measurement {
    struct gc_stats seconds; /* per launch */
    struct gc_stats cycles;  /* per launch, at the observed clock; n == 0 unknown */
    double clock_mhz;        /* observed SM clock (median over samples) */
    double clock_max_mhz;    /* the highest clock a sample ran at (NAN unknown) */
    char clock_source[32];   /* "clock64/globaltimer", "sensor", "nominal", "none" */
    int launches_per_sample;
    int samples;
    int redone;           /* samples discarded (throttled) and measured again */
    int throttled;        /* samples kept although throttled */
    char stop_rule[64];   /* "spread<=0.50%", "max-samples", "time-cap" */
    double *per_sample_s; /* per launch, samples entries; owned, freed by _free */
    /* Per launch in cycles of each sample's own clock (samples entries;
     * NULL where no clock was observed); owned, freed by _free. Figures per
     * clock pair each sample's time with its clock: under a power limit the
     * clock moves from sample to sample. */
    double *per_sample_cycles;
    struct gc_context_info ctx;
};

/* Measures kernel k launched as l under the sampling policy p (l->count is
 * ignored: the engine chooses the launches per sample). ts may be NULL (then cycles come from
 * sensors or the nominal clock). flush, when not NULL, is a buffer larger than the last level cache
 * that is overwritten before every sample (cold-cache samples); flush_bytes is its size. Returns 0,
 * GC_EINTR when a stop was requested, or a backend error. */
int gc__measure(struct gc_session *s, struct gc_sampling p, struct gc_kern *k,
                const struct gc_launch *l, const struct gc_timestamps *ts, struct gc_buf *flush,
                size_t flush_bytes, struct gc_measurement *out);
void gc__measurement_free(struct gc_measurement *m);

/* Observed SM clock in MHz from one launch's timestamps (median over SMs of
 * elapsed clock64 / elapsed globaltimer); NAN when the span is too short. */
double gc__clock_from_timestamps(const unsigned long long *ts, unsigned nblocks);

#endif
