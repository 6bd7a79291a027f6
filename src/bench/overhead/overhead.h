/* Helpers shared by the runtime-overhead benchmarks (overhead.launch.*,
 * overhead.alloc, overhead.compile): tail percentiles as metrics and the
 * host's monotonic clock. */
#ifndef GC_BENCH_OVERHEAD_H
#define GC_BENCH_OVERHEAD_H

#include "backend/backend.h"
#include "bench/bench.h"

/* Adds the metric name (the median of x[0..n), with its statistics) and
 * name_p5, name_p95, name_p99: overheads have tails, and the median alone
 * hides them. Returns 0 or GC_ENOMEM. */
int gc__add_percentile_metrics(struct gc_bench_result *r, const char *name, const double *x, int n,
                               const char *unit, const char *note);

/* Seconds on the host's monotonic clock (the backends' launch timestamps). */
double gc__mono_now(void);

#endif
