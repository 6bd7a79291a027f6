/* The run's compile plan: before the first measurement, every selected
 * benchmark that declares its kernels (gc_bench.plan) is asked for them,
 * and they are compiled together on one thread per host core into the
 * kernel cache's memory (and its disk), so that the benchmarks' own
 * requests find them built. Benchmarks whose kernels depend on measured
 * figures compile those when they ask. */
#ifndef GC_CORE_KPLAN_H
#define GC_CORE_KPLAN_H

#include "core/benchdef.h"

/* Plans and compiles the kernels of benches[0 .. n) (the benchmarks that
 * will run) and describes the plan in out. A benchmark whose plan hook
 * fails is left to compile on demand. Returns 0 or GC_ENOMEM (the run then
 * compiles on demand). */
int gc__kplan_make(struct gc_session *s, const struct gc_bench *const *benches, int n,
                   struct gc_plan_info *out);

/* After the run: which benchmarks compiled or loaded kernels outside the
 * plan, and how many planned kernels no benchmark asked for. */
void gc__kplan_finish(struct gc_session *s, const struct gc_results *r, struct gc_plan_info *p);

#endif
