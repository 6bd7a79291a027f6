/* The pointer chase's kernels and the chain they walk: one dependent step
 * per memory path, the chase, the chain installer, the near/far L2 and the
 * every-SM chase; the chain's random cycles over the footprint's elements,
 * their walk on the host, their installation in the device buffer, and the
 * verifier that checks where a chase ended against the walk. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"
#include "core/memo.h"
#include "util/parallel.h"
#include "util/random.h"

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
                        "GC_KERNEL void gc_chase(%sGC_U32 start, GC_U32 warm, %s"
                        "GC_GLOBAL GC_U64 *out%s)\n{\n",
                        src, ptx ? "" : "GC_U32 trips, ",
                        p == PATH_SHARED ? " GC_DYN_SHARED_PARAM(GC_U32, sm)" : "");
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
                        ptx ? "GC_GLOBAL const GC_U32 *ord, GC_U32 nord, " : "GC_U32 trips, ");
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
        gc__sbuf_puts(&b, "    for (GC_U32 i = 0; i < trips; i++) {\n");
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

/* ---- The chain --------------------------------------------------------- */

/* Element counts from which the chain's host arrays are made in parallel
 * (one thread each below). */
#define CHAIN_PAR_MIN ((size_t)1 << 16)

/* A random cycle over the m elements base .. base + m - 1, into next (m
 * words, indexed from base) and order (m words: the walk's order from
 * element base). The cycle is base followed by a Fisher-Yates shuffle of
 * the others: every cycle is equally likely, as with Sattolo's algorithm. */
static void cycle_into(uint32_t *next, uint32_t *order, size_t m, uint64_t seed, uint32_t base)
{
    uint64_t st = seed ? seed : 1;

    for (size_t i = 0; i < m; i++)
        order[i] = base + (uint32_t)i;
    for (size_t i = m; i-- > 2;) {
        size_t j = 1 + (size_t)(gc__xorshift64s(&st) % i); /* 1 <= j <= i */
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t k = 0; k < m; k++)
        next[order[k] - base] = order[k + 1 < m ? k + 1 : 0];
}

/* A random cycle over m elements, as 2 m words: next[e] (the element after
 * e; following next from any element visits all m before returning) and
 * after it the walk's order from element 0 (order[k] the k-th element), so
 * that the ordered touch and the expected end of a walk from element 0 need
 * no walk of the chain on the host. */
static uint32_t *random_cycle(size_t m, uint64_t seed)
{
    uint32_t *a = malloc((m ? 2 * m : 1) * sizeof(*a));

    if (a)
        cycle_into(a, a + m, m, seed, 0);
    return a;
}

/* The slices of cycle_slices, made in parallel: slice k is its own cycle,
 * from its own seed, into its own words. */
struct slices_job {
    uint32_t *a;
    size_t m, n;
    uint64_t seed;
};

static void slices_range(void *ctx, size_t lo, size_t hi)
{
    const struct slices_job *j = ctx;

    for (size_t k = lo; k < hi; k++)
        cycle_into(j->a + k * j->m, j->a + j->n + k * j->m, j->m,
                   j->seed + (uint64_t)k * 0x9E3779B97F4A7C15ULL, (uint32_t)(k * j->m));
}

/* slices disjoint random cycles of m elements each: slice k covers elements
 * k m .. (k + 1) m - 1 and next never leaves its slice. The n = slices m
 * words after next are the slices' orders: at n + k m, slice k's walk from
 * its first element k m. */
static uint32_t *cycle_slices(size_t m, int slices, uint64_t seed)
{
    size_t n = m * (size_t)slices;
    uint32_t *a = malloc((n > 0 ? 2 * n : 1) * sizeof(*a));
    struct slices_job j = {a, m, n, seed};

    if (a)
        gc__parallel_for((size_t)slices, m ? CHAIN_PAR_MIN / m + 1 : 1, slices_range, &j);
    return a;
}

uint32_t gc__chase_walk_from(const uint32_t *next, uint32_t start, size_t m, uint64_t steps)
{
    uint32_t e = start;

    steps %= m;
    for (uint64_t i = 0; i < steps; i++)
        e = next[e];
    return e;
}

uint32_t gc__chase_end(const uint32_t *next, size_t n, size_t first, size_t m, uint64_t steps)
{
    return next[n + first + steps % m];
}

uint32_t gc__chase_walk(const uint32_t *next, size_t m, uint64_t steps)
{
    return gc__chase_end(next, m, 0, m, steps);
}

size_t gc__chase_slot_of(const struct plan *pl, size_t e)
{
    if (pl->paged) {
        size_t lines = pl->spacing / pl->line;
        size_t off = (size_t)((e * 2654435761ULL) % lines) * pl->line;
        return (e * pl->spacing + off) / pl->esize;
    }
    return e * pl->spacing / pl->esize;
}

/* The install kernel's pairs (element e's slot, then its successor's slot,
 * times 8 where the chase carries byte offsets), or the ordered touch's
 * slots of the walk's order; element by element, in parallel. */
struct slots_job {
    const struct plan *pl;
    const uint32_t *nx;
    uint64_t *pairs;
    uint32_t *ord;
    uint64_t scale;
};

static void pairs_range(void *ctx, size_t lo, size_t hi)
{
    const struct slots_job *j = ctx;

    for (size_t e = lo; e < hi; e++) {
        j->pairs[2 * e] = gc__chase_slot_of(j->pl, e);
        j->pairs[2 * e + 1] = gc__chase_slot_of(j->pl, j->nx[e]) * j->scale;
    }
}

