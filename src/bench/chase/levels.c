/* The staircase's cache levels into metrics: names, sizes against the
 * device's reports and the architecture table, and latencies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"
#include "model/cache.h"

/* ---- Levels into metrics ------------------------------------------------ */

/* The L1 an SM keeps with the carve-out preference at 0: the unified L1 /
 * shared-memory array of the architecture table (the device reports only the
 * largest carve-out, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
 * less the carve-out the driver must still make (the smallest one, or the
 * smallest non-zero one where the system reserves shared memory in every
 * block). NAN where the array is not known; why says how it is derived. */
static double l1_expected(const struct gc_device *d, char *why, size_t len)
{
    const struct gc_device_info *info = &d->info;
    const struct gc_arch *a = &d->arch;
    int keep = a->l1_smallest_kib;

    why[0] = '\0';
    if (a->l1_unified_kib <= 0)
        return NAN;
    if (keep == 0 && info->shared_reserved_per_block > 0)
        keep = a->l1_nonzero_kib;
    snprintf(why, len,
             "carve-out pref. 0%%: %d KiB L1/shared array (CC %d.%d) less %d KiB kept "
             "(%s); at the %.0f KiB shared maximum L1 is %.0f KiB",
             a->l1_unified_kib, a->cc / 10, a->cc % 10, keep,
             keep == a->l1_smallest_kib ? "the smallest carve-out"
                                        : "smallest non-zero: blocks reserve some",
             info->shared_per_cu / 1024.0, a->l1_unified_kib - info->shared_per_cu / 1024.0);
    return (double)(a->l1_unified_kib - keep) * 1024;
}

/* Names the detected levels of a path's staircase: name[k] is the metric
 * prefix of level k. x_max is the largest footprint measured. */
static void level_names(const struct chase_ctx *c, const struct gc_cache_fit *f, double x_max,
                        char name[][24])
{
    const struct gc_device_info *info = &c->s->dev->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    int nl = f->nlevels;
    /* The sweep reached the backing store when it went well past the largest
     * cache known. */
    bool memory = c->pl.llc && x_max >= 2.0 * (double)c->pl.llc;
    /* One SM sees the L2 partition next to it first; where its footprint
     * outgrows that share, a plateau between the L2 and DRAM latencies can
     * follow until the footprint outgrows the whole L2 (H100/H200). */
    double l2 = (double)info->l2_size;

    for (int k = 0; k < nl; k++)
        snprintf(name[k], 24, "level%d", k + 1);
    switch (c->path) {
    case PATH_TLB:
        for (int k = 0; k < nl; k++)
            snprintf(name[k], 24, "tlb%d", k + 1);
        return;
    case PATH_CONSTANT:
    case PATH_SHARED:
    case PATH_PRIVATE:
        for (int k = 0; k < nl; k++)
            /* Path names have at most 8 characters and there are at most
             * GC_CACHE_MAX_LEVELS levels: the name always fits. */
            snprintf(name[k], 24, "%.8s_level%u", gc__chase_path_name(c->path),
                     (unsigned)(k + 1) & 0xffu);
        return;
    case PATH_L2:
        if (nl >= 1)
            snprintf(name[0], 24, "l2");
        if (nl >= 2)
            snprintf(name[nl - 1], 24, "dram");
        if (nl == 3 && l2 > 0 && f->level[1].capacity >= l2 / 2 && f->level[1].capacity <= 2 * l2)
            snprintf(name[1], 24, "l2_spill");
        return;
    default:
        break;
    }
    if (!gpu) {
        /* A CPU staircase has more steps than caches (the TLBs add theirs,
         * and part of L1 can be taken by other work on the core), so L1, L2
         * and L3 are the steps nearest to the sizes sysfs gives, when within
         * a factor of 4, L1 first; the other steps keep their position as
         * name. Without a sysfs size for L1, the first plateau is L1. */
        struct chase_cpu_caches cc;
        size_t want[3];
        gc__chase_cpu_caches(&cc);
        want[0] = cc.l1d;
        want[1] = cc.l2;
        want[2] = cc.l3;
        for (int w = 0; w < 3; w++) {
            int best = -1;
            for (int k = 0; want[w] && k + 1 < nl; k++) {
                double dk = fabs(log(f->level[k].capacity / (double)want[w]));
                if (dk < log(4.0) && strncmp(name[k], "level", 5) == 0 &&
                    (best < 0 || dk < fabs(log(f->level[best].capacity / (double)want[w]))))
                    best = k;
            }
            if (best >= 0)
                snprintf(name[best], 24, "l%d", w + 1);
            else if (w == 0 && nl >= 1)
                snprintf(name[0], 24, "l1");
        }
        if (memory && nl >= 2)
            snprintf(name[nl - 1], 24, "dram");
        return;
    }
    if (nl == 2 && l2 > 0 && f->level[0].capacity > l2 / 4) {
        /* No L1 step: the path does not cache in L1. */
        snprintf(name[0], 24, "l2");
        snprintf(name[1], 24, "dram");
        return;
    }
    /* L1, then the L2 as one SM sees it (the first level after L1, whatever
     * its size: a partitioned L2 gives one SM less than the whole), DRAM. */
    if (nl >= 1)
        snprintf(name[0], 24, "l1");
    if (nl >= 2)
        snprintf(name[1], 24, "l2");
    if (nl >= 3 || (nl >= 2 && memory))
        snprintf(name[nl - 1], 24, "dram");
    if (nl == 4 && l2 > 0 && f->level[2].capacity >= l2 / 2 && f->level[2].capacity <= 2 * l2)
        snprintf(name[2], 24, "l2_spill");
}

