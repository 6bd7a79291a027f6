/* gc_results_declare(): the report declarations of this gpuchar's
 * benchmarks for results that carry none (files older than the record). */
#include "bench/bench.h"
#include "core/present.h"

int gc_results_declare(struct gc_results *r)
{
    for (int i = 0; r && i < r->nbenches; i++) {
        struct gc_bench_result *res = &r->benches[i];
        const struct gc_bench *b = res->report ? NULL : gc__bench_find(res->name);
        int rc = b ? gc__report_pack(b->report, &res->report) : 0;

        if (rc)
            return rc;
    }
    return 0;
}
