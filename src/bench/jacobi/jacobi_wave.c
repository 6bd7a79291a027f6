/* The L1 wavefronts of one application.jacobi launch on a GPU, counted from
 * the kernel as jacobi_gen.c writes it (bench/jacobi/jacobi.h): every warp
 * request of global memory costs the distinct GC_APP_L1_LINE lines its
 * active lanes touch (model/appwork.h), as application.polybench counts
 * them. The lanes of a warp are 32 consecutive work-items of the
 * one-dimensional work-group (tx = t mod bx, ty = t / bx), so a warp of a
 * narrow group spans several rows. Requests per work-item:
 *   scalar (W = 1)   u at x-1, x, x+1 and in rows y-1, y+1, f, the store;
 *   W > 1            u, the rows above and below and f in W/4 16-byte
 *                    pieces each, u's outer neighbours x0-1 and x0+W as
 *                    scalars, the store in W/4 pieces (CUDA C's float4
 *                    and OpenCL C's floatW alike);
 *   manual caching   the tile's loads (work-item t loads elements t,
 *                    t + bx by, ... of the tile, row after row), then f
 *                    and the store as above (u from local memory);
 *   boundary         per point k of the work-item, a load of u and a
 *                    store of un for the lanes whose point is on the grid.
 * Rows differ only in their alignment to a line (pitch is a multiple of 16
 * floats) and at the grid's edges, so a row of work-groups away from the
 * edges is counted once per alignment. */
#include <stdbool.h>
#include <string.h>

#include "bench/jacobi/jacobi.h"
#include "kgen/gen_vec.h"

#define LINE ((long)(GC_APP_L1_LINE / 4)) /* floats per line */

struct wctx {
    const struct gc_jvariant *v;
    const struct gc_jgrid *g;
    const struct gc_jlaunch *l;
    int bx, by, W;
    bool f4; /* float4 pieces (W > 1) */
};

/* One warp request: its wavefronts so far and the last line counted. */
struct req {
    double waves;
    long last;
};

/* n lanes from float index first, stride floats apart, len floats each, in
 * increasing order after the runs before (stride <= LINE: no line between
 * the first and the last is skipped). */
static void run(struct req *q, long first, long stride, long n, long len)
{
    if (n <= 0)
        return;
    long lo = first / LINE, hi = (first + stride * (n - 1) + len - 1) / LINE;
    if (lo <= q->last)
        lo = q->last + 1;
    if (hi >= lo)
        q->waves += (double)(hi - lo + 1);
    if (hi > q->last)
        q->last = hi;
}

static long idx(const struct wctx *c, long x, long y)
{
    return y * (long)c->g->pitch + x + (long)c->g->off;
}

static long x0_of(const struct wctx *c, long gx)
{
    return c->v->be ? 1 + c->W * gx : 1 + c->W * (gx - 1);
}

static long max_l(long a, long b)
{
    return a > b ? a : b;
}

static long min_l(long a, long b)
{
    return a < b ? a : b;
}

/* A warp's lanes in one row of the work-group: gx from g0 to g1, row gy. */
struct seg {
    long g0, g1, gy;
};

static int segments(const struct wctx *c, long gxb, long gyb, int warp, struct seg *s)
{
    int n = 0, B = c->bx * c->by;

    for (int t = 32 * warp; t < 32 * warp + 32 && t < B;) {
        int ty = t / c->bx, tx = t % c->bx;
        int end = (int)min_l(c->bx - 1, tx + min_l(32 * warp + 31, B - 1) - t);

        s[n++] = (struct seg){gxb + tx, gxb + end, gyb + ty};
        t += end - tx + 1;
    }
    return n;
}

/* Interior lanes of a segment (they run the update): [*a, *b]. */
static void interior(const struct wctx *c, const struct seg *s, long *a, long *b)
{
    long jnv = (long)(c->g->n / (unsigned)c->W), N = c->g->N;

    *a = s->g0;
    *b = s->g1;
    if (c->v->be)
        return;
    if (s->gy < 1 || s->gy > N - 2) {
        *b = *a - 1;
        return;
    }
    *a = max_l(*a, 1);
    *b = min_l(*b, jnv);
}

/* One request of the update over the warp's segments: dx floats from x0,
 * dy rows from y, len floats per lane. */
static double update_req(const struct wctx *c, const struct seg *s, int ns, long dx, long dy,
                         long len)
{
    struct req q = {0, -1};

    for (int i = 0; i < ns; i++) {
        long a, b, y = c->v->be ? 1 + s[i].gy : s[i].gy;

        interior(c, &s[i], &a, &b);
        run(&q, idx(c, x0_of(c, a) + dx, y + dy), c->W, b - a + 1, len);
    }
    return q.waves;
}

/* The boundary branch's request of point k (a load of u or a store of
 * un: the same lines) over the warp's boundary lanes. */
