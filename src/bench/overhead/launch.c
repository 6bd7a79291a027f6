/* overhead.launch.*: what a kernel launch costs (uCLbench §2.4, §3.4).
 *  - roundtrip: host cost of one launch call and launch + wait of an empty
 *    kernel, with tail percentiles; growth with kernel arguments and grid;
 *  - rate: back-to-back empty kernels on one queue, queued behind a spinning
 *    kernel so that the host's enqueue speed does not limit the device;
 *  - start: launch to kernel start: OpenCL event profiling QUEUED -> SUBMIT
 *    -> START -> END; CUDA: host clock vs the kernel's %globaltimer, the two
 *    clocks aligned by a handshake through mapped host memory;
 *  - graph: the same launches through a CUDA graph. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/overhead/overhead.h"
#include "core/devfill.h"
#include "util/random.h"
#include "core/stats.h"
#include "core/kcache.h"
#include "kgen/kgen.h"

#define LN_BLOCK 32
#define LN_GRID_BLOCK 256
#define LN_MAX_ARGS 128
#define LN_QUEUE 200 /* launches queued behind the spinner (CUDA queues ~1000) */
#define LN_GRAPH 64  /* launches in the large graph */

static const int arg_counts[] = {8, 32, LN_MAX_ARGS};
#define NARGK ((int)(sizeof(arg_counts) / sizeof(arg_counts[0])))

enum ln_kind { LN_ROUNDTRIP, LN_RATE, LN_START, LN_GRAPH_K };

/* The kernels of every launch benchmark, in one program: gc_empty writes
 * only when tag != 0 (the verification launch); gc_argsN adds its N
 * arguments; gc_spin runs an LCG for n steps. */
static char *gen_launch(enum gc_dialect dl)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, dl, 0);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_empty(GC_GLOBAL GC_U32 *p, GC_U32 tag)\n{\n"
                      "    if (tag != 0u)\n        p[GC_GID] = tag ^ GC_GID;\n}\n");
    for (int a = 0; a < NARGK; a++) {
        int n = arg_counts[a];
        gc__sbuf_printf(&b, "GC_KERNEL void gc_args%d(GC_GLOBAL GC_U32 *p, GC_U32 tag", n);
        for (int i = 0; i < n; i++)
            gc__sbuf_printf(&b, ", GC_U32 a%d", i);
        gc__sbuf_puts(&b, ")\n{\n    if (tag != 0u)\n        p[GC_GID] = tag ^ (0u");
        for (int i = 0; i < n; i++)
            gc__sbuf_printf(&b, " + a%d", i);
        gc__sbuf_puts(&b, ");\n}\n");
    }
    gc__sbuf_puts(&b, "GC_KERNEL void gc_spin(GC_GLOBAL GC_U32 *p, GC_U32 n, GC_U32 seed)\n{\n"
                      "    GC_U32 x = seed;\n"
                      "    for (GC_U32 i = 0; i < n; i++)\n"
                      "        x = x * 1664525u + 1013904223u;\n"
                      "    if (GC_GID == 0u)\n        p[0] = x;\n}\n");
    return gc__sbuf_take(&b);
}

/* CUDA only: the kernel's start on %globaltimer, and the handshake that
 * aligns that clock with the host's. Both take one mapped host page m: the
 * handshake waits for the host's m[0], stamps, measures the timer's tick,
 * writes both as 64-bit words at byte 64 and answers in m[1]; gc_stamp
 * writes its start at byte 0. */
static char *gen_stamp(enum gc_dialect d)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, GC_KGEN_TIMESTAMPS);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_stamp(GC_U64 *out)\n{\n"
                      "    GC_U64 t = gc_globaltimer();\n"
                      "    if (GC_GID == 0u)\n        out[0] = t;\n}\n"
                      "GC_KERNEL void gc_handshake(volatile GC_U32 *m)\n{\n"
                      "    volatile GC_U64 *o = (volatile GC_U64 *)(m + 16);\n"
                      "    GC_U64 give_up = gc_globaltimer() + 500000000ull;\n"
                      "    while (m[0] == 0u && gc_globaltimer() < give_up)\n        ;\n"
                      "    GC_U64 t = gc_globaltimer(), a = t, b2;\n"
                      "    while ((b2 = gc_globaltimer()) == a)\n        ;\n"
                      "    a = b2;\n"
                      "    while ((b2 = gc_globaltimer()) == a)\n        ;\n"
                      "    o[0] = t;\n    o[1] = b2 - a;\n"
                      "    __threadfence_system();\n"
                      "    m[1] = m[0] != 0u ? 1u : 2u;\n}\n");
    return gc__sbuf_take(&b);
}

static uint32_t lcg(uint32_t x, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        x = x * 1664525u + 1013904223u;
    return x;
}

/* Shared state of one launch benchmark. */
struct ln {
    struct gc_session *s;
    struct gc_device *d;
    struct gc_bench_result *r;
    struct gc_kreq req;
    bool built;
    struct gc_kern *empty, *spin, *args[NARGK];
    struct gc_buf *p;
    size_t pwords;
    uint32_t *host;
    int reps;
};

