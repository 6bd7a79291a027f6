/* memory.shared: shared-memory bandwidth with 4-, 8- and 16-byte elements
 * (gpumembench shmembench, Konstantinidis & Cotronis §III-B and Table III),
 * latency and throughput against bank conflicts and broadcast (Volkov §6.1-6.2;
 * MIPP §IV-B bank-conflict benchmark). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "core/cpulimits.h"
#include "bench/workload.h"
#include "core/bestcfg.h"
#include "core/occupancy.h"
#include "core/stats.h"
#include "core/kcache.h"
#include "kgen/kgen.h"

#define SH_BLOCK 256
#define SH_ROWS 6           /* elements each thread owns, as in shmembench */
#define SH_UNROLL 8         /* swap iterations in one trip of the timed loop */
#define SH_CHAIN 64         /* dependent loads in one trip of the chain loop */
#define SH_PAGE 1024        /* words of one page of the chain (a multiple of 32 banks) */
#define SH_PAGES 3          /* the chain visits page 0, 1, 2, 0, ... */
#define SH_BANK_BYTES 128.0 /* 32 banks x 4 bytes per clock (CUDA CC >= 5.0) */
/* The load kernel: each block reads its own SH_LD_BYTES of shared memory,
 * SH_LD_BYTES / SH_BLOCK bytes per thread per trip, as elements of 4, 8 or
 * 16 bytes; whole warps trade places every trip (a XOR of the warp index by
 * the trip number mod SH_LD_PERIOD), so that the addresses change with the
 * loop while each warp still reads 32 consecutive elements. */
#define SH_LD_BYTES 16384
#define SH_LD_PERIOD (SH_BLOCK / 32)

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
static char *gen_swap(enum gc_dialect d, unsigned flags, int bytes, int iters, bool opaque)
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
static char *gen_load(enum gc_dialect d, unsigned flags, int bytes, int iters)
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
static char *gen_chain(enum gc_dialect d, unsigned flags)
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

static unsigned ts_flags(const struct gc_device_info *info)
{
    return (info->caps & GC_CAP_CLOCK64) && (info->caps & GC_CAP_GLOBALTIMER) &&
                   (info->caps & GC_CAP_SMID)
               ? GC_KGEN_TIMESTAMPS
               : 0;
}