static void order_range(void *ctx, size_t lo, size_t hi)
{
    const struct slots_job *j = ctx;

    for (size_t k = lo; k < hi; k++)
        j->ord[k] = (uint32_t)gc__chase_slot_of(j->pl, j->nx[k]);
}

void gc__chase_order_slots(const struct plan *pl, const uint32_t *order, size_t m, uint32_t *ord)
{
    struct slots_job j = {pl, order, NULL, ord, 1};

    gc__parallel_for(m, CHAIN_PAR_MIN, order_range, &j);
}

/* The chain's words: its successor's slot at each element's slot, random
 * words between the elements (never read). */
static uint32_t *chain_words(const struct plan *pl, size_t fp, uint64_t seed, const uint32_t *nx,
                             size_t n)
{
    size_t nw = fp / 4;
    uint32_t *w = malloc(nw * sizeof(*w));

    if (!w)
        return NULL;
    gc__hash_fill(w, 0, nw, seed ^ 0x5EEDULL);
    for (size_t e = 0; e < n; e++)
        w[gc__chase_slot_of(pl, e)] = (uint32_t)gc__chase_slot_of(pl, nx[e]);
    return w;
}

/* The global family's chain into the chase buffer: the pairs uploaded,
 * then the install kernel writes each element's successor at its slot. */
static int install_pairs(struct chase_ctx *c, const uint32_t *nx, size_t n)
{
    struct gc_device *d = c->s->dev;
    /* CUDA global paths chase byte addresses (the install kernel adds the
     * buffer's base); the texture and OpenCL chase indices. */
    bool reloc = c->clocks && c->path != PATH_TEXTURE;
    uint64_t *pairs = malloc((n ? 2 * n : 1) * sizeof(*pairs));
    struct slots_job j = {&c->pl, nx, pairs, NULL, reloc ? 8 : 1};
    int rc;

    if (!pairs)
        return GC_ENOMEM;
    gc__parallel_for(n, CHAIN_PAR_MIN, pairs_range, &j);
    rc = gc__dev_write(d, c->pairs, 0, pairs, 2 * n * sizeof(*pairs));
    free(pairs);
    if (rc)
        return rc;
    struct gc_arg a[4] = {
        {.type = GC_ARG_BUF, .v.buf = c->buf},
        {.type = GC_ARG_BUF, .v.buf = c->pairs},
        {.type = GC_ARG_U32, .v.u32 = (uint32_t)n},
        {.type = GC_ARG_U32, .v.u32 = reloc},
    };
    struct gc_launch l = {{(unsigned)((n + 255) / 256), 1, 1}, {256, 1, 1}, 0, a, 4, 1};
    double el;
    return gc__dev_launch(d, c->install, &l, &el);
}

/* The one-SM chases of the cycle path (global, L2, read-only, texture)
 * sweep the same footprints with the same point seeds, so their cycles are
 * made once per run and copied for the others (core/memo.h); elsewhere no
 * other path asks for them again. */
static uint32_t *one_cycle(struct chase_ctx *c, size_t n, uint64_t seed)
{
    size_t bytes = 2 * n * sizeof(uint32_t), got = 0;
    uint32_t *a = c->clocks ? gc__memo_copy(c->s, "chase_cycle", n, seed, &got) : NULL;

    if (a && got == bytes)
        return a;
    free(a);
    a = random_cycle(n, seed);
    if (a && c->clocks)
        gc__memo_put(c->s, "chase_cycle", n, seed, a, bytes);
    return a;
}

int gc__chase_install_chain(struct chase_ctx *c, size_t fp, int slices, uint64_t seed,
                            uint32_t **next, size_t *m)
{
    const struct plan *pl = &c->pl;
    size_t per = fp / pl->spacing / (size_t)slices, n = per * (size_t)slices;
    uint32_t *nx = slices > 1 ? cycle_slices(per, slices, seed) : one_cycle(c, n, seed);
    int rc = 0;

    *next = NULL;
    *m = n;
    if (!nx)
        return GC_ENOMEM;
    if (gc__chase_words_path(c->path)) {
        /* Dense words; the cycle-path constant chase has the chain in its
         * kernel's source instead. */
        uint32_t *w = chain_words(pl, fp, seed, nx, n);
        if (!w)
            rc = GC_ENOMEM;
        else if (c->words)
            rc = gc__dev_write(c->s->dev, c->words, 0, w, fp / 4 * sizeof(*w));
        free(w);
    } else {
        rc = install_pairs(c, nx, n);
    }
    if (rc)
        free(nx);
    else
        *next = nx;
    return rc;
}

uint32_t *gc__chase_chain_words(const struct plan *pl, size_t fp, uint64_t seed, uint32_t **next,
                                size_t *m)
{
    size_t n = fp / pl->spacing;
    uint32_t *w;

    *m = n;
    *next = random_cycle(n, seed);
    w = *next ? chain_words(pl, fp, seed, *next, n) : NULL;
    if (!w) {
        free(*next);
        *next = NULL;
    }
    return w;
}

uint64_t gc__chase_point_seed(const struct gc_session *s, int i)
{
    return s->seed ^ (0xC4A5E000ULL + (uint64_t)i * 0x9E3779B97F4A7C15ULL);
}

int gc__chase_verify_end(struct chase_ctx *c, uint64_t got, uint64_t want, size_t fp)
{
    if (got == want)
        return 0;
    gc__bench_set_error(c->r, GC_BENCH_ERROR,
                        "verification failed (%s, %zu-byte footprint): the chase ended at "
                        "element index %llu, the cycle says %llu",
                        gc__chase_path_name(c->path), fp, (unsigned long long)got,
                        (unsigned long long)want);
    return GC_EVERIFY;
}
