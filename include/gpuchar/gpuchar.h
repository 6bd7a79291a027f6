/* gpuchar public API: errors, devices, benchmark catalogue, runs and the
 * results tree. The gpuchar command-line tool uses nothing but this header. */
#ifndef GPUCHAR_GPUCHAR_H
#define GPUCHAR_GPUCHAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GC_BUILDING_LIBRARY) && defined(__GNUC__)
#define GC_EXTERN __attribute__((visibility("default")))
#else
#define GC_EXTERN
#endif

#define GC_VERSION_MAJOR 0
#define GC_VERSION_MINOR 1
#define GC_VERSION_PATCH 0

/* Version of the JSON results schema (docs/schema.md). Bumped on any
 * incompatible change of keys or meaning. */
#define GC_SCHEMA_VERSION 1

/* Library version string ("0.1.0") and the git revision it was built from
 * ("unknown" outside a checkout). Never NULL. */
GC_EXTERN const char *gc_version(void);
GC_EXTERN const char *gc_git_revision(void);

/* For a program that starts itself again (a fleet rank its measurement):
 * the environment this process started with, NAME=VALUE (setting) added in
 * place of any NAME= there. The libraries gpuchar loads may rewrite the live
 * environment in place (an OpenCL ICD loader cuts OCL_ICD_FILENAMES at its
 * first colon while reading it), so that a child given environ lists other
 * devices. A NULL-terminated array to free() (its strings are not copies:
 * free the array only), or NULL when out of memory. */
GC_EXTERN char **gc_start_environment_with(const char *setting);

/* ---- Errors ------------------------------------------------------------ */

/* Every library function returns 0 or one of these negative codes. */
#define GC_ERRNO_MAP(XX)                                                                           \
    XX(EINVAL, "invalid argument")                                                                 \
    XX(ENOMEM, "out of host memory")                                                               \
    XX(EDEVMEM, "out of device memory")                                                            \
    XX(ENODEV, "no such device")                                                                   \
    XX(ENOBENCH, "no benchmark matches")                                                           \
    XX(ENOLIB, "required library not found")                                                       \
    XX(ENOTSUP, "not available on this device")                                                    \
    XX(ECOMPILE, "kernel compilation failed")                                                      \
    XX(ELAUNCH, "kernel launch failed")                                                            \
    XX(EVERIFY, "kernel result verification failed")                                               \
    XX(EBACKEND, "backend call failed")                                                            \
    XX(EIO, "input/output error")                                                                  \
    XX(EINTR, "interrupted")                                                                       \
    XX(ERANGE, "value out of range")                                                               \
    XX(EUNSTABLE, "measurement did not stabilise")

enum gc_errno {
    GC_OK = 0,
#define GC__ERR_ENUM(name, msg) GC_##name,
    GC__ERR_FIRST = -1000,
    GC_ERRNO_MAP(GC__ERR_ENUM)
#undef GC__ERR_ENUM
        GC__ERR_LAST
};

/* Human-readable message and symbolic name ("GC_ENOMEM") of an error code.
 * Never NULL; unknown codes give "unknown error". */
GC_EXTERN const char *gc_strerror(int err);
GC_EXTERN const char *gc_err_name(int err);

/* ---- Context ----------------------------------------------------------- */

/* A library context: loaded backends, options, the last error's details. */
typedef struct gc_context gc_context;

/* Creates a context and probes every compiled-in backend. A backend whose
 * libraries are missing is recorded as unavailable with the reason; that is
 * not an error. Returns 0 or GC_ENOMEM. */
GC_EXTERN int gc_context_create(gc_context **out);
GC_EXTERN void gc_context_destroy(gc_context *ctx);

/* Details of the last failure in this context (native API name, native code,
 * compiler log excerpt...). Empty string when none. Never NULL. */
GC_EXTERN const char *gc_last_error(const gc_context *ctx);

/* Requests that a running gc_run() stop at the next safe point. Safe to call
 * from a signal handler. */
GC_EXTERN void gc_request_stop(gc_context *ctx);

/* ---- Backends and devices --------------------------------------------- */

