/* control.divergence: the description the harness runs whole. */
#ifndef GC_BENCH_DIVERGENCE_H
#define GC_BENCH_DIVERGENCE_H

/* control.divergence's description (plan, derive, release), run whole by
 * gc__harness_bench. */
struct gc_hbench;
extern const struct gc_hbench gc__divergence_hbench;

#endif
