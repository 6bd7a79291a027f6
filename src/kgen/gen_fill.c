/* Fill and check kernels in the dialect-neutral vocabulary of kgen.h. */
#include "kgen/gen_fill.h"

/* gc__hash32 of core/random.h: splitmix64's finaliser, high half. */
static const char hash_fn[] = "static GC_FILL_FN GC_U32 gc_hash32(GC_U64 seed, GC_U64 i)\n"
                              "{\n"
                              "    GC_U64 z = seed + (i + 1) * (GC_U64)0x9E3779B97F4A7C15UL;\n"
                              "    z = (z ^ (z >> 30)) * (GC_U64)0xBF58476D1CE4E5B9UL;\n"
                              "    z = (z ^ (z >> 27)) * (GC_U64)0x94D049BB133111EBUL;\n"
                              "    z ^= z >> 31;\n"
                              "    return (GC_U32)(z >> 32);\n"
                              "}\n";

/* The per-thread sum of a stream read kernel (kgen/gen_stream.h) launched
 * with grid blocks of block threads: thread g of block b sums the vw words
 * of vectors t x tile_vecs + p for tiles t = b, b + grid, ... < tiles and
 * positions p = g, g + block, ... < tile_vecs. */
static const char read_sum_fn[] =
    "static GC_FILL_FN GC_U32 gc_read_sum(GC_GLOBAL const GC_U32 *GC_RESTRICT src, GC_U32 "
    "tiles, GC_U32 tile_vecs, GC_U32 vw, GC_U32 grid, GC_U32 block, GC_U32 b, GC_U32 g)\n"
    "{\n"
    "    GC_U32 s = 0;\n"
    "    for (GC_U32 t = b; t < tiles; t += grid)\n"
    "        for (GC_U32 p = g; p < tile_vecs; p += block) {\n"
    "            GC_U64 v = ((GC_U64)t * tile_vecs + p) * vw;\n"
    "            for (GC_U32 w = 0; w < vw; w++)\n"
    "                s += src[v + w];\n"
    "        }\n"
    "    return s;\n"
    "}\n";

/* The loop and the count every check shares; WANT is an expression of i. */
static void check_kernel_at(struct gc_sbuf *b, const char *name, const char *params, const char *at,
                            const char *want)
{
    gc__sbuf_printf(b,
                    "GC_KERNEL void %s(%s, GC_GLOBAL const GC_U32 *GC_RESTRICT got, GC_U64 n, "
                    "GC_GLOBAL GC_U32 *res)\n"
                    "{\n"
                    "    GC_U32 bad = 0, seen = 0;\n"
                    "    for (GC_U64 i = GC_FIRST(n), e = GC_END(n); i < e; i += GC_STEP) {\n"
                    "        bad += got[%s] != (%s) ? 1u : 0u;\n"
                    "        seen++;\n"
                    "    }\n"
                    "    if (bad)\n"
                    "        GC_ATOMIC_ADD_U32(&res[0], bad);\n"
                    "    if (seen)\n"
                    "        GC_ATOMIC_ADD_U32(&res[1], seen);\n"
                    "}\n",
                    name, params, at, want);
}

/* A check of got[i] against want, item i of n. */
static void check_kernel(struct gc_sbuf *b, const char *name, const char *params, const char *want)
{
    check_kernel_at(b, name, params, "i", want);
}

/* Which items of n a thread takes. Strided: item GID, GID + threads, ...
 * (neighbouring threads on neighbouring words: coalesced on a GPU).
 * Contiguous: one run of ceil(n / threads) items per thread (a CPU runs a
 * work-group's items one after the other: a stride of threads words would
 * touch one word per line and page, several times slower than the kernel
 * under test). */
static void item_loop(struct gc_sbuf *b, bool contiguous)
{
    gc__sbuf_puts(b, "#define GC_NTH ((GC_U64)GC_NBLK * GC_BDIM)\n");
    if (contiguous)
        gc__sbuf_puts(b, "#define GC_PER(n) (((n) + GC_NTH - 1) / GC_NTH)\n"
                         "#define GC_FIRST(n) ((GC_U64)GC_GID * GC_PER(n))\n"
                         "#define GC_END(n) (GC_FIRST(n) + GC_PER(n) < (n) ? GC_FIRST(n) + "
                         "GC_PER(n) : (n))\n"
                         "#define GC_STEP 1\n");
    else
        gc__sbuf_puts(b, "#define GC_FIRST(n) ((GC_U64)GC_GID)\n"
                         "#define GC_END(n) (n)\n"
                         "#define GC_STEP GC_NTH\n");
}

