/* OpenCL launches timed from the host (enqueue cost, round trip) and by
 * event profiling: uCLbench's invocation overhead is QUEUED -> START of the
 * launch's event (§2.4), split here into QUEUED -> SUBMIT -> START -> END. */
#include <math.h>
#include <time.h>

#include "backend/opencl/loader.h"
#include "backend/opencl/opencl_int.h"

static double mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int prof(struct gc_dev *d, cl_event ev, cl_profiling_info what, cl_ulong *v)
{
    cl_int clrc;
    int rc = GC_EBACKEND;

    GC_CL_CALL(d, gc__cl.clGetEventProfilingInfo(ev, what, sizeof(*v), v, NULL));
    rc = 0;
out:
    return rc;
}

int gc__cl_launch_timed(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                        unsigned flags, struct gc_launch_times *out)
{
    cl_event first = NULL, last = NULL;
    size_t global[3], local[3];
    cl_ulong q = 0, sub = 0, st = 0, en = 0, en_last = 0;
    cl_uint dims = 1;
    cl_int clrc;
    int rc;

    out->t_begin = out->t_enqueued = out->t_done = out->device_s = NAN;
    out->queued_to_submit_s = out->submit_to_start_s = out->start_to_end_s = NAN;
    rc = gc__cl_launch_shape(d, k, l, global, local, &dims);
    if (rc)
        return rc;
    rc = gc__cl_set_args(d, k, l);
    if (rc)
        return rc;
    rc = GC_ELAUNCH;
    /* The queue profiles every command; the events of the first and last
     * launch are kept (the others are not asked for). */
    out->t_begin = mono_now();
    for (int i = 0; i < l->count; i++) {
        cl_event *ev = i == 0 ? &first : i == l->count - 1 ? &last : NULL;

        GC_CL_CALL(d, gc__cl.clEnqueueNDRangeKernel(d->queue, k->kernel, dims, NULL, global, local,
                                                    0, NULL, ev));
    }
    out->t_enqueued = mono_now();
    if (flags & GC_LT_NOWAIT) {
        GC_CL_CALL(d, gc__cl.clFlush(d->queue));
        rc = 0;
        goto out;
    }
    GC_CL_CALL(d, gc__cl.clFinish(d->queue));
    out->t_done = mono_now();
    if (!last)
        last = first;
    GC_CL_CALL(d, gc__cl.clWaitForEvents(1, &last));
    if (prof(d, first, CL_PROFILING_COMMAND_QUEUED, &q) ||
        prof(d, first, CL_PROFILING_COMMAND_SUBMIT, &sub) ||
        prof(d, first, CL_PROFILING_COMMAND_START, &st) ||
        prof(d, first, CL_PROFILING_COMMAND_END, &en) ||
        prof(d, last, CL_PROFILING_COMMAND_END, &en_last))
        goto out;
    /* Timestamps an implementation fills coarsely may be equal or, for
     * QUEUED and SUBMIT, out of order; a negative span is reported as 0. */
    out->queued_to_submit_s = sub > q ? (double)(sub - q) * 1e-9 : 0.0;
    out->submit_to_start_s = st > sub ? (double)(st - sub) * 1e-9 : 0.0;
    out->start_to_end_s = en > st ? (double)(en - st) * 1e-9 : 0.0;
    if (flags & GC_LT_EVENTS)
        out->device_s = en_last > st ? (double)(en_last - st) * 1e-9 : 0.0;
    rc = 0;
out:
    if (rc)
        gc__cl.clFinish(d->queue);
    if (last && last != first)
        gc__cl.clReleaseEvent(last);
    if (first)
        gc__cl.clReleaseEvent(first);
    return rc;
}

int gc__cl_sync(struct gc_dev *d)
{
    cl_int clrc;
    int rc = GC_ELAUNCH;

    GC_CL_CALL(d, gc__cl.clFinish(d->queue));
    if (d->queue2)
        GC_CL_CALL(d, gc__cl.clFinish(d->queue2));
    rc = 0;
out:
    return rc;
}
