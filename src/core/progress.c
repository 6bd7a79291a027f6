/* Progress events of a run: a benchmark starts, measures configurations,
 * ends. The time left comes from each benchmark's prior (its declared
 * expected time, or a default, scaled by profile and device), corrected by
 * what the finished benchmarks took against their priors: per group (a
 * compute benchmark and a memory sweep are misjudged differently), leaning
 * on the whole run's correction while a group has finished little. */
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

static double prior_of(double expect_s)
{
    return isfinite(expect_s) && expect_s > 0 ? expect_s : GC_PROGRESS_DEFAULT_S;
}

void gc__run_progress_init(struct gc_progress_state *p, const struct gc_run_options *o,
                           double t_run)
{
    memset(p, 0, sizeof(*p));
    p->fn = o->progress_detail;
    p->user = o->progress_user;
    p->t_run = t_run;
    /* The harness budgets' factors: quick x 1/4, full x 4. */
    p->scale = o->profile == GC_PROFILE_QUICK ? 0.25 : o->profile == GC_PROFILE_FULL ? 4.0 : 1.0;
}

void gc__run_progress_plan(struct gc_progress_state *p, const char *group, double expect_s)
{
    int g = group_index(p, group ? group : "");

    p->groups[g].planned++;
    p->groups[g].prior_left += prior_of(expect_s);
    p->prior_all += prior_of(expect_s);
    p->total++;
}

void gc__run_progress_device(struct gc_progress_state *p, bool gpu)
{
    /* A CPU device (PoCL on two cores) took ~5x a GPU's time per run. */
    if (!gpu)
        p->scale *= 4.0;
}

double gc__run_progress_eta(const struct gc_progress_state *p, double now)
{
    double k, a = 0, pr = 0, c, left = 0;

    if (p->total == 0)
        return NAN;
    /* One mean benchmark's weight on the prior side of each correction. */
    k = p->scale * p->prior_all / p->total;
    for (int i = 0; i < p->ngroups; i++) {
        a += p->groups[i].seconds;
        pr += p->scale * p->groups[i].prior_timed;
    }
    c = (a + k) / (pr + k);
    for (int i = 0; i < p->ngroups; i++) {
        double cg = (p->groups[i].seconds + k * c) / (p->scale * p->groups[i].prior_timed + k);
        double rest = p->scale * p->groups[i].prior_left;

        if (p->bench && i == p->group) {
            double est = p->bench_hint > 0 ? p->bench_hint : cg * p->scale * p->bench_prior;
            double spent = now - p->t_bench;

            rest -= p->scale * p->bench_prior;
            left += spent < est ? est - spent : 0;
        }
        left += rest > 0 ? cg * rest : 0;
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
        .configs_total = p->configs_total,
        .bench_s = now - p->t_bench,
        .elapsed_s = now - p->t_run,
        .eta_s = gc__run_progress_eta(p, now),
        .status_line = status_line,
    };

    p->t_tick = now;
    p->fn(p->user, &info);
}

void gc__run_progress_start(struct gc_progress_state *p, const char *bench, const char *group,
                            double expect_s)
{
    if (!p->fn)
        return;
    p->bench = bench;
    p->group = group_index(p, group ? group : "");
    p->bench_prior = prior_of(expect_s);
    p->bench_hint = 0;
    p->configs = p->configs_total = 0;
    p->t_bench = gc__now();
    emit(p, bench, false, NULL);
}

void gc__run_progress_hint(struct gc_progress_state *p, double seconds)
{
    if (p && p->fn && p->bench && isfinite(seconds) && seconds > 0)
        p->bench_hint = gc__now() - p->t_bench + seconds;
}

void gc__run_progress_expect(struct gc_progress_state *p, int more)
{
    if (!p || !p->fn || !p->bench || more < 0)
        return;
    p->configs_total = p->configs + more;
    emit(p, p->bench, false, NULL);
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
    struct gc_progress_group *g = &p->groups[p->group];

    g->done++;
    g->prior_left -= p->bench_prior;
    /* A benchmark the device cannot run takes no time and says nothing
     * about how long the others take. */
    if (!status_line || strcmp(status_line, "n/a") != 0) {
        g->timed++;
        g->seconds += isfinite(wall_s) && wall_s > 0 ? wall_s : 0;
        g->prior_timed += p->bench_prior;
    }
    p->done++;
    {
        /* Finished: no longer the running one in the estimate. */
        const char *name = p->bench;

        p->bench = NULL;
        emit(p, name, true, status_line);
    }
}
