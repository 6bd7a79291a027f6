/* energy.*: power and energy per operation and per byte (MIPP §IV-V, Tables
 * I-IV): the performance benchmarks' own kernels at the configuration of
 * their peak in this run, else at a fixed near-peak one (bench/workload.h),
 * run for windows long enough for the device's energy
 * counter (core/energy.h); average and maximum power, energy, operations or
 * bytes per joule, energy per operation total and above the static power of
 * a resident kernel that does no work, MIPS per watt per SM as MIPP reports
 * it; idle and static power; energy per FFMA and per DRAM byte across the
 * occupancy sweep. Physical orderings (DFMA above FFMA, DRAM above L2 above
 * shared per byte, tensor cores below FFMA per FLOP, power within the
 * board's limit, counter against the integral of sampled power) are checked:
 * a violation fails the benchmark. The family runs with --full or when named
 * with --bench; in the default run it is skipped (its windows take seconds
 * per kernel). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/itype.h"
#include "bench/workload.h"
#include "core/energy.h"
#include "core/guard.h"
#include "core/stats.h"
#include "core/sweep.h"
#include "core/kcache.h"
#include "kgen/kgen.h"

/* Counter and integral of sampled power must agree this well per window. */
#define AGREE_BOUND 0.05

enum ekind { EK_IDLE, EK_ITYPE, EK_MMA, EK_MEM, EK_OCC };

enum memlevel { ML_DRAM_READ, ML_DRAM_WRITE, ML_L2, ML_L1, ML_SHARED, ML_CONSTANT, ML_ATOMICS };

struct eparam {
    enum ekind kind;
    const struct gc_itype *t;    /* EK_ITYPE */
    const struct gc_bench *perf; /* EK_MMA: the performance benchmark */
    enum memlevel ml;            /* EK_MEM */
    int occ;                     /* EK_OCC: 0 fp32 FMA, 1 DRAM read */
    const char *key;             /* record key for the ordering checks */
};

/* ---- shared state -------------------------------------------------------- */

static struct gc_energy_state *state(struct gc_session *s)
{
    if (!s->energy)
        s->energy = calloc(1, sizeof(*s->energy));
    return s->energy;
}

/* Opens the meter once per run; NULL with the reason recorded in r. */
static struct gc_energy_meter *meter(struct gc_session *s, struct gc_bench_result *r)
{
    struct gc_energy_state *st = state(s);

    if (!st) {
        gc__bench_set_error(r, GC_BENCH_ERROR, "out of host memory");
        return NULL;
    }
    if (!st->tried) {
        struct gc_sensor_sample x;

        st->tried = true;
        st->idle_w = st->static_w = st->power_limit_w = NAN;
        if (gc__energy_open(s->dev, &st->meter, st->why, sizeof(st->why)) != 0)
            st->meter = NULL;
        if (gc__dev_sensors(s->dev, &x) == 0 && (x.valid & GC_SENSOR_POWER_LIMIT))
            st->power_limit_w = x.power_limit_w;
    }
    if (!st->meter)
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available on this device: %s", st->why);
    return st->meter;
}

/* An implausible reading: the meter reads no device's power. Every later
 * energy benchmark of the run is "not available" with the same reason. */
static void drop_meter(struct gc_session *s, const char *why)
{
    struct gc_energy_state *st = state(s);

    snprintf(st->why, sizeof(st->why), "%s", why);
    gc__energy_close(st->meter);
    st->meter = NULL;
}

/* A measurement that gave no figure: "not available" for an implausible
 * reading (the meter dropped; GC_ENOTSUP returned, which the benchmark's
 * run turns into 0), failed with the reason when no window was valid. */
static int measure_error(struct gc_session *s, struct gc_bench_result *r, int rc,
                         const struct gc_energy_run *run, const char *what)
{
    if (rc == GC_ENOTSUP) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available on this device: %s%s", what,
                            run->redo_why);
        drop_meter(s, run->redo_why);
    } else if (rc == GC_EUNSTABLE) {
        gc__bench_set_error(r, GC_BENCH_ERROR,
                            "%sno valid energy window: %s (after %d invalid "
                            "windows)",
                            what, run->redo_why, run->redone);
    }
    return rc;
}

static void cfg_for(struct gc_session *s, struct gc_energy_meter *m, struct gc_energy_cfg *c)
{
    gc__energy_cfg_defaults(c, s->profile, &s->dev->info);
    /* Without instantaneous power the samples are one-second averages: the
     * first window must start after a full averaging window of the load. */
    if (gc__energy_independent_power(m) && strstr(gc__energy_power_source(m), "1 s average") &&
        c->settle_s < 1.2)
        c->settle_s = 1.2;
    /* Differences of a counter over 20 ms smooth its update jitter. */
    if (!gc__energy_independent_power(m))
        c->sample_s = 0.02;
    /* A window whose counter and independent integral disagree beyond the
     * bound (a power transient the samples missed) is measured again; the
     * counter's own differences are no independent check. */
    c->agree_bound = gc__energy_independent_power(m) ? AGREE_BOUND : 0;
}

