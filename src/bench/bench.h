/* The benchmark table: each benchmark is its catalogue entry plus one run
 * function. Adding a benchmark adds a file and one line in registry.c. */
#ifndef GC_BENCH_BENCH_H
#define GC_BENCH_BENCH_H

#include "core/results.h"
#include "core/session.h"

struct gc_bench {
    struct gc_bench_info info;
    unsigned needs_caps; /* GC_CAP_* all required; missing => not available */
    /* Fills r (metrics, series). Returns 0, or an error after recording the
     * message in r with gc__bench_set_error. */
    int (*run)(struct gc_session *s, struct gc_bench_result *r);
};

extern const struct gc_bench *const gc__benches[];

#endif
