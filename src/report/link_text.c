/* The link.* rows as aligned text matrices (gc_write_link_text): rows are
 * the source device, columns the destination, values with SI prefixes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuchar/link.h"
#include "report/link_matrix.h"
#include "report/units.h"

#define CELL 14

static void cell_text(const struct gc_link_matrix *m, int from, int to, char *buf, size_t len)
{
    const struct gc_metric *x = m->cell[from * m->n + to];

    if (from == to) {
        snprintf(buf, len, "-");
        return;
    }
    if (!x || !isfinite(x->value)) {
        snprintf(buf, len, "n/a");
        if (x && gc__link_labelled(m->b))
            gc__link_label(x, buf, len);
        return;
    }
    if (gc__link_labelled(m->b)) {
        char label[32], q[32];

        gc__link_label(x, label, sizeof(label));
        gc__fmt_quantity(q, sizeof(q), x->value, x->unit);
        snprintf(buf, len, "%s %s", label, q);
        return;
    }
    gc__fmt_quantity(buf, len, x->value, x->unit);
}

static void write_matrix(const struct gc_link_matrix *m, FILE *f)
{
    int w = CELL;
    char buf[64];

    /* Wide enough for the widest cell. */
    for (int a = 0; a < m->n; a++)
        for (int b = 0; b < m->n; b++) {
            cell_text(m, a, b, buf, sizeof(buf));
            w = (int)strlen(buf) + 2 > w ? (int)strlen(buf) + 2 : w;
        }
    fprintf(f, "  %s%s%s (rows: from, columns: to)\n", m->b->name, m->suffix ? " " : "",
            m->suffix ? m->suffix : "");
    fprintf(f, "  %6s", "");
    for (int b = 0; b < m->n; b++)
        fprintf(f, "%*d", w, b);
    fputc('\n', f);
    for (int a = 0; a < m->n; a++) {
        fprintf(f, "  %6d", a);
        for (int b = 0; b < m->n; b++) {
            cell_text(m, a, b, buf, sizeof(buf));
            fprintf(f, "%*s", w, buf);
        }
        fputc('\n', f);
    }
}

/* Unreachable pairs with their reasons, the other figures of the row, and
 * each pair's share of its limit. */
static void write_notes(const struct gc_bench_result *b, FILE *f)
{
    char q[48], lim[48];

    for (int i = 0; i < b->nmetrics; i++) {
        const struct gc_metric *x = &b->metrics[i];

        if (strcmp(x->name, "devices") == 0) {
            fprintf(f, "    devices: %s\n", x->note);
            continue;
        }
        if (!gc__link_is_cell(x)) {
            gc__fmt_quantity(q, sizeof(q), x->value, x->unit);
            fprintf(f, "    %-16s %s", x->name, q);
            if (isfinite(x->limit) && isfinite(x->fraction)) {
                gc__fmt_quantity(lim, sizeof(lim), x->limit, x->unit);
                fprintf(f, " (%.0f%% of %s)", 100 * x->fraction, lim);
            }
            fputc('\n', f);
            continue;
        }
        if (!strchr(x->name, '.') && !isfinite(x->value))
            fprintf(f, "    %s: %s\n", x->name, x->note);
        else if (!strchr(x->name, '.') && isfinite(x->fraction))
            fprintf(f, "    %s: %.0f%% of the limit (%s)\n", x->name, 100 * x->fraction, x->note);
    }
}

static int write_row(const struct gc_bench_result *b, FILE *f)
{
    static const char *const suffixes[] = {NULL, "sum"};
    int rc = 0;

    fprintf(f, "%s", b->name);
    if (b->status != GC_BENCH_OK) {
        fprintf(f, ": %s\n\n", b->error[0] ? b->error : "no result");
        if (b->status != GC_BENCH_INTERRUPTED)
            return 0;
    } else {
        fputc('\n', f);
    }
    for (size_t s = 0; s < sizeof(suffixes) / sizeof(suffixes[0]) && rc == 0; s++) {
        struct gc_link_matrix m;

        if ((rc = gc__link_matrix(b, suffixes[s], &m)))
            break;
        if (m.n > 0)
            write_matrix(&m, f);
        gc__link_matrix_free(&m);
    }
    write_notes(b, f);
    if (b->warning[0])
        fprintf(f, "    warning: %s\n", b->warning);
    fputc('\n', f);
    return rc;
}

int gc_write_link_text(const struct gc_results *links, FILE *f)
{
    int rc = 0;

    if (!links || !f)
        return GC_EINVAL;
    for (int i = 0; i < links->nbenches && rc == 0; i++)
        if (gc__link_row(&links->benches[i]))
            rc = write_row(&links->benches[i], f);
    if (rc == 0 && ferror(f))
        rc = GC_EIO;
    return rc;
}
