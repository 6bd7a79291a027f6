/* The launch shape of one memory.bandwidth point, for the hardware-counter
 * check of which memory level serves it (tests/gpu/levels.c): the same
 * kernel source, grid and passes as the benchmark uses. */
#ifndef GC_BENCH_CACHEBW_H
/* Largest footprint an L1 plateau is taken from on GPUs. */
#define CB_L1_MAX_FP ((size_t)64 << 10)
#define GC_BENCH_CACHEBW_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"
#include "kgen/gen_stream.h"

struct gc_cachebw_point {
    char *src;         /* kernel source (malloc'ed), entry point "gc_cachebw" */
    size_t chunk;      /* bytes one block reads per pass */
    size_t nchunks;    /* footprint / chunk */
    unsigned passes;   /* chunks each block reads per launch */
    double bytes_read; /* per launch, as the benchmark counts them */
};

/* The point of a load curve (vec_bytes, ld) at footprint fp on a device of
 * the given facts, launched with grid blocks of 256 threads, in the default
 * profile. The kernel takes (src, dst, nchunks, passes, zero). */
int gc__cachebw_point(const struct gc_device_info *info, enum gc_dialect d, int vec_bytes,
                      enum gc_ldpath ld, size_t fp, unsigned grid, struct gc_cachebw_point *out);

/* Smallest footprint an L2 plateau is taken from, for a grid of that many
 * resident blocks (below it the blocks of one SM share chunks and L1 merges
 * their misses); plateau.c. */
size_t gc__cachebw_l2_min_fp(unsigned grid);

/* Bytes one block reads per pass, at most. */
#define GC_CACHEBW_CHUNK_MAX ((size_t)16 << 10)

/* Threads per block of every memory.bandwidth launch. */
#define GC_CACHEBW_BLOCK 256

/* The plateaus a point may feed (gc_hconf.plateaus bits). */
enum {
    GC_CB_L1 = 1u,
    GC_CB_L2 = 2u,
    GC_CB_L2_COPY = 4u,
    GC_CB_DRAM = 8u,
};

/* The plateaus a (copy or load through ld) point at footprint fp may feed,
 * on a device of these facts, the sweep's largest footprint fmax, launched
 * over grid blocks. */
unsigned gc__cachebw_plateaus(const struct gc_device_info *info, bool copy, enum gc_ldpath ld,
                              size_t fp, size_t fmax, unsigned grid);

/* One run of memory.bandwidth on the harness, in steps (run_cachebw is plan,
 * gc__harness_run, derive, free; tests replace the description's callbacks
 * between plan and run). */
struct gc_cachebw_run;
struct gc_harness;
struct gc_session;
struct gc_bench_result;
/* Plans every (curve, footprint) point into h (initialised here) and takes
 * the run's buffers. *out is freed by gc__cachebw_free also on error. */
int gc__cachebw_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h,
                     struct gc_cachebw_run **out);
struct gc_hdesc *gc__cachebw_desc(struct gc_cachebw_run *cr);
/* The plateau figures into h's result, from full measurements only. */
/* The plateau figures into h's result, from full measurements only, and the
 * L1 and L2 plateaus' points as its configuration (parts "l1", "l2":
 * core/benchcfg.h). name: the benchmark's (unused). */
int gc__cachebw_derive(struct gc_session *s, const struct gc_harness *h,
                       const struct gc_cachebw_run *cr, const char *name);
/* The refined member of a plateau (GC_CB_* bit) with the highest value. */
const struct gc_hconf *gc__cachebw_plateau_best(const struct gc_harness *h, unsigned bit);
/* The same from a finished harness whose sweep ended at footprint fmax. */
void gc__cachebw_figures(struct gc_session *s, const struct gc_harness *h, size_t fmax);
void gc__cachebw_free(struct gc_session *s, struct gc_harness *h, struct gc_cachebw_run *cr);

#endif
