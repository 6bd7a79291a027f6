/* memory.dram.{read,write,copy,triad}: sustained DRAM bandwidth of the four
 * STREAM kernels, best over vector width, unroll, block size and occupancy
 * (MIPP §IV-B DRAM throughput; Lemeire §VI-A copy kernel; uCLbench §2.2
 * global streaming bandwidth). Bytes are counted as read + written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/dram/dram.h"
#include "bench/dram/verify.h"
#include "core/cpucache.h"
#include "core/cpulimits.h"
#include "bench/launchcfg.h"
#include "core/devfill.h"
#include "core/harness.h"
#include "util/hostmem.h"
#include "util/random.h"
#include "core/sweep.h"
#include "core/occupancy.h"
#include "core/stats.h"
#include "core/kcache.h"

#define MAX_CFG 48
/* The largest tile (1024 threads x 16 vectors x 16 bytes): buffers are a
 * whole number of them, so every configuration covers the same bytes. */
#define TILE_GRAIN ((size_t)1024 * 16 * 16)

struct dcfg {
    struct gc_stream_cfg sc;
    bool persistent; /* grid = resident blocks; else one tile per block */
    bool baseline;   /* the BabelStream-like reference configuration */
};

/* Writes the configuration into the benchmark's result (core/benchcfg.h). */
static int dram_config_write(struct gc_bench_result *r, const struct dcfg *c);

/* Footprint of each streamed buffer: far above the last-level cache so that
 * every sample streams from DRAM (no flush needed), bounded by the device. */
static size_t buffer_bytes(enum gc_profile p, const struct gc_device_info *i, int nbufs)
{
    size_t lo, hi, want;

    switch (p) {
    case GC_PROFILE_QUICK:
        lo = 16u << 20;
        hi = 256u << 20;
        break;
    case GC_PROFILE_FULL:
        lo = 256u << 20;
        hi = (size_t)4 << 30;
        break;
    default:
        lo = 64u << 20;
        hi = (size_t)1 << 30;
        break;
    }
    if (i->type != GC_DEVICE_GPU)
        hi = lo; /* CPUs: keep runs short; the footprint still exceeds caches */
    want = i->l2_size ? 16 * i->l2_size : i->type == GC_DEVICE_GPU ? hi : lo;
    want = want < lo ? lo : want > hi ? hi : want;
    if (i->max_alloc && want > i->max_alloc)
        want = i->max_alloc;
    if (i->global_mem && want > i->global_mem / (2 * (size_t)nbufs))
        want = i->global_mem / (2 * (size_t)nbufs);
    /* 32-bit vector indices in the kernels. */
    if (want > (size_t)4 << 30)
        want = (size_t)4 << 30;
    return want / TILE_GRAIN * TILE_GRAIN;
}

/* CPU devices: the streamed buffers together hold GC_CPU_DRAM_LLC_FACTOR
 * times the last-level cache (a CPU's LLC can exceed the GPU-style 16 MiB
 * floor many times over: streaming less measures the cache), each a whole
 * number of tiles, within the bounds of cpu_dram_cap. A host whose caches
 * nothing reports (no OpenCL figure, sysfs, sysconf or cpuid) streams
 * CPU_DRAM_UNKNOWN_LLC bytes in all. 0, with why, when the device cannot
 * hold 16 MiB per buffer: then there is no DRAM figure. note says how the
 * size was chosen. */
#define CPU_DRAM_UNKNOWN_LLC ((size_t)1 << 30)

/* The most bytes all buffers may hold together and the bound that sets it:
 * half the device's memory, half the host memory a new allocation may take
 * (MemAvailable, and the address-space limit), and the time bound
 * (gc__cpu_stream_bound: 1 GiB, 4 GiB with --full), where a virtual
 * machine that reports its host socket's whole L3 (512 MiB) would
 * otherwise stream 2 GiB per launch on two cores. */
static size_t cpu_dram_cap(enum gc_profile p, const struct gc_device_info *i, int nbufs,
                           const char **bound)
{
    size_t cap = gc__cpu_stream_bound(p);
    size_t host = gc__host_mem_available();

    *bound = p == GC_PROFILE_FULL ? "the time bound of --full (4 GiB)"
                                  : "the time bound (1 GiB; 4 GiB with --full)";
    if (i->global_mem && i->global_mem / 2 < cap) {
        cap = i->global_mem / 2;
        *bound = "half the device's memory";
    }
    size_t room = gc__host_as_room(NULL);

    if (host && host / 2 < cap) {
        cap = host / 2;
        *bound = "half the host memory available to a new allocation";
    }
    if (room != SIZE_MAX && room / 2 < cap) {
        cap = room / 2;
        *bound = "half the address space the process may still map (ulimit -v)";
    }
    if (i->max_alloc && i->max_alloc * (size_t)nbufs < cap) {
        cap = i->max_alloc * (size_t)nbufs;
        *bound = "the device's largest buffer";
    }
    return cap;
}

static size_t cpu_buffer_bytes(enum gc_profile p, const struct gc_device_info *i, int nbufs,
                               char *why, size_t len, char *note, size_t nlen)
{
    size_t llc = gc__cpu_llc_bytes(i), total, cap, want, lo = (size_t)16 << 20;
    const char *bound;
    char facts[160];

    gc__cpu_caches_describe(gc__cpu_caches(), facts, sizeof(facts));
    total = llc ? GC_CPU_DRAM_LLC_FACTOR * llc : CPU_DRAM_UNKNOWN_LLC;
    cap = cpu_dram_cap(p, i, nbufs, &bound);
    if (llc)
        snprintf(note, nlen,
                 "each streamed buffer; all %d together %dx the %.0f MiB last-level cache "
                 "(device %.0f KiB; host %s)",
                 nbufs, GC_CPU_DRAM_LLC_FACTOR, (double)llc / (1 << 20), (double)i->l2_size / 1024,
                 facts);
    else
        snprintf(note, nlen,
                 "each streamed buffer; no cache size is known (the device reports none; host: "
                 "%s): %.0f MiB in all, %dx the last level of CPUs with up to %.0f MiB",
                 facts, (double)CPU_DRAM_UNKNOWN_LLC / (1 << 20), GC_CPU_DRAM_LLC_FACTOR,
                 (double)CPU_DRAM_UNKNOWN_LLC / GC_CPU_DRAM_LLC_FACTOR / (1 << 20));
    if (total > cap) {
        size_t used = strlen(note);

        snprintf(note + used, nlen - used,
                 "; bounded to %.0f MiB in all by %s (a part of the stream may stay cached)",
                 (double)cap / (1 << 20), bound);
        total = cap;
    }
    /* Rounded up to the grain: the buffers together hold at least total. */
    want = ((total + (size_t)nbufs - 1) / (size_t)nbufs + TILE_GRAIN - 1) / TILE_GRAIN * TILE_GRAIN;
    if (want < lo)
        want = lo;
    /* 32-bit vector indices in the kernels. */
    if (want > (size_t)4 << 30)
        want = ((size_t)4 << 30) / TILE_GRAIN * TILE_GRAIN;
    if (want * (size_t)nbufs > cap + (size_t)nbufs * TILE_GRAIN) {
        snprintf(why, len,
                 "not available on this device: a DRAM figure needs %d buffer(s) of at least "
                 "%.0f MiB, and %s allows %.0f MiB in all",
                 nbufs, (double)want / (1 << 20), bound, (double)cap / (1 << 20));
        return 0;
    }
    return want;
}

