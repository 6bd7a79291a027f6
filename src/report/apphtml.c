/* The HTML page's views of an application benchmark (report/apphtml.h):
 * uCLbench's Table 2 where the benchmark holds it (the best version,
 * improvement, primary optimization and its contribution),
 * and per kernel the measured and predicted time with gpumembench's
 * Table IV columns, the rows the text report prints (report/apptext.c).
 * Reads only the results tree. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/results.h"
#include "report/apphtml.h"
#include "report/apptext.h"
#include "report/html.h"

static void kv(FILE *f, const char *k, const char *v)
{
    fputs("<tr><th>", f);
    gc__html_esc(f, k);
    fputs("</th><td>", f);
    gc__html_esc(f, v);
    fputs("</td></tr>\n", f);
}

/* The text of a note up to its first ';' (the metric's own words). */
static void lead(const char *note, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s", (int)strcspn(note, ";"), note);
}

static void table2(FILE *f, const struct gc_bench_result *b)
{
    const struct gc_metric *best = gc__bench_find_metric(b, "best_variant");
    const struct gc_metric *imp = gc__bench_find_metric(b, "improvement");
    const struct gc_metric *con = gc__bench_find_metric(b, "primary_contribution");
    char v[256];

    if (!best || !imp)
        return;
    fputs("<h4>uCLbench Table 2 (measured)</h4>\n<table class=\"kv\" data-table=\"table2\">\n", f);
    lead(best->note, v, sizeof(v));
    kv(f, "best version", strncmp(v, "best version ", 13) == 0 ? v + 13 : v);
    snprintf(v, sizeof(v), "%+.1f%%", imp->value);
    kv(f, "improvement over the baseline", v);
    if (con && isfinite(con->value)) {
        char p[200];

        lead(con->note, p, sizeof(p));
        snprintf(v, sizeof(v), "%s: %+.1f%%", p, con->value);
        kv(f, "primary optimization, its own improvement", v);
    } else {
        kv(f, "primary optimization", "- (the best version is a single optimization)");
    }
    fputs("</table>\n", f);
}

static void table4(FILE *f, const struct gc_bench_result *b)
{
    static struct gc_app_row rows[GC_APP_MAXK];
    int n = gc__app_rows(b, rows);
    const struct gc_metric *med = gc__bench_find_metric(b, "prediction_error_median");

    if (n == 0)
        return;
    fputs("<h4>Measured vs predicted time; dominant resource vs measured peak (gpumembench "
          "Table IV)</h4>\n<table class=\"summary\" data-table=\"predicted\">\n<thead><tr>",
          f);
    for (int c = 0; c < GC_APP_NCOLS; c++) {
        fputs("<th>", f);
        gc__html_esc(f, gc__app_titles[c]);
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n<tbody>\n", f);
    for (int i = 0; i < n; i++) {
        fputs("<tr>", f);
        for (int c = 0; c < GC_APP_NCOLS; c++) {
            fputs(gc__app_numeric[c] ? "<td class=\"num\">" : "<td>", f);
            gc__html_esc(f, rows[i].c[c]);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    if (med && isfinite(med->value)) {
        fprintf(f,
                "<p class=\"ctx\" data-metric=\"prediction_error_median\">median |error| "
                "%.1f%% (",
                med->value);
        gc__html_esc(f, med->note);
        fputs(")</p>\n", f);
    }
}

void gc__app_html(FILE *f, const struct gc_bench_result *b)
{
    if (b->status != GC_BENCH_OK || strcmp(b->group, "application") != 0)
        return;
    table2(f, b);
    table4(f, b);
}
