/* Unit tests of application.polybench's generator side (src/bench/polybench/):
 * the work record against a brute-force count of the same access patterns
 * (every thread's loads and stores enumerated, sectors collected per warp
 * instruction, per block and over the grid), the host reference against a
 * direct evaluation, the check's bound, and the kernel text in both
 * dialects. No device. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/polybench/polybench.h"

/* One access of one thread: the instruction it belongs to (the same for
 * every lane of a warp), the array and the element. */
struct acc {
    int instr, arr;
    long elem;
};

/* The loads and stores of thread (i, j), from the kernels' definitions. */
static int accesses(enum pb_kind kind, const struct pb_size *z, long i, long j, struct acc *a)
{
    long n = z->cols, e = i * n + j, k = z->k;
    int c = 0, q = 0;

    switch (kind) {
    case PB_FDTD1:
        if (i > 0) {
            a[c++] = (struct acc){0, 0, e};
            a[c++] = (struct acc){1, 1, e};
            a[c++] = (struct acc){2, 1, e - n};
        }
        break;
    case PB_FDTD2:
        a[c++] = (struct acc){0, 0, e};
        if (j > 0) {
            a[c++] = (struct acc){1, 1, e};
            a[c++] = (struct acc){2, 1, e - 1};
        }
        break;
    case PB_FDTD3:
        a[c++] = (struct acc){0, 0, e};
        if (i < z->rows - 1 && j < n - 1) {
            a[c++] = (struct acc){1, 1, e + 1};
            a[c++] = (struct acc){2, 1, e};
            a[c++] = (struct acc){3, 2, e + n};
            a[c++] = (struct acc){4, 2, e};
        }
        break;
    default:
        for (long t = 0; t < k; t++) {
            if (kind == PB_GEMM || kind == PB_MM) {
                a[c++] = (struct acc){q++, 0, i * k + t};
                a[c++] = (struct acc){q++, 1, t * n + j};
            } else if (kind == PB_SYRK) {
                a[c++] = (struct acc){q++, 0, i * k + t};
                a[c++] = (struct acc){q++, 0, j * k + t};
            } else {
                a[c++] = (struct acc){q++, 0, i * k + t};
                a[c++] = (struct acc){q++, 1, j * k + t};
                a[c++] = (struct acc){q++, 1, i * k + t};
                a[c++] = (struct acc){q++, 0, j * k + t};
            }
        }
        if (kind != PB_MM)
            a[c++] = (struct acc){q++, kind == PB_SYRK ? 1 : 2, e};
    }
    a[c++] = (struct acc){99999, 3, e}; /* the store */
    return c;
}

static int cmp_long(const void *x, const void *y)
{
    long a = *(const long *)x, b = *(const long *)y;

    return (a > b) - (a < b);
}

static long distinct(long *v, long n)
{
    long d = 0;

    qsort(v, (size_t)n, sizeof(long), cmp_long);
    for (long t = 0; t < n; t++)
        d += t == 0 || v[t] != v[t - 1];
    return d;
}

static long sector(int arr, long elem)
{
    return ((long)arr << 40) + elem / 8;
}

/* Sectors (floats per unit 8) or 128-byte lines (32) of the warp's
 * accesses of instruction q. */
static double warp_instr_units(const struct acc *w, int nw, int q, long per_unit)
{
    long s[32];
    int ns = 0;

    for (int t = 0; t < nw; t++)
        if (w[t].instr == q)
            s[ns++] = ((long)w[t].arr << 40) + w[t].elem / per_unit;
    return (double)distinct(s, ns);
}

/* L1: distinct sectors per warp instruction, wavefronts its distinct
 * lines; L2: distinct sectors per block; DRAM: distinct elements over the
 * grid. */
