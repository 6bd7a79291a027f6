/* memory.coalescing: DRAM bandwidth against the access pattern of a warp
 * (MIPP §IV-B coalescing and access-size benchmarks): lane stride, the
 * fraction of a warp that reads one contiguous run, a permutation within the
 * warp, and the bytes each thread moves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "core/devfill.h"
#include "core/cpulimits.h"
#include "util/random.h"
#include "core/stats.h"
#include "core/kcache.h"
#include "kgen/kgen.h"

/* Independent loads per thread, issued before they are summed, so that
 * several requests per warp are in flight. */
#define CO_UNROLL 8
#define CO_BLOCK 256
#define CO_WARP 32
/* Elements per thread of the access-size copy (as in memory.dram.copy). */
#define CO_COPY_UNROLL 4

enum co_kind { CO_STRIDE, CO_GROUP, CO_PERM };

struct co_pat {
    enum co_kind kind;
    int param; /* stride in elements, or lanes per contiguous group */
};

/* Offset of lane l's 4-byte element inside its warp's segment, and the
 * segment length (elements). Segments start 128-byte aligned. */
static unsigned lane_offset(const struct co_pat *p, unsigned l, unsigned perm_a, unsigned perm_b)
{
    switch (p->kind) {
    case CO_STRIDE:
        return l * (unsigned)p->param;
    case CO_GROUP:
        /* MIPP: groups of g lanes read g consecutive words; each group
         * starts its own 128-byte line. */
        return l / (unsigned)p->param * 32u + l % (unsigned)p->param;
    default:
        return ((l * perm_a) ^ perm_b) & 31u;
    }
}

static unsigned seg_elems(const struct co_pat *p)
{
    switch (p->kind) {
    case CO_STRIDE:
        return CO_WARP * (unsigned)p->param;
    case CO_GROUP:
        return CO_WARP / (unsigned)p->param * 32u;
    default:
        return CO_WARP;
    }
}

/* Distinct 32-byte sectors one warp request touches: computed from the
 * pattern, not counted by hardware counters. */
static int sectors_per_request(const unsigned *off)
{
    unsigned seen[CO_WARP];
    int n = 0;

    for (int l = 0; l < CO_WARP; l++) {
        unsigned s = off[l] * 4u / 32u;
        int k = 0;
        while (k < n && seen[k] != s)
            k++;
        if (k == n)
            seen[n++] = s;
    }
    return n;
}

/* The strided read: each thread sums CO_UNROLL words at literal distances of
 * one CO_UNROLL-th of the buffer. The pattern enters only the per-thread base
 * address (warp * seg + lane offset), computed once before the loads, so one
 * kernel serves every pattern. The sum is stored when it equals a key or when
 * 'all' is set: the stores depend on the loads, so nothing can be dropped,
 * and a timed launch (all = 0) writes almost nothing. */
