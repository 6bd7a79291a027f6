/* The measurement side of the latency-hiding benchmarks (Volkov, chapters
 * 5 and 6): planning the synthetic mixes for a device, the chase arrays,
 * one verified and timed launch shape per occupancy (per-warp timestamps:
 * span per SM, mean warp latency, attained occupancy), occupancy sweeps, and
 * the per-type figures of Tables 6.1-6.4 that hiding.params reports and the
 * mix family needs for its model. Shared by hiding.c, mix.c and run.c. */
#ifndef GC_BENCH_HIDING_RUN_H
#define GC_BENCH_HIDING_RUN_H

#include "bench/bench.h"
#include "core/sweep.h"
#include "kgen/gen_mix.h"
#include "core/kcache.h"

/* Most occupancy points in one sweep. */
#define GC_HID_MAX_POINTS 40
/* Most independent chains any hiding kernel runs. */
#define GC_HID_MAX_ILP 8

/* One kernel of a run: its configuration and, once built, its handle. */
struct gc_hid_kern {
    struct gc_mix_cfg cfg;
    char label[64];
    struct gc_kern *k;
};

/* The state of one benchmark run on a device. */
struct gc_hid_ctx {
    struct gc_session *s;
    struct gc_bench_result *r;
    struct gc_device *d;
    bool sm;     /* an NVIDIA SM: the SASS facts of the architecture table apply */
    bool clocks; /* per-warp timestamps: clock64, globaltimer and smid */
    bool gpu;
    int cus, simd, max_warps, schedulers;
    unsigned flags; /* kgen flags of the mix kernels */
    /* The chase array: chain_words 32-bit entries, 32 << log2_lines. */
    struct gc_buf *chain;
    size_t chain_words;
    int log2_lines;
    int layout;             /* what the array holds (0 nothing, 1 stream, 2 random) */
    uint32_t layout_stride; /* the stride of the stream layout */
    uint32_t base;          /* rotation of the regions successive launches read */
    /* Written after every layout so that no line of the array stays in L2. */
    struct gc_buf *flush;
    size_t flush_words;
    struct gc_buf *out, *lat, *ts;
    size_t out_words, lat_words, ts_warps;
    /* Read back at every launch: pinned where the backend has it. */
    struct gc_hostbuf hout_mem, hts_mem;
    uint32_t *hout, *hlat;
    unsigned long long *hts;
    struct gc_kreq *reqs; /* every program built, released at close */
    int nreqs;
    struct gc_kern *fill_stream, *fill_random;
    /* When not NULL, launches of a sampling kernel append its per-access
     * latencies (cycles) here, up to cap_samples. */
    double *samples;
    size_t nsamples, cap_samples;
    long verified; /* launches whose chains were checked */
    /* Observed clocks, weighted by the cycles each point spanned: sum of
     * cycles and of cycles / MHz (the clock is their quotient), so that the
     * long points, whose timer granularity matters least, count most. */
    double clock_sum, clock_us;
    double clock_min, clock_max;
    int clock_n;
};

/* What one occupancy point measured. */
struct gc_hid_sample {
    int warps; /* requested warps per CU */
    int block, blocks_per_cu;
    unsigned grid;
    bool enforced;        /* occupancy control applied (dynamic shared memory) */
    int occ_min, occ_max; /* attained in the kept launches: min / max over SMs of the most
                             resident warps; -1 unknown (no timestamps) */
    bool kept;            /* attained equals requested in some launch (or cannot be known) */
    int launches, kept_launches;
    double cycles;      /* per launch: the slowest SM's span (timestamps), else the event time
                           at the clock; median over kept launches */
    double warp_cycles; /* mean warp latency, median over kept launches; NAN unknown */
    double thru;        /* groups per clock per CU: warps x ilp x groups / cycles */
    struct gc_stats thru_stats;
    double clock_mhz;
};

/* A sweep of one kernel over occupancies. */
struct gc_hid_curve {
    const struct gc_hid_kern *hk;
    struct gc_hid_sample pt[GC_HID_MAX_POINTS];
    int n;
};

/* The most warps per CU a device runs (a CPU device: a few "warps" of its
 * preferred work-group multiple). */
int gc__hid_max_warps(const struct gc_device_info *info);

/* Bytes of the chase array on a device: a power of two, 16x the last-level
 * cache where the device reports one, within its allocation limits. */
size_t gc__hid_chain_bytes(const struct gc_device_info *info);

/* Plans unroll and trips of a mix so that a launch lasts long enough to time
 * (about 2e5 cycles of one warp on a GPU) and not much longer at WARPS_MAX
 * warps per CU (0: the device's most), the loop body holds some 500-1000
 * instructions (§5.1), and the chase fits the array without touching an
 * entry twice. The same plan serves run and sources. */
