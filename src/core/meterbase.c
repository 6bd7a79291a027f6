/* The run's power meter and the baselines every energy figure is taken
 * against: the meter opened once and shared by the metered benchmarks, the
 * windows it measures with, what a measurement that gave no figure reports,
 * and idle and static power (one warp per SM sleeping on %globaltimer),
 * measured once per run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kcache.h"
#include "core/meter.h"
#include "kgen/kgen.h"

/* ---- the meter ----------------------------------------------------------- */

/* The meters' state over the run (core/meter.h). */
struct gc_energy_state *gc__meter_state(struct gc_session *s)
{
    if (!s->energy)
        s->energy = calloc(1, sizeof(*s->energy));
    return s->energy;
}

/* Opens the meter once per run; NULL with the reason recorded in r. */
struct gc_energy_meter *gc__meter_open(struct gc_session *s, struct gc_bench_result *r)
{
    struct gc_energy_state *st = gc__meter_state(s);

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
void gc__meter_drop(struct gc_session *s, const char *why)
{
    struct gc_energy_state *st = gc__meter_state(s);

    snprintf(st->why, sizeof(st->why), "%s", why);
    gc__energy_close(st->meter);
    st->meter = NULL;
}

/* A measurement that gave no figure: "not available" for an implausible
 * reading (the meter dropped; GC_ENOTSUP returned, which the benchmark's
 * run turns into 0), failed with the reason when no window was valid. */
int gc__meter_measure_error(struct gc_session *s, struct gc_bench_result *r, int rc,
                            const struct gc_energy_run *run, const char *what)
{
    if (rc == GC_ENOTSUP) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available on this device: %s%s", what,
                            run->redo_why);
        gc__meter_drop(s, run->redo_why);
    } else if (rc == GC_EUNSTABLE) {
        gc__bench_set_error(r, GC_BENCH_ERROR,
                            "%sno valid energy window: %s (after %d invalid "
                            "windows)",
                            what, run->redo_why, run->redone);
    }
    return rc;
}

void gc__meter_cfg_for(struct gc_session *s, struct gc_energy_meter *m, struct gc_energy_cfg *c)
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
    c->agree_bound = gc__energy_independent_power(m) ? GC_METER_AGREE_BOUND : 0;
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
int gc__meter_baseline(struct gc_session *s, struct gc_energy_meter *m, struct gc_bench_result *r,
                       struct gc_energy_run *idle, struct gc_energy_run *awake)
{
    struct gc_energy_state *st = gc__meter_state(s);
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
    gc__meter_cfg_for(s, m, &cfg);
    /* Idle and static power follow the previous load down for seconds
     * (clocks, fans, the power state machine): room for more windows, so
     * that the steady state the stopping rule asks for is reached. */
    cfg.max_windows =
        4 * cfg.max_windows < GC_ENERGY_MAX_WINDOWS ? 4 * cfg.max_windows : GC_ENERGY_MAX_WINDOWS;
    rc = gc__energy_measure(s, m, NULL, NULL, &cfg, idle);
    if (rc)
        return gc__meter_measure_error(s, r, rc, idle, "idle power: ");
    st->idle_w = idle->power.median;
    st->idle_u_w = idle->u_w;
    rc = measure_static(s, m, &cfg, awake, st->static_note, sizeof(st->static_note), &ran);
    if (rc == GC_ENOTSUP && !ran) {
        st->static_w = st->static_u_w = NAN;
        memset(awake, 0, sizeof(*awake));
        rc = 0;
    } else if (rc) {
        return gc__meter_measure_error(s, r, rc, awake, "static power: ");
    } else {
        st->static_w = awake->power.median;
        st->static_u_w = awake->u_w;
    }
    st->have_baseline = true;
    return 0;
}
