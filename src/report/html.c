/* The HTML view: one self-contained page per run (or per comparison) with
 * the run's context, the summary tables, every benchmark's metrics and its
 * figures inlined as SVG. Nothing is loaded from elsewhere: the page opens
 * offline from a file. Every number cell carries its exact value in
 * data-value (and the divisor of its display in data-scale), so that tools
 * and tests can read the page's numbers back. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/results.h"
#include "report/figures.h"
#include "report/apphtml.h"
#include "report/html.h"
#include "report/outfile.h"
#include "report/plot.h"
#include "report/summary.h"
#include "report/units.h"

static const char *const status_names[] = {"ok", "error", "not_available", "interrupted",
                                           "skipped"};
static const char *const status_words[] = {"ok", "error", "not available", "interrupted",
                                           "skipped"};

static const char css[] =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:0;color:#1b1b1b;"
    "background:#fafafa;font-size:14px}"
    "header{background:#23395d;color:#fff;padding:14px 24px}"
    "header h1{margin:0;font-size:22px}header p{margin:4px 0 0;color:#d8e1ef}"
    "main{padding:8px 24px 40px;max-width:1600px}"
    "h2{border-bottom:2px solid #23395d;padding-bottom:3px;margin-top:28px}"
    "h3{margin:22px 0 6px}"
    "table{border-collapse:collapse;margin:6px 0 10px;background:#fff}"
    "th,td{border:1px solid #d4d4d4;padding:3px 7px;text-align:left;vertical-align:top}"
    "th{background:#eef1f6;font-weight:600}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "td.note{color:#555;font-size:12px;max-width:560px}"
    "table.kv th{width:150px}"
    ".status{font-size:12px;padding:1px 7px;border-radius:9px;margin-left:8px;"
    "vertical-align:middle;color:#fff;background:#777}"
    ".status.ok{background:#2e7d32}.status.error{background:#c62828}"
    ".status.interrupted{background:#ef6c00}.status.not_available{background:#8d8d8d}"
    ".ctx{color:#444;font-size:12px;margin:2px 0 8px}"
    ".err{white-space:pre-wrap;background:#fff3f3;border-left:4px solid #c62828;padding:6px}"
    ".notice{background:#fff8e1;border-left:4px solid #f9a825;padding:8px 12px}"
    ".figs{display:flex;flex-wrap:wrap;gap:14px}"
    "figure.fig{margin:0;background:#fff;border:1px solid #d4d4d4;padding:6px;"
    "width:calc(50% - 22px);min-width:420px;cursor:zoom-in}"
    "figure.fig svg{width:100%;height:auto;display:block}"
    "figure.fig figcaption{font-size:12px;color:#444;margin-top:4px}"
    "figure.fig.zoom{position:fixed;inset:2% 3%;width:auto;min-width:0;z-index:10;"
    "cursor:zoom-out;box-shadow:0 0 0 100vmax rgba(0,0,0,.55);overflow:auto}"
    "nav{columns:4 220px;font-size:12px;margin:6px 0 0}nav a{display:block;color:#23395d}"
    "tr.regressed td{background:#fde7e7}tr.improved td{background:#e7f6e9}"
    "tr.noise td.verdict,tr.same td.verdict{color:#666}"
    "td.verdict{font-weight:600;white-space:nowrap}"
    "footer{color:#666;font-size:12px;margin-top:30px}";

/* Clicking a figure enlarges it; a second click or Escape puts it back. */
static const char js[] =
    "document.addEventListener('click',function(e){"
    "var f=e.target.closest?e.target.closest('figure.fig'):null;"
    "document.querySelectorAll('figure.fig.zoom').forEach(function(z){if(z!==f)"
    "z.classList.remove('zoom');});if(f)f.classList.toggle('zoom');});"
    "document.addEventListener('keydown',function(e){if(e.key==='Escape')"
    "document.querySelectorAll('figure.fig.zoom').forEach(function(z){"
    "z.classList.remove('zoom');});});";

static void esc(FILE *f, const char *s)
{
    gc__html_esc(f, s);
}

