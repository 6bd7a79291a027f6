/* memory.coalescing on the harness (core/harness.h gc_hbench), for the
 * benchmark's run and its unit tests. */
#ifndef GC_BENCH_COALESCE_H
#define GC_BENCH_COALESCE_H

#include "core/session.h"

struct gc_harness;
struct gc_bench_result;

/* Plans every read pattern and copy element size into h (initialised here),
 * takes the run's buffers and fills the source; gc__coalescing_free releases
 * them also on error. */
int gc__coalescing_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h);
/* The series and figures of the full measurements. */
int gc__coalescing_derive(struct gc_session *s, const struct gc_harness *h, const char *bench);
void gc__coalescing_free(struct gc_session *s, struct gc_harness *h);

#endif