enum gc_device_type { GC_DEVICE_GPU, GC_DEVICE_CPU, GC_DEVICE_ACCELERATOR, GC_DEVICE_OTHER };

struct gc_backend_status {
    const char *name; /* "cuda", "opencl", "null" */
    bool available;   /* libraries loaded and initialised */
    char reason[512]; /* why not available; empty when available */
    int device_count;
};

struct gc_device_summary {
    char spec[32]; /* what --device accepts: "cuda:0", "opencl:1" */
    const char *backend;
    int index; /* index within its backend */
    char name[256];
    char vendor[128];
    char arch[64]; /* "sm_90", "OpenCL 3.0 pthread" ... */
    char driver[128];
    enum gc_device_type type;
    int compute_units;
    double clock_mhz; /* maximum core clock reported; 0 unknown */
    size_t global_mem;
};

/* Number of backends compiled in, and their status (a backend is
 * initialised when first asked for, here or by a device lookup). */
GC_EXTERN int gc_backend_count(const gc_context *ctx);
GC_EXTERN int gc_backend_get(gc_context *ctx, int i, struct gc_backend_status *out);

/* Every device of every available backend, in backend order. *out is
 * malloc'ed (free with free()); *count may be 0. */
GC_EXTERN int gc_device_list(gc_context *ctx, struct gc_device_summary **out, int *count);

/* Resolves a device spec: NULL or "" gives the default device (first CUDA
 * GPU, else the first OpenCL device); "cuda:N", "opencl:N" (OpenCL devices of all
 * platforms numbered in order), a backend name (its first device) or a
 * substring of the device name. GC_ENODEV when none matches. */
GC_EXTERN int gc_device_resolve(gc_context *ctx, const char *spec, struct gc_device_summary *out);

/* ---- Benchmark catalogue ---------------------------------------------- */

struct gc_bench_info {
    const char *name;    /* "memory.copy" */
    const char *group;   /* "memory", "compute" ... */
    const char *summary; /* one line */
    const char *method;  /* the method, formulas and paper section */
    const char *alias;   /* another name it answers to (a benchmark it replaced); NULL none */
};

GC_EXTERN int gc_bench_count(void);
GC_EXTERN const struct gc_bench_info *gc_bench_get(int i);

/* True when NAME matches the shell-style PATTERN ('*', '?', '[...]'), or when
 * PATTERN contains no wildcard and equals NAME or its group. */
GC_EXTERN bool gc_bench_matches(const char *pattern, const char *name, const char *group);
/* gc_bench_matches on a benchmark's name and group, or PATTERN (without
 * wildcards) equal to the benchmark's alias. */
GC_EXTERN bool gc_bench_selects(const char *pattern, const struct gc_bench_info *b);

/* ---- Results tree ------------------------------------------------------ */

/* Statistics of repeated samples of one quantity. */
struct gc_stats {
    int n;
    double median, min, max, mean, stddev;
    double ci95; /* half-width of the 95% confidence interval of the mean */
    double cv;   /* stddev / mean */
};

struct gc_point {
    double x;
    double y;              /* the reported value (median unless stated) */
    struct gc_stats stats; /* of y over samples; n == 0 when y is derived */
    char label[64];        /* optional configuration label, "" when none */
};

struct gc_series {
    char name[64];
    char x_name[64], x_unit[32];
    char y_name[64], y_unit[32];
    struct gc_point *points;
    int npoints, cap;
};

struct gc_metric {
    char name[64];
    double value;
    char unit[32];
    double limit;          /* theoretical limit in the same unit; NAN unknown */
    double fraction;       /* value / limit; NAN when limit unknown */
    struct gc_stats stats; /* n == 0 when not a sampled quantity */
    char note[256];        /* how it was obtained / configuration */
};

/* Conditions under which a benchmark's samples were taken. NAN / -1 when
 * unknown on the device. */