static void add_cfg(struct dcfg *c, int *n, enum gc_stream_op op, int vec, int unroll, int block,
                    bool persistent, enum gc_ldpath ld, bool st_cs, bool baseline,
                    const struct gc_device_info *info, size_t bytes)
{
    if (*n >= MAX_CFG || (info->max_threads_per_block && block > info->max_threads_per_block))
        return;
    struct dcfg *d = &c[(*n)++];
    d->sc = (struct gc_stream_cfg){op, vec, block, unroll, 0, ld, st_cs, 1};
    d->sc.tiles = (unsigned)(bytes / gc__stream_tile_bytes(&d->sc));
    d->persistent = persistent;
    d->baseline = baseline;
    if (!persistent)
        while (d->sc.tiles / d->sc.ts_stride > 4096)
            d->sc.ts_stride *= 2;
}

/* The sweep. GPUs: 16-byte vectors over unroll x block x (resident grid,
 * one tile per block), narrower vectors on fewer points, the read-only load
 * path and streaming stores on CUDA, and the BabelStream-like reference
 * (one 8-byte element per thread, 1024-thread blocks, one pass). */
static int build_cfgs(enum gc_profile p, const struct gc_device_info *info, enum gc_stream_op op,
                      size_t bytes, struct dcfg *c)
{
    int n = 0;
    bool cuda = info->caps & GC_CAP_CACHE_HINTS;
    bool gpu = info->type == GC_DEVICE_GPU;
    struct gc_arch row;
    const struct gc_arch *arch = &row;

    gc__arch_lookup(info, &row);
    bool loads = op != GC_STREAM_WRITE, stores = op != GC_STREAM_READ;

    if (p == GC_PROFILE_QUICK || !gpu) {
        /* CPUs: one tile per work-group and the reference only (each pass
         * streams GC_CPU_DRAM_LLC_FACTOR x the last-level cache). A CPU
         * runs a work-group's items one after the other, so in the
         * grid-stride form each item walks the whole buffer a grid's width
         * apart: one line per access, 3-8% of the tiles' rate on PoCL. */
        if (gpu)
            add_cfg(c, &n, op, 16, 4, 256, true, GC_LD_DEFAULT, false, false, info, bytes);
        add_cfg(c, &n, op, 16, 4, 512, false, GC_LD_DEFAULT, false, false, info, bytes);
        if (gpu)
            add_cfg(c, &n, op, 16, 8, 1024, false, GC_LD_DEFAULT, false, false, info, bytes);
        add_cfg(c, &n, op, 8, 1, 1024, false, GC_LD_DEFAULT, false, true, info, bytes);
        return n;
    }
    static const int u16[] = {2, 4, 8}, b16[] = {256, 512, 1024};
    for (int pm = 0; pm < 2; pm++)
        for (int u = pm; u < 3; u++) /* one tile per block: unroll 4 and 8 */
            for (int b = 0; b < 3; b++)
                add_cfg(c, &n, op, 16, u16[u], b16[b], pm == 0, GC_LD_DEFAULT, false, false, info,
                        bytes);
    /* Narrower vectors on the resident grid only: they trail the 16-byte
     * ones in both grid modes and serve the vector-width series. */
    static const int b8[] = {256, 1024};
    for (int b = 0; b < 2; b++) {
        add_cfg(c, &n, op, 8, 4, b8[b], true, GC_LD_DEFAULT, false, false, info, bytes);
        add_cfg(c, &n, op, 8, 8, b8[b], true, GC_LD_DEFAULT, false, false, info, bytes);
        add_cfg(c, &n, op, 4, 16, b8[b], true, GC_LD_DEFAULT, false, false, info, bytes);
    }
    if (cuda)
        for (int u = 4; u <= 8; u *= 2)
            for (int b = 256; b <= 1024; b *= 4) {
                if (loads)
                    add_cfg(c, &n, op, 16, u, b, true, GC_LD_NC, false, false, info, bytes);
                if (stores)
                    add_cfg(c, &n, op, 16, u, b, true, GC_LD_DEFAULT, true, false, info, bytes);
            }
    if (cuda && op == GC_STREAM_READ) {
        /* What may lift the read figure (sm_80+): streaming hints (no L1
         * allocation, 256-byte L2 fetches), 32 contiguous bytes per thread
         * as two 16-byte loads back to back, small blocks. */
        if (arch->load_hints) {
            static const enum gc_ldpath hints[] = {GC_LD_NC_NOALLOC, GC_LD_NC_NOALLOC_PF256,
                                                   GC_LD_PF256};
            for (int h = 0; h < 3; h++)
                add_cfg(c, &n, op, 16, 4, 512, true, hints[h], false, false, info, bytes);
            add_cfg(c, &n, op, 16, 8, 512, true, GC_LD_NC_NOALLOC_PF256, false, false, info, bytes);
            add_cfg(c, &n, op, 16, 4, 1024, true, GC_LD_NC_NOALLOC_PF256, false, false, info,
                    bytes);
            add_cfg(c, &n, op, 32, 2, 512, true, GC_LD_NC_NOALLOC_PF256, false, false, info, bytes);
        }
        add_cfg(c, &n, op, 32, 2, 256, true, GC_LD_DEFAULT, false, false, info, bytes);
        add_cfg(c, &n, op, 32, 2, 512, true, GC_LD_DEFAULT, false, false, info, bytes);
        add_cfg(c, &n, op, 32, 4, 512, true, GC_LD_DEFAULT, false, false, info, bytes);
        add_cfg(c, &n, op, 16, 4, 128, true, GC_LD_DEFAULT, false, false, info, bytes);
    }
    if (cuda && (op == GC_STREAM_COPY || op == GC_STREAM_TRIAD) && arch->load_hints)
        add_cfg(c, &n, op, 16, 4, 512, true, GC_LD_NC_NOALLOC_PF256, true, false, info, bytes);
    add_cfg(c, &n, op, 8, 1, 1024, false, GC_LD_DEFAULT, false, true, info, bytes);
    return n;
}

/* Label suffix and description of a load path. */
static const char *ld_suffix(enum gc_ldpath ld)
{
    switch (ld) {
    case GC_LD_NC:
        return "_nc";
    case GC_LD_NC_NOALLOC:
        return "_ncna";
    case GC_LD_NC_NOALLOC_PF256:
        return "_ncna256";
    case GC_LD_PF256:
        return "_pf256";
    default:
        return "";
    }
}

static const char *ld_words(enum gc_ldpath ld)
{
    switch (ld) {
    case GC_LD_NC:
        return ", read-only loads";
    case GC_LD_NC_NOALLOC:
        return ", ld.global.nc.L1::no_allocate";
    case GC_LD_NC_NOALLOC_PF256:
        return ", ld.global.nc.L1::no_allocate.L2::256B";
    case GC_LD_PF256:
        return ", ld.global.L2::256B";
    default:
        return "";
    }
}

