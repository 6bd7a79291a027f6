/* link.all_to_one and link.one_to_all: every other device copies into one
 * device at once, or one device into every other at once (each copy pushed
 * by its source, all released from one common start), with --full the sizes
 * of 1 MiB and up of gc__link_sizes, else one size; the figure is the group's bytes over its span,
 * held to the lower of its links' summed limits and the hub's NVLink total. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/link/link.h"
#include "core/progress.h"
#include "model/peerlink.h"

#define GROUP_MIN_SIZE ((size_t)1 << 20)
#define GROUP_ONE_SIZE ((size_t)1 << 30)

struct lk_group {
    struct gc_link_session *ls;
    struct gc_bench_result *r;
    bool into; /* all -> one (else one -> all) */
    struct gc_link_bufs b;
    size_t sizes[GC_LINK_MAX_SIZES];
    int nsizes;
    double (*per)[GC_LINK_MAX_SAMPLES];
    double tot[GC_LINK_MAX_SAMPLES];
};

/* The copies of the group around device `hub` at size index k: peers[]
 * gets each copy's other device. Returns how many. */
static int plan(struct lk_group *g, int hub, int k, struct gc_peer_copy *c, int *peers)
{
    int m = 0;
    size_t bytes = g->sizes[k], off = GC_LINK_OFF_STEP * (size_t)(1 + k % 7);
    char why[300];

    for (int o = 0; o < g->ls->n && m < GC_PEER_MAX_COPIES; o++) {
        int from = g->into ? o : hub, to = g->into ? hub : o;

        if (o == hub || !gc__link_reachable(g->ls, from, to, why, sizeof(why)))
            continue;
        /* Into one device, each source lands in a slot of its own. */
        c[m] = (struct gc_peer_copy){.dst = g->b.dst[to],
                                     .dst_off = g->into ? (size_t)m * bytes : 0,
                                     .src = g->b.src[from],
                                     .src_off = off,
                                     .bytes = bytes};
        peers[m++] = o;
    }
    return m;
}

static int verify(struct lk_group *g, int hub, const struct gc_peer_copy *c, const int *peers,
                  int m)
{
    int rc = 0;

    for (int i = 0; i < m && rc == 0; i++) {
        int from = g->into ? peers[i] : hub, to = g->into ? hub : peers[i];
        char what[64];

        snprintf(what, sizeof(what), "copy %d->%d of %s", from, to,
                 g->into ? "all-to-one" : "one-to-all");
        rc = gc__link_verify(g->ls, g->r, to, c[i].dst, c[i].dst_off, c[i].bytes, g->b.seed[from],
                             c[i].src_off / 4, what);
    }
    return rc;
}