static void brute(enum pb_kind kind, const struct pb_size *z, double *l1, double *l2, double *dram,
                  double *lane, double *wave)
{
    long per_thread = 4L * (z->k ? z->k : 1) + 8;
    long nblk = (long)z->rows / PB_BY * (z->cols / PB_BX);
    long *blk = malloc(sizeof(long) * (size_t)(per_thread * PB_BX * PB_BY));
    long *grid = malloc(sizeof(long) * (size_t)(per_thread * z->rows * z->cols));
    struct acc *w = malloc(sizeof(struct acc) * (size_t)(per_thread * PB_BX));
    long ng = 0;

    assert_non_null(blk);
    assert_non_null(grid);
    assert_non_null(w);
    *l1 = *l2 = *lane = *wave = 0;
    for (long b = 0; b < nblk; b++) {
        long i0 = b / (z->cols / PB_BX) * PB_BY, j0 = b % (z->cols / PB_BX) * PB_BX, nb = 0;

        for (long i = i0; i < i0 + PB_BY; i++) {
            int nw = 0, maxq = -1;

            for (long j = j0; j < j0 + PB_BX; j++)
                nw += accesses(kind, z, i, j, w + nw);
            *lane += 4.0 * nw;
            for (int t = 0; t < nw; t++) {
                blk[nb++] = sector(w[t].arr, w[t].elem);
                grid[ng++] = ((long)w[t].arr << 40) + w[t].elem;
                if (w[t].instr != 99999 && w[t].instr > maxq)
                    maxq = w[t].instr;
            }
            for (int q = 0; q <= maxq; q++) {
                *l1 += 32.0 * warp_instr_units(w, nw, q, 8);
                *wave += warp_instr_units(w, nw, q, 32);
            }
            *l1 += 32.0 * warp_instr_units(w, nw, 99999, 8);
            *wave += warp_instr_units(w, nw, 99999, 32);
        }
        *l2 += 32.0 * (double)distinct(blk, nb);
    }
    *dram = 4.0 * (double)distinct(grid, ng);
    free(blk);
    free(grid);
    free(w);
}

static const struct pb_kernel table[] = {
    {"fdtd_step1", "FDTD-2D", PB_FDTD1, 2}, {"fdtd_step2", "FDTD-2D", PB_FDTD2, 2},
    {"fdtd_step3", "FDTD-2D", PB_FDTD3, 3}, {"gemm", "GEMM", PB_GEMM, 3},
    {"mm3_kernel1", "3MM", PB_MM, 2},       {"syr2k", "SYR2K", PB_SYR2K, 3},
    {"syrk", "SYRK", PB_SYRK, 2},
};
#define NT ((int)(sizeof(table) / sizeof(table[0])))

static void test_work_matches_brute_force(void **state)
{
    (void)state;
    for (int t = 0; t < NT; t++) {
        bool mat = table[t].kind >= PB_GEMM;
        struct pb_size z = mat ? (struct pb_size){32, 64, 16} : (struct pb_size){24, 64, 0};
        struct gc_app_work w;
        double l1, l2, dram, lane, wave;

        if (table[t].kind == PB_SYRK || table[t].kind == PB_SYR2K)
            z = (struct pb_size){64, 64, 16};
        gc__pb_work(&table[t], &z, false, &w);
        brute(table[t].kind, &z, &l1, &l2, &dram, &lane, &wave);
        print_message("%s: l1 %g/%g wavefronts %g/%g l2 %g/%g dram %g/%g\n", table[t].name,
                      w.bytes[GC_APP_LVL_L1], l1, w.l1_wavefronts, wave, w.bytes[GC_APP_LVL_L2], l2,
                      w.bytes[GC_APP_LVL_DRAM], dram);
        assert_true(w.bytes[GC_APP_LVL_L1] == l1);
        assert_true(w.l1_wavefronts == wave);
        assert_true(w.bytes[GC_APP_LVL_L2] == l2);
        assert_true(w.bytes[GC_APP_LVL_DRAM] == dram);
        assert_true(w.threads == (double)z.rows * z.cols);
        assert_int_equal(w.block_threads, 256);
        /* A CPU device: 4 bytes per work-item access, the rest the same. */
        struct gc_app_work c;
        gc__pb_work(&table[t], &z, true, &c);
        assert_true(c.bytes[GC_APP_LVL_L1] == lane);
        assert_true(c.l1_wavefronts == 0); /* no warp requests on a CPU */
        assert_true(c.bytes[GC_APP_LVL_L2] == l2);
        assert_true(c.bytes[GC_APP_LVL_DRAM] == dram);
    }
}

/* FDTD-2D over enough rows of blocks to be counted in parallel parts: the
 * same counts as the brute force, whatever the split. */
static void test_stencil_work_split(void **state)
{
    struct pb_size z = {264, 96, 0};

    (void)state;
    for (int t = 0; t < 3; t++) {
        struct gc_app_work w;
        double l1, l2, dram, lane, wave;

        gc__pb_work(&table[t], &z, false, &w);
        brute(table[t].kind, &z, &l1, &l2, &dram, &lane, &wave);
        assert_true(w.bytes[GC_APP_LVL_L1] == l1);
        assert_true(w.l1_wavefronts == wave);
        assert_true(w.bytes[GC_APP_LVL_L2] == l2);
        assert_true(w.bytes[GC_APP_LVL_DRAM] == dram);
    }
}

