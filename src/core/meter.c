/* The meter runner (core/meter.h): a description's launch, built by its
 * performance benchmark's launch_at at the configuration that benchmark
 * wrote into this run's results tree (else its default one), run under the
 * power meter for its windows into figures and checks; the occupancy sweep
 * runs the same launch at each point of warps per CU; energy.idle measures
 * the counter and the baselines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/meter.h"
#include "core/results.h"
#include "core/stats.h"

/* ---- the launch and its configuration ------------------------------------ */

void gc__meter_config_ask(const struct gc_session *s, const struct gc_meter_desc *d, int warps,
                          struct gc_config_ask *ask, char *why, size_t len)
{
    const struct gc_bench_result *r = gc__results_find(s->results, d->bench);

    memset(ask, 0, sizeof(*ask));
    why[0] = '\0';
    ask->part = d->part;
    ask->warps = warps;
    ask->why_default = why;
    if (warps > 0)
        snprintf(why, len, "is not used at a point of the occupancy sweep");
    else if (!r)
        snprintf(why, len, "did not run in this run");
    else if (r->status == GC_BENCH_OK)
        ask->from = r;
    else
        snprintf(why, len, "%s in this run",
                 r->status == GC_BENCH_ERROR           ? "failed"
                 : r->status == GC_BENCH_NOT_AVAILABLE ? "was not available"
                                                       : "did not complete");
}

int gc__meter_build(struct gc_session *s, const struct gc_meter_desc *d,
                    const struct gc_bench *perf, int warps, struct gc_meter_launch *w)
{
    struct gc_config_ask ask;
    char why[96];

    if (!perf || !perf->launch_at) {
        snprintf(w->why, sizeof(w->why), "%s has no kernel launch to meter in this build",
                 d->bench);
        return GC_ENOTSUP;
    }
    gc__meter_config_ask(s, d, warps, &ask, why, sizeof(why));
    return perf->launch_at(s, perf, &ask, w);
}

/* ---- one launch ---------------------------------------------------------- */

/* A launch that could not be built: "not available" with the reason, or
 * failed (a wrong first result). */
static int not_built(struct gc_bench_result *r, struct gc_device *d,
                     const struct gc_meter_launch *w, int rc)
{
    if (rc == GC_ENOTSUP) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available on this device: %s", w->why);
        return 0;
    }
    if (rc == GC_EVERIFY)
        gc__bench_set_error(r, GC_BENCH_ERROR, "%s", w->why[0] ? w->why : d->err);
    return rc;
}

/* GC_METER_LAUNCH: the launch at its benchmark's configuration, its figures,
 * checks and orderings. */
static int run_launch(struct gc_session *s, const struct gc_meter_desc *d,
                      const struct gc_bench *perf, struct gc_bench_result *r)
{
    struct gc_energy_meter *m;
    struct gc_energy_cfg cfg;
    struct gc_energy_run run;
    struct gc_meter_launch w;
    struct gc_meter_figures f;
    int rc;

    if (!(m = gc__meter_open(s, r)))
        return 0;
    gc__meter_launch_init(&w);
    if ((rc = gc__meter_baseline(s, m, r, NULL, NULL))) {
        rc = rc == GC_ENOTSUP ? 0 : rc;
        goto out;
    }
    rc = gc__meter_build(s, d, perf, 0, &w);
    if (rc) {
        rc = not_built(r, s->dev, &w, rc);
        goto out;
    }
    gc__meter_cfg_for(s, m, &cfg);
    rc = gc__energy_measure(s, m, w.k, &w.l, &cfg, &run);
    if (rc) {
        rc = gc__meter_measure_error(s, r, rc, &run, "");
        rc = rc == GC_ENOTSUP ? 0 : rc;
        goto out;
    }
    gc__meter_derive(s, &w, &run, &f);
    gc__meter_add_power_metrics(r, &run, m, "");
    gc__meter_add_work_metrics(s, r, &w, &run, &f);
    gc__meter_set_context(r, &run, s->energy, &s->dev->info);
    if (!gc__meter_checks(r, &run, m, s->energy) || !gc__meter_orderings(s, r, d, &w, &f)) {
        rc = GC_ERANGE;
        goto out;
    }
    gc__meter_remember(s, d, &w, &f);
out:
    gc__meter_launch_release(s, &w);
    return rc;
}

