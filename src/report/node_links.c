/* The links section of a node's reports. The link.* family's own writers
 * (gpuchar/link.h) draw its matrices where that family is built in; without
 * it each link row is listed with its status. */
#include <stdio.h>

#include "report/node_links.h"

#if defined(__has_include)
#if __has_include("gpuchar/link.h")
#include "gpuchar/link.h"
#define HAVE_LINK_WRITERS 1
#endif
#endif

static const char *status_word(enum gc_bench_status s)
{
    return s == GC_BENCH_OK              ? "ok"
           : s == GC_BENCH_NOT_AVAILABLE ? "not available"
           : s == GC_BENCH_INTERRUPTED   ? "interrupted"
           : s == GC_BENCH_SKIPPED       ? "skipped"
                                         : "FAILED";
}

int gc__node_links_text(const struct gc_results *links, FILE *f)
{
#ifdef HAVE_LINK_WRITERS
    return gc_write_link_text(links, f);
#else
    for (int i = 0; i < links->nbenches; i++) {
        const struct gc_bench_result *b = &links->benches[i];

        fprintf(f, "  %-32s %-13s %s\n", b->name, status_word(b->status), b->error);
        for (int m = 0; m < b->nmetrics; m++)
            fprintf(f, "    %-40s %14.6g %s\n", b->metrics[m].name, b->metrics[m].value,
                    b->metrics[m].unit);
    }
    return ferror(f) ? GC_EIO : 0;
#endif
}
