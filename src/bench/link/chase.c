/* link.chase: the SM's load-to-use latency across the link. A random cycle
 * (the pointer chase's chain, bench/chase/gen.c) lives in the memory of
 * device j; one thread of a kernel launched on device i follows it. Two
 * walks of different length, each from a part of the cycle no earlier
 * walk touched, cancel the launch: latency = (t_long - t_short) / (steps
 * difference). The end of every walk is checked against the host's walk. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"
#include "bench/link/link.h"
#include "core/kcache.h"
#include "core/progress.h"
#include "core/stats.h"
#include "kgen/kgen.h"
#include "model/peerlink.h"

#define FOOTPRINT ((size_t)64 << 20)
#define SPACING 256 /* bytes between elements: two 128-byte lines apart */
#define MIN_SAMPLES 5

static char *gen_chase(enum gc_dialect dl)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, dl, 0);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_link_chase(GC_GLOBAL const GC_U32 *chain, GC_U32 start, "
                      "GC_U32 steps, GC_GLOBAL GC_U32 *out)\n{\n"
                      "    if (GC_GID != 0)\n        return;\n"
                      "    GC_U32 j = start;\n"
                      "    for (GC_U32 i = 0; i < steps; i++)\n        j = chain[j];\n"
                      "    out[0] = j;\n}\n");
    return gc__sbuf_take(&b);
}

struct lk_chase {
    struct gc_link_session *ls;
    struct gc_bench_result *r;
    struct plan pl;
    uint32_t *next; /* the cycle (the same on every device) */
    size_t m;
    struct gc_buf **chain, **out;
    struct gc_kreq *req;
    struct gc_kern **kern;
    uint64_t used; /* elements of the cycle walked so far */
    unsigned s_short, s_long;
};

static int kernel_of(struct lk_chase *x, int dev, struct gc_kern **k)
{
    struct gc_device *d = x->ls->devs[dev];
    int rc;

    if (x->kern[dev]) {
        *k = x->kern[dev];
        return 0;
    }
    x->req[dev].label = "link_chase";
    x->req[dev].src = gen_chase(d->ops->dialect);
    if (!x->req[dev].src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(&x->ls->sess[dev], &x->req[dev], 1)))
        return rc;
    if ((rc = d->ops->kernel(x->req[dev].prog, "gc_link_chase", &x->kern[dev])))
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    *k = x->kern[dev];
    return rc;
}

/* One walk of steps from a fresh part of the cycle, on device i through
 * j's chain: its time, its end checked. */
static int walk(struct lk_chase *x, int i, int j, unsigned steps, double *el)
{
    struct gc_device *d = x->ls->devs[i];
    uint32_t start = gc__chase_walk(x->next, x->m, x->used), got = 0, want;
    struct gc_kern *k;
    int rc;

    x->used += steps + 1;
    if ((rc = kernel_of(x, i, &k)))
        return rc;
    struct gc_arg a[4] = {
        {.type = GC_ARG_BUF, .v.buf = x->chain[j]},
        {.type = GC_ARG_U32, .v.u32 = (uint32_t)gc__chase_slot_of(&x->pl, start)},
        {.type = GC_ARG_U32, .v.u32 = steps},
        {.type = GC_ARG_BUF, .v.buf = x->out[i]},
    };
    struct gc_launch l = {{1, 1, 1}, {32, 1, 1}, 0, a, 4, 1};
    if ((rc = gc__dev_launch(d, k, &l, el)) || (rc = gc__dev_read(d, x->out[i], 0, &got, 4)))
        return rc;
    want = (uint32_t)gc__chase_slot_of(&x->pl, gc__chase_walk_from(x->next, start, x->m, steps));
    if (got == want)
        return 0;
    gc__bench_set_error(x->r, GC_BENCH_ERROR,
                        "verification failed (chase %d->%d of %u steps): ended at word %u, "
                        "expected %u",
                        i, j, steps, got, want);
    return GC_EVERIFY;
}

