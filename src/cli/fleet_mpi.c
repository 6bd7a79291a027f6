/* 'gpuchar run --mpi': every rank characterizes the device its local rank
 * maps to and writes its full results into the fleet folder; rank 0 gathers
 * the compact summaries only and writes the fleet result. Ranks of one host
 * that share a device take turns on it, passing a token in rank order, so
 * that they never measure each other. Each rank measures in a child process
 * (this program again, with the same command line), so that a measurement
 * that crashes or outlives --rank-timeout is reported by its rank, which
 * lives on, and the others' results are kept. Compiled only in builds with
 * MPI. */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define TAG_TURN 17
#define TAG_SUMMARY 18
#define HOST_LEN 64
/* Seconds rank 0 waits beyond the ranks' own time limits before it counts a
 * rank that sent nothing as hung. */
#define GATHER_GRACE_S 30.0

struct rank_info {
    int rank, size, turn, nturns, max_turns;
    const char *lr_from; /* where the local rank came from */
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
 * default's backend), device lr modulo the backend's count; "all" (a node
 * run per rank) and any other spec are used as given by every rank. *index
 * is the device's slot on the host. */
static void choose_device(const char *want, int lr, char *spec, size_t len, int *index)
{
    struct gc_device_summary *list = NULL, dflt;
    gc_context *ctx = NULL;
    char backend[16] = "";
    int n = 0, count = 0;

    spec[0] = '\0';
    *index = 0;
    if (want && strcmp(want, "all") == 0) {
        snprintf(spec, len, "all");
        return;
    }
    if (gc_context_create(&ctx) < 0)
        return;
    if (gc_device_list(ctx, &list, &n) == 0 && want)
        for (int i = 0; i < n; i++)
            if (strcmp(list[i].backend, want) == 0)
                snprintf(backend, sizeof(backend), "%s", want);
    if (want && !backend[0]) {
        if (gc_device_resolve(ctx, want, &dflt) == 0)
            snprintf(spec, len, "%s", dflt.spec);
    } else {
        if (!want && gc_device_resolve(ctx, NULL, &dflt) == 0)
            snprintf(backend, sizeof(backend), "%s", dflt.backend);
        for (int i = 0; i < n; i++)
            count += strcmp(list[i].backend, backend) == 0;
        if (count > 0) {
            *index = lr % count;
            snprintf(spec, len, "%s:%d", backend, *index);
        }
    }
    free(list);
    gc_context_destroy(ctx);
}

/* This rank's local rank: the launcher's when it says (Slurm's srun,
 * Open MPI, MPICH's hydra), else its rank among the ranks of its host. */
static int local_rank(MPI_Comm node, const char **from)
{
    static const char *const vars[] = {"SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK",
                                       "MPI_LOCALRANKID"};
    int lr = 0;

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);

        if (v && gc__cli_parse_count(v, 0, 1 << 20, &lr)) {
            *from = vars[i];
            return lr;
        }
    }
    *from = "the ranks of the host";
    MPI_Comm_rank(node, &lr);
    return lr;
}

/* The ranks of a host that measure the same device: its slot, told apart by
 * the devices the rank may see (a launcher that binds one GPU per rank gives
 * each rank its own "cuda:0"). */
