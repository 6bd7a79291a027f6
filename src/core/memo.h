/* Host data that a run's benchmarks derive from a seed and would otherwise
 * make again: the chases' random cycles, the same for every memory path that
 * sweeps the same footprints. Kept under a key for the rest of the run,
 * within a byte budget, and freed with the run's other shared state. */
#ifndef GC_CORE_MEMO_H
#define GC_CORE_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "core/session.h"

/* The most bytes a run keeps: past it, gc__memo_put keeps nothing more. */
#define GC_MEMO_MAX_BYTES ((size_t)128 << 20)

/* A copy (malloc'ed; the caller frees it) of the bytes kept under (tag, a,
 * b), their count in *bytes; NULL where nothing is kept there (or without
 * memory for the copy), and the caller makes the data itself. */
void *gc__memo_copy(struct gc_session *s, const char *tag, uint64_t a, uint64_t b, size_t *bytes);

/* Keeps a copy of the bytes at data under (tag, a, b), which must be a pure
 * function of the key: nothing where the key is kept already, where the copy
 * would take the kept bytes past GC_MEMO_MAX_BYTES, or without memory. */
void gc__memo_put(struct gc_session *s, const char *tag, uint64_t a, uint64_t b, const void *data,
                  size_t bytes);

/* Releases what the run kept (at its end). */
void gc__memo_free(struct gc_session *s);

/* Entries kept and their bytes (for tests). */
int gc__memo_count(const struct gc_session *s, size_t *bytes);

#endif
