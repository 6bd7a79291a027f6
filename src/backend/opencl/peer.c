/* OpenCL peer links: copies between the devices of one shared context
 * (group.c). Each buffer is placed on its own device
 * (clEnqueueMigrateMemObjects on that device's queue), then
 * clEnqueueCopyBuffer runs on a queue of the issuing device (the source
 * pushes, or the destination pulls), timed by the profiling times of its
 * events. Kernels cannot reach another device's buffer in place: a buffer a
 * kernel uses is moved to that kernel's device first, so the SM copies and
 * the chase are not available. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/opencl/error.h"
#include "backend/opencl/loader.h"
#include "backend/opencl/opencl_int.h"

static const char kernel_why[] =
    "OpenCL has no kernel access to another device's memory in place: a buffer of a shared "
    "context that a kernel uses is moved to that kernel's device first";

static bool same_context(const struct gc_dev *a, const struct gc_dev *b)
{
    return a->shared && b->shared && a->ctx == b->ctx;
}

/* NVIDIA's platform: its clEnqueueCopyBuffer between the buffers of two
 * devices of one context does not cross the link (docs/methodology.md,
 * section 24.8). */
static bool nvidia_platform(const struct gc_dev *d)
{
    char *name = gc__cl_info_str(d->platform, NULL, CL_PLATFORM_NAME);
    bool nv = name && strstr(name, "NVIDIA") != NULL;

    free(name);
    return nv;
}

static const char nvidia_why[] =
    "NVIDIA's OpenCL copies no bytes across the link between devices of one context: "
    "clEnqueueCopyBuffer between buffers placed on two GPUs runs several times faster than "
    "their links carry (docs/methodology.md, section 24.8)";

/* Why a and b cannot copy to each other. */
static void why_not(const struct gc_dev *a, const struct gc_dev *b, char *buf, size_t len)
{
    if (a->platform != b->platform)
        snprintf(buf, len, "devices of two OpenCL platforms share no context");
    else if (a->share_why[0] || b->share_why[0])
        snprintf(buf, len, "not in one context: %s", a->share_why[0] ? a->share_why : b->share_why);
    else
        snprintf(buf, len,
                 "each device was opened in a context of its own, and clEnqueueCopyBuffer copies "
                 "only between buffers of one context");
}

int gc__cl_peer_info(struct gc_dev *a, struct gc_dev *b, struct gc_peer_info *out)
{
    snprintf(out->source, sizeof(out->source), "OpenCL");
    snprintf(out->kind, sizeof(out->kind), "OpenCL");
    if (!same_context(a, b)) {
        out->access = false;
        why_not(a, b, out->why, sizeof(out->why));
        return 0;
    }
    if (nvidia_platform(a)) {
        out->access = false;
        snprintf(out->why, sizeof(out->why), "%s", nvidia_why);
        return 0;
    }
    out->access = true;
    out->copies_only = true;
    snprintf(out->kernel_why, sizeof(out->kernel_why), "%s", kernel_why);
    return 0;
}

int gc__cl_peer_enable(struct gc_dev *a, struct gc_dev *b)
{
    char why[256];

    if (same_context(a, b))
        return 0;
    why_not(a, b, why, sizeof(why));
    gc__cl_set_error(a, "%s", why);
    return GC_ENOTSUP;
}

static double mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One call's objects: per copy its queue (the device's own when it issues
 * one copy, else a queue of its own) and its first and last events. */
struct call {
    cl_command_queue q[GC_PEER_MAX_COPIES];
    bool own_q[GC_PEER_MAX_COPIES];
    cl_event first[GC_PEER_MAX_COPIES], last[GC_PEER_MAX_COPIES];
    cl_event gate;
};

static struct gc_dev *issuer(const struct gc_peer_copy *c)
{
    return c->by_dst ? c->dst->dev : c->src->dev;
}

/* Each buffer on its own device, and the queues. */
static int setup(const struct gc_peer_copy *c, int n, struct call *k, struct gc_dev *e)
{
    cl_int clrc;
    int rc = GC_EBACKEND;

    for (int i = 0; i < n; i++) {
        struct gc_dev *d = issuer(&c[i]);
        int uses = 0;

        if (!same_context(c[i].src->dev, c[i].dst->dev) && c[i].src->dev != c[i].dst->dev) {
            char why[256];

            why_not(c[i].src->dev, c[i].dst->dev, why, sizeof(why));
            gc__cl_set_error(e, "%s", why);
            return GC_ENOTSUP;
        }
        GC_CL_CALL(e, gc__cl.clEnqueueMigrateMemObjects(c[i].src->dev->queue, 1, &c[i].src->mem, 0,
                                                        0, NULL, NULL));
        GC_CL_CALL(e, gc__cl.clEnqueueMigrateMemObjects(c[i].dst->dev->queue, 1, &c[i].dst->mem, 0,
                                                        0, NULL, NULL));
        GC_CL_CALL(e, gc__cl.clFinish(c[i].src->dev->queue));
        GC_CL_CALL(e, gc__cl.clFinish(c[i].dst->dev->queue));
        for (int j = 0; j < n; j++)
            uses += issuer(&c[j]) == d;
        k->own_q[i] = uses > 1;
        k->q[i] = d->queue;
        if (k->own_q[i])
            GC_CL_CREATE(
                e, k->q[i],
                gc__cl.clCreateCommandQueue(d->ctx, d->device, CL_QUEUE_PROFILING_ENABLE, &clrc));
    }
    GC_CL_CREATE(e, k->gate, gc__cl.clCreateUserEvent(e->ctx, &clrc));
    rc = 0;
out:
    return rc;
}

