/* A benchmark's configuration in its result: the launch its figures came
 * from (ILP, vector width, block, blocks per CU, footprint, load path...),
 * written by the benchmark into the results tree ("config" in its JSON) and
 * read back from there by a meter that runs the same kernel again (the
 * energy benchmarks' meter runner, core/meter.h). Names are the
 * benchmark's own; a benchmark with several kernels prefixes them with the
 * kernel's part ("l1.footprint"). */
#ifndef GC_CORE_BENCHCFG_H
#define GC_CORE_BENCHCFG_H

#include <stdbool.h>

#include "gpuchar/gpuchar.h"

/* Sets (or replaces) the number `name` of part (NULL: none). GC_ENOMEM,
 * GC_EINVAL for a name that does not fit. */
int gc__config_set_num(struct gc_bench_result *b, const char *part, const char *name, double v);
/* Sets (or replaces) the word `name` of part (NULL: none). */
int gc__config_set_text(struct gc_bench_result *b, const char *part, const char *name,
                        const char *text);
/* The parameter `name` of part (NULL: none); NULL when absent. */
const struct gc_config_param *gc__config_find(const struct gc_bench_result *b, const char *part,
                                              const char *name);
/* The number `name` of part as an int in *v: false when absent, a word, or
 * not a whole number in the int range (*v untouched). */
bool gc__config_int(const struct gc_bench_result *b, const char *part, const char *name, int *v);
/* The word `name` of part; NULL when absent or a number. */
const char *gc__config_text(const struct gc_bench_result *b, const char *part, const char *name);
/* Whether part has any parameter (part NULL: whether b has any). */
bool gc__config_has_part(const struct gc_bench_result *b, const char *part);

#endif
