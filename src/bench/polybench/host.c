/* Host references of application.polybench and the check of the device's
 * output. Each element is computed in double precision; its bound is the
 * classical one for a sum evaluated in fp32 (Higham, Accuracy and Stability
 * of Numerical Algorithms, §3.1): |fl(s) - s| <= gamma_n * sum |terms|,
 * gamma_n = n u / (1 - n u), u = 2^-24, n the operations in the element's
 * dependent chain, doubled as a margin for the compiler's choice of FMA or
 * separate multiply and add. */
#include <math.h>
#include <stdio.h>

#include "bench/polybench/polybench.h"
#include "gpuchar/gpuchar.h"
#include "util/parallel.h"

struct ref_job {
    const struct pb_kernel *k;
    const struct pb_size *z;
    const float *const *in;
    double *ref, *tol;
};

static double gamma_n(int n)
{
    double u = ldexp(1.0, -24);

    return 2.0 * n * u / (1.0 - n * u) + 1e-30;
}

static void fdtd_elem(const struct ref_job *J, size_t i, size_t j, double *v, double *t)
{
    const struct pb_size *z = J->z;
    const float *const *in = J->in;
    size_t ny = (size_t)z->cols, e = i * ny + j;
    double s;

    switch (J->k->kind) {
    case PB_FDTD1:
        if (i == 0) {
            *v = PB_FICT;
            *t = 0.0;
            return;
        }
        s = fabs(in[0][e]) + 0.5 * (fabs(in[1][e]) + fabs(in[1][e - ny]));
        *v = in[0][e] - 0.5 * ((double)in[1][e] - in[1][e - ny]);
        *t = gamma_n(3) * s;
        return;
    case PB_FDTD2:
        if (j == 0) {
            *v = in[0][e];
            *t = 0.0;
            return;
        }
        s = fabs(in[0][e]) + 0.5 * (fabs(in[1][e]) + fabs(in[1][e - 1]));
        *v = in[0][e] - 0.5 * ((double)in[1][e] - in[1][e - 1]);
        *t = gamma_n(3) * s;
        return;
    default:
        if (i + 1 >= (size_t)z->rows || j + 1 >= ny) {
            *v = in[0][e];
            *t = 0.0;
            return;
        }
        s = fabs(in[0][e]) +
            0.7 * (fabs(in[1][e + 1]) + fabs(in[1][e]) + fabs(in[2][e + ny]) + fabs(in[2][e]));
        *v = in[0][e] - 0.7 * ((double)in[1][e + 1] - in[1][e] + in[2][e + ny] - in[2][e]);
        *t = gamma_n(5) * s;
    }
}

/* Sum over k of a(i, k) b(k, j) in the kernel's layout, with the sum of
 * the terms' magnitudes. */
static void matrix_elem(const struct ref_job *J, size_t i, size_t j, double *v, double *t)
{
    const float *const *in = J->in;
    size_t nk = (size_t)J->z->k, nj = (size_t)J->z->cols;
    enum pb_kind kind = J->k->kind;
    double s = 0.0, m = 0.0;

    for (size_t k = 0; k < nk; k++) {
        double p, q = 0.0;

        if (kind == PB_GEMM || kind == PB_MM)
            p = (double)in[0][i * nk + k] * in[1][k * nj + j];
        else if (kind == PB_SYRK)
            p = (double)in[0][i * nk + k] * in[0][j * nk + k];
        else {
            p = (double)in[0][i * nk + k] * in[1][j * nk + k];
            q = (double)in[1][i * nk + k] * in[0][j * nk + k];
        }
        s += p + q;
        m += fabs(p) + fabs(q);
    }
    int chain = kind == PB_SYR2K ? 2 * (int)nk + 2 : (int)nk + 2;
    if (kind == PB_MM) {
        *v = s;
        *t = gamma_n(chain) * m;
        return;
    }
    double c = in[J->k->nin - 1][i * nj + j];
    *v = PB_ALPHA * s + PB_BETA * c;
    *t = gamma_n(chain) * (PB_ALPHA * m + fabs(PB_BETA * c));
}

static void ref_rows(void *ctx, size_t lo, size_t hi)
{
    const struct ref_job *J = ctx;
    size_t nj = (size_t)J->z->cols;

    for (size_t i = lo; i < hi; i++)
        for (size_t j = 0; j < nj; j++) {
            size_t e = i * nj + j;

            if (J->k->kind <= PB_FDTD3)
                fdtd_elem(J, i, j, &J->ref[e], &J->tol[e]);
            else
                matrix_elem(J, i, j, &J->ref[e], &J->tol[e]);
        }
}

void gc__pb_reference(const struct pb_kernel *k, const struct pb_size *z, const float *const *in,
                      double *ref, double *tol)
{
    struct ref_job J = {k, z, in, ref, tol};

    gc__parallel_for((size_t)z->rows, 4, ref_rows, &J);
}

int gc__pb_check(const struct pb_size *z, const float *out, const double *ref, const double *tol,
                 char *msg, size_t len)
{
    size_t n = gc__pb_out_elems(z), bad = 0, first = 0;

    for (size_t e = 0; e < n; e++) {
        /* An exact value (a copy, a constant) must come back exactly; the
         * fp32 rounding of the reference itself is allowed. */
        double lim = tol[e] + fabs(ref[e]) * ldexp(1.0, -24);

        if (!(fabs((double)out[e] - ref[e]) <= lim)) {
            if (bad++ == 0)
                first = e;
        }
    }
    if (!bad)
        return 0;
    snprintf(msg, len,
             "%zu of %zu outputs out of bounds; first at row %zu column %zu: %.9g, "
             "expected %.9g +- %.3g",
             bad, n, first / (size_t)z->cols, first % (size_t)z->cols, (double)out[first],
             ref[first], tol[first] + fabs(ref[first]) * ldexp(1.0, -24));
    return GC_EVERIFY;
}