static unsigned gcd32(unsigned s)
{
    unsigned a = s, b = 32;

    while (b) {
        unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Launch shape for a full compute unit: k blocks of SH_BLOCK per CU with
 * dyn bytes each, enforced by the shared-memory allocation where the device
 * describes its CUs (CUDA), else a few work-groups per CU. */
struct shape {
    unsigned grid;
    size_t dyn;
    int per_cu;
    char note[256];
};

static bool shape_enforced(const struct gc_device_info *info)
{
    return (info->caps & GC_CAP_DYN_SHARED) && info->max_threads_per_cu > 0 &&
           info->shared_per_cu > 0;
}

static int shape_per_cu(const struct gc_device_info *info)
{
    int per_cu = shape_enforced(info) ? info->max_threads_per_cu / SH_BLOCK : 4;

    if (shape_enforced(info) && info->max_blocks_per_cu > 0 && per_cu > info->max_blocks_per_cu)
        per_cu = info->max_blocks_per_cu;
    return per_cu;
}

static int full_shape(struct gc_device *d, struct gc_kern *k, size_t need, struct shape *sh)
{
    const struct gc_device_info *info = &d->info;
    bool occ = shape_enforced(info);

    sh->per_cu = shape_per_cu(info);
    sh->dyn = need;
    snprintf(sh->note, sizeof(sh->note), "%d blocks of %d per CU", sh->per_cu, SH_BLOCK);
    if (occ) {
        struct gc_occupancy oc;
        int rc = gc__occupancy_set(d, k, SH_BLOCK, sh->per_cu, &oc);
        if (rc)
            return rc;
        if (oc.dyn_shared < need) {
            snprintf(d->err, sizeof(d->err),
                     "%d blocks of %zu bytes of shared memory do not fit on a compute unit",
                     sh->per_cu, need);
            return GC_ERANGE;
        }
        sh->dyn = oc.dyn_shared;
        snprintf(sh->note, sizeof(sh->note), "%d blocks of %d per CU (%s)", sh->per_cu, SH_BLOCK,
                 oc.note);
    }
    sh->grid = (unsigned)(sh->per_cu * (info->compute_units > 0 ? info->compute_units : 1));
    return 0;
}

static int ts_alloc(struct gc_device *d, unsigned flags, unsigned grid, struct gc_buf **tsb,
                    struct gc_timestamps *ts)
{
    gc__dev_free(d, *tsb);
    *tsb = NULL;
    ts->buf = NULL;
    ts->nblocks = grid;
    if (!(flags & GC_KGEN_TIMESTAMPS))
        return 0;
    int rc = gc__dev_alloc(d, (size_t)grid * GC_TS_WORDS * 8, tsb);
    ts->buf = *tsb;
    return rc;
}

/* Measures one swap kernel and verifies every thread's six rows against the
 * permutation the host derives from the swap sequence. */
static int run_swap(struct gc_session *s, struct gc_kern *k, int bytes, int iters, unsigned flags,
                    struct gc_buf *out, struct gc_buf **tsb, struct gc_bench_result *r,
                    struct gc_measurement *m, struct shape *sh)
{
    struct gc_device *d = s->dev;
    uint32_t seed = (uint32_t)(s->seed ^ (s->seed >> 32)) ^ 0x5A5Au;
    int ncomp = bytes / 4, perm[SH_ROWS], rc;
    struct gc_timestamps ts;
    uint32_t *got = NULL;

    memset(m, 0, sizeof(*m));
    rc = full_shape(d, k, (size_t)SH_ROWS * SH_BLOCK * (size_t)bytes, sh);
    if (rc)
        return rc;
    size_t nthreads = (size_t)sh->grid * SH_BLOCK, nwords = nthreads * SH_ROWS * (size_t)ncomp;
    if ((rc = ts_alloc(d, flags, sh->grid, tsb, &ts)) ||
        (rc = gc__dev_fill_random(d, out, nwords * 4, seed + 1u)))
        return rc;
    struct gc_arg args[3] = {{.type = GC_ARG_BUF, .v.buf = out},
                             {.type = GC_ARG_U32, .v.u32 = seed},
                             {.type = GC_ARG_BUF, .v.buf = *tsb}};
    struct gc_launch l = {{sh->grid, 1, 1}, {SH_BLOCK, 1, 1}, sh->dyn, args, ts.buf ? 3 : 2, 1};
    rc = gc__measure(s, k, &l, ts.buf ? &ts : NULL, NULL, 0, m);
    if (rc && !(rc == GC_EINTR && m->samples > 0))
        return rc;
    /* Row r ends holding the initial row perm[r]. */
    for (int i = 0; i < SH_ROWS; i++)
        perm[i] = i;
    for (int it = 0; it < iters; it++)
        for (int w = 0; w < 5; w++) {
            int t = perm[swaps[w][0]];
            perm[swaps[w][0]] = perm[swaps[w][1]];
            perm[swaps[w][1]] = t;
        }
    got = malloc(nwords * 4);
    if (!got)
        return GC_ENOMEM;
    int vrc = gc__dev_read(d, out, 0, got, nwords * 4);
    for (size_t g = 0; vrc == 0 && g < nthreads; g++)
        for (int row = 0; row < SH_ROWS; row++)
            for (int c = 0; c < ncomp; c++) {
                uint32_t want = init_val((uint32_t)g, (uint32_t)perm[row], (uint32_t)c, seed);
                uint32_t have = got[(g * SH_ROWS + (size_t)row) * (size_t)ncomp + (size_t)c];
                if (have != want) {
                    gc__bench_set_error(r, GC_BENCH_ERROR,
                                        "verification failed (swap, %d-byte elements): thread "
                                        "%zu row %d word %d is 0x%08x, expected 0x%08x",
                                        bytes, g, row, c, have, want);
                    vrc = GC_EVERIFY;
                    goto out;
                }
            }
out:
    free(got);
    return vrc ? vrc : rc;
}

/* Measures one load kernel and checks every thread's sum: over a period of
 * SH_LD_PERIOD trips each thread reads every element of its warp-swapped
 * columns once, so the sum is iters / SH_LD_PERIOD times that of a period. */
static int run_load(struct gc_session *s, struct gc_kern *k, int bytes, int iters, unsigned flags,
                    struct gc_buf *out, struct gc_buf **tsb, struct gc_bench_result *r,
                    struct gc_measurement *m, struct shape *sh)
{
    struct gc_device *d = s->dev;
    uint32_t seed = (uint32_t)(s->seed ^ (s->seed >> 29)) ^ 0xC3A5u;
    int ncomp = bytes / 4, n = SH_LD_BYTES / bytes, per = n / SH_BLOCK, rc;
    struct gc_timestamps ts;
    uint32_t *got = NULL;

    memset(m, 0, sizeof(*m));
    rc = full_shape(d, k, SH_LD_BYTES, sh);
    if (rc)
        return rc;
    size_t nthreads = (size_t)sh->grid * SH_BLOCK;
    if ((rc = ts_alloc(d, flags, sh->grid, tsb, &ts)) ||
        (rc = gc__dev_fill_random(d, out, nthreads * 4, seed + 7u)))
        return rc;
    struct gc_arg args[3] = {{.type = GC_ARG_BUF, .v.buf = out},
                             {.type = GC_ARG_U32, .v.u32 = seed},
                             {.type = GC_ARG_BUF, .v.buf = *tsb}};
    struct gc_launch l = {{sh->grid, 1, 1}, {SH_BLOCK, 1, 1}, sh->dyn, args, ts.buf ? 3 : 2, 1};
    rc = gc__measure(s, k, &l, ts.buf ? &ts : NULL, NULL, 0, m);
    if (rc && !(rc == GC_EINTR && m->samples > 0))
        return rc;
    got = malloc(nthreads * 4);
    if (!got)
        return GC_ENOMEM;
    int vrc = gc__dev_read(d, out, 0, got, nthreads * 4);
    for (size_t g = 0; vrc == 0 && g < nthreads; g++) {
        uint32_t blk = (uint32_t)(g / SH_BLOCK), tid = (uint32_t)(g % SH_BLOCK), sum = 0;
        for (uint32_t p = 0; p < SH_LD_PERIOD; p++)
            for (int u = 0; u < per; u++) {
                uint32_t e = (tid ^ (p << 5)) + (uint32_t)(u * SH_BLOCK);
                uint32_t h = (blk * (uint32_t)n + e) * (uint32_t)ncomp;
                for (int c = 0; c < ncomp; c++)
                    sum += ((h + (uint32_t)c) * 2654435761u) ^ seed;
            }
        uint32_t want = sum * (uint32_t)(iters / SH_LD_PERIOD);
        if (got[g] != want) {
            gc__bench_set_error(r, GC_BENCH_ERROR,
                                "verification failed (loads, %d-byte elements): thread %zu "
                                "summed 0x%08x, expected 0x%08x",
                                bytes, g, got[g], want);
            vrc = GC_EVERIFY;
        }
    }
    free(got);
    return vrc ? vrc : rc;
}

struct chain_res {
    double thr_bpc;    /* bytes delivered per clock per CU at full occupancy */
    double thr_mhz;    /* the clock thr_bpc is per */
    double lat_cycles; /* per dependent load, one warp */
    struct gc_stats thr;
};

/* One chain configuration: launches kernel k with trips, verifies each
 * thread's final word, and returns the measurement. */
static int chain_once(struct gc_session *s, struct gc_kern *k, unsigned grid, unsigned block,
                      size_t dyn, unsigned trips, unsigned flags, const unsigned *off,
                      struct gc_buf *laneb, struct gc_buf *out, struct gc_buf **tsb,
                      struct gc_bench_result *r, const char *name, struct gc_measurement *m)
{
    struct gc_device *d = s->dev;
    struct gc_timestamps ts;
    size_t n = (size_t)grid * block;
    uint32_t *got = NULL;
    int rc;

    memset(m, 0, sizeof(*m));
    if ((rc = ts_alloc(d, flags, grid, tsb, &ts)) ||
        (rc = gc__dev_fill_random(d, out, n * 4, s->seed ^ 0xC4A1ULL)))
        return rc;
    struct gc_arg args[4] = {{.type = GC_ARG_BUF, .v.buf = laneb},
                             {.type = GC_ARG_BUF, .v.buf = out},
                             {.type = GC_ARG_U32, .v.u32 = trips},
                             {.type = GC_ARG_BUF, .v.buf = *tsb}};
    struct gc_launch l = {{grid, 1, 1}, {block, 1, 1}, dyn, args, ts.buf ? 4 : 3, 1};
    rc = gc__measure(s, k, &l, ts.buf ? &ts : NULL, NULL, 0, m);
    if (rc && !(rc == GC_EINTR && m->samples > 0))
        return rc;
    got = malloc(n * 4);
    if (!got)
        return GC_ENOMEM;
    /* After trips x SH_CHAIN loads a lane has advanced that many pages. */
    unsigned adv = (unsigned)(((unsigned long long)trips * SH_CHAIN) % SH_PAGES) * SH_PAGE;
    int vrc = gc__dev_read(d, out, 0, got, n * 4);
    for (size_t g = 0; vrc == 0 && g < n; g++) {
        uint32_t want = off[(g % block) & 31u] + adv;
        if (got[g] != want) {
            gc__bench_set_error(r, GC_BENCH_ERROR,
                                "verification failed (chain, %s): thread %zu ended at word %u, "
                                "expected %u",
                                name, g, got[g], want);
            vrc = GC_EVERIFY;
        }
    }
    free(got);
    return vrc ? vrc : rc;
}

/* Lane offsets (words) for a lane stride; stride 0 is the broadcast. */
static void stride_offsets(unsigned stride, unsigned *off)
{
    for (unsigned l = 0; l < 32; l++)
        off[l] = l * stride;
}

static int run_pattern(struct gc_session *s, struct gc_kern *k, unsigned stride, unsigned flags,
                       struct gc_buf *laneb, struct gc_buf *out, struct gc_buf **tsb,
                       struct gc_bench_result *r, struct chain_res *res,
                       struct gc_measurement *keep)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    unsigned off[32], t_lat = gpu ? 256 : 64, t_thr = gpu ? 128 : 4;
    size_t need = SH_PAGES * SH_PAGE * 4;
    struct gc_measurement m1, m2, mt;
    struct shape sh;
    char name[32];
    int rc;

    memset(&m1, 0, sizeof(m1));
    memset(&m2, 0, sizeof(m2));
    memset(&mt, 0, sizeof(mt));
    res->thr_bpc = res->lat_cycles = res->thr_mhz = NAN;
    snprintf(name, sizeof(name), stride ? "stride %u" : "broadcast", stride);
    stride_offsets(stride, off);
    if ((rc = gc__dev_write(d, laneb, 0, off, sizeof(off))))
        return rc;
    /* Latency: one warp, two trip counts; the difference removes launch and
     * set-up time (Volkov §6.1: time per dependent instruction). */
    rc = chain_once(s, k, 1, 32, need, t_lat, flags, off, laneb, out, tsb, r, name, &m1);
    if (rc == 0)
        rc = chain_once(s, k, 1, 32, need, 2 * t_lat, flags, off, laneb, out, tsb, r, name, &m2);
    if (rc)
        goto out;
    double clk = isfinite(m2.clock_mhz) ? m2.clock_mhz : m1.clock_mhz;
    res->lat_cycles =
        (m2.seconds.median - m1.seconds.median) * clk * 1e6 / ((double)t_lat * SH_CHAIN);
    /* Throughput: every compute unit full. */
    rc = full_shape(d, k, need, &sh);
    if (rc)
        goto out;
    rc = chain_once(s, k, sh.grid, SH_BLOCK, sh.dyn, t_thr, flags, off, laneb, out, tsb, r, name,
                    &mt);
    if (rc && !(rc == GC_EINTR && mt.samples > 0))
        goto out;
    if (isfinite(mt.clock_mhz) && info->compute_units > 0) {
        /* Bytes delivered to the lanes: 32 x 4 per warp load, broadcasts
         * included (gpumembench counts a broadcast the same way). */
        double warp_loads = (double)sh.grid * SH_BLOCK / 32.0 * t_thr * SH_CHAIN;
        gc__stats_inverse(mt.per_sample_s, mt.samples,
                          warp_loads * 128.0 / (mt.clock_mhz * 1e6 * info->compute_units),
                          &res->thr);
        res->thr_bpc = res->thr.median;
        res->thr_mhz = mt.clock_mhz;
    }
    *keep = mt;
    mt.per_sample_s = NULL;
out:
    gc__measurement_free(&m1);
    gc__measurement_free(&m2);
    gc__measurement_free(&mt);
    return rc;
}

/* The best of one family of bandwidth kernels (swap or load). */
struct bw_best {
    double bw, bpc; /* B/s and B/clk/CU of the best element size */
    struct gc_stats bw_st, bpc_st;
    int size, per_cu;
    char note[256];
    struct gc_measurement m;
};

/* Measures the three element sizes of one family (reqs[0..2], kernel name),
 * adds the two series, keeps the best; bpc_by_size[i] gets each size's
 * bytes per clock per CU (NAN unknown). */
static int run_family(struct gc_session *s, struct gc_kreq *reqs, const char *kname, bool load,
                      int iters, unsigned flags, struct gc_buf *out, struct gc_buf **tsb,
                      struct gc_bench_result *r, int ser_bw, int ser_bpc, struct bw_best *best,
                      double *bpc_by_size)
{
    static const int sizes[] = {4, 8, 16};
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    int rc = 0;

    for (int i = 0; i < 3 && !gc__stopped(s); i++) {
        struct gc_kern *k = NULL;
        struct gc_measurement m;
        struct shape sh;

        bpc_by_size[i] = NAN;
        rc = d->ops->kernel(reqs[i].prog, kname, &k);
        if (rc) {
            snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
            return rc;
        }
        if (load)
            rc = run_load(s, k, sizes[i], iters, flags, out, tsb, r, &m, &sh);
        else
            rc = run_swap(s, k, sizes[i], iters, flags, out, tsb, r, &m, &sh);
        if (rc && !(rc == GC_EINTR && m.samples > 0)) {
            gc__measurement_free(&m);
            return rc;
        }
        /* Bytes moved by the timed loop. Swap: 5 swaps x (2 loads + 2
         * stores) per iteration (the 12 set-up and read-back accesses are
         * left out). Load: SH_LD_BYTES / SH_BLOCK per thread per trip (the
         * one-off fill is left out). */
        double per_thread =
            load ? (double)iters * SH_LD_BYTES / SH_BLOCK : (double)iters * 20.0 * sizes[i];
        double moved = (double)sh.grid * SH_BLOCK * per_thread;
        struct gc_stats bw, pc = {0};
        gc__stats_inverse(m.per_sample_s, m.samples, moved, &bw);
        gc__series_add(&r->series[ser_bw], sizes[i], bw.median, &bw, NULL);
        if (isfinite(m.clock_mhz) && info->compute_units > 0) {
            gc__stats_inverse(m.per_sample_s, m.samples,
                              moved / (m.clock_mhz * 1e6 * info->compute_units), &pc);
            gc__series_add(&r->series[ser_bpc], sizes[i], pc.median, &pc, NULL);
            bpc_by_size[i] = pc.median;
        }
        if (bw.median > best->bw) {
            best->bw = bw.median;
            best->bw_st = bw;
            best->bpc = pc.n ? pc.median : NAN;
            best->bpc_st = pc;
            best->size = sizes[i];
            best->per_cu = sh.per_cu;
            snprintf(best->note, sizeof(best->note), "%s", sh.note);
            gc__measurement_free(&best->m);
            best->m = m;
            m.per_sample_s = NULL;
        }
        gc__measurement_free(&m);
        if (rc)
            return rc;
    }
    return 0;
}

static int run_shared(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    bool quick = s->profile == GC_PROFILE_QUICK, gpu = info->type == GC_DEVICE_GPU;
    static const int sizes[] = {4, 8, 16};
    static const unsigned strides_q[] = {0, 1, 2, 3, 4, 8, 32};
    static const unsigned strides_d[] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
    unsigned strides_f[33];
    bool full = s->profile == GC_PROFILE_FULL;
    const unsigned *strides = quick ? strides_q : full ? strides_f : strides_d;
    int nstrides = quick ? 7 : full ? 33 : 11;
    int iters = gpu ? 2048 : 64; /* not a multiple of 6: the rows end permuted */
    /* Load trips: a multiple of SH_LD_PERIOD; 4096 trips last about 2 ms on
     * an H100-class GPU, so launch gaps cost well under 1%. */
    int ld_iters = gpu ? 4096 : 64;
    unsigned flags = ts_flags(info);
    bool cuda7 = isfinite(s->dev->arch.l1_bytes_per_clk);
    struct gc_kreq reqs[7];
    char labels[7][32];
    int rc = 0, nreq = 7;
    struct gc_buf *out = NULL, *laneb = NULL, *tsb = NULL;
    struct bw_best swap = {0}, load = {0};
    double stride1_bpc = NAN, swap_bpc[3], load_bpc[3];

    for (unsigned i = 0; i <= 32; i++)
        strides_f[i] = i;
    memset(reqs, 0, sizeof(reqs));
    for (int i = 0; i < 6; i++) {
        bool ld = i >= 3;
        snprintf(labels[i], sizeof(labels[i]), "shmem_%s_%dB", ld ? "load" : "swap", sizes[i % 3]);
        reqs[i].label = labels[i];
        reqs[i].src =
            ld ? gen_load(d->ops->dialect, flags, sizes[i % 3], ld_iters)
               : gen_swap(d->ops->dialect, flags, sizes[i % 3], iters, info->type == GC_DEVICE_CPU);
        if (!reqs[i].src) {
            rc = GC_ENOMEM;
            goto out;
        }
    }
    snprintf(labels[6], sizeof(labels[6]), "shmem_chain");
    reqs[6].label = labels[6];
    reqs[6].src = gen_chain(d->ops->dialect, flags);
    if (!reqs[6].src) {
        rc = GC_ENOMEM;
        goto out;
    }
    if ((rc = gc__kcache_build(s, reqs, nreq)))
        goto out;

    /* The largest launch: a full device of 16-byte swap rows. */
    int cus = info->compute_units > 0 ? info->compute_units : 1;
    int per_cu = info->max_threads_per_cu / SH_BLOCK > 4 ? info->max_threads_per_cu / SH_BLOCK : 4;
    size_t out_bytes = (size_t)per_cu * cus * SH_BLOCK * SH_ROWS * 16;
    if ((rc = gc__dev_alloc(d, out_bytes, &out)) || (rc = gc__dev_alloc(d, 32 * 4, &laneb)))
        goto out;

    /* Series 0-5 keep their long-standing order; the load kernels' two come
     * last. */
    if (!gc__bench_add_series(r, "bandwidth_vs_element_size", "element size", "B",
                              "shared-memory bandwidth (shmembench swap)", "B/s") ||
        !gc__bench_add_series(r, "bytes_per_clk_per_cu_vs_element_size", "element size", "B",
                              "shared-memory bandwidth per CU (shmembench swap)", "B/clk/CU") ||
        !gc__bench_add_series(r, "throughput_vs_lane_stride", "lane stride (0 = broadcast)",
                              "words", "bytes delivered per CU", "B/clk/CU") ||
        !gc__bench_add_series(r, "latency_vs_lane_stride", "lane stride (0 = broadcast)", "words",
                              "dependent-load latency", "cycles") ||
        !gc__bench_add_series(r, "throughput_vs_conflict_degree", "bank-conflict degree", "ways",
                              "bytes delivered per CU", "B/clk/CU") ||
        !gc__bench_add_series(r, "latency_vs_conflict_degree", "bank-conflict degree", "ways",
                              "dependent-load latency", "cycles") ||
        !gc__bench_add_series(r, "load_bandwidth_vs_element_size", "element size", "B",
                              "shared-memory load bandwidth", "B/s") ||
        !gc__bench_add_series(r, "load_bytes_per_clk_per_cu_vs_element_size", "element size", "B",
                              "shared-memory load bandwidth per CU", "B/clk/CU")) {
        rc = GC_ENOMEM;
        goto out;
    }

    rc = run_family(s, reqs, "gc_shswap", false, iters, flags, out, &tsb, r, 0, 1, &swap, swap_bpc);
    if (rc)
        goto out;
    rc = run_family(s, reqs + 3, "gc_shload", true, ld_iters, flags, out, &tsb, r, 6, 7, &load,
                    load_bpc);
    if (rc)
        goto out;
    double clk = load.m.clock_mhz * 1e6;
    if (load.bw > 0) {
        char note[768];
        double lim = cuda7 && isfinite(clk) ? SH_BANK_BYTES * info->compute_units * clk : NAN;
        double bpc_lim = cuda7 ? SH_BANK_BYTES : NAN;
        char lim_note[200];
        snprintf(lim_note, sizeof(lim_note), "limit 128 B/clk/SM x %d SMs x %.0f MHz (%s)",
                 info->compute_units, load.m.clock_mhz, load.m.clock_source);
        if (info->type == GC_DEVICE_CPU) {
            /* Local memory is ordinary cached memory: the cores' loads. */
            lim = gc__cpu_stream_limit(info, 1, 0);
            bpc_lim = isfinite(clk) && clk > 0 ? lim / (clk * cus) : NAN;
            gc__cpu_limit_note(info, lim_note, sizeof(lim_note));
        }
        snprintf(note, sizeof(note),
                 "independent %d-byte loads%s, conflict-free, best of 4/8/16 B (swap: "
                 "swap_bandwidth); %s; %s",
                 load.size, load.size == 16 && cuda7 ? " (LDS.128)" : "", lim_note, load.note);
        gc__bench_add_metric(r, "shared_bandwidth", load.bw, "B/s", lim, &load.bw_st, note);
        if (isfinite(load.bpc))
            gc__bench_add_metric(r, "shared_bytes_per_clk_per_cu", load.bpc, "B/clk/CU", bpc_lim,
                                 &load.bpc_st,
                                 info->type == GC_DEVICE_CPU
                                     ? "the load kernel of shared_bandwidth at the observed "
                                       "clock; limit: the CPU limit at that clock"
                                     : "the load kernel of shared_bandwidth at the observed SM "
                                       "clock; limit 32 banks x 4 B (CUDA CC >= 7.0)");
        r->context = load.m.ctx;
        snprintf(r->stop_rule, sizeof(r->stop_rule), "%s", load.m.stop_rule);
        /* For the energy workload of the same kernel (gc__shared_workload). */
        if ((rc = gc__best_put(s, self->info.name, &(struct gc_best_elem){load.size, load.per_cu},
                               sizeof(struct gc_best_elem))))
            goto out;
    }
    if (swap.bw > 0) {
        char note[512];
        double sclk = swap.m.clock_mhz * 1e6;
        double lim = cuda7 && isfinite(sclk) ? SH_BANK_BYTES * info->compute_units * sclk : NAN;
        double bpc_lim = cuda7 ? SH_BANK_BYTES : NAN;
        if (info->type == GC_DEVICE_CPU) {
            /* Two loads and two stores per swap. */
            lim = gc__cpu_stream_limit(info, 1, 1);
            bpc_lim = isfinite(sclk) && sclk > 0 ? lim / (sclk * cus) : NAN;
        }
        snprintf(note, sizeof(note),
                 "gpumembench shmembench swap (2 loads + 2 stores per swap, fences), best: "
                 "%d-byte elements, %d iterations x 20 accesses; %s",
                 swap.size, iters, swap.note);
        gc__bench_add_metric(r, "swap_bandwidth", swap.bw, "B/s", lim, &swap.bw_st, note);
        if (isfinite(swap.bpc))
            gc__bench_add_metric(r, "swap_bytes_per_clk_per_cu", swap.bpc, "B/clk/CU", bpc_lim,
                                 &swap.bpc_st,
                                 "the swap kernel of swap_bandwidth at the observed SM clock");
    }

    /* Why the 4-byte figures stay under the banks' 128 B/clk: a warp-wide
     * 4-byte load delivers at most 128 B, so reaching the banks' rate takes
     * one shared-memory instruction per clock per SM; the independent loads
     * show what that issue rate gives, against the wider loads' bandwidth. */
    char issue[160] = "";
    if (isfinite(load_bpc[0]) && isfinite(load_bpc[2]))
        snprintf(issue, sizeof(issue),
                 "; a 4-byte warp load moves 128 B, so 128 B/clk needs 1 LDS/clk/SM: "
                 "independent 4-byte loads give %.0f, 16-byte %.0f B/clk/CU",
                 load_bpc[0], load_bpc[2]);

    struct gc_kern *kc = NULL;
    rc = d->ops->kernel(reqs[6].prog, "gc_shchain", &kc);
    if (rc) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        goto out;
    }
    for (int i = 0; i < nstrides && !gc__stopped(s); i++) {
        unsigned st = strides[i];
        struct chain_res cr;
        struct gc_measurement keep = {0};
        char lab[32], note[320];

        rc = run_pattern(s, kc, st, flags, laneb, out, &tsb, r, &cr, &keep);
        gc__measurement_free(&keep);
        if (rc)
            goto out;
        unsigned deg = st ? gcd32(st) : 1;
        snprintf(lab, sizeof(lab), st ? "%u-way" : "broadcast", deg);
        if (isfinite(cr.thr_bpc))
            gc__series_add(&r->series[2], st, cr.thr_bpc, &cr.thr, lab);
        if (isfinite(cr.lat_cycles))
            gc__series_add(&r->series[3], st, cr.lat_cycles, NULL, lab);
        /* Power-of-two strides give conflict degree = stride. */
        if (st && (st & (st - 1)) == 0) {
            if (isfinite(cr.thr_bpc))
                gc__series_add(&r->series[4], deg, cr.thr_bpc, &cr.thr, lab);
            if (isfinite(cr.lat_cycles))
                gc__series_add(&r->series[5], deg, cr.lat_cycles, NULL, lab);
        }
        /* CPU devices: every lane's word comes through a load of at most
         * one vector (a broadcast too), at the clock of the figure. */
        double chain_lim = cuda7 ? SH_BANK_BYTES : NAN;
        if (info->type == GC_DEVICE_CPU && cr.thr_mhz > 0)
            chain_lim = gc__cpu_stream_limit(info, 1, 0) / (cr.thr_mhz * 1e6 * cus);
        if (st == 1) {
            stride1_bpc = cr.thr_bpc;
            gc__bench_add_metric(r, "shared_latency_cycles", cr.lat_cycles, "cycles", NAN, NULL,
                                 "one warp, dependent 4-byte loads a = sm[a], conflict-free; "
                                 "(time(2n) - time(n)) / n loads at the observed clock");
            snprintf(note, sizeof(note), "dependent 4-byte loads, conflict-free, every CU full%s",
                     issue);
            if (isfinite(cr.thr_bpc))
                gc__bench_add_metric(r, "shared_load_bytes_per_clk_per_cu", cr.thr_bpc, "B/clk/CU",
                                     chain_lim, &cr.thr, note);
        }
        if (st == 0) {
            gc__bench_add_metric(r, "broadcast_latency_cycles", cr.lat_cycles, "cycles", NAN, NULL,
                                 "one warp, every lane loads the same word");
            snprintf(note, sizeof(note),
                     "every lane loads the same word; 128 B counted per warp load%s", issue);
            if (isfinite(cr.thr_bpc))
                gc__bench_add_metric(r, "broadcast_bytes_per_clk_per_cu", cr.thr_bpc, "B/clk/CU",
                                     chain_lim, &cr.thr, note);
        }
        if (st == 32 && isfinite(stride1_bpc) && isfinite(cr.thr_bpc) && cr.thr_bpc > 0)
            gc__bench_add_metric(r, "conflict32_slowdown", stride1_bpc / cr.thr_bpc, "x", NAN, NULL,
                                 "throughput at lane stride 1 / at stride 32 (32-way); 32 "
                                 "expected where 32 banks serve one word each per clock");
    }
    if (gc__stopped(s))
        rc = GC_EINTR;
out:
    gc__measurement_free(&swap.m);
    gc__measurement_free(&load.m);
    gc__dev_free(d, tsb);
    gc__dev_free(d, out);
    gc__dev_free(d, laneb);
    gc__kreq_release(s, reqs, nreq);
    return rc;
}

