/* The latency-hiding model of Volkov, "Understanding Latency Hiding on GPUs"
 * (2016): warp throughput as the minimum of a latency bound (occupancy over
 * the warp latency, Little's law) and the hardware throughput bounds, its
 * refinement with a memory latency that grows with memory throughput, the
 * occupancy needed to reach a fraction of the bound, and the profile
 * contract that feeds it from a results document.
 *
 * Units. Everything is per SM (an OpenCL compute unit) and per SM clock
 * cycle, as in the thesis (§4.1): occupancy n in warps per SM, instruction
 * throughputs in warp instructions per cycle per SM ("IPC/SM"), latencies in
 * cycles. The memory system is characterised in bytes per cycle per SM in
 * the profile and turned into memory instructions per cycle per SM by the
 * bytes one memory instruction moves (128 B for 32 threads reading 4 B each,
 * fully coalesced, as §4.1 assumes); the model works in instructions.
 *
 * A mix is the instruction content of one "group": count[t] instructions of
 * type t, all back-to-back dependent except for ILP independent chains per
 * warp. The thesis mix of §4.1 is the group {alu = alpha, mem = 1}, so the
 * group throughput of the model is its "memory throughput" (IPC/SM) and the
 * arithmetic throughput in adds per cycle per SM is 32 * alpha times it.
 *
 *   Latency   = (sum_t count[t] * lat[t]) / ilp                  (§4.1, §6.3)
 *   Bound     = min( min_t thru[t] / count[t],
 *                    issue_thru / sum_t count[t] * issue_cycles[t] )  (§3.6)
 *   basic     x = min(n / Latency, Bound)                        (§3.5, §4.1)
 *   refined   x = min(n / Latency(x), Bound), with the memory term of
 *             Latency(x) = a + b * m / (c - m), m = count[mem] * x  (§6.4, §6.5)
 *   needed    n(f) = f * Bound * Latency(f * Bound)              (§3.10, §4.5)
 *
 * ---- Profile contract ------------------------------------------------------
 * 'gpuchar model' reads a results document (docs/schema.md) and takes the
 * hardware parameters from the metrics of the benchmark named
 * GC_HIDING_BENCH ("hiding.params"), whose status must be "ok". Each metric
 * below is looked up by name; its "unit" must be the one listed, its "value"
 * finite and in range. Latencies are register-dependency latencies measured
 * with back-to-back dependent instructions of one type (§6.1, Table 6.2);
 * throughputs are the best sustained ones (§6.1, §6.3, Table 6.1).
 *
 *   required
 *   alu_latency_cycles         cycles       CUDA-core instruction (fp32 add) latency, > 0
 *   alu_thru_per_clk_sm        inst/clk/SM  peak CUDA-core warp instructions per cycle per SM
 *                                           without ILP (single issue factored in, §4.1), > 0
 *   mem_latency_cycles         cycles       unloaded latency of a coalesced load that misses
 *                                           every cache (pointer chase, one warp), > 0
 *   mem_thru_bytes_per_clk_sm  B/clk/SM     best sustained streaming read throughput, > 0
 *   mem_bytes_per_inst         B/inst       bytes one memory instruction of the latency and
 *                                           throughput measurements moves (128 = 32 x 4 B), > 0
 *   issue_thru_per_clk_sm      inst/clk/SM  warp instructions issued per cycle per SM, > 0
 *   max_warps_per_sm           warps/SM     most resident warps per SM, >= 1
 *   clock_hz                   Hz           SM clock observed while measuring, > 0
 *   sm_count                   SMs          SMs of the device, an integer >= 1
 *
 *   optional (the type is then unavailable to a mix, or the refinement off)
 *   sfu_latency_cycles         cycles       SFU (reciprocal square root) latency, > 0
 *   sfu_thru_per_clk_sm        inst/clk/SM  peak SFU warp instructions per cycle per SM, > 0
 *   shared_latency_cycles      cycles       shared-memory load latency, no conflicts, > 0
 *   shared_thru_per_clk_sm     inst/clk/SM  peak shared-memory loads per cycle per SM, > 0
 *   <type>_issue_cycles        cycles       issue slots one instruction of <type> (alu, sfu,
 *                                           shared, mem) takes, >= 1; default 1 (§4.7)
 *   contention_a_cycles        cycles       a of latency(x) = a + b x / (c - x), > 0  (§6.4)
 *   contention_b_cycles        cycles       b, >= 0
 *   contention_c_bytes_per_clk_sm B/clk/SM  c, > mem_thru_bytes_per_clk_sm
 *
 * A latency and its throughput come in pairs (both or neither), and so do
 * the three contention coefficients. c must exceed the measured peak: the
 * fitted latency diverges at c, and the peak was attained at a finite
 * latency (Table 6.5: c is above the peak on every GPU).
 *
 * The types a caller fills and reads are public (gpuchar/hiding.h), with
 * the functions a program outside the library needs; this header is the
 * library's own view, the fitting included.
 */
