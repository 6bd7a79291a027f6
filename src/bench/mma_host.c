/* The matrix-unit benchmarks' host side: element formats, random operands
 * packed as the instructions' fragments expect them, and the host's check of
 * every accumulator a launch returns. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/mma.h"
#include "core/device.h"
#include "core/minifloat.h"
#include "core/session.h"
#include "util/random.h"

/* Bytes per element of a type. */
static int elem_size(enum mma_elem e)
{
    switch (e) {
    case E_F16:
    case E_BF16:
        return 2;
    case E_E4M3:
    case E_S8:
        return 1;
    default:
        return 4;
    }
}

int gc__mma_acc_words(const struct mma_op *op)
{
    int elems = op->kind == K_SYNC ? 4 : op->n / 2;

    return op->acc == E_F16 ? elems / 2 : elems;
}

/* ---- Host-side number formats ------------------------------------------ */

static uint32_t f32_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

static double f32_val(uint32_t u)
{
    float f;

    memcpy(&f, &u, 4);
    return f;
}

/* Writes small integer v as an operand element of type e at p. */
static void put_elem(enum mma_elem e, int v, unsigned char *p)
{
    uint32_t w;

    switch (e) {
    case E_F16:
        w = gc__minifloat_encode(v, 5, 10, true);
        break;
    case E_BF16:
        w = f32_bits((float)v) >> 16;
        break;
    case E_E4M3:
        w = gc__minifloat_encode(v, 4, 3, false);
        break;
    case E_S8:
        w = (uint32_t)(v & 0xFF);
        break;
    default:
        w = f32_bits((float)v);
        break;
    }
    for (int i = 0; i < elem_size(e); i++)
        p[i] = (unsigned char)(w >> (8 * i));
}

static int get_elem(enum mma_elem e, const unsigned char *p)
{
    uint32_t w = 0;

    for (int i = 0; i < elem_size(e); i++)
        w |= (uint32_t)p[i] << (8 * i);
    switch (e) {
    case E_F16:
        return (int)gc__minifloat_decode(w, 5, 10, true);
    case E_BF16:
        return (int)f32_val(w << 16);
    case E_E4M3:
        return (int)gc__minifloat_decode(w, 4, 3, false);
    case E_S8:
        return (int)(signed char)w;
    default:
        return (int)f32_val(w & 0xFFFFE000u);
    }
}

/* Value i (0-based) of a thread's accumulator words. */
static double acc_get(enum mma_elem acc, const uint32_t *w, int i)
{
    if (acc == E_F16)
        return gc__minifloat_decode((w[i / 2] >> (16 * (i % 2))) & 0xFFFFu, 5, 10, true);
    if (acc == E_S32)
        return (double)(int32_t)w[i];
    return f32_val(w[i]);
}

static void acc_put(enum mma_elem acc, uint32_t *w, int i, int v)
{
    if (acc == E_F16) {
        uint32_t h = gc__minifloat_encode(v, 5, 10, true);
        w[i / 2] = (w[i / 2] & ~(0xFFFFu << (16 * (i % 2)))) | h << (16 * (i % 2));
    } else if (acc == E_S32) {
        w[i] = (uint32_t)v;
    } else {
        w[i] = f32_bits((float)v);
    }
}

/* A random nonzero operand value in {-3..3} \ {0}: small enough that every
 * product and every partial sum is exact in each accumulator type (|A.B| <=
 * 32 x 9 = 288, |C| <= 16, far below fp16's 2048 of exact integers and the
 * ~2^14 of the fp8 accumulation path). */
static int rand_operand(uint64_t *st)
{
    uint64_t r = gc__xorshift64s(st);
    int v = 1 + (int)((r >> 20) % 3u);

    return (r >> 40) & 1u ? -v : v;
}

static int rand_acc(uint64_t *st)
{
    uint64_t r = gc__xorshift64s(st);
    int v = 1 + (int)((r >> 20) % 16u);

    return (r >> 40) & 1u ? -v : v;
}

/* ---- Host data and verification ---------------------------------------- */

/* mma.sync fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16 /
 * m16n8k8 / m16n8k32"): with g = lane / 4 and t = lane % 4, in bytes of the
 * 32-byte K extent, A register r holds row g + 8 (r & 1), bytes 4t + 16 (r >>
 * 1) .. +3; B register r holds column g, bytes 4t + 16 r .. +3; accumulator
 * value i is at row g + 8 (i >> 1), column 2t + (i & 1). The same byte
 * geometry holds for f16/bf16 (k16), tf32 (k8) and 8-bit types (k32). */