static int measure_pair(struct lk_chase *x, int i, int j)
{
    double lat[GC_LINK_MAX_SAMPLES], ts, tl;
    int want = gc__link_samples(x->ls, MIN_SAMPLES);
    struct gc_stats st;
    char name[32], note[200];
    int rc = walk(x, i, j, x->s_short, &ts); /* warm-up: the kernel's first launch */

    for (int k = 0; k < want && rc == 0; k++) {
        if (gc__link_stopped(x->ls))
            return GC_EINTR;
        if ((rc = walk(x, i, j, x->s_short, &ts)) == 0 && (rc = walk(x, i, j, x->s_long, &tl)) == 0)
            lat[k] = (tl - ts) / (double)(x->s_long - x->s_short);
    }
    if (rc)
        return rc;
    gc__stats_compute(lat, want, &st);
    gc__pair_name(name, sizeof(name), i, j, NULL);
    snprintf(note, sizeof(note),
             "a kernel on device %d follows a chain in device %d's memory (%zu MiB, elements "
             "%d B apart, fresh lines each walk): (t(%u) - t(%u)) / %u steps",
             i, j, FOOTPRINT >> 20, SPACING, x->s_long, x->s_short, x->s_long - x->s_short);
    gc__bench_add_metric(x->r, name, st.median, "s", NAN, &st, note);
    return 0;
}

static int setup(struct lk_chase *x)
{
    int n = x->ls->n, rc = 0;
    uint32_t *w;

    x->pl = (struct plan){.spacing = SPACING, .line = 128, .esize = 4, .bytes = FOOTPRINT};
    w = gc__chase_chain_words(&x->pl, FOOTPRINT, x->ls->seed ^ 0x636861736531ULL, &x->next, &x->m);
    x->chain = calloc((size_t)n, sizeof(*x->chain));
    x->out = calloc((size_t)n, sizeof(*x->out));
    x->req = calloc((size_t)n, sizeof(*x->req));
    x->kern = calloc((size_t)n, sizeof(*x->kern));
    if (!w || !x->chain || !x->out || !x->req || !x->kern)
        rc = GC_ENOMEM;
    for (int d = 0; d < n && rc == 0; d++) {
        struct gc_device *dev = x->ls->devs[d];

        if ((rc = gc__dev_alloc(dev, FOOTPRINT, &x->chain[d])) == 0 &&
            (rc = gc__dev_write(dev, x->chain[d], 0, w, FOOTPRINT)) == 0)
            rc = gc__dev_alloc(dev, 256, &x->out[d]);
    }
    free(w);
    return rc;
}

static void release(struct lk_chase *x)
{
    for (int d = 0; d < x->ls->n; d++) {
        if (x->chain)
            gc__dev_free(x->ls->devs[d], x->chain[d]);
        if (x->out)
            gc__dev_free(x->ls->devs[d], x->out[d]);
        if (x->req && x->req[d].src)
            gc__kreq_release(&x->ls->sess[d], &x->req[d], 1);
    }
    free(x->chain);
    free(x->out);
    free(x->req);
    free(x->kern);
    free(x->next);
}

int gc__link_run_chase(struct gc_link_session *ls, const struct gc_link_desc *self,
                       struct gc_bench_result *r)
{
    struct lk_chase x = {.ls = ls, .r = r};
    int rc, n = ls->n, measured = 0;
    char why[300];

    (void)self;
    gc__link_add_devices(ls, r);
    if (ls->devs[0]->ops->simulated) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available: the %s backend's simulated devices run no kernels",
                            ls->devs[0]->ops->name);
        return 0;
    }
    if (!gc__link_kernels_cross(ls, why, sizeof(why))) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "%s", why);
        return 0;
    }
    x.s_short = ls->profile == GC_PROFILE_QUICK ? 256 : 1024;
    x.s_long = ls->profile == GC_PROFILE_QUICK ? 2048 : 8192;
    rc = setup(&x);
    for (int i = 0; i < n && rc == 0; i++)
        for (int j = 0; j < n && rc == 0; j++) {
            if (i == j)
                continue;
            if (!gc__link_reachable(ls, i, j, why, sizeof(why))) {
                gc__link_unreachable(r, i, j, "s", why);
                continue;
            }
            gc__run_progress_config(ls->progress);
            rc = measure_pair(&x, i, j);
            measured++;
        }
    if (rc == 0 && measured == 0)
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available: no pair of devices reaches the other (%.900s)",
                            r->warning);
    release(&x);
    return rc;
}
