/* The links between a node's devices: the one call of the link.* family
 * (gpuchar/link.h). */
#include <stdio.h>

#include <gpuchar/link.h>

#include "cli.h"

int gc__node_links(gc_context *ctx, const struct gc_run_options *o, const char *const *specs, int n,
                   struct gc_results **out, char *note, size_t notelen)
{
    int rc;

    *out = NULL;
    if (n < 2) {
        snprintf(note, notelen, "not available: one device");
        return 0;
    }
    if (notelen)
        note[0] = '\0';
    rc = gc_run_links(ctx, o, specs, n, out);
    if ((rc == 0 || rc == GC_ENOBENCH) && (!*out || (*out)->nbenches == 0)) {
        gc_results_free(*out);
        *out = NULL;
        snprintf(note, notelen, "not measured: the --bench patterns select no link.* benchmark");
        rc = 0;
    }
    return rc;
}
