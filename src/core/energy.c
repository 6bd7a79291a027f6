/* The energy meter (energy.h). A thread polls the counter and keeps only
 * its updates, so that an interval is bounded by two updates and its energy
 * is exact to the counter's resolution whatever the update period; power is
 * sampled beside it for the maximum and for an independent integral. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/energy.h"
#include "core/guard.h"
#include "core/powercap.h"
#include "core/sensors.h"
#include "core/stats.h"

enum meter_kind { METER_DEVICE, METER_RAPL };

struct gc_energy_meter {
    struct gc_device *dev;
    enum meter_kind kind;
    struct gc_powercap pc;
    bool instant; /* the device answers instantaneous power */
    bool has_dram;
    char source[256];
    char power_source[256];
    /* The polling thread and its trace, guarded by lock. */
    pthread_t thread;
    bool running, quit;
    pthread_mutex_t lock;
    double poll_s, sample_s;
    struct gc_energy_point *e;
    int ne, cape;
    struct gc_power_point *p;
    int np, capp;
    int read_errors;
    char read_why[256];
    long polls;          /* polls of the running thread */
    double t_first_poll; /* host time of its first poll */
    double quantum_j;    /* smallest non-zero step seen since opening; NAN none */
    double ceiling_w;    /* readings above are implausible */
};

