/* The links section of a node's text report (node_links.c). */
#ifndef GC_REPORT_NODE_LINKS_H
#define GC_REPORT_NODE_LINKS_H

#include <stdio.h>

#include "gpuchar/gpuchar.h"

int gc__node_links_text(const struct gc_results *links, FILE *f);

#endif