static int sources_shared(const struct gc_bench *self, const struct gc_device_info *info,
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
        k[i].src = gen_swap(gc__kgen_inspect_dialect(), 0, 4 << i, 2048, false);
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
        k[3 + i].src = gen_load(gc__kgen_inspect_dialect(), 0, bytes, 4096);
        /* Per trip: SH_LD_BYTES / (SH_BLOCK x bytes) loads and no store. */
        k[3 + i].expect[0] = (struct gc_sass_expect){lds[i], SH_LD_BYTES / (SH_BLOCK * bytes)};
        k[3 + i].expect[1] = (struct gc_sass_expect){"STS", 0};
        k[3 + i].nexpect = 2;
    }
    snprintf(k[6].label, sizeof(k[6].label), "shmem_chain");
    k[6].src = gen_chain(gc__kgen_inspect_dialect(), 0);
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

static const struct gc_sum_cell shared_cells[] = {
    GC_SUM_V(gc__sum_memory, "shared", 0, "shared_bytes_per_clk_per_cu", NULL),
    GC_SUM_P(gc__sum_memory, "shared", 1, "shared_bytes_per_clk_per_cu"),
    GC_SUM_V(gc__sum_memory, "shared", 2, "shared_latency_cycles", "cycles"),
    {0},
};
static const struct gc_fig_rule shared_figures[] = {
    {"*conflict*", "shared memory: bank-conflict sweep", 0, NULL, false, false, false},
    {"*lane_stride*", "shared memory: lane stride (0 = broadcast)", 0, NULL, false, false, false},
    {"*element_size*", "shared memory: element size", 0, NULL, false, false, false},
    {0},
};
static const struct gc_bench_report shared_report = {shared_cells, shared_figures};

