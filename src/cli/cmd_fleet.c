/* 'gpuchar fleet': the fleet analysis of per-device results files gathered
 * in any way (rank 0 of 'gpuchar run --mpi' runs the same), and its scale
 * test on synthetic devices. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <gpuchar/fleet.h>

#include "cli.h"

void gc__cmd_fleet_usage(FILE *f)
{
    fprintf(f, "usage: gpuchar fleet [options] FILE|DIR...\n"
               "       gpuchar fleet --simulate N [options]\n"
               "\n"
               "Analyses the results of many devices together: groups them by model and\n"
               "configuration, and flags a device whose headline figure (a measured cell of\n"
               "the summary tables) is worse than the stricter of LOW x its group's median\n"
               "and the SKU's floor from a reference file, or better than HIGH x the median\n"
               "with a robust z above 3.5. DIR operands are searched for *.json results files\n"
               "(and '.started' markers of ranks that never finished). Node documents\n"
               "('gpuchar run --device all --json') add their devices, and their links are\n"
               "compared across the nodes of one topology: a pair worse than LOW x the median\n"
               "of at least 3 nodes flags the node.\n"
               "\n"
               "options:\n"
               "  -o, --out DIR        write fleet.json, fleet.csv and fleet.html to DIR\n"
               "                       (and fleet_nodes.csv with node documents)\n"
               "      --json FILE      write the fleet document to FILE\n"
               "      --csv FILE       write the per-device headline figures to FILE\n"
               "      --html FILE      write the HTML page to FILE\n"
               "      --reference FILE per-SKU absolute floors (docs/schema.md)\n"
               "      --low-ratio X    relative floor, 0 < X < 1; default 0.90\n"
               "      --high-ratio X   relative ceiling, X > 1; default 1.10\n"
               "      --simulate N     analyse N synthetic devices (1 to 1000000) and print\n"
               "                       the summary size, time and peak memory\n"
               "      --figures K      headline figures per synthetic device; default 40\n"
               "      --slow LIST      synthetic devices (comma-separated indices) at 0.7\n"
               "  -q, --quiet          print nothing on success\n"
               "  -h, --help           show this help\n"
               "\n"
               "exit status: 0 no device flagged and every device has a result; 1 a device\n"
               "or node flagged or a device without a result (failed, timed out, refused:\n"
               "another gpuchar or schema version); 2 usage error or input that cannot be\n"
               "read.\n");
}

/* ---- Shared with 'gpuchar run --mpi' --------------------------------------- */

static int write_out(const char *what, const char *path, int rc)
{
    if (rc >= 0)
        return GC_CLI_EXIT_OK;
    fprintf(stderr, "gpuchar fleet: cannot write %s '%s': %s\n", what, path, gc_strerror(rc));
    return GC_CLI_EXIT_FAILED;
}

static int write_outputs(const struct gc_fleet *f, const struct gc_cli_fleet *o)
{
    char json[4096], csv[4096], html[4096], err[512];
    struct gc_html_info info;
    int status = GC_CLI_EXIT_OK, s;

    snprintf(json, sizeof(json), "%s%s",
             o->json      ? o->json
             : o->out_dir ? o->out_dir
                          : "",
             o->json || !o->out_dir ? "" : "/fleet.json");
    snprintf(csv, sizeof(csv), "%s%s",
             o->csv       ? o->csv
             : o->out_dir ? o->out_dir
                          : "",
             o->csv || !o->out_dir ? "" : "/fleet.csv");
    snprintf(html, sizeof(html), "%s%s",
             o->html      ? o->html
             : o->out_dir ? o->out_dir
                          : "",
             o->html || !o->out_dir ? "" : "/fleet.html");
    if (json[0] && (s = write_out("--json", json, gc_write_fleet_json(f, json))) != 0)
        status = s;
    if (csv[0] && (s = write_out("--csv", csv, gc_write_fleet_csv(f, csv))) != 0)
        status = s;
    if (o->out_dir && f->nnodes > 0) { /* the nodes' link figures beside it */
        snprintf(csv, sizeof(csv), "%s/fleet_nodes.csv", o->out_dir);
        if ((s = write_out("--out", csv, gc_write_fleet_nodes_csv(f, csv))) != 0)
            status = s;
    }
    if (html[0]) {
        int rc = gc_write_fleet_html(f, html, &info, err, sizeof(err));
        if (rc < 0) {
            fprintf(stderr, "gpuchar fleet: cannot write --html '%s': %s\n", html, err);
            status = GC_CLI_EXIT_FAILED;
        } else if (info.note[0] && !o->quiet) {
            fprintf(stderr, "gpuchar fleet: %s\n", info.note);
        }
    }
    return status;
}