/* ---- the occupancy sweep -------------------------------------------------- */

/* Energy per operation across the occupancy sweep, with the clock of each
 * point: how much power idle occupancy costs. */
/* The sweep's series along the warps per CU: power, energy and dynamic
 * energy per operation (per byte for a sweep of bytes), clock, throughput. */
static int occ_series(struct gc_bench_result *r, const struct gc_meter_desc *d,
                      struct gc_series **sp, struct gc_series **se, struct gc_series **sd,
                      struct gc_series **sc, struct gc_series **st)
{
    bool bytes = d->per == GC_METER_PER_BYTE;

    *sp = gc__bench_add_series(r, "power", "warps per CU", "warps", "average power", "W");
    *se = gc__bench_add_series(r, "energy_per_op", "warps per CU", "warps", "energy per operation",
                               bytes ? "pJ/B" : "pJ/result");
    *sd = gc__bench_add_series(r, "dynamic_energy_per_op", "warps per CU", "warps",
                               "dynamic energy per operation", bytes ? "pJ/B" : "pJ/result");
    *sc = gc__bench_add_series(r, "sm_clock", "warps per CU", "warps", "SM clock", "MHz");
    *st = gc__bench_add_series(r, "throughput", "warps per CU", "warps", "throughput",
                               bytes ? "B/s" : "results/s");
    return *sp && *se && *sd && *sc && *st ? 0 : GC_ENOMEM;
}

/* The sweep's ends: power at the lowest and the highest occupancy measured,
 * the lowest's above the baseline, and their energy ratio (e_ratio). */
static void occ_metrics(struct gc_bench_result *r, const struct gc_energy_state *es,
                        const struct gc_meter_desc *d, double p_lo, double p_hi, double e_ratio,
                        int w_lo, int w_hi)
{
    char note[256];
    double base = isfinite(es->static_w) ? es->static_w : es->idle_w;

    snprintf(note, sizeof(note), "average power at %d warps/CU, the lowest occupancy measured",
             w_lo);
    gc__bench_add_metric(r, "power_low_occupancy", p_lo, "W", NAN, NULL, note);
    snprintf(note, sizeof(note), "average power at %d warps/CU, the highest measured", w_hi);
    gc__bench_add_metric(r, "power_full_occupancy", p_hi, "W", NAN, NULL, note);
    gc__bench_add_metric(r, "low_occupancy_power_above_baseline", p_lo - base, "W", NAN, NULL,
                         "what keeping the lowest occupancy busy costs above the baseline "
                         "(static, else idle) power");
    snprintf(note, sizeof(note),
             "energy per %s at %d warps/CU over that at %d warps/CU: what running at low "
             "occupancy costs in energy",
             d->per == GC_METER_PER_BYTE ? "byte" : "result", w_lo, w_hi);
    gc__bench_add_metric(r, "energy_ratio_low_to_full", e_ratio, "", NAN, NULL, note);
}