const struct gc_bench gc__bench_shared = {
    .info =
        {
            .name = "memory.shared",
            .group = "memory",
            .summary = "shared-memory bandwidth (4/8/16-byte elements), latency, bank-conflict "
                       "sweep and broadcast",
            .method =
                "Bandwidth (shared_bandwidth, the headline): a load kernel. Each block fills "
                "16 KiB of shared memory with a hash of (block, word, seed); per loop trip "
                "every thread issues 16 KiB / (256 x e) independent loads of e = 4, 8 or 16 "
                "bytes (LDS, LDS.64, LDS.128 on CUDA) at literal offsets from one address, "
                "tid ^ ((trip mod 8) << 5): whole warps trade places each trip, so a warp reads "
                "32 consecutive elements (conflict-free) and the loads cannot be hoisted; the "
                "words are added into one sum per thread (4096 trips, 64 on CPUs). Bytes = "
                "threads x trips x 64; the best element size is reported, against 128 "
                "B/clk/SM x SMs x the observed clock. Verified: every thread's sum equals "
                "trips / 8 x the sum of the words it reads in 8 trips. A 4-byte warp load "
                "moves at most 128 B, so 4-byte figures at 128 B/clk need one shared load "
                "per clock per SM: below that the instruction issue rate limits, not the "
                "banks (the notes give the load kernel's 4- and 16-byte figures). "
                "Swap (swap_bandwidth, gpumembench's figure): shmembench's swap kernel "
                "(Konstantinidis & Cotronis "
                "SIII-B): each thread owns 6 elements of 4, 8 or 16 bytes in shared memory and "
                "per iteration swaps rows (0,1) (2,3) (4,5), fences, swaps (1,2) (3,4), fences "
                "(2048 iterations, 8 per loop trip); bytes = threads x iterations x 20 accesses "
                "x element size; blocks of 256, every SM full (occupancy enforced with dynamic "
                "shared memory). Normalised as bytes per clock per SM at the observed clock "
                "(Table III's per-SM per-clock form); limit 32 banks x 4 B = 128 B/clk/SM on "
                "CUDA CC >= 7.0. Verified: each thread's six rows read back and compared with "
                "the permutation the host derives from the swap sequence. Latency and bank "
                "conflicts (Volkov S6.1-6.2; MIPP SIV-B): a dependent chain a = sm[a] (64 "
                "loads per trip) through three pages whose word w points to word w of the next "
                "page, so each lane stays in one bank; lane l starts at word l x stride "
                "(stride 0 = broadcast), giving a gcd(stride, 32)-way conflict (strides 0-32 with "
                "--full, a subset by default). One warp: "
                "latency = (time(2n trips) - time(n trips)) x clock / (64 n). Every SM full: "
                "throughput = warp loads x 128 B / (time x clock x SMs). Verified: every lane "
                "must end on the word its start and the trip count predict.",
        },
    .needs_caps = GC_CAP_DYN_SHARED,
    .run = run_shared,
    .sources = sources_shared,
    .report = &shared_report,
};

