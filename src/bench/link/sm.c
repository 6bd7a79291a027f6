/* link.sm_read and link.sm_write: a copy kernel of 16-byte words that
 * reads the peer's memory (launched on the destination) or writes it
 * (launched on the source), at the best of the launch shapes whose blocks
 * are all resident and of the load depths (rounds of 1, 4 or 12 loads
 * then as many stores in the source; ptxas fits each in 32 registers, so
 * not every load of a round is in flight at once) found on the size the
 * figure is sustained at, over the sizes of gc__link_sizes that are whole
 * words, those beyond the caches copied 16 times per launch behind a lead
 * pass; every copy verified on arrival. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/link/link.h"
#include "core/kcache.h"
#include "core/stats.h"
#include "core/progress.h"
#include "kgen/kgen.h"
#include "model/peerlink.h"

#define WORD 16
/* Words a thread of each variant loads before it stores any. */
static const int lk_depths[] = {1, 4, 12};
#define LK_VARIANTS ((int)(sizeof(lk_depths) / sizeof(lk_depths[0])))
/* Passes over the buffer per launch for sizes of at least LK_PASS_L2S
 * times the larger L2 of the two devices (no cache holds them): a launch's
 * start and drain are paid once per LK_PASSES copies (nvbandwidth loops 16
 * times in its kernel); the shapes are compared at LK_SHAPE_PASSES. */
#define LK_PASSES 16
#define LK_SHAPE_PASSES 4
#define LK_PASS_L2S 4
#define LONG_SAMPLE_S 0.02

/* The copy kernel: thread t copies words t, t + s, t + 2s, ... (s the
 * launch's threads), in `groups` rounds of depth loads then depth stores
 * through pointers stepped by s (no index arithmetic per word: on NVLink
 * that reads 0.2-0.4% faster than a grid-stride loop over indices); then
 * the m words left, fewer than depth x s, one word per thread per round
 * (loads of several in flight there ask for registers that cost the copy
 * its full occupancy). The threads that take the rest change every pass
 * (rotated by m), so that no thread falls a remote latency per pass behind
 * the others; passes times over the buffer. */
static char *gen_copy(enum gc_dialect dl, int depth)
{
    const char *t = gc__kgen_elem_type(WORD);
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, dl, 0);
    gc__sbuf_printf(&b,
                    "GC_KERNEL void gc_link_copy(GC_GLOBAL const %s *GC_RESTRICT src, GC_U64 soff, "
                    "GC_GLOBAL %s *GC_RESTRICT dst, GC_U64 n, GC_U64 passes)\n{\n"
                    "    GC_U64 s = (GC_U64)GC_BDIM * GC_NBLK, t = GC_GID;\n"
                    "    GC_U64 groups = n / (s * %d), base = groups * s * %d, m = n - base;\n"
                    "    for (GC_U64 p = 0; p < passes; p++) {\n"
                    "        GC_GLOBAL const %s *a = src + soff + t;\n"
                    "        GC_GLOBAL %s *b = dst + t;\n"
                    "        for (GC_U64 g = 0; g < groups; g++) {\n",
                    t, t, depth, depth, t, t);
    for (int k = 0; k < depth; k++)
        gc__sbuf_printf(&b, "            %s v%d = *a;\n            a += s;\n", t, k);
    for (int k = 0; k < depth; k++)
        gc__sbuf_printf(&b, "            *b = v%d;\n            b += s;\n", k);
    gc__sbuf_puts(&b, "        }\n"
                      "        GC_U64 r = (p * m) % s, u = t >= r ? t - r : t + s - r;\n"
                      "        for (GC_U64 j = base + u; j < n; j += s)\n"
                      "            dst[j] = src[soff + j];\n"
                      "    }\n}\n");
    return gc__sbuf_take(&b);
}

struct lk_sm {
    struct gc_link_session *ls;
    struct gc_bench_result *r;
    bool read; /* launched on the destination, reading the peer */
    struct gc_link_bufs b;
    struct gc_kreq *req;   /* per device and variant, built on first use */
    struct gc_kern **kern; /* per device and variant (index dev * LK_VARIANTS + v) */
    size_t sizes[GC_LINK_MAX_SIZES];
    int nsizes;
};

static int depth_of(int variant)
{
    return lk_depths[variant];
}

