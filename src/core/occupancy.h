/* Occupancy control: exactly k blocks resident per compute unit, enforced by
 * the dynamic shared memory each block asks for (Lemeire eq. 2, Volkov §5.7)
 * and cross-checked with the device's occupancy calculator. */
#ifndef GC_CORE_OCCUPANCY_H
#define GC_CORE_OCCUPANCY_H

#include "core/device.h"

struct gc_occupancy {
    int blocks_per_cu; /* requested k */
    size_t dyn_shared; /* bytes of dynamic shared memory per block */
    int api_blocks;    /* what the occupancy API says fits; -1 unknown */
    bool verified;     /* api_blocks == blocks_per_cu */
    char note[160];
};

/* Dynamic shared memory per block so that k blocks fit on a CU and k + 1 do
 * not: floor(shared_per_cu / k) minus the per-block reservation and the
 * kernel's static shared memory (Lemeire eq. 2). GC_ERANGE when k cannot be
 * enforced this way (k exceeds the thread or block limits, or one block
 * cannot allocate that much). */
int gc__occupancy_shared(const struct gc_device_info *info, int k, int block_threads,
                         size_t static_shared, size_t *dyn_shared);

/* Computes the allocation for k blocks per CU and checks it with the
 * occupancy API where the device has one; adjusts by the API's answer. */
int gc__occupancy_set(struct gc_device *d, struct gc_kern *kern, int block_threads, int k,
                      struct gc_occupancy *out);

/* Blocks of block_threads threads, regs registers per thread (< 1:
 * unknown) and shared bytes of shared memory each that can be resident on
 * one CU at once: the least of the thread, block-slot, register-file and
 * shared-memory limits the device reports (a limit it does not report is
 * not applied); at least 1 when one block fits the device's block limit.
 * One block at most when the device reports neither a thread nor a block
 * limit per CU: the register file and shared memory alone bound nothing
 * for a kernel that uses little of them. */
int gc__occupancy_resident(const struct gc_device_info *info, int block_threads, int regs,
                           size_t shared);

/* Resident warps of 32 threads per CU of a launch of `blocks` blocks of
 * block_threads (the predictor's unit): the blocks per CU the occupancy API
 * answers for kernel k with dyn_shared bytes of dynamic shared memory where
 * the device has one, else gc__occupancy_resident with regs and the static
 * plus dynamic shared memory; never more blocks than the launch has per CU.
 * NAN when block_threads < 1 or the residency is unknown. */
double gc__occupancy_warps(struct gc_device *d, struct gc_kern *k, int block_threads, int regs,
                           size_t static_shared, size_t dyn_shared, double blocks);

#endif
