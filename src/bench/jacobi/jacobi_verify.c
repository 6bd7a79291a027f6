/* The host reference of application.jacobi: one ω-Jacobi step computed in
 * double precision and compared with the device's fp32 result within the
 * rounding bound of the fp32 evaluation (bench/jacobi/jacobi.h). */
#include <math.h>
#include <stdio.h>

#include "bench/jacobi/jacobi.h"

/* The update is six fp32 operations (plus the rounding of 1 - ω and ω/4)
 * over terms whose magnitudes sum to S = |(1-ω) u| + ω/4 (|u_W| + |u_E| +
 * |u_S| + |u_N| + h² |f|); each rounding errs by at most half an ulp of a
 * partial result no larger than S, so |device - exact| <= 8 x 2^-24 S in
 * any evaluation order, with or without fused multiply-adds. The check
 * allows twice that, 2^-20 S. */
#define REL_TOL 0x1p-20

int gc__jacobi_check(const struct gc_jgrid *g, const float *u, const float *f, float omega,
                     float h2, bool interior_only, const float *got, char *msg, size_t len)
{
    double a = 1.0 - omega, w4 = 0.25 * omega;

    for (unsigned y = 0; y < g->N; y++)
        for (unsigned x = 0; x < g->N; x++) {
            size_t i = (size_t)y * g->pitch + x + g->off;
            bool edge = x == 0 || y == 0 || x == g->N - 1 || y == g->N - 1;
            double want, s;

            if (edge && interior_only)
                continue;
            if (edge) {
                want = u[i];
                s = 0;
            } else {
                double nb = (double)u[i - 1] + u[i + 1] + u[i - g->pitch] + u[i + g->pitch];
                want = a * u[i] + w4 * (nb + (double)h2 * f[i]);
                s = fabs(a * u[i]) + w4 * (fabs((double)u[i - 1]) + fabs((double)u[i + 1]) +
                                           fabs((double)u[i - g->pitch]) +
                                           fabs((double)u[i + g->pitch]) + h2 * fabs((double)f[i]));
            }
            if (fabs((double)got[i] - want) <= REL_TOL * s) /* NaN fails */
                continue;
            snprintf(msg, len, "point (%u, %u) is %.9g, expected %.9g (tolerance %.3g)", x, y,
                     (double)got[i], want, REL_TOL * s);
            return GC_EVERIFY;
        }
    return 0;
}
