/* Host references of application.polybench and the check of the device's
 * output. Each element is computed in double precision; its bound is the
 * classical one for a sum evaluated in fp32 (Higham, Accuracy and Stability
 * of Numerical Algorithms, §3.1): |fl(s) - s| <= gamma_n * sum |terms|,
 * gamma_n = n u / (1 - n u), u = 2^-24, n the operations in the element's
 * dependent chain, doubled as a margin for the compiler's choice of FMA or
 * separate multiply and add. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>

#include "bench/polybench/polybench.h"
#include "gpuchar/gpuchar.h"
#include "util/parallel.h"

struct ref_job {
    const struct pb_kernel *k;
    const struct pb_size *z;
    const float *const *in;
    double *ref, *tol; /* gc__pb_reference */
    /* gc__pb_check: the output, and the elements out of bounds so far (the
     * count and the lowest index), merged under lock once per chunk. */
    const float *out;
    pthread_mutex_t lock;
    size_t bad, first;
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

static void elem(const struct ref_job *J, size_t i, size_t j, double *v, double *t)
{
    if (J->k->kind <= PB_FDTD3)
        fdtd_elem(J, i, j, v, t);
    else
        matrix_elem(J, i, j, v, t);
}

/* An exact value (a copy, a constant) must come back exactly; the fp32
 * rounding of the reference itself is allowed. */
static double limit(double ref, double tol)
{
    return tol + fabs(ref) * ldexp(1.0, -24);
}

static void ref_rows(void *ctx, size_t lo, size_t hi)
{
    const struct ref_job *J = ctx;
    size_t nj = (size_t)J->z->cols;

    for (size_t i = lo; i < hi; i++)
        for (size_t j = 0; j < nj; j++)
            elem(J, i, j, &J->ref[i * nj + j], &J->tol[i * nj + j]);
}

void gc__pb_reference(const struct pb_kernel *k, const struct pb_size *z, const float *const *in,
                      double *ref, double *tol)
{
    struct ref_job J = {.k = k, .z = z, .in = in, .ref = ref, .tol = tol};

    gc__parallel_for((size_t)z->rows, 4, ref_rows, &J);
}

static void check_rows(void *ctx, size_t lo, size_t hi)
{
    struct ref_job *J = ctx;
    size_t nj = (size_t)J->z->cols, bad = 0, first = 0;

    for (size_t i = lo; i < hi; i++)
        for (size_t j = 0; j < nj; j++) {
            size_t e = i * nj + j;
            double v, t;

            elem(J, i, j, &v, &t);
            if (!(fabs((double)J->out[e] - v) <= limit(v, t)) && bad++ == 0)
                first = e;
        }
    if (!bad)
        return;
    pthread_mutex_lock(&J->lock);
    if (J->bad == 0 || first < J->first)
        J->first = first;
    J->bad += bad;
    pthread_mutex_unlock(&J->lock);
}

int gc__pb_check(const struct pb_kernel *k, const struct pb_size *z, const float *const *in,
                 const float *out, char *msg, size_t len)
{
    struct ref_job J = {.k = k, .z = z, .in = in, .out = out};
    size_t n = gc__pb_out_elems(z), nj = (size_t)z->cols;
    double v, t;

    pthread_mutex_init(&J.lock, NULL);
    gc__parallel_for((size_t)z->rows, 4, check_rows, &J);
    pthread_mutex_destroy(&J.lock);
    if (!J.bad)
        return 0;
    elem(&J, J.first / nj, J.first % nj, &v, &t);
    snprintf(msg, len,
             "%zu of %zu outputs out of bounds; first at row %zu column %zu: %.9g, "
             "expected %.9g +- %.3g",
             J.bad, n, J.first / nj, J.first % nj, (double)out[J.first], v, limit(v, t));
    return GC_EVERIFY;
}
