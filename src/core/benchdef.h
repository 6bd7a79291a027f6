/* What a benchmark is, as the run loop sees it: its catalogue entry, the
 * capabilities it needs, its run function and the kernels it declares for
 * inspection. The descriptions themselves live in src/bench/; the core gets
 * them from its caller and never names one. */
#ifndef GC_CORE_BENCHDEF_H
#define GC_CORE_BENCHDEF_H

#include <stdbool.h>

#include "backend/backend.h"
#include "core/guard.h"
#include "core/results.h"
#include "core/session.h"
#include "gpuchar/node.h"

/* What the compiled timed loop of a generated CUDA kernel must contain: a
 * SASS mnemonic and how many times it appears in the loop body (between the
 * target of the loop's backward branch and the branch). The GPU tests compile
 * every declared kernel for the device, disassemble it and check these counts
 * exactly. The loop's own control (its backward branch and the counter
 * update and compare that decide it) is not counted.
 *
 * mnemonic is an expression:
 *
 *     [ARCH ":"] TERM ("|" TERM)*        TERM = MNEMONIC ["/" K]
 *
 * - MNEMONIC matches an opcode equal to it or extending it with modifiers
 *   after a '.': "FFMA" counts FFMA and FFMA.FTZ, not FFMA32I; "I2F" does
 *   not count I2FP.F32.S32 (another instruction).
 * - Alternatives: "HADD2|HFMA2.MMA" counts the instructions matching either
 *   term (each instruction once), for an operation the compiler spreads over
 *   two instructions (fp16 adds issued on both FMA pipes).
 * - Architecture: "sm_90+:" (compute capability 9.0 and later), "sm_80-89:"
 *   (8.0 through 8.9), "sm_90:" (9.0 only). On other architectures the
 *   expectation does not apply and is skipped; without the prefix it
 *   applies everywhere.
 * - Packing: "F2FP/2" says one instruction may carry up to 2 of the counted
 *   operations (ptxas packs two independent conversions into one
 *   F2FP.PACK_AB). per_loop then counts operations, and the check passes
 *   when the instructions found can carry exactly that many: found <=
 *   per_loop <= K x found (summed over the terms).
 *
 * The syntax allows no spaces. */
struct gc_sass_expect {
    const char *mnemonic; /* the expression above */
    int per_loop;         /* instructions (operations for a /K term) per loop trip */
};

#define GC_SASS_MAX_EXPECT 4

/* One generated kernel, as a benchmark declares it for inspection. */
struct gc_ksrc {
    char label[96];
    char *src; /* malloc'ed */
    char options[128];
    struct gc_sass_expect expect[GC_SASS_MAX_EXPECT];
    int nexpect;
};

void gc__ksrc_free(struct gc_ksrc *k, int n);

struct gc_bench_report;
struct gc_meter_launch;
struct gc_config_ask;

struct gc_bench {
    struct gc_bench_info info;
    unsigned needs_caps; /* GC_CAP_* all required; missing => not available */
    /* Fills r (metrics, series). Returns 0, or an error after recording the
     * message in r with gc__bench_set_error. self is this entry, so that one
     * run function can serve a family of benchmarks through param. */
    int (*run)(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r);
    const void *param; /* family data (e.g. an instruction-catalogue entry); may be NULL */
    /* Optional: the kernels the benchmark would generate for a device, with
     * the SASS they must compile to (*out malloc'ed, n entries, free with
     * gc__ksrc_free). Needs no device: info may be a made-up description. */
    int (*sources)(const struct gc_bench *self, const struct gc_device_info *info,
                   struct gc_ksrc **out, int *n);
    /* Optional: the kernels its run will request on the session's device
     * and profile, each exactly as the run requests it (source and
     * options), worked out without measuring anything. The run compiles
     * every benchmark's kernels in parallel before the first measurement
     * (core/kplan.h), and the benchmark's own requests then find them
     * built. Kernels that depend on a measured figure are left out: they
     * compile when requested. 0 with *n = 0 when the benchmark will not
     * run on the device; *out malloc'ed, free with gc__ksrc_free. */
    int (*plan)(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out, int *n);
    /* Run only with --full or when a --bench pattern names it (or its
     * group): measurements too long for the default and quick runs. Such a
     * benchmark is left out of those runs, not listed as skipped. */
    bool opt_in;
    /* Optional plausibility floors of its metrics against other figures of
     * the same run (guard.h), terminated by an entry whose metric is NULL. */
    const struct gc_floor *floors;
    /* Optional: the summary-table cells it fills and how its series are
     * drawn (core/present.h); the run copies it into the benchmark's
     * result, where the reporters read it. */
    const struct gc_bench_report *report;
    /* Optional: seconds a default-profile run on a GPU is expected to take
     * (the progress estimate's prior, corrected as the run goes); 0: the
     * run's default per benchmark. */
    double expect_s;
    /* Optional: the shortest sample, in seconds, its figures need in every
     * profile (0: the profile's). Kernels that reach the power limit within
     * tens of milliseconds (the tensor cores) take samples long enough that
     * the figure is the sustained, power-limited rate, not the burst before
     * the clock comes down. */
    double min_sample_s;
    /* Optional: the most seconds of samples one measurement takes (0: the
     * profile's sample count). A sustained, power-limited rate drifts with
     * the power controller, so its spread rule may never stop it before
     * the profile's last sample; a median of ten is as good as one of 25. */
    double max_sampling_s;
    /* Optional: builds its kernel launch at a configuration, ready to be
     * launched back to back for as long as a meter needs (the energy
     * benchmarks): the configuration the benchmark wrote into its result in
     * this run's results tree (ask->from, core/benchcfg.h), else its default
     * one (core/meterlaunch.h says what ask holds). A configuration the launch
     * cannot run or the device cannot hold is refused with the reason and
     * the default is built (said in w->what). Returns GC_ENOTSUP with
     * w->why when the kernel does not exist on the device, GC_EVERIFY with
     * w->why when its first launch gave a wrong result, GC_ERANGE for an
     * occupancy it cannot lay out. Released with gc__meter_launch_release. */
    int (*launch_at)(struct gc_session *s, const struct gc_bench *self,
                     const struct gc_config_ask *ask, struct gc_meter_launch *w);
    /* Optional: the host resources it uses (gpuchar/node.h, GC_RES_*).
     * In a run over several devices a benchmark that declares one runs on
     * one device at a time; the others run on every device at once. */
    unsigned resources;
};

/* A family of benchmarks generated from a data table (the instruction
 * catalogue, the matrix shapes...): count and i-th entry. */
struct gc_bench_family {
    int (*count)(void);
    const struct gc_bench *(*at)(int i);
};

#endif
