/* The harness's runner: plan (done by the description) -> build -> screen ->
 * refine -> verify -> record. Coarse-to-fine: a screen of every configuration
 * (one warm-up, three short samples) ranks them, and only the leading ones
 * get the full stopping rule; a group of configurations along one axis stops
 * once its points clearly fell from their peak; a time budget bounds the
 * search but never the measurement of the best screened configuration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/devfill.h"
#include "core/harness.h"
#include "core/progress.h"
#include "core/sensors.h"
#include "core/stats.h"
#include "core/kcache.h"
#include "kgen/kgen.h"

/* Screens end once this share of the budget is spent; the rest goes to
 * the full measurements. */
#define SCREEN_SHARE 0.6

void gc__harness_init(struct gc_harness *h, struct gc_session *s, struct gc_bench_result *r,
                      const struct gc_hdesc *d)
{
    double k = s->profile == GC_PROFILE_QUICK ? 0.25 : s->profile == GC_PROFILE_FULL ? 4.0 : 1.0;

    memset(h, 0, sizeof(*h));
    h->s = s;
    h->r = r;
    h->d = d;
    h->best = -1;
    h->budget_s = d->budget_s > 0 ? d->budget_s * k : 0;
    h->sampling = s->sampling;
    gc__pool_begin(s);
}

struct gc_hconf *gc__harness_add(struct gc_harness *h)
{
    if (h->ncfg == h->cap) {
        int cap = h->cap ? 2 * h->cap : 16;
        struct gc_hconf *c = realloc(h->cfg, (size_t)cap * sizeof(*c));

        if (!c)
            return NULL;
        h->cfg = c;
        h->cap = cap;
    }
    struct gc_hconf *c = &h->cfg[h->ncfg++];
    memset(c, 0, sizeof(*c));
    c->series = -1;
    c->group = -1;
    c->value = NAN;
    c->screen_value = NAN;
    c->screen_rank = NAN;
    return c;
}

void gc__harness_screen_cfg_of(const struct gc_hdesc *d, const struct gc_sampling *full,
                               struct gc_sampling *out)
{
    double t = d && d->screen_sample_s > 0 ? d->screen_sample_s : 0.004;
    int n = d && d->screen_samples > 0 ? d->screen_samples : 3;

    *out = *full;
    out->warmup = 1;
    out->max_samples = full->max_samples < n ? full->max_samples : n;
    out->min_samples = out->max_samples;
    out->target_sample_s = full->target_sample_s < t ? full->target_sample_s : t;
    out->rel_spread = 1.0;
    out->time_cap_s = 0.5;
    out->max_redo = 2;
}

void gc__harness_screen_cfg(const struct gc_sampling *full, struct gc_sampling *out)
{
    gc__harness_screen_cfg_of(NULL, full, out);
}

unsigned gc__harness_ts_flags(const struct gc_device_info *info)
{
    return (info->caps & GC_CAP_CLOCK64) && (info->caps & GC_CAP_GLOBALTIMER) &&
                   (info->caps & GC_CAP_SMID)
               ? GC_KGEN_TIMESTAMPS
               : 0;
}

static void free_own(struct gc_harness *h, struct gc_hconf *c)
{
    for (int i = 0; i < 2; i++) {
        gc__dev_free(h->s->dev, c->hl.own[i]);
        c->hl.own[i] = NULL;
    }
}

void gc__harness_free(struct gc_harness *h)
{
    for (int i = 0; i < h->ncfg; i++) {
        free_own(h, &h->cfg[i]);
        free(h->cfg[i].src); /* planned but never run */
        gc__measurement_free(&h->cfg[i].m);
    }
    free(h->cfg);
    h->cfg = NULL;
    h->ncfg = h->cap = 0;
}

static double elapsed(const struct gc_harness *h)
{
    return gc__now() - h->t0;
}

/* Builds every kernel in one batch (compiled in parallel, cached), each
 * distinct source once: configurations that differ only in how they are
 * launched (a footprint, a grid) share one program. The sources move into
 * the requests (duplicates are freed); *nreq of them are released by the
 * caller. */
