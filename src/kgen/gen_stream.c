/* Streaming kernels (read, write, copy, triad) with compile-time tile counts
 * and the cache-path load/store helpers. What their outputs are verified
 * against lives with the benchmarks (bench/dram/verify.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgen/gen_stream.h"

int gc__stream_nbufs(enum gc_stream_op op)
{
    switch (op) {
    case GC_STREAM_READ:
    case GC_STREAM_COPY:
        return 2;
    case GC_STREAM_WRITE:
        return 1;
    default:
        return 3;
    }
}

const char *gc__stream_op_name(enum gc_stream_op op)
{
    static const char *const names[] = {"read", "write", "copy", "triad"};

    return names[op];
}

const char *gc__vec_comp(int vec_bytes, int c)
{
    static const char *const xyzw[] = {".x", ".y", ".z", ".w"};

    return vec_bytes == 4 ? "" : xyzw[c & 3];
}

/* PTX vector suffix and register list for one load or store. */
static void ptx_operands(int vw, char *dst_list, size_t len, int first)
{
    size_t n = 0;

    dst_list[0] = '\0';
    for (int c = 0; c < vw && n < len; c++)
        n += (size_t)snprintf(dst_list + n, len - n, "%s%%%d", c ? "," : "", first + c);
}

const char *gc__ldpath_ptx(enum gc_ldpath ld)
{
    static const char *const ops[] = {
        "ld.global",
        "ld.global.cg",
        "ld.global.nc",
        "ld.global.nc.L1::no_allocate",
        "ld.global.nc.L1::no_allocate.L2::256B",
        "ld.global.L2::256B",
    };

    return (unsigned)ld < sizeof(ops) / sizeof(ops[0]) ? ops[ld] : ops[0];
}

void gc__gen_ldst(struct gc_sbuf *b, enum gc_dialect d, int vec_bytes, enum gc_ldpath ld,
                  bool st_cs)
{
    int vw = vec_bytes / 4;
    const char *vt = gc__kgen_elem_type(4 * vw);

    gc__sbuf_printf(b, "#define GC_V %s\n#define GC_VW %d\n", vt, vw);
    if (d != GC_DIALECT_CUDA) {
        gc__sbuf_puts(b, "#define gc_ld(p) (*(p))\n#define gc_st(p, v) (*(p) = (v))\n");
        return;
    }
    /* Loads are inline PTX so that the cache operator is exactly the one
     * named (the compiler would otherwise pick the read-only path for
     * const restrict pointers on its own). They are not volatile: the
     * compiler may schedule them freely, and the kernels make every address
     * depend on something it cannot fold when the same data is re-read. */
    const char *sfx = vw == 1 ? ".u32" : vw == 2 ? ".v2.u32" : ".v4.u32";
    char regs[64], outs[128];
    size_t n = 0;

    ptx_operands(vw, regs, sizeof(regs), 0);
    outs[0] = '\0';
    for (int c = 0; c < vw; c++)
        n += (size_t)snprintf(outs + n, sizeof(outs) - n, "%s\"=r\"(v%s)", c ? ", " : "",
                              gc__vec_comp(vec_bytes, c));
    gc__sbuf_printf(b,
                    "static __device__ __forceinline__ GC_V gc_ld(const GC_V *p)\n"
                    "{ GC_V v; asm(\"%s%s %s%s%s, [%%%d];\" : %s : \"l\"(p)); return v; }\n",
                    gc__ldpath_ptx(ld), sfx, vw > 1 ? "{" : "", regs, vw > 1 ? "}" : "", vw, outs);
    if (!st_cs) {
        gc__sbuf_puts(b, "#define gc_st(p, v) (*(p) = (v))\n");
        return;
    }
    char ins[128];
    n = 0;
    ins[0] = '\0';
    for (int c = 0; c < vw; c++)
        n += (size_t)snprintf(ins + n, sizeof(ins) - n, ", \"r\"(v%s)", gc__vec_comp(vec_bytes, c));
    ptx_operands(vw, regs, sizeof(regs), 1);
    gc__sbuf_printf(b,
                    "static __device__ __forceinline__ void gc_st(GC_V *p, GC_V v)\n"
                    "{ asm volatile(\"st.global.cs%s [%%0], %s%s%s;\" :: \"l\"(p)%s); }\n",
                    sfx, vw > 1 ? "{" : "", regs, vw > 1 ? "}" : "", ins);
}

