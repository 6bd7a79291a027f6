/* Helpers shared by the runtime-overhead benchmarks (see overhead.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/overhead/overhead.h"
#include "core/results.h"
#include "core/stats.h"

int gc__add_percentile_metrics(struct gc_bench_result *r, const char *name, const double *x, int n,
                               const char *unit, const char *note)
{
    static const double p[3] = {5, 95, 99};
    static const char *const suffix[3] = {"_p5", "_p95", "_p99"};
    static const char *const ord[3] = {"5th", "95th", "99th"};
    double v[3];
    struct gc_stats st;
    char mname[64];

    gc__stats_compute(x, n, &st);
    if (!gc__bench_add_metric(r, name, st.median, unit, NAN, &st, note))
        return GC_ENOMEM;
    gc__percentiles(x, n, p, 3, v);
    for (int i = 0; i < 3; i++) {
        char pn[96];

        snprintf(mname, sizeof(mname), "%s%s", name, suffix[i]);
        snprintf(pn, sizeof(pn), "%s percentile of %d samples", ord[i], n);
        if (!gc__bench_add_metric(r, mname, v[i], unit, NAN, NULL, pn))
            return GC_ENOMEM;
    }
    return 0;
}

double gc__mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
