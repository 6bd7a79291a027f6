/* Fast data for the benchmarks of a run: random input buffers filled on the
 * device with the counter-based generator (gc__hash32), outputs poisoned
 * with a device memset, outputs checked on the device against their inputs,
 * and a small pool that keeps filled buffers for the next configuration and
 * the next benchmark that asks for the same data. Every device path checks
 * itself and falls back to the host (a backend whose kernels do not run, a
 * kernel that fails to build). */
#ifndef GC_CORE_DEVFILL_H
#define GC_CORE_DEVFILL_H

#include "core/session.h"

/* The fill program's source as the run's benchmarks request it (label
 * "gc_fill"), for the run's compile plan; NULL without memory. */
char *gc__devfill_source(const struct gc_session *s);

/* Releases the session's fill programs and pooled buffers (before the device
 * is closed or reopened). */
void gc__devfill_free(struct gc_session *s);

/* Fills bytes (a multiple of 4) of b with words gc__hash32(seed, i). */
int gc__devfill_hash(struct gc_session *s, struct gc_buf *b, size_t bytes, uint64_t seed);

/* Writes the word w over bytes (a multiple of 4) of b. */
int gc__devfill_word(struct gc_session *s, struct gc_buf *b, size_t bytes, uint32_t w);

/* What an output must hold, word i of words: */
enum gc_check_kind {
    GC_CHECK_EQ,      /* want[i] */
    GC_CHECK_PATTERN, /* gc__stream_pattern(arg, i) */
    GC_CHECK_TRIAD,   /* b[i] + arg x c[i] */
    GC_CHECK_HASH,    /* gc__hash32(seed, first + i), read from word got_off on */
};

struct gc_check {
    enum gc_check_kind kind;
    struct gc_buf *want, *b, *c; /* inputs the kind reads */
    struct gc_buf *got;          /* the output */
    size_t words;
    uint32_t arg;
    uint64_t seed;         /* GC_CHECK_HASH */
    size_t first, got_off; /* GC_CHECK_HASH */
};

/* Counts on the device the words of c->got that differ. 0 when none does,
 * GC_EVERIFY with the count in msg, GC_ENOTSUP when the device cannot check
 * (then the caller verifies on the host), or a backend error. */
int gc__devcheck(struct gc_session *s, const struct gc_check *c, char *msg, size_t len);

/* A stream read kernel's output: got holds the per-thread sums of a launch
 * of grid x block threads over tiles tiles of tile_vecs vectors of vw words
 * of src (see gc_check_read in kgen/gen_fill.h). */
struct gc_check_read {
    struct gc_buf *src, *got;
    unsigned tiles, tile_vecs, vw, grid, block;
};

/* Counts on the device the per-thread sums of c->got that differ from the
 * sums of c->src, as gc__devcheck does (no reference buffer is allocated). */
int gc__devcheck_read(struct gc_session *s, const struct gc_check_read *c, char *msg, size_t len);

/* The per-thread sums of a stream read kernel into ref (grid x block words;
 * see gc_read_ref in kgen/gen_fill.h). GC_ENOTSUP when the device cannot. */
int gc__devcheck_read_ref(struct gc_session *s, struct gc_buf *src, struct gc_buf *ref,
                          unsigned tiles, unsigned tile_vecs, unsigned vw, unsigned grid,
                          unsigned block);

/* What each of `threads` work-items of the copy kernel (bench/copykernel/copykernel.c)
 * must store, into ref (threads words; poison where the sum is 0; see
 * gc_copyk_ref in kgen/gen_fill.h). GC_ENOTSUP when the device cannot. */
int gc__devcheck_copyk_ref(struct gc_session *s, struct gc_buf *src, struct gc_buf *ref,
                           unsigned elem, unsigned reads, uint64_t stride, uint64_t threads,
                           uint32_t poison);

/* The device's timer (events, %globaltimer) against the host's clock:
 * back-to-back fill launches for about 0.1 s, host time over device time,
 * the median of three, into *raw. When it differs from 1 by more than
 * GC_TIMER_TOLERANCE, the device's timer_scale is set to it, so that
 * device times and clock rates from %globaltimer are on the host's clock.
 * GC_ENOTSUP for devices that are not GPUs or cannot run the fill. */
#define GC_TIMER_TOLERANCE 0.002
int gc__timer_calibrate(struct gc_session *s, double *raw);

/* A pooled buffer of at least bytes whose first bytes hold gc__hash32(seed,
 * .) words, under key: the one already there when key and seed match, it is
 * as large and nothing wrote it since, else one filled now. Owned by the pool
 * (never freed by the caller); valid until the next pool call that evicts it
 * or until gc__devfill_free. */
int gc__pool_input(struct gc_session *s, const char *key, size_t bytes, uint64_t seed,
                   struct gc_buf **out);
/* A pooled buffer of at least bytes whose content is undefined (an output). */
int gc__pool_output(struct gc_session *s, const char *key, size_t bytes, struct gc_buf **out);
/* Starts a benchmark's use of the pool: buffers it takes from now on are
 * not evicted for its later requests (those of earlier benchmarks may be). */
void gc__pool_begin(struct gc_session *s);
/* Buffers the pool holds and their bytes (for tests). */
int gc__pool_count(const struct gc_session *s, size_t *bytes);

#endif