/* Enqueues count copies of each behind the gate. */
static int enqueue(const struct gc_peer_copy *c, int n, int count, struct call *k, struct gc_dev *e)
{
    cl_int clrc;
    int rc = GC_EBACKEND;

    for (int i = 0; i < n; i++)
        for (int r = 0; r < count; r++) {
            cl_event *ev = r == 0 ? &k->first[i] : r == count - 1 ? &k->last[i] : NULL;

            GC_CL_CALL(e, gc__cl.clEnqueueCopyBuffer(k->q[i], c[i].src->mem, c[i].dst->mem,
                                                     c[i].src_off, c[i].dst_off, c[i].bytes,
                                                     r == 0 ? 1 : 0, r == 0 ? &k->gate : NULL, ev));
        }
    for (int i = 0; i < n; i++)
        GC_CL_CALL(e, gc__cl.clFlush(k->q[i]));
    rc = 0;
out:
    return rc;
}

static int prof(struct gc_dev *e, cl_event ev, cl_profiling_info what, cl_ulong *t)
{
    cl_int clrc;
    int rc = GC_EBACKEND;

    GC_CL_CALL(e, gc__cl.clGetEventProfilingInfo(ev, what, sizeof(*t), t, NULL));
    rc = 0;
out:
    return rc;
}

/* Per copy its first start to its last end; the whole on one device's
 * clock where one device issues every copy, else the host's (two devices'
 * profiling clocks are not one time base). */
static int times(const struct gc_peer_copy *c, int n, struct call *k, struct gc_dev *e,
                 double host_span, struct gc_peer_times *out)
{
    cl_ulong s0 = 0, e1 = 0;
    bool one = true;

    for (int i = 0; i < n; i++) {
        cl_ulong s, t;
        cl_event last = k->last[i] ? k->last[i] : k->first[i];

        if (prof(e, k->first[i], CL_PROFILING_COMMAND_START, &s) ||
            prof(e, last, CL_PROFILING_COMMAND_END, &t))
            return GC_EBACKEND;
        out->each[i] = t > s ? 1e-9 * (double)(t - s) : 0;
        s0 = i == 0 || s < s0 ? s : s0;
        e1 = i == 0 || t > e1 ? t : e1;
        one = one && issuer(&c[i]) == issuer(&c[0]);
    }
    out->total_s = one ? 1e-9 * (double)(e1 - s0) : host_span;
    return 0;
}

static void release(int n, struct call *k)
{
    for (int i = 0; i < n; i++) {
        if (k->first[i])
            gc__cl.clReleaseEvent(k->first[i]);
        if (k->last[i])
            gc__cl.clReleaseEvent(k->last[i]);
        if (k->own_q[i] && k->q[i])
            gc__cl.clReleaseCommandQueue(k->q[i]);
    }
    if (k->gate)
        gc__cl.clReleaseEvent(k->gate);
}

int gc__cl_peer_copies(const struct gc_peer_copy *c, int n, int count, struct gc_peer_times *out)
{
    struct call k;
    struct gc_dev *e;
    double t0, t1 = 0, t_open = 0;
    cl_int clrc;
    int rc;

    if (!c || n < 1 || n > GC_PEER_MAX_COPIES || count < 1 || !out)
        return GC_EINVAL;
    e = issuer(&c[0]);
    memset(&k, 0, sizeof(k));
    memset(out, 0, sizeof(*out));
    t0 = mono_now();
    rc = setup(c, n, &k, e);
    if (rc == 0) {
        t0 = mono_now();
        rc = enqueue(c, n, count, &k, e);
    }
    if (rc == 0) {
        rc = GC_EBACKEND;
        t_open = mono_now();
        GC_CL_CALL(e, gc__cl.clSetUserEventStatus(k.gate, CL_COMPLETE));
        for (int i = 0; i < n; i++)
            GC_CL_CALL(e, gc__cl.clFinish(k.q[i]));
        t1 = mono_now();
        out->host_s = t1 - t0;
        rc = times(c, n, &k, e, t1 - t_open, out);
    }
out:
    if (rc && k.gate)
        /* Whatever waits behind the gate is let go before the queues are
         * released. */
        (void)gc__cl.clSetUserEventStatus(k.gate, CL_COMPLETE);
    release(n, &k);
    return rc;
}