static int ln_fail_kernel(struct ln *L)
{
    snprintf(L->d->err, sizeof(L->d->err), "%s", L->d->ops->last_error(L->d->dev));
    return GC_EBACKEND;
}

static int timed(struct ln *L, struct gc_kern *k, const struct gc_launch *l, unsigned flags,
                 struct gc_launch_times *t)
{
    struct gc_device *d = L->d;
    int rc = d->ops->launch_timed(d->dev, k, l, flags, t);

    if (rc)
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    return rc;
}

static int sync_dev(struct ln *L)
{
    int rc = L->d->ops->sync(L->d->dev);

    if (rc)
        snprintf(L->d->err, sizeof(L->d->err), "%s", L->d->ops->last_error(L->d->dev));
    return rc;
}

/* One verification launch of gc_empty / gc_argsN over grid blocks of block
 * threads: every thread must have written tag ^ (its id, or the argument
 * sum). */
static int verify_launch(struct ln *L, int argk, unsigned grid, unsigned block)
{
    struct gc_arg args[2 + LN_MAX_ARGS];
    uint64_t st = L->s->seed ^ (0x6c61756eULL + grid);
    uint32_t tag = (uint32_t)gc__xorshift64s(&st) | 1u, sum = 0;
    size_t n = (size_t)grid * block;
    int nargs = 2 + (argk >= 0 ? arg_counts[argk] : 0);
    double el;
    int rc;

    if (n > L->pwords)
        n = L->pwords; /* the caller keeps grid x block within the buffer */
    args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = L->p};
    args[1] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = tag};
    for (int i = 2; i < nargs; i++) {
        args[i] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)gc__xorshift64s(&st)};
        sum += args[i].v.u32;
    }
    struct gc_launch l = {{grid, 1, 1}, {block, 1, 1}, 0, args, nargs, 1};
    if ((rc = gc__dev_launch(L->d, argk >= 0 ? L->args[argk] : L->empty, &l, &el)) ||
        (rc = gc__dev_read(L->d, L->p, 0, L->host, n * 4)))
        return rc;
    for (size_t i = 0; i < n; i++) {
        uint32_t want = tag ^ (argk >= 0 ? sum : (uint32_t)i);
        if (L->host[i] != want) {
            gc__bench_set_error(L->r, GC_BENCH_ERROR,
                                "verification failed: launch of %u x %u (%d arguments): word %zu "
                                "is 0x%08x, expected 0x%08x",
                                grid, block, nargs, i, L->host[i], want);
            return GC_EVERIFY;
        }
    }
    return 0;
}

static int ln_setup(struct ln *L, struct gc_session *s, struct gc_bench_result *r)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    int rc;

    memset(L, 0, sizeof(*L));
    L->s = s;
    L->d = d;
    L->r = r;
    L->reps = s->profile == GC_PROFILE_QUICK ? 40 : s->profile == GC_PROFILE_FULL ? 2000 : 300;
    /* An explicit --repeat is the number of samples. */
    if (s->sampling.samples_set)
        L->reps = s->sampling.max_samples;
    if (!d->ops->launch_timed) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available: the %s backend has no timed launches", d->ops->name);
        return 1;
    }
    L->req.label = "launch_overhead";
    L->req.src = gen_launch(d->ops->dialect);
    if (!L->req.src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(s, &L->req, 1)))
        return rc;
    L->built = true;
    if (d->ops->kernel(L->req.prog, "gc_empty", &L->empty) ||
        d->ops->kernel(L->req.prog, "gc_spin", &L->spin))
        return ln_fail_kernel(L);
    for (int a = 0; a < NARGK; a++) {
        char name[32];
        snprintf(name, sizeof(name), "gc_args%d", arg_counts[a]);
        if (d->ops->kernel(L->req.prog, name, &L->args[a]))
            return ln_fail_kernel(L);
    }
    /* Room for the verification of the largest grid a benchmark launches. */
    int per_cu =
        info->max_threads_per_cu >= LN_GRID_BLOCK ? info->max_threads_per_cu / LN_GRID_BLOCK : 1;
    unsigned cus = (unsigned)(info->compute_units > 0 ? info->compute_units : 1);
    L->pwords = (size_t)cus * (size_t)per_cu * 64 * LN_GRID_BLOCK;
    if ((rc = gc__dev_alloc(d, L->pwords * 4, &L->p)))
        return rc;
    L->host = malloc(L->pwords * 4);
    if (!L->host)
        return GC_ENOMEM;
    return gc__devfill_hash(s, L->p, L->pwords * 4, s->seed ^ 0x1a0ULL);
}

static void ln_teardown(struct ln *L)
{
    free(L->host);
    gc__dev_free(L->d, L->p);
    if (L->built || L->req.src)
        gc__kreq_release(L->s, &L->req, 1);
}

