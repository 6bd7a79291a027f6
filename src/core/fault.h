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
};

/* Parses spec, a comma-separated list of alloc:N, launch:N, lost:N (N >= 1)
 * and compile; NULL or "" is no fault. Returns 0, or GC_EINVAL with err naming
 * the first bad item (*out is then all zero). */
int gc__faults_parse(const char *spec, struct gc_faults *out, char *err, size_t errlen);

#endif
