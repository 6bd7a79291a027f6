/* The matrix-unit benchmarks (compute.mma.*, compute.wgmma.*), shared
 * between their files: the instruction table's types, the kernels' shapes
 * and the host side's fills and checks. */
#ifndef GC_BENCH_MMA_H
#define GC_BENCH_MMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arch.h"
#include "kgen/kgen.h"

/* Element types of the operands and accumulators. */
enum mma_elem { E_F16, E_BF16, E_TF32, E_E4M3, E_S8, E_F32, E_S32 };

enum mma_kind { K_SYNC, K_WGMMA };

struct mma_op {
    enum mma_kind kind;
    enum mma_elem ab, acc;
    enum gc_mma_class cls;
    int m, n, k;      /* shape of one instruction */
    int min_cc;       /* 10 * major + minor of the first architecture with it */
    const char *ptx;  /* the instruction up to its operands */
    const char *tail; /* wgmma: the operands after the descriptors */
    const char *sass; /* SASS opcode prefix the loop must contain */
};

/* Every shape here has operand rows of 32 bytes along K (k16 x 2 B, k8 x 4 B,
 * k32 x 1 B), so one byte geometry serves all types: an operand is a matrix
 * of rows x 32 bytes, K-major. */
#define KBYTES 32

/* mma.sync: instructions in one trip of the timed loop (all accumulators
 * together). Each accumulator alternates +B and -B, so its value returns to C
 * after every pair (exact in every accumulator type, whatever the trip count)
 * while the chain through all of them stays a true dependency. */
#define SYNC_BODY 64
#define SYNC_TRIPS 512 /* 32768 instructions per warp and launch */
#define SYNC_BLOCK 128
#define SYNC_MAX_ILP 8
/* Operand words per thread: A (4), +B (2), -B (2). */
#define SYNC_OPW 8

/* wgmma: instructions per commit group, and groups per launch. */
#define WG_GROUP 8
#define WG_TRIPS 1024 /* 8192 instructions per warpgroup and launch */
#define WG_THREADS 128

/* ---- host.c */

/* Fills the operand and accumulator words of nthreads threads (one random
 * A, B per warp) and returns A.B per warp (nthreads / 32 x 16 x 8). */
int gc__mma_sync_fill(const struct mma_op *op, size_t nthreads, uint64_t seed, uint32_t *opw,
                      uint32_t *cw, int32_t *ab);

/* Checks every accumulator of an mma.sync launch at ILP ilp: each must hold
 * its C plus its warp's A.B. Returns 0, or GC_EVERIFY with the first
 * difference in why. */
int gc__mma_sync_check(const struct mma_op *op, size_t nthreads, int ilp, const uint32_t *cw,
                       const int32_t *ab, const uint32_t *got, char *why, size_t whylen);

/* Fills the shared-memory tiles of nblocks wgmma blocks (A, +B, -B in the
 * core-matrix layout the descriptors name) and their accumulators. */
void gc__mma_wg_fill(const struct mma_op *op, size_t nblocks, uint64_t seed, unsigned char *tiles,
                     uint32_t *cw);

/* Accumulator layout of wgmma m64nN (PTX ISA, "Register Fragments", figure
 * for the accumulator D): thread th of the warpgroup, warp w = th / 32, g =
 * lane / 4, t = lane % 4; value i is at row 16 w + g + 8 ((i >> 1) & 1),
 * column 8 (i >> 2) + 2t + (i & 1). */
int gc__mma_wg_check(const struct mma_op *op, size_t nblocks, const int32_t *ab, const uint32_t *cw,
                     const uint32_t *got, char *why, size_t whylen);
/* A.B of every block's tiles (m x n row-major per block) into ab; GC_EINVAL
 * for a tile wider than 256 rows or columns. */
int gc__mma_wg_products(const struct mma_op *op, size_t nblocks, const unsigned char *tiles,
                        int32_t *ab);

/* Operands and accumulators of nblocks blocks, filled on the host (small
 * random integers, as the host's check needs them) and written to the
 * device; the output buffer is allocated, not written. */
struct mma_bufs {
    size_t nblocks, nthreads, opwords, cwords;
    uint32_t *hops, *hc, *hout;
    int32_t *hab;   /* A.B per warp (mma.sync) or per block (wgmma) */
    uint32_t *hexp; /* C + A.B in the output's layout (what a check expects) */
    struct gc_buf *bops, *bc, *bout;
};

struct gc_session;
struct gc_device;
/* b is left partly filled on error: gc__mma_bufs_free releases it. */
int gc__mma_bufs_make(struct gc_session *s, const struct mma_op *op, size_t nblocks,
                      struct mma_bufs *b);
void gc__mma_bufs_free(struct gc_device *d, struct mma_bufs *b);
/* Reads the accumulators of a launch of nblocks blocks (ilp accumulators per
 * warp for mma.sync) and checks every value against C + A.B: 0, GC_EVERIFY
 * with why, or an error. */
int gc__mma_check(struct gc_device *d, const struct mma_op *op, struct mma_bufs *b, size_t nblocks,
                  int ilp, char *why, size_t len);

/* ---- mma.c: the benchmark on the harness (core/harness.h gc_hbench; run_mma
 * is gc__harness_bench of these after the availability check; tests replace
 * the description's verification between plan and run). */
struct gc_harness;
struct gc_bench_result;
/* Plans every configuration of the sweep of r's benchmark (the result is
 * named after it) into h and takes the run's buffers; h's full
 * measurements keep throttled samples (the sustained state measured). */
int gc__mma_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h);
/* The figures of the best full measurement into h's result, with its
 * configuration ("accumulators", "units_per_sm": core/benchcfg.h). */
int gc__mma_derive(struct gc_session *s, const struct gc_harness *h, const char *bench);
void gc__mma_free(struct gc_session *s, struct gc_harness *h);

/* ---- gen.c */

/* 32-bit words of one thread's accumulator fragment per 16x8 (mma.sync) or
 * per 64xN (wgmma) tile: four elements per 8 columns per thread, packed in
 * pairs for an fp16 accumulator. */
int gc__mma_acc_words(const struct mma_op *op);

/* Bytes of a wgmma block's operands in shared memory: A (64 x 32 B), +B and
 * -B (N x 32 B each). */
size_t gc__mma_wg_tile_bytes(const struct mma_op *op);

/* The mma.sync kernel: SYNC_TRIPS trips of SYNC_BODY instructions over ilp
 * accumulators per warp, with the timestamps of flags. */
char *gc__mma_gen_sync(enum gc_dialect d, const struct mma_op *op, unsigned flags, int ilp);

/* The wgmma kernel: one warpgroup per block copies its tiles into shared
 * memory and issues WG_TRIPS commit groups of WG_GROUP instructions. */
char *gc__mma_gen_wgmma(enum gc_dialect d, const struct mma_op *op, unsigned flags);

#endif
