/* Declarations shared by the files of the gpuchar command-line tool: exit
 * statuses, the subcommands, option helpers and the progress display. */
#ifndef GC_CLI_CLI_H
#define GC_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <gpuchar/fleet.h>
#include <gpuchar/gpuchar.h>
#include <gpuchar/node.h>

/* Exit statuses, as documented in 'gpuchar --help'. A run stopped by a
 * signal exits with 128 plus the signal number (130 for SIGINT), as a shell
 * reports a process killed by that signal. */
enum {
    GC_CLI_EXIT_OK = 0,
    GC_CLI_EXIT_FAILED = 1,
    GC_CLI_EXIT_USAGE = 2,
    GC_CLI_EXIT_NODEV = 3,
    GC_CLI_EXIT_SIGNAL_BASE = 128,
};

/* The command line as main() received it, before any option parsing
 * reordered anything; the run command records it in the results. */
struct gc_cli {
    int argc;
    char **argv;
};

/* A subcommand. Its argv is a private copy whose argv[0] is "gpuchar NAME",
 * so that getopt_long names the subcommand in its messages and may permute
 * the copy freely. Returns the exit status. */
struct gc_cli_command {
    const char *name;
    const char *summary;
    int (*main)(const struct gc_cli *cli, int argc, char **argv);
    void (*usage)(FILE *f);
};

int gc__cmd_list(const struct gc_cli *cli, int argc, char **argv);
void gc__cmd_list_usage(FILE *f);
int gc__cmd_benches(const struct gc_cli *cli, int argc, char **argv);
void gc__cmd_benches_usage(FILE *f);
int gc__cmd_run(const struct gc_cli *cli, int argc, char **argv);
void gc__cmd_run_usage(FILE *f);
int gc__cmd_model(const struct gc_cli *cli, int argc, char **argv);
void gc__cmd_model_usage(FILE *f);
int gc__cmd_guide(const struct gc_cli *cli, int argc, char **argv);
void gc__cmd_guide_usage(FILE *f);
int gc__cmd_report(const struct gc_cli *cli, int argc, char **argv);
void gc__cmd_report_usage(FILE *f);
int gc__cmd_compare(const struct gc_cli *cli, int argc, char **argv);
void gc__cmd_compare_usage(FILE *f);

int gc__cmd_fleet(const struct gc_cli *cli, int argc, char **argv);
void gc__cmd_fleet_usage(FILE *f);

/* The outputs and thresholds of a fleet analysis ('gpuchar fleet', rank 0
 * of 'gpuchar run --mpi'). */
struct gc_cli_fleet {
    const char *out_dir; /* fleet.json, fleet.csv, fleet.html there; NULL none */
    const char *json, *csv, *html, *reference;
    struct gc_fleet_options opt;
    bool quiet;
};

/* Analyses f, writes the outputs, prints the flagged devices and those
 * without a result; returns the exit status (0 none, 1 some, 2 a reference
 * file that cannot be read). */
int gc__fleet_report(struct gc_fleet *f, const struct gc_cli_fleet *o);

/* Checks, before any work, that the outputs of o can be written; prints why
 * not and returns GC_CLI_EXIT_USAGE otherwise. */
int gc__fleet_check_outputs(const struct gc_cli_fleet *o);

/* A --low-ratio (0 < X < 1) or --high-ratio (1 < X <= 100) value. */
int gc__fleet_parse_ratio(const char *opt, const char *s, bool above_one, double *out);

/* 'gpuchar run --mpi' (cli/fleet_mpi.c; without MPI, cli/fleet_nompi.c);
 * returns the exit status. */
struct gc_cli_mpi {
    const char *fleet_dir;
    const char *device; /* --device as given; NULL: the default backend */
    double rank_timeout_s;
    struct gc_cli_fleet fleet;
    char **argv; /* the command line as typed: a rank measures by running it again */
};

/* Set in the environment of the process a rank starts to measure its
 * device: "<device> <results file>"; 'gpuchar run --mpi' seeing it measures
 * that device into that file, without MPI. */
#define GC_CLI_RANK_JOB_ENV "GPUCHAR_FLEET_RANK_JOB"
int gc__fleet_mpi_run(const struct gc_cli_mpi *m);

/* The MPI library this build uses ("Open MPI v4.1.4"); NULL without MPI. */
const char *gc__fleet_mpi_library(void);

/* True (and *what names it) when the process was started by an MPI launcher
 * with more than one rank. */
bool gc__under_mpi_launcher(char *what, size_t len);

/* Tells the user where to find the options of subcommand CMD after getopt
 * has printed what was wrong; returns GC_CLI_EXIT_USAGE. */
int gc__cli_usage_error(const char *cmd);

