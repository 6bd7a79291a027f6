/* The fleet's HTML page: the rules and their thresholds, the flagged
 * devices with the figures that put them there and their likely causes, the
 * devices that gave no result, and per group and headline figure the
 * distribution over the devices (sorted values, drawn by gnuplot through
 * report/plot.h) with the median, the floor and the flagged devices marked. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/fleet.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/outfile.h"
#include "report/plot.h"
#include "report/units.h"

#define MAX_FIGS 48
/* A distribution is drawn from at most this many of its order statistics
 * (every flagged device is drawn as well): a figure of 100 000 points says
 * no more and costs gnuplot and the page far more. */
#define MAX_POINTS 1000

struct fleet_figs {
    struct gc_figure *f;
    struct gc_series *s; /* two per figure: every device, the flagged ones */
    char **svg;
    bool *ok;
    int n;
    char dir[512];
    struct gc_plot_tool tool;
};

static int by_value(const void *a, const void *b)
{
    const struct gc_point *x = a, *y = b;

    return x->y < y->y ? -1 : x->y > y->y;
}

static int add_point(struct gc_series *s, double x, double y, const char *label)
{
    if (s->npoints == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        struct gc_point *p = realloc(s->points, (size_t)cap * sizeof(*p));

        if (!p)
            return GC_ENOMEM;
        s->points = p;
        s->cap = cap;
    }
    memset(&s->points[s->npoints], 0, sizeof(*s->points));
    s->points[s->npoints].x = x;
    s->points[s->npoints].y = y;
    snprintf(s->points[s->npoints].label, sizeof(s->points->label), "%s", label);
    s->npoints++;
    return 0;
}

/* Figure k: the sorted values of stat st's group, the flagged ones again. */
static int build_one(const struct gc_fleet *f, const struct gc_fleet_stat *st, struct fleet_figs *p,
                     int k)
{
    struct gc_figure *fg = &p->f[k];
    struct gc_series *all = &p->s[2 * k], *bad = &p->s[2 * k + 1];
    const struct gc_fleet_figure *fig = &f->figures[st->figure];
    bool *flagged = calloc((size_t)(f->ngpus ? f->ngpus : 1), sizeof(*flagged));
    int rc = flagged ? 0 : GC_ENOMEM;

    for (int j = 0; flagged && j < f->nflags; j++)
        if (f->flags[j].figure == st->figure)
            flagged[f->flags[j].gpu] = true;
    for (int i = 0; i < f->ngpus && rc == 0; i++) {
        const struct gc_fleet_gpu *g = &f->gpus[i];

        if (g->status == GC_FLEET_OK && st->figure < g->nv && isfinite(g->v[st->figure]) &&
            strcmp(g->group, f->groups[st->group].key) == 0)
            rc = add_point(all, i, g->v[st->figure], flagged[i] ? "!" : "");
    }
    free(flagged);
    if (rc)
        return rc;
    qsort(all->points, (size_t)all->npoints, sizeof(*all->points), by_value);
    int n = all->npoints, kept = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        bool keep = n <= MAX_POINTS || i == n - 1 ||
                    (long long)i * (MAX_POINTS - 1) / (n - 1) !=
                        (long long)(i + 1) * (MAX_POINTS - 1) / (n - 1);

        if (all->points[i].label[0] == '!')
            rc = add_point(bad, i + 1, all->points[i].y, "");
        if (!keep)
            continue;
        all->points[kept] = all->points[i];
        all->points[kept].x = i + 1;
        all->points[kept++].label[0] = '\0';
    }
    all->npoints = kept;
    snprintf(all->name, sizeof(all->name), "devices");
    snprintf(bad->name, sizeof(bad->name), "flagged");
    snprintf(fg->id, sizeof(fg->id), "fleet__%d", k);
    snprintf(fg->bench, sizeof(fg->bench), "fleet");
    snprintf(fg->title, sizeof(fg->title), "%.100s (%.80s)", fig->key, f->groups[st->group].name);
    snprintf(fg->xlabel, sizeof(fg->xlabel), "devices, ordered by value");
    snprintf(fg->ylabel, sizeof(fg->ylabel), "%.120s", fig->key);
    snprintf(fg->yunit, sizeof(fg->yunit), "%s", fig->unit);
    fg->layers = calloc(2, sizeof(*fg->layers));
    fg->marks = calloc(2, sizeof(*fg->marks));
    if (!fg->layers || !fg->marks)
        return GC_ENOMEM;
    fg->layers[0] = (struct gc_fig_layer){.s = all, .style = GC_FIG_SCATTER};
    fg->layers[1] = (struct gc_fig_layer){.s = bad, .style = GC_FIG_SCATTER};
    snprintf(fg->layers[0].title, sizeof(fg->layers[0].title), "devices");
    snprintf(fg->layers[1].title, sizeof(fg->layers[1].title), "flagged");
    fg->nlayers = bad->npoints > 0 ? 2 : 1;
    fg->marks[0] = (struct gc_fig_mark){GC_FIG_LIMIT, st->median, NAN, NAN, NAN, NAN, 0, "median"};
    fg->marks[1] = (struct gc_fig_mark){GC_FIG_LIMIT, st->floor, NAN, NAN, NAN, NAN, 0, "floor"};
    fg->nmarks = isfinite(st->floor) ? 2 : 1;
    return 0;
}

