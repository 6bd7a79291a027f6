/* transfer.*: host<->device copies per kind of host memory (pageable,
 * pinned, write-combined, mapped/zero-copy read by kernels, OpenCL
 * map/unmap) and device-to-device, from 4 B up in half octaves (whole ones
 * with --quick), each copy
 * verified, with the Hockney fit t(n) = t0 + n / r_inf (latency, asymptotic
 * bandwidth, n_half) against the host link's limit (uCLbench §2.2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/transfer/transfer.h"
#include "util/hostmem.h"
#include "util/random.h"
#include "core/devfill.h"
#include "core/kcache.h"
#include "core/progress.h"
#include "core/stats.h"
#include "kgen/kgen.h"
#include "model/link.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)
/* Source offsets vary with the size (multiples of a page), so that a copy
 * that did nothing leaves data of another offset behind and fails the check. */
#define XF_OFF_STEP (4 * KIB)
#define XF_OFF_SLOTS 8
#define XF_SLACK (XF_OFF_STEP * XF_OFF_SLOTS)
#define XF_MAX_SIZES 96
#define XF_BLOCK 256

enum xf_kind { XF_COPY, XF_ZERO_COPY, XF_D2D };

struct xf_mode {
    const char *bench;
    const char *label; /* in notes */
    enum xf_kind how;
    enum gc_host_kind host;
    enum gc_xfer_method method;
    bool bidir;       /* also both directions at once */
    bool two_streams; /* also each copy split over two streams (large sizes) */
    bool full_range;  /* --full goes to 2 GiB (else 1 GiB) */
    bool h2d_only;    /* host memory meant as a copy source: H2D timed only */
};

static const struct xf_mode modes[] = {
    {"transfer.pinned", "pinned (page-locked) host memory", XF_COPY, GC_HOST_PINNED, GC_XFER_COPY,
     true, true, true, false},
    {"transfer.pageable", "pageable host memory", XF_COPY, GC_HOST_PAGEABLE, GC_XFER_COPY, false,
     false, false, false},
    {"transfer.write_combined", "write-combined pinned host memory", XF_COPY,
     GC_HOST_WRITE_COMBINED, GC_XFER_COPY, false, false, false, true},
    {"transfer.mapped", "mapped host memory read/written in place by a kernel (zero-copy)",
     XF_ZERO_COPY, GC_HOST_MAPPED, GC_XFER_COPY, false, false, false, false},
    {"transfer.map", "map/unmap of the device buffer and a host memcpy", XF_COPY, GC_HOST_PAGEABLE,
     GC_XFER_MAP, false, false, false, false},
    {"transfer.d2d", "device-to-device copy", XF_D2D, GC_HOST_PAGEABLE, GC_XFER_COPY, false, false,
     true, false},
};

#define NMODES ((int)(sizeof(modes) / sizeof(modes[0])))

int gc__transfer_sizes(size_t max, int steps, size_t *out, int cap)
{
    int n = 0, step = steps >= 2 ? 1 : 2;

    /* 4 B x 2^(k/2), rounded to whole 4-byte words, duplicates dropped. */
    for (int k = 0; n < cap; k += step) {
        double v = 4.0 * pow(2.0, k / 2.0);
        size_t s = (size_t)(v / 4.0 + 0.5) * 4;

        if (s > max)
            break;
        if (n > 0 && s == out[n - 1])
            continue;
        out[n++] = s;
    }
    return n;
}

size_t gc__transfer_max_size(enum gc_profile p, bool gpu, bool full_range, bool host)
{
    if (!gpu)
        return p == GC_PROFILE_QUICK ? 1 * MIB : p == GC_PROFILE_FULL ? 256 * MIB : 32 * MIB;
    if (p == GC_PROFILE_QUICK && host)
        return 64 * MIB;
    if (p == GC_PROFILE_FULL)
        return full_range ? 2 * GIB : 1 * GIB;
    /* Copies through the host link reach its asymptote by 64 MiB (a 2.5 us
     * latency is 0.2% of one at 55 GB/s), and every further megabyte is
     * page-locked host memory the whole run holds: the larger points are
     * --full's. A copy inside the device needs 256 MiB, past L2 (it takes
     * ~0.1 ms at DRAM speed). */
    return host ? 64 * MIB : 256 * MIB;
}

/* Verification compares in pieces of this size; a source kept nowhere on
 * the host (device-to-device, write-combined) is made again piece by piece
 * from its counter-based stream, on the host's cores (gc__hash_fill splits
 * a piece into parts of 1 MiB: 16 MiB keeps 16 of them busy). */
#define XF_CHUNK ((size_t)16 << 20)
/* A copy shorter than this is latency-dominated (the spread of its samples
 * is the launch's), one longer than XF_LONG_S stable: three samples each. */
#define XF_SHORT_S 100e-6
#define XF_LONG_S 2e-3
/* Power-of-two sizes from here are also split over two streams. */
#define XF_TWO_MIN (64 * MIB)
#define XF_MAX_SAMPLES 64

/* One benchmark's buffers and the operation being timed. */
struct xf_run {
    struct gc_session *s;
    struct gc_device *d;
    struct gc_bench_result *r;
    const struct xf_mode *m;
    uint64_t seed;              /* of the source data: words gc__hash32(seed, i) */
    struct gc_hostmem *ha, *hb; /* source, destination (none for device-to-device) */
    unsigned char *chunk;       /* 2 x XF_CHUNK bytes for check_stream */
    struct gc_buf *da, *db;     /* device buffers */
    struct gc_kern *zk;         /* zero-copy kernel */
    unsigned zgrid_max;
    size_t sizes[XF_MAX_SIZES], max, req_max;
    int nsizes;
    char why[512], refused[GC_ERRLEN];
};