/* The group around hub over the sizes; the metric "all->hub" / "hub->all". */
static int measure_hub(struct lk_group *g, int hub)
{
    struct gc_link_curve *cv = calloc(1, sizeof(*cv));
    struct gc_peer_copy c[GC_PEER_MAX_COPIES];
    int peers[GC_PEER_MAX_COPIES], rc = 0, ns = 0, m = 0, n = g->ls->n;
    char name[32], note[256];
    double limit = 0;

    if (!cv)
        return GC_ENOMEM;
    snprintf(name, sizeof(name), g->into ? "all->%d" : "%d->all", hub);
    for (int k = 0; k < g->nsizes && rc == 0; k++) {
        double sum[GC_LINK_MAX_SAMPLES];

        m = plan(g, hub, k, c, peers);
        if (m == 0)
            break;
        gc__run_progress_config(g->ls->progress);
        rc = gc__link_sample(g->ls, g->into ? peers[0] : hub, c, m, g->per, g->tot, &ns);
        /* The group's rate is its bytes over its span, from the common start
         * to the last copy's end (a copy that waits for another shows a
         * short time of its own, so the sum of the copies' own rates would
         * count the links' shared time twice); as the time of one copy of
         * the size: the span over m. */
        for (int s = 0; s < ns && rc == 0; s++)
            sum[s] = g->tot[s] / m;
        if (rc == 0)
            rc = gc__link_curve_add(g->r, name, cv, g->sizes[k], sum, ns);
        if (rc == 0)
            rc = verify(g, hub, c, peers, m);
    }
    if (m == 0) {
        snprintf(note, sizeof(note), "%s: no other device reaches it", name);
        gc__bench_add_metric(g->r, name, NAN, "B/s", NAN, NULL, note);
        gc__bench_warn(g->r, note);
        free(cv);
        return rc;
    }
    double hub_total = NAN;
    for (int i = 0; i < m; i++) {
        int from = g->into ? peers[i] : hub, to = g->into ? hub : peers[i];
        const struct gc_peer_info *p = &g->ls->peer[hub * n + peers[i]];

        limit += g->ls->limit[from * n + to];
        /* Every copy crosses the hub's own NVLink links: their total bounds
         * the group (on a switch each pair's limit is already that total). */
        if (p->nvlinks > 0 && p->nvlinks_active > 0 && isfinite(g->ls->limit[hub * n + peers[i]]))
            hub_total = g->ls->limit[hub * n + peers[i]] / p->nvlinks * p->nvlinks_active;
    }
    if (isfinite(hub_total) && hub_total < limit) {
        snprintf(note, sizeof(note),
                 "the hub's %d NVLink links, %.1f GB/s per direction (below the sum of the %d "
                 "pairs' limits, %.1f GB/s)",
                 g->ls->peer[hub * n + peers[0]].nvlinks_active, hub_total * 1e-9, m, limit * 1e-9);
        limit = hub_total;
    } else {
        snprintf(note, sizeof(note), "sum of the %d links' per-direction limits", m);
    }
    if (rc == 0 || rc == GC_EINTR)
        gc__link_curve_metrics(g->r, name, cv, limit, note);
    free(cv);
    return rc;
}

int gc__link_run_group(struct gc_link_session *ls, const struct gc_link_desc *self,
                       struct gc_bench_result *r)
{
    struct lk_group *g = calloc(1, sizeof(*g));
    char why[256];
    int rc = 0, k0 = 0, n = ls->n;

    if (!g)
        return GC_ENOMEM;
    g->ls = ls;
    g->r = r;
    g->into = self->kind == GC_LINK_ALL_TO_ONE;
    g->per = calloc(GC_PEER_MAX_COPIES, sizeof(*g->per));
    gc__link_add_devices(ls, r);
    g->nsizes = gc__link_sizes(ls, n - 1, n, g->sizes, GC_LINK_MAX_SIZES, why, sizeof(why));
    while (k0 < g->nsizes && g->sizes[k0] < GROUP_MIN_SIZE)
        k0++;
    /* Without --full the group's figure once, at its bandwidth size: the
     * largest up to 1 GiB, where a copy engine's start between copies costs
     * under 0.1% (0.4% at 256 MiB). */
    if (ls->profile != GC_PROFILE_FULL) {
        int last = g->nsizes - 1;

        while (last > k0 && g->sizes[last] > GROUP_ONE_SIZE)
            last--;
        if (last >= k0) {
            g->sizes[k0] = g->sizes[last];
            g->nsizes = k0 + 1;
        }
    }
    memmove(g->sizes, g->sizes + k0, (size_t)(g->nsizes - k0) * sizeof(g->sizes[0]));
    g->nsizes -= k0;
    if (!g->per) {
        rc = GC_ENOMEM;
        goto out;
    }
    if (g->nsizes < (ls->profile == GC_PROFILE_FULL ? 2 : 1)) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available: too little memory (%s)",
                            why);
        goto out;
    }
    rc = gc__link_bufs_alloc(ls, &g->b, g->sizes[g->nsizes - 1] + GC_LINK_SLACK,
                             (size_t)(n - 1) * g->sizes[g->nsizes - 1]);
    gc__run_progress_expect(ls->progress, g->nsizes * n);
    for (int hub = 0; hub < n && rc == 0; hub++)
        rc = measure_hub(g, hub);
out:
    gc__link_bufs_free(ls, &g->b);
    free(g->per);
    free(g);
    return rc;
}
