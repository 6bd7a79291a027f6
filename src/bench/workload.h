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

#define GC_WORKLOAD_MAX_BUFS 6

struct gc_workload {
    char what[400]; /* the configuration, for notes */
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
    void *host[4];
};

void gc__workload_init(struct gc_workload *w);
void gc__workload_release(struct gc_session *s, struct gc_workload *w);
/* Launches the workload once (its verification launch). */
int gc__workload_launch_once(struct gc_device *d, struct gc_workload *w);

/* Providers. warps: resident warps per CU wanted (0: the peak configuration,
 * full occupancy); a provider that cannot lay it out returns GC_ERANGE.
 * GC_ENOTSUP with w->why when the workload does not exist on this device;
 * GC_EVERIFY with w->why when its first launch gave a wrong result. */
struct gc_itype;
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
