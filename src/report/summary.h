/* Cross-benchmark summary tables of a run: the parameters that explain
 * performance, gathered from the metrics of several benchmarks into the
 * tables the methods publish them in (compute: Lemeire Table III with MIPP's
 * and Volkov's columns; memory: gpumembench Table III; overheads: uCLbench
 * Table 1; ...). The tables' layouts are the shared vocabulary
 * (core/present.h) and the cells each benchmark fills are recorded in its
 * result; this module only gathers and writes them. A table appears only
 * when at least one of its rows has a value. Values are numbers in the
 * column's unit; NAN is "not measured". */
#ifndef GC_REPORT_SUMMARY_H
#define GC_REPORT_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "gpuchar/gpuchar.h"

#define GC_SUMMARY_MAXCOLS 12

struct gc_summary_row {
    char label[48];
    double v[GC_SUMMARY_MAXCOLS];
};

struct gc_summary_table {
    const char *name;  /* file-name friendly: "compute", "memory", ... */
    const char *title; /* with the papers' tables it follows */
    int ncols;         /* value columns, after the row label */
    const char *label_title;
    const char *col_title[GC_SUMMARY_MAXCOLS];
    const char *col_unit[GC_SUMMARY_MAXCOLS]; /* "" for counts and ratios */
    /* A measured figure (a metric's value), not a limit or a percentage of
     * one: the headline figures a fleet compares (include/gpuchar/fleet.h). */
    bool col_measured[GC_SUMMARY_MAXCOLS];
    int col_direction[GC_SUMMARY_MAXCOLS]; /* gc__metric_direction of its metric */
    struct gc_summary_row *rows;
    int nrows;
};

/* Builds every table that has data in r (*out malloc'ed, *n tables, 0 when
 * nothing applies). Free with gc__summary_free. */
int gc__summary_build(const struct gc_results *r, struct gc_summary_table **out, int *n);

void gc__summary_free(struct gc_summary_table *t, int n);

/* The tables as aligned text, each under a "== summary:" heading. */
int gc__summary_write_text(const struct gc_summary_table *t, int n, FILE *f);

/* One table as CSV: a header row (label, then "title [unit]"), then the
 * rows with exact numbers, empty where not measured. */
int gc__summary_write_csv(const struct gc_summary_table *t, FILE *f);

#endif
