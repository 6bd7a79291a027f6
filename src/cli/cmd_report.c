/* 'gpuchar report': renders a results document saved by 'gpuchar run --json'
 * again, on any machine and without a device: the text report with its
 * summary tables, and optionally the CSV files, so that a run measured on a
 * GPU host can be read, compared and plotted elsewhere. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void gc__cmd_report_usage(FILE *f)
{
    fprintf(f, "usage: gpuchar report [--csv DIR] [--quiet] FILE\n"
               "\n"
               "Prints the text report of a results document written by 'gpuchar run\n"
               "--json FILE', with the summary tables (compute, matrix units, memory\n"
               "levels, copy kernel). No device is opened.\n"
               "\n"
               "options:\n"
               "      --csv DIR   also write the CSV files (metrics, every series, the\n"
               "                  summary tables) into DIR\n"
               "  -q, --quiet     no text report (with --csv: only the files)\n"
               "  -h, --help      show this help\n"
               "\n"
               "exit status: 0 success; 1 the document cannot be read or written out;\n"
               "2 usage error.\n");
}

int gc__cmd_report(const struct gc_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"csv", required_argument, NULL, 'c'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *csv = NULL, *path;
    bool quiet = false;
    struct gc_results *r = NULL;
    char err[512];
    int c, rc;

    (void)cli;
    while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            csv = optarg;
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
    err[0] = '\0';
    rc = gc_read_json(path, &r, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "gpuchar report: %s: %s\n", path, err[0] ? err : gc_strerror(rc));
        return GC_CLI_EXIT_FAILED;
    }
    if (!quiet && (rc = gc_write_text(r, stdout)) != 0)
        fprintf(stderr, "gpuchar report: writing the report: %s\n", gc_strerror(rc));
    if (rc == 0 && csv && (rc = gc_write_csv(r, csv)) != 0)
        fprintf(stderr, "gpuchar report: writing CSV files to %s: %s\n", csv, gc_strerror(rc));
    gc_results_free(r);
    return rc ? GC_CLI_EXIT_FAILED : GC_CLI_EXIT_OK;
}