/* The counts behind the prediction at the paper's sizes, from the kernels'
 * access patterns: GEMM's warp asks per trip for a broadcast and one
 * aligned row segment (2 lines) and brings 4 sectors of B plus an eighth
 * of a sector of A into L1; SYRK's warp asks for a broadcast and 32 rows
 * (33 lines). */
static void test_paper_sizes(void **state)
{
    struct pb_size g = {512, 512, 512}, y = {1024, 1024, 1024};
    struct gc_app_work w;
    double warps = 512.0 * 512 / 32;

    (void)state;
    gc__pb_work(&table[3], &g, false, &w);
    assert_true(w.l1_wavefronts == warps * (2 * 512 + 2));
    assert_true(w.bytes[GC_APP_LVL_L2] ==
                warps / PB_BY * (4.0 * 512 * (PB_BY + PB_BX) + 2.0 * PB_BY * PB_BX * 4));
    warps = 1024.0 * 1024 / 32;
    gc__pb_work(&table[6], &y, false, &w);
    assert_true(w.l1_wavefronts == warps * (33 * 1024 + 2));
}

/* FDTD-2D's growth as it was before a CPU's time bound: from start,
 * doubled (to 16384 at most) while an array is below llc. */
static int fd_by_cache(int start, double llc)
{
    int fd = start;

    while (fd < 16384 && 4.0 * fd * fd < llc)
        fd *= 2;
    return fd;
}

static void expect_sizes(const struct pb_size *z, int fd, int mm, int sy)
{
    for (int i = 0; i < PB_NKERNELS; i++) {
        int n = i < 3 ? fd : i < 7 ? mm : sy;

        assert_int_equal(z[i].rows, n);
        assert_int_equal(z[i].cols, n);
        assert_int_equal(z[i].k, i < 3 ? 0 : n);
    }
}

/* GPUs (an H200's and an H100's L2 and memory, and an L2 the device does
 * not report) keep the paper's sizes and the cache rule, whatever the
 * profile; a CPU's FDTD-2D stops where one launch of step 3 would pass the
 * time bound (1 GiB, 4 GiB with --full), and says so. */
static void test_plan_sizes(void **state)
{
    const double gib = 1024.0 * 1024 * 1024;
    struct gc_device_info g = {.type = GC_DEVICE_GPU}, c = {.type = GC_DEVICE_CPU};
    struct pb_size z[PB_NKERNELS];
    const size_t l2s[] = {(size_t)60 << 20, (size_t)50 << 20, 0};
    const size_t mems[] = {(size_t)141 << 30, (size_t)80 << 30, (size_t)80 << 30};

    (void)state;
    for (int d = 0; d < 3; d++) {
        g.l2_size = l2s[d];
        g.global_mem = mems[d];
        double l2 = l2s[d] ? (double)l2s[d] : (double)((size_t)128 << 20);

        assert_false(gc__pb_plan_sizes(&g, GC_PROFILE_QUICK, z));
        expect_sizes(z, fd_by_cache(1024, l2), 256, 512);
        assert_false(gc__pb_plan_sizes(&g, GC_PROFILE_DEFAULT, z));
        expect_sizes(z, fd_by_cache(2048, l2), 512, 1024);
        assert_false(gc__pb_plan_sizes(&g, GC_PROFILE_FULL, z));
        expect_sizes(z, fd_by_cache(2048, l2), 512, 1024);
    }
    /* A VM reporting its host socket's 512 MiB L3, 64 GiB of memory. */
    c.l2_size = (size_t)512 << 20;
    c.global_mem = (size_t)64 << 30;
    /* --quick: a quarter of the bound (a fresh GiB is seconds of page
     * faults on such a VM). */
    assert_true(gc__pb_plan_sizes(&c, GC_PROFILE_QUICK, z));
    assert_true(16.0 * z[2].rows * z[2].cols <= 0.25 * gib);
    assert_true(16.0 * (2 * z[2].rows) * (2 * z[2].cols) > 0.25 * gib);
    expect_sizes(z, z[2].rows, 64, 64);
    assert_true(gc__pb_plan_sizes(&c, GC_PROFILE_DEFAULT, z));
    assert_true(16.0 * z[2].rows * z[2].cols <= 1 * gib);
    expect_sizes(z, z[2].rows, 128, 128);
    assert_false(gc__pb_plan_sizes(&c, GC_PROFILE_FULL, z));
    expect_sizes(z, fd_by_cache(512, (double)c.l2_size), 128, 128);
    assert_true(16.0 * z[2].rows * z[2].cols <= 4 * gib);
    /* A cache the bound does not reach: the cache rule alone. */
    c.l2_size = (size_t)32 << 20;
    assert_false(gc__pb_plan_sizes(&c, GC_PROFILE_QUICK, z));
    expect_sizes(z, fd_by_cache(256, (double)c.l2_size), 64, 64);
}

