/* compute.mma.* and compute.wgmma.*: matrix-unit (tensor core) throughput of
 * the warp-level mma.sync instructions and, on sm_90a, of the warpgroup-level
 * wgmma.mma_async instructions, per input/accumulator type (the matrix-unit
 * counterpart of the occupancy roofline of Lemeire et al. SIII and of the peak
 * throughput of Volkov S6.1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/workload.h"
#include "core/arch.h"
#include "core/minifloat.h"
#include "core/occupancy.h"
#include "core/random.h"
#include "core/stats.h"
#include "kgen/kcache.h"
#include "kgen/kgen.h"

/* Element types of the operands and accumulators. */
enum mma_elem { E_F16, E_BF16, E_TF32, E_E4M3, E_S8, E_F32, E_S32 };

enum mma_kind { K_SYNC, K_WGMMA };

struct mma_op {
    enum mma_kind kind;
    enum mma_elem ab, acc;
    enum gc_mma_class cls;
    int m, n, k;      /* shape of one instruction */
    int min_cc;       /* 10 * major + minor of the first architecture with it */
    const char *ptx;  /* the instruction up to its operands */
    const char *tail; /* wgmma: the operands after the descriptors */
    const char *sass; /* SASS opcode prefix the loop must contain */
};

static bool emulated(const struct mma_op *op, const struct gc_arch *a);

/* Dense multiply-add throughput of the matrix units, FLOP (int8: OP) per
 * clock per SM, from the architecture table (NAN unknown). An emulated
 * instruction runs on the fp16 path. */
static double spec_per_clk_sm(const struct mma_op *op, const struct gc_arch *a)
{
    return a->mma_rate[emulated(op, a) ? GC_MMA_F16_F32 : op->cls];
}

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

/* 32-bit words of one thread's accumulator fragment per 16x8 (mma.sync) or
 * per 64xN (wgmma) tile: four elements per 8 columns per thread, packed in
 * pairs for an fp16 accumulator. */
static int acc_words(const struct mma_op *op)
{
    int elems = op->kind == K_SYNC ? 4 : op->n / 2;

    return op->acc == E_F16 ? elems / 2 : elems;
}

/* Every shape here has operand rows of 32 bytes along K (k16 x 2 B, k8 x 4 B,
 * k32 x 1 B), so one byte geometry serves all types: an operand is a matrix
 * of rows x 32 bytes, K-major. */
#define KBYTES 32

/* ---- The table of benchmarks ------------------------------------------- */

