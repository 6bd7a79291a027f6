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
    /* energy_jump_j > 0: from update number energy_jump_at on, the counter
     * reads energy_jump_j more than the power drew (energy the instantaneous
     * samples never saw: a transient between them, for the meter's
     * agreement check). */
    double energy_jump_j;
    long energy_jump_at;
    /* > 0: the board draws power_excess_w more when the device opens, the
     * excess decaying as exp(-t / power_tau_s) (a previous load's tail that
     * the meter must wait out). */
    double power_excess_w, power_tau_s;
    /* > 0: the counter counts in steps of this many joules (it reads the
     * energy rounded down to a multiple), as a coarse counter does; 0: 1 mJ.
     * A quantum far above what the device ever draws is a counter that
     * never moves. */
    double energy_quantum_j;
    /* > 0: the sensors report this enforced power limit (W); 0: none. */
    double power_limit_w;
    /* The simulated peer pair that cannot reach each other (either
     * direction): unreachable[0] != unreachable[1] names it; equal (the
     * zeroed default) means every pair reaches. */
    int unreachable[2];
    /* > 0: each device's memory in bytes (its largest buffer a quarter of
     * it); 0: 1 GiB. */
    size_t global_mem;
    /* true: every peer copy (peer_copies) lands with its last byte
     * inverted, a copy the verification must reject. */
    bool peer_corrupt;
    size_t host_lock_limit; /* > 0: page-locked host allocations (pinned, write-combined,
                               mapped) above this many bytes are refused with GC_ENOMEM,
                               as a locked-memory limit would; 0: no limit */
};

/* The simulated transfers: t = count x (latency + bytes / bandwidth), the
 * bandwidth that of page-locked host memory when the host pointer lies in a
 * pinned, write-combined or mapped host_alloc allocation, else of pageable
 * memory; D2D at its own rate; a BIDIR copy moves each direction at 3/4 of
 * the one-way rate; the map method has twice the latency. The link is PCIe
 * gen 4 x16. Times carry the configured noise. */
#define GC_NULL_XFER_LATENCY_S 5e-6
#define GC_NULL_PINNED_BW 20e9
#define GC_NULL_PAGEABLE_BW 8e9
#define GC_NULL_D2D_BW 400e9
#define GC_NULL_PCIE_GEN 4
#define GC_NULL_PCIE_WIDTH 16

/* The simulated peer links (link.*): the pair (a, b) moves
 * GC_NULL_PEER_BW x (1 + (a + b) % 3) bytes/s per direction with a latency
 * of GC_NULL_PEER_LATENCY_S x (1 + |a - b|); copies that share a device's
 * side of the link at once (into one destination or out of one source)
 * share its rate. The limit the backend reports is GC_NULL_PEER_LIMIT x
 * the pair's rate. */
#define GC_NULL_PEER_BW 50e9
#define GC_NULL_PEER_LATENCY_S 2e-6
#define GC_NULL_PEER_LIMIT 1.25

/* Sets the behaviour of the devices opened from now on and makes the backend
 * report one device even without GPUCHAR_NULL_DEVICES (which, when set to
 * N >= 1, still gives the count). NULL restores the defaults and the
 * zero-device state. Not meant to be called while devices are open. */
void gc__null_configure(const struct gc_null_config *cfg);

#endif
