/* A run over several devices ('gpuchar run --device all', a backend name,
 * a list): one thread per device, each with its own context and its own
 * gc_run on its own device. Benchmarks that declare a host resource take
 * its node-wide lock inside the library, so they run one device at a time
 * while the others go on with their own work. Then the links between the
 * devices, the summary across them and the node document. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

struct devjob {
    gc_context *ctx;
    struct gc_run_options o;
    struct gc_results *res;
    int rc;
    char err[1024];
    char dump_dir[1200]; /* --dump-kernels DIR/<backend>_<index> */
    pthread_t thread;
    bool started;
};

static void *device_thread(void *arg)
{
    struct devjob *j = arg;

    j->rc = gc_run(j->ctx, &j->o, &j->res);
    snprintf(j->err, sizeof(j->err), "%s", gc_last_error(j->ctx));
    return NULL;
}

/* One context per device: a context's last error and stop flag belong to
 * one run. Created here, one after another, before any thread starts. */
static int make_jobs(const struct gc_cli_node *q, struct devjob *jobs,
                     struct gc_node_progress *prog)
{
    for (int i = 0; i < q->ndevs; i++) {
        int rc = gc_context_create(&jobs[i].ctx);

        if (rc < 0) {
            gc__cli_lib_error(NULL, rc, "cannot initialise the library");
            return GC_CLI_EXIT_FAILED;
        }
        /* The device's backend initialised here, before the threads: a
         * backend's first initialisation is not made to run on two threads
         * at once. A failure is the run's to report. */
        struct gc_device_summary sum;
        (void)gc_device_resolve(jobs[i].ctx, q->devs[i].spec, &sum);
        jobs[i].o = q->base;
        jobs[i].o.device = q->devs[i].spec;
        /* Each device's kernels in a folder of their own: two devices would
         * otherwise write the same file at once. */
        if (q->base.dump_kernels_dir) {
            snprintf(jobs[i].dump_dir, sizeof(jobs[i].dump_dir), "%s/%s", q->base.dump_kernels_dir,
                     q->devs[i].spec);
            for (char *p = strrchr(jobs[i].dump_dir, '/'); p && *p; p++)
                if (*p == ':')
                    *p = '_';
            jobs[i].o.dump_kernels_dir = jobs[i].dump_dir;
        }
        jobs[i].o.progress = gc__node_progress_update;
        jobs[i].o.progress_detail = gc__node_progress_detail;
        jobs[i].o.progress_user = gc__node_progress_slot(prog, i);
    }
    return GC_CLI_EXIT_OK;
}

static void run_jobs(const struct gc_cli_node *q, struct devjob *jobs)
{
    for (int i = 0; i < q->ndevs; i++) {
        jobs[i].started = pthread_create(&jobs[i].thread, NULL, device_thread, &jobs[i]) == 0;
        /* Without a thread the device is measured here, after the others. */
        if (!jobs[i].started)
            device_thread(&jobs[i]);
    }
    for (int i = 0; i < q->ndevs; i++)
        if (jobs[i].started)
            pthread_join(jobs[i].thread, NULL);
}

/* Whether a device's run ended because the device stopped answering. */
static bool device_lost(const struct devjob *j)
{
    return j->rc < 0 && strstr(j->err, "lost and not reopened") != NULL;
}

/* What to say of a device whose run did not end cleanly. */
static void device_message(const struct devjob *j, char *buf, size_t len)
{
    buf[0] = '\0';
    if (j->rc == 0)
        return;
    if (device_lost(j))
        snprintf(buf, len,
                 "the device was lost during the run; its results up to then are "
                 "kept: %.400s",
                 j->err);
    else if (!j->res)
        snprintf(buf, len, "nothing measured: %s: %.400s", gc_strerror(j->rc), j->err);
    else
        snprintf(buf, len, "%s: %.450s", gc_strerror(j->rc), j->err);
}

/* Which benchmarks ran on every device at once and which one device at a
 * time, from the rows of the first device that has any and the resources
 * their descriptions declare (every benchmark of a CPU device holds the
 * host CPU). */
