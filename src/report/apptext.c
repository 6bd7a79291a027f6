/* The text report's view of application benchmarks: per kernel the measured
 * and predicted time with the error and the bound that sets the prediction
 * (docs/methodology.md §26.3), and gpumembench's Table IV: the dominant
 * resource's attained rate beside the measured peak (§26.4). Reads only the
 * results tree. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/apptext.h"
#include "report/units.h"

#define NC GC_APP_NCOLS
#define MAXK GC_APP_MAXK

const char *const gc__app_titles[NC] = {"kernel",   "time",     "predicted", "error",    "bound",
                                        "dominant", "attained", "peak",      "% of peak"};
const bool gc__app_numeric[NC] = {false, true, true, true, false, false, true, true, true};

static const struct gc_metric *find(const struct gc_bench_result *b, const char *k,
                                    const char *what)
{
    for (int i = 0; i < b->nmetrics; i++) {
        const char *n = b->metrics[i].name;
        size_t kl = strlen(k);

        if (strncmp(n, k, kl) == 0 && n[kl] == '.' && strcmp(n + kl + 1, what) == 0)
            return &b->metrics[i];
    }
    return NULL;
}

/* The word after "tag: " in a note, up to ';' or ','. */
static void word_after(const char *note, const char *tag, char *out, size_t len)
{
    const char *p = note ? strstr(note, tag) : NULL;
    size_t n = 0;

    snprintf(out, len, "-");
    if (!p)
        return;
    p += strlen(tag);
    while (p[n] && p[n] != ';' && p[n] != ',')
        n++;
    snprintf(out, len, "%.*s", (int)n, p);
}

static void fill(const struct gc_bench_result *b, const char *k, struct gc_app_row *r)
{
    const struct gc_metric *t = find(b, k, "time"), *p = find(b, k, "predicted_time");
    const struct gc_metric *e = find(b, k, "prediction_error"), *a = find(b, k, "attained");

    for (int c = 0; c < NC; c++)
        snprintf(r->c[c], sizeof(r->c[c]), "-");
    snprintf(r->c[0], sizeof(r->c[0]), "%s", k);
    gc__fmt_quantity(r->c[1], sizeof(r->c[1]), t->value, "s");
    if (p && isfinite(p->value)) {
        gc__fmt_quantity(r->c[2], sizeof(r->c[2]), p->value, "s");
        word_after(p->note, "bound: ", r->c[4], sizeof(r->c[4]));
    }
    if (e && isfinite(e->value))
        snprintf(r->c[3], sizeof(r->c[3]), "%+.1f%%", e->value);
    if (a && isfinite(a->value)) {
        word_after(a->note, "dominant: ", r->c[5], sizeof(r->c[5]));
        gc__fmt_quantity(r->c[6], sizeof(r->c[6]), a->value, a->unit);
        gc__fmt_quantity(r->c[7], sizeof(r->c[7]), a->limit, a->unit);
        snprintf(r->c[8], sizeof(r->c[8]), "%.1f%%%s", 100 * a->fraction,
                 a->fraction > 1 ? " ABOVE" : "");
    } else if (a) {
        snprintf(r->c[5], sizeof(r->c[5]), "no peak");
    }
}

static void put(FILE *f, const char (*cells)[48], const char *const *titles_or_null, const int *w)
{
    char line[640];
    size_t off = 0;

    for (int c = 0; c < NC && off < sizeof(line); c++) {
        const char *s = titles_or_null ? titles_or_null[c] : cells[c];
        int n =
            snprintf(line + off, sizeof(line) - off, "  %*s", gc__app_numeric[c] ? w[c] : -w[c], s);

        off += n > 0 ? (size_t)n : 0;
    }
    if (off >= sizeof(line))
        off = sizeof(line) - 1;
    while (off > 0 && line[off - 1] == ' ')
        off--;
    line[off] = '\0';
    fprintf(f, "%s\n", line);
}

int gc__app_rows(const struct gc_bench_result *b, struct gc_app_row *rows)
{
    int n = 0;

    for (int i = 0; i < b->nmetrics && n < MAXK; i++) {
        const char *nm = b->metrics[i].name, *dot = strrchr(nm, '.');
        char k[48];

        if (!dot || strcmp(dot, ".time") != 0 || (size_t)(dot - nm) >= sizeof(k))
            continue;
        snprintf(k, sizeof(k), "%.*s", (int)(dot - nm), nm);
        if (find(b, k, "threads"))
            fill(b, k, &rows[n++]);
    }
    return n;
}

static void write_bench(const struct gc_bench_result *b, FILE *f)
{
    static struct gc_app_row rows[MAXK];
    int n = gc__app_rows(b, rows), w[NC];

    if (n == 0)
        return;
    for (int c = 0; c < NC; c++) {
        w[c] = (int)strlen(gc__app_titles[c]);
        for (int i = 0; i < n; i++)
            if ((int)strlen(rows[i].c[c]) > w[c])
                w[c] = (int)strlen(rows[i].c[c]);
    }
    fprintf(f,
            "\n== %s: measured vs predicted time; dominant resource vs measured peak "
            "(gpumembench Table IV)\n",
            b->name);
    put(f, NULL, gc__app_titles, w);
    for (int i = 0; i < n; i++)
        put(f, (const char(*)[48])rows[i].c, NULL, w);
    for (int i = 0; i < b->nmetrics; i++)
        if (strcmp(b->metrics[i].name, "prediction_error_median") == 0)
            fprintf(f, "  median |error| %.1f%% (%s)\n", b->metrics[i].value, b->metrics[i].note);
}

void gc__app_text(const struct gc_results *r, FILE *f)
{
    for (int i = 0; i < r->nbenches; i++)
        if (r->benches[i].status == GC_BENCH_OK && strcmp(r->benches[i].group, "application") == 0)
            write_bench(&r->benches[i], f);
}
