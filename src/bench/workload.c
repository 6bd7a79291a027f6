/* Workloads (workload.h): lifetime of what a provider builds. */
#include <stdlib.h>
#include <string.h>

#include "bench/workload.h"

void gc__workload_init(struct gc_workload *w)
{
    memset(w, 0, sizeof(*w));
}

void gc__workload_release(struct gc_session *s, struct gc_workload *w)
{
    if (!w)
        return;
    for (int i = 0; i < GC_WORKLOAD_MAX_BUFS; i++)
        gc__dev_free(s->dev, w->bufs[i]);
    for (int i = 0; i < 4; i++)
        free(w->host[i]);
    gc__kreq_release(s, w->req, w->nreq);
    gc__workload_init(w);
}

int gc__workload_launch_once(struct gc_device *d, struct gc_workload *w)
{
    struct gc_launch one = w->l;
    double el;

    one.count = 1;
    return gc__dev_launch(d, w->k, &one, &el);
}
