/* The progress of a node run on stderr: the devices' threads report into
 * their own slot under one lock; a terminal shows one combined line (each
 * device's position and benchmark, and the estimated time left, the
 * longest of the devices'), other outputs one line per finished benchmark
 * naming its device (with --verbose), so stderr stays readable however the
 * threads interleave. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CLEAR_LINE "\r\033[K"

struct slot {
    struct gc_node_progress *p;
    char spec[32];
    char bench[64];
    int done, total;
    double eta_s;
};

struct gc_node_progress {
    struct gc_cli_progress view; /* live or plain lines, as a single run's */
    pthread_mutex_t lock;
    struct slot *slots;
    int n;
    double last_draw_s;
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int gc__node_progress_create(struct gc_node_progress **out, const struct gc_device_summary *devs,
                             int n, bool quiet, bool no_progress, bool verbose)
{
    struct gc_node_progress *p = calloc(1, sizeof(*p));

    *out = NULL;
    if (!p || !(p->slots = calloc((size_t)n, sizeof(*p->slots)))) {
        free(p);
        return GC_ENOMEM;
    }
    gc__progress_init(&p->view, quiet, no_progress, verbose);
    pthread_mutex_init(&p->lock, NULL);
    p->n = n;
    for (int i = 0; i < n; i++) {
        p->slots[i].p = p;
        p->slots[i].eta_s = NAN;
        snprintf(p->slots[i].spec, sizeof(p->slots[i].spec), "%s", devs[i].spec);
    }
    *out = p;
    return 0;
}

void gc__node_progress_free(struct gc_node_progress *p)
{
    if (!p)
        return;
    pthread_mutex_destroy(&p->lock);
    free(p->slots);
    free(p);
}

void *gc__node_progress_slot(struct gc_node_progress *p, int i)
{
    return &p->slots[i];
}

bool gc__node_progress_enabled(const struct gc_node_progress *p)
{
    return gc__progress_enabled(&p->view);
}

bool gc__node_progress_live(const struct gc_node_progress *p)
{
    return p->view.live;
}

/* The combined line; called with the lock held. */
static void draw(struct gc_node_progress *p)
{
    char line[1024];
    size_t off = 0;
    double eta = NAN;

    for (int i = 0; i < p->n && off < sizeof(line); i++) {
        const struct slot *s = &p->slots[i];
        int w = snprintf(line + off, sizeof(line) - off, "%s%s [%d/%d] %s", i ? " | " : "", s->spec,
                         s->done, s->total, s->bench[0] ? s->bench : "-");

        if (w < 0)
            return;
        off += (size_t)w;
        if (isfinite(s->eta_s))
            eta = isfinite(eta) ? fmax(eta, s->eta_s) : s->eta_s;
    }
    if (off < sizeof(line) && isfinite(eta))
        snprintf(line + off, sizeof(line) - off, "  ETA ~%.0f s", eta);
    if (p->view.width > 1 && (size_t)p->view.width - 1 < sizeof(line))
        line[p->view.width - 1] = '\0';
    fprintf(stderr, CLEAR_LINE "%s", line);
    fflush(stderr);
    p->view.shown = true;
}

void gc__node_progress_update(void *user, int done, int total, const char *bench,
                              const char *status_line)
{
    struct slot *s = user;
    struct gc_node_progress *p = s->p;

    pthread_mutex_lock(&p->lock);
    s->done = done;
    s->total = total;
    if (p->view.lines)
        fprintf(stderr, "[%s %d/%d] %s  %s\n", s->spec, done, total, bench ? bench : "?",
                status_line ? status_line : "");
    else if (p->view.live)
        draw(p);
    pthread_mutex_unlock(&p->lock);
}

void gc__node_progress_detail(void *user, const struct gc_progress_info *info)
{
    struct slot *s = user;
    struct gc_node_progress *p = s->p;
    double t = now_s();

    if (!p->view.live || !info)
        return;
    pthread_mutex_lock(&p->lock);
    s->done = info->done;
    s->total = info->total;
    s->eta_s = info->eta_s;
    snprintf(s->bench, sizeof(s->bench), "%s", info->bench ? info->bench : "");
    /* A few redraws a second at most, whichever device reports. */
    if (t - p->last_draw_s > 0.25) {
        draw(p);
        p->last_draw_s = t;
    }
    pthread_mutex_unlock(&p->lock);
}

void gc__node_progress_clear(struct gc_node_progress *p)
{
    pthread_mutex_lock(&p->lock);
    gc__progress_clear(&p->view);
    pthread_mutex_unlock(&p->lock);
}

void gc__node_progress_note(struct gc_node_progress *p, const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&p->lock);
    gc__progress_clear(&p->view);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    pthread_mutex_unlock(&p->lock);
}
