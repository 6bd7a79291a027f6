/* memory.coalescing: DRAM bandwidth against the access pattern of a warp
 * (MIPP §IV-B coalescing and access-size benchmarks): lane stride, the
 * fraction of a warp that reads one contiguous run, a permutation within the
 * warp, and the bytes each thread moves. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/coalesce/coalesce.h"
#include "core/devfill.h"
#include "core/cpulimits.h"
#include "core/harness.h"
#include "util/random.h"
#include "core/stats.h"
#include "core/kcache.h"
#include "kgen/kgen.h"
#include "util/parallel.h"

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

/* ---- The run on the harness ---------------------------------------------
 *
 * Every pattern of the read kernel and every element size of the copy is one
 * configuration and a point of a series: each is measured in full (no
 * screen) and verified after its measurement. */

/* Strides, groups and the permutation (13 by default), and 5 copy sizes. */
#define CO_MAX_CFG 18

struct co_cfg {
    bool copy;                  /* the access-size copy, else the strided read */
    struct co_pat p;            /* read: the pattern */
    int size;                   /* copy: bytes per element */
    unsigned off[CO_WARP], seg; /* read: lane offsets, segment (elements) */
    int sectors;                /* read: computed sectors per warp request */
    size_t nthreads;
    unsigned grid, ts_stride;
};

struct gc_coal_run {
    unsigned flags, step, read_ts, perm_a, perm_b;
    size_t bytes;
    uint64_t seed;
    int s0; /* index of the first series */
    struct gc_buf *src, *dst, *out, *laneb;
    struct co_cfg cf[CO_MAX_CFG];
    struct gc_hdesc desc;
};

/* A timestamps buffer for the configuration's grid, one block in ts_stride
 * recording (the runner frees it). */
static int co_ts(struct gc_harness *h, const struct co_cfg *cf, struct gc_hlaunch *out, int *na)
{
    const struct gc_coal_run *cr = h->d->user;
    unsigned nrec = (cf->grid + cf->ts_stride - 1) / cf->ts_stride;
    int rc;

    if (!(cr->flags & GC_KGEN_TIMESTAMPS))
        return 0;
    if ((rc = gc__dev_alloc(h->s->dev, (size_t)nrec * GC_TS_WORDS * 8, &out->own[0])))
        return rc;
    out->ts = (struct gc_timestamps){out->own[0], nrec};
    out->args[(*na)++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = out->own[0]};
    return 0;
}

static int co_setup(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out)
{
    struct gc_coal_run *cr = h->d->user;
    const struct co_cfg *cf = c->user;
    int na = 0, rc;

    out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = cr->src};
    if (cf->copy) {
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = cr->dst};
        out->work = 2.0 * (double)cr->bytes;
        snprintf(out->desc, sizeof(out->desc), "access size %d B", cf->size);
    } else {
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = cr->laneb};
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = cr->out};
        out->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = cf->seg};
        out->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 0x9E3779B9u};
        /* all = 0: a timed launch stores (almost) nothing; co_verify sets it. */
        out->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 0};
        out->work = (double)cf->nthreads * CO_UNROLL * 4;
        snprintf(out->desc, sizeof(out->desc), "%s %d",
                 cf->p.kind == CO_STRIDE  ? "stride"
                 : cf->p.kind == CO_GROUP ? "lanes per group"
                                          : "permutation",
                 cf->p.param);
    }
    if ((rc = co_ts(h, cf, out, &na)))
        return rc;
    out->l = (struct gc_launch){{cf->grid, 1, 1}, {CO_BLOCK, 1, 1}, 0, out->args, na, 1};
    return 0;
}

/* The pattern's lane offsets, and the poisoned output the verification's
 * launch overwrites (the copy's destination, which every launch does). */
static int co_before(struct gc_harness *h, struct gc_hconf *c)
{
    struct gc_coal_run *cr = h->d->user;
    const struct co_cfg *cf = c->user;
    int rc;

    if (cf->copy)
        return gc__devfill_word(h->s, cr->dst, cr->bytes, 0xDEADBEEFu);
    if ((rc = gc__dev_write(h->s->dev, cr->laneb, 0, cf->off, sizeof(cf->off))))
        return rc;
    return gc__devfill_word(h->s, cr->out, cf->nthreads * 4, 0xDEADBEEFu);
}