/* An anchor name: the benchmark name is already [a-z0-9._-]. */
static void anchor(FILE *f, const char *kind, const char *name)
{
    fprintf(f, "%s-", kind);
    for (; *name; name++)
        fputc((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') ||
                      (*name >= '0' && *name <= '9') || *name == '.' || *name == '-'
                  ? *name
                  : '_',
              f);
}

/* A number cell: the value shown in scale sc (as the text report shows it),
 * its exact value and the divisor in data attributes. */
static void num_cell_unit(FILE *f, double v, const struct gc_unit_scale *sc, const char *cls,
                          bool with_unit)
{
    char exact[40], shown[64];

    gc__fmt_double(exact, sizeof(exact), v);
    gc__fmt_scaled(shown, sizeof(shown), v, sc);
    fprintf(f, "<td class=\"num%s%s\" data-value=\"%s\" data-scale=\"%.17g\">", cls ? " " : "",
            cls ? cls : "", exact, sc->div);
    esc(f, shown);
    if (with_unit && isfinite(v) && sc->unit[0]) {
        fputc(' ', f);
        esc(f, sc->unit);
    }
    fputs("</td>", f);
}

static void num_cell(FILE *f, double v, const struct gc_unit_scale *sc, const char *cls)
{
    num_cell_unit(f, v, sc, cls, false);
}

static void text_cell(FILE *f, const char *s, const char *cls)
{
    if (cls)
        fprintf(f, "<td class=\"%s\">", cls);
    else
        fputs("<td>", f);
    esc(f, s);
    fputs("</td>", f);
}

static void kv_row(FILE *f, const char *k, const char *v)
{
    if (!v || !v[0])
        return;
    fputs("<tr><th>", f);
    esc(f, k);
    fputs("</th><td>", f);
    esc(f, v);
    fputs("</td></tr>\n", f);
}

static void page_start(FILE *f, const char *title, const char *subtitle)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"gpuchar ",
          f);
    esc(f, gc_version());
    fputs("\">\n<title>", f);
    esc(f, title);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<header><h1>", css);
    esc(f, title);
    fputs("</h1><p>", f);
    esc(f, subtitle);
    fputs("</p></header>\n<main>\n", f);
}

static void page_end(FILE *f, const char *what)
{
    fputs("<footer>", f);
    esc(f, what);
    fprintf(f, "</footer>\n</main>\n<script>%s</script>\n</body>\n</html>\n", js);
}

/* ---- Figures ------------------------------------------------------------ */

struct page_figs {
    struct gc_figure *f;
    int n;
    char **svg; /* temporary SVG file of each figure */
    bool *ok;
    char dir[512];
    struct gc_plot_tool tool;
};

static void figs_free(struct page_figs *p)
{
    for (int i = 0; p->svg && i < p->n; i++) {
        if (p->svg[i])
            unlink(p->svg[i]);
        free(p->svg[i]);
    }
    if (p->dir[0])
        rmdir(p->dir);
    free(p->svg);
    free(p->ok);
    gc__figures_free(p->f, p->n);
    memset(p, 0, sizeof(*p));
}

/* Builds and draws the figures; without gnuplot, or when drawing fails, the
 * page goes on with what there is and info says why. */
static int figs_prepare(struct page_figs *p, const struct gc_results *const *runs,
                        const char *const *labels, int nruns, struct gc_html_info *info)
{
    const char *tmp = getenv("TMPDIR");
    char err[512] = "";
    int rc;

    memset(p, 0, sizeof(*p));
    gc_plot_probe(&p->tool);
    if (!p->tool.available) {
        info->plotted = false;
        snprintf(info->note, sizeof(info->note),
                 "Figures are not drawn: %s. With gnuplot installed, 'gpuchar report "
                 "FILE.json --html OUT' draws them from the same results.",
                 p->tool.reason);
        return 0;
    }
    rc = gc__figures_build(runs, labels, nruns, &p->f, &p->n);
    if (rc)
        return rc;
    info->plotted = true;
    if (p->n == 0)
        return 0;
    snprintf(p->dir, sizeof(p->dir), "%s/gpuchar-html.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(p->dir)) {
        p->dir[0] = '\0';
        snprintf(info->note, sizeof(info->note), "Figures are not drawn: no temporary folder: %s",
                 strerror(errno));
        info->plotted = false;
        return 0;
    }
    p->svg = calloc((size_t)p->n, sizeof(*p->svg));
    p->ok = calloc((size_t)p->n, sizeof(*p->ok));
    if (!p->svg || !p->ok)
        return GC_ENOMEM;
    for (int i = 0; i < p->n; i++) {
        size_t l = strlen(p->dir) + 32;

        if (!(p->svg[i] = malloc(l)))
            return GC_ENOMEM;
        snprintf(p->svg[i], l, "%s/f%d.svg", p->dir, i);
    }
    rc = gc__plot_render(&p->tool, p->f, p->n, (const char *const *)p->svg, NULL, p->ok, err,
                         sizeof(err));
    for (int i = 0; i < p->n; i++) {
        info->figures += p->ok[i];
        info->figures_failed += !p->ok[i];
    }
    if (rc == GC_ENOLIB)
        info->plotted = false;
    if (rc)
        snprintf(info->note, sizeof(info->note), "%d of %d figures could not be drawn: %.400s",
                 info->figures_failed, p->n, err);
    return 0;
}

