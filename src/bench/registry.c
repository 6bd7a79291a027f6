/* The benchmark table and catalogue queries. */
#include <fnmatch.h>
#include <string.h>

#include "bench/bench.h"

extern const struct gc_bench gc__bench_copy;
extern const struct gc_bench gc__bench_fma_fp32;

const struct gc_bench *const gc__benches[] = {
    &gc__bench_copy,
    &gc__bench_fma_fp32,
    NULL,
};

int gc_bench_count(void)
{
    int n = 0;

    while (gc__benches[n])
        n++;
    return n;
}

const struct gc_bench_info *gc_bench_get(int i)
{
    if (i < 0 || i >= gc_bench_count())
        return NULL;
    return &gc__benches[i]->info;
}

bool gc_bench_matches(const char *pattern, const char *name, const char *group)
{
    if (!pattern || !name)
        return false;
    if (strpbrk(pattern, "*?["))
        return fnmatch(pattern, name, 0) == 0;
    return strcmp(pattern, name) == 0 || (group && strcmp(pattern, group) == 0);
}
