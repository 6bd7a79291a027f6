/* Compilations in flight in this process, by cache key: when two devices of
 * one architecture are measured at the same time they need the same
 * kernels; the first to ask compiles each and the other waits for it and
 * loads the cache entry it wrote, instead of compiling it a second time. */
#ifndef GC_CORE_KCLAIM_H
#define GC_CORE_KCLAIM_H

#include <stdbool.h>

/* Claims key for compilation: true when the caller now owns it (compile,
 * write the cache entry, then gc__kclaim_release); false when another
 * thread was compiling it and has finished (the caller reads the cache
 * again and claims again on a miss). Never waits while the caller holds a
 * claim of its own, so two callers never wait on each other. */
bool gc__kclaim_acquire(const char *key);
void gc__kclaim_release(const char *key);

#endif
