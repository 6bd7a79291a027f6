/* The links between a node's devices: the one call of the link.* family
 * (gpuchar/link.h). A build without that family records why the node
 * document has no links section. */
#include <stdio.h>

#include "cli.h"

#if defined(__has_include)
#if __has_include(<gpuchar/link.h>)
#include <gpuchar/link.h>
#define HAVE_LINKS 1
#endif
#endif

int gc__node_links(gc_context *ctx, const struct gc_run_options *o, const char *const *specs, int n,
                   struct gc_results **out, char *note, size_t notelen)
{
    *out = NULL;
    note[0] = '\0';
#ifdef HAVE_LINKS
    return gc_run_links(ctx, o, specs, n, out);
#else
    (void)ctx;
    (void)o;
    (void)specs;
    snprintf(note, notelen, "%s",
             n < 2 ? "not available: one device" : "not measured: this build has no link.* family");
    return 0;
#endif
}
