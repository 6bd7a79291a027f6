/* The energy meter: a device's cumulative energy counter (NVML's total
 * energy through the backend, or the host's RAPL package and DRAM counters
 * for a device that runs on the host's CPUs), polled by a thread together
 * with power samples, so that the energy of a busy interval is read between
 * two counter updates and checked against the integral of the sampled
 * power. Counter updates that go backwards (a wrap or a reset) or an
 * interval without one make the interval invalid: it is measured again,
 * never reported as a negative or zero energy. */
#ifndef GC_CORE_ENERGY_H
#define GC_CORE_ENERGY_H

#include "core/sensors.h"
#include "core/session.h"

struct gc_energy_meter;

/* One counter update seen by the polling thread: t is the midpoint between
 * the poll that saw the new value and the one before it, dt half the time
 * between those two polls (the update lies within t +- dt). */
struct gc_energy_point {
    double t, e, e_dram; /* host s; cumulative J; DRAM domain J (NAN none) */
    double dt;           /* s; 0 when exact */
};

struct gc_power_point {
    double t, w;
};

/* What one window of the trace says. */
struct gc_energy_window {
    bool ok;
    char why[256];       /* !ok: why the window cannot be used */
    double t0, t1;       /* the counter updates bounding the window (host s) */
    double energy_j;     /* counter difference between them */
    double dram_j;       /* the DRAM domain's (RAPL); NAN none */
    double power_avg_w;  /* energy_j / (t1 - t0) */
    double power_max_w;  /* largest power sample inside; NAN none */
    double integral_j;   /* trapezoidal integral of the power samples over [t0, t1]; NAN none */
    double disagreement; /* |integral_j - energy_j| / energy_j; NAN without samples */
    int updates;         /* counter updates after t0 up to t1 */
    int samples;         /* power samples inside */
    double period_s;     /* median time between counter updates; NAN < 2 updates */
    double step_j;       /* smallest non-zero counter step; NAN none */
    double t_err;        /* the two ends' time uncertainties (dt) summed, s */
};

/* Analyses a trace (updates e[0..ne), power samples p[0..np), both in time
 * order) for the window [t0, t1]: from the first update at or after t0 to
 * the last at or before t1. Invalid (ok false, why says which) when fewer
 * than two updates fall inside, when the counter decreases anywhere from the
 * update before t0 to t1, or when the energy is not positive. */
void gc__energy_analyse(const struct gc_energy_point *e, int ne, const struct gc_power_point *p,
                        int np, double t0, double t1, struct gc_energy_window *w);

/* The 2% rule: a window lasts until one counter step (the smallest seen)
 * is at most this share of the energy it counts. */
#define GC_ENERGY_TARGET_REL 0.02
/* Stated accuracy of the board power sensor the samples come from
 * (nvidia-smi's power.draw: "accurate to within +/- 5 watts"), the
 * uncertainty of a figure taken from the integral of the samples. */
#define GC_ENERGY_SENSOR_TOL_W 5.0
/* A power reading above this many times the enforced limit, or above
 * GC_ENERGY_CEILING_W where no limit is known, is no reading of a device
 * (the largest accelerator modules draw about 2.7 kW, a CPU socket under
 * 1 kW): the meter is not available. */
#define GC_ENERGY_CEILING_LIMITS 10.0
#define GC_ENERGY_CEILING_W 10000.0
/* How long the meter waits, when it opens, for the counter to advance
 * twice. */
#define GC_ENERGY_PROBE_S 1.5

/* Opens the meter of a device: the backend's power op when it answers, else,
 * for a CPU device, the host's RAPL counters (core/powercap.h). GC_ENOTSUP
 * with the reason in why when neither is readable, when the counter does
 * not advance twice within GC_ENERGY_PROBE_S (a counter that never moves),
 * or when a power reading is above the plausible ceiling
 * (gc__energy_ceiling). */