char *gc__gen_fill(enum gc_dialect d, bool contiguous)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, 0);
    item_loop(&b, contiguous);
    /* A device function needs a qualifier on CUDA only (the prelude's
     * vocabulary has none for functions). */
    gc__sbuf_printf(&b, "#define GC_FILL_FN %s\n", d == GC_DIALECT_CUDA ? "__device__" : "");
    gc__sbuf_puts(&b, hash_fn);
    gc__sbuf_puts(&b, read_sum_fn);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_fill_hash(GC_GLOBAL GC_U32 *dst, GC_U64 n, GC_U64 seed)\n"
                      "{\n"
                      "    for (GC_U64 i = GC_FIRST(n), e = GC_END(n); i < e; i += GC_STEP)\n"
                      "        dst[i] = gc_hash32(seed, i);\n"
                      "}\n"
                      "GC_KERNEL void gc_fill_word(GC_GLOBAL GC_U32 *dst, GC_U64 n, GC_U32 w)\n"
                      "{\n"
                      "    for (GC_U64 i = GC_FIRST(n), e = GC_END(n); i < e; i += GC_STEP)\n"
                      "        dst[i] = w;\n"
                      "}\n");
    check_kernel(&b, "gc_check_eq", "GC_GLOBAL const GC_U32 *GC_RESTRICT want", "want[i]");
    check_kernel(&b, "gc_check_pattern", "GC_U32 seed", "((GC_U32)i * 0x9E3779B1u) ^ seed");
    /* A copy of gc_fill_hash's words that landed at word skip of got. */
    check_kernel_at(&b, "gc_check_hash", "GC_U64 seed, GC_U64 first, GC_U64 skip", "skip + i",
                    "gc_hash32(seed, first + i)");
    check_kernel(&b, "gc_check_triad",
                 "GC_GLOBAL const GC_U32 *GC_RESTRICT pb, GC_GLOBAL const GC_U32 *GC_RESTRICT "
                 "pc, GC_U32 s",
                 "pb[i] + s * pc[i]");
    /* The read kernel's per-thread sums recomputed and compared, over the
     * threads of its launch (n = grid x block of them): no buffer of
     * reference sums besides the kernel's own output. */
    check_kernel(&b, "gc_check_read",
                 "GC_GLOBAL const GC_U32 *GC_RESTRICT src, GC_U32 tiles, GC_U32 tile_vecs, "
                 "GC_U32 vw, GC_U32 grid, GC_U32 block",
                 "gc_read_sum(src, tiles, tile_vecs, vw, grid, block, (GC_U32)(i / block), "
                 "(GC_U32)(i % block))");
    /* The same sums themselves, for a check that needs them
     * (memory.bandwidth accumulates them per lane and pass). */
    gc__sbuf_puts(&b, "GC_KERNEL void gc_read_ref(GC_GLOBAL const GC_U32 *GC_RESTRICT src, "
                      "GC_GLOBAL GC_U32 *ref, GC_U32 tiles, GC_U32 tile_vecs, GC_U32 vw)\n"
                      "{\n"
                      "    ref[GC_GID] = gc_read_sum(src, tiles, tile_vecs, vw, GC_NBLK, GC_BDIM, "
                      "GC_BID, GC_TID);\n"
                      "}\n");
    /* The copy kernel's sums, from bytes and 64-bit indices (the kernel
     * under test loads typed elements with 32-bit indices). */
    gc__sbuf_puts(
        &b,
        "GC_KERNEL void gc_copyk_ref(GC_GLOBAL const GC_U8 *GC_RESTRICT src, "
        "GC_GLOBAL GC_U32 *ref, GC_U32 elem, GC_U32 reads, GC_U64 stride, "
        "GC_U64 threads, GC_U32 poison)\n"
        "{\n"
        "    for (GC_U64 id = GC_FIRST(threads), e = GC_END(threads); id < e; id += GC_STEP) {\n"
        "        GC_U32 s = 0;\n"
        "        for (GC_U32 r = 0; r < reads; r++) {\n"
        "            GC_U64 o = (id + (GC_U64)r * stride) * elem;\n"
        "            if (elem == 1)\n"
        "                s += src[o];\n"
        "            else if (elem == 2)\n"
        "                s += (GC_U32)src[o] | (GC_U32)src[o + 1] << 8;\n"
        "            else\n"
        "                for (GC_U32 w = 0; w < elem; w += 4)\n"
        "                    s += (GC_U32)src[o + w] | (GC_U32)src[o + w + 1] << 8 |\n"
        "                         (GC_U32)src[o + w + 2] << 16 | "
        "(GC_U32)src[o + w + 3] << 24;\n"
        "        }\n"
        "        ref[id] = s ? s : poison;\n"
        "    }\n"
        "}\n");
    return gc__sbuf_take(&b);
}
