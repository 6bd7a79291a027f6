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

/* Number of backends compiled in, and their status. */
GC_EXTERN int gc_backend_count(const gc_context *ctx);
GC_EXTERN int gc_backend_get(const gc_context *ctx, int i, struct gc_backend_status *out);

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
};

GC_EXTERN int gc_bench_count(void);
GC_EXTERN const struct gc_bench_info *gc_bench_get(int i);

/* True when NAME matches the shell-style PATTERN ('*', '?', '[...]'), or when
 * PATTERN contains no wildcard and equals NAME or its group. */
GC_EXTERN bool gc_bench_matches(const char *pattern, const char *name, const char *group);

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

enum gc_bench_status {
    GC_BENCH_OK,
    GC_BENCH_ERROR,         /* failed: message in error */
    GC_BENCH_NOT_AVAILABLE, /* device lacks a capability: reason in error */
    GC_BENCH_INTERRUPTED,   /* running when the user stopped the run: partial data */
    GC_BENCH_SKIPPED        /* never started: the run was stopped before it */
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
    struct gc_context_info context;
    char stop_rule[64]; /* which rule ended the sampling of the headline */
    struct gc_metric *metrics;
    int nmetrics, metrics_cap;
    struct gc_series *series;
    int nseries, series_cap;
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

struct gc_results {
    struct gc_run_meta meta;
    bool complete; /* false when a benchmark failed, the run was interrupted or
                      a fatal error cut it */
    char incomplete_reason[256];
    struct gc_bench_result *benches;
    int nbenches, cap;
    double wall_s;
};

/* Frees a results tree (NULL allowed). */
GC_EXTERN void gc_results_free(struct gc_results *r);

/* ---- Runs -------------------------------------------------------------- */

enum gc_profile { GC_PROFILE_QUICK, GC_PROFILE_DEFAULT, GC_PROFILE_FULL };

/* Called after each benchmark completes (also failing ones). */
typedef void (*gc_progress_fn)(void *user, int done, int total, const char *bench,
                               const char *status_line);

struct gc_run_options {
    const char *device;          /* spec, NULL = default */
    const char *const *patterns; /* NULL-terminated; NULL = every benchmark */
    enum gc_profile profile;
    int repeat;                   /* samples per measurement; 0 = profile default */
    double min_time_ms;           /* target duration of one sample; 0 = default */
    const char *dump_kernels_dir; /* write every generated source here; NULL off */
    const char *cache_dir;        /* compiled-kernel cache; NULL = XDG default */
    bool no_cache;                /* neither read nor write the cache */
    const char *command_line;     /* recorded in the metadata */
    gc_progress_fn progress;      /* may be NULL */
    void *progress_user;
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

/* ---- Output ------------------------------------------------------------ */

/* JSON document of the whole tree (schema in docs/schema.md). */
GC_EXTERN int gc_write_json(const struct gc_results *r, const char *path);
/* Reads a JSON document written by gc_write_json. */
GC_EXTERN int gc_read_json(const char *path, struct gc_results **out, char *err, size_t errlen);
/* One CSV file per series (and metrics.csv) under DIR, created if needed. */
GC_EXTERN int gc_write_csv(const struct gc_results *r, const char *dir);
/* Aligned text report. */
GC_EXTERN int gc_write_text(const struct gc_results *r, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