/* reps round trips of l: launch + wait, no events. rt[] and enq[] get the
 * host's round trip and the time inside the launch call; prof (may be NULL)
 * the profiling spans of each launch (QUEUED -> SUBMIT, SUBMIT -> START,
 * START -> END, QUEUED -> START), 4 x reps. */
static int round_trips(struct ln *L, struct gc_kern *k, const struct gc_launch *l, int reps,
                       double *rt, double *enq, double *prof)
{
    struct gc_launch_times t;
    int rc;

    for (int i = 0; i < 10; i++)
        if ((rc = timed(L, k, l, 0, &t)))
            return rc;
    for (int i = 0; i < reps; i++) {
        if (gc__stopped(L->s))
            return GC_EINTR;
        if ((rc = timed(L, k, l, 0, &t)))
            return rc;
        rt[i] = t.t_done - t.t_begin;
        enq[i] = t.t_enqueued - t.t_begin;
        if (prof) {
            prof[i] = t.queued_to_submit_s;
            prof[reps + i] = t.submit_to_start_s;
            prof[2 * reps + i] = t.start_to_end_s;
            prof[3 * reps + i] = t.queued_to_submit_s + t.submit_to_start_s;
        }
    }
    return 0;
}

static double median(const double *x, int n)
{
    struct gc_stats st;

    gc__stats_compute(x, n, &st);
    return st.median;
}

/* Growth with the number of 4-byte arguments: `sub` round trips for each
 * count (rt and enq hold the empty kernel's `reps` ones on entry). */
static int rt_vs_args(struct ln *L, const struct gc_launch *one, int reps, int sub, double *rt,
                      double *enq)
{
    struct gc_bench_result *r = L->r;
    char note[200];
    int rc;
    struct gc_series *sa = gc__bench_add_series(r, "round_trip_vs_args", "kernel arguments", "args",
                                                "round trip (median)", "s");
    struct gc_series *se = gc__bench_add_series(r, "enqueue_vs_args", "kernel arguments", "args",
                                                "launch call (median)", "s");
    if (!sa || !se)
        return GC_ENOMEM;
    gc__series_add(sa, 2, median(rt, reps), NULL, "empty");
    gc__series_add(se, 2, median(enq, reps), NULL, "empty");
    for (int a = 0; a < NARGK && !gc__stopped(L->s); a++) {
        struct gc_launch la = *one;
        la.nargs = 2 + arg_counts[a];
        if ((rc = verify_launch(L, a, 1, LN_BLOCK)) ||
            (rc = round_trips(L, L->args[a], &la, sub, rt, enq, NULL)))
            return rc;
        gc__series_add(sa, la.nargs, median(rt, sub), NULL, NULL);
        gc__series_add(se, la.nargs, median(enq, sub), NULL, NULL);
        if (a == NARGK - 1) {
            snprintf(note, sizeof(note),
                     "empty kernel with %d arguments (a pointer and %d 4-byte words)", la.nargs,
                     la.nargs - 1);
            gc__bench_add_metric(r, "round_trip_max_args", median(rt, sub), "s", NAN, NULL, note);
        }
    }
    return 0;
}

/* Growth with the grid: 1 block, one block per CU, a full wave of 256-thread
 * blocks, and several waves; round trips and the device's own time. */
static int rt_vs_grid(struct ln *L, struct gc_arg *args, int sub, double *rt, double *enq,
                      double *dev)
{
    const struct gc_device_info *info = &L->d->info;
    struct gc_bench_result *r = L->r;
    char note[200];
    int rc;
    struct gc_series *sg = gc__bench_add_series(r, "round_trip_vs_grid", "blocks", "blocks",
                                                "round trip (median)", "s");
    struct gc_series *sd = gc__bench_add_series(r, "device_time_vs_grid", "blocks", "blocks",
                                                "device time of the empty kernel (median)", "s");
    if (!sg || !sd)
        return GC_ENOMEM;
    unsigned cus = (unsigned)(info->compute_units > 0 ? info->compute_units : 1);
    unsigned per_cu = info->max_threads_per_cu >= LN_GRID_BLOCK
                          ? (unsigned)info->max_threads_per_cu / LN_GRID_BLOCK
                          : 1;
    unsigned wave = cus * per_cu;
    bool gpu = info->type == GC_DEVICE_GPU;
    unsigned grids[6] = {1, cus, wave, 4 * wave, 16 * wave, 64 * wave};
    int ngrids = gpu ? 6 : (L->s->profile == GC_PROFILE_QUICK ? 3 : 4);
    for (int g = 0; g < ngrids && !gc__stopped(L->s); g++) {
        char label[32];
        if (g > 0 && grids[g] <= grids[g - 1])
            continue;
        struct gc_launch lg = {{grids[g], 1, 1}, {LN_GRID_BLOCK, 1, 1}, 0, args, 2, 1};
        struct gc_launch_times t;
        if ((size_t)grids[g] * LN_GRID_BLOCK <= L->pwords &&
            (rc = verify_launch(L, -1, grids[g], LN_GRID_BLOCK)))
            return rc;
        if ((rc = round_trips(L, L->empty, &lg, sub, rt, enq, NULL)))
            return rc;
        for (int i = 0; i < sub; i++) {
            if ((rc = timed(L, L->empty, &lg, GC_LT_EVENTS, &t)))
                return rc;
            dev[i] = t.device_s;
        }
        snprintf(label, sizeof(label), "%s%.2g waves", g == 0 ? "1 block, " : "",
                 (double)grids[g] / wave);
        gc__series_add(sg, grids[g], median(rt, sub), NULL, label);
        gc__series_add(sd, grids[g], median(dev, sub), NULL, label);
        if (grids[g] == wave) {
            snprintf(note, sizeof(note), "empty kernel, one full wave (%u blocks of %d)", wave,
                     LN_GRID_BLOCK);
            gc__bench_add_metric(r, "round_trip_full_wave", median(rt, sub), "s", NAN, NULL, note);
        }
    }
    return 0;
}

