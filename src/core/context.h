/* The library context: backend status, last error, stop flag. */
#ifndef GC_CORE_CONTEXT_H
#define GC_CORE_CONTEXT_H

#include <signal.h>

#include "backend/backend.h"

#define GC_MAX_BACKENDS 8

struct gc_context {
    int nbackends;
    const struct gc_backend_ops *ops[GC_MAX_BACKENDS];
    struct gc_backend_status status[GC_MAX_BACKENDS];
    char last_error[GC_ERRLEN];
    volatile sig_atomic_t stop;
};

/* Records a formatted message as the context's last error; returns err. */
int gc__set_error(struct gc_context *ctx, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
