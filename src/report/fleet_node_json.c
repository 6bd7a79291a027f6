/* The nodes' section of the fleet document: the rule and its threshold,
 * the link figures, every node (host, rank, file, topology) and each
 * flagged node with the pairs that put it there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/fleet.h"
#include "report/fleet_node_json.h"

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* The pairs of node ni that are flagged. */
static json_t *pairs(const struct gc_fleet *f, int ni)
{
    json_t *a = json_array();

    for (int k = 0; k < f->nnode_flags; k++) {
        const struct gc_fleet_node_flag *fl = &f->node_flags[k];
        const struct gc_fleet_figure *fg = &f->node_figures[fl->figure];
        const char *slash = strrchr(fg->key, '/');
        char bench[160];

        if (fl->node != ni)
            continue;
        snprintf(bench, sizeof(bench), "%.*s", slash ? (int)(slash - fg->key) : 0, fg->key);
        json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:i}", "figure",
                                           fg->key, "bench", bench, "pair",
                                           slash ? slash + 1 : fg->key, "unit", fg->unit, "value",
                                           jnum(fl->value), "median", jnum(fl->median), "ratio",
                                           jnum(fl->median != 0 ? fl->value / fl->median : NAN),
                                           "threshold", jnum(fl->floor), "n", fl->n));
    }
    return a;
}

json_t *gc__fleet_nodes_json(const struct gc_fleet *f)
{
    json_t *o = json_object(), *figs = json_array(), *nodes = json_array(), *fl = json_array();
    char rule[300];

    snprintf(rule, sizeof(rule),
             "a node's link figure (row and ordered pair) worse than %.3g x the median of the "
             "nodes of its topology (median / %.3g where lower is better), with at least %d "
             "nodes having it",
             f->opt.low_ratio, f->opt.low_ratio, f->opt.min_group);
    json_object_set_new(o, "count", json_integer(f->nnodes));
    json_object_set_new(o, "flagged", json_integer(f->nflagged_nodes));
    json_object_set_new(o, "rule", json_string(rule));
    for (int i = 0; i < f->nnode_fig; i++)
        json_array_append_new(figs, json_pack("{s:s,s:s,s:i}", "key", f->node_figures[i].key,
                                              "unit", f->node_figures[i].unit, "direction",
                                              f->node_figures[i].direction));
    for (int i = 0; i < f->nnodes; i++) {
        const struct gc_fleet_node *nd = &f->nodes[i];
        json_t *p = pairs(f, i);
        bool flagged = json_array_size(p) > 0;

        json_array_append_new(nodes,
                              json_pack("{s:i,s:s,s:s,s:s,s:i,s:b}", "rank", nd->rank, "host",
                                        nd->host, "source", nd->source, "topology", nd->topology,
                                        "devices", nd->ndevices, "flagged", flagged));
        if (flagged)
            json_array_append_new(fl, json_pack("{s:i,s:s,s:s,s:s,s:o}", "rank", nd->rank, "host",
                                                nd->host, "source", nd->source, "topology",
                                                nd->topology, "pairs", p));
        else
            json_decref(p);
    }
    json_object_set_new(o, "figures", figs);
    json_object_set_new(o, "nodes", nodes);
    json_object_set_new(o, "flagged_nodes", fl);
    return o;
}