static void cfg_label(const struct dcfg *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s_v%d_u%d_b%d_%s%s%s", gc__stream_op_name(c->sc.op), c->sc.vec_bytes,
             c->sc.unroll, c->sc.block, c->persistent ? "grid" : "tiles", ld_suffix(c->sc.ld),
             c->sc.st_cs ? "_cs" : "");
}

static void cfg_describe(const struct dcfg *c, unsigned grid, int per_cu, char *buf, size_t len)
{
    const char *pair = c->sc.vec_bytes == 32 ? " (two 16-byte loads back to back)" : "";

    if (c->persistent)
        snprintf(buf, len,
                 "%d-byte vectors%s, %d per thread per tile, block %d, %u blocks (%d per "
                 "CU, grid-stride)%s%s%s",
                 c->sc.vec_bytes, pair, c->sc.unroll, c->sc.block, grid, per_cu, ld_words(c->sc.ld),
                 c->sc.st_cs ? ", streaming stores" : "", c->baseline ? ", reference" : "");
    else
        snprintf(buf, len,
                 "%d-byte vectors%s, %d per thread, block %d, %u blocks (one tile each)%s%s%s",
                 c->sc.vec_bytes, pair, c->sc.unroll, c->sc.block, grid, ld_words(c->sc.ld),
                 c->sc.st_cs ? ", streaming stores" : "", c->baseline ? ", BabelStream-like" : "");
}

/* Bytes one launch moves: every streamed buffer once, plus the read
 * kernel's per-thread sums. */
static double moved_bytes(const struct dcfg *c, size_t bytes, unsigned grid)
{
    switch (c->sc.op) {
    case GC_STREAM_READ:
        return (double)bytes + 4.0 * grid * c->sc.block;
    case GC_STREAM_WRITE:
        return (double)bytes;
    case GC_STREAM_COPY:
        return 2.0 * (double)bytes;
    default:
        return 3.0 * (double)bytes;
    }
}

/* Resident blocks per compute unit for a grid-stride launch: the thread
 * limit, and on CUDA what the occupancy calculator says fits. */
static int resident_blocks(struct gc_device *d, struct gc_kern *k, int block)
{
    const struct gc_device_info *i = &d->info;
    int per_cu = i->max_threads_per_cu > 0 ? i->max_threads_per_cu / block : 2;
    int api = 0;

    if (per_cu < 1)
        per_cu = 1;
    if (i->max_blocks_per_cu > 0 && per_cu > i->max_blocks_per_cu)
        per_cu = i->max_blocks_per_cu;
    if ((i->caps & GC_CAP_OCCUPANCY_API) && gc__dev_max_active_blocks(d, k, block, 0, &api) == 0 &&
        api > 0 && api < per_cu)
        per_cu = api;
    return per_cu;
}

/* The word outputs are poisoned with before each measurement: a kernel that
 * skips a word leaves it, and a random expected word equals it with
 * probability 2^-32. */
#define POISON 0xDEADBEEFu

/* One run of the sweep: what the harness's callbacks share. */
struct dram_run {
    const struct gc_dram_param *pm;
    enum gc_stream_op op;
    int nb, nstream;
    size_t bytes;
    unsigned flags;
    uint32_t karg;
    uint64_t seed;
    struct gc_buf *bufs[3]; /* the streamed buffers (pooled), in argument order */
    const char *size_note;  /* CPUs: how the buffer size was chosen */
};

static int dram_setup(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out)
{
    const struct dram_run *dr = h->d->user;
    const struct dcfg *cf = c->user;
    struct gc_device *d = h->s->dev;
    unsigned grid = cf->sc.tiles;
    int per_cu = 0, na = 0, rc;

    if (cf->persistent) {
        per_cu = resident_blocks(d, c->k, cf->sc.block);
        grid = (unsigned)(per_cu * (d->info.compute_units > 0 ? d->info.compute_units : 1));
        if (grid > cf->sc.tiles)
            grid = cf->sc.tiles;
    }
    cfg_describe(cf, grid, per_cu, out->desc, sizeof(out->desc));
    /* The read kernel's per-thread sums: a buffer of this launch's size. */
    if (dr->op == GC_STREAM_READ &&
        (rc = gc__dev_alloc(d, (size_t)grid * (size_t)cf->sc.block * 4, &out->own[0])))
        return rc;
    for (int b = 0; b < dr->nb; b++)
        out->args[na++] = (struct gc_arg){
            .type = GC_ARG_BUF,
            .v.buf = dr->op == GC_STREAM_READ && b == 1 ? out->own[0] : dr->bufs[b]};
    if (dr->op == GC_STREAM_WRITE || dr->op == GC_STREAM_TRIAD)
        out->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = dr->karg};
    if (dr->flags & GC_KGEN_TIMESTAMPS) {
        unsigned nrec = (grid + cf->sc.ts_stride - 1) / cf->sc.ts_stride;

        if ((rc = gc__dev_alloc(d, (size_t)nrec * GC_TS_WORDS * 8, &out->own[1])))
            return rc;
        out->ts = (struct gc_timestamps){out->own[1], nrec};
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = out->own[1]};
    }
    out->l = (struct gc_launch){{grid, 1, 1}, {(unsigned)cf->sc.block, 1, 1}, 0, out->args, na, 1};
    out->work = moved_bytes(cf, dr->bytes, grid);
    return 0;
}

static struct gc_buf *dram_output(const struct dram_run *dr, const struct gc_hconf *c,
                                  size_t *bytes)
{
    const struct dcfg *cf = c->user;

    if (dr->op == GC_STREAM_READ) {
        *bytes = (size_t)c->hl.l.grid[0] * (size_t)cf->sc.block * 4;
        return c->hl.own[0];
    }
    *bytes = dr->bytes;
    return dr->bufs[dr->nb - 1];
}

static int dram_before(struct gc_harness *h, struct gc_hconf *c)
{
    size_t bytes;
    struct gc_buf *o = dram_output(h->d->user, c, &bytes);

    return gc__devfill_word(h->s, o, bytes, POISON);
}

/* The expected word i of a write/copy/triad output, or the expected sum of
 * thread th of a read launch, from the generator alone. */
static uint32_t expect_word(const struct dram_run *dr, size_t i)
{
    switch (dr->op) {
    case GC_STREAM_WRITE:
        return gc__stream_pattern(dr->karg, i);
    case GC_STREAM_COPY:
        return gc__hash32(dr->seed, i);
    default:
        return gc__hash32(dr->seed, i) + dr->karg * gc__hash32(dr->seed + 1, i);
    }
}

static uint32_t expect_sum(const struct dram_run *dr, const struct dcfg *cf, unsigned grid,
                           size_t th)
{
    size_t vw = (size_t)cf->sc.vec_bytes / 4, tv = (size_t)cf->sc.block * cf->sc.unroll;
    size_t blk = th / (size_t)cf->sc.block, tid = th % (size_t)cf->sc.block;
    uint32_t sum = 0;

    for (size_t t = blk; t < cf->sc.tiles; t += grid)
        for (size_t p = tid; p < tv; p += (size_t)cf->sc.block)
            for (size_t w = 0; w < vw; w++)
                sum += gc__hash32(dr->seed, (t * tv + p) * vw + w);
    return sum;
}