/* The statistics drawn: judged figures, those with flags first. */
static int pick_stats(const struct gc_fleet *f, int *pick)
{
    int n = 0;

    for (int pass = 0; pass < 2; pass++)
        for (int s = 0; s < f->nstats && n < MAX_FIGS; s++) {
            bool flagged = false;

            if (f->figures[f->stats[s].figure].direction == 0)
                continue;
            for (int k = 0; k < f->nflags && !flagged; k++)
                flagged = f->flags[k].stat == s;
            if (flagged == (pass == 0))
                pick[n++] = s;
        }
    return n;
}

static void figs_free(struct fleet_figs *p)
{
    for (int i = 0; p->svg && i < p->n; i++) {
        if (p->svg[i])
            unlink(p->svg[i]);
        free(p->svg[i]);
    }
    if (p->dir[0])
        rmdir(p->dir);
    for (int i = 0; p->s && i < 2 * p->n; i++)
        free(p->s[i].points);
    free(p->s);
    free(p->svg);
    free(p->ok);
    gc__figures_free(p->f, p->n);
}

static int figs_draw(struct fleet_figs *p, struct gc_html_info *info)
{
    const char *tmp = getenv("TMPDIR");
    char err[512] = "";

    snprintf(p->dir, sizeof(p->dir), "%s/gpuchar-fleet.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(p->dir)) {
        p->dir[0] = '\0';
        snprintf(info->note, sizeof(info->note), "Figures are not drawn: no temporary folder: %s",
                 strerror(errno));
        return 0;
    }
    for (int i = 0; i < p->n; i++) {
        size_t l = strlen(p->dir) + 32;

        if (!(p->svg[i] = malloc(l)))
            return GC_ENOMEM;
        snprintf(p->svg[i], l, "%s/f%d.svg", p->dir, i);
    }
    int rc = gc__plot_render(&p->tool, p->f, p->n, (const char *const *)p->svg, NULL, p->ok, err,
                             sizeof(err));
    for (int i = 0; i < p->n; i++) {
        info->figures += p->ok[i];
        info->figures_failed += !p->ok[i];
    }
    info->plotted = rc != GC_ENOLIB;
    if (rc)
        snprintf(info->note, sizeof(info->note), "%d of %d figures could not be drawn: %.400s",
                 info->figures_failed, p->n, err);
    return 0;
}

static int figs_prepare(const struct gc_fleet *f, struct fleet_figs *p, struct gc_html_info *info)
{
    int pick[MAX_FIGS], rc = 0;

    memset(p, 0, sizeof(*p));
    gc_plot_probe(&p->tool);
    if (!p->tool.available) {
        snprintf(info->note, sizeof(info->note), "Figures are not drawn: %s.", p->tool.reason);
        return 0;
    }
    info->plotted = true;
    int n = pick_stats(f, pick);
    if (n == 0)
        return 0;
    p->f = calloc((size_t)n, sizeof(*p->f));
    p->s = calloc((size_t)(2 * n), sizeof(*p->s));
    p->svg = calloc((size_t)n, sizeof(*p->svg));
    p->ok = calloc((size_t)n, sizeof(*p->ok));
    if (!p->f || !p->s || !p->svg || !p->ok)
        return GC_ENOMEM;
    p->n = n;
    for (int k = 0; k < n && rc == 0; k++)
        rc = build_one(f, &f->stats[pick[k]], p, k);
    return rc ? rc : figs_draw(p, info);
}

/* ---- Page ------------------------------------------------------------------- */

