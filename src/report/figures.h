/* The figures of one or more runs: which series are drawn together, on which
 * axes, with which limit lines and marks. A figure is a description only;
 * report/plot.h turns it into SVG and PNG through gnuplot. */
#ifndef GC_REPORT_FIGURES_H
#define GC_REPORT_FIGURES_H

#include <stdbool.h>

#include "gpuchar/gpuchar.h"

enum gc_fig_style {
    GC_FIG_MEASURED, /* points joined by lines, error bars where sampled */
    GC_FIG_SCATTER,  /* points only: configurations, not a curve */
    GC_FIG_MODEL,    /* a line without points: a model or a fit */
};

/* One curve: a series of one run. */
struct gc_fig_layer {
    const struct gc_series *s;
    int run; /* index of the run it comes from */
    enum gc_fig_style style;
    char title[128]; /* legend entry */
};

enum gc_fig_mark_kind {
    GC_FIG_LIMIT, /* a physical or vendor limit: horizontal */
    GC_FIG_LEVEL, /* a detected level: horizontal segment over its plateau */
    GC_FIG_XMARK, /* a derived abscissa (ridge, capacity, cusp): vertical */
};

/* A line drawn over the curves. Horizontal marks sit at y = v, from x = from
 * to x = to (NAN: across the plot); vertical ones at x = v. band_lo..band_hi
 * is the mark's uncertainty, shaded (NAN: none). */
struct gc_fig_mark {
    enum gc_fig_mark_kind kind;
    double v, from, to;
    double band_lo, band_hi;
    int run;
    char label[192];
};

struct gc_figure {
    char id[128];    /* unique, file-name friendly: "<bench>__<key>" */
    char bench[64];  /* the benchmark it belongs to */
    char title[192]; /* heading of the figure */
    char xlabel[128], ylabel[128];
    char xunit[32], yunit[32];
    bool logx, logy;
    int logx_base, logy_base; /* 2 or 10 */
    struct gc_fig_layer *layers;
    int nlayers;
    struct gc_fig_mark *marks;
    int nmarks;
};

/* Builds the figures of runs[0] (every series that has a finite point
 * belongs to exactly one figure), with the same series of runs[1..] laid
 * over them. labels name the runs in legends (NULL: no suffix with one run,
 * "A", "B", ... with several). *out is malloc'ed; free with
 * gc__figures_free. Returns 0 or GC_ENOMEM. */
int gc__figures_build(const struct gc_results *const *runs, const char *const *labels, int nruns,
                      struct gc_figure **out, int *n);

void gc__figures_free(struct gc_figure *f, int n);

/* True when the values span enough octaves that a log axis reads better
 * (all positive, max / min >= 16). */
bool gc__figures_spans_octaves(const double *v, int n);

#endif
