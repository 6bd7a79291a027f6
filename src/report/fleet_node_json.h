/* The nodes' section of the fleet document (docs/schema.md, "gpuchar
 * fleet", "nodes"). */
#ifndef GC_REPORT_FLEET_NODE_JSON_H
#define GC_REPORT_FLEET_NODE_JSON_H

#include <jansson.h>

#include "gpuchar/fleet.h"

/* {"count", "flagged", "rule", "figures", "nodes", "flagged_nodes"}; a new
 * reference, NULL out of memory. */
json_t *gc__fleet_nodes_json(const struct gc_fleet *f);

#endif
