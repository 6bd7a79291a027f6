/* The pointer chase's kernels: one dependent step per memory path, the
 * chase, the chain installer, the near/far L2 and the every-SM chase. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"

/* ---- Paths and their kernels ------------------------------------------- */

bool gc__chase_words_path(enum chase_path p)
{
    return p == PATH_CONSTANT || p == PATH_SHARED || p == PATH_PRIVATE;
}

const char *gc__chase_path_name(enum chase_path p)
{
    switch (p) {
    case PATH_GLOBAL:
        return "global";
    case PATH_L2:
        return "l2";
    case PATH_READONLY:
        return "readonly";
    case PATH_TEXTURE:
        return "texture";
    case PATH_CONSTANT:
        return "constant";
    case PATH_SHARED:
        return "shared";
    case PATH_PRIVATE:
        return "private";
    case PATH_TLB:
        return "tlb";
    default:
        return "l2_partition";
    }
}

const char *gc__chase_path_sass(enum chase_path p)
{
    switch (p) {
    case PATH_GLOBAL:
        return "LDG.E.64";
    case PATH_L2:
    case PATH_TLB:
    case PATH_L2_PARTITION:
        return "LDG.E.64.STRONG.GPU";
    case PATH_READONLY:
        return "LDG.E.64.CONSTANT";
    case PATH_TEXTURE:
        return "TLD";
    case PATH_CONSTANT:
        /* The chase index is warp-uniform, so ptxas loads through the
         * uniform datapath: ULDC, from the same constant caches as LDC. */
        return "ULDC";
    case PATH_SHARED:
        return "LDS";
    default:
        return "LDL";
    }
}

/* The cycle path's loads: one inline-PTX load per global path, so the
 * instruction and its cache operator are exactly the ones named (the clock
 * and timer reads come from the prelude, GC_KGEN_CLOCKS). */
static void ptx_helpers(struct gc_sbuf *b, enum chase_path p)
{
    const char *op = p == PATH_GLOBAL     ? "ld.global.u64"
                     : p == PATH_READONLY ? "ld.global.nc.u64"
                                          : "ld.global.cg.u64";

    if (p == PATH_TEXTURE)
        gc__sbuf_puts(b, "GC_DEVFN GC_U64 gc_ld(GC_U64 tex, GC_U64 j)\n"
                         "{ GC_U32 x, y, z, w; asm volatile(\"tex.1d.v4.u32.s32 {%0, %1, %2, %3}, "
                         "[%4, {%5}];\" : \"=r\"(x), \"=r\"(y), \"=r\"(z), \"=r\"(w) : \"l\"(tex), "
                         "\"r\"((int)j)); (void)y; (void)z; (void)w; return x; }\n");
    else if (!gc__chase_words_path(p))
        gc__sbuf_printf(b,
                        "GC_DEVFN GC_U64 gc_ld(GC_U64 p)\n"
                        "{ GC_U64 v; asm volatile(\"%s %%0, [%%1];\" : \"=l\"(v) : \"l\"(p)); "
                        "return v; }\n",
                        op);
    if (!gc__chase_words_path(p))
        gc__sbuf_puts(b, "GC_DEVFN GC_U32 gc_ldcs(GC_U64 p)\n"
                         "{ GC_U32 v; asm volatile(\"ld.global.cs.u32 %0, [%1];\" : \"=r\"(v) : "
                         "\"l\"(p)); return v; }\n");
}

/* The cycle path's ordered touch (the warm pass of large footprints): the
 * block's threads load the chain's elements in chain order, ord[k] being the
 * slot of the k-th element from the start, one wave of 2 x GC_BDIM
 * consecutive elements at a time, through the path's own load. The order of
 * last use then matches a sequential walk but for the order inside a wave
 * (2 x CHASE_TOUCH_THREADS lines, against footprints of at least
 * CHASE_TOUCH_MIN elements), and every element's next use by the timed walk
 * from the start has a reuse distance of the footprint, as after a warm pass
 * of one thread, in a few thousandths of its time. The order is read with
 * evict-first loads, and every touched value is used before the barrier so
 * that no load is still in flight when the timed walk starts. */
