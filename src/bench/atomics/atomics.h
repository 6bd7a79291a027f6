/* memory.atomics on the harness (core/harness.h gc_hbench), for the
 * benchmark's run and its unit tests. */
#ifndef GC_BENCH_ATOMICS_H
#define GC_BENCH_ATOMICS_H

struct gc_bench_result;
struct gc_harness;
struct gc_session;

/* Plans every space x type x mode (its kernel generated), makes the host's
 * data and allocates the device's buffers; derives the series and metrics
 * from the full measurements (the global u32 distinct-address shape to the
 * store under bench); releases the run. */
int gc__atomics_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h);
int gc__atomics_derive(struct gc_session *s, const struct gc_harness *h, const char *bench);
void gc__atomics_free(struct gc_session *s, struct gc_harness *h);

#endif