/* ---- workload for the energy meter (bench/workload.h) -------------------- */

/* The element size of the best conflict-free load, when the record's shape
 * is the full one this device gives; else 16-byte elements (the size that
 * reaches the peak on the GPUs it ran on). */
void gc__shared_pick(const struct gc_session *s, struct gc_best_elem *c, struct gc_cfg_pick *p)
{
    const struct gc_best_elem *b;
    int per_cu = shape_per_cu(&s->dev->info);

    memset(p, 0, sizeof(*p));
    snprintf(p->bench, sizeof(p->bench), "%s", gc__bench_shared.info.name);
    *c = (struct gc_best_elem){16, per_cu};
    if (!(b = gc__best_get(s, p->bench, sizeof(*b))))
        return;
    if (b->elem_bytes != 4 && b->elem_bytes != 8 && b->elem_bytes != 16)
        gc__cfg_refuse(p, "%d-byte elements are not a kernel of the benchmark", b->elem_bytes);
    else if (b->blocks_per_cu != per_cu)
        gc__cfg_refuse(p, "%d blocks per CU is not the full shape of this device (%d)",
                       b->blocks_per_cu, per_cu);
    else {
        *c = *b;
        p->origin = GC_CFG_BEST;
    }
}

/* The conflict-free load kernel at the element size of gc__shared_pick over
 * a full device, every thread's sum checked after one launch as the
 * bandwidth measurement checks it. */
