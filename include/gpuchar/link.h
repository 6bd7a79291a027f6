/* gpuchar public API of the peer links (link.*): the measurement between the
 * devices of a node and its matrices as text, CSV, JSON and HTML. The layout
 * of the results (one metric per ordered pair "i->j") is docs/schema.md's
 * "Peer links". */
#ifndef GPUCHAR_LINK_H
#define GPUCHAR_LINK_H

#include <stdio.h>

#include "gpuchar/gpuchar.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Measures the link.* family between the devices named by specs[0..n) (same
 * backend, each a spec as --device takes, e.g. "cuda:0"), with o's profile,
 * repeat, min_time, patterns (only link.* names matter; NULL = all link.*),
 * progress callbacks and stop flag, into a new results tree *out whose
 * benches are the link.* rows. Device i of the list is "i" in the metric
 * names ("0->1": from device 0 to device 1). With n < 2 every link.* row is
 * "not available: one device". Returns 0, GC_EBACKEND when a row failed
 * (its error says why; the others ran), GC_EINTR when stopped, GC_EINVAL
 * (devices of different backends, a device listed twice), GC_ENODEV, or
 * another negative GC_E code; *out is set whenever it can hold what was
 * measured (free it with gc_results_free). */
GC_EXTERN int gc_run_links(gc_context *ctx, const struct gc_run_options *o,
                           const char *const *specs, int n, struct gc_results **out);

/* True when r holds a link.* row (a tree made by gc_run_links, or a run
 * whose rows include them). */
GC_EXTERN bool gc_results_has_links(const struct gc_results *r);

/* The link.* rows of r as matrices, aligned text: one table per row (rows:
 * from, columns: to), values in the row's unit with SI prefixes, "-" on
 * the diagonal and "n/a" for a pair without a figure, each unreachable pair
 * with its reason below. Reads only the results tree. Returns 0 or GC_EIO. */
GC_EXTERN int gc_write_link_text(const struct gc_results *links, FILE *f);

/* The same as CSV, one line per row and ordered pair:
 * bench,from,to,value,unit,limit,fraction,note. Returns 0 or GC_EIO. */
GC_EXTERN int gc_write_link_csv(const struct gc_results *links, FILE *f);

/* The matrices as one JSON object (docs/schema.md, "Peer links"):
 * {"devices": [...], "matrices": {"link.ce_write": {"unit": "B/s",
 * "values": [[null, 3.9e11], [3.9e11, null]], "limits": [...]}, ...}}.
 * Returns 0, GC_ENOMEM or GC_EIO. */
GC_EXTERN int gc_write_link_json(const struct gc_results *links, FILE *f);

/* An HTML fragment (no <html>/<body>: a section for a page that embeds it)
 * with one heatmap table per link.* row, each cell shaded by its value
 * against the row's largest. Text is escaped. Returns 0 or GC_EIO. */
GC_EXTERN int gc_write_link_html(const struct gc_results *links, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