struct gc_context_info {
    double sm_clock_mhz;                       /* observed during the run (median) */
    char sm_clock_source[32];                  /* "clock64/globaltimer", "sensor", "nominal" */
    double sm_clock_min_mhz, sm_clock_max_mhz; /* sensor extremes while sampling */
    double mem_clock_mhz;
    double temp_start_c, temp_end_c;
    double power_limit_w;
    double power_avg_w;
    int ecc_enabled;                     /* -1 unknown */
    unsigned long long throttle_reasons; /* OR of the raw reasons seen */
    int throttled_samples;               /* samples flagged (after redo) */
    int redone_samples;                  /* samples discarded and measured again */
};

/* The sampling policy a benchmark's headline measurements used
 * (max_samples == 0: not recorded). */
struct gc_sampling_info {
    int min_samples, max_samples;
    double min_time_s;      /* target duration of one sample */
    double spread_target;   /* stop once ci95 / median is at most this */
    double time_cap_s;      /* ... or after this much sampling */
    bool repeat_explicit;   /* the sample counts are the user's --repeat */
    bool min_time_explicit; /* min_time_s is the user's --min-time */
};

enum gc_bench_status {
    GC_BENCH_OK,
    GC_BENCH_ERROR,         /* failed: message in error */
    GC_BENCH_NOT_AVAILABLE, /* device lacks a capability: reason in error */
    GC_BENCH_INTERRUPTED,   /* running when the user stopped the run: partial data */
    GC_BENCH_SKIPPED        /* never started: the run was stopped before it */
};

struct gc_bench_report;

/* One parameter of the configuration a benchmark's figures came from (the
 * launch its kernel ran at: ILP, vector width, block, footprint...): a
 * number, or a word (text not empty, value NAN). A benchmark with several
 * kernels prefixes the name with the kernel's part ("l1.footprint"). */
struct gc_config_param {
    char name[48];
    double value;
    char text[48];
};

struct gc_bench_result {
    char name[64];
    char group[32];
    enum gc_bench_status status;
    char error[1024];
    char warning[1024]; /* plausibility warnings ("; "-separated), "" when none */
    double wall_s;      /* host wall time spent in this benchmark */
    double compile_s;   /* of which compiling kernels */
    int kernels_compiled, kernels_cached;
    int kernels_planned;   /* kernels taken from the run's compile plan */
    double plan_compile_s; /* compile time the plan spent on those (before the run) */
    /* Kernel launches through the engine and their device time as the
     * backend timed them (events): wall_s less kernel_s is host work and
     * the launches' own overhead. */
    long launches;
    double kernel_s;
    /* Of wall_s: waiting for a host resource another device's benchmark held
     * (node runs); deferred: the run put it back behind later benchmarks
     * while that resource was busy. */
    double wait_s;
    bool deferred;
    struct gc_context_info context;
    char stop_rule[64]; /* which rule ended the sampling of the headline */
    struct gc_sampling_info sampling;
    struct gc_metric *metrics;
    int nmetrics, metrics_cap;
    struct gc_series *series;
    int nseries, series_cap;
    /* The configuration its figures came from, as its meter launch reads it
     * back (src/core/benchcfg.h); nconfig 0 when it records none. */
    struct gc_config_param *config;
    int nconfig, config_cap;
    /* How the report shows this benchmark (the summary-table cells it fills,
     * how its series form figures), as its description declares it: owned,
     * one block (free() releases it); NULL when it declares nothing or the
     * file predates the record. Internal to gpuchar (src/core/present.h). */
    struct gc_bench_report *report;
};

struct gc_run_meta {
    char tool_version[32];
    char git_revision[64];
    char date[40]; /* ISO 8601 UTC */
    char host[128];
    char command_line[1024];
    char profile[16]; /* "quick", "default", "full" */
    struct gc_device_summary device;
    char device_extra[1024]; /* backend-specific facts, "key=value; ..." */
    char data_init[128];     /* how input buffers were filled */
    int repeat;
    double min_time_ms;
};

/* The run's compile plan: the kernels the selected benchmarks declared,
 * compiled in parallel before the first measurement. */