/* The metric name of a level's capacity, its limit where the device or the
 * host says it, and what the note adds. */
static double level_size(const struct chase_ctx *c, const char *name, char *mname, size_t mlen,
                         char *src, size_t len)
{
    const struct gc_device_info *info = &c->s->dev->info;
    struct chase_cpu_caches cc;

    src[0] = '\0';
    snprintf(mname, mlen, "%s_%s_bytes", name, c->path == PATH_TLB ? "reach" : "size");
    if (info->type == GC_DEVICE_GPU) {
        if (strcmp(name, "l2") == 0) {
            if (info->l2_size)
                snprintf(src, len,
                         "one SM: its share of L2 (a split L2's near partition); the whole %.0f "
                         "KiB reported%s",
                         info->l2_size / 1024.0,
                         c->clocks ? " is measured from every SM in memory.latency.l2 "
                                     "(l2_all_sms_size_bytes)"
                                   : "");
            return NAN;
        }
        if (strcmp(name, "l2_spill") == 0) {
            snprintf(src, len,
                     "one SM: end of the plateau between its L2 and DRAM latencies; %.0f KiB "
                     "of L2 reported in all",
                     info->l2_size / 1024.0);
            return NAN;
        }
        if (strcmp(name, "l1") == 0) {
            char why[400];
            double v = c->carveout ? l1_expected(c->s->dev, why, sizeof(why)) : NAN;
            if (isfinite(v)) {
                snprintf(src, len, "%s", why);
                return v;
            }
            if (info->shared_per_cu)
                snprintf(src, len,
                         "L1 and shared memory share one array per SM; shared memory may take "
                         "up to %.0f KiB of it%s%s",
                         info->shared_per_cu / 1024.0, c->carveout_err[0] ? "; " : "",
                         c->carveout_err);
            else if (c->carveout_err[0])
                snprintf(src, len, "%s", c->carveout_err);
        }
        return NAN;
    }
    if (info->type != GC_DEVICE_CPU)
        return NAN;
    gc__chase_cpu_caches(&cc);
    size_t v = strcmp(name, "l1") == 0   ? cc.l1d
               : strcmp(name, "l2") == 0 ? cc.l2
               : strcmp(name, "l3") == 0 ? cc.l3
                                         : 0;
    if (!v)
        return NAN;
    snprintf(src, len, "%s says %.0f KiB for cpu0 (the OpenCL driver reports %.0f KiB)", cc.source,
             v / 1024.0, info->l2_size / 1024.0);
    return (double)v;
}