/* GC_METER_OCCUPANCY: the launch at each point of warps per CU. */
static int run_occupancy(struct gc_session *s, const struct gc_meter_desc *d,
                         const struct gc_bench *perf, struct gc_bench_result *r)
{
    const struct gc_device_info *info = &s->dev->info;
    struct gc_energy_meter *m;
    struct gc_energy_cfg cfg;
    /* --quick: the two ends only (fewer points, not shorter windows). */
    static const int pts_d[] = {1, 2, 4, 8, 16, 24, 32, 48, 64}, pts_q[] = {1, 64};
    bool quick = s->profile == GC_PROFILE_QUICK;
    const int *pts = quick ? pts_q : pts_d;
    int npts = quick ? 2 : 9, rc = 0, done = 0;
    int maxw = info->max_threads_per_cu / (info->simd_width > 0 ? info->simd_width : 32);
    struct gc_series *sp, *se, *sd, *sc, *st;
    double p_lo = NAN, p_hi = NAN, e_lo = NAN, e_hi = NAN, u_max = NAN;
    int w_lo = 0, w_hi = 0;

    if (!(m = gc__meter_open(s, r)))
        return 0;
    if (!(info->caps & GC_CAP_DYN_SHARED) || maxw < 1) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available on this device: occupancy is controlled with dynamic "
                            "shared memory and the device's warp limits");
        return 0;
    }
    if ((rc = gc__meter_baseline(s, m, r, NULL, NULL)))
        return rc == GC_ENOTSUP ? 0 : rc;
    gc__meter_cfg_for(s, m, &cfg);
    if ((rc = occ_series(r, d, &sp, &se, &sd, &sc, &st)))
        return rc;
    for (int i = 0; i < npts && !gc__stopped(s); i++) {
        int warps = pts[i] < maxw ? pts[i] : maxw;
        struct gc_meter_launch w;
        struct gc_energy_run run;
        struct gc_meter_figures f;

        if (i > 0 && pts[i - 1] >= maxw)
            break;
        gc__meter_launch_init(&w);
        rc = gc__meter_build(s, d, perf, warps, &w);
        if (rc == GC_ERANGE) {
            gc__meter_launch_release(s, &w);
            rc = 0;
            continue;
        }
        if (rc) {
            rc = not_built(r, s->dev, &w, rc);
            gc__meter_launch_release(s, &w);
            return rc;
        }
        rc = gc__energy_measure(s, m, w.k, &w.l, &cfg, &run);
        if (rc) {
            char what[48];

            snprintf(what, sizeof(what), "at %d warps/CU: ", warps);
            rc = gc__meter_measure_error(s, r, rc, &run, what);
            gc__meter_launch_release(s, &w);
            return rc == GC_ENOTSUP ? 0 : rc;
        }
        gc__meter_derive(s, &w, &run, &f);
        double per = d->per == GC_METER_PER_BYTE ? w.ops / w.bytes : 1; /* bytes: per byte */
        gc__series_add(sp, warps, run.power.median, &run.power, NULL);
        gc__series_add(se, warps, f.per_op_j * per * 1e12, NULL, NULL);
        gc__series_add(sd, warps, f.dyn_op_j * per * 1e12, NULL, NULL);
        gc__series_add(sc, warps, f.clock, NULL, NULL);
        gc__series_add(st, warps, f.rate / per, NULL, NULL);
        if (!gc__meter_checks(r, &run, m, s->energy)) {
            gc__meter_launch_release(s, &w);
            return GC_ERANGE;
        }
        if (done == 0) {
            p_lo = run.power.median;
            e_lo = f.per_op_j * per;
            w_lo = warps;
        }
        if (!(u_max >= run.u_rel))
            u_max = run.u_rel;
        p_hi = run.power.median;
        e_hi = f.per_op_j * per;
        w_hi = warps;
        gc__meter_set_context(r, &run, s->energy, info);
        done++;
        gc__meter_launch_release(s, &w);
    }
    if (done > 0) {
        occ_metrics(r, s->energy, d, p_lo, p_hi, e_lo / e_hi, w_lo, w_hi);
        gc__bench_add_metric(r, "power_uncertainty_pct_max", 100 * u_max, "%", NAN, NULL,
                             "the largest uncertainty of a point's power (and energy per "
                             "operation), counter or sampled-power integral as in energy.idle");
    }
    return gc__stopped(s) ? GC_EINTR : rc;
}

/* ---- energy.idle --------------------------------------------------------- */

/* GC_METER_IDLE: the counter's resolution and update period, idle and
 * static power. */