/* ---- the awake kernel (static power) ------------------------------------ */

/* One warp per SM sleeps in __nanosleep until dur_ns of %globaltimer have
 * passed: the device is active (clocks up, a kernel resident) but issues
 * almost nothing. Each block stores the time it stayed, which the host
 * checks. */
static char *gen_awake(enum gc_dialect d)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, 0);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_awake(GC_GLOBAL GC_U64 *out, GC_U64 dur_ns)\n{\n"
                      "    GC_U64 t0, t;\n"
                      "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n"
                      "    do {\n"
                      "        asm volatile(\"nanosleep.u32 1000;\");\n"
                      "        asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
                      "    } while (t - t0 < dur_ns);\n"
                      "    if (GC_TID == 0)\n"
                      "        out[GC_BID] = t - t0;\n"
                      "}\n");
    return gc__sbuf_take(&b);
}

/* GC_ENOTSUP with *ran false: no kernel to measure (the note says why);
 * with *ran true: the meter's own GC_ENOTSUP (an implausible reading). */
static int measure_static(struct gc_session *s, struct gc_energy_meter *m,
                          const struct gc_energy_cfg *cfg, struct gc_energy_run *run, char *note,
                          size_t notelen, bool *ran)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    struct gc_kreq req = {0};
    struct gc_kern *k = NULL;
    struct gc_buf *out = NULL;
    unsigned long long *got = NULL;
    unsigned grid = (unsigned)(info->compute_units > 0 ? info->compute_units : 1);
    uint64_t dur_ns = (uint64_t)(cfg->chunk_s * 1e9);
    int rc;
    double el;

    *ran = false;
    if ((info->caps & (GC_CAP_INLINE_ASM | GC_CAP_GLOBALTIMER)) !=
            (GC_CAP_INLINE_ASM | GC_CAP_GLOBALTIMER) ||
        !d->arch.timed_sleep) {
        snprintf(note, notelen,
                 "no in-kernel timer to sleep on (needs CUDA sm_70+): dynamic energy is taken "
                 "above idle power");
        return GC_ENOTSUP;
    }
    req.label = "energy_awake";
    req.src = gen_awake(d->ops->dialect);
    if (!req.src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(s, &req, 1)) || (rc = d->ops->kernel(req.prog, "gc_awake", &k)))
        goto out;
    if ((rc = gc__dev_alloc(d, grid * 8, &out)))
        goto out;
    struct gc_arg args[2] = {{.type = GC_ARG_BUF, .v.buf = out},
                             {.type = GC_ARG_U64, .v.u64 = dur_ns}};
    struct gc_launch l = {{grid, 1, 1}, {32, 1, 1}, 0, args, 2, 1};
    if ((rc = gc__dev_launch(d, k, &l, &el)))
        goto out;
    got = malloc(grid * sizeof(*got));
    if (!got) {
        rc = GC_ENOMEM;
        goto out;
    }
    if ((rc = gc__dev_read(d, out, 0, got, grid * 8)))
        goto out;
    for (unsigned b = 0; b < grid; b++)
        if (got[b] < dur_ns || got[b] > 100 * dur_ns) {
            snprintf(d->err, sizeof(d->err),
                     "awake kernel: block %u stayed %llu ns, expected at least %llu", b,
                     (unsigned long long)got[b], (unsigned long long)dur_ns);
            rc = GC_EVERIFY;
            goto out;
        }
    *ran = true;
    rc = gc__energy_measure(s, m, k, &l, cfg, run);
    snprintf(note, notelen,
             "one warp per SM sleeping (nanosleep 1 us) until %.0f ms of %%globaltimer passed, "
             "launched back to back",
             cfg->chunk_s * 1e3);
out:
    free(got);
    gc__dev_free(d, out);
    gc__kreq_release(s, &req, 1);
    return rc;
}

/* Idle and static power, measured once per run (the first energy benchmark
 * pays for them). */
static int baseline(struct gc_session *s, struct gc_energy_meter *m, struct gc_bench_result *r,
                    struct gc_energy_run *idle, struct gc_energy_run *awake)
{
    struct gc_energy_state *st = state(s);
    struct gc_energy_cfg cfg;
    struct gc_energy_run tmp_idle, tmp_awake;
    bool ran;
    int rc;

