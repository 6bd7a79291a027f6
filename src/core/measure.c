/* The measurement engine: warm-up, calibration of launches per sample,
 * repeated samples until a stopping rule holds, throttled samples redone,
 * statistics in seconds and in cycles of the clock observed during the run
 * (Lemeire §III: 25 repetitions, mean and 95% CI; Volkov §5.4-5.5: device-side
 * timing and clocks watched during the measurement). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpulimits.h"
#include "core/measure.h"
#include "core/progress.h"
#include "core/results.h"
#include "core/sensors.h"
#include "core/session.h"
#include "core/stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double gc__clock_from_timestamps(const unsigned long long *ts, unsigned nblocks)
{
    /* clock64 counts per SM, so spans are formed per SM: earliest start to
     * latest end of the blocks that ran there, in cycles and in ns. */
    enum { MAX_SM = 1024 };
    unsigned long long *c0, *c1, *t0, *t1;
    double rates[MAX_SM];
    int nrates = 0;
    double res = NAN;

    c0 = malloc(4 * MAX_SM * sizeof(*c0));
    if (!c0)
        return NAN;
    c1 = c0 + MAX_SM;
    t0 = c1 + MAX_SM;
    t1 = t0 + MAX_SM;
    for (int i = 0; i < MAX_SM; i++) {
        c0[i] = t0[i] = ~0ULL;
        c1[i] = t1[i] = 0;
    }
    for (unsigned b = 0; b < nblocks; b++) {
        const unsigned long long *w = ts + (size_t)b * GC_TS_WORDS;
        unsigned sm = (unsigned)w[0];

        if (sm >= MAX_SM || w[2] < w[1] || w[4] < w[3] || w[3] == 0)
            continue;
        c0[sm] = w[1] < c0[sm] ? w[1] : c0[sm];
        c1[sm] = w[2] > c1[sm] ? w[2] : c1[sm];
        t0[sm] = w[3] < t0[sm] ? w[3] : t0[sm];
        t1[sm] = w[4] > t1[sm] ? w[4] : t1[sm];
    }
    for (int sm = 0; sm < MAX_SM; sm++) {
        /* Spans under 20 us are dominated by the timer's granularity. */
        if (t1[sm] == 0 || t1[sm] <= t0[sm] || t1[sm] - t0[sm] < 20000)
            continue;
        rates[nrates++] = (double)(c1[sm] - c0[sm]) / (double)(t1[sm] - t0[sm]) * 1e3;
    }
    if (nrates) {
        qsort(rates, (size_t)nrates, sizeof(double), cmp_double);
        res = nrates % 2 ? rates[nrates / 2] : 0.5 * (rates[nrates / 2 - 1] + rates[nrates / 2]);
    }
    free(c0);
    return res;
}

void gc__measurement_free(struct gc_measurement *m)
{
    if (!m)
        return;
    free(m->per_sample_s);
    m->per_sample_s = NULL;
    free(m->per_sample_cycles);
    m->per_sample_cycles = NULL;
}

/* Overwrites the flush buffer on the device (half onto half), so that no
 * line of the measured working set survives in the last-level cache. */
static int flush_cache(struct gc_session *s, struct gc_buf *flush, size_t bytes)
{
    struct gc_device *d = s->dev;
    size_t half = bytes / 2;
    int rc = d->ops->copy(flush, half, flush, 0, half);

    if (rc)
        snprintf(d->err, sizeof(d->err), "cache flush: %s", d->ops->last_error(d->dev));
    return rc;
}

static double observed_clock(struct gc_session *s, const struct gc_timestamps *ts,
                             unsigned long long *tsbuf, const struct gc_sensor_window *w,
                             char *source, size_t srclen, int *rc)
{
    *rc = 0;
    if (ts && tsbuf) {
        *rc = gc__dev_read(s->dev, ts->buf, 0, tsbuf,
                           (size_t)ts->nblocks * GC_TS_WORDS * sizeof(*tsbuf));
        if (*rc)
            return NAN;
        double mhz = gc__clock_from_timestamps(tsbuf, ts->nblocks);
        if (!isnan(mhz)) {
            snprintf(source, srclen, "clock64/globaltimer");
            return gc__clock_corrected(s->dev, mhz);
        }
    }
    if (w->n > 0 && !isnan(w->sm_median)) {
        snprintf(source, srclen, "sensor");
        return w->sm_median;
    }
    /* No clock read in the kernel or by a sensor: a CPU's fastest observed
     * clock (the one its limits use), else the reported one. */
    const char *how;
    double mhz = gc__cycle_clock_mhz(&s->dev->info, &how);

    snprintf(source, srclen, "%s", how);
    return mhz;
}