int gc__fleet_check_outputs(const struct gc_cli_fleet *o)
{
    const char *paths[3] = {o->json, o->csv, o->html}, *opts[3] = {"--json", "--csv", "--html"};
    char err[512];

    if (o->out_dir && gc_check_output_dir(o->out_dir, err, sizeof(err)) < 0) {
        fprintf(stderr, "gpuchar fleet: cannot write --out '%s': %s\n", o->out_dir, err);
        return GC_CLI_EXIT_USAGE;
    }
    for (int i = 0; i < 3; i++)
        if (paths[i] && gc_check_output_path(paths[i], err, sizeof(err)) < 0) {
            fprintf(stderr, "gpuchar fleet: cannot write %s '%s': %s\n", opts[i], paths[i], err);
            return GC_CLI_EXIT_USAGE;
        }
    return GC_CLI_EXIT_OK;
}

int gc__fleet_report(struct gc_fleet *f, const struct gc_cli_fleet *o)
{
    struct gc_fleet_reference ref = {0};
    char err[1024];
    int rc, status;

    if (o->reference) {
        rc = gc_fleet_reference_read(o->reference, &ref, err, sizeof(err));
        if (rc < 0) {
            fprintf(stderr, "gpuchar fleet: %s\n", err);
            return GC_CLI_EXIT_USAGE;
        }
    }
    rc = gc_fleet_analyse(f, &o->opt, o->reference ? &ref : NULL);
    gc_fleet_reference_free(&ref);
    if (rc < 0) {
        fprintf(stderr, "gpuchar fleet: %s\n", gc_strerror(rc));
        return GC_CLI_EXIT_FAILED;
    }
    status = write_outputs(f, o);
    bool bad = f->nflags > 0 || f->nfailed > 0 || f->nflagged_nodes > 0;
    if (!o->quiet || bad)
        gc_write_fleet_text(f, o->quiet ? stderr : stdout);
    if (status == GC_CLI_EXIT_OK && bad)
        status = GC_CLI_EXIT_FAILED;
    return status;
}

int gc__fleet_parse_ratio(const char *opt, const char *s, bool above_one, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (*s && *end == '\0' && errno == 0 && isfinite(v) &&
        (above_one ? v > 1 && v <= 100 : v > 0 && v < 1)) {
        *out = v;
        return GC_CLI_EXIT_OK;
    }
    fprintf(stderr, "gpuchar: invalid value '%s' for %s: expected a number %s\n", s, opt,
            above_one ? "above 1 (at most 100)" : "between 0 and 1");
    return GC_CLI_EXIT_USAGE;
}

/* ---- The command ------------------------------------------------------------ */

enum { OPT_JSON = 256, OPT_CSV, OPT_HTML, OPT_REF, OPT_LOW, OPT_HIGH, OPT_SIM, OPT_FIGS, OPT_SLOW };

struct fleet_args {
    struct gc_cli_fleet out;
    int simulate, figures;
    int slow[64], nslow;
    bool help;
};