int gc__energy_open(struct gc_device *d, struct gc_energy_meter **out, char *why, size_t whylen);
void gc__energy_close(struct gc_energy_meter *m);
/* What the meter reads, for notes ("NVML total energy counter (mJ) ..."). */
const char *gc__energy_source(const struct gc_energy_meter *m);
/* Whether power samples come from a sensor of their own (NVML instantaneous
 * or averaged power) rather than from the counter's own differences (RAPL),
 * i.e. whether the counter-vs-integral check is independent. */
bool gc__energy_independent_power(const struct gc_energy_meter *m);
/* What the power samples are, with their averaging window. */
const char *gc__energy_power_source(const struct gc_energy_meter *m);
bool gc__energy_has_dram(const struct gc_energy_meter *m);
/* The smallest non-zero counter step the meter has seen since it opened
 * (its polling thread, the resolution loop, the probe), J; NAN none. */
double gc__energy_quantum(const struct gc_energy_meter *m);
/* The power above which a reading is implausible, W. */
double gc__energy_ceiling(const struct gc_energy_meter *m);
/* The stated accuracy of the power samples, W: GC_ENERGY_SENSOR_TOL_W for
 * a device's own sensor, NAN where the samples are the counter's own
 * differences (RAPL). */
double gc__energy_sample_tolerance(const struct gc_energy_meter *m);

/* Counter resolution and update period from a tight polling loop of
 * duration_s in the calling thread. */
struct gc_energy_resolution {
    int reads, updates;
    double poll_s; /* mean time per read */
    double step_j; /* smallest non-zero step */
    double median_step_j;
    double period_s; /* median time between updates */
    double period_min_s, period_max_s;
};
int gc__energy_resolution(struct gc_energy_meter *m, double duration_s,
                          struct gc_energy_resolution *out);

/* How an energy measurement runs (gc__energy_measure). */
struct gc_energy_cfg {
    double settle_s;     /* busy time before the first window (power and clocks settle) */
    double window_s;     /* one window */
    int min_windows;     /* never stop before this many valid windows */
    int max_windows;     /* ... stop at this many */
    double cv_bound;     /* ... or once the last min_windows windows' power has CV <= this and
                            changes by <= 2 x this from the first of them to the last (the
                            earlier windows are then dropped as settling) */
    int max_redo;        /* invalid windows measured again at most this many times */
    double agree_bound;  /* a window whose counter energy and integral of sampled power
                            differ by more than this fraction is invalid (a power
                            transient between samples): measured again; 0: no check */
    double poll_s;       /* counter poll period of the meter's thread */
    double sample_s;     /* power sample period */
    double chunk_s;      /* device time of one launch call (back-to-back launches) */
    double target_rel;   /* a window lasts until one counter step is <= this share of its
                            energy (gc__energy_window_for); 0: windows of window_s */
    double max_window_s; /* ... but no longer than this */
};

#define GC_ENERGY_MAX_WINDOWS 32

void gc__energy_cfg_defaults(struct gc_energy_cfg *c, enum gc_profile p,
                             const struct gc_device_info *info);

/* The window length the 2% rule needs for a counter of step quantum_j
 * (with the energy its ends' time uncertainty stands for, where known)
 * updating every period_s at power_w: that within c->target_rel of the
 * energy counted between the first and the last update inside the window
 * (up to two periods shorter than the window), with 15% to spare; never
 * shorter than c->window_s nor longer than c->max_window_s (when > 0).
 * Unknown step, power or period: c->window_s. */
double gc__energy_window_for(double quantum_j, double power_w, double period_s,
                             const struct gc_energy_cfg *c);

