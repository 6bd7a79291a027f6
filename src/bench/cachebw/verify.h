/* What a memory.bandwidth launch must leave, and the check of it. The input
 * holds gc__hash32(seed, .) words (the run's pool). A load launch stores per
 * thread the sum of the words it read: thread t of block b reads `passes`
 * chunks from chunk (b x passes) mod nchunks on, of each chunk its lane t
 * (vectors t, t + block, ... of the chunk). The lane sums of every chunk come
 * from the fill program's reference kernel on the device (spot-checked
 * against the generator on the host) or, where it cannot run, from the
 * generator on the host; prefix sums over the chunks then give any thread's
 * expected sum in two look-ups, so that every thread of every launch is
 * checked without the host holding the input. A copy is compared with its
 * source on the device, eight words with the generator, or on the host. */
#ifndef GC_BENCH_CACHEBW_VERIFY_H
#define GC_BENCH_CACHEBW_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/session.h"

/* Prefix sums of the lanes of one (footprint, vector, unroll): pre[c x block
 * + t] is the sum of lane t over chunks 0 .. c - 1, c <= nchunks. Kept from
 * one check to the next while the key stays. */
struct gc_cb_lanes {
    uint32_t *pre;
    size_t nchunks, fp;
    int vw, unroll, block;
    uint64_t seed;
};

/* One launch to check. */
struct gc_cb_check {
    struct gc_buf *src; /* gc__hash32(seed, .) words, at least fp bytes */
    struct gc_buf *out; /* the copy, or the per-thread sums (grid x block words) */
    struct gc_buf *ref; /* device scratch of nchunks x block words; NULL: host lanes */
    uint64_t seed;
    size_t fp, chunk; /* footprint and chunk bytes */
    int vec_bytes, unroll, block;
    bool copy;
    unsigned grid, passes;
};

/* 0, GC_EVERIFY with the first difference in msg, or an error. */
int gc__cb_check(struct gc_session *s, const struct gc_cb_check *c, struct gc_cb_lanes *cache,
                 char *msg, size_t len);
void gc__cb_lanes_free(struct gc_cb_lanes *l);

/* The lanes of c computed on the host from the generator, into l (for the
 * fallback and for tests). */
int gc__cb_lanes_host(const struct gc_cb_check *c, struct gc_cb_lanes *l);
/* The expected sum of thread t of block b of c's launch, from l. */
uint32_t gc__cb_expected(const struct gc_cb_lanes *l, unsigned b, unsigned t, unsigned passes);

#endif
