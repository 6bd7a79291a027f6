/* The kernel-timed occupancy sweep (see ktsweep.h): Lemeire's timeOfRun,
 * whole kernels timed by the device's events where no clock is read in the
 * kernel. */
#include <math.h>

#include "core/ktsweep.h"

/* A CPU launch may repeat its work-groups this many times per CU at most. */
#define KT_CPU_MAX_RUNS 4096

/* What one curve carries from point to point. */
struct kt_state {
    bool cpu;
    double warp_run_s; /* the last point's time per warp and run; 0 none yet */
    int trials;        /* trial launches so far */
};

int gc__ktsweep_warps(const struct gc_device_info *info, bool quick, int *out, int cap)
{
    int simd = info->simd_width > 0 ? info->simd_width : 1;
    int maxw =
        (info->max_threads_per_cu > 0 ? info->max_threads_per_cu : info->max_threads_per_block) /
        simd;
    int n;

    if (info->type != GC_DEVICE_CPU)
        return gc__sweep_warps(maxw, out, cap);
    if (maxw > GC_KTSWEEP_CPU_MAX_THREADS / simd)
        maxw = GC_KTSWEEP_CPU_MAX_THREADS / simd > 0 ? GC_KTSWEEP_CPU_MAX_THREADS / simd : 1;
    n = gc__sweep_doublings(maxw, out, cap);
    /* --quick: every third doubling (1, 8, 64, ...), the top kept. */
    if (quick) {
        int j = 0;
        for (int i = 0; i < n; i++)
            if (i % 3 == 0 || i == n - 1)
                out[j++] = out[i];
        n = j;
    }
    return n;
}

/* Runs per CU that make a CPU launch of `per_run` threads last about
 * target_s, within the buffers (max_threads): predicted from the previous
 * point's time per warp and run where there is one, else found by up to
 * three trial launches. 1 on other devices: their launch holds every
 * point's warps at once. l's grid becomes the launch's. */
static int kt_runs(struct gc_session *s, const struct gc_ktsweep_desc *d, struct kt_state *K,
                   struct gc_launch *l, int warps, size_t per_run, int *runs)
{
    unsigned grid = l->grid[0];
    int cap = (int)(d->max_threads / per_run);
    double el;

    *runs = 1;
    cap = cap > KT_CPU_MAX_RUNS ? KT_CPU_MAX_RUNS : cap;
    if (K->cpu && K->warp_run_s > 0)
        *runs = (int)fmin(cap, ceil(d->cpu_target_s / (K->warp_run_s * warps)));
    for (int it = 0; K->cpu && !(K->warp_run_s > 0) && it < 3 && *runs < cap; it++) {
        int rc, nr;

        l->grid[0] = grid * (unsigned)*runs;
        if ((rc = gc__dev_launch(s->dev, d->k, l, &el)))
            return rc;
        K->trials++;
        if (el >= 0.5 * d->cpu_target_s)
            break;
        nr = (int)ceil(*runs * d->cpu_target_s / fmax(el, 1e-7));
        *runs = nr < cap ? nr : cap;
    }
    *runs = *runs < 1 ? 1 : *runs;
    l->grid[0] = grid * (unsigned)*runs;
    return 0;
}

/* One point at `warps` warps per CU; nothing where the device cannot lay
 * it out. */
static int kt_point(struct gc_session *s, const struct gc_ktsweep_desc *d, struct kt_state *K,
                    int warps)
{
    struct gc_ktsweep_point p = {.warps = warps};
    struct gc_rep_hook hook = {0};
    /* A CPU curve's first point is warmed up by its trial launches, the
     * others by the points before them (the same kernel). */
    bool warm = K->cpu && K->warp_run_s > 0;
    int trials = K->trials, rc = gc__sweep_shape(s->dev, d->k, warps, &p.sh);

    bool skip = rc == GC_ERANGE || (rc == 0 && K->cpu && p.sh.blocks_per_cu != 1) ||
                (size_t)p.sh.grid * (size_t)p.sh.block > d->max_threads;

    if (skip || rc)
        return skip ? 0 : rc;
    struct gc_launch l = {
        {p.sh.grid, 1, 1}, {(unsigned)p.sh.block, 1, 1}, p.sh.occ.dyn_shared, d->args, d->nargs, 1};
    if ((rc = kt_runs(s, d, K, &l, warps, (size_t)p.sh.grid * (size_t)p.sh.block, &p.runs)))
        return rc;
    warm = warm || K->trials > trials;
    p.nthreads = (size_t)l.grid[0] * (size_t)p.sh.block;
    if ((rc = d->prepare(d->u, &p, &hook)))
        return rc;
    rc = gc__measure_runs(s, d->k, &l, warm ? 0 : 1, d->reps, &hook, &p.st);
    if (rc == 0) {
        p.seconds = K->cpu ? p.st.min : p.st.median;
        K->warp_run_s = p.seconds / p.runs / warps;
    }
    return d->done(d->u, &p, rc);
}

int gc__ktsweep_run(struct gc_session *s, const struct gc_ktsweep_desc *d)
{
    struct kt_state K = {.cpu = s->dev->info.type == GC_DEVICE_CPU};
    int rc = 0;

    for (int i = 0; i < d->nw && rc == 0 && !gc__stopped(s); i++)
        rc = kt_point(s, d, &K, d->warps[i]);
    return rc;
}