static int run_roundtrip(struct ln *L)
{
    struct gc_bench_result *r = L->r;
    int reps = L->reps, rc;
    double *rt = calloc((size_t)reps, sizeof(double)), *enq = calloc((size_t)reps, sizeof(double));
    double *dev = calloc((size_t)reps, sizeof(double));
    struct gc_arg args[2 + LN_MAX_ARGS];
    char note[200];

    if (!rt || !enq || !dev) {
        rc = GC_ENOMEM;
        goto out;
    }
    args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = L->p};
    for (int i = 1; i < 2 + LN_MAX_ARGS; i++)
        args[i] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = i == 1 ? 0u : (uint32_t)(i * 7919)};
    struct gc_launch one = {{1, 1, 1}, {LN_BLOCK, 1, 1}, 0, args, 2, 1};
    if ((rc = verify_launch(L, -1, 1, LN_BLOCK)))
        goto out;
    if ((rc = round_trips(L, L->empty, &one, reps, rt, enq, NULL)))
        goto out;
    snprintf(note, sizeof(note),
             "empty kernel, 1 block of %d: launch call + wait for the queue (host clock)",
             LN_BLOCK);
    if ((rc = gc__add_percentile_metrics(r, "round_trip", rt, reps, "s", note)))
        goto out;
    if ((rc = gc__add_percentile_metrics(r, "enqueue", enq, reps, "s",
                                         "host time inside one launch call (empty kernel)")))
        goto out;

    /* A third of the samples, at least 10 (all of them when fewer). */
    int sub = reps / 3 > 10 ? reps / 3 : reps < 10 ? reps : 10;
    if ((rc = rt_vs_args(L, &one, reps, sub, rt, enq)) ||
        (rc = rt_vs_grid(L, args, sub, rt, enq, dev)))
        goto out;
    if (gc__stopped(L->s))
        rc = GC_EINTR;
out:
    free(rt);
    free(enq);
    free(dev);
    return rc;
}

