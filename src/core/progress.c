/* Progress events of a run: a benchmark starts, measures configurations,
 * ends. The time left is estimated per benchmark group (a compute benchmark
 * and a memory sweep take very different times) from the group's finished
 * benchmarks, or from all finished ones while a group has none. */
#include <math.h>
#include <string.h>

#include "core/progress.h"
#include "core/sensors.h"

/* Configuration ticks closer together than this are not reported. */
#define TICK_S 0.25

static int group_index(struct gc_progress_state *p, const char *group)
{
    for (int i = 0; i < p->ngroups; i++)
        if (strcmp(p->groups[i].name, group) == 0)
            return i;
    if (p->ngroups == GC_PROGRESS_MAX_GROUPS)
        return GC_PROGRESS_MAX_GROUPS - 1; /* the last one takes the rest */
    snprintf(p->groups[p->ngroups].name, sizeof(p->groups[0].name), "%s", group);
    return p->ngroups++;
}

void gc__run_progress_init(struct gc_progress_state *p, const struct gc_run_options *o,
                           double t_run)
{
    memset(p, 0, sizeof(*p));
    p->fn = o->progress_detail;
    p->user = o->progress_user;
    p->t_run = t_run;
}

void gc__run_progress_plan(struct gc_progress_state *p, const char *group)
{
    p->groups[group_index(p, group ? group : "")].planned++;
    p->total++;
}

/* Seconds left: every benchmark not finished at its group's mean (or the
 * overall mean), less what the running one has already spent. */
static double eta(const struct gc_progress_state *p, double now)
{
    double all_s = 0, left = 0;
    int all_n = 0;

    for (int i = 0; i < p->ngroups; i++) {
        all_s += p->groups[i].seconds;
        all_n += p->groups[i].timed;
    }
    if (all_n == 0)
        return NAN;
    for (int i = 0; i < p->ngroups; i++) {
        int rest = p->groups[i].planned - p->groups[i].done;
        double mean =
            p->groups[i].timed ? p->groups[i].seconds / p->groups[i].timed : all_s / all_n;

        if (rest <= 0)
            continue;
        if (p->bench && i == p->group) {
            double spent = now - p->t_bench;

            left += spent < mean ? mean - spent : 0;
            rest--;
        }
        left += rest * mean;
    }
    return left;
}

static void emit(struct gc_progress_state *p, const char *bench, bool finished,
                 const char *status_line)
{
    double now = gc__now();
    struct gc_progress_info info = {
        .done = p->done,
        .total = p->total,
        .bench = bench,
        .finished = finished,
        .configs = p->configs,
        .bench_s = now - p->t_bench,
        .elapsed_s = now - p->t_run,
        .eta_s = eta(p, now),
        .status_line = status_line,
    };

    p->t_tick = now;
    p->fn(p->user, &info);
}

void gc__run_progress_start(struct gc_progress_state *p, const char *bench, const char *group)
{
    if (!p->fn)
        return;
    p->bench = bench;
    p->group = group_index(p, group ? group : "");
    p->configs = 0;
    p->t_bench = gc__now();
    emit(p, bench, false, NULL);
}

void gc__run_progress_config(struct gc_progress_state *p)
{
    if (!p || !p->fn || !p->bench)
        return;
    p->configs++;
    if (gc__now() - p->t_tick >= TICK_S)
        emit(p, p->bench, false, NULL);
}

void gc__run_progress_done(struct gc_progress_state *p, double wall_s, const char *status_line)
{
    if (!p->fn || !p->bench)
        return;
    p->groups[p->group].done++;
    /* A benchmark the device cannot run takes no time and says nothing
     * about how long the others of its group take. */
    if (!status_line || strcmp(status_line, "n/a") != 0) {
        p->groups[p->group].timed++;
        p->groups[p->group].seconds += isfinite(wall_s) && wall_s > 0 ? wall_s : 0;
    }
    p->done++;
    {
        /* Finished: no longer the running one in the estimate. */
        const char *name = p->bench;

        p->bench = NULL;
        emit(p, name, true, status_line);
    }
}