int gc__shared_workload(struct gc_session *s, struct gc_workload *w)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    struct gc_best_elem pc;
    struct gc_cfg_pick pick;

    gc__shared_pick(s, &pc, &pick);
    int bytes = pc.elem_bytes, ld_iters = gpu ? 4096 : 64, rc;
    int ncomp = bytes / 4, n = SH_LD_BYTES / bytes, per = n / SH_BLOCK;
    uint32_t seed = (uint32_t)(s->seed ^ (s->seed >> 29)) ^ 0xC3A5u;
    struct shape sh;
    uint32_t *got;

    w->req[0].label = "energy_shared_load";
    w->req[0].src = gen_load(d->ops->dialect, 0, bytes, ld_iters);
    w->nreq = 1;
    if (!w->req[0].src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(s, w->req, 1)))
        return rc;
    if ((rc = d->ops->kernel(w->req[0].prog, "gc_shload", &w->k))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    if ((rc = full_shape(d, w->k, SH_LD_BYTES, &sh)))
        return rc;
    size_t nthreads = (size_t)sh.grid * SH_BLOCK;
    if ((rc = gc__dev_alloc(d, nthreads * 4, &w->bufs[0])) ||
        (rc = gc__dev_fill_random(d, w->bufs[0], nthreads * 4, seed + 7u)))
        return rc;
    w->args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[0]};
    w->args[1] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = seed};
    w->l = (struct gc_launch){{sh.grid, 1, 1}, {SH_BLOCK, 1, 1}, sh.dyn, w->args, 2, 1};
    if ((rc = gc__workload_launch_once(d, w)))
        return rc;
    got = w->host[0] = malloc(nthreads * 4);
    if (!got)
        return GC_ENOMEM;
    if ((rc = gc__dev_read(d, w->bufs[0], 0, got, nthreads * 4)))
        return rc;
    for (size_t g = 0; g < nthreads; g++) {
        uint32_t blk = (uint32_t)(g / SH_BLOCK), tid = (uint32_t)(g % SH_BLOCK), sum = 0;
        for (uint32_t p = 0; p < SH_LD_PERIOD; p++)
            for (int u = 0; u < per; u++) {
                uint32_t e = (tid ^ (p << 5)) + (uint32_t)(u * SH_BLOCK);
                uint32_t h = (blk * (uint32_t)n + e) * (uint32_t)ncomp;
                for (int c = 0; c < ncomp; c++)
                    sum += ((h + (uint32_t)c) * 2654435761u) ^ seed;
            }
        uint32_t want = sum * (uint32_t)(ld_iters / SH_LD_PERIOD);
        if (got[g] != want) {
            snprintf(w->why, sizeof(w->why),
                     "verification failed (shared loads): thread %zu summed 0x%08x, expected "
                     "0x%08x",
                     g, got[g], want);
            return GC_EVERIFY;
        }
    }
    /* Bytes delivered: every thread loads SH_LD_BYTES / SH_BLOCK per trip. */
    w->bytes = (double)nthreads * ld_iters * (SH_LD_BYTES / SH_BLOCK);
    w->ops = w->bytes / bytes;
    w->op_unit = "access";
    /* One warp-wide 16-byte load is four 128-byte wavefronts. */
    w->transactions = w->bytes / 128;
    w->spec_per_clk_cu = NAN;
    w->warps_per_cu = sh.per_cu * SH_BLOCK / 32;
    gc__workload_describe(w, &pick, "memory.shared load kernel",
                          "%d-byte elements, conflict-free, %d trips, %s", bytes, ld_iters,
                          sh.note);
    return 0;
}
