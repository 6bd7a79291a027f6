/* 'gpuchar guide PROFILE.json': which hand optimizations should pay off on
 * the device a saved profile measured (uCLbench §4), each with the figures
 * it rests on, and application.jacobi's measured best beside the
 * prediction. No device is opened. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <gpuchar/guide.h>

#include "cli.h"

void gc__cmd_guide_usage(FILE *f)
{
    fprintf(f, "usage: gpuchar guide [--json FILE] PROFILE.json\n"
               "\n"
               "Reads a results file of 'gpuchar run --json' and says which hand\n"
               "optimizations of uCLbench S4 (vectorization, manual caching in local\n"
               "memory, branch elimination) should pay off on its device and by roughly how\n"
               "much, with the occupancy a memory-bound kernel needs. Each statement names\n"
               "the figures it rests on (benchmark:metric and value); inputs the profile\n"
               "lacks are named with the benchmark that measures them. Where the profile\n"
               "holds application.jacobi, its measured best version (the paper's Table 2)\n"
               "is set beside the predicted best class: hit or miss. No device is opened.\n"
               "\n"
               "options:\n"
               "      --json FILE  also write the guide as JSON ('-': standard output, the\n"
               "                   text then goes nowhere)\n"
               "  -h, --help       show this help\n"
               "\n"
               "exit status: 0 success; 2 usage error, or PROFILE is not a profile\n"
               "(missing, unreadable, not JSON, not a results document, or holding none of\n"
               "the figures the guide reads).\n");
}

int gc__cmd_guide(const struct gc_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *json = NULL;
    struct gc_results *r = NULL;
    struct gc_guide g;
    char err[1024], shown[GC_PATH_SHOWN_LEN];
    int c, e;

    (void)cli;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h') {
            gc__cmd_guide_usage(stdout);
            return GC_CLI_EXIT_OK;
        }
        if (c != 'j')
            return gc__cli_usage_error("guide");
        json = optarg;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "gpuchar guide: %s\n",
                optind >= argc ? "missing PROFILE.json (a results file of 'gpuchar run --json')"
                               : "one PROFILE.json only");
        return GC_CLI_EXIT_USAGE;
    }
    const char *path = argv[optind];
    e = gc_read_json(path, &r, err, sizeof(err));
    if (e == 0)
        e = gc_guide(r, &g, err, sizeof(err));
    gc_results_free(r);
    if (e) {
        fprintf(stderr, "gpuchar guide: %s: not a profile: %s\n",
                gc_path_shown(path, shown, sizeof(shown)), err);
        return GC_CLI_EXIT_USAGE;
    }
    if (!(json && strcmp(json, "-") == 0) && gc_write_guide_text(&g, stdout))
        return GC_CLI_EXIT_FAILED;
    if (json && (e = gc_write_guide_json(&g, json))) {
        fprintf(stderr, "gpuchar guide: cannot write %s: %s\n",
                gc_path_shown(json, shown, sizeof(shown)), gc_strerror(e));
        return GC_CLI_EXIT_FAILED;
    }
    return GC_CLI_EXIT_OK;
}