#ifndef GC_MODEL_HIDING_H
#define GC_MODEL_HIDING_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuchar/gpuchar.h"
#include "gpuchar/hiding.h"

/* A row of the throughput worksheet (Table 3.4): COUNT instructions per
 * warp that hold RESOURCE for CPI cycles each. */
struct gc_hiding_row {
    int resource; /* 0 .. GC_HIDING_NRES - 1 */
    double cpi;   /* cycles of exclusive use per instruction, per SM */
    double count; /* instructions per warp (or per group) */
};

/* The worksheet's totals: cycles per warp each resource is busy, and the
 * tightest, whose reciprocal bounds warp throughput. */
struct gc_hiding_sheet {
    double cycles[GC_HIDING_NRES];
    int tightest; /* resource with the most cycles; -1 when all are 0 */
    double tightest_cycles;
};

/* Name of a type or resource or GC_HIDING_LATENCY ("alu", "sfu", "shared",
 * "mem", "issue", "latency"); "?" otherwise. */
const char *gc__hiding_name(int what);

/* Fills the worksheet from NROWS rows (§3.6, Table 3.4). Rows with a
 * resource out of range are ignored. */
void gc__hiding_worksheet(const struct gc_hiding_row *rows, int nrows, struct gc_hiding_sheet *out);

/* Validates the hardware parameters (every present unit, issue, memory
 * bytes, contention, occupancy). Returns 0 or GC_EINVAL with a message. */
int gc__hiding_hw_check(const struct gc_hiding_hw *hw, char *err, size_t errlen);

/* Validates a mix against the hardware: counts finite and >= 0, at least one
 * instruction, ilp >= 1, every type used present. 0 or GC_EINVAL. */
int gc__hiding_mix_check(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, char *err,
                         size_t errlen);

/* Memory instruction latency at memory instruction throughput m (IPC/SM):
 * a + b m / (c - m) with contention (INFINITY for m >= c), else the
 * unloaded latency. */
double gc__hiding_mem_latency(const struct gc_hiding_hw *hw, double m, bool refined);

/* Latency bound per group, cycles (§4.1): sum of count * latency over the
 * types (the memory term divided by the mix's mem_ilp), divided by ILP;
 * with REFINED the memory latency is taken at group throughput X. */
double gc__hiding_latency(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, double x,
                          bool refined);

/* Throughput bound, groups per cycle per SM (§3.6, §4.1), and the resource
 * that sets it (may be NULL). */
double gc__hiding_bound(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, int *limit);

/* The basic model at occupancy n > 0 (§3.5, §4.1). 0 or GC_EINVAL. */
int gc__hiding_basic(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, double n,
                     struct gc_hiding_point *out);

/* The refined model at occupancy n > 0: the self-consistent throughput of
 * §6.5 found by bisection. Without contention parameters or memory
 * instructions it equals the basic model. 0 or GC_EINVAL. */
int gc__hiding_refined(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, double n,
                       struct gc_hiding_point *out);

/* Instructions of type T in execution per SM at group throughput X, by
 * Little's law: count[t] * x * latency of t at x (§4.6). Summed over the
 * types and divided by ILP they give the occupancy that sustains x. */
double gc__hiding_in_execution(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                               int t, double x, bool refined);

/* Occupancy (warps per SM, not rounded) at which the model reaches FRACTION
 * (0 < f <= 1) of the throughput bound: f * Bound * Latency(f * Bound), by
 * Little's law (§3.10, §4.5). INFINITY when the refined latency diverges
 * there; NAN for invalid input. */
double gc__hiding_needed(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                         double fraction, bool refined);

