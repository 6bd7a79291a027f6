/* What the link.* copy rows share: their sizes, buffers, sampling of copies
 * that run at once, verification on arrival and each pair's curve with its
 * Hockney fit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/link/link.h"
#include "bench/transfer/transfer.h"
#include "core/devfill.h"
#include "core/progress.h"
#include "core/stats.h"
#include "model/link.h"
#include "model/peerlink.h"
#include "util/random.h"

#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)
/* Verification reads the destination back in pieces of this size. */
#define CHECK_CHUNK MIB
/* From this size on a copy is checked on the device first (below it a
 * check launch costs more than reading the bytes back). */
#define DEVICE_CHECK_MIN MIB
/* From this size on a sample lasts at least LONG_SAMPLE_S: several large
 * copies queued back to back between the events, as nvbandwidth times 16
 * copies of 512 MiB. */
#define LONG_SIZE (64 * MIB)
#define LONG_SAMPLE_S 0.02

int gc__link_sizes(const struct gc_link_session *ls, int dst_per_size, int nbufs, size_t *sizes,
                   int cap, char *why, size_t whylen)
{
    size_t max = ls->profile == GC_PROFILE_QUICK  ? 64 * MIB
                 : ls->profile == GC_PROFILE_FULL ? 2 * GIB
                                                  : 1 * GIB;
    size_t nbuf = (size_t)nbufs;

    why[0] = '\0';
    for (int i = 0; i < ls->n; i++) {
        const struct gc_device *d = ls->devs[i];
        size_t dfree = 0, dtotal = 0;

        if (d->info.max_alloc > (size_t)dst_per_size * GC_LINK_SLACK &&
            max > (d->info.max_alloc - GC_LINK_SLACK) / (size_t)dst_per_size) {
            max = (d->info.max_alloc - GC_LINK_SLACK) / (size_t)dst_per_size;
            snprintf(why, whylen, "the largest buffer of %s (%zu B)", d->spec, d->info.max_alloc);
        }
        if (d->ops->mem_info && d->ops->mem_info(d->dev, &dfree, &dtotal) == 0 &&
            max > dfree / 5 * 2 / nbuf) {
            max = dfree / 5 * 2 / nbuf;
            snprintf(why, whylen, "free memory of %s (%zu B; %zu buffers)", d->spec, dfree, nbuf);
        }
    }
    if (ls->profile == GC_PROFILE_FULL)
        return gc__transfer_sizes(max, 2, sizes, cap);
    return gc__link_ladder(max, ls->profile == GC_PROFILE_DEFAULT, sizes, cap);
}

int gc__link_ladder(size_t max, bool bandwidth_points, size_t *sizes, int cap)
{
    static const size_t bw[] = {256 * MIB, 1 * GIB};
    int n = 0;

    /* The latency side: 4 B x 16^k up to 64 MiB, four octaves apart. */
    for (size_t s = 4; s <= 64 * MIB && s <= max && n < cap; s *= 16)
        sizes[n++] = s;
    /* The bandwidth side: the sizes nvbandwidth's figures come from. */
    for (size_t i = 0; bandwidth_points && i < sizeof(bw) / sizeof(bw[0]) && n < cap; i++)
        if (bw[i] <= max)
            sizes[n++] = bw[i];
    /* A bound below the ladder's top (memory, the largest buffer) still
     * gets a point at the bound, the largest the devices allow. */
    if (n > 0 && max < (bandwidth_points ? 1 * GIB : 64 * MIB) && max / 4 * 4 > sizes[n - 1] &&
        n < cap)
        sizes[n++] = max / 4 * 4;
    return n;
}

int gc__link_bufs_alloc(struct gc_link_session *ls, struct gc_link_bufs *b, size_t src_bytes,
                        size_t dst_bytes)
{
    int n = ls->n, rc = 0;

    b->src = calloc((size_t)n, sizeof(*b->src));
    b->dst = calloc((size_t)n, sizeof(*b->dst));
    b->seed = calloc((size_t)n, sizeof(*b->seed));
    b->src_bytes = src_bytes;
    b->dst_bytes = dst_bytes;
    if (!b->src || !b->dst || !b->seed)
        return GC_ENOMEM;
    for (int i = 0; i < n && rc == 0; i++) {
        struct gc_device *d = ls->devs[i];

        b->seed[i] = ls->seed ^ (0x6c696e6b00000000ULL + (uint64_t)i * 0x9E3779B97F4A7C15ULL);
        rc = gc__dev_alloc(d, src_bytes, &b->src[i]);
        if (rc == 0)
            rc = gc__dev_alloc(d, dst_bytes, &b->dst[i]);
        if (rc == 0)
            rc = gc__devfill_hash(&ls->sess[i], b->src[i], src_bytes, b->seed[i]);
    }
    return rc;
}

