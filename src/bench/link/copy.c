/* link.ce_write, link.ce_read, link.ce_bidir: copy-engine copies between
 * every ordered pair of devices that reach each other, one direction (the
 * source pushes, or the destination pulls) or both at once, over the sizes
 * of gc__link_sizes, each verified on arrival, with the Hockney fit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/link/link.h"
#include "core/progress.h"
#include "model/peerlink.h"

struct lk_copy {
    struct gc_link_session *ls;
    struct gc_bench_result *r;
    int kind;
    struct gc_link_bufs b;
    size_t sizes[GC_LINK_MAX_SIZES];
    int nsizes;
    char why[256];
    double (*per)[GC_LINK_MAX_SAMPLES];
    double tot[GC_LINK_MAX_SAMPLES];
};

/* The copy from -> to at size index k, issued as the row's kind says,
 * with its destination poisoned and its reference ready (*rc). */
static struct gc_peer_copy one_copy(struct lk_copy *x, int from, int to, int k, int *rc)
{
    if (*rc == 0)
        *rc = gc__link_prepare(x->ls, &x->b, from, to, x->sizes[k]);
    return (struct gc_peer_copy){.dst = x->b.dst[to],
                                 .src = x->b.src[from],
                                 .bytes = x->sizes[k],
                                 .by_dst = x->kind == GC_LINK_READ};
}

/* Whether the device that issues the copy from -> to can reach the other. */
static bool pair_ok(const struct lk_copy *x, int from, int to, char *why, size_t len)
{
    bool pull = x->kind == GC_LINK_READ;

    if (!gc__link_reachable(x->ls, pull ? to : from, pull ? from : to, why, len))
        return false;
    return x->kind != GC_LINK_BIDIR || gc__link_reachable(x->ls, to, from, why, len);
}

static int verify(struct lk_copy *x, int from, int to, const struct gc_peer_copy *c)
{
    char what[64];

    snprintf(what, sizeof(what), "copy %d->%d", from, to);
    /* On the receiving device against its reference (the host where the
     * device cannot check): a GiB read back and hashed on the host took
     * longer than the copies it checks. */
    return gc__link_check(x->ls, x->r, &x->b, from, to, c->bytes, what);
}

/* One direction of one pair over every size. */
static int measure_pair(struct lk_copy *x, int from, int to)
{
    struct gc_link_curve *cv = calloc(1, sizeof(*cv));
    char name[32];
    int rc = 0, ns = 0;
    bool pull = x->kind == GC_LINK_READ;

    if (!cv)
        return GC_ENOMEM;
    gc__pair_name(name, sizeof(name), from, to, NULL);
    for (int k = 0; k < x->nsizes && rc == 0; k++) {
        struct gc_peer_copy c = one_copy(x, from, to, k, &rc);

        gc__run_progress_config(x->ls->progress);
        if (rc == 0)
            rc = gc__link_sample(x->ls, pull ? to : from, &c, 1, x->per, x->tot, &ns);
        if (rc == 0)
            rc = gc__link_curve_add(x->r, name, cv, c.bytes, x->per[0], ns);
        if (rc == 0)
            rc = verify(x, from, to, &c);
    }
    if (rc == 0 || rc == GC_EINTR)
        gc__link_curve_metrics(x->r, name, cv, x->ls->limit[from * x->ls->n + to],
                               x->ls->limit_note[from * x->ls->n + to]);
    free(cv);
    return rc;
}

/* Both directions of the pair (a, b) at once over the sizes; "a->b" and
 * "b->a" each direction's own bandwidth, "a->b.sum" their sum. */
