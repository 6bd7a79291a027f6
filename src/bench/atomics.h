/* memory.atomics on the harness: its plan, figures and buffers, for the
 * benchmark's run and its unit tests. */
#ifndef GC_BENCH_ATOMICS_H
#define GC_BENCH_ATOMICS_H

struct gc_bench_result;
struct gc_harness;
struct gc_hdesc;
struct gc_session;
struct gc_atomics_run;

/* Plans every space x type x mode (its kernel generated), makes the host's
 * data and allocates the device's buffers; *out is freed by
 * gc__atomics_free also on error. */
int gc__atomics_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h,
                     struct gc_atomics_run **out);
struct gc_hdesc *gc__atomics_desc(struct gc_atomics_run *ar);
/* The series and metrics from the full measurements; the global u32
 * distinct-address shape to the store under bench. */
int gc__atomics_derive(struct gc_session *s, const struct gc_harness *h,
                       const struct gc_atomics_run *ar, const char *bench);
void gc__atomics_free(struct gc_session *s, struct gc_harness *h, struct gc_atomics_run *ar);

#endif
