/* The energy figures of one measurement (core/meter.h): power, its
 * uncertainty and source, energy per operation and per byte (total and
 * above the baseline), the context, and the checks every measurement must
 * pass. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/meter.h"

/* ---- metrics ------------------------------------------------------------- */

/* "source: counter (step 12.27 J), +-2.1 W (0.31%) over 0.95 s windows"
 * (or the integral of the samples, with the sensor's tolerance). */
static void uncertainty_text(const struct gc_energy_run *run, char *buf, size_t len)
{
    if (run->from_integral)
        snprintf(buf, len,
                 "source: sampled-power integral (sensor +-%.0f W, below the counter's +-%.3g W), "
                 "+-%.3g W (%.2f%%) over %.3g s windows",
                 run->u_integral_w, run->u_counter_w, run->u_w, 100 * run->u_rel, run->window_s);
    else
        snprintf(buf, len, "source: counter (step %.4g J), +-%.3g W (%.2f%%) over %.3g s windows",
                 run->quantum_j, run->u_w, 100 * run->u_rel, run->window_s);
}

/* The figure's uncertainty (W and %) and window length, each with the
 * source in its note (docs/methodology.md 10.1). */
static void add_uncertainty_metrics(struct gc_bench_result *r, const struct gc_energy_run *run,
                                    const char *prefix)
{
    char n[64], note[400], unc[160];

    uncertainty_text(run, unc, sizeof(unc));
    snprintf(n, sizeof(n), "%spower_uncertainty", prefix);
    snprintf(note, sizeof(note),
             "%s; counter: one step + power x the time uncertainty of the window's two ends "
             "(mean poll %.3g ms), the worst kept window",
             unc, 1e3 * run->poll_s);
    gc__bench_add_metric(r, n, run->u_w, "W", NAN, NULL, note);
    snprintf(n, sizeof(n), "%spower_uncertainty_pct", prefix);
    snprintf(note, sizeof(note), "%s; target <= %.0f%% (windows are lengthened to it, at most %s)",
             unc, 100 * GC_ENERGY_TARGET_REL,
             run->lengthened ? "and some were measured again longer" : "as needed");
    gc__bench_add_metric(r, n, 100 * run->u_rel, "%", NAN, NULL, note);
    snprintf(n, sizeof(n), "%swindow_length", prefix);
    snprintf(note, sizeof(note),
             "median counted span of a kept window (between its first and last counter update); "
             "%d window(s) measured again longer for the %.0f%% rule",
             run->lengthened, 100 * GC_ENERGY_TARGET_REL);
    gc__bench_add_metric(r, n, run->window_s, "s", NAN, NULL, note);
}

void gc__meter_add_power_metrics(struct gc_bench_result *r, const struct gc_energy_run *run,
                                 struct gc_energy_meter *m, const char *prefix)
{
    char n[64], note[400];
    struct gc_stats pw = run->power;

    snprintf(n, sizeof(n), "%spower_avg", prefix);
    char temp[48] = "";