/* count copies of bytes in direction dir; src_off is the offset into the
 * source (host A, or device A for D2D). */
static int timed(struct xf_run *x, enum gc_xfer_dir dir, size_t bytes, size_t src_off,
                 size_t src2_off, int count, int streams, double *el)
{
    struct gc_device *d = x->d;
    int rc;

    if (x->m->how == XF_ZERO_COPY) {
        bool h2d = dir == GC_XFER_H2D;
        uint32_t n = (uint32_t)(bytes / 4);
        unsigned grid = (unsigned)((n + XF_BLOCK - 1) / XF_BLOCK);
        struct gc_arg args[5] = {
            {.type = GC_ARG_BUF, .v.buf = h2d ? x->ha->view : x->da},
            {.type = GC_ARG_U32, .v.u32 = h2d ? (uint32_t)(src_off / 4) : 0},
            {.type = GC_ARG_BUF, .v.buf = h2d ? x->da : x->hb->view},
            {.type = GC_ARG_U32, .v.u32 = 0},
            {.type = GC_ARG_U32, .v.u32 = n},
        };
        struct gc_launch l = {
            {grid < x->zgrid_max ? grid : x->zgrid_max, 1, 1}, {XF_BLOCK, 1, 1}, 0, args, 5, count};
        return gc__dev_launch(d, x->zk, &l, el);
    }
    struct gc_xfer t = {
        .dir = dir, .method = x->m->method, .bytes = bytes, .count = count, .streams = streams};
    switch (dir) {
    case GC_XFER_H2D:
        t.buf = x->da;
        t.host = (char *)x->ha->ptr + src_off;
        break;
    case GC_XFER_D2H:
        t.buf = x->da;
        t.host = x->hb->ptr;
        break;
    case GC_XFER_D2D:
        t.buf = x->db;
        t.buf2 = x->da;
        t.buf2_off = src_off;
        break;
    case GC_XFER_BIDIR:
        t.buf = x->da;
        t.host = (char *)x->ha->ptr + src2_off;
        t.buf2 = x->db;
        t.host2 = x->hb->ptr;
        break;
    }
    rc = d->ops->transfer(d->dev, &t, el);
    if (rc)
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    return rc;
}

/* Samples of one size: a warm-up copy, a probe that sets the copies per
 * sample, then the samples; per_copy[] gets seconds per copy. */
static int sample_size(struct xf_run *x, enum gc_xfer_dir dir, size_t bytes, size_t off,
                       size_t off2, int streams, double *per_copy, int *nsamples)
{
    const struct gc_sampling *c = &x->s->sampling;
    double target = c->target_sample_s / 10, el = 0;
    int rc, count, want = c->min_samples < XF_MAX_SAMPLES ? c->min_samples : XF_MAX_SAMPLES;

    /* An explicit --repeat is the number of samples. */
    if (c->samples_set)
        want = c->max_samples < XF_MAX_SAMPLES ? c->max_samples : XF_MAX_SAMPLES;
    if ((rc = timed(x, dir, bytes, off, off2, 1, streams, &el)) ||
        (rc = timed(x, dir, bytes, off, off2, 1, streams, &el)))
        return rc;
    count = el > 0 ? (int)ceil(target / el) : 1000;
    count = count < 1 ? 1 : count > 4096 ? 4096 : count;
    /* Latency-dominated copies (each sample already averages many) and
     * long, stable ones: three samples suffice. */
    if ((el < XF_SHORT_S || el > XF_LONG_S) && want > 3 && !c->samples_set)
        want = 3;
    *nsamples = 0;
    for (int i = 0; i < want; i++) {
        if (gc__stopped(x->s))
            return GC_EINTR;
        if ((rc = timed(x, dir, bytes, off, off2, count, streams, &el)))
            return rc;
        per_copy[(*nsamples)++] = el / count;
    }
    return 0;
}

/* len bytes of got must equal those of want; they start at byte at of a
 * copy of bytes (the message names the copy and the byte). */
static int check(struct gc_bench_result *r, const char *what, size_t bytes, size_t at,
                 const void *want, const void *got, size_t len)
{
    const unsigned char *a = want, *b = got;

    if (memcmp(a, b, len) == 0)
        return 0;
    size_t i = 0;
    while (i < len && a[i] == b[i])
        i++;
    gc__bench_set_error(r, GC_BENCH_ERROR,
                        "verification failed (%s, %zu bytes): byte %zu is 0x%02x, expected 0x%02x",
                        what, bytes, at + i, b[i], a[i]);
    return GC_EVERIFY;
}

/* A copy of bytes from the source at src_off must have arrived: in got on
 * the host, or (got NULL) in device buffer b. The expected bytes come from
 * the source's stream, so no host copy of the source is needed. */
static int check_stream(struct xf_run *x, const char *what, size_t bytes, size_t src_off,
                        const unsigned char *got, struct gc_buf *b)
{
    unsigned char *want = x->chunk, *piece = x->chunk + XF_CHUNK;
    int rc;

    for (size_t at = 0; at < bytes; at += XF_CHUNK) {
        size_t len = bytes - at < XF_CHUNK ? bytes - at : XF_CHUNK;

        gc__hash_fill((uint32_t *)(void *)want, (src_off + at) / 4, len / 4, x->seed);
        if (!got && (rc = gc__dev_read(x->d, b, at, piece, len)))
            return rc;
        if ((rc = check(x->r, what, bytes, at, want, got ? got + at : piece, len)))
            return rc;
    }
    return 0;
}