static int kernel_of(struct lk_sm *x, int dev, int variant, struct gc_kern **out)
{
    struct gc_device *d = x->ls->devs[dev];
    int i = dev * LK_VARIANTS + variant, rc;

    if (x->kern[i]) {
        *out = x->kern[i];
        return 0;
    }
    x->req[i].label = variant == 0   ? "link_sm_copy"
                      : variant == 1 ? "link_sm_copy4"
                                     : "link_sm_copy12";
    x->req[i].src = gen_copy(d->ops->dialect, depth_of(variant));
    if (!x->req[i].src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(&x->ls->sess[dev], &x->req[i], 1)))
        return rc;
    if ((rc = d->ops->kernel(x->req[i].prog, "gc_link_copy", &x->kern[i]))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    *out = x->kern[i];
    return 0;
}

struct shape {
    unsigned grid, block;
    int variant; /* index into lk_depths */
};

/* Passes per launch for a copy of bytes between from and to. */
static int passes_of(const struct lk_sm *x, int from, int to, size_t bytes)
{
    size_t l2a = gc__gpu_l2_or_bound(&x->ls->devs[from]->info);
    size_t l2b = gc__gpu_l2_or_bound(&x->ls->devs[to]->info);

    return bytes / LK_PASS_L2S >= (l2a > l2b ? l2a : l2b) ? LK_PASSES : 1;
}

/* count launches of the copy of bytes from -> to with shape sh, each of
 * passes passes; with lead, one pass queued ahead of them first (where the
 * backend can queue without waiting): the timed launches are then queued
 * before the device reaches their start, so their time holds no host
 * launch latency, and the pass before them has walked the same pages. */
static int launch_led(struct lk_sm *x, int from, int to, size_t bytes, size_t soff, struct shape sh,
                      int passes, int count, bool lead, double *el)
{
    int dev = x->read ? to : from, rc;
    struct gc_kern *k;

    if ((rc = kernel_of(x, dev, sh.variant, &k)))
        return rc;
    struct gc_arg args[5] = {
        {.type = GC_ARG_BUF, .v.buf = x->b.src[from]},
        {.type = GC_ARG_U64, .v.u64 = soff / WORD},
        {.type = GC_ARG_BUF, .v.buf = x->b.dst[to]},
        {.type = GC_ARG_U64, .v.u64 = bytes / WORD},
        {.type = GC_ARG_U64, .v.u64 = (unsigned long long)passes},
    };
    struct gc_launch l = {{sh.grid, 1, 1}, {sh.block, 1, 1}, 0, args, 5, count};
    struct gc_device *d = x->ls->devs[dev];

    if (lead && d->ops->launch_timed && d->ops->sync) {
        struct gc_arg one[5];
        struct gc_launch_times lt;

        memcpy(one, args, sizeof(one));
        one[4].v.u64 = 1;
        struct gc_launch w = {{sh.grid, 1, 1}, {sh.block, 1, 1}, 0, one, 5, 1};
        if ((rc = d->ops->launch_timed(d->dev, k, &w, GC_LT_NOWAIT, &lt))) {
            snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
            d->ops->sync(d->dev);
            return rc;
        }
    }
    return gc__dev_launch(d, k, &l, el);
}

static int launch(struct lk_sm *x, int from, int to, size_t bytes, size_t soff, struct shape sh,
                  int passes, int count, double *el)
{
    return launch_led(x, from, to, bytes, soff, sh, passes, count, false, el);
}

/* Launches of the copy each candidate shape is timed with in the first
 * comparison, after one warm-up per depth: the shape's time is the
 * fastest, so that one launch slowed by another process's work does not
 * decide it; the second comparison (final_shape) tells apart the depths,
 * which differ by tenths of a percent on NVLink. */
#define LK_SHAPE_TRIES 2

/* The size the shapes are compared on: the smallest one copied several
 * times per launch (the sustained rate the figure reports), else the
 * largest. */
static size_t shape_size(const struct lk_sm *x, int from, int to)
{
    for (int k = 0; k < x->nsizes; k++)
        if (passes_of(x, from, to, x->sizes[k]) > 1)
            return x->sizes[k];
    return x->sizes[x->nsizes - 1];
}

/* Whether every block of shape sh is resident at once (the kernel's
 * registers allow it), where the backend can tell; a kernel that cannot
 * be built is left to the launch, which says why. */
static bool resident(struct lk_sm *x, int from, int to, struct shape sh)
{
    int dev = x->read ? to : from, per_cu = 0;
    struct gc_device *d = x->ls->devs[dev];
    struct gc_kern *k;
    unsigned cu = d->info.compute_units > 0 ? (unsigned)d->info.compute_units : 1;

    if (kernel_of(x, dev, sh.variant, &k))
        return true;
    if (gc__dev_max_active_blocks(d, k, (int)sh.block, 0, &per_cu) != 0)
        return true;
    return (unsigned)per_cu * cu >= sh.grid;
}