static void touch_pass(struct gc_sbuf *b, enum chase_path p, bool addr)
{
    /* The texture chases element indices, the other paths addresses. */
    const char *ld = addr ? "gc_ld((GC_U64)buf + (GC_U64)gc_ldcs((GC_U64)(ord + i + %s)) * 8)"
                          : "gc_ld(tex, gc_ldcs((GC_U64)(ord + i + %s)))";

    gc__sbuf_puts(b, "    if (nord) {\n"
                     "        GC_U64 acc = 0;\n"
                     "#pragma unroll 1\n"
                     "        for (GC_U32 i0 = 0; i0 < nord; i0 += 2u * GC_BDIM) {\n"
                     "            GC_U32 i = i0 + GC_TID;\n"
                     "            GC_U64 v0 = 0, v1 = 0;\n"
                     "            if (i < nord)\n                v0 = ");
    gc__sbuf_printf(b, ld, "0");
    gc__sbuf_puts(b, ";\n            if (i + GC_BDIM < nord)\n                v1 = ");
    gc__sbuf_printf(b, ld, "GC_BDIM");
    gc__sbuf_puts(b, ";\n"
                     "            acc ^= v0 ^ v1;\n"
                     "        }\n"
                     "        if (acc == 1)\n            out[1] = acc;\n"
                     "        GC_BARRIER();\n"
                     "    }\n");
}

/* One dependent step of the chase, in the path's own spelling. */
static const char *chase_step(enum chase_path p, bool ptx)
{
    if (ptx) {
        switch (p) {
        case PATH_TEXTURE:
            return "j = gc_ld(tex, j);";
        case PATH_CONSTANT:
            return "j = gc_cchain[j];";
        case PATH_SHARED:
            return "j = sm[j];";
        case PATH_PRIVATE:
            return "j = a[j];";
        default:
            return "j = gc_ld(j);";
        }
    }
    switch (p) {
    case PATH_CONSTANT:
        return "j = c[j];";
    case PATH_SHARED:
        return "j = sm[j];";
    case PATH_PRIVATE:
        return "j = a[j];";
    default:
        return "j = buf[j];";
    }
}

