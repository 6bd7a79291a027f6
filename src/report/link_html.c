/* The link.* rows as HTML heatmaps (gc_write_link_html): a table per row,
 * each cell shaded by its value against the row's largest. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuchar/link.h"
#include "report/html.h"
#include "report/link_matrix.h"
#include "report/units.h"

static void write_cell(const struct gc_link_matrix *m, int a, int b, double top, FILE *f)
{
    const struct gc_metric *x = m->cell[a * m->n + b];
    char q[48];

    if (a == b) {
        fprintf(f, "<td class=\"gc-link-diag\">-</td>");
        return;
    }
    if (!x || !isfinite(x->value)) {
        fprintf(f, "<td class=\"gc-link-na\" title=\"");
        gc__html_esc(f, x ? x->note : "no figure");
        fprintf(f, "\">n/a</td>");
        return;
    }
    /* Latencies (top is then the shortest): shorter is darker. */
    double share = strcmp(x->unit, "s") == 0 ? (x->value > 0 ? top / x->value : 0)
                   : top > 0                 ? x->value / top
                                             : 0;
    int light = 95 - (int)(50 * fmin(1.0, fmax(0.0, share)));
    gc__fmt_quantity(q, sizeof(q), x->value, x->unit);
    fprintf(f, "<td style=\"background:hsl(210,70%%,%d%%)\" title=\"", light);
    gc__html_esc(f, x->note);
    fprintf(f, "\">");
    if (gc__link_labelled(m->b)) {
        char label[32];
        gc__link_label(x, label, sizeof(label));
        gc__html_esc(f, label);
        fprintf(f, "<br>");
    }
    gc__html_esc(f, q);
    if (isfinite(x->fraction))
        fprintf(f, "<br><small>%.0f%% of limit</small>", 100 * x->fraction);
    fprintf(f, "</td>");
}

static void write_matrix(const struct gc_link_matrix *m, FILE *f)
{
    double top = 0;

    for (int i = 0; i < m->n * m->n; i++)
        if (m->cell[i] && isfinite(m->cell[i]->value))
            top = strcmp(m->unit, "s") == 0
                      ? (top == 0 ? m->cell[i]->value : fmin(top, m->cell[i]->value))
                      : fmax(top, m->cell[i]->value);
    fprintf(f, "<table class=\"gc-link\">\n<caption>");
    gc__html_esc(f, m->b->name);
    if (m->suffix) {
        fputc(' ', f);
        gc__html_esc(f, m->suffix);
    }
    fprintf(f, " (rows: from, columns: to)</caption>\n<tr><th></th>");
    for (int b = 0; b < m->n; b++)
        fprintf(f, "<th>%d</th>", b);
    fprintf(f, "</tr>\n");
    for (int a = 0; a < m->n; a++) {
        fprintf(f, "<tr><th>%d</th>", a);
        for (int b = 0; b < m->n; b++)
            write_cell(m, a, b, top, f);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

int gc_write_link_html(const struct gc_results *links, FILE *f)
{
    static const char *const suffixes[] = {NULL, "sum"};
    int rc = 0;

    if (!links || !f)
        return GC_EINVAL;
    fprintf(f, "<section class=\"gc-links\">\n<h2>Peer links</h2>\n");
    for (int i = 0; i < links->nbenches && rc == 0; i++) {
        const struct gc_bench_result *b = &links->benches[i];

        if (!gc__link_row(b))
            continue;
        if (b->status != GC_BENCH_OK && b->status != GC_BENCH_INTERRUPTED) {
            fprintf(f, "<p>");
            gc__html_esc(f, b->name);
            fprintf(f, ": ");
            gc__html_esc(f, b->error);
            fprintf(f, "</p>\n");
            continue;
        }
        for (size_t s = 0; s < sizeof(suffixes) / sizeof(suffixes[0]) && rc == 0; s++) {
            struct gc_link_matrix m;

            if ((rc = gc__link_matrix(b, suffixes[s], &m)))
                break;
            if (m.n > 0)
                write_matrix(&m, f);
            gc__link_matrix_free(&m);
        }
    }
    fprintf(f, "</section>\n");
    return rc == 0 && ferror(f) ? GC_EIO : rc;
}
