/* 'gpuchar run': checks the options, runs the selected benchmarks on one
 * device, writes the JSON, CSV and text outputs and turns the outcome into
 * the exit status. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define REPEAT_MAX 10000
#define MIN_TIME_MAX_MS 60000.0

struct run_args {
    const char *device;
    char **patterns; /* NULL-terminated once any --bench was given */
    int npatterns, patterns_cap;
    bool quick, full;
    int repeat;
    double min_time_ms;
    const char *json_path, *csv_dir, *dump_dir, *cache_dir;
    bool no_cache, no_plan, no_progress, quiet, verbose, help;
    /* --mpi: one rank of a fleet run */
    bool mpi;
    const char *fleet_dir;
    double rank_timeout_s;
    struct gc_cli_fleet fleet;
};

void gc__cmd_run_usage(FILE *f)
{
    fprintf(f,
            "usage: gpuchar run [options]\n"
            "\n"
            "Runs benchmarks on one device, or on every device of a node, prints the\n"
            "report on stdout and writes the results as JSON and CSV on request, also\n"
            "when the run is interrupted or fails part way (the results are then marked\n"
            "incomplete).\n"
            "\n"
            "options:\n"
            "  -d, --device SPEC       the device: cuda:N, opencl:N, a backend\n"
            "                          name or part of the device name (see 'gpuchar list');\n"
            "                          default: the first CUDA GPU, else the first OpenCL\n"
            "                          device. Several devices: 'all' (every device of the\n"
            "                          first backend that has any), a backend name with\n"
            "                          more than one device ('cuda': all of them) or a\n"
            "                          list 'cuda:0,cuda:1' (one backend, each device once)\n"
            "                          measure the devices at once into one node document:\n"
            "                          a section per device, the links between them and a\n"
            "                          summary across them (see 'Nodes' below)\n"
            "  -b, --bench PATTERN     benchmarks to run: a name, a group or a shell pattern\n"
            "                          such as 'memory.*' (see 'gpuchar benches'); repeat\n"
            "                          the option or separate patterns with commas;\n"
            "                          default: every benchmark\n"
            "      --quick             short run: fewer points and samples\n"
            "      --full              long run: wider sweeps and more samples\n"
            "      --repeat N          samples per measurement, 1 to %d; default: the\n"
            "                          profile's\n"
            "      --min-time MS       target duration of one sample in milliseconds, more\n"
            "                          than 0 and at most %.0f\n"
            "      --json FILE         write the results as JSON to FILE\n"
            "      --csv DIR           write one CSV file per series and metrics.csv to DIR\n"
            "      --dump-kernels DIR  write every generated kernel source to DIR\n"
            "      --cache-dir DIR     compiled-kernel cache; default: $GPUCHAR_CACHE_DIR,\n"
            "                          else $XDG_CACHE_HOME/gpuchar\n"
            "      --no-cache          neither read nor write the kernel cache\n"
            "      --no-plan           compile each benchmark's kernels when it runs, not\n"
            "                          all of them in parallel before the first measurement\n"
            "      --no-progress       no progress line on a terminal\n"
            "  -q, --quiet             no report on stdout and no progress line\n"
            "  -v, --verbose           one line per finished benchmark on stderr when the\n"
            "                          progress line is off\n"
            "  -h, --help              show this help\n"
            "\n"
            "fleets (under mpirun or srun; see docs/methodology.md, \"Fleets\"):\n"
            "      --mpi               every rank measures the device its local rank\n"
            "                          (SLURM_LOCALID, ...) maps to (--device BACKEND;\n"
            "                          sharing ranks take turns), or with --device all its\n"
            "                          host's; rank 0 writes the fleet result (MPI build)\n"
            "      --fleet-dir DIR     where each rank writes HOST_DEVICE_rRANK.json and\n"
            "                          rank 0 fleet.json, fleet.csv and fleet.html\n"
            "      --rank-timeout S    a rank's measurement is stopped after S seconds and\n"
            "                          reported as timed out (0: no limit; default 0)\n"
            "      --reference FILE    per-SKU absolute floors (see 'gpuchar help fleet')\n"
            "      --low-ratio X       relative floor of the analysis; default 0.90\n"
            "      --high-ratio X      relative ceiling of the analysis; default 1.10\n"
            "                          (MPI in this build: %s)\n"
            "\n"
            "The outputs (--json, --csv, --dump-kernels) and the kernel cache named by\n"
            "--cache-dir or GPUCHAR_CACHE_DIR are checked before the device is opened: a\n"
            "device node, FIFO, socket, folder (for --json), read-only file, link to\n"
            "anything but a regular file or a path two outputs share is refused; a link\n"
            "to a regular file is followed (and said so). With --json -, standard output\n"
            "carries the JSON only and the text report goes to standard error.\n"
            "\n",
            REPEAT_MAX, MIN_TIME_MAX_MS,
            gc__fleet_mpi_library() ? gc__fleet_mpi_library() : "none, --mpi needs a rebuild");
    fputs("Nodes: each device runs in its own thread; benchmarks that share a host\n"
          "resource (host<->device copies, the power readings, host-side timing of\n"
          "launches, allocations and compilation, every benchmark of a CPU device) run\n"
          "on one device at a time, the others on all devices at once; the report\n"
          "lists which. 'all' with a single device still writes a node document (one\n"
          "section, links not available); a single spec never does. A device lost\n"
          "during the run keeps what it measured and its section says what happened;\n"
          "the other devices' results are kept. --dump-kernels DIR writes each\n"
          "device's kernels into DIR/<backend>_<index>. GPUCHAR_FAULT_DEVICE=SPEC\n"
          "limits GPUCHAR_FAULT to one device.\n"
          "\n"
          "exit status: 0 every benchmark ran (one not available on the device counts\n"
          "as ran); 1 a benchmark failed or the run hit an error (the results are then\n"
          "marked incomplete); 2 usage error, including an output, dump or cache path\n"
          "that cannot be written, a GPUCHAR_FAULT setting that does not parse, a\n"
          "device listed twice, devices of two backends in one list; 3 no such device\n"
          "(also 'all' when no backend has one); on a node, 1 when any device failed a\n"
          "benchmark or was lost; 130 interrupted by SIGINT (143 by SIGTERM): the\n"
          "benchmark then running is marked interrupted, those not started skipped. A\n"
          "first interrupt stops at the next safe point and keeps the results; a\n"
          "second (more than a second later: timeout(1) delivers its signal twice)\n"
          "quits at once.\n",
          f);
}

