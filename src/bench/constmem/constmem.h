/* memory.constant on the harness (core/harness.h gc_hbench), for the
 * benchmark's run and its unit tests. */
#ifndef GC_BENCH_CONSTMEM_H
#define GC_BENCH_CONSTMEM_H

#include "core/session.h"

struct gc_harness;
struct gc_bench_result;

/* Plans every (element size, k) configuration into h (initialised here) and
 * takes the run's buffers; gc__constant_free releases them also on error. */
int gc__constant_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h);
/* The series and the broadcast figures of the full measurements, and the
 * best element size stored for the energy workload (struct gc_best_elem). */
int gc__constant_derive(struct gc_session *s, const struct gc_harness *h, const char *bench);
void gc__constant_free(struct gc_session *s, struct gc_harness *h);

#endif