static void cell(FILE *o, const char *s)
{
    fputs("<td>", o);
    gc__html_esc(o, s);
    fputs("</td>", o);
}

static void qty_cell(FILE *o, double v, const char *unit)
{
    char buf[64];

    gc__fmt_quantity(buf, sizeof(buf), v, unit);
    fprintf(o, "<td class=\"num\" data-value=\"%.17g\">", v);
    gc__html_esc(o, buf);
    fputs("</td>", o);
}

static void write_flag_rows(FILE *o, const struct gc_fleet *f, int gi)
{
    const struct gc_fleet_gpu *g = &f->gpus[gi];
    char causes[512], rank[16];

    gc__fleet_causes(f, gi, causes, sizeof(causes));
    snprintf(rank, sizeof(rank), "%d", g->rank);
    for (int k = 0; k < f->nflags; k++) {
        const struct gc_fleet_flag *fl = &f->flags[k];
        const struct gc_fleet_stat *st = &f->stats[fl->stat];
        const char *unit = f->figures[fl->figure].unit;

        if (fl->gpu != gi)
            continue;
        fprintf(o, "<tr class=\"flagged\" data-rank=\"%d\">", g->rank);
        cell(o, g->host);
        cell(o, rank);
        cell(o, g->spec);
        cell(o, g->pci);
        cell(o, g->uuid);
        cell(o, f->figures[fl->figure].key);
        qty_cell(o, fl->value, unit);
        qty_cell(o, st->median, unit);
        qty_cell(o, fl->kind == GC_FLEET_LOW ? st->floor : st->high, unit);
        fprintf(o, "<td class=\"num\">%.3g</td>", fl->z);
        cell(o, fl->rule);
        cell(o, causes[0] ? causes : "not stated by the data");
        fputs("</tr>\n", o);
    }
}

static void write_flagged(FILE *o, const struct gc_fleet *f)
{
    fprintf(o, "<h2 id=\"flagged\">Flagged devices (%d)</h2>\n", f->nflagged_gpus);
    if (f->nflags == 0) {
        fputs("<p>No device is flagged.</p>\n", o);
        return;
    }
    fputs("<table><tr><th>host</th><th>rank</th><th>device</th><th>PCI bus id</th><th>UUID</th>"
          "<th>figure</th><th>value</th><th>group median</th><th>threshold</th>"
          "<th>robust z</th><th>rule</th><th>likely cause</th></tr>\n",
          o);
    for (int i = 0; i < f->ngpus; i++)
        write_flag_rows(o, f, i);
    fputs("</table>\n", o);
}

