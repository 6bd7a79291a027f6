/* The fleet as text: one line of counts, then each flagged device with the
 * figures that put it there and its likely cause, then each device without
 * a result. What 'gpuchar fleet' and rank 0 of 'gpuchar run --mpi' print. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fleet.h"
#include "report/units.h"

static void flag_lines(const struct gc_fleet *f, int gi, FILE *o)
{
    const struct gc_fleet_gpu *g = &f->gpus[gi];
    char v[48], m[48], t[48], causes[512];

    fprintf(o, "FLAGGED rank %d, host %s, %s (%s), PCI %s, UUID %s\n", g->rank, g->host, g->spec,
            g->name, g->pci[0] ? g->pci : "unknown", g->uuid[0] ? g->uuid : "unknown");
    for (int k = 0; k < f->nflags; k++) {
        const struct gc_fleet_flag *fl = &f->flags[k];
        const struct gc_fleet_stat *st = &f->stats[fl->stat];
        const char *unit = f->figures[fl->figure].unit;

        if (fl->gpu != gi)
            continue;
        gc__fmt_quantity(v, sizeof(v), fl->value, unit);
        gc__fmt_quantity(m, sizeof(m), st->median, unit);
        gc__fmt_quantity(t, sizeof(t), fl->kind == GC_FLEET_LOW ? st->floor : st->high, unit);
        fprintf(o, "  %s: %s, group median %s (x%.3f), %s %s (%s rule), robust z %.3g\n",
                f->figures[fl->figure].key, v, m, st->median != 0 ? fl->value / st->median : NAN,
                fl->kind == GC_FLEET_LOW ? "worse than the floor" : "better than", t, fl->rule,
                fl->z);
    }
    gc__fleet_causes(f, gi, causes, sizeof(causes));
    fprintf(o, "  likely cause: %s\n", causes[0] ? causes : "not stated by the data");
}

/* The nodes: a count, then each flagged node with the pairs that put it
 * there. */
static void node_lines(const struct gc_fleet *f, FILE *o)
{
    char v[48], m[48], t[48];

    if (f->nnodes == 0)
        return;
    fprintf(o, "nodes: %d with link figures, %d flagged\n", f->nnodes, f->nflagged_nodes);
    for (int k = 0; k < f->nnode_flags; k++) {
        const struct gc_fleet_node_flag *fl = &f->node_flags[k];
        const struct gc_fleet_node *nd = &f->nodes[fl->node];
        const struct gc_fleet_figure *fg = &f->node_figures[fl->figure];
        const char *pair = strrchr(fg->key, '/');

        if (k == 0 || f->node_flags[k - 1].node != fl->node)
            fprintf(o, "FLAGGED node %s, rank %d, %s\n", nd->host, nd->rank,
                    nd->source[0] ? nd->source : "(no file)");
        gc__fmt_quantity(v, sizeof(v), fl->value, fg->unit);
        gc__fmt_quantity(m, sizeof(m), fl->median, fg->unit);
        gc__fmt_quantity(t, sizeof(t), fl->floor, fg->unit);
        fprintf(o,
                "  pair %s, %.*s: %s, median of %d nodes of its topology %s (x%.3f), worse "
                "than %s (relative rule)\n",
                pair ? pair + 1 : fg->key, pair ? (int)(pair - fg->key) : 0, fg->key, v, fl->n, m,
                fl->median != 0 ? fl->value / fl->median : NAN, t);
    }
}

int gc_write_fleet_text(const struct gc_fleet *f, FILE *o)
{
    bool *seen = calloc((size_t)(f->ngpus ? f->ngpus : 1), sizeof(*seen));

    if (!seen)
        return GC_ENOMEM;
    fprintf(o,
            "fleet: %d devices in %d groups, %d headline figures; %d flagged, %d without a "
            "result\n",
            f->ngpus, f->ngroups, f->nfig, f->nflagged_gpus, f->nfailed);
    for (int k = 0; k < f->nflags; k++) {
        if (seen[f->flags[k].gpu])
            continue;
        seen[f->flags[k].gpu] = true;
        flag_lines(f, f->flags[k].gpu, o);
    }
    free(seen);
    for (int i = 0; i < f->ngpus; i++) {
        const struct gc_fleet_gpu *g = &f->gpus[i];

        if (g->status != GC_FLEET_OK)
            fprintf(o, "%s rank %d, host %s%s%s: %s\n",
                    g->status == GC_FLEET_TIMEOUT   ? "TIMEOUT"
                    : g->status == GC_FLEET_REFUSED ? "REFUSED"
                                                    : "FAILED",
                    g->rank, g->host[0] ? g->host : "unknown", g->spec[0] ? ", " : "", g->spec,
                    g->message);
    }
    node_lines(f, o);
    for (int i = 0; i < f->nnotes; i++)
        fprintf(o, "note: %s\n", f->notes[i]);
    return ferror(o) ? GC_EIO : 0;
}