/* Copies gnuplot's SVG into the page from its <svg> element on, with every
 * id (and every reference to one) prefixed so that the figures of a page
 * do not share ids. */
static int embed_svg(FILE *out, const char *path, int idx, const char *title)
{
    static const char *const pats[] = {"id='", "id=\"", "href='#", "href=\"#", "url(#"};
    char *buf = NULL, *p;
    FILE *in = fopen(path, "rb");
    long len;

    if (!in)
        return GC_EIO;
    if (fseek(in, 0, SEEK_END) != 0 || (len = ftell(in)) <= 0 || fseek(in, 0, SEEK_SET) != 0 ||
        !(buf = malloc((size_t)len + 1)) || fread(buf, 1, (size_t)len, in) != (size_t)len) {
        fclose(in);
        free(buf);
        return GC_EIO;
    }
    fclose(in);
    buf[len] = '\0';
    p = strstr(buf, "<svg");
    if (!p) {
        free(buf);
        return GC_EIO;
    }
    /* The next place of each pattern, searched again only once passed:
     * searching from every id afresh is quadratic in a large figure. */
    const char *next[5] = {NULL}, *t = strstr(p, "<title>Gnuplot</title>");
    bool gone[5] = {false};
    while (*p) {
        size_t best = strlen(p);
        int which = -1;

        if (t && t < p)
            t = strstr(p, "<title>Gnuplot</title>");
        for (int k = 0; k < 5; k++) {
            if (!gone[k] && (!next[k] || next[k] < p))
                gone[k] = !(next[k] = strstr(p, pats[k]));
            if (!gone[k] && (size_t)(next[k] - p) < best) {
                best = (size_t)(next[k] - p);
                which = k;
            }
        }
        if (t && (size_t)(t - p) < best) {
            fwrite(p, 1, (size_t)(t - p), out);
            fputs("<title>", out);
            esc(out, title);
            fputs("</title>", out);
            p = (char *)t + strlen("<title>Gnuplot</title>");
            continue;
        }
        fwrite(p, 1, best, out);
        p += best;
        if (which < 0)
            break;
        fputs(pats[which], out);
        fprintf(out, "f%d-", idx);
        p += strlen(pats[which]);
    }
    free(buf);
    return ferror(out) ? GC_EIO : 0;
}

static void figs_write(FILE *out, const struct page_figs *p, const char *bench)
{
    bool any = false;

    for (int i = 0; i < p->n; i++) {
        const struct gc_figure *f = &p->f[i];

        if (!p->ok || !p->ok[i] || strcmp(f->bench, bench) != 0)
            continue;
        if (!any)
            fputs("<div class=\"figs\">\n", out);
        any = true;
        fprintf(out, "<figure class=\"fig\" id=\"fig-%d\" data-figure=\"", i);
        esc(out, f->id);
        fputs("\"><div class=\"plot\">", out);
        if (embed_svg(out, p->svg[i], i, f->title) != 0)
            fputs("<p>figure missing</p>", out);
        fputs("</div><figcaption>", out);
        esc(out, f->title);
        fputs(" (click to enlarge)</figcaption></figure>\n", out);
    }
    if (any)
        fputs("</div>\n", out);
}

