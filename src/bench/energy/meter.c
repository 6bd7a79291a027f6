/* energy.*: the run's power meter, opened once and shared by the family's
 * benchmarks (core/energy.h), and what a measurement that gave no figure
 * reports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/energy/energy.h"

/* ---- shared state -------------------------------------------------------- */

struct gc_energy_state *gc__en_state(struct gc_session *s)
{
    if (!s->energy)
        s->energy = calloc(1, sizeof(*s->energy));
    return s->energy;
}

/* Opens the meter once per run; NULL with the reason recorded in r. */
struct gc_energy_meter *gc__en_meter(struct gc_session *s, struct gc_bench_result *r)
{
    struct gc_energy_state *st = gc__en_state(s);

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
void gc__en_drop_meter(struct gc_session *s, const char *why)
{
    struct gc_energy_state *st = gc__en_state(s);

    snprintf(st->why, sizeof(st->why), "%s", why);
    gc__energy_close(st->meter);
    st->meter = NULL;
}

/* A measurement that gave no figure: "not available" for an implausible
 * reading (the meter dropped; GC_ENOTSUP returned, which the benchmark's
 * run turns into 0), failed with the reason when no window was valid. */
int gc__en_measure_error(struct gc_session *s, struct gc_bench_result *r, int rc,
                         const struct gc_energy_run *run, const char *what)
{
    if (rc == GC_ENOTSUP) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available on this device: %s%s", what,
                            run->redo_why);
        gc__en_drop_meter(s, run->redo_why);
    } else if (rc == GC_EUNSTABLE) {
        gc__bench_set_error(r, GC_BENCH_ERROR,
                            "%sno valid energy window: %s (after %d invalid "
                            "windows)",
                            what, run->redo_why, run->redone);
    }
    return rc;
}

void gc__en_cfg_for(struct gc_session *s, struct gc_energy_meter *m, struct gc_energy_cfg *c)
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
