/* The nodes' CSV: one row per node with its identity, topology, whether it
 * is flagged, and every link figure (a column "<row>/<i>-><j> [unit]" each;
 * empty where the node has no value). */
#include <math.h>
#include <stdlib.h>

#include "model/fleet.h"
#include "report/csv.h"
#include "report/outfile.h"
#include "report/units.h"

static void put_row(FILE *o, const struct gc_fleet *f, int ni, bool flagged)
{
    const struct gc_fleet_node *nd = &f->nodes[ni];
    char buf[40];

    fprintf(o, "%d,", nd->rank);
    gc__csv_text(o, nd->host);
    fputc(',', o);
    gc__csv_text(o, nd->source);
    fprintf(o, ",%d,%s,", nd->ndevices, flagged ? "yes" : "no");
    gc__csv_text(o, nd->topology);
    for (int i = 0; i < f->nnode_fig; i++) {
        gc__fmt_double(buf, sizeof(buf), i < nd->nv ? nd->v[i] : (double)NAN);
        fprintf(o, ",%s", buf);
    }
    fputc('\n', o);
}

int gc_write_fleet_nodes_csv(const struct gc_fleet *f, const char *path)
{
    bool *flagged = calloc((size_t)(f->nnodes ? f->nnodes : 1), sizeof(*flagged));
    struct gc_outfile of;
    char err[512], head[256];
    int rc;

    if (!flagged)
        return GC_ENOMEM;
    rc = gc__outfile_open(path, &of, err, sizeof(err));
    if (rc) {
        free(flagged);
        return rc;
    }
    for (int k = 0; k < f->nnode_flags; k++)
        flagged[f->node_flags[k].node] = true;
    fputs("rank,host,source,devices,flagged,topology", of.f);
    for (int i = 0; i < f->nnode_fig; i++) {
        snprintf(head, sizeof(head), f->node_figures[i].unit[0] ? "%s [%s]" : "%s",
                 f->node_figures[i].key, f->node_figures[i].unit);
        fputc(',', of.f);
        gc__csv_text(of.f, head);
    }
    fputc('\n', of.f);
    for (int i = 0; i < f->nnodes; i++)
        put_row(of.f, f, i, flagged[i]);
    free(flagged);
    if (ferror(of.f)) {
        gc__outfile_abort(&of);
        return GC_EIO;
    }
    return gc__outfile_commit(&of, err, sizeof(err));
}
