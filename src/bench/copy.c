/* memory.copy: device-to-device copy bandwidth, best over block size and
 * vector width (Lemeire §VI-A copy kernel; MIPP §IV-B DRAM bandwidth; bytes
 * counted as read + written, as STREAM counts them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "core/random.h"
#include "core/stats.h"
#include "kgen/kcache.h"
#include "kgen/kgen.h"

/* Most vectors a thread moves; all its loads are issued before its stores
 * so that several requests per thread are in flight. */
#define COPY_MAX_UNROLL 8

struct copy_cfg {
    int block;
    int vec_bytes;
    int unroll; /* vectors per thread: 4 or 8 */
    unsigned grid;
    unsigned ts_stride; /* one block in ts_stride records timestamps */
};

static const char *vec_type(int bytes)
{
    switch (bytes) {
    case 4:
        return "int";
    case 8:
        return "int2";
    case 16:
        return "int4";
    case 32:
        return "int8";
    default:
        return "int16";
    }
}

static char *gen_copy(enum gc_dialect d, unsigned flags, const struct copy_cfg *c)
{
    struct gc_sbuf b;
    const char *t = vec_type(c->vec_bytes);

    gc__sbuf_init(&b);
    /* Blocks are short (a few KiB each): only one in ts_stride records its
     * timestamps, enough to span the kernel on every SM. */
    gc__sbuf_printf(&b, "#define GC_TS_STRIDE %u\n", c->ts_stride);
    gc__kgen_prelude(&b, d, flags);
    gc__sbuf_printf(&b,
                    "GC_KERNEL void gc_copy(GC_GLOBAL const %s *GC_RESTRICT src, "
                    "GC_GLOBAL %s *GC_RESTRICT dst GC_TS_PARAM)\n{\n"
                    "    GC_TS_BEGIN\n"
                    "    GC_U64 i = (GC_U64)GC_BID * %d + GC_TID;\n",
                    t, t, c->block * c->unroll);
    for (int u = 0; u < c->unroll; u++)
        gc__sbuf_printf(&b, "    %s v%d = src[i + %d];\n", t, u, u * c->block);
    for (int u = 0; u < c->unroll; u++)
        gc__sbuf_printf(&b, "    dst[i + %d] = v%d;\n", u * c->block, u);
    gc__sbuf_puts(&b, "    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

/* Footprint of each of the two buffers: far above the last-level cache so
 * every sample streams from DRAM (no flush needed), bounded by the device. */
static size_t buffer_bytes(const struct gc_session *s)
{
    const struct gc_device_info *i = &s->dev->info;
    size_t lo, hi, want;

    switch (s->profile) {
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
    /* An unknown cache size on a GPU gets the largest footprint. */
    want = i->l2_size ? 16 * i->l2_size : i->type == GC_DEVICE_GPU ? hi : lo;
    want = want < lo ? lo : want > hi ? hi : want;
    if (i->max_alloc && want > i->max_alloc)
        want = i->max_alloc;
    if (i->global_mem && want > i->global_mem / 4)
        want = i->global_mem / 4;
    /* A whole number of blocks for every configuration. */
    size_t grain = (size_t)1024 * COPY_MAX_UNROLL * 64;
    return want / grain * grain;
}

static int verify_copy(struct gc_session *s, struct gc_buf *dst, size_t bytes, uint64_t seed,
                       struct gc_bench_result *r, const char *cfg)
{
    const size_t chunk = 16u << 20;
    unsigned char *want = malloc(chunk), *got = malloc(chunk);
    int rc = 0;

    if (!want || !got) {
        rc = GC_ENOMEM;
        goto out;
    }
    for (size_t off = 0; off < bytes; off += chunk) {
        size_t len = bytes - off < chunk ? bytes - off : chunk;

        /* The same chunked stream gc__dev_fill_random wrote. */
        gc__random_fill(want, len, seed + off / chunk * 0x9E3779B97F4A7C15ULL);
        rc = gc__dev_read(s->dev, dst, off, got, len);
        if (rc)
            goto out;
        if (memcmp(want, got, len) != 0) {
            size_t k = 0;
            while (k < len && want[k] == got[k])
                k++;
            gc__bench_set_error(r, GC_BENCH_ERROR,
                                "verification failed (%s): byte %zu differs (0x%02x, expected "
                                "0x%02x)",
                                cfg, off + k, got[k], want[k]);
            rc = GC_EVERIFY;
            goto out;
        }
    }
out:
    free(want);
    free(got);
    return rc;
}

static int run_copy(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    static const int blocks_q[] = {256, 1024}, blocks_d[] = {64, 128, 256, 512, 1024};
    static const int vecs_q[] = {4, 16}, vecs_cuda[] = {4, 8, 16}, vecs_cl[] = {4, 8, 16, 32, 64};
    const int *blocks = s->profile == GC_PROFILE_QUICK ? blocks_q : blocks_d;
    int nblocks = s->profile == GC_PROFILE_QUICK ? 2 : 5;
    const int *vecs = s->profile == GC_PROFILE_QUICK       ? vecs_q
                      : d->ops->dialect == GC_DIALECT_CUDA ? vecs_cuda
                                                           : vecs_cl;
    int nvecs = s->profile == GC_PROFILE_QUICK ? 2 : d->ops->dialect == GC_DIALECT_CUDA ? 3 : 5;
    static const int unrolls[] = {4, 8};
    int nunroll = s->profile == GC_PROFILE_QUICK ? 1 : 2;
    struct copy_cfg cfgs[64];
    struct gc_kreq reqs[64];
    char labels[64][48];
    int ncfg = 0, rc = 0;
    unsigned flags = (info->caps & GC_CAP_CLOCK64) && (info->caps & GC_CAP_GLOBALTIMER) &&
                             (info->caps & GC_CAP_SMID)
                         ? GC_KGEN_TIMESTAMPS
                         : 0;
    size_t bytes = buffer_bytes(s);
    struct gc_buf *src = NULL, *dst = NULL, *tsb = NULL;
    struct gc_measurement best = {0};
    struct copy_cfg best_cfg = {0, 0, 0, 0, 1};
    double best_bw = 0;
    uint64_t seed = s->seed ^ 0xC0B1ULL;

    memset(reqs, 0, sizeof(reqs));
    for (int un = 0; un < nunroll; un++)
        for (int v = 0; v < nvecs; v++)
            for (int b = 0; b < nblocks; b++) {
                if (blocks[b] > info->max_threads_per_block)
                    continue;
                struct copy_cfg *cf = &cfgs[ncfg];
                cf->block = blocks[b];
                cf->vec_bytes = vecs[v];
                cf->unroll = unrolls[un];
                cf->grid = (unsigned)(bytes / ((size_t)vecs[v] * (size_t)blocks[b] * unrolls[un]));
                cf->ts_stride = 1;
                while (cf->grid / cf->ts_stride > 4096)
                    cf->ts_stride *= 2;
                snprintf(labels[ncfg], sizeof(labels[ncfg]), "copy_b%d_v%d_u%d", blocks[b], vecs[v],
                         unrolls[un]);
                reqs[ncfg].label = labels[ncfg];
                reqs[ncfg].src = gen_copy(d->ops->dialect, flags, &cfgs[ncfg]);
                if (!reqs[ncfg].src) {
                    rc = GC_ENOMEM;
                    goto out;
                }
                ncfg++;
            }
    if (bytes == 0) {
        gc__bench_set_error(r, GC_BENCH_ERROR, "device memory too small for the copy benchmark");
        rc = GC_ERANGE;
        goto out;
    }
    rc = gc__kcache_build(s, reqs, ncfg);
    if (rc)
        goto out;
    if ((rc = gc__dev_alloc(d, bytes, &src)) || (rc = gc__dev_alloc(d, bytes, &dst)))
        goto out;
    rc = gc__dev_fill_random(d, src, bytes, seed);
    if (rc)
        goto out;

    for (int un = 0; un < nunroll; un++)
        for (int v = 0; v < nvecs; v++) {
            char name[40];

            snprintf(name, sizeof(name), "bandwidth_vec%dB_unroll%d", vecs[v], unrolls[un]);
            if (!gc__bench_add_series(r, name, "block size", "threads", "bandwidth", "B/s")) {
                rc = GC_ENOMEM;
                goto out;
            }
        }

    for (int c = 0; c < ncfg && !gc__stopped(s); c++) {
        struct gc_kern *k = NULL;
        unsigned grid = cfgs[c].grid;
        struct gc_arg args[3];
        struct gc_launch l = {{grid, 1, 1}, {(unsigned)cfgs[c].block, 1, 1}, 0, args, 2, 1};
        unsigned nrec = (grid + cfgs[c].ts_stride - 1) / cfgs[c].ts_stride;
        struct gc_timestamps ts = {NULL, nrec};
        struct gc_measurement m;
        char cfgname[64];

        snprintf(cfgname, sizeof(cfgname), "block %d, %d-byte vectors, %d per thread",
                 cfgs[c].block, cfgs[c].vec_bytes, cfgs[c].unroll);
        rc = d->ops->kernel(reqs[c].prog, "gc_copy", &k);
        if (rc) {
            snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
            goto out;
        }
        if (flags & GC_KGEN_TIMESTAMPS) {
            gc__dev_free(d, tsb);
            tsb = NULL;
            rc = gc__dev_alloc(d, (size_t)nrec * GC_TS_WORDS * 8, &tsb);
            if (rc)
                goto out;
            ts.buf = tsb;
            args[2] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = tsb};
            l.nargs = 3;
        }
        args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = src};
        args[1] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = dst};
        /* Poison the destination so that verification proves this
         * configuration wrote every byte. */
        rc = gc__dev_fill_random(d, dst, bytes, seed + 1 + (uint64_t)c);
        if (rc)
            goto out;
        rc = gc__measure(s, k, &l, (flags & GC_KGEN_TIMESTAMPS) ? &ts : NULL, NULL, 0, &m);
        if (rc == 0 || (rc == GC_EINTR && m.samples > 0)) {
            int vrc = verify_copy(s, dst, bytes, seed, r, cfgname);
            if (vrc) {
                gc__measurement_free(&m);
                rc = vrc;
                goto out;
            }
            struct gc_stats bw;
            gc__stats_inverse(m.per_sample_s, m.samples, 2.0 * (double)bytes, &bw);
            int vi = 0;
            while (vecs[vi] != cfgs[c].vec_bytes)
                vi++;
            gc__series_add(&r->series[(cfgs[c].unroll == unrolls[0] ? 0 : nvecs) + vi],
                           cfgs[c].block, bw.median, &bw, NULL);
            if (bw.median > best_bw) {
                gc__measurement_free(&best);
                best = m;
                best_bw = bw.median;
                best_cfg = cfgs[c];
                m.per_sample_s = NULL;
            }
        }
        gc__measurement_free(&m);
        if (rc)
            goto out;
    }
    if (best_bw > 0) {
        struct gc_stats bw;
        char note[256];
        double limit = isfinite(info->mem_bw_spec) ? info->mem_bw_spec : NAN;

        gc__stats_inverse(best.per_sample_s, best.samples, 2.0 * (double)bytes, &bw);
        snprintf(note, sizeof(note),
                 "best of %d configs: block %d, %d-byte vectors, %d per thread; 2 x %.0f MiB "
                 "(read + written), %d launches/sample",
                 ncfg, best_cfg.block, best_cfg.vec_bytes, best_cfg.unroll,
                 (double)bytes / (1 << 20), best.launches_per_sample);
        gc__bench_add_metric(r, "copy_bandwidth", bw.median, "B/s", limit, &bw, note);
        if (isfinite(best.clock_mhz) && info->compute_units > 0)
            gc__bench_add_metric(r, "copy_bytes_per_clk_per_cu",
                                 bw.median / (best.clock_mhz * 1e6 * info->compute_units),
                                 "B/clk/CU", NAN, NULL, "at the observed SM clock");
        if (info->l2_size)
            snprintf(note, sizeof(note),
                     "each of source and destination; %.1fx the %.0f KiB cache the device "
                     "reports",
                     (double)bytes / (double)info->l2_size, (double)info->l2_size / 1024);
        else
            snprintf(note, sizeof(note),
                     "each of source and destination; the device reports no cache size");
        gc__bench_add_metric(r, "buffer_size", (double)bytes, "B", NAN, NULL, note);
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
    gc__kreq_release(s, reqs, ncfg);
    for (int c = 0; c < ncfg; c++)
        free((char *)reqs[c].src);
    return rc;
}

const struct gc_bench gc__bench_copy = {
    .info =
        {
            .name = "memory.copy",
            .group = "memory",
            .summary = "device-to-device copy bandwidth (read + write), best over block size "
                       "and vector width",
            .method =
                "Copy kernel (Lemeire et al. SVI-A; MIPP SIV-B): each thread loads 4 or 8 vectors "
                "of 4..16 bytes (64 on OpenCL) at a stride of the block size, then stores them, "
                "so 4 or 8 requests per thread are in flight. Sizes are compile-time constants. "
                "Buffers are filled with xorshift64* random data and sized at 16x the "
                "last-level cache (64 MiB..1 GiB by default) so every sample streams from DRAM. "
                "Bandwidth = 2 x buffer bytes / time per launch (bytes read + bytes written), "
                "timed with device events over back-to-back launches; the destination is "
                "poisoned before each configuration and compared with the source afterwards. "
                "Reported: the best configuration's median with min/max/CI, against the DRAM "
                "bandwidth the device reports (2 x memory clock x bus width / 8).",
        },
    .needs_caps = 0,
    .run = run_copy,
};
