/* The host resources each catalogue entry declares (gpuchar/node.h). */
#include "bench/bench.h"

unsigned gc_bench_resources(int i)
{
    const struct gc_bench *b = gc__bench_at(i);

    return b ? b->resources : 0;
}
