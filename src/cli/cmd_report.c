/* 'gpuchar report': renders a results document saved by 'gpuchar run
 * --json' again, on any machine and without a device: the text report with
 * its summary tables, and optionally the CSV files, an HTML page with every
 * figure, and the figures as SVG and PNG files, so that a run measured on a
 * GPU host can be read, compared and plotted elsewhere. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void gc__cmd_report_usage(FILE *f)
{
    fprintf(f, "usage: gpuchar report [--csv DIR] [--html FILE] [--plots DIR] [--quiet] FILE\n"
               "\n"
               "Prints the text report of a results document written by 'gpuchar run\n"
               "--json FILE', with the summary tables (compute, matrix units, memory\n"
               "levels, copy kernel). No device is opened. A node document (gpuchar run\n"
               "--device all) gives a section per device, the schedule, the links and\n"
               "the summary across the devices (--plots does not apply to it).\n"
               "\n"
               "options:\n"
               "      --csv DIR    also write the CSV files (metrics, every series, the\n"
               "                   summary tables) into DIR\n"
               "      --html FILE  also write one self-contained HTML page (opens offline):\n"
               "                   run context, summary tables, every benchmark's metrics\n"
               "                   and figures; without gnuplot (Debian package gnuplot-nox)\n"
               "                   the page has the tables only and says so\n"
               "      --plots DIR  also write every figure as DIR/<figure>.svg and .png\n"
               "                   (needs gnuplot)\n"
               "  -q, --quiet      no text report (with the options above: only the files)\n"
               "  -h, --help       show this help\n"
               "\n"
               "Output paths are checked before anything is read or drawn: a device node,\n"
               "FIFO, socket, folder, read-only file, link to anything but a regular file,\n"
               "the results file itself or a path two outputs share is refused (status 2);\n"
               "a link to a regular file is followed (and said so).\n"
               "Environment: GPUCHAR_GNUPLOT names the gnuplot program (default: gnuplot\n"
               "from PATH).\n"
               "\n"
               "exit status: 0 success; 1 the document cannot be read (missing, a folder,\n"
               "empty, larger than 256 MiB, binary, not JSON, not a results document) or an\n"
               "output cannot be written (or --plots without gnuplot); 2 usage error,\n"
               "including an output path refused as above.\n");
}

/* The document and the outputs together: no output is a device node, FIFO,
 * socket, read-only file or link to one, the document itself, or the same
 * place as another output. A refusal is a usage error. */
static int check_paths(const char *path, const char *csv, const char *html, const char *plots)
{
    const struct gc_io_path paths[] = {
        {"the results file", path, GC_IO_INPUT},
        {"--html", html, GC_IO_OUTPUT_FILE},
        {"--csv", csv, GC_IO_OUTPUT_DIR},
        {"--plots", plots, GC_IO_OUTPUT_DIR},
    };
    char note[1024], err[1024];
    int rc = gc_check_io_paths(paths, (int)(sizeof(paths) / sizeof(paths[0])), note, sizeof(note),
                               err, sizeof(err));

    if (rc) {
        fprintf(stderr, "gpuchar report: %s\n", rc == GC_EINVAL ? err : gc_strerror(rc));
        return rc == GC_EINVAL ? GC_CLI_EXIT_USAGE : GC_CLI_EXIT_FAILED;
    }
    if (note[0])
        fprintf(stderr, "gpuchar report: %s\n", note);
    return GC_CLI_EXIT_OK;
}

/* An output that is refused or cannot be written fails now, not after the
 * work: refused paths are usage errors (2), unwritable ones failures (1). */
static int check_outputs(const char *path, const char *csv, const char *html, const char *plots)
{
    char err[1024];
    int rc;

    if ((rc = check_paths(path, csv, html, plots)) != GC_CLI_EXIT_OK)
        return rc;
    err[0] = '\0';
    if (html && (rc = gc_check_output_path(html, err, sizeof(err))) != 0) {
        fprintf(stderr, "gpuchar report: --html: %s\n", err);
        return rc == GC_EINVAL ? GC_CLI_EXIT_USAGE : GC_CLI_EXIT_FAILED;
    }
    if (csv && gc_check_output_dir(csv, err, sizeof(err)) != 0) {
        fprintf(stderr, "gpuchar report: --csv: %s\n", err);
        return GC_CLI_EXIT_FAILED;
    }
    if (plots) {
        struct gc_plot_tool t;

        if (gc_check_output_dir(plots, err, sizeof(err)) != 0) {
            fprintf(stderr, "gpuchar report: --plots: %s\n", err);
            return GC_CLI_EXIT_FAILED;
        }
        gc_plot_probe(&t);
        if (!t.available) {
            fprintf(stderr, "gpuchar report: --plots needs gnuplot: %s\n", t.reason);
            return GC_CLI_EXIT_FAILED;
        }
    }
    return GC_CLI_EXIT_OK;
}

/* A node document (gpuchar run --device all): its text report, CSV files
 * and page. */