static int build_all(struct gc_harness *h, struct gc_kreq *reqs, int *nreq)
{
    struct gc_device *d = h->s->dev;
    int *of = malloc((size_t)(h->ncfg ? h->ncfg : 1) * sizeof(int));
    int n = 0, rc = 0;

    *nreq = 0;
    if (!of)
        return GC_ENOMEM;
    for (int i = 0; i < h->ncfg && rc == 0; i++) {
        struct gc_hconf *c = &h->cfg[i];
        int j = 0;

        of[i] = -1;
        if (!c->src && c->k)
            continue; /* built by the description */
        if (!c->src) {
            snprintf(d->err, sizeof(d->err), "out of host memory generating %s", c->label);
            rc = GC_ENOMEM;
            break;
        }
        while (j < n &&
               (strcmp(reqs[j].src, c->src) != 0 ||
                strcmp(reqs[j].options ? reqs[j].options : "", c->options ? c->options : "") != 0))
            j++;
        if (j == n) {
            reqs[n].label = c->label;
            reqs[n].options = c->options;
            reqs[n++].src = c->src;
        } else {
            free(c->src);
        }
        c->src = NULL;
        of[i] = j;
    }
    *nreq = n;
    if (rc == 0 && n > 0)
        rc = gc__kcache_build(h->s, reqs, n);
    for (int i = 0; i < h->ncfg && rc == 0; i++) {
        struct gc_hconf *c = &h->cfg[i];

        if (of[i] >= 0 && (rc = d->ops->kernel(reqs[of[i]].prog, c->kernel, &c->k)))
            snprintf(d->err, sizeof(d->err), "%s: %s", c->label, d->ops->last_error(d->dev));
    }
    free(of);
    return rc;
}

/* One measurement of c with cfg, verified. full: the result is the figure
 * (else a screen). */
static int measure(struct gc_harness *h, struct gc_hconf *c, const struct gc_sampling *cfg,
                   bool full)
{
    struct gc_session *s = h->s;
    struct gc_measurement m;
    struct gc_stats st;
    char msg[256] = "";
    int rc;

    if (!c->set_up) {
        c->hl.l.args = c->hl.args;
        if ((rc = h->d->setup(h, c, &c->hl)))
            return rc;
        c->hl.l.args = c->hl.args;
        c->set_up = true;
        if (c->hl.absent) {
            c->state = GC_H_ABSENT;
            h->absent++;
        }
    }
    if (c->hl.absent)
        return 0;
    if (h->d->before && (rc = h->d->before(h, c)))
        return rc;
    rc = gc__measure(s, *cfg, c->k, &c->hl.l, c->hl.ts.buf ? &c->hl.ts : NULL, NULL, 0, &m);
    if (rc && !(rc == GC_EINTR && m.samples > 0)) {
        gc__measurement_free(&m);
        return rc;
    }
    int vrc = h->d->verify ? h->d->verify(h, c, msg, sizeof(msg)) : 0;
    if (vrc) {
        gc__measurement_free(&m);
        if (vrc == GC_EVERIFY)
            gc__bench_set_error(h->r, GC_BENCH_ERROR, "verification failed (%s): %s", c->hl.desc,
                                msg);
        return vrc;
    }
    gc__stats_inverse(m.per_sample_s, m.samples, c->hl.work, &st);
    if (full) {
        gc__measurement_free(&c->m);
        c->m = m;
        c->stats = st;
        c->value = st.median;
        c->state = GC_H_REFINED;
        h->refined++;
    } else {
        gc__measurement_free(&m);
        c->screen_stats = st;
        c->screen_value = st.median;
        c->screen_rank = h->d->screen_per_clock && isfinite(m.clock_mhz) && m.clock_mhz > 0
                             ? st.median / (m.clock_mhz * 1e6)
                             : st.median;
        c->state = GC_H_SCREENED;
        h->screened++;
    }
    return rc;
}

/* Screens every configuration in plan order; a group ends after peak_after
 * points in a row below (1 - peak_drop) x its best. */
