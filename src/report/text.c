/* The text report: a header with the run's metadata, one section per
 * benchmark with an aligned table of its metrics, the cross-benchmark
 * summary tables (report/summary.h), and the run's outcome. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuchar/gpuchar.h"
#include "report/apptext.h"
#include "report/summary.h"
#include "report/units.h"

#define NCOLS 7

static const char *const col_titles[NCOLS] = {"metric",     "value", "unit", "limit",
                                              "% of limit", "CV",    "note"};
/* Numbers are right-aligned, text left-aligned. */
static const bool col_right[NCOLS] = {false, true, false, true, true, true, false};

struct row {
    char cell[NCOLS][256];
};

static const char *nz(const char *s)
{
    return s ? s : "";
}

static const char *status_word(enum gc_bench_status st)
{
    switch (st) {
    case GC_BENCH_OK:
        return "ok";
    case GC_BENCH_ERROR:
        return "ERROR";
    case GC_BENCH_NOT_AVAILABLE:
        return "not available";
    case GC_BENCH_INTERRUPTED:
        return "interrupted";
    case GC_BENCH_SKIPPED:
        return "skipped";
    }
    return "ERROR";
}

/* Appends to buf[len] at *off, joining items with ", ". */
static void add_part(char *buf, size_t len, size_t *off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add_part(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
    va_list ap;
    int w;

    if (*off >= len)
        return;
    if (*off > 0) {
        w = snprintf(buf + *off, len - *off, ", ");
        *off += w > 0 ? (size_t)w : 0;
        if (*off >= len)
            return;
    }
    va_start(ap, fmt);
    w = vsnprintf(buf + *off, len - *off, fmt, ap);
    va_end(ap);
    *off += w > 0 ? (size_t)w : 0;
}

/* Prints text on one or more lines, each continuation line indented, so a
 * compiler log inside an error message keeps the report's layout. */
static void put_indented(FILE *f, const char *lead, const char *text)
{
    fputs(lead, f);
    for (const char *p = text; *p; p++) {
        fputc(*p, f);
        if (*p == '\n' && p[1])
            fputs("    ", f);
    }
    if (!*text || text[strlen(text) - 1] != '\n')
        fputc('\n', f);
}

static void write_header(const struct gc_results *r, FILE *f)
{
    const struct gc_run_meta *m = &r->meta;
    const struct gc_device_summary *d = &m->device;
    char line[512], q[64];
    size_t off = 0;

    fprintf(f, "gpuchar %s (git %s)\n", m->tool_version,
            m->git_revision[0] ? m->git_revision : "unknown");

    line[0] = '\0';
    if (d->arch[0])
        add_part(line, sizeof(line), &off, "%s", d->arch);
    if (nz(d->backend)[0])
        add_part(line, sizeof(line), &off, "%s backend", d->backend);
    if (d->spec[0])
        add_part(line, sizeof(line), &off, "%s", d->spec);
    fprintf(f, "device   %s", d->name[0] ? d->name : "(none)");
    if (off)
        fprintf(f, " (%s)", line);
    fputc('\n', f);

    off = 0;
    line[0] = '\0';
    if (d->vendor[0])
        add_part(line, sizeof(line), &off, "%s", d->vendor);
    if (d->compute_units > 0)
        add_part(line, sizeof(line), &off, "%d compute units", d->compute_units);
    if (isfinite(d->clock_mhz) && d->clock_mhz > 0)
        add_part(line, sizeof(line), &off, "%.0f MHz", d->clock_mhz);
    if (d->global_mem > 0) {
        gc__fmt_quantity(q, sizeof(q), (double)d->global_mem, "B");
        add_part(line, sizeof(line), &off, "%s memory", q);
    }
    if (off)
        fprintf(f, "         %s\n", line);
    if (d->driver[0])
        fprintf(f, "driver   %s\n", d->driver);
    if (m->device_extra[0])
        fprintf(f, "details  %s\n", m->device_extra);
    if (m->host[0])
        fprintf(f, "host     %s\n", m->host);
    if (m->date[0])
        fprintf(f, "date     %s\n", m->date);
    if (m->profile[0] || m->repeat > 0) {
        fprintf(f, "profile  %s", m->profile[0] ? m->profile : "-");
        if (m->repeat > 0 && isfinite(m->min_time_ms) && m->min_time_ms > 0) {
            gc__fmt_quantity(q, sizeof(q), m->min_time_ms * 1e-3, "s");
            fprintf(f, " (up to %d samples of %s)", m->repeat, q);
        } else if (m->repeat > 0) {
            fprintf(f, " (up to %d samples)", m->repeat);
        }
        fputc('\n', f);
    }
    if (m->data_init[0])
        fprintf(f, "data     %s\n", m->data_init);
    if (m->command_line[0])
        fprintf(f, "command  %s\n", m->command_line);
}

static void fill_row(const struct gc_metric *m, struct row *row)
{
    struct gc_unit_scale sc;

    /* The limit is shown in the value's scale so the two read side by side;
     * a missing value takes the scale from the limit. */
    gc__unit_scale(isfinite(m->value) ? m->value : m->limit, m->unit, &sc);
    snprintf(row->cell[0], sizeof(row->cell[0]), "%s", m->name);
    gc__fmt_scaled(row->cell[1], sizeof(row->cell[1]), m->value, &sc);
    snprintf(row->cell[2], sizeof(row->cell[2]), "%s", sc.unit);
    gc__fmt_scaled(row->cell[3], sizeof(row->cell[3]), m->limit, &sc);
    if (isfinite(m->fraction))
        snprintf(row->cell[4], sizeof(row->cell[4]), "%.1f%%", 100 * m->fraction);
    else
        snprintf(row->cell[4], sizeof(row->cell[4]), "-");
    if (m->stats.n > 1 && isfinite(m->stats.cv))
        snprintf(row->cell[5], sizeof(row->cell[5]), "%.2f%%", 100 * m->stats.cv);
    else
        snprintf(row->cell[5], sizeof(row->cell[5]), "-");
    snprintf(row->cell[6], sizeof(row->cell[6]), "%s", m->note);
}

/* Prints one table line: cells padded to the column widths, no trailing
 * blanks. */
static void put_line(FILE *f, const char *const cells[NCOLS], const int width[NCOLS])
{
    char line[1024];
    size_t off = 0;
    int w;

    for (int c = 0; c < NCOLS && off < sizeof(line); c++) {
        int pad = c == NCOLS - 1 && !col_right[c] ? 0 : width[c];

        /* Two blanks indent the table and separate its columns. */
        w = snprintf(line + off, sizeof(line) - off, "  %*s", col_right[c] ? pad : -pad, cells[c]);
        off += w > 0 ? (size_t)w : 0;
    }
    if (off >= sizeof(line))
        off = sizeof(line) - 1;
    while (off > 0 && line[off - 1] == ' ')
        off--;
    line[off] = '\0';
    fprintf(f, "%s\n", line);
}

static int write_table(const struct gc_bench_result *b, FILE *f)
{
    struct row *rows = malloc((size_t)b->nmetrics * sizeof(*rows));
    int width[NCOLS];
    const char *cells[NCOLS];

    if (!rows)
        return GC_ENOMEM;
    for (int c = 0; c < NCOLS; c++)
        width[c] = (int)strlen(col_titles[c]);
    for (int i = 0; i < b->nmetrics; i++) {
        fill_row(&b->metrics[i], &rows[i]);
        for (int c = 0; c < NCOLS; c++) {
            int l = (int)strlen(rows[i].cell[c]);

            if (l > width[c])
                width[c] = l;
        }
    }
    put_line(f, col_titles, width);
    for (int i = 0; i < b->nmetrics; i++) {
        for (int c = 0; c < NCOLS; c++)
            cells[c] = rows[i].cell[c];
        put_line(f, cells, width);
    }
    free(rows);
    return 0;
}

/* Appends one item to the context line's list. */
static void add_item(char items[][160], int *n, int max, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add_item(char items[][160], int *n, int max, const char *fmt, ...)
{
    va_list ap;

    if (*n >= max)
        return;
    va_start(ap, fmt);
    vsnprintf(items[*n], sizeof(items[*n]), fmt, ap);
    va_end(ap);
    (*n)++;
}

/* The conditions of the measurement, as items joined by ", " and wrapped
 * before 100 columns. */
static void write_context(const struct gc_bench_result *b, FILE *f)
{
    enum { MAX_ITEMS = 16, WRAP = 100 };
    const struct gc_context_info *c = &b->context;
    char items[MAX_ITEMS][160];
    int n = 0, samples = 0;
    size_t col;

    if (isfinite(c->sm_clock_mhz)) {
        if (c->sm_clock_source[0])
            add_item(items, &n, MAX_ITEMS, "SM clock %.0f MHz (%s)", c->sm_clock_mhz,
                     c->sm_clock_source);
        else
            add_item(items, &n, MAX_ITEMS, "SM clock %.0f MHz", c->sm_clock_mhz);
    }
    if (isfinite(c->sm_clock_min_mhz) && isfinite(c->sm_clock_max_mhz))
        add_item(items, &n, MAX_ITEMS, "sensor %.0f-%.0f MHz", c->sm_clock_min_mhz,
                 c->sm_clock_max_mhz);
    if (isfinite(c->mem_clock_mhz))
        add_item(items, &n, MAX_ITEMS, "memory clock %.0f MHz", c->mem_clock_mhz);
    /* The headline metric is the first sampled one. */
    for (int i = 0; i < b->nmetrics && samples == 0; i++)
        samples = b->metrics[i].stats.n;
    if (samples > 0)
        add_item(items, &n, MAX_ITEMS, "samples %d", samples);
    add_item(items, &n, MAX_ITEMS, "throttled %d", c->throttled_samples);
    add_item(items, &n, MAX_ITEMS, "redone %d", c->redone_samples);
    if (c->throttle_reasons)
        add_item(items, &n, MAX_ITEMS, "throttle reasons 0x%llx", c->throttle_reasons);
    if (isfinite(c->temp_start_c) && isfinite(c->temp_end_c))
        add_item(items, &n, MAX_ITEMS, "temperature %.0f-%.0f C", c->temp_start_c, c->temp_end_c);
    if (isfinite(c->power_avg_w))
        add_item(items, &n, MAX_ITEMS, "power %.0f W", c->power_avg_w);
    if (isfinite(c->power_limit_w))
        add_item(items, &n, MAX_ITEMS, "power limit %.0f W", c->power_limit_w);
    if (c->ecc_enabled >= 0)
        add_item(items, &n, MAX_ITEMS, "ECC %s", c->ecc_enabled ? "on" : "off");
    if (b->stop_rule[0])
        add_item(items, &n, MAX_ITEMS, "stop: %s", b->stop_rule);

    fputs("  ", f);
    col = 2;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(items[i]);

        if (i > 0 && col + 2 + l > WRAP) {
            fputs(",\n  ", f);
            col = 2;
        } else if (i > 0) {
            fputs(", ", f);
            col += 2;
        }
        fputs(items[i], f);
        col += l;
    }
    fputc('\n', f);
}

static void write_series_line(const struct gc_series *s, FILE *f)
{
    char xq[64], yq[64];
    int best = -1;

    for (int i = 0; i < s->npoints; i++)
        if (isfinite(s->points[i].y) && (best < 0 || s->points[i].y > s->points[best].y))
            best = i;
    if (best < 0) {
        fprintf(f, "  series %s: %d point%s, no finite %s\n", s->name, s->npoints,
                s->npoints == 1 ? "" : "s", s->y_name);
        return;
    }
    gc__fmt_quantity(yq, sizeof(yq), s->points[best].y, s->y_unit);
    gc__fmt_quantity(xq, sizeof(xq), s->points[best].x, s->x_unit);
    fprintf(f, "  series %s: %d point%s, max %s %s at %s %s\n", s->name, s->npoints,
            s->npoints == 1 ? "" : "s", s->y_name, yq, s->x_name, xq);
}

static int write_bench(const struct gc_bench_result *b, FILE *f)
{
    char t[64];

    fprintf(f, "\n== %s (%s): %s", b->name, b->group, status_word(b->status));
    if (isfinite(b->wall_s) && b->wall_s > 0) {
        gc__fmt_quantity(t, sizeof(t), b->wall_s, "s");
        fprintf(f, " in %s", t);
        if (b->kernels_compiled + b->kernels_cached > 0) {
            gc__fmt_quantity(t, sizeof(t), b->compile_s, "s");
            fprintf(f, " (compile %s; kernels: %d compiled, %d cached)", t, b->kernels_compiled,
                    b->kernels_cached);
        }
    }
    fputc('\n', f);
    if (b->error[0])
        put_indented(f, b->status == GC_BENCH_ERROR ? "  error: " : "  ", b->error);
    if (b->warning[0])
        put_indented(f, "  warning: ", b->warning);
    if (b->nmetrics > 0 && write_table(b, f) != 0)
        return GC_ENOMEM;
    if (b->status == GC_BENCH_OK || b->status == GC_BENCH_INTERRUPTED)
        write_context(b, f);
    for (int i = 0; i < b->nseries; i++)
        write_series_line(&b->series[i], f);
    return 0;
}

static void write_summary(const struct gc_results *r, FILE *f)
{
    static const char *const what[] = {"ok", "failed", "not available", "interrupted", "skipped"};
    int count[5] = {0};
    char line[256], t[64];
    size_t off = 0;

    for (int i = 0; i < r->nbenches; i++) {
        int st = (int)r->benches[i].status;

        count[st >= 0 && st < 5 ? st : GC_BENCH_ERROR]++;
    }
    line[0] = '\0';
    for (int k = 0; k < 5; k++)
        if (count[k])
            add_part(line, sizeof(line), &off, "%d %s", count[k], what[k]);
    fprintf(f, "\n%d benchmark%s", r->nbenches, r->nbenches == 1 ? "" : "s");
    if (off)
        fprintf(f, ": %s", line);
    if (isfinite(r->wall_s) && r->wall_s > 0) {
        gc__fmt_quantity(t, sizeof(t), r->wall_s, "s");
        fprintf(f, "; wall time %s", t);
    }
    fputc('\n', f);
    if (r->complete)
        fputs("complete\n", f);
    else
        fprintf(f, "INCOMPLETE: %s\n",
                r->incomplete_reason[0] ? r->incomplete_reason : "unknown reason");
}

int gc_write_text(const struct gc_results *r, FILE *f)
{
    int rc = 0;

    if (!r || !f)
        return GC_EINVAL;
    write_header(r, f);
    for (int i = 0; i < r->nbenches && rc == 0; i++)
        rc = write_bench(&r->benches[i], f);
    if (rc == 0) {
        struct gc_summary_table *t;
        int n;

        rc = gc__summary_build(r, &t, &n);
        if (rc == 0)
            rc = gc__summary_write_text(t, n, f);
        gc__summary_free(t, n);
    }
    if (rc == 0)
        gc__app_text(r, f);
    if (rc == 0)
        write_summary(r, f);
    if (rc == 0 && (fflush(f) != 0 || ferror(f)))
        rc = GC_EIO;
    return rc;
}