static int device_color(int index)
{
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    unsigned h = 2166136261u;

    for (const char *p = vis ? vis : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return (int)((h ^ (unsigned)index * 2654435761u) & 0x7fffffff);
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
    lr = local_rank(node, &ri->lr_from);
    if (gethostname(ri->host, sizeof(ri->host)) != 0)
        snprintf(ri->host, sizeof(ri->host), "unknown");
    ri->host[HOST_LEN - 1] = '\0';
    choose_device(m->device, lr, ri->device, sizeof(ri->device), &index);
    MPI_Comm_split(node, device_color(index), ri->rank, &ri->dev_comm);
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

/* How this rank's measurement ended. */
struct outcome {
    enum gc_fleet_status status; /* failed or timeout: what to say when there are no results */
    bool exited;                 /* the measurement ended by itself (its exit status) */
    char message[400];
};

/* This rank's summary: from its results file when it wrote one, else a
 * failed or timed-out device saying why. */
static char *summarize(const struct rank_info *ri, const char *json, const struct outcome *oc,
                       size_t *len)
{
    struct gc_results *r = NULL;
    struct gc_fleet *f = NULL;
    char why[512], *out = NULL;

    *len = 0;
    if (gc_fleet_create(&f) < 0)
        return NULL;
    f->declare = gc_results_declare;
    if (gc_is_node_json(json) && gc_fleet_add_paths(f, &json, 1, why, sizeof(why)) == 0) {
        gc_fleet_encode_all(f, &out, len); /* every device of the node and its links */
        gc_fleet_free(f);
        return out;
    }
    if (gc_read_json(json, &r, why, sizeof(why)) == 0 && gc_results_declare(r) == 0) {
        if (gc_fleet_add_results(f, r, ri->rank, json) == 0 && f->ngpus == 1)
            snprintf(f->gpus[0].spec, sizeof(f->gpus[0].spec), "%s", ri->device);
    } else {
        char msg[1000];

        snprintf(msg, sizeof(msg), "%s%s%.400s%s", oc->message, oc->exited ? " (" : "",
                 oc->exited ? why : "", oc->exited ? ")" : "");
        gc_fleet_add_missing(f, ri->rank, ri->host, oc->status, msg);
        snprintf(f->gpus[0].spec, sizeof(f->gpus[0].spec), "%s", ri->device);
    }
    gc_results_free(r);
    if (f->ngpus == 1)
        gc_fleet_gpu_encode(f, 0, &out, len);
    gc_fleet_free(f);
    return out;
}

/* The child: this program again, with the same command line and the job in
 * GC_CLI_RANK_JOB_ENV ("<device> <results file>"); it measures without MPI. */
static pid_t spawn(const struct gc_cli_mpi *m, const struct rank_info *ri, const char *json)
{
    char job[1300];
    char **envp;
    pid_t pid;

    snprintf(job, sizeof(job), GC_CLI_RANK_JOB_ENV "=%s %s", ri->device, json);
    /* The environment the rank started with: the libraries it loaded may
     * have rewritten the live one (gpuchar.h). Built before fork, as
     * the child of a threaded process may not allocate. */
    envp = gc_start_environment_with(job);
    if (!envp) {
        errno = ENOMEM;
        return -1;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        /* The measurement holds none of this rank's descriptors (MPI's, a
         * driver's device files). */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
        closefrom(3);
#endif
        execve("/proc/self/exe", m->argv, envp);
        fprintf(stderr, "gpuchar: rank %d: cannot start the measurement: %s\n", ri->rank,
                strerror(errno));
        _exit(GC_CLI_EXIT_FAILED);
    }
    free(envp);
    return pid;
}

/* Waits for the child, killing it once timeout_s (> 0) has passed. */
static void wait_child(pid_t pid, double timeout_s, struct outcome *oc)
{
    double end = timeout_s > 0 ? now_s() + timeout_s : 0;
    int st = 0;
    pid_t got;

    while ((got = waitpid(pid, &st, WNOHANG)) == 0) {
        if (end > 0 && now_s() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            oc->status = GC_FLEET_TIMEOUT;
            snprintf(oc->message, sizeof(oc->message),
                     "exceeded --rank-timeout %g s while measuring: stopped (SIGKILL), no results",
                     timeout_s);
            return;
        }
        usleep(20000);
    }
    oc->status = GC_FLEET_FAILED;
    oc->exited = got == pid && WIFEXITED(st);
    if (got < 0)
        snprintf(oc->message, sizeof(oc->message), "lost its measurement: %s", strerror(errno));
    else if (WIFSIGNALED(st))
        snprintf(oc->message, sizeof(oc->message),
                 "crashed while measuring: killed by signal %d (%s), no results", WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
    else
        snprintf(oc->message, sizeof(oc->message), "exit status %d, no results", WEXITSTATUS(st));
}

/* Measures this rank's device in its turn: waits for the token from the
 * rank before it on the same device, measures in a child, passes the token
 * on. A marker file says "started" until the results are there, and why
 * there are none when the measurement ended without them. */
static char *measure(const struct gc_cli_mpi *m, const struct rank_info *ri, size_t *len)
{
    char json[1100], marker[1100];
    struct outcome oc = {GC_FLEET_FAILED, false, "no device for this rank (see 'gpuchar list')"};
    int token = 0;
    pid_t pid;
    FILE *f;

    snprintf(json, sizeof(json), "%s.json", ri->base);
    snprintf(marker, sizeof(marker), "%s.started", ri->base);
    if (ri->turn > 0)
        MPI_Recv(&token, 1, MPI_INT, ri->turn - 1, TAG_TURN, ri->dev_comm, MPI_STATUS_IGNORE);
    if ((f = fopen(marker, "w"))) {
        fprintf(f, "%s %d\n", ri->host, ri->rank);
        fclose(f);
    }
    unlink(json); /* an earlier run's, in a reused folder, must not stand for this one */
    if (!ri->device[0])
        fprintf(stderr, "gpuchar: rank %d on %s: no device for this rank (see 'gpuchar list')\n",
                ri->rank, ri->host);
    else if ((pid = spawn(m, ri, json)) < 0)
        snprintf(oc.message, sizeof(oc.message), "cannot start the measurement: %s",
                 strerror(errno));
    else
        wait_child(pid, m->rank_timeout_s, &oc);
    if (!oc.exited && ri->device[0])
        fprintf(stderr, "gpuchar: rank %d on %s: %s\n", ri->rank, ri->host, oc.message);
    if (ri->turn + 1 < ri->nturns)
        MPI_Send(&token, 1, MPI_INT, ri->turn + 1, TAG_TURN, ri->dev_comm);
    if (access(json, F_OK) == 0)
        unlink(marker);
    else if ((f = fopen(marker, "w"))) { /* why, for 'gpuchar fleet DIR' */
        fprintf(f, "%s %d\n%s\n", ri->host, ri->rank, oc.message);
        fclose(f);
    }
    return summarize(ri, json, &oc, len);
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
                "%s measures in parallel)\n",
                ri.nturns, ri.host,
                strcmp(ri.device, "all") == 0 ? "its devices (--device all)"
                : ri.device[0]                ? ri.device
                                              : "no device",
                strcmp(ri.device, "all") == 0 ? "host" : "device");
    if (getenv("SLURM_PROCID") && atoi(getenv("SLURM_PROCID")) != ri.rank)
        fprintf(stderr, "gpuchar: warning: rank %d has SLURM_PROCID=%s: MPI's rank is used\n",
                ri.rank, getenv("SLURM_PROCID"));
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
        gather(&ri, sum, len,
               m->rank_timeout_s > 0 ? t0 + m->rank_timeout_s * ri.max_turns + GATHER_GRACE_S : 0);
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