/* What one direction measured: per size the median time per copy. */
struct xf_dir {
    const char *name; /* "h2d" ... */
    enum gc_xfer_dir dir;
    int streams;
    bool on;
    struct gc_series *time, *bw;
    double sizes[XF_MAX_SIZES], med[XF_MAX_SIZES];
    struct gc_stats bwst[XF_MAX_SIZES];
    int n;
};

/* The two-stream series of pinned copies and their best points. */
struct xf_two {
    struct gc_series *s[2];
    struct gc_stats best[2];
    double best_size[2];
};

static int add_dir_series(struct gc_bench_result *r, struct xf_dir *dd, const char *label)
{
    char name[64], yname[128];

    snprintf(name, sizeof(name), "%s_time_vs_size", dd->name);
    snprintf(yname, sizeof(yname), "time per copy (%s)", label);
    dd->time = gc__bench_add_series(r, name, "size", "B", yname, "s");
    snprintf(name, sizeof(name), "%s_bandwidth_vs_size", dd->name);
    snprintf(yname, sizeof(yname), "bandwidth (%s)", label);
    dd->bw = gc__bench_add_series(r, name, "size", "B", yname, "B/s");
    return dd->time && dd->bw ? 0 : GC_ENOMEM;
}

/* Records one size of one direction: series points and the stored median. */
static void record(struct xf_dir *dd, size_t bytes, const double *per_copy, int n, double factor)
{
    struct gc_stats ts, bs;

    gc__stats_compute(per_copy, n, &ts);
    gc__stats_inverse(per_copy, n, factor * (double)bytes, &bs);
    gc__series_add(dd->time, (double)bytes, ts.median, &ts, NULL);
    gc__series_add(dd->bw, (double)bytes, bs.median, &bs, NULL);
    dd->sizes[dd->n] = (double)bytes;
    dd->med[dd->n] = ts.median;
    dd->bwst[dd->n] = bs;
    dd->n++;
}

/* Metrics of one direction: best bandwidth against the limit, the Hockney
 * fit, the smallest copy's time. Returns GC_ERANGE when a figure exceeds its
 * physical limit (recorded as the benchmark's error). */
static int dir_metrics(struct gc_bench_result *r, const struct xf_dir *dd, double limit,
                       const char *limit_note, const char *label, double min_size)
{
    char name[64], note[256];
    int best = -1;

    if (dd->n == 0)
        return 0;
    for (int i = 0; i < dd->n; i++)
        if (isfinite(dd->bwst[i].median) && dd->sizes[i] >= min_size &&
            (best < 0 || dd->bwst[i].median > dd->bwst[best].median))
            best = i;
    if (best >= 0) {
        snprintf(name, sizeof(name), "%s_bandwidth", dd->name);
        snprintf(note, sizeof(note), "best size %.0f B; %s; limit: %s", dd->sizes[best], label,
                 limit_note);
        gc__bench_add_metric(r, name, dd->bwst[best].median, "B/s", limit, &dd->bwst[best], note);
    }
    /* Where a cache can serve the copy (min_size > 0), the fit leaves out
     * the sizes between latency and DRAM regimes: its asymptote is then
     * DRAM's, not a blend with the cache's rate above the DRAM limit. */
    double fs[XF_MAX_SIZES], ft[XF_MAX_SIZES];
    int nf = 0;
    for (int i = 0; i < dd->n; i++)
        if (min_size <= 0 || dd->sizes[i] <= min_size / 256 || dd->sizes[i] >= min_size) {
            fs[nf] = dd->sizes[i];
            ft[nf++] = dd->med[i];
        }
    struct gc_hockney h;
    if (gc__hockney_fit(fs, ft, nf, &h) == 0) {
        double sizes_per_copy = strcmp(dd->name, "bidir") == 0 ? 2.0 : 1.0;
        char kept[96] = "";
        if (min_size > 0)
            snprintf(kept, sizeof(kept), "; sizes <= %.0f B and >= %.0f B only", min_size / 256,
                     min_size);
        snprintf(name, sizeof(name), "%s_latency", dd->name);
        snprintf(note, sizeof(note),
                 "Hockney t0 of t(n) = t0 + n / r_inf over %d sizes (relative least squares, "
                 "largest residual %.0f%%%s)",
                 h.npoints, 100 * h.max_rel_resid, kept);
        gc__bench_add_metric(r, name, h.latency_s, "s", NAN, NULL, note);
        snprintf(name, sizeof(name), "%s_bandwidth_fit", dd->name);
        /* A model parameter, not a measured rate: no limit of its own (the
         * measured bandwidth carries the link's). */
        gc__bench_add_metric(r, name, sizes_per_copy * h.bandwidth, "B/s", NAN, NULL,
                             "Hockney r_inf: asymptotic bandwidth of the fit");
        snprintf(name, sizeof(name), "%s_n_half", dd->name);
        gc__bench_add_metric(r, name, h.n_half, "B", NAN, NULL,
                             "Hockney n_half = t0 x r_inf: size reaching half of r_inf");
    } else {
        /* Times that do not grow with the size over the ladder (a noisy
         * host where every copy costs a thread hand-off) fit no model:
         * the figures are there, without a value, saying why. */
        static const char *const part[] = {"latency", "bandwidth_fit", "n_half"};
        static const char *const unit[] = {"s", "B/s", "B"};
        snprintf(note, sizeof(note),
                 "not resolved: over %d sizes the copy time does not grow with the size, so "
                 "t(n) = t0 + n / r_inf has no fit with t0 >= 0 and r_inf > 0",
                 nf);
        for (int i = 0; i < 3; i++) {
            snprintf(name, sizeof(name), "%s_%s", dd->name, part[i]);
            gc__bench_add_metric(r, name, NAN, unit[i], NAN, NULL, note);
        }
    }
    snprintf(name, sizeof(name), "%s_time_%.0fB", dd->name, dd->sizes[0]);
    snprintf(note, sizeof(note), "median time of one %.0f-byte copy (measured)", dd->sizes[0]);
    gc__bench_add_metric(r, name, dd->med[0], "s", NAN, NULL, note);
    if (best >= 0 && isfinite(limit) && dd->bwst[best].median > 1.03 * limit) {
        gc__bench_set_error(r, GC_BENCH_ERROR,
                            "%s bandwidth %.2f GB/s is above the physical limit %.2f GB/s (%s): "
                            "a measurement error",
                            dd->name, dd->bwst[best].median * 1e-9, limit * 1e-9, limit_note);
        return GC_ERANGE;
    }
    return 0;
}

