/* The kernel-timed occupancy sweep: on a device without an in-kernel clock
 * each point's launches are timed whole by the device's events (Lemeire's
 * own timeOfRun, eqs. 3-5), a CPU's launch repeated over runs of its
 * work-groups until it is long against its overhead. The description says
 * what a launch takes and checks, and turns a point's time into its values;
 * the timing is the runner's. */
#ifndef GC_CORE_KTSWEEP_H
#define GC_CORE_KTSWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/session.h"
#include "core/stats.h"
#include "core/sweep.h"

/* Threads per CU at the top of a CPU's sweep: a CPU runs one work-group per
 * CU at a time, whose work-items the compiler packs into SIMD vectors (16
 * fp32 lanes with AVX-512) and interleaves; 4 such vectors show it. */
#define GC_KTSWEEP_CPU_MAX_THREADS 64

/* One measured point, as the description's conversion gets it. */
struct gc_ktsweep_point {
    int warps;          /* warps per CU asked for */
    struct gc_shape sh; /* its launch shape (one run) */
    int runs;           /* runs of a CU's work-groups per launch (a CPU's), else 1 */
    size_t nthreads;    /* threads of one timed launch */
    /* One launch's time: on a CPU the fastest (other load on the host only
     * adds time), elsewhere the median of the timed launches. */
    double seconds;
    struct gc_stats st; /* the timed launches' times */
};

struct gc_ktsweep_desc {
    struct gc_kern *k;
    struct gc_arg *args; /* the kernel's arguments, the same at every point */
    int nargs;
    size_t max_threads; /* threads the buffers hold */
    const int *warps;   /* the points (gc__ktsweep_warps), ascending */
    int nw;
    int reps;            /* timed launches per point */
    double cpu_target_s; /* a CPU launch's length */
    /* Before a point's timed launches, its launch final (p->nthreads set):
     * the hook that checks them (gc_rep_hook). */
    int (*prepare)(void *u, const struct gc_ktsweep_point *p, struct gc_rep_hook *hook);
    /* After them, whenever prepare succeeded, with rc their outcome:
     * releases what prepare made and, with rc 0, takes the point (its
     * values into the description's curve). Returns the point's outcome. */
    int (*done)(void *u, const struct gc_ktsweep_point *p, int rc);
    void *u;
};

/* Warps per CU of a kernel-timed sweep on the device: every doubling up to
 * GC_KTSWEEP_CPU_MAX_THREADS threads on a CPU (every third one and the top
 * with quick), else the per-warp sweep's points (gc__sweep_warps) up to the
 * resident warps per CU. Returns how many, at most cap. */
int gc__ktsweep_warps(const struct gc_device_info *info, bool quick, int *out, int cap);

/* Measures d's points in order (until a stop request); a point the device
 * cannot lay out (more warps than the kernel's registers allow, a CPU point
 * that needs two work-groups per CU at once, more threads than the buffers
 * hold) is skipped, not passed on. Returns the first failure. */
int gc__ktsweep_run(struct gc_session *s, const struct gc_ktsweep_desc *d);

#endif
