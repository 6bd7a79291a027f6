/* 'gpuchar compare': two or more saved runs side by side, metric by metric,
 * with ratios and a verdict that weighs each change against a threshold and
 * against the spread the runs measured. The exit status tells a CI job
 * whether anything regressed. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Exit statuses of compare, beyond the common ones (0 nothing regressed,
 * 1 a regression, 2 usage). */
#define EXIT_UNREADABLE 4

void gc__cmd_compare_usage(FILE *f)
{
    fprintf(f, "usage: gpuchar compare [options] BASE.json OTHER.json [MORE.json ...]\n"
               "\n"
               "Compares saved runs ('gpuchar run --json FILE') metric by metric against\n"
               "the first (the baseline): each run's value, the ratio to the baseline and\n"
               "a verdict. A change counts when it exceeds the threshold and the spread the\n"
               "two runs measured (CV, or the 95%% confidence interval where wider), so that\n"
               "noise is not called a regression. Whether higher or lower is better follows\n"
               "from the unit and the name (rates: higher; latencies and times: lower);\n"
               "other figures (capacities, occupancies) are reported as changed, never as\n"
               "regressions, as are figures without a spread (fitted, single-sample) that\n"
               "move beyond the threshold (noted \"no spread\"). Across devices, rates are\n"
               "also compared per clock per compute unit and times in cycles. No device is\n"
               "opened.\n"
               "\n"
               "options:\n"
               "  -t, --threshold PCT      a change counts beyond PCT percent (default 5)\n"
               "      --noise-factor K     ...and beyond K times the combined spread (default 2)\n"
               "  -m, --metric PATTERN     compare only these metrics: shell patterns on\n"
               "                           'bench/metric' or 'metric'; repeatable, comma lists\n"
               "  -b, --bench PATTERN      compare only these benchmarks (name, group or shell\n"
               "                           pattern); repeatable, comma lists\n"
               "      --format FMT         text (default), markdown or json on stdout\n"
               "      --json FILE          also write the comparison as JSON ('-': stdout, which\n"
               "                           then carries the JSON only: the text goes to stderr)\n"
               "      --html FILE          also write an HTML page with the runs' curves\n"
               "                           overlaid (figures need gnuplot)\n"
               "      --no-fail            exit 0 even when something regressed\n"
               "  -q, --quiet              nothing on stdout (the exit status says it)\n"
               "  -h, --help               show this help\n"
               "\n"
               "Outputs are checked before any file is read: a device node, FIFO, socket,\n"
               "folder, read-only file, link to anything but a regular file, one of the\n"
               "results files or a path both outputs name is refused (status 2); a link to\n"
               "a regular file is followed (and said so).\n"
               "\n"
               "exit status: 0 nothing regressed; 1 a metric regressed beyond threshold and\n"
               "noise, or a benchmark failed that ran in the baseline; 2 usage error (also a\n"
               "--metric or --bench pattern that selects nothing, or a refused output); 4 a\n"
               "file cannot be read (missing, a folder, empty, larger than 256 MiB, binary,\n"
               "not JSON, truncated, not a gpuchar results document, unsupported schema\n"
               "version) or an output cannot be written.\n");
}

/* Appends the comma-separated items of s to *list (NULL-terminated). */
static int add_patterns(char ***list, int *n, char *s)
{
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        char **nl;

        if (!*tok)
            continue;
        nl = realloc(*list, (size_t)(*n + 2) * sizeof(*nl));
        if (!nl)
            return -1;
        *list = nl;
        nl[(*n)++] = tok;
        nl[*n] = NULL;
    }
    return 0;
}

static bool parse_number(const char *s, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < 0)
        return false;
    *out = v;
    return true;
}

/* What the command line asks of a comparison. */
struct compare_args {
    struct gc_compare_options opt;
    const char *format, *json, *html;
    char **metrics, **benches;
    int nmetrics, nbenches;
    bool quiet, no_fail;
};

static int out_of_memory(void)
{
    fprintf(stderr, "gpuchar compare: %s\n", gc_strerror(GC_ENOMEM));
    return GC_CLI_EXIT_FAILED;
}

/* Reads the options into a. Returns true to go on, false with *status set
 * when the command ends here (help, a bad option, no memory). */