/* ---- Option values ---------------------------------------------------- */

static int bad_value(const char *opt, const char *value, const char *expected)
{
    fprintf(stderr, "gpuchar run: invalid value '%s' for %s: expected %s\n", value, opt, expected);
    return GC_CLI_EXIT_USAGE;
}

static bool parse_ms(const char *s, double *out)
{
    char *end;
    double v;

    if (!*s || isspace((unsigned char)s[0]))
        return false;
    errno = 0;
    v = strtod(s, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v) || !(v > 0.0) || v > MIN_TIME_MAX_MS)
        return false;
    *out = v;
    return true;
}

/* Adds the comma-separated patterns of one --bench value, keeping the array
 * NULL-terminated for gc_run_options.patterns. */
static int add_patterns(struct run_args *a, const char *value)
{
    const char *p = value;

    for (;;) {
        size_t len = strcspn(p, ",");
        char *pat;

        if (len == 0)
            return bad_value("--bench", value, "benchmark names or patterns separated by commas");
        if (a->npatterns + 2 > a->patterns_cap) {
            int ncap = a->patterns_cap ? 2 * a->patterns_cap : 8;
            char **np = realloc(a->patterns, (size_t)ncap * sizeof(*np));

            if (!np)
                goto nomem;
            a->patterns = np;
            a->patterns_cap = ncap;
        }
        pat = strndup(p, len);
        if (!pat)
            goto nomem;
        a->patterns[a->npatterns++] = pat;
        a->patterns[a->npatterns] = NULL;
        p += len;
        if (*p == '\0')
            return GC_CLI_EXIT_OK;
        p++;
    }
nomem:
    fprintf(stderr, "gpuchar: %s\n", gc_strerror(GC_ENOMEM));
    return GC_CLI_EXIT_FAILED;
}

static void free_args(struct run_args *a)
{
    for (int i = 0; i < a->npatterns; i++)
        free(a->patterns[i]);
    free(a->patterns);
}

/* The options of 'gpuchar run' (long forms; the short ones are d:b:qvh). */
enum {
    OPT_QUICK = 256,
    OPT_FULL,
    OPT_JSON,
    OPT_CSV,
    OPT_REPEAT,
    OPT_MIN_TIME,
    OPT_DUMP,
    OPT_CACHE_DIR,
    OPT_NO_CACHE,
    OPT_NO_PLAN,
    OPT_NO_PROGRESS,
};
enum { OPT_MPI = 400, OPT_FLEET_DIR, OPT_RANK_TIMEOUT, OPT_REFERENCE, OPT_LOW, OPT_HIGH };