static int run_idle(struct gc_session *s, struct gc_bench_result *r)
{
    struct gc_energy_meter *m;
    struct gc_energy_state *st;
    struct gc_energy_run idle, awake;
    int rc;

    if (!(m = gc__meter_open(s, r)))
        return 0;
    st = gc__meter_state(s);
    /* The counter's resolution and update period: a tight polling loop
     * while the device idles (its steps are then the smallest). */
    rc = gc__energy_resolution(m, s->profile == GC_PROFILE_QUICK ? 0.5 : 1.5, &st->res);
    if (rc) {
        gc__bench_set_error(r, GC_BENCH_ERROR, "reading the energy counter: %s",
                            s->dev->err[0] ? s->dev->err : gc_strerror(rc));
        return rc;
    }
    st->have_res = true;
    {
        char note[300];

        snprintf(note, sizeof(note),
                 "smallest non-zero step of the counter in a %.1f s tight polling loop (%d reads, "
                 "%d updates; median step %.4g J)",
                 s->profile == GC_PROFILE_QUICK ? 0.5 : 1.5, st->res.reads, st->res.updates,
                 st->res.median_step_j);
        gc__bench_add_metric(r, "counter_resolution", st->res.step_j, "J", NAN, NULL, note);
        snprintf(note, sizeof(note),
                 "median time between counter updates in the same loop (min %.4g s, max %.4g s)",
                 st->res.period_min_s, st->res.period_max_s);
        gc__bench_add_metric(r, "counter_update_period", st->res.period_s, "s", NAN, NULL, note);
        gc__bench_add_metric(r, "counter_poll_period", st->res.poll_s, "s", NAN, NULL,
                             "mean time of one counter read in the loop");
        gc__bench_add_metric(r, "power_limit", st->power_limit_w, "W", NAN, NULL,
                             "enforced power limit (NVML); NAN when the device reports none");
    }
    if (!st->res.updates) {
        char why[400];

        snprintf(why, sizeof(why),
                 "the energy counter did not change in %.1f s of polling (%s): a counter that "
                 "never moves measures nothing",
                 s->profile == GC_PROFILE_QUICK ? 0.5 : 1.5, gc__energy_source(m));
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available on this device: %s", why);
        gc__meter_drop(s, why);
        return 0;
    }
    st->have_baseline = false;
    rc = gc__meter_baseline(s, m, r, &idle, &awake);
    if (rc)
        return rc == GC_ENOTSUP ? 0 : rc;
    gc__meter_add_power_metrics(r, &idle, m, "idle_");
    if (isfinite(st->static_w)) {
        gc__meter_add_power_metrics(r, &awake, m, "static_");
        gc__bench_add_difference(r, "static_minus_idle", st->static_w - st->idle_w,
                                 gc__diff_resolution(&awake.power, &idle.power), "W",
                                 "what keeping the device awake (clocks up, a kernel resident) "
                                 "costs above idle");
        gc__bench_add_metric(r, "static_sm_clock", awake.sensors.sm_median, "MHz", NAN, NULL,
                             st->static_note);
        gc__meter_set_context(r, &awake, st, &s->dev->info);
        if (!gc__meter_checks(r, &awake, m, st))
            return GC_ERANGE;
    } else {
        gc__bench_add_metric(r, "static_power", NAN, "W", NAN, NULL, st->static_note);
        gc__meter_set_context(r, &idle, st, &s->dev->info);
    }
    if (!gc__meter_checks(r, &idle, m, st))
        return GC_ERANGE;
    return 0;
}

int gc__meter_run(struct gc_session *s, const struct gc_meter_desc *d, const struct gc_bench *perf,
                  struct gc_bench_result *r)
{
    switch (d->kind) {
    case GC_METER_IDLE:
        return run_idle(s, r);
    case GC_METER_OCCUPANCY:
        return run_occupancy(s, d, perf, r);
    case GC_METER_LAUNCH:
    default:
        return run_launch(s, d, perf, r);
    }
}
