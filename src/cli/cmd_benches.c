/* 'gpuchar benches': the benchmark catalogue as a table, or the whole
 * description of one benchmark with its method. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void gc__cmd_benches_usage(FILE *f)
{
    fprintf(f, "usage: gpuchar benches [--describe NAME]\n"
               "\n"
               "Lists every benchmark with its group and a one-line summary. The names,\n"
               "the groups and shell patterns of names select benchmarks in\n"
               "'gpuchar run --bench'.\n"
               "\n"
               "options:\n"
               "  -d, --describe NAME  show the group, summary and method of benchmark NAME\n"
               "  -h, --help           show this help\n");
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

static void print_table(void)
{
    int n = gc_bench_count(), wname = (int)strlen("name"), wgroup = (int)strlen("group");

    for (int i = 0; i < n; i++) {
        const struct gc_bench_info *b = gc_bench_get(i);
        int ln, lg;

        if (!b)
            continue;
        ln = (int)strlen(or_empty(b->name));
        lg = (int)strlen(or_empty(b->group));
        wname = ln > wname ? ln : wname;
        wgroup = lg > wgroup ? lg : wgroup;
    }
    printf("%-*s  %-*s  %s\n", wname, "name", wgroup, "group", "summary");
    for (int i = 0; i < n; i++) {
        const struct gc_bench_info *b = gc_bench_get(i);

        if (!b)
            continue;
        printf("%-*s  %-*s  %s\n", wname, or_empty(b->name), wgroup, or_empty(b->group),
               or_empty(b->summary));
    }
}

/* The method text is printed indented under its heading, line by line, so
 * that a multi-line text keeps its own line breaks. */
static void print_description(const struct gc_bench_info *b)
{
    const char *m = or_empty(b->method);

    printf("name:     %s\n", or_empty(b->name));
    printf("group:    %s\n", or_empty(b->group));
    printf("summary:  %s\n", or_empty(b->summary));
    printf("method:\n");
    while (*m) {
        size_t len = strcspn(m, "\n");

        if (len > 0)
            printf("  %.*s", (int)len, m);
        putchar('\n');
        m += len;
        if (*m == '\n')
            m++;
    }
}

int gc__cmd_benches(const struct gc_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"describe", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *describe = NULL;
    int c, status;

    (void)cli;
    while ((c = getopt_long(argc, argv, "d:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            describe = optarg;
            break;
        case 'h':
            gc__cmd_benches_usage(stdout);
            return GC_CLI_EXIT_OK;
        default:
            return gc__cli_usage_error("benches");
        }
    }
    status = gc__cli_no_operands("benches", argc, argv, optind);
    if (status != GC_CLI_EXIT_OK)
        return status;
    if (!describe) {
        print_table();
        return GC_CLI_EXIT_OK;
    }
    for (int i = 0; i < gc_bench_count(); i++) {
        const struct gc_bench_info *b = gc_bench_get(i);

        if (b && b->name &&
            (strcmp(b->name, describe) == 0 || (b->alias && strcmp(b->alias, describe) == 0))) {
            print_description(b);
            return GC_CLI_EXIT_OK;
        }
    }
    fprintf(stderr, "gpuchar: unknown benchmark '%s' (see 'gpuchar benches')\n", describe);
    return GC_CLI_EXIT_USAGE;
}
