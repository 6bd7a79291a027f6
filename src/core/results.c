/* Builders for the results tree: benchmarks, series and metrics in growing
 * arrays, every name copied into the fixed-size fields of gpuchar.h. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/results.h"

/* Copies src into dst[size] with snprintf. When the text is cut, the cut is
 * moved back to a UTF-8 character boundary so that a device or kernel name
 * never ends in half a character (JSON would refuse the string). */
static void copy_name(char *dst, size_t size, const char *src)
{
    size_t n, i;

    if (size == 0)
        return;
    if (!src)
        src = "";
    if ((size_t)snprintf(dst, size, "%s", src) < size)
        return;
    n = size - 1;
    if (((unsigned char)src[n] & 0xC0) != 0x80)
        return;
    for (i = n; i > 0 && ((unsigned char)src[i] & 0xC0) == 0x80; i--)
        ;
    dst[i] = '\0';
}

/* Makes room for one more element of size elem in *arr (count *n, capacity
 * *cap), doubling the capacity. Returns 0 or GC_ENOMEM. */
static int grow(void **arr, int n, int *cap, size_t elem)
{
    int ncap;
    void *p;

    if (n < *cap)
        return 0;
    if (*cap > INT_MAX / 2)
        return GC_ENOMEM;
    ncap = *cap ? 2 * *cap : 8;
    p = realloc(*arr, (size_t)ncap * elem);
    if (!p)
        return GC_ENOMEM;
    *arr = p;
    *cap = ncap;
    return 0;
}

static void stats_unknown(struct gc_stats *s)
{
    s->n = 0;
    s->median = s->min = s->max = s->mean = s->stddev = s->ci95 = s->cv = NAN;
}

void gc__context_info_init(struct gc_context_info *c)
{
    memset(c, 0, sizeof(*c));
    c->sm_clock_mhz = NAN;
    c->sm_clock_min_mhz = c->sm_clock_max_mhz = NAN;
    c->mem_clock_mhz = NAN;
    c->temp_start_c = c->temp_end_c = NAN;
    c->power_limit_w = c->power_avg_w = NAN;
    c->ecc_enabled = -1;
    c->throttle_reasons = 0;
    c->throttled_samples = c->redone_samples = 0;
}

struct gc_results *gc__results_new(void)
{
    struct gc_results *r = calloc(1, sizeof(*r));

    if (!r)
        return NULL;
    r->complete = true;
    copy_name(r->meta.tool_version, sizeof(r->meta.tool_version), gc_version());
    copy_name(r->meta.git_revision, sizeof(r->meta.git_revision), gc_git_revision());
    r->meta.device.backend = "";
    return r;
}

/* The returned row is valid until the next gc__results_add_bench on r: the
 * array may move when it grows. */
struct gc_bench_result *gc__results_add_bench(struct gc_results *r, const char *name,
                                              const char *group)
{
    struct gc_bench_result *b;

    if (grow((void **)&r->benches, r->nbenches, &r->cap, sizeof(*r->benches)))
        return NULL;
    b = &r->benches[r->nbenches++];
    memset(b, 0, sizeof(*b));
    copy_name(b->name, sizeof(b->name), name);
    copy_name(b->group, sizeof(b->group), group);
    b->status = GC_BENCH_OK;
    b->wall_s = b->compile_s = 0;
    gc__context_info_init(&b->context);
    return b;
}

/* The returned series is valid until the next gc__bench_add_series on b. */
struct gc_series *gc__bench_add_series(struct gc_bench_result *b, const char *name,
                                       const char *x_name, const char *x_unit, const char *y_name,
                                       const char *y_unit)
{
    struct gc_series *s;

    if (grow((void **)&b->series, b->nseries, &b->series_cap, sizeof(*b->series)))
        return NULL;
    s = &b->series[b->nseries++];
    memset(s, 0, sizeof(*s));
    copy_name(s->name, sizeof(s->name), name);
    copy_name(s->x_name, sizeof(s->x_name), x_name);
    copy_name(s->x_unit, sizeof(s->x_unit), x_unit);
    copy_name(s->y_name, sizeof(s->y_name), y_name);
    copy_name(s->y_unit, sizeof(s->y_unit), y_unit);
    return s;
}

int gc__series_add(struct gc_series *s, double x, double y, const struct gc_stats *stats,
                   const char *label)
{
    struct gc_point *p;

    if (grow((void **)&s->points, s->npoints, &s->cap, sizeof(*s->points)))
        return GC_ENOMEM;
    p = &s->points[s->npoints++];
    p->x = x;
    p->y = y;
    if (stats)
        p->stats = *stats;
    else
        stats_unknown(&p->stats);
    copy_name(p->label, sizeof(p->label), label);
    return 0;
}

