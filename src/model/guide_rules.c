/* The guide's rules (model/guide.h): each reads the figures §4.3 of
 * uCLbench names for one optimization, says whether it should pay off on
 * the device and by roughly how much, and records the figures it rests on
 * and the inputs it lacked. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/results.h"
#include "model/guide.h"

static void missing(struct gc_guide_item *it, const char *what)
{
    size_t n = strlen(it->missing);

    snprintf(it->missing + n, sizeof(it->missing) - n, "%s%s", n ? "; " : "", what);
}

/* §3.1: the relative throughput of floatN against scalar code with every
 * work-item busy. The best width's gain on arithmetic bounds what
 * vectorization gives a kernel (a memory-bound one gains less). */
void gc__guide_rule_vec(const struct gc_results *r, struct gc_guide_item *it)
{
    static const char *const benches[] = {"compute.fp32.fma", "compute.fp32.add",
                                          "compute.fp32.mul"};
    static const int widths[] = {2, 4, 8, 16};
    const char *b = NULL, *u = "";
    double scalar = NAN, best = NAN;
    int bw = 0;

    snprintf(it->topic, sizeof(it->topic), "vectorization");
    snprintf(it->klass, sizeof(it->klass), "vectorization");
    for (int i = 0; i < 3 && !b; i++)
        if (isfinite(scalar = gc__guide_series_max(r, benches[i], "peak_ilp", &u)))
            b = benches[i];
    if (!b) {
        it->verdict = GC_GUIDE_UNKNOWN;
        missing(it, "no scalar compute throughput: run compute.fp32.fma");
        return;
    }
    gc__guide_fig(it, b, "peak_ilp", scalar, u);
    for (int k = 0; k < 4; k++) {
        char s[32];
        snprintf(s, sizeof(s), "peak_vec%d", widths[k]);
        double v = gc__guide_series_max(r, b, s, &u);
        if (!isfinite(v))
            continue;
        gc__guide_fig(it, b, s, v, u);
        if (!isfinite(best) || v > best) {
            best = v;
            bw = widths[k];
        }
    }
    if (!isfinite(best)) {
        double simd = gc__guide_metric(r, "control.divergence", "simd_width", &u);
        it->verdict = simd >= 8 ? GC_GUIDE_NONE : GC_GUIDE_UNKNOWN;
        it->gain_pct = simd >= 8 ? 0 : NAN;
        if (isfinite(simd))
            gc__guide_fig(it, "control.divergence", "simd_width", simd, u);
        snprintf(it->advice, sizeof(it->advice),
                 "no vector forms were measured (the dialect has no vector arithmetic)%s",
                 simd >= 8 ? "; the device runs work-items in SIMD groups itself, as the "
                             "NVIDIA GPUs of S3.1 that gained nothing from floatN: no gain "
                             "expected beyond wider memory accesses"
                           : "");
        if (!(simd >= 8))
            missing(it, "no vector-width figures: run compute.fp32.fma on an OpenCL device, "
                        "or control.divergence for the SIMD width");
        return;
    }
    it->gain_pct = (best / scalar - 1) * 100;
    it->verdict = gc__guide_verdict_of(it->gain_pct);
    char what[64];
    if (it->verdict == GC_GUIDE_PAYS)
        snprintf(what, sizeof(what), "vectorize, width %d", bw);
    else
        snprintf(what, sizeof(what), "%s",
                 it->verdict == GC_GUIDE_SMALL ? "a small gain from vectorizing"
                                               : "the device vectorizes scalar code itself");
    snprintf(it->advice, sizeof(it->advice),
             "float%d reaches %.2fx the scalar throughput with every work-item busy: %s "
             "(up to %+.0f%% on arithmetic, less where memory bounds the kernel)",
             bw, best / scalar, what, it->gain_pct);
}

/* The local memory's latency: the shared-memory benchmark's dependent
 * loads, else the first step of the local staircase. */