void gc__link_bufs_free(struct gc_link_session *ls, struct gc_link_bufs *b)
{
    for (int i = 0; i < ls->n; i++) {
        if (b->src)
            gc__dev_free(ls->devs[i], b->src[i]);
        if (b->dst)
            gc__dev_free(ls->devs[i], b->dst[i]);
        if (b->ref)
            gc__dev_free(ls->devs[i], b->ref[i]);
    }
    free(b->src);
    free(b->dst);
    free(b->seed);
    free(b->ref);
    free(b->ref_of);
    memset(b, 0, sizeof(*b));
}

int gc__link_bufs_ref(struct gc_link_session *ls, struct gc_link_bufs *b)
{
    int rc = 0;

    b->ref = calloc((size_t)ls->n, sizeof(*b->ref));
    b->ref_of = calloc((size_t)ls->n, sizeof(*b->ref_of));
    if (!b->ref || !b->ref_of)
        return GC_ENOMEM;
    for (int i = 0; i < ls->n && rc == 0; i++) {
        b->ref_of[i] = -1;
        rc = gc__dev_alloc(ls->devs[i], b->dst_bytes, &b->ref[i]);
    }
    return rc;
}

/* The word a destination holds before a copy arrives. */
#define POISON 0x5a5aa5a5u

int gc__link_prepare(struct gc_link_session *ls, struct gc_link_bufs *b, int from, int to,
                     size_t bytes)
{
    struct gc_session *s = &ls->sess[to];
    int rc = gc__devfill_word(s, b->dst[to], bytes, POISON);

    if (rc == 0 && b->ref && b->ref_of[to] != from) {
        rc = gc__devfill_hash(s, b->ref[to], b->dst_bytes, b->seed[from]);
        b->ref_of[to] = rc == 0 ? from : -1;
    }
    return rc;
}

int gc__link_check(struct gc_link_session *ls, struct gc_bench_result *r, struct gc_link_bufs *b,
                   int from, int to, size_t bytes, const char *what)
{
    struct gc_check c = {.kind = GC_CHECK_EQ,
                         .want = b->ref ? b->ref[to] : NULL,
                         .got = b->dst[to],
                         .words = bytes / 4};
    char msg[256];
    int rc = b->ref && b->ref_of[to] == from ? gc__devcheck(&ls->sess[to], &c, msg, sizeof(msg))
                                             : GC_ENOTSUP;

    if (rc == GC_ENOTSUP)
        return gc__link_verify(ls, r, to, b->dst[to], 0, bytes, b->seed[from], 0, what);
    if (rc == GC_EVERIFY)
        gc__bench_set_error(r, GC_BENCH_ERROR, "verification failed (%s, %zu bytes): %s", what,
                            bytes, msg);
    return rc;
}

/* One call; the failure's message goes into the device that issues c[0]. */
static int call(struct gc_link_session *ls, int first, const struct gc_peer_copy *c, int n,
                int count, struct gc_peer_times *t)
{
    struct gc_device *d = ls->devs[first];
    int rc = d->ops->peer_copies(c, n, count, t);

    if (rc)
        snprintf(d->err, sizeof(d->err), "peer copy: %s", d->ops->last_error(d->dev));
    return rc;
}

int gc__link_samples(const struct gc_link_session *ls, int least)
{
    const struct gc_sampling *sp = &ls->sampling;
    int n = sp->samples_set ? sp->max_samples : sp->min_samples > least ? sp->min_samples : least;

    return n < 1 ? 1 : n > GC_LINK_MAX_SAMPLES ? GC_LINK_MAX_SAMPLES : n;
}

int gc__link_sample(struct gc_link_session *ls, int first, const struct gc_peer_copy *c, int n,
                    double (*per)[GC_LINK_MAX_SAMPLES], double *tot, int *ns)
{
    const struct gc_sampling *sp = &ls->sampling;
    struct gc_peer_times t;
    double target = sp->target_sample_s;
    int rc, count, want = gc__link_samples(ls, 1);

    if (c[0].bytes >= LONG_SIZE && target < LONG_SAMPLE_S && !sp->sample_time_set)
        target = LONG_SAMPLE_S;
    /* A warm-up call (first touch of the peer mapping), then the probe. */
    if ((rc = call(ls, first, c, n, 1, &t)) || (rc = call(ls, first, c, n, 1, &t)))
        return rc;
    count = t.total_s > 0 ? (int)ceil(target / t.total_s) : 1000;
    count = count < 1 ? 1 : count > 4096 ? 4096 : count;
    *ns = 0;
    for (int k = 0; k < want; k++) {
        if (gc__link_stopped(ls))
            return GC_EINTR;
        if ((rc = call(ls, first, c, n, count, &t)))
            return rc;
        for (int i = 0; i < n; i++)
            per[i][k] = t.each[i] / count;
        tot[k] = t.total_s / count;
        (*ns)++;
    }
    return 0;
}

