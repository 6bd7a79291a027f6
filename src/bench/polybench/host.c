/* Host references of application.polybench and the check of the device's
 * output. Each element is computed in double precision; its bound is the
 * classical one for a sum evaluated in fp32 (Higham, Accuracy and Stability
 * of Numerical Algorithms, §3.1): |fl(s) - s| <= gamma_n * sum |terms|,
 * gamma_n = n u / (1 - n u), u = 2^-24, n the operations in the element's
 * dependent chain, doubled as a margin for the compiler's choice of FMA or
 * separate multiply and add. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/polybench/polybench.h"
#include "gpuchar/gpuchar.h"
#include "util/parallel.h"

struct ref_job {
    const struct pb_kernel *k;
    const struct pb_size *z;
    const float *const *in;
    /* The matrix kernels' right operands laid out k-major (element (k, j)
     * at k * cols + j: B itself, A^T or B^T), so that a whole output row
     * is summed column by column over contiguous memory; bt[1] is SYR2K's
     * second. NULL where they could not be made: each element on its own
     * then. */
    const float *bt[2];
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

/* Element (i, j) of a matrix kernel from its sum s over k and the sum m of
 * the terms' magnitudes. */
static void matrix_bound(const struct ref_job *J, size_t i, size_t j, double s, double m, double *v,
                         double *t)
{
    enum pb_kind kind = J->k->kind;
    size_t nk = (size_t)J->z->k, nj = (size_t)J->z->cols;
    int chain = kind == PB_SYR2K ? 2 * (int)nk + 2 : (int)nk + 2;

    if (kind == PB_MM) {
        *v = s;
        *t = gamma_n(chain) * m;
        return;
    }
    double c = J->in[J->k->nin - 1][i * nj + j];
    *v = PB_ALPHA * s + PB_BETA * c;
    *t = gamma_n(chain) * (PB_ALPHA * m + fabs(PB_BETA * c));
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
    matrix_bound(J, i, j, s, m, v, t);
}

/* Rows summed together and the columns of one pass: each pass reads a
 * tile of the operand once for PB_ROWS rows, and its sums stay in the
 * first-level cache. */
#define PB_ROWS 8
#define PB_TILE 256

/* Rows i0 .. i0 + nr - 1 (nr <= PB_ROWS) of a matrix kernel into v and t
 * (nr rows of cols each), each element's sum still taken in the order of k
 * (the same value and bound matrix_elem gives), the columns side by side:
 * the loop over j has no dependence and reads contiguous memory. */
