/* Progress of a run as the user sees it: the benchmark running now, how
 * many configurations it has measured, and an estimate of the time left
 * from what the finished benchmarks took. */
#ifndef GC_CORE_PROGRESS_H
#define GC_CORE_PROGRESS_H

#include "gpuchar/gpuchar.h"

#define GC_PROGRESS_MAX_GROUPS 16

struct gc_progress_state {
    gc_progress_detail_fn fn; /* NULL: everything below is a no-op */
    void *user;
    int total, done;
    const char *bench; /* running now; NULL between benchmarks */
    int group;         /* its index in groups[] */
    int configs;
    double t_run, t_bench, t_tick;
    struct {
        char name[32];
        int planned, done;
        int timed;      /* finished benchmarks that ran (not "not available") */
        double seconds; /* spent in those */
    } groups[GC_PROGRESS_MAX_GROUPS];
    int ngroups;
};

void gc__run_progress_init(struct gc_progress_state *p, const struct gc_run_options *o,
                           double t_run);
/* One more benchmark of this group will run. */
void gc__run_progress_plan(struct gc_progress_state *p, const char *group);
void gc__run_progress_start(struct gc_progress_state *p, const char *bench, const char *group);
/* The running benchmark starts measuring one more configuration; reported
 * at most a few times a second. p may be NULL. */
void gc__run_progress_config(struct gc_progress_state *p);
void gc__run_progress_done(struct gc_progress_state *p, double wall_s, const char *status_line);

#endif
