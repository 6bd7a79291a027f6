/* The results document as a JSON tree, for documents that embed it (the
 * node document holds one per device). */
#ifndef GC_REPORT_JSON_H
#define GC_REPORT_JSON_H

#include <jansson.h>

#include "gpuchar/gpuchar.h"

/* "schema" of a node document (report/node_json.c). */
#define GC__NODE_SCHEMA_NAME "gpuchar-node"

/* The results tree as gc_write_json writes it; NULL out of memory. */
json_t *gc__results_to_json(const struct gc_results *r);
/* A results tree from such a JSON object: 0, GC_EINVAL with err naming the
 * first problem, GC_ENOMEM. */
int gc__results_from_json(json_t *doc, struct gc_results **out, char *err, size_t errlen);
/* Writes doc to path atomically, or to standard output for "-". */
int gc__json_write_doc(json_t *doc, const char *path);

#endif