/* Notes a counter step (called under the lock, or before the thread runs). */
static void note_step(struct gc_energy_meter *m, double step)
{
    if (step > 0 && (isnan(m->quantum_j) || step < m->quantum_j))
        m->quantum_j = step;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void gc__energy_analyse(const struct gc_energy_point *e, int ne, const struct gc_power_point *p,
                        int np, double t0, double t1, struct gc_energy_window *w)
{
    int i0 = -1, i1 = -1;

    memset(w, 0, sizeof(*w));
    w->t0 = w->t1 = NAN;
    w->dram_j = w->power_max_w = w->integral_j = w->disagreement = NAN;
    w->period_s = w->step_j = NAN;
    for (int i = 0; i < ne; i++) {
        if (e[i].t >= t0 && i0 < 0)
            i0 = i;
        if (e[i].t <= t1)
            i1 = i;
    }
    if (i0 < 0 || i1 <= i0) {
        snprintf(w->why, sizeof(w->why),
                 "fewer than two counter updates in the %.3f s window (the counter did not "
                 "advance)",
                 t1 - t0);
        return;
    }
    /* A decrease anywhere from the update before the window to its end is a
     * wrap or a reset: the difference would be wrong by an unknown amount. */
    for (int i = i0 > 0 ? i0 : 1; i <= i1; i++)
        if (e[i].e < e[i - 1].e) {
            snprintf(w->why, sizeof(w->why),
                     "the counter went backwards by %.6g J at t = %.3f s (wrap or reset)",
                     e[i - 1].e - e[i].e, e[i].t - t0);
            return;
        }
    w->t0 = e[i0].t;
    w->t1 = e[i1].t;
    w->energy_j = e[i1].e - e[i0].e;
    w->t_err = e[i0].dt + e[i1].dt;
    w->updates = i1 - i0;
    if (isfinite(e[i1].e_dram) && isfinite(e[i0].e_dram))
        w->dram_j = e[i1].e_dram - e[i0].e_dram;
    if (!(w->energy_j > 0) || !(w->t1 > w->t0)) {
        snprintf(w->why, sizeof(w->why), "no energy between two counter updates (%.6g J)",
                 w->energy_j);
        return;
    }
    w->power_avg_w = w->energy_j / (w->t1 - w->t0);
    {
        double *iv = malloc((size_t)w->updates * sizeof(*iv));
        int n = 0;

        for (int i = i0 + 1; i <= i1; i++) {
            double st = e[i].e - e[i - 1].e;

            if (iv)
                iv[n++] = e[i].t - e[i - 1].t;
            if (st > 0 && (isnan(w->step_j) || st < w->step_j))
                w->step_j = st;
        }
        if (n >= 1)
            w->period_s = median_of(iv, n);
        free(iv);
    }
    /* Trapezoids between samples inside the window; the ends held at the
     * nearest sample, so that the integral spans exactly [t0, t1]. */
    {
        double integ = 0, prev_t = w->t0, prev_w = NAN;

        for (int i = 0; i < np; i++) {
            if (p[i].t < w->t0 || p[i].t > w->t1)
                continue;
            if (isnan(prev_w))
                integ += p[i].w * (p[i].t - w->t0);
            else
                integ += 0.5 * (p[i].w + prev_w) * (p[i].t - prev_t);
            prev_t = p[i].t;
            prev_w = p[i].w;
            w->samples++;
            if (isnan(w->power_max_w) || p[i].w > w->power_max_w)
                w->power_max_w = p[i].w;
        }
        if (w->samples > 0) {
            integ += prev_w * (w->t1 - prev_t);
            w->integral_j = integ;
            w->disagreement = fabs(integ - w->energy_j) / w->energy_j;
        }
    }
    w->ok = true;
}

/* ---- reading the counter ------------------------------------------------ */

static int read_counter(struct gc_energy_meter *m, double *e, double *e_dram, char *why, size_t len)
{
    if (m->kind == METER_RAPL)
        return gc__powercap_read(&m->pc, e, e_dram, why, len);
    struct gc_power_reading r;
    int rc = gc__dev_power(m->dev, GC_POWER_ENERGY, &r);
    if (rc || !(r.valid & GC_POWER_ENERGY)) {
        snprintf(why, len, "%s", m->dev->ops->last_error(m->dev->dev));
        return rc ? rc : GC_ENOTSUP;
    }
    *e = r.energy_j;
    *e_dram = NAN;
    return 0;
}

static int probe(struct gc_energy_meter *m, char *why, size_t whylen);

int gc__energy_open(struct gc_device *d, struct gc_energy_meter **out, char *why, size_t whylen)
{
    struct gc_energy_meter *m = calloc(1, sizeof(*m));
    struct gc_power_reading r;
    char dev_why[512] = "";
    double e, ed;

    *out = NULL;
    if (!m)
        return GC_ENOMEM;
    m->dev = d;
    m->quantum_j = NAN;
    m->ceiling_w = GC_ENERGY_CEILING_W;
    {
        struct gc_sensor_sample x;

        if (gc__dev_sensors(d, &x) == 0 && (x.valid & GC_SENSOR_POWER_LIMIT) && x.power_limit_w > 0)
            m->ceiling_w = GC_ENERGY_CEILING_LIMITS * x.power_limit_w;
    }
    if (gc__dev_power(d, GC_POWER_ENERGY, &r) == 0 && (r.valid & GC_POWER_ENERGY)) {
        m->kind = METER_DEVICE;
        m->instant = gc__dev_power(d, GC_POWER_INSTANT, &r) == 0 && (r.valid & GC_POWER_INSTANT);
        snprintf(m->source, sizeof(m->source),
                 "%s cumulative energy counter of the device (NVML "
                 "nvmlDeviceGetTotalEnergyConsumption, mJ)",
                 d->ops->name);
        snprintf(m->power_source, sizeof(m->power_source), "%s",
                 m->instant ? "instantaneous board power (NVML field POWER_INSTANT)"
                            : "board power from the sensors (nvmlDeviceGetPowerUsage: a 1 s "
                              "average on Ampere, except GA100, and later)");
    } else {
        if (d->ops->power)
            snprintf(dev_why, sizeof(dev_why), "%s", d->ops->last_error(d->dev));
        else
            snprintf(dev_why, sizeof(dev_why), "the %s backend has no power meter", d->ops->name);
        if (d->info.type != GC_DEVICE_CPU) {
            snprintf(why, whylen, "no energy counter: %s", dev_why);
            free(m);
            return GC_ENOTSUP;
        }
        char rwhy[600] = "";
        int rc = gc__powercap_open(NULL, &m->pc, rwhy, sizeof(rwhy));
        if (rc == 0)
            rc = gc__powercap_read(&m->pc, &e, &ed, rwhy, sizeof(rwhy));
        if (rc) {
            snprintf(why, whylen, "no energy counter: %s; host RAPL: %s", dev_why, rwhy);
            free(m);
            return GC_ENOTSUP;
        }
        m->kind = METER_RAPL;
        m->has_dram = m->pc.ndram > 0;
        size_t off = (size_t)snprintf(m->source, sizeof(m->source),
                                      "host RAPL counters (powercap %s: %d package%s%s)",
                                      m->pc.root, m->pc.npackages, m->pc.npackages > 1 ? "s" : "",
                                      m->has_dram ? " + DRAM" : ", no DRAM domain");
        (void)off;
        snprintf(m->power_source, sizeof(m->power_source),
                 "differences of the RAPL counter (no separate power sensor)");
    }
    pthread_mutex_init(&m->lock, NULL);
    if (probe(m, why, whylen) != 0) {
        gc__energy_close(m);
        return GC_ENOTSUP;
    }
    *out = m;
    return 0;
}

static void stop_thread(struct gc_energy_meter *m)
{
    if (!m->running)
        return;
    pthread_mutex_lock(&m->lock);
    m->quit = true;
    pthread_mutex_unlock(&m->lock);
    pthread_join(m->thread, NULL);
    m->running = false;
}

void gc__energy_close(struct gc_energy_meter *m)
{
    if (!m)
        return;
    stop_thread(m);
    pthread_mutex_destroy(&m->lock);
    free(m->e);
    free(m->p);
    free(m);
}

const char *gc__energy_source(const struct gc_energy_meter *m)
{
    return m->source;
}

bool gc__energy_independent_power(const struct gc_energy_meter *m)
{
    return m->kind == METER_DEVICE;
}

const char *gc__energy_power_source(const struct gc_energy_meter *m)
{
    return m->power_source;
}

bool gc__energy_has_dram(const struct gc_energy_meter *m)
{
    return m->has_dram;
}

static void sleep_s(double s)
{
    struct timespec ts;

    if (s <= 0)
        return;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
}

double gc__energy_quantum(const struct gc_energy_meter *m)
{
    return m->quantum_j;
}

double gc__energy_ceiling(const struct gc_energy_meter *m)
{
    return m->ceiling_w;
}

double gc__energy_sample_tolerance(const struct gc_energy_meter *m)
{
    return m->kind == METER_DEVICE ? GC_ENERGY_SENSOR_TOL_W : NAN;
}

/* Before the meter is used: the counter must advance twice within
 * GC_ENERGY_PROBE_S (a counter that never moves measures nothing, and
 * its windows would all be invalid), and neither the power between those
 * two updates nor an instantaneous reading may be above the ceiling.
 * GC_ENOTSUP with the reason otherwise. */
static int probe(struct gc_energy_meter *m, char *why, size_t whylen)
{
    double t0 = gc__now(), t = t0, last = NAN, t_upd[2] = {NAN, NAN}, e_upd[2] = {NAN, NAN};
    int changes = 0;
    char rwhy[256];

    while (changes < 2 && t - t0 < GC_ENERGY_PROBE_S) {
        double e, ed;

        if (read_counter(m, &e, &ed, rwhy, sizeof(rwhy)) != 0) {
            snprintf(why, whylen, "the energy counter cannot be read: %s (%s)", rwhy, m->source);
            return GC_ENOTSUP;
        }
        t = gc__now();
        if (isfinite(last) && e != last) {
            if (changes == 1)
                note_step(m, e - last);
            t_upd[changes] = t;
            e_upd[changes] = e;
            changes++;
        }
        last = e;
        sleep_s(2e-4);
    }
    if (changes < 2) {
        snprintf(why, whylen,
                 "the energy counter did not advance in %.1f s of polling (%s; it reads %.6g "
                 "J): a counter that never moves measures nothing",
                 GC_ENERGY_PROBE_S, m->source, last);
        return GC_ENOTSUP;
    }
    double pw = (e_upd[1] - e_upd[0]) / (t_upd[1] - t_upd[0]);
    struct gc_power_reading r;
    if (m->kind == METER_DEVICE && m->instant && gc__dev_power(m->dev, GC_POWER_INSTANT, &r) == 0 &&
        (r.valid & GC_POWER_INSTANT) && !(r.power_w <= m->ceiling_w)) {
        snprintf(why, whylen,
                 "implausible power reading: %.4g W instantaneous, above %.4g W (%s): the "
                 "sensor does not read this device's power",
                 r.power_w, m->ceiling_w, m->power_source);
        return GC_ENOTSUP;
    }
    if (!(pw >= 0 && pw <= m->ceiling_w)) {
        snprintf(why, whylen,
                 "implausible energy counter: %.4g W between two updates, outside 0..%.4g W "
                 "(%s)",
                 pw, m->ceiling_w, m->source);
        return GC_ENOTSUP;
    }
    return 0;
}

/* Appends under the lock; a trace longer than a million entries stops
 * growing (a run is seconds long: this is a guard, not a policy). */
static void push_e(struct gc_energy_meter *m, struct gc_energy_point x)
{
    if (m->ne == m->cape) {
        int nc = m->cape ? 2 * m->cape : 4096;
        struct gc_energy_point *q = nc <= (1 << 20) ? realloc(m->e, (size_t)nc * sizeof(*q)) : NULL;

        if (!q)
            return;
        m->e = q;
        m->cape = nc;
    }
    m->e[m->ne++] = x;
}

static void push_p(struct gc_energy_meter *m, struct gc_power_point x)
{
    if (m->np == m->capp) {
        int nc = m->capp ? 2 * m->capp : 1024;
        struct gc_power_point *q = nc <= (1 << 20) ? realloc(m->p, (size_t)nc * sizeof(*q)) : NULL;

        if (!q)
            return;
        m->p = q;
        m->capp = nc;
    }
    m->p[m->np++] = x;
}

static void *meter_main(void *arg)
{
    struct gc_energy_meter *m = arg;
    double last_e = NAN, t_prev = gc__now(), next_sample = t_prev;
    double s_t = NAN, s_e = NAN; /* counter at the last derived power sample */
    char why[256];

    for (;;) {
        double e = NAN, ed = NAN;
        int rc = read_counter(m, &e, &ed, why, sizeof(why));
        double t = gc__now();

        pthread_mutex_lock(&m->lock);
        if (m->quit) {
            pthread_mutex_unlock(&m->lock);
            break;
        }
        if (m->polls++ == 0)
            m->t_first_poll = t;
        if (rc) {
            m->read_errors++;
            snprintf(m->read_why, sizeof(m->read_why), "%s", why);
        } else if (isnan(last_e) || e != last_e) {
            push_e(m, isnan(last_e) ? (struct gc_energy_point){t, e, ed, 0}
                                    : (struct gc_energy_point){0.5 * (t_prev + t), e, ed,
                                                               0.5 * (t - t_prev)});
            if (isfinite(last_e))
                note_step(m, e - last_e);
            last_e = e;
        }
        pthread_mutex_unlock(&m->lock);
        t_prev = t;
        if (t >= next_sample) {
            double w = NAN;

            next_sample += m->sample_s;
            if (next_sample < t)
                next_sample = t + m->sample_s;
            if (m->kind == METER_DEVICE && m->instant) {
                struct gc_power_reading r;

                if (gc__dev_power(m->dev, GC_POWER_INSTANT, &r) == 0 &&
                    (r.valid & GC_POWER_INSTANT))
                    w = r.power_w;
            } else if (m->kind == METER_DEVICE) {
                struct gc_sensor_sample x;

                if (gc__dev_sensors(m->dev, &x) == 0 && (x.valid & GC_SENSOR_POWER))
                    w = x.power_w;
            } else if (rc == 0) {
                /* RAPL: the counter's own difference over the sample period. */
                if (isfinite(s_t) && t > s_t && e >= s_e)
                    w = (e - s_e) / (t - s_t);
                s_t = t;
                s_e = e;
            }
            if (isfinite(w)) {
                pthread_mutex_lock(&m->lock);
                push_p(m, (struct gc_power_point){gc__now(), w});
                pthread_mutex_unlock(&m->lock);
            }
        }
        sleep_s(m->poll_s);
    }
    return NULL;
}

static int start_thread(struct gc_energy_meter *m, double poll_s, double sample_s)
{
    stop_thread(m);
    m->ne = m->np = 0;
    m->read_errors = 0;
    m->read_why[0] = '\0';
    m->polls = 0;
    m->quit = false;
    m->poll_s = poll_s;
    m->sample_s = sample_s > 0 ? sample_s : 0.01;
    if (pthread_create(&m->thread, NULL, meter_main, m) != 0)
        return GC_ENOMEM;
    m->running = true;
    return 0;
}

int gc__energy_resolution(struct gc_energy_meter *m, double duration_s,
                          struct gc_energy_resolution *out)
{
    int cap = 1 << 16, n = 0, reads = 0;
    double *steps = malloc((size_t)cap * sizeof(double)),
           *iv = malloc((size_t)cap * sizeof(double));
    double t_start = gc__now(), t_last_update = NAN, last = NAN, t;
    char why[256];
    int rc = 0;

    memset(out, 0, sizeof(*out));
    out->step_j = out->median_step_j = out->period_s = out->period_min_s = out->period_max_s = NAN;
    if (!steps || !iv) {
        rc = GC_ENOMEM;
        goto out;
    }
    stop_thread(m);
    do {
        double e, ed;

        rc = read_counter(m, &e, &ed, why, sizeof(why));
        t = gc__now();
        if (rc)
            goto out;
        reads++;
        if (isfinite(last) && e != last && n < cap) {
            steps[n] = e - last;
            iv[n] = isfinite(t_last_update) ? t - t_last_update : NAN;
            n++;
        }
        if (isnan(last) || e != last) {
            if (isfinite(last))
                t_last_update = t;
            last = e;
        }
    } while (t - t_start < duration_s);
    out->reads = reads;
    out->updates = n;
    out->poll_s = (t - t_start) / reads;
    {
        double smin = NAN;
        int ni = 0;

        for (int i = 0; i < n; i++) {
            if (steps[i] > 0 && (isnan(smin) || steps[i] < smin))
                smin = steps[i];
            if (isfinite(iv[i])) {
                out->period_min_s = isnan(out->period_min_s) || iv[i] < out->period_min_s
                                        ? iv[i]
                                        : out->period_min_s;
                out->period_max_s = isnan(out->period_max_s) || iv[i] > out->period_max_s
                                        ? iv[i]
                                        : out->period_max_s;
                iv[ni++] = iv[i];
            }
        }
        out->step_j = smin;
        note_step(m, smin);
        out->median_step_j = median_of(steps, n);
        out->period_s = median_of(iv, ni);
    }
out:
    free(steps);
    free(iv);
    return rc;
}

/* ---- measurement -------------------------------------------------------- */

void gc__energy_cfg_defaults(struct gc_energy_cfg *c, enum gc_profile p,
                             const struct gc_device_info *info)
{
    bool gpu = info->type == GC_DEVICE_GPU;

    /* Windows of half a second hold tens of updates of a counter that
     * updates every few to a hundred milliseconds, and thousands of its 1 mJ
     * steps at GPU powers; settling covers the ramp of clocks and power. */
    c->settle_s = gpu ? 0.4 : 0.3;
    c->window_s = gpu ? 0.5 : 0.4;
    c->min_windows = 2;
    c->max_windows = 4;
    c->cv_bound = 0.01;
    c->max_redo = 4;
    c->agree_bound = 0.05;
    c->poll_s = 0.0002;
    c->sample_s = 0.005;
    c->chunk_s = gpu ? 0.02 : 0.05;
    /* The 2% rule lengthens the windows of a coarse counter (an H200's
     * 12.27 J step: 0.9 s at 700 W, 5 s at 130 W idle); 8 s bounds a
     * window at very low power, where the figure says its uncertainty. */
    c->target_rel = GC_ENERGY_TARGET_REL;
    c->max_window_s = 8.0;
    if (p == GC_PROFILE_QUICK) {
        /* Fewer windows, never shorter ones: one window after the settling
         * time, long enough for the 2% rule (an H200 took 413 s for 50 of
         * the family's 72 benchmarks with two). Its figure has the
         * counter's uncertainty and no spread; the window lasts at least the
         * power controller's averaging period (with a margin for the ends,
         * which snap to counter updates), so that the power-limit
         * guard can judge it. */
        c->window_s = 1.25 * GC_POWER_LIMIT_PERIOD_S;
        c->min_windows = 1;
        c->max_windows = 1;
        c->cv_bound = 0.02;
    } else if (p == GC_PROFILE_FULL) {
        c->settle_s = gpu ? 1.0 : 0.5;
        c->window_s = 1.0;
        c->min_windows = 4;
        c->max_windows = 10;
        c->cv_bound = 0.005;
        c->max_window_s = 12.0;
    }
}

double gc__energy_window_for(double quantum_j, double power_w, double period_s,
                             const struct gc_energy_cfg *c)
{
    double t = c->window_s;

    if (c->target_rel > 0 && quantum_j > 0 && power_w > 0 && isfinite(quantum_j) &&
        isfinite(power_w)) {
        double need = 1.15 * quantum_j / (c->target_rel * power_w) +
                      2 * (isfinite(period_s) && period_s > 0 ? period_s : 0);
        if (need > t)
            t = need;
    }
    if (c->max_window_s > 0 && t > c->max_window_s)
        t = c->max_window_s > c->window_s ? c->max_window_s : c->window_s;
    return t;
}

/* Launch calls of about chunk_s of device time: long enough that the host's
 * gap between calls is a negligible share, short enough that a window ends
 * close to its planned time. One launch times the kernel. */
static int plan_chunk(struct gc_device *d, struct gc_kern *k, const struct gc_launch *l,
                      const struct gc_energy_cfg *cfg, struct gc_launch *L)
{
    double el = 0;
    int rc;

    *L = *l;
    L->count = 1;
    rc = gc__dev_launch(d, k, L, &el);
    if (rc)
        return rc;
    double per = el > 1e-7 ? el : 1e-7;
    long n = (long)ceil(cfg->chunk_s / per);
    L->count = n < 1 ? 1 : n > 100000 ? 100000 : (int)n;
    return 0;
}

/* Device and host time of the launches after the settling time, for the
 * busy fraction. */
struct busy {
    double dev_s, host_s;
};

/* Keep busy (or idle, without a kernel) until the window's end `we`. */
static int keep_busy(struct gc_session *s, struct gc_kern *k, const struct gc_launch *L,
                     double settled, double we, struct busy *b, struct gc_energy_run *run)
{
    double el = 0;

    while (gc__now() < we) {
        if (gc__stopped(s))
            return GC_EINTR;
        if (k) {
            double h0 = gc__now();
            int rc = gc__dev_launch(s->dev, k, L, &el);
            double h1 = gc__now();
            if (rc)
                return rc;
            if (h0 >= settled) {
                b->dev_s += el;
                b->host_s += h1 - h0;
                run->launches += L->count;
            }
        } else {
            double left = we - gc__now();
            sleep_s(left > 0.01 ? 0.01 : left);
        }
    }
    return 0;
}

/* The window [ws, we] from the meter's samples, checked. */
static void close_window(struct gc_energy_meter *m, const struct gc_energy_cfg *cfg, double ws,
                         double we, struct gc_energy_window *w)
{
    /* The updates bounding the window may come a poll later. */
    sleep_s(2 * cfg->poll_s + 1e-3);
    pthread_mutex_lock(&m->lock);
    gc__energy_analyse(m->e, m->ne, m->p, m->np, ws, we, w);
    pthread_mutex_unlock(&m->lock);
    /* RAPL's samples are the counter's own differences: their integral is
     * the counter again, no check. Only their maximum is kept. */
    if (m->kind == METER_RAPL)
        w->integral_j = w->disagreement = NAN;
    if (w->ok && cfg->agree_bound > 0 && isfinite(w->disagreement) &&
        w->disagreement > cfg->agree_bound) {
        w->ok = false;
        snprintf(w->why, sizeof(w->why),
                 "the counter and the integral of sampled power disagreed by %.1f%% in a "
                 "window (bound %.0f%%)",
                 100 * w->disagreement, 100 * cfg->agree_bound);
    }
}

/* Steady state: the last min_windows windows agree (CV) and show no trend
 * (first vs last). Windows before them were still settling (clocks, power
 * management, a previous load's tail): they are dropped, so that the figure
 * is the steady power and not an average over a ramp. True when steady. */
static bool steady(struct gc_energy_run *run, double *pw, const struct gc_energy_cfg *cfg,
                   double *span_start)
{
    int first = run->windows - cfg->min_windows;
    struct gc_stats st;
    double trend;

    gc__stats_compute(pw + first, cfg->min_windows, &st);
    trend = st.mean > 0 ? fabs(pw[run->windows - 1] - pw[first]) / st.mean : INFINITY;
    if (!(st.cv <= cfg->cv_bound && trend <= 2 * cfg->cv_bound))
        return false; /* NaN is not steady either */
    if (first > 0) {
        memmove(run->w, run->w + first, sizeof(run->w[0]) * cfg->min_windows);
        memmove(pw, pw + first, sizeof(pw[0]) * cfg->min_windows);
        run->windows = cfg->min_windows;
        run->settling_windows = first;
        *span_start = run->w[0].t0;
    }
    snprintf(run->stop_rule, sizeof(run->stop_rule), "cv<=%.2f%%, trend<=%.2f%%",
             100 * cfg->cv_bound, 200 * cfg->cv_bound);
    return true;
}

/* The kept windows summed: time, energy, the counter against the integral,
 * the peak power, the counter's step and period. */
static void summarise(struct gc_energy_run *run, const double *pw)
{
    double steps[GC_ENERGY_MAX_WINDOWS], per[GC_ENERGY_MAX_WINDOWS];
    int ns = 0, np = 0;
    double integ = 0;
    bool all_integ = true;

    gc__stats_compute(pw, run->windows, &run->power);
    for (int i = 0; i < run->windows; i++) {
        const struct gc_energy_window *w = &run->w[i];

        run->time_s += w->t1 - w->t0;
        run->energy_j += w->energy_j;
        if (isfinite(w->dram_j))
            run->dram_j = (isnan(run->dram_j) ? 0 : run->dram_j) + w->dram_j;
        if (isfinite(w->integral_j))
            integ += w->integral_j;
        else
            all_integ = false;
        if (isfinite(w->disagreement) && (w->disagreement > run->disagreement_max || i == 0))
            run->disagreement_max = w->disagreement;
        if (isfinite(w->power_max_w) &&
            (isnan(run->power_max_w) || w->power_max_w > run->power_max_w))
            run->power_max_w = w->power_max_w;
        if (isfinite(w->step_j))
            steps[ns++] = w->step_j;
        if (isfinite(w->period_s))
            per[np++] = w->period_s;
    }
    if (all_integ) {
        run->integral_j = integ;
        run->disagreement = fabs(integ - run->energy_j) / run->energy_j;
    } else {
        run->disagreement_max = NAN;
    }
    run->step_j = median_of(steps, ns);
    run->period_s = median_of(per, np);
}

/* The figure's uncertainty and source (see struct gc_energy_run): per
 * kept window one counter step plus the power times the time uncertainty
 * of its two ends (half the gap between the polls around each); the
 * integral of the samples instead where the sensor's stated tolerance is
 * the smaller, the windows' power then taken from the integral. */
static void uncertainty(struct gc_energy_run *run, double *pw, double tol_w)
{
    double spans[GC_ENERGY_MAX_WINDOWS], ue = 0, q = run->quantum_j;

    if (!(q > 0))
        q = run->step_j;
    run->quantum_j = q;
    run->u_counter_w = 0;
    for (int i = 0; i < run->windows; i++) {
        const struct gc_energy_window *w = &run->w[i];
        double span = w->t1 - w->t0, u = q + w->power_avg_w * w->t_err;

        spans[i] = span;
        ue += u;
        if (u / span > run->u_counter_w)
            run->u_counter_w = u / span;
    }
    run->window_s = median_of(spans, run->windows);
    run->sustained_w = run->energy_j / run->time_s;
    run->sustained_u_w = ue / run->time_s;
    run->u_integral_w = isfinite(run->integral_j) ? tol_w : NAN;
    run->u_w = run->u_counter_w;
    if (run->u_integral_w < run->u_counter_w) {
        run->from_integral = true;
        for (int i = 0; i < run->windows; i++)
            pw[i] = run->w[i].integral_j / (run->w[i].t1 - run->w[i].t0);
        gc__stats_compute(pw, run->windows, &run->power);
        run->energy_j = run->integral_j;
        run->sustained_w = run->integral_j / run->time_s;
        run->sustained_u_w = run->u_w = run->u_integral_w;
    }
    run->u_rel = run->power.median > 0 ? run->u_w / run->power.median : NAN;
}

/* What one window says for the next: an implausible power ends the
 * measurement (GC_ENOTSUP, the reason in redo_why); a window too short for
 * the 2% rule while a longer one is allowed is not kept (false in *keep);
 * the power seen and the update period plan the next window. */
static int judge_window(struct gc_energy_meter *m, const struct gc_energy_cfg *cfg,
                        const struct gc_energy_window *w, double len, struct gc_energy_run *run,
                        double *est_w, double *period, bool *keep)
{
    double q = gc__energy_quantum(m);

    *keep = w->ok;
    /* Before any other verdict (a jump of the counter also disagrees with
     * the samples): a reading no device gives. */
    if (w->power_avg_w > m->ceiling_w || w->power_max_w > m->ceiling_w) {
        snprintf(run->redo_why, sizeof(run->redo_why),
                 "implausible power reading: %.4g W average, %.4g W largest sample over %.3f s, "
                 "above %.4g W: the meter does not read this device's power",
                 w->power_avg_w, w->power_max_w, w->t1 - w->t0, m->ceiling_w);
        return GC_ENOTSUP;
    }
    if (!w->ok) {
        /* No update inside: the counter updates more slowly than the window. */
        if (w->updates == 0 && len * 2 <= cfg->max_window_s)
            run->window_plan_s = len * 2;
        return 0;
    }
    *est_w = w->power_avg_w;
    if (isfinite(w->period_s))
        *period = w->period_s;
    /* The ends' time uncertainty seen counts as energy too (a loaded host
     * polls less often). */
    run->window_plan_s = gc__energy_window_for(q + *est_w * w->t_err, *est_w, *period, cfg);
    if (cfg->target_rel > 0 && (q + w->power_avg_w * w->t_err) > cfg->target_rel * w->energy_j &&
        run->window_plan_s > len * 1.05 && run->lengthened < 4) {
        run->lengthened++;
        *keep = false;
    }
    return 0;
}

/* The busy settling time, then the power it saw plans the first window. */
static int settle(struct gc_session *s, struct gc_energy_meter *m, struct gc_kern *k,
                  const struct gc_launch *L, const struct gc_energy_cfg *cfg, double t_start,
                  struct busy *busy, struct gc_energy_run *run, double *est_w, double *period)
{
    struct gc_energy_window w;
    double ws = t_start + cfg->settle_s;
    int rc = keep_busy(s, k, L, ws, ws, busy, run);

    run->window_plan_s = cfg->window_s;
    if (rc)
        return rc;
    pthread_mutex_lock(&m->lock);
    gc__energy_analyse(m->e, m->ne, m->p, m->np, t_start, ws, &w);
    pthread_mutex_unlock(&m->lock);
    if (w.ok && w.power_avg_w <= m->ceiling_w) {
        *est_w = w.power_avg_w;
        *period = w.period_s;
        run->window_plan_s =
            gc__energy_window_for(gc__energy_quantum(m) + *est_w * w.t_err, *est_w, *period, cfg);
    }
    return 0;
}

/* One window from ws: busy (or idle) for the planned length, then analysed
 * and judged; kept windows go to run and pw. */
static int one_window(struct gc_session *s, struct gc_energy_meter *m, struct gc_kern *k,
                      const struct gc_launch *L, const struct gc_energy_cfg *cfg, double settled,
                      double *ws, struct busy *busy, struct gc_energy_run *run, double *pw,
                      double *est_w, double *period, bool *kept)
{
    double len = run->window_plan_s, we = *ws + len;
    struct gc_energy_window w;
    int rc = keep_busy(s, k, L, settled, we, busy, run);

    *kept = false;
    if (rc)
        return rc;
    close_window(m, cfg, *ws, we, &w);
    *ws = we;
    pthread_mutex_lock(&m->lock);
    run->poll_s = m->polls > 1 ? (gc__now() - m->t_first_poll) / (double)m->polls : cfg->poll_s;
    pthread_mutex_unlock(&m->lock);
    if ((rc = judge_window(m, cfg, &w, len, run, est_w, period, kept)))
        return rc;
    if (!w.ok) {
        if (m->read_errors && !w.updates)
            snprintf(run->redo_why, sizeof(run->redo_why), "%.100s; counter read failed: %.100s",
                     w.why, m->read_why);
        else
            snprintf(run->redo_why, sizeof(run->redo_why), "%s", w.why);
        return ++run->redone > cfg->max_redo ? GC_EUNSTABLE : 0;
    }
    if (*kept) {
        run->w[run->windows] = w;
        pw[run->windows] = w.power_avg_w;
        run->windows++;
    }
    return 0;
}

int gc__energy_measure(struct gc_session *s, struct gc_energy_meter *m, struct gc_kern *k,
                       const struct gc_launch *l, const struct gc_energy_cfg *cfg,
                       struct gc_energy_run *run)
{
    struct gc_device *d = s->dev;
    struct gc_sampler *sampler = NULL;
    struct gc_launch L;
    struct busy busy = {0, 0};
    double t_start, ws, span_start = NAN, span_end = NAN, est_w = NAN, period = NAN;
    double pw[GC_ENERGY_MAX_WINDOWS];
    int rc = 0;
    int maxw = cfg->max_windows < GC_ENERGY_MAX_WINDOWS ? cfg->max_windows : GC_ENERGY_MAX_WINDOWS;

    memset(run, 0, sizeof(*run));
    run->dram_j = run->integral_j = run->disagreement = run->power_max_w = NAN;
    run->period_s = run->step_j = run->quantum_j = NAN;
    run->poll_s = cfg->poll_s;
    snprintf(run->stop_rule, sizeof(run->stop_rule), "max-windows");
    if (k && (rc = plan_chunk(d, k, l, cfg, &L)))
        return rc;
    if (d->info.caps & GC_CAP_SENSOR_CLOCK)
        gc__sampler_start(d, 0.02, &sampler);
    rc = start_thread(m, cfg->poll_s, cfg->sample_s);
    if (rc)
        goto out;
    t_start = gc__now();
    ws = t_start + cfg->settle_s;
    if ((rc = settle(s, m, k, &L, cfg, t_start, &busy, run, &est_w, &period)))
        goto out;
    while (run->windows < maxw) {
        bool kept;

        rc = one_window(s, m, k, &L, cfg, t_start + cfg->settle_s, &ws, &busy, run, pw, &est_w,
                        &period, &kept);
        if (rc)
            goto out;
        if (!kept)
            continue;
        if (isnan(span_start))
            span_start = run->w[run->windows - 1].t0;
        span_end = run->w[run->windows - 1].t1;
        if (run->windows >= cfg->min_windows && steady(run, pw, cfg, &span_start))
            break;
    }
out:
    stop_thread(m);
    if (run->windows > 0) {
        summarise(run, pw);
        run->quantum_j = gc__energy_quantum(m);
        uncertainty(run, pw, gc__energy_sample_tolerance(m));
        gc__sampler_window(sampler, span_start, span_end, &run->sensors);
    } else {
        gc__sampler_window(NULL, 0, 0, &run->sensors);
    }
    run->busy_fraction = busy.host_s > 0 ? busy.dev_s / busy.host_s : 0;
    if (run->busy_fraction > 1)
        run->busy_fraction = 1; /* device and host clocks differ by ppm */
    run->launch_s = run->launches > 0 ? busy.dev_s / (double)run->launches : 0;
    gc__sampler_stop(sampler);
    return rc;
}

void gc__energy_state_free(struct gc_energy_state *st)
{
    if (!st)
        return;
    gc__energy_close(st->meter);
    free(st);
}