/* Warm-up: the first launches pay module loading, page mapping and clock
 * ramp-up; they are discarded. *el is the last one's time. */
static int warm_up(struct gc_session *s, int warmup, struct gc_kern *k, struct gc_launch *L,
                   double *el)
{
    L->count = 1;
    for (int i = 0; i < warmup; i++) {
        int rc = gc__dev_launch(s->dev, k, L, el);
        if (rc)
            return rc;
        if (gc__stopped(s))
            return GC_EINTR;
    }
    return 0;
}

/* Calibration: enough back-to-back launches that one sample lasts the
 * target time. el is the last warm-up launch's time; *launches the first
 * estimate, which the sampling loop checks with its first launches
 * (calibrating). A second warm-up launch (past the first launch's one-time
 * costs) that already lasts a sample is the check: a sample is that one
 * launch (long kernels: DRAM streams and chases on a CPU). */
static void calibrate(const struct gc_sampling *cfg, double el, int *launches, int *rounds)
{
    double per = el > 1e-7 ? el : 1e-7;
    int n = (int)ceil(cfg->target_sample_s / per);
    bool checked = cfg->warmup >= 2 && el >= cfg->target_sample_s;

    *launches = n < 1 ? 1 : n > 1000000 ? 1000000 : n;
    *rounds = checked ? 3 : 0;
}

/* After a calibrating launch of *launches that took el: true (and a new
 * *launches) when it fell short of the target and is discarded; at most 3
 * rounds. The launch that lasts a sample is the first sample unless the
 * configuration discards it. */
static bool recalibrate(const struct gc_sampling *cfg, double el, int *launches, int *rounds)
{
    if (*rounds >= 3)
        return false;
    (*rounds)++;
    if (el >= 0.8 * cfg->target_sample_s || *launches >= 1000000) {
        *rounds = 3;
        return cfg->discard_calibration;
    }
    double per = el / *launches > 1e-9 ? el / *launches : 1e-9;
    int n = (int)ceil(1.1 * cfg->target_sample_s / per);
    *launches = n < 1 ? 1 : n > 1000000 ? 1000000 : n;
    return true;
}

/* After min_samples: stop when the samples agree to rel_spread, or when
 * sampling has taken its time cap. */
static bool enough_samples(struct gc_measurement *out, const struct gc_sampling *cfg, int n,
                           double t_sampling)
{
    struct gc_stats st;

    if (n < cfg->min_samples)
        return false;
    gc__stats_compute(out->per_sample_s, n, &st);
    if (n >= 2 && st.ci95 / st.median <= cfg->rel_spread) {
        snprintf(out->stop_rule, sizeof(out->stop_rule), "spread<=%.2f%%", 100 * cfg->rel_spread);
        return true;
    }
    if (t_sampling >= cfg->time_cap_s) {
        snprintf(out->stop_rule, sizeof(out->stop_rule), "time-cap");
        return true;
    }
    return false;
}

/* The samples' statistics: seconds per launch, and the clock and cycles
 * where a clock was observed. */
static void sample_stats(struct gc_measurement *out, const double *clk, const double *cyc, int n)
{
    out->samples = n;
    gc__stats_compute(out->per_sample_s, n, &out->seconds);
    if (n > 0 && !isnan(clk[0])) {
        struct gc_stats cs;

        gc__stats_compute(clk, n, &cs);
        out->clock_mhz = cs.median;
        out->clock_max_mhz = cs.max;
        gc__stats_compute(cyc, n, &out->cycles);
        out->per_sample_cycles = malloc((size_t)n * sizeof(double));
        if (out->per_sample_cycles)
            memcpy(out->per_sample_cycles, cyc, (size_t)n * sizeof(double));
    }
}

/* The conditions the samples were taken under, over their whole span. */
static void sample_context(struct gc_measurement *out, struct gc_sampler *sampler, double first_t,
                           double last_t, const struct gc_device *d)
{
    struct gc_sensor_window all;

    gc__sampler_window(sampler, first_t, last_t, &all);
    out->ctx.sm_clock_mhz = out->clock_mhz;
    snprintf(out->ctx.sm_clock_source, sizeof(out->ctx.sm_clock_source), "%s", out->clock_source);
    out->ctx.sm_clock_min_mhz = all.sm_min;
    out->ctx.sm_clock_max_mhz = all.sm_max;
    out->ctx.mem_clock_mhz = all.mem_median;
    out->ctx.temp_start_c = all.temp_first;
    out->ctx.temp_end_c = all.temp_last;
    out->ctx.power_limit_w = all.power_limit;
    out->ctx.power_avg_w = all.power_avg;
    out->ctx.ecc_enabled = d->info.ecc_enabled;
    out->ctx.throttled_samples = out->throttled;
    out->ctx.redone_samples = out->redone;
}