static void write_failed(FILE *o, const struct gc_fleet *f)
{
    char rank[16];

    fprintf(o, "<h2 id=\"failed\">Devices without a result (%d)</h2>\n", f->nfailed);
    if (f->nfailed == 0)
        return;
    fputs("<table><tr><th>host</th><th>rank</th><th>device</th><th>status</th><th>why</th></tr>\n",
          o);
    for (int i = 0; i < f->ngpus; i++) {
        const struct gc_fleet_gpu *g = &f->gpus[i];

        if (g->status == GC_FLEET_OK)
            continue;
        snprintf(rank, sizeof(rank), "%d", g->rank);
        fputs("<tr>", o);
        cell(o, g->host);
        cell(o, rank);
        cell(o, g->spec);
        cell(o, gc_fleet_status_name(g->status));
        cell(o, g->message);
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
}

/* The node level: each flagged node's pairs (link matrices compared across
 * the nodes of one topology). */
static void write_nodes(FILE *o, const struct gc_fleet *f)
{
    char rank[16], bench[160], n[16];

    if (f->nnodes == 0)
        return;
    fprintf(o,
            "<h2 id=\"nodes\">Flagged nodes (%d of %d)</h2>\n<p>A node's link figure (row and "
            "ordered pair) worse than %.3g &times; the median of the nodes of its topology "
            "(median / %.3g where lower is better; at least %d nodes).</p>\n",
            f->nflagged_nodes, f->nnodes, f->opt.low_ratio, f->opt.low_ratio, f->opt.min_group);
    if (f->nnode_flags == 0)
        return;
    fputs("<table><tr><th>host</th><th>rank</th><th>node document</th><th>topology</th>"
          "<th>link row</th><th>pair</th><th>value</th><th>median of the topology</th>"
          "<th>threshold</th><th>nodes</th></tr>\n",
          o);
    for (int k = 0; k < f->nnode_flags; k++) {
        const struct gc_fleet_node_flag *fl = &f->node_flags[k];
        const struct gc_fleet_node *nd = &f->nodes[fl->node];
        const struct gc_fleet_figure *fg = &f->node_figures[fl->figure];
        const char *slash = strrchr(fg->key, '/');

        snprintf(rank, sizeof(rank), "%d", nd->rank);
        snprintf(n, sizeof(n), "%d", fl->n);
        snprintf(bench, sizeof(bench), "%.*s", slash ? (int)(slash - fg->key) : 0, fg->key);
        fprintf(o, "<tr class=\"flagged\" data-rank=\"%d\">", nd->rank);
        cell(o, nd->host);
        cell(o, rank);
        cell(o, nd->source);
        cell(o, nd->topology);
        cell(o, bench);
        cell(o, slash ? slash + 1 : fg->key);
        qty_cell(o, fl->value, fg->unit);
        qty_cell(o, fl->median, fg->unit);
        qty_cell(o, fl->floor, fg->unit);
        cell(o, n);
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
}

static void write_rules(FILE *o, const struct gc_fleet *f)
{
    fprintf(o,
            "<h2 id=\"rules\">Rules</h2>\n<ul><li>low: a figure worse than the stricter of "
            "%.3g &times; its group's median (median / %.3g where lower is better; groups of at "
            "least %d devices) and the SKU's absolute floor",
            f->opt.low_ratio, f->opt.low_ratio, f->opt.min_group);
    if (f->reference[0]) {
        fputs(" from ", o);
        gc__html_esc(o, f->reference);
    } else {
        fputs(" (no reference file given)", o);
    }
    fprintf(o,
            "</li><li>high: better than %.3g &times; the median with a robust z beyond %.3g "
            "(a wrong limit or a measurement error)</li></ul>\n",
            f->opt.high_ratio, f->opt.high_z);
    for (int i = 0; i < f->nnotes; i++) {
        fputs("<p class=\"notice\">", o);
        gc__html_esc(o, f->notes[i]);
        fputs("</p>\n", o);
    }
}

static void write_figs(FILE *o, const struct fleet_figs *p, const struct gc_html_info *info)
{
    fputs("<h2 id=\"distributions\">Distributions</h2>\n", o);
    if (info->note[0]) {
        fputs("<p class=\"notice\" id=\"figures-note\">", o);
        gc__html_esc(o, info->note);
        fputs("</p>\n", o);
    }
    fputs("<div class=\"figs\">\n", o);
    for (int i = 0; i < p->n; i++) {
        if (!p->ok[i])
            continue;
        fprintf(o, "<figure class=\"fig\" id=\"fig-%d\"><div class=\"plot\">", i);
        if (gc__html_embed_svg(o, p->svg[i], i, p->f[i].title) != 0)
            fputs("<p>figure missing</p>", o);
        fputs("</div><figcaption>", o);
        gc__html_esc(o, p->f[i].title);
        fputs(" (click to enlarge)</figcaption></figure>\n", o);
    }
    fputs("</div>\n", o);
}

int gc_write_fleet_html(const struct gc_fleet *f, const char *path, struct gc_html_info *info,
                        char *err, size_t errlen)
{
    struct gc_html_info local;
    struct gc_outfile of;
    struct fleet_figs figs;
    char title[128], sub[256];
    int rc;

    if (!info)
        info = &local;
    memset(info, 0, sizeof(*info));
    rc = gc__outfile_open(path, &of, err, errlen);
    if (rc)
        return rc;
    rc = figs_prepare(f, &figs, info);
    if (rc == 0) {
        snprintf(title, sizeof(title), "gpuchar fleet: %d devices, %d flagged", f->ngpus,
                 f->nflagged_gpus);
        snprintf(sub, sizeof(sub), "%d groups, %d headline figures, %d without a result",
                 f->ngroups, f->nfig, f->nfailed);
        gc__html_page_start(of.f, title, sub);
        write_rules(of.f, f);
        write_flagged(of.f, f);
        write_failed(of.f, f);
        write_nodes(of.f, f);
        write_figs(of.f, &figs, info);
        gc__html_page_end(of.f, "Written by gpuchar fleet analysis.");
    }
    figs_free(&figs);
    if (rc) {
        gc__outfile_abort(&of);
        snprintf(err, errlen, "%s", gc_strerror(rc));
        return rc;
    }
    return gc__outfile_commit(&of, err, errlen);
}
