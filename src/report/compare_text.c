/* The comparison as text: aligned tables per benchmark for a terminal, or
 * one markdown table for a pull request or a wiki. Values are shown in the
 * baseline's scale so that a row reads across. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuchar/gpuchar.h"
#include "report/units.h"

#define MAXCOLS 64

struct table {
    int ncols;
    bool right[MAXCOLS];
    char head[MAXCOLS][48];
    char (*cell)[MAXCOLS][200]; /* rows */
    int nrows, cap;
};

static int new_row(struct table *t)
{
    if (t->nrows == t->cap) {
        int ncap = t->cap ? 2 * t->cap : 16;
        char(*nc)[MAXCOLS][200] = realloc(t->cell, (size_t)ncap * sizeof(*nc));

        if (!nc)
            return GC_ENOMEM;
        t->cell = nc;
        t->cap = ncap;
    }
    memset(t->cell[t->nrows], 0, sizeof(t->cell[t->nrows]));
    return t->nrows++;
}

static void set(struct table *t, int row, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set(struct table *t, int row, int col, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(t->cell[row][col], sizeof(t->cell[row][col]), fmt, ap);
    va_end(ap);
}

static const char *verdict_text(enum gc_cmp_verdict v)
{
    if (v == GC_CMP_REGRESSED)
        return "REGRESSED";
    if (v == GC_CMP_FAILED)
        return "FAILED";
    if (v == GC_CMP_NOISE)
        return "within noise";
    return gc_cmp_verdict_name(v);
}

/* "REGRESSED -10.3% (noise 1.2%)", "same +0.4%", "missing". */
static void verdict_cell(char *buf, size_t len, const struct gc_cmp_cell *x)
{
    size_t off;

    snprintf(buf, len, "%s", verdict_text(x->verdict));
    off = strlen(buf);
    if (isfinite(x->change) &&
        (x->verdict == GC_CMP_SAME || x->verdict == GC_CMP_NOISE || x->verdict == GC_CMP_IMPROVED ||
         x->verdict == GC_CMP_REGRESSED || x->verdict == GC_CMP_CHANGED))
        off += (size_t)snprintf(buf + off, len - off, " %+.1f%%", 100 * x->change);
    if (off < len && isfinite(x->noise) && x->noise > 0 &&
        (x->verdict == GC_CMP_NOISE || x->verdict == GC_CMP_IMPROVED ||
         x->verdict == GC_CMP_REGRESSED))
        snprintf(buf + off, len - off, " (noise %.1f%%)", 100 * x->noise);
}

static void ratio_text(char *buf, size_t len, double v)
{
    if (isfinite(v))
        snprintf(buf, len, "%.3f", v);
    else
        snprintf(buf, len, "-");
}

/* Columns: metric, unit, then per run its value, and for runs after the
 * baseline the ratio (and per clock per CU across devices) and verdict;
 * notes last. */
static void header(const struct gc_comparison *c, struct table *t, bool with_bench)
{
    int n = 0;

    if (with_bench)
        snprintf(t->head[n++], sizeof(t->head[0]), "benchmark");
    snprintf(t->head[n++], sizeof(t->head[0]), "metric");
    snprintf(t->head[n++], sizeof(t->head[0]), "unit");
    for (int k = 0; k < c->nruns && n + 4 < MAXCOLS; k++) {
        t->right[n] = true;
        snprintf(t->head[n++], sizeof(t->head[0]), "%s", c->label[k]);
        if (k == 0)
            continue;
        t->right[n] = true;
        snprintf(t->head[n++], sizeof(t->head[0]), "%s/%s", c->label[k], c->label[0]);
        if (c->cross_device) {
            t->right[n] = true;
            snprintf(t->head[n++], sizeof(t->head[0]), "%s/%s per clk/CU", c->label[k],
                     c->label[0]);
        }
        snprintf(t->head[n++], sizeof(t->head[0]), "verdict %s", c->label[k]);
    }
    snprintf(t->head[n++], sizeof(t->head[0]), "note");
    t->ncols = n;
}

static int fill_row(const struct gc_comparison *c, const struct gc_cmp_row *row, struct table *t,
                    bool with_bench)
{
    struct gc_unit_scale sc;
    char note[600] = "";
    double ref = NAN;
    int r = new_row(t), n = 0;

    if (r < 0)
        return r;
    for (int k = 0; k < c->nruns && !isfinite(ref); k++)
        if (row->cell[k].present)
            ref = row->cell[k].value;
    gc__unit_scale(ref, row->unit, &sc);
    if (with_bench)
        set(t, r, n++, "%s", row->bench);
    set(t, r, n++, "%s", row->metric[0] ? row->metric : "(status)");
    set(t, r, n++, "%s", row->metric[0] ? sc.unit : "");
    for (int k = 0; k < c->nruns && n + 4 < MAXCOLS; k++) {
        const struct gc_cmp_cell *x = &row->cell[k];
        char num[64];

        if (x->note[0]) {
            size_t l = strlen(note);

            snprintf(note + l, sizeof(note) - l, "%s%s: %s", l ? "; " : "", c->label[k], x->note);
        }
        if (!row->metric[0])
            snprintf(num, sizeof(num), "%s", x->present ? "yes" : "-");
        else if (x->present)
            gc__fmt_scaled(num, sizeof(num), x->value, &sc);
        else
            snprintf(num, sizeof(num), "-");
        set(t, r, n++, "%s", num);
        if (k == 0)
            continue;
        ratio_text(num, sizeof(num), x->ratio);
        set(t, r, n++, "%s", num);
        if (c->cross_device) {
            ratio_text(num, sizeof(num), x->ratio_per_clk_cu);
            set(t, r, n++, "%s", num);
        }
        verdict_cell(t->cell[r][n], sizeof(t->cell[r][n]), x);
        n++;
    }
    set(t, r, n, "%s", note);
    return 0;
}

static void put_text_table(FILE *f, const struct table *t)
{
    int w[MAXCOLS];

    for (int c = 0; c < t->ncols; c++) {
        w[c] = (int)strlen(t->head[c]);
        for (int r = 0; r < t->nrows; r++) {
            int l = (int)strlen(t->cell[r][c]);

            w[c] = l > w[c] ? l : w[c];
        }
    }
    for (int r = -1; r < t->nrows; r++) {
        char line[4096];
        size_t off = 0;

        for (int c = 0; c < t->ncols && off < sizeof(line); c++) {
            const char *s = r < 0 ? t->head[c] : t->cell[r][c];
            int pad = c == t->ncols - 1 ? 0 : w[c];
            int k = snprintf(line + off, sizeof(line) - off, "  %*s", t->right[c] ? pad : -pad, s);

            off += k > 0 ? (size_t)k : 0;
        }
        if (off >= sizeof(line))
            off = sizeof(line) - 1;
        while (off > 0 && line[off - 1] == ' ')
            off--;
        line[off] = '\0';
        fprintf(f, "%s\n", line);
    }
}

/* A markdown cell: '|' escaped, line breaks as blanks. */
static void md_cell(FILE *f, const char *s)
{
    fputs("| ", f);
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else if (*s == '\n' || *s == '\r')
            fputc(' ', f);
        else
            fputc(*s, f);
    }
    fputc(' ', f);
}

