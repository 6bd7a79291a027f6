/* The run loop. It knows benchmarks only as descriptions (core/benchdef.h)
 * and runs the list its caller gives; gc_run() (bench/run.c) passes the
 * registered benchmarks, tests may pass their own. */
#ifndef GC_CORE_RUN_H
#define GC_CORE_RUN_H

#include "core/benchdef.h"

/* gc_run() over benches[0 .. nbenches): the same selection (o->patterns,
 * opt-in), statuses, progress, return codes and results as gc_run()
 * documents. */
int gc__run_benches(gc_context *ctx, const struct gc_run_options *o,
                    const struct gc_bench *const *benches, int nbenches, struct gc_results **out);

#endif
