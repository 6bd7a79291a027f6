/* Workloads: a performance benchmark's own kernel in its peak configuration
 * (or at a given occupancy), built, filled with its random inputs and
 * verified once, ready to be launched for as long as another measurement
 * needs (the energy meter, bench/energy.c). Each benchmark file that owns a
 * kernel generator provides its workload, so that energy is measured on
 * exactly the kernels the performance figures come from. */
#ifndef GC_BENCH_WORKLOAD_H
#define GC_BENCH_WORKLOAD_H

#include "bench/bench.h"
#include "kgen/gen_stream.h"
#include "core/kcache.h"

#define GC_WORKLOAD_MAX_HOST 5
#define GC_WORKLOAD_MAX_BUFS 6

struct gc_workload {
    char what[512]; /* the configuration, for notes */
    struct gc_kern *k;
    struct gc_launch l; /* args points into args; count is ignored */
    struct gc_arg args[8];
    /* Work one launch does. */
    double ops;             /* counted operations (compute) or accesses of one thread (memory) */
    const char *op_unit;    /* "op", "FLOP", "access" */
    double flops;           /* floating-point operations (0: integer) */
    double bytes;           /* bytes moved at the memory level (0: compute) */
    double transactions;    /* 32-byte sectors (global memory) or warp-wide requests (on-chip) */
    double spec_per_clk_cu; /* vendor rate in ops per clock per CU; NAN unknown */
    int warps_per_cu;       /* resident warps per CU of the launch */
    char why[1024];         /* GC_ENOTSUP: why this workload does not exist here */
    /* Owned: released by gc__workload_release. */
    struct gc_kreq req[2];
    int nreq;
    struct gc_buf *bufs[GC_WORKLOAD_MAX_BUFS];
    void *host[GC_WORKLOAD_MAX_HOST];
};

/* ---- the performance benchmarks' peak configurations ---------------------
 * Each performance benchmark stores the configuration its reported peak came
 * from in the session (core/bestcfg.h, keyed by its name); the energy
 * workload of the same kernel reads it back and runs at it. A record the
 * workload cannot run as it stands (a footprint outside the level it
 * measures, a shape the device does not hold, an ILP the generator does not
 * build) is refused with the reason, and the workload keeps its fixed
 * configuration; so does a workload whose benchmark did not run. */

/* compute.<itype>: chains, vector width and launch shape. */
struct gc_best_compute {
    int ilp, vw, block, blocks_per_cu;
};
/* compute.mma.* / compute.wgmma.*: accumulators per warp (1 for wgmma) and
 * warps (mma.sync) or warpgroups (wgmma) per SM. */
struct gc_best_mma {
    int ilp, units;
};
/* memory.bandwidth, one record per plateau (GC_BEST_L1, GC_BEST_L2): the
 * load curve and the point of it the plateau was taken from. */
struct gc_best_cachebw {
    int vec_bytes;
    int ld; /* enum gc_ldpath */
    size_t footprint;
    unsigned grid;
};
#define GC_BEST_L1 "memory.bandwidth/l1"
#define GC_BEST_L2 "memory.bandwidth/l2"
/* memory.shared (best load), memory.constant (best broadcast): element size
 * and blocks per CU. */
struct gc_best_elem {
    int elem_bytes, blocks_per_cu;
};
/* memory.atomics (global u32 adds, one address per thread). */
struct gc_best_atomics {
    int blocks_per_cu, trips;
};

enum gc_cfg_origin {
    GC_CFG_FIXED,   /* the benchmark did not run in this session */
    GC_CFG_BEST,    /* the benchmark's record */
    GC_CFG_REFUSED, /* a record the workload cannot run, or none from a
                       benchmark that ran: why says so */
};
struct gc_cfg_pick {
    enum gc_cfg_origin origin;
    char bench[64]; /* the performance benchmark */
    char why[200];
};

/* Refuses the record of p: fixed configuration, with the reason. */
void gc__cfg_refuse(struct gc_cfg_pick *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* w->what = "<kernel> at the configuration <bench> found in this run:
 * <configuration>", or "<kernel>, fixed configuration (the performance
 * benchmark <bench> did not run in this session): <configuration>", or
 * "<kernel>, fixed configuration (<bench>'s was not used: <why>):
 * <configuration>". */
void gc__workload_describe(struct gc_workload *w, const struct gc_cfg_pick *p, const char *kernel,
                           const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The configuration each workload runs at (the record when present and
 * valid, else the fixed one), with where it came from. */
struct gc_itype;
void gc__compute_pick(const struct gc_session *s, const struct gc_itype *t,
                      struct gc_best_compute *c, struct gc_cfg_pick *p);
void gc__mma_pick(const struct gc_session *s, const struct gc_bench *self, struct gc_best_mma *c,
                  struct gc_cfg_pick *p);
void gc__cachebw_pick(const struct gc_session *s, int level, struct gc_best_cachebw *c,
                      struct gc_cfg_pick *p);
void gc__shared_pick(const struct gc_session *s, struct gc_best_elem *c, struct gc_cfg_pick *p);
void gc__constant_pick(const struct gc_session *s, struct gc_best_elem *c, struct gc_cfg_pick *p);
void gc__atomics_pick(const struct gc_session *s, struct gc_best_atomics *c, struct gc_cfg_pick *p);

void gc__workload_init(struct gc_workload *w);
void gc__workload_release(struct gc_session *s, struct gc_workload *w);
/* Launches the workload once (its verification launch). */
int gc__workload_launch_once(struct gc_device *d, struct gc_workload *w);

/* Providers. warps: resident warps per CU wanted (0: the peak configuration
 * its benchmark found, or the fixed one, at full occupancy); a provider that cannot lay it out
 * returns GC_ERANGE. GC_ENOTSUP with w->why when the workload does not exist on this device;
 * GC_EVERIFY with w->why when its first launch gave a wrong result. */
int gc__compute_workload(struct gc_session *s, const struct gc_itype *t, int warps,
                         struct gc_workload *w);
/* self: a compute.mma.* or compute.wgmma.* benchmark. */
int gc__mma_workload(struct gc_session *s, const struct gc_bench *self, struct gc_workload *w);
/* op: GC_STREAM_READ or GC_STREAM_WRITE over a buffer far above the LLC. */
int gc__dram_workload(struct gc_session *s, enum gc_stream_op op, int warps, struct gc_workload *w);
/* level 1 (a footprint that lives in L1) or 2 (in L2, loads bypassing L1). */
int gc__cachebw_workload(struct gc_session *s, int level, struct gc_workload *w);
int gc__shared_workload(struct gc_session *s, struct gc_workload *w);
int gc__constant_workload(struct gc_session *s, struct gc_workload *w);
int gc__atomics_workload(struct gc_session *s, struct gc_workload *w);

#endif
