/* Which launch an energy benchmark meters, at which configuration: energy.X
 * finds benchmark X's result in this run's results tree and asks X's
 * description (its launch_at hook) to build the launch of the configuration
 * X wrote there; when X did not run in this run, or did not complete, X's
 * default configuration is built and the note says why. */
#include <stdio.h>
#include <string.h>

#include "bench/energy/energy.h"
#include "core/results.h"

void gc__en_config_ask(const struct gc_session *s, const struct eparam *p, int warps,
                       struct gc_config_ask *ask, char *why, size_t len)
{
    const struct gc_bench_result *r = gc__results_find(s->results, p->bench);

    memset(ask, 0, sizeof(*ask));
    why[0] = '\0';
    ask->part = p->part;
    ask->warps = warps;
    ask->why_default = why;
    if (warps > 0)
        snprintf(why, len, "is not used at a point of the occupancy sweep");
    else if (!r)
        snprintf(why, len, "did not run in this run");
    else if (r->status == GC_BENCH_OK)
        ask->from = r;
    else
        snprintf(why, len, "%s in this run",
                 r->status == GC_BENCH_ERROR           ? "failed"
                 : r->status == GC_BENCH_NOT_AVAILABLE ? "was not available"
                                                       : "did not complete");
}

int gc__en_build(struct gc_session *s, const struct eparam *p, int warps, struct gc_meter_launch *w)
{
    const struct gc_bench *perf = gc__bench_find(p->bench);
    struct gc_config_ask ask;
    char why[96];

    if (!perf || !perf->launch_at) {
        snprintf(w->why, sizeof(w->why), "%s has no kernel launch to meter in this build",
                 p->bench);
        return GC_ENOTSUP;
    }
    gc__en_config_ask(s, p, warps, &ask, why, sizeof(why));
    return perf->launch_at(s, perf, &ask, w);
}
