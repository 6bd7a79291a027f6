/* The summaries a rank sends to rank 0 (docs/schema.md, "fleet summary"):
 * a device's (report/fleet_summary.c) and a node's
 * (report/fleet_node_summary.c) as JSON objects. */
#ifndef GC_REPORT_FLEET_SUMMARY_H
#define GC_REPORT_FLEET_SUMMARY_H

#include <jansson.h>

#include "gpuchar/fleet.h"

#define GC__FLEET_NODE_SUMMARY_SCHEMA "gpuchar-fleet-node-summary"

/* Device g of f as a summary object (new reference; NULL out of memory). */
json_t *gc__fleet_gpu_json(const struct gc_fleet *f, const struct gc_fleet_gpu *g);

/* Adds the node of a node summary object o to f. GC_EINVAL (err says why)
 * or GC_ENOMEM. */
int gc__fleet_node_from_json(struct gc_fleet *f, json_t *o, char *err, size_t errlen);

#endif