    if (st->have_baseline && !idle && !awake)
        return 0;
    if (!idle)
        idle = &tmp_idle;
    if (!awake)
        awake = &tmp_awake;
    cfg_for(s, m, &cfg);
    /* Idle and static power follow the previous load down for seconds
     * (clocks, fans, the power state machine): room for more windows, so
     * that the steady state the stopping rule asks for is reached. */
    cfg.max_windows =
        4 * cfg.max_windows < GC_ENERGY_MAX_WINDOWS ? 4 * cfg.max_windows : GC_ENERGY_MAX_WINDOWS;
    rc = gc__energy_measure(s, m, NULL, NULL, &cfg, idle);
    if (rc)
        return measure_error(s, r, rc, idle, "idle power: ");
    st->idle_w = idle->power.median;
    st->idle_u_w = idle->u_w;
    rc = measure_static(s, m, &cfg, awake, st->static_note, sizeof(st->static_note), &ran);
    if (rc == GC_ENOTSUP && !ran) {
        st->static_w = st->static_u_w = NAN;
        memset(awake, 0, sizeof(*awake));
        rc = 0;
    } else if (rc) {
        return measure_error(s, r, rc, awake, "static power: ");
    } else {
        st->static_w = awake->power.median;
        st->static_u_w = awake->u_w;
    }
    st->have_baseline = true;
    return 0;
}

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