static int run_rate(struct ln *L)
{
    struct gc_bench_result *r = L->r;
    const struct gc_sampling *sp = &L->s->sampling;
    /* Two more than the least samples; an explicit --repeat is the count. */
    int nsamp = sp->samples_set ? sp->max_samples : sp->min_samples + 2, rc;
    double *iv = calloc((size_t)nsamp, sizeof(double)), *er = calloc((size_t)nsamp, sizeof(double));
    struct gc_launch_times t, ts;
    uint64_t st = L->s->seed ^ 0x5350494eULL;
    uint32_t seed = (uint32_t)gc__xorshift64s(&st) | 1u, n = 1u << 14, got;
    double el = 0, spin_s, enqueue_s;
    char note[256];

    if (!iv || !er) {
        rc = GC_ENOMEM;
        goto out;
    }
    struct gc_arg sargs[3] = {{.type = GC_ARG_BUF, .v.buf = L->p},
                              {.type = GC_ARG_U32, .v.u32 = n},
                              {.type = GC_ARG_U32, .v.u32 = seed}};
    struct gc_launch sl = {{1, 1, 1}, {1, 1, 1}, 0, sargs, 3, 1};
    struct gc_arg eargs[2] = {{.type = GC_ARG_BUF, .v.buf = L->p},
                              {.type = GC_ARG_U32, .v.u32 = 0}};
    struct gc_launch el1 = {{1, 1, 1}, {LN_BLOCK, 1, 1}, 0, eargs, 2, LN_QUEUE};

    /* The spinner's speed, and the host's time to queue LN_QUEUE launches. */
    if ((rc = gc__dev_launch(L->d, L->spin, &sl, &el)) ||
        (rc = gc__dev_read(L->d, L->p, 0, &got, 4)))
        goto out;
    if (got != lcg(seed, n)) {
        gc__bench_set_error(r, GC_BENCH_ERROR, "verification failed: the spin kernel gave 0x%08x",
                            got);
        rc = GC_EVERIFY;
        goto out;
    }
    if ((rc = timed(L, L->empty, &el1, 0, &t)))
        goto out;
    enqueue_s = t.t_enqueued - t.t_begin;
    /* The spinner outlasts the queueing three times over (and 1 ms). */
    spin_s = 3 * enqueue_s + 1e-3;
    double steps = el > 0 ? n * spin_s / el : 1e6;
    sargs[1].v.u32 = steps > 4e9 ? 4000000000u : steps < 1 ? 1u : (uint32_t)steps;
    int ahead = 0;
    for (int i = 0; i < nsamp; i++) {
        if (gc__stopped(L->s)) {
            rc = GC_EINTR;
            goto out;
        }
        if ((rc = timed(L, L->spin, &sl, GC_LT_NOWAIT, &ts)) ||
            (rc = timed(L, L->empty, &el1, GC_LT_EVENTS, &t)))
            goto out;
        iv[i] = t.device_s / LN_QUEUE;
        er[i] = LN_QUEUE / (t.t_enqueued - t.t_begin);
        /* The queue was ahead of the device when the last launch call
         * returned before the spinner could have ended. */
        ahead += t.t_enqueued - ts.t_begin < spin_s;
    }
    if ((rc = gc__dev_read(L->d, L->p, 0, &got, 4)))
        goto out;
    if (got != lcg(seed, sargs[1].v.u32)) {
        gc__bench_set_error(r, GC_BENCH_ERROR, "verification failed: the spin kernel gave 0x%08x",
                            got);
        rc = GC_EVERIFY;
        goto out;
    }
    struct gc_stats s1, s2, s3;
    gc__stats_compute(iv, nsamp, &s1);
    gc__stats_inverse(iv, nsamp, 1.0, &s2);
    gc__stats_compute(er, nsamp, &s3);
    snprintf(note, sizeof(note),
             "device time per empty kernel, %d queued back to back behind a spinning kernel "
             "(queue ahead of the device in %d of %d samples)",
             LN_QUEUE, ahead, nsamp);
    gc__bench_add_metric(r, "launch_interval", s1.median, "s", NAN, &s1, note);
    gc__bench_add_metric(r, "launch_rate", s2.median, "launches/s", NAN, &s2,
                         "1 / launch_interval: empty kernels the device runs per second");
    gc__bench_add_metric(r, "enqueue_rate", s3.median, "launches/s", NAN, &s3,
                         "launch calls per second the host issues (no wait)");
    if (ahead < nsamp)
        snprintf(r->warning, sizeof(r->warning),
                 "note: in %d of %d samples the host had not queued every launch before the "
                 "spinning kernel ended; those intervals include host time",
                 nsamp - ahead, nsamp);
out:
    free(iv);
    free(er);
    return rc;
}

/* Launch to start on CUDA: the host's clock and %globaltimer aligned by a
 * handshake, offset = g - (h1 + h2) / 2 from the tightest of several. */
static int start_globaltimer(struct ln *L, int reps, double *lat, double *align_s, double *tick_s)
{
    struct gc_device *d = L->d;
    struct gc_kreq req = {.label = "launch_stamp", .src = gen_stamp(d->ops->dialect)};
    struct gc_hostmem *hm = NULL;
    struct gc_kern *stamp, *hs;
    struct gc_launch_times t;
    double best_rt = INFINITY, offset = NAN;
    int rc;

    *align_s = *tick_s = NAN;
    if (!req.src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(L->s, &req, 1)))
        goto out;
    if (d->ops->kernel(req.prog, "gc_stamp", &stamp) ||
        d->ops->kernel(req.prog, "gc_handshake", &hs)) {
        rc = ln_fail_kernel(L);
        goto out;
    }
    if ((rc = gc__dev_host_alloc(d, 4096, GC_HOST_MAPPED, &hm)))
        goto out;
    volatile uint32_t *flag = hm->ptr;
    const volatile uint64_t *hs_out = (const volatile uint64_t *)((char *)hm->ptr + 64);
    const volatile uint64_t *stamp_out = (const volatile uint64_t *)hm->ptr;
    struct gc_arg hargs[1] = {{.type = GC_ARG_BUF, .v.buf = hm->view}};
    struct gc_launch hl = {{1, 1, 1}, {1, 1, 1}, 0, hargs, 1, 1};
    /* Timer values stay integers relative to the first one: a double of
     * nanoseconds since 1970 would keep only 0.2 us. */
    uint64_t base = 0;
    for (int i = 0; i < 9; i++) {
        flag[0] = 0;
        flag[1] = 0;
        if ((rc = timed(L, hs, &hl, GC_LT_NOWAIT, &t)))
            goto out;
        /* Give the kernel time to start spinning. */
        double w = gc__mono_now();
        while (gc__mono_now() - w < 200e-6)
            ;
        double h1 = gc__mono_now(), h2;
        flag[0] = 1;
        while (flag[1] == 0 && gc__mono_now() - h1 < 1.0)
            ;
        h2 = gc__mono_now();
        if ((rc = sync_dev(L)))
            goto out;
        if (flag[1] != 1)
            continue;
        if (base == 0)
            base = hs_out[0];
        double g = (double)(int64_t)(hs_out[0] - base) * 1e-9;
        if (h2 - h1 < best_rt) {
            best_rt = h2 - h1;
            offset = g - 0.5 * (h1 + h2);
            *tick_s = (double)hs_out[1] * 1e-9;
        }
    }
    if (!isfinite(offset)) {
        snprintf(d->err, sizeof(d->err), "the clock handshake with the kernel never completed");
        rc = GC_EBACKEND;
        goto out;
    }
    *align_s = best_rt / 2;
    struct gc_arg sargs[1] = {{.type = GC_ARG_BUF, .v.buf = hm->view}};
    struct gc_launch sl = {{1, 1, 1}, {1, 1, 1}, 0, sargs, 1, 1};
    for (int i = 0; i < 10; i++)
        if ((rc = timed(L, stamp, &sl, 0, &t)))
            goto out;
    for (int i = 0; i < reps; i++) {
        if (gc__stopped(L->s)) {
            rc = GC_EINTR;
            goto out;
        }
        if ((rc = timed(L, stamp, &sl, 0, &t)))
            goto out;
        double g = (double)(int64_t)(stamp_out[0] - base) * 1e-9;
        lat[i] = g - offset - t.t_begin;
    }
