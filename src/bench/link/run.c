/* gc_run_links(): opens the devices of a list, asks the driver about every
 * ordered pair, enables peer access where it is offered and runs the
 * selected link.* benchmarks over them into one results tree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/link/link.h"
#include "model/link.h"
#include "core/context.h"
#include "core/kcache.h"
#include "core/devfill.h"
#include "core/fault.h"
#include "core/sampling.h"
#include "core/sensors.h"
#include "gpuchar/link.h"
#include "model/peerlink.h"

bool gc__link_reachable(const struct gc_link_session *ls, int from, int to, char *why, size_t len)
{
    const struct gc_peer_info *p = &ls->peer[from * ls->n + to];

    if (ls->enabled[from * ls->n + to])
        return true;
    snprintf(why, len, "not reachable: %s", p->why[0] ? p->why : "peer access not supported");
    return false;
}

bool gc__link_kernels_cross(const struct gc_link_session *ls, char *why, size_t len)
{
    bool any = false;

    why[0] = '\0';
    for (int k = 0; k < ls->n * ls->n; k++) {
        if (!ls->enabled[k])
            continue;
        if (!ls->peer[k].copies_only)
            return true;
        any = true;
        snprintf(why, len, "not available: %s", ls->peer[k].kernel_why);
    }
    /* No pair reaches the other: the rows say so per pair. */
    return !any;
}