struct gc_plan_info {
    bool made;            /* a plan was made (not with --no-plan) */
    int benches;          /* benchmarks that declared kernels */
    int kernels;          /* distinct kernels declared */
    int compiled, cached; /* compiled; read from the compiled-kernel cache */
    int failed;           /* kernels whose compilation failed */
    int unused;           /* kernels no benchmark asked for */
    int threads;          /* compile threads */
    double wall_s;        /* wall time of the plan */
    double compile_s;     /* compile time summed over kernels */
    double cpu_s;         /* CPU time of the process and its ended children meanwhile */
    double load_s;        /* time loading the binaries for the device, summed over kernels */
    /* Compile workers (processes that compile for drivers that compile one
     * program at a time per process): started, the kernels they compiled,
     * those that failed (their kernels then compiled in the process), their
     * CPU time (part of cpu_s), and why none were used or how one failed. */
    int workers, worker_compiled, workers_failed;
    double worker_cpu_s;
    char worker_note[900];
    /* Benchmarks that compiled or loaded kernels outside the plan,
     * comma-separated (cut with "..." when they do not fit). */
    char on_demand[1024];
};

struct gc_results {
    struct gc_run_meta meta;
    bool complete; /* false when a benchmark failed, the run was interrupted or
                      a fatal error cut it */
    char incomplete_reason[256];
    struct gc_bench_result *benches;
    int nbenches, cap;
    double wall_s;
    struct gc_plan_info plan;
};

/* Frees a results tree (NULL allowed). */
GC_EXTERN void gc_results_free(struct gc_results *r);
/* Gives every benchmark of r that has no report record (gc_bench_result.report:
 * a results file written before the record existed) the one this gpuchar's
 * description of that benchmark declares; benchmarks it does not know keep
 * none. The reporters read the record only, so a command that reads files
 * calls this before it reports. 0 or GC_ENOMEM. */
GC_EXTERN int gc_results_declare(struct gc_results *r);

/* ---- Runs -------------------------------------------------------------- */

enum gc_profile { GC_PROFILE_QUICK, GC_PROFILE_DEFAULT, GC_PROFILE_FULL };

/* Called after each benchmark completes (also failing ones). */
typedef void (*gc_progress_fn)(void *user, int done, int total, const char *bench,
                               const char *status_line);

/* Progress in detail: sent when a benchmark starts, while it measures (at
 * most a few times a second, as configurations are measured) and when it
 * ends. */
struct gc_progress_info {
    int done, total;         /* benchmarks finished, selected */
    const char *bench;       /* the benchmark running, or just finished */
    bool finished;           /* bench has just ended (status_line set) */
    int configs;             /* configurations bench has measured so far */
    int configs_total;       /* ... of how many, where bench knows it; 0 unknown */
    double bench_s;          /* seconds spent in bench */
    double elapsed_s;        /* seconds since the run started */
    double eta_s;            /* estimated seconds left in the run; NAN unknown */
    const char *status_line; /* "ok 1.2 s", "n/a ...", when finished */
};
typedef void (*gc_progress_detail_fn)(void *user, const struct gc_progress_info *p);

struct gc_run_options {
    const char *device;          /* spec, NULL = default */
    const char *const *patterns; /* NULL-terminated; NULL = every benchmark */
    enum gc_profile profile;
    int repeat;                   /* samples per measurement; 0 = profile default */
    double min_time_ms;           /* target duration of one sample; 0 = default */
    const char *dump_kernels_dir; /* write every generated source here; NULL off */
    const char *cache_dir;        /* compiled-kernel cache; NULL = XDG default */
    bool no_cache;                /* neither read nor write the cache */
    bool no_plan;                 /* compile each benchmark's kernels when it runs */
    const char *command_line;     /* recorded in the metadata */
    gc_progress_fn progress;      /* may be NULL */
    void *progress_user;
    gc_progress_detail_fn progress_detail; /* may be NULL; gets progress_user */
};

/* Initialises options with the defaults. */
GC_EXTERN void gc_run_options_init(struct gc_run_options *o);

/* Runs the selected benchmarks on one device. On return *out holds every
 * result measured, also when the return value is an error (then
 * (*out)->complete is false); the caller frees it. Returns 0 when every
 * benchmark ran without failing (one not available on the device counts as
 * ran), GC_EBACKEND when one or more failed (each failure is recorded in its
 * row, the others ran), GC_ENODEV, GC_ENOBENCH, GC_EINVAL (e.g. a
 * GPUCHAR_FAULT setting that does not parse), GC_EINTR when stopped (the
 * benchmark running then is "interrupted", those not started "skipped"), or
 * another error for a fatal failure. */
