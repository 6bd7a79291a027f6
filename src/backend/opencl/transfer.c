/* OpenCL host memory (pageable; pinned as a mapped CL_MEM_ALLOC_HOST_PTR
 * buffer, the way NVIDIA's OpenCL gives page-locked memory; zero-copy on
 * devices that share the host's memory) and copies timed with event
 * profiling, or, for uCLbench's second option, map + memcpy + unmap timed on
 * the host. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/opencl/loader.h"
#include "backend/opencl/opencl_int.h"

/* Host memory: the public part first, so that the pointers convert. */
struct cl_hostmem {
    struct gc_hostmem h;
    struct gc_dev *dev;
    cl_mem mem; /* the buffer the memory belongs to (pinned, mapped); NULL pageable */
    struct gc_buf view;
};

static double mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int gc__cl_host_alloc(struct gc_dev *d, size_t bytes, enum gc_host_kind kind,
                      struct gc_hostmem **out)
{
    struct cl_hostmem *m = NULL;
    cl_bool unified = CL_FALSE;
    cl_int clrc = CL_SUCCESS;
    int rc = GC_EBACKEND;

    *out = NULL;
    if (bytes == 0) {
        gc__cl_set_error(d, "cannot allocate 0 bytes of host memory");
        return GC_EINVAL;
    }
    if (kind == GC_HOST_WRITE_COMBINED) {
        gc__cl_set_error(d, "OpenCL has no write-combined host memory");
        return GC_ENOTSUP;
    }
    if (kind == GC_HOST_MAPPED) {
        /* A kernel can read host memory in place only where device and host
         * share it; elsewhere the runtime would copy behind the scenes. */
        if (gc__cl.clGetDeviceInfo(d->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified),
                                   &unified, NULL) != CL_SUCCESS ||
            !unified) {
            gc__cl_set_error(d, "the device does not share the host's memory "
                                "(CL_DEVICE_HOST_UNIFIED_MEMORY is false): kernels cannot "
                                "read host memory in place");
            return GC_ENOTSUP;
        }
    }
    if (kind != GC_HOST_PAGEABLE && bytes > d->max_alloc) {
        gc__cl_set_error(d,
                         "%zu bytes of pinned host memory exceed the device's largest buffer "
                         "(CL_DEVICE_MAX_MEM_ALLOC_SIZE %zu)",
                         bytes, d->max_alloc);
        return GC_ENOMEM;
    }
    m = calloc(1, sizeof(*m));
    if (!m) {
        gc__cl_set_error(d, "out of host memory");
        return GC_ENOMEM;
    }
    m->dev = d;
    m->h.bytes = bytes;
    m->h.kind = kind;
    if (kind == GC_HOST_PAGEABLE) {
        if (posix_memalign(&m->h.ptr, 4096, bytes) != 0) {
            free(m);
            gc__cl_set_error(d, "out of host memory allocating %zu bytes", bytes);
            return GC_ENOMEM;
        }
        *out = &m->h;
        return 0;
    }
    GC_CL_CREATE(d, m->mem,
                 gc__cl.clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
                                       NULL, &clrc));
    /* Mapped once for the allocation's whole life: the pointer is the
     * page-locked host memory the runtime copies from and to directly. */
    GC_CL_CREATE(d, m->h.ptr,
                 gc__cl.clEnqueueMapBuffer(d->queue, m->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                           bytes, 0, NULL, NULL, &clrc));
    if (kind == GC_HOST_MAPPED) {
        m->view.dev = d;
        m->view.mem = m->mem;
        m->view.size = bytes;
        m->view.borrowed = true;
        m->h.view = &m->view;
    }
    *out = &m->h;
    m = NULL;
    rc = 0;
out:
    if (m) {
        if (clrc == CL_MEM_OBJECT_ALLOCATION_FAILURE || clrc == CL_OUT_OF_RESOURCES ||
            clrc == CL_OUT_OF_HOST_MEMORY || clrc == CL_INVALID_BUFFER_SIZE)
            rc = GC_ENOMEM;
        if (m->mem)
            gc__cl.clReleaseMemObject(m->mem);
        free(m);
    }
    return rc;
}