/* Rejects operands left after option parsing ("gpuchar list foo"). Returns
 * GC_CLI_EXIT_OK when there are none, else prints the first one and returns
 * GC_CLI_EXIT_USAGE. */
int gc__cli_no_operands(const char *cmd, int argc, char **argv, int first);

/* A count in [lo, hi] written as digits only (strtol alone would skip
 * leading blanks and take a sign); false otherwise, *out untouched. */
bool gc__cli_parse_count(const char *s, long lo, long hi, int *out);

/* Prints "gpuchar: WHAT: <gc_strerror>: <gc_last_error>" on stderr, leaving
 * out WHAT when NULL and the last error when empty. */
void gc__cli_lib_error(const gc_context *ctx, int err, const char *what);

/* The progress display on stderr: one line rewritten in place on a terminal,
 * or one plain line per finished benchmark when asked for. */
struct gc_cli_progress {
    bool live;  /* rewrite one line on a terminal */
    bool lines; /* print one plain line per finished benchmark */
    bool shown; /* a live line is on the screen now */
    int width;  /* terminal columns; live lines are cut to fit */
};

/* Chooses the display: live when stderr is a terminal (and not "dumb") and
 * neither quiet nor no_progress is set; plain lines when verbose and the live
 * display is off. */
void gc__progress_init(struct gc_cli_progress *p, bool quiet, bool no_progress, bool verbose);

/* True when the display writes anything at all. */
bool gc__progress_enabled(const struct gc_cli_progress *p);

/* The gc_progress_fn passed to gc_run; user is a struct gc_cli_progress. */
void gc__progress_update(void *user, int done, int total, const char *bench,
                         const char *status_line);

/* The gc_progress_detail_fn passed to gc_run: the live line shows the
 * benchmark running, the configurations it has measured, the time spent
 * and the estimated time left. Plain lines (verbose, not a terminal) come
 * from gc__progress_update only. */
void gc__progress_detail(void *user, const struct gc_progress_info *info);

/* The live line of info: "[5/40] memory.dram.copy  config 12/31, 3 s  elapsed
 * 1m02s  ETA ~1m10s". Returns what snprintf returns. */
int gc__progress_format(char *buf, size_t len, const struct gc_progress_info *info);

/* Removes a live line so that what follows starts on a clean line. */
void gc__progress_clear(struct gc_cli_progress *p);

/* Prints a diagnostic line on stderr below or instead of a live line. */
void gc__progress_note(struct gc_cli_progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- Node runs (several devices in one run) ------------------------------ */

/* The most devices one run measures. */
#define GC_CLI_MAX_DEVICES 64

/* The stop handlers of 'gpuchar run' (signals.c), for one device or
 * several: the first SIGINT or SIGTERM asks every context to stop.
 * restore returns the signal received (0 none); stop_signal tells it while
 * the handlers are in place. */
void gc__run_signals_install(gc_context *const *ctxs, int n, bool live_line);
int gc__run_signals_restore(void);
int gc__run_stop_signal(void);

/* A node run: the devices, the options every device's gc_run gets (device
 * and progress are set per device) and the outputs. */
struct gc_cli_node {
    const struct gc_device_summary *devs;
    int ndevs;
    struct gc_run_options base;
    int nsel; /* benchmarks selected */
    const char *json_path, *csv_dir;
    bool quiet, no_progress, verbose;
};

/* Measures every device (node_run.c) and writes the node document; returns
 * the exit status. */
int gc__node_run(const struct gc_cli_node *q);

/* The link.* rows between the devices specs[0..n) (node_links.c): *out
 * NULL and note saying why when the link family is not built in. */
int gc__node_links(gc_context *ctx, const struct gc_run_options *o, const char *const *specs, int n,
                   struct gc_results **out, char *note, size_t notelen);

/* The progress of a node run on stderr (node_progress.c): one combined
 * line on a terminal (each device's benchmark and the run's estimated time
 * left), or one plain line per finished benchmark naming its device. */
struct gc_node_progress;
int gc__node_progress_create(struct gc_node_progress **out, const struct gc_device_summary *devs,
                             int n, bool quiet, bool no_progress, bool verbose);
void gc__node_progress_free(struct gc_node_progress *p);
/* The user pointer of device i's gc_run (its progress_user). */
void *gc__node_progress_slot(struct gc_node_progress *p, int i);
void gc__node_progress_update(void *slot, int done, int total, const char *bench,
                              const char *status_line);
void gc__node_progress_detail(void *slot, const struct gc_progress_info *info);
bool gc__node_progress_enabled(const struct gc_node_progress *p);
bool gc__node_progress_live(const struct gc_node_progress *p);
/* Prints a line below the live line (thread-safe). */
void gc__node_progress_note(struct gc_node_progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void gc__node_progress_clear(struct gc_node_progress *p);

#endif
