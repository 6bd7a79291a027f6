/* 'gpuchar run --mpi': every rank characterizes the device its local rank
 * maps to and writes its full results into the fleet folder; rank 0 gathers
 * the compact summaries only and writes the fleet result. Ranks of one host
 * that share a device take turns on it, passing a token in rank order, so
 * that they never measure each other. Compiled only in builds with MPI. */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define TAG_TURN 17
#define TAG_SUMMARY 18
#define HOST_LEN 64

struct rank_info {
    int rank, size, turn, nturns, max_turns;
    char host[HOST_LEN];
    char device[32];
    char base[1024];   /* the fleet folder and this rank's file name, without extension */
    MPI_Comm dev_comm; /* the ranks of this host sharing this rank's device */
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The device of local rank lr: with --device naming a backend (or none: the
 * default's backend), device lr modulo the backend's count; any other spec
 * is used as given by every rank. *index is the device's slot on the host. */
static void choose_device(const char *want, int lr, char *spec, size_t len, int *index)
{
    struct gc_device_summary *list = NULL, dflt;
    gc_context *ctx = NULL;
    char backend[16] = "";
    int n = 0, count = 0;

    spec[0] = '\0';
    *index = 0;
    if (gc_context_create(&ctx) < 0)
        return;
    if (want && strcmp(want, "cuda") != 0 && strcmp(want, "opencl") != 0) {
        if (gc_device_resolve(ctx, want, &dflt) == 0)
            snprintf(spec, len, "%s", dflt.spec);
        gc_context_destroy(ctx);
        return;
    }
    if (want)
        snprintf(backend, sizeof(backend), "%s", want);
    else if (gc_device_resolve(ctx, NULL, &dflt) == 0)
        snprintf(backend, sizeof(backend), "%s", dflt.backend);
    if (gc_device_list(ctx, &list, &n) == 0)
        for (int i = 0; i < n; i++)
            count += strcmp(list[i].backend, backend) == 0;
    if (count > 0) {
        *index = lr % count;
        snprintf(spec, len, "%s:%d", backend, *index);
    }
    free(list);
    gc_context_destroy(ctx);
}

/* Creates the fleet folder and proves a file can be written there. */
static bool dir_writable(const char *dir, int rank, char *why, size_t len)
{
    char probe[1200];
    FILE *f;

    for (char *p = strchr(dir + 1, '/');; p = strchr(p + 1, '/')) {
        char part[1024];

        snprintf(part, sizeof(part), "%.*s", p ? (int)(p - dir) : (int)strlen(dir), dir);
        if (mkdir(part, 0777) != 0 && errno != EEXIST) {
            snprintf(why, len, "%s", strerror(errno));
            return false;
        }
        if (!p)
            break;
    }
    snprintf(probe, sizeof(probe), "%s/.probe-%d-%ld", dir, rank, (long)getpid());
    if (!(f = fopen(probe, "w"))) {
        snprintf(why, len, "%s", strerror(errno));
        return false;
    }
    fclose(f);
    unlink(probe);
    return true;
}

static void setup(const struct gc_cli_mpi *m, struct rank_info *ri)
{
    MPI_Comm node;
    int lr, index;
    char spec_file[64];

    MPI_Comm_rank(MPI_COMM_WORLD, &ri->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ri->size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, ri->rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &lr);
    if (gethostname(ri->host, sizeof(ri->host)) != 0)
        snprintf(ri->host, sizeof(ri->host), "unknown");
    ri->host[HOST_LEN - 1] = '\0';
    choose_device(m->device, lr, ri->device, sizeof(ri->device), &index);
    MPI_Comm_split(node, index, lr, &ri->dev_comm);
    MPI_Comm_rank(ri->dev_comm, &ri->turn);
    MPI_Comm_size(ri->dev_comm, &ri->nturns);
    MPI_Allreduce(&ri->nturns, &ri->max_turns, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    snprintf(spec_file, sizeof(spec_file), "%s", ri->device[0] ? ri->device : "none");
    for (char *p = spec_file; *p; p++)
        if (*p == ':')
            *p = '-';
    snprintf(ri->base, sizeof(ri->base), "%s/%s_%s_r%06d", m->fleet_dir, ri->host, spec_file,
             ri->rank);
}

/* This rank's summary: from its results file when it wrote one, else a
 * failed device saying why. */
static char *summarize(const struct rank_info *ri, const char *json, int status, size_t *len)
{
    struct gc_results *r = NULL;
    struct gc_fleet *f = NULL;
    char why[512], *out = NULL;

    *len = 0;
    if (gc_fleet_create(&f) < 0)
        return NULL;
    if (gc_read_json(json, &r, why, sizeof(why)) == 0 && gc_results_declare(r) == 0) {
        if (gc_fleet_add_results(f, r, ri->rank, json) == 0 && f->ngpus == 1)
            snprintf(f->gpus[0].spec, sizeof(f->gpus[0].spec), "%s", ri->device);
    } else {
        char msg[700];

        snprintf(msg, sizeof(msg), "%s: exit status %d, no results (%.500s)",
                 ri->device[0] ? ri->device : "no device", status, why);
        gc_fleet_add_missing(f, ri->rank, ri->host, GC_FLEET_FAILED, msg);
        snprintf(f->gpus[0].spec, sizeof(f->gpus[0].spec), "%s", ri->device);
    }
    gc_results_free(r);
    if (f->ngpus == 1)
        gc_fleet_gpu_encode(f, 0, &out, len);
    gc_fleet_free(f);
    return out;
}

/* Measures this rank's device in its turn: waits for the token from the
 * rank before it on the same device, measures, passes the token on. A
 * marker file says "started" until the results are there. */
static char *measure(const struct gc_cli_mpi *m, const struct rank_info *ri, size_t *len)
{
    char json[1100], marker[1100];
    int token = 0, status = GC_CLI_EXIT_NODEV;
    FILE *f;

    snprintf(json, sizeof(json), "%s.json", ri->base);
    snprintf(marker, sizeof(marker), "%s.started", ri->base);
    if (ri->turn > 0)
        MPI_Recv(&token, 1, MPI_INT, ri->turn - 1, TAG_TURN, ri->dev_comm, MPI_STATUS_IGNORE);
    if ((f = fopen(marker, "w"))) {
        fprintf(f, "%s %d\n", ri->host, ri->rank);
        fclose(f);
    }
    if (ri->device[0])
        status = m->measure(m->user, ri->device, json);
    else
        fprintf(stderr, "gpuchar: rank %d on %s: no device for this rank (see 'gpuchar list')\n",
                ri->rank, ri->host);
    if (ri->turn + 1 < ri->nturns)
        MPI_Send(&token, 1, MPI_INT, ri->turn + 1, TAG_TURN, ri->dev_comm);
    char *s = summarize(ri, json, status, len);
    if (access(json, F_OK) == 0)
        unlink(marker);
    return s;
}

/* Rank 0: every other rank's summary, until each has sent one or the
 * deadline passes (deadline <= 0: no deadline). */
static void gather(const struct rank_info *ri, char **sum, size_t *len, double deadline)
{
    int missing = ri->size - 1;

    while (missing > 0) {
        MPI_Status st;
        int flag = 0, n = 0;

        MPI_Iprobe(MPI_ANY_SOURCE, TAG_SUMMARY, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            if (deadline > 0 && now_s() > deadline)
                return;
            usleep(2000);
            continue;
        }
        MPI_Get_count(&st, MPI_CHAR, &n);
        char *buf = malloc((size_t)n + 1);
        MPI_Recv(buf, n, MPI_CHAR, st.MPI_SOURCE, TAG_SUMMARY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (buf && !sum[st.MPI_SOURCE]) {
            sum[st.MPI_SOURCE] = buf;
            len[st.MPI_SOURCE] = (size_t)n;
            missing--;
        } else {
            free(buf);
        }
    }
}

/* Rank 0: the fleet from the summaries, in rank order. */
static int rank0_report(const struct gc_cli_mpi *m, const struct rank_info *ri, char **sum,
                        size_t *len, const char *hosts)
{
    struct gc_cli_fleet out = m->fleet;
    struct gc_fleet *f = NULL;
    char err[256], msg[256];
    int status = GC_CLI_EXIT_FAILED;

    if (gc_fleet_create(&f) < 0)
        return status;
    for (int r = 0; r < ri->size; r++) {
        if (sum[r] && gc_fleet_add_summary(f, sum[r], len[r], err, sizeof(err)) == 0)
            continue;
        snprintf(msg, sizeof(msg),
                 sum[r] ? "its summary could not be read"
                        : "no result within --rank-timeout %.0f s x %d turns: hung, crashed or "
                          "killed",
                 m->rank_timeout_s, ri->max_turns);
        gc_fleet_add_missing(f, r, hosts + (size_t)r * HOST_LEN,
                             sum[r] ? GC_FLEET_FAILED : GC_FLEET_TIMEOUT, msg);
    }
    out.out_dir = m->fleet_dir;
    status = gc__fleet_report(f, &out);
    gc_fleet_free(f);
    return status;
}

/* Every rank must be able to write the fleet folder before any measures. */
static bool check_dir(const struct gc_cli_mpi *m, const struct rank_info *ri)
{
    char why[256] = "";
    int ok = dir_writable(m->fleet_dir, ri->rank, why, sizeof(why)), all_ok = 0;

    if (!ok)
        fprintf(stderr, "gpuchar run: rank %d on %s: cannot write --fleet-dir '%s': %s\n", ri->rank,
                ri->host, m->fleet_dir, why);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all_ok != 0;
}

int gc__fleet_mpi_run(const struct gc_cli_mpi *m)
{
    struct rank_info ri = {0};
    char *hosts = NULL, **sum = NULL, *mine;
    size_t *len = NULL, mylen = 0;
    int status = GC_CLI_EXIT_OK, timed_out = 0;
    double t0;

    MPI_Init(NULL, NULL);
    t0 = now_s();
    setup(m, &ri);
    if (!check_dir(m, &ri)) {
        MPI_Comm_free(&ri.dev_comm);
        MPI_Finalize();
        return GC_CLI_EXIT_USAGE;
    }
    if (ri.rank == 0)
        hosts = calloc((size_t)ri.size, HOST_LEN);
    MPI_Gather(ri.host, HOST_LEN, MPI_CHAR, hosts, HOST_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (ri.nturns > 1 && ri.turn == 0)
        fprintf(stderr,
                "gpuchar: warning: %d ranks on %s share %s: they take turns on it (one rank per "
                "device measures in parallel)\n",
                ri.nturns, ri.host, ri.device[0] ? ri.device : "no device");
    mine = measure(m, &ri, &mylen);
    if (ri.rank != 0) {
        MPI_Send(mine ? mine : "", (int)mylen, MPI_CHAR, 0, TAG_SUMMARY, MPI_COMM_WORLD);
        free(mine);
    } else {
        sum = calloc((size_t)ri.size, sizeof(*sum));
        len = calloc((size_t)ri.size, sizeof(*len));
        if (!sum || !len || !hosts) {
            fprintf(stderr, "gpuchar: %s\n", gc_strerror(GC_ENOMEM));
            MPI_Abort(MPI_COMM_WORLD, GC_CLI_EXIT_FAILED);
        }
        sum[0] = mine;
        len[0] = mylen;
        gather(&ri, sum, len, m->rank_timeout_s > 0 ? t0 + m->rank_timeout_s * ri.max_turns : 0);
        for (int r = 0; r < ri.size; r++)
            timed_out += !sum[r];
        status = rank0_report(m, &ri, sum, len, hosts);
        for (int r = 0; r < ri.size; r++)
            free(sum[r]);
    }
    free(sum);
    free(len);
    free(hosts);
    /* Ranks that never answered would hold MPI_Finalize forever. */
    if (timed_out)
        MPI_Abort(MPI_COMM_WORLD, status);
    MPI_Comm_free(&ri.dev_comm);
    MPI_Finalize();
    return status;
}

const char *gc__fleet_mpi_library(void)
{
    static char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;

    /* Callable before MPI_Init. */
    MPI_Get_library_version(version, &len);
    version[strcspn(version, ",\n")] = '\0';
    return version;
}
