/* A node document reduced to what a fleet compares across nodes
 * (include/gpuchar/fleet.h, struct gc_fleet_node): its devices, each as a
 * fleet device, and its links as figures, one per link.* row and ordered
 * pair ("<row>/0->1"), grouped by topology (the devices' names in order and
 * each pair's link type from the topology row). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuchar/node.h"
#include "model/fleet.h"

/* The metric only the topology row has. */
#define TOPOLOGY_MARK "reachable_pairs"

/* True for a metric named "<i>-><j>" (a matrix cell, no suffix). */
static bool is_pair(const char *name)
{
    int i, j, used = 0;

    return sscanf(name, "%d->%d%n", &i, &j, &used) == 2 && name[used] == '\0' && i != j;
}

/* The row that describes the links rather than measuring them: each pair's
 * link type and limit, and the count of pairs with peer access
 * (docs/schema.md, "Peer links"). */
static bool is_topology(const struct gc_bench_result *br)
{
    for (int k = 0; k < br->nmetrics; k++)
        if (strcmp(br->metrics[k].name, TOPOLOGY_MARK) == 0)
            return true;
    return false;
}

/* Higher is better for a rate, lower for a time; anything else is not judged. */
static int direction_of(const char *unit)
{
    if (strcmp(unit, "s") == 0)
        return -1;
    return strstr(unit, "/s") ? 1 : 0;
}

/* The node's topology: its devices' names in order, then each pair's link
 * type ("NV18", "PCIe PXB") in the order of the topology row's cells; a key
 * too long for the field keeps its head and a hash of the whole. */
static void topology(const struct gc_node *n, char *out, size_t len)
{
    char key[8192] = "";
    size_t used = 0;
    unsigned h = 2166136261u;

    for (int i = 0; i < n->ndevices && used < sizeof(key); i++)
        used += (size_t)snprintf(key + used, sizeof(key) - used, "%s%s", i ? ", " : "",
                                 n->devices[i].name);
    for (int b = 0; n->links && b < n->links->nbenches; b++) {
        const struct gc_bench_result *br = &n->links->benches[b];

        if (!is_topology(br))
            continue;
        for (int k = 0; k < br->nmetrics && used < sizeof(key); k++)
            if (is_pair(br->metrics[k].name))
                used += (size_t)snprintf(
                    key + used, sizeof(key) - used, "%s%s %.*s",
                    used ? (strstr(key, " | ") ? ", " : " | ") : "", br->metrics[k].name,
                    (int)strcspn(br->metrics[k].note, ";"), br->metrics[k].note);
    }
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    if (strlen(key) < len)
        snprintf(out, len, "%s", key);
    else
        snprintf(out, len, "%.*s... #%08x", (int)len - 16, key, h);
}

/* The link figures of n into node nd of f. */
static int link_figures(struct gc_fleet *f, int ni, const struct gc_results *links)
{
    char key[160];

    for (int b = 0; links && b < links->nbenches; b++) {
        const struct gc_bench_result *br = &links->benches[b];

        if (is_topology(br)) /* limits, not measurements */
            continue;
        for (int k = 0; k < br->nmetrics; k++) {
            const struct gc_metric *m = &br->metrics[k];

            if (!is_pair(m->name) || !isfinite(m->value))
                continue;
            snprintf(key, sizeof(key), "%s/%s", br->name, m->name);
            int fig = gc__fleet_node_figure(f, key, m->unit, direction_of(m->unit));
            int rc = fig < 0 ? GC_ENOMEM : gc__fleet_node_set(&f->nodes[ni], fig, m->value);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int gc_fleet_add_node(struct gc_fleet *f, const struct gc_node *n, int rank, const char *source)
{
    struct gc_fleet_node *nd;
    int rc = 0;

    for (int i = 0; i < n->ndevices && rc == 0; i++) {
        const struct gc_node_device *d = &n->devices[i];

        if (d->results) {
            rc = gc_fleet_add_results(f, d->results, rank, source);
        } else {
            char msg[700];

            snprintf(msg, sizeof(msg), "%s: measured nothing: %.500s", d->spec,
                     d->message[0] ? d->message : "no results");
            rc = gc_fleet_add_missing(f, rank, n->host, GC_FLEET_FAILED, msg);
            if (rc == 0)
                snprintf(f->gpus[f->ngpus - 1].spec, sizeof(f->gpus->spec), "%s", d->spec);
        }
    }
    if (rc || !(nd = gc__fleet_new_node(f)))
        return rc ? rc : GC_ENOMEM;
    nd->rank = rank;
    nd->ndevices = n->ndevices;
    snprintf(nd->host, sizeof(nd->host), "%s", n->host);
    snprintf(nd->source, sizeof(nd->source), "%s", source ? source : "");
    topology(n, nd->topology, sizeof(nd->topology));
    return link_figures(f, f->nnodes - 1, n->links);
}