static const struct mma_op ops[] = {
    {K_SYNC, E_F16, E_F32, GC_MMA_F16_F32, 16, 8, 16, 80,
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", NULL, "HMMA.16816.F32"},
    {K_SYNC, E_F16, E_F16, GC_MMA_F16_F16, 16, 8, 16, 80,
     "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", NULL, "HMMA.16816.F16"},
    {K_SYNC, E_BF16, E_F32, GC_MMA_BF16, 16, 8, 16, 80,
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", NULL, "HMMA.16816.F32.BF16"},
    {K_SYNC, E_TF32, E_F32, GC_MMA_TF32, 16, 8, 8, 80,
     "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", NULL, "HMMA.1688.F32.TF32"},
    {K_SYNC, E_S8, E_S32, GC_MMA_INT8, 16, 8, 32, 80,
     "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", NULL, "IMMA.16832.S8.S8"},
    {K_SYNC, E_E4M3, E_F32, GC_MMA_FP8, 16, 8, 32, 89,
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", NULL, "QMMA.16832.F32.E4M3.E4M3"},
    {K_WGMMA, E_F16, E_F32, GC_MMA_F16_F32, 64, 256, 16, 90,
     "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", "1, 1, 0, 0", "HGMMA.64x256x16.F32"},
    {K_WGMMA, E_F16, E_F16, GC_MMA_F16_F16, 64, 256, 16, 90,
     "wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16", "1, 1, 0, 0", "HGMMA.64x256x16.F16"},
    {K_WGMMA, E_BF16, E_F32, GC_MMA_BF16, 64, 256, 16, 90,
     "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "1, 1, 0, 0",
     "HGMMA.64x256x16.F32.BF16"},
    {K_WGMMA, E_TF32, E_F32, GC_MMA_TF32, 64, 256, 8, 90,
     "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", "1, 1", "HGMMA.64x256x8.F32.TF32"},
    {K_WGMMA, E_E4M3, E_F32, GC_MMA_FP8, 64, 256, 32, 90,
     "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", "1, 1",
     "QGMMA.64x256x32.F32.E4M3.E4M3"},
    {K_WGMMA, E_S8, E_S32, GC_MMA_INT8, 64, 256, 32, 90,
     "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8", NULL, "IGMMA.64x256x32.S8.S8"},
};

#define NOPS ((int)(sizeof(ops) / sizeof(ops[0])))

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

/* ---- Kernel generation -------------------------------------------------- */

/* mma.sync: instructions in one trip of the timed loop (all accumulators
 * together). Each accumulator alternates +B and -B, so its value returns to C
 * after every pair (exact in every accumulator type, whatever the trip count)
 * while the chain through all of them stays a true dependency. */
#define SYNC_BODY 64
#define SYNC_TRIPS 512 /* 32768 instructions per warp and launch */
#define SYNC_BLOCK 128
#define SYNC_MAX_ILP 8
/* Operand words per thread: A (4), +B (2), -B (2). */
#define SYNC_OPW 8

/* wgmma: instructions per commit group, and groups per launch. */
#define WG_GROUP 8
#define WG_TRIPS 1024 /* 8192 instructions per warpgroup and launch */
#define WG_THREADS 128

/* Bytes of a wgmma block's operands in shared memory: A (64 x 32 B), +B and
 * -B (N x 32 B each). */
static size_t wg_tile_bytes(const struct mma_op *op)
{
    return (size_t)KBYTES * (size_t)(op->m + 2 * op->n);
}

/* Prints an operand list "%first, %first+1, ..." of n operands. */
static void operand_list(struct gc_sbuf *b, int first, int n)
{
    for (int i = 0; i < n; i++)
        gc__sbuf_printf(b, "%s%%%d", i ? ", " : "", first + i);
}

static const char *acc_constraint(enum mma_elem acc)
{
    return acc == E_F32 ? "+f" : "+r";
}

/* The value of accumulator word w loaded from p[idx] in the kernel. */
static void load_acc(struct gc_sbuf *b, enum mma_elem acc, const char *var, const char *src)
{
    if (acc == E_F32)
        gc__sbuf_printf(b, "    float %s = __uint_as_float(%s);\n", var, src);
    else if (acc == E_S32)
        gc__sbuf_printf(b, "    int %s = (int)%s;\n", var, src);
    else
        gc__sbuf_printf(b, "    unsigned %s = %s;\n", var, src);
}

static void store_acc(struct gc_sbuf *b, enum mma_elem acc, const char *dst, const char *var)
{
    if (acc == E_F32)
        gc__sbuf_printf(b, "    %s = __float_as_uint(%s);\n", dst, var);
    else
        gc__sbuf_printf(b, "    %s = (unsigned)%s;\n", dst, var);
}

/* One mma.sync on accumulator j with +B (neg false) or -B. */
static void emit_sync(struct gc_sbuf *b, const struct mma_op *op, int j, bool neg)
{
    int nw = acc_words(op);

    gc__sbuf_printf(b, "        asm volatile(\"%s {", op->ptx);
    operand_list(b, 0, nw);
    gc__sbuf_puts(b, "}, {");
    operand_list(b, nw, 4);
    gc__sbuf_puts(b, "}, {");
    operand_list(b, nw + 4, 2);
    gc__sbuf_puts(b, "}, {");
    operand_list(b, 0, nw);
    gc__sbuf_puts(b, "};\"\n            : ");
    for (int w = 0; w < nw; w++)
        gc__sbuf_printf(b, "%s\"%s\"(d%d_%d)", w ? ", " : "", acc_constraint(op->acc), j, w);
    gc__sbuf_printf(b,
                    "\n            : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"r\"(%s0), "
                    "\"r\"(%s1));\n",
                    neg ? "bn" : "bp", neg ? "bn" : "bp");
}

static char *gen_sync(enum gc_dialect d, const struct mma_op *op, unsigned flags, int ilp)
{
    struct gc_sbuf b;
    int nw = acc_words(op);
    int unroll = SYNC_BODY / ilp;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, flags);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_mma(GC_GLOBAL const unsigned *ops, GC_GLOBAL const "
                      "unsigned *cin, GC_GLOBAL unsigned *out GC_TS_PARAM)\n{\n"
                      "    GC_TS_BEGIN\n    GC_U32 gid = GC_GID;\n");
    gc__sbuf_printf(&b, "    const unsigned *p = ops + gid * %du;\n", SYNC_OPW);
    gc__sbuf_puts(&b, "    unsigned a0 = p[0], a1 = p[1], a2 = p[2], a3 = p[3];\n"
                      "    unsigned bp0 = p[4], bp1 = p[5], bn0 = p[6], bn1 = p[7];\n");
    for (int j = 0; j < ilp; j++)
        for (int w = 0; w < nw; w++) {
            char var[32], src[64];

            snprintf(var, sizeof(var), "d%d_%d", j, w);
            snprintf(src, sizeof(src), "cin[gid * %du + %du]", SYNC_MAX_ILP * nw, j * nw + w);
            load_acc(&b, op->acc, var, src);
        }
    /* No unrolling beyond the body: the SASS check counts one body per loop. */
    gc__sbuf_printf(&b, "#pragma unroll 1\n    for (int i = 0; i < %d; i++) {\n", SYNC_TRIPS);
    for (int u = 0; u < unroll; u++)
        for (int j = 0; j < ilp; j++)
            emit_sync(&b, op, j, u % 2 == 1);
    gc__sbuf_puts(&b, "    }\n");
    /* One more +B after the loop: the result is C + A.B, which checks the
     * operand layout and the arithmetic; the loop's chain must have returned
     * each accumulator exactly to C for it to match. */
    for (int j = 0; j < ilp; j++)
        emit_sync(&b, op, j, false);
    for (int j = 0; j < ilp; j++)
        for (int w = 0; w < nw; w++) {
            char var[32], dst[64];

            snprintf(var, sizeof(var), "d%d_%d", j, w);
            snprintf(dst, sizeof(dst), "out[gid * %du + %du]", SYNC_MAX_ILP * nw, j * nw + w);
            store_acc(&b, op->acc, dst, var);
        }
    gc__sbuf_puts(&b, "    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

/* One wgmma on the whole accumulator with B descriptor db. */
static void emit_wgmma(struct gc_sbuf *b, const struct mma_op *op, const char *db)
{
    int nw = acc_words(op);

    gc__sbuf_printf(b, "        asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %%%d, 0;\\n%s {",
                    nw + 2, op->ptx);
    operand_list(b, 0, nw);
    gc__sbuf_printf(b, "}, %%%d, %%%d, p%s%s;\\n}\"\n            : ", nw, nw + 1,
                    op->tail ? ", " : "", op->tail ? op->tail : "");
    for (int w = 0; w < nw; w++)
        gc__sbuf_printf(b, "%s\"%s\"(d%d)%s", w ? ", " : "", acc_constraint(op->acc), w,
                        w % 8 == 7 && w + 1 < nw ? "\n              " : "");
    gc__sbuf_printf(b, "\n            : \"l\"(da), \"l\"(%s), \"r\"(one));\n", db);
}

static char *gen_wgmma(enum gc_dialect d, const struct mma_op *op, unsigned flags)
{
    struct gc_sbuf b;
    int nw = acc_words(op);
    size_t tile_words = wg_tile_bytes(op) / 4;
    unsigned a_bytes = (unsigned)(KBYTES * op->m), b_bytes = (unsigned)(KBYTES * op->n);

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, flags);
    /* No-swizzle K-major canonical layout (PTX ISA, "Shared Memory Matrix
     * Layout"): core matrices of 8 rows x 16 bytes stored as 128 contiguous
     * bytes; the two 16-byte halves of the 32-byte K extent are two column
     * blocks of rows x 16 bytes. Leading-dimension byte offset = distance of
     * the K-adjacent core matrices (rows x 16 B), stride-dimension byte
     * offset = distance of the M/N-adjacent ones (128 B). */
    gc__sbuf_puts(&b, "#define GC_DESC(addr, lbo) ((unsigned long long)(((addr) & 0x3FFFFu) >> 4) "
                      "| ((unsigned long long)((lbo) >> 4) << 16) | (8ull << 32))\n");
    gc__sbuf_puts(&b, "GC_KERNEL void gc_wgmma(GC_GLOBAL const unsigned *tiles, GC_GLOBAL const "
                      "unsigned *cin, GC_GLOBAL unsigned *out, unsigned one GC_TS_PARAM)\n{\n");
    gc__sbuf_printf(&b, "    GC_SHARED __align__(128) unsigned gc_tile[%zu];\n", tile_words);
    gc__sbuf_puts(&b, "    GC_TS_BEGIN\n    GC_U32 gid = GC_GID;\n");
    gc__sbuf_printf(&b,
                    "    const unsigned *t = tiles + (unsigned long long)GC_BID * %zuu;\n"
                    "    for (unsigned i = GC_TID; i < %zuu; i += %du)\n"
                    "        gc_tile[i] = t[i];\n",
                    tile_words, tile_words, WG_THREADS);
    /* Generic-proxy writes become visible to the tensor cores' async proxy
     * only through this fence (PTX ISA, "Async proxy"). */
    gc__sbuf_puts(&b, "    asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
                      "    GC_BARRIER();\n"
                      "    unsigned base = (unsigned)__cvta_generic_to_shared(gc_tile);\n");
    gc__sbuf_printf(&b,
                    "    unsigned long long da = GC_DESC(base, %uu);\n"
                    "    unsigned long long dbp = GC_DESC(base + %uu, %uu);\n"
                    "    unsigned long long dbn = GC_DESC(base + %uu, %uu);\n",
                    (unsigned)(16 * op->m), a_bytes, (unsigned)(16 * op->n), a_bytes + b_bytes,
                    (unsigned)(16 * op->n));
    for (int w = 0; w < nw; w++) {
        char var[16], src[64];

        snprintf(var, sizeof(var), "d%d", w);
        snprintf(src, sizeof(src), "cin[gid * %du + %du]", nw, w);
        load_acc(&b, op->acc, var, src);
    }
    /* The accumulators were written by ordinary instructions: fence once.
     * Same-shape wgmmas on one accumulator are ordered without fences. */
    gc__sbuf_puts(&b, "    asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n");
    gc__sbuf_printf(&b, "#pragma unroll 1\n    for (int i = 0; i < %d; i++) {\n", WG_TRIPS);
    /* The fence at the head of every group, as the compiler would insert
     * it anyway (the wait below makes the accumulator registers visible to
     * the warpgroup again). */
    gc__sbuf_puts(&b, "        asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n");
    for (int u = 0; u < WG_GROUP; u++)
        emit_wgmma(&b, op, u % 2 ? "dbn" : "dbp");
    /* Two groups in flight: this one is issued while the previous one
     * completes. */
    gc__sbuf_puts(&b, "        asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");\n"
                      "        asm volatile(\"wgmma.wait_group.sync.aligned 1;\" ::: \"memory\");\n"
                      "    }\n"
                      "    asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n");
    emit_wgmma(&b, op, "dbp");
    gc__sbuf_puts(&b, "    asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");\n"
                      "    asm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: \"memory\");\n");
    /* The compiler must not read an accumulator before the wait. */
    for (int w = 0; w < nw; w++)
        gc__sbuf_printf(&b, "    asm volatile(\"\" : \"%s\"(d%d) :: \"memory\");\n",
                        acc_constraint(op->acc), w);
    for (int w = 0; w < nw; w++) {
        char var[16], dst[64];

        snprintf(var, sizeof(var), "d%d", w);
        snprintf(dst, sizeof(dst), "out[gid * %du + %du]", nw, w);
        store_acc(&b, op->acc, dst, var);
    }
    gc__sbuf_puts(&b, "    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
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

/* Fills the operand and accumulator words of nthreads threads (one random
 * A, B per warp) and returns A.B per warp (nthreads / 32 x 16 x 8). */
static int sync_fill(const struct mma_op *op, size_t nthreads, uint64_t seed, uint32_t *opw,
                     uint32_t *cw, int32_t *ab)
{
    int nw = acc_words(op), esz = elem_size(op->ab), kel = KBYTES / esz;
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

static int sync_check(const struct mma_op *op, size_t nthreads, int ilp, const uint32_t *cw,
                      const int32_t *ab, const uint32_t *got, char *why, size_t whylen)
{
    int nw = acc_words(op);

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

static void wg_fill(const struct mma_op *op, size_t nblocks, uint64_t seed, unsigned char *tiles,
                    uint32_t *cw)
{
    int esz = elem_size(op->ab), kel = KBYTES / esz, nw = acc_words(op);
    size_t tb = wg_tile_bytes(op);
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

/* Accumulator layout of wgmma m64nN (PTX ISA, "Register Fragments", figure
 * for the accumulator D): thread th of the warpgroup, warp w = th / 32, g =
 * lane / 4, t = lane % 4; value i is at row 16 w + g + 8 ((i >> 1) & 1),
 * column 8 (i >> 2) + 2t + (i & 1). */
static int wg_check(const struct mma_op *op, size_t nblocks, const unsigned char *tiles,
                    const uint32_t *cw, const uint32_t *got, char *why, size_t whylen)
{
    int esz = elem_size(op->ab), kel = KBYTES / esz, nw = acc_words(op);
    size_t tb = wg_tile_bytes(op);
    int *av = malloc((size_t)op->m * (size_t)kel * sizeof(int));
    int *bv = malloc((size_t)op->n * (size_t)kel * sizeof(int));
    int32_t *ab = malloc((size_t)op->m * (size_t)op->n * sizeof(int32_t));
    int rc = 0;

    if (!av || !bv || !ab) {
        rc = GC_ENOMEM;
        goto out;
    }
    for (size_t blk = 0; blk < nblocks; blk++) {
        const unsigned char *a = tiles + blk * tb, *bp = a + KBYTES * op->m;

        for (int r = 0; r < op->m; r++)
            for (int k = 0; k < kel; k++)
                av[r * kel + k] = get_elem(op->ab, a + wg_off(op->m, r, k * esz));
        for (int c = 0; c < op->n; c++)
            for (int k = 0; k < kel; k++)
                bv[c * kel + k] = get_elem(op->ab, bp + wg_off(op->n, c, k * esz));
        for (int r = 0; r < op->m; r++)
            for (int c = 0; c < op->n; c++) {
                int32_t s = 0;
                for (int k = 0; k < kel; k++)
                    s += av[r * kel + k] * bv[c * kel + k];
                ab[r * op->n + c] = s;
            }
        for (int th = 0; th < WG_THREADS; th++) {
            int lane = th % 32, g = lane / 4, t = lane % 4, wp = th / 32;
            size_t idx = (blk * WG_THREADS + (size_t)th) * (size_t)nw;

            for (int i = 0; i < op->n / 2; i++) {
                int row = 16 * wp + g + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * t + (i & 1);
                double expect = acc_get(op->acc, cw + idx, i) + ab[row * op->n + col];
                double v = acc_get(op->acc, got + idx, i);

                if (v != expect) {
                    snprintf(why, whylen,
                             "block %zu, thread %d, element (%d, %d) gave %.9g, expected %.9g", blk,
                             th, row, col, v, expect);
                    rc = GC_EVERIFY;
                    goto out;
                }
            }
        }
    }
out:
    free(av);
    free(bv);
    free(ab);
    return rc;
}

/* ---- Running ------------------------------------------------------------ */

/* Instructions one warp (mma.sync) or warpgroup (wgmma) executes per launch. */
static double instr_per_unit(const struct mma_op *op, int ilp)
{
    if (op->kind == K_SYNC)
        return (double)SYNC_TRIPS * SYNC_BODY + ilp;
    return (double)WG_TRIPS * WG_GROUP + 1;
}

static bool is_int(const struct mma_op *op)
{
    return op->ab == E_S8;
}

/* fp8 mma.sync exists natively on sm_89 and sm_120 (QMMA); on sm_90 the
 * compiler emulates it by converting the operands to fp16 and issuing two
 * m16n8k16 HMMA per instruction (NVIDIA/cutlass issue 1986): that is no
 * hardware rate, and the benchmark reports it as not available there. */
static bool emulated(const struct mma_op *op, const struct gc_arch *a)
{
    return op->ab == E_E4M3 && op->kind == K_SYNC && a->mma_fp8_emulated;
}

/* Why the device cannot run op, or NULL when it can. */
static const char *unavailable(const struct mma_op *op, const struct gc_arch *a, char *buf,
                               size_t len)
{
    if (a->cc == 0) {
        snprintf(buf, len,
                 "not available on this device: the matrix units are reached through inline "
                 "PTX (%s) on CUDA devices; OpenCL C has no matrix-multiply instruction",
                 op->kind == K_SYNC ? "mma.sync" : "wgmma.mma_async");
        return buf;
    }
    if (op->kind == K_WGMMA && !a->wgmma) {
        snprintf(buf, len,
                 "not available on this device (needs sm_90a: wgmma exists only on compute "
                 "capability 9.0; this is sm_%d)",
                 a->cc);
        return buf;
    }
    if (gc__arch_older_than(a, op->min_cc)) {
        snprintf(buf, len, "not available on this device (needs sm_%d; this is sm_%d)", op->min_cc,
                 a->cc);
        return buf;
    }
    /* Measured on an H200, the compiler's sm_90 emulation of fp8 mma.sync
     * ran at 169% of the fp16 tensor rate it is supposed to be built from:
     * whatever it executes is not the instruction asked for, so neither a
     * number nor a SASS expectation is declared for it. */
    if (emulated(op, a)) {
        snprintf(buf, len,
                 "not available on this device: sm_%d has no native fp8 mma.sync (the "
                 "compiler's emulation is not a hardware rate); compute.wgmma.e4m3_f32 measures "
                 "the fp8 tensor path",
                 a->cc);
        return buf;
    }
    return NULL;
}

static int build_sources(enum gc_dialect d, const struct mma_op *op, unsigned flags, int *ilps,
                         int nilp, struct gc_kreq *reqs, char (*labels)[64], char (*opts)[64])
{
    if (op->kind == K_WGMMA) {
        snprintf(labels[0], 64, "wgmma_%s", strchr(op->sass, '.') + 1);
        snprintf(opts[0], 64, "--gpu-architecture=sm_90a");
        reqs[0].label = labels[0];
        reqs[0].options = opts[0];
        reqs[0].src = gen_wgmma(d, op, flags);
        return reqs[0].src ? 1 : GC_ENOMEM;
    }
    for (int i = 0; i < nilp; i++) {
        snprintf(labels[i], 64, "mma_%s_ilp%d", op->sass, ilps[i]);
        for (char *c = labels[i]; *c; c++)
            if (*c == '.')
                *c = '_';
        opts[i][0] = '\0';
        reqs[i].label = labels[i];
        reqs[i].options = NULL;
        reqs[i].src = gen_sync(d, op, flags, ilps[i]);
        if (!reqs[i].src)
            return GC_ENOMEM;
    }
    return nilp;
}

static int run_mma(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    const struct mma_op *op = self->param;
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    static const int ilps_q[] = {4, 8}, ilps_d[] = {2, 4, 8}, ilps_f[] = {1, 2, 4, 8};
    static const int warps_q[] = {8, 16}, warps_d[] = {8, 16, 32}, warps_f[] = {4, 8, 16, 32};
    static const int wgs_q[] = {1, 2}, wgs_d[] = {1, 2}, wgs_f[] = {1, 2, 3};
    bool quick = s->profile == GC_PROFILE_QUICK, full = s->profile == GC_PROFILE_FULL;
    int ilps[4], nilp, units[4], nunit;
    unsigned flags = (info->caps & GC_CAP_CLOCK64) && (info->caps & GC_CAP_GLOBALTIMER) &&
                             (info->caps & GC_CAP_SMID)
                         ? GC_KGEN_TIMESTAMPS
                         : 0;
    struct gc_kreq reqs[4];
    char labels[4][64], opts[4][64], why[512];
    int nk = 0, rc = 0, nw = acc_words(op);
    size_t nthreads, nblocks_max, cwords, opwords;
    char skipped[512] = "";
    struct gc_buf *bops = NULL, *bc = NULL, *bout = NULL, *tsb = NULL;
    uint32_t *hops = NULL, *hc = NULL, *hout = NULL;
    int32_t *hab = NULL;
    double best_rate = 0, best_instr = 0;
    struct gc_measurement best = {0};
    char best_cfg[256] = "";
    const char *unit = is_int(op) ? "OP/s" : "FLOP/s";
    double flop_per_instr = 2.0 * op->m * op->n * op->k;

    memset(reqs, 0, sizeof(reqs));
    if (unavailable(op, &d->arch, why, sizeof(why))) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "%s", why);
        return 0;
    }
    if (op->kind == K_SYNC) {
        const int *il = quick ? ilps_q : full ? ilps_f : ilps_d;
        const int *wa = quick ? warps_q : full ? warps_f : warps_d;
        nilp = quick ? 2 : full ? 4 : 3;
        nunit = quick ? 2 : full ? 4 : 3;
        memcpy(ilps, il, (size_t)nilp * sizeof(int));
        memcpy(units, wa, (size_t)nunit * sizeof(int));
    } else {
        const int *wg = quick ? wgs_q : full ? wgs_f : wgs_d;
        nilp = 1;
        ilps[0] = 1;
        nunit = quick ? 2 : full ? 3 : 2;
        memcpy(units, wg, (size_t)nunit * sizeof(int));
    }

    nk = build_sources(d->ops->dialect, op, flags, ilps, nilp, reqs, labels, opts);
    if (nk < 0) {
        rc = nk;
        nk = nilp;
        goto out;
    }
    rc = gc__kcache_build(s, reqs, nk);
    if (rc)
        goto out;

    /* Buffers for the largest configuration. */
    int max_unit = units[nunit - 1];
    if (op->kind == K_SYNC) {
        nblocks_max = (size_t)(max_unit * 32 / SYNC_BLOCK) * (size_t)info->compute_units;
        nthreads = nblocks_max * SYNC_BLOCK;
        opwords = nthreads * SYNC_OPW;
        cwords = nthreads * SYNC_MAX_ILP * (size_t)nw;
    } else {
        nblocks_max = (size_t)max_unit * (size_t)info->compute_units;
        nthreads = nblocks_max * WG_THREADS;
        opwords = nblocks_max * wg_tile_bytes(op) / 4;
        cwords = nthreads * (size_t)nw;
    }
    hops = malloc(opwords * 4);
    hc = malloc(cwords * 4);
    hout = malloc(cwords * 4);
    if (op->kind == K_SYNC)
        hab = malloc(nthreads / 32 * 128 * sizeof(int32_t));
    if (!hops || !hc || !hout || (op->kind == K_SYNC && !hab)) {
        rc = GC_ENOMEM;
        goto out;
    }
    if (op->kind == K_SYNC)
        sync_fill(op, nthreads, s->seed ^ 0x3A3AULL, hops, hc, hab);
    else
        wg_fill(op, nblocks_max, s->seed ^ 0x3A3BULL, (unsigned char *)hops, hc);
    if ((rc = gc__dev_alloc(d, opwords * 4, &bops)) || (rc = gc__dev_alloc(d, cwords * 4, &bc)) ||
        (rc = gc__dev_alloc(d, cwords * 4, &bout)))
        goto out;
    if ((rc = gc__dev_write(d, bops, 0, hops, opwords * 4)) ||
        (rc = gc__dev_write(d, bc, 0, hc, cwords * 4)))
        goto out;
    if (flags & GC_KGEN_TIMESTAMPS) {
        rc = gc__dev_alloc(d, nblocks_max * GC_TS_WORDS * 8, &tsb);
        if (rc)
            goto out;
    }

    if (op->kind == K_SYNC) {
        for (int u = 0; u < nunit; u++) {
            char name[48];

            snprintf(name, sizeof(name), "throughput_%dwarps_per_sm", units[u]);
            if (!gc__bench_add_series(r, name, "accumulators per warp (ILP)", "", "throughput",
                                      unit)) {
                rc = GC_ENOMEM;
                goto out;
            }
        }
    } else if (!gc__bench_add_series(r, "throughput", "warpgroups per SM", "", "throughput",
                                     unit)) {
        rc = GC_ENOMEM;
        goto out;
    }

    for (int ki = 0; ki < nk && !gc__stopped(s); ki++)
        for (int u = 0; u < nunit && !gc__stopped(s); u++) {
            int block = op->kind == K_SYNC ? SYNC_BLOCK : WG_THREADS;
            int per_cu = op->kind == K_SYNC ? units[u] * 32 / SYNC_BLOCK : units[u];
            struct gc_kern *k = NULL;
            struct gc_occupancy oc = {0};
            char cfgname[256];

            rc = d->ops->kernel(reqs[ki].prog, op->kind == K_SYNC ? "gc_mma" : "gc_wgmma", &k);
            if (rc) {
                snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
                goto out;
            }
            rc = gc__occupancy_set(d, k, block, per_cu, &oc);
            if (rc == GC_ERANGE) {
                /* Registers or shared memory allow fewer blocks: this point of
                 * the sweep does not exist on this device. */
                size_t l = strlen(skipped);
                snprintf(skipped + l, sizeof(skipped) - l, "%s%d %s/SM%s", l ? ", " : "", units[u],
                         op->kind == K_SYNC ? "warps" : "warpgroups", op->kind == K_SYNC ? "" : "");
                rc = 0;
                continue;
            }
            if (rc)
                goto out;
            unsigned grid = (unsigned)(per_cu * info->compute_units);
            size_t nth = (size_t)grid * (size_t)block;
            struct gc_arg args[5] = {
                {.type = GC_ARG_BUF, .v.buf = bops},
                {.type = GC_ARG_BUF, .v.buf = bc},
                {.type = GC_ARG_BUF, .v.buf = bout},
            };
            int nargs = 3;
            if (op->kind == K_WGMMA)
                args[nargs++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 1};
            struct gc_timestamps ts = {tsb, grid};
            if (flags & GC_KGEN_TIMESTAMPS)
                args[nargs++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = tsb};
            struct gc_launch l = {
                {grid, 1, 1}, {(unsigned)block, 1, 1}, oc.dyn_shared, args, nargs, 1};
            struct gc_measurement m;

            if (op->kind == K_SYNC)
                snprintf(cfgname, sizeof(cfgname), "%d warps/SM, %d accumulators per warp, %s",
                         units[u], ilps[ki], oc.note);
            else
                snprintf(cfgname, sizeof(cfgname), "%d warpgroup(s)/SM, %d wgmma per group, %s",
                         units[u], WG_GROUP, oc.note);
            rc = gc__measure(s, k, &l, (flags & GC_KGEN_TIMESTAMPS) ? &ts : NULL, NULL, 0, &m);
            if (rc == 0 || (rc == GC_EINTR && m.samples > 0)) {
                /* Poison, one launch, check every output value. */
                int vrc;
                double el;
                struct gc_launch one = l;

                memset(hout, 0xFF, cwords * 4);
                vrc = gc__dev_write(d, bout, 0, hout, cwords * 4);
                one.count = 1;
                if (!vrc)
                    vrc = gc__dev_launch(d, k, &one, &el);
                if (!vrc)
                    vrc = gc__dev_read(d, bout, 0, hout, cwords * 4);
                if (!vrc) {
                    why[0] = '\0';
                    vrc = op->kind == K_SYNC
                              ? sync_check(op, nth, ilps[ki], hc, hab, hout, why, sizeof(why))
                              : wg_check(op, grid, (const unsigned char *)hops, hc, hout, why,
                                         sizeof(why));
                    if (vrc == GC_EVERIFY)
                        gc__bench_set_error(r, GC_BENCH_ERROR, "verification failed (%s): %s",
                                            cfgname, why);
                }
                if (vrc) {
                    gc__measurement_free(&m);
                    rc = vrc;
                    goto out;
                }
                double units_total =
                    op->kind == K_SYNC ? (double)nth / 32.0 : (double)nth / WG_THREADS;
                double instr = units_total * instr_per_unit(op, ilps[ki]);
                struct gc_stats fl;

                gc__stats_inverse(m.per_sample_s, m.samples, flop_per_instr * instr, &fl);
                if (op->kind == K_SYNC)
                    gc__series_add(&r->series[u], ilps[ki], fl.median, &fl, NULL);
                else
                    gc__series_add(&r->series[0], units[u], fl.median, &fl, NULL);
                if (fl.median > best_rate) {
                    gc__measurement_free(&best);
                    best = m;
                    m.per_sample_s = NULL;
                    best_rate = fl.median;
                    best_instr = instr;
                    snprintf(best_cfg, sizeof(best_cfg), "%s", cfgname);
                }
            }
            gc__measurement_free(&m);
            if (rc)
                goto out;
        }

    if (best_rate > 0) {
        double spec = spec_per_clk_sm(op, &d->arch);
        double clk = best.clock_mhz * 1e6;
        struct gc_stats fl;
        char note[1600], metric[64];
        const char *emu = emulated(op, &d->arch)
                              ? " (no native fp8 mma.sync on sm_90: the compiler emulates it with "
                                "two fp16 HMMA per instruction, so the limit is the fp16 rate; "
                                "compute.wgmma.e4m3_f32 measures the native fp8 path)"
                              : "";

        gc__stats_inverse(best.per_sample_s, best.samples, flop_per_instr * best_instr, &fl);
        if (isfinite(spec))
            snprintf(note, sizeof(note),
                     "%s%s; best config: %s; limit = %g %s/clk/SM dense (NVIDIA whitepaper) x %d "
                     "SMs x %.0f MHz (%s clock)%s%s",
                     op->ptx, emu, best_cfg, spec, is_int(op) ? "OP" : "FLOP", info->compute_units,
                     best.clock_mhz, best.clock_source, skipped[0] ? "; not enforceable: " : "",
                     skipped);
        else
            snprintf(note, sizeof(note),
                     "%s%s; best config: %s; no per-clock specification known for this type on "
                     "this architecture%s%s",
                     op->ptx, emu, best_cfg, skipped[0] ? "; not enforceable: " : "", skipped);
        snprintf(metric, sizeof(metric), "%s_throughput", strchr(self->info.name + 8, '.') + 1);
        gc__bench_add_metric(r, metric, fl.median, unit, spec * info->compute_units * clk, &fl,
                             note);
        if (isfinite(clk) && clk > 0) {
            struct gc_stats pc, ic;

            gc__stats_inverse(best.per_sample_s, best.samples,
                              flop_per_instr * best_instr / (clk * info->compute_units), &pc);
            gc__bench_add_metric(r, is_int(op) ? "op_per_clk_per_sm" : "flop_per_clk_per_sm",
                                 pc.median, is_int(op) ? "OP/clk/SM" : "FLOP/clk/SM", spec, &pc,
                                 "dense multiply-add operations (2 per multiply-add) per clock "
                                 "per SM at the observed clock");
            gc__stats_inverse(best.per_sample_s, best.samples,
                              best_instr / (clk * info->compute_units), &ic);
            gc__bench_add_metric(r, "instructions_per_clk_per_sm", ic.median, "instr/clk/SM",
                                 spec / flop_per_instr, &ic,
                                 op->kind == K_SYNC
                                     ? "mma.sync instructions (per warp) per clock per SM"
                                     : "wgmma instructions (per warpgroup) per clock per SM");
        }
        r->context = best.ctx;
        snprintf(r->stop_rule, sizeof(r->stop_rule), "%s", best.stop_rule);
    } else if (!gc__stopped(s) && r->status == GC_BENCH_OK) {
        gc__bench_set_error(r, GC_BENCH_ERROR,
                            "no configuration could be enforced on this device (%s)", skipped);
        rc = GC_ERANGE;
    }
    if (gc__stopped(s))
        rc = GC_EINTR;
out:
    gc__measurement_free(&best);
    free(hops);
    free(hc);
    free(hout);
    free(hab);
    gc__dev_free(d, tsb);
    gc__dev_free(d, bops);
    gc__dev_free(d, bc);
    gc__dev_free(d, bout);
    gc__kreq_release(s, reqs, nk);
    return rc;
}

/* The kernels of a benchmark with their expected SASS: one per accumulator
 * count (mma.sync) or the one wgmma kernel, with timestamps as on a GPU. */
static int mma_sources(const struct gc_bench *self, const struct gc_device_info *info,
                       struct gc_ksrc **out, int *n)
{
    const struct mma_op *op = self->param;
    static const int ilps[] = {1, 2, 4, 8};
    int cnt = op->kind == K_SYNC ? 4 : 1;
    struct gc_ksrc *k;
    char why[256];
    struct gc_arch arch;

    *out = NULL;
    *n = 0;
    if (info) {
        gc__arch_lookup(info, &arch);
        if (unavailable(op, &arch, why, sizeof(why)))
            return 0;
    }
    k = calloc((size_t)cnt, sizeof(*k));
    if (!k)
        return GC_ENOMEM;
    for (int i = 0; i < cnt; i++) {
        if (op->kind == K_SYNC) {
            snprintf(k[i].label, sizeof(k[i].label), "%s_ilp%d", self->info.name, ilps[i]);
            k[i].src = gen_sync(gc__kgen_inspect_dialect(), op, GC_KGEN_TIMESTAMPS, ilps[i]);
            k[i].expect[0] = (struct gc_sass_expect){op->sass, SYNC_BODY};
        } else {
            snprintf(k[i].label, sizeof(k[i].label), "%s", self->info.name);
            snprintf(k[i].options, sizeof(k[i].options), "--gpu-architecture=sm_90a");
            k[i].src = gen_wgmma(gc__kgen_inspect_dialect(), op, GC_KGEN_TIMESTAMPS);
            k[i].expect[0] = (struct gc_sass_expect){op->sass, WG_GROUP};
        }
        k[i].nexpect = 1;
        if (!k[i].src) {
            gc__ksrc_free(k, cnt);
            return GC_ENOMEM;
        }
    }
    *out = k;
    *n = cnt;
    return 0;
}

/* ---- The family ----------------------------------------------------------- */

#define SYNC_METHOD                                                                                \
    "Warp-level mma.sync (inline PTX; the largest shape of the type: m16n8k16 for fp16/bf16, "     \
    "m16n8k8 for tf32, m16n8k32 for int8/fp8) issued back to back in a loop of 64 "                \
    "instructions per trip and a compile-time trip count (512 trips, 32768 instructions per "      \
    "warp), spread over 1-8 independent accumulators per warp (ILP) and 4-32 warps per SM "        \
    "(blocks of 128 threads, exactly k blocks per SM enforced with dynamic shared memory and "     \
    "checked with the occupancy calculator; Lemeire eq. 2, Volkov S5.7); the best point of the "   \
    "sweep is reported. Operands stay in registers, loaded once from random small integers "       \
    "(nonzero, |v| <= 3, xorshift64*); each accumulator alternates +B and -B so that it returns "  \
    "exactly to C after every pair, and one final +B gives C + A.B, which the host checks for "    \
    "every output value of every warp (exact in every accumulator type). Throughput = 2 M N K x "  \
    "instructions / time per launch (int8: OP/s); per clock per SM at the SM clock observed in "   \
    "the kernel (clock64 against globaltimer). Limit: dense tensor rate per SM per clock from "    \
    "NVIDIA's whitepapers x SMs x observed clock (sm_90: 4096 FLOP/clk/SM fp16/bf16, 2048 tf32, "  \
    "8192 fp8/int8; sm_80: 2048/1024/4096). On sm_90 mma.sync is expected well below that "        \
    "limit, which wgmma reaches. Not available on OpenCL devices (no matrix instruction in "       \
    "OpenCL C) or below the instruction's architecture."

#define WGMMA_METHOD                                                                               \
    "Warpgroup-level wgmma.mma_async (sm_90a; inline PTX, compiled with "                          \
    "--gpu-architecture=sm_90a) of shape m64n256kK (K = 16 fp16/bf16, 8 tf32, 32 fp8/int8), "      \
    "with A and B in shared memory described by matrix descriptors (no-swizzle K-major "           \
    "canonical layout: 8-row x 16-byte core matrices, leading byte offset = rows x 16 B, stride "  \
    "byte offset = 128 B) and the 64x256 accumulator in registers. Each warpgroup (128 threads, "  \
    "one per block, 1-3 blocks per SM enforced with shared memory) issues groups of 8 wgmma on "   \
    "one accumulator, commits each group and waits for the previous one (two groups in flight), "  \
    "1024 groups per launch. Operands are random nonzero small integers; B alternates with -B "    \
    "(a second copy in shared memory) so the accumulator returns exactly to C, and a final +B "    \
    "gives C + A.B, checked on the host for every value of every warpgroup. Throughput = 2 x 64 "  \
    "x 256 x K x instructions / time (int8: OP/s), per clock per SM at the observed SM clock; "    \
    "limit from the H100 whitepaper (4096 FLOP/clk/SM fp16/bf16 dense, 2048 tf32, 8192 "           \
    "fp8/int8) x SMs x observed clock. Not available outside compute capability 9.0 or on "        \
    "OpenCL devices."

#define MMA_ENTRY(i, nm, sum, meth)                                                                \
    {                                                                                              \
        .info = {.name = nm, .group = "compute", .summary = sum, .method = meth},                  \
        .needs_caps = GC_CAP_INLINE_ASM, .run = run_mma, .param = &ops[i], .sources = mma_sources  \
    }

static const struct gc_bench entries[] = {
    MMA_ENTRY(0, "compute.mma.f16_f32",
              "mma.sync m16n8k16 fp16 x fp16 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              SYNC_METHOD),
    MMA_ENTRY(1, "compute.mma.f16_f16",
              "mma.sync m16n8k16 fp16 x fp16 + fp16 tensor throughput (FLOP/s, FLOP/clk/SM)",
              SYNC_METHOD),
    MMA_ENTRY(2, "compute.mma.bf16_f32",
              "mma.sync m16n8k16 bf16 x bf16 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              SYNC_METHOD),
    MMA_ENTRY(3, "compute.mma.tf32_f32",
              "mma.sync m16n8k8 tf32 x tf32 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              SYNC_METHOD),
    MMA_ENTRY(4, "compute.mma.s8_s32",
              "mma.sync m16n8k32 int8 x int8 + int32 tensor throughput (OP/s, OP/clk/SM)",
              SYNC_METHOD),
    MMA_ENTRY(5, "compute.mma.e4m3_f32",
              "mma.sync m16n8k32 fp8 e4m3 x e4m3 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              SYNC_METHOD),
    MMA_ENTRY(6, "compute.wgmma.f16_f32",
              "wgmma m64n256k16 fp16 x fp16 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              WGMMA_METHOD),
    MMA_ENTRY(7, "compute.wgmma.f16_f16",
              "wgmma m64n256k16 fp16 x fp16 + fp16 tensor throughput (FLOP/s, FLOP/clk/SM)",
              WGMMA_METHOD),
    MMA_ENTRY(8, "compute.wgmma.bf16_f32",
              "wgmma m64n256k16 bf16 x bf16 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              WGMMA_METHOD),
    MMA_ENTRY(9, "compute.wgmma.tf32_f32",
              "wgmma m64n256k8 tf32 x tf32 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              WGMMA_METHOD),
    MMA_ENTRY(10, "compute.wgmma.e4m3_f32",
              "wgmma m64n256k32 fp8 e4m3 x e4m3 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              WGMMA_METHOD),
    MMA_ENTRY(11, "compute.wgmma.s8_s32",
              "wgmma m64n256k32 int8 x int8 + int32 tensor throughput (OP/s, OP/clk/SM)",
              WGMMA_METHOD),
};

_Static_assert(sizeof(entries) / sizeof(entries[0]) == sizeof(ops) / sizeof(ops[0]),
               "one benchmark per instruction");

static int mma_count(void)
{
    return NOPS;
}

static const struct gc_bench *mma_at(int i)
{
    return i >= 0 && i < NOPS ? &entries[i] : NULL;
}

const struct gc_bench_family gc__family_mma = {mma_count, mma_at};

/* ---- workload for the energy meter (bench/workload.h) -------------------- */

/* mma.sync: 8 accumulators per warp at 16 warps per SM; wgmma: 2 warpgroups
 * per SM (configurations at the top of the sweep); the output of one launch
 * is checked as the throughput measurement checks it. */
int gc__mma_workload(struct gc_session *s, const struct gc_bench *self, struct gc_workload *w)
{
    const struct mma_op *op = self->param;
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    unsigned flags = (info->caps & GC_CAP_CLOCK64) && (info->caps & GC_CAP_GLOBALTIMER) &&
                             (info->caps & GC_CAP_SMID)
                         ? GC_KGEN_TIMESTAMPS
                         : 0;
    int ilp = op->kind == K_SYNC ? SYNC_MAX_ILP : 1, unit = op->kind == K_SYNC ? 16 : 2;
    int block = op->kind == K_SYNC ? SYNC_BLOCK : WG_THREADS;
    int per_cu = op->kind == K_SYNC ? unit * 32 / SYNC_BLOCK : unit, nw = acc_words(op), rc;
    char labels[1][64], opts[1][64];
    struct gc_occupancy oc = {0};
    size_t nblocks, nthreads, opwords, cwords;
    uint32_t *hops, *hc, *hout;
    int32_t *hab = NULL;
    double el;

    if (unavailable(op, &d->arch, w->why, sizeof(w->why)))
        return GC_ENOTSUP;
    rc = build_sources(d->ops->dialect, op, flags, &ilp, 1, w->req, labels, opts);
    w->nreq = 1;
    if (rc < 0)
        return rc;
    /* The request keeps pointers to labels and options only while building. */
    if ((rc = gc__kcache_build(s, w->req, 1)))
        return rc;
    w->req[0].label = NULL;
    w->req[0].options = NULL;
    if ((rc = d->ops->kernel(w->req[0].prog, op->kind == K_SYNC ? "gc_mma" : "gc_wgmma", &w->k))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    rc = gc__occupancy_set(d, w->k, block, per_cu, &oc);
    if (rc == GC_ERANGE) {
        snprintf(w->why, sizeof(w->why), "%d %s per SM cannot be resident with this kernel", unit,
                 op->kind == K_SYNC ? "warps" : "warpgroups");
        return GC_ENOTSUP;
    }
    if (rc)
        return rc;
    nblocks = (size_t)per_cu * (size_t)info->compute_units;
    nthreads = nblocks * (size_t)block;
    if (op->kind == K_SYNC) {
        opwords = nthreads * SYNC_OPW;
        cwords = nthreads * SYNC_MAX_ILP * (size_t)nw;
    } else {
        opwords = nblocks * wg_tile_bytes(op) / 4;
        cwords = nthreads * (size_t)nw;
    }
    hops = w->host[0] = malloc(opwords * 4);
    hc = w->host[1] = malloc(cwords * 4);
    hout = w->host[2] = malloc(cwords * 4);
    if (op->kind == K_SYNC)
        hab = w->host[3] = malloc(nthreads / 32 * 128 * sizeof(int32_t));
    if (!hops || !hc || !hout || (op->kind == K_SYNC && !hab))
        return GC_ENOMEM;
    if (op->kind == K_SYNC)
        sync_fill(op, nthreads, s->seed ^ 0x3A3AULL, hops, hc, hab);
    else
        wg_fill(op, nblocks, s->seed ^ 0x3A3BULL, (unsigned char *)hops, hc);
    if ((rc = gc__dev_alloc(d, opwords * 4, &w->bufs[0])) ||
        (rc = gc__dev_alloc(d, cwords * 4, &w->bufs[1])) ||
        (rc = gc__dev_alloc(d, cwords * 4, &w->bufs[2])) ||
        (rc = gc__dev_write(d, w->bufs[0], 0, hops, opwords * 4)) ||
        (rc = gc__dev_write(d, w->bufs[1], 0, hc, cwords * 4)))
        return rc;
    int na = 0;
    for (int b = 0; b < 3; b++)
        w->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[b]};
    if (op->kind == K_WGMMA)
        w->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 1};
    if (flags & GC_KGEN_TIMESTAMPS) {
        if ((rc = gc__dev_alloc(d, nblocks * GC_TS_WORDS * 8, &w->bufs[3])))
            return rc;
        w->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[3]};
    }
    w->l = (struct gc_launch){
        {(unsigned)nblocks, 1, 1}, {(unsigned)block, 1, 1}, oc.dyn_shared, w->args, na, 1};
    memset(hout, 0xFF, cwords * 4);
    if ((rc = gc__dev_write(d, w->bufs[2], 0, hout, cwords * 4)))
        return rc;
    struct gc_launch one = w->l;
    one.count = 1;
    if ((rc = gc__dev_launch(d, w->k, &one, &el)) ||
        (rc = gc__dev_read(d, w->bufs[2], 0, hout, cwords * 4)))
        return rc;
    char why[400] = "";
    rc = op->kind == K_SYNC ? sync_check(op, nthreads, ilp, hc, hab, hout, why, sizeof(why))
                            : wg_check(op, (unsigned)nblocks, (const unsigned char *)hops, hc, hout,
                                       why, sizeof(why));
    if (rc == GC_EVERIFY)
        snprintf(w->why, sizeof(w->why), "verification failed: %s", why);
    if (rc)
        return rc;
    double units = op->kind == K_SYNC ? (double)nthreads / 32.0 : (double)nthreads / WG_THREADS;
    double instr = units * instr_per_unit(op, ilp);
    w->ops = instr * 2.0 * op->m * op->n * op->k;
    w->op_unit = is_int(op) ? "OP" : "FLOP";
    w->flops = is_int(op) ? 0 : w->ops;
    w->spec_per_clk_cu = spec_per_clk_sm(op, &d->arch);
    w->warps_per_cu = per_cu * block / 32;
    if (op->kind == K_SYNC)
        snprintf(w->what, sizeof(w->what), "%s kernel (%s): %d warps/SM, %d accumulators per warp",
                 self->info.name, op->ptx, unit, ilp);
    else
        snprintf(w->what, sizeof(w->what), "%s kernel (%s): %d warpgroups/SM, %d wgmma per group",
                 self->info.name, op->ptx, unit, WG_GROUP);
    return 0;
}
