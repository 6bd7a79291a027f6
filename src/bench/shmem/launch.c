/* memory.shared's launch for the energy meter (core/meterlaunch.h): the
 * conflict-free load kernel at the configuration the benchmark wrote into
 * its result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/shmem/shmem.h"
#include "bench/launchcfg.h"
#include "core/kcache.h"

extern const struct gc_bench gc__bench_shared;

/* The element size of the best conflict-free load, when the record's shape
 * is the full one this device gives; else 16-byte elements (the size that
 * reaches the peak on the GPUs it ran on). */
void gc__shared_pick(const struct gc_session *s, const struct gc_config_ask *ask,
                     struct gc_best_elem *c, struct gc_cfg_pick *p)
{
    struct gc_best_elem rec, *b = &rec;
    int per_cu = gc__shmem_shape_per_cu(&s->dev->info);
    const struct gc_bench_result *from = gc__cfg_pick_start(p, gc__bench_shared.info.name, ask);

    *c = (struct gc_best_elem){16, per_cu};
    if (!from || !gc__elem_read(from, b, p))
        return;
    if (b->elem_bytes != 4 && b->elem_bytes != 8 && b->elem_bytes != 16)
        gc__cfg_refuse(p, "%d-byte elements are not a kernel of the benchmark", b->elem_bytes);
    else if (b->blocks_per_cu != per_cu)
        gc__cfg_refuse(p, "%d blocks per CU is not the full shape of this device (%d)",
                       b->blocks_per_cu, per_cu);
    else {
        *c = *b;
        p->origin = GC_CFG_RESULT;
    }
}

/* memory.shared's launch_at: the conflict-free load kernel at the element
 * size of gc__shared_pick over a full device, every thread's sum checked
 * after one launch as the bandwidth measurement checks it. */
int gc__shared_launch_at(struct gc_session *s, const struct gc_bench *self,
                         const struct gc_config_ask *ask, struct gc_meter_launch *w)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    struct gc_best_elem pc;
    struct gc_cfg_pick pick;

    (void)self;
    gc__shared_pick(s, ask, &pc, &pick);
    int bytes = pc.elem_bytes, ld_iters = gpu ? 4096 : 64, rc;
    uint32_t seed = (uint32_t)(s->seed ^ (s->seed >> 29)) ^ 0xC3A5u;
    struct gc_shmem_shape sh;
    uint32_t *got;

    w->req[0].label = "energy_shared_load";
    w->req[0].src = gc__shmem_gen_load(d->ops->dialect, 0, bytes, ld_iters);
    w->nreq = 1;
    if (!w->req[0].src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(s, w->req, 1)))
        return rc;
    if ((rc = d->ops->kernel(w->req[0].prog, "gc_shload", &w->k))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    if ((rc = gc__shmem_full_shape(d, w->k, SH_LD_BYTES, &sh)))
        return rc;
    size_t nthreads = (size_t)sh.grid * SH_BLOCK;
    if ((rc = gc__dev_alloc(d, nthreads * 4, &w->bufs[0])) ||
        (rc = gc__dev_fill_random(d, w->bufs[0], nthreads * 4, seed + 7u)))
        return rc;
    w->args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[0]};
    w->args[1] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = seed};
    w->l = (struct gc_launch){{sh.grid, 1, 1}, {SH_BLOCK, 1, 1}, sh.dyn, w->args, 2, 1};
    if ((rc = gc__meter_launch_once(d, w)))
        return rc;
    got = w->host[0] = malloc(nthreads * 4);
    if (!got)
        return GC_ENOMEM;
    if ((rc = gc__dev_read(d, w->bufs[0], 0, got, nthreads * 4)))
        return rc;
    for (size_t g = 0; g < nthreads; g++) {
        uint32_t want = gc__shmem_load_sum(g, bytes, ld_iters, seed);

        if (got[g] != want) {
            snprintf(w->why, sizeof(w->why),
                     "verification failed (shared loads): thread %zu summed 0x%08x, expected "
                     "0x%08x",
                     g, got[g], want);
            return GC_EVERIFY;
        }
    }
    /* Bytes delivered: every thread loads SH_LD_BYTES / SH_BLOCK per trip. */
    w->bytes = (double)nthreads * ld_iters * (SH_LD_BYTES / SH_BLOCK);
    w->ops = w->bytes / bytes;
    w->op_unit = "access";
    /* One warp-wide 16-byte load is four 128-byte wavefronts. */
    w->transactions = w->bytes / 128;
    w->spec_per_clk_cu = NAN;
    w->warps_per_cu = sh.per_cu * SH_BLOCK / 32;
    gc__meter_launch_describe(w, &pick, "memory.shared load kernel",
                              "%d-byte elements, conflict-free, %d trips, %s", bytes, ld_iters,
                              sh.note);
    return 0;
}
