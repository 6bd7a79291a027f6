/* gpuchar public API: the latency-hiding model of Volkov, "Understanding
 * Latency Hiding on GPUs" (2016), evaluated from the hardware parameters a
 * run measured (benchmark "hiding.params"). 'gpuchar model' uses nothing but
 * this header and gpuchar.h.
 *
 * Units: everything is per SM (an OpenCL compute unit) and per SM clock
 * cycle: occupancy in warps per SM, instruction throughputs in warp
 * instructions per cycle per SM, latencies in cycles. A mix is the
 * instruction content of one "group": count[t] instructions of type t, all
 * dependent except for ilp independent chains per warp; the model's
 * throughput is in groups per cycle per SM. Which metrics of the results
 * document feed the model, with their units and ranges, is the profile
 * contract of docs/schema.md ("The latency-hiding profile"). */
#ifndef GPUCHAR_HIDING_H
#define GPUCHAR_HIDING_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuchar.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Name of the benchmark whose metrics carry the model's parameters. */
#define GC_HIDING_BENCH "hiding.params"

/* Instruction types of a mix; each is served by its own unit. */
enum gc_hiding_type {
    GC_HIDING_ALU,    /* CUDA cores: fp32 add */
    GC_HIDING_SFU,    /* special function units: rsqrt */
    GC_HIDING_SHARED, /* shared memory loads */
    GC_HIDING_MEM,    /* global memory loads that miss the caches */
    GC_HIDING_NTYPES
};

/* Throughput resources of the worksheet (§3.6): one per type, then the
 * warp schedulers. */
#define GC_HIDING_ISSUE GC_HIDING_NTYPES
#define GC_HIDING_NRES (GC_HIDING_NTYPES + 1)

/* Which bound is active in a prediction: a resource (a type or
 * GC_HIDING_ISSUE), or the latency bound. */
#define GC_HIDING_LATENCY GC_HIDING_NRES

/* One functional unit. */
struct gc_hiding_unit {
    bool present;        /* parameters known (the profile may lack sfu, shared) */
    double latency;      /* register-dependency latency, cycles */
    double thru;         /* peak warp instructions per cycle per SM */
    double issue_cycles; /* issue slots per instruction, 1 normally */
};

/* Memory latency under contention, latency(m) = a + b m / (c - m), with m
 * the memory instruction throughput (§6.4). */
struct gc_hiding_contention {
    bool present;
    double a; /* cycles, about the unloaded latency */
    double b; /* cycles */
    double c; /* memory instructions per cycle per SM, above the peak */
};

/* The hardware parameters of the model. */
struct gc_hiding_hw {
    struct gc_hiding_unit unit[GC_HIDING_NTYPES];
    double issue_thru;         /* warp instructions issued per cycle per SM; may be INFINITY */
    double mem_bytes_per_inst; /* bytes per memory instruction */
    struct gc_hiding_contention cont;
    double max_warps; /* warps per SM */
    double clock_hz;  /* for GB/s */
    int sm_count;
};

/* Instructions of one group and the independent chains per warp. A memory
 * instruction is counted in units of mem_bytes_per_inst; mem_ilp is how
 * many of those units one instruction of the group moves at once (a warp's
 * 16-byte load is four 128-byte units in flight together), and divides the
 * memory latency once more. */
struct gc_hiding_mix {
    double count[GC_HIDING_NTYPES]; /* >= 0, at least one > 0 */
    double ilp;                     /* >= 1; divides the dependent latency */
    double mem_ilp;                 /* >= 1, or 0 taken as 1 */
};

/* A solution of the model at one occupancy. */
struct gc_hiding_point {
    double n;           /* occupancy, warps per SM */
    double thru;        /* groups per cycle per SM */
    int limit;          /* active bound: a resource or GC_HIDING_LATENCY */
    double latency;     /* cycles per group (after dividing by ILP) at thru */
    double mem_latency; /* cycles per memory instruction at thru */
    int iterations;     /* bisection steps; 0 for the basic model */
};

/* Name of a type, a resource or GC_HIDING_LATENCY ("alu", "sfu", "shared",
 * "mem", "issue", "latency"); "?" otherwise. Never NULL. */
GC_EXTERN const char *gc_hiding_name(int what);

/* Fills hw from the metrics of GC_HIDING_BENCH in r (the profile contract).
 * Returns 0, GC_ENOBENCH when the benchmark is absent or did not finish, or
 * GC_EINVAL for a missing metric, a wrong unit or a value out of range; err
 * names the benchmark or the metric. */
GC_EXTERN int gc_hiding_from_results(const struct gc_results *r, struct gc_hiding_hw *hw, char *err,
                                     size_t errlen);

/* Validates a mix against the hardware: counts finite and >= 0, at least one
 * instruction, ilp >= 1, every type used present. 0 or GC_EINVAL with the
 * reason in err. */
GC_EXTERN int gc_hiding_mix_check(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                                  char *err, size_t errlen);

/* Throughput bound of the mix, groups per cycle per SM (§3.6, §4.1), and
 * the resource that sets it (limit may be NULL). */
GC_EXTERN double gc_hiding_bound(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                                 int *limit);

/* Latency per group in cycles (§4.1): the sum of count x latency over the
 * types divided by ilp; with refined, the memory latency is taken at group
 * throughput x (the contention fit), else unloaded. */
GC_EXTERN double gc_hiding_latency(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                                   double x, bool refined);

/* The basic model at occupancy n > 0 warps per SM (§3.5, §4.1), and the
 * refined one, whose memory latency grows with memory throughput (§6.5;
 * equal to the basic model without contention parameters). 0 or
 * GC_EINVAL. */
GC_EXTERN int gc_hiding_basic(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                              double n, struct gc_hiding_point *out);
GC_EXTERN int gc_hiding_refined(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                                double n, struct gc_hiding_point *out);

/* Occupancy in warps per SM (not rounded) at which the basic or refined
 * model reaches fraction (0 < f <= 1) of the bound (§3.10, §4.5). INFINITY
 * when the refined latency diverges there; NAN for invalid input. */
GC_EXTERN double gc_hiding_needed(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                                  double fraction, bool refined);

/* Instructions of type t in execution per SM at group throughput x, by
 * Little's law (§4.6). */
GC_EXTERN double gc_hiding_in_execution(const struct gc_hiding_hw *hw,
                                        const struct gc_hiding_mix *mix, int t, double x,
                                        bool refined);

/* The cusp (§4.5): the ALU instructions per group, alpha, added to the mix
 * others (its ALU count ignored) at which the bound stops being set by a
 * resource independent of alpha, and the occupancy the basic model needs
 * there. 0, GC_ERANGE when there is no such alpha, or GC_EINVAL. */
GC_EXTERN int gc_hiding_cusp(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *others,
                             double *alpha, double *warps);

/* Whole-device GB/s of a rate in bytes per cycle per SM. */
GC_EXTERN double gc_hiding_gbps(const struct gc_hiding_hw *hw, double bytes_per_clk_sm);

#ifdef __cplusplus
}
#endif
#endif