static int screen_all(struct gc_harness *h)
{
    struct gc_sampling cfg;
    double *gbest = calloc((size_t)h->ncfg, sizeof(double));
    int *gdrops = calloc((size_t)h->ncfg, sizeof(int));
    int rc = 0;

    if (!gbest || !gdrops) {
        free(gbest);
        free(gdrops);
        return GC_ENOMEM;
    }
    gc__harness_screen_cfg_of(h->d, &h->sampling, &cfg);
    for (int i = 0; i < h->ncfg && rc == 0; i++) {
        struct gc_hconf *c = &h->cfg[i];
        int g = c->group >= 0 && c->group < h->ncfg ? c->group : -1;

        if (gc__stopped(h->s)) {
            rc = GC_EINTR;
            break;
        }
        if (g >= 0 && h->d->peak_after > 0 && gdrops[g] >= h->d->peak_after) {
            c->state = GC_H_PRUNED;
            h->pruned++;
            continue;
        }
        if (h->budget_s > 0 && h->screened > 0 && !c->always_refine &&
            elapsed(h) > SCREEN_SHARE * h->budget_s) {
            c->state = GC_H_OVER;
            h->over++;
            continue;
        }
        rc = measure(h, c, &cfg, false);
        if (c->state != GC_H_SCREENED || g < 0)
            continue;
        if (c->screen_value > gbest[g]) {
            gbest[g] = c->screen_value;
            gdrops[g] = 0;
        } else if (c->screen_value < (1 - h->d->peak_drop) * gbest[g]) {
            gdrops[g]++;
        }
    }
    free(gbest);
    free(gdrops);
    return rc;
}

static const struct gc_hconf *sort_base;

static int by_screen_desc(const void *a, const void *b)
{
    double x = sort_base[*(const int *)a].screen_rank, y = sort_base[*(const int *)b].screen_rank;

    return (x < y) - (x > y);
}

static bool listed(const int *out, int k, int i)
{
    for (int j = 0; j < k; j++)
        if (out[j] == i)
            return true;
    return false;
}

/* Appends to out (k so far) the leaders of one ranking in order of screened
 * value: the top refine_top, those within refine_within of the best, at most
 * refine_max. bit 0: every screened configuration, else the members of that
 * plateau. The ranking's best is marked in must (measured whatever the
 * budget). */
static int rank_into(struct gc_harness *h, unsigned bit, int *tmp, int *out, bool *must, int k)
{
    int n = 0;
    int top = h->d->refine_top > 0 ? h->d->refine_top : 1;
    int max = h->d->refine_max > top ? h->d->refine_max : top;

    for (int i = 0; i < h->ncfg; i++)
        if (h->cfg[i].state == GC_H_SCREENED && isfinite(h->cfg[i].screen_rank) &&
            (bit == 0 || (h->cfg[i].plateaus & bit)))
            tmp[n++] = i;
    sort_base = h->cfg;
    qsort(tmp, (size_t)n, sizeof(int), by_screen_desc);
    for (int j = 0; j < n && j < max; j++) {
        const struct gc_hconf *c = &h->cfg[tmp[j]];
        bool near = c->screen_rank >= (1 - h->d->refine_within) * h->cfg[tmp[0]].screen_rank;

        if (!(j < top || near))
            break;
        if (listed(out, k, tmp[j])) {
            for (int q = 0; q < k; q++)
                must[q] = must[q] || (j == 0 && out[q] == tmp[j]);
            continue;
        }
        must[k] = j == 0;
        out[k++] = tmp[j];
    }
    return k;
}

/* The candidates: the leaders of each plateau (of the one ranking when no
 * configuration names a plateau), then every always-refine configuration. */
static int candidates(struct gc_harness *h, int *out, bool *must)
{
    unsigned any = 0;
    int k = 0;
    int *tmp = malloc((size_t)h->ncfg * sizeof(int));

    if (!tmp)
        return GC_ENOMEM;
    for (int i = 0; i < h->ncfg; i++)
        any |= h->cfg[i].plateaus;
    if (!any)
        k = rank_into(h, 0, tmp, out, must, k);
    for (int b = 0; b < 32; b++)
        if (any & (1u << b))
            k = rank_into(h, 1u << b, tmp, out, must, k);
    for (int i = 0; i < h->ncfg; i++)
        if (h->cfg[i].always_refine && h->cfg[i].state == GC_H_SCREENED && !listed(out, k, i)) {
            must[k] = false;
            out[k++] = i;
        }
    free(tmp);
    return k;
}

static int refine(struct gc_harness *h)
{
    int *cand = malloc((size_t)h->ncfg * sizeof(int));
    bool *must = calloc((size_t)h->ncfg, sizeof(bool));
    int n, rc = 0;

    if (!cand || !must) {
        free(cand);
        free(must);
        return GC_ENOMEM;
    }
    n = candidates(h, cand, must);
    if (n < 0)
        rc = n;
    else
        gc__run_progress_expect(h->s->progress, n);
    for (int j = 0; j < n && rc == 0; j++) {
        struct gc_hconf *c = &h->cfg[cand[j]];

        if (gc__stopped(h->s)) {
            rc = GC_EINTR;
            break;
        }
        /* The best screened one (of each plateau) is always measured in
         * full; the others while the budget lasts. */
        if (!must[j] && !c->always_refine && h->budget_s > 0 && elapsed(h) > h->budget_s)
            continue;
        rc = measure(h, c, &h->sampling, true);
    }
    free(cand);
    free(must);
    return rc;
}

