/* The prediction and Table IV metrics of application benchmarks, written
 * into the results tree from the records it holds (model/predict.h), at
 * the end of a run or on a saved results file (gc_predict_results). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/results.h"
#include "model/hiding.h"
#include "model/predict.h"

#define MAX_KERNELS 64

/* Sets metric name of b, replacing one of that name. */
static int set_metric(struct gc_bench_result *b, const char *name, double v, const char *unit,
                      double limit, const char *note)
{
    for (int i = 0; i < b->nmetrics; i++) {
        struct gc_metric *m = &b->metrics[i];

        if (strcmp(m->name, name) != 0)
            continue;
        m->value = v;
        snprintf(m->unit, sizeof(m->unit), "%s", unit);
        m->limit = limit;
        m->fraction = isfinite(limit) && limit > 0 ? v / limit : NAN;
        memset(&m->stats, 0, sizeof(m->stats));
        snprintf(m->note, sizeof(m->note), "%s", note);
        return 0;
    }
    return gc__bench_add_metric(b, name, v, unit, limit, NULL, note) ? 0 : GC_ENOMEM;
}

static void add_warning(struct gc_bench_result *b, const char *text)
{
    size_t used = strlen(b->warning);

    if (strstr(b->warning, text))
        return;
    snprintf(b->warning + used, sizeof(b->warning) - used, "%s%s", used ? "; " : "", text);
}

/* The kernels of b: the prefixes of its "<kernel>.threads" metrics. */
static int kernels_of(const struct gc_bench_result *b, char (*names)[48])
{
    int n = 0;

    for (int i = 0; i < b->nmetrics && n < MAX_KERNELS; i++) {
        const char *nm = b->metrics[i].name, *dot = strrchr(nm, '.');

        if (!dot || strcmp(dot, ".threads") != 0 || (size_t)(dot - nm) >= 48)
            continue;
        snprintf(names[n], 48, "%.*s", (int)(dot - nm), nm);
        n++;
    }
    return n;
}

static double metric_value(const struct gc_bench_result *b, const char *kernel, const char *what)
{
    char name[96];

    snprintf(name, sizeof(name), "%s.%s", kernel, what);
    const struct gc_metric *m = gc__bench_find_metric(b, name);
    return m ? m->value : NAN;
}

static void unpriced_list(const struct gc_app_work *w, const struct gc_peaks *p, char *buf,
                          size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int res = 0; res < GC_PRED_RES_N && used < len; res++) {
        double work, peak;

        gc__pred_work_of(w, p, res, &work, &peak, NULL);
        if (work > 0 && !(peak > 0))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                                     gc__pred_res_name(res));
    }
}

static int put_prediction(struct gc_bench_result *b, const char *k, const struct gc_app_work *w,
                          const struct gc_peaks *p, const struct gc_prediction *pr, double t,
                          double *err)
{
    char name[96], note[256], miss[96],
        vk[96] = "latency model not evaluated (no hiding.params, or not a GPU)";
    int rc;

    unpriced_list(w, p, miss, sizeof(miss));
    if (isfinite(pr->volkov_s))
        snprintf(vk, sizeof(vk), "latency model %.3g s (%s, %.0f warps/SM)", pr->volkov_s,
                 gc_hiding_name(pr->volkov_limit), pr->warps);
    snprintf(note, sizeof(note), "bound: %s; roofline %.3g s (%s: %s); %s%s%s",
             pr->by_volkov ? "latency model" : gc__pred_res_name(pr->roof_res), pr->roof_s,
             pr->roof_res >= 0 ? gc__pred_res_name(pr->roof_res) : "-",
             pr->roof_res >= 0 ? gc__pred_src_of(p, pr->roof_res) : "no peak", vk,
             miss[0] ? "; no peak in this run for " : "", miss);
    snprintf(name, sizeof(name), "%s.predicted_time", k);
    if ((rc = set_metric(b, name, pr->time_s, "s", NAN, note)))
        return rc;
    *err = 100.0 * (pr->time_s - t) / t;
    snprintf(name, sizeof(name), "%s.prediction_error", k);
    return set_metric(b, name, *err, "%", NAN, "(predicted - measured) / measured");
}

static int put_attained(struct gc_bench_result *b, const char *k, const struct gc_app_work *w,
                        const struct gc_peaks *p, double t)
{
    struct gc_attained a;
    char name[96], note[256];

    gc__attained(w, t, p, &a);
    snprintf(name, sizeof(name), "%s.attained", k);
    if (a.res < 0)
        return set_metric(b, name, NAN, "B/s", NAN,
                          "no measured peak in this run for any resource the kernel uses");
    snprintf(note, sizeof(note), "dominant: %s, counted work / measured time beside %s%s",
             gc__pred_res_name(a.res), gc__pred_src_of(p, a.res),
             a.above ? "; ABOVE the measured peak: the count, the time or the peak is wrong" : "");
    if (a.above) {
        char warn[160];

        snprintf(warn, sizeof(warn), "%s attains more %s bandwidth than its measured peak", k,
                 gc__pred_res_name(a.res));
        add_warning(b, warn);
    }
    const char *u;
    double work, peak;
    char unit[32];
    gc__pred_work_of(w, p, a.res, &work, &peak, &u);
    snprintf(unit, sizeof(unit), "%s/s", u);
    return set_metric(b, name, a.rate, unit, a.peak, note);
}