static const struct option run_longopts[] = {
    {"mpi", no_argument, NULL, OPT_MPI},
    {"fleet-dir", required_argument, NULL, OPT_FLEET_DIR},
    {"rank-timeout", required_argument, NULL, OPT_RANK_TIMEOUT},
    {"reference", required_argument, NULL, OPT_REFERENCE},
    {"low-ratio", required_argument, NULL, OPT_LOW},
    {"high-ratio", required_argument, NULL, OPT_HIGH},
    {"device", required_argument, NULL, 'd'},
    {"bench", required_argument, NULL, 'b'},
    {"quick", no_argument, NULL, OPT_QUICK},
    {"full", no_argument, NULL, OPT_FULL},
    {"json", required_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"min-time", required_argument, NULL, OPT_MIN_TIME},
    {"dump-kernels", required_argument, NULL, OPT_DUMP},
    {"cache-dir", required_argument, NULL, OPT_CACHE_DIR},
    {"no-cache", no_argument, NULL, OPT_NO_CACHE},
    {"no-plan", no_argument, NULL, OPT_NO_PLAN},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The options of a fleet run; -1 for an option that is none of them. */
static int parse_fleet_opt(struct run_args *a, int c)
{
    char *end;

    switch (c) {
    case OPT_MPI:
        a->mpi = true;
        return GC_CLI_EXIT_OK;
    case OPT_FLEET_DIR:
        a->fleet_dir = optarg;
        return *optarg ? GC_CLI_EXIT_OK : bad_value("--fleet-dir", optarg, "a directory");
    case OPT_RANK_TIMEOUT:
        errno = 0;
        a->rank_timeout_s = strtod(optarg, &end);
        if (!*optarg || *end || errno || !isfinite(a->rank_timeout_s) || a->rank_timeout_s < 0 ||
            a->rank_timeout_s > 1e6)
            return bad_value("--rank-timeout", optarg, "seconds from 0 (no limit) to 1000000");
        return GC_CLI_EXIT_OK;
    case OPT_REFERENCE:
        a->fleet.reference = optarg;
        return GC_CLI_EXIT_OK;
    case OPT_LOW:
        return gc__fleet_parse_ratio("--low-ratio", optarg, false, &a->fleet.opt.low_ratio);
    case OPT_HIGH:
        return gc__fleet_parse_ratio("--high-ratio", optarg, true, &a->fleet.opt.high_ratio);
    default:
        return -1;
    }
}

/* --mpi and its options go together; a launcher without --mpi is refused. */
static int check_fleet_args(const struct run_args *a)
{
    char what[128];

    if (!a->mpi && (a->fleet_dir || a->rank_timeout_s > 0 || a->fleet.reference)) {
        fprintf(stderr, "gpuchar run: --fleet-dir, --rank-timeout and --reference need --mpi\n");
        return GC_CLI_EXIT_USAGE;
    }
    if (a->mpi && !a->fleet_dir) {
        fprintf(stderr, "gpuchar run: --mpi needs --fleet-dir DIR (each rank writes its results "
                        "there, rank 0 the fleet result)\n");
        return GC_CLI_EXIT_USAGE;
    }
    if (a->mpi && a->device && strchr(a->device, ',')) {
        fprintf(stderr,
                "gpuchar run: --device %s does not go with --mpi: each rank measures "
                "one device (--device cuda or opencl picks the backend) or, with --device "
                "all, every device of its host\n",
                a->device);
        return GC_CLI_EXIT_USAGE;
    }
    if (a->mpi && (a->json_path || a->csv_dir)) {
        fprintf(stderr, "gpuchar run: --json and --csv do not go with --mpi: each rank writes "
                        "its results into --fleet-dir\n");
        return GC_CLI_EXIT_USAGE;
    }
    if (!a->mpi && gc__under_mpi_launcher(what, sizeof(what))) {
        fprintf(stderr,
                "gpuchar run: started by an MPI launcher (%s) without --mpi: every rank would "
                "measure alone, on the same device; add --mpi --fleet-dir DIR\n",
                what);
        return GC_CLI_EXIT_USAGE;
    }
    return GC_CLI_EXIT_OK;
}

static int parse_args(struct run_args *a, int argc, char **argv)
{
    int c, status;

    while ((c = getopt_long(argc, argv, "d:b:qvh", run_longopts, NULL)) != -1) {
        status = GC_CLI_EXIT_OK;
        switch (c) {
        case 'd':
            a->device = optarg;
            /* An empty spec would silently mean "the default device". */
            if (!*optarg)
                status = bad_value("--device", optarg,
                                   "cuda:N, opencl:N, a backend name or part of a device name "
                                   "(see 'gpuchar list')");
            break;
        case 'b':
            status = add_patterns(a, optarg);
            break;
        case OPT_QUICK:
            a->quick = true;
            break;
        case OPT_FULL:
            a->full = true;
            break;
        case OPT_JSON:
            a->json_path = optarg;
            if (!*optarg)
                status = bad_value("--json", optarg, "a file name");
            break;
        case OPT_CSV:
            a->csv_dir = optarg;
            if (!*optarg)
                status = bad_value("--csv", optarg, "a directory");
            break;
        case OPT_REPEAT:
            if (!gc__cli_parse_count(optarg, 1, REPEAT_MAX, &a->repeat))
                status = bad_value("--repeat", optarg, "an integer from 1 to 10000");
            break;
        case OPT_MIN_TIME:
            if (!parse_ms(optarg, &a->min_time_ms))
                status =
                    bad_value("--min-time", optarg, "milliseconds, more than 0 and at most 60000");
            break;
        case OPT_DUMP:
            a->dump_dir = optarg;
            if (!*optarg)
                status = bad_value("--dump-kernels", optarg, "a directory");
            break;
        case OPT_CACHE_DIR:
            a->cache_dir = optarg;
            if (!*optarg)
                status = bad_value("--cache-dir", optarg, "a directory");
            break;
        case OPT_NO_CACHE:
            a->no_cache = true;
            break;
        case OPT_NO_PLAN:
            a->no_plan = true;
            break;
        case OPT_NO_PROGRESS:
            a->no_progress = true;
            break;
        case 'q':
            a->quiet = true;
            break;
        case 'v':
            a->verbose = true;
            break;
        case 'h':
            a->help = true;
            return GC_CLI_EXIT_OK;
        default:
            status = parse_fleet_opt(a, c);
            if (status < 0)
                return gc__cli_usage_error("run");
        }
        if (status != GC_CLI_EXIT_OK)
            return status;
    }
    if (a->quick && a->full) {
        fprintf(stderr, "gpuchar run: --quick and --full exclude each other\n");
        return gc__cli_usage_error("run");
    }
    return gc__cli_no_operands("run", argc, argv, optind);
}

/* Every pattern must select something: a typo would otherwise run nothing
 * or, worse, run everything else and look like success. Counts the
 * benchmarks selected into *nsel. */
static int check_patterns(const struct run_args *a, int *nsel)
{
    int n = gc_bench_count();

    *nsel = 0;
    for (int p = 0; p < a->npatterns; p++) {
        bool hit = false;

        for (int i = 0; i < n && !hit; i++) {
            const struct gc_bench_info *b = gc_bench_get(i);

            hit = b && gc_bench_selects(a->patterns[p], b);
        }
        if (!hit) {
            fprintf(stderr, "gpuchar: no benchmark matches '%s' (see 'gpuchar benches')\n",
                    a->patterns[p]);
            return GC_CLI_EXIT_USAGE;
        }
    }
    for (int i = 0; i < n; i++) {
        const struct gc_bench_info *b = gc_bench_get(i);
        bool hit = a->npatterns == 0;

        for (int p = 0; b && p < a->npatterns && !hit; p++)
            hit = gc_bench_selects(a->patterns[p], b);
        *nsel += b && hit;
    }
    if (*nsel == 0) {
        fprintf(stderr, "gpuchar: %s\n", gc_strerror(GC_ENOBENCH));
        return GC_CLI_EXIT_USAGE;
    }
    return GC_CLI_EXIT_OK;
}

/* ---- Output paths ----------------------------------------------------- */

static int cannot_write(const char *opt, const char *path, const char *why)
{
    char shown[GC_PATH_SHOWN_LEN];

    fprintf(stderr, "gpuchar run: cannot write %s '%s': %s\n", opt,
            gc_path_shown(path, shown, sizeof(shown)), why);
    return GC_CLI_EXIT_USAGE;
}

/* Creates DIR and its missing parents, like mkdir -p, so that the library's
 * writers find it; messages name the option's value SHOWN. */
static int make_dirs(const char *opt, const char *shown, const char *dir)
{
    char *copy = strdup(dir);
    struct stat st;
    int status = GC_CLI_EXIT_OK;

    if (!copy) {
        fprintf(stderr, "gpuchar: %s\n", gc_strerror(GC_ENOMEM));
        return GC_CLI_EXIT_FAILED;
    }
    for (char *p = copy + 1;; p++) {
        char saved = *p;

        if (saved != '/' && saved != '\0')
            continue;
        *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            status = cannot_write(opt, shown, strerror(errno));
            goto out;
        }
        *p = saved;
        if (saved == '\0')
            break;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        status = cannot_write(opt, shown, strerror(ENOTDIR));
        goto out;
    }
    if (access(dir, W_OK | X_OK) != 0)
        status = cannot_write(opt, shown, strerror(errno));
out:
    free(copy);
    return status;
}

