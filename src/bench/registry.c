/* The benchmark table and catalogue queries. Adding a benchmark adds its file
 * and one line here (a single benchmark or a family generated from data). */
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

extern const struct gc_bench_family gc__compute_family;
extern const struct gc_bench gc__bench_coalescing;
extern const struct gc_bench gc__bench_shared;
extern const struct gc_bench gc__bench_constant;
extern const struct gc_bench gc__bench_atomics;
extern const struct gc_bench_family gc__family_dram;
extern const struct gc_bench gc__bench_cachebw;
extern const struct gc_bench gc__bench_copykernel;
extern const struct gc_bench_family gc__family_mma;
extern const struct gc_bench_family gc__bench_chase_family;
extern const struct gc_bench gc__bench_hiding_params;
extern const struct gc_bench_family gc__family_hiding_mix;
extern const struct gc_bench_family gc__family_energy;
extern const struct gc_bench_family gc__family_transfer;
extern const struct gc_bench_family gc__family_launch;
extern const struct gc_bench gc__bench_compile;
extern const struct gc_bench gc__bench_alloc;
extern const struct gc_bench gc__bench_divergence;
extern const struct gc_bench_family gc__family_link;

/* application.jacobi */
extern const struct gc_bench gc__bench_jacobi;

/* application.* */
extern const struct gc_bench gc__bench_polybench;

static const struct gc_bench *const singles[] = {
    &gc__bench_cachebw,
    &gc__bench_copykernel,
    &gc__bench_coalescing,
    &gc__bench_shared,
    &gc__bench_constant,
    &gc__bench_atomics,
    &gc__bench_hiding_params,
    &gc__bench_divergence,
    &gc__bench_compile,
    &gc__bench_alloc,
    /* application.jacobi */
    &gc__bench_jacobi,

    /* application.* */
    &gc__bench_polybench,
    NULL,
};

static const struct gc_bench_family *const families[] = {
    &gc__compute_family,    &gc__family_dram,
    &gc__family_mma,        &gc__bench_chase_family,
    &gc__family_hiding_mix, &gc__family_energy,
    &gc__family_launch,     &gc__family_transfer,
    &gc__family_link,       NULL,
};

const struct gc_bench *gc__bench_at(int i)
{
    if (i < 0)
        return NULL;
    for (int k = 0; singles[k]; k++, i--)
        if (i == 0)
            return singles[k];
    for (int f = 0; families[f]; f++) {
        int n = families[f]->count();

        if (i < n)
            return families[f]->at(i);
        i -= n;
    }
    return NULL;
}

const struct gc_bench *gc__bench_find(const char *name)
{
    const struct gc_bench *b;

    for (int i = 0; name && (b = gc__bench_at(i)); i++)
        if (strcmp(b->info.name, name) == 0)
            return b;
    return NULL;
}

int gc_bench_count(void)
{
    int n = 0;

    while (gc__bench_at(n))
        n++;
    return n;
}

const struct gc_bench_info *gc_bench_get(int i)
{
    const struct gc_bench *b = gc__bench_at(i);

    return b ? &b->info : NULL;
}