static char *gen_read(enum gc_dialect d, unsigned flags, unsigned step, unsigned ts_stride)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__sbuf_printf(&b, "#define GC_TS_STRIDE %u\n", ts_stride);
    gc__kgen_prelude(&b, d, flags);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_coalesce(GC_GLOBAL const GC_U32 *GC_RESTRICT src, "
                      "GC_GLOBAL const GC_U32 *GC_RESTRICT lane_off, GC_GLOBAL GC_U32 *GC_RESTRICT "
                      "out, GC_U32 seg, GC_U32 key, GC_U32 all GC_TS_PARAM)\n{\n"
                      "    GC_TS_BEGIN\n"
                      "    GC_U32 gid = GC_GID;\n"
                      "    GC_U32 p = (gid >> 5) * seg + lane_off[gid & 31u];\n");
    for (int u = 0; u < CO_UNROLL; u++)
        gc__sbuf_printf(&b, "    GC_U32 v%d = src[p + %uu];\n", u, (unsigned)u * step);
    gc__sbuf_puts(&b, "    GC_U32 s = v0");
    for (int u = 1; u < CO_UNROLL; u++)
        gc__sbuf_printf(&b, " + v%d", u);
    gc__sbuf_puts(&b, ";\n    if ((s == key) | (all != 0u))\n        out[gid] = s;\n"
                      "    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

/* MIPP's access-size benchmark: a coalesced copy of elements of 1..16 bytes. */
static char *gen_copy(enum gc_dialect d, unsigned flags, int bytes, unsigned ts_stride)
{
    struct gc_sbuf b;
    const char *t = gc__kgen_elem_type(bytes);

    gc__sbuf_init(&b);
    gc__sbuf_printf(&b, "#define GC_TS_STRIDE %u\n", ts_stride);
    gc__kgen_prelude(&b, d, flags);
    gc__sbuf_printf(&b,
                    "GC_KERNEL void gc_access(GC_GLOBAL const %s *GC_RESTRICT src, "
                    "GC_GLOBAL %s *GC_RESTRICT dst GC_TS_PARAM)\n{\n"
                    "    GC_TS_BEGIN\n"
                    "    GC_U32 i = GC_BID * %uu + GC_TID;\n",
                    t, t, (unsigned)(CO_BLOCK * CO_COPY_UNROLL));
    for (int u = 0; u < CO_COPY_UNROLL; u++)
        gc__sbuf_printf(&b, "    %s v%d = src[i + %uu];\n", t, u, (unsigned)(u * CO_BLOCK));
    for (int u = 0; u < CO_COPY_UNROLL; u++)
        gc__sbuf_printf(&b, "    dst[i + %uu] = v%d;\n", (unsigned)(u * CO_BLOCK), u);
    gc__sbuf_puts(&b, "    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

/* Buffer size: far above the last-level cache so that every sample streams
 * from DRAM (no flush needed); small on CPU devices to keep runs short. */
static size_t footprint(const struct gc_session *s)
{
    const struct gc_device_info *i = &s->dev->info;
    size_t lo = s->profile == GC_PROFILE_QUICK ? 64u << 20 : 256u << 20;
    size_t hi = s->profile == GC_PROFILE_FULL ? (size_t)2 << 30 : (size_t)1 << 30;
    size_t want;

    if (i->type != GC_DEVICE_GPU)
        hi = lo = s->profile == GC_PROFILE_QUICK ? 8u << 20 : 32u << 20;
    want = i->l2_size ? 16 * i->l2_size : hi;
    want = want < lo ? lo : want > hi ? hi : want;
    if (i->max_alloc && want > i->max_alloc)
        want = i->max_alloc;
    if (i->global_mem && want > i->global_mem / 4)
        want = i->global_mem / 4;
    /* Whole warps of every pattern (segments up to 1024 words, CO_UNROLL
     * loads, 8 warps per block) and whole copy blocks of 16-byte elements. */
    size_t grain = (size_t)4 * 1024 * CO_UNROLL * 8;
    return want / grain * grain;
}

static unsigned ts_stride_for(unsigned grid)
{
    unsigned t = 1;

    while (grid / t > 4096)
        t *= 2;
    return t;
}

static int kernel_of(struct gc_device *d, struct gc_kreq *q, const char *name, struct gc_kern **k)
{
    int rc = d->ops->kernel(q->prog, name, k);

    if (rc)
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    return rc;
}

/* A timestamps buffer for grid blocks recording one in ts_stride. */
static int ts_setup(struct gc_device *d, unsigned flags, unsigned grid, unsigned ts_stride,
                    struct gc_buf **tsb, struct gc_timestamps *ts)
{
    unsigned nrec = (grid + ts_stride - 1) / ts_stride;

    gc__dev_free(d, *tsb);
    *tsb = NULL;
    ts->buf = NULL;
    ts->nblocks = nrec;
    if (!(flags & GC_KGEN_TIMESTAMPS))
        return 0;
    int rc = gc__dev_alloc(d, (size_t)nrec * GC_TS_WORDS * 8, tsb);
    ts->buf = *tsb;
    return rc;
}

/* The sums the host recomputes per pattern: every thread's up to this
 * many threads, else this many whole warps in CO_CHECK_PIECES runs spread
 * evenly over the grid (recomputing 2^25 sums of eight hashed words cost
 * about a second per pattern). */
#define CO_CHECK_THREADS ((size_t)1 << 21)
#define CO_CHECK_PIECES 64
/* Copies the device cannot check are compared on the host in pieces. */
#define CO_CMP ((size_t)4 << 20)

/* The copy in dst must equal the source (words gc__hash32(seed, i)): on the
 * device against src, else on the host piece by piece. */
static int verify_copy(struct gc_session *s, struct gc_buf *src, struct gc_buf *dst, size_t bytes,
                       uint64_t seed, char *msg, size_t len)
{
    struct gc_check ck = {.kind = GC_CHECK_EQ, .want = src, .got = dst, .words = bytes / 4};
    int rc = gc__devcheck(s, &ck, msg, len);
    uint32_t *want, *got;

    /* A passing device check, then eight words against the generator
     * alone: a fill gone wrong the way the copy did still fails. */
    for (uint64_t i = 0; rc == 0 && i < 8; i++) {
        size_t w = (size_t)((i * 0x9E3779B97F4A7C15ULL >> 11) % (bytes / 4));
        uint32_t g;

        if ((rc = gc__dev_read(s->dev, dst, w * 4, &g, 4)) == 0 && g != gc__hash32(seed, w)) {
            snprintf(msg, len, "copied word %zu is 0x%08x, expected 0x%08x", w, g,
                     gc__hash32(seed, w));
            rc = GC_EVERIFY;
        }
    }
    if (rc != GC_ENOTSUP && rc != GC_EDEVMEM && rc != GC_ENOMEM)
        return rc;
    want = malloc(CO_CMP);
    got = malloc(CO_CMP);
    rc = want && got ? 0 : GC_ENOMEM;
    for (size_t at = 0; at < bytes && rc == 0; at += CO_CMP) {
        size_t n = bytes - at < CO_CMP ? bytes - at : CO_CMP;

        gc__hash_fill(want, at / 4, n / 4, seed);
        if ((rc = gc__dev_read(s->dev, dst, at, got, n)) || memcmp(want, got, n) == 0)
            continue;
        size_t w = 0;
        while (want[w] == got[w])
            w++;
        snprintf(msg, len, "word %zu is 0x%08x, expected 0x%08x", at / 4 + w, got[w], want[w]);
        rc = GC_EVERIFY;
    }
    free(want);
    free(got);
    return rc;
}

struct co_point {
    struct gc_stats useful; /* B/s of bytes the threads asked for */
    int sectors;
};

static int run_pattern(struct gc_session *s, struct gc_kern *k, const struct co_pat *p,
                       unsigned perm_a, unsigned perm_b, unsigned flags, unsigned ts_stride,
                       size_t bytes, uint64_t seed, struct gc_buf *src, struct gc_buf *laneb,
                       struct gc_buf *out, struct gc_buf **tsb, const char *name,
                       struct gc_bench_result *r, struct co_point *res, struct gc_measurement *m)
{
    struct gc_device *d = s->dev;
    unsigned off[CO_WARP], seg = seg_elems(p), step = (unsigned)(bytes / 4 / CO_UNROLL);
    size_t nwarps = (size_t)step / seg, nthreads = nwarps * CO_WARP;
    unsigned grid = (unsigned)(nthreads / CO_BLOCK);
    struct gc_timestamps ts;
    uint32_t *got = NULL;
    int rc;

    memset(m, 0, sizeof(*m));
    for (unsigned l = 0; l < CO_WARP; l++)
        off[l] = lane_offset(p, l, perm_a, perm_b);
    res->sectors = sectors_per_request(off);
    if ((rc = gc__dev_write(d, laneb, 0, off, sizeof(off))) ||
        (rc = ts_setup(d, flags, grid, ts_stride, tsb, &ts)))
        return rc;
    struct gc_arg args[7] = {
        {.type = GC_ARG_BUF, .v.buf = src},         {.type = GC_ARG_BUF, .v.buf = laneb},
        {.type = GC_ARG_BUF, .v.buf = out},         {.type = GC_ARG_U32, .v.u32 = seg},
        {.type = GC_ARG_U32, .v.u32 = 0x9E3779B9u}, {.type = GC_ARG_U32, .v.u32 = 1},
        {.type = GC_ARG_BUF, .v.buf = *tsb},
    };
    struct gc_launch l = {{grid, 1, 1}, {CO_BLOCK, 1, 1}, 0, args, ts.buf ? 7 : 6, 1};
    double el;

    /* Verification launch: every thread stores its sum into a poisoned
     * output, which the host recomputes from the source's counter-based
     * stream (no host copy of the buffer). */
    size_t piece = nthreads <= CO_CHECK_THREADS ? nthreads : CO_CHECK_THREADS / CO_CHECK_PIECES;
    size_t npieces = nthreads <= CO_CHECK_THREADS ? 1 : CO_CHECK_PIECES;
    got = malloc(piece * sizeof(*got));
    if (!got)
        return GC_ENOMEM;
    if ((rc = gc__devfill_word(s, out, nthreads * 4, 0xDEADBEEFu)) ||
        (rc = gc__dev_launch(d, k, &l, &el)))
        goto out;
    for (size_t q = 0; q < npieces; q++) {
        size_t first =
            npieces == 1 ? 0 : (nthreads - piece) / (npieces - 1) * q / CO_WARP * CO_WARP;

        if ((rc = gc__dev_read(d, out, first * 4, got, piece * 4)))
            goto out;
        for (size_t t = first; t < first + piece; t++) {
            size_t base = t / CO_WARP * seg + off[t % CO_WARP];
            uint32_t want = 0;
            for (int u = 0; u < CO_UNROLL; u++)
                want += gc__hash32(seed, base + (size_t)u * step);
            if (got[t - first] != want) {
                gc__bench_set_error(r, GC_BENCH_ERROR,
                                    "verification failed (%s): thread %zu summed 0x%08x, expected "
                                    "0x%08x",
                                    name, t, got[t - first], want);
                rc = GC_EVERIFY;
                goto out;
            }
        }
    }
    args[5].v.u32 = 0;
    rc = gc__measure(s, k, &l, ts.buf ? &ts : NULL, NULL, 0, m);
    if (rc == 0 || (rc == GC_EINTR && m->samples > 0))
        gc__stats_inverse(m->per_sample_s, m->samples, (double)nthreads * CO_UNROLL * 4,
                          &res->useful);
out:
    free(got);
    return rc;
}

static int run_coalescing(struct gc_session *s, const struct gc_bench *self,
                          struct gc_bench_result *r)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    bool quick = s->profile == GC_PROFILE_QUICK;
    static const int strides_d[] = {1, 2, 4, 8, 16, 32}, strides_q[] = {1, 4, 32};
    static const int groups_d[] = {1, 2, 4, 8, 16, 32}, groups_q[] = {8};
    static const int sizes_d[] = {1, 2, 4, 8, 16}, sizes_q[] = {1, 4, 16};
    const int *strides = quick ? strides_q : strides_d, *groups = quick ? groups_q : groups_d;
    const int *sizes = quick ? sizes_q : sizes_d;
    int nstr = quick ? 3 : 6, ngrp = quick ? 1 : 6, nsz = quick ? 3 : 5;
    unsigned flags = (info->caps & GC_CAP_CLOCK64) && (info->caps & GC_CAP_GLOBALTIMER) &&
                             (info->caps & GC_CAP_SMID)
                         ? GC_KGEN_TIMESTAMPS
                         : 0;
    size_t bytes = footprint(s);
    struct gc_kreq reqs[8];
    char labels[8][40];
    int nreq = 0, rc = 0;
    struct gc_buf *src = NULL, *dst = NULL, *out = NULL, *laneb = NULL, *tsb = NULL;
    uint64_t seed = s->seed ^ 0xC0A1E5CEULL;
    uint64_t pst = seed ^ 0x5EEDULL;
    unsigned perm_a = (unsigned)(gc__xorshift64s(&pst) % 16) * 2 + 1;
    unsigned perm_b = (unsigned)(gc__xorshift64s(&pst) % 32);
    struct gc_series *s_str, *s_sec, *s_dram, *s_grp, *s_gsec, *s_size;
    double bw1 = NAN, bw32 = NAN;
    struct gc_measurement best = {0};

    (void)self;
    memset(reqs, 0, sizeof(reqs));
    if (bytes == 0) {
        gc__bench_set_error(r, GC_BENCH_ERROR, "device memory too small for the sweep");
        return GC_ERANGE;
    }
    unsigned step = (unsigned)(bytes / 4 / CO_UNROLL);
    snprintf(labels[0], sizeof(labels[0]), "coalesce_read");
    reqs[0].label = labels[0];
    /* The timestamp stride is part of the source: the largest grid (stride
     * 1) sets it for every pattern. */
    unsigned read_ts = ts_stride_for((unsigned)((size_t)step / 32 * CO_WARP / CO_BLOCK));
    reqs[0].src = gen_read(d->ops->dialect, flags, step, read_ts);
    nreq = 1;
    if (!reqs[0].src) {
        rc = GC_ENOMEM;
        goto out;
    }
    for (int i = 0; i < nsz; i++, nreq++) {
        unsigned grid = (unsigned)(bytes / ((size_t)sizes[i] * CO_BLOCK * CO_COPY_UNROLL));
        snprintf(labels[nreq], sizeof(labels[nreq]), "access_size_%dB", sizes[i]);
        reqs[nreq].label = labels[nreq];
        reqs[nreq].src = gen_copy(d->ops->dialect, flags, sizes[i], ts_stride_for(grid));
        if (!reqs[nreq].src) {
            rc = GC_ENOMEM;
            goto out;
        }
    }
    rc = gc__kcache_build(s, reqs, nreq);
    if (rc)
        goto out;

    /* The source is random words filled on the device; the host keeps no
     * copy of it (it recomputes what it checks from the stream). */
    if ((rc = gc__dev_alloc(d, bytes, &src)) || (rc = gc__dev_alloc(d, bytes, &dst)) ||
        (rc = gc__dev_alloc(d, bytes / CO_UNROLL, &out)) ||
        (rc = gc__dev_alloc(d, CO_WARP * 4, &laneb)) ||
        (rc = gc__devfill_hash(s, src, bytes, seed)))
        goto out;

    s_str = gc__bench_add_series(r, "bandwidth_vs_stride", "lane stride", "elements (4 B)",
                                 "useful bandwidth", "B/s");
    s_sec =
        gc__bench_add_series(r, "sectors_per_request_vs_stride", "lane stride", "elements (4 B)",
                             "32-byte sectors per warp request (computed)", "sectors");
    s_dram = gc__bench_add_series(r, "sector_bandwidth_vs_stride", "lane stride", "elements (4 B)",
                                  "sector traffic (computed sectors x 32 B)", "B/s");
    s_grp = gc__bench_add_series(r, "bandwidth_vs_coalescing", "coalesced fraction of a warp",
                                 "lanes/32", "useful bandwidth", "B/s");
    s_gsec =
        gc__bench_add_series(r, "sectors_per_request_vs_coalescing", "coalesced fraction of a warp",
                             "lanes/32", "32-byte sectors per warp request (computed)", "sectors");
    s_size = gc__bench_add_series(r, "bandwidth_vs_access_size", "bytes per thread access", "B",
                                  "copy bandwidth (read + written)", "B/s");
    if (!s_str || !s_sec || !s_dram || !s_grp || !s_gsec || !s_size) {
        rc = GC_ENOMEM;
        goto out;
    }
    /* Series pointers move when the array grows: take them by index. */
    int i_str = 0, i_sec = 1, i_dram = 2, i_grp = 3, i_gsec = 4, i_size = 5;

    struct gc_kern *kr = NULL;
    if ((rc = kernel_of(d, &reqs[0], "gc_coalesce", &kr)))
        goto out;
    int npat = nstr + ngrp + 1;
    for (int pi = 0; pi < npat && !gc__stopped(s); pi++) {
        struct co_pat p;
        struct co_point pt;
        struct gc_measurement m;
        char name[48];

        if (pi < nstr)
            p = (struct co_pat){CO_STRIDE, strides[pi]};
        else if (pi < nstr + ngrp)
            p = (struct co_pat){CO_GROUP, groups[pi - nstr]};
        else
            p = (struct co_pat){CO_PERM, 0};
        snprintf(name, sizeof(name), "%s %d",
                 p.kind == CO_STRIDE  ? "stride"
                 : p.kind == CO_GROUP ? "lanes per group"
                                      : "permutation",
                 p.param);
        rc = run_pattern(s, kr, &p, perm_a, perm_b, flags, read_ts, bytes, seed, src, laneb, out,
                         &tsb, name, r, &pt, &m);
        if (rc && !(rc == GC_EINTR && m.samples > 0)) {
            gc__measurement_free(&m);
            goto out;
        }
        char lab[32];
        if (p.kind == CO_STRIDE) {
            gc__series_add(&r->series[i_str], p.param, pt.useful.median, &pt.useful, NULL);
            gc__series_add(&r->series[i_sec], p.param, pt.sectors, NULL, NULL);
            struct gc_stats sb = pt.useful;
            gc__stats_scale(&sb, pt.sectors * 32.0 / (CO_WARP * 4.0));
            gc__series_add(&r->series[i_dram], p.param, sb.median, &sb, NULL);
            if (p.param == 1) {
                bw1 = pt.useful.median;
                gc__measurement_free(&best);
                best = m;
                m.per_sample_s = NULL;
                gc__bench_add_metric(r, "coalesced_bandwidth", pt.useful.median, "B/s",
                                     isfinite(info->mem_bw_spec) ? info->mem_bw_spec
                                                                 : gc__cpu_stream_limit(info, 1, 0),
                                     &pt.useful,
                                     "4-byte loads, consecutive lanes on consecutive words, "
                                     "8 loads per thread; read only");
            }
            if (p.param == 32)
                bw32 = pt.useful.median;
        } else if (p.kind == CO_GROUP) {
            snprintf(lab, sizeof(lab), "%s", p.param == 32 ? "full" : "");
            if (p.param < 32)
                snprintf(lab, sizeof(lab), "%d/32", p.param);
            gc__series_add(&r->series[i_grp], p.param / 32.0, pt.useful.median, &pt.useful, lab);
            gc__series_add(&r->series[i_gsec], p.param / 32.0, pt.sectors, NULL, lab);
        } else {
            char note[160];
            snprintf(note, sizeof(note),
                     "lane l reads word ((l x %u) xor %u) mod 32 of its warp's 128-byte line: "
                     "%d sectors per request (computed)",
                     perm_a, perm_b, pt.sectors);
            gc__bench_add_metric(r, "permuted_bandwidth", pt.useful.median, "B/s",
                                 isfinite(info->mem_bw_spec) ? info->mem_bw_spec
                                                             : gc__cpu_stream_limit(info, 1, 0),
                                 &pt.useful, note);
        }
        gc__measurement_free(&m);
        if (rc)
            goto out;
    }

    for (int si = 0; si < nsz && !gc__stopped(s); si++) {
        int sz = sizes[si];
        unsigned grid = (unsigned)(bytes / ((size_t)sz * CO_BLOCK * CO_COPY_UNROLL));
        struct gc_kern *kc = NULL;
        struct gc_timestamps ts;
        struct gc_measurement m;

        if ((rc = kernel_of(d, &reqs[1 + si], "gc_access", &kc)) ||
            (rc = ts_setup(d, flags, grid, ts_stride_for(grid), &tsb, &ts)) ||
            (rc = gc__devfill_word(s, dst, bytes, 0xDEADBEEFu)))
            goto out;
        struct gc_arg args[3] = {{.type = GC_ARG_BUF, .v.buf = src},
                                 {.type = GC_ARG_BUF, .v.buf = dst},
                                 {.type = GC_ARG_BUF, .v.buf = tsb}};
        struct gc_launch l = {{grid, 1, 1}, {CO_BLOCK, 1, 1}, 0, args, ts.buf ? 3 : 2, 1};
        rc = gc__measure(s, kc, &l, ts.buf ? &ts : NULL, NULL, 0, &m);
        if (rc && !(rc == GC_EINTR && m.samples > 0)) {
            gc__measurement_free(&m);
            goto out;
        }
        /* The destination was poisoned before the launches; it must now
         * equal the source byte for byte. */
        char msg[200] = "";
        int vrc = verify_copy(s, src, dst, bytes, seed, msg, sizeof(msg));
        if (vrc == GC_EVERIFY)
            gc__bench_set_error(r, GC_BENCH_ERROR, "verification failed (access size %d B): %s", sz,
                                msg);
        if (vrc) {
            gc__measurement_free(&m);
            rc = vrc;
            goto out;
        }
        struct gc_stats bw;
        gc__stats_inverse(m.per_sample_s, m.samples, 2.0 * (double)bytes, &bw);
        gc__series_add(&r->series[i_size], sz, bw.median, &bw, NULL);
        gc__measurement_free(&m);
        if (rc)
            goto out;
    }

    if (isfinite(bw1) && isfinite(bw32) && bw32 > 0)
        gc__bench_add_metric(r, "stride32_slowdown", bw1 / bw32, "x", NAN, NULL,
                             "useful bandwidth at lane stride 1 / at stride 32 (one word per "
                             "128-byte line)");
    {
        char note[200];
        if (info->l2_size && bytes >= 4 * info->l2_size)
            snprintf(note, sizeof(note),
                     "source buffer, %.1fx the %.0f KiB cache the device reports: every "
                     "sample is served by DRAM",
                     (double)bytes / (double)info->l2_size, (double)info->l2_size / 1024);
        else if (info->l2_size)
            snprintf(note, sizeof(note),
                     "source buffer, only %.2fx the %.0f KiB cache the device reports (kept "
                     "small on a CPU device): not a DRAM figure",
                     (double)bytes / (double)info->l2_size, (double)info->l2_size / 1024);
        else
            snprintf(note, sizeof(note),
                     "source buffer; the device reports no cache size (sized to stream from "
                     "DRAM)");
        gc__bench_add_metric(r, "buffer_size", (double)bytes, "B", NAN, NULL, note);
    }
    if (best.samples > 0) {
        r->context = best.ctx;
        snprintf(r->stop_rule, sizeof(r->stop_rule), "%s", best.stop_rule);
    }
    if (gc__stopped(s))
        rc = GC_EINTR;
out:
    gc__measurement_free(&best);
    gc__dev_free(d, tsb);
    gc__dev_free(d, src);
    gc__dev_free(d, dst);
    gc__dev_free(d, out);
    gc__dev_free(d, laneb);
    gc__kreq_release(s, reqs, nreq);
    return rc;
}

static const struct gc_fig_rule coalescing_figures[] = {
    {"*stride*", "coalescing: lane stride", 0, NULL, false, false, false},
    {"*coalescing*", "coalescing: coalesced fraction of a warp", 0, NULL, false, false, false},
    {"*access_size*", "access size", 0, NULL, false, false, false},
    {0},
};
static const struct gc_bench_report coalescing_report = {.figures = coalescing_figures};

const struct gc_bench gc__bench_coalescing = {
    .info =
        {
            .name = "memory.coalescing",
            .group = "memory",
            .summary = "DRAM bandwidth vs warp access pattern (lane stride, coalesced fraction, "
                       "permutation) and vs bytes per access (1-16 B)",
            .method =
                "MIPP SIV-B coalescing and access-size benchmarks. Coalescing: every thread "
                "sums 8 independent 4-byte loads spaced an eighth of the buffer apart; within a "
                "warp, lane l reads word l x s of its warp's segment (stride s = 1..32 "
                "elements), or lanes form groups of g consecutive words with each group in its "
                "own 128-byte line (coalesced fraction g/32: 1/32 = no coalescing, 32/32 = "
                "full), or lanes read a fixed permutation of one 128-byte line. Useful "
                "bandwidth = bytes the threads asked for / time per launch; 32-byte sectors "
                "per warp request are computed from the pattern (distinct sectors among the "
                "32 addresses), not counted, and sector traffic = useful x sectors x 32 / 128. "
                "Access size: a coalesced copy (4 elements per thread) of 1, 2, 4, 8, 16-byte "
                "elements; bandwidth = 2 x buffer / time. The buffer is random (counter-based "
                "words filled on the device) and 16x the last-level cache (64 MiB..1 GiB), so "
                "DRAM serves every sample. Verification: each thread's sum is stored into a "
                "poisoned output in one launch and recomputed on the host from the generator "
                "(every thread up to 2 Mi threads, else 64 runs of whole warps spread over the "
                "grid, 2 Mi threads in all); copies are compared word for word on the device "
                "(on the host where the device cannot check).",
        },
    .needs_caps = 0,
    .run = run_coalescing,
    .report = &coalescing_report,
};