static void add_power_metrics(struct gc_bench_result *r, const struct gc_energy_run *run,
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
        gc__bench_add_metric(r, n, NAN, "%", 100 * AGREE_BOUND, NULL,
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
                 100 * run->disagreement_max, 100 * AGREE_BOUND,
                 gc__energy_independent_power(m) ? ""
                                                 : "; not independent: the samples are the "
                                                   "counter's own differences",
                 redo);
        gc__bench_add_metric(r, n, 100 * run->disagreement, "%", 100 * AGREE_BOUND, NULL, note);
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

static void set_context(struct gc_bench_result *r, const struct gc_energy_run *run,
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
static bool checks(struct gc_bench_result *r, const struct gc_energy_run *run,
                   struct gc_energy_meter *m, const struct gc_energy_state *st)
{
    if (gc__energy_independent_power(m) && isfinite(run->disagreement_max) &&
        run->disagreement_max > AGREE_BOUND) {
        gc__bench_set_error(r, GC_BENCH_ERROR,
                            "energy counter and integral of sampled power disagree by %.1f%% in a "
                            "window (bound %.0f%%): counter %.4g J, integral %.4g J over all "
                            "windows",
                            100 * run->disagreement_max, 100 * AGREE_BOUND, run->energy_j,
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

static void record(struct gc_session *s, const char *key, double total, double dyn,
                   const char *unit)
{
    struct gc_energy_state *st = state(s);

    if (!st || !key)
        return;
    for (int i = 0; i < st->nrec; i++)
        if (strcmp(st->rec[i].key, key) == 0) {
            st->rec[i].total_j = total;
            st->rec[i].dynamic_j = dyn;
            return;
        }
    if (st->nrec >= GC_ENERGY_MAX_RECORDS)
        return;
    struct gc_energy_record *x = &st->rec[st->nrec++];
    snprintf(x->key, sizeof(x->key), "%s", key);
    snprintf(x->unit, sizeof(x->unit), "%s", unit);
    x->total_j = total;
    x->dynamic_j = dyn;
}

static const struct gc_energy_record *find_rec(struct gc_session *s, const char *key)
{
    struct gc_energy_state *st = state(s);

    for (int i = 0; st && i < st->nrec; i++)
        if (strcmp(st->rec[i].key, key) == 0)
            return &st->rec[i];
    return NULL;
}

/* One ordering: this workload's dynamic energy per unit must be above
 * (want_above) or below the reference recorded earlier in the run. The
 * physics is about the work's own energy: where either dynamic energy is not
 * resolved the check is not made (said in a note), total energy being
 * ordered by throughput as much as by the operation. Adds a metric saying
 * what was checked; false with the error set on a violation. */
static bool order_check(struct gc_session *s, struct gc_bench_result *r, const char *ref_key,
                        double total, double dyn, bool want_above, const char *what)
{
    const struct gc_energy_record *ref = find_rec(s, ref_key);
    char note[300];

    if (!ref) {
        snprintf(note, sizeof(note), "not checked: %s was not measured earlier in this run (%s)",
                 ref_key, what);
        gc__bench_add_metric(r, "ordering_check", NAN, "", NAN, NULL, note);
        return true;
    }
    if (!isfinite(dyn) || !isfinite(ref->dynamic_j)) {
        snprintf(note, sizeof(note),
                 "not checked: dynamic energy not resolved here or for %s (%s; total %.4g vs "
                 "%.4g pJ/%s)",
                 ref_key, what, total * 1e12, ref->total_j * 1e12, ref->unit);
        gc__bench_add_metric(r, "ordering_check", NAN, "", NAN, NULL, note);
        return true;
    }
    double a = dyn, b = ref->dynamic_j;
    bool ok = want_above ? a > b : a < b;
    snprintf(note, sizeof(note), "%s: dynamic %.4g pJ/%s %s %s %.4g pJ/%s%s", what, a * 1e12,
             ref->unit, ok ? "is" : "is NOT", want_above ? "above" : "below", b * 1e12, ref->unit,
             ok ? "" : " (violation)");
    if (!ok) {
        gc__bench_set_error(r, GC_BENCH_ERROR, "physical ordering violated: %s", note);
        return false;
    }
    gc__bench_add_metric(r, "ordering_check", a / b, "", NAN, NULL, note);
    return true;
}

/* ---- the benchmarks ------------------------------------------------------ */

static int run_idle(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    struct gc_energy_meter *m;
    struct gc_energy_state *st;
    struct gc_energy_run idle, awake;
    int rc;

    (void)self;
    if (!(m = meter(s, r)))
        return 0;
    st = state(s);
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
        drop_meter(s, why);
        return 0;
    }
    st->have_baseline = false;
    rc = baseline(s, m, r, &idle, &awake);
    if (rc)
        return rc == GC_ENOTSUP ? 0 : rc;
    add_power_metrics(r, &idle, m, "idle_");
    if (isfinite(st->static_w)) {
        add_power_metrics(r, &awake, m, "static_");
        gc__bench_add_difference(r, "static_minus_idle", st->static_w - st->idle_w,
                                 gc__diff_resolution(&awake.power, &idle.power), "W",
                                 "what keeping the device awake (clocks up, a kernel resident) "
                                 "costs above idle");
        gc__bench_add_metric(r, "static_sm_clock", awake.sensors.sm_median, "MHz", NAN, NULL,
                             st->static_note);
        set_context(r, &awake, st, &s->dev->info);
        if (!checks(r, &awake, m, st))
            return GC_ERANGE;
    } else {
        gc__bench_add_metric(r, "static_power", NAN, "W", NAN, NULL, st->static_note);
        set_context(r, &idle, st, &s->dev->info);
    }
    if (!checks(r, &idle, m, st))
        return GC_ERANGE;
    return 0;
}

/* Builds the workload of a parameter set. */
static int build(struct gc_session *s, const struct eparam *p, int warps, struct gc_workload *w)
{
    switch (p->kind) {
    case EK_ITYPE:
        return gc__compute_workload(s, p->t, warps, w);
    case EK_MMA:
        return gc__mma_workload(s, p->perf, w);
    case EK_OCC:
        return p->occ == 0 ? gc__compute_workload(s, p->t, warps, w)
                           : gc__dram_workload(s, GC_STREAM_READ, warps, w);
    case EK_MEM:
        switch (p->ml) {
        case ML_DRAM_READ:
            return gc__dram_workload(s, GC_STREAM_READ, warps, w);
        case ML_DRAM_WRITE:
            return gc__dram_workload(s, GC_STREAM_WRITE, warps, w);
        case ML_L2:
            return gc__cachebw_workload(s, 2, w);
        case ML_L1:
            return gc__cachebw_workload(s, 1, w);
        case ML_SHARED:
            return gc__shared_workload(s, w);
        case ML_CONSTANT:
            return gc__constant_workload(s, w);
        case ML_ATOMICS:
            return gc__atomics_workload(s, w);
        }
        break;
    default:
        break;
    }
    return GC_EINVAL;
}

/* What one workload measured: rates and energies per unit. */
struct figures {
    double rate;     /* ops per second of device time */
    double busy;     /* busy fraction */
    double per_op_j; /* total energy per op */
    double dyn_w;    /* power above the baseline; NAN unresolved */
    double dyn_op_j; /* dynamic energy per op; NAN unresolved */
    double base_w;   /* the baseline power dynamic is taken against */
    double dyn_u_w;  /* uncertainty of dyn_w: both powers' */
    double clock;    /* SM clock from the sensors */
};

static void derive(struct gc_session *s, const struct gc_workload *w,
                   const struct gc_energy_run *run, struct figures *f)
{
    struct gc_energy_state *st = state(s);
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

static void add_work_metrics(struct gc_session *s, struct gc_bench_result *r,
                             const struct gc_workload *w, const struct gc_energy_run *run,
                             const struct figures *f)
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

/* The ordering checks that concern a workload (see the file comment). */
static bool orderings(struct gc_session *s, struct gc_bench_result *r, const struct eparam *p,
                      const struct gc_workload *w, const struct figures *f)
{
    if (p->kind == EK_ITYPE && p->key && strcmp(p->key, "fp64.fma") == 0)
        return order_check(s, r, "fp32.fma", f->per_op_j, f->dyn_op_j, true,
                           "energy per DFMA above energy per FFMA");
    if (p->kind == EK_MMA && w->flops > 0) {
        double fpo = w->flops / w->ops;
        return order_check(s, r, "fp32.fma/FLOP", f->per_op_j / fpo, f->dyn_op_j / fpo, false,
                           "tensor-core energy per FLOP below FFMA's");
    }
    /* Memory levels are a GPU's: on a CPU "shared" memory is cached global
     * memory and the device's cache figures are the host's. */
    if (s->dev->info.type != GC_DEVICE_GPU)
        return true;
    if (p->kind == EK_MEM && p->ml == ML_L2)
        return order_check(s, r, "dram.read", f->per_op_j * w->ops / w->bytes,
                           f->dyn_op_j * w->ops / w->bytes, false,
                           "energy per byte from L2 below DRAM's");
    if (p->kind == EK_MEM && p->ml == ML_SHARED)
        return order_check(s, r, "l2", f->per_op_j * w->ops / w->bytes,
                           f->dyn_op_j * w->ops / w->bytes, false,
                           "energy per byte from shared memory below L2's");
    return true;
}

static void remember(struct gc_session *s, const struct eparam *p, const struct gc_workload *w,
                     const struct figures *f)
{
    if (!p->key)
        return;
    if (p->kind == EK_MEM) {
        record(s, p->key, f->per_op_j * w->ops / w->bytes, f->dyn_op_j * w->ops / w->bytes, "B");
        return;
    }
    record(s, p->key, f->per_op_j, f->dyn_op_j, w->op_unit);
    if (w->flops > 0) {
        char k[48];
        double fpo = w->flops / w->ops;

        snprintf(k, sizeof(k), "%s/FLOP", p->key);
        record(s, k, f->per_op_j / fpo, f->dyn_op_j / fpo, "FLOP");
    }
}

static int not_built(struct gc_bench_result *r, struct gc_device *d, const struct gc_workload *w,
                     int rc)
{
    if (rc == GC_ENOTSUP) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available on this device: %s", w->why);
        return 0;
    }
    if (rc == GC_EVERIFY)
        gc__bench_set_error(r, GC_BENCH_ERROR, "%s", w->why[0] ? w->why : d->err);
    return rc;
}

static int run_work(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    const struct eparam *p = self->param;
    struct gc_energy_meter *m;
    struct gc_energy_cfg cfg;
    struct gc_energy_run run;
    struct gc_workload w;
    struct figures f;
    int rc;

    if (!(m = meter(s, r)))
        return 0;
    gc__workload_init(&w);
    if ((rc = baseline(s, m, r, NULL, NULL))) {
        rc = rc == GC_ENOTSUP ? 0 : rc;
        goto out;
    }
    rc = build(s, p, 0, &w);
    if (rc) {
        rc = not_built(r, s->dev, &w, rc);
        goto out;
    }
    cfg_for(s, m, &cfg);
    rc = gc__energy_measure(s, m, w.k, &w.l, &cfg, &run);
    if (rc) {
        rc = measure_error(s, r, rc, &run, "");
        rc = rc == GC_ENOTSUP ? 0 : rc;
        goto out;
    }
    derive(s, &w, &run, &f);
    add_power_metrics(r, &run, m, "");
    add_work_metrics(s, r, &w, &run, &f);
    set_context(r, &run, s->energy, &s->dev->info);
    if (!checks(r, &run, m, s->energy) || !orderings(s, r, p, &w, &f)) {
        rc = GC_ERANGE;
        goto out;
    }
    remember(s, p, &w, &f);
out:
    gc__workload_release(s, &w);
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

static int run_occupancy(struct gc_session *s, const struct gc_bench *self,
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

    if (!(m = meter(s, r)))
        return 0;
    if (!(info->caps & GC_CAP_DYN_SHARED) || maxw < 1) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available on this device: occupancy is controlled with dynamic "
                            "shared memory and the device's warp limits");
        return 0;
    }
    if ((rc = baseline(s, m, r, NULL, NULL)))
        return rc == GC_ENOTSUP ? 0 : rc;
    cfg_for(s, m, &cfg);
    if ((rc = occ_series(r, p, &sp, &se, &sd, &sc, &st)))
        return rc;
    for (int i = 0; i < npts && !gc__stopped(s); i++) {
        int warps = pts[i] < maxw ? pts[i] : maxw;
        struct gc_workload w;
        struct gc_energy_run run;
        struct figures f;

        if (i > 0 && pts[i - 1] >= maxw)
            break;
        gc__workload_init(&w);
        rc = build(s, p, warps, &w);
        if (rc == GC_ERANGE) {
            gc__workload_release(s, &w);
            rc = 0;
            continue;
        }
        if (rc) {
            rc = not_built(r, s->dev, &w, rc);
            gc__workload_release(s, &w);
            return rc;
        }
        rc = gc__energy_measure(s, m, w.k, &w.l, &cfg, &run);
        if (rc) {
            char what[48];

            snprintf(what, sizeof(what), "at %d warps/CU: ", warps);
            rc = measure_error(s, r, rc, &run, what);
            gc__workload_release(s, &w);
            return rc == GC_ENOTSUP ? 0 : rc;
        }
        derive(s, &w, &run, &f);
        double per = p->occ ? w.ops / w.bytes : 1; /* bytes: per byte */
        gc__series_add(sp, warps, run.power.median, &run.power, NULL);
        gc__series_add(se, warps, f.per_op_j * per * 1e12, NULL, NULL);
        gc__series_add(sd, warps, f.dyn_op_j * per * 1e12, NULL, NULL);
        gc__series_add(sc, warps, f.clock, NULL, NULL);
        gc__series_add(st, warps, f.rate / per, NULL, NULL);
        if (!checks(r, &run, m, s->energy)) {
            gc__workload_release(s, &w);
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
        set_context(r, &run, s->energy, info);
        done++;
        gc__workload_release(s, &w);
    }
    if (done > 0) {
        occ_metrics(r, s->energy, p, p_lo, p_hi, e_lo / e_hi, w_lo, w_hi);
        gc__bench_add_metric(r, "power_uncertainty_pct_max", 100 * u_max, "%", NAN, NULL,
                             "the largest uncertainty of a point's power (and energy per "
                             "operation), counter or sampled-power integral as in energy.idle");
    }
    return gc__stopped(s) ? GC_EINTR : rc;
}

/* ---- the family ---------------------------------------------------------- */

#define ENERGY_METHOD                                                                              \
    "MIPP (Bombieri et al.) SIV-V, Tables I-IV, with the device's own energy counter in place "    \
    "of an external meter. A thread polls the cumulative counter (NVML total energy, mJ; on a "    \
    "CPU device the host's RAPL package and DRAM counters) every 0.2 ms and keeps its updates; "   \
    "power is sampled beside it every 5 ms (NVML instantaneous power, else the averaged "          \
    "reading). The kernel runs back to back (launch calls of ~20 ms of device time) for a "        \
    "settling time, then window after window, each long enough for one counter step (and its "     \
    "ends' timing) to be <= 2% of the energy it counts (0.9 s at 700 W with a 12.27 J step; at "   \
    "least 0.5 s, --quick 0.25 s, --full 1 s; at most 8 s); a window's energy is the counter "     \
    "difference between the first and last updates inside it, its power that over the time "       \
    "between them. Each figure states its source (counter, or the integral of the sampled power "  \
    "where the sensor's +-5 W is the smaller uncertainty), its uncertainty (W, %) and window "     \
    "length. A counter that does not advance, or a reading above 10x the power limit, is not "     \
    "available. Windows repeat until the CV of "                                                   \
    "their power is <= 1% (min 3, max 6; --full 0.5%, 4..10); a window whose counter went "        \
    "backwards (wrap, reset) or did not advance is measured again (at most 4 times), never "       \
    "reported. Per window the counter is compared with the trapezoidal integral of the sampled "   \
    "power; > 5% disagreement fails the benchmark. Energy per op = average power / (device-timed " \
    "throughput x busy fraction); dynamic = (average power - static power) / the same, static "    \
    "power being that of a kernel with one warp per SM sleeping on %globaltimer (CUDA; "           \
    "elsewhere idle power). Checks: average power over all windows not above the enforced power "  \
    "limit by more than its uncertainty for >= 1 s (the controller's averaging period; less is a " \
    "warning); dynamic energy per DFMA above FFMA's; tensor-core energy per FLOP below "           \
    "FFMA's; energy per byte DRAM > L2 > shared. Each workload runs at the configuration its "     \
    "performance benchmark reached its peak at when that benchmark ran earlier in the same run "   \
    "(checked against what the workload can build), else at a fixed near-peak one; the "           \
    "throughput note says which. Skipped in the default run (seconds per kernel); runs with "      \
    "--full or --bench 'energy.*'."

extern const struct gc_bench_family gc__family_mma;

static struct gc_bench *benches;
static struct eparam *params;
static char (*names)[64];
static char (*sums)[160];
static int nbench;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define EN_CELL(c, m, u, pk)                                                                       \
    {                                                                                              \
        .table = &gc__sum_energy_compute, .row = "energy.compute.", .col = c, .metric = m,         \
        .unit = u, .pick = pk                                                                      \
    }
/* A row per instruction type and matrix unit, listed when its energy per
 * operation was measured. */
static const struct gc_sum_cell compute_cells[] = {
    EN_CELL(0, "time", "s", GC_SUM_VALUE),
    EN_CELL(1, "per_clk_per_cu", NULL, GC_SUM_LIMIT),
    EN_CELL(2, "per_clk_per_cu", NULL, GC_SUM_VALUE),
    EN_CELL(3, "power_avg", "W", GC_SUM_VALUE),
    EN_CELL(4, "power_max", "W", GC_SUM_VALUE),
    EN_CELL(5, "energy", "J", GC_SUM_VALUE),
    EN_CELL(6, "mips_per_watt_per_sm", NULL, GC_SUM_VALUE),
    {.table = &gc__sum_energy_compute,
     .row = "energy.compute.",
     .col = 7,
     .metric = "energy_per_op",
     .key = true},
    EN_CELL(8, "dynamic_energy_per_op", NULL, GC_SUM_VALUE),
    EN_CELL(9, "sm_clock", "MHz", GC_SUM_VALUE),
    EN_CELL(10, "counter_vs_integral", "%", GC_SUM_VALUE),
    {0},
};
static const struct gc_bench_report compute_report = {.cells = compute_cells};

static const struct gc_sum_cell idle_cells[] = {
    GC_SUM_V(gc__sum_energy_baseline, "idle", 0, "idle_power_avg", "W"),
    GC_SUM_V(gc__sum_energy_baseline, "idle", 1, "idle_power_max", "W"),
    GC_SUM_V(gc__sum_energy_baseline, "idle", 2, "idle_counter_vs_integral", "%"),
    GC_SUM_V(gc__sum_energy_baseline, "static (resident kernel, no work)", 0, "static_power_avg",
             "W"),
    GC_SUM_V(gc__sum_energy_baseline, "static (resident kernel, no work)", 1, "static_power_max",
             "W"),
    GC_SUM_V(gc__sum_energy_baseline, "static (resident kernel, no work)", 2,
             "static_counter_vs_integral", "%"),
    GC_SUM_V(gc__sum_energy_baseline, "static (resident kernel, no work)", 3, "static_sm_clock",
             "MHz"),
    {0},
};
static const struct gc_bench_report idle_report = {.cells = idle_cells};

/* The row of one memory level in the energy-per-memory-level table. */
#define EMEM_CELLS(label)                                                                          \
    {                                                                                              \
        GC_SUM_V(gc__sum_energy_memory, label, 0, "time", "s"),                                    \
            GC_SUM_V(gc__sum_energy_memory, label, 1, "bytes_per_clk_per_cu", NULL),               \
            GC_SUM_V(gc__sum_energy_memory, label, 2, "power_avg", "W"),                           \
            GC_SUM_V(gc__sum_energy_memory, label, 3, "power_max", "W"),                           \
            GC_SUM_V(gc__sum_energy_memory, label, 4, "energy", "J"),                              \
            {.table = &gc__sum_energy_memory,                                                      \
             .row = label,                                                                         \
             .col = 5,                                                                             \
             .metric = "transactions_per_joule",                                                   \
             .scale = 1e-6},                                                                       \
            GC_SUM_V(gc__sum_energy_memory, label, 6, "energy_per_transaction", "nJ"),             \
            GC_SUM_V(gc__sum_energy_memory, label, 7, "energy_per_byte", "pJ/B"),                  \
            GC_SUM_V(gc__sum_energy_memory, label, 8, "dynamic_energy_per_byte", "pJ/B"),          \
            GC_SUM_V(gc__sum_energy_memory, label, 9, "sm_clock", "MHz"),                          \
            GC_SUM_V(gc__sum_energy_memory, label, 10, "counter_vs_integral", "%"), {0},           \
    }
static const struct gc_sum_cell emem_dram_read[] = EMEM_CELLS("DRAM read");
static const struct gc_sum_cell emem_dram_write[] = EMEM_CELLS("DRAM write");
static const struct gc_sum_cell emem_l2[] = EMEM_CELLS("L2");
static const struct gc_sum_cell emem_l1[] = EMEM_CELLS("L1");
static const struct gc_sum_cell emem_shared[] = EMEM_CELLS("shared");
static const struct gc_sum_cell emem_constant[] = EMEM_CELLS("constant");
static const struct gc_sum_cell emem_atomics[] = EMEM_CELLS("atomics");

static const struct {
    enum memlevel ml;
    const char *name, *key, *summary;
    struct gc_bench_report report;
} mem_rows[] = {
    {ML_DRAM_READ,
     "energy.memory.dram.read",
     "dram.read",
     "energy per byte of DRAM reads (memory.dram.read's kernel)",
     {.cells = emem_dram_read}},
    {ML_DRAM_WRITE,
     "energy.memory.dram.write",
     "dram.write",
     "energy per byte of DRAM writes (memory.dram.write's kernel)",
     {.cells = emem_dram_write}},
    {ML_L2,
     "energy.memory.l2",
     "l2",
     "energy per byte of L2 reads (memory.bandwidth's kernel)",
     {.cells = emem_l2}},
    {ML_L1,
     "energy.memory.l1",
     "l1",
     "energy per byte of L1 reads (memory.bandwidth's kernel)",
     {.cells = emem_l1}},
    {ML_SHARED,
     "energy.memory.shared",
     "shared",
     "energy per byte of shared-memory loads (memory.shared's kernel)",
     {.cells = emem_shared}},
    {ML_CONSTANT,
     "energy.memory.constant",
     "constant",
     "energy per constant-cache broadcast load (memory.constant's kernel)",
     {.cells = emem_constant}},
    {ML_ATOMICS,
     "energy.memory.atomics",
     "atomics",
     "energy per global atomic add (memory.atomics's kernel)",
     {.cells = emem_atomics}},
};

#define NMEM ((int)(sizeof(mem_rows) / sizeof(mem_rows[0])))

/* One row per instruction type from k on (fp32.fma noted in *ffma for the
 * occupancy sweep); returns the next free row. */
static int add_compute_rows(int k, int nit, const struct gc_itype **ffma)
{
    for (int i = 0; i < nit; i++, k++) {
        const struct gc_itype *t = gc__itype_get(i);
        if (strcmp(t->name, "fp32.fma") == 0)
            *ffma = t;
        params[k] = (struct eparam){.kind = EK_ITYPE, .t = t, .key = t->name};
        snprintf(names[k], sizeof(names[k]), "energy.compute.%s", t->name);
        snprintf(sums[k], sizeof(sums[k]), "power and energy per operation of compute.%s", t->name);
        benches[k] = (struct gc_bench){
            .info = {.name = names[k],
                     .group = "energy",
                     .summary = sums[k],
                     .method = ENERGY_METHOD},
            .needs_caps = t->needs_caps,
            .run = run_work,
            .opt_in = true,
            .param = &params[k],
            .report = &compute_report,
        };
    }
    return k;
}

/* One row per matrix-unit benchmark from k on; returns the next free row. */
static int add_mma_rows(int k)
{
    for (int i = 0; i < gc__family_mma.count(); i++) {
        const struct gc_bench *b = gc__family_mma.at(i);
        if (strncmp(b->info.name, "compute.mma.", 12) != 0 &&
            strncmp(b->info.name, "compute.wgmma.", 14) != 0)
            continue;
        params[k] = (struct eparam){.kind = EK_MMA, .perf = b, .key = b->info.name + 8};
        snprintf(names[k], sizeof(names[k]), "energy.%s", b->info.name);
        snprintf(sums[k], sizeof(sums[k]), "power and energy per FLOP (OP) of %s", b->info.name);
        benches[k] = (struct gc_bench){
            .info = {.name = names[k],
                     .group = "energy",
                     .summary = sums[k],
                     .method = ENERGY_METHOD},
            .run = run_work,
            .opt_in = true,
            .param = &params[k],
            .report = &compute_report,
        };
        k++;
    }
    return k;
}

static void build_family(void)
{
    int nit = gc__itype_count(), nmma = 0, n, k = 0;
    const struct gc_itype *ffma = NULL;

    /* The matrix-unit benchmarks come from their own family (not through
     * gc__bench_at, which would ask this family's count while it is being
     * built). */
    for (int i = 0; i < gc__family_mma.count(); i++) {
        const char *nm = gc__family_mma.at(i)->info.name;
        if (strncmp(nm, "compute.mma.", 12) == 0 || strncmp(nm, "compute.wgmma.", 14) == 0)
            nmma++;
    }
    n = 1 + nit + nmma + NMEM + 2;
    benches = calloc((size_t)n, sizeof(*benches));
    params = calloc((size_t)n, sizeof(*params));
    names = calloc((size_t)n, sizeof(*names));
    sums = calloc((size_t)n, sizeof(*sums));
    if (!benches || !params || !names || !sums) {
        free(benches);
        free(params);
        free(names);
        free(sums);
        benches = NULL;
        return;
    }
    params[k] = (struct eparam){.kind = EK_IDLE};
    benches[k] = (struct gc_bench){
        .info = {.name = "energy.idle",
                 .group = "energy",
                 .summary = "energy counter resolution and update period, idle power, static "
                            "power of a resident kernel that does no work",
                 .method = ENERGY_METHOD},
        .run = run_idle,
        .opt_in = true,
        .param = &params[k],
        .report = &idle_report,
    };
    k++;
    k = add_compute_rows(k, nit, &ffma);
    k = add_mma_rows(k);
    for (int i = 0; i < NMEM; i++, k++) {
        params[k] = (struct eparam){.kind = EK_MEM, .ml = mem_rows[i].ml, .key = mem_rows[i].key};
        benches[k] = (struct gc_bench){
            .info = {.name = mem_rows[i].name,
                     .group = "energy",
                     .summary = mem_rows[i].summary,
                     .method = ENERGY_METHOD},
            .run = run_work,
            .opt_in = true,
            .param = &params[k],
            .report = &mem_rows[i].report,
        };
    }
    params[k] = (struct eparam){.kind = EK_OCC, .occ = 0, .t = ffma};
    benches[k] = (struct gc_bench){
        .info = {.name = "energy.occupancy.fp32_fma",
                 .group = "energy",
                 .summary = "power, energy per FFMA and SM clock across the occupancy sweep",
                 .method = ENERGY_METHOD},
        .run = run_occupancy,
        .opt_in = true,
        .param = &params[k],
    };
    k++;
    params[k] = (struct eparam){.kind = EK_OCC, .occ = 1};
    benches[k] = (struct gc_bench){
        .info = {.name = "energy.occupancy.dram_read",
                 .group = "energy",
                 .summary = "power, energy per DRAM byte and SM clock across the occupancy sweep",
                 .method = ENERGY_METHOD},
        .run = run_occupancy,
        .opt_in = true,
        .param = &params[k],
    };
    k++;
    nbench = ffma ? k : k - 2;
    /* The power readings of two devices measured at once would each
     * include the other's heat in the host's budget and its power capping:
     * one device at a time. */
    for (int i = 0; i < nbench; i++)
        benches[i].resources = GC_RES_POWER_METER;
}

static int family_count(void)
{
    pthread_once(&once, build_family);
    return benches ? nbench : 0;
}

static const struct gc_bench *family_at(int i)
{
    return i >= 0 && i < family_count() ? &benches[i] : NULL;
}

const struct gc_bench_family gc__family_energy = {family_count, family_at};