out:
    if (hm)
        gc__dev_host_free(d, hm);
    gc__kreq_release(L->s, &req, 1);
    return rc;
}

static int run_start(struct ln *L)
{
    struct gc_device *d = L->d;
    struct gc_bench_result *r = L->r;
    int reps = L->reps, rc;
    double *rt = calloc((size_t)reps, sizeof(double)), *enq = calloc((size_t)reps, sizeof(double));
    double *prof = calloc(4 * (size_t)reps, sizeof(double));
    struct gc_arg args[2] = {{.type = GC_ARG_BUF, .v.buf = L->p}, {.type = GC_ARG_U32, .v.u32 = 0}};
    struct gc_launch one = {{1, 1, 1}, {LN_BLOCK, 1, 1}, 0, args, 2, 1};
    char note[256];

    if (!rt || !enq || !prof) {
        rc = GC_ENOMEM;
        goto out;
    }
    if ((rc = round_trips(L, L->empty, &one, reps, rt, enq, prof)))
        goto out;
    if (isfinite(prof[0])) {
        /* Event profiling (OpenCL): uCLbench's invocation overhead. */
        if ((rc = gc__add_percentile_metrics(
                 r, "invocation_overhead", prof + 3 * reps, reps, "s",
                 "QUEUED -> START of an empty kernel's event (uCLbench §2.4)")) ||
            (rc = gc__add_percentile_metrics(r, "queued_to_submit", prof, reps, "s",
                                             "QUEUED -> SUBMIT (event profiling)")) ||
            (rc = gc__add_percentile_metrics(r, "submit_to_start", prof + reps, reps, "s",
                                             "SUBMIT -> START (event profiling)")) ||
            (rc = gc__add_percentile_metrics(r, "start_to_end", prof + 2 * reps, reps, "s",
                                             "START -> END: the empty kernel's own run")))
            goto out;
        goto out;
    }
    if (!(d->info.caps & GC_CAP_GLOBALTIMER) || !d->ops->host_alloc) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available: the device has neither event profiling nor an "
                            "in-kernel global timer with mapped host memory");
        goto out;
    }
    double align_s, tick_s;
    rc = start_globaltimer(L, reps, rt, &align_s, &tick_s);
    if (rc == GC_ENOTSUP) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available: %s", d->err);
        rc = 0;
        goto out;
    }
    if (rc)
        goto out;
    snprintf(note, sizeof(note),
             "host clock before the launch call to the kernel's first %%globaltimer read; clocks "
             "aligned by a handshake through mapped memory to +-%.2g us, timer tick %.3g us",
             align_s * 1e6, tick_s * 1e6);
    rc = gc__add_percentile_metrics(r, "launch_to_start", rt, reps, "s", note);
    /* Each sample is a difference of two clocks aligned to +-align_s and
     * read at tick_s: a figure within that of zero is below resolution. */
    for (int i = rc == 0 ? r->nmetrics - 4 : r->nmetrics; i >= 0 && i < r->nmetrics; i++)
        gc__metric_resolve(&r->metrics[i], align_s + tick_s);
    if (rc == 0)
        gc__bench_add_metric(r, "clock_alignment_uncertainty", align_s, "s", NAN, NULL,
                             "half the shortest host-kernel-host handshake");
    if (rc == 0)
        gc__bench_add_metric(r, "globaltimer_tick", tick_s, "s", NAN, NULL,
                             "step of %globaltimer seen by the kernel");
