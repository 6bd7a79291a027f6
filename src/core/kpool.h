/* The compile plan's workers (core/kworker.h): how many to use for a
 * device, one for each plan thread that drives one, started by that thread
 * when it first needs it, and what they did. A program whose worker fails
 * is compiled in this process by the caller: no kernel is lost. */
#ifndef GC_CORE_KPOOL_H
#define GC_CORE_KPOOL_H

#include <stdbool.h>
#include <stddef.h>

struct gc_device;
struct gc_kpool;

/* The setting that asks for n workers (0: none) whatever the backend. */
#define GC_KPOOL_ENV "GPUCHAR_COMPILE_WORKERS"
#define GC_KPOOL_MAX 16

struct gc_kpool_stats {
    int workers;    /* worker processes started */
    int failed;     /* that failed: could not start or open the device, ended
                       early, answered wrongly (their programs then compiled here) */
    double cpu_s;   /* CPU time of the workers, user and system */
    char note[900]; /* why no worker was used, or how the first one failed; "" none */
};

/* How many workers to use for d when todo programs are to be compiled: the
 * number GPUCHAR_COMPILE_WORKERS gives (0 none, at most 16) when it is set,
 * else one per host core (at most 16) where d's compiler runs faster in
 * processes than on threads (the backend's compile_in_processes), else none;
 * never more than todo, and none where this program does not offer the
 * worker entry (gc_compile_worker_entry). note gets why none are used
 * where some were asked for ("" otherwise). */
int gc__kpool_size(struct gc_device *d, int todo, char *note, size_t len);
/* A pool of n worker slots for d; the workers start on first use. Returns 0
 * or GC_ENOMEM. */
int gc__kpool_create(struct gc_device *d, int n, struct gc_kpool **out);
/* Compiles through the worker of slot (in [0, n), each slot used by one
 * thread at a time): true with *bin, *len, *log and *err set as the
 * backend's compile() would set them; false when the slot's worker cannot
 * be used (it failed now or before): the caller compiles itself. key is the
 * program's cache key for src and options. */
bool gc__kpool_compile(struct gc_kpool *p, int slot, const char *key, const char *src,
                       const char *options, void **bin, size_t *len, char **log, int *err);
/* Ends the workers, waits for them, fills st and frees the pool. */
void gc__kpool_finish(struct gc_kpool *p, struct gc_kpool_stats *st);

#endif