static void test_fp32_ops(void **state)
{
    struct pb_size m = {32, 64, 16}, s = {24, 64, 0};
    struct gc_app_work w;

    (void)state;
    gc__pb_work(&table[3], &m, false, &w); /* gemm: K FMAs, the alpha product, the beta FMA */
    assert_true(w.ops[GC_APP_OP_FP32] == 32.0 * 64 * (16 + 2));
    gc__pb_work(&table[4], &m, false, &w); /* mm: K FMAs */
    assert_true(w.ops[GC_APP_OP_FP32] == 32.0 * 64 * 16);
    gc__pb_work(&table[5], &m, false, &w); /* syr2k: 2K FMAs + 2 */
    assert_true(w.ops[GC_APP_OP_FP32] == 32.0 * 64 * (2 * 16 + 2));
    gc__pb_work(&table[0], &s, false, &w); /* row 0 is a constant */
    assert_true(w.ops[GC_APP_OP_FP32] == 2.0 * 23 * 64);
    gc__pb_work(&table[2], &s, false, &w); /* last row and column copied */
    assert_true(w.ops[GC_APP_OP_FP32] == 4.0 * 23 * 63);
}

static float rnd(uint64_t *st)
{
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    return (float)((double)(*st >> 40) * 0x1p-23 - 1.0);
}

static void test_reference_and_check(void **state)
{
    struct pb_size z = {8, 32, 32};
    const struct pb_kernel *g = &table[3];
    size_t n = gc__pb_out_elems(&z);
    float *in[3], *out = malloc(n * sizeof(float));
    double *ref = malloc(n * sizeof(double)), *tol = malloc(n * sizeof(double));
    uint64_t st = 88172645463325252ULL;
    char msg[256];

    (void)state;
    for (int a = 0; a < 3; a++) {
        size_t m = gc__pb_in_elems(g, &z, a);

        in[a] = malloc(m * sizeof(float));
        for (size_t e = 0; e < m; e++)
            in[a][e] = rnd(&st);
    }
    gc__pb_reference(g, &z, (const float *const *)in, ref, tol);
    for (size_t e = 0; e < n; e++) {
        size_t i = e / 32, j = e % 32;
        float acc = 0.0f;

        for (int k = 0; k < 32; k++)
            acc = fmaf(in[0][i * 32 + k], in[1][k * 32 + j], acc);
        out[e] = fmaf(PB_BETA, in[2][e], PB_ALPHA * acc);
        assert_true(tol[e] > 0);
    }
    /* What fp32 computes passes; one element moved by 1000 bounds fails. */
    const float *const *cin = (const float *const *)in;

    assert_int_equal(gc__pb_check(g, &z, cin, out, msg, sizeof(msg)), 0);
    out[37] = (float)(ref[37] + 1000 * tol[37] + 1e-3);
    assert_int_equal(gc__pb_check(g, &z, cin, out, msg, sizeof(msg)), GC_EVERIFY);
    assert_non_null(strstr(msg, "1 of 256"));
    assert_non_null(strstr(msg, "row 1 column 5"));
    out[37] = NAN; /* a poisoned element is never within bounds */
    assert_int_equal(gc__pb_check(g, &z, cin, out, msg, sizeof(msg)), GC_EVERIFY);
    for (int a = 0; a < 3; a++)
        free(in[a]);
    free(out);
    free(ref);
    free(tol);
}

/* The matrix kernels' reference is each element's double-precision sum
 * over k in the order of k, and its bound gamma_n times the sum of the
 * terms' magnitudes: bit for bit what a direct evaluation gives, at a size
 * with a partial block of rows and a partial tile of columns. */
