/* Occupancy sweeps: launch shapes that put exactly w warps on every compute
 * unit (Lemeire §III, Volkov §5.7), and the per-warp timestamp analysis that
 * measures what one run of such a launch did (Lemeire's timeOfRun, Volkov
 * §5.5-5.6: per-SM execution time, warp latency, attained occupancy). */
#ifndef GC_CORE_SWEEP_H
#define GC_CORE_SWEEP_H

#include "core/occupancy.h"
#include "core/session.h"

/* Warps per CU to visit: every count up to 8, then steps of 2 up to 16, of 4
 * up to 32 and of 8 beyond, up to max_warps (inclusive, always visited).
 * Writes at most cap values; returns how many. */
int gc__sweep_warps(int max_warps, int *out, int cap);

/* A launch shape with w resident warps per CU: blocks of w / k warps, k
 * blocks per CU (k = 1 while a block can hold w warps), grid = k x CUs. */
struct gc_shape {
    int warps;         /* requested warps per CU */
    int block;         /* threads per block */
    int blocks_per_cu; /* k */
    unsigned grid;
    struct gc_occupancy occ; /* the dynamic shared memory that enforces k */
    bool enforced;           /* occupancy control applied (else a plain launch) */
};

/* Fills the shape for w warps per CU with kernel k. On devices with dynamic
 * shared memory and known limits the k blocks per CU are enforced through
 * gc__occupancy_set; elsewhere the grid is just k x CUs. GC_ERANGE when w
 * cannot be laid out (not a multiple of k, or above the device's limits). */
int gc__sweep_shape(struct gc_device *d, struct gc_kern *k, int warps, struct gc_shape *out);
/* warps per CU as *blocks equal blocks of *block threads (at most the
 * device's block size; simd threads a warp); GC_ERANGE where none divides. */
int gc__sweep_blocks(const struct gc_device_info *info, int simd, int warps, int *blocks,
                     int *block);

/* What one launch's per-warp records say (GC_KGEN_WARP_TIMESTAMPS: five u64
 * words per warp). Spans are per SM (clock64 is per SM) and summarised by
 * their median over SMs. */
struct gc_warp_times {
    int sms;                /* SMs that recorded warps */
    int warps;              /* warps recorded */
    double span_cycles;     /* median over SMs of last end - first start */
    double span_max_cycles; /* the slowest SM's span */
    double warp_cycles;     /* mean warp latency (end - start) */
    int occ_max_min;        /* min over SMs of the max concurrently resident warps */
    int occ_max_max;        /* max over SMs of the same */
    double occ_mean;        /* time-weighted mean resident warps, mean over SMs */
    double clock_mhz;       /* clock64 against globaltimer, median over SMs; NAN if short */
};

/* Analyses nwarps records. Records with a start after their end or a zero
 * timer are ignored (a warp that did not run). GC_EVERIFY when no warp ran. */
int gc__warp_times(const unsigned long long *ts, unsigned nwarps, struct gc_warp_times *out);

/* One occupancy point from the per-warp records of its launches: the one
 * engine that turns timestamps into a point, for the compute sweeps
 * (gc__measure_warps) and the latency-hiding benchmarks. Each launch's
 * analysis (gc__warp_times) is added; a launch is kept when it attained
 * exactly the requested occupancy on every SM and exceeded it on none
 * (Volkov §5.7). */
struct gc_occ_point {
    int warps;            /* requested warps per CU (0: no launch is kept) */
    int cap, n;           /* room for launches, launches added */
    int kept;             /* launches at the requested occupancy */
    int occ_min, occ_max; /* attained: min over launches of the least SM's most
                             resident warps, max of the busiest SM's; -1 none */
    double *span;         /* per launch: median span over SMs (cycles) */
    double *span_max;     /* per launch: the slowest SM's span */
    double *warp_cycles;  /* per launch: mean warp latency */
    double *clock_mhz;    /* per launch: observed SM clock, NAN unknown */
    bool *is_kept;
};

/* What gc__occ_point_values reports per launch. */
enum gc_occ_value { GC_OCC_SPAN, GC_OCC_SPAN_MAX, GC_OCC_WARP_CYCLES };

/* Room for cap launches at warps warps per CU; GC_ENOMEM. */
int gc__occ_point_init(struct gc_occ_point *p, int warps, int cap);
void gc__occ_point_free(struct gc_occ_point *p);

/* Adds one launch's analysis (ignored past cap); returns whether it was
 * kept. */
bool gc__occ_point_add(struct gc_occ_point *p, const struct gc_warp_times *wt);

/* Writes value v of the launches in the order they were added: the kept ones
 * when kept_only is set and some were kept, else all of them. Returns how
 * many. */
int gc__occ_point_values(const struct gc_occ_point *p, enum gc_occ_value v, bool kept_only,
                         double *out);

/* Median over every launch with a known clock of the observed SM clock
 * (MHz); NAN when none had one. */
double gc__occ_point_clock(const struct gc_occ_point *p);

/* One sweep point measured from in-kernel clocks: reps launches (after one
 * warm-up), each analysed with gc__warp_times. */
struct gc_warp_measurement {
    struct gc_stats cycles; /* per-SM span of one run (timeOfRun in cycles), over reps */
    struct gc_warp_times last;
    int occ_attained_min; /* min over reps of occ_max_min */
    int occ_attained_max; /* max over reps of occ_max_max */
    double clock_mhz;     /* median over reps */
};

/* Called around each timed launch of gc__measure_warps (not the warm-up):
 * before(u, rep) ahead of launch rep, after(u, rep) once it has run. A
 * non-zero return ends the measurement with that code. Either may be NULL.
 * It lets a caller verify the measured launches themselves (poison before,
 * read and check after) instead of launching again to check. */
struct gc_rep_hook {
    int (*before)(void *u, int rep);
    int (*after)(void *u, int rep);
    void *u;
};

/* Launches kernel k as l (count forced to 1) reps times; tsb holds nwarps
 * records and must be the kernel's timestamp argument. host is room for the
 * nwarps records on the host, which they are zeroed from and read back into
 * after every launch (pinned memory spares the driver a staging copy each
 * way); NULL: it is allocated for the call. hook may be NULL. */
int gc__measure_warps(struct gc_session *s, struct gc_kern *k, const struct gc_launch *l,
                      struct gc_buf *tsb, unsigned nwarps, unsigned long long *host, int reps,
                      const struct gc_rep_hook *hook, struct gc_warp_measurement *out);

/* Warps per CU for a sweep timed as whole kernels on a CPU device: 1, 2, 4,
 * ... up to max_warps (inclusive, always visited), at most cap values. A CPU
 * compute unit runs one work-group at a time, so a few doublings show its
 * curve; returns how many. */
int gc__sweep_doublings(int max_warps, int *out, int cap);

/* One sweep point timed as whole kernels, for devices without an in-kernel
 * clock (Lemeire's own timeOfRun, eqs. 3-5): kernel k launched as l (count
 * forced to 1) reps times after `warmup` untimed launches (0 where the
 * caller has just launched it), each launch timed by the device's events;
 * hook as in gc__measure_warps. seconds gets the launches' times. */
int gc__measure_runs(struct gc_session *s, struct gc_kern *k, const struct gc_launch *l, int warmup,
                     int reps, const struct gc_rep_hook *hook, struct gc_stats *seconds);

#endif