GC_EXTERN int gc_run(gc_context *ctx, const struct gc_run_options *opt, struct gc_results **out);

/* Checks the GPUCHAR_FAULT environment setting, the fault injection the
 * tests use (a comma-separated list of alloc:N, launch:N, lost:N and
 * compile). gc_run refuses a setting that does not parse; a caller checks it
 * first to say so before any work. Returns 0 (also when it is unset) or
 * GC_EINVAL with err naming the first bad item. */
GC_EXTERN int gc_check_fault_setting(char *err, size_t errlen);

/* For a program that can serve as its own compile worker (the gpuchar tool):
 * call it first in main. In an ordinary start it returns -1 and lets this
 * process's runs compile kernels in worker processes that start the program
 * again (where the device's driver compiles one program at a time per
 * process, or GPUCHAR_COMPILE_WORKERS asks for them); the program goes on.
 * In such a worker start it serves the run that started it and returns the
 * status main must exit with (>= 0). A program that never calls it compiles
 * on threads. */
GC_EXTERN int gc_compile_worker_entry(void);

/* ---- Output ------------------------------------------------------------ */

/* JSON document of the whole tree (schema in docs/schema.md), written
 * atomically (a temporary file renamed over PATH; a symbolic link to a
 * regular file is followed); "-" is standard output. GC_EINVAL when PATH is
 * refused (see gc_check_io_paths), GC_EIO when it cannot be written. */
GC_EXTERN int gc_write_json(const struct gc_results *r, const char *path);
/* Reads a JSON document written by gc_write_json ("-": standard input).
 * Returns 0; GC_EIO when the file cannot be opened or read or is a folder;
 * GC_EINVAL when it is empty, larger than GC_RESULTS_MAX_BYTES, binary (a
 * NUL byte), not JSON or not a results document. err names what is wrong
 * ("it is empty", "it is 300 MiB, larger than the 256 MiB a results file can
 * be", "it is not JSON: ... at line 1, column 5"). */
GC_EXTERN int gc_read_json(const char *path, struct gc_results **out, char *err, size_t errlen);
/* Predicted times of application kernels: for every benchmark of group
 * "application" with status ok, each kernel's work record and measured
 * time give "<kernel>.predicted_time", "<kernel>.prediction_error",
 * "<kernel>.attained" and the benchmark's "prediction_error_median"
 * (docs/schema.md), from the peaks and latency-hiding parameters r holds;
 * earlier ones are replaced, so a saved file may be predicted again.
 * Returns the kernels predicted, GC_EINVAL (r NULL) or GC_ENOMEM. */
GC_EXTERN int gc_predict_results(struct gc_results *r);
/* One CSV file per series (and metrics.csv) under DIR, created if needed. */
GC_EXTERN int gc_write_csv(const struct gc_results *r, const char *dir);
/* Aligned text report. */
GC_EXTERN int gc_write_text(const struct gc_results *r, FILE *f);

/* ---- Paths a command reads and writes ---------------------------------- */

/* The most a results document may hold: a larger input file is refused
 * before it is read (a full run's document is a few MiB). */
#define GC_RESULTS_MAX_BYTES ((size_t)256 << 20)

/* Buffer size that holds any gc_path_shown text. */
#define GC_PATH_SHOWN_LEN 256

/* PATH as shown in a message: whole up to 160 characters, else its start and
 * end around "..." followed by " (N characters)", so that a reason written
 * after it always fits. Writes into buf (GC_PATH_SHOWN_LEN bytes suffice)
 * and returns buf. */
GC_EXTERN const char *gc_path_shown(const char *path, char *buf, size_t len);

/* One path of a command: an input it reads, an output file or an output
 * folder it writes. */
enum gc_io_role { GC_IO_INPUT, GC_IO_OUTPUT_FILE, GC_IO_OUTPUT_DIR };

