/* gpuchar public API: the guide of uCLbench §4, read from a saved profile
 * without a device. Rules over the measured characteristics (compute
 * throughput per vector width, the global-memory latency staircase, local
 * against global memory, the branch penalty's variance, the occupancy a
 * memory-bound kernel needs) say which hand optimizations should pay off on
 * the device and by roughly how much, each with the figures it rests on;
 * where the profile holds application.jacobi, the predicted best class is
 * set beside the measured one. 'gpuchar guide' uses nothing but this header
 * and gpuchar.h. The rules and thresholds are in docs/methodology.md. */
#ifndef GPUCHAR_GUIDE_H
#define GPUCHAR_GUIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gpuchar.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a rule says of its optimization. */
enum gc_guide_verdict {
    GC_GUIDE_UNKNOWN, /* its inputs are missing */
    GC_GUIDE_NONE,    /* no gain expected */
    GC_GUIDE_SMALL,   /* a few percent at most */
    GC_GUIDE_PAYS,    /* expected to pay off */
    GC_GUIDE_INFO     /* a constraint on the others, not an optimization */
};

/* A figure a rule rests on: "compute.fp32.fma:peak_vec4" (a series' best
 * point) or "memory.shared:shared_latency_cycles" (a metric). */
struct gc_guide_fig {
    char name[96];
    double value;
    char unit[32];
};

#define GC_GUIDE_MAX_FIGS 6
#define GC_GUIDE_MAX_ITEMS 7

struct gc_guide_item {
    char topic[32]; /* "vectorization", "manual caching", "branch elimination",
                     * "wide loads", "L1 requests", "occupancy" */
    char klass[32]; /* the optimization class its gain counts for ("wide loads", "L1 requests":
                     * "vectorization"); "" for a constraint */
    enum gc_guide_verdict verdict;
    double gain_pct; /* expected gain on the kernel's time, upper estimate; NAN none */
    char advice[512];
    char missing[256]; /* the inputs absent and what to run, "" when none */
    struct gc_guide_fig figs[GC_GUIDE_MAX_FIGS];
    int nfigs;
};

/* The prediction beside application.jacobi's measurement. */
struct gc_guide_check {
    char bench[64];         /* the application benchmark: "application.jacobi" */
    bool present;           /* the profile holds its times */
    char best[32];          /* measured best version */
    double improvement_pct; /* over the baseline */
    char primary[32];       /* primary optimization of a combined best, "" none */
    double contribution_pct;
    char measured_class[32]; /* "vectorization", ..., "none" */
    bool hit;                /* predicted class == measured class */
    char why[256];           /* how a miss or a weak hit reads in the figures */
};

struct gc_guide {
    char device[256];
    char backend[16];
    struct gc_guide_item items[GC_GUIDE_MAX_ITEMS];
    int nitems;
    char predicted_class[32]; /* the class (klass) of the largest expected gain,
                               * "none" when no rule expects one to pay */
    double predicted_gain_pct;
    struct gc_guide_check jacobi;
};

/* Applies the rules to results r. Returns 0, or GC_EINVAL when r holds
 * none of the benchmarks the rules read (err says which to run). */
GC_EXTERN int gc_guide(const struct gc_results *r, struct gc_guide *out, char *err, size_t errlen);

/* The guide as aligned text. */
GC_EXTERN int gc_write_guide_text(const struct gc_guide *g, FILE *f);
/* The guide as a JSON document (docs/schema.md, "The guide"); "-" is
 * standard output. GC_EIO when PATH cannot be written. */
GC_EXTERN int gc_write_guide_json(const struct gc_guide *g, const char *path);

#ifdef __cplusplus
}
#endif

#endif