    if (isfinite(run->sensors.temp_first) && isfinite(run->sensors.temp_last))
        snprintf(temp, sizeof(temp), "; device %.0f-%.0f C", run->sensors.temp_first,
                 run->sensors.temp_last);
    char unc[160];
    uncertainty_text(run, unc, sizeof(unc));
    snprintf(note, sizeof(note),
             "%s; %s / time between counter updates, median of %d windows (%.3f s in all, stop: "
             "%s; %d settling dropped)%s; %s",
             unc, run->from_integral ? "integral of the sampled power" : "counter difference",
             run->windows, run->time_s, run->stop_rule, run->settling_windows, temp,
             gc__energy_source(m));
    gc__bench_add_metric(r, n, pw.median, "W", NAN, &pw, note);
    add_uncertainty_metrics(r, run, prefix);
    snprintf(n, sizeof(n), "%spower_max", prefix);
    gc__bench_add_metric(r, n, run->power_max_w, "W", NAN, NULL, gc__energy_power_source(m));
    snprintf(n, sizeof(n), "%senergy", prefix);
    gc__bench_add_metric(r, n, run->energy_j, "J", NAN, NULL,
                         run->from_integral
                             ? "integral of the sampled power summed over the windows (the "
                               "source with the smaller uncertainty)"
                             : "counter difference summed over the windows");
    snprintf(n, sizeof(n), "%stime", prefix);
    gc__bench_add_metric(r, n, run->time_s, "s", NAN, NULL,
                         "summed span of the windows (between counter updates)");
    if (!gc__energy_independent_power(m)) {
        snprintf(n, sizeof(n), "%scounter_vs_integral", prefix);
        gc__bench_add_metric(r, n, NAN, "%", 100 * GC_METER_AGREE_BOUND, NULL,
                             "not available: no power sensor independent of the counter (RAPL "
                             "has none); the maximum power is that of the counter over 20 ms");
    } else if (isfinite(run->integral_j)) {
        snprintf(n, sizeof(n), "%senergy_integral", prefix);
        gc__bench_add_metric(r, n, run->integral_j, "J", NAN, NULL, gc__energy_power_source(m));
        snprintf(n, sizeof(n), "%scounter_vs_integral", prefix);
        char redo[160] = "";
        if (run->redone > 0)
            snprintf(redo, sizeof(redo), "; %d window(s) measured again: %.100s", run->redone,
                     run->redo_why);
        snprintf(note, sizeof(note),
                 "|integral of sampled power - counter| / counter over all windows; the worst "
                 "window %.2f%% (bound %.0f%%)%s%s",
                 100 * run->disagreement_max, 100 * GC_METER_AGREE_BOUND,
                 gc__energy_independent_power(m) ? ""
                                                 : "; not independent: the samples are the "
                                                   "counter's own differences",
                 redo);
        gc__bench_add_metric(r, n, 100 * run->disagreement, "%", 100 * GC_METER_AGREE_BOUND, NULL,
                             note);
    }
    if (isfinite(run->dram_j)) {
        snprintf(n, sizeof(n), "%sdram_energy", prefix);
        gc__bench_add_metric(r, n, run->dram_j, "J", NAN, NULL, "RAPL DRAM domain");
        snprintf(n, sizeof(n), "%sdram_power_avg", prefix);
        gc__bench_add_metric(r, n, run->time_s > 0 ? run->dram_j / run->time_s : NAN, "W", NAN,
                             NULL, "RAPL DRAM domain (not part of the package figures)");
    }
    if (isfinite(run->period_s)) {
        snprintf(n, sizeof(n), "%scounter_update_period", prefix);
        gc__bench_add_metric(r, n, run->period_s, "s", NAN, NULL,
                             "median time between counter updates seen by the meter's thread");
    }
}

void gc__meter_set_context(struct gc_bench_result *r, const struct gc_energy_run *run,
                           const struct gc_energy_state *st, const struct gc_device_info *info)
{
    const struct gc_sensor_window *w = &run->sensors;

    gc__context_info_init(&r->context);
    r->context.sm_clock_mhz = w->sm_median;
    snprintf(r->context.sm_clock_source, sizeof(r->context.sm_clock_source), "%s",
             isfinite(w->sm_median) ? "sensor" : "none");
    r->context.sm_clock_min_mhz = w->sm_min;
    r->context.sm_clock_max_mhz = w->sm_max;
    r->context.mem_clock_mhz = w->mem_median;
    r->context.temp_start_c = w->temp_first;
    r->context.temp_end_c = w->temp_last;
    r->context.power_limit_w = st->power_limit_w;
    r->context.power_avg_w = run->power.median;
    r->context.ecc_enabled = info->ecc_enabled;
    r->context.throttle_reasons = w->reasons;
    snprintf(r->stop_rule, sizeof(r->stop_rule), "%s", run->stop_rule);
}

