/* The architecture table: every fact gpuchar expects of a device's
 * architecture (vendor rates per clock, matrix-unit rates, the L1/shared
 * array, scheduler counts), one row per CUDA compute capability plus the row
 * of a device that reports none (OpenCL). It is looked up once per device;
 * benchmarks read the row instead of comparing compute capabilities. */
#ifndef GC_CORE_ARCH_H
#define GC_CORE_ARCH_H

#include <stdbool.h>

#include "backend/backend.h"

/* Classes of the arithmetic-throughput table (CUDA C++ Programming Guide):
 * an instruction type names its class, the row gives the rate. */
enum gc_rate_class {
    GC_RATE_NONE, /* the guide gives none ("multiple instructions") */
    GC_RATE_F32,
    GC_RATE_F64,
    GC_RATE_H2,  /* packed fp16 pairs (architecture whitepapers, non-tensor) */
    GC_RATE_BF2, /* packed bf16 pairs */
    GC_RATE_MUFU,
    GC_RATE_I32,
    GC_RATE_I32_SLOW,
    GC_RATE_NCLASS
};

/* Classes of the matrix-unit table: the rate depends on the input type and,
 * on some GPUs, on the accumulator type. */
enum gc_mma_class {
    GC_MMA_F16_F32,
    GC_MMA_F16_F16,
    GC_MMA_BF16,
    GC_MMA_TF32,
    GC_MMA_FP8,
    GC_MMA_INT8,
    GC_MMA_NCLASS
};

struct gc_arch {
    /* 10 x major + minor of the CUDA compute capability; 0 where the device
     * reports none (OpenCL). */
    int cc;
    /* True when the row is the table's own (the compute capability has a
     * row); false for an unknown one, whose facts come from its major
     * version only. */
    bool known;
    /* fp32 FMA instructions per clock per SM (arithmetic-throughput table);
     * NAN unknown. */
    double fp32_fma_per_clk;
    /* Results per clock per SM of each rate class; NAN where the guide gives
     * none or the architecture has no column. An unknown minor version takes
     * the nearest lower row of its major version (7.2 behaves like 7.0). */
    double rate[GC_RATE_NCLASS];
    /* Dense matrix-unit FLOP (int8: OP) per clock per SM by class; NAN where
     * the rate depends on the product or is not known with certainty. */
    double mma_rate[GC_MMA_NCLASS];
    bool wgmma;            /* warpgroup-level wgmma.mma_async (sm_90a) */
    bool mma_fp8_emulated; /* fp8 mma.sync is emulated by the compiler, no hardware rate */
    /* The unified L1 / shared-memory array of one SM and its smallest and
     * smallest non-zero shared-memory carve-outs, KiB; 0 unknown. */
    int l1_unified_kib, l1_smallest_kib, l1_nonzero_kib;
    /* Thread operations per clock per SM of the special-function unit and of
     * shared memory with 4-byte and 8-byte words; NAN unknown. */
    double sfu_per_clk, shared_words_per_clk, shared2_words_per_clk;
    /* Bytes per clock per SM of the L1 / shared-memory data path (32 banks
     * of 4 bytes, documented from CC 7.0); NAN unknown. */
    double l1_bytes_per_clk;
    /* Warp schedulers per SM (1 where the device says nothing of them), and
     * whether each is documented to issue one instruction per clock. */
    int schedulers;
    bool issue_per_scheduler;
    /* An NVIDIA SM (the device has a compute capability): warps of 32,
     * 32-byte sectors, a global load with its 64-bit address issues as
     * IMAD.WIDE + LDG. */
    bool sm;
    /* Global loads take L2 prefetch and no-allocate hints (sm_80+). */
    bool load_hints;
    /* The in-kernel ns timer can be slept on (__nanosleep, sm_70+). */
    bool timed_sleep;
    /* Resident threads, blocks and 32-bit registers per SM of the compute
     * capability's row; 0 unknown. */
    int threads_per_sm, blocks_per_sm, regs_per_sm;
};

/* The row of a device: looked up once when the device is opened (struct
 * gc_device's arch); sources callbacks, which get a made-up description,
 * call it themselves. Never fails: an unknown device gets what its major
 * version implies and NAN elsewhere. */
void gc__arch_lookup(const struct gc_device_info *info, struct gc_arch *out);

/* Fills the residency limits a device did not report (NVIDIA's OpenCL
 * gives its compute capability but no threads or blocks per SM) from a's
 * row into info, a copy for an estimate (the device's own facts decide
 * which paths a benchmark takes); a field the device reported is kept. */
void gc__arch_fill_residency(const struct gc_arch *a, struct gc_device_info *info);

/* True when the device has a compute capability and it is lower than cc
 * (10 x major + minor): an instruction first found there is missing. A
 * device without one (OpenCL) is never older: its compiler decides. */
bool gc__arch_older_than(const struct gc_arch *a, int cc);

#endif