/* The read kernel of 32-byte vectors: GC_V is the 16-byte vector, and
 * gc_ld2(p, x, y) loads p[0] and p[1] with two loads back to back (one asm
 * statement on CUDA, so nothing is scheduled between them). */
static void gen_ld2(struct gc_sbuf *b, enum gc_dialect d, enum gc_ldpath ld)
{
    if (d != GC_DIALECT_CUDA) {
        gc__sbuf_puts(b, "#define gc_ld2(p, x, y) (*(x) = (p)[0], *(y) = (p)[1])\n");
        return;
    }
    const char *op = gc__ldpath_ptx(ld);
    gc__sbuf_printf(b,
                    "static __device__ __forceinline__ void gc_ld2(const GC_V *p, GC_V *x, GC_V "
                    "*y)\n"
                    "{ asm(\"%s.v4.u32 {%%0, %%1, %%2, %%3}, [%%8];\\n\\t"
                    "%s.v4.u32 {%%4, %%5, %%6, %%7}, [%%8+16];\" : \"=r\"(x->x), \"=r\"(x->y), "
                    "\"=r\"(x->z), \"=r\"(x->w), \"=r\"(y->x), \"=r\"(y->y), \"=r\"(y->z), "
                    "\"=r\"(y->w) : \"l\"(p)); }\n",
                    op, op);
}

/* The kernel's signature: the buffers the operation streams, in argument
 * order, and the write's seed or the triad's scalar. */
static void stream_signature(struct gc_sbuf *b, enum gc_stream_op op)
{
    switch (op) {
    case GC_STREAM_READ:
        gc__sbuf_puts(b, "GC_KERNEL void gc_stream(GC_GLOBAL const GC_V *GC_RESTRICT src, "
                         "GC_GLOBAL GC_U32 *GC_RESTRICT out GC_TS_PARAM)\n{\n");
        break;
    case GC_STREAM_WRITE:
        gc__sbuf_puts(b, "GC_KERNEL void gc_stream(GC_GLOBAL GC_V *GC_RESTRICT dst, GC_U32 seed "
                         "GC_TS_PARAM)\n{\n");
        break;
    case GC_STREAM_COPY:
        gc__sbuf_puts(b, "GC_KERNEL void gc_stream(GC_GLOBAL const GC_V *GC_RESTRICT src, "
                         "GC_GLOBAL GC_V *GC_RESTRICT dst GC_TS_PARAM)\n{\n");
        break;
    default:
        gc__sbuf_puts(b, "GC_KERNEL void gc_stream(GC_GLOBAL const GC_V *GC_RESTRICT pb, "
                         "GC_GLOBAL const GC_V *GC_RESTRICT pc, GC_GLOBAL GC_V *GC_RESTRICT pa, "
                         "GC_U32 s GC_TS_PARAM)\n{\n");
        break;
    }
}

/* The read's loop body: unroll vector loads (a 32-byte vector as a pair of
 * 16-byte ones), each word summed into its accumulator. */
static void stream_read_body(struct gc_sbuf *b, const struct gc_stream_cfg *c, bool pair)
{
    int vw = c->vec_bytes / 4, B = c->block, U = c->unroll;

    if (pair) {
        for (int u = 0; u < U; u++)
            gc__sbuf_printf(b,
                            "        GC_V v%d_0, v%d_1;\n"
                            "        gc_ld2(src + 2u * (i + %du), &v%d_0, &v%d_1);\n",
                            u, u, u * B, u, u);
        for (int u = 0; u < U; u++)
            for (int w = 0; w < vw; w++)
                gc__sbuf_printf(b, "        a%d += v%d_%d%s;\n", w, u, w / 4, gc__vec_comp(16, w));
        return;
    }
    for (int u = 0; u < U; u++)
        gc__sbuf_printf(b, "        GC_V v%d = gc_ld(src + i + %du);\n", u, u * B);
    for (int u = 0; u < U; u++)
        for (int w = 0; w < vw; w++)
            gc__sbuf_printf(b, "        a%d += v%d%s;\n", w, u, gc__vec_comp(c->vec_bytes, w));
}

