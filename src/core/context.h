/* The library context: backend status, last error, stop flag. A backend is
 * initialised the first time the context needs it (gc__backend_probe), so
 * that a run on one backend's device never starts the others (an OpenCL
 * platform may start a GPU driver of its own and open a context on the
 * GPU being measured). Probing happens on the thread that uses the
 * context. */
#ifndef GC_CORE_CONTEXT_H
#define GC_CORE_CONTEXT_H

#include <signal.h>
#include <stdbool.h>

#include "backend/backend.h"

#define GC_MAX_BACKENDS 8

struct gc_context {
    int nbackends;
    const struct gc_backend_ops *ops[GC_MAX_BACKENDS];
    struct gc_backend_status status[GC_MAX_BACKENDS];
    bool probed[GC_MAX_BACKENDS];
    char last_error[GC_ERRLEN];
    volatile sig_atomic_t stop;
};

/* Records a formatted message as the context's last error; returns err. */
int gc__set_error(struct gc_context *ctx, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Initialises backend b (an index into ctx->ops) unless done: its status
 * then says whether it is available and how many devices it has. */
void gc__backend_probe(struct gc_context *ctx, int b);

#endif