/* Creates the directory of the results file if needed and proves that the
 * file can be written, the way gc_write_json writes it: a temporary file
 * PATH.tmp.XXXXXX beside it, renamed over PATH. That name is longer than PATH,
 * so a name too long for the file system fails here, before any
 * measurement, and not after the whole run. */
static int prepare_json_path(const char *path)
{
    struct stat st;
    char *copy = NULL, *tmp = NULL;
    size_t tlen;
    int status = GC_CLI_EXIT_OK, fd;

    if (strcmp(path, "-") == 0)
        return GC_CLI_EXIT_OK;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return cannot_write("--json", path, strerror(EISDIR));
        if (access(path, W_OK) != 0)
            return cannot_write("--json", path, strerror(errno));
    } else if (errno == ENAMETOOLONG) {
        return cannot_write("--json", path, strerror(errno));
    }
    copy = strdup(path);
    tlen = strlen(path) + sizeof(".tmp.XXXXXX");
    tmp = malloc(tlen);
    if (!copy || !tmp) {
        fprintf(stderr, "gpuchar: %s\n", gc_strerror(GC_ENOMEM));
        status = GC_CLI_EXIT_FAILED;
        goto out;
    }
    status = make_dirs("--json", path, dirname(copy));
    if (status != GC_CLI_EXIT_OK)
        goto out;
    snprintf(tmp, tlen, "%s.tmp.XXXXXX", path);
    fd = mkstemp(tmp);
    if (fd < 0) {
        status = cannot_write("--json", path, strerror(errno));
        goto out;
    }
    close(fd);
    unlink(tmp);
out:
    free(tmp);
    free(copy);
    return status;
}

/* The outputs named on the command line, checked together before any
 * device is opened: none is a device node, FIFO, socket or read-only file,
 * a link to anything but a regular file, or the same place as another. */