/* Checks every measurement must pass; false with the error set. */
bool gc__meter_checks(struct gc_bench_result *r, const struct gc_energy_run *run,
                      struct gc_energy_meter *m, const struct gc_energy_state *st)
{
    if (gc__energy_independent_power(m) && isfinite(run->disagreement_max) &&
        run->disagreement_max > GC_METER_AGREE_BOUND) {
        gc__bench_set_error(r, GC_BENCH_ERROR,
                            "energy counter and integral of sampled power disagree by %.1f%% in a "
                            "window (bound %.0f%%): counter %.4g J, integral %.4g J over all "
                            "windows",
                            100 * run->disagreement_max, 100 * GC_METER_AGREE_BOUND, run->energy_j,
                            run->integral_j);
        return false;
    }
    /* The limit holds over the controller's averaging period: the power
     * over all kept windows (steady, back to back), with its uncertainty. */
    char msg[400];
    enum gc_power_verdict v = gc__power_limit_check(
        run->sustained_w, run->sustained_u_w, run->time_s, st->power_limit_w, msg, sizeof(msg));
    if (v == GC_POWER_OVER) {
        gc__bench_set_error(r, GC_BENCH_ERROR, "%s", msg);
        return false;
    }
    if (v == GC_POWER_WARN)
        gc__bench_warn(r, msg);
    return true;
}

void gc__meter_derive(struct gc_session *s, const struct gc_meter_launch *w,
                      const struct gc_energy_run *run, struct gc_meter_figures *f)
{
    struct gc_energy_state *st = gc__meter_state(s);
    double p = run->power.median;

    f->rate = run->launch_s > 0 ? w->ops / run->launch_s : NAN;
    f->busy = run->busy_fraction > 0 ? run->busy_fraction : 1;
    f->per_op_j = p / (f->rate * f->busy);
    f->base_w = isfinite(st->static_w) ? st->static_w : st->idle_w;
    f->dyn_w = p - f->base_w;
    f->dyn_u_w = run->u_w + (isfinite(st->static_w) ? st->static_u_w : st->idle_u_w);
    /* A dynamic power within the windows' own spread, or within the two
     * powers' uncertainties, is no measurement. */
    if (!(f->dyn_w > 2 * run->power.stddev) || !(f->dyn_w > f->dyn_u_w) || !(f->dyn_w > 0))
        f->dyn_w = NAN;
    f->dyn_op_j = f->dyn_w / (f->rate * f->busy);
    f->clock = run->sensors.sm_median;
}

