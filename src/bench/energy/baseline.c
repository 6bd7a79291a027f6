/* energy.idle and the baselines every energy figure is taken against: idle
 * power, and the static power of a resident kernel that does no work (one
 * warp per SM sleeping on %globaltimer), measured once per run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/energy/energy.h"
#include "core/kcache.h"
#include "core/stats.h"
#include "kgen/kgen.h"

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
int gc__en_baseline(struct gc_session *s, struct gc_energy_meter *m, struct gc_bench_result *r,
                    struct gc_energy_run *idle, struct gc_energy_run *awake)
{
    struct gc_energy_state *st = gc__en_state(s);
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
    gc__en_cfg_for(s, m, &cfg);
    /* Idle and static power follow the previous load down for seconds
     * (clocks, fans, the power state machine): room for more windows, so
     * that the steady state the stopping rule asks for is reached. */
    cfg.max_windows =
        4 * cfg.max_windows < GC_ENERGY_MAX_WINDOWS ? 4 * cfg.max_windows : GC_ENERGY_MAX_WINDOWS;
    rc = gc__energy_measure(s, m, NULL, NULL, &cfg, idle);
    if (rc)
        return gc__en_measure_error(s, r, rc, idle, "idle power: ");
    st->idle_w = idle->power.median;
    st->idle_u_w = idle->u_w;
    rc = measure_static(s, m, &cfg, awake, st->static_note, sizeof(st->static_note), &ran);
    if (rc == GC_ENOTSUP && !ran) {
        st->static_w = st->static_u_w = NAN;
        memset(awake, 0, sizeof(*awake));
        rc = 0;
    } else if (rc) {
        return gc__en_measure_error(s, r, rc, awake, "static power: ");
    } else {
        st->static_w = awake->power.median;
        st->static_u_w = awake->u_w;
    }
    st->have_baseline = true;
    return 0;
}

/* ---- energy.idle --------------------------------------------------------- */

int gc__en_run_idle(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    struct gc_energy_meter *m;
    struct gc_energy_state *st;
    struct gc_energy_run idle, awake;
    int rc;

    (void)self;
    if (!(m = gc__en_meter(s, r)))
        return 0;
    st = gc__en_state(s);
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
        gc__en_drop_meter(s, why);
        return 0;
    }
    st->have_baseline = false;
    rc = gc__en_baseline(s, m, r, &idle, &awake);
    if (rc)
        return rc == GC_ENOTSUP ? 0 : rc;
    gc__en_add_power_metrics(r, &idle, m, "idle_");
    if (isfinite(st->static_w)) {
        gc__en_add_power_metrics(r, &awake, m, "static_");
        gc__bench_add_difference(r, "static_minus_idle", st->static_w - st->idle_w,
                                 gc__diff_resolution(&awake.power, &idle.power), "W",
                                 "what keeping the device awake (clocks up, a kernel resident) "
                                 "costs above idle");
        gc__bench_add_metric(r, "static_sm_clock", awake.sensors.sm_median, "MHz", NAN, NULL,
                             st->static_note);
        gc__en_set_context(r, &awake, st, &s->dev->info);
        if (!gc__en_checks(r, &awake, m, st))
            return GC_ERANGE;
    } else {
        gc__bench_add_metric(r, "static_power", NAN, "W", NAN, NULL, st->static_note);
        gc__en_set_context(r, &idle, st, &s->dev->info);
    }
    if (!gc__en_checks(r, &idle, m, st))
        return GC_ERANGE;
    return 0;
}
