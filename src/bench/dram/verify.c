/* Host-side verification of the streaming kernels: every output word is
 * compared with what the kernel must have written, regenerated chunk by
 * chunk from the fill seeds so that host memory stays small. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/dram/verify.h"
#include "util/random.h"

/* Bytes [off, off + len) of an input of either generator. */
static void regen(void *dst, size_t off, size_t len, uint64_t seed, bool hash)
{
    if (hash)
        gc__hash_fill(dst, off / 4, len / 4, seed);
    else
        gc__fill_random_range(dst, off, len, seed);
}

static void read_sums(uint32_t *sums, size_t n_vec, int vec_bytes, unsigned tile_vecs,
                      unsigned grid, unsigned block, uint64_t seed, bool hash)
{
    size_t vw = (size_t)vec_bytes / 4, total = n_vec * vw * 4;
    uint32_t *w = malloc(GC_FILL_CHUNK);
    size_t nthreads = (size_t)grid * block;

    memset(sums, 0, nthreads * sizeof(*sums));
    if (!w)
        return; /* the sums stay zero and the comparison reports it */
    for (size_t off = 0; off < total; off += GC_FILL_CHUNK) {
        size_t len = total - off < GC_FILL_CHUNK ? total - off : GC_FILL_CHUNK;
        size_t v0 = off / (vw * 4), nv = len / (vw * 4);

        regen(w, off, len, seed, hash);
        /* Vector v0 + j lies in tile t at position p of it; its owner is
         * thread p mod block of block t mod grid. The position is stepped
         * instead of divided for every vector (this loop verifies a GiB per
         * configuration). */
        size_t t = v0 / tile_vecs, p = v0 % tile_vecs, th = p % block;
        uint32_t *base = sums + t % grid * block;
        for (size_t j = 0; j < nv; j++) {
            uint32_t s = 0;

            for (size_t c = 0; c < vw; c++)
                s += w[j * vw + c];
            base[th] += s;
            if (++th == block)
                th = 0;
            if (++p == tile_vecs) {
                p = 0;
                th = 0;
                base = ++t % grid == 0 ? sums : base + block;
            }
        }
    }
    free(w);
}

void gc__stream_read_sums(uint32_t *sums, size_t n_vec, int vec_bytes, unsigned tile_vecs,
                          unsigned grid, unsigned block, uint64_t seed)
{
    read_sums(sums, n_vec, vec_bytes, tile_vecs, grid, block, seed, false);
}

void gc__stream_read_sums_hash(uint32_t *sums, size_t n_vec, int vec_bytes, unsigned tile_vecs,
                               unsigned grid, unsigned block, uint64_t seed)
{
    read_sums(sums, n_vec, vec_bytes, tile_vecs, grid, block, seed, true);
}

/* Compares len bytes of buffer b at off with want; fills msg on a mismatch. */
static int compare(struct gc_device *d, struct gc_buf *b, size_t off, const void *want, void *got,
                   size_t len, const char *what, char *msg, size_t msglen)
{
    int rc = gc__dev_read(d, b, off, got, len);

    if (rc)
        return rc;
    if (memcmp(want, got, len) == 0)
        return 0;
    const uint32_t *w = want, *g = got;
    size_t k = 0;
    while (k < len / 4 && w[k] == g[k])
        k++;
    snprintf(msg, msglen, "%s: word %zu is 0x%08x, expected 0x%08x", what, off / 4 + k,
             k < len / 4 ? g[k] : 0, k < len / 4 ? w[k] : 0);
    return GC_EVERIFY;
}

int gc__stream_verify(struct gc_device *d, const struct gc_stream_cfg *c,
                      const struct gc_stream_data *in, char *msg, size_t msglen)
{
    uint32_t *want = NULL, *got = NULL, *tmp = NULL;
    int rc = 0;

    if (c->op == GC_STREAM_READ) {
        size_t nthreads = (size_t)in->grid * (size_t)c->block;
        want = malloc(nthreads * 4);
        got = malloc(nthreads * 4);
        if (!want || !got) {
            rc = GC_ENOMEM;
            goto out;
        }
        read_sums(want, in->bytes / (size_t)c->vec_bytes, c->vec_bytes,
                  (unsigned)(c->block * c->unroll), in->grid, (unsigned)c->block, in->seed[0],
                  in->hash);
        rc = compare(d, in->buf[1], 0, want, got, nthreads * 4, "per-thread sum", msg, msglen);
        goto out;
    }
    want = malloc(GC_FILL_CHUNK);
    got = malloc(GC_FILL_CHUNK);
    tmp = c->op == GC_STREAM_TRIAD ? malloc(GC_FILL_CHUNK) : NULL;
    if (!want || !got || (c->op == GC_STREAM_TRIAD && !tmp)) {
        rc = GC_ENOMEM;
        goto out;
    }
    for (size_t off = 0; off < in->bytes && rc == 0; off += GC_FILL_CHUNK) {
        size_t len = in->bytes - off < GC_FILL_CHUNK ? in->bytes - off : GC_FILL_CHUNK;
        struct gc_buf *outb = in->buf[gc__stream_nbufs(c->op) - 1];

        switch (c->op) {
        case GC_STREAM_WRITE:
            for (size_t k = 0; k < len / 4; k++)
                want[k] = gc__stream_pattern(in->karg, off / 4 + k);
            break;
        case GC_STREAM_COPY:
            regen(want, off, len, in->seed[0], in->hash);
            break;
        default:
            regen(want, off, len, in->seed[0], in->hash);
            regen(tmp, off, len, in->seed[1], in->hash);
            for (size_t k = 0; k < len / 4; k++)
                want[k] += in->karg * tmp[k];
            break;
        }
        rc = compare(d, outb, off, want, got, len, gc__stream_op_name(c->op), msg, msglen);
    }
out:
    free(want);
    free(got);
    free(tmp);
    return rc;
}
