/* The ω-Jacobi variants of uCLbench §4.2 and the paper's Table 2 over their
 * measured times: the best version, its improvement over the baseline, the
 * primary optimization of a combined best and that optimization's own
 * contribution. Shared by the benchmark that measures the variants and by
 * the guide that reads them back from a saved profile. */
#ifndef GC_MODEL_JACOBI_H
#define GC_MODEL_JACOBI_H

#include <stdbool.h>
#include <stddef.h>

/* Manual caching of the working set in local (shared) memory. */
enum gc_jmc { GC_JMC_NONE, GC_JMC_DYN, GC_JMC_STAT };

/* The optimization classes of §4.2 (and "none" for the baseline). */
enum gc_jclass { GC_JCLASS_NONE, GC_JCLASS_VEC, GC_JCLASS_BE, GC_JCLASS_MC, GC_JCLASS_N };

struct gc_jvariant {
    int width;      /* points per work-item: 1, 4, 8, 16 (vectorization) */
    bool be;        /* branch elimination: interior-only kernel, fixed boundary */
    enum gc_jmc mc; /* manual caching */
};

#define GC_JACOBI_NVARIANTS 17

/* Variant i (0 the baseline), NULL out of range. */
const struct gc_jvariant *gc__jacobi_variant(int i);
/* The paper's name: "baseline", "vec8", "BE", "mcDyn", "vec8_BE_mcStat". */
void gc__jacobi_name(const struct gc_jvariant *v, char *buf, size_t len);
/* The index of the variant named name, -1 none. */
int gc__jacobi_find(const char *name);
/* The single-optimization variant of class c of v (vecW, BE, mcStat or
 * mcDyn), -1 when v has no optimization of that class. */
int gc__jacobi_single(const struct gc_jvariant *v, enum gc_jclass c);
/* "vectorization", "branch elimination", "manual caching", "none". */
const char *gc__jacobi_class_name(enum gc_jclass c);

/* Table 2 of the paper for one device. */
struct gc_jtable {
    int best;                  /* variant of the lowest time; -1 none measured */
    double improvement_pct;    /* (T_baseline / T_best - 1) x 100; NAN without a baseline */
    int primary;               /* single variant of the largest own effect when best
                                * combines optimizations; -1 otherwise */
    double contribution_pct;   /* (T_baseline / T_primary - 1) x 100; NAN without one */
    enum gc_jclass best_class; /* the class that carries the best version: its
                                * only optimization, its primary, or NONE */
    int measured;              /* variants with a finite time */
};

/* Table 2 from time[i] (seconds per relaxation step of variant i, NAN when
 * not measured), GC_JACOBI_NVARIANTS entries. */
void gc__jacobi_table(const double *time, struct gc_jtable *out);

#endif
