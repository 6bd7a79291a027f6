/* What an application kernel does per launch, counted by its generator,
 * and how that record travels in the results tree, so that a prediction of
 * its time (from the profile's peaks, its occupancy and the latency-hiding
 * model) can be made at run time or later from a saved results file. */
#ifndef GC_MODEL_APPWORK_H
#define GC_MODEL_APPWORK_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuchar/gpuchar.h"

/* Operation classes, counted per launch as instructions' results (one FMA
 * is one operation of its class, two FLOPs). */
enum gc_app_op {
    GC_APP_OP_FP32,  /* fp32 add, mul, fma */
    GC_APP_OP_FP64,  /* fp64 add, mul, fma */
    GC_APP_OP_INT32, /* integer add, mul, mad, compare, address arithmetic counted by the generator
                      */
    GC_APP_OP_SFU,   /* reciprocal, square root, transcendental */
    GC_APP_OP_N
};

/* Memory levels, bytes moved per launch (loads plus stores) as the
 * generator counts them: DRAM the compulsory traffic (each input read and
 * each output written once), L2 and L1 what the kernel's access pattern
 * sends to them, shared and constant what it reads and writes there. */
enum gc_app_level {
    GC_APP_LVL_DRAM,
    GC_APP_LVL_L2,
    GC_APP_LVL_L1,
    GC_APP_LVL_SHARED,
    GC_APP_LVL_CONST,
    GC_APP_LVL_N
};

/* The L1 line a wavefront serves: a warp request that touches k distinct
 * lines of this size takes k wavefronts of the L1's data stage, whatever
 * its sectors (one for a broadcast or 32 consecutive aligned floats, two
 * when they straddle a line, 32 when the lanes walk down a column). */
#define GC_APP_L1_LINE 128.0

struct gc_app_work {
    double ops[GC_APP_OP_N];
    double bytes[GC_APP_LVL_N];
    double l1_wavefronts;    /* L1 requests in GC_APP_L1_LINE lines touched; 0 not counted */
    double access_bytes;     /* bytes per work-item of one of the global load instructions that
                                carry the DRAM traffic (4: a float; 16: a float4); 0 not known */
    double threads;          /* threads launched */
    int block_threads;       /* threads per block (work-group) */
    int regs_per_thread;     /* -1 unknown */
    double shared_per_block; /* bytes of shared (local) memory per block */
};

/* The names the record uses in the results tree: metric
 * "<kernel>.ops.<op>" (unit "ops") and "<kernel>.bytes.<level>" (unit
 * "B"), "<kernel>.l1_wavefronts" (unit "1", only where counted),
 * "<kernel>.access_bytes" (unit "B", only where known), "<kernel>.threads",
 * "<kernel>.block_threads", "<kernel>.regs" (unit "1"), "<kernel>.shared_bytes" (unit "B"). */
const char *gc__app_op_name(enum gc_app_op op);       /* "fp32", "fp64", "int32", "sfu" */
const char *gc__app_level_name(enum gc_app_level lv); /* "dram", "l2", "l1", "shared", "const" */

/* Zero counts, regs_per_thread -1. */
void gc__app_work_init(struct gc_app_work *w);

/* Writes w for kernel (at most 40 characters) into b as the metrics above.
 * 0, or GC_ENOMEM / GC_EINVAL (a name too long, a count negative or
 * not finite). */
int gc__app_work_put(struct gc_bench_result *b, const char *kernel, const struct gc_app_work *w);

/* Reads kernel's record back from b: false when b holds no record for
 * kernel (its "<kernel>.threads" metric absent); a count that is absent
 * reads as zero. */
bool gc__app_work_get(const struct gc_bench_result *b, const char *kernel, struct gc_app_work *w);

#endif