/* The returned metric is valid until the next gc__bench_add_metric on b. */
struct gc_metric *gc__bench_add_metric(struct gc_bench_result *b, const char *name, double value,
                                       const char *unit, double limit, const struct gc_stats *stats,
                                       const char *note)
{
    struct gc_metric *m;

    if (grow((void **)&b->metrics, b->nmetrics, &b->metrics_cap, sizeof(*b->metrics)))
        return NULL;
    m = &b->metrics[b->nmetrics++];
    memset(m, 0, sizeof(*m));
    copy_name(m->name, sizeof(m->name), name);
    m->value = value;
    copy_name(m->unit, sizeof(m->unit), unit);
    /* A limit of zero, a negative one or infinity says nothing about the
     * value: it is kept as given but no fraction is derived from it. */
    m->limit = limit;
    m->fraction = isfinite(limit) && limit > 0 ? value / limit : NAN;
    if (stats)
        m->stats = *stats;
    else
        stats_unknown(&m->stats);
    copy_name(m->note, sizeof(m->note), note);
    return m;
}

bool gc__below_resolution(double value, double res)
{
    return isfinite(value) && isfinite(res) && fabs(value) < res;
}

bool gc__metric_resolve(struct gc_metric *m, double res)
{
    char text[sizeof(m->note)];
    /* A negative difference of quantities whose difference is not negative
     * (a time, a latency, a cost per line): within its resolution it is
     * noise; beyond it, the measurements do not show the positive
     * difference the figure stands for (a model that does not hold on this
     * device, a cost hidden by another). Neither is a figure; with no
     * spread measured, the sign itself shows noise of at least |value|. */
    bool neg = isfinite(m->value) && m->value < 0;

    if (!neg && !gc__below_resolution(m->value, res))
        return false;
    if (neg && !gc__below_resolution(m->value, res))
        snprintf(text, sizeof(text),
                 "not resolved: %.3g %s measured%s%.3g%s, where the figure is a difference that "
                 "is not negative%s%.120s",
                 m->value, m->unit, isfinite(res) ? " (resolution " : "", isfinite(res) ? res : 0.0,
                 isfinite(res) ? ")" : "", m->note[0] ? "; " : "", m->note);
    else
        snprintf(text, sizeof(text), "below resolution (< %.3g %s): %.3g measured%s%.160s", res,
                 m->unit, m->value, m->note[0] ? "; " : "", m->note);
    memcpy(m->note, text, sizeof(m->note));
    m->value = NAN;
    m->fraction = NAN;
    return true;
}

struct gc_metric *gc__bench_add_difference(struct gc_bench_result *b, const char *name,
                                           double value, double res, const char *unit,
                                           const char *note)
{
    struct gc_metric *m = gc__bench_add_metric(b, name, value, unit, NAN, NULL, note);

    if (m)
        gc__metric_resolve(m, res);
    return m;
}

void gc__bench_set_error(struct gc_bench_result *b, enum gc_bench_status st, const char *fmt, ...)
{
    va_list ap;

    b->status = st;
    va_start(ap, fmt);
    vsnprintf(b->error, sizeof(b->error), fmt, ap);
    va_end(ap);
}

void gc_results_free(struct gc_results *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nbenches; i++) {
        struct gc_bench_result *b = &r->benches[i];

        for (int j = 0; j < b->nseries; j++)
            free(b->series[j].points);
        free(b->series);
        free(b->metrics);
        free(b->config);
        free(b->report);
    }
    free(r->benches);
    free(r);
}

const struct gc_bench_result *gc__results_find(const struct gc_results *r, const char *name)
{
    for (int i = 0; r && i < r->nbenches; i++)
        if (strcmp(r->benches[i].name, name) == 0)
            return &r->benches[i];
    return NULL;
}

const struct gc_metric *gc__bench_find_metric(const struct gc_bench_result *b, const char *name)
{
    for (int i = 0; b && i < b->nmetrics; i++)
        if (strcmp(b->metrics[i].name, name) == 0)
            return &b->metrics[i];
    return NULL;
}

const struct gc_series *gc__bench_find_series(const struct gc_bench_result *b, const char *name)
{
    for (int i = 0; b && i < b->nseries; i++)
        if (strcmp(b->series[i].name, name) == 0)
            return &b->series[i];
    return NULL;
}