/* After the device's count: a few words (threads) recomputed on the host
 * from the generator, so that a fill or a check that went wrong in the same
 * way as the kernel cannot pass. */
static int spot_check(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    const struct dram_run *dr = h->d->user;
    const struct dcfg *cf = c->user;
    size_t bytes, words;
    struct gc_buf *o = dram_output(dr, c, &bytes);
    uint64_t rng = dr->seed ^ (uint64_t)(c - h->cfg) ^ 0x5107ULL;

    words = bytes / 4;
    for (int k = 0; k < 8; k++) {
        size_t i = k == 0 ? 0 : k == 1 ? words - 1 : (size_t)(gc__xorshift64s(&rng) % words);
        uint32_t got = 0, want;
        int rc = gc__dev_read(h->s->dev, o, i * 4, &got, 4);

        if (rc)
            return rc;
        want =
            dr->op == GC_STREAM_READ ? expect_sum(dr, cf, c->hl.l.grid[0], i) : expect_word(dr, i);
        if (got != want) {
            snprintf(msg, len, "%s: word %zu is 0x%08x, expected 0x%08x",
                     dr->op == GC_STREAM_READ ? "per-thread sum" : gc__stream_op_name(dr->op), i,
                     got, want);
            return GC_EVERIFY;
        }
    }
    return 0;
}

/* On the device where it can (a check kernel against the inputs already
 * there, then the spot check), else the whole output on the host. */
static int dram_verify(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    const struct dram_run *dr = h->d->user;
    const struct dcfg *cf = c->user;
    struct gc_session *s = h->s;
    unsigned grid = c->hl.l.grid[0];
    size_t bytes;
    struct gc_buf *o = dram_output(dr, c, &bytes);
    struct gc_check ck = {
        .kind = GC_CHECK_EQ, .want = dr->bufs[0], .got = o, .words = bytes / 4, .arg = dr->karg};
    int rc;

    switch (dr->op) {
    case GC_STREAM_READ: {
        struct gc_check_read cr = {dr->bufs[0],
                                   o,
                                   cf->sc.tiles,
                                   (unsigned)(cf->sc.block * cf->sc.unroll),
                                   (unsigned)cf->sc.vec_bytes / 4,
                                   grid,
                                   (unsigned)cf->sc.block};
        rc = gc__devcheck_read(s, &cr, msg, len);
        break;
    }
    case GC_STREAM_WRITE:
        ck.kind = GC_CHECK_PATTERN;
        rc = gc__devcheck(s, &ck, msg, len);
        break;
    case GC_STREAM_TRIAD:
        ck = (struct gc_check){.kind = GC_CHECK_TRIAD,
                               .b = dr->bufs[0],
                               .c = dr->bufs[1],
                               .got = o,
                               .words = bytes / 4,
                               .arg = dr->karg};
        rc = gc__devcheck(s, &ck, msg, len);
        break;
    default:
        rc = gc__devcheck(s, &ck, msg, len);
        break;
    }
    if (rc == 0)
        return spot_check(h, c, msg, len);
    if (rc != GC_ENOTSUP && rc != GC_EVERIFY)
        return rc;
    /* The host path: the whole output, and the first wrong word named. */
    struct gc_stream_data in = {
        {dr->bufs[0], dr->op == GC_STREAM_READ ? o : dr->bufs[1], dr->bufs[2]},
        {dr->seed, dr->seed + 1},
        dr->karg,
        dr->bytes,
        grid,
        true};
    int hrc = gc__stream_verify(s->dev, &cf->sc, &in, msg, len);
    if (hrc == 0 && rc == GC_EVERIFY) {
        /* The device counted a difference the host does not see. */
        snprintf(msg + strlen(msg), len - strlen(msg) > 0 ? len - strlen(msg) : 0,
                 " (on the device; the host's comparison found none)");
        return GC_EVERIFY;
    }
    return hrc;
}

/* One series per vector width some configuration uses, along the block size;
 * series_of_vec maps a width to its series. */
static int add_vec_series(struct gc_bench_result *r, const struct dcfg *cfgs, int ncfg,
                          int series_of_vec[33])
{
    for (int v = 4, k = r->nseries; v <= 32; v *= 2) {
        bool used = false;
        char name[48];

        for (int c = 0; c < ncfg; c++)
            used = used || cfgs[c].sc.vec_bytes == v;
        if (!used)
            continue;
        snprintf(name, sizeof(name), "bandwidth_vec%dB", v);
        if (!gc__bench_add_series(r, name, "block size", "threads", "bandwidth", "B/s"))
            return GC_ENOMEM;
        series_of_vec[v] = k++;
    }
    return 0;
}

/* Each configuration as a harness entry: its kernel, its point on its
 * series, and its group (the first configuration with the same all-but-
 * block). */
static int add_configs(struct gc_harness *h, const struct dram_run *dr, const struct dcfg *cfgs,
                       int ncfg, const int series_of_vec[33])
{
    struct gc_device *d = h->s->dev;

    for (int c = 0; c < ncfg; c++) {
        const struct dcfg *cf = &cfgs[c];
        struct gc_hconf *hc = gc__harness_add(h);

        if (!hc)
            return GC_ENOMEM;
        cfg_label(cf, hc->label, sizeof(hc->label));
        hc->src = gc__gen_stream(d->ops->dialect, dr->flags, &cf->sc);
        hc->kernel = "gc_stream";
        hc->series = series_of_vec[cf->sc.vec_bytes];
        hc->x = cf->sc.block;
        snprintf(hc->point, sizeof(hc->point), "u%d %s%s%s", cf->sc.unroll,
                 cf->persistent ? "grid-stride" : "one tile/block", ld_suffix(cf->sc.ld),
                 cf->sc.st_cs ? " cs" : "");
        hc->always_refine = cf->baseline;
        hc->user = cf;
        for (int g = 0; g <= c && hc->group < 0; g++)
            if (cfgs[g].sc.vec_bytes == cf->sc.vec_bytes && cfgs[g].sc.unroll == cf->sc.unroll &&
                cfgs[g].persistent == cf->persistent && cfgs[g].sc.ld == cf->sc.ld &&
                cfgs[g].sc.st_cs == cf->sc.st_cs && cfgs[g].baseline == cf->baseline)
                hc->group = g;
    }
    return 0;
}

/* The streamed buffers come from the run's pool: the inputs are filled once
 * and shared with the other memory.dram.* benchmarks. */
static int pool_buffers(struct gc_session *s, struct dram_run *dr)
{
    static const char *const keys[3] = {"stream.in0", "stream.in1", "stream.out"};

    for (int b = 0; b < dr->nstream; b++) {
        bool input = dr->op == GC_STREAM_READ || b < dr->nb - 1;
        int rc = input ? gc__pool_input(s, keys[b], dr->bytes, dr->seed + (uint64_t)b, &dr->bufs[b])
                       : gc__pool_output(s, keys[2], dr->bytes, &dr->bufs[b]);
        if (rc)
            return rc;
    }
    return 0;
}

/* The best configuration's bandwidth against its limit, and per clock and
 * compute unit. */
