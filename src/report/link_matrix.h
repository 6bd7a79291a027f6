/* The link.* rows of a results tree read back as matrices: device i of the
 * row's list is row and column i, the metric "i->j" (or "i->j.<suffix>") the
 * cell. What the link text, CSV, JSON and HTML writers share. */
#ifndef GC_REPORT_LINK_MATRIX_H
#define GC_REPORT_LINK_MATRIX_H

#include "gpuchar/gpuchar.h"

struct gc_link_matrix {
    const struct gc_bench_result *b;
    const char *suffix;            /* NULL: the headline "i->j" */
    int n;                         /* devices */
    const struct gc_metric **cell; /* n x n, [from * n + to]; NULL: no metric */
    char unit[32];
};

/* Whether b is a link.* row. */
bool gc__link_row(const struct gc_bench_result *b);

/* The matrix of b's metrics "i->j[.suffix]"; n from the row's "devices"
 * metric, else the largest index + 1. Returns 0 (m->n 0 when b holds no
 * such metric) or GC_ENOMEM. Free with gc__link_matrix_free. */
int gc__link_matrix(const struct gc_bench_result *b, const char *suffix, struct gc_link_matrix *m);
void gc__link_matrix_free(struct gc_link_matrix *m);

/* Whether b's cells are links as the driver describes them (the row holds
 * the metric "reachable_pairs"): their notes begin with the link's label. */
bool gc__link_labelled(const struct gc_bench_result *b);

/* The link's short label of such a cell: its note up to the first
 * ';' ("NV18", "PCIe PXB", "none"). */
void gc__link_label(const struct gc_metric *m, char *buf, size_t len);

/* Whether a metric of a link row is a matrix cell (a pair's) or one of the
 * row's other figures ("all->0", "0->host", "devices"). */
bool gc__link_is_cell(const struct gc_metric *m);

#endif
