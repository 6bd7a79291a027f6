/* Where a node run's time went (node_phases.c): per device its own run, the
 * compile plan, the rows that held a host resource and the time they waited
 * for it; the links row by row. Read from the results trees and the node's
 * phase times. */
#ifndef GC_REPORT_NODE_PHASES_H
#define GC_REPORT_NODE_PHASES_H

#include <jansson.h>
#include <stdio.h>

#include "gpuchar/node.h"

struct gc_node_phase {
    double wall_s;       /* the device's own run */
    double plan_s;       /* its compile plan */
    double serialized_s; /* rows that held a host resource (their waits included) */
    double wait_s;       /* of which waiting for another device */
    int deferred;        /* rows put back behind later ones while the resource was busy */
};

/* The phase of device i of n. */
void gc__node_phase(const struct gc_node *n, int i, struct gc_node_phase *out);

/* The "phases" object of the node document (docs/schema.md). */
json_t *gc__node_phases_json(const struct gc_node *n);

/* The "== Time ==" section of the text report. */
void gc__node_phases_text(const struct gc_node *n, FILE *f);

#endif