static char *gen_zero_copy(enum gc_dialect dl)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, dl, 0);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_zero_copy(GC_GLOBAL const GC_U32 *src, GC_U32 soff, "
                      "GC_GLOBAL GC_U32 *dst, GC_U32 doff, GC_U32 n)\n{\n"
                      "    for (GC_U32 i = GC_GID; i < n; i += GC_BDIM * GC_NBLK)\n"
                      "        dst[doff + i] = src[soff + i];\n}\n");
    return gc__sbuf_take(&b);
}

/* Allocates host memory of the mode's kind, halving the size on a refusal
 * (a locked-memory limit) down to 64 KiB. *bytes gets the size obtained. */
static int host_alloc(struct xf_run *x, enum gc_host_kind kind, size_t *bytes,
                      struct gc_hostmem **out, char *refused, size_t rlen)
{
    struct gc_device *d = x->d;
    size_t want = *bytes;
    int rc;

    for (;;) {
        rc = gc__dev_host_alloc(d, want + XF_SLACK, kind, out);
        if (rc == 0) {
            *bytes = want;
            return 0;
        }
        if (rc != GC_ENOMEM || want / 2 < 64 * KIB)
            return rc;
        if (!refused[0])
            snprintf(refused, rlen, "%s", d->err);
        want /= 2;
    }
}

/* Sizes per octave: two, one with --quick (the fits need no more). */
static int per_octave(const struct xf_run *x)
{
    return x->s->profile == GC_PROFILE_QUICK ? 1 : 2;
}

/* The host memory bound on the largest size: the buffers in host memory
 * (two host buffers except for device-to-device copies, and the two device
 * buffers of a CPU device) within 80% of MemAvailable and half the address
 * space the process may still map (RLIMIT_AS, ulimit -v): the runtime needs
 * the rest (its compiler, staging copies, thread stacks), and a CPU runtime
 * that cannot map its own memory crashes rather than failing the call. */
static void host_bound(struct xf_run *x, size_t *max)
{
    size_t nbuf = (x->m->how != XF_D2D ? 2 : 0) + (x->d->info.type == GC_DEVICE_CPU ? 2 : 0);
    size_t havail = gc__host_mem_available(), aslimit, asroom = gc__host_as_room(&aslimit);

    if (nbuf == 0)
        return;
    if (havail > 0 && *max > havail / 5 * 4 / nbuf) {
        *max = havail / 5 * 4 / nbuf;
        snprintf(x->why, sizeof(x->why), "available host memory (%zu B; %zu buffers in it)", havail,
                 nbuf);
    }
    if (asroom != SIZE_MAX && *max > asroom / 2 / nbuf) {
        *max = asroom / 2 / nbuf;
        snprintf(x->why, sizeof(x->why),
                 "the address-space limit (RLIMIT_AS %zu B, %zu B of it unmapped; %zu buffers "
                 "in it)",
                 aslimit, asroom, nbuf);
    }
}

/* The sizes: the profile's largest, bounded by the memory there is (two
 * device buffers, and two host buffers except for device-to-device copies).
 * GC_ENOTSUP (the result says why) when too little is left. */
static int plan_sizes(struct xf_run *x)
{
    struct gc_device *d = x->d;
    bool gpu = d->info.type == GC_DEVICE_GPU;
    size_t max, dfree = 0, dtotal = 0;

    x->req_max = max =
        gc__transfer_max_size(x->s->profile, gpu, x->m->full_range, x->m->how != XF_D2D);
    if (d->info.max_alloc > XF_SLACK && max > d->info.max_alloc - XF_SLACK) {
        max = d->info.max_alloc - XF_SLACK;
        snprintf(x->why, sizeof(x->why), "the device's largest buffer (%zu B)", d->info.max_alloc);
    }
    if (d->ops->mem_info && d->ops->mem_info(d->dev, &dfree, &dtotal) == 0 && max > dfree / 5 * 2) {
        max = dfree / 5 * 2;
        snprintf(x->why, sizeof(x->why), "free device memory (%zu B; two buffers needed)", dfree);
    }
    host_bound(x, &max);
    x->nsizes = gc__transfer_sizes(max, per_octave(x), x->sizes, XF_MAX_SIZES);
    if (x->nsizes < 2) {
        gc__bench_set_error(x->r, GC_BENCH_NOT_AVAILABLE, "not available: too little memory (%s)",
                            x->why[0] ? x->why : "unknown");
        return GC_ENOTSUP;
    }
    x->max = x->sizes[x->nsizes - 1];
    return 0;
}

/* Host memory of the mode's kind, source and destination (a D2H copy lands
 * in the same kind), allocated once at the largest size and reused by every
 * size; device-to-device copies need none. GC_ENOTSUP: not available. */