static void test_reference_exact(void **state)
{
    struct pb_size z = {301, 301, 7};
    size_t n = gc__pb_out_elems(&z), nk = 7, nj = 301;
    double *ref = malloc(n * sizeof(double)), *tol = malloc(n * sizeof(double));
    uint64_t st = 0x9E3779B97F4A7C15ULL;

    (void)state;
    assert_non_null(ref);
    assert_non_null(tol);
    for (int t = 3; t < NT; t++) {
        const struct pb_kernel *k = &table[t];
        float *in[3];

        for (int a = 0; a < k->nin; a++) {
            in[a] = malloc(gc__pb_in_elems(k, &z, a) * sizeof(float));
            for (size_t e = 0; e < gc__pb_in_elems(k, &z, a); e++)
                in[a][e] = rnd(&st);
        }
        gc__pb_reference(k, &z, (const float *const *)in, ref, tol);
        for (size_t e = 0; e < n; e++) {
            size_t i = e / nj, j = e % nj;
            double s = 0, m = 0, g, v, b;

            for (size_t q = 0; q < nk; q++) {
                double p, r = 0;

                if (k->kind == PB_GEMM || k->kind == PB_MM)
                    p = (double)in[0][i * nk + q] * in[1][q * nj + j];
                else if (k->kind == PB_SYRK)
                    p = (double)in[0][i * nk + q] * in[0][j * nk + q];
                else {
                    p = (double)in[0][i * nk + q] * in[1][j * nk + q];
                    r = (double)in[1][i * nk + q] * in[0][j * nk + q];
                }
                s += p + r;
                m += fabs(p) + fabs(r);
            }
            int chain = k->kind == PB_SYR2K ? 2 * (int)nk + 2 : (int)nk + 2;
            g = 2.0 * chain * 0x1p-24 / (1.0 - chain * 0x1p-24) + 1e-30;
            if (k->kind == PB_MM) {
                v = s;
                b = g * m;
            } else {
                double c = in[k->nin - 1][e];

                v = PB_ALPHA * s + PB_BETA * c;
                b = g * (PB_ALPHA * m + fabs(PB_BETA * c));
            }
            assert_memory_equal(&ref[e], &v, sizeof(v));
            assert_memory_equal(&tol[e], &b, sizeof(b));
        }
        for (int a = 0; a < k->nin; a++)
            free(in[a]);
    }
    free(ref);
    free(tol);
}

/* FDTD-2D step 3 over enough rows to be split across threads: the fp32
 * result passes; two elements out of bounds, far apart, are both counted
 * and the first in row order is the one named, whatever the chunking. */
static void test_fdtd_check(void **state)
{
    struct pb_size z = {256, 64, 0};
    const struct pb_kernel *f = &table[2];
    size_t n = gc__pb_out_elems(&z), nj = 64;
    float *in[3], *out = malloc(n * sizeof(float));
    uint64_t st = 0x2545F4914F6CDD1DULL;
    char msg[256];

    (void)state;
    for (int a = 0; a < 3; a++) {
        in[a] = malloc(gc__pb_in_elems(f, &z, a) * sizeof(float));
        for (size_t e = 0; e < gc__pb_in_elems(f, &z, a); e++)
            in[a][e] = rnd(&st);
    }
    for (size_t e = 0; e < n; e++) {
        size_t i = e / nj, j = e % nj;

        out[e] = i + 1 >= 256 || j + 1 >= nj
                     ? in[0][e]
                     : in[0][e] - 0.7f * (in[1][e + 1] - in[1][e] + in[2][e + nj] - in[2][e]);
    }
    const float *const *cin = (const float *const *)in;

    assert_int_equal(gc__pb_check(f, &z, cin, out, msg, sizeof(msg)), 0);
    out[200 * nj + 3] += 1.0f;
    out[7 * nj + 63] += 1e-3f; /* a copied element must come back exactly */
    assert_int_equal(gc__pb_check(f, &z, cin, out, msg, sizeof(msg)), GC_EVERIFY);
    assert_non_null(strstr(msg, "2 of 16384"));
    assert_non_null(strstr(msg, "row 7 column 63"));
    for (int a = 0; a < 3; a++)
        free(in[a]);
    free(out);
}

static void test_sources(void **state)
{
    struct pb_size z = {64, 128, 64};

    (void)state;
    for (int t = 0; t < NT; t++) {
        char kn[64];

        gc__pb_kname(&table[t], kn, sizeof(kn));
        for (int d = 0; d < 2; d++) {
            char *src = gc__pb_source(&table[t], &z, d ? GC_DIALECT_OPENCL : GC_DIALECT_CUDA);

            assert_non_null(src);
            assert_non_null(strstr(src, kn));
            /* The block shape and the sizes are literals. */
            assert_non_null(strstr(src, "GC_BID % 4u"));
            assert_non_null(strstr(src, "i >= 64u || j >= 128u"));
            assert_null(strstr(src, "__global__ void")); /* spelled by the prelude's macro */
            free(src);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_work_matches_brute_force),
        cmocka_unit_test(test_paper_sizes),
        cmocka_unit_test(test_stencil_work_split),
        cmocka_unit_test(test_plan_sizes),
        cmocka_unit_test(test_fp32_ops),
        cmocka_unit_test(test_reference_and_check),
        cmocka_unit_test(test_reference_exact),
        cmocka_unit_test(test_fdtd_check),
        cmocka_unit_test(test_sources),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
