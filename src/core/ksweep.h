/* Kernel sweeps: a benchmark described as one axis of configurations (a
 * planned grid of x values: footprints, strides, warps per CU) and a hook
 * that measures the kernel at one x. The runner owns the order of the
 * points (the planned grid, coarse to fine where the description asks, then
 * points added where the measured value steps), the stop and time rules,
 * the curve and its series; what is measured, how it is verified and what
 * the curve means stay with the description. */
#ifndef GC_CORE_KSWEEP_H
#define GC_CORE_KSWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/results.h"
#include "core/session.h"
#include "core/stats.h"

/* Values a point carries: each is one series of the curve (e.g. cycles and
 * ns per load, or operations per cycle and per second). */
#define GC_KSWEEP_NY 2

/* One measured x of a sweep. */
struct gc_ksweep_pt {
    double x;
    double y[GC_KSWEEP_NY];           /* NAN where unknown */
    struct gc_stats st[GC_KSWEEP_NY]; /* their spread; n = 0: none */
    double mhz;                       /* SM clock observed, NAN unknown */
    bool planned;                     /* false: added by refinement */
    const char *label;                /* the point's label in every series, NULL none */
};

/* The points of a sweep, in x order. */
struct gc_ksweep_curve {
    struct gc_ksweep_pt *pt; /* max_points entries (gc__ksweep_curve_init) */
    int n;
    int planned;   /* points of the planned sweep; the others were added by refinement */
    bool complete; /* the planned sweep ran to its end (no stop cut it short) */
};

/* Series k of a curve: y[k] against x. name NULL: not written. */
struct gc_ksweep_series {
    const char *name, *x_name, *x_unit, *y_name, *y_unit;
};

/* Measures the kernel at x into p (x, y, st, mhz, label; the runner sets
 * planned). i numbers the point: the planned grid's index, then ngrid, ngrid
 * + 1, ... for the added ones (a seed may depend on it). A non-zero return
 * ends the sweep with that code. */
typedef int (*gc_ksweep_point_fn)(void *u, size_t x, int i, struct gc_ksweep_pt *p);

/* Where to sample (the placement rules of a staircase live with its
 * analysis; see model/cache.h for the ones the latency sweeps use). */
typedef int (*gc_ksweep_coarse_fn)(int n, int stride, int *idx);
typedef int (*gc_ksweep_fill_fn)(const int *idx, const double *y, int m, double jump, int cap);
typedef double (*gc_ksweep_refine_fn)(const double *x, const double *y, int n, double jump,
                                      double width, double granule, double after);

/* A kernel sweep as data. */
struct gc_ksweep_desc {
    /* The axis: the planned grid, ascending, and the most points the curve
     * may hold (refinement included). */
    const size_t *grid;
    int ngrid;
    int max_points;
    /* Coarse to fine: coarse(ngrid, stride) gives the grid indices measured
     * first (NULL: all of them); with fewer than min_coarse of them the whole
     * grid is measured instead. fill(idx, y, m, fill_jump, max_points) then
     * gives the next grid index to measure between them, or -1 (NULL: none). */
    gc_ksweep_coarse_fn coarse;
    int stride, min_coarse;
    gc_ksweep_fill_fn fill;
    double fill_jump;
    /* Refinement after the planned grid: up to budget points at
     * refine(x, y, n, refine_jump, refine_width, granule, previous answer),
     * NAN ending it (NULL: none). refine_time_share > 0 also ends it once it
     * has taken that share of the planned sweep's time (devices whose points
     * last long). */
    gc_ksweep_refine_fn refine;
    int budget;
    double refine_jump, refine_width;
    size_t granule;
    double refine_time_share;
    /* The value that steers the fill and the refinement (an index of y). */
    int steer;
    /* The per-point work, its verification included. */
    gc_ksweep_point_fn point;
    void *u;
    /* The series the curve is written as, in this order. */
    struct gc_ksweep_series series[GC_KSWEEP_NY];
};

/* The geometric grid from lo to hi with per_oct points per octave, each a
 * multiple of granule and at least 2 granules, ascending and distinct, hi
 * (rounded down to granule) the last; at most cap values. Returns how many. */
int gc__ksweep_grid(size_t lo, size_t hi, int per_oct, size_t granule, size_t *out, int cap);

/* Room for max_points points; GC_ENOMEM. */
int gc__ksweep_curve_init(struct gc_ksweep_curve *cv, int max_points);
void gc__ksweep_curve_free(struct gc_ksweep_curve *cv);

/* Runs the sweep d into cv (initialised for d->max_points): the planned
 * grid, then the refinement, both ending early when the session is
 * stopped. */
int gc__ksweep_run(struct gc_session *s, const struct gc_ksweep_desc *d,
                   struct gc_ksweep_curve *cv);

/* Adds the curve's series to r (each point whose value is finite) and
 * returns its points as arrays, malloc'ed together in *xs: x, then y[0],
 * y[1], ... (n each); which points were planned in *planned (malloc'ed). */
int gc__ksweep_series(struct gc_bench_result *r, const struct gc_ksweep_desc *d,
                      const struct gc_ksweep_curve *cv, double **xs, bool **planned);

/* Time per unit of work from launch times of a short kernel (warm + units
 * units) and a long one (warm + 2 units), paired in sorted order (sorted in
 * place): the difference, which cancels the launch overhead and the warm
 * part, where the overhead it implies is neither negative nor above
 * max_overhead of the short kernel's time; else the tighter of the two
 * kernels' upper bounds (time / units, overhead included), labelled. Each
 * estimate is multiplied by scale; st gets their statistics, *best the pair
 * of minima's, *how its label (NULL: the difference). GC_ENOMEM. */
int gc__ksweep_diff(double *t1, int n1, double *t2, int n2, double warm, double units,
                    double max_overhead, double scale, struct gc_stats *st, double *best,
                    const char **how);

#endif