static void matrix_rows(const struct ref_job *J, size_t i0, size_t nr, double *v, double *t)
{
    const float *const *in = J->in;
    size_t nk = (size_t)J->z->k, nj = (size_t)J->z->cols;
    bool two = J->bt[1] != NULL; /* SYR2K */

    for (size_t j0 = 0; j0 < nj; j0 += PB_TILE) {
        size_t nt = nj - j0 < PB_TILE ? nj - j0 : PB_TILE;

        for (size_t r = 0; r < nr; r++)
            for (size_t j = j0; j < j0 + nt; j++)
                v[r * nj + j] = t[r * nj + j] = 0.0;
        for (size_t k = 0; k < nk; k++)
            for (size_t r = 0; r < nr; r++) {
                const float *b = J->bt[0] + k * nj + j0;
                double x = in[0][(i0 + r) * nk + k], *vr = v + r * nj + j0, *tr = t + r * nj + j0;

                if (!two) {
                    for (size_t j = 0; j < nt; j++) {
                        double p = x * b[j];

                        vr[j] += p;
                        tr[j] += fabs(p);
                    }
                    continue;
                }
                const float *b2 = J->bt[1] + k * nj + j0;
                double x2 = in[1][(i0 + r) * nk + k];

                for (size_t j = 0; j < nt; j++) {
                    double p = x * b[j], q = x2 * b2[j];

                    vr[j] += p + q;
                    tr[j] += fabs(p) + fabs(q);
                }
            }
    }
    for (size_t r = 0; r < nr; r++)
        for (size_t j = 0; j < nj; j++)
            matrix_bound(J, i0 + r, j, v[r * nj + j], t[r * nj + j], &v[r * nj + j],
                         &t[r * nj + j]);
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

/* Rows i0 .. i0 + nr - 1 (nr <= PB_ROWS): their values and bounds. */
static void rows(const struct ref_job *J, size_t i0, size_t nr, double *v, double *t)
{
    size_t nj = (size_t)J->z->cols;

    if (J->k->kind >= PB_GEMM && J->bt[0]) {
        matrix_rows(J, i0, nr, v, t);
        return;
    }
    for (size_t r = 0; r < nr; r++)
        for (size_t j = 0; j < nj; j++)
            elem(J, i0 + r, j, &v[r * nj + j], &t[r * nj + j]);
}

struct transpose_job {
    const float *src; /* rows x cols */
    float *dst;       /* cols x rows */
    size_t rows, cols;
};

static void transpose_rows(void *ctx, size_t lo, size_t hi)
{
    const struct transpose_job *T = ctx;

    for (size_t c = lo; c < hi; c++)
        for (size_t r = 0; r < T->rows; r++)
            T->dst[c * T->rows + r] = T->src[r * T->cols + c];
}

/* The nj x nk operand src laid out k-major, in *own (NULL when out of
 * memory). */
static const float *transposed(const float *src, size_t nj, size_t nk, float **own)
{
    struct transpose_job T = {src, malloc(nj * nk * sizeof(float)), nj, nk};

    *own = T.dst;
    if (T.dst)
        gc__parallel_for(nk, 16, transpose_rows, &T);
    return T.dst;
}

/* J's k-major operands (struct ref_job); own[] holds what must be freed. */
static void operands(struct ref_job *J, float **own)
{
    size_t nj = (size_t)J->z->cols, nk = (size_t)J->z->k;

    own[0] = own[1] = NULL;
    switch (J->k->kind) {
    case PB_GEMM:
    case PB_MM:
        J->bt[0] = J->in[1];
        break;
    case PB_SYRK:
        J->bt[0] = transposed(J->in[0], nj, nk, &own[0]);
        break;
    case PB_SYR2K:
        J->bt[0] = transposed(J->in[1], nj, nk, &own[0]);
        J->bt[1] = transposed(J->in[0], nj, nk, &own[1]);
        if (!J->bt[1])
            J->bt[0] = NULL;
        break;
    default:
        break;
    }
}

static void ref_rows(void *ctx, size_t lo, size_t hi)
{
    const struct ref_job *J = ctx;
    size_t nj = (size_t)J->z->cols;

    for (size_t i = lo; i < hi; i += PB_ROWS) {
        size_t nr = hi - i < PB_ROWS ? hi - i : PB_ROWS;

        rows(J, i, nr, &J->ref[i * nj], &J->tol[i * nj]);
    }
}

void gc__pb_reference(const struct pb_kernel *k, const struct pb_size *z, const float *const *in,
                      double *ref, double *tol)
{
    struct ref_job J = {.k = k, .z = z, .in = in, .ref = ref, .tol = tol};
    float *own[2];

    operands(&J, own);
    gc__parallel_for((size_t)z->rows, 4, ref_rows, &J);
    free(own[0]);
    free(own[1]);
}

/* Rows lo .. hi - 1 compared element by element; a matrix kernel's values
 * and bounds are made PB_ROWS rows together where there is memory for
 * them. */
static void check_rows(void *ctx, size_t lo, size_t hi)
{
    struct ref_job *J = ctx;
    size_t nj = (size_t)J->z->cols, bad = 0, first = 0;
    bool together = J->k->kind >= PB_GEMM && J->bt[0];
    double *rv = together ? malloc(2 * PB_ROWS * nj * sizeof(double)) : NULL;
    double *rt = rv ? rv + PB_ROWS * nj : NULL;

    for (size_t i0 = lo; i0 < hi; i0 += PB_ROWS) {
        size_t nr = hi - i0 < PB_ROWS ? hi - i0 : PB_ROWS;

        if (rv)
            rows(J, i0, nr, rv, rt);
        for (size_t r = 0; r < nr; r++)
            for (size_t j = 0; j < nj; j++) {
                size_t e = (i0 + r) * nj + j;
                double v, t;

                if (rv)
                    v = rv[r * nj + j], t = rt[r * nj + j];
                else
                    elem(J, i0 + r, j, &v, &t);
                if (!(fabs((double)J->out[e] - v) <= limit(v, t)) && bad++ == 0)
                    first = e;
            }
    }
    free(rv);
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
    float *own[2];
    double v, t;

    operands(&J, own);
    pthread_mutex_init(&J.lock, NULL);
    gc__parallel_for((size_t)z->rows, 4, check_rows, &J);
    pthread_mutex_destroy(&J.lock);
    free(own[0]);
    free(own[1]);
    if (!J.bad)
        return 0;
    elem(&J, J.first / nj, J.first % nj, &v, &t);
    snprintf(msg, len,
             "%zu of %zu outputs out of bounds; first at row %zu column %zu: %.9g, "
             "expected %.9g +- %.3g",
             J.bad, n, J.first / nj, J.first % nj, (double)out[J.first], v, limit(v, t));
    return GC_EVERIFY;
}