/* Rounds of the second comparison: each finalist is timed once per round,
 * the rounds interleaved, and it is judged by its median. */
#define LK_FINAL_ROUNDS 5

/* The second comparison: the finalists (one per depth) timed as the figure is measured
 * (LK_PASSES passes behind a lead pass), in interleaved rounds so that a
 * slow stretch of the link falls on all of them; the fastest median wins. */
static int final_shape(struct lk_sm *x, int from, int to, size_t bytes, const struct shape *top,
                       int n, struct shape *best)
{
    double t[LK_VARIANTS][LK_FINAL_ROUNDS], el, best_t = INFINITY;
    int rc;

    for (int r = 0; r < LK_FINAL_ROUNDS; r++)
        for (int i = 0; i < n; i++) {
            if ((rc = launch_led(x, from, to, bytes, 0, top[i], LK_PASSES, 1, true, &el)))
                return rc;
            t[i][r] = el;
        }
    for (int i = 0; i < n; i++) {
        double med = gc__percentile(t[i], LK_FINAL_ROUNDS, 50);

        if (med < best_t) {
            best_t = med;
            *best = top[i];
        }
    }
    return 0;
}

/* The best of 1..8 blocks of 256..1024 threads per compute unit (the
 * shapes a device can hold at once, all resident) and of the load depths:
 * all compared on LK_SHAPE_PASSES passes, the fastest of each depth again as
 * the figure is measured where sizes are copied several times per launch
 * (the first comparison ranks shapes of one depth well, but depths that
 * differ by tenths of a percent at LK_PASSES behind a lead pass in the
 * other order). */
static int best_shape(struct lk_sm *x, int from, int to, struct shape *best)
{
    const struct gc_device_info *in = &x->ls->devs[x->read ? to : from]->info;
    static const unsigned blocks[] = {1, 2, 4, 8}, threads[] = {256, 512, 1024};
    size_t bytes = shape_size(x, from, to);
    bool sustained = passes_of(x, from, to, bytes) > 1;
    int passes = sustained ? LK_SHAPE_PASSES : 1, nt = 0, top_v = -1;
    struct shape top[LK_VARIANTS];
    double el, best_t = INFINITY;
    int cu = in->compute_units > 0 ? in->compute_units : 1, rc;

    *best = (struct shape){(unsigned)cu, 256, 0};
    for (int v = 0; v < LK_VARIANTS; v++) {
        double depth_t = INFINITY;
        bool warm = false;

        for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++)
            for (size_t j = 0; j < sizeof(threads) / sizeof(threads[0]); j++) {
                if (in->max_threads_per_cu > 0 &&
                    (int)(blocks[i] * threads[j]) > in->max_threads_per_cu)
                    continue;
                if (in->max_threads_per_block > 0 && (int)threads[j] > in->max_threads_per_block)
                    continue;
                struct shape s = {blocks[i] * (unsigned)cu, threads[j], v};

                if (!resident(x, from, to, s))
                    continue;
                if (!warm && (rc = launch(x, from, to, bytes, 0, s, 1, 1, &el)))
                    return rc;
                warm = true;
                for (int t = 0; t < LK_SHAPE_TRIES; t++) {
                    if ((rc = launch(x, from, to, bytes, 0, s, passes, 1, &el)))
                        return rc;
                    if (el < depth_t) {
                        depth_t = el;
                        top[nt] = s;
                    }
                    if (el < best_t) {
                        best_t = el;
                        top_v = nt;
                    }
                }
            }
        nt += isfinite(depth_t);
    }
    if (nt == 0)
        return 0;
    *best = top[top_v];
    return sustained && nt > 1 ? final_shape(x, from, to, bytes, top, nt, best) : 0;
}

static int measure_size(struct lk_sm *x, int from, int to, int k, struct shape sh,
                        struct gc_link_curve *cv, const char *name)
{
    const struct gc_sampling *sp = &x->ls->sampling;
    size_t bytes = x->sizes[k], soff = 0;
    double per[GC_LINK_MAX_SAMPLES], el = 0, target = sp->target_sample_s;
    int want = gc__link_samples(x->ls, 1);
    int rc, count, passes = passes_of(x, from, to, bytes);
    char what[64];

