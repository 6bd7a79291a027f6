/* GPUCHAR_FAULT, the fault injection the tests use: its syntax, checked in
 * full so that a misspelt setting is refused rather than silently ignored. */
#ifndef GC_CORE_FAULT_H
#define GC_CORE_FAULT_H

#include <stdbool.h>
#include <stddef.h>

struct gc_faults {
    long alloc_at;  /* the alloc_at-th allocation fails; 0 none */
    long launch_at; /* the launch_at-th launch fails; 0 none */
    long lost_at;   /* the lost_at-th launch kills the context; 0 none */
    bool compile;   /* every compilation gets a syntax error */
    long worker_at; /* compile workers end at their worker_at-th request; 0 none */
    long crash_at;  /* the crash_at-th allocation kills the process (SIGKILL); 0 none */
    long hang_at;   /* the hang_at-th allocation never returns; 0 none */
    /* scale:METRIC:FACTOR: every metric named METRIC ("name" or
     * "bench/name") is multiplied by FACTOR as the benchmark ends, as a
     * degraded device would measure it; "" none. */
    char scale_metric[128];
    double scale_factor;
};

/* Parses spec, a comma-separated list of alloc:N, launch:N, lost:N, crash:N,
 * hang:N (N >= 1), compile, worker, worker:N (the run's compile workers end
 * without an answer at their first or N-th request) and scale:METRIC:FACTOR
 * (FACTOR > 0); NULL or "" is no fault. Returns 0, or GC_EINVAL with err
 * naming the first bad item (*out is then all zero). */
int gc__faults_parse(const char *spec, struct gc_faults *out, char *err, size_t errlen);

struct gc_bench_result;

/* Applies the scale fault to the metrics of b that it names. */
void gc__faults_scale(const char *metric, double factor, struct gc_bench_result *b);

#endif
