/* CUDA launches timed from the host (enqueue cost, round trip) with optional
 * device events, and CUDA graphs: a chain of launches captured once and
 * launched as one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/cuda/cuda_int.h"
#include "backend/cuda/loader.h"

struct gc_graph {
    struct gc_dev *dev;
    CUgraph graph;
    CUgraphExec exec;
    int count;
    char name[128];
};

static double mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void times_init(struct gc_launch_times *t)
{
    t->t_begin = t->t_enqueued = t->t_done = t->device_s = NAN;
    t->queued_to_submit_s = t->submit_to_start_s = t->start_to_end_s = NAN;
}

/* The wait and the event time that end a timed launch or graph launch. */
static int finish(struct gc_dev *d, unsigned flags, struct gc_launch_times *out)
{
    float ms = 0;
    int rc = 0;

    if (flags & GC_LT_EVENTS)
        GC_CU_CALL(d, gc__cu.cuEventRecord(d->ev_end, d->stream));
    if (flags & GC_LT_NOWAIT)
        goto out;
    /* The wait every user writes: the stream's, as cudaStreamSynchronize. */
    GC_CU_CALL(d, gc__cu.cuStreamSynchronize(d->stream));
    out->t_done = mono_now();
    if (flags & GC_LT_EVENTS) {
        GC_CU_CALL(d, gc__cu.cuEventElapsedTime(&ms, d->ev_start, d->ev_end));
        out->device_s = ms * 1e-3;
    }
out:
    return rc;
}

int gc__cu_launch_timed(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                        unsigned flags, struct gc_launch_times *out)
{
    union gc__cu_arg *vals = NULL;
    void **params = NULL;
    int rc;

    times_init(out);
    rc = gc__cu_prepare_launch(d, k, l, &vals, &params);
    if (rc)
        return rc;
    if (flags & GC_LT_EVENTS)
        GC_CU_CALL(d, gc__cu.cuEventRecord(d->ev_start, d->stream));
    out->t_begin = mono_now();
    for (int i = 0; i < l->count; i++)
        GC_CU_CALL(d, gc__cu.cuLaunchKernel(k->fn, l->grid[0], l->grid[1], l->grid[2], l->block[0],
                                            l->block[1], l->block[2], (unsigned)l->dyn_shared,
                                            d->stream, params, NULL));
    out->t_enqueued = mono_now();
    rc = finish(d, flags, out);
out:
    if (rc) {
        gc__cu.cuStreamSynchronize(d->stream);
        gc__cu_append_error(d, " (timed launch of %s, grid %ux%ux%u, block %ux%ux%u)", k->name,
                            l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                            l->block[2]);
        if (rc == GC_EBACKEND || rc == GC_EDEVMEM)
            rc = GC_ELAUNCH;
    }
    free(params);
    free(vals);
    return rc;
}

int gc__cu_sync(struct gc_dev *d)
{
    int rc = 0;

    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    GC_CU_CALL(d, gc__cu.cuStreamSynchronize(d->stream));
    if (d->stream2)
        GC_CU_CALL(d, gc__cu.cuStreamSynchronize(d->stream2));
out:
    if (rc == GC_EBACKEND)
        rc = GC_ELAUNCH;
    return rc;
}

int gc__cu_graph_create(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                        struct gc_graph **out)
{
    union gc__cu_arg *vals = NULL;
    void **params = NULL;
    struct gc_graph *g = NULL;
    bool capturing = false;
    int rc;

    *out = NULL;
    rc = gc__cu_prepare_launch(d, k, l, &vals, &params);
    if (rc)
        return rc;
    g = calloc(1, sizeof(*g));
    if (!g) {
        gc__cu_set_error(d, "out of host memory making a graph");
        rc = GC_ENOMEM;
        goto out;
    }
    g->dev = d;
    g->count = l->count;
    snprintf(g->name, sizeof(g->name), "%s", k->name);
    /* Captured from the device's own stream: the launches become a chain of
     * kernel nodes, their arguments copied into the nodes. */
    GC_CU_CALL(d, gc__cu.cuStreamBeginCapture(d->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    capturing = true;
    for (int i = 0; i < l->count; i++)
        GC_CU_CALL(d, gc__cu.cuLaunchKernel(k->fn, l->grid[0], l->grid[1], l->grid[2], l->block[0],
                                            l->block[1], l->block[2], (unsigned)l->dyn_shared,
                                            d->stream, params, NULL));
    capturing = false;
    GC_CU_CALL(d, gc__cu.cuStreamEndCapture(d->stream, &g->graph));
    GC_CU_CALL(d, gc__cu.cuGraphInstantiateWithFlags(&g->exec, g->graph, 0));
    *out = g;
    g = NULL;
out:
    if (capturing) {
        /* Leaves the stream usable again after a failed capture. */
        CUgraph partial = NULL;
        if (gc__cu.cuStreamEndCapture(d->stream, &partial) == CUDA_SUCCESS && partial)
            gc__cu.cuGraphDestroy(partial);
    }
    gc__cu_graph_destroy(g);
    free(params);
    free(vals);
    return rc;
}

int gc__cu_graph_launch(struct gc_graph *g, unsigned flags, struct gc_launch_times *out)
{
    struct gc_dev *d = g->dev;
    int rc = 0;

    times_init(out);
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    if (flags & GC_LT_EVENTS)
        GC_CU_CALL(d, gc__cu.cuEventRecord(d->ev_start, d->stream));
    out->t_begin = mono_now();
    GC_CU_CALL(d, gc__cu.cuGraphLaunch(g->exec, d->stream));
    out->t_enqueued = mono_now();
    rc = finish(d, flags, out);
out:
    if (rc) {
        gc__cu.cuStreamSynchronize(d->stream);
        gc__cu_append_error(d, " (graph of %d launches of %s)", g->count, g->name);
        if (rc == GC_EBACKEND || rc == GC_EDEVMEM)
            rc = GC_ELAUNCH;
    }
    return rc;
}

void gc__cu_graph_destroy(struct gc_graph *g)
{
    if (!g)
        return;
    gc__cu.cuCtxSetCurrent(g->dev->ctx);
    if (g->exec)
        gc__cu.cuGraphExecDestroy(g->exec);
    if (g->graph)
        gc__cu.cuGraphDestroy(g->graph);
    free(g);
}