static int fill_schedule(struct gc_node *n, const struct gc_cli_node *q)
{
    const struct gc_results *r = NULL;
    bool cpu = false;

    for (int i = 0; i < n->ndevices && !r; i++)
        r = n->devices[i].results;
    for (int i = 0; i < q->ndevs; i++)
        cpu = cpu || q->devs[i].type == GC_DEVICE_CPU;
    if (!r)
        return 0;
    n->sched = calloc((size_t)r->nbenches + 1, sizeof(*n->sched));
    if (!n->sched)
        return GC_ENOMEM;
    for (int b = 0; b < r->nbenches; b++) {
        struct gc_node_sched *s = &n->sched[n->nsched++];

        snprintf(s->bench, sizeof(s->bench), "%s", r->benches[b].name);
        for (int i = 0; i < gc_bench_count(); i++)
            if (strcmp(gc_bench_get(i)->name, s->bench) == 0)
                s->resources = gc_bench_resources(i);
        if (cpu)
            s->resources |= GC_RES_HOST_CPU;
        s->concurrent = s->resources == 0;
    }
    return 0;
}

/* The node document's header from the first device's metadata. */
static void fill_meta(struct gc_node *n, const struct gc_cli_node *q, double wall_s)
{
    time_t t = time(NULL);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(n->date, sizeof(n->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
    for (int i = 0; i < n->ndevices; i++)
        if (n->devices[i].results) {
            const struct gc_run_meta *m = &n->devices[i].results->meta;

            snprintf(n->date, sizeof(n->date), "%s", m->date);
            snprintf(n->host, sizeof(n->host), "%s", m->host);
            snprintf(n->profile, sizeof(n->profile), "%s", m->profile);
            break;
        }
    snprintf(n->command_line, sizeof(n->command_line), "%s",
             q->base.command_line ? q->base.command_line : "");
    n->wall_s = wall_s;
}

static double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The links, measured after every device's own run: they occupy the
 * devices in pairs. */
static int measure_links(struct gc_node *n, const struct gc_cli_node *q, struct devjob *jobs,
                         struct gc_node_progress *prog)
{
    const char *specs[GC_CLI_MAX_DEVICES];
    int rc;

    for (int i = 0; i < q->ndevs; i++)
        specs[i] = q->devs[i].spec;
    if (gc__node_progress_enabled(prog))
        gc__node_progress_note(prog, "gpuchar: measuring the links between %d device%s", q->ndevs,
                               q->ndevs == 1 ? "" : "s");
    rc = gc__node_links(jobs[0].ctx, &q->base, specs, q->ndevs, &n->links, n->links_note,
                        sizeof(n->links_note));
    if (rc < 0 && !n->links_note[0])
        snprintf(n->links_note, sizeof(n->links_note), "%s: %.200s", gc_strerror(rc),
                 gc_last_error(jobs[0].ctx));
    return rc;
}

/* Moves each device's results into the node. */
static int collect(struct gc_node *n, const struct gc_cli_node *q, struct devjob *jobs)
{
    int rc = 0;

    for (int i = 0; i < q->ndevs && rc == 0; i++) {
        char msg[512];

        device_message(&jobs[i], msg, sizeof(msg));
        rc = gc_node_add_device(n, q->devs[i].spec, q->devs[i].name, jobs[i].res, jobs[i].rc,
                                device_lost(&jobs[i]), msg);
        jobs[i].res = NULL;
    }
    return rc;
}

static bool write_outputs(const struct gc_node *n, const struct gc_cli_node *q)
{
    bool ok = true;
    bool json_stdout = q->json_path && strcmp(q->json_path, "-") == 0;
    int rc;

    if (q->json_path && (rc = gc_write_node_json(n, q->json_path)) < 0) {
        fprintf(stderr, "gpuchar: cannot write --json '%s': %s\n", q->json_path, gc_strerror(rc));
        ok = false;
    }
    if (q->csv_dir && (rc = gc_write_node_csv(n, q->csv_dir)) < 0) {
        fprintf(stderr, "gpuchar: cannot write --csv '%s': %s\n", q->csv_dir, gc_strerror(rc));
        ok = false;
    }
    if (!q->quiet && gc_write_node_text(n, json_stdout ? stderr : stdout) < 0) {
        fprintf(stderr, "gpuchar: cannot write the report\n");
        ok = false;
    }
    fflush(stdout);
    return ok;
}

/* The exit status of the whole run and what to say on stderr. */
static int outcome(const struct gc_node *n, int sig, bool outputs_ok)
{
    int status = GC_CLI_EXIT_OK;

    for (int i = 0; i < n->ndevices; i++) {
        const struct gc_node_device *d = &n->devices[i];
        const struct gc_results *r = d->results;

        for (int b = 0; r && b < r->nbenches; b++)
            if (r->benches[b].status == GC_BENCH_ERROR) {
                fprintf(stderr, "gpuchar: %s: benchmark %s failed: %s\n", d->spec,
                        r->benches[b].name, r->benches[b].error);
                status = GC_CLI_EXIT_FAILED;
            }
        if (d->rc && d->rc != GC_EINTR) {
            fprintf(stderr, "gpuchar: %s%s: %s\n", d->spec, d->lost ? " LOST" : "", d->message);
            status = GC_CLI_EXIT_FAILED;
        }
    }
    if (sig)
        return GC_CLI_EXIT_SIGNAL_BASE + sig;
    if (!outputs_ok && status == GC_CLI_EXIT_OK)
        status = GC_CLI_EXIT_FAILED;
    return status;
}

static bool interrupted(const struct devjob *jobs, int n)
{
    for (int i = 0; i < n; i++)
        if (jobs[i].rc == GC_EINTR)
            return true;
    return false;
}

static int node_main(const struct gc_cli_node *q, struct devjob *jobs,
                     struct gc_node_progress *prog, struct gc_node *n)
{
    gc_context *ctxs[GC_CLI_MAX_DEVICES];
    double t0 = mono_s();
    int status = make_jobs(q, jobs, prog), sig;

    if (status != GC_CLI_EXIT_OK)
        return status;
    for (int i = 0; i < q->ndevs; i++)
        ctxs[i] = jobs[i].ctx;
    gc__run_signals_install(ctxs, q->ndevs, gc__node_progress_live(prog));
    if (gc__node_progress_enabled(prog))
        fprintf(stderr, "gpuchar: running %d benchmark%s on %d devices at once (%s ... %s)\n",
                q->nsel, q->nsel == 1 ? "" : "s", q->ndevs, q->devs[0].spec,
                q->devs[q->ndevs - 1].spec);
    run_jobs(q, jobs);
    n->devices_s = mono_s() - t0;
    gc__node_progress_clear(prog);
    if (collect(n, q, jobs) != 0)
        status = GC_CLI_EXIT_FAILED;
    if (status == GC_CLI_EXIT_OK && !interrupted(jobs, q->ndevs)) {
        double tl = mono_s();

        measure_links(n, q, jobs, prog);
        n->links_s = mono_s() - tl;
    } else if (status == GC_CLI_EXIT_OK)
        snprintf(n->links_note, sizeof(n->links_note), "not measured: the run was stopped");
    fill_meta(n, q, mono_s() - t0);
    if (status == GC_CLI_EXIT_OK && (fill_schedule(n, q) || gc_node_summarise(n)))
        status = GC_CLI_EXIT_FAILED;
    bool ok = write_outputs(n, q);
    sig = gc__run_signals_restore();
    return status != GC_CLI_EXIT_OK ? status : outcome(n, sig, ok);
}

int gc__node_run(const struct gc_cli_node *q)
{
    struct devjob *jobs = calloc((size_t)q->ndevs, sizeof(*jobs));
    struct gc_node_progress *prog = NULL;
    struct gc_node *n = NULL;
    int status = GC_CLI_EXIT_FAILED;

    if (q->ndevs > GC_CLI_MAX_DEVICES) {
        fprintf(stderr, "gpuchar run: %d devices: one run measures at most %d\n", q->ndevs,
                GC_CLI_MAX_DEVICES);
        free(jobs);
        return GC_CLI_EXIT_USAGE;
    }
    if (jobs && gc_node_create(&n) == 0 &&
        gc__node_progress_create(&prog, q->devs, q->ndevs, q->quiet, q->no_progress, q->verbose) ==
            0)
        status = node_main(q, jobs, prog, n);
    else
        fprintf(stderr, "gpuchar: %s\n", gc_strerror(GC_ENOMEM));
    for (int i = 0; jobs && i < q->ndevs; i++) {
        gc_results_free(jobs[i].res);
        gc_context_destroy(jobs[i].ctx);
    }
    free(jobs);
    gc_node_free(n);
    gc__node_progress_free(prog);
    return status;
}
