/* Reading the performance benchmarks' configurations back from the results
 * tree (bench/launchcfg.h): what more than one family reads alike. */
#include <string.h>

#include "bench/launchcfg.h"

int gc__ldpath_named(const char *ptx)
{
    for (int ld = GC_LD_DEFAULT; ptx && ld <= GC_LD_PF256; ld++)
        if (strcmp(gc__ldpath_ptx((enum gc_ldpath)ld), ptx) == 0)
            return ld;
    return -1;
}

bool gc__elem_read(const struct gc_bench_result *from, struct gc_best_elem *c,
                   struct gc_cfg_pick *p)
{
    if (gc__config_int(from, NULL, "elem_bytes", &c->elem_bytes) &&
        gc__config_int(from, NULL, "blocks_per_cu", &c->blocks_per_cu))
        return true;
    gc__cfg_refuse(p, "its result records no element size and blocks per CU");
    return false;
}
