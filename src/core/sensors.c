/* Sensor sampling thread (Volkov §5.4: clocks watched while kernels run, so
 * that samples taken under a lowered clock are detected and redone). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sensors.h"

struct gc_sampler {
    struct gc_device *dev;
    double period_s;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool quit;
    struct gc_sensor_sample *r;
    size_t n, cap;
};

double gc__now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void append(struct gc_sampler *s, const struct gc_sensor_sample *x)
{
    /* Readings are kept in a ring of bounded size so that long runs do not
     * grow host memory: the oldest half is dropped. */
    if (s->n == s->cap) {
        if (s->cap >= 65536) {
            memmove(s->r, s->r + s->n / 2, (s->n - s->n / 2) * sizeof(*s->r));
            s->n -= s->n / 2;
        } else {
            size_t ncap = s->cap ? 2 * s->cap : 256;
            struct gc_sensor_sample *p = realloc(s->r, ncap * sizeof(*p));

            if (p) {
                s->r = p;
                s->cap = ncap;
            }
        }
    }
    if (s->n < s->cap)
        s->r[s->n++] = *x;
}

static void *sampler_main(void *arg)
{
    struct gc_sampler *s = arg;

    pthread_mutex_lock(&s->lock);
    while (!s->quit) {
        struct gc_sensor_sample x;

        pthread_mutex_unlock(&s->lock);
        int rc = gc__dev_sensors(s->dev, &x);
        x.t = gc__now();
        pthread_mutex_lock(&s->lock);
        if (rc == 0 && x.valid)
            append(s, &x);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        long ns = until.tv_nsec + (long)(s->period_s * 1e9);
        until.tv_sec += ns / 1000000000L;
        until.tv_nsec = ns % 1000000000L;
        if (!s->quit)
            pthread_cond_timedwait(&s->cond, &s->lock, &until);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Starting and joining a thread, waiting out its reading in flight and a
 * synchronous first reading cost milliseconds per measurement, hundreds of
 * times a run: a stopped sampler is parked on its device (one at a time),
 * still sampling, and the next start takes it over with its latest reading
 * (at most a period old) as the first. */
int gc__sampler_start(struct gc_device *d, double period_s, struct gc_sampler **out)
{
    struct gc_sensor_sample probe;
    struct gc_sampler *s;

    *out = NULL;
    if ((s = d->parked_sampler) != NULL) {
        d->parked_sampler = NULL;
        pthread_mutex_lock(&s->lock);
        s->period_s = period_s;
        if (s->n > 0) {
            s->r[0] = s->r[s->n - 1];
            s->n = 1;
        }
        bool have = s->n > 0;
        pthread_cond_signal(&s->cond);
        pthread_mutex_unlock(&s->lock);
        *out = s;
        if (have)
            return 0;
        /* No reading yet (sensors that failed so far): probe as below. */
        if (gc__dev_sensors(d, &probe) != 0 || probe.valid == 0) {
            gc__sampler_stop(s);
            *out = NULL;
            return GC_ENOTSUP;
        }
        probe.t = gc__now();
        pthread_mutex_lock(&s->lock);
        append(s, &probe);
        pthread_mutex_unlock(&s->lock);
        return 0;
    }
    if (gc__dev_sensors(d, &probe) != 0 || probe.valid == 0)
        return GC_ENOTSUP;
    /* The probe is the first reading: a window that closes before the
     * thread's first turn still has one. */
    probe.t = gc__now();
    s = calloc(1, sizeof(*s));
    if (!s)
        return GC_ENOMEM;
    s->dev = d;
    s->period_s = period_s;
    append(s, &probe);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    if (pthread_create(&s->thread, NULL, sampler_main, s) != 0) {
        pthread_cond_destroy(&s->cond);
        pthread_mutex_destroy(&s->lock);
        free(s->r);
        free(s);
        return GC_ENOMEM;
    }
    *out = s;
    return 0;
}

static void destroy(struct gc_sampler *s)
{
    pthread_mutex_lock(&s->lock);
    s->quit = true;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->lock);
    free(s->r);
    free(s);
}

void gc__sampler_stop(struct gc_sampler *s)
{
    if (!s)
        return;
    if (s->dev->parked_sampler) {
        destroy(s);
        return;
    }
    s->dev->parked_sampler = s;
}

int gc__dev_sensors(struct gc_device *d, struct gc_sensor_sample *out)
{
    memset(out, 0, sizeof(*out));
    if (!d->ops->sensors)
        return GC_ENOTSUP;
    return d->ops->sensors(d->dev, out);
}

void gc__sampler_release(struct gc_device *d)
{
    if (d && d->parked_sampler) {
        destroy(d->parked_sampler);
        d->parked_sampler = NULL;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

void gc__sampler_window(struct gc_sampler *s, double t0, double t1, struct gc_sensor_window *w)
{
    double clocks[512];
    int nclk = 0, nmem = 0, npow = 0;
    double mem_sum = 0, pow_sum = 0;

    w->n = 0;
    w->throttled = false;
    w->reasons = 0;
    w->sm_min = w->sm_max = w->sm_median = w->mem_median = NAN;
    w->power_avg = w->power_limit = w->temp_first = w->temp_last = NAN;
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    size_t first = s->n, last = s->n;
    for (size_t i = 0; i < s->n; i++) {
        if (s->r[i].t >= t0 && s->r[i].t <= t1) {
            if (first == s->n)
                first = i;
            last = i + 1;
        }
    }
    if (first == s->n) {
        /* No reading inside a short window: the latest one before its end
         * stands for it. */
        for (size_t i = s->n; i-- > 0;)
            if (s->r[i].t <= t1) {
                first = i;
                last = i + 1;
                break;
            }
    }
    for (size_t i = first; i < last && i < s->n; i++) {
        const struct gc_sensor_sample *x = &s->r[i];

        w->n++;
        w->reasons |= x->throttle;
        w->throttled |= x->throttled;
        if (x->valid & GC_SENSOR_SM_CLOCK) {
            if (nclk < (int)(sizeof(clocks) / sizeof(clocks[0])))
                clocks[nclk++] = x->sm_clock_mhz;
            w->sm_min =
                isnan(w->sm_min) || x->sm_clock_mhz < w->sm_min ? x->sm_clock_mhz : w->sm_min;
            w->sm_max =
                isnan(w->sm_max) || x->sm_clock_mhz > w->sm_max ? x->sm_clock_mhz : w->sm_max;
        }
        if (x->valid & GC_SENSOR_MEM_CLOCK) {
            mem_sum += x->mem_clock_mhz;
            nmem++;
        }
        if (x->valid & GC_SENSOR_POWER) {
            pow_sum += x->power_w;
            npow++;
        }
        if (x->valid & GC_SENSOR_POWER_LIMIT)
            w->power_limit = x->power_limit_w;
        if (x->valid & GC_SENSOR_TEMP) {
            if (isnan(w->temp_first))
                w->temp_first = x->temp_c;
            w->temp_last = x->temp_c;
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (nclk) {
        qsort(clocks, (size_t)nclk, sizeof(double), cmp_double);
        w->sm_median =
            nclk % 2 ? clocks[nclk / 2] : 0.5 * (clocks[nclk / 2 - 1] + clocks[nclk / 2]);
    }
    if (nmem)
        w->mem_median = mem_sum / nmem;
    if (npow)
        w->power_avg = pow_sum / npow;
}