/* Every configuration without a screen, in full (small spaces). */
static int measure_all(struct gc_harness *h)
{
    int rc = 0;

    gc__run_progress_expect(h->s->progress, h->ncfg);
    for (int i = 0; i < h->ncfg && rc == 0; i++) {
        if (gc__stopped(h->s))
            return GC_EINTR;
        rc = measure(h, &h->cfg[i], &h->sampling, true);
    }
    return rc;
}

static void record(struct gc_harness *h)
{
    for (int i = 0; i < h->ncfg; i++) {
        struct gc_hconf *c = &h->cfg[i];
        char lab[80];

        if (c->state == GC_H_REFINED && (h->best < 0 || c->value > h->cfg[h->best].value))
            h->best = i;
        if (c->series < 0 || c->series >= h->r->nseries)
            continue;
        if (c->state == GC_H_REFINED) {
            gc__series_add(&h->r->series[c->series], c->x, c->value, &c->stats, c->point);
        } else if (c->state == GC_H_SCREENED) {
            snprintf(lab, sizeof(lab), "%s (screened)", c->point);
            gc__series_add(&h->r->series[c->series], c->x, c->screen_value, &c->screen_stats, lab);
        }
    }
}

int gc__harness_run(struct gc_harness *h)
{
    struct gc_kreq *reqs = calloc((size_t)(h->ncfg ? h->ncfg : 1), sizeof(*reqs));
    int nalways = 0, nreq = 0, rc;

    h->t0 = gc__now();
    if (!reqs)
        return GC_ENOMEM;
    gc__sampling_record(&h->sampling, &h->r->sampling);
    for (int i = 0; i < h->ncfg; i++)
        nalways += h->cfg[i].always_refine;
    h->screen = h->ncfg > (h->d->refine_top > 0 ? h->d->refine_top : 1) + nalways;
    rc = build_all(h, reqs, &nreq);
    /* The budget is what the search is expected to take from here. */
    gc__run_progress_hint(h->s->progress, h->budget_s);
    if (rc == 0 && h->screen)
        gc__run_progress_expect(h->s->progress, h->ncfg);
    if (rc == 0)
        rc = h->screen ? screen_all(h) : measure_all(h);
    if (rc == 0 && h->screen)
        rc = refine(h);
    if (rc == 0 && gc__stopped(h->s))
        rc = GC_EINTR;
    record(h);
    /* Programs go before the buffers the runner still holds. */
    for (int i = 0; i < h->ncfg; i++)
        free_own(h, &h->cfg[i]);
    gc__kreq_release(h->s, reqs, nreq);
    free(reqs);
    for (int i = 0; i < h->ncfg; i++)
        h->cfg[i].k = NULL;
    return rc;
}

void gc__harness_note(const struct gc_harness *h, char *buf, size_t len)
{
    if (h->screen)
        snprintf(buf, len,
                 "best of %d configs: %d screened (%d short samples), %d measured in full%s%s",
                 h->ncfg, h->screened, h->d->screen_samples > 0 ? h->d->screen_samples : 3,
                 h->refined, h->pruned ? ", some pruned past a peak" : "",
                 h->over ? ", some not screened within the time budget" : "");
    else
        snprintf(buf, len, "best of %d configs, each measured in full", h->ncfg);
}

int gc__harness_bench(struct gc_session *s, struct gc_bench_result *r, const char *bench,
                      const struct gc_hbench *b)
{
    struct gc_harness h;
    int rc;

    memset(&h, 0, sizeof(h));
    rc = b->plan(s, r, &h);
    if (rc == 0)
        rc = gc__harness_run(&h);
    if (rc == 0 || rc == GC_EINTR) {
        int drc = b->derive(s, &h, bench);

        if (rc == 0)
            rc = drc;
    }
    if (rc == 0 && gc__stopped(s))
        rc = GC_EINTR;
    b->release(s, &h);
    return rc;
}