static int check_output_paths(const struct run_args *a)
{
    const struct gc_io_path paths[] = {
        {"--json", a->json_path, GC_IO_OUTPUT_FILE},
        {"--csv", a->csv_dir, GC_IO_OUTPUT_DIR},
        {"--dump-kernels", a->dump_dir, GC_IO_OUTPUT_DIR},
    };
    char note[1024], err[1024];
    int rc = gc_check_io_paths(paths, (int)(sizeof(paths) / sizeof(paths[0])), note, sizeof(note),
                               err, sizeof(err));

    if (rc == GC_EINVAL) {
        fprintf(stderr, "gpuchar run: %s\n", err);
        return GC_CLI_EXIT_USAGE;
    }
    if (rc) {
        fprintf(stderr, "gpuchar: %s\n", gc_strerror(rc));
        return GC_CLI_EXIT_FAILED;
    }
    if (note[0])
        fprintf(stderr, "gpuchar run: %s\n", note);
    return GC_CLI_EXIT_OK;
}

/* Output paths are made ready before any measurement (and before the device
 * is opened): a bad one would otherwise only show after the whole run. */
static int prepare_outputs(const struct run_args *a)
{
    int status = check_output_paths(a);

    if (status == GC_CLI_EXIT_OK && a->json_path)
        status = prepare_json_path(a->json_path);
    if (status == GC_CLI_EXIT_OK && a->csv_dir)
        status = make_dirs("--csv", a->csv_dir, a->csv_dir);
    if (status == GC_CLI_EXIT_OK && a->dump_dir)
        status = make_dirs("--dump-kernels", a->dump_dir, a->dump_dir);
    return status;
}

/* The kernel cache named by --cache-dir or GPUCHAR_CACHE_DIR must be a
 * directory that can be written: a regular file there would otherwise turn
 * the cache off without a word. The default place is not checked: without
 * it the run compiles every kernel, which costs only time. */
static int prepare_cache_dir(const struct run_args *a)
{
    const char *env = getenv("GPUCHAR_CACHE_DIR");

    if (a->no_cache)
        return GC_CLI_EXIT_OK;
    if (a->cache_dir)
        return make_dirs("--cache-dir", a->cache_dir, a->cache_dir);
    if (env && *env)
        return make_dirs("GPUCHAR_CACHE_DIR", env, env);
    return GC_CLI_EXIT_OK;
}

/* GPUCHAR_FAULT (the tests' fault injection) is checked before anything
 * runs: a misspelt setting would otherwise run without the fault. */
static int check_faults(void)
{
    char err[256];

    if (gc_check_fault_setting(err, sizeof(err)) == 0)
        return GC_CLI_EXIT_OK;
    fprintf(stderr, "gpuchar: %s\n", err);
    return GC_CLI_EXIT_USAGE;
}

/* ---- Command line ----------------------------------------------------- */

static bool shell_safe(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("-_./:=,+@%", *s))
            return false;
    return true;
}

/* The command as typed, each word single-quoted where a shell would need it,
 * so the recorded line can be pasted back into a shell. */
static char *join_command_line(int argc, char **argv)
{
    size_t len = 1;
    char *s, *q;

    for (int i = 0; i < argc; i++)
        len += 3 + 4 * strlen(argv[i]);
    s = malloc(len);
    if (!s)
        return NULL;
    q = s;
    for (int i = 0; i < argc; i++) {
        if (i > 0)
            *q++ = ' ';
        if (shell_safe(argv[i])) {
            size_t n = strlen(argv[i]);

            memcpy(q, argv[i], n);
            q += n;
            continue;
        }
        *q++ = '\'';
        for (const char *c = argv[i]; *c; c++) {
            if (*c == '\'') {
                memcpy(q, "'\\''", 4);
                q += 4;
            } else {
                *q++ = *c;
            }
        }
        *q++ = '\'';
    }
    *q = '\0';
    return s;
}

/* ---- Outcome ---------------------------------------------------------- */

static void no_device_message(const gc_context *ctx, const char *spec)
{
    const char *detail = gc_last_error(ctx);

    if (*detail)
        fprintf(stderr, "gpuchar: %s: %s%s\n", gc_strerror(GC_ENODEV), detail,
                strstr(detail, "gpuchar list") ? "" : " (see 'gpuchar list')");
    else if (spec && *spec)
        fprintf(stderr, "gpuchar: %s: '%s' (see 'gpuchar list' for the devices)\n",
                gc_strerror(GC_ENODEV), spec);
    else
        fprintf(stderr, "gpuchar: no device found (see 'gpuchar list')\n");
}

static bool json_on_stdout(const struct run_args *a)
{
    return a->json_path && strcmp(a->json_path, "-") == 0;
}

/* Writes the requested files from whatever results exist; returns false
 * when one could not be written. *where names the files written. */
