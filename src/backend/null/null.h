/* The null backend: a simulated device so that the engine, the models and the
 * emitters can be tested without hardware. No kernel is ever executed. */
#ifndef GC_BACKEND_NULL_NULL_H
#define GC_BACKEND_NULL_NULL_H

#include "backend/backend.h"

extern const struct gc_backend_ops gc__null_ops;

/* Behaviour of the simulated devices. */
struct gc_null_config {
    double launch_s;         /* device time of one launch, seconds (> 0) */
    double noise_rel;        /* timing noise: uniform in +-noise_rel, clamped to [0, 0.9] */
    double throttle_prob;    /* probability that a sensor reading is throttled, [0, 1] */
    unsigned long long seed; /* seed of the noise and throttle streams */
    int fail_alloc_after;    /* > 0: every allocation after this many on a device fails
                                with GC_EDEVMEM; <= 0: allocations fail only when the
                                device's 1 GiB is used up */
    /* A simulated power meter (the backend op power): a constant board power
     * of power_w watts, whose energy counter (1 mJ resolution) advances every
     * energy_period_s seconds of host time since the device was opened; 0 W
     * means no meter (GC_ENOTSUP). energy_backwards_at > 0 makes the counter
     * read 1 J lower during its update number energy_backwards_at (a counter
     * that goes backwards, for the tests of the energy meter). */
    double power_w;
    double energy_period_s;
    long energy_backwards_at;
};

/* Sets the behaviour of the devices opened from now on and makes the backend
 * report one device even without GPUCHAR_NULL_DEVICES (which, when set to
 * N >= 1, still gives the count). NULL restores the defaults and the
 * zero-device state. Not meant to be called while devices are open. */
void gc__null_configure(const struct gc_null_config *cfg);

#endif
