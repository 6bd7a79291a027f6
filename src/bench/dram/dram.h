/* The DRAM streaming sweep of memory.dram.* (memory.copy names memory.dram.copy): one run
 * function, parameterised by the operation and the metric names. */
#ifndef GC_BENCH_DRAM_H
#define GC_BENCH_DRAM_H

#include "bench/bench.h"
#include "kgen/gen_stream.h"

struct gc_dram_param {
    enum gc_stream_op op;
    const char *metric; /* headline "<metric>_bandwidth", "<metric>_bytes_per_clk_per_cu" */
};

/* Runs the sweep of self->param (a struct gc_dram_param). */
int gc__dram_run(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r);

/* The kernels of the sweep for info, with their expected SASS (CUDA). */
int gc__dram_sources(const struct gc_bench *self, const struct gc_device_info *info,
                     struct gc_ksrc **out, int *n);

/* The SASS opcode one load or store of a generated stream kernel compiles to
 * on sm_70 and later. */
const char *gc__stream_sass(int vec_bytes, enum gc_ldpath ld, bool store, bool st_cs);

#endif