static struct gc_series *series_named(struct gc_bench_result *b, const char *name)
{
    for (int i = 0; i < b->nseries; i++)
        if (strcmp(b->series[i].name, name) == 0)
            return &b->series[i];
    return NULL;
}

/* Series name of b, emptied when it exists (a saved file predicted again),
 * else added. */
static struct gc_series *fresh_series(struct gc_bench_result *b, const char *name,
                                      const char *y_name)
{
    struct gc_series *s = series_named(b, name);

    if (s) {
        s->npoints = 0;
        return s;
    }
    return gc__bench_add_series(b, name, "kernel (index, in the order of the table)", "", y_name,
                                "s");
}

/* The figure of measured against predicted time: one point per kernel
 * predicted, at its index, labelled with its name. */
static int put_series(struct gc_bench_result *b, char (*names)[48], const bool *done, int n)
{
    struct gc_series *m =
        fresh_series(b, "time_measured_per_kernel", "measured and predicted time");
    struct gc_series *p =
        m ? fresh_series(b, "time_predicted_per_kernel", "measured and predicted time") : NULL;
    int x = 0;

    if (!p)
        return GC_ENOMEM;
    /* fresh_series may have moved the array: find the first again */
    m = series_named(b, "time_measured_per_kernel");
    for (int i = 0; i < n; i++) {
        if (!done[i])
            continue;
        x++;
        if (gc__series_add(m, x, metric_value(b, names[i], "time"), NULL, names[i]) ||
            gc__series_add(p, x, metric_value(b, names[i], "predicted_time"), NULL, names[i]))
            return GC_ENOMEM;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int gc__predict_bench(const struct gc_results *run, struct gc_bench_result *b)
{
    char names[MAX_KERNELS][48], note[128];
    double errs[MAX_KERNELS];
    bool predicted[MAX_KERNELS] = {false};
    struct gc_peaks p;
    struct gc_hiding_hw hw;
    char herr[256];
    int n = kernels_of(b, names), done = 0, rc = 0;

    gc__peaks_from_results(run, &p);
    /* The latency-hiding model describes warps multithreaded on an SM; a
     * CPU device runs a work-group as a loop on one core, and its model
     * parameters describe that loop: roofline only there. */
    bool have_hw = run->meta.device.type == GC_DEVICE_GPU &&
                   gc__hiding_from_results(run, &hw, herr, sizeof(herr)) == 0;
    for (int i = 0; i < n && rc == 0; i++) {
        struct gc_app_work w;
        struct gc_prediction pr;
        double t = metric_value(b, names[i], "time");

        if (!gc__app_work_get(b, names[i], &w) || !(t > 0))
            continue;
        rc = put_attained(b, names[i], &w, &p, t);
        if (rc == 0 && gc__predict_time(&w, &p, have_hw ? &hw : NULL,
                                        metric_value(b, names[i], "warps_per_cu"), &pr) == 0) {
            rc = put_prediction(b, names[i], &w, &p, &pr, t, &errs[done++]);
            predicted[i] = true;
        }
    }
    if (rc == 0 && done > 0)
        rc = put_series(b, names, predicted, n);
    if (rc || done == 0)
        return rc ? rc : 0;
    for (int i = 0; i < done; i++)
        errs[i] = fabs(errs[i]);
    qsort(errs, (size_t)done, sizeof(double), cmp_double);
    double med = done % 2 ? errs[done / 2] : 0.5 * (errs[done / 2 - 1] + errs[done / 2]);
    snprintf(note, sizeof(note), "median |predicted - measured| / measured over %d kernel%s", done,
             done == 1 ? "" : "s");
    rc = set_metric(b, "prediction_error_median", med, "%", NAN, note);
    return rc ? rc : done;
}

int gc_predict_results(struct gc_results *r)
{
    int total = 0;

    if (!r)
        return GC_EINVAL;
    for (int i = 0; i < r->nbenches; i++) {
        struct gc_bench_result *b = &r->benches[i];
        int rc;

        if (b->status != GC_BENCH_OK || strcmp(b->group, "application") != 0)
            continue;
        if ((rc = gc__predict_bench(r, b)) < 0)
            return rc;
        total += rc;
    }
    return total;
}
