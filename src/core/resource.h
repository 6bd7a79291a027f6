/* The node-wide lock of each host resource (gpuchar/node.h, enum
 * gc_resource): a benchmark that declares resources holds their locks while
 * it runs, so that devices measured at the same time take turns on what
 * they share. */
#ifndef GC_CORE_RESOURCE_H
#define GC_CORE_RESOURCE_H

#include <stdbool.h>

#include "gpuchar/node.h"

/* Takes the locks of mask's resources, always in the same order (so two
 * devices never wait on each other); returns the seconds spent waiting. */
double gc__resources_acquire(unsigned mask);
/* Takes the locks of mask's resources only when none is held by another
 * device now; true when taken (release them with gc__resources_release). */
bool gc__resources_try(unsigned mask);
/* Releases the locks gc__resources_acquire took for mask. */
void gc__resources_release(unsigned mask);

#endif
