/* Cross-benchmark summary tables (see summary.h): the layouts are the shared
 * vocabulary (core/sumtables.c) and the cells that fill them are what each
 * benchmark recorded in its result (gc_bench_result.report); this file
 * gathers the cells of every table and writes the tables out. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/present.h"
#include "core/results.h"
#include "report/summary.h"
#include "report/units.h"

_Static_assert(GC_SUMMARY_MAXCOLS == GC_SUM_MAXCOLS, "one column limit");

/* A cell a benchmark of the run offers to fill. */
struct offer {
    const char *bench;
    const struct gc_sum_cell *cell;
    int order; /* declaration order, which breaks ties of rank */
};

/* A metric of a benchmark that completed (or was interrupted after it). */
static const struct gc_metric *find_metric(const struct gc_bench_result *b, const char *name)
{
    if (!b || (b->status != GC_BENCH_OK && b->status != GC_BENCH_INTERRUPTED))
        return NULL;
    return gc__bench_find_metric(b, name);
}

/* The value cell c reads from benchmark result b; NAN when it has none. */
static double pick(const struct gc_bench_result *b, const struct gc_sum_cell *c)
{
    const struct gc_metric *m = find_metric(b, c->metric);
    double v;

    if (!m || (c->unit && strcmp(m->unit, c->unit) != 0))
        return NAN;
    switch (c->pick) {
    case GC_SUM_LIMIT:
        v = m->limit;
        break;
    case GC_SUM_PERCENT:
        v = 100.0 * m->fraction;
        break;
    default:
        v = m->value;
        break;
    }
    return isfinite(v) ? v * (c->scale != 0 ? c->scale : 1.0) : NAN;
}

static int by_rank(const void *a, const void *b)
{
    const struct offer *x = a, *y = b;

    if (x->cell->rank != y->cell->rank)
        return x->cell->rank < y->cell->rank ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Every cell of table tb that the run's benchmarks recorded, the
 * candidates of one cell in the order they are tried (*out malloc'ed). */
static int collect(const struct gc_results *r, const struct gc_sum_table *tb, struct offer **out,
                   int *n)
{
    struct offer *o = NULL;
    int k = 0, cap = 0;

    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_bench_result *b = &r->benches[i];

        if (!b->report || !b->report->cells)
            continue;
        for (const struct gc_sum_cell *c = b->report->cells; c->table; c++) {
            if (c->table != tb)
                continue;
            if (k == cap) {
                struct offer *p = realloc(o, (size_t)(cap = cap ? 2 * cap : 64) * sizeof(*p));
                if (!p) {
                    free(o);
                    return GC_ENOMEM;
                }
                o = p;
            }
            o[k] = (struct offer){b->name, c, k};
            k++;
        }
    }
    if (k > 1)
        qsort(o, (size_t)k, sizeof(*o), by_rank);
    *out = o;
    *n = k;
    return 0;
}

static bool row_has_value(const struct gc_summary_row *row, int ncols)
{
    for (int c = 0; c < ncols; c++)
        if (isfinite(row->v[c]))
            return true;
    return false;
}

static int add_row(struct gc_summary_table *t, const char *label, const double *v)
{
    struct gc_summary_row *rows = realloc(t->rows, (size_t)(t->nrows + 1) * sizeof(*rows));

    if (!rows)
        return GC_ENOMEM;
    t->rows = rows;
    struct gc_summary_row *row = &rows[t->nrows];
    snprintf(row->label, sizeof(row->label), "%s", label);
    for (int c = 0; c < GC_SUMMARY_MAXCOLS; c++)
        row->v[c] = c < t->ncols ? v[c] : NAN;
    if (row_has_value(row, t->ncols))
        t->nrows++;
    return 0;
}

/* One row per benchmark of the run that declares cells without a row. */
static int build_per_bench(const struct gc_results *r, const struct offer *o, int no,
                           struct gc_summary_table *t)
{
    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_bench_result *b = &r->benches[i];
        const char *label = b->name;
        double v[GC_SUMMARY_MAXCOLS];
        bool mine = false, keyed = true;

        for (int k = 0; k < no; k++) {
            const struct gc_sum_cell *c = o[k].cell;

            if (strcmp(o[k].bench, b->name) != 0)
                continue;
            if (!mine && c->row && strncmp(label, c->row, strlen(c->row)) == 0)
                label += strlen(c->row);
            mine = true;
            if (c->key && !find_metric(b, c->metric))
                keyed = false;
        }
        if (!mine || !keyed)
            continue;
        for (int c = 0; c < t->ncols; c++) {
            v[c] = NAN;
            for (int k = 0; k < no && !isfinite(v[c]); k++)
                if (o[k].cell->col == c && strcmp(o[k].bench, b->name) == 0)
                    v[c] = pick(b, o[k].cell);
        }
        int rc = add_row(t, label, v);
        if (rc)
            return rc;
    }
    return 0;
}

