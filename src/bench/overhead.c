/* Helpers shared by the runtime-overhead benchmarks (see overhead.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/overhead.h"
#include "core/results.h"
#include "core/stats.h"
#include "model/link.h"

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

void gc__device_link(struct gc_device *d, struct gc_link_info *info, double *limit, char *note,
                     size_t notelen)
{
    int rc = GC_ENOTSUP;

    memset(info, 0, sizeof(*info));
    if (d->ops->link_info)
        rc = d->ops->link_info(d->dev, info);
    if (rc)
        rc = gc__link_from_sysfs(d->info.pci_bus_id, info);
    *limit = rc ? NAN : gc__link_limit(info);
    if (!isfinite(*limit)) {
        snprintf(note, notelen, "host link unknown (%s)",
                 d->info.pci_bus_id[0] ? "neither the driver nor sysfs reports it"
                                       : "the device has no PCI bus id");
        return;
    }
    int gen = info->gen_max > info->gen_cur ? info->gen_max : info->gen_cur;
    int width = info->width_max > info->width_cur ? info->width_max : info->width_cur;
    snprintf(note, notelen,
             "PCIe gen %d x%d (%s; now gen %d x%d): %g GT/s x %d lanes x %s / 8 = %.1f GB/s "
             "per direction",
             gen, width, info->source, info->gen_cur, info->width_cur, gc__pcie_gts(gen), width,
             gen <= 2   ? "8/10"
             : gen <= 5 ? "128/130"
                        : "242/256",
             *limit * 1e-9);
}

double gc__mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