static uint32_t pack4(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int gc__mma_sync_fill(const struct mma_op *op, size_t nthreads, uint64_t seed, uint32_t *opw,
                      uint32_t *cw, int32_t *ab)
{
    int nw = gc__mma_acc_words(op), esz = elem_size(op->ab), kel = KBYTES / esz;
    uint64_t st = seed ? seed : 1;
    unsigned char A[16][KBYTES], B[8][KBYTES], Bn[8][KBYTES];

    for (size_t w = 0; w < nthreads / 32; w++) {
        for (int r = 0; r < 16; r++)
            for (int k = 0; k < kel; k++)
                put_elem(op->ab, rand_operand(&st), &A[r][k * esz]);
        for (int c = 0; c < 8; c++)
            for (int k = 0; k < kel; k++) {
                int v = rand_operand(&st);
                put_elem(op->ab, v, &B[c][k * esz]);
                put_elem(op->ab, -v, &Bn[c][k * esz]);
            }
        for (int r = 0; r < 16; r++)
            for (int c = 0; c < 8; c++) {
                int32_t s = 0;
                for (int k = 0; k < kel; k++)
                    s += get_elem(op->ab, &A[r][k * esz]) * get_elem(op->ab, &B[c][k * esz]);
                ab[w * 128 + (size_t)r * 8 + (size_t)c] = s;
            }
        for (int lane = 0; lane < 32; lane++) {
            int g = lane / 4, t = lane % 4;
            uint32_t *p = opw + (w * 32 + (size_t)lane) * SYNC_OPW;
            uint32_t *c = cw + (w * 32 + (size_t)lane) * SYNC_MAX_ILP * (size_t)nw;

            for (int r = 0; r < 4; r++)
                p[r] = pack4(&A[g + 8 * (r & 1)][4 * t + 16 * (r >> 1)]);
            for (int r = 0; r < 2; r++) {
                p[4 + r] = pack4(&B[g][4 * t + 16 * r]);
                p[6 + r] = pack4(&Bn[g][4 * t + 16 * r]);
            }
            for (int j = 0; j < SYNC_MAX_ILP; j++)
                for (int i = 0; i < 4; i++)
                    acc_put(op->acc, c + j * nw, i, rand_acc(&st));
        }
    }
    return 0;
}

int gc__mma_sync_check(const struct mma_op *op, size_t nthreads, int ilp, const uint32_t *cw,
                       const int32_t *ab, const uint32_t *got, char *why, size_t whylen)
{
    int nw = gc__mma_acc_words(op);

    for (size_t th = 0; th < nthreads; th++) {
        int lane = (int)(th % 32), g = lane / 4, t = lane % 4;
        const int32_t *w = ab + (th / 32) * 128;

        for (int j = 0; j < ilp; j++) {
            const uint32_t *c = cw + th * SYNC_MAX_ILP * (size_t)nw + (size_t)j * nw;
            const uint32_t *o = got + th * SYNC_MAX_ILP * (size_t)nw + (size_t)j * nw;

            for (int i = 0; i < 4; i++) {
                int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
                double expect = acc_get(op->acc, c, i) + w[row * 8 + col];
                double v = acc_get(op->acc, o, i);

                if (v != expect) {
                    snprintf(why, whylen,
                             "thread %zu, accumulator %d, element (%d, %d) of warp %zu gave %.9g, "
                             "expected %.9g",
                             th, j, row, col, th / 32, v, expect);
                    return GC_EVERIFY;
                }
            }
        }
    }
    return 0;
}

/* wgmma operands in shared memory, no swizzle, K-major: element (row,
 * byte kb) of a matrix with `rows` rows is at (kb / 16) * rows * 16 + row *
 * 16 + kb % 16 (see gen_wgmma). */
static size_t wg_off(int rows, int row, int kb)
{
    return (size_t)(kb / 16) * (size_t)rows * 16 + (size_t)row * 16 + (size_t)(kb % 16);
}

void gc__mma_wg_fill(const struct mma_op *op, size_t nblocks, uint64_t seed, unsigned char *tiles,
                     uint32_t *cw)
{
    int esz = elem_size(op->ab), kel = KBYTES / esz, nw = gc__mma_acc_words(op);
    size_t tb = gc__mma_wg_tile_bytes(op);
    uint64_t st = seed ? seed : 1;

    for (size_t blk = 0; blk < nblocks; blk++) {
        unsigned char *a = tiles + blk * tb, *bp = a + KBYTES * op->m, *bn = bp + KBYTES * op->n;

        for (int r = 0; r < op->m; r++)
            for (int k = 0; k < kel; k++)
                put_elem(op->ab, rand_operand(&st), a + wg_off(op->m, r, k * esz));
        for (int c = 0; c < op->n; c++)
            for (int k = 0; k < kel; k++) {
                int v = rand_operand(&st);
                put_elem(op->ab, v, bp + wg_off(op->n, c, k * esz));
                put_elem(op->ab, -v, bn + wg_off(op->n, c, k * esz));
            }
        for (int th = 0; th < WG_THREADS; th++)
            for (int i = 0; i < op->n / 2; i++)
                acc_put(op->acc, cw + (blk * WG_THREADS + (size_t)th) * (size_t)nw, i,
                        rand_acc(&st));
    }
}

void gc__mma_wg_products(const struct mma_op *op, size_t nblocks, const unsigned char *tiles,
                         int *av, int *bv, int32_t *ab)
{
    int esz = elem_size(op->ab), kel = KBYTES / esz;
    size_t tb = gc__mma_wg_tile_bytes(op);

    for (size_t blk = 0; blk < nblocks; blk++) {
        const unsigned char *a = tiles + blk * tb, *bp = a + KBYTES * op->m;
        int32_t *p = ab + blk * (size_t)op->m * (size_t)op->n;

        for (int r = 0; r < op->m; r++)
            for (int k = 0; k < kel; k++)
                av[r * kel + k] = get_elem(op->ab, a + wg_off(op->m, r, k * esz));
        for (int c = 0; c < op->n; c++)
            for (int k = 0; k < kel; k++)
                bv[c * kel + k] = get_elem(op->ab, bp + wg_off(op->n, c, k * esz));
        for (int r = 0; r < op->m; r++)
            for (int c = 0; c < op->n; c++) {
                int32_t sum = 0;
                for (int k = 0; k < kel; k++)
                    sum += av[r * kel + k] * bv[c * kel + k];
                p[r * op->n + c] = sum;
            }
    }
}

int gc__mma_wg_check(const struct mma_op *op, size_t nblocks, const int32_t *ab, const uint32_t *cw,
                     const uint32_t *got, char *why, size_t whylen)
{
    int nw = gc__mma_acc_words(op);

    for (size_t blk = 0; blk < nblocks; blk++) {
        const int32_t *p = ab + blk * (size_t)op->m * (size_t)op->n;

        for (int th = 0; th < WG_THREADS; th++) {
            int lane = th % 32, g = lane / 4, t = lane % 4, wp = th / 32;
            size_t idx = (blk * WG_THREADS + (size_t)th) * (size_t)nw;

            for (int i = 0; i < op->n / 2; i++) {
                int row = 16 * wp + g + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * t + (i & 1);
                double expect = acc_get(op->acc, cw + idx, i) + p[row * op->n + col];
                double v = acc_get(op->acc, got + idx, i);

                if (v != expect) {
                    snprintf(why, whylen,
                             "block %zu, thread %d, element (%d, %d) gave %.9g, expected %.9g", blk,
                             th, row, col, v, expect);
                    return GC_EVERIFY;
                }
            }
        }
    }
    return 0;
}

/* The words every check expects, in the output's layout: C + A.B of every
 * accumulator (small integers, exactly representable), so that a launch
 * whose output equals them bit for bit needs no per-value conversion. A
 * difference (a -0 for +0 is one that the value check accepts) falls back
 * to the value check, which decides. */
static void expected_words(const struct mma_op *op, const struct mma_bufs *b, uint32_t *exp)
{
    int nw = gc__mma_acc_words(op);

    memcpy(exp, b->hc, b->cwords * 4);
    if (op->kind == K_SYNC) {
        for (size_t th = 0; th < b->nthreads; th++) {
            int lane = (int)(th % 32), g = lane / 4, t = lane % 4;
            const int32_t *w = b->hab + (th / 32) * 128;

            for (int j = 0; j < SYNC_MAX_ILP; j++) {
                size_t off = th * SYNC_MAX_ILP * (size_t)nw + (size_t)j * nw;

                for (int i = 0; i < 4; i++) {
                    int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
                    acc_put(op->acc, exp + off, i,
                            (int)acc_get(op->acc, b->hc + off, i) + w[row * 8 + col]);
                }
            }
        }
        return;
    }
    for (size_t blk = 0; blk < b->nblocks; blk++) {
        const int32_t *ab = b->hab + blk * (size_t)op->m * (size_t)op->n;

        for (int th = 0; th < WG_THREADS; th++) {
            int lane = th % 32, g = lane / 4, t = lane % 4, wp = th / 32;
            size_t idx = (blk * WG_THREADS + (size_t)th) * (size_t)nw;

            for (int i = 0; i < op->n / 2; i++) {
                int row = 16 * wp + g + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * t + (i & 1);
                acc_put(op->acc, exp + idx, i,
                        (int)acc_get(op->acc, b->hc + idx, i) + ab[row * op->n + col]);
            }
        }
    }
}

/* Whether the accumulators a launch of nth threads (ilp of them per
 * mma.sync thread) wrote equal the expected words. */
static bool output_as_expected(const struct mma_op *op, const struct mma_bufs *b, size_t nth,
                               int ilp)
{
    size_t nw = (size_t)gc__mma_acc_words(op);

    if (op->kind != K_SYNC)
        return memcmp(b->hout, b->hexp, nth * nw * 4) == 0;
    for (size_t th = 0; th < nth; th++) {
        size_t off = th * SYNC_MAX_ILP * nw;

        if (memcmp(b->hout + off, b->hexp + off, (size_t)ilp * nw * 4) != 0)
            return false;
    }
    return true;
}

/* ---- The operands ------------------------------------------------------- */

int gc__mma_bufs_make(struct gc_session *s, const struct mma_op *op, size_t nblocks,
                      struct mma_bufs *b)
{
    struct gc_device *d = s->dev;
    size_t nw = (size_t)gc__mma_acc_words(op);
    int rc;

    memset(b, 0, sizeof(*b));
    b->nblocks = nblocks;
    b->nthreads = nblocks * (op->kind == K_SYNC ? SYNC_BLOCK : WG_THREADS);
    b->opwords =
        op->kind == K_SYNC ? b->nthreads * SYNC_OPW : nblocks * gc__mma_wg_tile_bytes(op) / 4;
    b->cwords = b->nthreads * nw * (op->kind == K_SYNC ? SYNC_MAX_ILP : 1);
    b->hops = malloc(b->opwords * 4);
    b->hc = malloc(b->cwords * 4);
    b->hout = malloc(b->cwords * 4);
    /* A.B once per buffer set (per warp for mma.sync, per block for
     * wgmma): every check of every measurement compares against it. */
    b->hab = malloc(op->kind == K_SYNC ? b->nthreads / 32 * 128 * sizeof(int32_t)
                                       : nblocks * (size_t)op->m * (size_t)op->n * sizeof(int32_t));
    if (!b->hops || !b->hc || !b->hout || !b->hab)
        return GC_ENOMEM;
    if (op->kind == K_SYNC) {
        gc__mma_sync_fill(op, b->nthreads, s->seed ^ 0x3A3AULL, b->hops, b->hc, b->hab);
    } else {
        int kel = KBYTES / elem_size(op->ab);
        int *av = malloc((size_t)op->m * (size_t)kel * sizeof(int));
        int *bv = malloc((size_t)op->n * (size_t)kel * sizeof(int));

        if (av && bv) {
            gc__mma_wg_fill(op, nblocks, s->seed ^ 0x3A3BULL, (unsigned char *)b->hops, b->hc);
            gc__mma_wg_products(op, nblocks, (const unsigned char *)b->hops, av, bv, b->hab);
        }
        free(av);
        free(bv);
        if (!av || !bv)
            return GC_ENOMEM;
    }
    b->hexp = malloc(b->cwords * 4);
    if (!b->hexp)
        return GC_ENOMEM;
    expected_words(op, b, b->hexp);
    if ((rc = gc__dev_alloc(d, b->opwords * 4, &b->bops)) ||
        (rc = gc__dev_alloc(d, b->cwords * 4, &b->bc)) ||
        (rc = gc__dev_alloc(d, b->cwords * 4, &b->bout)) ||
        (rc = gc__dev_write(d, b->bops, 0, b->hops, b->opwords * 4)))
        return rc;
    return gc__dev_write(d, b->bc, 0, b->hc, b->cwords * 4);
}

void gc__mma_bufs_free(struct gc_device *d, struct mma_bufs *b)
{
    free(b->hops);
    free(b->hc);
    free(b->hout);
    free(b->hab);
    free(b->hexp);
    gc__dev_free(d, b->bops);
    gc__dev_free(d, b->bc);
    gc__dev_free(d, b->bout);
    memset(b, 0, sizeof(*b));
}

/* Reads the accumulators of a launch of nblocks blocks (ilp accumulators per
 * warp for mma.sync) and checks every value against C + A.B. */
int gc__mma_check(struct gc_device *d, const struct mma_op *op, struct mma_bufs *b, size_t nblocks,
                  int ilp, char *why, size_t len)
{
    size_t nth = nblocks * (op->kind == K_SYNC ? SYNC_BLOCK : WG_THREADS);
    size_t words = nth * (size_t)gc__mma_acc_words(op) * (op->kind == K_SYNC ? SYNC_MAX_ILP : 1);
    int rc = gc__dev_read(d, b->bout, 0, b->hout, words * 4);

    if (rc)
        return rc;
    if (output_as_expected(op, b, nth, ilp))
        return 0;
    return op->kind == K_SYNC ? gc__mma_sync_check(op, nth, ilp, b->hc, b->hab, b->hout, why, len)
                              : gc__mma_wg_check(op, nblocks, b->hab, b->hc, b->hout, why, len);
}