static void put_md_table(FILE *f, const struct table *t)
{
    for (int c = 0; c < t->ncols; c++)
        md_cell(f, t->head[c]);
    fputs("|\n", f);
    for (int c = 0; c < t->ncols; c++)
        fputs(t->right[c] ? "|---:" : "|---", f);
    fputs("|\n", f);
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++)
            md_cell(f, t->cell[r][c]);
        fputs("|\n", f);
    }
}

static void run_line(FILE *f, const struct gc_comparison *c, int k, bool markdown)
{
    const struct gc_results *r = c->runs[k];
    const struct gc_device_summary *d = &r->meta.device;
    char dev[400], ver[128];

    snprintf(dev, sizeof(dev), "%s%s%s%s", d->name[0] ? d->name : "(no device)",
             d->spec[0] ? " (" : "", d->spec, d->spec[0] ? ")" : "");
    snprintf(ver, sizeof(ver), "gpuchar %s (git %s)", r->meta.tool_version,
             r->meta.git_revision[0] ? r->meta.git_revision : "unknown");
    if (markdown) {
        md_cell(f, c->label[k]);
        md_cell(f, c->source[k]);
        md_cell(f, dev);
        md_cell(f, r->meta.date);
        md_cell(f, ver);
        fputs("|\n", f);
    } else {
        fprintf(f, "  %s  %s: %s, %s, %s\n", c->label[k], c->source[k][0] ? c->source[k] : "-", dev,
                r->meta.date[0] ? r->meta.date : "no date", ver);
    }
}

