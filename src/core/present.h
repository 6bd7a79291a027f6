/* What a benchmark contributes to the report beyond its own metrics and
 * series: the cells of the cross-benchmark summary tables it fills, and how
 * its series are grouped into figures. Each benchmark declares these in its
 * description; the run copies the declaration into the benchmark's result
 * (gc_bench_result.report), the JSON file carries it ("presentation",
 * docs/schema.md), and the reporters read it from the results tree only:
 * they name no benchmark and no metric themselves and never call src/bench.
 * The summary tables' layouts (sumtables.c) are the shared vocabulary the
 * cells point into. */
#ifndef GC_CORE_PRESENT_H
#define GC_CORE_PRESENT_H

#include <stdbool.h>

#define GC_SUM_MAXCOLS 12
#define GC_SUM_MAXROWS 20

/* How a summary table gets its rows:
 * - PER_BENCH: one row per benchmark of the run that declares cells in the
 *   table (in run order), labelled by its name;
 * - FIXED: the labels of rows[], in that order, each filled by the cells
 *   (of any benchmarks) that name it;
 * - GRID: one row per series of a benchmark, a column per abscissa x[]. */
enum gc_sum_kind { GC_SUM_PER_BENCH, GC_SUM_FIXED, GC_SUM_GRID };

/* A summary table's layout. A table appears only when one of its rows has a
 * value. */
struct gc_sum_table {
    const char *name;        /* file-name friendly: "compute", "memory", ... */
    const char *title;       /* with the papers' tables it follows */
    const char *label_title; /* the heading of the row labels */
    enum gc_sum_kind kind;
    int ncols; /* value columns, after the row label */
    const char *col_title[GC_SUM_MAXCOLS];
    const char *col_unit[GC_SUM_MAXCOLS]; /* "" for counts and ratios */
    const char *rows[GC_SUM_MAXROWS];     /* FIXED: the row labels in order */
    double x[GC_SUM_MAXCOLS];             /* GRID: the abscissa of each column */
};

/* What fills a cell: a metric's value, its limit or its fraction (as %). */
enum gc_sum_pick { GC_SUM_VALUE, GC_SUM_LIMIT, GC_SUM_PERCENT };

/* One cell a benchmark fills (in GRID tables: the rows it adds). Several
 * benchmarks may offer the same cell: the candidate of lowest rank that has
 * a finite value fills it (equal ranks: declaration order). */
struct gc_sum_cell {
    const struct gc_sum_table *table; /* NULL ends a list */
    /* FIXED: the row's label (one of table->rows). PER_BENCH: the prefix
     * left out of the benchmark's name in its row label. GRID: the words the
     * row label starts with, before the rest of the series name. */
    const char *row;
    int col;            /* value column, from 0; GRID: unused */
    const char *metric; /* the metric read; GRID: the prefix of the series */
    const char *unit;   /* the unit the metric must have; NULL accepts any */
    enum gc_sum_pick pick;
    double scale; /* multiplies the value; 0 means 1 */
    int rank;
    /* PER_BENCH: the benchmark has a row only when it has this metric. */
    bool key;
};

/* How a family of the benchmark's series is drawn. The key part separates
 * figures within a family (one per path, per alpha, ...): series of one
 * rule, one key part and the same axis units share a figure. Series no rule
 * names are drawn by the generic rules. */
struct gc_fig_rule {
    const char *series;  /* shell patterns on the series name, '|'-separated; NULL ends */
    const char *title;   /* figure title; "%s" takes the key part */
    int key_skip;        /* the key part: the series name from this character... */
    const char *key_end; /* ...up to the first of these characters; NULL: no key part */
    bool any_x_name;     /* the x quantity's name may differ (a fit beside its data) */
    bool staircase;      /* latency vs footprint: detected levels drawn over it */
    bool scatter;        /* configurations, not a curve */
};

/* A benchmark's part of the report (either list may be NULL). */
struct gc_bench_report {
    const struct gc_sum_cell *cells;
    const struct gc_fig_rule *figures;
};

/* The summary tables, in the order the report prints them (sumtables.c);
 * NULL past the end. */
const struct gc_sum_table *gc__sum_table_at(int i);
/* The table of that name; NULL when there is none (a file from a later
 * gpuchar may name a table this one lacks). */
const struct gc_sum_table *gc__sum_table_find(const char *name);

/* A copy of a declaration (either list may be NULL) in one malloc'ed block
 * that also holds its strings, so that free() releases all of it: what a
 * benchmark's result owns (present.c). *out is NULL when decl is NULL or
 * declares nothing. 0 or GC_ENOMEM. */
int gc__report_pack(const struct gc_bench_report *decl, struct gc_bench_report **out);
/* The entries of a declaration's lists (before their terminators). */
int gc__report_ncells(const struct gc_bench_report *r);
int gc__report_nfigures(const struct gc_bench_report *r);

extern const struct gc_sum_table gc__sum_compute, gc__sum_matrix, gc__sum_energy_compute,
    gc__sum_memory, gc__sum_energy_memory, gc__sum_energy_baseline, gc__sum_copy_kernel,
    gc__sum_hiding, gc__sum_overheads, gc__sum_transfers, gc__sum_divergence, gc__sum_jacobi;

/* Cell initialisers. */
#define GC_SUM_V(tb, rw, c, m, u)                                                                  \
    {                                                                                              \
        .table = &(tb), .row = (rw), .col = (c), .metric = (m), .unit = (u)                        \
    }
#define GC_SUM_P(tb, rw, c, m)                                                                     \
    {                                                                                              \
        .table = &(tb), .row = (rw), .col = (c), .metric = (m), .pick = GC_SUM_PERCENT             \
    }
/* A time in s shown in us. */
#define GC_SUM_US(tb, rw, c, m)                                                                    \
    {                                                                                              \
        .table = &(tb), .row = (rw), .col = (c), .metric = (m), .unit = "s", .scale = 1e6          \
    }
/* A time in s with its tail percentiles (metrics m, m_p5, m_p95, m_p99) in
 * columns 0-3, in us. */
#define GC_SUM_US_PCT(tb, rw, m)                                                                   \
    GC_SUM_US(tb, rw, 0, m), GC_SUM_US(tb, rw, 1, m "_p5"), GC_SUM_US(tb, rw, 2, m "_p95"),        \
        GC_SUM_US(tb, rw, 3, m "_p99")

#endif
