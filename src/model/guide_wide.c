/* The guide's wide-loads rule (model/guide.h): vectorizing a memory-bound
 * stencil moves its data in wider accesses, and the device's own bandwidth
 * per access width says what that is worth. A work-item of the 5-point
 * stencil does one point's few loads and leaves; with floatW it moves W
 * times the bytes per load and per work-item in flight. The copy of
 * memory.coalescing's access-size series (four accesses per thread, one
 * pass, the same kernel at each width) has the same shape: its bandwidth
 * at 16-byte accesses over its bandwidth at 4-byte ones bounds what the
 * stencil's DRAM traffic gains, the roofline with the scalar arithmetic
 * peak says whether the stencil is memory-bound at all. Class:
 * vectorization. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/results.h"
#include "model/guide.h"

/* Bandwidth at access width 4 bytes and at the widest width measured above
 * it, from one series; false when either is absent. */
static bool widths_of(const struct gc_series *s, double *bw4, double *bww, int *ww)
{
    *bw4 = *bww = NAN;
    *ww = 0;
    for (int i = 0; s && i < s->npoints; i++) {
        const struct gc_point *p = &s->points[i];

        if (!isfinite(p->y) || !(p->y > 0))
            continue;
        if (p->x == 4)
            *bw4 = p->y;
        else if (p->x > 4 && p->x > *ww) {
            *ww = (int)p->x;
            *bww = p->y;
        }
    }
    return isfinite(*bw4) && isfinite(*bww);
}

/* memory.dram.read's per-width series: the best point of bandwidth_vec4B
 * and of the widest bandwidth_vecNB above it. */
static bool dram_widths(const struct gc_results *r, double *bw4, double *bww, int *ww)
{
    static const int w[] = {32, 16, 8};

    *bw4 = gc__guide_series_max(r, "memory.dram.read", "bandwidth_vec4B", NULL);
    *bww = NAN;
    *ww = 0;
    for (int i = 0; i < 3 && !isfinite(*bww); i++) {
        char s[32];

        snprintf(s, sizeof(s), "bandwidth_vec%dB", w[i]);
        *bww = gc__guide_series_max(r, "memory.dram.read", s, NULL);
        *ww = w[i];
    }
    return isfinite(*bw4) && isfinite(*bww);
}

/* The roofline time of one stencil point (arbitrary unit) at bandwidth bw
 * and arithmetic peak p (NAN: memory alone). */
double gc__guide_point_time(double bw, double p)
{
    double tm = GC_GUIDE_STENCIL_BYTES / bw, tc = GC_GUIDE_STENCIL_OPS / p;

    return isfinite(tc) && tc > tm ? tc : tm;
}

bool gc__guide_widths(const struct gc_results *r, struct gc_guide_widths *w)
{
    const struct gc_bench_result *cb = gc__guide_bench(r, "memory.coalescing");
    const char *ser = "bandwidth_vs_access_size";

    memset(w, 0, sizeof(*w));
    w->src = "memory.coalescing";
    if (cb && widths_of(gc__bench_find_series(cb, ser), &w->bw4, &w->bww, &w->ww)) {
        snprintf(w->n4, sizeof(w->n4), "%s[4 B]", ser);
        snprintf(w->nw, sizeof(w->nw), "%s[%d B]", ser, w->ww);
        return true;
    }
    if (!dram_widths(r, &w->bw4, &w->bww, &w->ww))
        return false;
    w->src = "memory.dram.read";
    snprintf(w->n4, sizeof(w->n4), "bandwidth_vec4B[best]");
    snprintf(w->nw, sizeof(w->nw), "bandwidth_vec%dB[best]", w->ww);
    return true;
}

void gc__guide_rule_wide(const struct gc_results *r, struct gc_guide_item *it)
{
    struct gc_guide_widths wd;
    const char *u = "";
    double p;

    snprintf(it->topic, sizeof(it->topic), "wide loads");
    snprintf(it->klass, sizeof(it->klass), "vectorization");
    if (!gc__guide_widths(r, &wd)) {
        it->verdict = GC_GUIDE_UNKNOWN;
        snprintf(it->missing, sizeof(it->missing),
                 "no bandwidth per access width: run memory.coalescing (or memory.dram.read)");
        return;
    }
    const char *src = wd.src;
    double bw4 = wd.bw4, bww = wd.bww;
    int ww = wd.ww;
    gc__guide_fig(it, src, wd.n4, bw4, "B/s");
    gc__guide_fig(it, src, wd.nw, bww, "B/s");
    p = gc__guide_series_max(r, "compute.fp32.fma", "peak_ilp", &u);
    if (isfinite(p))
        gc__guide_fig(it, "compute.fp32.fma", "peak_ilp", p, u);
    else
        snprintf(it->missing, sizeof(it->missing),
                 "no scalar arithmetic peak (run compute.fp32.fma): the stencil taken as "
                 "memory-bound");
    double t4 = gc__guide_point_time(bw4, p), tw = gc__guide_point_time(bww, p);
    bool membound = !(GC_GUIDE_STENCIL_OPS / p > GC_GUIDE_STENCIL_BYTES / bw4);
    it->gain_pct = t4 / tw > 1 ? (t4 / tw - 1) * 100 : 0;
    it->verdict = gc__guide_verdict_of(it->gain_pct);
    char what[160];
    snprintf(what, sizeof(what),
             "load and store %d floats per access (vec%d; wider vectors "
             "move the same pieces and cost registers)",
             ww / 4, ww / 4);
    snprintf(it->advice, sizeof(it->advice),
             "%d-byte accesses move %.2fx the bytes per second of 4-byte ones (%s); the 5-point "
             "stencil does %d operations per %d bytes of DRAM traffic, %s (the ridge, scalar "
             "peak / 4-byte bandwidth: %.2f ops/B): %s",
             ww, bww / bw4, src, GC_GUIDE_STENCIL_OPS, GC_GUIDE_STENCIL_BYTES,
             membound ? "memory-bound" : "compute-bound", isfinite(p) ? p / bw4 : NAN,
             it->verdict == GC_GUIDE_PAYS    ? what
             : it->verdict == GC_GUIDE_SMALL ? "wider loads gain a little"
             : membound ? "4-byte accesses already reach the bandwidth, no gain from wider loads"
                        : "wider loads do not shorten a compute-bound step");
}