void gc__link_add_devices(const struct gc_link_session *ls, struct gc_bench_result *r)
{
    char note[256] = "";
    size_t used = 0;

    for (int i = 0; i < ls->n && used < sizeof(note); i++) {
        const char *bus = ls->devs[i]->info.pci_bus_id;
        int w = snprintf(note + used, sizeof(note) - used, "%s%d=%s%s%s", i ? "; " : "", i,
                         ls->devs[i]->spec, bus[0] ? " " : "", bus);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    gc__bench_add_metric(r, "devices", ls->n, "", NAN, NULL, note);
}

static bool selected(const struct gc_run_options *o, const struct gc_bench *b)
{
    if (!o->patterns || !o->patterns[0])
        return true;
    for (int i = 0; o->patterns[i]; i++)
        if (gc_bench_selects(o->patterns[i], &b->info))
            return true;
    return false;
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
    snprintf(r->meta.tool_version, sizeof(r->meta.tool_version), "%s", gc_version());
    snprintf(r->meta.git_revision, sizeof(r->meta.git_revision), "%s", gc_git_revision());
    snprintf(r->meta.command_line, sizeof(r->meta.command_line), "%s",
             o->command_line ? o->command_line : "");
    snprintf(r->meta.profile, sizeof(r->meta.profile), "%s",
             o->profile == GC_PROFILE_QUICK  ? "quick"
             : o->profile == GC_PROFILE_FULL ? "full"
                                             : "default");
}

/* Resolves and checks the list: one backend, no device twice. */
static int resolve_all(gc_context *ctx, const char *const *specs, int n,
                       struct gc_device_summary *sum)
{
    for (int i = 0; i < n; i++) {
        int rc = gc_device_resolve(ctx, specs[i], &sum[i]);

        if (rc)
            return gc__set_error(ctx, rc, "device '%s': no such device", specs[i]);
        if (strcmp(sum[i].backend, sum[0].backend) != 0)
            return gc__set_error(ctx, GC_EINVAL,
                                 "devices of different backends in one list (%s is %s, %s is %s): "
                                 "peer links join devices of one backend",
                                 sum[0].spec, sum[0].backend, sum[i].spec, sum[i].backend);
        for (int j = 0; j < i; j++)
            if (sum[j].index == sum[i].index)
                return gc__set_error(ctx, GC_EINVAL, "device %s is listed twice ('%s', '%s')",
                                     sum[i].spec, specs[j], specs[i]);
    }
    return 0;
}

static void describe_devices(struct gc_results *r, const struct gc_device_summary *sum, int n)
{
    size_t used = 0;

    r->meta.device = sum[0];
    for (int i = 0; i < n && used < sizeof(r->meta.device_extra); i++) {
        int w = snprintf(r->meta.device_extra + used, sizeof(r->meta.device_extra) - used,
                         "%slink device %d: %s %s", i ? "; " : "", i, sum[i].spec, sum[i].name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* The pairs: the driver's answer, peer access enabled where offered, and
 * each pair's limit. */
static void query_pairs(struct gc_link_session *ls)
{
    int n = ls->n;

    for (int i = 0; i < n; i++)
        gc__device_link(ls->devs[i], &(struct gc_link_info){0}, &ls->host_limit[i],
                        ls->host_note[i], sizeof(ls->host_note[i]));
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            struct gc_device *da = ls->devs[a], *db = ls->devs[b];
            struct gc_peer_info *p = &ls->peer[a * n + b];
            int k = a * n + b;

            memset(p, 0, sizeof(*p));
            p->link_rate = p->limit = NAN;
            ls->limit[k] = NAN;
            if (a == b)
                continue;
            if (!da->ops->peer_info) {
                snprintf(p->why, sizeof(p->why), "the %s backend has no peer copies",
                         da->ops->name);
                continue;
            }
            if (da->ops->peer_info(da->dev, db->dev, p)) {
                snprintf(p->why, sizeof(p->why), "%.250s", da->ops->last_error(da->dev));
                p->access = false;
                continue;
            }
            ls->limit[k] = gc__peer_limit(p, ls->host_limit[a], ls->host_limit[b],
                                          ls->limit_note[k], sizeof(ls->limit_note[k]));
            if (!p->access)
                continue;
            if (da->ops->peer_enable(da->dev, db->dev) == 0)
                ls->enabled[k] = true;
            else
                snprintf(p->why, sizeof(p->why), "peer access refused by the driver: %.200s",
                         da->ops->last_error(da->dev));
        }
}

static int session_alloc(struct gc_link_session *ls, int n)
{
    size_t nn = (size_t)n * (size_t)n;

    ls->n = n;
    ls->devs = calloc((size_t)n, sizeof(*ls->devs));
    ls->sess = calloc((size_t)n, sizeof(*ls->sess));
    ls->peer = calloc(nn, sizeof(*ls->peer));
    ls->enabled = calloc(nn, sizeof(*ls->enabled));
    ls->limit = calloc(nn, sizeof(*ls->limit));
    ls->limit_note = calloc(nn, sizeof(*ls->limit_note));
    ls->host_limit = calloc((size_t)n, sizeof(*ls->host_limit));
    ls->host_note = calloc((size_t)n, sizeof(*ls->host_note));
    return ls->devs && ls->sess && ls->peer && ls->enabled && ls->limit && ls->limit_note &&
                   ls->host_limit && ls->host_note
               ? 0
               : GC_ENOMEM;
}

static void session_free(struct gc_link_session *ls, struct gc_kcache *kc)
{
    for (int i = 0; ls->devs && i < ls->n; i++) {
        if (ls->sess)
            gc__devfill_free(&ls->sess[i]);
        gc__device_close(ls->devs[i]);
    }
    gc__kcache_close(kc);
    free(ls->devs);
    free(ls->sess);
    free(ls->peer);
    free(ls->enabled);
    free(ls->limit);
    free(ls->limit_note);
    free(ls->host_limit);
    free(ls->host_note);
}

/* Opens every device of the list and gives each its session. */
static int open_all(gc_context *ctx, const struct gc_run_options *o, struct gc_link_session *ls,
                    const struct gc_device_summary *sum, struct gc_kcache *kc)
{
    const struct gc_backend_ops *ops = NULL;

    char err[GC_ERRLEN] = "";
    int idx[GC_PEER_MAX_COPIES + 1], rc;

    for (int b = 0; b < ctx->nbackends; b++)
        if (strcmp(ctx->ops[b]->name, sum[0].backend) == 0)
            ops = ctx->ops[b];
    if (ls->n > (int)(sizeof(idx) / sizeof(idx[0])))
        return gc__set_error(ctx, GC_EINVAL, "%d devices: the links join at most %d", ls->n,
                             (int)(sizeof(idx) / sizeof(idx[0])));
    for (int i = 0; i < ls->n; i++)
        idx[i] = sum[i].index;
    /* Together: a backend whose copies cross only within one context
     * (OpenCL) opens the devices of a platform in one. */
    rc = gc__device_open_group(ops, idx, ls->n, ls->devs, err, sizeof(err));
    if (rc)
        return gc__set_error(ctx, rc, "opening %s ... %s: %s", sum[0].spec, sum[ls->n - 1].spec,
                             err);
    for (int i = 0; i < ls->n; i++) {
        struct gc_session *s = &ls->sess[i];

        s->ctx = ctx;
        s->dev = ls->devs[i];
        s->profile = o->profile;
        s->dump_dir = o->dump_kernels_dir;
        s->stop = &ctx->stop;
        s->seed = ls->seed + (uint64_t)i;
        s->patterns = o->patterns;
        s->kcache = kc;
        gc__sampling_defaults(&s->run_sampling, o->profile, ls->devs[i]->info.type == GC_DEVICE_GPU,
                              o->repeat, o->min_time_ms);
        s->sampling = s->run_sampling;
    }
    ls->sampling = ls->sess[0].sampling;
    return 0;
}

static const char *status_word(const struct gc_bench_result *br)
{
    return br->status == GC_BENCH_OK              ? "ok"
           : br->status == GC_BENCH_NOT_AVAILABLE ? "n/a"
           : br->status == GC_BENCH_INTERRUPTED   ? "interrupted"
           : br->status == GC_BENCH_SKIPPED       ? "skipped"
                                                  : "FAILED";
}

static void tell(const struct gc_run_options *o, const struct gc_bench_result *br, int done,
                 int total, double t_run)
{
    char line[160];

    snprintf(line, sizeof(line), "%s %.1f s", status_word(br), br->wall_s);
    if (o->progress)
        o->progress(o->progress_user, done, total, br->name, line);
    if (o->progress_detail) {
        struct gc_progress_info p = {.done = done,
                                     .total = total,
                                     .bench = br->name,
                                     .finished = true,
                                     .bench_s = br->wall_s,
                                     .elapsed_s = gc__now() - t_run,
                                     .eta_s = NAN,
                                     .status_line = line};
        o->progress_detail(o->progress_user, &p);
    }
}

/* Runs one selected row over the devices (or says why it cannot). */
static void run_row(struct gc_link_session *ls, const struct gc_bench *b,
                    struct gc_bench_result *br)
{
    const struct gc_link_desc *d = b->param;
    double t0 = gc__now();
    int rc;

    if (ls->n < 2) {
        b->run(NULL, b, br);
        return;
    }
    if (gc__link_stopped(ls)) {
        br->status = GC_BENCH_SKIPPED;
        snprintf(br->error, sizeof(br->error), "not run: the run was stopped before it");
        return;
    }
    for (int i = 0; i < ls->n; i++)
        ls->devs[i]->err[0] = '\0';
    rc = d->run(ls, d, br);
    br->wall_s = gc__now() - t0;
    for (int i = 0; i < ls->n; i++) {
        br->compile_s += ls->sess[i].compile_s;
        br->kernels_compiled += ls->sess[i].kernels_compiled;
        br->kernels_cached += ls->sess[i].kernels_cached;
        ls->sess[i].compile_s = 0;
        ls->sess[i].kernels_compiled = ls->sess[i].kernels_cached = 0;
    }
    if (rc == GC_EINTR || (rc == 0 && gc__link_stopped(ls))) {
        br->status = GC_BENCH_INTERRUPTED;
        if (!br->error[0])
            snprintf(br->error, sizeof(br->error), "interrupted; partial data");
    } else if (rc && br->status == GC_BENCH_OK) {
        const char *why = "no details";

        for (int i = 0; i < ls->n; i++)
            if (ls->devs[i]->err[0]) {
                why = ls->devs[i]->err;
                break;
            }
        gc__bench_set_error(br, GC_BENCH_ERROR, "%s: %s", gc_strerror(rc), why);
    }
    /* GPUCHAR_FAULT=scale: (the fleet tests' planted degraded link), from the
     * first device that carries it. */
    for (int i = 0; i < ls->n; i++)
        if (ls->devs[i]->fault_scale_metric[0]) {
            gc__faults_scale(ls->devs[i]->fault_scale_metric, ls->devs[i]->fault_scale, br);
            break;
        }
    gc__limit_guard(br);
    gc__negative_guard(br);
}

static int run_rows(gc_context *ctx, const struct gc_run_options *o, struct gc_link_session *ls,
                    struct gc_results *r, double t_run)
{
    int total = 0, done = 0, failed = 0;

    for (int i = 0; i < gc__link_count(); i++)
        total += selected(o, gc__link_bench_at(i));
    if (total == 0)
        return gc__set_error(ctx, GC_ENOBENCH, "no link.* benchmark matches the given pattern(s)");
    for (int i = 0; i < gc__link_count(); i++) {
        const struct gc_bench *b = gc__link_bench_at(i);
        struct gc_bench_result *br;

        if (!selected(o, b))
            continue;
        br = gc__results_add_bench(r, b->info.name, b->info.group);
        if (!br)
            return gc__set_error(ctx, GC_ENOMEM, "out of host memory");
        gc__context_info_init(&br->context);
        run_row(ls, b, br);
        failed += br->status == GC_BENCH_ERROR;
        tell(o, br, ++done, total, t_run);
    }
    if (ctx->stop)
        return gc__set_error(ctx, GC_EINTR, "stopped by the user");
    if (failed)
        return gc__set_error(ctx, GC_EBACKEND, "%d link benchmark%s failed", failed,
                             failed == 1 ? "" : "s");
    return 0;
}

int gc_run_links(gc_context *ctx, const struct gc_run_options *o, const char *const *specs, int n,
                 struct gc_results **out)
{
    struct gc_link_session ls = {
        .ctx = ctx, .profile = o->profile, .stop = &ctx->stop, .seed = 0x6770756c696e6b31ULL};
    struct gc_device_summary *sum = NULL;
    struct gc_kcache *kc = NULL;
    struct gc_results *r = gc__results_new();
    double t_run = gc__now();
    int rc;

    *out = r;
    if (!r)
        return GC_ENOMEM;
    ctx->last_error[0] = '\0';
    fill_meta(r, o);
    if (n < 0 || (n > 0 && !specs)) {
        rc = gc__set_error(ctx, GC_EINVAL, "no device list");
        goto out;
    }
    sum = calloc((size_t)(n > 0 ? n : 1), sizeof(*sum));
    if (!sum || session_alloc(&ls, n > 1 ? n : 0)) {
        rc = GC_ENOMEM;
        goto out;
    }
    if ((rc = resolve_all(ctx, specs, n, sum)))
        goto out;
    if (n > 0)
        describe_devices(r, sum, n);
    if (n >= 2) {
        if ((rc = gc__kcache_open(o->cache_dir, o->no_cache, &kc)) ||
            (rc = open_all(ctx, o, &ls, sum, kc)))
            goto out;
        query_pairs(&ls);
    }
    r->meta.repeat = ls.sampling.max_samples;
    r->meta.min_time_ms = ls.sampling.target_sample_s * 1e3;
    rc = run_rows(ctx, o, &ls, r, t_run);
out:
    if (rc) {
        r->complete = false;
        snprintf(r->incomplete_reason, sizeof(r->incomplete_reason), "%s: %.200s", gc_strerror(rc),
                 ctx->last_error);
    }
    r->wall_s = gc__now() - t_run;
    session_free(&ls, kc);
    free(sum);
    return rc;
}

bool gc_results_has_links(const struct gc_results *r)
{
    for (int i = 0; r && i < r->nbenches; i++)
        if (strncmp(r->benches[i].name, "link.", 5) == 0)
            return true;
    return false;
}