static bool parse_compare(int argc, char **argv, struct compare_args *a, int *status)
{
    enum { OPT_NOISE = 256, OPT_FORMAT, OPT_JSON, OPT_HTML, OPT_NOFAIL };
    static const struct option longopts[] = {
        {"threshold", required_argument, NULL, 't'},
        {"noise-factor", required_argument, NULL, OPT_NOISE},
        {"metric", required_argument, NULL, 'm'},
        {"bench", required_argument, NULL, 'b'},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"json", required_argument, NULL, OPT_JSON},
        {"html", required_argument, NULL, OPT_HTML},
        {"no-fail", no_argument, NULL, OPT_NOFAIL},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;

    while ((c = getopt_long(argc, argv, "t:m:b:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (!parse_number(optarg, &a->opt.threshold)) {
                fprintf(stderr, "gpuchar compare: --threshold wants a percentage >= 0, not '%s'\n",
                        optarg);
                *status = GC_CLI_EXIT_USAGE;
                return false;
            }
            a->opt.threshold /= 100;
            break;
        case OPT_NOISE:
            if (!parse_number(optarg, &a->opt.noise_factor)) {
                fprintf(stderr, "gpuchar compare: --noise-factor wants a number >= 0, not '%s'\n",
                        optarg);
                *status = GC_CLI_EXIT_USAGE;
                return false;
            }
            break;
        case 'm':
            if (add_patterns(&a->metrics, &a->nmetrics, optarg) != 0) {
                *status = out_of_memory();
                return false;
            }
            break;
        case 'b':
            if (add_patterns(&a->benches, &a->nbenches, optarg) != 0) {
                *status = out_of_memory();
                return false;
            }
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "text") != 0 && strcmp(optarg, "markdown") != 0 &&
                strcmp(optarg, "json") != 0) {
                fprintf(stderr, "gpuchar compare: --format is text, markdown or json, not '%s'\n",
                        optarg);
                *status = GC_CLI_EXIT_USAGE;
                return false;
            }
            a->format = optarg;
            break;
        case OPT_JSON:
            a->json = optarg;
            break;
        case OPT_HTML:
            a->html = optarg;
            break;
        case OPT_NOFAIL:
            a->no_fail = true;
            break;
        case 'q':
            a->quiet = true;
            break;
        case 'h':
            gc__cmd_compare_usage(stdout);
            return false;
        default:
            *status = gc__cli_usage_error("compare");
            return false;
        }
    }
    return true;
}

/* The results files and the outputs together: no output is a device node,
 * FIFO, socket, read-only file or link to one, one of the results files, or
 * the same place as the other output; standard output carries one document.
 * A refusal is a usage error. */
static int check_paths(const struct compare_args *a, char **files, int nruns)
{
    struct gc_io_path *paths = calloc((size_t)nruns + 2, sizeof(*paths));
    char note[1024], err[1024];
    int rc;

    if (!paths)
        return out_of_memory();
    paths[0] = (struct gc_io_path){"--json", a->json, GC_IO_OUTPUT_FILE};
    paths[1] = (struct gc_io_path){"--html", a->html, GC_IO_OUTPUT_FILE};
    for (int k = 0; k < nruns; k++)
        paths[k + 2] = (struct gc_io_path){"the results file", files[k], GC_IO_INPUT};
    rc = gc_check_io_paths(paths, nruns + 2, note, sizeof(note), err, sizeof(err));
    free(paths);
    if (rc) {
        fprintf(stderr, "gpuchar compare: %s\n", rc == GC_EINVAL ? err : gc_strerror(rc));
        return rc == GC_EINVAL ? GC_CLI_EXIT_USAGE : GC_CLI_EXIT_FAILED;
    }
    if (note[0])
        fprintf(stderr, "gpuchar compare: %s\n", note);
    if (a->json && strcmp(a->json, "-") == 0 && !a->quiet && strcmp(a->format, "json") == 0) {
        fprintf(stderr, "gpuchar compare: --json - and --format json both write the comparison "
                        "to standard output; give one\n");
        return GC_CLI_EXIT_USAGE;
    }
    return GC_CLI_EXIT_OK;
}

/* Reads every results file; the first that cannot be read ends the command. */
static int read_runs(char **paths, int nruns, struct gc_results **runs, char *err, size_t len)
{
    for (int k = 0; k < nruns; k++) {
        const char *path = paths[k];
        char shown[GC_PATH_SHOWN_LEN];
        int rc = gc_read_json(path, &runs[k], err, len);

        /* A file older than the report record gets this gpuchar's declarations. */
        if (rc == 0 && (rc = gc_results_declare(runs[k])) != 0)
            err[0] = '\0';
        if (rc) {
            fprintf(stderr, "gpuchar compare: %s: %s\n", gc_path_shown(path, shown, sizeof(shown)),
                    err[0] ? err : gc_strerror(rc));
            return EXIT_UNREADABLE;
        }
    }
    return GC_CLI_EXIT_OK;
}

