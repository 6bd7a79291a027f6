/* memory.shared's kernels (shmembench's swap, independent loads, Volkov's
 * dependent chain) and, next to each, what the host expects it to leave. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/shmem/shmem.h"
#include "kgen/kgen.h"

/* The swaps of one shmembench iteration: three disjoint pairs, a fence, two
 * more pairs, a fence. Each swap is two loads and two stores. */
static const int swaps[5][2] = {{0, 1}, {2, 3}, {4, 5}, {1, 2}, {3, 4}};

/* Initial value of component c of row r of global thread g (host and kernel
 * compute the same). */
static uint32_t init_val(uint32_t g, uint32_t r, uint32_t c, uint32_t seed)
{
    return ((g * 8u + r) * 4u + c) * 2654435761u ^ seed;
}

/* The index of row r of the calling thread: a literal offset, or (opaque)
 * r times a row stride the compiler cannot know. */
static void row_index(char *buf, size_t len, int r, bool opaque)
{
    if (opaque)
        snprintf(buf, len, "tid + %du * rs", r);
    else
        snprintf(buf, len, "tid + %du", r * SH_BLOCK);
}

/* The swap kernel. OPAQUE (CPU devices): the rows lie a run-time stride
 * apart (SH_BLOCK, read through a volatile), because with literal offsets
 * LLVM proves the six rows of a work-item distinct and private (a local
 * fence orders nothing within one work-item), keeps them in registers and
 * folds the 64 iterations of swaps into one fixed permutation: PoCL ran no
 * swap at all and the "bandwidth" was hundreds of bytes per clock per
 * core. With rows that may alias, every load and store must stay. */