void gc__cl_host_free(struct gc_hostmem *h)
{
    struct cl_hostmem *m = (struct cl_hostmem *)h;

    if (!m)
        return;
    if (m->mem) {
        gc__cl.clEnqueueUnmapMemObject(m->dev->queue, m->mem, m->h.ptr, 0, NULL, NULL);
        gc__cl.clFinish(m->dev->queue);
        gc__cl.clReleaseMemObject(m->mem);
    } else {
        free(m->h.ptr);
    }
    free(m);
}

void gc__cl_overhead_release(struct gc_dev *d)
{
    if (d->queue2)
        gc__cl.clReleaseCommandQueue(d->queue2);
    d->queue2 = NULL;
}

static bool in_range(const struct gc_buf *b, size_t off, size_t bytes)
{
    return b && off <= b->size && bytes <= b->size - off;
}

/* START of ev0 and END of ev1 in device nanoseconds. */
static int span(struct gc_dev *d, cl_event ev0, cl_event ev1, cl_ulong *start, cl_ulong *end)
{
    cl_int clrc;
    int rc = GC_EBACKEND;

    GC_CL_CALL(d, gc__cl.clWaitForEvents(1, &ev1));
    GC_CL_CALL(d, gc__cl.clGetEventProfilingInfo(ev0, CL_PROFILING_COMMAND_START, sizeof(*start),
                                                 start, NULL));
    GC_CL_CALL(
        d, gc__cl.clGetEventProfilingInfo(ev1, CL_PROFILING_COMMAND_END, sizeof(*end), end, NULL));
    rc = 0;
out:
    return rc;
}

/* uCLbench's second option: the device buffer mapped into host memory and
 * the data copied there by the host, count times; host wall time. */
static int transfer_map(struct gc_dev *d, const struct gc_xfer *x, double *elapsed_s)
{
    cl_map_flags how = x->dir == GC_XFER_H2D ? CL_MAP_WRITE_INVALIDATE_REGION : CL_MAP_READ;
    cl_int clrc;
    int rc = GC_EBACKEND;
    void *p = NULL;
    double t0;

    if (x->dir != GC_XFER_H2D && x->dir != GC_XFER_D2H) {
        gc__cl_set_error(d, "map/unmap moves data one way between host and device only");
        return GC_ENOTSUP;
    }
    GC_CL_CALL(d, gc__cl.clFinish(d->queue));
    t0 = mono_now();
    for (int i = 0; i < x->count; i++) {
        GC_CL_CREATE(d, p,
                     gc__cl.clEnqueueMapBuffer(d->queue, x->buf->mem, CL_TRUE, how, x->buf_off,
                                               x->bytes, 0, NULL, NULL, &clrc));
        if (x->dir == GC_XFER_H2D)
            memcpy(p, x->host, x->bytes);
        else
            memcpy(x->host, p, x->bytes);
        GC_CL_CALL(d, gc__cl.clEnqueueUnmapMemObject(d->queue, x->buf->mem, p, 0, NULL, NULL));
        p = NULL;
    }
    GC_CL_CALL(d, gc__cl.clFinish(d->queue));
    *elapsed_s = mono_now() - t0;
    rc = 0;
out:
    if (p) {
        gc__cl.clEnqueueUnmapMemObject(d->queue, x->buf->mem, p, 0, NULL, NULL);
        gc__cl.clFinish(d->queue);
    }
    return rc;
}

/* Enqueues copy i of x on q (q2: the second queue of BIDIR), keeping the
 * first and last events of each queue. */
