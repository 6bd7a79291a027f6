/* compute.<itype>: the instruction catalogue, every arithmetic instruction
 * type gpuchar characterizes, as data (how to emit one step of a dependent
 * chain in each dialect, what it counts, the SASS it must compile to, the
 * vendor's rate per clock per SM by its class in the architecture table, and
 * a host model of one step for verification; the rows are itypes.c), and
 * what the family's files share: the configuration of one kernel and the
 * context of its launches' checks. One generic benchmark (compute.c) runs
 * every row. */
#ifndef GC_BENCH_COMPUTE_H
#define GC_BENCH_COMPUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"
#include "core/arch.h"
#include "core/cpuarch.h"

/* The chain variable's type. Packed 16-bit pairs travel as 32-bit words. */
enum gc_vtype { GC_VT_F32, GC_VT_F64, GC_VT_U32, GC_VT_U64, GC_VT_H2, GC_VT_BF2 };

struct gc_itype {
    const char *name;    /* "fp32.add": the benchmark is compute.fp32.add */
    const char *summary; /* one line: what one step is */
    enum gc_vtype vt;
    /* One step as the body of a macro GC_OP(x, y): x is the chain variable
     * (updated in place), y the second operand (the kernel argument a, or the
     * neighbouring chain for coupled entries); the kernel argument b is in
     * scope. cuda uses inline PTX where the compiler would otherwise change
     * the instruction. opencl NULL: no OpenCL form. */
    const char *cuda;
    const char *opencl;
    const char *opencl_why; /* why there is no OpenCL form (opencl NULL) */
    /* Capabilities the .opencl spelling needs (GC_CAP_FP16: OpenCL C's
     * half); a device without them, as one without an .opencl spelling,
     * takes the .cuda spelling where that is pure inline PTX and the device
     * takes inline PTX (gc__kgen_form: NVIDIA's OpenCL), else none. */
    unsigned opencl_caps;
    /* Coupled chains: the step combines two chains (x_j op= x_{j+1}), because
     * with a loop-invariant operand ptxas folds two steps into one
     * instruction (two adds into one IADD3, two logic ops into one LOP3, two
     * reciprocals into nothing). */
    bool coupled;
    /* The operand a is given to the kernel as a per-thread value (equal in
     * every thread, but not provably warp-uniform): with a uniform a, ptxas
     * for sm_80 computes powers of a on the uniform datapath (UIMAD) and
     * folds a chain of multiplies, x * a * a -> x * a^2, so that half the
     * steps would not run. */
    bool thread_operand;
    bool opencl_vector; /* the OpenCL form works on vector types (widths 2..16) */
    int counted;        /* counted operations per step (2 for a conversion round trip) */
    int lanes;          /* results per operation (2 for packed pairs) */
    int flops;          /* floating-point operations per result (2 for fma); 0 integer */
    int work;           /* relative cost of a step: divides the iteration count */
    int min_cc;         /* minimum compute capability on CUDA (e.g. 90), 0 any */
    unsigned needs_caps;
    /* SASS per step: expectation expressions (struct gc_sass_expect:
     * alternatives, architecture prefixes, packing) and how many per step;
     * NULL mnemonic: unused. */
    struct gc_sass_expect sass[3];
    /* Class of the vendor rate (results per clock per SM, per counted
     * operation) in the architecture table; GC_RATE_NONE where the guide
     * gives none ("multiple instructions"). */
    enum gc_rate_class rate;
    /* The CPU pipes that execute one step (cpuarch.h): an add, multiply or
     * FMA runs on the pipes of its kind; integer ALU and multiply on theirs;
     * anything compiled to a sequence (division, square root, built-ins,
     * conversions, emulated packed halves) at least on some vector pipe
     * (GC_CPU_ANY, the default). */
    enum gc_cpu_op cpu_op;
    /* Inputs: chain start values in [lo, hi) (floats) or random words masked
     * with mask (integers); the kernel arguments a and b. */
    double lo, hi;
    uint64_t mask;
    double a, b;     /* floating-point types */
    uint64_t ia, ib; /* integer and packed types (bit patterns) */
    /* Host model of one step on bit patterns: returns the new x. */
    uint64_t (*host)(uint64_t x, uint64_t y, uint64_t a, uint64_t b);
    /* Relative tolerance of a chain's final value against the host model
     * (per lane for packed types); 0 means bit-exact. */
    double tol;
    /* The error the OpenCL C specification allows the .opencl spelling's
     * built-in per step, in ulp (full profile, without
     * -cl-fp32-correctly-rounded-divide-sqrt: 1.0f/x and x/y 2.5, sqrt 3,
     * rsqrt 2, sin and cos 4, exp2 and log2 3); 0 where the spelling is
     * correctly rounded or the bound is implementation-defined (native_*),
     * which tol alone then checks. A chain of R steps of an operation whose
     * relative condition number is at most 1 may drift by R times it
     * (chain_tol in itypes.c). */
    double ocl_ulp;
};

