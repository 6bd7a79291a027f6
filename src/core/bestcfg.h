/* The configuration each performance benchmark found best in this run, kept
 * in the session so that a later measurement of the same kernel (the energy
 * meter's workloads, bench/workload.h) runs exactly the configuration the
 * performance figure came from. The record is opaque here: the benchmark
 * file that stores it is the one that reads it. */
#ifndef GC_CORE_BESTCFG_H
#define GC_CORE_BESTCFG_H

#include <stddef.h>

#include "core/session.h"

/* Stores (or replaces) the record of `key` (a benchmark name). GC_ENOMEM. */
int gc__best_put(struct gc_session *s, const char *key, const void *cfg, size_t len);
/* The record of `key` when one of exactly `len` bytes was stored in this
 * run; NULL otherwise (the benchmark did not run, or failed). */
const void *gc__best_get(const struct gc_session *s, const char *key, size_t len);
/* Frees every record (NULL allowed). */
void gc__best_free(struct gc_best *b);

#endif