static void add_bandwidth_metrics(struct gc_harness *h, const struct dram_run *dr,
                                  struct gc_bench_result *r, double *limit_out)
{
    const struct gc_device_info *info = &h->s->dev->info;
    bool cpu = info->type == GC_DEVICE_CPU;
    const struct gc_hconf *bc = &h->cfg[h->best];
    const struct gc_measurement *best = &bc->m;
    struct gc_stats bw = bc->stats;
    double best_moved = bc->hl.work;
    char name[64], note[640], how[200];
    double limit = isfinite(info->mem_bw_spec) ? info->mem_bw_spec : NAN;

    if (cpu) {
        /* The cores' loads and stores bound every level; the read kernel's
         * per-thread sums are stored besides its loads. */
        int rd = dr->op == GC_STREAM_WRITE ? 0 : dr->op == GC_STREAM_TRIAD ? 2 : 1;
        int wr = dr->op == GC_STREAM_READ ? 0 : 1;
        limit = gc__cpu_stream_limit(info, rd, wr) * best_moved / ((double)dr->bytes * (rd + wr));
    }
    gc__harness_note(h, how, sizeof(how));
    snprintf(name, sizeof(name), "%s_bandwidth", dr->pm->metric);
    snprintf(note, sizeof(note), "%s: %s; %d x %.0f MiB streamed, %d launches/sample", how,
             bc->hl.desc, dr->nstream, (double)dr->bytes / (1 << 20), best->launches_per_sample);
    if (cpu) {
        char cl[200];
        size_t n = strlen(note);

        gc__cpu_limit_note(info, dr->op == GC_STREAM_WRITE ? GC_CPU_STORE : GC_CPU_LOAD, cl,
                           sizeof(cl));
        snprintf(note + n, sizeof(note) - n, "; %s", cl);
    }
    gc__bench_add_metric(r, name, bw.median, "B/s", limit, &bw, note);
    if (isfinite(best->clock_mhz) && info->compute_units > 0) {
        snprintf(name, sizeof(name), "%s_bytes_per_clk_per_cu", dr->pm->metric);
        gc__bench_add_metric(r, name, bw.median / (best->clock_mhz * 1e6 * info->compute_units),
                             "B/clk/CU",
                             cpu ? limit / (best->clock_mhz * 1e6 * info->compute_units) : NAN,
                             NULL, "at the observed SM clock");
    }
    *limit_out = limit;
}

/* The reference configurations against the best one, and the buffer size
 * against the cache the device reports. */
static void add_context_metrics(struct gc_harness *h, const struct dram_run *dr,
                                struct gc_bench_result *r, double limit)
{
    const struct gc_device_info *info = &h->s->dev->info;
    double best_bw = h->cfg[h->best].stats.median;
    char note[640];

    for (int c = 0; c < h->ncfg; c++) {
        const struct gc_hconf *base = &h->cfg[c];

        if (!base->always_refine || base->state != GC_H_REFINED)
            continue;
        snprintf(note, sizeof(note), "%s; the best configuration reaches %.1f%% of it",
                 base->hl.desc, 100.0 * best_bw / base->value);
        gc__bench_add_metric(r, "baseline_bandwidth", base->value, "B/s", limit, &base->stats,
                             note);
    }
    if (dr->size_note && dr->size_note[0])
        snprintf(note, sizeof(note), "%s", dr->size_note);
    else if (info->l2_size)
        snprintf(note, sizeof(note),
                 "each streamed buffer; %.1fx the %.0f KiB cache the device "
                 "reports",
                 (double)dr->bytes / (double)info->l2_size, (double)info->l2_size / 1024);
    else
        snprintf(note, sizeof(note), "each streamed buffer; the device reports no cache size");
    gc__bench_add_metric(r, "buffer_size", (double)dr->bytes, "B", NAN, NULL, note);
}

/* The run's compile plan: the kernels gc__dram_run's configurations
 * request, as it generates them. */
static int dram_plan(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out,
                     int *n)
{
    const struct gc_dram_param *pm = self->param;
    const struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    int nstream = pm->op == GC_STREAM_READ ? 1 : gc__stream_nbufs(pm->op);
    unsigned need = GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER | GC_CAP_SMID;
    unsigned flags = (info->caps & need) == need ? GC_KGEN_TIMESTAMPS : 0;
    char why[400], note[640];
    size_t bytes = info->type == GC_DEVICE_CPU ? cpu_buffer_bytes(s->profile, info, nstream, why,
                                                                  sizeof(why), note, sizeof(note))
                                               : buffer_bytes(s->profile, info, nstream);
    struct dcfg cfgs[MAX_CFG];
    struct gc_ksrc *k;
    int ncfg;

    *out = NULL;
    *n = 0;
    if (bytes == 0)
        return 0;
    ncfg = build_cfgs(s->profile, info, pm->op, bytes, cfgs);
    if (!(k = calloc((size_t)(ncfg > 0 ? ncfg : 1), sizeof(*k))))
        return GC_ENOMEM;
    for (int c = 0; c < ncfg; c++) {
        cfg_label(&cfgs[c], k[c].label, sizeof(k[c].label));
        if (!(k[c].src = gc__gen_stream(d->ops->dialect, flags, &cfgs[c].sc))) {
            gc__ksrc_free(k, c);
            return GC_ENOMEM;
        }
    }
    *out = k;
    *n = ncfg;
    return 0;
}

int gc__dram_run(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    const struct gc_dram_param *pm = self->param;
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    enum gc_stream_op op = pm->op;
    int nb = gc__stream_nbufs(op);
    int nstream = op == GC_STREAM_READ ? 1 : nb; /* buffers of `bytes` each */
    bool cpu = info->type == GC_DEVICE_CPU;
    char why[400] = "", size_note[640] = "";
    size_t bytes = cpu ? cpu_buffer_bytes(s->profile, info, nstream, why, sizeof(why), size_note,
                                          sizeof(size_note))
                       : buffer_bytes(s->profile, info, nstream);
    struct dcfg cfgs[MAX_CFG];
    struct dram_run dr = {
        .pm = pm,
        .op = op,
        .nb = nb,
        .nstream = nstream,
        .bytes = bytes,
        .flags = (info->caps & GC_CAP_CLOCK64) && (info->caps & GC_CAP_GLOBALTIMER) &&
                         (info->caps & GC_CAP_SMID)
                     ? GC_KGEN_TIMESTAMPS
                     : 0,
        .seed = s->seed ^ 0xD7A3ULL,
        .size_note = size_note,
    };
    /* Configurations that share a grid mode, vector, unroll and path form
     * one group along the block size; refine the best 4 screened ones and
     * any within 3% of the best, at most 8, plus the reference (screening
     * samples of 4 ms rank the leaders only to a few percent). CPUs have
     * two or three configurations whose every launch streams a few times
     * the last-level cache (tenths of a second): they are screened too, and
     * the leader and the reference measured in full. */
    struct gc_hdesc desc = {
        .budget_s = 6.0,
        .refine_top = cpu ? 1 : 4,
        .refine_within = 0.03,
        .refine_max = 8,
        .peak_drop = 0.10,
        .peak_after = 2,
        .setup = dram_setup,
        .before = dram_before,
        .verify = dram_verify,
        .user = &dr,
    };
    struct gc_harness h;
    int ncfg, rc = 0, series_of_vec[33] = {0};

    dr.karg = op == GC_STREAM_WRITE ? (uint32_t)(dr.seed >> 17) | 1u : 0x2545F491u;
    gc__harness_init(&h, s, r, &desc);
    if (bytes == 0 && cpu) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "%s", why);
        return 0;
    }
    if (bytes == 0) {
        gc__bench_set_error(r, GC_BENCH_ERROR, "device memory too small for the %s benchmark",
                            self->info.name);
        return GC_ERANGE;
    }
    ncfg = build_cfgs(s->profile, info, op, bytes, cfgs);
    rc = add_vec_series(r, cfgs, ncfg, series_of_vec);
    if (rc == 0)
        rc = add_configs(&h, &dr, cfgs, ncfg, series_of_vec);
    if (rc == 0)
        rc = pool_buffers(s, &dr);
    if (rc)
        goto out;
    /* CPUs in the quick profile: at most three samples, each launch
     * streaming GC_CPU_DRAM_LLC_FACTOR x the last-level cache. */
    if (cpu && s->profile == GC_PROFILE_QUICK)
        gc__sampling_most(&h.sampling, 3);
    rc = gc__harness_run(&h);
    if (h.best >= 0 && (rc == 0 || rc == GC_EINTR)) {
        const struct gc_hconf *bc = &h.cfg[h.best];
        double limit;

        add_bandwidth_metrics(&h, &dr, r, &limit);
        add_context_metrics(&h, &dr, r, limit);
        /* The configuration the figure came from, in the results (the
         * energy meter runs the same launch: dram_launch_at). */
        if (rc == 0 && (rc = dram_config_write(r, bc->user)))
            goto out;
        r->context = bc->m.ctx;
        snprintf(r->stop_rule, sizeof(r->stop_rule), "%s", bc->m.stop_rule);
    }
    if (rc == 0 && gc__stopped(s))
        rc = GC_EINTR;