int gc__itype_count(void);
const struct gc_itype *gc__itype_get(int i);

/* Vendor rate on an architecture (results per clock per SM); NAN when
 * unknown. */
double gc__itype_spec(const struct gc_itype *t, const struct gc_arch *a);

/* ---- The family's runs ---------------------------------------------------- */

/* Steps per thread of a launch for an op as fast as fp32 FMA on a GPU: a
 * full-occupancy launch then lasts about one millisecond on an H100/H200, so
 * the gaps between back-to-back launches (about a microsecond) cost about
 * 0.1%, and one warp alone still runs for over half a million cycles. */
#define BASE_STEPS 131072
#define BODY_STEPS 1024 /* steps in one trip of the timed loop (all chains) */
#define MAX_CFG 12
#define MAX_SWEEP 32

/* One kernel configuration: chains, vector width and loop shape. */
struct compute_cfg {
    int ilp; /* independent chains per thread */
    int vw;  /* OpenCL vector width (1 on CUDA) */
    /* derived */
    int nch;     /* chain variables per thread */
    int per_rnd; /* op statements per round */
    int unroll;  /* rounds per loop trip */
    int trips;   /* loop trips */
};

/* What a launch's check needs: the session, the entry, the buffers and the
 * host model's results cached per configuration. */
struct compute_ctx {
    struct gc_session *s;
    const struct gc_itype *t;
    struct gc_bench_result *r;
    struct gc_buf *in, *out, *tsb;
    /* A check's first output, kept on the device and compared with the
     * second there (NULL: both are read and compared on the host). */
    struct gc_buf *out2;
    void *hin;
    size_t in_elems; /* elements of the input and output buffers */
    size_t ts_warps; /* records the timestamp buffer holds */
    /* Host room for ts_warps records, pinned where the device has it: the
     * sweep zeroes the records from it and reads them back into it after
     * every launch. */
    struct gc_hostbuf ts_host;
    unsigned flags;
    /* Host-model results of threads 0 and 1 per config, computed once and
     * reused by every sweep point (the same kernel and inputs). */
    uint64_t *want01[MAX_CFG];
    double rate[MAX_CFG]; /* measured peak per config (results/s), 0 unmeasured */
};

/* ---- itypes.c: the check of a launch */

/* Bytes of one chain word of type vt. */
size_t gc__compute_vt_bytes(enum gc_vtype vt);

/* The kernel arguments a and b of the op (args[2], args[3]). */
void gc__compute_fill_args(const struct gc_itype *t, struct gc_arg *args);

/* Random chain start values of the op's type (never zeros). */
void gc__compute_make_inputs(const struct gc_itype *t, void *buf, size_t n, uint64_t seed);

/* Two runs of a configuration into differently poisoned outputs (0xff,
 * then 0x00): a chain the kernel did not write shows up as a difference.
 * The caller launches between poison and read; check compares the two and
 * the sampled threads against the host model. */
