/* The guide's rules (include/gpuchar/guide.h), one per optimization, over
 * a results tree; model/guide.c combines them. */
#ifndef GC_MODEL_GUIDE_H
#define GC_MODEL_GUIDE_H

#include "gpuchar/guide.h"

/* Thresholds (docs/methodology.md, "The guide"). */
#define GC_GUIDE_PAYS_PCT 25.0 /* an expected gain this large pays off */
#define GC_GUIDE_SMALL_PCT 5.0 /* ... this large is small; below, none */
/* A measured improvement below this is no class's: the threshold the
 * prediction is made with, so that both sides say "pays off" alike. */
#define GC_GUIDE_MEASURED_PCT GC_GUIDE_PAYS_PCT
#define GC_GUIDE_CACHED 0.5       /* smallest-footprint latency / largest: cached below */
#define GC_GUIDE_LOCAL 0.5        /* local latency / cache-hit latency: local pays below */
#define GC_GUIDE_VARIANCE 2.0     /* branch-penalty spread (max / min): high from here */
#define GC_GUIDE_STENCIL_LOADS 5  /* loads of u per point of the 5-point stencil */
#define GC_GUIDE_STENCIL_OPS 6    /* fp32 operations per interior point */
#define GC_GUIDE_STENCIL_BYTES 12 /* DRAM bytes per point: u and f read, un written */
/* The 5-point stencil's L1 requests per point as application.jacobi's
 * generator issues them on a GPU (bench/jacobi/jacobi_wave.c; a warp of 32
 * consecutive points, away from the grid's edges). Scalar: 7 requests per
 * 32 points (5 loads of u, f, the store), each straddling two 128-byte
 * lines (the grid's 3-float offset). vec4: 5 float4 requests per 128
 * points (u, the rows above and below, f, the store), 4.5 lines each on
 * average (rows start on a line or half a line from one), and 2 scalar
 * requests of lanes 16 bytes apart (the outer neighbours), 5 lines each. */
#define GC_GUIDE_REQ1 (7.0 / 32)      /* 4-byte requests per point, scalar */
#define GC_GUIDE_WAVE1 (14.0 / 32)    /* wavefronts per point, scalar */
#define GC_GUIDE_REQ4_F4 (5.0 / 128)  /* 16-byte requests per point, vec4 */
#define GC_GUIDE_REQ4_F1 (2.0 / 128)  /* 4-byte requests per point, vec4 */
#define GC_GUIDE_WAVE4 (32.5 / 128)   /* wavefronts per point, vec4 */
#define GC_GUIDE_L1_FOOTPRINT 65536.0 /* memory.bandwidth footprints the L1 serves */

/* A benchmark's row when it ran (ok or interrupted: its figures are
 * numbers); NULL otherwise. */
const struct gc_bench_result *gc__guide_bench(const struct gc_results *r, const char *bench);
/* A figure's value by "bench:metric" or "bench:series" (the series' best
 * point); NAN when absent. */
double gc__guide_metric(const struct gc_results *r, const char *bench, const char *metric,
                        const char **unit);
double gc__guide_series_max(const struct gc_results *r, const char *bench, const char *series,
                            const char **unit);
/* The smallest-footprint and largest-footprint points of a staircase
 * series (false when it has fewer than two points). */
bool gc__guide_series_ends(const struct gc_results *r, const char *bench, const char *series,
                           double *first, double *last);
/* Adds a figure to it (silently full). */
void gc__guide_fig(struct gc_guide_item *it, const char *bench, const char *name, double value,
                   const char *unit);
/* verdict from an expected gain. */
enum gc_guide_verdict gc__guide_verdict_of(double gain_pct);

/* DRAM bandwidth at 4-byte accesses and at the widest width measured
 * above (ww bytes), with the benchmark and the figures' names: memory.
 * coalescing's access-size copy, else memory.dram.read's per-width series
 * (model/guide_wide.c). false when the profile has neither. */
struct gc_guide_widths {
    double bw4, bww;
    int ww;
    const char *src;
    char n4[64], nw[64];
};
bool gc__guide_widths(const struct gc_results *r, struct gc_guide_widths *w);
/* The stencil's time per point at DRAM bandwidth bw (B/s) and arithmetic
 * peak p (NAN: memory alone): max(12 B / bw, 6 ops / p). */
double gc__guide_point_time(double bw, double p);

/* What the memory peak needs in flight (hiding.params, Little's law): loads
 * = latency x the peak's group loads per clock (one memory instruction of
 * a warp, unit bytes: 4 per lane), with the warps an SM holds. Adds the
 * figures to it; false (it->missing says what to run) without them. */
struct gc_guide_need {
    double loads; /* group loads in flight per SM the peak needs */
    double unit;  /* bytes of one group load (mem_bytes_per_inst) */
    double wmax;  /* warps (groups) an SM holds */
};
bool gc__guide_mem_need(const struct gc_results *r, struct gc_guide_item *it,
                        struct gc_guide_need *out);

void gc__guide_rule_vec(const struct gc_results *r, struct gc_guide_item *it);
void gc__guide_rule_mc(const struct gc_results *r, struct gc_guide_item *it);
void gc__guide_rule_be(const struct gc_results *r, struct gc_guide_item *it);
void gc__guide_rule_wide(const struct gc_results *r, struct gc_guide_item *it);
void gc__guide_rule_l1(const struct gc_results *r, struct gc_guide_item *it);
void gc__guide_rule_occ(const struct gc_results *r, struct gc_guide_item *it);
void gc__guide_rule_mlp(const struct gc_results *r, struct gc_guide_item *it);

#endif