/* The comparison on stdout (unless quiet), then to the JSON and HTML files
 * asked for. */
static int write_comparison(const struct gc_comparison *cmp, const struct compare_args *a,
                            char *err, size_t len)
{
    int rc = 0;

    /* With --json -, standard output carries that JSON only: the text view
     * goes to standard error. */
    if (!a->quiet) {
        if (strcmp(a->format, "json") == 0)
            rc = gc_write_compare_json(cmp, "-");
        else
            rc = gc_write_compare_text(cmp, a->json && strcmp(a->json, "-") == 0 ? stderr : stdout,
                                       strcmp(a->format, "markdown") == 0);
    }
    if (rc == 0 && a->json)
        rc = gc_write_compare_json(cmp, a->json);
    if (rc) {
        fprintf(stderr, "gpuchar compare: writing the comparison: %s\n", gc_strerror(rc));
        return EXIT_UNREADABLE;
    }
    if (a->html) {
        struct gc_html_info info;

        rc = gc_write_compare_html(cmp, a->html, &info, err, len);
        if (rc) {
            fprintf(stderr, "gpuchar compare: writing %s: %s\n", a->html,
                    err[0] ? err : gc_strerror(rc));
            return EXIT_UNREADABLE;
        }
        if (info.note[0])
            fprintf(stderr, "gpuchar compare: %s: %s\n", a->html, info.note);
    }
    return GC_CLI_EXIT_OK;
}

int gc__cmd_compare(const struct gc_cli *cli, int argc, char **argv)
{
    struct compare_args a = {.format = "text"};
    int nruns = 0, status = GC_CLI_EXIT_OK, rc;
    struct gc_results **runs = NULL;
    struct gc_comparison *cmp = NULL;
    char err[1024];

    (void)cli;
    gc_compare_options_init(&a.opt);
    if (!parse_compare(argc, argv, &a, &status))
        goto out;
    nruns = argc - optind;
    if (nruns < 2) {
        fprintf(stderr, "gpuchar compare: give at least two results files (the first is the "
                        "baseline)\n");
        status = gc__cli_usage_error("compare");
        goto out;
    }
    if (nruns > 26) {
        fprintf(stderr, "gpuchar compare: at most 26 results files\n");
        status = GC_CLI_EXIT_USAGE;
        goto out;
    }
    a.opt.metrics = (const char *const *)a.metrics;
    a.opt.benches = (const char *const *)a.benches;
    status = check_paths(&a, argv + optind, nruns);
    if (status != GC_CLI_EXIT_OK)
        goto out;
    err[0] = '\0';
    if ((a.json && strcmp(a.json, "-") != 0 &&
         (rc = gc_check_output_path(a.json, err, sizeof(err))) != 0) ||
        (a.html && (rc = gc_check_output_path(a.html, err, sizeof(err))) != 0)) {
        fprintf(stderr, "gpuchar compare: %s\n", err);
        status = rc == GC_EINVAL ? GC_CLI_EXIT_USAGE : EXIT_UNREADABLE;
        goto out;
    }
    runs = calloc((size_t)nruns, sizeof(*runs));
    if (!runs) {
        status = out_of_memory();
        goto out;
    }
    status = read_runs(argv + optind, nruns, runs, err, sizeof(err));
    if (status != GC_CLI_EXIT_OK)
        goto out;
    /* A selector that matches nothing would compare nothing and report "0
     * regressions": a typo must not pass a CI job. */
    {
        const char *none = gc_compare_unmatched((const struct gc_results *const *)runs, nruns,
                                                &a.opt, err, sizeof(err));

        if (none) {
            fprintf(stderr, "gpuchar compare: %s\n", err);
            status = GC_CLI_EXIT_USAGE;
            goto out;
        }
    }
    rc = gc_compare((const struct gc_results *const *)runs, (const char *const *)(argv + optind),
                    nruns, &a.opt, &cmp);
    if (rc) {
        fprintf(stderr, "gpuchar compare: %s\n", gc_strerror(rc));
        status = GC_CLI_EXIT_FAILED;
        goto out;
    }
    status = write_comparison(cmp, &a, err, sizeof(err));
    if (status == GC_CLI_EXIT_OK && cmp->regressions > 0 && !a.no_fail)
        status = GC_CLI_EXIT_FAILED;
out:
    gc_comparison_free(cmp);
    for (int k = 0; runs && k < nruns; k++)
        gc_results_free(runs[k]);
    free(runs);
    free(a.metrics);
    free(a.benches);
    return status;
}