struct compute_vrun {
    struct compute_ctx *x;
    const struct compute_cfg *c;
    size_t nthreads, bytes;
    unsigned char *g[2];
    bool on_device; /* the outputs compared on the device (x->out2) */
};
int gc__compute_vrun_init(struct compute_vrun *v, struct compute_ctx *x,
                          const struct compute_cfg *c, size_t nthreads);
void gc__compute_vrun_free(struct compute_vrun *v);
int gc__compute_vrun_poison(struct compute_vrun *v, int pass);
int gc__compute_vrun_read(struct compute_vrun *v, int pass);
int gc__compute_vrun_check(struct compute_vrun *v, int nsample, int cache_slot, const char *what);

/* The host model of threads 0 and 1 of configurations cfgs[ci[i]] (i < n; a
 * negative ci[i] is skipped) into x->want01, those not yet there, all in one
 * gc__parallel_for: the checks of a benchmark's swept configurations (and
 * of its sequential launch, thread 0 of ILP 1) then only compare, where
 * modelling each configuration at its first check ran two chains at a
 * time. */
int gc__compute_model01(struct compute_ctx *x, const struct compute_cfg *cfgs, const int *ci,
                        int n);

/* One launch into a poisoned output, twice with different poisons (a chain
 * the kernel did not write shows up as a difference), then the sampled
 * threads against the host model. nthreads threads ran. */
int gc__compute_verify(struct compute_ctx *x, struct gc_kern *k, const struct gc_launch *l,
                       const struct compute_cfg *c, size_t nthreads, int nsample, int cache_slot,
                       const char *what);

/* The sweep point's timed launches checked as they run: launch 0 into an
 * output poisoned with 0xff, launch 1 into one poisoned with 0x00, then the
 * two outputs compared and sampled threads checked against the host model
 * (what gc__compute_verify does with two launches of its own). */
struct compute_sweep_check {
    struct compute_vrun v;
    int ci;
    const char *what;
    bool checked;
};

/* gc_rep_hook callbacks of a compute_sweep_check (u). */
int gc__compute_check_before(void *u, int rep);
int gc__compute_check_after(void *u, int rep);

/* Threads the buffers hold on a CPU device without an in-kernel clock: the
 * kernel-timed sweep repeats a point's work-groups (runs per CU) until a
 * launch is long against its overhead. */
#define KTIME_CPU_THREADS 65536

/* ---- compute.c */

/* The scalar kernels of entry t (ILP 1, 2, 4, 8, with per-warp timestamps)
 * as a device of dialect d and info's capabilities and architecture takes
 * them (the step spelt by gc__kgen_form), with the SASS their timed loop
 * must hold: the benchmark's declared kernels (dialect CUDA), and on an
 * OpenCL device that takes inline PTX the kernels whose PTX the GPU tests
 * check the same way. None (*n 0) where the device takes no spelling or
 * its architecture is too old. *out malloc'ed (gc__ksrc_free). */
struct gc_device_info;
struct gc_ksrc;
int gc__compute_itype_sources(const struct gc_itype *t, enum gc_dialect d,
                              const struct gc_device_info *info, struct gc_ksrc **out, int *n);

/* The configuration compute.<itype>'s launch for a meter runs at
 * (core/meterlaunch.h), as the benchmark writes it into its result: "ilp",
 * "vector_width", "block", "blocks_per_cu". */
struct gc_best_compute {
    int ilp, vw, block, blocks_per_cu;
};

/* The configuration of t's launch (the result's when present and valid,
 * else the default), with where it came from. */
struct gc_config_ask;
struct gc_cfg_pick;
void gc__compute_pick(const struct gc_session *s, const struct gc_itype *t,
                      const struct gc_config_ask *ask, struct gc_best_compute *c,
                      struct gc_cfg_pick *p);

#endif