/* One run of threads of a check: thread first + i's sum in got[i]. */
struct co_piece {
    const struct gc_coal_run *cr;
    const struct co_cfg *cf;
    const uint32_t *got;
    size_t first;
};

/* Thread t's sum, recomputed from the source's counter-based stream. */
static uint32_t co_want(const struct co_piece *p, size_t t)
{
    size_t base = t / CO_WARP * p->cf->seg + p->cf->off[t % CO_WARP];
    uint32_t want = 0;

    for (int u = 0; u < CO_UNROLL; u++)
        want += gc__hash32(p->cr->seed, base + (size_t)u * p->cr->step);
    return want;
}

static bool co_bad(void *u, size_t i)
{
    const struct co_piece *p = u;

    return p->got[i] != co_want(p, p->first + i);
}

/* The sums of one launch with all = 1, recomputed on the host from the
 * source's counter-based stream (no host copy of the buffer), on the
 * host's cores: every thread up to CO_CHECK_THREADS, else CO_CHECK_PIECES
 * runs of whole warps. */
static int co_verify_read(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    struct gc_coal_run *cr = h->d->user;
    const struct co_cfg *cf = c->user;
    size_t nt = cf->nthreads;
    size_t piece = nt <= CO_CHECK_THREADS ? nt : CO_CHECK_THREADS / CO_CHECK_PIECES;
    size_t npieces = nt <= CO_CHECK_THREADS ? 1 : CO_CHECK_PIECES;
    struct gc_arg args[GC_H_MAX_ARGS];
    struct gc_launch l = c->hl.l;
    uint32_t *got = malloc(piece * sizeof(*got));
    double el;
    int rc;

    if (!got)
        return GC_ENOMEM;
    memcpy(args, c->hl.args, sizeof(args));
    args[5].v.u32 = 1;
    l.args = args;
    l.count = 1;
    rc = gc__dev_launch(h->s->dev, c->k, &l, &el);
    for (size_t q = 0; q < npieces && rc == 0; q++) {
        size_t first = npieces == 1 ? 0 : (nt - piece) / (npieces - 1) * q / CO_WARP * CO_WARP;
        struct co_piece p = {cr, cf, got, first};

        if ((rc = gc__dev_read(h->s->dev, cr->out, first * 4, got, piece * 4)))
            break;
        size_t i = gc__parallel_first(piece, 8192, co_bad, &p);
        if (i != SIZE_MAX) {
            snprintf(msg, len, "thread %zu summed 0x%08x, expected 0x%08x", first + i, got[i],
                     co_want(&p, first + i));
            rc = GC_EVERIFY;
        }
    }
    free(got);
    return rc;
}

static int co_verify(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    struct gc_coal_run *cr = h->d->user;
    const struct co_cfg *cf = c->user;

    /* The destination was poisoned before the launches; it must now equal
     * the source byte for byte. */
    if (cf->copy)
        return verify_copy(h->s, cr->src, cr->dst, cr->bytes, cr->seed, msg, len);
    return co_verify_read(h, c, msg, len);
}

/* The six series, in the order the report has always shown them. */
static int co_plan_series(struct gc_bench_result *r, struct gc_coal_run *cr)
{
    cr->s0 = r->nseries;
    if (!gc__bench_add_series(r, "bandwidth_vs_stride", "lane stride", "elements (4 B)",
                              "useful bandwidth", "B/s") ||
        !gc__bench_add_series(r, "sectors_per_request_vs_stride", "lane stride", "elements (4 B)",
                              "32-byte sectors per warp request (computed)", "sectors") ||
        !gc__bench_add_series(r, "sector_bandwidth_vs_stride", "lane stride", "elements (4 B)",
                              "sector traffic (computed sectors x 32 B)", "B/s") ||
        !gc__bench_add_series(r, "bandwidth_vs_coalescing", "coalesced fraction of a warp",
                              "lanes/32", "useful bandwidth", "B/s") ||
        !gc__bench_add_series(r, "sectors_per_request_vs_coalescing",
                              "coalesced fraction of a warp", "lanes/32",
                              "32-byte sectors per warp request (computed)", "sectors") ||
        !gc__bench_add_series(r, "bandwidth_vs_access_size", "bytes per thread access", "B",
                              "copy bandwidth (read + written)", "B/s"))
        return GC_ENOMEM;
    return 0;
}

/* One read configuration of pattern p; the read kernel's source is shared
 * by every pattern (the runner builds it once). */
