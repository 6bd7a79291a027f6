/* The guide's loads-in-flight rule (model/guide.h): Volkov's Little's law
 * for the stencil's DRAM stream, at the access widths it can use. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/results.h"
#include "model/guide.h"

/* The widest access the rule weighs: a 16-byte vector per work-item, the
 * widest load a GPU thread issues (wider vectors move 16-byte pieces). */
#define WIDE_BYTES 16.0

/* Share of the memory peak a stream reaches with `units` of the model's
 * memory units in flight per warp at wmax warps, when the peak needs
 * `need` units in flight per SM (Little's law): at most 1. */
static double reached(double units, double wmax, double need)
{
    double f = units * wmax / need;

    return f < 1 ? f : 1;
}

void gc__guide_rule_mlp(const struct gc_results *r, struct gc_guide_item *it)
{
    struct gc_guide_need nd;
    const char *u = "";

    snprintf(it->topic, sizeof(it->topic), "loads in flight");
    snprintf(it->klass, sizeof(it->klass), "vectorization");
    if (r->meta.device.type != GC_DEVICE_GPU) {
        it->verdict = GC_GUIDE_UNKNOWN;
        snprintf(it->missing, sizeof(it->missing),
                 "not a GPU: its work-items are lanes of a loop, not warps that hide latency "
                 "by number (the vectorization rule speaks for it)");
        return;
    }
    if (!gc__guide_mem_need(r, it, &nd)) {
        it->verdict = GC_GUIDE_UNKNOWN;
        return;
    }
    /* One group load in flight per warp for the 4-byte stencil (the latency
     * model's group, methodology §26.3); a 16-byte access moves four of
     * them at once. */
    double need = nd.loads, wmax = nd.wmax, wide = WIDE_BYTES / 4;
    double f1 = reached(1, wmax, need), fw = reached(wide, wmax, need);
    /* A compute-bound stencil gains nothing from faster memory: its time
     * per point at the shares of the 4-byte bandwidth, where the profile
     * has that bandwidth and the arithmetic peak (else memory alone). */
    struct gc_guide_widths wd;
    double p = gc__guide_series_max(r, "compute.fp32.fma", "peak_ilp", &u), bw = 1;
    if (isfinite(p) && gc__guide_widths(r, &wd) && wd.bw4 > 0) {
        bw = wd.bw4;
        gc__guide_fig(it, "compute.fp32.fma", "peak_ilp", p, u);
        gc__guide_fig(it, wd.src, wd.n4, wd.bw4, "B/s");
    } else {
        p = NAN;
    }
    double t1 = gc__guide_point_time(bw * f1, p), tw = gc__guide_point_time(bw * fw, p);
    it->gain_pct = t1 / tw > 1 ? (t1 / tw - 1) * 100 : 0;
    it->verdict = gc__guide_verdict_of(it->gain_pct);
    snprintf(it->advice, sizeof(it->advice),
             "the memory peak needs %.0f loads of %.0f B in flight per SM (latency x peak rate); "
             "the scalar stencil's DRAM stream keeps one per warp, %.0f warps at most: %.0f%% of "
             "the peak; 16-byte accesses keep %.0f per warp: %.0f%%. %s",
             need, nd.unit, wmax, 100 * f1, wide, 100 * fw,
             it->verdict == GC_GUIDE_PAYS    ? "Load and store float4 (vec4): the warps an SM "
                                               "holds cannot hide the latency one float at a time"
             : it->verdict == GC_GUIDE_SMALL ? "Wider loads gain a little"
                                             : "The warps an SM holds already hide the latency");
}
