/* Comparison of runs: every metric of every benchmark side by side with the
 * baseline (the first run), its ratio, and a verdict that weighs the change
 * against a threshold and against the spread each run measured, so that
 * noise is not called a regression. Across devices, rates are also compared
 * per clock per compute unit and times in cycles. */
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/results.h"
#include "report/units.h"

static const char *const verdict_names[] = {"same",    "noise",   "improved", "regressed",
                                            "changed", "missing", "new",      "unknown",
                                            "failed",  "baseline"};

const char *gc_cmp_verdict_name(enum gc_cmp_verdict v)
{
    if ((int)v < 0 || (size_t)v >= sizeof(verdict_names) / sizeof(verdict_names[0]))
        return "unknown";
    return verdict_names[v];
}

void gc_compare_options_init(struct gc_compare_options *o)
{
    memset(o, 0, sizeof(*o));
    o->threshold = 0.05;
    o->noise_factor = 2;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);

    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* The relative spread of a sampled metric: its CV, or the 95% confidence
 * interval relative to the value where that is wider. NAN when the metric
 * was not sampled. */
static double spread_of(const struct gc_metric *m)
{
    double s = NAN, ref = isfinite(m->stats.median) ? m->stats.median : m->value;

    if (m->stats.n < 2)
        return NAN;
    if (isfinite(m->stats.cv))
        s = fabs(m->stats.cv);
    if (isfinite(m->stats.ci95) && isfinite(ref) && ref != 0) {
        double c = fabs(m->stats.ci95 / ref);

        s = isfinite(s) && s > c ? s : c;
    }
    return s;
}

static bool any_match(const char *const *pats, const char *a, const char *b)
{
    for (; *pats; pats++)
        if (fnmatch(*pats, a, 0) == 0 || (b && fnmatch(*pats, b, 0) == 0))
            return true;
    return false;
}

static bool bench_selected(const struct gc_compare_options *o, const char *name, const char *group)
{
    if (!o->benches || !o->benches[0])
        return true;
    for (const char *const *p = o->benches; *p; p++)
        if (gc_bench_matches(*p, name, group))
            return true;
    return false;
}

static bool metric_selected(const struct gc_compare_options *o, const char *bench,
                            const char *metric)
{
    char full[160];

    if (!o->metrics || !o->metrics[0])
        return true;
    snprintf(full, sizeof(full), "%s/%s", bench, metric);
    return any_match(o->metrics, full, metric);
}

/* Whether a metric pattern selects a metric of a selected benchmark. */
static bool metric_pattern_hits(const struct gc_results *const *runs, int nruns,
                                const struct gc_compare_options *o, const char *pat)
{
    const char *const one[2] = {pat, NULL};

    for (int k = 0; k < nruns; k++)
        for (int i = 0; runs[k] && i < runs[k]->nbenches; i++) {
            const struct gc_bench_result *b = &runs[k]->benches[i];

            if (!bench_selected(o, b->name, b->group))
                continue;
            for (int j = 0; j < b->nmetrics; j++) {
                char full[160];

                snprintf(full, sizeof(full), "%s/%s", b->name, b->metrics[j].name);
                if (any_match(one, full, b->metrics[j].name))
                    return true;
            }
        }
    return false;
}

const char *gc_compare_unmatched(const struct gc_results *const *runs, int nruns,
                                 const struct gc_compare_options *o, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!runs || !o)
        return NULL;
    for (const char *const *p = o->benches; p && *p; p++) {
        bool hit = false;

        for (int k = 0; k < nruns && !hit; k++)
            for (int i = 0; runs[k] && i < runs[k]->nbenches && !hit; i++)
                hit = gc_bench_matches(*p, runs[k]->benches[i].name, runs[k]->benches[i].group);
        if (!hit) {
            snprintf(err, errlen, "--bench '%s' matches no benchmark of the results files", *p);
            return *p;
        }
    }
    for (const char *const *p = o->metrics; p && *p; p++)
        if (!metric_pattern_hits(runs, nruns, o, *p)) {
            snprintf(err, errlen,
                     "--metric '%s' matches no metric of the %sbenchmarks of the results files", *p,
                     o->benches && o->benches[0] ? "selected " : "");
            return *p;
        }
    return NULL;
}

