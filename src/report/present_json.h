/* The "presentation" record of a benchmark in the results file: its report
 * declaration (core/present.h) as JSON, and back (docs/schema.md). */
#ifndef GC_REPORT_PRESENT_JSON_H
#define GC_REPORT_PRESENT_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "core/present.h"

/* The record of r (a new reference), NULL on ENOMEM. */
json_t *gc__present_to_json(const struct gc_bench_report *r);

/* Reads the record o found at where (the dotted path, for messages) into
 * *out (one block, free() releases it; NULL when it declares nothing). A
 * cell of a table this gpuchar lacks is left out. 0, GC_EINVAL (a message
 * in err) or GC_ENOMEM. */
int gc__present_from_json(json_t *o, const char *where, struct gc_bench_report **out, char *err,
                          size_t errlen);

#endif