int gc__measure(struct gc_session *s, struct gc_sampling p, struct gc_kern *k,
                const struct gc_launch *l, const struct gc_timestamps *ts, struct gc_buf *flush,
                size_t flush_bytes, struct gc_measurement *out)
{
    const struct gc_sampling *cfg = &p;
    struct gc_device *d = s->dev;
    struct gc_sampler *sampler = NULL;
    struct gc_launch L = *l;
    /* The blocks' timestamps, read back after every sample. */
    struct gc_hostbuf tsmem = {0};
    unsigned long long *tsbuf = NULL;
    double *clk = NULL, *cyc = NULL, el = 0;
    int rc = 0, n = 0, launches = 0;
    double t_begin;

    gc__run_progress_config(s->progress);
    memset(out, 0, sizeof(*out));
    gc__context_info_init(&out->ctx);
    snprintf(out->clock_source, sizeof(out->clock_source), "none");
    out->clock_mhz = out->clock_max_mhz = NAN;
    out->per_sample_s = calloc((size_t)cfg->max_samples, sizeof(double));
    clk = calloc((size_t)cfg->max_samples, sizeof(double));
    cyc = calloc((size_t)cfg->max_samples, sizeof(double));
    if (ts &&
        gc__dev_hostbuf_alloc(d, (size_t)ts->nblocks * GC_TS_WORDS * sizeof(*tsbuf), &tsmem) == 0)
        tsbuf = tsmem.ptr;
    if (!out->per_sample_s || !clk || !cyc || (ts && !tsbuf)) {
        rc = GC_ENOMEM;
        snprintf(d->err, sizeof(d->err), "out of host memory in the measurement engine");
        goto out;
    }
    if (d->info.caps & GC_CAP_SENSOR_CLOCK)
        gc__sampler_start(d, 0.005, &sampler);
    if ((rc = warm_up(s, cfg->warmup, k, &L, &el)))
        goto out;
    int rounds;
    calibrate(cfg, el, &launches, &rounds);

    t_begin = gc__now();
    snprintf(out->stop_rule, sizeof(out->stop_rule), "max-samples");
    double first_t = NAN, last_t = NAN;
    while (n < cfg->max_samples) {
        struct gc_sensor_window w;
        char source[32];

        if (gc__stopped(s)) {
            rc = GC_EINTR;
            snprintf(out->stop_rule, sizeof(out->stop_rule), "interrupted");
            break;
        }
        if (flush) {
            rc = flush_cache(s, flush, flush_bytes);
            if (rc)
                goto out;
        }
        L.count = launches;
        double t0 = gc__now();
        rc = gc__dev_launch(d, k, &L, &el);
        double t1 = gc__now();
        if (rc)
            goto out;
        if (recalibrate(cfg, el, &launches, &rounds))
            continue;
        out->launches_per_sample = launches;
        if (isnan(first_t))
            first_t = t0;
        last_t = t1;
        gc__sampler_window(sampler, t0, t1, &w);
        double mhz = observed_clock(s, ts, tsbuf, &w, source, sizeof(source), &rc);
        if (rc)
            goto out;
        out->ctx.throttle_reasons |= w.reasons;
        if (w.throttled && cfg->redo_throttled && out->redone < cfg->max_redo) {
            out->redone++;
            continue;
        }
        if (w.throttled)
            out->throttled++;
        snprintf(out->clock_source, sizeof(out->clock_source), "%s", source);
        out->per_sample_s[n] = el / launches;
        clk[n] = mhz;
        cyc[n] = el / launches * mhz * 1e6;
        n++;
        if (enough_samples(out, cfg, n, gc__now() - t_begin))
            break;
    }
    sample_stats(out, clk, cyc, n);
    sample_context(out, sampler, first_t, last_t, d);
out:
    gc__sampler_stop(sampler);
    gc__dev_hostbuf_free(d, &tsmem);
    free(clk);
    free(cyc);
    if (rc && rc != GC_EINTR)
        out->samples = n;
    return rc;
}
