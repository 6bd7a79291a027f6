/* The guide (include/gpuchar/guide.h): the rules of model/guide_rules.c
 * over a saved profile, the predicted best optimization class, and
 * application.jacobi's measured Table 2 beside it. */
#include "model/guide.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/results.h"
#include "model/jacobi.h"

const struct gc_bench_result *gc__guide_bench(const struct gc_results *r, const char *bench)
{
    const struct gc_bench_result *b = gc__results_find(r, bench);

    return b && (b->status == GC_BENCH_OK || b->status == GC_BENCH_INTERRUPTED) ? b : NULL;
}

double gc__guide_metric(const struct gc_results *r, const char *bench, const char *metric,
                        const char **unit)
{
    const struct gc_bench_result *b = gc__guide_bench(r, bench);
    const struct gc_metric *m = b ? gc__bench_find_metric(b, metric) : NULL;

    if (m && unit)
        *unit = m->unit;
    return m ? m->value : NAN;
}

double gc__guide_series_max(const struct gc_results *r, const char *bench, const char *series,
                            const char **unit)
{
    const struct gc_bench_result *b = gc__guide_bench(r, bench);
    const struct gc_series *s = b ? gc__bench_find_series(b, series) : NULL;
    double best = NAN;

    for (int i = 0; s && i < s->npoints; i++)
        if (isfinite(s->points[i].y) && !(s->points[i].y <= best))
            best = s->points[i].y;
    if (s && unit)
        *unit = s->y_unit;
    return best;
}

bool gc__guide_series_ends(const struct gc_results *r, const char *bench, const char *series,
                           double *first, double *last)
{
    const struct gc_bench_result *b = gc__guide_bench(r, bench);
    const struct gc_series *s = b ? gc__bench_find_series(b, series) : NULL;
    int lo = -1, hi = -1;

    for (int i = 0; s && i < s->npoints; i++) {
        if (!isfinite(s->points[i].y))
            continue;
        if (lo < 0 || s->points[i].x < s->points[lo].x)
            lo = i;
        if (hi < 0 || s->points[i].x > s->points[hi].x)
            hi = i;
    }
    if (lo < 0 || lo == hi)
        return false;
    *first = s->points[lo].y;
    *last = s->points[hi].y;
    return true;
}

void gc__guide_fig(struct gc_guide_item *it, const char *bench, const char *name, double value,
                   const char *unit)
{
    struct gc_guide_fig *f;

    if (it->nfigs >= GC_GUIDE_MAX_FIGS)
        return;
    f = &it->figs[it->nfigs++];
    snprintf(f->name, sizeof(f->name), "%s:%s", bench, name);
    f->value = value;
    snprintf(f->unit, sizeof(f->unit), "%s", unit ? unit : "");
}

enum gc_guide_verdict gc__guide_verdict_of(double gain_pct)
{
    if (!isfinite(gain_pct))
        return GC_GUIDE_UNKNOWN;
    return gain_pct >= GC_GUIDE_PAYS_PCT    ? GC_GUIDE_PAYS
           : gain_pct >= GC_GUIDE_SMALL_PCT ? GC_GUIDE_SMALL
                                            : GC_GUIDE_NONE;
}

/* The class of the largest expected gain among those that pay off (two
 * rules may speak for one class: vectorization and wide loads). */
static void predict(struct gc_guide *g)
{
    int best = -1;

    for (int i = 0; i < g->nitems; i++)
        if (g->items[i].verdict == GC_GUIDE_PAYS &&
            (best < 0 || g->items[i].gain_pct > g->items[best].gain_pct))
            best = i;
    snprintf(g->predicted_class, sizeof(g->predicted_class), "%s",
             best >= 0 ? g->items[best].klass : "none");
    g->predicted_gain_pct = best >= 0 ? g->items[best].gain_pct : NAN;
}

/* The measured single variant of the predicted class, for the reason of a
 * miss: "vec4 alone +3%". */