/* Bisection for a root of F on [lo, hi] where F(lo) < 0 < F(hi) and F is
 * increasing: halves the interval until it is narrower than tol (relative
 * to hi, and at most 200 times). *root is the midpoint of the last interval,
 * *iterations the halvings. 0, or GC_EINVAL when F does not change sign. */
int gc__hiding_bisect(double (*f)(double x, void *user), void *user, double lo, double hi,
                      double tol, double *root, int *iterations);

/* Where the cusp lies (§4.5): the arithmetic intensity alpha at which the
 * throughput bound of the mix OTHERS plus alpha ALU instructions stops being
 * set by a resource independent of alpha (memory, SFU, shared) and starts
 * being set by the CUDA cores or issue, and the occupancy the basic model
 * needs there (the maximum of the cusp). OTHERS' ALU count is ignored. 0, or
 * GC_ERANGE when no such alpha exists (the ALU-independent resources never
 * bind, or bind at every alpha), or GC_EINVAL. */
int gc__hiding_cusp(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *others,
                    double *alpha, double *warps);

/* ---- From measurements to parameters (§6.4, §6.6) ---------------------- */

/* The memory latency model latency(x) = a + b x / (c - x) fitted to
 * measured pairs of mean memory latency and attained memory throughput x
 * (§6.4, Table 6.5). x and c share a unit (B/clk/SM in the profile). */
struct gc_hiding_fit {
    double a, b, c;
    double rms_rel; /* root mean square relative residual over the envelope */
    int npoints;    /* pairs given (finite, positive) */
    int nenvelope;  /* pairs on the outer envelope, which the fit uses */
};

/* Fewest envelope points the fit accepts, and the least ratio between their
 * largest and smallest throughput. */
#define GC_HIDING_FIT_MIN 5
#define GC_HIDING_FIT_SPAN 2.0

/* Marks in ON the outer envelope of scattered (x, latency) samples: the
 * samples that no other sample beats with at least as much throughput at no
 * more latency (one of the two strictly). Samples below the envelope
 * attained less throughput at the same latency, which occupancy variation
 * does (§5.8); "preference to samples with higher throughputs" (§6.4).
 * Non-finite or non-positive pairs are never on it. Returns how many are. */
int gc__hiding_envelope(const double *x, const double *lat, int n, bool *on);

/* Fits a, b and c to the outer envelope of the N pairs: c is searched over
 * (m, 4m], m the larger of C_MIN and the largest x of all pairs (c must
 * exceed every attained throughput, and the measured peak passed as C_MIN:
 * the latency diverges at c), on a logarithmic grid refined by golden
 * section; for each c, a and b minimise the sum of squared relative
 * residuals (weighted linear least squares, b >= 0, a > 0). Returns 0;
 * GC_ERANGE when the envelope has fewer than GC_HIDING_FIT_MIN points or
 * spans less than GC_HIDING_FIT_SPAN in throughput (not enough points: out
 * still says how many there were); GC_EINVAL for invalid input. */
int gc__hiding_fit_contention(const double *x, const double *lat, int n, double c_min,
                              struct gc_hiding_fit *out);

/* The latency of the fit at throughput x (INFINITY at or beyond c). */
double gc__hiding_fit_eval(const struct gc_hiding_fit *f, double x);

/* Percentiles P[0..np) (each 0 .. 100) of the N values V, by linear
 * interpolation between the order statistics (percentile 0 is the minimum,
 * 100 the maximum), written to OUT. V is not modified. 0, GC_EINVAL (n < 1
 * or a percentile out of range) or GC_ENOMEM. */
int gc__hiding_percentiles(const double *v, int n, const double *p, int np, double *out);

/* Fills HW from the metrics of GC_HIDING_BENCH in R (the contract above).
 * Returns 0, GC_ENOBENCH when the benchmark is absent or did not finish, or
 * GC_EINVAL for a missing metric, a wrong unit or a value out of range; ERR
 * names the benchmark or the metric. */
int gc__hiding_from_results(const struct gc_results *r, struct gc_hiding_hw *hw, char *err,
                            size_t errlen);

/* Whole-device GB/s of a rate in bytes per cycle per SM. */
static inline double gc__hiding_gbps(const struct gc_hiding_hw *hw, double bytes_per_clk_sm)
{
    return bytes_per_clk_sm * hw->sm_count * hw->clock_hz / 1e9;
}

#endif
