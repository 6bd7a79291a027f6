/* A run: resolve and open the device, run each selected benchmark of the
 * list the caller gives through the shared session, record everything
 * (failures included) in the results tree, stop cleanly when asked. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/context.h"
#include "core/devfill.h"
#include "core/memo.h"
#include "core/energy.h"
#include "core/fault.h"
#include "core/guard.h"
#include "core/kcache.h"
#include "core/kplan.h"
#include "core/present.h"
#include "core/progress.h"
#include "core/resource.h"
#include "core/results.h"
#include "core/cpucache.h"
#include "core/numa.h"
#include "core/run.h"
#include "core/sensors.h"

void gc_run_options_init(struct gc_run_options *o)
{
    memset(o, 0, sizeof(*o));
    o->profile = GC_PROFILE_DEFAULT;
}

static const char *profile_name(enum gc_profile p)
{
    return p == GC_PROFILE_QUICK ? "quick" : p == GC_PROFILE_FULL ? "full" : "default";
}

static bool selected(const struct gc_run_options *o, const struct gc_bench *b)
{
    if (!o->patterns || !o->patterns[0])
        return !b->opt_in || o->profile == GC_PROFILE_FULL;
    for (int i = 0; o->patterns[i]; i++)
        if (gc_bench_selects(o->patterns[i], &b->info))
            return true;
    return false;
}

static void missing_caps(unsigned need, unsigned have, char *buf, size_t len)
{
    static const struct {
        unsigned cap;
        const char *name;
    } names[] = {
        {GC_CAP_CLOCK64, "in-kernel cycle counter"},
        {GC_CAP_GLOBALTIMER, "in-kernel global timer"},
        {GC_CAP_SMID, "SM id register"},
        {GC_CAP_INLINE_ASM, "inline assembly"},
        {GC_CAP_OCCUPANCY_API, "occupancy calculator"},
        {GC_CAP_SENSOR_CLOCK, "clock sensor"},
        {GC_CAP_SENSOR_POWER, "power sensor"},
        {GC_CAP_SENSOR_THROTTLE, "throttle reasons"},
        {GC_CAP_FP64, "fp64"},
        {GC_CAP_FP16, "fp16"},
        {GC_CAP_DYN_SHARED, "dynamic shared memory"},
        {GC_CAP_ENERGY, "energy counter"},
        {GC_CAP_CACHE_HINTS, "load cache hints"},
    };
    size_t off = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!(need & names[i].cap) || (have & names[i].cap))
            continue;
        int w = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", names[i].name);
        if (w < 0 || (size_t)w >= len - off)
            break;
        off += (size_t)w;
    }
}

static void fill_meta(struct gc_results *r, const struct gc_run_options *o)
{
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(r->meta.date, sizeof(r->meta.date), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (gethostname(r->meta.host, sizeof(r->meta.host)) != 0)
        snprintf(r->meta.host, sizeof(r->meta.host), "unknown");
    r->meta.host[sizeof(r->meta.host) - 1] = '\0';
    snprintf(r->meta.command_line, sizeof(r->meta.command_line), "%s",
             o->command_line ? o->command_line : "");
    snprintf(r->meta.profile, sizeof(r->meta.profile), "%s", profile_name(o->profile));
}

/* The names of the failed benchmarks, comma-separated, cut with "..." when
 * they do not fit. */
static void failed_names(const struct gc_results *r, char *buf, size_t len)
{
    size_t off = 0;

    buf[0] = '\0';
    for (int i = 0; i < r->nbenches; i++) {
        if (r->benches[i].status != GC_BENCH_ERROR)
            continue;
        int w = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", r->benches[i].name);
        if (w < 0 || (size_t)w >= len - off) {
            snprintf(buf + (off < len - 4 ? off : len - 4), 4, "...");
            return;
        }
        off += (size_t)w;
    }
}

