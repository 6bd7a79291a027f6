/* A range of independent host work split over threads: the host models and
 * input generators that check or feed a kernel over millions of elements,
 * which would otherwise serialise a run on one core. */
#ifndef GC_UTIL_PARALLEL_H
#define GC_UTIL_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>

/* Calls fn(ctx, lo, hi) over [0, n) in contiguous chunks of at least
 * min_chunk elements, on up to the online CPUs (at most 16) threads, the
 * calling one included; returns when every chunk is done. fn must only
 * write what its own range owns. Where a thread cannot start, its chunk runs
 * on the caller: the result never depends on the thread count. */
void gc__parallel_for(size_t n, size_t min_chunk, void (*fn)(void *ctx, size_t lo, size_t hi),
                      void *ctx);

/* The smallest i in [0, n) for which bad(ctx, i) is true, SIZE_MAX when
 * none is: a check of millions of elements split as gc__parallel_for
 * splits (a range stops at its first bad element, or where it passed one
 * another range found), naming the element a sequential scan would. */
size_t gc__parallel_first(size_t n, size_t min_chunk, bool (*bad)(void *ctx, size_t i), void *ctx);

#endif
