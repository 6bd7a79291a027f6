/* What a benchmark gets: the open device, the engine's configuration, the
 * kernel cache, the stop flag and where its results go. */
#ifndef GC_CORE_SESSION_H
#define GC_CORE_SESSION_H

#include <signal.h>

#include "core/device.h"
#include "core/measure.h"

struct gc_kcache;
struct gc_energy_state;
struct gc_progress_state;
struct gc_results;
struct gc_devfill;
struct gc_memo;

struct gc_session {
    gc_context *ctx;
    struct gc_device *dev;
    enum gc_profile profile;
    /* The run's sampling policy (profile, device type, --repeat,
     * --min-time), and the current benchmark's (the run's with its
     * description's rules), set before each benchmark runs. A benchmark
     * reads them and never writes them: a method rule of its own goes into
     * a copy (core/sampling.h) that it passes to the engine. */
    struct gc_sampling run_sampling;
    struct gc_sampling sampling;
    struct gc_kcache *kcache;
    const char *dump_dir;        /* --dump-kernels; NULL off */
    volatile sig_atomic_t *stop; /* set when the user asked to stop */
    uint64_t seed;               /* base seed of the input data */
    /* The run's benchmark patterns (NULL: none given, the default run), so
     * that benchmarks that run only on request can tell. */
    const char *const *patterns;
    /* State the energy benchmarks share over a run (core/energy.h); created
     * by the first of them, freed by the run. */
    struct gc_energy_state *energy;
    /* The run's results tree so far (the benchmarks that ran before this
     * one): a meter reads the configuration a benchmark wrote there
     * (core/benchcfg.h). NULL outside a run. */
    const struct gc_results *results;
    /* Accounting of the current benchmark (reset per benchmark). */
    double compile_s;
    int kernels_compiled, kernels_cached;
    int kernels_planned;                /* taken from the run's compile plan */
    double plan_compile_s;              /* the plan's compile time of those */
    struct gc_progress_state *progress; /* told of every measurement; NULL none */
    /* Fill/check kernels and pooled buffers the run's benchmarks share
     * (core/devfill.h); created on first use, freed by the run. */
    struct gc_devfill *devfill;
    /* Host data the run's benchmarks share (core/memo.h); created on first
     * use, freed by the run. */
    struct gc_memo *memo;
};

static inline bool gc__stopped(const struct gc_session *s)
{
    return s->stop && *s->stop;
}

#endif
