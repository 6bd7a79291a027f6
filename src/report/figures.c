/* The figure catalogue: groups the series of a run into figures, chooses the
 * axes and adds the marks a reader needs (limits, detected levels, ridge and
 * Little's-law occupancies, capacities, the cusp). Known series families get
 * the titles and groupings their benchmark recorded in its result
 * (gc_bench_result.report, core/present.h); any other series, and every
 * series of a file that predates the record, is drawn by the same generic
 * rules, so a new benchmark gets figures without a change here. */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/present.h"
#include "core/results.h"
#include "report/figures.h"
#include "report/units.h"

#define MAX_LAYERS 10 /* curves of one run in one figure before it is split */
#define MAX_LIMITS 4
#define MAX_XMARKS 6

/* Series that no benchmark's rule names are drawn by the generic rules:
 * one figure per series family and axis units, titled by its quantities. */
static const struct gc_fig_rule generic = {.series = "*"};

static bool match_any(const char *patterns, const char *name)
{
    char pat[128];
    const char *p = patterns;

    while (*p) {
        size_t l = strcspn(p, "|");

        snprintf(pat, sizeof(pat), "%.*s", (int)l, p);
        if (fnmatch(pat, name, 0) == 0)
            return true;
        p += l;
        if (*p == '|')
            p++;
    }
    return false;
}

/* The first of the figure rules the benchmark recorded in its result that
 * names the series. */
static const struct gc_fig_rule *rule_of(const struct gc_bench_result *b, const char *series)
{
    if (!b || !b->report || !b->report->figures)
        return &generic;
    for (const struct gc_fig_rule *ru = b->report->figures; ru->series; ru++)
        if (match_any(ru->series, series))
            return ru;
    return &generic;
}

static void key_part(const struct gc_fig_rule *ru, const char *series, char *buf, size_t len)
{
    size_t l;

    buf[0] = '\0';
    if (!ru->key_end || strlen(series) <= (size_t)ru->key_skip)
        return;
    series += ru->key_skip;
    l = strcspn(series, ru->key_end);
    snprintf(buf, len, "%.*s", (int)l, series);
}

bool gc__figures_spans_octaves(const double *v, int n)
{
    double lo = INFINITY, hi = -INFINITY;
    int k = 0;

    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            continue;
        if (v[i] <= 0)
            return false;
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
        k++;
    }
    return k >= 2 && hi / lo >= 16;
}

