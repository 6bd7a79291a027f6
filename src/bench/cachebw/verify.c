/* memory.bandwidth's verification: lane prefix sums for the load kernel's
 * per-thread sums, the copy against its source (bench/cachebw/verify.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cachebw/verify.h"
#include "core/devfill.h"
#include "util/parallel.h"
#include "util/random.h"

#define CMP_WORDS ((size_t)1 << 20) /* words read back and compared at a time */

void gc__cb_lanes_free(struct gc_cb_lanes *l)
{
    free(l->pre);
    memset(l, 0, sizeof(*l));
}

static bool same_key(const struct gc_cb_lanes *l, const struct gc_cb_check *c)
{
    return l->pre && l->fp == c->fp && l->nchunks == c->fp / c->chunk &&
           l->vw == c->vec_bytes / 4 && l->unroll == c->unroll && l->block == c->block &&
           l->seed == c->seed;
}

/* Room for the prefix sums of c, and its key. */
static int lanes_reset(const struct gc_cb_check *c, struct gc_cb_lanes *l)
{
    size_t n = c->fp / c->chunk;
    uint32_t *p = realloc(l->pre, (n + 1) * (size_t)c->block * sizeof(*p));

    if (!p) {
        gc__cb_lanes_free(l);
        return GC_ENOMEM;
    }
    l->pre = p;
    l->fp = c->fp;
    l->nchunks = n;
    l->vw = c->vec_bytes / 4;
    l->unroll = c->unroll;
    l->block = c->block;
    l->seed = c->seed;
    memset(p, 0, (size_t)c->block * sizeof(*p)); /* row 0: no chunk yet */
    return 0;
}

/* Rows 1 .. nchunks hold each chunk's lane sums: made prefix sums. */
static void accumulate(struct gc_cb_lanes *l)
{
    size_t b = (size_t)l->block;

    for (size_t c = 1; c <= l->nchunks; c++)
        for (size_t t = 0; t < b; t++)
            l->pre[c * b + t] += l->pre[(c - 1) * b + t];
}

/* Lane t of chunk c from the generator. */
static uint32_t lane_of(const struct gc_cb_lanes *l, size_t c, size_t t)
{
    size_t b = (size_t)l->block, vw = (size_t)l->vw, cw = b * (size_t)l->unroll * vw;
    uint32_t s = 0;

    for (size_t u = 0; u < (size_t)l->unroll; u++)
        for (size_t w = 0; w < vw; w++)
            s += gc__hash32(l->seed, c * cw + (u * b + t) * vw + w);
    return s;
}

int gc__cb_lanes_host(const struct gc_cb_check *c, struct gc_cb_lanes *l)
{
    int rc = lanes_reset(c, l);
    size_t b = (size_t)c->block, vw = (size_t)l->vw, cw = c->chunk / 4;
    uint32_t *tmp;

    if (rc)
        return rc;
    if (!(tmp = malloc(cw * sizeof(*tmp)))) {
        gc__cb_lanes_free(l);
        return GC_ENOMEM;
    }
    for (size_t ch = 0; ch < l->nchunks; ch++) {
        uint32_t *row = l->pre + (ch + 1) * b;

        gc__hash_fill(tmp, ch * cw, cw, c->seed);
        memset(row, 0, b * sizeof(*row));
        for (size_t u = 0; u < (size_t)c->unroll; u++)
            for (size_t t = 0; t < b; t++)
                for (size_t w = 0; w < vw; w++)
                    row[t] += tmp[(u * b + t) * vw + w];
    }
    free(tmp);
    accumulate(l);
    return 0;
}

/* The lane sums from the device's reference kernel (one block per chunk),
 * three of them recomputed from the generator: 0, GC_ENOTSUP when the
 * device cannot or disagrees with the generator (the caller uses the host),
 * or an error. */
static int lanes_device(struct gc_session *s, const struct gc_cb_check *c, struct gc_cb_lanes *l)
{
    size_t n = c->fp / c->chunk, b = (size_t)c->block;
    int rc;

    if (!c->ref || n == 0 || n >= ((size_t)1 << 31))
        return GC_ENOTSUP;
    if ((rc = lanes_reset(c, l)))
        return rc;
    rc = gc__devcheck_read_ref(s, c->src, c->ref, (unsigned)n, (unsigned)(b * (size_t)c->unroll),
                               (unsigned)l->vw, (unsigned)n, (unsigned)c->block);
    if (rc == 0)
        rc = gc__dev_read(s->dev, c->ref, 0, l->pre + b, n * b * sizeof(uint32_t));
    if (rc) {
        gc__cb_lanes_free(l);
        return rc;
    }
    size_t at[3][2] = {{0, 0}, {n / 2, b / 2}, {n - 1, b - 1}};
    for (int i = 0; i < 3; i++)
        if (l->pre[(at[i][0] + 1) * b + at[i][1]] != lane_of(l, at[i][0], at[i][1])) {
            gc__cb_lanes_free(l);
            return GC_ENOTSUP;
        }
    accumulate(l);
    return 0;
}

uint32_t gc__cb_expected(const struct gc_cb_lanes *l, unsigned b, unsigned t, unsigned passes)
{
    /* The kernel's arithmetic: 32-bit chunk index, sums modulo 2^32. */
    uint32_t n = (uint32_t)l->nchunks, c0 = (uint32_t)(b * passes) % n;
    uint32_t q = passes / n, r = passes % n;
    const uint32_t *p = l->pre + t;
    size_t bs = (size_t)l->block;
    uint32_t all = p[n * bs], seg;

    if (c0 + r <= n)
        seg = p[(c0 + r) * bs] - p[c0 * bs];
    else
        seg = all - p[c0 * bs] + p[(c0 + r - n) * bs];
    return q * all + seg;
}

