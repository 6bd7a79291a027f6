/* What the streaming kernels (kgen/gen_stream.h) must have produced, computed
 * on the host from the seeds of the random fill, and the check of one
 * launch's output against it. */
#ifndef GC_BENCH_STREAM_VERIFY_H
#define GC_BENCH_STREAM_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "core/device.h"
#include "kgen/gen_stream.h"

/* Per-thread sums a read kernel must produce for nthreads = grid x block
 * threads over a buffer of n_vec vectors filled with seed, when vector v is
 * read by thread ((v / tile_vecs) % grid) x block + v % block. sums has
 * nthreads entries. */
void gc__stream_read_sums(uint32_t *sums, size_t n_vec, int vec_bytes, unsigned tile_vecs,
                          unsigned grid, unsigned block, uint64_t seed);

/* What the inputs of one verification are. */
/* The same for a buffer of gc__hash32(seed, .) words (core/devfill.h). */
void gc__stream_read_sums_hash(uint32_t *sums, size_t n_vec, int vec_bytes, unsigned tile_vecs,
                               unsigned grid, unsigned block, uint64_t seed);

struct gc_stream_data {
    struct gc_buf *buf[3]; /* in kernel-argument order */
    uint64_t seed[2];      /* fill seeds of the input buffers */
    uint32_t karg;         /* write: pattern seed; triad: s */
    size_t bytes;          /* of each streamed buffer */
    unsigned grid;         /* blocks launched */
    bool hash;             /* inputs hold gc__hash32 words (else gc__dev_fill_random's) */
};

/* Checks the output of one launch of c against the host's expectation.
 * Returns 0, GC_EVERIFY with the first difference in msg, or an error. */
int gc__stream_verify(struct gc_device *d, const struct gc_stream_cfg *c,
                      const struct gc_stream_data *in, char *msg, size_t msglen);

#endif