static double local_latency(const struct gc_results *r, struct gc_guide_item *it)
{
    const char *u = "";
    double l = gc__guide_metric(r, "memory.shared", "shared_latency_cycles", &u), last;

    if (isfinite(l)) {
        gc__guide_fig(it, "memory.shared", "shared_latency_cycles", l, u);
        return l;
    }
    if (gc__guide_series_ends(r, "memory.latency.shared", "latency_cycles", &l, &last)) {
        gc__guide_fig(it, "memory.latency.shared", "latency_cycles[first]", l, "cycles");
        return l;
    }
    missing(it, "no local-memory latency: run memory.shared or memory.latency.shared");
    return NAN;
}

/* §3.2 and §4.3: devices without caching of global memory (a flat latency
 * staircase) gain from loading the working set into local memory; where a
 * cache serves the stencil's reuse, a tile adds its halo loads and a
 * barrier and gains only where local memory is much faster than the cache.
 * Estimate: the stencil's GC_GUIDE_STENCIL_LOADS loads of u per point at
 * the global (or cache-hit) latency against one such load plus as many
 * local ones. */
void gc__guide_rule_mc(const struct gc_results *r, struct gc_guide_item *it)
{
    double first, last, ll, lg;
    int k = GC_GUIDE_STENCIL_LOADS;
    bool cached;

    snprintf(it->topic, sizeof(it->topic), "manual caching");
    snprintf(it->klass, sizeof(it->klass), "manual caching");
    if (!gc__guide_series_ends(r, "memory.latency.global", "latency_cycles", &first, &last)) {
        it->verdict = GC_GUIDE_UNKNOWN;
        missing(it, "no global-memory latency staircase: run memory.latency.global");
        local_latency(r, it);
        return;
    }
    gc__guide_fig(it, "memory.latency.global", "latency_cycles[smallest footprint]", first,
                  "cycles");
    gc__guide_fig(it, "memory.latency.global", "latency_cycles[largest footprint]", last, "cycles");
    cached = first <= GC_GUIDE_CACHED * last;
    ll = local_latency(r, it);
    lg = cached ? first : last;
    if (!isfinite(ll)) {
        it->verdict = GC_GUIDE_UNKNOWN;
        return;
    }
    double gain = (k * lg / (lg + k * ll) - 1) * 100;
    if (cached && !(ll <= GC_GUIDE_LOCAL * first))
        gain = 0;
    it->gain_pct = gain > 0 ? gain : 0;
    it->verdict = gc__guide_verdict_of(it->gain_pct);
    snprintf(it->advice, sizeof(it->advice),
             "global memory is %s (%.0f cycles at the smallest footprint, %.0f at the largest); "
             "local memory answers in %.0f cycles: %s; declare the tile statically (mcStat: "
             "S3.2 finds static local memory as fast as or faster than an argument)",
             cached ? "cached" : "not cached", first, last, ll,
             it->verdict == GC_GUIDE_PAYS    ? "load the working set into local memory"
             : it->verdict == GC_GUIDE_SMALL ? "a tile in local memory gains a little"
                                             : "the cache already serves the reuse, a tile "
                                               "adds halo loads and a barrier");
}

/* §3.3 and §4.3: branch elimination pays most where the branch penalty
 * varies much with the layout of divergent branches, and not at all where
 * it is flat (CPUs). Its gain on a stencil is bounded by the share of
 * work-groups that hold boundary points: a few percent at most. */
void gc__guide_rule_be(const struct gc_results *r, struct gc_guide_item *it)
{
    const struct gc_bench_result *b = gc__guide_bench(r, "control.divergence");
    double lo = INFINITY, hi = 0, v;
    const char *u = "";

    snprintf(it->topic, sizeof(it->topic), "branch elimination");
    snprintf(it->klass, sizeof(it->klass), "branch elimination");
    for (int s = 0; b && s < b->nseries; s++) {
        if (strncmp(b->series[s].name, "relative_time_width_", 20) != 0)
            continue;
        for (int p = 0; p < b->series[s].npoints; p++) {
            double y = b->series[s].points[p].y;
            if (isfinite(y) && y > 0) {
                lo = y < lo ? y : lo;
                hi = y > hi ? y : hi;
            }
        }
    }
    if (!(hi > 0)) {
        it->verdict = GC_GUIDE_UNKNOWN;
        missing(it, "no divergence figures: run control.divergence");
        return;
    }
    gc__guide_fig(it, "control.divergence", "relative_time_width_*[max]", hi, "x");
    gc__guide_fig(it, "control.divergence", "relative_time_width_*[min]", lo, "x");
    if (isfinite(v = gc__guide_metric(r, "control.divergence", "if_divergent_slowdown", &u)))
        gc__guide_fig(it, "control.divergence", "if_divergent_slowdown", v, u);
    bool high = hi / lo >= GC_GUIDE_VARIANCE;
    it->gain_pct = high ? GC_GUIDE_SMALL_PCT : 0;
    it->verdict = gc__guide_verdict_of(it->gain_pct);
    snprintf(it->advice, sizeof(it->advice),
             "the branch penalty spans %.2fx over branch counts and widths: %s", hi / lo,
             high ? "divergent boundary branches cost, eliminate them (a few percent: only the "
                    "work-groups on the boundary diverge)"
                  : "a flat profile, branch elimination has no effect");
}

