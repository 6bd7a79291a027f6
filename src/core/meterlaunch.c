/* A benchmark's launch at a configuration (core/meterlaunch.h): where its
 * configuration came from, and the lifetime of what launch_at builds. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/meterlaunch.h"

void gc__meter_launch_init(struct gc_meter_launch *w)
{
    memset(w, 0, sizeof(*w));
}

void gc__meter_launch_release(struct gc_session *s, struct gc_meter_launch *w)
{
    if (!w)
        return;
    for (int i = 0; i < GC_MLAUNCH_MAX_BUFS; i++)
        gc__dev_free(s->dev, w->bufs[i]);
    for (int i = 0; i < GC_MLAUNCH_MAX_HOST; i++)
        free(w->host[i]);
    gc__kreq_release(s, w->req, w->nreq);
    gc__meter_launch_init(w);
}

int gc__meter_launch_once(struct gc_device *d, struct gc_meter_launch *w)
{
    struct gc_launch one = w->l;
    double el;

    one.count = 1;
    return gc__dev_launch(d, w->k, &one, &el);
}

const struct gc_bench_result *gc__cfg_pick_start(struct gc_cfg_pick *p, const char *bench,
                                                 const struct gc_config_ask *ask)
{
    memset(p, 0, sizeof(*p));
    p->origin = GC_CFG_DEFAULT;
    snprintf(p->bench, sizeof(p->bench), "%s", bench);
    snprintf(p->why, sizeof(p->why), "%s",
             ask && ask->why_default ? ask->why_default : "did not run in this run");
    return ask && ask->warps <= 0 ? ask->from : NULL;
}

void gc__cfg_refuse(struct gc_cfg_pick *p, const char *fmt, ...)
{
    va_list ap;

    p->origin = GC_CFG_REFUSED;
    va_start(ap, fmt);
    vsnprintf(p->why, sizeof(p->why), fmt, ap);
    va_end(ap);
}

void gc__meter_launch_describe(struct gc_meter_launch *w, const struct gc_cfg_pick *p,
                               const char *kernel, const char *fmt, ...)
{
    char cfg[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cfg, sizeof(cfg), fmt, ap);
    va_end(ap);
    /* Where it came from first: a metric's note keeps 256 characters. */
    if (p->origin == GC_CFG_RESULT)
        snprintf(w->what, sizeof(w->what),
                 "%.100s at the configuration %.60s found in this run: %.160s", kernel, p->bench,
                 cfg);
    else if (p->origin == GC_CFG_REFUSED)
        snprintf(w->what, sizeof(w->what),
                 "%.100s, default configuration (%.60s's was not used: %.120s): %.160s", kernel,
                 p->bench, p->why, cfg);
    else
        snprintf(w->what, sizeof(w->what),
                 "%.100s, default configuration (the performance benchmark %.60s %.100s): %.160s",
                 kernel, p->bench, p->why, cfg);
}