char *gc__chase_gen(const struct kspec *k)
{
    struct gc_sbuf b;
    bool ptx = k->clocks;
    enum chase_path p = k->path;
    const char *st = chase_step(p, k->clocks);
    /* Global paths with PTX loads chase absolute addresses (no index
     * arithmetic on the dependent path); everything else chases indices. */
    bool addr = ptx && !gc__chase_words_path(p) && p != PATH_TEXTURE;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, k->d, ptx ? GC_KGEN_CLOCKS : 0);
    if (ptx)
        ptx_helpers(&b, p);
    if (ptx && p == PATH_CONSTANT) {
        gc__sbuf_printf(&b, "GC_CONSTANT_ARRAY GC_U32 gc_cchain[%zu] = {", k->ncwords);
        for (size_t i = 0; i < k->ncwords; i++)
            gc__sbuf_printf(&b, "%s%uu",
                            i == 0  ? "\n    "
                            : i % 8 ? ", "
                                    : ",\n    ",
                            k->cwords[i]);
        gc__sbuf_puts(&b, "\n};\n");
    }
    /* Parameters. */
    if (gc__chase_words_path(p)) {
        const char *src = p == PATH_CONSTANT ? (ptx ? "" : "GC_CONSTANT GC_U32 *c, ")
                                             : "GC_GLOBAL const GC_U32 *src, GC_U32 nwords, ";
        gc__sbuf_printf(&b,
                        "GC_KERNEL void gc_chase(%sGC_U32 start, GC_U32 warm, "
                        "GC_GLOBAL GC_U64 *out%s)\n{\n",
                        src, p == PATH_SHARED ? " GC_DYN_SHARED_PARAM(GC_U32, sm)" : "");
        if (p == PATH_SHARED)
            gc__sbuf_puts(&b, "    GC_DYN_SHARED_DECL(GC_U32, sm)\n"
                              "    for (GC_U32 i = GC_TID; i < nwords; i += GC_BDIM)\n"
                              "        sm[i] = src[i];\n"
                              "    GC_BARRIER();\n");
        gc__sbuf_puts(&b, "    if (GC_TID != 0)\n        return;\n");
        if (p == PATH_PRIVATE)
            gc__sbuf_printf(&b,
                            "    GC_U32 a[%d];\n"
                            "    for (GC_U32 i = 0; i < nwords; i++)\n"
                            "        a[i] = src[i];\n",
                            CHASE_PRIVATE_BYTES / 4);
        gc__sbuf_puts(&b, "    GC_U32 j = start;\n");
    } else {
        gc__sbuf_printf(&b,
                        "GC_KERNEL void gc_chase(GC_GLOBAL %sGC_U64 *buf, %sGC_U64 start, "
                        "GC_U32 warm, %sGC_GLOBAL GC_U64 *out)\n{\n",
                        ptx ? "" : "const ", p == PATH_TEXTURE ? "GC_U64 tex, " : "",
                        ptx ? "GC_GLOBAL const GC_U32 *ord, GC_U32 nord, " : "");
        if (ptx)
            touch_pass(&b, p, addr);
        gc__sbuf_puts(&b, "    if (GC_TID != 0)\n        return;\n");
        if (addr)
            gc__sbuf_puts(&b, "    GC_U64 j = (GC_U64)buf + start * 8;\n");
        else
            gc__sbuf_puts(&b, "    GC_U64 j = start;\n");
    }
    gc__sbuf_printf(&b,
                    "    /* Warm pass: one whole cycle. */\n"
                    "#pragma unroll 1\n"
                    "    for (GC_U32 i = 0; i < warm; i++) {\n        %s\n    }\n",
                    st);
    if (ptx) {
        gc__sbuf_printf(&b,
                        "    GC_U64 t0 = GC_GLOBALTIMER();\n"
                        "    out[2] = GC_CLOCK64();\n"
                        "#pragma unroll 1\n"
                        "    for (int s = 0; s < %d; s++) {\n"
                        "#pragma unroll 1\n"
                        "        for (int i = 0; i < %d; i++) {\n",
                        k->nseg, k->loads / CHASE_UNROLL);
        for (int u = 0; u < CHASE_UNROLL; u++)
            gc__sbuf_printf(&b, "            %s\n", st);
        gc__sbuf_puts(&b, "        }\n"
                          "        out[3 + s] = GC_CLOCK64();\n"
                          "    }\n"
                          "    out[1] = GC_GLOBALTIMER() - t0;\n");
    } else {
        gc__sbuf_printf(&b, "    for (int i = 0; i < %d; i++) {\n", k->loads / CHASE_UNROLL);
        for (int u = 0; u < CHASE_UNROLL; u++)
            gc__sbuf_printf(&b, "        %s\n", st);
        gc__sbuf_puts(&b, "    }\n");
    }
    if (addr)
        gc__sbuf_puts(&b, "    out[0] = (j - (GC_U64)buf) / 8;\n}\n");
    else
        gc__sbuf_puts(&b, "    out[0] = j;\n}\n");
    return gc__sbuf_take(&b);
}

char *gc__chase_gen_install(enum gc_dialect d)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, 0);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_install(GC_GLOBAL GC_U64 *buf, GC_GLOBAL const GC_U64 "
                      "*pairs, GC_U32 n, GC_U32 reloc)\n{\n"
                      "    GC_U32 i = GC_GID;\n"
                      "    if (i < n)\n"
                      "        buf[pairs[2 * i]] = pairs[2 * i + 1] + (reloc ? (GC_U64)buf : 0);\n"
                      "}\n");
    return gc__sbuf_take(&b);
}