static void single_note(const double *t, const char *cls, char *buf, size_t len)
{
    static const char *const singles[][4] = {
        {"vectorization", "vec4", "vec8", "vec16"},
        {"manual caching", "mcStat", "mcDyn", NULL},
        {"branch elimination", "BE", NULL, NULL},
    };
    size_t n = 0;

    buf[0] = '\0';
    for (int c = 0; c < 3; c++) {
        if (strcmp(cls, singles[c][0]) != 0)
            continue;
        for (int k = 1; k < 4 && singles[c][k]; k++) {
            int v = gc__jacobi_find(singles[c][k]);
            if (v < 0 || !isfinite(t[v]) || !isfinite(t[0]) || n >= len)
                continue;
            n += (size_t)snprintf(buf + n, len - n, "%s%s alone %+.0f%%", n ? ", " : "",
                                  singles[c][k], (t[0] / t[v] - 1) * 100);
        }
    }
}

/* application.jacobi's Table 2 from its "<variant>.time" metrics, the
 * measured class (none below GC_GUIDE_MEASURED_PCT) and hit or miss. */
static void check_jacobi(const struct gc_results *r, struct gc_guide *g)
{
    struct gc_guide_check *c = &g->jacobi;
    double t[GC_JACOBI_NVARIANTS];
    struct gc_jtable tb;
    char name[32], mn[64], alone[160];

    snprintf(c->bench, sizeof(c->bench), "application.jacobi");
    for (int i = 0; i < GC_JACOBI_NVARIANTS; i++) {
        gc__jacobi_name(gc__jacobi_variant(i), name, sizeof(name));
        snprintf(mn, sizeof(mn), "%s.time", name);
        t[i] = gc__guide_metric(r, c->bench, mn, NULL);
    }
    gc__jacobi_table(t, &tb);
    if (tb.best < 0 || !isfinite(t[0]))
        return;
    c->present = true;
    gc__jacobi_name(gc__jacobi_variant(tb.best), c->best, sizeof(c->best));
    c->improvement_pct = tb.improvement_pct;
    c->contribution_pct = tb.contribution_pct;
    if (tb.primary >= 0)
        gc__jacobi_name(gc__jacobi_variant(tb.primary), c->primary, sizeof(c->primary));
    snprintf(c->measured_class, sizeof(c->measured_class), "%s",
             tb.improvement_pct >= GC_GUIDE_MEASURED_PCT ? gc__jacobi_class_name(tb.best_class)
                                                         : "none");
    c->hit = strcmp(c->measured_class, g->predicted_class) == 0;
    single_note(t, g->predicted_class, alone, sizeof(alone));
    if (c->hit)
        snprintf(c->why, sizeof(c->why), "%s%s", alone[0] ? "measured: " : "", alone);
    else if (strcmp(g->predicted_class, "none") == 0)
        snprintf(c->why, sizeof(c->why),
                 "no rule expected %.0f%% or more, yet %s gained %+.0f%% over the baseline",
                 GC_GUIDE_PAYS_PCT, c->best, c->improvement_pct);
    else
        snprintf(c->why, sizeof(c->why), "the rules expected %s (up to %+.0f%%); measured %s",
                 g->predicted_class, g->predicted_gain_pct, alone[0] ? alone : "no single variant");
}

int gc_guide(const struct gc_results *r, struct gc_guide *out, char *err, size_t errlen)
{
    static void (*const rules[])(const struct gc_results *, struct gc_guide_item *) = {
        gc__guide_rule_vec, gc__guide_rule_wide, gc__guide_rule_l1, gc__guide_rule_mlp,
        gc__guide_rule_mc,  gc__guide_rule_be,   gc__guide_rule_occ};
    const int nrules = (int)(sizeof(rules) / sizeof(rules[0]));
    int known = 0;

    memset(out, 0, sizeof(*out));
    snprintf(out->device, sizeof(out->device), "%s", r->meta.device.name);
    snprintf(out->backend, sizeof(out->backend), "%s",
             r->meta.device.backend ? r->meta.device.backend : "?");
    for (int i = 0; i < nrules; i++) {
        struct gc_guide_item *it = &out->items[out->nitems++];

        it->gain_pct = NAN;
        rules[i](r, it);
        known += it->verdict != GC_GUIDE_UNKNOWN;
    }
    predict(out);
    check_jacobi(r, out);
    if (known == 0 && !out->jacobi.present) {
        snprintf(err, errlen,
                 "the profile holds none of the figures the guide reads: run compute.fp32.fma, "
                 "memory.coalescing, memory.latency.global, memory.shared, control.divergence, "
                 "hiding.params "
                 "(and application.jacobi)");
        return GC_EINVAL;
    }
    return 0;
}