out:
    gc__harness_free(&h);
    return rc;
}

/* The SASS opcode of one load or store of the configuration (sm_70 and
 * later spellings: plain ld.global is LDG.E, .cg a GPU-scope strong load,
 * .nc the read-only path, st.global.cs an evict-first store). The streaming
 * hints add modifiers whose spelling is left open: their loads are counted
 * as "LDG.E" (a prefix of every global load). A 32-byte vector is two
 * 16-byte loads. */
const char *gc__stream_sass(int vec_bytes, enum gc_ldpath ld, bool store, bool st_cs)
{
    static const char *const lds[3][3] = {
        {"LDG.E", "LDG.E.STRONG.GPU", "LDG.E.CONSTANT"},
        {"LDG.E.64", "LDG.E.64.STRONG.GPU", "LDG.E.64.CONSTANT"},
        {"LDG.E.128", "LDG.E.128.STRONG.GPU", "LDG.E.128.CONSTANT"},
    };
    static const char *const sts[2][3] = {
        {"STG.E", "STG.E.64", "STG.E.128"},
        {"STG.E.EF", "STG.E.EF.64", "STG.E.EF.128"},
    };
    int w = vec_bytes >= 16 ? 2 : vec_bytes == 8 ? 1 : 0;

    if (!store && ld > GC_LD_NC)
        return "LDG.E";
    return store ? sts[st_cs][w] : lds[w][ld];
}

int gc__dram_sources(const struct gc_bench *self, const struct gc_device_info *info,
                     struct gc_ksrc **out, int *n)
{
    const struct gc_dram_param *pm = self->param;
    struct dcfg cfgs[MAX_CFG];
    size_t bytes = buffer_bytes(GC_PROFILE_DEFAULT, info, gc__stream_nbufs(pm->op));
    int nc = build_cfgs(GC_PROFILE_DEFAULT, info, pm->op, bytes, cfgs);
    struct gc_ksrc *k = calloc((size_t)nc, sizeof(*k));

    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    for (int i = 0; i < nc; i++) {
        const struct gc_stream_cfg *c = &cfgs[i].sc;
        int loads = c->op == GC_STREAM_TRIAD ? 2 : c->op == GC_STREAM_WRITE ? 0 : 1;

        cfg_label(&cfgs[i], k[i].label, sizeof(k[i].label));
        k[i].src = gc__gen_stream(gc__kgen_inspect_dialect(), 0, c);
        if (!k[i].src) {
            gc__ksrc_free(k, nc);
            return GC_ENOMEM;
        }
        snprintf(k[i].options, sizeof(k[i].options), "%s", "");
        if (loads)
            k[i].expect[k[i].nexpect++] =
                (struct gc_sass_expect){gc__stream_sass(c->vec_bytes, c->ld, false, false),
                                        loads * c->unroll * (c->vec_bytes == 32 ? 2 : 1)};
        if (c->op != GC_STREAM_READ)
            k[i].expect[k[i].nexpect++] = (struct gc_sass_expect){
                gc__stream_sass(c->vec_bytes, c->ld, true, c->st_cs), c->unroll};
    }
    *out = k;
    *n = nc;
    return 0;
}

#define DRAM_METHOD                                                                                \
    "STREAM kernels (McCalpin; MIPP SIV-B DRAM throughput; Lemeire et al. SVI-A copy kernel; "     \
    "uCLbench S2.2). The buffer is split into tiles of block x unroll vectors of 4, 8 or 16 "      \
    "bytes; thread t loads vectors t, t + block, ... of a tile (all before use, so unroll "        \
    "requests per thread are in flight) and block b takes tiles b, b + grid, ... in a rolled "     \
    "grid-stride loop whose bound is a literal. The grid is either the resident blocks "           \
    "(threads per CU / block, checked with the occupancy calculator on CUDA) or one tile per "     \
    "block; CUDA also tries read-only loads (ld.global.nc) and streaming stores (st.global.cs), "  \
    "and for reads on sm_80+ the streaming hints L1::no_allocate and L2::256B, 32 contiguous "     \
    "bytes per thread as two 16-byte loads back to back, and 128-thread blocks. "                  \
    "A BabelStream-like configuration (one 8-byte element per thread, 1024-thread blocks) is "     \
    "measured as the reference. Buffers hold counter-based random words (filled on the "           \
    "device, shared by the four benchmarks), 16x the last-level cache "                            \
    "(64 MiB..1 GiB by default), so every sample streams from DRAM; on a CPU device the streamed " \
    "buffers together hold 4x the last-level cache (the larger of the reported and the host's), "  \
    "and without the memory for that the benchmark is not available. Bandwidth = bytes moved / "   \
    "time per launch (device events, back-to-back launches); every configuration is screened "     \
    "(3 short samples), the leaders measured in full, each measurement poisoned before and "       \
    "verified after (on the device). Reported: the best full measurement's median with "           \
    "min/max/CI, against the DRAM bandwidth the device reports (2 x memory clock x bus width / "   \
    "8); on a CPU device, what its cores' loads and stores allow (docs/methodology.md)."

static const struct gc_dram_param params[] = {
    {GC_STREAM_READ, "read"},
    {GC_STREAM_WRITE, "write"},
    {GC_STREAM_COPY, "copy"},
    {GC_STREAM_TRIAD, "triad"},
};