bool gc__guide_mem_need(const struct gc_results *r, struct gc_guide_item *it,
                        struct gc_guide_need *out)
{
    const char *u = "", *hb = "hiding.params";
    double lat = gc__guide_metric(r, hb, "mem_latency_cycles", &u);
    double bpc = gc__guide_metric(r, hb, "mem_thru_bytes_per_clk_sm", &u);
    double unit = gc__guide_metric(r, hb, "mem_bytes_per_inst", &u);
    double ops = gc__guide_metric(r, hb, "mem_peak_ops_per_clk_sm", &u);
    double wmax = gc__guide_metric(r, hb, "max_warps_per_sm", &u);

    memset(out, 0, sizeof(*out));
    if (!isfinite(unit) || unit <= 0)
        unit = 128;
    /* Group loads (one memory instruction of a warp, unit bytes) per clock:
     * the peak bytes per clock over the bytes of one; a profile without the
     * bytes has the thread loads of 4 bytes (mem_peak_ops_per_clk_sm). */
    double loads = bpc / unit;
    const char *name = "mem_thru_bytes_per_clk_sm";
    if (!isfinite(loads) || !(loads > 0)) {
        loads = ops * 4 / unit;
        name = "mem_peak_ops_per_clk_sm";
        bpc = ops;
    }
    if (!isfinite(lat) || !(lat > 0) || !isfinite(loads) || !(loads > 0) || !isfinite(wmax) ||
        wmax < 1) {
        missing(it, "no latency-hiding parameters: run hiding.params");
        return false;
    }
    gc__guide_fig(it, hb, "mem_latency_cycles", lat, "cycles");
    gc__guide_fig(it, hb, name, bpc,
                  strcmp(name, "mem_peak_ops_per_clk_sm") ? "B/clk/SM" : "ops/clk/SM");
    gc__guide_fig(it, hb, "mem_bytes_per_inst", unit, "B");
    gc__guide_fig(it, hb, "max_warps_per_sm", wmax, "warps/SM");
    *out = (struct gc_guide_need){lat * loads, unit, wmax};
    return true;
}

/* Volkov's Little's law: a memory-bound kernel needs latency x throughput
 * loads in flight per SM; at one load per warp that many warps. A
 * constraint on the other optimizations: one that costs residency (a large
 * tile, a wide vector's registers) loses where it drops the warps below
 * what its loads in flight need. */
void gc__guide_rule_occ(const struct gc_results *r, struct gc_guide_item *it)
{
    struct gc_guide_need nd;

    snprintf(it->topic, sizeof(it->topic), "occupancy");
    it->verdict = GC_GUIDE_INFO;
    if (!gc__guide_mem_need(r, it, &nd)) {
        it->verdict = GC_GUIDE_UNKNOWN;
        return;
    }
    double need = nd.loads, wmax = nd.wmax;
    snprintf(it->advice, sizeof(it->advice),
             "the memory peak needs %.0f loads in flight per SM (%.0f%% of the %.0f warps an SM "
             "holds at one load per warp); the scalar stencil's DRAM stream keeps one per warp, "
             "its 16-byte form four (the loads-in-flight rule), so a vec4 stencil needs %.1f "
             "warps: keep at least that many resident when a tile or a vector's registers cost "
             "occupancy",
             need, 100 * need / wmax, wmax, need / 4);
}