char *gc__chase_gen_l2part(enum gc_dialect d, int loads)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, GC_KGEN_CLOCKS);
    ptx_helpers(&b, PATH_L2_PARTITION);
    gc__sbuf_printf(&b,
                    "GC_KERNEL void gc_l2part(GC_GLOBAL GC_U64 *buf, GC_U64 start, GC_U32 warm, "
                    "GC_U32 target, GC_U32 timed, GC_GLOBAL GC_U64 *out "
                    "GC_DYN_SHARED_PARAM(GC_U64, gc_dyn))\n{\n"
                    "    GC_DYN_SHARED_DECL(GC_U64, gc_dyn)\n"
                    "    if (GC_TID != 0 || GC_SMID() != target)\n        return;\n"
                    "    GC_ATOMIC_ADD_U64(&out[2], (GC_U64)1);\n"
                    "    GC_U64 j = (GC_U64)buf + start * 8;\n"
                    "    if (!timed) {\n"
                    "#pragma unroll 1\n"
                    "        for (GC_U32 i = 0; i < warm; i++)\n"
                    "            j = gc_ld(j);\n"
                    "        out[0] = (j - (GC_U64)buf) / 8;\n"
                    "        return;\n"
                    "    }\n"
                    "    GC_U64 c0 = GC_CLOCK64();\n"
                    "#pragma unroll 1\n"
                    "    for (int i = 0; i < %d; i++) {\n",
                    loads / CHASE_UNROLL);
    for (int u = 0; u < CHASE_UNROLL; u++)
        gc__sbuf_puts(&b, "        j = gc_ld(j);\n");
    gc__sbuf_puts(&b, "    }\n"
                      "    out[1] = GC_CLOCK64() - c0;\n"
                      "    out[0] = (j - (GC_U64)buf) / 8;\n"
                      "}\n");
    return gc__sbuf_take(&b);
}

char *gc__chase_gen_all(enum gc_dialect d, int loads, int nseg, size_t spacing)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, GC_KGEN_CLOCKS);
    ptx_helpers(&b, PATH_L2);
    gc__sbuf_printf(&b,
                    "GC_KERNEL void gc_chase_all(GC_GLOBAL GC_U64 *buf, GC_U32 ms, "
                    "GC_GLOBAL GC_U64 *out GC_DYN_SHARED_PARAM(GC_U64, gc_dyn))\n{\n"
                    "    GC_DYN_SHARED_DECL(GC_U64, gc_dyn)\n"
                    "    if (GC_TID != 0)\n        return;\n"
                    "    GC_GLOBAL GC_U64 *o = out + (GC_U64)GC_BID * %du;\n"
                    "    GC_U64 j = (GC_U64)buf + (GC_U64)GC_BID * ms * %zuu;\n"
                    "    /* Warm pass: the whole slice. */\n"
                    "#pragma unroll 1\n"
                    "    for (GC_U32 i = 0; i < ms; i++)\n"
                    "        j = gc_ld(j);\n"
                    "    o[1] = GC_SMID();\n"
                    "    GC_U64 t0 = GC_GLOBALTIMER();\n"
                    "    o[4] = GC_CLOCK64();\n"
                    "#pragma unroll 1\n"
                    "    for (int s = 0; s < %d; s++) {\n"
                    "#pragma unroll 1\n"
                    "        for (int i = 0; i < %d; i++) {\n",
                    ALL_REC_HEAD + nseg, spacing, nseg, loads / CHASE_UNROLL);
    for (int u = 0; u < CHASE_UNROLL; u++)
        gc__sbuf_puts(&b, "            j = gc_ld(j);\n");
    gc__sbuf_printf(&b,
                    "        }\n"
                    "        o[%d + s] = GC_CLOCK64();\n"
                    "    }\n"
                    "    o[3] = GC_GLOBALTIMER();\n"
                    "    o[2] = t0;\n"
                    "    o[0] = (j - (GC_U64)buf) / 8;\n"
                    "}\n",
                    ALL_REC_HEAD);
    return gc__sbuf_take(&b);
}