/* Counts the selected benchmarks and plans the progress line with them. */
static int plan_run(const struct gc_run_options *o, const struct gc_bench *const *benches,
                    int nbenches, struct gc_progress_state *pg)
{
    int total = 0;

    for (int i = 0; i < nbenches; i++) {
        if (!selected(o, benches[i]))
            continue;
        total++;
        gc__run_progress_plan(pg, benches[i]->info.group, benches[i]->expect_s);
    }
    return total;
}

/* A CPU device's cache sizes and where each came from: the OpenCL driver's
 * figure, then the host's (core/cpucache.h). */
static void add_cpu_caches(struct gc_results *r, const struct gc_device_info *info)
{
    char facts[160];
    size_t used = strlen(r->meta.device_extra);

    gc__cpu_caches_describe(gc__cpu_caches(), facts, sizeof(facts));
    if (used < sizeof(r->meta.device_extra))
        snprintf(r->meta.device_extra + used, sizeof(r->meta.device_extra) - used,
                 "%scaches: the device reports %.0f KiB; host %s", used ? "; " : "",
                 (double)info->l2_size / 1024, facts);
}

/* The NUMA node of a device on the PCI bus, as the kernel reports it, so
 * that a node's report can tell which devices share a host memory. */
static void add_numa_node(struct gc_results *r, const struct gc_device_info *info)
{
    size_t used = strlen(r->meta.device_extra);
    int numa = gc__pci_numa_node(info->pci_bus_id);

    if (info->pci_bus_id[0] && used < sizeof(r->meta.device_extra))
        snprintf(r->meta.device_extra + used, sizeof(r->meta.device_extra) - used, "%snuma_node=%d",
                 used ? "; " : "", numa);
}

/* Resolves the device the options name, opens it through its backend and
 * records its description in the results. */
static int open_device(gc_context *ctx, const struct gc_run_options *o, struct gc_results *r,
                       struct gc_device_summary *sum, struct gc_device **dev)
{
    const struct gc_backend_ops *ops = NULL;
    char err[GC_ERRLEN] = "";
    int rc = gc_device_resolve(ctx, o->device, sum);

    if (rc)
        return rc;
    r->meta.device = *sum;
    for (int b = 0; b < ctx->nbackends; b++)
        if (strcmp(ctx->ops[b]->name, sum->backend) == 0)
            ops = ctx->ops[b];
    rc = gc__device_open(ops, sum->index, dev, err, sizeof(err));
    if (rc) {
        gc__set_error(ctx, rc, "opening %s: %s", sum->spec, err);
        return rc;
    }
    if (ops->describe)
        ops->describe((*dev)->dev, r->meta.device_extra, sizeof(r->meta.device_extra));
    if ((*dev)->info.type == GC_DEVICE_CPU)
        add_cpu_caches(r, &(*dev)->info);
    add_numa_node(r, &(*dev)->info);
    return 0;
}

/* The session every benchmark shares, and the measurement settings it
 * records in the results' metadata. */
static void session_init(struct gc_session *s, gc_context *ctx, struct gc_device *dev,
                         const struct gc_run_options *o, struct gc_progress_state *pg,
                         struct gc_results *r)
{
    s->ctx = ctx;
    s->dev = dev;
    s->profile = o->profile;
    s->dump_dir = o->dump_kernels_dir;
    s->stop = &ctx->stop;
    s->progress = pg;
    gc__run_progress_device(pg, dev->info.type == GC_DEVICE_GPU);
    s->seed = 0x6770756368617231ULL;
    s->patterns = o->patterns;
    s->results = r;
    gc__sampling_defaults(&s->run_sampling, o->profile, dev->info.type == GC_DEVICE_GPU, o->repeat,
                          o->min_time_ms);
    s->sampling = s->run_sampling;
    r->meta.repeat = s->run_sampling.max_samples;
    r->meta.min_time_ms = s->run_sampling.target_sample_s * 1e3;
    snprintf(r->meta.data_init, sizeof(r->meta.data_init),
             "xorshift64* random words, base seed 0x%016llx", (unsigned long long)s->seed);
}