static int alloc_host(struct xf_run *x)
{
    const struct xf_mode *m = x->m;
    size_t got = x->max, got2;
    int rc;

    x->chunk = malloc(2 * XF_CHUNK);
    if (!x->chunk)
        return GC_ENOMEM;
    if (m->how == XF_D2D)
        return 0;
    rc = host_alloc(x, m->host, &got, &x->ha, x->refused, sizeof(x->refused));
    if (rc == 0) {
        /* Write-combined memory is a copy source: the copies back land in
         * ordinary pinned memory, which the CPU can read to check them. */
        got2 = got;
        rc = host_alloc(x, m->h2d_only ? GC_HOST_PINNED : m->host, &got2, &x->hb, x->refused,
                        sizeof(x->refused));
        got = got2 < got ? got2 : got;
    }
    if (rc == GC_ENOTSUP || (rc == GC_ENOMEM && x->refused[0])) {
        gc__bench_set_error(x->r, GC_BENCH_NOT_AVAILABLE, "not available: %s", x->d->err);
        return GC_ENOTSUP;
    }
    if (rc)
        return rc;
    if (got < x->max) {
        snprintf(x->why, sizeof(x->why), "host memory refused (%.300s)", x->refused);
        x->nsizes = gc__transfer_sizes(got, per_octave(x), x->sizes, XF_MAX_SIZES);
        x->max = x->sizes[x->nsizes - 1];
    }
    return 0;
}

/* Device buffers; memory the backend could not count (no free-memory query)
 * may still run out: the sizes shrink by halves, and the row says so. */
static int alloc_device(struct xf_run *x)
{
    struct gc_device *d = x->d;
    int rc;

    for (;;) {
        rc = gc__dev_alloc(d, x->max + XF_SLACK, &x->da);
        if (rc == 0)
            rc = gc__dev_alloc(d, x->max, &x->db);
        if (rc != GC_EDEVMEM || x->max / 2 < 64 * KIB)
            return rc;
        gc__dev_free(d, x->da);
        x->da = NULL;
        snprintf(x->why, sizeof(x->why), "device memory (an allocation of %zu B failed: %.300s)",
                 x->max, d->err);
        x->nsizes = gc__transfer_sizes(x->max / 2, per_octave(x), x->sizes, XF_MAX_SIZES);
        x->max = x->sizes[x->nsizes - 1];
    }
}

/* The source's random data (host A, or device A for device-to-device
 * copies, filled on the device), the map probe and the zero-copy kernel.
 * GC_ENOTSUP: not available. */
static int prepare(struct xf_run *x, struct gc_kreq *req, bool *built)
{
    struct gc_device *d = x->d;
    int rc;

    if (x->m->method == GC_XFER_MAP) {
        /* A backend without map/unmap says so on a first small copy. */
        double el;
        rc = timed(x, GC_XFER_H2D, 4, 0, 0, 1, 1, &el);
        if (rc == GC_ENOTSUP)
            gc__bench_set_error(x->r, GC_BENCH_NOT_AVAILABLE, "not available: %s", d->err);
        if (rc)
            return rc;
    }
    /* Write-combined memory is written in order only (the CPU reads it
     * uncached); its copies are checked against the stream, not read back. */
    if (x->m->how == XF_D2D)
        return gc__devfill_hash(x->s, x->da, x->max + XF_SLACK, x->seed);
    gc__hash_fill(x->ha->ptr, 0, (x->max + XF_SLACK) / 4, x->seed);
    if (x->m->how != XF_ZERO_COPY)
        return 0;
    req->label = "transfer_zero_copy";
    req->src = gen_zero_copy(d->ops->dialect);
    if (!req->src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(x->s, req, 1)))
        return rc;
    *built = true;
    if ((rc = d->ops->kernel(req->prog, "gc_zero_copy", &x->zk))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    int per_cu = d->info.max_threads_per_cu >= XF_BLOCK ? d->info.max_threads_per_cu / XF_BLOCK : 4;
    x->zgrid_max = (unsigned)(per_cu * (d->info.compute_units > 0 ? d->info.compute_units : 1));
    return 0;
}

/* The directions a mode measures, with their series. */
static int plan_dirs(struct xf_run *x, struct xf_dir *dirs, int *ndirs, struct xf_two *two)
{
    const struct xf_mode *m = x->m;
    int n = 0, rc;

    if (m->how == XF_D2D) {
        dirs[n++] = (struct xf_dir){.name = "d2d", .dir = GC_XFER_D2D, .streams = 1, .on = 1};
    } else {
        dirs[n++] = (struct xf_dir){.name = "h2d", .dir = GC_XFER_H2D, .streams = 1, .on = 1};
        if (!m->h2d_only)
            dirs[n++] = (struct xf_dir){.name = "d2h", .dir = GC_XFER_D2H, .streams = 1, .on = 1};
        if (m->bidir)
            dirs[n++] =
                (struct xf_dir){.name = "bidir", .dir = GC_XFER_BIDIR, .streams = 1, .on = 1};
    }
    *ndirs = n;
    for (int i = 0; i < n; i++)
        if ((rc = add_dir_series(x->r, &dirs[i], m->label)))
            return rc;
    two->best[0].median = two->best[1].median = NAN;
    if (m->two_streams && x->d->info.type == GC_DEVICE_GPU) {
        two->s[0] = gc__bench_add_series(x->r, "h2d_two_streams_bandwidth_vs_size", "size", "B",
                                         "bandwidth, each copy split over two streams", "B/s");
        two->s[1] = gc__bench_add_series(x->r, "d2h_two_streams_bandwidth_vs_size", "size", "B",
                                         "bandwidth, each copy split over two streams", "B/s");
        if (!two->s[0] || !two->s[1])
            return GC_ENOMEM;
    }
    return 0;
}

/* Each copy split over two streams, both directions; the last split D2H
 * read device A (A + off2 after the split H2D) into host B. Afterwards
 * device A holds A + off again. */
