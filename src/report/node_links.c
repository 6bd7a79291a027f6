/* The links section of a node's text report: the link.* family's own
 * matrices (gpuchar/link.h). */
#include <stdio.h>

#include "gpuchar/link.h"
#include "report/node_links.h"

int gc__node_links_text(const struct gc_results *links, FILE *f)
{
    return gc_write_link_text(links, f);
}
