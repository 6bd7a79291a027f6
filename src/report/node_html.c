/* The node's HTML page: every device's identity and status, the summary of
 * the headline figures across the devices, the schedule, and the links'
 * heatmaps. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuchar/link.h"
#include "gpuchar/node.h"
#include "report/html.h"
#include "report/outfile.h"

static void cell(FILE *f, const char *s)
{
    fputs("<td>", f);
    gc__html_esc(f, s);
    fputs("</td>", f);
}

static void numcell(FILE *f, double v, const char *fmt)
{
    if (isfinite(v))
        fprintf(f, fmt, v);
    else
        fputs("<td>-</td>", f);
}

static void devices(const struct gc_node *n, FILE *f)
{
    char buf[64];

    fputs("<h2>Devices</h2>\n<table>\n<tr><th>device</th><th>name</th><th>status</th>"
          "<th>PCI</th><th>NUMA</th><th>UUID</th><th>driver</th><th>ECC</th></tr>\n",
          f);
    for (int i = 0; i < n->ndevices; i++) {
        const struct gc_node_device *d = &n->devices[i];

        fputs("<tr>", f);
        cell(f, d->spec);
        cell(f, d->name);
        snprintf(buf, sizeof(buf), "%s", d->lost ? "lost" : !d->results || d->rc ? "failed" : "ok");
        fputs("<td>", f);
        gc__html_esc(f, buf);
        if (d->message[0]) {
            fputs(": ", f);
            gc__html_esc(f, d->message);
        }
        fputs("</td>", f);
        cell(f, d->id.pci);
        snprintf(buf, sizeof(buf), "%d", d->id.numa_node);
        cell(f, d->id.numa_node < 0 ? "-" : buf);
        cell(f, d->id.uuid);
        cell(f, d->id.driver);
        cell(f, d->id.ecc < 0 ? "-" : d->id.ecc ? "on" : "off");
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void summary(const struct gc_node *n, FILE *f)
{
    fprintf(f,
            "<h2>Across the devices</h2>\n<p>spread = (max - min) / median; flagged above "
            "%.0f%% or where the fleet analysis flags a device.</p>\n",
            100 * n->flag_spread);
    fputs("<table>\n<tr><th>figure</th><th>unit</th><th>median</th><th>min</th><th>max</th>"
          "<th>spread</th><th>deviates</th></tr>\n",
          f);
    for (int i = 0; i < n->nfigures; i++) {
        const struct gc_node_figure *g = &n->figures[i];

        fputs(g->flagged ? "<tr class=\"bad\">" : "<tr>", f);
        cell(f, g->key);
        cell(f, g->unit);
        numcell(f, g->median, "<td>%.5g</td>");
        numcell(f, g->min, "<td>%.5g</td>");
        numcell(f, g->max, "<td>%.5g</td>");
        numcell(f, isfinite(g->spread) ? 100 * g->spread : NAN, "<td>%.1f%%</td>");
        cell(f, g->deviant >= 0 && g->deviant < n->ndevices ? n->devices[g->deviant].spec : "-");
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void schedule(const struct gc_node *n, FILE *f)
{
    char res[64];

    fputs("<h2>Schedule</h2>\n<table>\n<tr><th>benchmark</th><th>ran</th><th>shares</th></tr>\n",
          f);
    for (int i = 0; i < n->nsched; i++) {
        fputs("<tr>", f);
        cell(f, n->sched[i].bench);
        cell(f, n->sched[i].concurrent ? "on every device at once" : "one device at a time");
        cell(f, gc_resource_names(n->sched[i].resources, res, sizeof(res)));
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static int links(const struct gc_node *n, FILE *f)
{
    fputs("<h2>Links</h2>\n", f);
    if (!n->links) {
        fputs("<p>", f);
        gc__html_esc(f, n->links_note[0] ? n->links_note : "not measured: no reason given");
        fputs("</p>\n", f);
        return 0;
    }
    return gc_write_link_html(n->links, f);
}

int gc_write_node_html(const struct gc_node *n, const char *path, char *err, size_t errlen)
{
    struct gc_outfile of;
    char sub[512];
    int rc = gc__outfile_open(path, &of, err, errlen);

    if (rc)
        return rc;
    snprintf(sub, sizeof(sub), "%d devices on %s, %s profile, %s%s", n->ndevices, n->host,
             n->profile, n->date, n->complete ? "" : " (incomplete)");
    gc__html_page_start(of.f, "gpuchar node report", sub);
    devices(n, of.f);
    summary(n, of.f);
    schedule(n, of.f);
    rc = links(n, of.f);
    gc__html_page_end(of.f, n->command_line);
    if (rc || ferror(of.f)) {
        gc__outfile_abort(&of);
        return rc ? rc : GC_EIO;
    }
    return gc__outfile_commit(&of, err, errlen);
}