/* Whether b will run on the device: selected, its capabilities there. */
static bool runs(const struct gc_run_options *o, const struct gc_bench *b,
                 const struct gc_device *d)
{
    return selected(o, b) && (b->needs_caps & d->info.caps) == b->needs_caps;
}

/* The run's compile plan over the benchmarks that will run. A plan that
 * cannot be made (no memory) leaves every benchmark to compile on demand. */
static void compile_plan(struct gc_session *s, const struct gc_run_options *o,
                         const struct gc_bench *const *benches, int nbenches, struct gc_results *r)
{
    const struct gc_bench **list = calloc((size_t)(nbenches > 0 ? nbenches : 1), sizeof(*list));
    int n = 0;

    if (!list)
        return;
    for (int i = 0; i < nbenches; i++)
        if (runs(o, benches[i], s->dev))
            list[n++] = benches[i];
    (void)gc__kplan_make(s, list, n, &r->plan);
    free(list);
    s->dev->err[0] = '\0';
}

/* A GPU's timer against the host's clock (a VM's GPU timer was seen 0.7%
 * slow: every figure per second was that much high). */
static void calibrate_timer(struct gc_session *s, struct gc_results *r)
{
    double raw;
    size_t used = strlen(r->meta.device_extra);

    if (gc__timer_calibrate(s, &raw) == 0 && isfinite(raw))
        snprintf(r->meta.device_extra + used, sizeof(r->meta.device_extra) - used,
                 "%sdevice timer: %.5f s of host clock per s (%s)", used ? "; " : "", raw,
                 s->dev->timer_scale > 0 ? "device times and clocks corrected"
                                         : "within 0.2%, no correction");
    s->dev->err[0] = '\0';
}

/* Runs one available benchmark under its own sampling policy and turns its
 * return code into the row's status. */
/* The host resources b holds on dev. */
static unsigned held_resources(const struct gc_bench *b, const struct gc_device *dev)
{
    /* Every benchmark of a CPU device times the host's own cores. */
    return b->resources | (dev->info.type == GC_DEVICE_CPU ? GC_RES_HOST_CPU : 0);
}

/* locked: the caller already holds b's resources (gc__resources_try). */
static void run_one(struct gc_session *s, const struct gc_bench *b, struct gc_bench_result *br,
                    bool locked)
{
    struct gc_device *dev = s->dev;
    double t0 = gc__now();
    unsigned held;
    int brc;

    s->compile_s = s->plan_compile_s = 0;
    s->kernels_compiled = s->kernels_cached = s->kernels_planned = 0;
    dev->err[0] = '\0';
    s->sampling = gc__sampling_for_bench(s->run_sampling, b->min_sample_s, b->max_sampling_s,
                                         s->profile == GC_PROFILE_QUICK);
    gc__sampling_record(&s->sampling, &br->sampling);
    held = held_resources(b, dev);
    /* A wait is recorded only where another device held the resource. */
    if (!locked && !gc__resources_try(held))
        br->wait_s = gc__resources_acquire(held);
    long launches0 = dev->launch_calls;
    double launch_s0 = dev->launch_s;
    brc = b->run(s, b, br);
    gc__dev_hostbuf_release(dev);
    gc__resources_release(held);
    br->launches = dev->launch_calls - launches0;
    br->kernel_s = dev->launch_s - launch_s0;
    /* The row may have moved if the benchmark added rows; it did not, by
     * contract, so br stays valid. */
    br->wall_s = gc__now() - t0;
    br->compile_s = s->compile_s;
    br->kernels_compiled = s->kernels_compiled;
    br->kernels_cached = s->kernels_cached;
    br->kernels_planned = s->kernels_planned;
    br->plan_compile_s = s->plan_compile_s;
    if (brc == GC_EINTR || (brc == 0 && gc__stopped(s))) {
        br->status = GC_BENCH_INTERRUPTED;
        if (!br->error[0])
            snprintf(br->error, sizeof(br->error), "interrupted; partial data");
    } else if (brc) {
        if (br->status == GC_BENCH_OK)
            gc__bench_set_error(br, GC_BENCH_ERROR, "%s: %s", gc_strerror(brc),
                                dev->err[0] ? dev->err : "no details");
    }
    gc__faults_scale(dev->fault_scale_metric, dev->fault_scale, br);
    /* Whatever the benchmark recorded, partial data included: no figure
     * above its physical limit, and no negative time, latency or bandwidth,
     * leaves the run as a number. */
    gc__limit_guard(br);
    gc__negative_guard(br);
}