static int report_node(const char *path, const char *csv, const char *html, bool quiet)
{
    struct gc_node *n = NULL;
    char err[1024], shown[GC_PATH_SHOWN_LEN];
    int rc;

    rc = gc_read_node_json(path, &n, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "gpuchar report: %s: %s\n", gc_path_shown(path, shown, sizeof(shown)),
                err[0] ? err : gc_strerror(rc));
        return GC_CLI_EXIT_FAILED;
    }
    if (!quiet && (rc = gc_write_node_text(n, stdout)) != 0)
        fprintf(stderr, "gpuchar report: writing the report: %s\n", gc_strerror(rc));
    if (rc == 0 && csv && (rc = gc_write_node_csv(n, csv)) != 0)
        fprintf(stderr, "gpuchar report: writing CSV files to %s: %s\n", csv, gc_strerror(rc));
    if (rc == 0 && html && (rc = gc_write_node_html(n, html, err, sizeof(err))) != 0)
        fprintf(stderr, "gpuchar report: writing %s: %s\n", html, err[0] ? err : gc_strerror(rc));
    else if (rc == 0 && html && !quiet)
        fprintf(stderr, "gpuchar report: wrote %s\n", html);
    gc_node_free(n);
    return rc ? GC_CLI_EXIT_FAILED : GC_CLI_EXIT_OK;
}

int gc__cmd_report(const struct gc_cli *cli, int argc, char **argv)
{
    enum { OPT_CSV = 256, OPT_HTML, OPT_PLOTS };
    static const struct option longopts[] = {
        {"csv", required_argument, NULL, OPT_CSV},
        {"html", required_argument, NULL, OPT_HTML},
        {"plots", required_argument, NULL, OPT_PLOTS},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *csv = NULL, *html = NULL, *plots = NULL, *path;
    bool quiet = false, node;
    struct gc_results *r = NULL;
    char err[1024], shown[GC_PATH_SHOWN_LEN];
    int c, rc;

    (void)cli;
    while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_CSV:
            csv = optarg;
            break;
        case OPT_HTML:
            html = optarg;
            break;
        case OPT_PLOTS:
            plots = optarg;
            break;
        case 'q':
            quiet = true;
            break;
        case 'h':
            gc__cmd_report_usage(stdout);
            return GC_CLI_EXIT_OK;
        default:
            return gc__cli_usage_error("report");
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "gpuchar report: no results file given\n");
        return gc__cli_usage_error("report");
    }
    if (gc__cli_no_operands("report", argc, argv, optind + 1) != GC_CLI_EXIT_OK)
        return GC_CLI_EXIT_USAGE;
    path = argv[optind];
    node = strcmp(path, "-") != 0 && gc_is_node_json(path);
    /* A usage error is told before what the outputs need (gnuplot). */
    if (node && plots) {
        fprintf(stderr, "gpuchar report: --plots draws one device's results; a node document "
                        "holds several: use --html for the node's page\n");
        return GC_CLI_EXIT_USAGE;
    }
    if ((rc = check_outputs(path, csv, html, plots)) != GC_CLI_EXIT_OK)
        return rc;
    if (node)
        return report_node(path, csv, html, quiet);
    rc = gc_read_json(path, &r, err, sizeof(err));
    /* A file older than the report record gets this gpuchar's declarations. */
    if (rc == 0 && (rc = gc_results_declare(r)) != 0)
        err[0] = '\0';
    if (rc) {
        fprintf(stderr, "gpuchar report: %s: %s\n", gc_path_shown(path, shown, sizeof(shown)),
                err[0] ? err : gc_strerror(rc));
        gc_results_free(r);
        return GC_CLI_EXIT_FAILED;
    }
    /* Application kernels' predictions from the file's own profile (a file
     * written before they existed gets them too). */
    if ((rc = gc_predict_results(r)) < 0)
        fprintf(stderr, "gpuchar report: predicting application times: %s\n", gc_strerror(rc));
    rc = rc < 0 ? rc : 0;
    if (rc == 0 && !quiet && (rc = gc_write_text(r, stdout)) != 0)
        fprintf(stderr, "gpuchar report: writing the report: %s\n", gc_strerror(rc));
    if (rc == 0 && csv && (rc = gc_write_csv(r, csv)) != 0)
        fprintf(stderr, "gpuchar report: writing CSV files to %s: %s\n", csv, gc_strerror(rc));
    if (rc == 0 && html) {
        struct gc_html_info info;

        rc = gc_write_html(r, html, &info, err, sizeof(err));
        if (rc)
            fprintf(stderr, "gpuchar report: writing %s: %s\n", html,
                    err[0] ? err : gc_strerror(rc));
        else if (info.note[0])
            fprintf(stderr, "gpuchar report: %s: %s\n", html, info.note);
        else if (!quiet)
            fprintf(stderr, "gpuchar report: wrote %s (%d figures)\n", html, info.figures);
    }
    if (rc == 0 && plots) {
        int n = 0;

        rc = gc_write_plots(r, plots, &n, err, sizeof(err));
        if (rc)
            fprintf(stderr, "gpuchar report: writing figures to %s: %s\n", plots,
                    err[0] ? err : gc_strerror(rc));
        else if (!quiet)
            fprintf(stderr, "gpuchar report: wrote %d figures (SVG and PNG) to %s\n", n, plots);
    }
    gc_results_free(r);
    return rc ? GC_CLI_EXIT_FAILED : GC_CLI_EXIT_OK;
}
