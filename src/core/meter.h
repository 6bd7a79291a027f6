/* The meter runner: a benchmark described as data (which performance
 * benchmark's launch runs under the device's energy meter, core/energy.h,
 * what its work is counted in, and the physical orderings its figures must
 * respect) run into power, energy and energy per unit of work. */
#ifndef GC_CORE_METER_H
#define GC_CORE_METER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/benchdef.h"
#include "core/energy.h"
#include "core/meterlaunch.h"

/* What a figure of energy is per: an operation as the launch counts it, a
 * floating-point operation, a byte moved at the memory level. */
enum gc_meter_per { GC_METER_PER_OP, GC_METER_PER_FLOP, GC_METER_PER_BYTE };

/* One physical ordering between two metered benchmarks of a run: this
 * one's dynamic energy per `per` must be above (above true) or below the
 * figure a benchmark metered earlier in the run recorded under `ref`. ref
 * NULL: none. A per-FLOP ordering is not made for a launch that counts no
 * FLOPs. */
struct gc_meter_order {
    const char *ref;
    enum gc_meter_per per;
    bool above;
    /* Made on GPUs only: on a CPU "shared" memory is cached global memory
     * and the device's cache figures are the host's. */
    bool gpu_only;
    const char *what; /* what is checked, for the note */
};

enum gc_meter_kind {
    GC_METER_IDLE,      /* the counter's resolution, idle and static power (energy.idle) */
    GC_METER_LAUNCH,    /* the launch at the configuration of its benchmark's result */
    GC_METER_OCCUPANCY, /* the launch at each point of warps per CU, default configuration */
};

/* One metered benchmark. */
struct gc_meter_desc {
    enum gc_meter_kind kind;
    /* The performance benchmark whose kernel it meters, and which of its
     * kernels (NULL: its only one; "l1", "l2": memory.bandwidth's). */
    char bench[64];
    const char *part;
    /* What the launch's work is counted in: per operation (its energy per
     * FLOP recorded beside where it counts FLOPs) or per byte. */
    enum gc_meter_per per;
    const char *key; /* the record its figures go under for later orderings; NULL none */
    struct gc_meter_order order;
};

/* Runs d into r. perf is the benchmark named d->bench, whose launch_at
 * builds the launch (NULL, or one without launch_at: "not available");
 * unused for GC_METER_IDLE. Returns as a benchmark's run does. */
int gc__meter_run(struct gc_session *s, const struct gc_meter_desc *d, const struct gc_bench *perf,
                  struct gc_bench_result *r);

/* What d asks of its benchmark's launch_at: the benchmark's result in this
 * run's results tree when it ran to completion (its configuration then read
 * from there), else none, with why ("did not run in this run", "failed in
 * this run"...) for the note. why is filled either way (buffer of len
 * bytes). warps > 0: a point of an occupancy sweep. */
void gc__meter_config_ask(const struct gc_session *s, const struct gc_meter_desc *d, int warps,
                          struct gc_config_ask *ask, char *why, size_t len);
/* Builds d's launch through perf's launch_at at the configuration asked
 * for. GC_ENOTSUP with w->why when the benchmark has no launch here. */
int gc__meter_build(struct gc_session *s, const struct gc_meter_desc *d,
                    const struct gc_bench *perf, int warps, struct gc_meter_launch *w);

/* ---- the runner's own files ---------------------------------------------- */

/* Counter and integral of sampled power must agree this well per window. */
#define GC_METER_AGREE_BOUND 0.05

/* What one launch measured: rates and energies per unit. */
struct gc_meter_figures {
    double rate;     /* ops per second of device time */
    double busy;     /* busy fraction */
    double per_op_j; /* total energy per op */
    double dyn_w;    /* power above the baseline; NAN unresolved */
    double dyn_op_j; /* dynamic energy per op; NAN unresolved */
    double base_w;   /* the baseline power dynamic is taken against */
    double dyn_u_w;  /* uncertainty of dyn_w: both powers' */
    double clock;    /* SM clock from the sensors */
};

/* core/meterbase.c: the run's meter and its baselines. */

/* The meters' state over the run (created on first use; NULL on ENOMEM). */
struct gc_energy_state *gc__meter_state(struct gc_session *s);
/* Opens the meter once per run; NULL with the reason recorded in r. */
struct gc_energy_meter *gc__meter_open(struct gc_session *s, struct gc_bench_result *r);
/* An implausible reading: every later metered benchmark of the run is "not
 * available" with the same reason. */
void gc__meter_drop(struct gc_session *s, const char *why);
/* A measurement that gave no figure: "not available" for an implausible
 * reading (the meter dropped; GC_ENOTSUP returned), failed with the reason
 * when no window was valid. */
int gc__meter_measure_error(struct gc_session *s, struct gc_bench_result *r, int rc,
                            const struct gc_energy_run *run, const char *what);
/* The meter's windows for the session's profile and the meter's sources. */
void gc__meter_cfg_for(struct gc_session *s, struct gc_energy_meter *m, struct gc_energy_cfg *c);
/* Idle and static power, measured once per run (idle, awake may be NULL). */
int gc__meter_baseline(struct gc_session *s, struct gc_energy_meter *m, struct gc_bench_result *r,
                       struct gc_energy_run *idle, struct gc_energy_run *awake);

/* core/meterfig.c: the figures of one measurement and its checks. */

void gc__meter_add_power_metrics(struct gc_bench_result *r, const struct gc_energy_run *run,
                                 struct gc_energy_meter *m, const char *prefix);
void gc__meter_set_context(struct gc_bench_result *r, const struct gc_energy_run *run,
                           const struct gc_energy_state *st, const struct gc_device_info *info);
/* Checks every measurement must pass; false with the error set. */
bool gc__meter_checks(struct gc_bench_result *r, const struct gc_energy_run *run,
                      struct gc_energy_meter *m, const struct gc_energy_state *st);
void gc__meter_derive(struct gc_session *s, const struct gc_meter_launch *w,
                      const struct gc_energy_run *run, struct gc_meter_figures *f);
void gc__meter_add_work_metrics(struct gc_session *s, struct gc_bench_result *r,
                                const struct gc_meter_launch *w, const struct gc_energy_run *run,
                                const struct gc_meter_figures *f);

/* core/meterorder.c: the orderings between benchmarks of a run. */

/* d's ordering check (d->order); false with the error set. */
bool gc__meter_orderings(struct gc_session *s, struct gc_bench_result *r,
                         const struct gc_meter_desc *d, const struct gc_meter_launch *w,
                         const struct gc_meter_figures *f);
/* Records the launch's energies under d->key for the checks of later ones. */
void gc__meter_remember(struct gc_session *s, const struct gc_meter_desc *d,
                        const struct gc_meter_launch *w, const struct gc_meter_figures *f);

#endif
