/* A node run's document in memory (gpuchar/node.h): its devices, each
 * device's identity read from its results tree, and the cross-device
 * summary of every headline figure, built by the fleet analysis
 * (gpuchar/fleet.h) with the node's devices as the fleet. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "gpuchar/node.h"

int gc_node_create(struct gc_node **out)
{
    *out = calloc(1, sizeof(**out));
    if (!*out)
        return GC_ENOMEM;
    snprintf((*out)->tool_version, sizeof((*out)->tool_version), "%s", gc_version());
    snprintf((*out)->git_revision, sizeof((*out)->git_revision), "%s", gc_git_revision());
    (*out)->complete = true;
    return 0;
}

void gc_node_free(struct gc_node *n)
{
    if (!n)
        return;
    for (int i = 0; i < n->ndevices; i++)
        gc_results_free(n->devices[i].results);
    free(n->devices);
    free(n->sched);
    gc_results_free(n->links);
    free(n->figures);
    free(n);
}

int gc_node_add_device(struct gc_node *n, const char *spec, const char *name, struct gc_results *r,
                       int rc, bool lost, const char *message)
{
    struct gc_node_device *p = realloc(n->devices, (size_t)(n->ndevices + 1) * sizeof(*p));

    if (!p) {
        gc_results_free(r);
        return GC_ENOMEM;
    }
    n->devices = p;
    p = &n->devices[n->ndevices++];
    memset(p, 0, sizeof(*p));
    snprintf(p->spec, sizeof(p->spec), "%s", spec ? spec : "");
    snprintf(p->name, sizeof(p->name), "%s", name ? name : "");
    p->rc = rc;
    p->lost = lost;
    snprintf(p->message, sizeof(p->message), "%s", message ? message : "");
    p->results = r;
    p->id.numa_node = -1;
    p->id.ecc = -1;
    return 0;
}

/* numa_node from a "key=value; ..." list; -1 when absent. */
static int extra_numa(const char *extra)
{
    const char *p = strstr(extra, "numa_node=");

    while (p && p != extra && p[-1] != ' ' && p[-1] != ';')
        p = strstr(p + 1, "numa_node=");
    return p ? atoi(p + strlen("numa_node=")) : -1;
}

/* The identity of device i from its fleet entry and its results. */
static void identity(struct gc_node_device *d, const struct gc_fleet_gpu *g)
{
    const struct gc_run_meta *m = &d->results->meta;

    snprintf(d->id.pci, sizeof(d->id.pci), "%s", g->pci);
    snprintf(d->id.uuid, sizeof(d->id.uuid), "%s", g->uuid);
    d->id.numa_node = extra_numa(m->device_extra);
    snprintf(d->id.driver, sizeof(d->id.driver), "%s", m->device.driver);
    d->id.ecc = g->ecc;
    d->id.max_sm_clock_mhz = g->max_sm_clock_mhz;
    d->id.max_mem_clock_mhz = g->max_mem_clock_mhz;
    if (!d->name[0])
        snprintf(d->name, sizeof(d->name), "%s", m->device.name);
}

/* The device furthest from the median on the worse side of figure k
 * (either side for a figure without a direction); -1 below two values or
 * when none is worse than the median. */
static int deviant(const struct gc_fleet *f, int k, int dir, double median, int n)
{
    int best = -1;
    double worst = -1;

    if (n < 2)
        return -1;
    for (int i = 0; i < f->ngpus; i++) {
        double v = k < f->gpus[i].nv ? f->gpus[i].v[k] : NAN, dev;

        if (!isfinite(v))
            continue;
        dev = dir > 0 ? median - v : dir < 0 ? v - median : fabs(v - median);
        if (dev > 0 && dev > worst) {
            worst = dev;
            best = i;
        }
    }
    return best;
}

static bool fleet_flagged(const struct gc_fleet *f, int k)
{
    for (int i = 0; i < f->nflags; i++)
        if (f->flags[i].figure == k)
            return true;
    return false;
}

/* One summary row per fleet figure. */
static int figures_from_fleet(struct gc_node *n, const struct gc_fleet *f)
{
    double *x = malloc((size_t)(f->ngpus > 0 ? f->ngpus : 1) * sizeof(*x));

    n->figures = calloc((size_t)(f->nfig > 0 ? f->nfig : 1), sizeof(*n->figures));
    if (!x || !n->figures) {
        free(x);
        return GC_ENOMEM;
    }
    for (int k = 0; k < f->nfig; k++) {
        struct gc_node_figure *o = &n->figures[n->nfigures++];
        int m = 0;

        snprintf(o->key, sizeof(o->key), "%s", f->figures[k].key);
        snprintf(o->unit, sizeof(o->unit), "%s", f->figures[k].unit);
        o->direction = f->figures[k].direction;
        o->min = INFINITY;
        o->max = -INFINITY;
        for (int i = 0; i < f->ngpus; i++) {
            double v = k < f->gpus[i].nv ? f->gpus[i].v[k] : NAN;

            if (!isfinite(v))
                continue;
            x[m++] = v;
            o->min = fmin(o->min, v);
            o->max = fmax(o->max, v);
        }
        o->n = m;
        o->median = m ? gc__percentile(x, m, 50) : NAN;
        if (!m)
            o->min = o->max = NAN;
        o->spread = m && o->median != 0 ? (o->max - o->min) / fabs(o->median) : NAN;
        o->deviant = deviant(f, k, o->direction, o->median, m);
        o->flagged = fleet_flagged(f, k) || (isfinite(o->spread) && o->spread > n->flag_spread);
    }
    free(x);
    return 0;
}

int gc_node_summarise(struct gc_node *n)
{
    struct gc_fleet *f = NULL;
    struct gc_fleet_options opt;
    int rc = gc_fleet_create(&f);

    free(n->figures);
    n->figures = NULL;
    n->nfigures = 0;
    for (int i = 0; rc == 0 && i < n->ndevices; i++) {
        struct gc_node_device *d = &n->devices[i];

        if (d->results) {
            rc = gc_fleet_add_results(f, d->results, -1, d->spec);
            if (rc == 0)
                identity(d, &f->gpus[f->ngpus - 1]);
        } else {
            rc = gc_fleet_add_missing(f, -1, n->host, GC_FLEET_FAILED, d->message);
        }
        if (!d->results || !d->results->complete || d->rc || d->lost)
            n->complete = false;
    }
    /* A node's devices are the whole fleet: the relative rule applies from
     * two devices on. */
    gc_fleet_options_init(&opt);
    opt.min_group = 2;
    n->flag_spread = 1.0 - opt.low_ratio;
    if (rc == 0)
        rc = gc_fleet_analyse(f, &opt, NULL);
    if (rc == 0)
        rc = figures_from_fleet(n, f);
    gc_fleet_free(f);
    return rc;
}