void gc__meter_add_work_metrics(struct gc_session *s, struct gc_bench_result *r,
                                const struct gc_meter_launch *w, const struct gc_energy_run *run,
                                const struct gc_meter_figures *f)
{
    const struct gc_device_info *info = &s->dev->info;
    const struct gc_energy_state *st = s->energy;
    int cus = info->compute_units > 0 ? info->compute_units : 1;
    char unit[32], note[640];
    bool mem = w->bytes > 0 && w->flops == 0 && (!w->op_unit || strcmp(w->op_unit, "OP") != 0);
    const char *base = isfinite(st->static_w) ? "static power (a resident kernel doing no work)"
                                              : "idle power (no static measurement)";

    snprintf(unit, sizeof(unit), "%s/s", w->op_unit);
    snprintf(note, sizeof(note), "%s; device-timed (%ld launches, %.4f%% of host time busy)",
             w->what, run->launches, 100 * f->busy);
    gc__bench_add_metric(r, "throughput", f->rate, unit, NAN, NULL, note);
    if (isfinite(f->clock) && f->clock > 0) {
        snprintf(unit, sizeof(unit), "%s/clk/CU", w->op_unit);
        gc__bench_add_metric(r, "per_clk_per_cu", f->rate / (f->clock * 1e6 * cus), unit,
                             w->spec_per_clk_cu, NULL,
                             "at the median SM clock the sensors read during the windows; the "
                             "limit is the vendor's rate");
        gc__bench_add_metric(r, "sm_clock", f->clock, "MHz", NAN, NULL,
                             "median SM clock over the windows (sensor)");
    }
    snprintf(unit, sizeof(unit), "%s/J", w->op_unit);
    gc__bench_add_metric(r, "ops_per_joule", 1 / f->per_op_j, unit, NAN, NULL,
                         "throughput x busy fraction / average power");
    snprintf(unit, sizeof(unit), "pJ/%s", w->op_unit);
    snprintf(note, sizeof(note),
             "total: average power / (throughput x busy fraction); +-%.2f%% as the power (%s, "
             "%.3g s windows)",
             100 * run->u_rel, run->from_integral ? "sampled-power integral" : "counter",
             run->window_s);
    gc__bench_add_metric(r, "energy_per_op", f->per_op_j * 1e12, unit, NAN, NULL, note);
    snprintf(note, sizeof(note),
             "(average power - %s %.1f W) / (throughput x busy fraction); +-%.3g W%s", base,
             f->base_w, f->dyn_u_w,
             isfinite(f->dyn_op_j) ? ""
                                   : "; not resolved: the power is within twice the windows' "
                                     "spread or the uncertainty of it");
    gc__bench_add_metric(r, "dynamic_energy_per_op", f->dyn_op_j * 1e12, unit, NAN, NULL, note);
    gc__bench_add_metric(r, "dynamic_power", f->dyn_w, "W", NAN, NULL, note);
    gc__bench_add_metric(r, "mips_per_watt_per_sm", 1 / f->per_op_j / 1e6 / cus, "MIPS/W/SM", NAN,
                         NULL,
                         "millions of operations per joule per SM (MIPP Tables I-II: energy "
                         "efficiency (MIPS x Watt) x SM)");
    if (w->flops > 0) {
        double fpo = w->flops / w->ops;
        gc__bench_add_metric(r, "energy_per_flop", f->per_op_j / fpo * 1e12, "pJ/FLOP", NAN, NULL,
                             "total energy per floating-point operation");
        gc__bench_add_metric(r, "dynamic_energy_per_flop", f->dyn_op_j / fpo * 1e12, "pJ/FLOP", NAN,
                             NULL, "dynamic energy per floating-point operation");
    }
    if (mem) {
        double bpo = w->bytes / w->ops, tpo = w->transactions / w->ops;
        gc__bench_add_metric(r, "bandwidth", f->rate * bpo, "B/s", NAN, NULL,
                             "bytes moved at the level per second of device time");
        if (isfinite(f->clock) && f->clock > 0)
            gc__bench_add_metric(r, "bytes_per_clk_per_cu", f->rate * bpo / (f->clock * 1e6 * cus),
                                 "B/clk/CU", NAN, NULL, "at the median SM clock");
        gc__bench_add_metric(r, "bytes_per_joule", bpo / f->per_op_j, "B/J", NAN, NULL, NULL);
        snprintf(note, sizeof(note), "total; +-%.2f%% as the power (%s)", 100 * run->u_rel,
                 run->from_integral ? "sampled-power integral" : "counter");
        gc__bench_add_metric(r, "energy_per_byte", f->per_op_j / bpo * 1e12, "pJ/B", NAN, NULL,
                             note);
        gc__bench_add_metric(r, "dynamic_energy_per_byte", f->dyn_op_j / bpo * 1e12, "pJ/B", NAN,
                             NULL, "above the baseline");
        if (tpo > 0) {
            gc__bench_add_metric(r, "transactions_per_joule", tpo / f->per_op_j, "1/J", NAN, NULL,
                                 "MIPP Tables III-IV (10^6 transactions / watt); transactions "
                                 "as the workload counts them (32-byte sectors for L2 and DRAM, "
                                 "warp requests on chip)");
            gc__bench_add_metric(r, "energy_per_transaction", f->per_op_j / tpo * 1e9, "nJ", NAN,
                                 NULL, "MIPP Tables III-IV (nanojoule per transaction)");
        }
    }
    gc__bench_add_metric(r, "baseline_power", f->base_w, "W", NAN, NULL, base);
    gc__bench_add_metric(r, "busy_fraction", f->busy, "", 1, NULL,
                         "device time / host time of the launch calls in the windows");
    gc__bench_add_metric(r, "occupancy", (double)w->warps_per_cu, "warps/CU", NAN, NULL, NULL);
}