struct gc_io_path {
    const char *what; /* how the command line named it: "--json", "FILE" */
    const char *path; /* NULL: not given (skipped); "-": standard input or output */
    enum gc_io_role role;
};

/* Checks the paths of one command together, before any work (the rules of
 * README "Outputs and inputs"):
 * - an output file is a regular file or does not exist yet; a folder, a
 *   device node, a FIFO, a socket, a symbolic link to anything but a regular
 *   file and a regular file without any write permission bit (read-only: it
 *   is never replaced) are refused. A symbolic link to a regular file is
 *   followed: the file it points to is replaced, and note says so;
 * - an output folder, where it exists, is a folder;
 * - no output is one of the inputs (the same file: device and inode, not the
 *   spelling) and no two outputs name the same file or folder (also one that
 *   does not exist yet: the same place under the same existing folder); at
 *   most one output is "-" (standard output).
 * Whether a folder takes new files is not checked here (gc_check_output_path
 * and gc_check_output_dir do that). Returns 0, with note holding what to tell
 * the user ("" when nothing), GC_EINVAL with the reason in err ("cannot write
 * --json '/dev/null': it is a character device, not a regular file"), or
 * GC_ENOMEM. */
GC_EXTERN int gc_check_io_paths(const struct gc_io_path *paths, int n, char *note, size_t notelen,
                                char *err, size_t errlen);

/* ---- Figures, HTML and comparison -------------------------------------- */

/* The program that draws the figures: gnuplot (Debian package gnuplot-nox),
 * "$GPUCHAR_GNUPLOT" when set, else "gnuplot" from PATH. */
struct gc_plot_tool {
    bool available;
    char path[256];   /* the program run */
    char version[64]; /* "gnuplot 5.4 patchlevel 4" */
    bool pngcairo;    /* its cairo PNG terminal is there (else gd's "png") */
    char reason[256]; /* why not available; empty when available */
};

/* Finds gnuplot and asks its version. Not finding it is not an error: the
 * return is 0 and out->available false, with the reason. */
GC_EXTERN int gc_plot_probe(struct gc_plot_tool *out);

/* Checks, before any work, that PATH can be written as a new or replaced
 * file: its folder exists and takes a new file. Leaves nothing behind.
 * GC_EINVAL with the reason in err when PATH is refused by the rules of
 * gc_check_io_paths (a folder, a device node, a FIFO, a socket, a link to
 * one of them, a read-only file), GC_EIO when it cannot be written. */
GC_EXTERN int gc_check_output_path(const char *path, char *err, size_t errlen);

/* Creates folder DIR (and its parents) when missing and checks that a file
 * can be created in it. GC_EIO with the reason in err otherwise. */
GC_EXTERN int gc_check_output_dir(const char *dir, char *err, size_t errlen);

/* Draws every figure of r as DIR/<figure id>.svg and .png (DIR is created
 * when missing). *nfig receives the number of figures written. GC_ENOLIB
 * when gnuplot is missing (err says which package adds it); GC_EIO when a
 * figure or file could not be written. */
GC_EXTERN int gc_write_plots(const struct gc_results *r, const char *dir, int *nfig, char *err,
                             size_t errlen);

/* What an HTML page holds. */
struct gc_html_info {
    int figures;        /* figures drawn into the page */
    int figures_failed; /* figures gnuplot could not draw */
    bool plotted;       /* false: gnuplot missing, tables only */
    char note[512];     /* why there are no figures, or which failed */
};

/* One self-contained HTML page (no network, no script from outside): run
 * context, summary tables, every benchmark's metrics and its figures. The
 * file is written atomically. Without gnuplot the page holds the tables and
 * says which package adds the figures (info->plotted false, return 0). */
GC_EXTERN int gc_write_html(const struct gc_results *r, const char *path, struct gc_html_info *info,
                            char *err, size_t errlen);

/* ---- Comparison of runs ------------------------------------------------- */

