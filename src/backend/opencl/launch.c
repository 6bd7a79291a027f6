/* OpenCL launches: arguments and NDRange, one batch timed by its events, and
 * launches timed from the host (enqueue cost, round trip) and by event
 * profiling: uCLbench's invocation overhead is QUEUED -> START of the
 * launch's event (§2.4), split here into QUEUED -> SUBMIT -> START -> END. */
#include <math.h>
#include <time.h>

#include "backend/opencl/loader.h"
#include "backend/opencl/opencl_int.h"

/* Bytes of a launch argument of the type; 0 for an unknown type. */
static size_t arg_size(enum gc_arg_type t)
{
    switch (t) {
    case GC_ARG_BUF:
        return sizeof(cl_mem);
    case GC_ARG_I32:
    case GC_ARG_U32:
    case GC_ARG_F32:
        return 4;
    case GC_ARG_I64:
    case GC_ARG_U64:
    case GC_ARG_F64:
        return 8;
    default:
        return 0;
    }
}

/* Sets the launch's arguments. The dynamic local memory is the kernel's last
 * parameter (GC_DYN_SHARED_PARAM of the kernel vocabulary). A kernel that
 * declares it gets a 16-byte placeholder when the launch asks for none,
 * since OpenCL rejects a __local argument of size 0. */
static int set_args(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l)
{
    cl_int clrc;
    int rc = GC_EINVAL;
    size_t dyn = l->dyn_shared;

    if (l->nargs < 0 || (l->nargs > 0 && !l->args)) {
        gc__cl_set_error(d, "launch of %s: invalid argument list (nargs %d)", k->name, l->nargs);
        goto out;
    }
    if (dyn == 0 && k->nargs == (cl_uint)l->nargs + 1)
        dyn = 16;
    if (k->nargs != (cl_uint)l->nargs + (dyn > 0)) {
        gc__cl_set_error(d, "launch of %s: the kernel takes %u arguments, the launch gives %d%s",
                         k->name, (unsigned)k->nargs, l->nargs,
                         dyn > 0 ? " plus the dynamic __local one" : "");
        goto out;
    }
    /* Some implementations (PoCL) accept any __local size; checked here so
     * that every device refuses an oversized request the same way. */
    if (dyn > d->local_mem || k->static_local > d->local_mem - dyn) {
        gc__cl_set_error(
            d,
            "launch of %s: %zu bytes of static and %zu of dynamic __local memory exceed "
            "the device's %zu (CL_DEVICE_LOCAL_MEM_SIZE)",
            k->name, k->static_local, dyn, d->local_mem);
        rc = GC_ELAUNCH;
        goto out;
    }
    rc = GC_ELAUNCH;
    for (int i = 0; i < l->nargs; i++) {
        const struct gc_arg *a = &l->args[i];
        cl_mem mem = a->type == GC_ARG_BUF && a->v.buf ? a->v.buf->mem : NULL;
        /* Every scalar member of the union starts at its beginning. */
        const void *v = a->type == GC_ARG_BUF ? (const void *)&mem : (const void *)&a->v;
        size_t n = arg_size(a->type);

        if (n == 0) {
            gc__cl_set_error(d, "launch of %s: argument %d has unknown type %d", k->name, i,
                             (int)a->type);
            rc = GC_EINVAL;
            goto out;
        }
        GC_CL_CALL(d, gc__cl.clSetKernelArg(k->kernel, (cl_uint)i, n, v));
    }
    if (dyn > 0)
        GC_CL_CALL(d, gc__cl.clSetKernelArg(k->kernel, (cl_uint)l->nargs, dyn, NULL));
    rc = 0;
out:
    return rc;
}

/* The NDRange of a launch: global and local sizes per dimension and the work
 * dimension (the highest one in use). */
struct nd {
    size_t global[3], local[3];
    cl_uint dims;
};

/* Checks a launch's count and shape, gives its NDRange and sets its
 * arguments. GC_EINVAL with the device's error set on a count under 1 or a 0
 * extent. */
static int prepare(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l, struct nd *nd)
{
    if (l->count < 1) {
        gc__cl_set_error(d, "launch of %s: count %d must be at least 1", k->name, l->count);
        return GC_EINVAL;
    }
    nd->dims = 1;
    for (int i = 0; i < 3; i++) {
        if (l->grid[i] == 0 || l->block[i] == 0) {
            gc__cl_set_error(d, "launch of %s: grid %ux%ux%u and block %ux%ux%u must have no 0",
                             k->name, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                             l->block[2]);
            return GC_EINVAL;
        }
        nd->global[i] = (size_t)l->grid[i] * l->block[i];
        nd->local[i] = l->block[i];
        /* The work dimension is the highest one in use, so that kernels see
         * get_work_dim() as the caller meant it. */
        if (i > 0 && (l->grid[i] != 1 || l->block[i] != 1))
            nd->dims = (cl_uint)i + 1;
    }
    return set_args(d, k, l);
}

/* Enqueues the launch's count launches back to back, keeping the events of
 * the first and the last (the queue profiles every command; the others are
 * not asked for). */
static int enqueue(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                   const struct nd *nd, cl_event *first, cl_event *last)
{
    cl_int clrc;
    int rc = GC_ELAUNCH;

    for (int i = 0; i < l->count; i++) {
        cl_event *ev = i == 0 ? first : i == l->count - 1 ? last : NULL;

        GC_CL_CALL(d, gc__cl.clEnqueueNDRangeKernel(d->queue, k->kernel, nd->dims, NULL, nd->global,
                                                    nd->local, 0, NULL, ev));
    }
    rc = 0;
out:
    return rc;
}

int gc__cl_launch(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l, double *elapsed_s)
{
    cl_event first = NULL, last = NULL;
    struct nd nd;
    cl_ulong start = 0, end = 0;
    cl_int clrc;
    int rc;

    *elapsed_s = 0;
    rc = prepare(d, k, l, &nd);
    if (rc)
        return rc;
    rc = enqueue(d, k, l, &nd, &first, &last);
    if (rc)
        goto out;
    rc = GC_ELAUNCH;
    GC_CL_CALL(d, gc__cl.clFinish(d->queue));
    if (!last)
        last = first;
    /* clFinish does not report a command that failed while executing; the
     * wait on its event does. */
    GC_CL_CALL(d, gc__cl.clWaitForEvents(1, &last));
    GC_CL_CALL(d, gc__cl.clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof(start),
                                                 &start, NULL));
    GC_CL_CALL(
        d, gc__cl.clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL));
    *elapsed_s = end > start ? (double)(end - start) * 1e-9 : 0.0;
    rc = 0;
out:
    if (last && last != first)
        gc__cl.clReleaseEvent(last);
    if (first)
        gc__cl.clReleaseEvent(first);
    return rc;
}

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
    struct nd nd;
    cl_ulong q = 0, sub = 0, st = 0, en = 0, en_last = 0;
    cl_int clrc;
    int rc;

    out->t_begin = out->t_enqueued = out->t_done = out->device_s = NAN;
    out->queued_to_submit_s = out->submit_to_start_s = out->start_to_end_s = NAN;
    rc = prepare(d, k, l, &nd);
    if (rc)
        return rc;
    out->t_begin = mono_now();
    rc = enqueue(d, k, l, &nd, &first, &last);
    if (rc)
        goto out;
    rc = GC_ELAUNCH;
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
