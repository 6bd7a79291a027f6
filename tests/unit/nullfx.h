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

/* The tests' one fixture. */
extern struct nullfx fx;

/* Opens the null device with cfg, a default-profile session (seed, 1 ms
 * samples, a kernel cache in memory) and an empty results tree. */
void nullfx_open(struct nullfx *f, const struct gc_null_config *cfg, uint64_t seed);
/* Frees what nullfx_open and the test's runs left (pool, best store). */
void nullfx_close(struct nullfx *f);
/* A cmocka teardown: nullfx_close(&fx). */
int nullfx_teardown(void **state);

struct gc_harness;
struct gc_hconf;
struct gc_hbench;

/* The null device runs no kernel: a planned description's verification is
 * left out (the tests replace it). */
void nullfx_no_verify(struct gc_harness *h);
/* Distinct kernel sources of a plan (before the run takes them). */
int nullfx_distinct_sources(const struct gc_harness *h);
/* Plans b into h and r, runs it without verification (the null device
 * runs no kernel) and derives; every configuration must have been measured
 * in full, none screened. The caller releases h (b->release). */
void nullfx_run_all(const struct gc_hbench *b, struct gc_bench_result *r, struct gc_harness *h,
                    const char *bench);
/* The null device runs no kernel, so a description's verification must
 * reject what its outputs hold: plans b, runs it (GC_EVERIFY expected),
 * checks that the benchmark's error holds `error`, releases. */
void nullfx_rejects(const struct gc_hbench *b, const char *bench, const char *error);
/* The metric of that name, which must exist. */
const struct gc_metric *nullfx_metric(const struct gc_bench_result *b, const char *name);
/* The configuration of that label; NULL none. */
const struct gc_hconf *nullfx_by_label(const struct gc_harness *h, const char *label);

#endif