static int co_plan_read(struct gc_session *s, struct gc_harness *h, struct gc_coal_run *cr,
                        struct co_pat p)
{
    struct gc_hconf *c = gc__harness_add(h);
    struct co_cfg *cf = &cr->cf[h->ncfg - 1];

    if (!c)
        return GC_ENOMEM;
    *cf = (struct co_cfg){.p = p, .seg = seg_elems(&p), .ts_stride = cr->read_ts};
    for (unsigned l = 0; l < CO_WARP; l++)
        cf->off[l] = lane_offset(&p, l, cr->perm_a, cr->perm_b);
    cf->sectors = sectors_per_request(cf->off);
    cf->nthreads = (size_t)cr->step / cf->seg * CO_WARP;
    cf->grid = (unsigned)(cf->nthreads / CO_BLOCK);
    if (h->ncfg == 1)
        snprintf(c->label, sizeof(c->label), "coalesce_read");
    else
        snprintf(c->label, sizeof(c->label), "coalesce_read_%s%d",
                 p.kind == CO_STRIDE  ? "s"
                 : p.kind == CO_GROUP ? "g"
                                      : "p",
                 p.param);
    c->src = gen_read(s->dev->ops->dialect, cr->flags, cr->step, cr->read_ts);
    c->kernel = "gc_coalesce";
    c->user = cf;
    return c->src ? 0 : GC_ENOMEM;
}

static int co_plan_copy(struct gc_session *s, struct gc_harness *h, struct gc_coal_run *cr,
                        int size)
{
    struct gc_hconf *c = gc__harness_add(h);
    struct co_cfg *cf = &cr->cf[h->ncfg - 1];

    if (!c)
        return GC_ENOMEM;
    *cf = (struct co_cfg){.copy = true, .size = size};
    cf->grid = (unsigned)(cr->bytes / ((size_t)size * CO_BLOCK * CO_COPY_UNROLL));
    cf->ts_stride = ts_stride_for(cf->grid);
    snprintf(c->label, sizeof(c->label), "access_size_%dB", size);
    c->src = gen_copy(s->dev->ops->dialect, cr->flags, size, cf->ts_stride);
    c->kernel = "gc_access";
    c->user = cf;
    return c->src ? 0 : GC_ENOMEM;
}

/* Strides, coalesced fractions, the permutation, then the access sizes. */
static int co_plan_cfgs(struct gc_session *s, struct gc_harness *h, struct gc_coal_run *cr)
{
    bool quick = s->profile == GC_PROFILE_QUICK;
    static const int strides_d[] = {1, 2, 4, 8, 16, 32}, strides_q[] = {1, 4, 32};
    static const int groups_d[] = {1, 2, 4, 8, 16, 32}, groups_q[] = {8};
    static const int sizes_d[] = {1, 2, 4, 8, 16}, sizes_q[] = {1, 4, 16};
    const int *strides = quick ? strides_q : strides_d, *groups = quick ? groups_q : groups_d;
    const int *sizes = quick ? sizes_q : sizes_d;
    int nstr = quick ? 3 : 6, ngrp = quick ? 1 : 6, nsz = quick ? 3 : 5, rc = 0;

    for (int i = 0; i < nstr && rc == 0; i++)
        rc = co_plan_read(s, h, cr, (struct co_pat){CO_STRIDE, strides[i]});
    for (int i = 0; i < ngrp && rc == 0; i++)
        rc = co_plan_read(s, h, cr, (struct co_pat){CO_GROUP, groups[i]});
    if (rc == 0)
        rc = co_plan_read(s, h, cr, (struct co_pat){CO_PERM, 0});
    for (int i = 0; i < nsz && rc == 0; i++)
        rc = co_plan_copy(s, h, cr, sizes[i]);
    return rc;
}

/* The run's compile plan: the kernels co_plan_cfgs requests (the read
 * kernel every pattern shares, a copy kernel per access size), with the
 * sizes gc__coalescing_plan gives them. */