/* A piece of the per-thread sums read back: thread first + i's in got[i]. */
struct sums_piece {
    const struct gc_cb_lanes *l;
    const struct gc_cb_check *c;
    const uint32_t *got;
    size_t first;
};

static uint32_t sums_want(const struct sums_piece *p, size_t th)
{
    return gc__cb_expected(p->l, (unsigned)(th / (size_t)p->c->block),
                           (unsigned)(th % (size_t)p->c->block), p->c->passes);
}

static bool sums_bad(void *u, size_t i)
{
    const struct sums_piece *p = u;

    return p->got[i] != sums_want(p, p->first + i);
}

/* The per-thread sums against the lanes' prefix sums, compared on the
 * host's cores piece by piece; the first wrong word named. */
static int check_sums(struct gc_session *s, const struct gc_cb_check *c, struct gc_cb_lanes *l,
                      char *msg, size_t len)
{
    size_t words = (size_t)c->grid * (size_t)c->block;
    uint32_t *got = malloc((words < CMP_WORDS ? words : CMP_WORDS) * sizeof(*got));
    int rc = 0;

    if (!same_key(l, c) && (rc = lanes_device(s, c, l)) == GC_ENOTSUP)
        rc = gc__cb_lanes_host(c, l);
    if (!got || rc) {
        free(got);
        return rc ? rc : GC_ENOMEM;
    }
    for (size_t off = 0; off < words && rc == 0; off += CMP_WORDS) {
        size_t n = words - off < CMP_WORDS ? words - off : CMP_WORDS;

        if ((rc = gc__dev_read(s->dev, c->out, off * 4, got, n * 4)))
            break;
        struct sums_piece p = {l, c, got, off};
        size_t i = gc__parallel_first(n, 16384, sums_bad, &p);
        if (i != SIZE_MAX) {
            snprintf(msg, len, "per-thread sum word %zu is 0x%08x, expected 0x%08x", off + i,
                     got[i], sums_want(&p, off + i));
            rc = GC_EVERIFY;
        }
    }
    free(got);
    return rc;
}

/* The whole copy against the generator on the host; the first wrong word
 * named. */
static int copy_host(struct gc_session *s, const struct gc_cb_check *c, char *msg, size_t len)
{
    size_t words = c->fp / 4;
    uint32_t *got = malloc(CMP_WORDS * sizeof(*got)), *want = malloc(CMP_WORDS * sizeof(*want));
    int rc = 0;

    if (!got || !want) {
        free(got);
        free(want);
        return GC_ENOMEM;
    }
    for (size_t off = 0; off < words && rc == 0; off += CMP_WORDS) {
        size_t n = words - off < CMP_WORDS ? words - off : CMP_WORDS;

        if ((rc = gc__dev_read(s->dev, c->out, off * 4, got, n * 4)))
            break;
        gc__hash_fill(want, off, n, c->seed);
        for (size_t i = 0; i < n; i++)
            if (got[i] != want[i]) {
                snprintf(msg, len, "copied word %zu is 0x%08x, expected 0x%08x", off + i, got[i],
                         want[i]);
                rc = GC_EVERIFY;
                break;
            }
    }
    free(got);
    free(want);
    return rc;
}

/* On the device against the source, then eight words against the
 * generator; the host where the device cannot check or found a difference
 * (to name it). */
static int check_copy(struct gc_session *s, const struct gc_cb_check *c, char *msg, size_t len)
{
    size_t words = c->fp / 4;
    struct gc_check ck = {.kind = GC_CHECK_EQ, .want = c->src, .got = c->out, .words = words};
    int rc = gc__devcheck(s, &ck, msg, len);

    if (rc == GC_EDEVMEM || rc == GC_ENOMEM)
        rc = GC_ENOTSUP;
    for (uint64_t i = 0; rc == 0 && i < 8; i++) {
        size_t w = (size_t)((i * 0x9E3779B97F4A7C15ULL >> 11) % words);
        uint32_t got = 0, want = gc__hash32(c->seed, w);

        if ((rc = gc__dev_read(s->dev, c->out, w * 4, &got, 4)))
            return rc;
        if (got != want) {
            snprintf(msg, len, "copied word %zu is 0x%08x, expected 0x%08x", w, got, want);
            return GC_EVERIFY;
        }
    }
    if (rc != GC_ENOTSUP && rc != GC_EVERIFY)
        return rc;
    int hrc = copy_host(s, c, msg, len);
    if (hrc == 0 && rc == GC_EVERIFY) {
        size_t n = strlen(msg);

        snprintf(msg + n, len > n ? len - n : 0,
                 " (on the device; the host's comparison found none)");
        return GC_EVERIFY;
    }
    return hrc;
}

int gc__cb_check(struct gc_session *s, const struct gc_cb_check *c, struct gc_cb_lanes *cache,
                 char *msg, size_t len)
{
    if (c->fp < c->chunk || c->block <= 0 || c->grid == 0)
        return GC_EINVAL;
    return c->copy ? check_copy(s, c, msg, len) : check_sums(s, c, cache, msg, len);
}
