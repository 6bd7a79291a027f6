/* energy.compute.*, energy.memory.* and energy.occupancy.*: a performance
 * benchmark's kernel launch (energy/source.c) run under the power meter for
 * its windows, and the figures derived from it; the occupancy sweeps run
 * the same launch at each point of warps per CU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/energy/energy.h"
#include "core/stats.h"

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

int gc__en_run_work(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    const struct eparam *p = self->param;
    struct gc_energy_meter *m;
    struct gc_energy_cfg cfg;
    struct gc_energy_run run;
    struct gc_meter_launch w;
    struct gc_en_figures f;
    int rc;

    if (!(m = gc__en_meter(s, r)))
        return 0;
    gc__meter_launch_init(&w);
    if ((rc = gc__en_baseline(s, m, r, NULL, NULL))) {
        rc = rc == GC_ENOTSUP ? 0 : rc;
        goto out;
    }
    rc = gc__en_build(s, p, 0, &w);
    if (rc) {
        rc = not_built(r, s->dev, &w, rc);
        goto out;
    }
    gc__en_cfg_for(s, m, &cfg);
    rc = gc__energy_measure(s, m, w.k, &w.l, &cfg, &run);
    if (rc) {
        rc = gc__en_measure_error(s, r, rc, &run, "");
        rc = rc == GC_ENOTSUP ? 0 : rc;
        goto out;
    }
    gc__en_derive(s, &w, &run, &f);
    gc__en_add_power_metrics(r, &run, m, "");
    gc__en_add_work_metrics(s, r, &w, &run, &f);
    gc__en_set_context(r, &run, s->energy, &s->dev->info);
    if (!gc__en_checks(r, &run, m, s->energy) || !gc__en_orderings(s, r, p, &w, &f)) {
        rc = GC_ERANGE;
        goto out;
    }
    gc__en_remember(s, p, &w, &f);
out:
    gc__meter_launch_release(s, &w);
    return rc;
}

/* Energy per operation across the occupancy sweep, with the clock of each
 * point: how much power idle occupancy costs. */
/* The sweep's series along the warps per CU: power, energy and dynamic
 * energy per operation (per byte for the DRAM sweep), clock, throughput. */
static int occ_series(struct gc_bench_result *r, const struct eparam *p, struct gc_series **sp,
                      struct gc_series **se, struct gc_series **sd, struct gc_series **sc,
                      struct gc_series **st)
{
    *sp = gc__bench_add_series(r, "power", "warps per CU", "warps", "average power", "W");
    *se = gc__bench_add_series(r, "energy_per_op", "warps per CU", "warps", "energy per operation",
                               p->occ ? "pJ/B" : "pJ/result");
    *sd = gc__bench_add_series(r, "dynamic_energy_per_op", "warps per CU", "warps",
                               "dynamic energy per operation", p->occ ? "pJ/B" : "pJ/result");
    *sc = gc__bench_add_series(r, "sm_clock", "warps per CU", "warps", "SM clock", "MHz");
    *st = gc__bench_add_series(r, "throughput", "warps per CU", "warps", "throughput",
                               p->occ ? "B/s" : "results/s");
    return *sp && *se && *sd && *sc && *st ? 0 : GC_ENOMEM;
}

/* The sweep's ends: power at the lowest and the highest occupancy measured,
 * the lowest's above the baseline, and their energy ratio (e_ratio). */
static void occ_metrics(struct gc_bench_result *r, const struct gc_energy_state *es,
                        const struct eparam *p, double p_lo, double p_hi, double e_ratio, int w_lo,
                        int w_hi)
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
             p->occ ? "byte" : "result", w_lo, w_hi);
    gc__bench_add_metric(r, "energy_ratio_low_to_full", e_ratio, "", NAN, NULL, note);
}

int gc__en_run_occupancy(struct gc_session *s, const struct gc_bench *self,
                         struct gc_bench_result *r)
{
    const struct eparam *p = self->param;
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

    if (!(m = gc__en_meter(s, r)))
        return 0;
    if (!(info->caps & GC_CAP_DYN_SHARED) || maxw < 1) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available on this device: occupancy is controlled with dynamic "
                            "shared memory and the device's warp limits");
        return 0;
    }
    if ((rc = gc__en_baseline(s, m, r, NULL, NULL)))
        return rc == GC_ENOTSUP ? 0 : rc;
    gc__en_cfg_for(s, m, &cfg);
    if ((rc = occ_series(r, p, &sp, &se, &sd, &sc, &st)))
        return rc;
    for (int i = 0; i < npts && !gc__stopped(s); i++) {
        int warps = pts[i] < maxw ? pts[i] : maxw;
        struct gc_meter_launch w;
        struct gc_energy_run run;
        struct gc_en_figures f;

        if (i > 0 && pts[i - 1] >= maxw)
            break;
        gc__meter_launch_init(&w);
        rc = gc__en_build(s, p, warps, &w);
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
            rc = gc__en_measure_error(s, r, rc, &run, what);
            gc__meter_launch_release(s, &w);
            return rc == GC_ENOTSUP ? 0 : rc;
        }
        gc__en_derive(s, &w, &run, &f);
        double per = p->occ ? w.ops / w.bytes : 1; /* bytes: per byte */
        gc__series_add(sp, warps, run.power.median, &run.power, NULL);
        gc__series_add(se, warps, f.per_op_j * per * 1e12, NULL, NULL);
        gc__series_add(sd, warps, f.dyn_op_j * per * 1e12, NULL, NULL);
        gc__series_add(sc, warps, f.clock, NULL, NULL);
        gc__series_add(st, warps, f.rate / per, NULL, NULL);
        if (!gc__en_checks(r, &run, m, s->energy)) {
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
        gc__en_set_context(r, &run, s->energy, info);
        done++;
        gc__meter_launch_release(s, &w);
    }
    if (done > 0) {
        occ_metrics(r, s->energy, p, p_lo, p_hi, e_lo / e_hi, w_lo, w_hi);
        gc__bench_add_metric(r, "power_uncertainty_pct_max", 100 * u_max, "%", NAN, NULL,
                             "the largest uncertainty of a point's power (and energy per "
                             "operation), counter or sampled-power integral as in energy.idle");
    }
    return gc__stopped(s) ? GC_EINTR : rc;
}