/* The clock a benchmark ran at, MHz: observed, else the device's maximum. */
static double clock_of(const struct gc_results *r, const struct gc_bench_result *b)
{
    if (b && isfinite(b->context.sm_clock_mhz) && b->context.sm_clock_mhz > 0)
        return b->context.sm_clock_mhz;
    if (isfinite(r->meta.device.clock_mhz) && r->meta.device.clock_mhz > 0)
        return r->meta.device.clock_mhz;
    return NAN;
}

/* Ratio of the figure per clock per compute unit (rates), or of the figure
 * in cycles (times); NAN for any other unit. */
static double per_clock_ratio(const char *unit, double v0, double v1, double clk0, double clk1,
                              int cu0, int cu1)
{
    if (!isfinite(v0) || !isfinite(v1) || v0 == 0 || !isfinite(clk0) || !isfinite(clk1))
        return NAN;
    if (ends_with(unit, "/s") && cu0 > 0 && cu1 > 0)
        return (v1 / (clk1 * cu1)) / (v0 / (clk0 * cu0));
    if (strcmp(unit, "s") == 0 || strcmp(unit, "ns") == 0 || strcmp(unit, "ns/load") == 0)
        return (v1 * clk1) / (v0 * clk0);
    return NAN;
}

static int add_row(struct gc_comparison *c, int *cap, const char *bench, const char *metric,
                   const char *unit, struct gc_cmp_row **out)
{
    struct gc_cmp_row *row;

    if (c->nrows == *cap) {
        int ncap = *cap ? 2 * *cap : 64;
        struct gc_cmp_row *nr = realloc(c->rows, (size_t)ncap * sizeof(*nr));

        if (!nr)
            return GC_ENOMEM;
        c->rows = nr;
        *cap = ncap;
    }
    row = &c->rows[c->nrows];
    memset(row, 0, sizeof(*row));
    row->cell = calloc((size_t)c->nruns, sizeof(*row->cell));
    if (!row->cell)
        return GC_ENOMEM;
    c->nrows++;
    snprintf(row->bench, sizeof(row->bench), "%s", bench);
    snprintf(row->metric, sizeof(row->metric), "%s", metric);
    snprintf(row->unit, sizeof(row->unit), "%s", unit);
    row->direction = metric[0] ? gc__metric_direction(metric, unit) : 0;
    for (int k = 0; k < c->nruns; k++) {
        row->cell[k].value = row->cell[k].spread = row->cell[k].ratio = NAN;
        row->cell[k].ratio_per_clk_cu = row->cell[k].change = row->cell[k].noise = NAN;
        row->cell[k].verdict = k == 0 ? GC_CMP_BASELINE : GC_CMP_UNKNOWN;
    }
    *out = row;
    return 0;
}

