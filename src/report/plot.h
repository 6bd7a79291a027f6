/* Figures drawn by gnuplot: a script per figure (data inline, axes, marks),
 * run in one gnuplot process for all of them, SVG and PNG out. */
#ifndef GC_REPORT_PLOT_H
#define GC_REPORT_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "gpuchar/gpuchar.h"
#include "report/figures.h"

/* Appends the gnuplot commands that draw figure f (its number idx makes the
 * data block names unique) to svg_path and/or png_path (NULL: that format
 * is not written). pngcairo selects the cairo PNG terminal, else gd's. */
int gc__plot_script(const struct gc_figure *f, int idx, const char *svg_path, const char *png_path,
                    bool pngcairo, FILE *out);

/* Draws the figures: figure i to svg[i] and png[i] (either array or entry
 * may be NULL). One gnuplot process draws them all; when it fails, each
 * figure is drawn by its own process so that one bad figure costs only
 * itself. ok[i] tells which were drawn; err receives the first failure.
 * Returns 0 when every figure was drawn, GC_ENOLIB when gnuplot cannot be
 * run, GC_EIO when some figures failed. */
int gc__plot_render(const struct gc_plot_tool *t, const struct gc_figure *f, int n,
                    const char *const *svg, const char *const *png, bool *ok, char *err,
                    size_t errlen);

#endif