/* ---- One run ------------------------------------------------------------ */

static void write_run_context(FILE *f, const struct gc_results *r, const char *heading)
{
    const struct gc_run_meta *m = &r->meta;
    const struct gc_device_summary *d = &m->device;
    char buf[512], q[64];

    fputs("<table class=\"kv\">\n", f);
    if (heading)
        kv_row(f, "file", heading);
    snprintf(buf, sizeof(buf), "%s%s%s%s%s", d->name, d->spec[0] ? " (" : "", d->spec,
             d->backend ? ", " : "", d->backend ? d->backend : "");
    if (d->spec[0])
        strncat(buf, ")", sizeof(buf) - strlen(buf) - 1);
    kv_row(f, "device", buf);
    kv_row(f, "vendor", d->vendor);
    kv_row(f, "architecture", d->arch);
    kv_row(f, "driver", d->driver);
    if (d->compute_units > 0) {
        snprintf(buf, sizeof(buf), "%d", d->compute_units);
        kv_row(f, "compute units", buf);
    }
    if (isfinite(d->clock_mhz) && d->clock_mhz > 0) {
        snprintf(buf, sizeof(buf), "%.0f MHz", d->clock_mhz);
        kv_row(f, "maximum clock", buf);
    }
    if (d->global_mem > 0) {
        gc__fmt_quantity(q, sizeof(q), (double)d->global_mem, "B");
        kv_row(f, "global memory", q);
    }
    kv_row(f, "details", m->device_extra);
    kv_row(f, "host", m->host);
    kv_row(f, "date", m->date);
    snprintf(buf, sizeof(buf), "gpuchar %s (git %s)", m->tool_version,
             m->git_revision[0] ? m->git_revision : "unknown");
    kv_row(f, "measured with", buf);
    if (m->repeat > 0) {
        snprintf(buf, sizeof(buf), "%s, up to %d samples of %g ms",
                 m->profile[0] ? m->profile : "-", m->repeat, m->min_time_ms);
        kv_row(f, "profile", buf);
    }
    kv_row(f, "data", m->data_init);
    kv_row(f, "command", m->command_line);
    if (isfinite(r->wall_s) && r->wall_s > 0) {
        gc__fmt_quantity(q, sizeof(q), r->wall_s, "s");
        kv_row(f, "wall time", q);
    }
    kv_row(f, "outcome", r->complete ? "complete" : "INCOMPLETE");
    if (!r->complete)
        kv_row(f, "why incomplete", r->incomplete_reason);
    fputs("</table>\n", f);
}

static bool per_cell_unit(const char *unit)
{
    return strcmp(unit, "B") == 0 || strcmp(unit, "B/s") == 0;
}

