/* The time an application kernel should take, predicted from the work its
 * generator counted (model/appwork.h) and the profile a run measured: the
 * roofline over the measured peaks of each operation class and memory
 * level, refined with Volkov's latency bound (model/hiding.h) at the
 * kernel's occupancy; and, for gpumembench's Table IV, the resource the
 * kernel used most and the bandwidth it attained there beside the measured
 * peak. The formulas are in docs/methodology.md ("Predicted time"). */
#ifndef GC_MODEL_PREDICT_H
#define GC_MODEL_PREDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuchar/gpuchar.h"
#include "gpuchar/hiding.h"
#include "model/appwork.h"

/* The measured peaks a prediction uses, whole device, NAN where the run
 * has none; src says which benchmark and metric each came from. */
struct gc_peaks {
    double ops[GC_APP_OP_N]; /* operations per second */
    double bw[GC_APP_LVL_N]; /* bytes per second */
    double l1_wave;          /* L1 wavefronts per second: bw[L1] / GC_APP_L1_LINE */
    char ops_src[GC_APP_OP_N][80];
    char bw_src[GC_APP_LVL_N][80];
    char l1_wave_src[104];
};

/* NAN everywhere, no sources. */
void gc__peaks_init(struct gc_peaks *p);

/* The peaks of run r (benchmarks with status ok only): per operation class
 * the throughput of compute.fp32.fma, compute.fp64.fma, compute.int32.add,
 * compute.fp32.rcp; per level the highest of the figures listed in
 * docs/methodology.md (DRAM: memory.dram.read/copy/write, memory.bandwidth's
 * DRAM plateau; L2: memory.bandwidth load and copy; L1: memory.bandwidth;
 * shared: memory.shared; constant: memory.constant), and the L1's
 * wavefront rate from its bandwidth (one GC_APP_L1_LINE line a wavefront:
 * memory.bandwidth's L1 figure is read in whole lines). */
void gc__peaks_from_results(const struct gc_results *r, struct gc_peaks *p);

/* Resources a prediction may be bound by: the operation classes, the
 * levels' bytes, then the L1's requests (wavefronts). */
#define GC_PRED_RES_OPS 0
#define GC_PRED_RES_LVL GC_APP_OP_N
#define GC_PRED_RES_L1W (GC_APP_OP_N + GC_APP_LVL_N)
#define GC_PRED_RES_N (GC_APP_OP_N + GC_APP_LVL_N + 1)

struct gc_prediction {
    double roof_s;    /* max over classes and levels of work / peak; 0 when none applies */
    int roof_res;     /* the resource setting roof_s (GC_PRED_RES_*); -1 none */
    double volkov_s;  /* the latency-hiding model's time; NAN when not evaluated */
    int volkov_limit; /* its active bound (a gc_hiding resource or GC_HIDING_LATENCY); -1 */
    double warps;     /* occupancy used, warps of 32 threads per SM */
    double time_s;    /* max(roof_s, volkov_s) */
    bool by_volkov;   /* time_s is the latency model's */
    int unpriced;     /* work classes and levels with work but no peak */
};

/* Name of a resource: "fp32", ..., "dram", "l2", ..., "l1_wavefronts" ("?"
 * out of range). */
const char *gc__pred_res_name(int res);

/* A resource's work in w and its peak in p (NAN none); the unit of both,
 * "ops", "B" or "wavefronts", in *unit when unit is not NULL. */
void gc__pred_work_of(const struct gc_app_work *w, const struct gc_peaks *p, int res, double *work,
                      double *peak, const char **unit);
/* Where the peak of res came from. */
const char *gc__pred_src_of(const struct gc_peaks *p, int res);

/* Predicts the time of work w. hw may be NULL (roofline only);
 * warps_per_cu is the kernel's resident warps of 32 threads per CU (NAN:
 * all the launch has per CU, at most hw's maximum). The latency model's
 * group is one warp's whole work: alu = (fp32 + int32 operations) /
 * threads, sfu = sfu operations / threads (where hw has the unit), mem =
 * DRAM bytes / warps / hw's bytes per memory instruction; its time is the
 * warps per SM over the refined throughput at that occupancy. 0, or
 * GC_EINVAL (no work to price: no peak for any class or level with work,
 * no model). */
int gc__predict_time(const struct gc_app_work *w, const struct gc_peaks *p,
                     const struct gc_hiding_hw *hw, double warps_per_cu, struct gc_prediction *out);

/* gpumembench Table IV for one kernel: the resource of the highest
 * utilisation (attained rate over its measured peak, from the counted work
 * and the measured time), the attained rate and the peak. */
struct gc_attained {
    int res;     /* GC_PRED_RES_*; -1 when no resource with work has a peak */
    double rate; /* B/s, ops/s or wavefronts/s */
    double peak; /* same unit */
    bool above;  /* rate > peak: the count, the time or the peak is wrong */
};

void gc__attained(const struct gc_app_work *w, double time_s, const struct gc_peaks *p,
                  struct gc_attained *out);

/* Writes the prediction and Table IV metrics of every kernel of b that has
 * a work record and a "<kernel>.time" (docs/schema.md), replacing earlier
 * ones, and "prediction_error_median"; peaks and the latency model from run
 * (which may hold b). Returns the kernels predicted, or GC_ENOMEM. */
int gc__predict_bench(const struct gc_results *run, struct gc_bench_result *b);

#endif
