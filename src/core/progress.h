/* Progress of a run as the user sees it: the benchmark running now, how
 * many configurations it has measured (of how many, where it knows), and an
 * estimate of the time left in the whole run. */
#ifndef GC_CORE_PROGRESS_H
#define GC_CORE_PROGRESS_H

#include <stdbool.h>

#include "gpuchar/gpuchar.h"

#define GC_PROGRESS_MAX_GROUPS 16
/* The prior of a benchmark that declares no expected time: seconds of a
 * default-profile run on a GPU (the H200's default run: 127 s over some 160
 * benchmarks, most of them short). */
#define GC_PROGRESS_DEFAULT_S 0.8

/* The benchmarks of one group: how many, how long the finished took, and
 * their priors (seconds of a default GPU run, before scaling). */
struct gc_progress_group {
    char name[32];
    int planned, done;
    int timed;          /* finished benchmarks that ran (not "not available") */
    double seconds;     /* spent in those */
    double prior_left;  /* priors of those not finished */
    double prior_timed; /* priors of the timed ones */
};

struct gc_progress_state {
    gc_progress_detail_fn fn; /* NULL: everything below is a no-op */
    void *user;
    int total, done;
    const char *bench;  /* running now; NULL between benchmarks */
    int group;          /* its index in groups[] */
    double bench_prior; /* its prior (s, unscaled) */
    double bench_hint;  /* seconds in all it is expected to take (a harness
                           budget and what it spent before); 0 none */
    int configs, configs_total;
    double t_run, t_bench, t_tick;
    double scale; /* priors x scale = seconds on this profile and device */
    struct gc_progress_group groups[GC_PROGRESS_MAX_GROUPS];
    int ngroups;
    double prior_all; /* priors of every planned benchmark */
};

void gc__run_progress_init(struct gc_progress_state *p, const struct gc_run_options *o,
                           double t_run);
/* One more benchmark of this group will run, expected to take expect_s
 * seconds in a default-profile GPU run (0: GC_PROGRESS_DEFAULT_S). */
void gc__run_progress_plan(struct gc_progress_state *p, const char *group, double expect_s);
/* The run's device: a CPU device takes longer for the same benchmark. */
void gc__run_progress_device(struct gc_progress_state *p, bool gpu);
void gc__run_progress_start(struct gc_progress_state *p, const char *bench, const char *group,
                            double expect_s);
/* The running benchmark expects to take about seconds more from now (a
 * harness budget, scaled to the profile). p may be NULL. */
void gc__run_progress_hint(struct gc_progress_state *p, double seconds);
/* The running benchmark will measure `more` configurations from now on
 * (the shown total becomes the count so far plus more). p may be NULL. */
void gc__run_progress_expect(struct gc_progress_state *p, int more);
/* The running benchmark starts measuring one more configuration; reported
 * at most a few times a second. p may be NULL. */
void gc__run_progress_config(struct gc_progress_state *p);
void gc__run_progress_done(struct gc_progress_state *p, double wall_s, const char *status_line);

/* Seconds left in the run at time now: every benchmark not finished at its
 * prior x the profile's scale, corrected by what the finished ones took
 * against their priors (per group, leaning on the whole run's correction
 * while a group has few finished), less what the running one has spent.
 * NAN when nothing is planned. */
double gc__run_progress_eta(const struct gc_progress_state *p, double now);

#endif