/* One benchmark's fault must not poison the others: a device that no longer
 * answers after a failed benchmark is opened again before the next one. */
static int recover_device(gc_context *ctx, struct gc_session *s, struct gc_device **dev,
                          struct gc_bench_result *br, const struct gc_device_summary *sum)
{
    char err[GC_ERRLEN] = "";
    size_t used = strlen(br->error);
    int rc;

    if (br->status != GC_BENCH_ERROR || gc__device_healthy(*dev))
        return 0;
    gc__devfill_free(s);
    gc__kcache_plan_drop(s);
    rc = gc__device_reopen(dev, err, sizeof(err));
    s->dev = *dev;
    snprintf(br->error + used, sizeof(br->error) - used, "%s",
             rc ? "; the device stopped answering and could not be opened again"
                : "; the device stopped answering after it and was opened again");
    if (rc)
        gc__set_error(ctx, rc, "device %s lost and not reopened: %s", sum->spec, err);
    return rc;
}

static const char *status_word(const struct gc_bench_result *br)
{
    return br->status == GC_BENCH_OK              ? "ok"
           : br->status == GC_BENCH_NOT_AVAILABLE ? "n/a"
           : br->status == GC_BENCH_INTERRUPTED   ? "interrupted"
                                                  : "FAILED";
}

/* Tells the caller's callback and the progress line that a benchmark ended. */
static void report_done(const struct gc_run_options *o, struct gc_progress_state *pg,
                        const struct gc_bench_result *br, int done, int total)
{
    char line[160];

    if (o->progress) {
        snprintf(line, sizeof(line), "%s %.1f s", status_word(br), br->wall_s);
        o->progress(o->progress_user, done, total, br->name, line);
    }
    snprintf(line, sizeof(line), "%s", status_word(br));
    gc__run_progress_done(pg, br->wall_s, line);
}

/* Plausibility floors, once every benchmark had its turn: a floor may refer
 * to a benchmark that ran after the one it checks. */
static void check_floors(struct gc_results *r, const struct gc_bench *const *benches, int nbenches)
{
    for (int i = 0; i < nbenches; i++) {
        const struct gc_bench *b = benches[i];
        const struct gc_bench_result *cb = b->floors ? gc__results_find(r, b->info.name) : NULL;

        if (cb && cb->status == GC_BENCH_OK)
            gc__plausibility(r, (struct gc_bench_result *)cb, b->floors);
    }
}

/* The run's own outcome: stopped by the user, or some benchmarks failed. */
static int run_outcome(gc_context *ctx, struct gc_session *s, const struct gc_results *r,
                       int skipped, int failed)
{
    if (gc__stopped(s)) {
        if (skipped)
            return gc__set_error(ctx, GC_EINTR, "stopped by the user; %d benchmark%s skipped",
                                 skipped, skipped == 1 ? "" : "s");
        return gc__set_error(ctx, GC_EINTR, "stopped by the user");
    }
    if (failed) {
        char names[200];

        failed_names(r, names, sizeof(names));
        return gc__set_error(ctx, GC_EBACKEND, "%d benchmark%s failed: %s", failed,
                             failed == 1 ? "" : "s", names);
    }
    return 0;
}

/* A run is complete only when every selected benchmark ran to its end
 * without failing: a failed benchmark leaves a hole in the report just as an
 * interruption does. */
