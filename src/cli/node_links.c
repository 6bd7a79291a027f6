/* The links between a node's devices: the one call of the link.* family
 * (gpuchar/link.h). */
#include <stdio.h>

#include <gpuchar/link.h>

#include "cli.h"

int gc__node_links(gc_context *ctx, const struct gc_run_options *o, const char *const *specs, int n,
                   struct gc_results **out, char *note, size_t notelen)
{
    *out = NULL;
    if (notelen)
        note[0] = '\0';
    return gc_run_links(ctx, o, specs, n, out);
}
