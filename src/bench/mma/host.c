/* The matrix-unit benchmarks' host side: element formats, random operands
 * packed as the instructions' fragments expect them, and the host's check of
 * every accumulator a launch returns. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/mma/mma.h"
#include "core/device.h"
#include "core/minifloat.h"
#include "core/session.h"
#include "util/parallel.h"
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

/* The operands and accumulators are small integers: their fp16 and fp8
 * encodings come from tables over [-SMALL_MAX, SMALL_MAX], and fp16/fp8
 * words decode through tables over every word, built once from the general
 * conversion (core/minifloat.c). Values outside the range convert directly. */
#define SMALL_MAX 1024
static uint16_t g_enc_f16[2 * SMALL_MAX + 1];
static uint8_t g_enc_e4m3[2 * SMALL_MAX + 1];
static float g_dec_f16[1 << 16], g_dec_e4m3[1 << 8];
static pthread_once_t g_tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void)
{
    for (int v = -SMALL_MAX; v <= SMALL_MAX; v++) {
        g_enc_f16[v + SMALL_MAX] = (uint16_t)gc__minifloat_encode(v, 5, 10, true);
        g_enc_e4m3[v + SMALL_MAX] = (uint8_t)gc__minifloat_encode(v, 4, 3, false);
    }
    for (uint32_t w = 0; w < (1u << 16); w++)
        g_dec_f16[w] = (float)gc__minifloat_decode(w, 5, 10, true);
    for (uint32_t w = 0; w < (1u << 8); w++)
        g_dec_e4m3[w] = (float)gc__minifloat_decode(w, 4, 3, false);
}

static void tables(void)
{
    pthread_once(&g_tables_once, build_tables);
}

static uint32_t enc_f16(int v)
{
    return v >= -SMALL_MAX && v <= SMALL_MAX ? g_enc_f16[v + SMALL_MAX]
                                             : gc__minifloat_encode(v, 5, 10, true);
}

static uint32_t enc_e4m3(int v)
{
    return v >= -SMALL_MAX && v <= SMALL_MAX ? g_enc_e4m3[v + SMALL_MAX]
                                             : gc__minifloat_encode(v, 4, 3, false);
}