static int add_note(struct gc_comparison *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int add_note(struct gc_comparison *c, const char *fmt, ...)
{
    char(*nn)[256] = realloc(c->notes, (size_t)(c->nnotes + 1) * sizeof(*nn));
    va_list ap;

    if (!nn)
        return GC_ENOMEM;
    c->notes = nn;
    va_start(ap, fmt);
    vsnprintf(c->notes[c->nnotes], sizeof(c->notes[c->nnotes]), fmt, ap);
    va_end(ap);
    c->nnotes++;
    return 0;
}

/* A change beyond the threshold of a figure that carries no spread on one
 * side (a fitted parameter, a single sample, a derived value without its
 * uncertainty): without knowing its noise, the change is reported but never
 * counted as a regression or an improvement by the threshold alone. A fit
 * that records its uncertainty as the metric's stats is judged with it like
 * any sampled figure. */
static void no_spread(struct gc_cmp_cell *x, bool better)
{
    size_t used = strlen(x->note);

    x->verdict = GC_CMP_CHANGED;
    snprintf(x->note + used, sizeof(x->note) - used, "%sno spread: %s by %.1f%%, not counted",
             used ? "; " : "", better ? "better" : "worse", 100 * fabs(x->change));
}

/* The verdict of run k's cell against the baseline's. */
static void judge(const struct gc_comparison *c, struct gc_cmp_row *row, int k)
{
    struct gc_cmp_cell *b = &row->cell[0], *x = &row->cell[k];
    double s0, s1;

    if (!b->present) {
        x->verdict = x->present ? GC_CMP_NEW : GC_CMP_MISSING;
        return;
    }
    if (!x->present) {
        x->verdict = GC_CMP_MISSING;
        return;
    }
    if (!isfinite(b->value) || !isfinite(x->value)) {
        x->verdict = GC_CMP_UNKNOWN;
        return;
    }
    if (b->value != 0)
        x->ratio = x->value / b->value;
    x->change = b->value != 0 ? (x->value - b->value) / fabs(b->value) : x->value == 0 ? 0 : NAN;
    s0 = isfinite(b->spread) ? b->spread : 0;
    s1 = isfinite(x->spread) ? x->spread : 0;
    x->noise = c->opt.noise_factor * sqrt(s0 * s0 + s1 * s1);
    if (!isfinite(x->change))
        x->verdict = GC_CMP_CHANGED;
    else if (fabs(x->change) <= c->opt.threshold)
        x->verdict = GC_CMP_SAME;
    else if (fabs(x->change) <= x->noise)
        x->verdict = GC_CMP_NOISE;
    else if (row->direction == 0)
        x->verdict = GC_CMP_CHANGED;
    else if (!isfinite(b->spread) || !isfinite(x->spread))
        no_spread(x, row->direction * x->change > 0);
    else
        x->verdict = row->direction * x->change > 0 ? GC_CMP_IMPROVED : GC_CMP_REGRESSED;
}

static const char *status_word(enum gc_bench_status st)
{
    static const char *const w[] = {"ok", "error", "not available", "interrupted", "skipped"};

    return (int)st >= 0 && (int)st < 5 ? w[st] : "error";
}

/* The first line of a benchmark's error, for a note. */
static void first_line(char *dst, size_t len, const char *s)
{
    snprintf(dst, len, "%.*s", (int)strcspn(s, "\n"), s);
}

/* Rows of one benchmark: its status where the runs differ, then its
 * metrics in the order they first appear. */
static int bench_rows(struct gc_comparison *c, int *cap, const char *name)
{
    const struct gc_bench_result **b = calloc((size_t)c->nruns, sizeof(*b));
    bool differ = false;
    int rc = 0;

    if (!b)
        return GC_ENOMEM;
    for (int k = 0; k < c->nruns; k++)
        b[k] = gc__results_find(c->runs[k], name);
    for (int k = 1; k < c->nruns; k++)
        differ |= !b[k] != !b[0] || (b[k] && b[0] && b[k]->status != b[0]->status);
    if (differ) {
        struct gc_cmp_row *row;

        rc = add_row(c, cap, name, "", "", &row);
        for (int k = 0; k < c->nruns && rc == 0; k++) {
            struct gc_cmp_cell *x = &row->cell[k];
            char line[120];

            x->present = b[k] != NULL;
            if (!b[k]) {
                snprintf(x->note, sizeof(x->note), "not in this run");
            } else {
                first_line(line, sizeof(line), b[k]->error);
                snprintf(x->note, sizeof(x->note), "%s%s%s", status_word(b[k]->status),
                         line[0] ? ": " : "", line);
            }
            if (k == 0)
                continue;
            if (!b[0])
                x->verdict = GC_CMP_NEW;
            else if (!b[k])
                x->verdict = GC_CMP_MISSING;
            else if (b[0]->status == GC_BENCH_OK && b[k]->status == GC_BENCH_ERROR)
                x->verdict = GC_CMP_FAILED;
            else
                x->verdict = GC_CMP_CHANGED;
        }
    }
    for (int k = 0; k < c->nruns && rc == 0; k++) {
        if (!b[k])
            continue;
        for (int j = 0; j < b[k]->nmetrics && rc == 0; j++) {
            const struct gc_metric *m = &b[k]->metrics[j];
            struct gc_cmp_row *row;
            bool seen = false;

            if (!metric_selected(&c->opt, name, m->name))
                continue;
            for (int q = 0; q < k && !seen; q++)
                seen = b[q] && gc__bench_find_metric(b[q], m->name) != NULL;
            if (seen)
                continue;
            rc = add_row(c, cap, name, m->name, m->unit, &row);
            for (int q = 0; q < c->nruns && rc == 0; q++) {
                const struct gc_metric *mq = b[q] ? gc__bench_find_metric(b[q], m->name) : NULL;
                struct gc_cmp_cell *x = &row->cell[q];

                if (!mq) {
                    if (b[q])
                        snprintf(x->note, sizeof(x->note), "no such metric in this run");
                    else
                        snprintf(x->note, sizeof(x->note), "benchmark not in this run");
                    continue;
                }
                x->present = true;
                x->value = mq->value;
                x->spread = spread_of(mq);
                if (strcmp(mq->unit, m->unit) != 0) {
                    snprintf(x->note, sizeof(x->note), "unit %s, not %s: not compared", mq->unit,
                             m->unit);
                    x->value = NAN;
                }
            }
            for (int q = 1; q < c->nruns && rc == 0; q++) {
                judge(c, row, q);
                if (row->cell[q].present && row->cell[0].present)
                    row->cell[q].ratio_per_clk_cu = per_clock_ratio(
                        m->unit, row->cell[0].value, row->cell[q].value, clock_of(c->runs[0], b[0]),
                        clock_of(c->runs[q], b[q]), c->runs[0]->meta.device.compute_units,
                        c->runs[q]->meta.device.compute_units);
            }
        }
    }
    free(b);
    return rc;
}

static int document_notes(struct gc_comparison *c)
{
    const struct gc_results *a = c->runs[0];
    int rc = 0;

    for (int k = 0; k < c->nruns && rc == 0; k++)
        if (!c->runs[k]->complete)
            rc = add_note(c, "%s is an incomplete run: %s", c->label[k],
                          c->runs[k]->incomplete_reason);
    for (int k = 1; k < c->nruns && rc == 0; k++) {
        const struct gc_results *r = c->runs[k];
        int only_a = 0, only_k = 0;
        char first_a[64] = "", first_k[64] = "";

        if (strcmp(r->meta.tool_version, a->meta.tool_version) != 0)
            rc = add_note(c, "%s was measured with gpuchar %s, %s with %s", c->label[k],
                          r->meta.tool_version, c->label[0], a->meta.tool_version);
        if (rc == 0 && strcmp(r->meta.profile, a->meta.profile) != 0)
            rc = add_note(c, "%s used the %s profile, %s the %s profile", c->label[k],
                          r->meta.profile[0] ? r->meta.profile : "(unknown)", c->label[0],
                          a->meta.profile[0] ? a->meta.profile : "(unknown)");
        if (rc == 0 && strcmp(r->meta.device.name, a->meta.device.name) != 0)
            rc = add_note(c, "%s ran on %s, %s on %s: ratios per clock per compute unit are given",
                          c->label[k], r->meta.device.name, c->label[0], a->meta.device.name);
        for (int i = 0; i < a->nbenches; i++)
            if (!gc__results_find(r, a->benches[i].name) &&
                bench_selected(&c->opt, a->benches[i].name, a->benches[i].group) && only_a++ == 0)
                snprintf(first_a, sizeof(first_a), "%s", a->benches[i].name);
        for (int i = 0; i < r->nbenches; i++)
            if (!gc__results_find(a, r->benches[i].name) &&
                bench_selected(&c->opt, r->benches[i].name, r->benches[i].group) && only_k++ == 0)
                snprintf(first_k, sizeof(first_k), "%s", r->benches[i].name);
        if (rc == 0 && (only_a || only_k))
            rc = add_note(c, "the benchmark sets differ: %d only in %s%s%s%s, %d only in %s%s%s%s",
                          only_a, c->label[0], only_a ? " (" : "", first_a,
                          only_a > 1   ? ", ...)"
                          : only_a > 0 ? ")"
                                       : "",
                          only_k, c->label[k], only_k ? " (" : "", first_k,
                          only_k > 1   ? ", ...)"
                          : only_k > 0 ? ")"
                                       : "");
    }
    return rc;
}

int gc_compare(const struct gc_results *const *runs, const char *const *sources, int nruns,
               const struct gc_compare_options *opt, struct gc_comparison **out)
{
    struct gc_comparison *c;
    int cap = 0, rc = 0;

    *out = NULL;
    if (!runs || nruns < 2 || nruns > 26)
        return GC_EINVAL;
    for (int k = 0; k < nruns; k++)
        if (!runs[k])
            return GC_EINVAL;
    c = calloc(1, sizeof(*c));
    if (!c)
        return GC_ENOMEM;
    c->nruns = nruns;
    c->runs = runs;
    if (opt)
        c->opt = *opt;
    else
        gc_compare_options_init(&c->opt);
    if (!(c->opt.threshold >= 0))
        c->opt.threshold = 0.05;
    if (!(c->opt.noise_factor >= 0))
        c->opt.noise_factor = 2;
    c->label = calloc((size_t)nruns, sizeof(*c->label));
    c->source = calloc((size_t)nruns, sizeof(*c->source));
    if (!c->label || !c->source) {
        rc = GC_ENOMEM;
        goto out;
    }
    for (int k = 0; k < nruns; k++) {
        snprintf(c->label[k], sizeof(c->label[k]), "%c", 'A' + k);
        snprintf(c->source[k], sizeof(c->source[k]), "%s", sources && sources[k] ? sources[k] : "");
        if (strcmp(runs[k]->meta.device.name, runs[0]->meta.device.name) != 0 ||
            runs[k]->meta.device.compute_units != runs[0]->meta.device.compute_units)
            c->cross_device = true;
    }
    rc = document_notes(c);
    /* Benchmarks in the baseline's order, then those only in later runs. */
    for (int k = 0; k < nruns && rc == 0; k++)
        for (int i = 0; i < runs[k]->nbenches && rc == 0; i++) {
            const struct gc_bench_result *b = &runs[k]->benches[i];
            bool seen = false;

            if (!bench_selected(&c->opt, b->name, b->group))
                continue;
            for (int q = 0; q < k && !seen; q++)
                seen = gc__results_find(runs[q], b->name) != NULL;
            if (!seen)
                rc = bench_rows(c, &cap, b->name);
        }
    for (int i = 0; i < c->nrows && rc == 0; i++)
        for (int k = 1; k < nruns; k++) {
            enum gc_cmp_verdict v = c->rows[i].cell[k].verdict;

            c->regressions += v == GC_CMP_REGRESSED || v == GC_CMP_FAILED;
            c->improvements += v == GC_CMP_IMPROVED;
        }
out:
    if (rc) {
        gc_comparison_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void gc_comparison_free(struct gc_comparison *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->nrows; i++)
        free(c->rows[i].cell);
    free(c->rows);
    free(c->label);
    free(c->source);
    free(c->notes);
    free(c);
}