/* A series drawn as a model or a fit rather than as measurements. */
static bool is_model(const struct gc_series *s)
{
    size_t l = strlen(s->name);

    size_t ly = strlen(s->y_name);

    return (ly >= 5 && strcmp(s->y_name + ly - 5, "model") == 0) || strstr(s->y_name, "fitted") ||
           strstr(s->name, "_fit") || strncmp(s->name, "contention_fit", 14) == 0 ||
           (l > 6 && strcmp(s->name + l - 6, "_basic") == 0) ||
           (l > 8 && strcmp(s->name + l - 8, "_refined") == 0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static bool x_sorted(const struct gc_series *s)
{
    for (int i = 1; i < s->npoints; i++)
        if (s->points[i].x < s->points[i - 1].x)
            return false;
    return true;
}

static int finite_points(const struct gc_series *s)
{
    int n = 0;

    for (int i = 0; i < s->npoints; i++)
        n += isfinite(s->points[i].x) && isfinite(s->points[i].y);
    return n;
}

/* Units that name the same quantity on a plot: a latency per load and a
 * latency metric, a figure per clock and its limit. */
static bool same_unit(const char *series_unit, const char *metric_unit)
{
    size_t l = strlen(metric_unit);

    if (!metric_unit[0])
        return false;
    if (strcmp(series_unit, metric_unit) == 0)
        return true;
    return strncmp(series_unit, metric_unit, l) == 0 && strcmp(series_unit + l, "/load") == 0;
}

struct builder {
    struct gc_figure *figs;
    int n, cap;
    /* The key of each figure, parallel to figs. */
    char (*keys)[256];
};

static int add_figure(struct builder *b, const char *key, struct gc_figure **out)
{
    if (b->n == b->cap) {
        int ncap = b->cap ? 2 * b->cap : 16;
        struct gc_figure *nf = realloc(b->figs, (size_t)ncap * sizeof(*nf));
        char(*nk)[256];

        if (!nf)
            return GC_ENOMEM;
        b->figs = nf;
        nk = realloc(b->keys, (size_t)ncap * sizeof(*nk));
        if (!nk)
            return GC_ENOMEM;
        b->keys = nk;
        b->cap = ncap;
    }
    memset(&b->figs[b->n], 0, sizeof(b->figs[b->n]));
    snprintf(b->keys[b->n], sizeof(b->keys[b->n]), "%s", key);
    *out = &b->figs[b->n++];
    return 0;
}

static int add_layer(struct gc_figure *f, const struct gc_series *s, int run, enum gc_fig_style st,
                     const char *label)
{
    struct gc_fig_layer *nl = realloc(f->layers, (size_t)(f->nlayers + 1) * sizeof(*nl));
    struct gc_fig_layer *l;

    if (!nl)
        return GC_ENOMEM;
    f->layers = nl;
    l = &f->layers[f->nlayers++];
    l->s = s;
    l->run = run;
    l->style = st;
    if (label && label[0])
        snprintf(l->title, sizeof(l->title), "%s (%s)", s->name, label);
    else
        snprintf(l->title, sizeof(l->title), "%s", s->name);
    return 0;
}

static int add_mark(struct gc_figure *f, const struct gc_fig_mark *m)
{
    struct gc_fig_mark *nm = realloc(f->marks, (size_t)(f->nmarks + 1) * sizeof(*nm));

    if (!nm)
        return GC_ENOMEM;
    f->marks = nm;
    f->marks[f->nmarks++] = *m;
    return 0;
}

static int count_marks(const struct gc_figure *f, enum gc_fig_mark_kind k, int run)
{
    int n = 0;

    for (int i = 0; i < f->nmarks; i++)
        n += f->marks[i].kind == k && f->marks[i].run == run;
    return n;
}

/* The extent of the figure's x data (of every layer). */
static void x_extent(const struct gc_figure *f, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < f->nlayers; i++)
        for (int j = 0; j < f->layers[i].s->npoints; j++) {
            const struct gc_point *p = &f->layers[i].s->points[j];

            if (!isfinite(p->x) || !isfinite(p->y))
                continue;
            *lo = p->x < *lo ? p->x : *lo;
            *hi = p->x > *hi ? p->x : *hi;
        }
}

static const char *run_suffix(const char *label, char *buf, size_t len)
{
    if (!label || !label[0])
        buf[0] = '\0';
    else
        snprintf(buf, len, " (%s)", label);
    return buf;
}

/* The range "(A B .. C B)" or "between A B and C B" that the latency
 * benchmarks write into a level's note: the footprints of its plateau and
 * the bounds of its capacity step. */
static bool note_range(const char *note, const char *lead, const char *sep, double *lo, double *hi)
{
    const char *p = strstr(note, lead);
    char *end;

    if (!p)
        return false;
    p += strlen(lead);
    *lo = strtod(p, &end);
    if (end == p || strncmp(end, sep, strlen(sep)) != 0)
        return false;
    p = end + strlen(sep);
    *hi = strtod(p, &end);
    return end != p && isfinite(*lo) && isfinite(*hi) && *lo <= *hi;
}

/* Limits of the metrics measured in the y unit, as horizontal lines. */
static int limit_marks(struct gc_figure *f, const struct gc_bench_result *b, int run,
                       const char *label)
{
    char sfx[64], q[64];

    for (int i = 0; i < b->nmetrics; i++) {
        const struct gc_metric *m = &b->metrics[i];
        struct gc_fig_mark mk = {GC_FIG_LIMIT, m->limit, NAN, NAN, NAN, NAN, run, ""};
        bool dup = false;

        if (!isfinite(m->limit) || m->limit <= 0 || !same_unit(f->yunit, m->unit))
            continue;
        for (int j = 0; j < f->nmarks && !dup; j++)
            dup = f->marks[j].kind == GC_FIG_LIMIT && f->marks[j].run == run &&
                  fabs(f->marks[j].v - m->limit) <= 1e-9 * m->limit;
        if (dup || count_marks(f, GC_FIG_LIMIT, run) >= MAX_LIMITS)
            continue;
        gc__fmt_quantity(q, sizeof(q), m->limit, m->unit);
        snprintf(mk.label, sizeof(mk.label), "limit of %.60s: %.30s%.30s", m->name, q,
                 run_suffix(label, sfx, sizeof(sfx)));
        if (add_mark(f, &mk))
            return GC_ENOMEM;
    }
    return 0;
}

/* Metrics measured in the x unit (ridge and Little's-law occupancies,
 * capacities, the cusp) that fall on the plot, as vertical lines; a
 * capacity's step bounds, where its note gives them, as a band. */
static int x_marks(struct gc_figure *f, const struct gc_bench_result *b, int run, const char *label)
{
    double lo, hi;
    char sfx[64], q[64];

    if (!f->xunit[0])
        return 0;
    x_extent(f, &lo, &hi);
    if (!(lo <= hi))
        return 0;
    for (int i = 0; i < b->nmetrics; i++) {
        const struct gc_metric *m = &b->metrics[i];
        struct gc_fig_mark mk = {GC_FIG_XMARK, m->value, NAN, NAN, NAN, NAN, run, ""};

        if (!isfinite(m->value) || strcmp(m->unit, f->xunit) != 0)
            continue;
        if (m->value < lo / 1.5 || m->value > hi * 1.5 || (f->logx && m->value <= 0))
            continue;
        if (count_marks(f, GC_FIG_XMARK, run) >= MAX_XMARKS)
            break;
        note_range(m->note, "between ", " B and ", &mk.band_lo, &mk.band_hi);
        gc__fmt_quantity(q, sizeof(q), m->value, m->unit);
        snprintf(mk.label, sizeof(mk.label), "%.60s = %.30s%.30s", m->name, q,
                 run_suffix(label, sfx, sizeof(sfx)));
        if (add_mark(f, &mk))
            return GC_ENOMEM;
    }
    return 0;
}

/* The levels a latency benchmark detected on this curve, as horizontal
 * segments over their plateaus; the band is the uncertainty of the level:
 * the range of the plateau's medians widened by the median of their 95%
 * confidence intervals (one noisy point would not widen it). A curve of
 * every SM at once has its own levels ("*all_sms*"). */
static int level_marks(struct gc_figure *f, const struct gc_bench_result *b,
                       const struct gc_series *s, int run, const char *label)
{
    const char *want = strcmp(s->y_unit, "cycles/load") == 0 ? "_latency_cycles"
                       : strcmp(s->y_unit, "ns/load") == 0   ? "_latency_ns"
                                                             : NULL;
    bool all_sms = strstr(s->name, "all_sms") != NULL;
    char sfx[64], q[64];

    if (!want)
        return 0;
    for (int i = 0; i < b->nmetrics; i++) {
        const struct gc_metric *m = &b->metrics[i];
        size_t l = strlen(m->name), w = strlen(want);
        struct gc_fig_mark mk = {GC_FIG_LEVEL, m->value, NAN, NAN, INFINITY, -INFINITY, run, ""};

        if (l <= w || strcmp(m->name + l - w, want) != 0 || !isfinite(m->value))
            continue;
        if ((strstr(m->name, "all_sms") != NULL) != all_sms)
            continue;
        if (!note_range(m->note, "footprints (", " B .. ", &mk.from, &mk.to)) {
            mk.from = mk.to = NAN;
            mk.band_lo = mk.band_hi = NAN;
        } else {
            double cis[64];
            int nci = 0;

            for (int j = 0; j < s->npoints; j++) {
                const struct gc_point *p = &s->points[j];

                if (p->x < mk.from || p->x > mk.to || !isfinite(p->y))
                    continue;
                mk.band_lo = p->y < mk.band_lo ? p->y : mk.band_lo;
                mk.band_hi = p->y > mk.band_hi ? p->y : mk.band_hi;
                if (p->stats.n > 1 && isfinite(p->stats.ci95) && nci < 64)
                    cis[nci++] = p->stats.ci95;
            }
            if (nci > 0) {
                double ci;

                qsort(cis, (size_t)nci, sizeof(cis[0]), cmp_double);
                ci = nci % 2 ? cis[nci / 2] : (cis[nci / 2 - 1] + cis[nci / 2]) / 2;
                mk.band_lo -= ci;
                mk.band_hi += ci;
            }
            if (!(mk.band_lo <= mk.band_hi))
                mk.band_lo = mk.band_hi = NAN;
        }
        gc__fmt_quantity(q, sizeof(q), m->value, s->y_unit);
        snprintf(mk.label, sizeof(mk.label), "%.*s: %s%s", (int)(l - w), m->name, q,
                 run_suffix(label, sfx, sizeof(sfx)));
        if (add_mark(f, &mk))
            return GC_ENOMEM;
    }
    return 0;
}

static void axis_label(char *buf, size_t len, const char *name, const char *unit)
{
    if (unit && unit[0])
        snprintf(buf, len, "%s [%s]", name, unit);
    else
        snprintf(buf, len, "%s", name);
}

/* Axes: names from the layers (the common name, else the first measured
 * one's), log scales where the data spans octaves, base 2 for sizes and
 * occupancies, 10 otherwise. */
static int finish_axes(struct gc_figure *f)
{
    const struct gc_series *s0 = f->layers[0].s;
    const char *yname = s0->y_name, *xname = s0->x_name;
    double *xs, *ys;
    int nx = 0;
    size_t total = 0;

    for (int i = 0; i < f->nlayers; i++) {
        if (strcmp(f->layers[i].s->y_name, yname) != 0)
            yname = f->layers[0].style == GC_FIG_MODEL ? f->layers[i].s->y_name : yname;
        total += (size_t)f->layers[i].s->npoints;
    }
    for (int i = 0; i < f->nlayers; i++)
        if (f->layers[i].style != GC_FIG_MODEL) {
            yname = f->layers[i].s->y_name;
            xname = f->layers[i].s->x_name;
            break;
        }
    axis_label(f->xlabel, sizeof(f->xlabel), xname, f->xunit);
    axis_label(f->ylabel, sizeof(f->ylabel), yname, f->yunit);
    xs = malloc((total ? total : 1) * sizeof(*xs));
    ys = malloc((total ? total : 1) * sizeof(*ys));
    if (!xs || !ys) {
        free(xs);
        free(ys);
        return GC_ENOMEM;
    }
    for (int i = 0; i < f->nlayers; i++)
        for (int j = 0; j < f->layers[i].s->npoints; j++) {
            const struct gc_point *p = &f->layers[i].s->points[j];

            if (!isfinite(p->x) || !isfinite(p->y))
                continue;
            xs[nx] = p->x;
            ys[nx++] = p->y;
        }
    f->logx = gc__figures_spans_octaves(xs, nx);
    f->logy = gc__figures_spans_octaves(ys, nx);
    f->logx_base = strcmp(f->xunit, "B") == 0 || strcmp(f->xunit, "warps") == 0 ||
                           strcmp(f->xunit, "threads") == 0
                       ? 2
                       : 10;
    f->logy_base = strcmp(f->yunit, "B") == 0 ? 2 : 10;
    free(xs);
    free(ys);
    return 0;
}

/* Copies s to dst with every character outside [A-Za-z0-9._-] replaced by
 * '_' (a file name). */
static void safe_id(char *dst, size_t size, const char *s)
{
    size_t n = 0;

    for (; *s && n + 1 < size; s++, n++) {
        char c = *s;
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';

        dst[n] = ok ? c : '_';
    }
    dst[n] = '\0';
}

/* Figures of one benchmark of run 0. */
static int bench_figures(struct builder *bd, const struct gc_bench_result *b)
{
    int first = bd->n;

    for (int i = 0; i < b->nseries; i++) {
        const struct gc_series *s = &b->series[i];
        const struct gc_fig_rule *ru = rule_of(b, s->name);
        char key[256], part[64];
        struct gc_figure *f = NULL;
        int nrun0;

        if (finite_points(s) == 0)
            continue;
        key_part(ru, s->name, part, sizeof(part));
        snprintf(key, sizeof(key), "%p|%s|%s|%s|%s", (const void *)ru, part, s->x_unit, s->y_unit,
                 ru->any_x_name ? "" : s->x_name);
        for (int j = first; j < bd->n && !f; j++) {
            /* A full figure continues in a new one with the same key. */
            nrun0 = bd->figs[j].nlayers;
            if (strcmp(bd->keys[j], key) == 0 && nrun0 < MAX_LAYERS)
                f = &bd->figs[j];
        }
        if (!f) {
            char idpart[160];
            int same = 0;

            for (int j = first; j < bd->n; j++)
                same += strcmp(bd->keys[j], key) == 0;
            if (add_figure(bd, key, &f))
                return GC_ENOMEM;
            snprintf(f->bench, sizeof(f->bench), "%s", b->name);
            snprintf(f->xunit, sizeof(f->xunit), "%s", s->x_unit);
            snprintf(f->yunit, sizeof(f->yunit), "%s", s->y_unit);
            {
                char t[160];

                if (ru->title && strstr(ru->title, "%s"))
                    snprintf(t, sizeof(t), ru->title, part);
                else if (ru->title)
                    snprintf(t, sizeof(t), "%s", ru->title);
                else
                    snprintf(t, sizeof(t), "%.70s vs %.70s", s->y_name, s->x_name);
                snprintf(f->title, sizeof(f->title), "%.60s: %.128s", b->name, t);
            }
            if (same > 0) {
                size_t l = strlen(f->title);

                snprintf(f->title + l, sizeof(f->title) - l, " (part %d)", same + 1);
            }
            snprintf(idpart, sizeof(idpart), "%s__%s%s%d", b->name, s->name, same ? "_" : "",
                     same ? same + 1 : 0);
            if (!same)
                snprintf(idpart, sizeof(idpart), "%s__%s", b->name, s->name);
            safe_id(f->id, sizeof(f->id), idpart);
        }
        if (add_layer(f, s, 0,
                      is_model(s)                   ? GC_FIG_MODEL
                      : ru->scatter || !x_sorted(s) ? GC_FIG_SCATTER
                                                    : GC_FIG_MEASURED,
                      NULL))
            return GC_ENOMEM;
    }
    return 0;
}

/* The same series of the other runs, laid over each figure, and every run's
 * marks. */
static int overlay_and_mark(struct gc_figure *f, const struct gc_results *const *runs,
                            const char *const *labels, int nruns)
{
    int n0 = f->nlayers;
    const struct gc_bench_result *b0 = gc__results_find(runs[0], f->bench);

    for (int r = 0; r < nruns; r++) {
        const struct gc_bench_result *b = gc__results_find(runs[r], f->bench);
        const char *label = nruns > 1 ? labels[r] : NULL;

        if (!b)
            continue;
        if (r > 0)
            for (int i = 0; i < n0; i++) {
                const struct gc_series *s = gc__bench_find_series(b, f->layers[i].s->name);

                if (s && finite_points(s) > 0 && add_layer(f, s, r, f->layers[i].style, label))
                    return GC_ENOMEM;
            }
        if (limit_marks(f, b, r, label) || x_marks(f, b, r, label))
            return GC_ENOMEM;
        for (int i = 0; i < n0; i++) {
            const struct gc_fig_rule *ru = rule_of(b0, f->layers[i].s->name);
            const struct gc_series *s =
                r == 0 ? f->layers[i].s : gc__bench_find_series(b, f->layers[i].s->name);

            if (ru->staircase && s && level_marks(f, b, s, r, label))
                return GC_ENOMEM;
        }
    }
    if (nruns > 1)
        for (int i = 0; i < n0; i++) {
            char t[128];

            snprintf(t, sizeof(t), "%s (%s)", f->layers[i].s->name, labels[0]);
            snprintf(f->layers[i].title, sizeof(f->layers[i].title), "%s", t);
        }
    return finish_axes(f);
}

int gc__figures_build(const struct gc_results *const *runs, const char *const *labels, int nruns,
                      struct gc_figure **out, int *n)
{
    static const char *const abc[] = {"A", "B", "C", "D", "E", "F", "G", "H"};
    struct builder bd = {0};
    int rc = 0;

    *out = NULL;
    *n = 0;
    if (nruns < 1 || !runs || !runs[0])
        return GC_EINVAL;
    if (!labels)
        labels = nruns <= 8 ? abc : NULL;
    if (!labels)
        return GC_EINVAL;
    for (int i = 0; i < runs[0]->nbenches && rc == 0; i++)
        rc = bench_figures(&bd, &runs[0]->benches[i]);
    for (int i = 0; i < bd.n && rc == 0; i++)
        rc = overlay_and_mark(&bd.figs[i], runs, labels, nruns);
    free(bd.keys);
    if (rc) {
        gc__figures_free(bd.figs, bd.n);
        return rc;
    }
    *out = bd.figs;
    *n = bd.n;
    return 0;
}

void gc__figures_free(struct gc_figure *f, int n)
{
    if (!f)
        return;
    for (int i = 0; i < n; i++) {
        free(f[i].layers);
        free(f[i].marks);
    }
    free(f);
}
