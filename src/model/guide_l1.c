/* The guide's L1-request rule (model/guide.h): uCLbench §4.3 reads the
 * optimizations off the characteristics that bound the kernel; where a
 * GPU's L1 rather than its DRAM bounds the scalar 5-point stencil, it is
 * the number of warp requests (and the 128-byte lines, wavefronts, each
 * touches) that vectorization cuts: vec4 moves the same bytes in 16-byte
 * pieces, four times fewer requests for the loads of u and f. This holds
 * even where DRAM bandwidth per access width is flat (the wide-loads
 * rule's figure), so the rule prices both: per point, the stencil's
 * requests and wavefronts (GC_GUIDE_REQ1 ... GC_GUIDE_WAVE4) at the
 * rates memory.bandwidth measured for the L1, its DRAM bytes at the
 * bandwidth per access width, its operations at the scalar peak; the
 * expected gain is the scalar time over vec4's. Class: vectorization. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/results.h"
#include "model/appwork.h"
#include "model/guide.h"

/* The L1's best 4-byte load bandwidth (memory.bandwidth, footprints the L1
 * serves), through the default path else the non-coherent one; NAN none. */
static double l1_4byte(const struct gc_results *r, const char **name)
{
    static const char *const series[] = {"load_default_vec4B", "load_nc_vec4B"};
    const struct gc_bench_result *b = gc__guide_bench(r, "memory.bandwidth");

    for (int k = 0; b && k < 2; k++) {
        const struct gc_series *s = gc__bench_find_series(b, series[k]);
        double best = NAN;

        for (int i = 0; s && i < s->npoints; i++)
            if (s->points[i].x <= GC_GUIDE_L1_FOOTPRINT && isfinite(s->points[i].y) &&
                s->points[i].y > 0 && !(s->points[i].y <= best))
                best = s->points[i].y;
        if (isfinite(best)) {
            *name = series[k];
            return best;
        }
    }
    return NAN;
}

struct l1_times {
    double wave1, req1, dram1, t1; /* scalar, seconds per point */
    double wave4, req4, dram4, t4; /* vec4 */
    double ops;                    /* the arithmetic, both */
};

static double max3(double a, double b, double c)
{
    double m = a;

    m = isfinite(b) && b > m ? b : m;
    return isfinite(c) && c > m ? c : m;
}

/* Per point: wavefronts at l1 / 128 B each, 4-byte requests at r4 / 128 B
 * (one line each), 16-byte ones at l1 / 512 B; NAN terms are unpriced. */
static void times(double l1, double r4, const struct gc_guide_widths *wd, double p,
                  struct l1_times *t)
{
    double wave = l1 / GC_APP_L1_LINE, q4 = r4 / GC_APP_L1_LINE, q16 = l1 / (4 * GC_APP_L1_LINE);

    t->wave1 = GC_GUIDE_WAVE1 / wave;
    t->wave4 = GC_GUIDE_WAVE4 / wave;
    t->req1 = GC_GUIDE_REQ1 / q4;
    t->req4 = GC_GUIDE_REQ4_F4 / q16 + GC_GUIDE_REQ4_F1 / q4;
    t->dram1 = GC_GUIDE_STENCIL_BYTES / wd->bw4;
    t->dram4 = GC_GUIDE_STENCIL_BYTES / wd->bww;
    t->ops = GC_GUIDE_STENCIL_OPS / p;
    t->t1 = max3(t->dram1, fmax(t->wave1, isfinite(t->req1) ? t->req1 : 0), t->ops);
    t->t4 = max3(t->dram4, fmax(t->wave4, isfinite(t->req4) ? t->req4 : 0), t->ops);
}

/* The inputs, as figures of it; false (verdict unknown, what to run) when
 * one it cannot do without is absent. */
static bool inputs(const struct gc_results *r, struct gc_guide_item *it, double *l1, double *r4,
                   struct gc_guide_widths *wd, double *p)
{
    const char *u = "", *n4 = "";
    bool wide = gc__guide_widths(r, wd);

