/* The instruction catalogue: every arithmetic instruction type gpuchar
 * characterizes, as data (how to emit one step of a dependent chain in each
 * dialect, what it counts, the SASS it must compile to, the vendor's rate per
 * clock per SM by its class in the architecture table, and a host model of one step for
 * verification). One generic benchmark (compute.c) runs every entry. */
#ifndef GC_BENCH_ITYPE_H
#define GC_BENCH_ITYPE_H

#include <stdbool.h>
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
     * (compute_host.c). */
    double ocl_ulp;
};

int gc__itype_count(void);
const struct gc_itype *gc__itype_get(int i);

/* Vendor rate on an architecture (results per clock per SM); NAN when
 * unknown. */
double gc__itype_spec(const struct gc_itype *t, const struct gc_arch *a);

#endif