static bool write_outputs(const struct run_args *a, const struct gc_results *res, char *where,
                          size_t wlen)
{
    bool ok = true;
    int rc;

    where[0] = '\0';
    if (a->json_path) {
        rc = gc_write_json(res, a->json_path);
        if (rc < 0) {
            char shown[GC_PATH_SHOWN_LEN], err[1024] = "";

            /* The path was checked before the run; say what changed since. */
            if (gc_check_output_path(a->json_path, err, sizeof(err)) != 0 && err[0])
                fprintf(stderr, "gpuchar: --json: %s\n", err);
            else
                fprintf(stderr, "gpuchar: cannot write --json '%s': %s\n",
                        gc_path_shown(a->json_path, shown, sizeof(shown)), gc_strerror(rc));
            ok = false;
        } else {
            snprintf(where, wlen, "%s", a->json_path);
        }
    }
    if (a->csv_dir) {
        rc = gc_write_csv(res, a->csv_dir);
        if (rc < 0) {
            fprintf(stderr, "gpuchar: cannot write --csv '%s': %s\n", a->csv_dir, gc_strerror(rc));
            ok = false;
        } else {
            size_t used = strlen(where), dl = strlen(a->csv_dir);

            snprintf(where + used, wlen - used, "%s%s%s", used ? " and " : "", a->csv_dir,
                     a->csv_dir[dl - 1] == '/' ? "" : "/");
        }
    }
    return ok;
}

