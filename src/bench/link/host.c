/* link.all_to_host and link.host_to_all: every device copies to (from)
 * pinned host memory at once, one thread per device released together by
 * a barrier for each sample, through the backend's transfer call that
 * transfer.pinned times (events on the device's own stream). The figure
 * per device is its own copies' bandwidth; the sum is the node's. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/link/link.h"
#include "core/devfill.h"
#include "core/stats.h"
#include "util/random.h"

#define MIB ((size_t)1 << 20)
/* At least this many samples: a host link's rate swings between samples
 * (a device alone to the host read 33 to 55 GB/s in consecutive 2 GiB
 * samples on one machine), so the median needs more than a few. */
#define HOST_SAMPLES 11

struct lk_host;

struct lk_worker {
    struct lk_host *h;
    int dev;
    pthread_t th;
    bool started;
    struct gc_hostmem *mem;
    struct gc_buf *buf;
    double per[GC_LINK_MAX_SAMPLES];
    int ns, rc;
};

struct lk_host {
    struct gc_link_session *ls;
    bool d2h;
    size_t bytes;
    int count, want;
    pthread_barrier_t bar;
    /* The start gate: no thread measures before every thread exists
     * (go), and none does when one could not be started (abort). */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool go, abort;
    struct lk_worker *w;
};

static int one_call(struct lk_worker *w, int count, double *el)
{
    struct gc_device *d = w->h->ls->devs[w->dev];
    struct gc_xfer x = {.dir = w->h->d2h ? GC_XFER_D2H : GC_XFER_H2D,
                        .method = GC_XFER_COPY,
                        .buf = w->buf,
                        .host = w->mem->ptr,
                        .bytes = w->h->bytes,
                        .count = count,
                        .streams = 1};
    int rc = d->ops->transfer(d->dev, &x, el);

    if (rc)
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    return rc;
}

/* Every thread takes part in every barrier, also after a failure, so that
 * none waits for ever. */
static void *worker(void *arg)
{
    struct lk_worker *w = arg;
    struct lk_host *h = w->h;
    double el = 0;
    bool abort;

    pthread_mutex_lock(&h->lock);
    while (!h->go && !h->abort)
        pthread_cond_wait(&h->cond, &h->lock);
    abort = h->abort;
    pthread_mutex_unlock(&h->lock);
    if (abort)
        return NULL;
    w->rc = one_call(w, 1, &el);
    for (int k = 0; k < h->want; k++) {
        pthread_barrier_wait(&h->bar);
        if (w->rc == 0 && !gc__link_stopped(h->ls))
            w->rc = one_call(w, h->count, &el);
        if (w->rc == 0)
            w->per[w->ns++] = el / h->count;
    }
    return NULL;
}

static int prepare(struct lk_host *h, struct lk_worker *w)
{
    struct gc_device *d = h->ls->devs[w->dev];
    uint64_t seed = h->ls->seed ^ (0x686f737400000000ULL + (uint64_t)w->dev);
    int rc;

    w->h = h;
    if ((rc = gc__dev_host_alloc(d, h->bytes, GC_HOST_PINNED, &w->mem)) ||
        (rc = gc__dev_alloc(d, h->bytes, &w->buf)))
        return rc;
    if (h->d2h)
        return gc__devfill_hash(&h->ls->sess[w->dev], w->buf, h->bytes, seed);
    gc__hash_fill(w->mem->ptr, 0, h->bytes / 4, seed);
    return 0;
}

/* The copied words must have arrived: in host memory (D2H) or on the
 * device (H2D). */
static int verify(struct lk_host *h, struct gc_bench_result *r, struct lk_worker *w)
{
    uint64_t seed = h->ls->seed ^ (0x686f737400000000ULL + (uint64_t)w->dev);
    char what[64];

    snprintf(what, sizeof(what), "%s of device %d", h->d2h ? "device-to-host" : "host-to-device",
             w->dev);
    if (!h->d2h)
        return gc__link_verify(h->ls, r, w->dev, w->buf, 0, h->bytes, seed, 0, what);
    uint32_t *want = malloc(h->bytes);
    if (!want)
        return GC_ENOMEM;
    gc__hash_fill(want, 0, h->bytes / 4, seed);
    int rc = memcmp(want, w->mem->ptr, h->bytes) ? GC_EVERIFY : 0;
    if (rc)
        gc__bench_set_error(r, GC_BENCH_ERROR, "verification failed (%s, %zu bytes)", what,
                            h->bytes);
    free(want);
    return rc;
}

