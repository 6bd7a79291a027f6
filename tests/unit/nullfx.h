/* The simulated (null) device and a session on it, shared by the unit
 * tests of the harness and of the benchmark descriptions it runs. */
#ifndef GC_TESTS_NULLFX_H
#define GC_TESTS_NULLFX_H

#include <signal.h>
#include <stdint.h>

#include "backend/null/null.h"
#include "core/session.h"

struct nullfx {
    struct gc_device *dev;
    struct gc_session s;
    struct gc_results *res;
    volatile sig_atomic_t stop;
};

/* Opens the null device with cfg, a default-profile session (seed, 1 ms
 * samples, a kernel cache in memory) and an empty results tree. */
void nullfx_open(struct nullfx *f, const struct gc_null_config *cfg, uint64_t seed);
/* Frees what nullfx_open and the test's runs left (pool, best store). */
void nullfx_close(struct nullfx *f);

#endif