/* The table's fixed rows, each cell from its first candidate with a value. */
static int build_fixed(const struct gc_results *r, const struct gc_sum_table *tb,
                       const struct offer *o, int no, struct gc_summary_table *t)
{
    for (int i = 0; i < GC_SUM_MAXROWS && tb->rows[i]; i++) {
        double v[GC_SUMMARY_MAXCOLS];

        for (int c = 0; c < t->ncols; c++) {
            v[c] = NAN;
            for (int k = 0; k < no && !isfinite(v[c]); k++)
                if (o[k].cell->col == c && o[k].cell->row &&
                    strcmp(o[k].cell->row, tb->rows[i]) == 0)
                    v[c] = pick(gc__results_find(r, o[k].bench), o[k].cell);
        }
        int rc = add_row(t, tb->rows[i], v);
        if (rc)
            return rc;
    }
    return 0;
}

/* A family of series as rows, the point at each column's x as cells. */
static int build_grid(const struct gc_results *r, const struct gc_sum_table *tb,
                      const struct offer *o, int no, struct gc_summary_table *t)
{
    for (int k = 0; k < no; k++) {
        const struct gc_bench_result *b = gc__results_find(r, o[k].bench);
        const char *prefix = o[k].cell->metric;
        size_t plen = strlen(prefix);

        if (!b || (b->status != GC_BENCH_OK && b->status != GC_BENCH_INTERRUPTED))
            continue;
        for (int i = 0; i < b->nseries; i++) {
            const struct gc_series *se = &b->series[i];
            double v[GC_SUMMARY_MAXCOLS];
            char label[48];

            if (strncmp(se->name, prefix, plen) != 0)
                continue;
            for (int c = 0; c < t->ncols; c++) {
                v[c] = NAN;
                for (int p = 0; p < se->npoints; p++)
                    if (se->points[p].x == tb->x[c])
                        v[c] = se->points[p].y;
            }
            snprintf(label, sizeof(label), "%s%s", o[k].cell->row ? o[k].cell->row : "",
                     se->name + plen);
            int rc = add_row(t, label, v);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int build_table(const struct gc_results *r, const struct gc_sum_table *tb,
                       struct gc_summary_table *t)
{
    struct offer *o = NULL;
    int no = 0, rc = collect(r, tb, &o, &no);

    if (rc)
        return rc;
    t->name = tb->name;
    t->title = tb->title;
    t->label_title = tb->label_title;
    t->ncols = tb->ncols;
    for (int c = 0; c < tb->ncols; c++) {
        t->col_title[c] = tb->col_title[c];
        t->col_unit[c] = tb->col_unit[c] ? tb->col_unit[c] : "";
    }
    for (int k = 0; k < no; k++) {
        const struct gc_sum_cell *c = o[k].cell;
        int col = tb->kind == GC_SUM_GRID ? -1 : c->col;

        if (c->pick != GC_SUM_VALUE)
            continue;
        for (int j = 0; j < tb->ncols; j++) {
            if ((col >= 0 && j != col) || t->col_measured[j])
                continue;
            char name[160];

            /* The table's name counts as part of the metric's ("overheads"). */
            snprintf(name, sizeof(name), "%s %s", tb->name, c->metric);
            t->col_measured[j] = true;
            t->col_direction[j] = gc__metric_direction(name, t->col_unit[j]);
            if (t->col_direction[j] == 0 && c->unit)
                t->col_direction[j] = gc__metric_direction(name, c->unit);
        }
    }
    rc = tb->kind == GC_SUM_PER_BENCH ? build_per_bench(r, o, no, t)
         : tb->kind == GC_SUM_FIXED   ? build_fixed(r, tb, o, no, t)
                                      : build_grid(r, tb, o, no, t);
    free(o);
    return rc;
}

int gc__summary_build(const struct gc_results *r, struct gc_summary_table **out, int *n)
{
    int nt = 0, k = 0, rc = 0;
    struct gc_summary_table *t;

    *out = NULL;
    *n = 0;
    while (gc__sum_table_at(nt))
        nt++;
    t = calloc((size_t)(nt > 0 ? nt : 1), sizeof(*t));
    if (!t)
        return GC_ENOMEM;
    for (int i = 0; i < nt && rc == 0; i++) {
        rc = build_table(r, gc__sum_table_at(i), &t[k]);
        if (rc == 0 && t[k].nrows > 0)
            k++;
        else {
            free(t[k].rows);
            memset(&t[k], 0, sizeof(t[k]));
        }
    }
    if (rc) {
        gc__summary_free(t, k);
        return rc;
    }
    *out = t;
    *n = k;
    return 0;
}

void gc__summary_free(struct gc_summary_table *t, int n)
{
    if (!t)
        return;
    for (int i = 0; i < n; i++)
        free(t[i].rows);
    free(t);
}

/* ---- Writers ------------------------------------------------------------ */

static void fmt_cell(char *buf, size_t len, double v, const char *unit)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (strcmp(unit, "B") == 0 || strcmp(unit, "B/s") == 0)
        gc__fmt_quantity(buf, len, v, unit);
    else
        gc__fmt_sig(buf, len, v);
}

/* The unit line under a column title: capacities and byte rates carry
 * their unit in every cell, counts and ratios have none. */
static const char *unit_line(const char *unit)
{
    return unit[0] && strcmp(unit, "B") != 0 && strcmp(unit, "B/s") != 0 ? unit : "";
}

static void put_cells(FILE *f, int cols, const int *width, const char *const *cell)
{
    char line[1024];
    size_t off = 0;

    for (int c = 0; c < cols && off < sizeof(line); c++) {
        int w = snprintf(line + off, sizeof(line) - off, c == 0 ? "  %-*s" : "  %*s", width[c],
                         cell[c]);
        off += w > 0 ? (size_t)w : 0;
    }
    if (off >= sizeof(line))
        off = sizeof(line) - 1;
    while (off > 0 && line[off - 1] == ' ')
        off--;
    line[off] = '\0';
    fprintf(f, "%s\n", line);
}

int gc__summary_write_text(const struct gc_summary_table *t, int n, FILE *f)
{
    for (int i = 0; i < n; i++) {
        const struct gc_summary_table *tb = &t[i];
        int cols = tb->ncols + 1, width[GC_SUMMARY_MAXCOLS + 1];
        const char *head[GC_SUMMARY_MAXCOLS + 1], *units[GC_SUMMARY_MAXCOLS + 1];
        const char *cells[GC_SUMMARY_MAXCOLS + 1];
        char text[GC_SUMMARY_MAXCOLS][48];
        bool any_unit = false;

        head[0] = tb->label_title;
        units[0] = "";
        for (int c = 0; c < tb->ncols; c++) {
            head[c + 1] = tb->col_title[c];
            units[c + 1] = unit_line(tb->col_unit[c]);
            any_unit = any_unit || units[c + 1][0];
        }
        for (int c = 0; c < cols; c++) {
            int a = (int)strlen(head[c]), b = (int)strlen(units[c]);
            width[c] = a > b ? a : b;
        }
        for (int ro = 0; ro < tb->nrows; ro++) {
            int l = (int)strlen(tb->rows[ro].label);
            if (l > width[0])
                width[0] = l;
            for (int c = 0; c < tb->ncols; c++) {
                fmt_cell(text[c], sizeof(text[c]), tb->rows[ro].v[c], tb->col_unit[c]);
                l = (int)strlen(text[c]);
                if (l > width[c + 1])
                    width[c + 1] = l;
            }
        }
        fprintf(f, "\n== summary: %s\n", tb->title);
        put_cells(f, cols, width, head);
        if (any_unit)
            put_cells(f, cols, width, units);
        for (int ro = 0; ro < tb->nrows; ro++) {
            cells[0] = tb->rows[ro].label;
            for (int c = 0; c < tb->ncols; c++) {
                fmt_cell(text[c], sizeof(text[c]), tb->rows[ro].v[c], tb->col_unit[c]);
                cells[c + 1] = text[c];
            }
            put_cells(f, cols, width, cells);
        }
    }
    return ferror(f) ? GC_EIO : 0;
}

int gc__summary_write_csv(const struct gc_summary_table *t, FILE *f)
{
    char num[40];

    fprintf(f, "%s", t->label_title);
    for (int c = 0; c < t->ncols; c++) {
        if (t->col_unit[c][0])
            fprintf(f, ",%s [%s]", t->col_title[c], t->col_unit[c]);
        else
            fprintf(f, ",%s", t->col_title[c]);
    }
    fputc('\n', f);
    for (int ro = 0; ro < t->nrows; ro++) {
        /* Labels are benchmark names and fixed words: no commas or quotes. */
        fprintf(f, "%s", t->rows[ro].label);
        for (int c = 0; c < t->ncols; c++) {
            gc__fmt_double(num, sizeof(num), t->rows[ro].v[c]);
            fprintf(f, ",%s", num);
        }
        fputc('\n', f);
    }
    return ferror(f) ? GC_EIO : 0;
}
