/* gc_run(): the run loop of the core over every registered benchmark. */
#include <stdlib.h>

#include "bench/bench.h"
#include "core/run.h"

int gc_run(gc_context *ctx, const struct gc_run_options *o, struct gc_results **out)
{
    int n = gc_bench_count();
    const struct gc_bench **list = malloc((size_t)(n > 0 ? n : 1) * sizeof(*list));
    int rc;

    *out = NULL;
    if (!list)
        return GC_ENOMEM;
    for (int i = 0; i < n; i++)
        list[i] = gc__bench_at(i);
    rc = gc__run_benches(ctx, o, list, n, out);
    free(list);
    return rc;
}