static int measure_two(struct xf_run *x, struct xf_two *two, size_t n, size_t off, size_t off2,
                       double *per)
{
    const unsigned char *src = x->ha->ptr;
    double el;
    int rc, ns;

    for (int t = 0; t < 2; t++) {
        enum gc_xfer_dir dir = t == 0 ? GC_XFER_H2D : GC_XFER_D2H;
        struct gc_stats bs;

        if ((rc = sample_size(x, dir, n, off2, 0, 2, per, &ns)))
            return rc;
        gc__stats_inverse(per, ns, (double)n, &bs);
        gc__series_add(two->s[t], (double)n, bs.median, &bs, NULL);
        if (!(bs.median <= two->best[t].median)) {
            two->best[t] = bs;
            two->best_size[t] = (double)n;
        }
    }
    if ((rc = check(x->r, "two-stream copies", n, 0, src + off2, x->hb->ptr, n)))
        return rc;
    return timed(x, GC_XFER_H2D, n, off, 0, 1, 1, &el);
}

/* Size k of every direction, each copy verified. Host A + off goes to
 * device A, device A back to host B: B must hold A's bytes at off (checks
 * both directions, each timed copy included). The bidirectional and
 * two-stream series take the power-of-two sizes only: half-octave points
 * add nothing to their fits and best figures. */
static int measure_size(struct xf_run *x, struct xf_dir *dirs, struct xf_two *two, int k,
                        double *per)
{
    const struct xf_mode *m = x->m;
    size_t n = x->sizes[k], off = XF_OFF_STEP * (1 + k % (XF_OFF_SLOTS - 1));
    size_t off2 = XF_OFF_STEP * (1 + (k + 3) % (XF_OFF_SLOTS - 1));
    bool pow2 = (n & (n - 1)) == 0;
    int rc, ns;

    if (m->how == XF_D2D) {
        if ((rc = sample_size(x, GC_XFER_D2D, n, off, 0, 1, per, &ns)))
            return rc;
        record(&dirs[0], n, per, ns, 1.0);
        return check_stream(x, "device-to-device", n, off, NULL, x->db);
    }
    if ((rc = sample_size(x, GC_XFER_H2D, n, off, 0, 1, per, &ns)))
        return rc;
    record(&dirs[0], n, per, ns, 1.0);
    if (m->h2d_only) {
        if ((rc = gc__dev_read(x->d, x->da, 0, x->hb->ptr, n)))
            return rc;
        return check_stream(x, "host-to-device", n, off, x->hb->ptr, NULL);
    }
    const unsigned char *src = x->ha->ptr;
    if ((rc = sample_size(x, GC_XFER_D2H, n, off, 0, 1, per, &ns)))
        return rc;
    record(&dirs[1], n, per, ns, 1.0);
    if ((rc = check(x->r, "host-to-device then device-to-host", n, 0, src + off, x->hb->ptr, n)))
        return rc;
    if (two->s[0] && pow2 && n >= XF_TWO_MIN && (rc = measure_two(x, two, n, off, off2, per)))
        return rc;
    if (!m->bidir || !pow2)
        return 0;
    /* Device B gets A + off (a device copy), then H2D of A + off2 into
     * device A while device B goes back into B. */
    if ((rc = gc__dev_copy(x->d, x->db, x->da, n)) ||
        (rc = sample_size(x, GC_XFER_BIDIR, n, off, off2, 1, per, &ns)))
        return rc;
    record(&dirs[2], n, per, ns, 2.0);
    if ((rc = check(x->r, "bidirectional, device-to-host half", n, 0, src + off, x->hb->ptr, n)) ||
        (rc = gc__dev_read(x->d, x->da, 0, x->hb->ptr, n)))
        return rc;
    return check(x->r, "bidirectional, host-to-device half", n, 0, src + off2, x->hb->ptr, n);
}

/* The metrics of every direction against its limit: the link for host
 * copies (both directions together for bidir), half the DRAM bandwidth for
 * device copies (read + write). */
static int finish(struct xf_run *x, const struct xf_dir *dirs, int ndirs, const struct xf_two *two)
{
    struct gc_device *d = x->d;
    struct gc_link_info link_info;
    char link_note[256], note[600];
    double link, limit;
    int rc = 0;

    gc__device_link(d, &link_info, &link, link_note, sizeof(link_note));
    for (int i = 0; i < ndirs && rc == 0; i++) {
        double min_size = 0;
        limit = link;
        snprintf(note, sizeof(note), "%s", link_note);
        if (dirs[i].dir == GC_XFER_D2D) {
            /* The DRAM limit holds only where DRAM serves the copy: source
             * and destination together 8x the last-level cache (smaller
             * copies run from L2, above the DRAM rate: 108% on an H100). */
            if (isfinite(d->info.mem_bw_spec))
                min_size = 4.0 * (double)d->info.l2_size;
            limit = d->info.mem_bw_spec / 2;
            snprintf(note, sizeof(note),
                     "half the DRAM bandwidth (each byte read and written); sizes >= 4x the "
                     "last-level cache");
        } else if (dirs[i].dir == GC_XFER_BIDIR) {
            limit = 2 * link;
            snprintf(note, sizeof(note), "both directions: 2 x %.250s", link_note);
        }
        rc = dir_metrics(x->r, &dirs[i], limit, note, x->m->label, min_size);
    }
    for (int t = 0; t < 2 && rc == 0; t++) {
        if (!two->s[t] || !isfinite(two->best[t].median))
            continue;
        snprintf(note, sizeof(note), "each copy split over two streams, best size %.0f B; %s",
                 two->best_size[t], link_note);
        gc__bench_add_metric(x->r,
                             t == 0 ? "h2d_bandwidth_two_streams" : "d2h_bandwidth_two_streams",
                             two->best[t].median, "B/s", link, &two->best[t], note);
        if (isfinite(link) && two->best[t].median > 1.03 * link) {
            gc__bench_set_error(x->r, GC_BENCH_ERROR,
                                "two-stream bandwidth %.2f GB/s above the link limit %.2f GB/s",
                                two->best[t].median * 1e-9, link * 1e-9);
            rc = GC_ERANGE;
        }
    }
    if (isfinite(link) && x->m->how != XF_D2D)
        gc__bench_add_metric(x->r, "link_limit", link, "B/s", NAN, NULL, link_note);
    snprintf(note, sizeof(note), "%d sizes from 4 B in %s octaves, every copy verified%s%s",
             x->nsizes, per_octave(x) == 2 ? "half" : "whole",
             x->why[0] ? "; larger sizes not measured: limited by " : "", x->why);
    gc__bench_add_metric(x->r, "largest_size", (double)x->max, "B", (double)x->req_max, NULL, note);
    return rc;
}

