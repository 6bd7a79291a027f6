/* The node's text report: the node, each device's identity and whole
 * report, which benchmarks ran concurrently and which one device at a time,
 * the links and the summary of the headline figures across the devices. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuchar/node.h"
#include "report/node_links.h"
#include "report/node_phases.h"

static const char *dstatus(const struct gc_node_device *d)
{
    return d->lost                                       ? "LOST"
           : !d->results || (d->rc && d->rc != GC_EINTR) ? "FAILED"
           : d->rc == GC_EINTR                           ? "interrupted"
                                                         : "ok";
}

static void identity(const struct gc_node_device *d, FILE *f)
{
    fprintf(f, "  status   %s%s%s\n", dstatus(d), d->message[0] ? ": " : "", d->message);
    char numa[16] = "unknown";

    if (d->id.numa_node >= 0)
        snprintf(numa, sizeof(numa), "%d", d->id.numa_node);
    fprintf(f, "  PCI      %s   NUMA node %s\n", d->id.pci[0] ? d->id.pci : "unknown", numa);
    fprintf(f, "  UUID     %s\n", d->id.uuid[0] ? d->id.uuid : "unknown");
    fprintf(f, "  driver   %s   ECC %s\n", d->id.driver[0] ? d->id.driver : "unknown",
            d->id.ecc < 0 ? "unknown"
            : d->id.ecc   ? "on"
                          : "off");
    if (d->id.max_sm_clock_mhz > 0)
        fprintf(f, "  clocks   SM %.0f MHz maximum", d->id.max_sm_clock_mhz);
    if (d->id.max_sm_clock_mhz > 0 && d->id.max_mem_clock_mhz > 0)
        fprintf(f, ", memory %.0f MHz maximum", d->id.max_mem_clock_mhz);
    if (d->id.max_sm_clock_mhz > 0)
        fputc('\n', f);
}

static void schedule(const struct gc_node *n, FILE *f)
{
    int nconc = 0;
    char res[64];

    fprintf(f, "\n== Schedule ==\n");
    for (int i = 0; i < n->nsched; i++)
        nconc += n->sched[i].concurrent;
    fprintf(f, "concurrently on every device: %d benchmark%s\n", nconc, nconc == 1 ? "" : "s");
    fprintf(f, "one device at a time: %d benchmark%s\n", n->nsched - nconc,
            n->nsched - nconc == 1 ? "" : "s");
    for (int i = 0; i < n->nsched; i++)
        if (!n->sched[i].concurrent)
            fprintf(f, "  %-36s %s\n", n->sched[i].bench,
                    gc_resource_names(n->sched[i].resources, res, sizeof(res)));
}

static void summary(const struct gc_node *n, FILE *f)
{
    fprintf(f, "\n== Across the devices: every headline figure ==\n");
    fprintf(f,
            "(spread = (max - min) / median; '!' when above %.0f%% or the fleet analysis "
            "flags a device)\n",
            100 * n->flag_spread);
    fprintf(f, "%-52s %-10s %12s %12s %12s %8s  %s\n", "figure", "unit", "median", "min", "max",
            "spread", "deviates");
    for (int i = 0; i < n->nfigures; i++) {
        const struct gc_node_figure *g = &n->figures[i];

        fprintf(f, "%-52.52s %-10.10s %12.5g %12.5g %12.5g %7.1f%%%s %s\n", g->key, g->unit,
                g->median, g->min, g->max, isfinite(g->spread) ? 100 * g->spread : NAN,
                g->flagged ? "!" : " ",
                g->deviant >= 0 && g->deviant < n->ndevices ? n->devices[g->deviant].spec : "-");
    }
}

int gc_write_node_text(const struct gc_node *n, FILE *f)
{
    fprintf(f, "gpuchar %s node report: %d device%s on %s, %s profile, %.1f s%s\n", n->tool_version,
            n->ndevices, n->ndevices == 1 ? "" : "s", n->host, n->profile, n->wall_s,
            n->complete ? "" : " (INCOMPLETE)");
    for (int i = 0; i < n->ndevices; i++) {
        const struct gc_node_device *d = &n->devices[i];

        fprintf(f, "\n== Device %s: %s ==\n", d->spec, d->name);
        identity(d, f);
        if (d->results) {
            fputc('\n', f);
            if (gc_write_text(d->results, f) < 0)
                return GC_EIO;
        }
    }
    schedule(n, f);
    gc__node_phases_text(n, f);
    fprintf(f, "\n== Links ==\n");
    if (n->links && gc__node_links_text(n->links, f) < 0)
        return GC_EIO;
    if (!n->links)
        fprintf(f, "%s\n", n->links_note[0] ? n->links_note : "not measured: no reason given");
    summary(n, f);
    fflush(f);
    return ferror(f) ? GC_EIO : 0;
}