static void mark_incomplete(struct gc_results *r, const gc_context *ctx, int rc, int failed)
{
    if (rc == GC_EBACKEND && failed) {
        r->complete = false;
        snprintf(r->incomplete_reason, sizeof(r->incomplete_reason), "%.250s", ctx->last_error);
    } else if (rc) {
        r->complete = false;
        snprintf(r->incomplete_reason, sizeof(r->incomplete_reason), "%s: %.200s", gc_strerror(rc),
                 ctx->last_error);
        if (failed) {
            size_t used = strlen(r->incomplete_reason);

            snprintf(r->incomplete_reason + used, sizeof(r->incomplete_reason) - used,
                     "; %d failed", failed);
        }
    }
}

/* The run loop's state: where each row stands, and the rows put back. */
struct run_state {
    gc_context *ctx;
    const struct gc_run_options *o;
    struct gc_session *s;
    struct gc_device **dev;
    const struct gc_device_summary *sum;
    struct gc_results *r;
    struct gc_progress_state *pg;
    int done, failed, skipped, total;
    int bench, row; /* the benchmark being added and its row */
    struct {
        int bench, row; /* bench -1: run since */
    } * deferred;
    int ndeferred;
};

/* One benchmark's turn on row `row` (the index: rows move when the table
 * grows). locked: its resources are held already. Returns 0 or the code of
 * a device lost for good. */
static int bench_turn(struct run_state *rs, const struct gc_bench *b, int row, bool locked)
{
    struct gc_bench_result *br = &rs->r->benches[row];
    int rc;

    gc__run_progress_start(rs->pg, br->name, br->group, b->expect_s);
    /* Only the benchmark running when the stop came is "interrupted";
     * those that never started are "skipped". */
    if (gc__stopped(rs->s)) {
        if (locked)
            gc__resources_release(held_resources(b, *rs->dev));
        br->status = GC_BENCH_SKIPPED;
        snprintf(br->error, sizeof(br->error), "not run: the run was stopped before it");
        rs->skipped++;
        return 0;
    }
    if ((b->needs_caps & (*rs->dev)->info.caps) != b->needs_caps) {
        char miss[256];

        if (locked)
            gc__resources_release(held_resources(b, *rs->dev));
        missing_caps(b->needs_caps, (*rs->dev)->info.caps, miss, sizeof(miss));
        gc__bench_set_error(br, GC_BENCH_NOT_AVAILABLE, "not available on this device: it lacks %s",
                            miss);
    } else {
        run_one(rs->s, b, br, locked);
    }
    if (br->status == GC_BENCH_ERROR)
        rs->failed++;
    rc = recover_device(rs->ctx, rs->s, rs->dev, br, rs->sum);
    if (rc)
        return rc;
    rs->done++;
    report_done(rs->o, rs->pg, br, rs->done, rs->total);
    return 0;
}

/* A benchmark that declares a host resource another device holds now is put
 * back behind the later benchmarks (node runs: the device measures its own
 * compute and memory meanwhile, and takes its turn on the resource when it
 * is free or at the end). A CPU device's benchmarks all hold the host CPU:
 * they keep their order. Returns DEFER_NONE (run it, taking its locks),
 * DEFER_LOCKED (run it now: its locks are taken) or DEFER_BACK (put back). */
enum { DEFER_NONE, DEFER_LOCKED, DEFER_BACK };

static int defer(struct run_state *rs, const struct gc_bench *b)
{
    if (b->resources == 0 || (*rs->dev)->info.type == GC_DEVICE_CPU || gc__stopped(rs->s))
        return DEFER_NONE;
    if (gc__resources_try(held_resources(b, *rs->dev)))
        return DEFER_LOCKED;
    rs->deferred[rs->ndeferred].bench = rs->bench;
    rs->deferred[rs->ndeferred++].row = rs->row;
    rs->r->benches[rs->row].deferred = true;
    return DEFER_BACK;
}