static int run_transfer(struct gc_session *s, const struct gc_bench *self,
                        struct gc_bench_result *r)
{
    struct gc_device *d = s->dev;
    struct xf_run x = {.s = s, .d = d, .r = r, .m = self->param};
    struct gc_kreq req = {0};
    struct xf_dir *dirs = NULL;
    struct xf_two two = {{NULL, NULL}, {{0}}, {0, 0}};
    bool built = false;
    int rc = 0, ndirs = 0, mrc;
    double *per = NULL;

    if (!d->ops->host_alloc || !d->ops->transfer) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available: the %s backend has no host memory or copy calls",
                            d->ops->name);
        return 0;
    }
    x.seed = s->seed ^ 0x7472616e73666572ULL;
    if ((rc = plan_sizes(&x)) || (rc = alloc_host(&x)) || (rc = alloc_device(&x)) ||
        (rc = prepare(&x, &req, &built)))
        goto out;
    dirs = calloc(4, sizeof(*dirs));
    per = calloc(XF_MAX_SAMPLES, sizeof(*per));
    if (!dirs || !per) {
        rc = GC_ENOMEM;
        goto out;
    }
    if ((rc = plan_dirs(&x, dirs, &ndirs, &two)))
        goto out;
    /* Each size counts as one configuration in the progress display. */
    gc__run_progress_expect(s->progress, x.nsizes);
    for (int k = 0; k < x.nsizes && rc == 0; k++) {
        gc__run_progress_config(s->progress);
        rc = gc__stopped(s) ? GC_EINTR : measure_size(&x, dirs, &two, k, per);
    }
    if (rc && rc != GC_EINTR)
        goto out;
    mrc = rc;
    rc = finish(&x, dirs, ndirs, &two);
    if (rc == 0)
        rc = mrc;
out:
    /* Not available (the result says why): nothing measured, no failure. */
    if (rc == GC_ENOTSUP && r->status == GC_BENCH_NOT_AVAILABLE)
        rc = 0;
    if (rc == GC_EINTR && r->status == GC_BENCH_OK)
        snprintf(r->error, sizeof(r->error), "interrupted; sizes measured so far kept");
    free(per);
    free(dirs);
    free(x.chunk);
    if (x.ha)
        gc__dev_host_free(d, x.ha);
    if (x.hb)
        gc__dev_host_free(d, x.hb);
    gc__dev_free(d, x.da);
    gc__dev_free(d, x.db);
    if (built || req.src)
        gc__kreq_release(s, &req, 1);
    return rc;
}

#define XF_METHOD                                                                                  \
    "Copies of 4 B up to the profile's largest size (on a GPU by default 64 MiB through the host " \
    "link, 256 MiB device-to-device; with --full "                                                 \
    "2 GiB pinned and device-to-device, 1 GiB the other kinds; --quick as the default; CPU: "      \
    "32 MiB / 1 MiB) in half octaves (whole octaves --quick), bounded by free device and host "    \
    "memory (the 'largest_size' "                                                                  \
    "row names the bound). Per size: a warm-up copy, a probe, then samples of back-to-back "       \
    "copies lasting ~1/10 of the sample time each (3 samples for copies under 100 us or over "     \
    "2 ms); time per copy from device events / profiling (host wall time for map/unmap). Data "    \
    "random; every size is verified: host A (at an offset "                                        \
    "that changes with the size) -> device -> host B must reproduce A's bytes. Hockney fit t(n) "  \
    "= t0 + n/r_inf by least squares on relative errors: latency t0, asymptotic bandwidth r_inf, " \
    "n_half = t0 r_inf (uCLbench §2.2; Hockney's model); device-to-device without the sizes "     \
    "the cache serves. Limit: the PCIe link, GT/s x lanes x "                                      \
    "encoding / 8 per direction (gen 5 x16: 63.0 GB/s) from NVML or sysfs; a figure above it is "  \
    "an error."

/* A row of the transfers table: latency (us), best bandwidth, its share of
 * the link, the fitted asymptote and n_half of direction d. */
#define XF_ROW(label, d)                                                                           \
    GC_SUM_US(gc__sum_transfers, label, 0, d "_latency"),                                          \
        GC_SUM_V(gc__sum_transfers, label, 1, d "_bandwidth", "B/s"),                              \
        GC_SUM_P(gc__sum_transfers, label, 2, d "_bandwidth"),                                     \
        GC_SUM_V(gc__sum_transfers, label, 3, d "_bandwidth_fit", "B/s"),                          \
        GC_SUM_V(gc__sum_transfers, label, 4, d "_n_half", "B")
