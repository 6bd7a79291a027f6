/* The matrix-unit kernels: a timed loop of mma.sync instructions over
 * ILP accumulators per warp, or of wgmma.mma_async commit groups per
 * warpgroup with the operands in shared memory (inline PTX). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/mma/mma.h"

/* ---- Kernel generation -------------------------------------------------- */

size_t gc__mma_wg_tile_bytes(const struct mma_op *op)
{
    return (size_t)KBYTES * (size_t)(op->m + 2 * op->n);
}

int gc__mma_acc_words(const struct mma_op *op)
{
    int elems = op->kind == K_SYNC ? 4 : op->n / 2;

    return op->acc == E_F16 ? elems / 2 : elems;
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
    int nw = gc__mma_acc_words(op);

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

char *gc__mma_gen_sync(enum gc_dialect d, const struct mma_op *op, unsigned flags, int ilp)
{
    struct gc_sbuf b;
    int nw = gc__mma_acc_words(op);
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
    int nw = gc__mma_acc_words(op);

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

char *gc__mma_gen_wgmma(enum gc_dialect d, const struct mma_op *op, unsigned flags)
{
    struct gc_sbuf b;
    int nw = gc__mma_acc_words(op);
    size_t tile_words = gc__mma_wg_tile_bytes(op) / 4;
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