/* The turn of put-back benchmark k (locked: its resources are held). */
static int deferred_turn(struct run_state *rs, const struct gc_bench *const *benches, int k,
                         bool locked)
{
    int b = rs->deferred[k].bench;

    rs->deferred[k].bench = -1;
    return bench_turn(rs, benches[b], rs->deferred[k].row, locked);
}

int gc__run_benches(gc_context *ctx, const struct gc_run_options *o,
                    const struct gc_bench *const *benches, int nbenches, struct gc_results **out)
{
    struct gc_results *r = gc__results_new();
    struct gc_device_summary sum;
    struct gc_device *dev = NULL;
    struct gc_session s;
    struct gc_progress_state pg;
    struct run_state rs = {0};
    int rc = 0, total = 0;
    double t_run = gc__now();

    *out = r;
    if (!r)
        return GC_ENOMEM;
    memset(&s, 0, sizeof(s));
    ctx->last_error[0] = '\0';
    fill_meta(r, o);

    gc__run_progress_init(&pg, o, t_run);
    total = plan_run(o, benches, nbenches, &pg);
    if (total == 0) {
        rc = gc__set_error(ctx, GC_ENOBENCH, "no benchmark matches the given pattern(s)");
        goto out;
    }
    rc = open_device(ctx, o, r, &sum, &dev);
    if (rc)
        goto out;
    session_init(&s, ctx, dev, o, &pg, r);
    rc = gc__kcache_open(o->cache_dir, o->no_cache, &s.kcache);
    if (rc)
        goto out;
    if (!o->no_plan)
        compile_plan(&s, o, benches, nbenches, r);
    calibrate_timer(&s, r);
    rs = (struct run_state){
        .ctx = ctx, .o = o, .s = &s, .dev = &dev, .sum = &sum, .r = r, .pg = &pg, .total = total};
    rs.deferred = calloc((size_t)(nbenches > 0 ? nbenches : 1), sizeof(*rs.deferred));
    if (!rs.deferred) {
        rc = gc__set_error(ctx, GC_ENOMEM, "out of host memory");
        goto out;
    }

    for (int i = 0; i < nbenches && rc == 0; i++) {
        if (!selected(o, benches[i]))
            continue;
        if (!gc__results_add_bench(r, benches[i]->info.name, benches[i]->info.group) ||
            gc__report_pack(benches[i]->report, &r->benches[r->nbenches - 1].report) != 0) {
            rc = gc__set_error(ctx, GC_ENOMEM, "out of host memory");
            goto out;
        }
        rs.row = r->nbenches - 1;
        rs.bench = i;
        int d = defer(&rs, benches[i]);

        if (d != DEFER_BACK)
            rc = bench_turn(&rs, benches[i], r->nbenches - 1, d == DEFER_LOCKED);
        for (int k = 0; k < rs.ndeferred && rc == 0; k++)
            if (rs.deferred[k].bench >= 0 &&
                gc__resources_try(held_resources(benches[rs.deferred[k].bench], rs.s->dev)))
                rc = deferred_turn(&rs, benches, k, true);
    }
    for (int k = 0; k < rs.ndeferred && rc == 0; k++)
        if (rs.deferred[k].bench >= 0)
            rc = deferred_turn(&rs, benches, k, false);
    if (rc)
        goto out;
    check_floors(r, benches, nbenches);
    gc__kplan_finish(&s, r, &r->plan);
    rc = run_outcome(ctx, &s, r, rs.skipped, rs.failed);
out:
    free(rs.deferred);
    mark_incomplete(r, ctx, rc, rs.failed);
    r->wall_s = gc__now() - t_run;
    gc__energy_state_free(s.energy);
    gc__devfill_free(&s);
    gc__memo_free(&s);
    if (s.kcache && s.dev)
        gc__kcache_plan_drop(&s);
    gc__kcache_close(s.kcache);
    gc__device_close(dev);
    return rc;
}