out:
    free(rt);
    free(enq);
    free(prof);
    return rc;
}

static int run_graph(struct ln *L)
{
    struct gc_device *d = L->d;
    struct gc_bench_result *r = L->r;
    struct gc_graph *g1 = NULL, *gn = NULL;
    int reps = L->reps, rc;
    double *rt = calloc((size_t)reps, sizeof(double)), *enq = calloc((size_t)reps, sizeof(double));
    double *dv = calloc((size_t)reps, sizeof(double));
    struct gc_arg args[2] = {{.type = GC_ARG_BUF, .v.buf = L->p}, {.type = GC_ARG_U32, .v.u32 = 0}};
    struct gc_launch one = {{1, 1, 1}, {LN_BLOCK, 1, 1}, 0, args, 2, 1};
    struct gc_launch many = one;
    struct gc_launch_times t;
    char note[200];

    many.count = LN_GRAPH;
    if (!rt || !enq || !dv) {
        rc = GC_ENOMEM;
        goto out;
    }
    if (!d->ops->graph_create) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available: the %s backend has no kernel graphs", d->ops->name);
        rc = 0;
        goto out;
    }
    if ((rc = d->ops->graph_create(d->dev, L->empty, &one, &g1)) ||
        (rc = d->ops->graph_create(d->dev, L->empty, &many, &gn))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        goto out;
    }
    /* Round trips of a one-kernel graph, then of LN_GRAPH kernels as a graph
     * and as stream launches. */
    for (int pass = 0; pass < 3; pass++) {
        struct gc_graph *g = pass == 1 ? gn : g1;
        int n = pass == 0 ? reps : reps / 4 > 10 ? reps / 4 : reps < 10 ? reps : 10;
        for (int i = -5; i < n; i++) {
            if (gc__stopped(L->s)) {
                rc = GC_EINTR;
                goto out;
            }
            rc = pass < 2 ? d->ops->graph_launch(g, pass == 1 ? GC_LT_EVENTS : 0, &t)
                          : d->ops->launch_timed(d->dev, L->empty, &many, GC_LT_EVENTS, &t);
            if (rc) {
                snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
                goto out;
            }
            if (i < 0)
                continue;
            rt[i] = t.t_done - t.t_begin;
            enq[i] = t.t_enqueued - t.t_begin;
            dv[i] = t.device_s / LN_GRAPH;
        }
        if (pass == 0) {
            if ((rc = gc__add_percentile_metrics(r, "graph_round_trip", rt, n, "s",
                                                 "a graph of one empty kernel: graph launch + "
                                                 "wait (host clock)")) ||
                (rc = gc__add_percentile_metrics(r, "graph_enqueue", enq, n, "s",
                                                 "host time inside the graph launch call")))
                goto out;
        } else {
            snprintf(note, sizeof(note), "%d empty kernels %s: launch + wait", LN_GRAPH,
                     pass == 1 ? "as one graph" : "launched one by one on the stream");
            gc__bench_add_metric(r, pass == 1 ? "graph_round_trip_64" : "stream_round_trip_64",
                                 median(rt, n), "s", NAN, NULL, note);
            snprintf(note, sizeof(note), "device time per kernel, %d empty kernels %s", LN_GRAPH,
                     pass == 1 ? "in a graph" : "on the stream (events)");
            gc__bench_add_metric(
                r, pass == 1 ? "graph_interval_per_kernel" : "stream_interval_per_kernel",
                median(dv, n), "s", NAN, NULL, note);
        }
    }
    /* The graph ran every launch: one verification launch through it is
     * not possible (its arguments are fixed), so the stream path that
     * shares the kernel is verified. */
    rc = verify_launch(L, -1, 1, LN_BLOCK);
out:
    if (d->ops->graph_destroy) {
        d->ops->graph_destroy(g1);
        d->ops->graph_destroy(gn);
    }
    free(rt);
    free(enq);
    free(dv);
    return rc;
}

static int run_launch(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    const enum ln_kind *kind = self->param;
    struct ln L;
    int rc = ln_setup(&L, s, r);

    if (rc == 1) {
        rc = 0;
        goto out;
    }
    if (rc)
        goto out;
    switch (*kind) {
    case LN_ROUNDTRIP:
        rc = run_roundtrip(&L);
        break;
    case LN_RATE:
        rc = run_rate(&L);
        break;
    case LN_START:
        rc = run_start(&L);
        break;
    case LN_GRAPH_K:
        rc = run_graph(&L);
        break;
    }
out:
    ln_teardown(&L);
    return rc;
}

static const enum ln_kind kinds[] = {LN_ROUNDTRIP, LN_RATE, LN_START, LN_GRAPH_K};

#define LN_COMMON                                                                                  \
    " Empty kernel: writes nothing unless its tag argument is non-zero; one launch per "           \
    "configuration runs with a random tag and every thread's word is checked. Host times on "      \
    "CLOCK_MONOTONIC; samples: 300 (40 --quick, 2000 --full) after 10 warm-up launches; median "   \
    "and p5/p95/p99 reported."