char *gc__gen_stream(enum gc_dialect d, unsigned flags, const struct gc_stream_cfg *c)
{
    struct gc_sbuf b;
    int vw = c->vec_bytes / 4, B = c->block, U = c->unroll;
    unsigned tv = (unsigned)(B * U);
    /* Read only: a 32-byte vector is a pair of 16-byte ones. */
    bool pair = c->op == GC_STREAM_READ && c->vec_bytes == 32;

    gc__sbuf_init(&b);
    gc__sbuf_printf(&b, "#define GC_TS_STRIDE %u\n", c->ts_stride ? c->ts_stride : 1);
    gc__kgen_prelude(&b, d, flags);
    gc__gen_ldst(&b, d, pair ? 16 : c->vec_bytes, c->ld, c->st_cs);
    if (pair)
        gen_ld2(&b, d, c->ld);
    stream_signature(&b, c->op);
    gc__sbuf_puts(&b, "    GC_TS_BEGIN\n");
    if (c->op == GC_STREAM_READ)
        for (int w = 0; w < vw; w++)
            gc__sbuf_printf(&b, "    GC_U32 a%d = 0;\n", w);
    /* The trip count depends on the block index, but both the bound and
     * the tile size are literals, and the loop is kept rolled so that its
     * body holds exactly unroll loads and/or stores per buffer. */
    gc__sbuf_printf(&b,
                    "    #pragma unroll 1\n"
                    "    for (GC_U32 t = GC_BID; t < %uu; t += GC_NBLK) {\n"
                    "        GC_U32 i = t * %uu + GC_TID;\n",
                    c->tiles, tv);
    switch (c->op) {
    case GC_STREAM_READ:
        stream_read_body(&b, c, pair);
        break;
    case GC_STREAM_WRITE:
        /* Word j of vector i holds ((i * vw + j) * K) ^ seed. */
        for (int u = 0; u < U; u++) {
            gc__sbuf_printf(&b, "        GC_U32 h%d = (i + %du) * %uu;\n        GC_V v%d;\n", u,
                            u * B, (unsigned)vw * 0x9E3779B1u, u);
            for (int w = 0; w < vw; w++)
                gc__sbuf_printf(&b, "        v%d%s = (h%d + %uu) ^ seed;\n", u,
                                gc__vec_comp(c->vec_bytes, w), u, (unsigned)w * 0x9E3779B1u);
        }
        for (int u = 0; u < U; u++)
            gc__sbuf_printf(&b, "        gc_st(dst + i + %du, v%d);\n", u * B, u);
        break;
    case GC_STREAM_COPY:
        for (int u = 0; u < U; u++)
            gc__sbuf_printf(&b, "        GC_V v%d = gc_ld(src + i + %du);\n", u, u * B);
        for (int u = 0; u < U; u++)
            gc__sbuf_printf(&b, "        gc_st(dst + i + %du, v%d);\n", u * B, u);
        break;
    default:
        for (int u = 0; u < U; u++)
            gc__sbuf_printf(&b,
                            "        GC_V b%d = gc_ld(pb + i + %du);\n"
                            "        GC_V c%d = gc_ld(pc + i + %du);\n",
                            u, u * B, u, u * B);
        for (int u = 0; u < U; u++) {
            gc__sbuf_printf(&b, "        GC_V r%d;\n", u);
            for (int w = 0; w < vw; w++) {
                const char *x = gc__vec_comp(c->vec_bytes, w);
                gc__sbuf_printf(&b, "        r%d%s = b%d%s + s * c%d%s;\n", u, x, u, x, u, x);
            }
            gc__sbuf_printf(&b, "        gc_st(pa + i + %du, r%d);\n", u * B, u);
        }
        break;
    }
    gc__sbuf_puts(&b, "    }\n");
    if (c->op == GC_STREAM_READ) {
        gc__sbuf_puts(&b, "    out[GC_GID] = a0");
        for (int w = 1; w < vw; w++)
            gc__sbuf_printf(&b, " + a%d", w);
        gc__sbuf_puts(&b, ";\n");
    }
    gc__sbuf_puts(&b, "    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}