static int write_summary_tables(FILE *f, const struct gc_results *r)
{
    struct gc_summary_table *t = NULL;
    int n = 0, rc = gc__summary_build(r, &t, &n);

    if (rc)
        return rc;
    if (n > 0)
        fputs("<h2 id=\"summary\">Summary</h2>\n", f);
    for (int i = 0; i < n; i++) {
        const struct gc_summary_table *tb = &t[i];

        fputs("<h3>", f);
        esc(f, tb->title);
        fprintf(f, "</h3>\n<table class=\"summary\" data-table=\"%s\">\n<thead><tr><th>", tb->name);
        esc(f, tb->label_title);
        fputs("</th>", f);
        for (int c = 0; c < tb->ncols; c++) {
            fputs("<th>", f);
            esc(f, tb->col_title[c]);
            /* Capacities and byte rates carry their unit in each cell. */
            if (tb->col_unit[c][0] && !per_cell_unit(tb->col_unit[c])) {
                fputs(" [", f);
                esc(f, tb->col_unit[c]);
                fputc(']', f);
            }
            fputs("</th>", f);
        }
        fputs("</tr></thead>\n<tbody>\n", f);
        for (int ro = 0; ro < tb->nrows; ro++) {
            fputs("<tr><th>", f);
            esc(f, tb->rows[ro].label);
            fputs("</th>", f);
            for (int c = 0; c < tb->ncols; c++) {
                struct gc_unit_scale sc = {1, "", false};

                if (per_cell_unit(tb->col_unit[c]))
                    gc__unit_scale(tb->rows[ro].v[c], tb->col_unit[c], &sc);
                num_cell_unit(f, tb->rows[ro].v[c], &sc, NULL, per_cell_unit(tb->col_unit[c]));
            }
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
    }
    gc__summary_free(t, n);
    return 0;
}

static void write_bench_context(FILE *f, const struct gc_bench_result *b)
{
    const struct gc_context_info *c = &b->context;
    char q[64];
    bool first = true;

#define ITEM(...)                                                                                  \
    do {                                                                                           \
        fputs(first ? "<p class=\"ctx\">" : ", ", f);                                              \
        first = false;                                                                             \
        snprintf(line, sizeof(line), __VA_ARGS__);                                                 \
        esc(f, line);                                                                              \
    } while (0)
    char line[256];

    if (isfinite(b->wall_s) && b->wall_s > 0) {
        gc__fmt_quantity(q, sizeof(q), b->wall_s, "s");
        ITEM("wall time %s", q);
    }
    if (b->kernels_compiled + b->kernels_cached > 0)
        ITEM("kernels: %d compiled, %d cached", b->kernels_compiled, b->kernels_cached);
    if (isfinite(c->sm_clock_mhz))
        ITEM("SM clock %.0f MHz%s%s%s", c->sm_clock_mhz, c->sm_clock_source[0] ? " (" : "",
             c->sm_clock_source, c->sm_clock_source[0] ? ")" : "");
    if (isfinite(c->mem_clock_mhz))
        ITEM("memory clock %.0f MHz", c->mem_clock_mhz);
    if (isfinite(c->temp_start_c) && isfinite(c->temp_end_c))
        ITEM("temperature %.0f-%.0f C", c->temp_start_c, c->temp_end_c);
    if (isfinite(c->power_avg_w))
        ITEM("power %.0f W", c->power_avg_w);
    if (c->throttled_samples || c->redone_samples)
        ITEM("throttled samples %d, redone %d", c->throttled_samples, c->redone_samples);
    if (b->stop_rule[0])
        ITEM("stop: %s", b->stop_rule);
#undef ITEM
    if (!first)
        fputs("</p>\n", f);
}

static void write_metrics(FILE *f, const struct gc_bench_result *b)
{
    if (b->nmetrics == 0)
        return;
    fputs("<table class=\"metrics\" data-bench=\"", f);
    esc(f, b->name);
    fputs("\">\n<thead><tr><th>metric</th><th>value</th><th>unit</th><th>limit</th>"
          "<th>% of limit</th><th>CV</th><th>samples</th><th>note</th></tr></thead>\n<tbody>\n",
          f);
    for (int i = 0; i < b->nmetrics; i++) {
        const struct gc_metric *m = &b->metrics[i];
        struct gc_unit_scale sc, one = {1, "", true};
        char exact[40];

        gc__unit_scale(isfinite(m->value) ? m->value : m->limit, m->unit, &sc);
        fputs("<tr data-metric=\"", f);
        esc(f, m->name);
        fputs("\">", f);
        text_cell(f, m->name, NULL);
        num_cell(f, m->value, &sc, "value");
        fputs("<td class=\"unit\" data-unit=\"", f);
        esc(f, m->unit);
        fputs("\">", f);
        esc(f, sc.unit);
        fputs("</td>", f);
        num_cell(f, m->limit, &sc, "limit");
        if (isfinite(m->fraction)) {
            gc__fmt_double(exact, sizeof(exact), m->fraction);
            fprintf(f, "<td class=\"num fraction\" data-value=\"%s\" data-scale=\"0.01\">%.1f</td>",
                    exact, 100 * m->fraction);
        } else {
            fputs("<td class=\"num fraction\" data-value=\"\" data-scale=\"0.01\">-</td>", f);
        }
        if (m->stats.n > 1 && isfinite(m->stats.cv)) {
            gc__fmt_double(exact, sizeof(exact), m->stats.cv);
            fprintf(f, "<td class=\"num cv\" data-value=\"%s\" data-scale=\"0.01\">%.2f%%</td>",
                    exact, 100 * m->stats.cv);
        } else {
            fputs("<td class=\"num cv\" data-value=\"\" data-scale=\"0.01\">-</td>", f);
        }
        if (m->stats.n > 0)
            num_cell(f, m->stats.n, &one, "n");
        else
            fputs("<td class=\"num n\" data-value=\"\">-</td>", f);
        text_cell(f, m->note, "note");
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

static void write_bench(FILE *f, const struct gc_bench_result *b, const struct page_figs *figs)
{
    int st = (int)b->status >= 0 && (int)b->status < 5 ? (int)b->status : 1;

    fputs("<section class=\"bench\" id=\"", f);
    anchor(f, "b", b->name);
    fputs("\" data-bench=\"", f);
    esc(f, b->name);
    fprintf(f, "\" data-status=\"%s\">\n<h3>", status_names[st]);
    esc(f, b->name);
    fputs(" <small>(", f);
    esc(f, b->group);
    fprintf(f, ")</small><span class=\"status %s\">%s</span></h3>\n", status_names[st],
            status_words[st]);
    if (b->error[0]) {
        fputs(b->status == GC_BENCH_ERROR ? "<div class=\"err\">" : "<p class=\"ctx\">", f);
        esc(f, b->error);
        fputs(b->status == GC_BENCH_ERROR ? "</div>\n" : "</p>\n", f);
    }
    write_bench_context(f, b);
    write_metrics(f, b);
    gc__app_html(f, b);
    figs_write(f, figs, b->name);
    fputs("</section>\n", f);
}

static void write_nav(FILE *f, const struct gc_results *r)
{
    fputs("<nav>", f);
    for (int i = 0; i < r->nbenches; i++) {
        fputs("<a href=\"#", f);
        anchor(f, "b", r->benches[i].name);
        fputs("\">", f);
        esc(f, r->benches[i].name);
        if (r->benches[i].status != GC_BENCH_OK)
            fprintf(f, " (%s)",
                    status_words[(int)r->benches[i].status < 5 ? (int)r->benches[i].status : 1]);
        fputs("</a>", f);
    }
    fputs("</nav>\n", f);
}

static void figure_notice(FILE *f, const struct gc_html_info *info)
{
    if (!info->note[0])
        return;
    fputs("<p class=\"notice\" id=\"figures-note\">", f);
    esc(f, info->note);
    fputs("</p>\n", f);
}

static void footer_text(char *buf, size_t len, const struct page_figs *p)
{
    if (p->tool.available)
        snprintf(buf, len, "Written by gpuchar %s (git %s); figures drawn by %s.", gc_version(),
                 gc_git_revision(), p->tool.version);
    else
        snprintf(buf, len, "Written by gpuchar %s (git %s); no figures (gnuplot missing).",
                 gc_version(), gc_git_revision());
}

int gc_write_html(const struct gc_results *r, const char *path, struct gc_html_info *info,
                  char *err, size_t errlen)
{
    const struct gc_results *runs[1] = {r};
    struct gc_html_info local;
    struct gc_outfile of;
    struct page_figs figs;
    char title[400], sub[400], foot[300];
    FILE *f;
    int rc;

    if (!info)
        info = &local;
    memset(info, 0, sizeof(*info));
    if (errlen)
        err[0] = '\0';
    if (!r || !path)
        return GC_EINVAL;
    rc = gc__outfile_open(path, &of, err, errlen);
    if (rc)
        return rc;
    rc = figs_prepare(&figs, runs, NULL, 1, info);
    if (rc) {
        gc__outfile_abort(&of);
        figs_free(&figs);
        snprintf(err, errlen, "%s", gc_strerror(rc));
        return rc;
    }
    f = of.f;
    snprintf(title, sizeof(title), "gpuchar: %s",
             r->meta.device.name[0] ? r->meta.device.name : "(no device)");
    snprintf(sub, sizeof(sub), "%s%s%d benchmarks, %s", r->meta.date, r->meta.date[0] ? ", " : "",
             r->nbenches, r->complete ? "complete" : "INCOMPLETE run");
    page_start(f, title, sub);
    fputs("<h2 id=\"run\">Device and run</h2>\n", f);
    write_run_context(f, r, NULL);
    figure_notice(f, info);
    write_nav(f, r);
    rc = write_summary_tables(f, r);
    if (rc == 0) {
        fputs("<h2 id=\"benchmarks\">Benchmarks</h2>\n", f);
        for (int i = 0; i < r->nbenches; i++)
            write_bench(f, &r->benches[i], &figs);
        footer_text(foot, sizeof(foot), &figs);
        page_end(f, foot);
    }
    figs_free(&figs);
    if (rc) {
        gc__outfile_abort(&of);
        snprintf(err, errlen, "%s", gc_strerror(rc));
        return rc;
    }
    return gc__outfile_commit(&of, err, errlen);
}

/* ---- A comparison --------------------------------------------------------- */

static void cmp_value_cell(FILE *f, const struct gc_cmp_cell *c, const struct gc_unit_scale *sc)
{
    if (!c->present) {
        fputs("<td class=\"num\" data-value=\"\">-</td>", f);
        return;
    }
    num_cell(f, c->value, sc, "value");
}

static void ratio_cell(FILE *f, double v, const char *cls)
{
    struct gc_unit_scale one = {1, "", false};
    char exact[40];

    if (!isfinite(v)) {
        fprintf(f, "<td class=\"num %s\" data-value=\"\">-</td>", cls);
        return;
    }
    gc__fmt_double(exact, sizeof(exact), v);
    fprintf(f, "<td class=\"num %s\" data-value=\"%s\" data-scale=\"1\">%.3f</td>", cls, exact, v);
    (void)one;
}

static void write_cmp_bench(FILE *f, const struct gc_comparison *c, int from, int to,
                            const struct page_figs *figs)
{
    const char *bench = c->rows[from].bench;

    fputs("<section class=\"bench\" id=\"", f);
    anchor(f, "b", bench);
    fputs("\" data-bench=\"", f);
    esc(f, bench);
    fputs("\">\n<h3>", f);
    esc(f, bench);
    fputs("</h3>\n<table class=\"compare\">\n<thead><tr><th>metric</th><th>unit</th>", f);
    for (int k = 0; k < c->nruns; k++) {
        fprintf(f, "<th>%s</th>", c->label[k]);
        if (k == 0)
            continue;
        fprintf(f, "<th>%s/%s</th>", c->label[k], c->label[0]);
        if (c->cross_device)
            fprintf(f, "<th>%s/%s per clock per CU</th>", c->label[k], c->label[0]);
        fprintf(f, "<th>verdict %s</th>", c->label[k]);
    }
    fputs("<th>note</th></tr></thead>\n<tbody>\n", f);
    for (int i = from; i < to; i++) {
        const struct gc_cmp_row *row = &c->rows[i];
        struct gc_unit_scale sc;
        enum gc_cmp_verdict worst = GC_CMP_SAME;
        char note[400] = "";
        double ref = NAN;

        for (int k = 0; k < c->nruns && !isfinite(ref); k++)
            if (row->cell[k].present)
                ref = row->cell[k].value;
        gc__unit_scale(ref, row->unit, &sc);
        for (int k = 1; k < c->nruns; k++) {
            if (row->cell[k].verdict == GC_CMP_REGRESSED)
                worst = GC_CMP_REGRESSED;
            else if (row->cell[k].verdict == GC_CMP_IMPROVED && worst != GC_CMP_REGRESSED)
                worst = GC_CMP_IMPROVED;
            else if (row->cell[k].verdict == GC_CMP_NOISE && worst == GC_CMP_SAME)
                worst = GC_CMP_NOISE;
        }
        fprintf(f, "<tr class=\"%s\" data-metric=\"",
                worst == GC_CMP_REGRESSED  ? "regressed"
                : worst == GC_CMP_IMPROVED ? "improved"
                : worst == GC_CMP_NOISE    ? "noise"
                                           : "same");
        esc(f, row->metric);
        fputs("\">", f);
        text_cell(f, row->metric[0] ? row->metric : "(benchmark status)", NULL);
        text_cell(f, sc.unit, "unit");
        for (int k = 0; k < c->nruns; k++) {
            const struct gc_cmp_cell *cl = &row->cell[k];

            cmp_value_cell(f, cl, &sc);
            if (cl->note[0]) {
                size_t l = strlen(note);

                snprintf(note + l, sizeof(note) - l, "%s%s: %s", l ? "; " : "", c->label[k],
                         cl->note);
            }
            if (k == 0)
                continue;
            ratio_cell(f, cl->ratio, "ratio");
            if (c->cross_device)
                ratio_cell(f, cl->ratio_per_clk_cu, "ratio-clk");
            fputs("<td class=\"verdict\">", f);
            esc(f, gc_cmp_verdict_name(cl->verdict));
            if (isfinite(cl->change) && cl->verdict != GC_CMP_SAME)
                fprintf(f, " (%+.1f%%)", 100 * cl->change);
            fputs("</td>", f);
        }
        text_cell(f, note, "note");
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    figs_write(f, figs, bench);
    fputs("</section>\n", f);
}

int gc_write_compare_html(const struct gc_comparison *c, const char *path,
                          struct gc_html_info *info, char *err, size_t errlen)
{
    struct gc_html_info local;
    struct gc_outfile of;
    struct page_figs figs;
    const char **labels = NULL;
    char title[300], sub[300], foot[300];
    FILE *f;
    int rc;

    if (!info)
        info = &local;
    memset(info, 0, sizeof(*info));
    if (errlen)
        err[0] = '\0';
    if (!c || !path || c->nruns < 1)
        return GC_EINVAL;
    rc = gc__outfile_open(path, &of, err, errlen);
    if (rc)
        return rc;
    labels = malloc((size_t)c->nruns * sizeof(*labels));
    if (!labels) {
        gc__outfile_abort(&of);
        return GC_ENOMEM;
    }
    for (int k = 0; k < c->nruns; k++)
        labels[k] = c->label[k];
    rc = figs_prepare(&figs, c->runs, labels, c->nruns, info);
    free(labels);
    if (rc) {
        figs_free(&figs);
        gc__outfile_abort(&of);
        return rc;
    }
    f = of.f;
    snprintf(title, sizeof(title), "gpuchar compare: %d runs", c->nruns);
    snprintf(sub, sizeof(sub),
             "baseline %s; threshold %.1f%%; a change counts beyond %.3g x the combined spread; "
             "%d regression%s, %d improvement%s",
             c->label[0], 100 * c->opt.threshold, c->opt.noise_factor, c->regressions,
             c->regressions == 1 ? "" : "s", c->improvements, c->improvements == 1 ? "" : "s");
    page_start(f, title, sub);
    fputs("<h2 id=\"runs\">Runs</h2>\n", f);
    for (int k = 0; k < c->nruns; k++) {
        char h[300];

        snprintf(h, sizeof(h), "%s: %s", c->label[k], c->source[k]);
        fputs("<h3>", f);
        esc(f, h);
        fputs("</h3>\n", f);
        write_run_context(f, c->runs[k], NULL);
    }
    if (c->nnotes > 0) {
        fputs("<ul class=\"notes\">\n", f);
        for (int i = 0; i < c->nnotes; i++) {
            fputs("<li>", f);
            esc(f, c->notes[i]);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    figure_notice(f, info);
    fputs("<h2 id=\"benchmarks\">Benchmarks</h2>\n", f);
    for (int i = 0; i < c->nrows;) {
        int j = i + 1;

        while (j < c->nrows && strcmp(c->rows[j].bench, c->rows[i].bench) == 0)
            j++;
        write_cmp_bench(f, c, i, j, &figs);
        i = j;
    }
    footer_text(foot, sizeof(foot), &figs);
    page_end(f, foot);
    figs_free(&figs);
    return gc__outfile_commit(&of, err, errlen);
}

/* ---- Page pieces other pages share (report/html.h) ------------------------ */

void gc__html_page_start(FILE *f, const char *title, const char *subtitle)
{
    page_start(f, title, subtitle);
}

void gc__html_page_end(FILE *f, const char *footer)
{
    page_end(f, footer);
}

int gc__html_embed_svg(FILE *out, const char *svg_path, int idx, const char *title)
{
    return embed_svg(out, svg_path, idx, title);
}
