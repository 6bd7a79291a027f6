/* The configurations the performance benchmarks' kernels are launched at
 * when a meter runs them again (core/meterlaunch.h): each benchmark writes the
 * configuration of its reported figure into its result (core/benchcfg.h,
 * "config" in the JSON; the names below), and its launch_at hook reads it
 * back from the results tree through the pick functions here (compute's is
 * the family's own, bench/compute/compute.h). A configuration the launch
 * cannot run as it stands (a footprint outside the level it measures, a
 * shape the device does not hold, an ILP the generator does not build) is
 * refused with the reason, and the default configuration is built; so it
 * is when the benchmark did not run or failed. */
#ifndef GC_BENCH_LAUNCHCFG_H
#define GC_BENCH_LAUNCHCFG_H

#include "bench/bench.h"
#include "core/benchcfg.h"
#include "core/meterlaunch.h"
#include "kgen/gen_stream.h"

/* compute.mma.* / compute.wgmma.*: "accumulators" per warp (1 for wgmma)
 * and "units_per_sm", warps (mma.sync) or warpgroups (wgmma). */
struct gc_best_mma {
    int ilp, units;
};
/* memory.bandwidth, one part per plateau ("l1", "l2"): "vector_bytes",
 * "load_path" (the PTX load, a word), "footprint" (bytes), "grid"
 * (blocks): the point of the load curve the plateau was taken from. */
struct gc_best_cachebw {
    int vec_bytes;
    int ld; /* enum gc_ldpath */
    size_t footprint;
    unsigned grid;
};
/* memory.shared (best load), memory.constant (best broadcast):
 * "elem_bytes", "blocks_per_cu". */
struct gc_best_elem {
    int elem_bytes, blocks_per_cu;
};
/* memory.atomics (global u32 adds, one address per thread):
 * "blocks_per_cu", "trips". */
struct gc_best_atomics {
    int blocks_per_cu, trips;
};

/* The load path named by its PTX load ("ld.global.cg"); -1 when none is. */
int gc__ldpath_named(const char *ptx);

/* The configuration each launch runs at (the result's when present and
 * valid, else the default), with where it came from. */
void gc__mma_pick(const struct gc_session *s, const struct gc_bench *self,
                  const struct gc_config_ask *ask, struct gc_best_mma *c, struct gc_cfg_pick *p);
void gc__cachebw_pick(const struct gc_session *s, int level, const struct gc_config_ask *ask,
                      struct gc_best_cachebw *c, struct gc_cfg_pick *p);
void gc__shared_pick(const struct gc_session *s, const struct gc_config_ask *ask,
                     struct gc_best_elem *c, struct gc_cfg_pick *p);
void gc__constant_pick(const struct gc_session *s, const struct gc_config_ask *ask,
                       struct gc_best_elem *c, struct gc_cfg_pick *p);
void gc__atomics_pick(const struct gc_session *s, const struct gc_config_ask *ask,
                      struct gc_best_atomics *c, struct gc_cfg_pick *p);

/* Reads "elem_bytes" and "blocks_per_cu" of from into c (memory.shared,
 * memory.constant); false, with the pick refused, when either is absent. */
bool gc__elem_read(const struct gc_bench_result *from, struct gc_best_elem *c,
                   struct gc_cfg_pick *p);

#endif
