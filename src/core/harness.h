/* The benchmark harness: a benchmark describes its configuration space
 * (each configuration a generated kernel, how it is launched, the work one
 * launch does and how its output is verified) and one runner does the rest:
 * build every kernel in one batch through the cache, screen every
 * configuration with a short measurement, measure the leading candidates
 * with the full stopping rule within a time budget, verify every
 * measurement, and record a series point per configuration. The reported
 * figure always comes from a full measurement, never from a screen. */
#ifndef GC_CORE_HARNESS_H
#define GC_CORE_HARNESS_H

#include "core/measure.h"
#include "core/results.h"
#include "core/session.h"

#define GC_H_MAX_ARGS 8

struct gc_harness;

/* How one configuration is launched, filled by the description's setup. */
struct gc_hlaunch {
    struct gc_launch l; /* l.args points at args */
    struct gc_arg args[GC_H_MAX_ARGS];
    struct gc_timestamps ts; /* ts.buf NULL: no in-kernel timestamps */
    double work;             /* units of the figure per launch (bytes, flops...) */
    char desc[200];          /* the configuration in words, for notes and errors */
    struct gc_buf *own[2];   /* per-configuration buffers the runner frees */
    /* Set by setup: the configuration cannot run on this device (a point of
     * the space it cannot hold, desc says why); skipped, not measured. */
    bool absent;
};

enum gc_hstate {
    GC_H_PLANNED,
    GC_H_SCREENED, /* short measurement only */
    GC_H_REFINED,  /* measured with the full stopping rule */
    GC_H_PRUNED,   /* not measured: its group had clearly peaked */
    GC_H_OVER,     /* not measured: the budget was spent */
    GC_H_ABSENT,   /* not measured: setup found it cannot run on this device */
};

/* One configuration. The description fills the first block (plan); the
 * runner the rest. */
struct gc_hconf {
    char label[64];     /* kernel label, unique within the benchmark */
    char *src;          /* generated source, malloc'ed (the runner frees it); NULL with k
                         * set: a kernel the description built itself (shared with the
                         * measurements it makes outside the harness) */
    const char *kernel; /* kernel name in src */
    int series;         /* index of its series in the result; -1 none */
    double x;           /* its x in that series */
    char point[64];     /* its point label */
    bool always_refine; /* a reported reference: measured in full whatever the screen */
    int group;          /* peak-stop group (-1 none); a group's points in order of x */
    /* Compiler options of src (NULL: none). */
    const char *options;
    /* Bit i: a candidate of plateau i. Each plateau ranks its members by
     * their screens and refines its own leaders (refine_top, refine_within,
     * refine_max per plateau), so that a benchmark whose figures come from
     * several parts of its space (a curve's levels) measures each in full.
     * 0 in every configuration: one ranking over all. The description may
     * set it in plan or in setup (read after the screen). */
    unsigned plateaus;
    const void *user; /* the description's data */
    /* outputs */
    enum gc_hstate state;
    struct gc_kern *k;
    struct gc_hlaunch hl;
    bool set_up;
    double screen_value;          /* work / median time of the screen */
    double screen_rank;           /* what screens are ranked by (screen_per_clock) */
    struct gc_stats screen_stats; /* of work / time */
    double value;                 /* of the full measurement (NAN until refined) */
    struct gc_stats stats;
    struct gc_measurement m; /* the full measurement */
};

/* A benchmark description: its search parameters and what the runner asks
 * of it per configuration. */
struct gc_hdesc {
    double budget_s;        /* default-profile budget (quick x 1/4, full x 4); 0: none */
    int refine_top;         /* the best screened ones measured in full (>= 1) */
    double refine_within;   /* ... and those within this fraction of the best */
    int refine_max;         /* at most this many (always-refine ones besides) */
    double peak_drop;       /* a group point this far below the group's best ... */
    int peak_after;         /* ... this many times in a row ends the group (0: never) */
    double screen_sample_s; /* a screen's sample target (0: 4 ms; never above the full one) */
    int screen_samples;     /* samples per screen (0: 3) */
    /* Rank the screens by work per cycle of the clock each observed (where
     * known): short samples may run at a clock the full measurement does not
     * sustain (a power limit reached within tens of ms), and the clock moves
     * from one screen to the next. */
    bool screen_per_clock;
    /* Sets up the launch of configuration c with kernel k (buffers, grid,
     * arguments, work). */
    int (*setup)(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out);
    /* Before every measurement: poison the outputs. May be NULL. */
    int (*before)(struct gc_harness *h, struct gc_hconf *c);
    /* After every measurement: 0, GC_EVERIFY with msg, or an error. */
    int (*verify)(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len);
    void *user;
};

struct gc_harness {
    struct gc_session *s;
    struct gc_bench_result *r;
    const struct gc_hdesc *d;
    struct gc_hconf *cfg;
    int ncfg, cap;
    int best;        /* the refined configuration of the highest value; -1 none */
    double budget_s; /* scaled by the profile */
    /* The full measurements' sampling policy: the benchmark's, set by
     * gc__harness_init; a description with a method rule of its own adjusts
     * it (core/sampling.h) before gc__harness_run, which records it. */
    struct gc_sampling sampling;
    double t0;
    int screened, refined, pruned, over, absent;
    bool screen; /* the search screens (else every configuration in full) */
};

void gc__harness_init(struct gc_harness *h, struct gc_session *s, struct gc_bench_result *r,
                      const struct gc_hdesc *d);
/* A new planned configuration (zeroed: series -1, group -1); NULL on ENOMEM. */
struct gc_hconf *gc__harness_add(struct gc_harness *h);
/* Builds, screens, refines, verifies, records series points. Returns 0 (best
 * set unless nothing could be measured), GC_EINTR when stopped (what was
 * measured is kept), or the first error (a verification failure is recorded
 * in r as the benchmark's error). */
int gc__harness_run(struct gc_harness *h);
/* "best of N configs (S screened, R measured in full...)" for notes. */
void gc__harness_note(const struct gc_harness *h, char *buf, size_t len);
void gc__harness_free(struct gc_harness *h);

/* A benchmark whose description is run whole by gc__harness_bench. plan
 * sets up h (the description's run data as its desc's user, released by
 * release also after a failed plan); derive records the figures from the
 * full measurements. */
struct gc_hbench {
    int (*plan)(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h);
    int (*derive)(struct gc_session *s, const struct gc_harness *h, const char *bench);
    void (*release)(struct gc_session *s, struct gc_harness *h);
};
/* plan -> gc__harness_run -> derive (after a stop too: what was measured
 * is kept) -> release; the benchmark's return code. */
int gc__harness_bench(struct gc_session *s, struct gc_bench_result *r, const char *bench,
                      const struct gc_hbench *b);

/* GC_KGEN_TIMESTAMPS where the device records in-kernel timestamps (a
 * cycle counter, a global timer and the SM id), else 0. */
unsigned gc__harness_ts_flags(const struct gc_device_info *info);

/* The measurement settings of a screen, derived from the session's. */
void gc__harness_screen_cfg(const struct gc_sampling *full, struct gc_sampling *out);
/* ... with the description's screen settings. */
void gc__harness_screen_cfg_of(const struct gc_hdesc *d, const struct gc_sampling *full,
                               struct gc_sampling *out);

#endif