static const struct gc_sum_cell roundtrip_cells[] = {
    GC_SUM_US_PCT(gc__sum_overheads, "launch call (host)", "enqueue"),
    GC_SUM_US_PCT(gc__sum_overheads, "launch + wait (round trip)", "round_trip"),
    {0},
};
static const struct gc_sum_cell rate_cells[] = {
    GC_SUM_US(gc__sum_overheads, "back-to-back launch interval", 0, "launch_interval"),
    {0},
};
static const struct gc_sum_cell start_cells[] = {
    GC_SUM_US_PCT(gc__sum_overheads, "invocation QUEUED->START", "invocation_overhead"),
    GC_SUM_US_PCT(gc__sum_overheads, "launch to kernel start", "launch_to_start"),
    {0},
};
static const struct gc_sum_cell graph_cells[] = {
    GC_SUM_US_PCT(gc__sum_overheads, "graph launch + wait", "graph_round_trip"),
    {0},
};
static const struct gc_bench_report ln_reports[] = {{.cells = roundtrip_cells},
                                                    {.cells = rate_cells},
                                                    {.cells = start_cells},
                                                    {.cells = graph_cells}};

static const struct gc_bench launch_benches[] = {
    {.info = {.name = "overhead.launch.roundtrip",
              .group = "overhead",
              .summary = "launch call cost and launch + wait round trip of an empty kernel "
                         "(percentiles); growth with arguments and grid size",
              .method = "Round trip = host time from before the launch call to the return of "
                        "the wait (cuStreamSynchronize / clFinish) for an empty kernel of one "
                        "32-thread block; enqueue = time inside the launch call. Then the same "
                        "with 8, 32 and 128 4-byte arguments, and with grids of 1 block, one "
                        "per CU, a full wave of 256-thread blocks and 4/16/64 waves (device "
                        "time from events beside)." LN_COMMON},
     .run = run_launch,
     .param = &kinds[0],
     .report = &ln_reports[0],
     .resources = GC_RES_HOST_CPU},
    {.info = {.name = "overhead.launch.rate",
              .group = "overhead",
              .summary = "back-to-back launch rate of empty kernels on one queue (device side)",
              .method = "200 empty kernels queued on one stream/queue behind a kernel that spins "
                        "(an LCG, verified) three times as long as the host needs to queue them, "
                        "so the host's enqueue speed does not limit the device; interval = device "
                        "time (events) from the spinner's end to the last kernel's end / 200. "
                        "Also the host's launch-call rate." LN_COMMON},
     .run = run_launch,
     .param = &kinds[1],
     .report = &ln_reports[1],
     .resources = GC_RES_HOST_CPU},
    {.info = {.name = "overhead.launch.start",
              .group = "overhead",
              .summary = "launch to kernel start: OpenCL QUEUED/SUBMIT/START/END, CUDA host "
                         "clock vs %globaltimer",
              .method = "OpenCL: event profiling of each launch of an empty kernel: QUEUED -> "
                        "SUBMIT -> START -> END; invocation overhead = QUEUED -> START "
                        "(uCLbench §2.4). CUDA: the kernel reads %globaltimer first thing and "
                        "writes it to mapped host memory; latency = that time - the host's "
                        "CLOCK_MONOTONIC just before the launch call. The two clocks are aligned "
                        "by a handshake: a kernel spins on a flag in mapped memory, the host sets "
                        "it at h1 and sees the kernel's answer at h2, the kernel stamped g in "
                        "between: offset = g - (h1 + h2) / 2, error <= (h2 - h1) / 2, the "
                        "tightest of 9 handshakes kept." LN_COMMON},
     .run = run_launch,
     .param = &kinds[2],
     .report = &ln_reports[2],
     .resources = GC_RES_HOST_CPU},
    {.info = {.name = "overhead.launch.graph",
              .group = "overhead",
              .summary = "launches through a CUDA graph: round trip of one kernel, 64 kernels "
                         "as a graph vs on the stream",
              .method = "Graphs captured from the stream (cuStreamBeginCapture / EndCapture, "
                        "instantiated once, outside the timing): a graph of one empty kernel "
                        "launched and waited for (round trip, percentiles), and a graph of 64 "
                        "empty kernels vs the same 64 launched one by one: round trip and device "
                        "time per kernel (events). OpenCL has no graphs: not available." LN_COMMON},
     .run = run_launch,
     .param = &kinds[3],
     .report = &ln_reports[3],
     .resources = GC_RES_HOST_CPU},
};

#define NLAUNCH ((int)(sizeof(launch_benches) / sizeof(launch_benches[0])))

static int count(void)
{
    return NLAUNCH;
}

static const struct gc_bench *at(int i)
{
    return i >= 0 && i < NLAUNCH ? &launch_benches[i] : NULL;
}

const struct gc_bench_family gc__family_launch = {count, at};