static const struct gc_sum_cell read_cells[] = {
    GC_SUM_V(gc__sum_memory, "DRAM", 0, "read_bytes_per_clk_per_cu", NULL),
    GC_SUM_P(gc__sum_memory, "DRAM", 1, "read_bandwidth"),
    {0},
};
static const struct gc_fig_rule dram_figures[] = {
    {"bandwidth_vec*", "DRAM configurations: bandwidth of every one measured", 0, NULL, false,
     false, true},
    {0},
};
static const struct gc_bench_report dram_reports[] = {
    {read_cells, dram_figures}, {NULL, dram_figures}, {NULL, dram_figures}, {NULL, dram_figures}};

static int dram_launch_at(struct gc_session *s, const struct gc_bench *self,
                          const struct gc_config_ask *ask, struct gc_meter_launch *w);

static const struct gc_bench benches[] = {
    {
        .info =
            {
                .name = "memory.dram.read",
                .group = "memory",
                .summary = "sustained DRAM read bandwidth, best over vector width, unroll, block "
                           "size and occupancy",
                .method = DRAM_METHOD " Read: each thread sums the words it loads (all its "
                                      "loads of a tile issued before the adds) and stores one "
                                      "word; the per-thread sums are compared with the host's. "
                                      "Bytes = buffer + per-thread sums.",
            },
        .run = gc__dram_run,
        .param = &params[0],
        .sources = gc__dram_sources,
        .plan = dram_plan,
        .report = &dram_reports[0],
        .launch_at = dram_launch_at,
    },
    {
        .info =
            {
                .name = "memory.dram.write",
                .group = "memory",
                .summary = "sustained DRAM write bandwidth (full-sector coalesced stores), best "
                           "over vector width, unroll, block size and occupancy",
                .method = DRAM_METHOD " Write: word i gets (i x 0x9E3779B1) xor a run-time "
                                      "seed (distinct, incompressible values); the whole buffer "
                                      "is read back and compared. Bytes = buffer.",
            },
        .run = gc__dram_run,
        .param = &params[1],
        .sources = gc__dram_sources,
        .plan = dram_plan,
        .report = &dram_reports[1],
        .launch_at = dram_launch_at,
    },
    {
        .info =
            {
                .name = "memory.dram.copy",
                .group = "memory",
                .summary = "sustained DRAM copy bandwidth (read + write), best over vector "
                           "width, unroll, block size and occupancy",
                .method = DRAM_METHOD " Copy: dst = src, compared byte for byte. Bytes = 2 x "
                                      "buffer (read + written, as STREAM counts them).",
                /* memory.copy measured exactly this (same kernels,
                 * configurations and metrics): the name selects it. */
                .alias = "memory.copy",
            },
        .run = gc__dram_run,
        .param = &params[2],
        .sources = gc__dram_sources,
        .plan = dram_plan,
        .report = &dram_reports[2],
    },
    {
        .info =
            {
                .name = "memory.dram.triad",
                .group = "memory",
                .summary = "sustained DRAM triad bandwidth a = b + s c (2 reads + 1 write), best "
                           "over vector width, unroll, block size and occupancy",
                .method = DRAM_METHOD " Triad: a = b + s x c on 32-bit integers (wrapping, so "
                                      "the host reproduces it exactly), s a kernel argument; a "
                                      "is compared word for word. Bytes = 3 x buffer.",
            },
        .run = gc__dram_run,
        .param = &params[3],
        .sources = gc__dram_sources,
        .plan = dram_plan,
        .report = &dram_reports[3],
    },
};

static int dram_count(void)
{
    return (int)(sizeof(benches) / sizeof(benches[0]));
}

static const struct gc_bench *dram_at(int i)
{
    return i >= 0 && i < dram_count() ? &benches[i] : NULL;
}

const struct gc_bench_family gc__family_dram = {dram_count, dram_at};

/* ---- the launch for the energy meter (core/meterlaunch.h) ------------------- */

static int dram_config_write(struct gc_bench_result *r, const struct dcfg *c)
{
    int rc;

    if ((rc = gc__config_set_num(r, NULL, "vector_bytes", c->sc.vec_bytes)) ||
        (rc = gc__config_set_num(r, NULL, "unroll", c->sc.unroll)) ||
        (rc = gc__config_set_num(r, NULL, "block", c->sc.block)) ||
        (rc = gc__config_set_text(r, NULL, "load_path", gc__ldpath_ptx(c->sc.ld))) ||
        (rc = gc__config_set_num(r, NULL, "streaming_stores", c->sc.st_cs)))
        return rc;
    return gc__config_set_num(r, NULL, "persistent", c->persistent);
}

/* Why the result's configuration c cannot be launched here, or NULL. */
static const char *dram_refusal(const struct gc_device *d, const struct gc_stream_cfg *c, int ld,
                                int persistent, char *buf, size_t len)
{
    const struct gc_device_info *info = &d->info;
    bool hints = info->caps & GC_CAP_CACHE_HINTS;
    int maxb = info->max_threads_per_block > 0 ? info->max_threads_per_block : 1024;

    if (c->vec_bytes != 4 && c->vec_bytes != 8 && c->vec_bytes != 16 &&
        !(c->vec_bytes == 32 && c->op == GC_STREAM_READ && hints))
        snprintf(buf, len, "%d-byte vectors are not a kernel of the benchmark here", c->vec_bytes);
    else if (c->block < 1 || c->block > maxb)
        snprintf(buf, len, "block of %d threads outside 1..%d", c->block, maxb);
    else if (c->unroll < 1 || c->unroll > 64)
        snprintf(buf, len, "%d vectors per thread per tile outside 1..64", c->unroll);
    else if (ld < 0 || (ld != GC_LD_DEFAULT && !hints) ||
             (ld >= GC_LD_NC_NOALLOC && !d->arch.load_hints))
        snprintf(buf, len, "the load path is not one this device's loads take");
    else if (c->st_cs && !hints)
        snprintf(buf, len, "streaming stores are not an operator of this device");
    else if (persistent != 0 && persistent != 1)
        snprintf(buf, len, "grid mode %d is neither grid-stride (1) nor one tile each (0)",
                 persistent);
    else
        return NULL;
    return buf;
}

/* The configuration of the result when the kernel runs it here; else 16-byte
 * vectors, 4 per thread per tile, grid-stride over the resident blocks (near
 * the top on every GPU the sweep was run on), the block of an occupancy
 * sweep's point being laid out by the caller. */
static void dram_pick(const struct gc_session *s, const struct gc_bench *self,
                      const struct gc_config_ask *ask, struct gc_stream_cfg *sc, bool *persistent,
                      struct gc_cfg_pick *p)
{
    enum gc_stream_op op = ((const struct gc_dram_param *)self->param)->op;
    const struct gc_device_info *info = &s->dev->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    const struct gc_bench_result *from = gc__cfg_pick_start(p, self->info.name, ask);
    struct gc_stream_cfg c = {op, 0, 0, 0, 0, GC_LD_DEFAULT, false, 1};
    int st_cs = 0, pers = 1, ld;
    char why[sizeof(p->why)];