void gc__chase_level_metrics(struct chase_ctx *c, const double *x, const double *y_ns,
                             const double *y_cyc, const bool *planned, int n, bool have_cyc,
                             bool detect_on_cycles)
{
    struct gc_bench_result *r = c->r;
    const double *y = detect_on_cycles ? y_cyc : y_ns;
    struct gc_cache_fit f;
    char names[GC_CACHE_MAX_LEVELS][24], mname[64], note[768], src[512];

    if (gc__cache_detect_refined(x, y, n, planned, &f) != 0 || f.nlevels == 0)
        return;
    level_names(c, &f, x[n - 1], names);
    /* The ratio between the two series (the clock) converts the levels. */
    for (int k = 0; k < f.nlevels; k++) {
        const struct gc_cache_level *L = &f.level[k];
        double to_cyc = 1, to_ns = 1;
        if (have_cyc && y_ns[L->first] > 0)
            to_cyc = y_cyc[L->first] / y_ns[L->first];
        if (detect_on_cycles && y_cyc[L->first] > 0)
            to_ns = y_ns[L->first] / y_cyc[L->first];
        double lat_ns = detect_on_cycles ? L->latency * to_ns : L->latency;
        double lat_cyc = detect_on_cycles ? L->latency : L->latency * to_cyc;

        if (isfinite(f.rms_rel))
            snprintf(note, sizeof(note),
                     "plateau of %d footprints (%.0f B .. %.0f B), median; eq. 6 fit %.4g %s, "
                     "fit rms %.1f%%",
                     L->last - L->first + 1, x[L->first], x[L->last], L->latency_fit,
                     detect_on_cycles ? "cycles" : "ns", 100 * f.rms_rel);
        else
            snprintf(note, sizeof(note),
                     "plateau of %d footprints (%.0f B .. %.0f B), median; no eq. 6 fit",
                     L->last - L->first + 1, x[L->first], x[L->last]);
        if (have_cyc) {
            snprintf(mname, sizeof(mname), "%s_latency_cycles", names[k]);
            gc__bench_add_metric(r, mname, lat_cyc, "cycles", NAN, NULL, note);
        }
        snprintf(mname, sizeof(mname), "%s_latency_ns", names[k]);
        gc__bench_add_metric(r, mname, lat_ns, "ns", NAN, NULL, note);
        if (!isfinite(L->capacity))
            continue;
        /* The size the device or the host reports is a reference, not a
         * bound: a chase's step lies where latency starts to rise, which
         * replacement, hashing and a victim cache below can move either way
         * (a 2 MiB L2 over a non-inclusive L3 was seen at 2.4 MiB). It goes
         * into the note, not into the limit the guard enforces. */
        double ref = level_size(c, names[k], mname, sizeof(mname), src, sizeof(src));
        char refs[64] = "";
        if (isfinite(ref))
            snprintf(refs, sizeof(refs), "; %.0f%% of the %.0f KiB reported",
                     100 * L->capacity / ref, ref / 1024);
        snprintf(note, sizeof(note), "%s, step between %.0f B and %.0f B%s%s%s",
                 isfinite(f.rms_rel) ? "eq. 6 fit" : "last footprint at the plateau (no eq. 6 fit)",
                 L->capacity_lo, L->capacity_hi, refs, src[0] ? "; " : "", src);
        gc__bench_add_metric(r, mname, L->capacity, "B", NAN, NULL, note);
    }
    if (c->path == PATH_TLB && f.nlevels >= 2) {
        snprintf(note, sizeof(note),
                 "first step of the page-strided chase (one access per %zu-byte page)",
                 c->pl.spacing);
        gc__bench_add_metric(r, "tlb_reach_bytes", f.level[0].capacity, "B", NAN, NULL, note);
    }
}