struct gc_energy_run {
    int windows; /* valid windows kept */
    struct gc_energy_window w[GC_ENERGY_MAX_WINDOWS];
    int redone;
    int settling_windows;    /* valid windows dropped before the steady state */
    char redo_why[256];      /* the last invalid window's reason */
    struct gc_stats power;   /* average power per window, W */
    double time_s;           /* sum of the windows' spans */
    double energy_j;         /* sum of the windows' energies */
    double dram_j;           /* NAN none */
    double integral_j;       /* sum of the windows' integrals; NAN none */
    double disagreement;     /* |integral - energy| / energy over all windows; NAN none */
    double disagreement_max; /* worst window */
    double power_max_w;
    double period_s, step_j; /* counter update period and step seen (median over windows) */
    double busy_fraction;    /* device time / host time of the launch calls; 0 idle */
    double launch_s;         /* device time per launch (mean) */
    long launches;
    struct gc_sensor_window sensors; /* clocks, temperature, throttle over the windows */
    char stop_rule[64];
    /* The figure's uncertainty. A window's counted energy is uncertain by
     * one counter step plus the power times its ends' time uncertainty
     * (each end is located to half the gap between the polls around it);
     * the figure takes the source, counter or
     * integral of the sampled power, whose uncertainty is the smaller. */
    double quantum_j;     /* the counter step the uncertainty uses */
    double poll_s;        /* mean poll period of the meter's thread */
    double window_s;      /* median counted span of a kept window */
    double window_plan_s; /* the last planned window length */
    int lengthened;       /* windows too short for the 2% rule, measured again longer */
    bool from_integral;   /* power and energy are the integral of the samples */
    double u_counter_w;   /* the counter's: worst kept window, W */
    double u_integral_w;  /* the samples' (sensor tolerance), W; NAN none */
    double u_w, u_rel;    /* the figure's (power.median), W and share */
    double sustained_w;   /* energy / time over all kept windows, W */
    double sustained_u_w; /* its uncertainty, W */
};

/* Keeps the device busy with k launched as l (l->count ignored; NULL k:
 * idle, the host sleeps) for settle_s, then window after window until the
 * stopping rule, the meter polling throughout. Each window's length comes
 * from gc__energy_window_for at the power seen so far (first the settling
 * time's); a window that came out too short for the 2% rule is measured
 * again longer (run->lengthened). Returns 0, GC_EUNSTABLE with
 * run->redo_why when too many windows were invalid, GC_ENOTSUP with the
 * reason in run->redo_why when a power reading is implausible
 * (gc__energy_ceiling), GC_EINTR, or a launch error. */
int gc__energy_measure(struct gc_session *s, struct gc_energy_meter *m, struct gc_kern *k,
                       const struct gc_launch *l, const struct gc_energy_cfg *cfg,
                       struct gc_energy_run *run);

#endif

/* What the energy benchmarks of one run share (struct gc_session's energy):
 * the meter, the counter's resolution, the idle and static power measured
 * once, and each workload's energy per unit of work for the physical
 * ordering checks between benchmarks. */
#define GC_ENERGY_MAX_RECORDS 96

struct gc_energy_record {
    char key[48];     /* "fp32.fma", "dram.read", ... */
    double total_j;   /* energy per unit (op, FLOP or byte) */
    double dynamic_j; /* NAN when not resolved */
    char unit[16];    /* "op", "FLOP", "B" */
};

struct gc_energy_state {
    bool tried;                    /* the meter was opened (or failed to) */
    struct gc_energy_meter *meter; /* NULL: why says why */
    char why[600];
    bool have_res;
    struct gc_energy_resolution res;
    bool have_baseline;
    double idle_w, static_w;     /* static: a resident kernel that does no work; NAN none */
    double idle_u_w, static_u_w; /* their uncertainties (struct gc_energy_run's u_w) */
    char static_note[256];
    double power_limit_w; /* NAN unknown */
    struct gc_energy_record rec[GC_ENERGY_MAX_RECORDS];
    int nrec;
};

/* Frees the state (NULL allowed), closing the meter. */
void gc__energy_state_free(struct gc_energy_state *st);