static const struct option fleet_longopts[] = {
    {"out", required_argument, NULL, 'o'},
    {"json", required_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},
    {"html", required_argument, NULL, OPT_HTML},
    {"reference", required_argument, NULL, OPT_REF},
    {"low-ratio", required_argument, NULL, OPT_LOW},
    {"high-ratio", required_argument, NULL, OPT_HIGH},
    {"simulate", required_argument, NULL, OPT_SIM},
    {"figures", required_argument, NULL, OPT_FIGS},
    {"slow", required_argument, NULL, OPT_SLOW},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int bad(const char *opt, const char *v, const char *expected)
{
    fprintf(stderr, "gpuchar fleet: invalid value '%s' for %s: expected %s\n", v, opt, expected);
    return GC_CLI_EXIT_USAGE;
}

static int parse_slow(struct fleet_args *a, const char *s)
{
    char buf[1024], *save = NULL;

    snprintf(buf, sizeof(buf), "%s", s);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (a->nslow == 64 || !gc__cli_parse_count(t, 0, 999999, &a->slow[a->nslow++]))
            return bad("--slow", s, "at most 64 comma-separated device indices");
    return GC_CLI_EXIT_OK;
}

static int parse_one(struct fleet_args *a, int c)
{
    switch (c) {
    case 'o':
        a->out.out_dir = optarg;
        return GC_CLI_EXIT_OK;
    case OPT_JSON:
        a->out.json = optarg;
        return GC_CLI_EXIT_OK;
    case OPT_CSV:
        a->out.csv = optarg;
        return GC_CLI_EXIT_OK;
    case OPT_HTML:
        a->out.html = optarg;
        return GC_CLI_EXIT_OK;
    case OPT_REF:
        a->out.reference = optarg;
        return GC_CLI_EXIT_OK;
    case OPT_LOW:
        return gc__fleet_parse_ratio("--low-ratio", optarg, false, &a->out.opt.low_ratio);
    case OPT_HIGH:
        return gc__fleet_parse_ratio("--high-ratio", optarg, true, &a->out.opt.high_ratio);
    case OPT_SIM:
        return gc__cli_parse_count(optarg, 1, 1000000, &a->simulate)
                   ? GC_CLI_EXIT_OK
                   : bad("--simulate", optarg, "a number of devices from 1 to 1000000");
    case OPT_FIGS:
        return gc__cli_parse_count(optarg, 1, 1000, &a->figures)
                   ? GC_CLI_EXIT_OK
                   : bad("--figures", optarg, "a number from 1 to 1000");
    case OPT_SLOW:
        return parse_slow(a, optarg);
    case 'q':
        a->out.quiet = true;
        return GC_CLI_EXIT_OK;
    case 'h':
        a->help = true;
        return GC_CLI_EXIT_OK;
    default:
        return gc__cli_usage_error("fleet");
    }
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What rank 0 does for N ranks, on synthetic summaries: decode every
 * summary a rank would send (one buffer, as MPI_Gatherv delivers them),
 * analyse, write the outputs. The summaries are made one at a time, so
 * that the peak memory is rank 0's. */
static int simulate(struct fleet_args *a)
{
    struct gc_fleet *f = NULL, *one = NULL;
    char *all = NULL, *s = NULL, err[256];
    size_t used = 0, cap = 0, len = 0, *off = NULL;
    int rc = 0, status;
    double t0, t1;

    off = malloc((size_t)(a->simulate + 1) * sizeof(*off));
    for (int i = 0; off && rc == 0 && i < a->simulate; i++) {
        rc = gc_fleet_create(&one);
        rc = rc ? rc : gc_fleet_simulate(one, i, 1, a->figures, 42, a->slow, a->nslow);
        rc = rc ? rc : gc_fleet_gpu_encode(one, 0, &s, &len);
        gc_fleet_free(one);
        if (rc == 0 && used + len > cap) {
            char *p = realloc(all, cap = 2 * (used + len));
            rc = p ? 0 : GC_ENOMEM;
            all = p ? p : all;
        }
        if (rc == 0) {
            memcpy(all + used, s, len);
            off[i] = used;
            used += len;
        }
        free(s);
    }
    if (!off || rc) {
        free(off);
        free(all);
        fprintf(stderr, "gpuchar fleet: %s\n", gc_strerror(rc ? rc : GC_ENOMEM));
        return GC_CLI_EXIT_FAILED;
    }
    off[a->simulate] = used;
    t0 = now_s();
    rc = gc_fleet_create(&f);
    for (int i = 0; rc == 0 && i < a->simulate; i++)
        rc = gc_fleet_add_summary(f, all + off[i], off[i + 1] - off[i], err, sizeof(err));
    t1 = now_s();
    status = rc ? GC_CLI_EXIT_FAILED : gc__fleet_report(f, &a->out);
    double t2 = now_s();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("simulated %d devices, %d figures each: summary %.0f bytes per device (%.1f MiB in "
           "all); rank 0: decode %.3f s, analysis and outputs %.3f s, total %.3f s; peak RSS "
           "%.1f MiB\n",
           a->simulate, a->figures, (double)used / a->simulate, (double)used / 1048576.0, t1 - t0,
           t2 - t1, t2 - t0, (double)ru.ru_maxrss / 1024.0);
    gc_fleet_free(f);
    free(off);
    free(all);
    return status;
}

int gc__cmd_fleet(const struct gc_cli *cli, int argc, char **argv)
{
    struct fleet_args a = {.figures = 40};
    struct gc_fleet *f = NULL;
    char err[1024];
    int c, status = GC_CLI_EXIT_OK, rc;

    (void)cli;
    gc_fleet_options_init(&a.out.opt);
    while ((c = getopt_long(argc, argv, "o:qh", fleet_longopts, NULL)) != -1)
        if ((status = parse_one(&a, c)) != GC_CLI_EXIT_OK)
            return status;
    if (a.help) {
        gc__cmd_fleet_usage(stdout);
        return GC_CLI_EXIT_OK;
    }
    if ((status = gc__fleet_check_outputs(&a.out)) != GC_CLI_EXIT_OK)
        return status;
    if (a.simulate > 0) {
        if (optind < argc) {
            fprintf(stderr, "gpuchar fleet: --simulate takes no files ('%s')\n", argv[optind]);
            return GC_CLI_EXIT_USAGE;
        }
        return simulate(&a);
    }
    if (optind >= argc) {
        fprintf(stderr, "gpuchar fleet: no results given (FILE or DIR operands)\n");
        return gc__cli_usage_error("fleet");
    }
    if ((rc = gc_fleet_create(&f)) < 0) {
        fprintf(stderr, "gpuchar fleet: %s\n", gc_strerror(rc));
        return GC_CLI_EXIT_FAILED;
    }
    f->declare = gc_results_declare; /* files older than the report record */
    rc = gc_fleet_add_paths(f, (const char *const *)argv + optind, argc - optind, err, sizeof(err));
    if (rc < 0) {
        fprintf(stderr, "gpuchar fleet: %s\n", err);
        status = rc == GC_ENOMEM ? GC_CLI_EXIT_FAILED : GC_CLI_EXIT_USAGE;
    } else {
        status = gc__fleet_report(f, &a.out);
    }
    gc_fleet_free(f);
    return status;
}