    *sc = (struct gc_stream_cfg){
        op, 16, gpu && op == GC_STREAM_READ ? 512 : 256, 4, 0, GC_LD_DEFAULT, false, 1};
    *persistent = true;
    if (!from)
        return;
    if (!gc__config_int(from, NULL, "vector_bytes", &c.vec_bytes) ||
        !gc__config_int(from, NULL, "unroll", &c.unroll) ||
        !gc__config_int(from, NULL, "block", &c.block) ||
        !gc__config_int(from, NULL, "streaming_stores", &st_cs) ||
        !gc__config_int(from, NULL, "persistent", &pers) ||
        !gc__config_text(from, NULL, "load_path")) {
        gc__cfg_refuse(p, "its result records no vector size, unroll, block, load path, store "
                          "kind and grid mode");
        return;
    }
    ld = gc__ldpath_named(gc__config_text(from, NULL, "load_path"));
    c.st_cs = st_cs != 0;
    if (dram_refusal(s->dev, &c, ld, pers, why, sizeof(why))) {
        gc__cfg_refuse(p, "%s", why);
        return;
    }
    c.ld = (enum gc_ldpath)ld;
    *sc = c;
    *persistent = pers != 0;
    p->origin = GC_CFG_RESULT;
}

/* A configuration the sweep measures near the top on every GPU it was run
 * on (16-byte vectors, 4 per thread per tile, grid-stride over the resident
 * blocks), over the default-profile buffer; at `warps` warps per CU the block
 * is what the occupancy sweep lays out for that count. */
/* The workload's own buffers, random: the streamed one and, for a read,
 * the per-thread sums (sums_bytes). */
static int workload_buffers(struct gc_device *d, struct gc_meter_launch *w, enum gc_stream_op op,
                            size_t bytes, size_t sums_bytes, uint64_t seed)
{
    int rc;

    if ((rc = gc__dev_alloc(d, bytes, &w->bufs[0])))
        return rc;
    if (op == GC_STREAM_READ) {
        if ((rc = gc__dev_fill_random(d, w->bufs[0], bytes, seed)) ||
            (rc = gc__dev_alloc(d, sums_bytes, &w->bufs[1])) ||
            (rc = gc__dev_fill_random(d, w->bufs[1], sums_bytes, seed + 7)))
            return rc;
    } else if ((rc = gc__dev_fill_random(d, w->bufs[0], bytes, seed + 7))) {
        return rc;
    }
    return 0;
}

/* One launch of the workload, verified on the host, before the meter times
 * it: a wrong result is an error, never an energy figure. */
static int workload_check(struct gc_device *d, struct gc_meter_launch *w,
                          const struct gc_stream_cfg *sc, uint64_t seed, uint32_t karg,
                          size_t streamed)
{
    double el;
    char msg[256];
    int rc;
    struct gc_launch one = w->l;
    struct gc_stream_data in = {
        {w->bufs[0], w->bufs[1], NULL}, {seed, seed + 1}, karg, streamed, w->l.grid[0], false};

    one.count = 1;
    if ((rc = gc__dev_launch(d, w->k, &one, &el)))
        return rc;
    rc = gc__stream_verify(d, sc, &in, msg, sizeof(msg));
    if (rc == GC_EVERIFY)
        snprintf(w->why, sizeof(w->why), "verification failed: %s", msg);
    return rc;
}

/* The launch_at of memory.dram.read and memory.dram.write: the stream
 * kernel at the configuration of dram_pick, over the default-profile
 * buffer, one launch verified. */
static int dram_launch_at(struct gc_session *s, const struct gc_bench *self,
                          const struct gc_config_ask *ask, struct gc_meter_launch *w)
{
    enum gc_stream_op op = ((const struct gc_dram_param *)self->param)->op;
    int warps = ask->warps;
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    int nb = gc__stream_nbufs(op), simd = info->simd_width > 0 ? info->simd_width : 32;
    size_t bytes = buffer_bytes(GC_PROFILE_DEFAULT, info, 1);
    uint64_t seed = s->seed ^ 0xE5E7ULL;
    uint32_t karg = (uint32_t)(seed >> 17) | 1u;
    struct gc_stream_cfg sc;
    struct gc_cfg_pick pick;
    bool persistent;

    dram_pick(s, self, ask, &sc, &persistent, &pick);
    unsigned grid;
    int per_cu, rc, na = 0;
    size_t dyn = 0;

    if (op != GC_STREAM_READ && op != GC_STREAM_WRITE)
        return GC_EINVAL;
    if (bytes == 0) {
        snprintf(w->why, sizeof(w->why), "device memory too small for a DRAM workload");
        return GC_ENOTSUP;
    }
    int kb;
    if (warps > 0 && (rc = gc__sweep_blocks(info, simd, warps, &kb, &sc.block)))
        return rc;
    sc.tiles = (unsigned)(bytes / gc__stream_tile_bytes(&sc));
    /* Blocks of the occupancy sweep need not divide the buffer: the kernel
     * streams whole tiles, and that is what is verified and counted. */
    size_t streamed = (size_t)sc.tiles * gc__stream_tile_bytes(&sc);
    w->req[0].label = op == GC_STREAM_READ ? "energy_dram_read" : "energy_dram_write";
    w->req[0].src = gc__gen_stream(d->ops->dialect, 0, &sc);
    w->nreq = 1;
    if (!w->req[0].src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(s, w->req, 1)))
        return rc;
    if ((rc = d->ops->kernel(w->req[0].prog, "gc_stream", &w->k))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    if (warps > 0) {
        struct gc_shape sh;

        if ((rc = gc__sweep_shape(d, w->k, warps, &sh)))
            return rc;
        grid = sh.grid;
        per_cu = sh.blocks_per_cu;
        dyn = sh.occ.dyn_shared;
    } else {
        per_cu = resident_blocks(d, w->k, sc.block);
        grid = persistent ? (unsigned)(per_cu * (info->compute_units > 0 ? info->compute_units : 1))
                          : sc.tiles;
    }
    if (grid > sc.tiles)
        grid = sc.tiles;
    if ((rc = workload_buffers(d, w, op, bytes, (size_t)grid * sc.block * 4, seed)))
        return rc;
    for (int b = 0; b < nb; b++)
        w->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[b]};
    if (op == GC_STREAM_WRITE)
        w->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = karg};
    w->l = (struct gc_launch){{grid, 1, 1}, {(unsigned)sc.block, 1, 1}, dyn, w->args, na, 1};
    if ((rc = workload_check(d, w, &sc, seed, karg, streamed)))
        return rc;
    w->bytes = op == GC_STREAM_READ ? (double)streamed + 4.0 * grid * sc.block : (double)streamed;
    w->transactions = w->bytes / 32.0;
    w->ops = w->bytes / sc.vec_bytes;
    w->op_unit = "access";
    w->spec_per_clk_cu = NAN;
    w->warps_per_cu = per_cu * sc.block / simd;
    char kname[64];
    snprintf(kname, sizeof(kname), "memory.dram.%s kernel", gc__stream_op_name(op));
    gc__meter_launch_describe(
        w, &pick, kname,
        "%d-byte vectors, %d per thread per tile%s, block %d, %u blocks (%d per "
        "CU, %d warps/CU, %s), %.0f MiB buffer",
        sc.vec_bytes, sc.unroll, ld_words(sc.ld), sc.block, grid, per_cu, w->warps_per_cu,
        persistent ? "grid-stride" : "one tile each", (double)bytes / (1 << 20));
    return 0;
}
