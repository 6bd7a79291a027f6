/* Entry point of the gpuchar tool: global options, the subcommand table and
 * the helpers every subcommand shares for reporting errors. */
#include <getopt.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct gc_cli_command commands[] = {
    {"list", "list the backends and their devices", gc__cmd_list, gc__cmd_list_usage},
    {"benches", "list the benchmarks or describe one", gc__cmd_benches, gc__cmd_benches_usage},
    {"run", "run benchmarks on a device and report the results", gc__cmd_run, gc__cmd_run_usage},
    {"model", "predict throughput from a saved profile", gc__cmd_model, gc__cmd_model_usage},
    {"guide", "which hand optimizations should pay off, from a saved profile", gc__cmd_guide,
     gc__cmd_guide_usage},
    {"report", "print a saved results file again (text, CSV, HTML, figures)", gc__cmd_report,
     gc__cmd_report_usage},
    {"compare", "compare saved runs metric by metric (exit 1 on a regression)", gc__cmd_compare,
     gc__cmd_compare_usage},
    {"fleet", "analyse many devices' results together and name the slow ones", gc__cmd_fleet,
     gc__cmd_fleet_usage},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuchar [-h | --help] [--version] <command> [<options>]\n"
               "\n"
               "Characterizes a compute device (CUDA GPU or OpenCL device) with\n"
               "microbenchmarks.\n"
               "\n"
               "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "  %-9s %s\n", "help", "show the options of a command");
    fprintf(f, "\n"
               "options:\n"
               "  -h, --help     show this help\n"
               "      --version  show the version, git revision and results schema\n"
               "\n"
               "exit status: 0 success; 1 a benchmark failed or the run hit an error\n"
               "(compare: a regression); 2 usage error; 3 no such device; 4 compare: a\n"
               "file cannot be read; 130 interrupted (results so far are written).\n"
               "\n"
               "See 'gpuchar help <command>' for the options of a command.\n");
}

static void version(void)
{
    printf("gpuchar %s (git %s) results schema %d\n", gc_version(), gc_git_revision(),
           GC_SCHEMA_VERSION);
}

static const struct gc_cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "gpuchar: unknown command '%s' (see 'gpuchar --help')\n", name);
    return GC_CLI_EXIT_USAGE;
}

/* 'gpuchar help [COMMAND]' prints to stdout: help asked for is not an error. */
static int help_command(int argc, char **argv)
{
    const struct gc_cli_command *cmd;

    if (argc < 1) {
        usage(stdout);
        return GC_CLI_EXIT_OK;
    }
    if (argc > 1) {
        fprintf(stderr, "gpuchar help: unexpected argument '%s'\n", argv[1]);
        return GC_CLI_EXIT_USAGE;
    }
    if (strcmp(argv[0], "help") == 0) {
        usage(stdout);
        return GC_CLI_EXIT_OK;
    }
    cmd = find_command(argv[0]);
    if (!cmd)
        return unknown_command(argv[0]);
    cmd->usage(stdout);
    return GC_CLI_EXIT_OK;
}

int gc__cli_usage_error(const char *cmd)
{
    fprintf(stderr, "see 'gpuchar help %s' for the options\n", cmd);
    return GC_CLI_EXIT_USAGE;
}

bool gc__cli_parse_count(const char *s, long lo, long hi, int *out)
{
    char *end;
    long v;

    if (!isdigit((unsigned char)s[0]))
        return false;
    errno = 0;
    v = strtol(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

int gc__cli_no_operands(const char *cmd, int argc, char **argv, int first)
{
    if (first >= argc)
        return GC_CLI_EXIT_OK;
    fprintf(stderr, "gpuchar %s: unexpected argument '%s'\n", cmd, argv[first]);
    return gc__cli_usage_error(cmd);
}

void gc__cli_lib_error(const gc_context *ctx, int err, const char *what)
{
    const char *detail = ctx ? gc_last_error(ctx) : "";

    fprintf(stderr, "gpuchar: %s%s%s%s%s\n", what ? what : "", what ? ": " : "", gc_strerror(err),
            *detail ? ": " : "", detail);
}

/* Runs CMD on a copy of its arguments whose argv[0] names the subcommand, so
 * getopt_long's messages read "gpuchar run: unrecognized option ...", and so
 * the permutation getopt_long does leaves main's argv as it was typed. */
static int dispatch(const struct gc_cli *cli, const struct gc_cli_command *cmd, int argc,
                    char **argv)
{
    char name[64];
    char **sub = malloc(((size_t)argc + 1) * sizeof(*sub));
    int status;

    if (!sub) {
        fprintf(stderr, "gpuchar: %s\n", gc_strerror(GC_ENOMEM));
        return GC_CLI_EXIT_FAILED;
    }
    snprintf(name, sizeof(name), "gpuchar %s", cmd->name);
    sub[0] = name;
    for (int i = 1; i < argc; i++)
        sub[i] = argv[i];
    sub[argc] = NULL;
    /* optind = 0 makes glibc's getopt start over, including its scan of
     * the option string's leading '+' and of POSIXLY_CORRECT. */
    optind = 0;
    status = cmd->main(cli, argc, sub);
    free(sub);
    return status;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const struct gc_cli cli = {argc, argv};
    const struct gc_cli_command *cmd;
    static char prog[] = "gpuchar";
    char *top[2] = {prog, NULL};
    char **gargv = argv;
    int c, status;

    /* A start as the run's compile worker serves it and ends; an ordinary
     * start lets runs use such workers. Not a command: not in --help. */
    status = gc_compile_worker_entry();
    if (status >= 0)
        return status;
    /* The global options are parsed from a copy named "gpuchar" too, so
     * messages do not show the path the tool was started from. A leading '+'
     * stops at the command: its options belong to it. */
    if (argc > 0) {
        gargv = malloc(((size_t)argc + 1) * sizeof(*gargv));
        if (!gargv) {
            fprintf(stderr, "gpuchar: %s\n", gc_strerror(GC_ENOMEM));
            return GC_CLI_EXIT_FAILED;
        }
        memcpy(gargv, argv, ((size_t)argc + 1) * sizeof(*gargv));
        gargv[0] = prog;
    } else {
        gargv = top;
        argc = 1;
    }
    status = -1;
    while (status < 0 && (c = getopt_long(argc, gargv, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            status = GC_CLI_EXIT_OK;
            break;
        case 'V':
            version();
            status = GC_CLI_EXIT_OK;
            break;
        default:
            fprintf(stderr, "see 'gpuchar --help' for the usage\n");
            status = GC_CLI_EXIT_USAGE;
            break;
        }
    }
    if (status >= 0)
        goto out;
    if (optind >= argc) {
        usage(stderr);
        status = GC_CLI_EXIT_USAGE;
        goto out;
    }
    if (strcmp(gargv[optind], "help") == 0) {
        status = help_command(argc - optind - 1, gargv + optind + 1);
        goto out;
    }
    cmd = find_command(gargv[optind]);
    if (!cmd) {
        status = unknown_command(gargv[optind]);
        goto out;
    }
    status = dispatch(&cli, cmd, argc - optind, gargv + optind);
out:
    /* A report cut short by a full disk or a closed pipe must not look like
     * success. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "gpuchar: error writing to standard output\n");
        if (status == GC_CLI_EXIT_OK)
            status = GC_CLI_EXIT_FAILED;
    }
    if (gargv != top)
        free(gargv);
    return status;
}