/* The closing lines: counts of every verdict and the regressed metrics. */
static void summary(FILE *f, const struct gc_comparison *c, bool markdown)
{
    int count[GC_CMP_BASELINE + 1] = {0}, listed = 0;

    for (int i = 0; i < c->nrows; i++)
        for (int k = 1; k < c->nruns; k++)
            count[c->rows[i].cell[k].verdict]++;
    fprintf(f, "\n%s%d regression%s%s", markdown ? "**" : "", c->regressions,
            c->regressions == 1 ? "" : "s", markdown ? "**" : "");
    fprintf(f, ", %d improvement%s; %d same, %d within noise, %d changed (not counted)",
            c->improvements, c->improvements == 1 ? "" : "s", count[GC_CMP_SAME],
            count[GC_CMP_NOISE], count[GC_CMP_CHANGED]);
    if (count[GC_CMP_MISSING] + count[GC_CMP_NEW] + count[GC_CMP_UNKNOWN])
        fprintf(f, ", %d missing, %d new, %d unknown", count[GC_CMP_MISSING], count[GC_CMP_NEW],
                count[GC_CMP_UNKNOWN]);
    fputc('\n', f);
    for (int i = 0; i < c->nrows; i++)
        for (int k = 1; k < c->nruns; k++) {
            const struct gc_cmp_row *row = &c->rows[i];
            enum gc_cmp_verdict v = row->cell[k].verdict;

            if (v != GC_CMP_REGRESSED && v != GC_CMP_FAILED)
                continue;
            fprintf(f, "%s%s %s/%s%s%s%s\n", markdown ? "- " : "  ",
                    v == GC_CMP_FAILED ? "failed:" : "regressed:", row->bench,
                    row->metric[0] ? row->metric : "(status)", c->nruns > 2 ? " in " : "",
                    c->nruns > 2 ? c->label[k] : "", "");
            listed++;
        }
    (void)listed;
}

int gc_write_compare_text(const struct gc_comparison *c, FILE *f, bool markdown)
{
    struct table t;
    int rc = 0;

    if (!c || !f)
        return GC_EINVAL;
    memset(&t, 0, sizeof(t));
    if (markdown) {
        fprintf(f, "## gpuchar compare\n\n| run | file | device | date | measured with |\n"
                   "|---|---|---|---|---|\n");
    } else {
        fprintf(f, "gpuchar compare: %d runs, baseline %s\n", c->nruns, c->label[0]);
    }
    for (int k = 0; k < c->nruns; k++)
        run_line(f, c, k, markdown);
    fprintf(f,
            "%sA change counts when it exceeds %.1f%% and %g times the combined relative "
            "spread of the two runs (CV, or the 95%% confidence interval where wider).\n",
            markdown ? "\n" : "", 100 * c->opt.threshold, c->opt.noise_factor);
    for (int i = 0; i < c->nnotes; i++)
        fprintf(f, "%s%s\n", markdown ? "- note: " : "note: ", c->notes[i]);
    if (markdown) {
        header(c, &t, true);
        for (int i = 0; i < c->nrows && rc == 0; i++)
            rc = fill_row(c, &c->rows[i], &t, true);
        if (rc == 0 && t.nrows > 0) {
            fputc('\n', f);
            put_md_table(f, &t);
        }
    } else {
        for (int i = 0; i < c->nrows && rc == 0;) {
            int j = i;

            t.nrows = 0;
            header(c, &t, false);
            for (; j < c->nrows && strcmp(c->rows[j].bench, c->rows[i].bench) == 0 && rc == 0; j++)
                rc = fill_row(c, &c->rows[j], &t, false);
            fprintf(f, "\n== %s\n", c->rows[i].bench);
            put_text_table(f, &t);
            i = j;
        }
    }
    free(t.cell);
    if (rc)
        return rc;
    if (c->nrows == 0)
        fprintf(f, "\nno metrics to compare%s\n",
                c->opt.metrics || c->opt.benches ? " (none matches the selection)" : "");
    summary(f, c, markdown);
    return ferror(f) ? GC_EIO : 0;
}