char *gc__shmem_gen_swap(enum gc_dialect d, unsigned flags, int bytes, int iters, bool opaque)
{
    struct gc_sbuf b;
    const char *t = gc__kgen_elem_type(bytes);
    static const char comp[] = "xyzw";
    int ncomp = bytes / 4;
    char ix[32], iy[32];

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, flags);
    gc__sbuf_printf(&b,
                    "GC_KERNEL void gc_shswap(GC_GLOBAL %s *out, GC_U32 seed GC_TS_PARAM "
                    "GC_DYN_SHARED_PARAM(%s, sm))\n{\n"
                    "    GC_DYN_SHARED_DECL(%s, sm)\n"
                    "    GC_TS_BEGIN\n"
                    "    GC_U32 tid = GC_TID, g = GC_GID;\n",
                    t, t, t);
    if (opaque)
        gc__sbuf_printf(&b, "    volatile GC_U32 gc_rs = %du;\n    const GC_U32 rs = gc_rs;\n",
                        SH_BLOCK);
    for (int r = 0; r < SH_ROWS; r++)
        for (int c = 0; c < ncomp; c++) {
            char lhs[48];
            row_index(ix, sizeof(ix), r, opaque);
            if (ncomp == 1)
                snprintf(lhs, sizeof(lhs), "sm[%s]", ix);
            else
                snprintf(lhs, sizeof(lhs), "sm[%s].%c", ix, comp[c]);
            gc__sbuf_printf(&b, "    %s = ((g * 8u + %du) * 4u + %du) * 2654435761u ^ seed;\n", lhs,
                            r, c);
        }
    gc__sbuf_printf(&b, "    GC_FENCE_BLOCK();\n    for (int i = 0; i < %d; i++) {\n",
                    iters / SH_UNROLL);
    for (int u = 0; u < SH_UNROLL; u++)
        for (int w = 0; w < 5; w++) {
            row_index(ix, sizeof(ix), swaps[w][0], opaque);
            row_index(iy, sizeof(iy), swaps[w][1], opaque);
            gc__sbuf_printf(&b,
                            "        { %s t = sm[%s]; sm[%s] = sm[%s]; "
                            "sm[%s] = t; }\n",
                            t, iy, iy, ix, ix);
            if (w == 2 || w == 4)
                gc__sbuf_puts(&b, "        GC_FENCE_BLOCK();\n");
        }
    gc__sbuf_puts(&b, "    }\n");
    for (int r = 0; r < SH_ROWS; r++) {
        row_index(ix, sizeof(ix), r, opaque);
        gc__sbuf_printf(&b, "    out[g * %du + %du] = sm[%s];\n", SH_ROWS, r, ix);
    }
    gc__sbuf_puts(&b, "    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

/* Shared-memory load throughput: independent, conflict-free loads of `bytes`
 * (LDS.32/64/128 on CUDA), SH_LD_BYTES / (SH_BLOCK x bytes) per thread per
 * trip at literal offsets from one address per trip, all in flight before any
 * is used. The address of trip i is tid ^ ((i mod SH_LD_PERIOD) << 5): whole
 * warps swap places, so a warp reads 32 consecutive elements (a 4-byte warp
 * load is one wavefront over the 32 banks, a 16-byte one four) and the loads
 * cannot be hoisted out of the loop. The words are added into one sum per
 * thread, which the host checks. */
char *gc__shmem_gen_load(enum gc_dialect d, unsigned flags, int bytes, int iters)
{
    struct gc_sbuf b;
    static const char *const xyzw[] = {".x", ".y", ".z", ".w"};
    const char *t = gc__kgen_elem_type(bytes);
    int ncomp = bytes / 4, n = SH_LD_BYTES / bytes, per = n / SH_BLOCK;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, flags);
    gc__sbuf_printf(&b,
                    "GC_KERNEL void gc_shload(GC_GLOBAL GC_U32 *out, GC_U32 seed GC_TS_PARAM "
                    "GC_DYN_SHARED_PARAM(%s, sm))\n{\n"
                    "    GC_DYN_SHARED_DECL(%s, sm)\n"
                    "    GC_TS_BEGIN\n"
                    "    GC_U32 tid = GC_TID;\n"
                    "    for (GC_U32 e = tid; e < %du; e += %du) {\n"
                    "        GC_U32 h = (GC_BID * %du + e) * %du;\n",
                    t, t, n, SH_BLOCK, n, ncomp);
    for (int c = 0; c < ncomp; c++)
        gc__sbuf_printf(&b, "        sm[e]%s = ((h + %du) * 2654435761u) ^ seed;\n",
                        ncomp == 1 ? "" : xyzw[c], c);
    gc__sbuf_printf(&b,
                    "    }\n"
                    "    GC_BARRIER();\n"
                    "    GC_U32 acc = 0u;\n"
                    "#pragma unroll 1\n"
                    "    for (GC_U32 i = 0; i < %du; i++) {\n"
                    "        GC_U32 j = tid ^ ((i & %du) << 5);\n",
                    iters, SH_LD_PERIOD - 1);
    for (int u = 0; u < per; u++)
        gc__sbuf_printf(&b, "        %s v%d = sm[j + %du];\n", t, u, u * SH_BLOCK);
    for (int u = 0; u < per; u++) {
        if (ncomp == 1)
            gc__sbuf_printf(&b, "        acc += v%d;\n", u);
        else if (ncomp == 2)
            gc__sbuf_printf(&b, "        acc += v%d.x + v%d.y;\n", u, u);
        else
            gc__sbuf_printf(&b, "        acc += v%d.x + v%d.y + v%d.z + v%d.w;\n", u, u, u, u);
    }
    gc__sbuf_puts(&b, "    }\n"
                      "    out[GC_GID] = acc;\n"
                      "    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

/* Volkov's dependent chain through shared memory: a = sm[a], SH_CHAIN times
 * per trip. Word w of page p holds the same word of the next page, so every
 * load of a lane hits the same bank and the lanes' offsets (a runtime table)
 * alone set the conflict degree. One warp gives the latency; a full SM gives
 * the throughput. */
char *gc__shmem_gen_chain(enum gc_dialect d, unsigned flags)
{
    struct gc_sbuf b;
    const unsigned words = SH_PAGES * SH_PAGE;

    /* Offsets are in bytes, so that each step is the load alone: no index
     * scaling sits on the dependent path. */
    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, flags);
    /* The array is declared of words, so that its base is aligned for word
     * loads: NVIDIA's OpenCL places a byte-typed __local argument with byte
     * alignment, and a misaligned word load there kills the context. */
    gc__sbuf_printf(&b,
                    "#define GC_WORD(o) (*(GC_SHARED_PTR GC_U32 *)(smb + (o)))\n"
                    "GC_KERNEL void gc_shchain(GC_GLOBAL const GC_U32 *lane_off, GC_GLOBAL GC_U32 "
                    "*out, GC_U32 trips GC_TS_PARAM GC_DYN_SHARED_PARAM(GC_U32, smw))\n{\n"
                    "    GC_DYN_SHARED_DECL(GC_U32, smw)\n"
                    "    GC_SHARED_PTR unsigned char *smb = (GC_SHARED_PTR unsigned char *)smw;\n"
                    "    GC_TS_BEGIN\n"
                    "    for (GC_U32 i = GC_TID; i < %uu; i += GC_BDIM)\n"
                    "        GC_WORD(4u * i) = 4u * (i < %uu ? i + %uu : i - %uu);\n"
                    "    GC_BARRIER();\n"
                    "    GC_U32 a = 4u * lane_off[GC_TID & 31u];\n"
                    "#pragma unroll 1\n"
                    "    for (GC_U32 i = 0; i < trips; i++) {\n",
                    words, words - SH_PAGE, SH_PAGE, words - SH_PAGE);
    for (int u = 0; u < SH_CHAIN; u++)
        gc__sbuf_puts(&b, "        a = GC_WORD(a);\n");
    gc__sbuf_puts(&b, "    }\n    out[GC_GID] = a / 4u;\n    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

int gc__shmem_check_swap(const uint32_t *got, size_t nthreads, int bytes, int iters, uint32_t seed,
                         char *msg, size_t len)
{
    int ncomp = bytes / 4, perm[SH_ROWS];

    /* Row r ends holding the initial row perm[r]. */
    for (int i = 0; i < SH_ROWS; i++)
        perm[i] = i;
    for (int it = 0; it < iters; it++)
        for (int w = 0; w < 5; w++) {
            int t = perm[swaps[w][0]];
            perm[swaps[w][0]] = perm[swaps[w][1]];
            perm[swaps[w][1]] = t;
        }
    for (size_t g = 0; g < nthreads; g++)
        for (int row = 0; row < SH_ROWS; row++)
            for (int c = 0; c < ncomp; c++) {
                uint32_t want = init_val((uint32_t)g, (uint32_t)perm[row], (uint32_t)c, seed);
                uint32_t have = got[(g * SH_ROWS + (size_t)row) * (size_t)ncomp + (size_t)c];

                if (have != want) {
                    snprintf(msg, len, "thread %zu row %d word %d is 0x%08x, expected 0x%08x", g,
                             row, c, have, want);
                    return GC_EVERIFY;
                }
            }
    return 0;
}

/* Over a period of SH_LD_PERIOD trips each thread reads every element of
 * its warp-swapped columns once, so the sum is iters / SH_LD_PERIOD times
 * that of a period. */
uint32_t gc__shmem_load_sum(size_t g, int bytes, int iters, uint32_t seed)
{
    int ncomp = bytes / 4, n = SH_LD_BYTES / bytes, per = n / SH_BLOCK;
    uint32_t blk = (uint32_t)(g / SH_BLOCK), tid = (uint32_t)(g % SH_BLOCK), sum = 0;

    for (uint32_t p = 0; p < SH_LD_PERIOD; p++)
        for (int u = 0; u < per; u++) {
            uint32_t e = (tid ^ (p << 5)) + (uint32_t)(u * SH_BLOCK);
            uint32_t h = (blk * (uint32_t)n + e) * (uint32_t)ncomp;

            for (int c = 0; c < ncomp; c++)
                sum += ((h + (uint32_t)c) * 2654435761u) ^ seed;
        }
    return sum * (uint32_t)(iters / SH_LD_PERIOD);
}

/* After trips x SH_CHAIN loads a lane has advanced that many pages. */
uint32_t gc__shmem_chain_end(unsigned off, unsigned trips)
{
    return off + (unsigned)(((unsigned long long)trips * SH_CHAIN) % SH_PAGES) * SH_PAGE;
}

int gc__shmem_sources(const struct gc_bench *self, const struct gc_device_info *info,
                      struct gc_ksrc **out, int *n)
{
    static const char *const lds[] = {"LDS", "LDS.64", "LDS.128"};
    static const char *const sts[] = {"STS", "STS.64", "STS.128"};
    struct gc_ksrc *k = calloc(7, sizeof(*k));

    (void)self;
    (void)info;
    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    for (int i = 0; i < 3; i++) {
        snprintf(k[i].label, sizeof(k[i].label), "shmem_swap_%dB", 4 << i);
        k[i].src = gc__shmem_gen_swap(gc__kgen_inspect_dialect(), 0, 4 << i, 2048, false);
        /* Per trip: SH_UNROLL iterations x 5 swaps x 2 loads / 2 stores, and
         * two fences per iteration. */
        k[i].expect[0] = (struct gc_sass_expect){lds[i], SH_UNROLL * 10};
        k[i].expect[1] = (struct gc_sass_expect){sts[i], SH_UNROLL * 10};
        k[i].expect[2] = (struct gc_sass_expect){"MEMBAR", SH_UNROLL * 2};
        k[i].nexpect = 3;
    }
    for (int i = 0; i < 3; i++) {
        int bytes = 4 << i;
        snprintf(k[3 + i].label, sizeof(k[3 + i].label), "shmem_load_%dB", bytes);
        k[3 + i].src = gc__shmem_gen_load(gc__kgen_inspect_dialect(), 0, bytes, 4096);
        /* Per trip: SH_LD_BYTES / (SH_BLOCK x bytes) loads and no store. */
        k[3 + i].expect[0] = (struct gc_sass_expect){lds[i], SH_LD_BYTES / (SH_BLOCK * bytes)};
        k[3 + i].expect[1] = (struct gc_sass_expect){"STS", 0};
        k[3 + i].nexpect = 2;
    }
    snprintf(k[6].label, sizeof(k[6].label), "shmem_chain");
    k[6].src = gc__shmem_gen_chain(gc__kgen_inspect_dialect(), 0);
    k[6].expect[0] = (struct gc_sass_expect){"LDS", SH_CHAIN};
    k[6].nexpect = 1;
    for (int i = 0; i < 7; i++)
        if (!k[i].src) {
            gc__ksrc_free(k, 7);
            return GC_ENOMEM;
        }
    *out = k;
    *n = 7;
    return 0;
}