    *l1 = gc__guide_metric(r, "memory.bandwidth", "l1_bandwidth", &u);
    if (!(*l1 > 0) || !wide) {
        it->verdict = GC_GUIDE_UNKNOWN;
        snprintf(it->missing, sizeof(it->missing), "%s%s%s",
                 *l1 > 0 ? "" : "no L1 bandwidth: run memory.bandwidth",
                 *l1 > 0 || wide ? "" : "; ",
                 wide ? "" : "no bandwidth per access width: run memory.coalescing");
        return false;
    }
    gc__guide_fig(it, "memory.bandwidth", "l1_bandwidth", *l1, u);
    *r4 = l1_4byte(r, &n4);
    if (isfinite(*r4)) {
        char nm[64];
        snprintf(nm, sizeof(nm), "%s[<= 64 KiB]", n4);
        gc__guide_fig(it, "memory.bandwidth", nm, *r4, "B/s");
    } else {
        snprintf(it->missing, sizeof(it->missing),
                 "no 4-byte L1 load figure (memory.bandwidth's load_default_vec4B at <= 64 KiB): "
                 "requests priced by their wavefronts only");
    }
    gc__guide_fig(it, wd->src, wd->n4, wd->bw4, "B/s");
    gc__guide_fig(it, wd->src, wd->nw, wd->bww, "B/s");
    *p = gc__guide_series_max(r, "compute.fp32.fma", "peak_ilp", &u);
    if (isfinite(*p))
        gc__guide_fig(it, "compute.fp32.fma", "peak_ilp", *p, u);
    return true;
}

void gc__guide_rule_l1(const struct gc_results *r, struct gc_guide_item *it)
{
    struct gc_guide_widths wd;
    struct l1_times t;
    double l1, r4, p;
    char req[80] = "", bound[80];

    snprintf(it->topic, sizeof(it->topic), "L1 requests");
    snprintf(it->klass, sizeof(it->klass), "vectorization");
    if (r->meta.device.type == GC_DEVICE_CPU) {
        it->verdict = GC_GUIDE_UNKNOWN;
        snprintf(it->advice, sizeof(it->advice),
                 "a CPU device serves its work-items' lanes, not warp requests of 128-byte "
                 "lines: the vectorization rule speaks for it");
        return;
    }
    if (!inputs(r, it, &l1, &r4, &wd, &p))
        return;
    times(l1, r4, &wd, p, &t);
    double l1_1 = fmax(t.wave1, isfinite(t.req1) ? t.req1 : 0);
    bool l1bound = l1_1 > t.dram1 && !(t.ops > l1_1);
    /* Only an L1-bound scalar stencil gains from fewer requests; what
     * wider accesses do to DRAM alone is the wide-loads rule's. */
    it->gain_pct = l1bound && t.t1 / t.t4 > 1 ? (t.t1 / t.t4 - 1) * 100 : 0;
    it->verdict = gc__guide_verdict_of(it->gain_pct);
    if (isfinite(t.req1))
        snprintf(req, sizeof(req), ", its requests %.3g ps at %.3g G 4-byte requests/s",
                 t.req1 * 1e12, r4 / GC_APP_L1_LINE * 1e-9);
    if (l1bound)
        snprintf(bound, sizeof(bound), "L1-bound");
    else
        snprintf(bound, sizeof(bound), "not L1-bound (the L1 at %.0f%% of the DRAM time)",
                 100 * l1_1 / t.dram1);
    int n = snprintf(it->advice, sizeof(it->advice),
                     "scalar stencil: %.2f L1 wavefronts a point (7 requests per 32 points, each "
                     "across two lines) take %.3g ps at %.3g G wavefronts/s (L1 bandwidth / 128 "
                     "B)%s, its %d B of DRAM traffic %.3g ps at the 4-byte bandwidth: %s. ",
                     GC_GUIDE_WAVE1, t.wave1 * 1e12, l1 / GC_APP_L1_LINE * 1e-9, req,
                     GC_GUIDE_STENCIL_BYTES, t.dram1 * 1e12, bound);
    if (n < 0 || (size_t)n >= sizeof(it->advice))
        return;
    snprintf(it->advice + n, sizeof(it->advice) - (size_t)n,
             "vec4: %.2f wavefronts a point, %.3g ps, DRAM %.3g ps at %d-byte accesses: %s",
             GC_GUIDE_WAVE4, fmax(t.wave4, isfinite(t.req4) ? t.req4 : 0) * 1e12, t.dram4 * 1e12,
             wd.ww,
             it->verdict == GC_GUIDE_PAYS    ? "load float4 (vec4), 4x fewer requests per byte"
             : it->verdict == GC_GUIDE_SMALL ? "fewer requests gain a little"
             : l1bound                       ? "vec4 is bound as tightly elsewhere, no gain"
                       : "fewer requests shorten nothing that bounds it (DRAM per access "
                         "width is the wide-loads rule's)");
}
