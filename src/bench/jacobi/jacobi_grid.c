/* The grid of application.jacobi, the launch of a variant with a work-group
 * shape and the work one launch does, as its generator counts it
 * (bench/jacobi/jacobi.h). */
#include <stdio.h>

#include "bench/jacobi/jacobi.h"

#define TILE_PAD 3

void gc__jacobi_grid(unsigned n, struct gc_jgrid *g)
{
    g->n = n;
    g->N = n + 2;
    g->off = GC_JACOBI_OFF;
    g->pitch = (g->N + g->off + 15u) / 16u * 16u;
    /* A vector load at the last row's end reads at most 16 floats past it. */
    g->elems = (size_t)g->N * g->pitch + 16;
}

int gc__jacobi_launch(const struct gc_jvariant *v, const struct gc_jgrid *g, int bx, int by,
                      struct gc_jlaunch *out, char *why, size_t len)
{
    unsigned w = (unsigned)v->width;

    *out = (struct gc_jlaunch){0};
    out->tx = g->n / w + (v->be ? 0u : 2u);
    out->ty = g->n + (v->be ? 0u : 2u);
    if (v->be && (out->tx % (unsigned)bx || out->ty % (unsigned)by)) {
        snprintf(why, len,
                 "work-group %dx%d does not tile the %ux%u work-items of the interior "
                 "(branch elimination has no bounds test)",
                 bx, by, out->tx, out->ty);
        return GC_ERANGE;
    }
    out->nbx = (out->tx + (unsigned)bx - 1) / (unsigned)bx;
    out->nby = (out->ty + (unsigned)by - 1) / (unsigned)by;
    if (v->mc != GC_JMC_NONE) {
        out->tw = (unsigned)bx * w + 2;
        out->th = (unsigned)by + 2;
        out->tp = (out->tw + TILE_PAD + 3u) / 4u * 4u;
        out->tile_bytes = (size_t)out->th * out->tp * 4;
    }
    return 0;
}

/* fp32 operations per updated point: three adds of the neighbours, the
 * fma of h² f, the product by ω/4 and the final fma with (1 - ω) u. */
#define FP32_PER_POINT 6.0
/* Integer operations per work-item as the source writes them: its 2-D
 * position (4), x0 and y (2), the two indices (4), the boundary test (4). */
#define INT_PER_ITEM 14.0
/* ... and per element of a tile: the position in the tile (2), in the
 * grid (2), the index (2), the loop (2). */
#define INT_PER_TILE_ELEM 8.0

void gc__jacobi_work(const struct gc_jvariant *v, const struct gc_jgrid *g, int bx, int by,
                     const struct gc_jlaunch *l, struct gc_app_work *w)
{
    double inner = (double)g->n * g->n, all = (double)g->N * g->N;
    double edge = v->be ? 0.0 : all - inner;
    double blocks = (double)l->nbx * l->nby;
    /* Each work-group's footprint of u, its halo of one included. */
    double halo = blocks * ((double)bx * v->width + 2) * (by + 2) * 4.0;
    double fstore = inner * 8.0 + edge * 8.0;

    gc__app_work_init(w);
    w->threads = blocks * bx * by;
    w->block_threads = bx * by;
    w->ops[GC_APP_OP_FP32] = FP32_PER_POINT * inner + 2.0 * w->threads;
    w->ops[GC_APP_OP_INT32] = INT_PER_ITEM * w->threads;
    /* DRAM: the compulsory traffic, u and f read once, un written once. */
    w->bytes[GC_APP_LVL_DRAM] = 4.0 * all + 4.0 * inner + 4.0 * (v->be ? inner : all);
    w->bytes[GC_APP_LVL_L2] = halo + fstore;
    if (v->mc == GC_JMC_NONE) {
        w->bytes[GC_APP_LVL_L1] = inner * 28.0 + edge * 8.0;
        return;
    }
    w->ops[GC_APP_OP_INT32] += INT_PER_TILE_ELEM * halo / 4.0;
    w->bytes[GC_APP_LVL_L1] = halo + fstore;
    w->bytes[GC_APP_LVL_SHARED] = halo + inner * 20.0;
    w->shared_per_block = (double)l->tile_bytes;
}
