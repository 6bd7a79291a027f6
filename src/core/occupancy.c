/* Occupancy control through dynamic shared memory (Lemeire eq. 2). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/occupancy.h"

int gc__occupancy_shared(const struct gc_device_info *info, int k, int block_threads,
                         size_t static_shared, size_t *dyn_shared)
{
    size_t per_cu = info->shared_per_cu;
    size_t limit =
        info->shared_per_block_optin ? info->shared_per_block_optin : info->shared_per_block;
    size_t per_block;

    *dyn_shared = 0;
    if (k < 1 || per_cu == 0)
        return GC_ERANGE;
    if (info->max_blocks_per_cu > 0 && k > info->max_blocks_per_cu)
        return GC_ERANGE;
    if (info->max_threads_per_cu > 0 && (long)k * block_threads > info->max_threads_per_cu)
        return GC_ERANGE;
    /* Each resident block holds its allocation plus the reservation. With
     * floor(per_cu / k) per block, k fit; the +1 in the divisor check makes
     * sure k + 1 do not. */
    per_block = per_cu / (size_t)k;
    if (per_block <= info->shared_reserved_per_block + static_shared)
        return GC_ERANGE;
    per_block -= info->shared_reserved_per_block + static_shared;
    if (per_block > limit - static_shared)
        per_block = limit - static_shared;
    /* k + 1 blocks must not fit: otherwise the occupancy is limited by
     * something else (threads, block slots), which the checks above cover. */
    size_t need_k1 =
        (size_t)(k + 1) * (per_block + static_shared + info->shared_reserved_per_block);
    if (need_k1 <= per_cu && !(info->max_blocks_per_cu > 0 && k + 1 > info->max_blocks_per_cu) &&
        !(info->max_threads_per_cu > 0 && (long)(k + 1) * block_threads > info->max_threads_per_cu))
        return GC_ERANGE;
    *dyn_shared = per_block;
    return 0;
}

int gc__occupancy_set(struct gc_device *d, struct gc_kern *kern, int block_threads, int k,
                      struct gc_occupancy *out)
{
    size_t static_shared = 0;
    int regs = 0, maxthr = 0, rc;

    memset(out, 0, sizeof(*out));
    out->blocks_per_cu = k;
    out->api_blocks = -1;
    if (d->ops->kernel_attrs)
        d->ops->kernel_attrs(kern, &regs, &static_shared, &maxthr);
    rc = gc__occupancy_shared(&d->info, k, block_threads, static_shared, &out->dyn_shared);
    if (rc) {
        snprintf(d->err, sizeof(d->err),
                 "%d blocks of %d threads per compute unit cannot be enforced with shared memory "
                 "on this device",
                 k, block_threads);
        return rc;
    }
    if (!(d->info.caps & GC_CAP_OCCUPANCY_API)) {
        snprintf(out->note, sizeof(out->note),
                 "shared-memory allocation only (no occupancy API to cross-check)");
        return 0;
    }
    rc = gc__dev_max_active_blocks(d, kern, block_threads, out->dyn_shared, &out->api_blocks);
    if (rc)
        return rc;
    /* The allocation granularity is not documented for every architecture:
     * nudge the allocation until the calculator agrees (Volkov §5.7 found
     * such granularities experimentally). */
    for (int step = 0; step < 64 && out->api_blocks != k; step++) {
        if (out->api_blocks > k)
            out->dyn_shared += 256;
        else if (out->dyn_shared > 256)
            out->dyn_shared -= 256;
        else
            break;
        rc = gc__dev_max_active_blocks(d, kern, block_threads, out->dyn_shared, &out->api_blocks);
        if (rc)
            return rc;
    }
    out->verified = out->api_blocks == k;
    snprintf(out->note, sizeof(out->note), "%s: occupancy API reports %d block(s) per CU",
             out->verified ? "verified" : "NOT verified", out->api_blocks);
    if (!out->verified) {
        snprintf(d->err, sizeof(d->err),
                 "cannot enforce %d blocks per compute unit: the occupancy API reports %d", k,
                 out->api_blocks);
        return GC_ERANGE;
    }
    return 0;
}

int gc__occupancy_resident(const struct gc_device_info *info, int block_threads, int regs,
                           size_t shared)
{
    long n = info->max_blocks_per_cu > 0 ? info->max_blocks_per_cu : 1L << 20;

    if (block_threads < 1)
        return 0;
    /* Neither a thread nor a block limit: one block (the register file and
     * shared memory alone would admit thousands of a kernel that uses
     * little of them). */
    if (info->max_threads_per_cu <= 0 && info->max_blocks_per_cu <= 0)
        n = 1;
    if (info->max_threads_per_cu > 0 && info->max_threads_per_cu / block_threads < n)
        n = info->max_threads_per_cu / block_threads;
    if (regs > 0 && info->regs_per_cu > 0 && info->regs_per_cu / (regs * block_threads) < n)
        n = info->regs_per_cu / (regs * block_threads);
    if (shared > 0 && info->shared_per_cu > 0) {
        size_t per = shared + info->shared_reserved_per_block;

        if ((long)(info->shared_per_cu / per) < n)
            n = (long)(info->shared_per_cu / per);
    }
    return (int)n;
}

double gc__occupancy_warps(struct gc_device *d, struct gc_kern *k, int block_threads, int regs,
                           size_t static_shared, size_t dyn_shared, double blocks)
{
    int cus = d->info.compute_units > 0 ? d->info.compute_units : 1, per = -1;

    if (block_threads < 1)
        return NAN;
    if (!(d->info.caps & GC_CAP_OCCUPANCY_API) || !k ||
        gc__dev_max_active_blocks(d, k, block_threads, dyn_shared, &per) || per < 1) {
        /* The architecture's limits where the device reports none (NVIDIA's
         * OpenCL); only this estimate takes them, the device's own facts
         * stay as reported. */
        struct gc_device_info info = d->info;

        gc__arch_fill_residency(&d->arch, &info);
        per = gc__occupancy_resident(&info, block_threads, regs, static_shared + dyn_shared);
    }
    if (per < 1)
        return NAN;
    double launched = blocks / cus;
    double per_cu = per < launched ? per : ceil(launched);
    return per_cu * block_threads / 32.0;
}
