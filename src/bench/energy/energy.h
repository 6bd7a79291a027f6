/* energy.*: power and energy per operation and per byte (MIPP §IV-V, Tables
 * I-IV) of the performance benchmarks' own kernels, each at the
 * configuration its benchmark wrote into this run's results tree, else at
 * its default one (energy/source.c), run for windows long enough for the
 * device's energy counter (core/energy.h); average and maximum power,
 * energy, operations or bytes per joule, energy per operation total and
 * above the static power of a resident kernel that does no work, MIPS per
 * watt per SM as MIPP reports it; idle and static power; energy per FFMA
 * and per DRAM byte across the occupancy sweep. Physical orderings (DFMA
 * above FFMA, DRAM above L2 above shared per byte, tensor cores below FFMA
 * per FLOP, power within the board's limit, counter against the integral
 * of sampled power) are checked: a violation fails the benchmark. The
 * family runs with --full or when named with --bench; in the default run it
 * is skipped (its windows take seconds per kernel).
 *
 * This header is the family's own: meter.c (the meter), baseline.c (idle and
 * static power, energy.idle), source.c (which launch, at which
 * configuration), work.c (the metered benchmarks), metrics.c (figures and
 * checks), order.c (the orderings), family.c (the descriptions). */
#ifndef GC_BENCH_ENERGY_ENERGY_H
#define GC_BENCH_ENERGY_ENERGY_H

#include <stdbool.h>

#include "bench/bench.h"
#include "core/energy.h"
#include "core/meterlaunch.h"

/* Counter and integral of sampled power must agree this well per window. */
#define AGREE_BOUND 0.05

enum ekind { EK_IDLE, EK_ITYPE, EK_MMA, EK_MEM, EK_OCC };

enum memlevel { ML_DRAM_READ, ML_DRAM_WRITE, ML_L2, ML_L1, ML_SHARED, ML_CONSTANT, ML_ATOMICS };

struct eparam {
    enum ekind kind;
    /* The performance benchmark whose kernel it meters, and which of its
     * kernels (NULL: its only one; "l1", "l2": memory.bandwidth's). */
    char bench[64];
    const char *part;
    enum memlevel ml; /* EK_MEM */
    int occ;          /* EK_OCC: 0 fp32 FMA, 1 DRAM read */
    const char *key;  /* record key for the ordering checks */
};

/* What one launch measured: rates and energies per unit. */
struct gc_en_figures {
    double rate;     /* ops per second of device time */
    double busy;     /* busy fraction */
    double per_op_j; /* total energy per op */
    double dyn_w;    /* power above the baseline; NAN unresolved */
    double dyn_op_j; /* dynamic energy per op; NAN unresolved */
    double base_w;   /* the baseline power dynamic is taken against */
    double dyn_u_w;  /* uncertainty of dyn_w: both powers' */
    double clock;    /* SM clock from the sensors */
};

/* ---- meter.c */

/* The family's state over the run (created on first use; NULL on ENOMEM). */
struct gc_energy_state *gc__en_state(struct gc_session *s);
/* Opens the meter once per run; NULL with the reason recorded in r. */
struct gc_energy_meter *gc__en_meter(struct gc_session *s, struct gc_bench_result *r);
/* An implausible reading: every later energy benchmark of the run is "not
 * available" with the same reason. */
void gc__en_drop_meter(struct gc_session *s, const char *why);
/* A measurement that gave no figure: "not available" for an implausible
 * reading (the meter dropped; GC_ENOTSUP returned), failed with the reason
 * when no window was valid. */
int gc__en_measure_error(struct gc_session *s, struct gc_bench_result *r, int rc,
                         const struct gc_energy_run *run, const char *what);
/* The meter's windows for the session's profile and the meter's sources. */
void gc__en_cfg_for(struct gc_session *s, struct gc_energy_meter *m, struct gc_energy_cfg *c);

/* ---- baseline.c */

/* Idle and static power, measured once per run (idle, awake may be NULL). */
int gc__en_baseline(struct gc_session *s, struct gc_energy_meter *m, struct gc_bench_result *r,
                    struct gc_energy_run *idle, struct gc_energy_run *awake);
int gc__en_run_idle(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r);

/* ---- source.c */

/* What energy.X asks of X's launch_at: X's result in this run's results
 * tree when X ran to completion (its configuration then read from there),
 * else none, with why ("did not run in this run", "failed in this run"...)
 * for the note. why is filled either way (buffer of len bytes). */
void gc__en_config_ask(const struct gc_session *s, const struct eparam *p, int warps,
                       struct gc_config_ask *ask, char *why, size_t len);
/* Builds p's launch through its performance benchmark's description
 * (launch_at) at ask's configuration. GC_ENOTSUP with w->why when the
 * benchmark has no launch here. */
int gc__en_build(struct gc_session *s, const struct eparam *p, int warps,
                 struct gc_meter_launch *w);

/* ---- metrics.c */

void gc__en_add_power_metrics(struct gc_bench_result *r, const struct gc_energy_run *run,
                              struct gc_energy_meter *m, const char *prefix);
void gc__en_set_context(struct gc_bench_result *r, const struct gc_energy_run *run,
                        const struct gc_energy_state *st, const struct gc_device_info *info);
/* Checks every measurement must pass; false with the error set. */
bool gc__en_checks(struct gc_bench_result *r, const struct gc_energy_run *run,
                   struct gc_energy_meter *m, const struct gc_energy_state *st);
void gc__en_derive(struct gc_session *s, const struct gc_meter_launch *w,
                   const struct gc_energy_run *run, struct gc_en_figures *f);
void gc__en_add_work_metrics(struct gc_session *s, struct gc_bench_result *r,
                             const struct gc_meter_launch *w, const struct gc_energy_run *run,
                             const struct gc_en_figures *f);

/* ---- order.c */

/* The ordering checks that concern a launch; false with the error set. */
bool gc__en_orderings(struct gc_session *s, struct gc_bench_result *r, const struct eparam *p,
                      const struct gc_meter_launch *w, const struct gc_en_figures *f);
/* Records the launch's energies for the checks of later ones. */
void gc__en_remember(struct gc_session *s, const struct eparam *p, const struct gc_meter_launch *w,
                     const struct gc_en_figures *f);

/* ---- work.c */

int gc__en_run_work(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r);
int gc__en_run_occupancy(struct gc_session *s, const struct gc_bench *self,
                         struct gc_bench_result *r);

#endif