int gc__link_verify(struct gc_link_session *ls, struct gc_bench_result *r, int dev,
                    struct gc_buf *dst, size_t dst_off, size_t bytes, uint64_t seed, size_t first,
                    const char *what)
{
    struct gc_device *d = ls->devs[dev];
    unsigned char *want, *got;
    int rc = 0;

    /* On the device where it can (a GiB is read back and hashed on the host
     * in about a second); a difference it finds is looked up on the host,
     * which names the first wrong byte. */
    if (bytes >= DEVICE_CHECK_MIN && bytes % 4 == 0 && dst_off % 4 == 0) {
        struct gc_check c = {.kind = GC_CHECK_HASH,
                             .got = dst,
                             .words = bytes / 4,
                             .seed = seed,
                             .first = first,
                             .got_off = dst_off / 4};
        char msg[128];

        rc = gc__devcheck(&ls->sess[dev], &c, msg, sizeof(msg));
        if (rc == 0)
            return 0;
        if (rc != GC_ENOTSUP && rc != GC_EVERIFY)
            return rc;
        rc = 0;
    }
    want = malloc(2 * CHECK_CHUNK);
    got = want ? want + CHECK_CHUNK : NULL;

    if (!want)
        return GC_ENOMEM;
    for (size_t at = 0; at < bytes && rc == 0; at += CHECK_CHUNK) {
        size_t len = bytes - at < CHECK_CHUNK ? bytes - at : CHECK_CHUNK;

        gc__hash_fill((uint32_t *)(void *)want, first + at / 4, (len + 3) / 4, seed);
        if ((rc = gc__dev_read(d, dst, dst_off + at, got, len)))
            break;
        if (memcmp(want, got, len) == 0)
            continue;
        size_t i = 0;
        while (i < len && want[i] == got[i])
            i++;
        gc__bench_set_error(r, GC_BENCH_ERROR,
                            "verification failed (%s, %zu bytes): byte %zu is 0x%02x, expected "
                            "0x%02x",
                            what, bytes, at + i, got[i], want[i]);
        rc = GC_EVERIFY;
    }
    free(want);
    return rc;
}

int gc__link_curve_add(struct gc_bench_result *r, const char *name, struct gc_link_curve *cv,
                       size_t bytes, const double *per_copy, int ns)
{
    char tname[64];
    struct gc_series *bw = (struct gc_series *)gc__bench_find_series(r, name);
    struct gc_series *tm;
    struct gc_stats ts, bs;

    snprintf(tname, sizeof(tname), "%s.time", name);
    tm = (struct gc_series *)gc__bench_find_series(r, tname);
    if (!bw)
        bw = gc__bench_add_series(r, name, "size", "B", "bandwidth", "B/s");
    if (!tm)
        tm = gc__bench_add_series(r, tname, "size", "B", "time per copy", "s");
    if (!bw || !tm || cv->n >= GC_LINK_MAX_SIZES || ns < 1)
        return bw && tm ? GC_EINVAL : GC_ENOMEM;
    gc__stats_compute(per_copy, ns, &ts);
    gc__stats_inverse(per_copy, ns, (double)bytes, &bs);
    gc__series_add(tm, (double)bytes, ts.median, &ts, NULL);
    gc__series_add(bw, (double)bytes, bs.median, &bs, NULL);
    cv->size[cv->n] = (double)bytes;
    cv->med[cv->n] = ts.median;
    cv->bw[cv->n] = bs;
    cv->n++;
    return 0;
}

void gc__link_curve_metrics(struct gc_bench_result *r, const char *name,
                            const struct gc_link_curve *cv, double limit, const char *limit_note)
{
    char mname[64], note[256];
    struct gc_hockney h;
    int best = -1;

    for (int i = 0; i < cv->n; i++)
        if (isfinite(cv->bw[i].median) && (best < 0 || cv->bw[i].median > cv->bw[best].median))
            best = i;
    if (best < 0)
        return;
    snprintf(note, sizeof(note), "best size %.0f B; limit: %.200s", cv->size[best], limit_note);
    gc__bench_add_metric(r, name, cv->bw[best].median, "B/s", limit, &cv->bw[best], note);
    if (gc__hockney_fit(cv->size, cv->med, cv->n, &h) != 0)
        return;
    snprintf(mname, sizeof(mname), "%s.latency", name);
    snprintf(note, sizeof(note),
             "Hockney t0 of t(n) = t0 + n / r_inf over %d sizes (largest residual %.0f%%)",
             h.npoints, 100 * h.max_rel_resid);
    gc__bench_add_metric(r, mname, h.latency_s, "s", NAN, NULL, note);
    snprintf(mname, sizeof(mname), "%s.bandwidth_fit", name);
    gc__bench_add_metric(r, mname, h.bandwidth, "B/s", NAN, NULL,
                         "Hockney r_inf: asymptotic bandwidth of the fit");
    snprintf(mname, sizeof(mname), "%s.n_half", name);
    gc__bench_add_metric(r, mname, h.n_half, "B", NAN, NULL,
                         "Hockney n_half = t0 x r_inf: size reaching half of r_inf");
}
