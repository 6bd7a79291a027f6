/* Buffer sizing of memory.copy_kernel: how many bytes a launch reads, how
 * large the source and output buffers are, and how many runs per CU a launch
 * shape gets so that it stays inside both. A pure function of the device
 * facts, so that the rule is testable for any cache size. */
#ifndef GC_BENCH_COPYKERNEL_H
#define GC_BENCH_COPYKERNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuchar/gpuchar.h"

struct gc_device_info;

struct gc_copyk_sizing {
    double target;           /* bytes one launch should read */
    size_t src_bytes;        /* source buffer: every launch shape reads inside it */
    size_t dst_bytes;        /* output: one 32-bit word per work-item of any shape */
    size_t min_thread_bytes; /* fewest bytes a work-item of any shape reads */
};

/* Sizes the buffers for every launch shape the benchmark plans on a device
 * (element sizes 1-16 B x 64 reads, 4-byte elements x 1..64 reads, blocks of
 * up to the device's threads per CU, cus CUs). */
void gc__copyk_sizing(const struct gc_device_info *info, enum gc_profile p,
                      struct gc_copyk_sizing *z);

/* Runs per CU for one launch shape: about target bytes read, never more than
 * the source holds nor more work-items than the output holds. 0 when even one
 * run does not fit (the caller reports the shape as an error). */
unsigned gc__copyk_runs(const struct gc_copyk_sizing *z, int elem, int reads, int block, int bps,
                        int cus);

/* One configuration: a launch shape of one kernel. */
struct gc_copyk_cfg {
    int elem, reads;
    int fig6;  /* 0: the occupancy sweep; Fig. 6 loop bound 1: a literal, 2: a kernel argument */
    int warps; /* per CU: bps blocks of block work-items */
    int bps, block;
    unsigned runs; /* per CU (gc__copyk_runs) */
};

struct gc_harness;
struct gc_hconf;
struct gc_session;
struct gc_bench_result;

/* The benchmark on the harness (core/harness.h gc_hbench): plans every
 * series and configuration (its kernel generated) and allocates and fills
 * its buffers; derives the metrics and the CPMR series from the full
 * measurements; releases the run. */
int gc__copyk_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h);
int gc__copyk_derive(struct gc_session *s, const struct gc_harness *h, const char *bench);
void gc__copyk_free(struct gc_session *s, struct gc_harness *h);
const struct gc_copyk_cfg *gc__copyk_cfg(const struct gc_hconf *c);
/* CPMR per warp of a launch of cf taking `seconds` at clock_mhz (Lemeire
 * eq. 3 with timeOfRun = runtime / runsCU). */
double gc__copyk_cpmr(const struct gc_copyk_cfg *cf, double seconds, double clock_mhz, int warp);

#endif