static int plan_coalescing(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out,
                           int *n)
{
    bool quick = s->profile == GC_PROFILE_QUICK;
    static const int sizes_d[] = {1, 2, 4, 8, 16}, sizes_q[] = {1, 4, 16};
    const int *sizes = quick ? sizes_q : sizes_d;
    int nsz = quick ? 3 : 5, m = 0;
    enum gc_dialect dl = s->dev->ops->dialect;
    unsigned flags = gc__harness_ts_flags(&s->dev->info);
    size_t bytes = footprint(s);
    unsigned step = (unsigned)(bytes / 4 / CO_UNROLL);
    struct gc_ksrc *k = calloc((size_t)nsz + 1, sizeof(*k));

    (void)self;
    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    snprintf(k[m].label, sizeof(k[m].label), "coalesce_read");
    if (!(k[m++].src = gen_read(dl, flags, step,
                                ts_stride_for((unsigned)((size_t)step / 32 * CO_WARP / CO_BLOCK)))))
        goto nomem;
    for (int i = 0; i < nsz; i++) {
        unsigned grid = (unsigned)(bytes / ((size_t)sizes[i] * CO_BLOCK * CO_COPY_UNROLL));

        snprintf(k[m].label, sizeof(k[m].label), "access_size_%dB", sizes[i]);
        if (!(k[m++].src = gen_copy(dl, flags, sizes[i], ts_stride_for(grid))))
            goto nomem;
    }
    *out = k;
    *n = m;
    return 0;
nomem:
    gc__ksrc_free(k, m);
    return GC_ENOMEM;
}

int gc__coalescing_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h)
{
    struct gc_device *d = s->dev;
    struct gc_coal_run *cr = calloc(1, sizeof(*cr));
    int rc;

    if (!cr) {
        snprintf(d->err, sizeof(d->err), "out of host memory");
        return GC_ENOMEM;
    }
    cr->flags = gc__harness_ts_flags(&d->info);
    cr->bytes = footprint(s);
    cr->seed = s->seed ^ 0xC0A1E5CEULL;
    uint64_t pst = cr->seed ^ 0x5EEDULL;
    cr->perm_a = (unsigned)(gc__xorshift64s(&pst) % 16) * 2 + 1;
    cr->perm_b = (unsigned)(gc__xorshift64s(&pst) % 32);
    cr->step = (unsigned)(cr->bytes / 4 / CO_UNROLL);
    /* The timestamp stride is part of the read kernel's source: the largest
     * grid (stride 1) sets it for every pattern. */
    cr->read_ts = ts_stride_for((unsigned)((size_t)cr->step / 32 * CO_WARP / CO_BLOCK));
    /* Every configuration is a point of a series: each in full. */
    cr->desc = (struct gc_hdesc){
        .refine_top = CO_MAX_CFG,
        .setup = co_setup,
        .before = co_before,
        .verify = co_verify,
        .user = cr,
    };
    gc__harness_init(h, s, r, &cr->desc);
    if (cr->bytes == 0) {
        gc__bench_set_error(r, GC_BENCH_ERROR, "device memory too small for the sweep");
        return GC_ERANGE;
    }
    if ((rc = co_plan_series(r, cr)) || (rc = co_plan_cfgs(s, h, cr)))
        return rc;
    /* The source is random words filled on the device; the host keeps no
     * copy of it (it recomputes what it checks from the stream). */
    if ((rc = gc__dev_alloc(d, cr->bytes, &cr->src)) ||
        (rc = gc__dev_alloc(d, cr->bytes, &cr->dst)) ||
        (rc = gc__dev_alloc(d, cr->bytes / CO_UNROLL, &cr->out)) ||
        (rc = gc__dev_alloc(d, CO_WARP * 4, &cr->laneb)))
        return rc;
    return gc__devfill_hash(s, cr->src, cr->bytes, cr->seed);
}

void gc__coalescing_free(struct gc_session *s, struct gc_harness *h)
{
    struct gc_coal_run *cr = h->d ? h->d->user : NULL;

    gc__harness_free(h);
    if (!cr)
        return;
    gc__dev_free(s->dev, cr->src);
    gc__dev_free(s->dev, cr->dst);
    gc__dev_free(s->dev, cr->out);
    gc__dev_free(s->dev, cr->laneb);
    free(cr);
}

/* The series points and metrics of one read pattern's full measurement;
 * *bw1 and *bw32 take the stride-1 and stride-32 figures. */