    if (bytes >= ((size_t)64 << 20) && target < LONG_SAMPLE_S && !sp->sample_time_set)
        target = LONG_SAMPLE_S;
    if ((rc = gc__link_prepare(x->ls, &x->b, from, to, bytes)) ||
        (rc = launch(x, from, to, bytes, soff, sh, passes, 1, &el)))
        return rc;
    count = el > 0 ? (int)ceil(target / el) : 1000;
    count = count < 1 ? 1 : count > 4096 ? 4096 : count;
    for (int s = 0; s < want; s++) {
        if (gc__link_stopped(x->ls))
            return GC_EINTR;
        if ((rc = launch_led(x, from, to, bytes, soff, sh, passes, count, passes > 1, &el)))
            return rc;
        per[s] = el / count / passes;
    }
    if ((rc = gc__link_curve_add(x->r, name, cv, bytes, per, want)))
        return rc;
    snprintf(what, sizeof(what), "SM copy %d->%d", from, to);
    return gc__link_check(x->ls, x->r, &x->b, from, to, bytes, what);
}

static int measure_pair(struct lk_sm *x, int from, int to)
{
    struct gc_link_curve *cv = calloc(1, sizeof(*cv));
    struct shape sh;
    char name[32], note[420];
    int rc, n = x->ls->n;

    if (!cv)
        return GC_ENOMEM;
    gc__pair_name(name, sizeof(name), from, to, NULL);
    rc = best_shape(x, from, to, &sh);
    for (int k = 0; k < x->nsizes && rc == 0; k++) {
        gc__run_progress_config(x->ls->progress);
        rc = measure_size(x, from, to, k, sh, cv, name);
    }
    if (rc == 0 || rc == GC_EINTR) {
        snprintf(note, sizeof(note),
                 "%.200s; launch %u blocks x %u threads, rounds of %d load%s then as many "
                 "stores per thread, on %s; sizes of at least %dx the larger L2 copied %d "
                 "times per launch",
                 x->ls->limit_note[from * n + to], sh.grid, sh.block, depth_of(sh.variant),
                 depth_of(sh.variant) > 1 ? "s" : "", x->read ? "the destination" : "the source",
                 LK_PASS_L2S, LK_PASSES);
        gc__link_curve_metrics(x->r, name, cv, x->ls->limit[from * n + to], note);
    }
    free(cv);
    return rc;
}

static int measure_all(struct lk_sm *x)
{
    int n = x->ls->n, rc = 0, measured = 0;
    char why[300];

    for (int a = 0; a < n && rc == 0; a++)
        for (int b = 0; b < n && rc == 0; b++) {
            if (a == b)
                continue;
            if (!gc__link_reachable(x->ls, x->read ? b : a, x->read ? a : b, why, sizeof(why))) {
                gc__link_unreachable(x->r, a, b, "B/s", why);
                continue;
            }
            rc = measure_pair(x, a, b);
            measured++;
        }
    if (rc == 0 && measured == 0)
        gc__bench_set_error(x->r, GC_BENCH_NOT_AVAILABLE,
                            "not available: no pair of devices reaches the other (%.900s)",
                            x->r->warning);
    return rc;
}

/* The sizes that are whole 16-byte words. */
static void word_sizes(struct lk_sm *x)
{
    int m = 0;

    for (int k = 0; k < x->nsizes; k++)
        if (x->sizes[k] % WORD == 0)
            x->sizes[m++] = x->sizes[k];
    x->nsizes = m;
}

int gc__link_run_sm(struct gc_link_session *ls, const struct gc_link_desc *self,
                    struct gc_bench_result *r)
{
    struct lk_sm x = {.ls = ls, .r = r, .read = self->kind == GC_LINK_SM_READ};
    char why[256];
    int rc = 0;

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
    x.nsizes = gc__link_sizes(ls, 1, 3, x.sizes, GC_LINK_MAX_SIZES, why, sizeof(why));
    word_sizes(&x);
    if (x.nsizes < 2) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available: too little memory (%s)",
                            why);
        return 0;
    }
    x.req = calloc((size_t)ls->n * LK_VARIANTS, sizeof(*x.req));
    x.kern = calloc((size_t)ls->n * LK_VARIANTS, sizeof(*x.kern));
    if (!x.req || !x.kern)
        rc = GC_ENOMEM;
    if (rc == 0)
        rc = gc__link_bufs_alloc(ls, &x.b, x.sizes[x.nsizes - 1], x.sizes[x.nsizes - 1]);
    if (rc == 0)
        rc = gc__link_bufs_ref(ls, &x.b);
    gc__run_progress_expect(ls->progress, x.nsizes * ls->n * (ls->n - 1));
    if (rc == 0)
        rc = measure_all(&x);
    gc__link_bufs_free(ls, &x.b);
    for (int i = 0; x.req && i < ls->n * LK_VARIANTS; i++)
        if (x.req[i].src)
            gc__kreq_release(&ls->sess[i / LK_VARIANTS], &x.req[i], 1);
    free(x.req);
    free(x.kern);
    return rc;
}
