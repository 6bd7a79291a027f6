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

#endif
