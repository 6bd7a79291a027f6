/* The benchmark table: each benchmark is its catalogue entry plus one run
 * function (the description type is core/benchdef.h, what the run loop
 * needs of it). Adding a benchmark adds a file and one line in registry.c. */
#ifndef GC_BENCH_BENCH_H
#define GC_BENCH_BENCH_H

#include "core/present.h"
#include "core/benchdef.h"
#include "core/guard.h"
#include "core/results.h"
#include "core/session.h"

/* The i-th benchmark: the single benchmarks first, then each family's
 * entries in table order; NULL past the end. */
const struct gc_bench *gc__bench_at(int i);

/* The benchmark of that exact name; NULL when none. */
const struct gc_bench *gc__bench_find(const char *name);

#endif