static void co_derive_read(const struct gc_harness *h, const struct gc_hconf *c, double *bw1,
                           double *bw32)
{
    const struct gc_coal_run *cr = h->d->user;
    const struct co_cfg *cf = c->user;
    const struct gc_device_info *info = &h->s->dev->info;
    struct gc_series *sr = &h->r->series[cr->s0];
    double lim = isfinite(info->mem_bw_spec) ? info->mem_bw_spec : gc__cpu_stream_limit(info, 1, 0);
    int p = cf->p.param;
    char lab[32], note[160];

    if (cf->p.kind == CO_STRIDE) {
        struct gc_stats sb = c->stats;

        gc__series_add(&sr[0], p, c->value, &c->stats, NULL);
        gc__series_add(&sr[1], p, cf->sectors, NULL, NULL);
        gc__stats_scale(&sb, cf->sectors * 32.0 / (CO_WARP * 4.0));
        gc__series_add(&sr[2], p, sb.median, &sb, NULL);
        if (p == 1) {
            *bw1 = c->value;
            gc__bench_add_metric(h->r, "coalesced_bandwidth", c->value, "B/s", lim, &c->stats,
                                 "4-byte loads, consecutive lanes on consecutive words, "
                                 "8 loads per thread; read only");
        }
        if (p == 32)
            *bw32 = c->value;
    } else if (cf->p.kind == CO_GROUP) {
        snprintf(lab, sizeof(lab), "%s", p == 32 ? "full" : "");
        if (p < 32)
            snprintf(lab, sizeof(lab), "%d/32", p);
        gc__series_add(&sr[3], p / 32.0, c->value, &c->stats, lab);
        gc__series_add(&sr[4], p / 32.0, cf->sectors, NULL, lab);
    } else {
        snprintf(note, sizeof(note),
                 "lane l reads word ((l x %u) xor %u) mod 32 of its warp's 128-byte line: "
                 "%d sectors per request (computed)",
                 cr->perm_a, cr->perm_b, cf->sectors);
        gc__bench_add_metric(h->r, "permuted_bandwidth", c->value, "B/s", lim, &c->stats, note);
    }
}

static void co_buffer_note(const struct gc_harness *h, size_t bytes)
{
    const struct gc_device_info *info = &h->s->dev->info;
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
    gc__bench_add_metric(h->r, "buffer_size", (double)bytes, "B", NAN, NULL, note);
}

int gc__coalescing_derive(struct gc_session *s, const struct gc_harness *h, const char *bench)
{
    const struct gc_coal_run *cr = h->d->user;
    const struct gc_hconf *ref = NULL;
    double bw1 = NAN, bw32 = NAN;

    (void)s;
    (void)bench;
    for (int i = 0; i < h->ncfg; i++) {
        const struct gc_hconf *c = &h->cfg[i];
        const struct co_cfg *cf = c->user;

        if (c->state != GC_H_REFINED)
            continue;
        if (cf->copy) {
            gc__series_add(&h->r->series[cr->s0 + 5], cf->size, c->value, &c->stats, NULL);
            continue;
        }
        co_derive_read(h, c, &bw1, &bw32);
        if (cf->p.kind == CO_STRIDE && cf->p.param == 1)
            ref = c;
    }
    if (isfinite(bw1) && isfinite(bw32) && bw32 > 0)
        gc__bench_add_metric(h->r, "stride32_slowdown", bw1 / bw32, "x", NAN, NULL,
                             "useful bandwidth at lane stride 1 / at stride 32 (one word per "
                             "128-byte line)");
    co_buffer_note(h, cr->bytes);
    /* The context is that of the coalesced read, the headline. */
    if (ref && ref->m.samples > 0) {
        h->r->context = ref->m.ctx;
        snprintf(h->r->stop_rule, sizeof(h->r->stop_rule), "%s", ref->m.stop_rule);
    }
    return 0;
}

static int run_coalescing(struct gc_session *s, const struct gc_bench *self,
                          struct gc_bench_result *r)
{
    static const struct gc_hbench hb = {gc__coalescing_plan, gc__coalescing_derive,
                                        gc__coalescing_free};

    return gc__harness_bench(s, r, self->info.name, &hb);
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
                "DRAM serves every sample. Every pattern and size is measured in full. "
                "Verification, after each measurement: each thread's sum is stored into a "
                "poisoned output in one launch and recomputed on the host from the generator "
                "(every thread up to 2 Mi threads, else 64 runs of whole warps spread over the "
                "grid, 2 Mi threads in all); copies are compared word for word on the device "
                "(on the host where the device cannot check).",
        },
    .needs_caps = 0,
    .run = run_coalescing,
    .plan = plan_coalescing,
    .report = &coalescing_report,
};