#define XF_TWO_STREAMS(label, d)                                                                   \
    GC_SUM_V(gc__sum_transfers, label, 1, d "_bandwidth_two_streams", "B/s"),                      \
        GC_SUM_P(gc__sum_transfers, label, 2, d "_bandwidth_two_streams")

static const struct gc_sum_cell pinned_cells[] = {
    XF_ROW("pinned H2D", "h2d"),
    XF_ROW("pinned D2H", "d2h"),
    XF_TWO_STREAMS("pinned H2D, 2 streams", "h2d"),
    XF_ROW("pinned both ways", "bidir"),
    XF_TWO_STREAMS("pinned D2H, 2 streams", "d2h"),
    {0},
};
static const struct gc_sum_cell pageable_cells[] = {
    XF_ROW("pageable H2D", "h2d"), XF_ROW("pageable D2H", "d2h"), {0}};
/* Write-combined memory is a copy source only: no D2H. */
static const struct gc_sum_cell wc_cells[] = {XF_ROW("write-combined H2D", "h2d"), {0}};
static const struct gc_sum_cell mapped_cells[] = {
    XF_ROW("mapped (zero-copy) H2D", "h2d"), XF_ROW("mapped (zero-copy) D2H", "d2h"), {0}};
static const struct gc_sum_cell map_cells[] = {
    XF_ROW("map/unmap H2D", "h2d"), XF_ROW("map/unmap D2H", "d2h"), {0}};
static const struct gc_sum_cell d2d_cells[] = {XF_ROW("device to device", "d2d"), {0}};
static const struct gc_bench_report xf_reports[NMODES] = {
    {.cells = pinned_cells}, {.cells = pageable_cells}, {.cells = wc_cells},
    {.cells = mapped_cells}, {.cells = map_cells},      {.cells = d2d_cells},
};

static const struct gc_bench benches[NMODES] = {
    {.info = {.name = "transfer.pinned",
              .group = "transfer",
              .summary = "host<->device copies from pinned memory: H2D, D2H, both at once, "
                         "latency, bandwidth and n_half against the PCIe limit",
              .method = XF_METHOD " Pinned (page-locked) host memory: cuMemHostAlloc / a mapped "
                                  "CL_MEM_ALLOC_HOST_PTR buffer. Bidirectional: H2D and D2H of "
                                  "the same size at once on two streams/queues, bandwidth = both "
                                  "directions' bytes / time, limit 2 x link (power-of-two "
                                  "sizes). Power-of-two sizes from 64 MiB also split over two "
                                  "streams (two copy engines)."},
     .run = run_transfer,
     .param = &modes[0],
     .report = &xf_reports[0],
     .expect_s = 2.5,
     .resources = GC_RES_HOST_LINK},
    {.info = {.name = "transfer.pageable",
              .group = "transfer",
              .summary = "host<->device copies from pageable (malloc'ed) memory",
              .method = XF_METHOD " Pageable memory: the driver stages it through its own pinned "
                                  "buffers."},
     .run = run_transfer,
     .param = &modes[1],
     .report = &xf_reports[1],
     .expect_s = 1.5,
     .resources = GC_RES_HOST_LINK},
    {.info = {.name = "transfer.write_combined",
              .group = "transfer",
              .summary = "host<->device copies from write-combined pinned memory (CUDA)",
              .method = XF_METHOD " Write-combined pinned memory (CU_MEMHOSTALLOC_WRITECOMBINED): "
                                  "not cached by the CPU, meant as a copy source: H2D only, "
                                  "checked by an untimed copy back into pinned memory against "
                                  "the generator's words; OpenCL has none (not "
                                  "available)."},
     .run = run_transfer,
     .param = &modes[2],
     .report = &xf_reports[2],
     .expect_s = 0.8,
     .resources = GC_RES_HOST_LINK},
    {.info = {.name = "transfer.mapped",
              .group = "transfer",
              .summary = "zero-copy: a kernel reads (H2D) / writes (D2H) mapped host memory",
              .method = XF_METHOD " Mapped host memory (CU_MEMHOSTALLOC_DEVICEMAP; OpenCL: a "
                                  "CL_MEM_ALLOC_HOST_PTR buffer on a device that shares host "
                                  "memory): a grid-stride kernel of 4-byte words copies between "
                                  "it and a device buffer; time = kernel time (events)."},
     .run = run_transfer,
     .param = &modes[3],
     .report = &xf_reports[3],
     .expect_s = 0.8,
     .resources = GC_RES_HOST_LINK},
    {.info = {.name = "transfer.map",
              .group = "transfer",
              .summary = "uCLbench's second option: map the device buffer, memcpy, unmap (OpenCL)",
              .method = XF_METHOD " clEnqueueMapBuffer (WRITE_INVALIDATE_REGION for H2D, READ "
                                  "for D2H), memcpy from/to pageable memory, unmap, finish; host "
                                  "wall time. CUDA cannot map device memory: not available."},
     .run = run_transfer,
     .param = &modes[4],
     .report = &xf_reports[4],
     .expect_s = 0.1,
     .resources = GC_RES_HOST_LINK},
    {.info = {.name = "transfer.d2d",
              .group = "transfer",
              .summary = "device-to-device copy through the runtime (cuMemcpyDtoD / "
                         "clEnqueueCopyBuffer) vs size",
              .method = XF_METHOD " Device to device: bandwidth = bytes copied / time, limit = "
                                  "half the DRAM bandwidth (every byte read and written)."},
     .run = run_transfer,
     .param = &modes[5],
     .report = &xf_reports[5],
     .expect_s = 1.0},
};

static int count(void)
{
    return NMODES;
}

static const struct gc_bench *at(int i)
{
    return i >= 0 && i < NMODES ? &benches[i] : NULL;
}

const struct gc_bench_family gc__family_transfer = {count, at};
