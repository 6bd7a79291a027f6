/* link.latency: the host-visible round trip of a 4-byte peer copy per
 * ordered pair: issued by the source, waited for, timed by the host clock;
 * the copy's own device time beside it; the copied word verified. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/link/link.h"
#include "core/progress.h"
#include "core/stats.h"
#include "model/peerlink.h"

/* At least this many round trips per pair: the tail percentiles need them. */
#define LAT_SAMPLES 31

static int measure_pair(struct gc_link_session *ls, struct gc_bench_result *r,
                        struct gc_link_bufs *b, int from, int to, double *host, double *dev)
{
    struct gc_device *d = ls->devs[from];
    int want = gc__link_samples(ls, LAT_SAMPLES);
    char name[48], note[160];
    struct gc_stats hs, ds;
    int rc = 0;

    for (int k = -2; k < want && rc == 0; k++) {
        struct gc_peer_copy c = {.dst = b->dst[to],
                                 .src = b->src[from],
                                 .src_off = GC_LINK_OFF_STEP * (size_t)(1 + (k + 2) % 7),
                                 .bytes = 4};
        struct gc_peer_times t;

        if (gc__link_stopped(ls))
            return GC_EINTR;
        rc = d->ops->peer_copies(&c, 1, 1, &t);
        if (rc) {
            snprintf(d->err, sizeof(d->err), "peer copy: %s", d->ops->last_error(d->dev));
            return rc;
        }
        if (k >= 0) {
            host[k] = t.host_s;
            dev[k] = t.each[0];
        }
        if (k == want - 1) {
            snprintf(note, sizeof(note), "4-byte copy %d->%d", from, to);
            rc = gc__link_verify(ls, r, to, c.dst, 0, 4, b->seed[from], c.src_off / 4, note);
        }
    }
    if (rc)
        return rc;
    gc__stats_compute(host, want, &hs);
    gc__stats_compute(dev, want, &ds);
    gc__pair_name(name, sizeof(name), from, to, NULL);
    snprintf(note, sizeof(note),
             "host clock, enqueue to end of wait, median of %d (p5 %.2f us, p95 %.2f us)", want,
             1e6 * gc__percentile(host, want, 5), 1e6 * gc__percentile(host, want, 95));
    gc__bench_add_metric(r, name, hs.median, "s", NAN, &hs, note);
    gc__pair_name(name, sizeof(name), from, to, "device");
    gc__bench_add_metric(r, name, ds.median, "s", NAN, &ds,
                         "the copy's own time between device events");
    return 0;
}

int gc__link_run_latency(struct gc_link_session *ls, const struct gc_link_desc *self,
                         struct gc_bench_result *r)
{
    struct gc_link_bufs b = {0};
    double host[GC_LINK_MAX_SAMPLES], dev[GC_LINK_MAX_SAMPLES];
    int rc, n = ls->n, measured = 0;
    char why[300];

    (void)self;
    gc__link_add_devices(ls, r);
    rc = gc__link_bufs_alloc(ls, &b, GC_LINK_OFF_STEP + GC_LINK_SLACK, GC_LINK_OFF_STEP);
    for (int a = 0; a < n && rc == 0; a++)
        for (int c = 0; c < n && rc == 0; c++) {
            if (a == c)
                continue;
            if (!gc__link_reachable(ls, a, c, why, sizeof(why))) {
                gc__link_unreachable(r, a, c, "s", why);
                continue;
            }
            gc__run_progress_config(ls->progress);
            rc = measure_pair(ls, r, &b, a, c, host, dev);
            measured++;
        }
    if (rc == 0 && measured == 0)
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available: no pair of devices reaches the other (%.900s)",
                            r->warning);
    gc__link_bufs_free(ls, &b);
    return rc;
}
