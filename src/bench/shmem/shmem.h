/* memory.shared: its kernels and what the host expects of them
 * (gen.c), the launch shape of a full compute unit, and the benchmark
 * on the harness (shmem.c), shared with the energy meter's launch
 * (launch.c). */
#ifndef GC_BENCH_SHMEM_H
#define GC_BENCH_SHMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"

#define SH_BLOCK 256
#define SH_ROWS 6           /* elements each thread owns, as in shmembench */
#define SH_UNROLL 8         /* swap iterations in one trip of the timed loop */
#define SH_CHAIN 64         /* dependent loads in one trip of the chain loop */
#define SH_PAGE 1024        /* words of one page of the chain (a multiple of 32 banks) */
#define SH_PAGES 3          /* the chain visits page 0, 1, 2, 0, ... */
#define SH_BANK_BYTES 128.0 /* 32 banks x 4 bytes per clock (CUDA CC >= 5.0) */
/* The load kernel: each block reads its own SH_LD_BYTES of shared memory,
 * SH_LD_BYTES / SH_BLOCK bytes per thread per trip, as elements of 4, 8 or
 * 16 bytes; whole warps trade places every trip (a XOR of the warp index by
 * the trip number mod SH_LD_PERIOD), so that the addresses change with the
 * loop while each warp still reads 32 consecutive elements. */
#define SH_LD_BYTES 16384
#define SH_LD_PERIOD (SH_BLOCK / 32)

/* The kernels: gc_shswap (shmembench's swap), gc_shload (independent
 * conflict-free loads), gc_shchain (the dependent chain). */
char *gc__shmem_gen_swap(enum gc_dialect d, unsigned flags, int bytes, int iters, bool opaque);
char *gc__shmem_gen_load(enum gc_dialect d, unsigned flags, int bytes, int iters);
char *gc__shmem_gen_chain(enum gc_dialect d, unsigned flags);
/* The kernels for inspection (bench.h sources). */
int gc__shmem_sources(const struct gc_bench *self, const struct gc_device_info *info,
                      struct gc_ksrc **out, int *n);

/* The swap kernel's output (rows of `bytes` per thread, nthreads threads)
 * against the permutation iters iterations of swaps give: 0, or GC_EVERIFY
 * with the first wrong word in msg. */
int gc__shmem_check_swap(const uint32_t *got, size_t nthreads, int bytes, int iters, uint32_t seed,
                         char *msg, size_t len);
/* The sum thread g (of blocks of SH_BLOCK) of the load kernel stores. */
uint32_t gc__shmem_load_sum(size_t g, int bytes, int iters, uint32_t seed);
/* The word a lane starting at word off of the chain ends on after trips trips from off. */
uint32_t gc__shmem_chain_end(unsigned off, unsigned trips);

/* Launch shape for a full compute unit: per_cu blocks of SH_BLOCK per CU
 * with dyn bytes each, enforced by the shared-memory allocation where the
 * device describes its CUs (CUDA), else a few work-groups per CU. */
struct gc_shmem_shape {
    unsigned grid;
    size_t dyn;
    int per_cu;
    char note[256];
};
int gc__shmem_shape_per_cu(const struct gc_device_info *info);
/* The full shape of kernel k with `need` bytes of shared memory per block;
 * GC_ERANGE when that many do not fit. */
int gc__shmem_full_shape(struct gc_device *d, struct gc_kern *k, size_t need,
                         struct gc_shmem_shape *sh);

struct gc_harness;

/* The benchmark on the harness (core/harness.h gc_hbench): plans every
 * series and configuration (its kernel generated) and allocates the
 * output; derives the series and metrics from the full measurements (the
 * best load configuration to the store under bench); releases the run. */
int gc__shmem_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h);
int gc__shmem_derive(struct gc_session *s, const struct gc_harness *h, const char *bench);
void gc__shmem_free(struct gc_session *s, struct gc_harness *h);

/* ---- launch.c */

struct gc_config_ask;
struct gc_meter_launch;
/* memory.shared's launch_at (core/benchdef.h). */
int gc__shared_launch_at(struct gc_session *s, const struct gc_bench *self,
                         const struct gc_config_ask *ask, struct gc_meter_launch *w);

#endif