/* The per-device figures and their sum against the host links. */
static void record(struct lk_host *h, struct gc_bench_result *r)
{
    double sum = 0, limit = 0;
    char name[32], note[300];

    for (int i = 0; i < h->ls->n; i++) {
        struct gc_stats bs;

        gc__stats_inverse(h->w[i].per, h->w[i].ns, (double)h->bytes, &bs);
        snprintf(name, sizeof(name), h->d2h ? "%d->host" : "host->%d", i);
        snprintf(note, sizeof(note), "%zu-byte copies, all devices at once; limit: %.200s",
                 h->bytes, h->ls->host_note[i]);
        gc__bench_add_metric(r, name, bs.median, "B/s", h->ls->host_limit[i], &bs, note);
        sum += bs.median;
        limit += h->ls->host_limit[i];
    }
    gc__bench_add_metric(r, h->d2h ? "all->host" : "host->all", sum, "B/s", limit, NULL,
                         "sum of the devices' medians; limit: the sum of their host links");
}

static int run_threads(struct lk_host *h)
{
    int rc = 0, n = h->ls->n;

    if (pthread_barrier_init(&h->bar, NULL, (unsigned)n) != 0)
        return GC_ENOMEM;
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->cond, NULL);
    for (int i = 0; i < n && rc == 0; i++)
        if (pthread_create(&h->w[i].th, NULL, worker, &h->w[i]) == 0)
            h->w[i].started = true;
        else
            rc = GC_ENOMEM;
    /* A thread that did not start would leave the others at the barrier:
     * they measure only when every one started. */
    pthread_mutex_lock(&h->lock);
    h->go = rc == 0;
    h->abort = rc != 0;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
    for (int i = 0; i < n; i++)
        if (h->w[i].started)
            pthread_join(h->w[i].th, NULL);
    pthread_barrier_destroy(&h->bar);
    pthread_cond_destroy(&h->cond);
    pthread_mutex_destroy(&h->lock);
    for (int i = 0; i < n && rc == 0; i++)
        rc = h->w[i].rc;
    return rc;
}

/* The copy size: 256 MiB (16 MiB --quick), within every device's largest
 * buffer and a third of its free memory, a multiple of 4 KiB. */
static size_t host_bytes(const struct gc_link_session *ls)
{
    size_t b = ls->profile == GC_PROFILE_QUICK ? 16 * MIB : 256 * MIB;

    for (int i = 0; i < ls->n; i++) {
        const struct gc_device *d = ls->devs[i];
        size_t dfree = 0, dtotal = 0;

        if (d->info.max_alloc > 0 && b > d->info.max_alloc)
            b = d->info.max_alloc;
        if (d->ops->mem_info && d->ops->mem_info(d->dev, &dfree, &dtotal) == 0 && b > dfree / 3)
            b = dfree / 3;
    }
    return b / 4096 * 4096;
}

int gc__link_run_host(struct gc_link_session *ls, const struct gc_link_desc *self,
                      struct gc_bench_result *r)
{
    struct lk_host h = {.ls = ls, .d2h = self->kind == GC_LINK_TO_HOST};
    int rc = 0, n = ls->n;

    gc__link_add_devices(ls, r);
    if (!ls->devs[0]->ops->host_alloc || !ls->devs[0]->ops->transfer) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available: the %s backend has no host memory or copy calls",
                            ls->devs[0]->ops->name);
        return 0;
    }
    h.bytes = host_bytes(ls);
    h.want = gc__link_samples(ls, HOST_SAMPLES);
    h.count = ls->profile == GC_PROFILE_QUICK ? 2 : 8;
    if (h.bytes < 4096) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available: too little device memory");
        return 0;
    }
    h.w = calloc((size_t)n, sizeof(*h.w));
    if (!h.w)
        return GC_ENOMEM;
    for (int i = 0; i < n && rc == 0; i++) {
        h.w[i].dev = i;
        rc = prepare(&h, &h.w[i]);
    }
    if (rc == GC_ENOMEM || rc == GC_ENOTSUP) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available: %.900s",
                            ls->devs[0]->err[0] ? ls->devs[0]->err : "pinned memory refused");
        rc = 0;
        goto out;
    }
    if (rc == 0)
        rc = run_threads(&h);
    for (int i = 0; i < n && rc == 0; i++)
        rc = verify(&h, r, &h.w[i]);
    if (rc == 0 || rc == GC_EINTR)
        record(&h, r);
out:
    for (int i = 0; i < n; i++) {
        gc__dev_host_free(ls->devs[i], h.w[i].mem);
        gc__dev_free(ls->devs[i], h.w[i].buf);
    }
    free(h.w);
    return rc;
}