static void print_summary(const struct gc_results *res, struct gc_cli_progress *prog)
{
    int count[GC_BENCH_SKIPPED + 1] = {0};
    static const char *const label[] = {"ok", "failed", "not available", "interrupted", "skipped"};
    char buf[256];
    const char *sep = ": ";
    size_t used;

    for (int i = 0; i < res->nbenches; i++)
        if ((int)res->benches[i].status >= 0 && res->benches[i].status <= GC_BENCH_SKIPPED)
            count[res->benches[i].status]++;
    used = (size_t)snprintf(buf, sizeof(buf), "gpuchar: %d benchmark%s in %.1f s", res->nbenches,
                            res->nbenches == 1 ? "" : "s", res->wall_s);
    for (int s = 0; s <= GC_BENCH_SKIPPED && used < sizeof(buf); s++) {
        if (count[s] == 0)
            continue;
        used +=
            (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%d %s", sep, count[s], label[s]);
        sep = ", ";
    }
    gc__progress_note(prog, "%s", buf);
}

/* Maps the run's return code and the rows' statuses to the exit status, and
 * says on stderr what went wrong. */
/* --verbose: what the compile plan did and who compiled outside it. */
static void print_plan(const struct gc_plan_info *p)
{
    if (!p->made) {
        fprintf(stderr, "gpuchar: no compile plan (--no-plan)\n");
    } else {
        fprintf(stderr,
                "gpuchar: compile plan: %d kernel%s of %d benchmark%s in %.1f s on %d thread%s "
                "(%d compiled, %d from the cache, %d failed, %d unused; %.1f s compiling, "
                "%.1f s of CPU)\n",
                p->kernels, p->kernels == 1 ? "" : "s", p->benches, p->benches == 1 ? "" : "s",
                p->wall_s, p->threads, p->threads == 1 ? "" : "s", p->compiled, p->cached,
                p->failed, p->unused, p->compile_s, p->cpu_s);
        fprintf(stderr,
                "gpuchar: compile plan: %.1f s loading; %d compile worker%s (%d kernel%s, "
                "%.1f s of CPU, %d failed)%s%s\n",
                p->load_s, p->workers, p->workers == 1 ? "" : "s", p->worker_compiled,
                p->worker_compiled == 1 ? "" : "s", p->worker_cpu_s, p->workers_failed,
                p->worker_note[0] ? ": " : "", p->worker_note);
    }
    fprintf(stderr, "gpuchar: compiled on demand: %s\n", p->on_demand[0] ? p->on_demand : "none");
}

static int finish(const gc_context *ctx, const struct run_args *a, int rc,
                  const struct gc_results *res, struct gc_cli_progress *prog)
{
    bool interrupted = rc == GC_EINTR || (gc__run_stop_signal() != 0 && res && !res->complete);
    bool outputs_ok = true;
    char where[2048] = "";
    int status = GC_CLI_EXIT_OK;

    gc__progress_clear(prog);
    if (res) {
        outputs_ok = write_outputs(a, res, where, sizeof(where));
        /* With --json -, standard output carries the JSON only: the text
         * report goes to standard error. */
        if (!a->quiet && gc_write_text(res, json_on_stdout(a) ? stderr : stdout) < 0) {
            fprintf(stderr, "gpuchar: cannot write the report\n");
            outputs_ok = false;
        }
        fflush(stdout);
        if (gc__progress_enabled(prog))
            print_summary(res, prog);
        if (a->verbose)
            print_plan(&res->plan);
        for (int i = 0; i < res->nbenches; i++) {
            const struct gc_bench_result *b = &res->benches[i];

            if (b->status != GC_BENCH_ERROR)
                continue;
            fprintf(stderr, "gpuchar: benchmark %s failed: %s\n", b->name,
                    b->error[0] ? b->error : "no reason given");
            status = GC_CLI_EXIT_FAILED;
        }
    }

    if (interrupted) {
        status = GC_CLI_EXIT_SIGNAL_BASE + (gc__run_stop_signal() ? gc__run_stop_signal() : SIGINT);
        if (!res)
            fprintf(stderr, "gpuchar: interrupted before any result was measured\n");
        else if (where[0])
            fprintf(stderr, "gpuchar: interrupted; partial results written to %s\n", where);
        else
            fprintf(stderr, "gpuchar: interrupted; partial results not saved (no --json or "
                            "--csv given)\n");
    } else if (rc == GC_ENODEV) {
        no_device_message(ctx, a->device);
        status = GC_CLI_EXIT_NODEV;
    } else if (rc == GC_ENOBENCH) {
        gc__cli_lib_error(ctx, rc, NULL);
        status = GC_CLI_EXIT_USAGE;
    } else if (rc == GC_EBACKEND && status == GC_CLI_EXIT_FAILED && res && !res->complete) {
        /* Benchmarks failed (listed above), the others ran: not a backend
         * failure of the run as a whole. */
        fprintf(stderr, "gpuchar: the results are incomplete: %s\n", res->incomplete_reason);
        if (where[0])
            fprintf(stderr, "gpuchar: partial results written to %s\n", where);
    } else if (rc < 0) {
        gc__cli_lib_error(ctx, rc, NULL);
        if (where[0])
            fprintf(stderr, "gpuchar: partial results written to %s\n", where);
        status = GC_CLI_EXIT_FAILED;
    } else if (res && !res->complete) {
        fprintf(stderr, "gpuchar: the run is incomplete: %s\n",
                res->incomplete_reason[0] ? res->incomplete_reason : "no reason given");
        status = GC_CLI_EXIT_FAILED;
    }
    if (!outputs_ok && status == GC_CLI_EXIT_OK)
        status = GC_CLI_EXIT_FAILED;
    return status;
}

/* ---- The command ------------------------------------------------------ */

/* The options every device of a node run gets, and the run. */
static int run_node(const struct run_args *a, const char *cmdline,
                    const struct gc_device_summary *devs, int n, int nsel)
{
    struct gc_cli_node q = {.devs = devs,
                            .ndevs = n,
                            .nsel = nsel,
                            .json_path = a->json_path,
                            .csv_dir = a->csv_dir,
                            .quiet = a->quiet,
                            .no_progress = a->no_progress,
                            .verbose = a->verbose};

    if (n == 1)
        fprintf(stderr,
                "gpuchar run: --device %s names one device (%s): its node document has "
                "one section and no links\n",
                a->device, devs[0].spec);
    gc_run_options_init(&q.base);
    q.base.patterns = (const char *const *)a->patterns;
    q.base.profile = a->quick ? GC_PROFILE_QUICK : a->full ? GC_PROFILE_FULL : GC_PROFILE_DEFAULT;
    q.base.repeat = a->repeat;
    q.base.min_time_ms = a->min_time_ms;
    q.base.dump_kernels_dir = a->dump_dir;
    q.base.cache_dir = a->cache_dir;
    q.base.no_cache = a->no_cache;
    q.base.command_line = cmdline;
    return gc__node_run(&q);
}

/* Measures device (the user's spec, or NULL) with the options of a and
 * writes the outputs; returns the exit status. */
static int run_device(struct run_args *a, const char *cmdline, const char *device)
{
    struct gc_run_options o;
    struct gc_device_summary dev;
    struct gc_cli_progress prog;
    gc_context *ctx = NULL;
    struct gc_results *res = NULL;
    int status, rc, nsel = 0;

    status = check_patterns(a, &nsel);
    if (status != GC_CLI_EXIT_OK)
        return status;
    rc = gc_context_create(&ctx);
    if (rc < 0) {
        gc__cli_lib_error(NULL, rc, "cannot initialise the library");
        status = GC_CLI_EXIT_FAILED;
        goto out;
    }
    rc = gc_device_resolve(ctx, device, &dev);
    if (rc == GC_ENODEV) {
        no_device_message(ctx, device);
        status = GC_CLI_EXIT_NODEV;
        goto out;
    }
    if (rc < 0) {
        gc__cli_lib_error(ctx, rc, "cannot select the device");
        status = GC_CLI_EXIT_FAILED;
        goto out;
    }

    gc__progress_init(&prog, a->quiet, a->no_progress, a->verbose);
    gc_run_options_init(&o);
    /* The spec resolved above, not the user's text, so the run uses the
     * very device named in the "running" line. */
    o.device = dev.spec;
    o.patterns = (const char *const *)a->patterns;
    o.profile = a->quick ? GC_PROFILE_QUICK : a->full ? GC_PROFILE_FULL : GC_PROFILE_DEFAULT;
    o.repeat = a->repeat;
    o.min_time_ms = a->min_time_ms;
    o.dump_kernels_dir = a->dump_dir;
    o.cache_dir = a->cache_dir;
    o.no_cache = a->no_cache;
    o.no_plan = a->no_plan;
    o.command_line = cmdline;
    o.progress = gc__progress_update;
    o.progress_user = &prog;
    o.progress_detail = gc__progress_detail;

    gc__run_signals_install(&ctx, 1, prog.live);
    /* Printed once the handlers are in place: a script that waits for this
     * line before interrupting knows that the interrupt is handled. */
    if (gc__progress_enabled(&prog))
        fprintf(stderr, "gpuchar: running %d benchmark%s on %s (%s)\n", nsel, nsel == 1 ? "" : "s",
                dev.spec, dev.name);
    rc = gc_run(ctx, &o, &res);
    /* Application kernels' predicted times, from this run's own profile. */
    if (res && gc_predict_results(res) < 0)
        fprintf(stderr, "gpuchar: cannot predict the application kernels' times: %s\n",
                gc_strerror(GC_ENOMEM));
    status = finish(ctx, a, rc, res, &prog);
    /* Restored only after the outputs are written: a first interrupt while
     * they are written must not kill the process with a file half done. */
    gc__run_signals_restore();
out:
    gc_results_free(res);
    gc_context_destroy(ctx);
    return status;
}

/* The devices --device names. A list ("all", a backend name with several
 * devices, a comma list) is a node run: every device measured in one run
 * into one node document. Anything else is the single-device run, resolved
 * and reported exactly as before. */
static int run_devices(struct run_args *a, const char *cmdline, int nsel)
{
    struct gc_device_summary *devs = NULL;
    gc_context *ctx = NULL;
    char err[1024];
    bool is_list = false;
    int n = 0, rc, status;

    if (!a->device ||
        (strcmp(a->device, "all") != 0 && !strchr(a->device, ',') && strchr(a->device, ':')))
        return run_device(a, cmdline, a->device);
    rc = gc_context_create(&ctx);
    if (rc < 0) {
        gc__cli_lib_error(NULL, rc, "cannot initialise the library");
        return GC_CLI_EXIT_FAILED;
    }
    rc = gc_device_list_resolve(ctx, a->device, &devs, &n, &is_list, err, sizeof(err));
    gc_context_destroy(ctx);
    if (rc == 0 && !is_list) {
        free(devs);
        return run_device(a, cmdline, a->device);
    }
    if (rc == GC_ENODEV || rc == GC_EINVAL) {
        fprintf(stderr, "gpuchar run: %s\n", err[0] ? err : gc_strerror(rc));
        return rc == GC_ENODEV ? GC_CLI_EXIT_NODEV : GC_CLI_EXIT_USAGE;
    }
    if (rc < 0) {
        gc__cli_lib_error(NULL, rc, "cannot select the devices");
        return GC_CLI_EXIT_FAILED;
    }
    status = run_node(a, cmdline, devs, n, nsel);
    free(devs);
    return status;
}

/* One rank's measurement, in the process its rank started
 * (GC_CLI_RANK_JOB_ENV: "<device> <results file>"): the run's own flow, its
 * JSON into the fleet folder, nothing on stdout. */
static int measure_rank(struct run_args *a, const char *cmdline, int nsel, const char *job)
{
    char device[64];
    const char *sp = strchr(job, ' ');
    int status;

    if (!sp || sp == job || (size_t)(sp - job) >= sizeof(device) || !sp[1]) {
        fprintf(stderr, "gpuchar run: invalid %s '%s'\n", GC_CLI_RANK_JOB_ENV, job);
        return GC_CLI_EXIT_USAGE;
    }
    snprintf(device, sizeof(device), "%.*s", (int)(sp - job), job);
    a->json_path = sp + 1;
    a->quiet = true;
    status = prepare_outputs(a);
    if (status != GC_CLI_EXIT_OK)
        return status;
    if (strcmp(device, "all") == 0) {
        a->device = "all";
        return run_devices(a, cmdline, nsel);
    }
    return run_device(a, cmdline, device);
}

int gc__cmd_run(const struct gc_cli *cli, int argc, char **argv)
{
    struct run_args a = {0};
    char *cmdline = NULL;
    int status, nsel = 0;

    gc_fleet_options_init(&a.fleet.opt);
    status = parse_args(&a, argc, argv);
    if (status != GC_CLI_EXIT_OK)
        goto out;
    if (a.help) {
        gc__cmd_run_usage(stdout);
        goto out;
    }
    /* Everything that can be checked without a device is checked first. */
    status = check_patterns(&a, &nsel);
    if (status == GC_CLI_EXIT_OK)
        status = check_fleet_args(&a);
    if (status == GC_CLI_EXIT_OK)
        status = check_faults();
    if (status == GC_CLI_EXIT_OK && !a.mpi)
        status = prepare_outputs(&a);
    if (status == GC_CLI_EXIT_OK)
        status = prepare_cache_dir(&a);
    if (status != GC_CLI_EXIT_OK)
        goto out;
    cmdline = join_command_line(cli->argc, cli->argv);
    if (!cmdline) {
        fprintf(stderr, "gpuchar: %s\n", gc_strerror(GC_ENOMEM));
        status = GC_CLI_EXIT_FAILED;
        goto out;
    }
    if (a.mpi && getenv(GC_CLI_RANK_JOB_ENV)) {
        status = measure_rank(&a, cmdline, nsel, getenv(GC_CLI_RANK_JOB_ENV));
    } else if (a.mpi) {
        struct gc_cli_mpi m = {.fleet_dir = a.fleet_dir,
                               .device = a.device,
                               .rank_timeout_s = a.rank_timeout_s,
                               .fleet = a.fleet,
                               .argv = cli->argv};

        m.fleet.quiet = a.quiet;
        status = gc__fleet_mpi_run(&m);
    } else {
        status = run_devices(&a, cmdline, nsel);
    }
out:
    free(cmdline);
    free_args(&a);
    return status;
}