enum gc_cmp_verdict {
    GC_CMP_SAME,      /* within the threshold */
    GC_CMP_NOISE,     /* beyond the threshold but within the measured spread */
    GC_CMP_IMPROVED,  /* better beyond threshold and spread */
    GC_CMP_REGRESSED, /* worse beyond threshold and spread */
    GC_CMP_CHANGED,   /* beyond both, for a figure that is neither better nor worse */
    GC_CMP_MISSING,   /* not in this run (only in the baseline) */
    GC_CMP_NEW,       /* not in the baseline */
    GC_CMP_UNKNOWN,   /* a value is null on one side */
    GC_CMP_FAILED,    /* the benchmark ran in the baseline but failed here */
    GC_CMP_BASELINE   /* the baseline's own cell */
};

/* Names of a verdict: "same", "noise", "improved", "REGRESSED", ... */
GC_EXTERN const char *gc_cmp_verdict_name(enum gc_cmp_verdict v);

struct gc_compare_options {
    double threshold;           /* relative change that counts, 0.05 = 5% (default) */
    double noise_factor;        /* a change must exceed this many combined spreads (2) */
    const char *const *metrics; /* NULL-terminated patterns on "bench/metric" or "metric" */
    const char *const *benches; /* NULL-terminated benchmark patterns (gc_bench_matches) */
};

GC_EXTERN void gc_compare_options_init(struct gc_compare_options *o);

/* One run's side of a row. */
struct gc_cmp_cell {
    bool present;
    double value;
    double spread;           /* relative spread of the value: max(CV, CI95 / value); NAN unknown */
    double ratio;            /* value / baseline value; NAN when not defined */
    double ratio_per_clk_cu; /* the ratio of value per clock per compute unit (rates) or of value
                                times the clock (times); NAN when it does not apply */
    double change;           /* relative change (value - base) / |base|, signed */
    double noise;            /* the change the two spreads allow: factor * sqrt(sA^2 + sB^2) */
    enum gc_cmp_verdict verdict;
    char note[160]; /* "benchmark error: ...", "only in A" */
};

/* One metric, or one benchmark whose status differs (metric ""). */
struct gc_cmp_row {
    char bench[64];
    char metric[64];
    char unit[32];
    int direction;            /* +1 higher is better, -1 lower is better, 0 neither */
    struct gc_cmp_cell *cell; /* one per run; cell[0] is the baseline */
};

struct gc_comparison {
    int nruns;
    const struct gc_results *const *runs; /* borrowed */
    char (*label)[16];                    /* "A", "B", ... */
    char (*source)[256];                  /* file names, for headings */
    struct gc_compare_options opt;
    bool cross_device; /* the runs are of different devices */
    struct gc_cmp_row *rows;
    int nrows;
    char (*notes)[256]; /* differences of the documents themselves */
    int nnotes;
    int regressions, improvements; /* over every run against the baseline */
};

/* Compares runs[1..] against runs[0] metric by metric. sources name the
 * runs (file names; may be NULL). *out is freed with gc_comparison_free and
 * borrows runs, which must outlive it. Returns 0, GC_EINVAL or GC_ENOMEM. */
GC_EXTERN int gc_compare(const struct gc_results *const *runs, const char *const *sources,
                         int nruns, const struct gc_compare_options *opt,
                         struct gc_comparison **out);
GC_EXTERN void gc_comparison_free(struct gc_comparison *c);

/* The first --bench pattern of opt that matches no benchmark of any run, or
 * else the first --metric pattern that matches no metric of a selected
 * benchmark ("bench/metric" or "metric"), with the message in err; NULL
 * when every pattern selects something. */
GC_EXTERN const char *gc_compare_unmatched(const struct gc_results *const *runs, int nruns,
                                           const struct gc_compare_options *opt, char *err,
                                           size_t errlen);

/* The comparison as aligned text (markdown false) or as markdown tables. */
GC_EXTERN int gc_write_compare_text(const struct gc_comparison *c, FILE *f, bool markdown);
/* As JSON (docs/schema.md, "gpuchar compare"); path "-" is standard output. */
GC_EXTERN int gc_write_compare_json(const struct gc_comparison *c, const char *path);
/* As an HTML page with the runs' curves overlaid. */
GC_EXTERN int gc_write_compare_html(const struct gc_comparison *c, const char *path,
                                    struct gc_html_info *info, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