void gc__hid_plan(const struct gc_device_info *info, enum gc_mix_op op, int alpha, int ilp,
                  int lines, bool sample, int warps_max, struct gc_mix_cfg *out);

/* Occupancies to sweep: every count up to 8, then steps of 2, 4, 8
 * (gc__sweep_warps); quick profiles and CPU devices take fewer. */
int gc__hid_occupancies(const struct gc_hid_ctx *x, int *out, int cap);

/* Launches per point for the profile. */
int gc__hid_reps(const struct gc_hid_ctx *x);

/* Opens the context: buffers for the largest launch, the chase array and its
 * fill kernels when CHASE. 0 or an error (recorded in the device error). */
int gc__hid_open(struct gc_hid_ctx *x, struct gc_session *s, struct gc_bench_result *r, bool chase);
void gc__hid_close(struct gc_hid_ctx *x);
/* Fills r's context (the SM clock clk, its source how as gc__hid_clock_mhz
 * named it, and the range the launches observed) and stop rule (reps
 * launches per point, or the engine's rule). */
void gc__hid_context(const struct gc_hid_ctx *x, double clk, const char *how, int reps,
                     struct gc_bench_result *r);

/* Generates and builds kernels (in parallel, through the cache) and looks
 * them up. */
int gc__hid_build(struct gc_hid_ctx *x, struct gc_hid_kern *ks, int n);
/* For the run's compile plan: the sources gc__hid_open (with chase: its
 * fill program) and then gc__hid_build(ks, n) request on the session's
 * device. *out malloc'ed, *nout entries. */
int gc__hid_plan_sources(struct gc_session *s, const struct gc_hid_kern *ks, int n, bool chase,
                         struct gc_ksrc **out, int *nout);

/* Builds one extra program whose source is SRC (taken) and looks up kernel
 * NAME in it. */
int gc__hid_build_src(struct gc_hid_ctx *x, const char *label, char *src, const char *name,
                      struct gc_kern **k);

/* Measures kernel HK with WARPS warps per CU: REPS launches after a warm-up,
 * each into a poisoned output whose chains are then checked against the
 * host model (every chain of the warm-up, a sample of the rest) and, with
 * timestamps, analysed for span, warp latency and attained occupancy.
 * GC_ERANGE when the shape cannot be laid out (not a failure of the run);
 * GC_EVERIFY with the benchmark's error set when a chain ended in the wrong
 * place. */
int gc__hid_measure(struct gc_hid_ctx *x, const struct gc_hid_kern *hk, int warps, int reps,
                    struct gc_hid_sample *out);

/* gc__hid_measure over the occupancies W[0..nw); points that cannot be laid
 * out are left out. */
int gc__hid_sweep(struct gc_hid_ctx *x, const struct gc_hid_kern *hk, const int *w, int nw,
                  int reps, struct gc_hid_curve *out);

/* Instructions of the studied type in one group: the adds of an add-only
 * group, 1 otherwise. */
int gc__hid_ops_per_group(const struct gc_mix_cfg *c);

/* The per-type figures of Tables 6.1-6.4 from sweeps of one type, in
 * instructions of that type (warp instructions) per clock per CU. */
struct gc_hid_type {
    double latency; /* cycles per instruction: the least mean warp latency per instruction
                       over the first sweep (Table 6.2); NAN unknown */
    double peak;    /* best throughput over every sweep (Table 6.1) */
    int peak_warps; /* where */
    int peak_ilp;
    double w90, w95;  /* least occupancy of the first sweep reaching 90% / 95% of peak */
    double linear;    /* latency x peak: Little's law (Table 6.4 "linear") */
    double at_linear; /* first sweep's throughput there / peak, interpolated; NAN beyond */
    int kept, excluded;
};

/* CURVES[0] must be the ILP 1 sweep. */
void gc__hid_type_params(const struct gc_hid_curve *curves, int ncurves, struct gc_hid_type *out);

/* Adds a sweep's kept samples as series NAME (instructions per clock per CU
 * times SCALE, in UNIT, against warps per CU) and its excluded samples to the
 * series "excluded_samples". */
int gc__hid_add_curve(struct gc_hid_ctx *x, const struct gc_hid_curve *c, const char *name,
                      double scale, const char *y_name, const char *unit);

/* The mean of the SM clocks observed so far (MHz), else the device's cycle
 * clock (a CPU's measured one where there is one, else the nominal); *how
 * (when how is not NULL) names which: "clock64/globaltimer" for the
 * observed clocks, else gc__cycle_clock_mhz's source. */
double gc__hid_clock_mhz(const struct gc_hid_ctx *x, const char **how);

/* Fills K with the CUDA source (warp timestamps on) of C and the SASS its
 * timed loop must hold, for the sources callbacks. */
int gc__hid_ksrc(const struct gc_mix_cfg *c, const char *label, struct gc_ksrc *k);

#endif