/* Writes small integer v as an operand element of type e at p. */
static void put_elem(enum mma_elem e, int v, unsigned char *p)
{
    uint32_t w;

    switch (e) {
    case E_F16:
        w = enc_f16(v);
        break;
    case E_BF16:
        w = f32_bits((float)v) >> 16;
        break;
    case E_E4M3:
        w = enc_e4m3(v);
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
        return (int)g_dec_f16[w & 0xFFFFu];
    case E_BF16:
        return (int)f32_val(w << 16);
    case E_E4M3:
        return (int)g_dec_e4m3[w & 0xFFu];
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
        return g_dec_f16[(w[i / 2] >> (16 * (i % 2))) & 0xFFFFu];
    if (acc == E_S32)
        return (double)(int32_t)w[i];
    return f32_val(w[i]);
}

static void acc_put(enum mma_elem acc, uint32_t *w, int i, int v)
{
    if (acc == E_F16) {
        uint32_t h = enc_f16(v);
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

/* Each warp's (or block's) values come from its own stream, seeded from the
 * counter-based hash of its index: the fills split over threads and give
 * the same words whatever the thread count. */
static uint64_t unit_state(uint64_t seed, size_t unit)
{
    uint64_t st = gc__hash64(seed, unit);

    return st ? st : 1;
}

struct fill_job {
    const struct mma_op *op;
    uint64_t seed;
    uint32_t *opw, *cw;
    unsigned char *tiles;
    const unsigned char *ctiles;
    int32_t *ab;
};

/* Warp w of an mma.sync fill: A, +B, -B in fragment order, its A.B and
 * its accumulators. */
static void sync_fill_warp(const struct fill_job *J, size_t w)
{
    const struct mma_op *op = J->op;
    int nw = gc__mma_acc_words(op), esz = elem_size(op->ab), kel = KBYTES / esz;
    uint64_t st = unit_state(J->seed, w);
    unsigned char A[16][KBYTES], B[8][KBYTES], Bn[8][KBYTES];

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
            int32_t sum = 0;
            for (int k = 0; k < kel; k++)
                sum += get_elem(op->ab, &A[r][k * esz]) * get_elem(op->ab, &B[c][k * esz]);
            J->ab[w * 128 + (size_t)r * 8 + (size_t)c] = sum;
        }
    for (int lane = 0; lane < 32; lane++) {
        int g = lane / 4, t = lane % 4;
        uint32_t *p = J->opw + (w * 32 + (size_t)lane) * SYNC_OPW;
        uint32_t *c = J->cw + (w * 32 + (size_t)lane) * SYNC_MAX_ILP * (size_t)nw;

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

static void sync_fill_range(void *ctx, size_t lo, size_t hi)
{
    for (size_t w = lo; w < hi; w++)
        sync_fill_warp(ctx, w);
}

int gc__mma_sync_fill(const struct mma_op *op, size_t nthreads, uint64_t seed, uint32_t *opw,
                      uint32_t *cw, int32_t *ab)
{
    struct fill_job J = {.op = op, .seed = seed, .opw = opw, .cw = cw, .ab = ab};

    tables();
    gc__parallel_for(nthreads / 32, 64, sync_fill_range, &J);
    return 0;
}

int gc__mma_sync_check(const struct mma_op *op, size_t nthreads, int ilp, const uint32_t *cw,
                       const int32_t *ab, const uint32_t *got, char *why, size_t whylen)
{
    int nw = gc__mma_acc_words(op);

    tables();
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

static void wg_fill_block(const struct fill_job *J, size_t blk)
{
    const struct mma_op *op = J->op;
    int esz = elem_size(op->ab), kel = KBYTES / esz, nw = gc__mma_acc_words(op);
    unsigned char *a = J->tiles + blk * gc__mma_wg_tile_bytes(op), *bp = a + KBYTES * op->m,
                  *bn = bp + KBYTES * op->n;
    uint64_t st = unit_state(J->seed, blk);

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
            acc_put(op->acc, J->cw + (blk * WG_THREADS + (size_t)th) * (size_t)nw, i,
                    rand_acc(&st));
}

static void wg_fill_range(void *ctx, size_t lo, size_t hi)
{
    for (size_t blk = lo; blk < hi; blk++)
        wg_fill_block(ctx, blk);
}

void gc__mma_wg_fill(const struct mma_op *op, size_t nblocks, uint64_t seed, unsigned char *tiles,
                     uint32_t *cw)
{
    struct fill_job J = {.op = op, .seed = seed, .tiles = tiles, .cw = cw};

    tables();
    gc__parallel_for(nblocks, 16, wg_fill_range, &J);
}

/* A.B of one block's tiles; av and bv hold its A rows and B columns. */
static void wg_product_block(const struct fill_job *J, size_t blk, int *av, int *bv)
{
    const struct mma_op *op = J->op;
    int esz = elem_size(op->ab), kel = KBYTES / esz;
    const unsigned char *a = J->ctiles + blk * gc__mma_wg_tile_bytes(op), *bp = a + KBYTES * op->m;
    int32_t *p = J->ab + blk * (size_t)op->m * (size_t)op->n;

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

/* The widest tile: m 64, n 256, 32 8-bit elements of K. */
#define WG_MAX_ROWS 256

static void wg_product_range(void *ctx, size_t lo, size_t hi)
{
    int av[WG_MAX_ROWS * KBYTES], bv[WG_MAX_ROWS * KBYTES];

    for (size_t blk = lo; blk < hi; blk++)
        wg_product_block(ctx, blk, av, bv);
}

int gc__mma_wg_products(const struct mma_op *op, size_t nblocks, const unsigned char *tiles,
                        int32_t *ab)
{
    struct fill_job J = {.op = op, .ctiles = tiles, .ab = ab};

    tables();
    if (op->m > WG_MAX_ROWS || op->n > WG_MAX_ROWS)
        return GC_EINVAL;
    gc__parallel_for(nblocks, 16, wg_product_range, &J);
    return 0;
}

int gc__mma_wg_check(const struct mma_op *op, size_t nblocks, const int32_t *ab, const uint32_t *cw,
                     const uint32_t *got, char *why, size_t whylen)
{
    int nw = gc__mma_acc_words(op);

    tables();
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
struct exp_job {
    const struct mma_op *op;
    const struct mma_bufs *b;
    uint32_t *exp;
};

/* Expected words of mma.sync threads lo..hi-1. */
static void exp_sync_range(void *ctx, size_t lo, size_t hi)
{
    const struct exp_job *J = ctx;
    const struct mma_op *op = J->op;
    int nw = gc__mma_acc_words(op);

    for (size_t th = lo; th < hi; th++) {
        int lane = (int)(th % 32), g = lane / 4, t = lane % 4;
        const int32_t *w = J->b->hab + (th / 32) * 128;

        for (int j = 0; j < SYNC_MAX_ILP; j++) {
            size_t off = th * SYNC_MAX_ILP * (size_t)nw + (size_t)j * nw;

            for (int i = 0; i < 4; i++) {
                int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
                acc_put(op->acc, J->exp + off, i,
                        (int)acc_get(op->acc, J->b->hc + off, i) + w[row * 8 + col]);
            }
        }
    }
}

/* Expected words of wgmma blocks lo..hi-1. */
static void exp_wg_range(void *ctx, size_t lo, size_t hi)
{
    const struct exp_job *J = ctx;
    const struct mma_op *op = J->op;
    int nw = gc__mma_acc_words(op);

    for (size_t blk = lo; blk < hi; blk++) {
        const int32_t *ab = J->b->hab + blk * (size_t)op->m * (size_t)op->n;

        for (int th = 0; th < WG_THREADS; th++) {
            int lane = th % 32, g = lane / 4, t = lane % 4, wp = th / 32;
            size_t idx = (blk * WG_THREADS + (size_t)th) * (size_t)nw;

            for (int i = 0; i < op->n / 2; i++) {
                int row = 16 * wp + g + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * t + (i & 1);
                acc_put(op->acc, J->exp + idx, i,
                        (int)acc_get(op->acc, J->b->hc + idx, i) + ab[row * op->n + col]);
            }
        }
    }
}

/* The words every check expects, in the output's layout: C + A.B of every
 * accumulator (small integers, exactly representable), so that a launch
 * whose output equals them bit for bit needs no per-value conversion. A
 * difference (a -0 for +0 is one that the value check accepts) falls back
 * to the value check, which decides. */
static void expected_words(const struct mma_op *op, const struct mma_bufs *b, uint32_t *exp)
{
    struct exp_job J = {op, b, exp};

    memcpy(exp, b->hc, b->cwords * 4);
    if (op->kind == K_SYNC)
        gc__parallel_for(b->nthreads, 2048, exp_sync_range, &J);
    else
        gc__parallel_for(b->nblocks, 16, exp_wg_range, &J);
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

    tables();
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
        gc__mma_wg_fill(op, nblocks, s->seed ^ 0x3A3BULL, (unsigned char *)b->hops, b->hc);
        if ((rc = gc__mma_wg_products(op, nblocks, (const unsigned char *)b->hops, b->hab)))
            return rc;
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