static int enqueue_one(struct gc_dev *d, const struct gc_xfer *x, int i, cl_event ev[4])
{
    cl_event *e1 = i == 0 ? &ev[0] : i == x->count - 1 ? &ev[1] : NULL;
    cl_event *e2 = i == 0 ? &ev[2] : i == x->count - 1 ? &ev[3] : NULL;
    size_t h = x->streams == 2 ? x->bytes / 2 : x->bytes;
    cl_int clrc;
    int rc = GC_EBACKEND;

    switch (x->dir) {
    case GC_XFER_H2D:
        GC_CL_CALL(d, gc__cl.clEnqueueWriteBuffer(d->queue, x->buf->mem, CL_FALSE, x->buf_off, h,
                                                  x->host, 0, NULL, e1));
        if (h < x->bytes)
            GC_CL_CALL(d, gc__cl.clEnqueueWriteBuffer(d->queue2, x->buf->mem, CL_FALSE,
                                                      x->buf_off + h, x->bytes - h,
                                                      (const char *)x->host + h, 0, NULL, e2));
        break;
    case GC_XFER_D2H:
        GC_CL_CALL(d, gc__cl.clEnqueueReadBuffer(d->queue, x->buf->mem, CL_FALSE, x->buf_off, h,
                                                 x->host, 0, NULL, e1));
        if (h < x->bytes)
            GC_CL_CALL(d,
                       gc__cl.clEnqueueReadBuffer(d->queue2, x->buf->mem, CL_FALSE, x->buf_off + h,
                                                  x->bytes - h, (char *)x->host + h, 0, NULL, e2));
        break;
    case GC_XFER_D2D:
        GC_CL_CALL(d, gc__cl.clEnqueueCopyBuffer(d->queue, x->buf2->mem, x->buf->mem, x->buf2_off,
                                                 x->buf_off, x->bytes, 0, NULL, e1));
        break;
    case GC_XFER_BIDIR:
        GC_CL_CALL(d, gc__cl.clEnqueueWriteBuffer(d->queue, x->buf->mem, CL_FALSE, x->buf_off,
                                                  x->bytes, x->host, 0, NULL, e1));
        GC_CL_CALL(d, gc__cl.clEnqueueReadBuffer(d->queue2, x->buf2->mem, CL_FALSE, x->buf2_off,
                                                 x->bytes, x->host2, 0, NULL, e2));
        break;
    }
    rc = 0;
out:
    return rc;
}

int gc__cl_transfer(struct gc_dev *d, const struct gc_xfer *x, double *elapsed_s)
{
    bool bidir = x && (x->dir == GC_XFER_BIDIR ||
                       (x->streams == 2 && (x->dir == GC_XFER_H2D || x->dir == GC_XFER_D2H)));
    cl_event ev[4] = {NULL, NULL, NULL, NULL};
    cl_ulong s1 = 0, e1 = 0, s2 = 0, e2 = 0;
    cl_int clrc;
    int rc = GC_EBACKEND;

    *elapsed_s = 0;
    if (!x || x->count < 1 || x->bytes == 0 || !in_range(x->buf, x->buf_off, x->bytes) ||
        ((x->dir == GC_XFER_D2D || x->dir == GC_XFER_BIDIR) &&
         !in_range(x->buf2, x->buf2_off, x->bytes)) ||
        (x->dir != GC_XFER_D2D && !x->host) || (x->dir == GC_XFER_BIDIR && !x->host2)) {
        gc__cl_set_error(d, "invalid transfer: a buffer range or host pointer is missing or "
                            "outside its buffer");
        return GC_EINVAL;
    }
    if (x->method == GC_XFER_MAP)
        return transfer_map(d, x, elapsed_s);
    if (bidir && !d->queue2)
        GC_CL_CREATE(
            d, d->queue2,
            gc__cl.clCreateCommandQueue(d->ctx, d->device, CL_QUEUE_PROFILING_ENABLE, &clrc));
    for (int i = 0; i < x->count; i++) {
        rc = enqueue_one(d, x, i, ev);
        if (rc)
            goto out;
        rc = GC_EBACKEND;
    }
    /* Both queues go to the device before either is waited for. */
    GC_CL_CALL(d, gc__cl.clFlush(d->queue));
    if (bidir)
        GC_CL_CALL(d, gc__cl.clFlush(d->queue2));
    GC_CL_CALL(d, gc__cl.clFinish(d->queue));
    if (bidir)
        GC_CL_CALL(d, gc__cl.clFinish(d->queue2));
    rc = span(d, ev[0], ev[1] ? ev[1] : ev[0], &s1, &e1);
    if (rc == 0 && bidir) {
        rc = span(d, ev[2], ev[3] ? ev[3] : ev[2], &s2, &e2);
        s1 = s2 < s1 ? s2 : s1;
        e1 = e2 > e1 ? e2 : e1;
    }
    if (rc)
        goto out;
    *elapsed_s = e1 > s1 ? (double)(e1 - s1) * 1e-9 : 0.0;
out:
    if (rc) {
        gc__cl.clFinish(d->queue);
        if (d->queue2)
            gc__cl.clFinish(d->queue2);
    }
    for (int i = 0; i < 4; i++)
        if (ev[i])
            gc__cl.clReleaseEvent(ev[i]);
    return rc;
}
