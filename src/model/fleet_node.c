/* Nodes of a fleet (include/gpuchar/fleet.h, struct gc_fleet_node): the
 * figures of each node's links, and their analysis across the nodes of one
 * topology (docs/methodology.md, "Fleets", node level): per pair figure the
 * median over the nodes that have it; a node is flagged on a figure worse
 * than low_ratio x that median when at least min_group nodes have it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "model/fleet.h"

struct gc_fleet_node *gc__fleet_new_node(struct gc_fleet *f)
{
    if (f->nnodes == f->node_cap) {
        int cap = f->node_cap ? 2 * f->node_cap : 8;
        struct gc_fleet_node *p = realloc(f->nodes, (size_t)cap * sizeof(*p));

        if (!p)
            return NULL;
        f->nodes = p;
        f->node_cap = cap;
    }
    struct gc_fleet_node *n = &f->nodes[f->nnodes++];
    memset(n, 0, sizeof(*n));
    n->rank = -1;
    return n;
}

int gc__fleet_node_figure(struct gc_fleet *f, const char *key, const char *unit, int direction)
{
    for (int i = 0; i < f->nnode_fig; i++)
        if (strcmp(f->node_figures[i].key, key) == 0)
            return i;
    if (f->nnode_fig == f->node_fig_cap) {
        int cap = f->node_fig_cap ? 2 * f->node_fig_cap : 16;
        struct gc_fleet_figure *p = realloc(f->node_figures, (size_t)cap * sizeof(*p));

        if (!p)
            return -1;
        f->node_figures = p;
        f->node_fig_cap = cap;
    }
    struct gc_fleet_figure *fg = &f->node_figures[f->nnode_fig];
    snprintf(fg->key, sizeof(fg->key), "%s", key);
    snprintf(fg->unit, sizeof(fg->unit), "%s", unit ? unit : "");
    fg->direction = direction;
    return f->nnode_fig++;
}

int gc__fleet_node_set(struct gc_fleet_node *n, int fig, double v)
{
    if (fig >= n->nv) {
        int nv = fig + 1 > 2 * n->nv ? fig + 1 : 2 * n->nv;
        double *p = realloc(n->v, (size_t)nv * sizeof(*p));

        if (!p)
            return GC_ENOMEM;
        for (int i = n->nv; i < nv; i++)
            p[i] = NAN;
        n->v = p;
        n->nv = nv;
    }
    n->v[fig] = v;
    return 0;
}

void gc__fleet_free_nodes(struct gc_fleet *f)
{
    for (int i = 0; i < f->nnodes; i++)
        free(f->nodes[i].v);
    free(f->nodes);
    free(f->node_figures);
    free(f->node_flags);
    f->nodes = NULL;
    f->node_figures = NULL;
    f->node_flags = NULL;
    f->nnodes = f->node_cap = f->nnode_fig = f->node_fig_cap = 0;
    f->nnode_flags = f->nflagged_nodes = 0;
}

static int add_node_flag(struct gc_fleet *f, int *cap, const struct gc_fleet_node_flag *fl)
{
    if (f->nnode_flags == *cap) {
        int c = *cap ? 2 * *cap : 8;
        struct gc_fleet_node_flag *p = realloc(f->node_flags, (size_t)c * sizeof(*p));

        if (!p)
            return GC_ENOMEM;
        f->node_flags = p;
        *cap = c;
    }
    f->node_flags[f->nnode_flags++] = *fl;
    return 0;
}

/* Figure fig over the nodes of topology group (the nodes whose topology is
 * that of node first, from first on). */
static int judge_figure(struct gc_fleet *f, int first, int fig, double *scratch, int *cap)
{
    const char *topo = f->nodes[first].topology;
    int dir = f->node_figures[fig].direction, n = 0;
    double median, floor;

    for (int i = first; i < f->nnodes; i++) {
        const struct gc_fleet_node *nd = &f->nodes[i];

        if (strcmp(nd->topology, topo) == 0 && fig < nd->nv && isfinite(nd->v[fig]))
            scratch[n++] = nd->v[fig];
    }
    if (dir == 0 || n < f->opt.min_group)
        return 0;
    median = gc__percentile(scratch, n, 50);
    floor = dir > 0 ? f->opt.low_ratio * median : median / f->opt.low_ratio;
    for (int i = first; i < f->nnodes; i++) {
        const struct gc_fleet_node *nd = &f->nodes[i];
        double v = fig < nd->nv ? nd->v[fig] : NAN;

        if (strcmp(nd->topology, topo) != 0 || !isfinite(v) || !(dir > 0 ? v < floor : v > floor))
            continue;
        struct gc_fleet_node_flag fl = {
            .node = i, .figure = fig, .n = n, .value = v, .median = median, .floor = floor};
        int rc = add_node_flag(f, cap, &fl);
        if (rc)
            return rc;
    }
    return 0;
}

int gc__fleet_analyse_nodes(struct gc_fleet *f)
{
    double *scratch = malloc((size_t)(f->nnodes ? f->nnodes : 1) * sizeof(*scratch));
    bool *seen = calloc((size_t)(f->nnodes ? f->nnodes : 1), sizeof(*seen));
    int cap = 0, rc = scratch && seen ? 0 : GC_ENOMEM;

    free(f->node_flags);
    f->node_flags = NULL;
    f->nnode_flags = f->nflagged_nodes = 0;
    for (int i = 0; i < f->nnodes && rc == 0; i++) {
        bool first = true; /* the first node of its topology */

        for (int j = 0; j < i && first; j++)
            first = strcmp(f->nodes[j].topology, f->nodes[i].topology) != 0;
        for (int fig = 0; first && fig < f->nnode_fig && rc == 0; fig++)
            rc = judge_figure(f, i, fig, scratch, &cap);
    }
    for (int k = 0; rc == 0 && k < f->nnode_flags; k++) {
        f->nflagged_nodes += !seen[f->node_flags[k].node];
        seen[f->node_flags[k].node] = true;
    }
    free(seen);
    free(scratch);
    return rc;
}
