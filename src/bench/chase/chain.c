/* The pointer chase's chain: random cycles over the footprint's elements,
 * their walk on the host, and their installation in the device buffer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"
#include "util/random.h"

/* ---- The chain --------------------------------------------------------- */

/* A random cycle over m elements, as 2 m words: next[e] (the element after
 * e; following next from any element visits all m before returning) and
 * after it the walk's order from element 0 (order[k] the k-th element), so
 * that the ordered touch needs no walk of the chain on the host. The cycle
 * is 0 followed by a Fisher-Yates shuffle of 1 .. m-1: every cycle is
 * equally likely, as with Sattolo's algorithm. */
static uint32_t *random_cycle(size_t m, uint64_t seed)
{
    uint32_t *a = malloc((m ? 2 * m : 1) * sizeof(*a));
    uint32_t *order = a + m;
    uint64_t st = seed ? seed : 1;

    if (!a)
        return NULL;
    for (size_t i = 0; i < m; i++)
        order[i] = (uint32_t)i;
    for (size_t i = m; i-- > 2;) {
        size_t j = 1 + (size_t)(gc__xorshift64s(&st) % i); /* 1 <= j <= i */
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t k = 0; k < m; k++)
        a[order[k]] = order[k + 1 < m ? k + 1 : 0];
    return a;
}

/* slices disjoint random cycles of m elements each: slice k covers elements
 * k m .. (k + 1) m - 1 and next never leaves its slice. The order after the
 * n = slices m words of next is the walk from element 0, which stays in
 * slice 0: its cycle repeated. */
static uint32_t *cycle_slices(size_t m, int slices, uint64_t seed)
{
    size_t n = m * (size_t)slices;
    uint32_t *a = malloc((n > 0 ? 2 * n : 1) * sizeof(*a));

    if (!a)
        return NULL;
    for (int k = 0; k < slices; k++) {
        uint32_t *t = random_cycle(m, seed + (uint64_t)k * 0x9E3779B97F4A7C15ULL);
        if (!t) {
            free(a);
            return NULL;
        }
        for (size_t e = 0; e < m; e++)
            a[(size_t)k * m + e] = (uint32_t)((size_t)k * m + t[e]);
        if (k == 0)
            for (size_t e = 0; e < n; e++)
                a[n + e] = t[m + e % m];
        free(t);
    }
    return a;
}

uint32_t gc__chase_walk_from(const uint32_t *next, uint32_t start, size_t m, uint64_t steps)
{
    uint32_t e = start;

    steps %= m;
    for (uint64_t i = 0; i < steps; i++)
        e = next[e];
    return e;
}

uint32_t gc__chase_walk(const uint32_t *next, size_t m, uint64_t steps)
{
    return gc__chase_walk_from(next, 0, m, steps);
}

size_t gc__chase_slot_of(const struct plan *pl, size_t e)
{
    if (pl->paged) {
        size_t lines = pl->spacing / pl->line;
        size_t off = (size_t)((e * 2654435761ULL) % lines) * pl->line;
        return (e * pl->spacing + off) / pl->esize;
    }
    return e * pl->spacing / pl->esize;
}

int gc__chase_install_chain(struct chase_ctx *c, size_t fp, int slices, uint64_t seed,
                            uint32_t **next, size_t *m)
{
    struct gc_device *d = c->s->dev;
    const struct plan *pl = &c->pl;
    size_t per = fp / pl->spacing / (size_t)slices, n = per * (size_t)slices;
    uint32_t *nx = slices > 1 ? cycle_slices(per, slices, seed) : random_cycle(n, seed);
    uint64_t *pairs = NULL;
    uint32_t *w = NULL;
    int rc = 0;

    *next = NULL;
    *m = n;
    if (!nx)
        return GC_ENOMEM;
    if (gc__chase_words_path(c->path)) {
        /* Dense words: the chain's indices where the elements are, random
         * words in between (never read). */
        size_t nw = fp / 4;
        w = malloc(nw * sizeof(*w));
        if (!w) {
            rc = GC_ENOMEM;
            goto out;
        }
        gc__hash_fill(w, 0, nw, seed ^ 0x5EEDULL);
        for (size_t e = 0; e < n; e++)
            w[gc__chase_slot_of(pl, e)] = (uint32_t)gc__chase_slot_of(pl, nx[e]);
        if (c->words)
            rc = gc__dev_write(d, c->words, 0, w, nw * sizeof(*w));
        /* The cycle-path constant chase has the chain in its kernel's source. */
    } else {
        pairs = malloc(2 * n * sizeof(*pairs));
        if (!pairs) {
            rc = GC_ENOMEM;
            goto out;
        }
        for (size_t e = 0; e < n; e++) {
            pairs[2 * e] = gc__chase_slot_of(pl, e);
            /* CUDA global paths chase byte addresses (the install kernel adds
             * the buffer's base); the texture and OpenCL chase indices. */
            pairs[2 * e + 1] = c->clocks && c->path != PATH_TEXTURE
                                   ? gc__chase_slot_of(pl, nx[e]) * 8
                                   : gc__chase_slot_of(pl, nx[e]);
        }
        rc = gc__dev_write(d, c->pairs, 0, pairs, 2 * n * sizeof(*pairs));
        if (rc)
            goto out;
        struct gc_arg a[4] = {
            {.type = GC_ARG_BUF, .v.buf = c->buf},
            {.type = GC_ARG_BUF, .v.buf = c->pairs},
            {.type = GC_ARG_U32, .v.u32 = (uint32_t)n},
            {.type = GC_ARG_U32, .v.u32 = c->clocks && c->path != PATH_TEXTURE},
        };
        struct gc_launch l = {{(unsigned)((n + 255) / 256), 1, 1}, {256, 1, 1}, 0, a, 4, 1};
        double el;
        rc = gc__dev_launch(d, c->install, &l, &el);
    }
out:
    free(pairs);
    free(w);
    if (rc)
        free(nx);
    else
        *next = nx;
    return rc;
}

uint32_t *gc__chase_chain_words(const struct plan *pl, size_t fp, uint64_t seed, uint32_t **next,
                                size_t *m)
{
    size_t n = fp / pl->spacing, nw = fp / 4;
    uint32_t *w = malloc(nw * sizeof(*w));

    *m = n;
    *next = random_cycle(n, seed);
    if (!w || !*next) {
        free(w);
        free(*next);
        *next = NULL;
        return NULL;
    }
    gc__hash_fill(w, 0, nw, seed ^ 0x5EEDULL);
    for (size_t e = 0; e < n; e++)
        w[gc__chase_slot_of(pl, e)] = (uint32_t)gc__chase_slot_of(pl, (*next)[e]);
    return w;
}

uint64_t gc__chase_point_seed(const struct gc_session *s, int i)
{
    return s->seed ^ (0xC4A5E000ULL + (uint64_t)i * 0x9E3779B97F4A7C15ULL);
}