static int measure_bidir(struct lk_copy *x, int a, int b)
{
    struct gc_link_curve *cv = calloc(3, sizeof(*cv));
    char name[2][32], sum[32], note[300];
    int rc = 0, ns = 0, n = x->ls->n;

    if (!cv)
        return GC_ENOMEM;
    gc__pair_name(name[0], sizeof(name[0]), a, b, NULL);
    gc__pair_name(name[1], sizeof(name[1]), b, a, NULL);
    gc__pair_name(sum, sizeof(sum), a, b, "sum");
    for (int k = 0; k < x->nsizes && rc == 0; k++) {
        struct gc_peer_copy c[2] = {one_copy(x, a, b, k, &rc), one_copy(x, b, a, k, &rc)};
        double both[GC_LINK_MAX_SAMPLES];

        gc__run_progress_config(x->ls->progress);
        if (rc == 0)
            rc = gc__link_sample(x->ls, a, c, 2, x->per, x->tot, &ns);
        for (int d = 0; d < 2 && rc == 0; d++)
            rc = gc__link_curve_add(x->r, name[d], &cv[d], c[d].bytes, x->per[d], ns);
        /* The sum's time per byte: the two rates added, as one copy of the
         * size moving at their sum. */
        for (int s = 0; s < ns; s++)
            both[s] = 1.0 / (1.0 / x->per[0][s] + 1.0 / x->per[1][s]);
        if (rc == 0)
            rc = gc__link_curve_add(x->r, sum, &cv[2], c[0].bytes, both, ns);
        if (rc == 0)
            rc = verify(x, a, b, &c[0]);
        if (rc == 0)
            rc = verify(x, b, a, &c[1]);
    }
    if (rc == 0 || rc == GC_EINTR) {
        gc__link_curve_metrics(x->r, name[0], &cv[0], x->ls->limit[a * n + b],
                               x->ls->limit_note[a * n + b]);
        gc__link_curve_metrics(x->r, name[1], &cv[1], x->ls->limit[b * n + a],
                               x->ls->limit_note[b * n + a]);
        snprintf(note, sizeof(note), "2 x %.250s", x->ls->limit_note[a * n + b]);
        gc__link_curve_metrics(x->r, sum, &cv[2], x->ls->limit[a * n + b] + x->ls->limit[b * n + a],
                               note);
    }
    free(cv);
    return rc;
}

/* A pair that cannot be measured: its metric without a value, the reason
 * in its note and in the row's warning. */
void gc__link_unreachable(struct gc_bench_result *r, int from, int to, const char *unit,
                          const char *why)
{
    char name[32], text[320];

    gc__pair_name(name, sizeof(name), from, to, NULL);
    gc__bench_add_metric(r, name, NAN, unit, NAN, NULL, why);
    snprintf(text, sizeof(text), "%s: %.280s", name, why);
    gc__bench_warn(r, text);
}

static int measure_all(struct lk_copy *x, int *measured)
{
    int n = x->ls->n, rc = 0;
    char why[300];

    for (int a = 0; a < n && rc == 0; a++)
        for (int b = 0; b < n && rc == 0; b++) {
            if (a == b || (x->kind == GC_LINK_BIDIR && b < a))
                continue;
            if (!pair_ok(x, a, b, why, sizeof(why))) {
                gc__link_unreachable(x->r, a, b, "B/s", why);
                if (x->kind == GC_LINK_BIDIR)
                    gc__link_unreachable(x->r, b, a, "B/s", why);
                continue;
            }
            rc = x->kind == GC_LINK_BIDIR ? measure_bidir(x, a, b) : measure_pair(x, a, b);
            (*measured)++;
        }
    return rc;
}

int gc__link_run_copy(struct gc_link_session *ls, const struct gc_link_desc *self,
                      struct gc_bench_result *r)
{
    struct lk_copy *x = calloc(1, sizeof(*x));
    int rc, measured = 0;

    if (!x)
        return GC_ENOMEM;
    x->ls = ls;
    x->r = r;
    x->kind = self->kind;
    x->per = calloc(2, sizeof(*x->per));
    gc__link_add_devices(ls, r);
    x->nsizes = gc__link_sizes(ls, 1, 3, x->sizes, GC_LINK_MAX_SIZES, x->why, sizeof(x->why));
    if (!x->per) {
        rc = GC_ENOMEM;
        goto out;
    }
    if (x->nsizes < 2) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available: too little memory (%s)",
                            x->why);
        rc = 0;
        goto out;
    }
    rc = gc__link_bufs_alloc(ls, &x->b, x->sizes[x->nsizes - 1], x->sizes[x->nsizes - 1]);
    if (rc == 0)
        rc = gc__link_bufs_ref(ls, &x->b);
    gc__run_progress_expect(ls->progress, x->nsizes * ls->n * (ls->n - 1));
    if (rc == 0)
        rc = measure_all(x, &measured);
    if (rc == 0 && measured == 0)
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available: no pair of devices reaches the other (%.900s)",
                            r->warning);
    gc__bench_add_metric(r, "largest_size", (double)x->sizes[x->nsizes - 1], "B", NAN, NULL,
                         x->why[0] ? x->why : "the profile's largest size");
out:
    gc__link_bufs_free(ls, &x->b);
    free(x->per);
    free(x);
    return rc;
}