static double edge_req(const struct wctx *c, const struct seg *s, int ns, long k)
{
    long N = c->g->N, W = c->W;
    /* x0 + k on the grid: W (gx - 1) + 1 + k in [0, N - 1] */
    long glo = (2 * W - 2 - k) / W, ghi = (N - 2 + W - k) / W;
    struct req q = {0, -1};

    for (int i = 0; i < ns; i++) {
        long a, b, y = s[i].gy, part[2][2] = {{s[i].g0, s[i].g1}, {1, 0}};

        if (y > N - 1)
            continue;
        interior(c, &s[i], &a, &b);
        if (b >= a) { /* the lanes on either side of the interior ones */
            part[0][1] = a - 1;
            part[1][0] = b + 1;
            part[1][1] = s[i].g1;
        }
        for (int p = 0; p < 2; p++) {
            long g0 = max_l(part[p][0], glo), g1 = min_l(part[p][1], ghi);
            run(&q, idx(c, x0_of(c, g0) + k, y), W, g1 - g0 + 1, 1);
        }
    }
    return q.waves;
}

/* The tile's loads of a work-group whose first work-item is (gxb, gyb). */
static double tile_reqs(const struct wctx *c, long gxb, long gyb, int warp)
{
    const struct gc_jlaunch *l = c->l;
    long B = (long)c->bx * c->by, tiles = (long)l->tw * l->th, N = c->g->N, waves = 0;
    long xb = x0_of(c, gxb) - 1, yb = (c->v->be ? 1 + gyb : gyb) - 1;

    for (long i0 = 32L * warp; i0 < tiles; i0 += B) {
        long i1 = min_l(i0 + min_l(31, B - 1 - 32L * warp), tiles - 1);
        struct req q = {0, -1};

        for (long i = i0; i <= i1;) {
            long r = i / l->tw, cc = i % l->tw, ce = min_l((long)l->tw - 1, cc + i1 - i);
            long yy = yb + r, xa = xb + cc, xe = xb + ce;

            if (!c->v->be) {
                xa = max_l(xa, 0);
                xe = min_l(xe, N - 1);
            }
            if (c->v->be || (yy >= 0 && yy < N))
                run(&q, idx(c, xa, yy), 1, xe - xa + 1, 1);
            i += ce - cc + 1;
        }
        waves += (long)q.waves;
    }
    return (double)waves;
}

/* Every request of one warp. */
static double warp_waves(const struct wctx *c, long gxb, long gyb, int warp)
{
    struct seg s[33];
    int ns = segments(c, gxb, gyb, warp, s);
    double w = 0;
    long pieces = c->f4 ? c->W / 4 : 1, plen = c->f4 ? 4 : 1;

    if (c->v->mc != GC_JMC_NONE)
        w += tile_reqs(c, gxb, gyb, warp);
    for (long k = 0; !c->v->be && k < c->W; k++)
        w += 2 * edge_req(c, s, ns, k); /* the load of u, the store of un */
    for (long p = 0; p < pieces; p++) {
        w += 2 * update_req(c, s, ns, 4 * p, 0, plen); /* f, and the store of un */
        if (c->v->mc != GC_JMC_NONE)
            continue;
        w += update_req(c, s, ns, 4 * p, 0, plen) + update_req(c, s, ns, 4 * p, -1, plen) +
             update_req(c, s, ns, 4 * p, 1, plen);
    }
    if (c->v->mc == GC_JMC_NONE) /* the neighbours left and right */
        w += update_req(c, s, ns, -1, 0, 1) + update_req(c, s, ns, c->W, 0, 1);
    return w;
}

static double block_row(const struct wctx *c, long byi)
{
    int warps = (c->bx * c->by + 31) / 32;
    double w = 0;

    for (long bxi = 0; bxi < (long)c->l->nbx; bxi++)
        for (int k = 0; k < warps; k++)
            w += warp_waves(c, bxi * c->bx, byi * c->by, k);
    return w;
}

/* A row of work-groups whose rows (and tile rows) are all inside the grid
 * and off its boundary rows: counted once per alignment of its first row. */
static bool plain_row(const struct wctx *c, long byi)
{
    long y0 = byi * c->by, y1 = y0 + c->by - 1, N = c->g->N;

    if (c->v->be)
        return true;
    return y0 - 1 >= 1 && y1 + 1 <= N - 2;
}

double gc__jacobi_wavefronts(enum gc_dialect d, const struct gc_jvariant *v,
                             const struct gc_jgrid *g, int bx, int by, const struct gc_jlaunch *l)
{
    struct wctx c = {v, g, l, bx, by, v->width, v->width > 1};
    double memo[LINE], total = 0;
    bool have[LINE];

    (void)d;
    memset(have, 0, sizeof(have));
    for (long byi = 0; byi < (long)l->nby; byi++) {
        long key = (byi * by * (long)g->pitch) % LINE;

        if (!plain_row(&c, byi)) {
            total += block_row(&c, byi);
            continue;
        }
        if (!have[key]) {
            memo[key] = block_row(&c, byi);
            have[key] = true;
        }
        total += memo[key];
    }
    return total;
}

int gc__jacobi_access_bytes(enum gc_dialect d, const struct gc_jvariant *v)
{
    (void)d;
    return v->width == 1 ? 4 : 16;
}
