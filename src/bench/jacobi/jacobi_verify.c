/* The host reference of application.jacobi: one ω-Jacobi step computed in
 * double precision and compared with the device's fp32 result within the
 * rounding bound of the fp32 evaluation (bench/jacobi/jacobi.h). */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/jacobi/jacobi.h"
#include "util/parallel.h"

/* The update is six fp32 operations (plus the rounding of 1 - ω and ω/4)
 * over terms whose magnitudes sum to S = |(1-ω) u| + ω/4 (|u_W| + |u_E| +
 * |u_S| + |u_N| + h² |f|); each rounding errs by at most half an ulp of a
 * partial result no larger than S, so |device - exact| <= 8 x 2^-24 S in
 * any evaluation order, with or without fused multiply-adds. The check
 * allows twice that, 2^-20 S. */
#define REL_TOL 0x1p-20

struct jcheck {
    const struct gc_jgrid *g;
    const float *u, *f, *got;
    double a, w4, h2;
    bool interior_only;
    _Atomic uint64_t first_bad; /* y * N + x of the first failing point; UINT64_MAX none */
};

/* Point (x, y): true when got is within the tolerance; want and tol out. */
static bool point_ok(const struct jcheck *c, unsigned x, unsigned y, double *want, double *tol)
{
    const struct gc_jgrid *g = c->g;
    size_t i = (size_t)y * g->pitch + x + g->off;
    const float *u = c->u;
    double s;

    if (x == 0 || y == 0 || x == g->N - 1 || y == g->N - 1) {
        *want = u[i];
        s = 0;
    } else {
        double nb = (double)u[i - 1] + u[i + 1] + u[i - g->pitch] + u[i + g->pitch];
        *want = c->a * u[i] + c->w4 * (nb + c->h2 * c->f[i]);
        s = fabs(c->a * u[i]) +
            c->w4 *
                (fabs((double)u[i - 1]) + fabs((double)u[i + 1]) + fabs((double)u[i - g->pitch]) +
                 fabs((double)u[i + g->pitch]) + c->h2 * fabs((double)c->f[i]));
    }
    *tol = REL_TOL * s;
    return fabs((double)c->got[i] - *want) <= *tol; /* NaN fails */
}

/* Rows [lo, hi): the first failing point of the range lowers first_bad. */
static void check_rows(void *ctx, size_t lo, size_t hi)
{
    struct jcheck *c = ctx;
    const unsigned n = c->g->N;

    for (size_t y = lo; y < hi; y++) {
        bool edge_row = y == 0 || y == n - 1;

        for (unsigned x = 0; x < n; x++) {
            double want, tol;

            if (c->interior_only && (edge_row || x == 0 || x == n - 1))
                continue;
            if (point_ok(c, x, (unsigned)y, &want, &tol))
                continue;
            uint64_t k = (uint64_t)y * n + x, cur = atomic_load(&c->first_bad);
            while (k < cur && !atomic_compare_exchange_weak(&c->first_bad, &cur, k))
                ;
            return;
        }
    }
}

int gc__jacobi_check(const struct gc_jgrid *g, const float *u, const float *f, float omega,
                     float h2, bool interior_only, const float *got, char *msg, size_t len)
{
    struct jcheck c = {g, u, f, got, 1.0 - omega, 0.25 * omega, h2, interior_only, UINT64_MAX};
    double want, tol;

    /* Rows in chunks of at least 64: every point is checked whatever the
     * thread count, and the first failing point in row order is named. */
    gc__parallel_for(g->N, 64, check_rows, &c);
    uint64_t k = atomic_load(&c.first_bad);
    if (k == UINT64_MAX)
        return 0;
    unsigned x = (unsigned)(k % g->N), y = (unsigned)(k / g->N);
    point_ok(&c, x, y, &want, &tol);
    snprintf(msg, len, "point (%u, %u) is %.9g, expected %.9g (tolerance %.3g)", x, y,
             (double)got[(size_t)y * g->pitch + x + g->off], want, tol);
    return GC_EVERIFY;
}
