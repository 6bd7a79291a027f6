/* Helpers of the benchmark description: freeing the kernels it declares and
 * matching its name against the patterns of a run or a report. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/benchdef.h"

void gc__ksrc_free(struct gc_ksrc *k, int n)
{
    if (!k)
        return;
    for (int i = 0; i < n; i++)
        free(k[i].src);
    free(k);
}

bool gc_bench_matches(const char *pattern, const char *name, const char *group)
{
    if (!pattern || !name)
        return false;
    if (strpbrk(pattern, "*?["))
        return fnmatch(pattern, name, 0) == 0;
    return strcmp(pattern, name) == 0 || (group && strcmp(pattern, group) == 0);
}

bool gc_bench_selects(const char *pattern, const struct gc_bench_info *b)
{
    if (!b)
        return false;
    if (gc_bench_matches(pattern, b->name, b->group))
        return true;
    return pattern && b->alias && !strpbrk(pattern, "*?[") && strcmp(pattern, b->alias) == 0;
}
