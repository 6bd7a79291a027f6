/* CUDA host memory (pageable, pinned, write-combined, mapped), copies between
 * host and device timed with events, and what bounds them: free device memory
 * and the PCIe link as NVML reports it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "backend/cuda/cuda_int.h"
#include "backend/cuda/loader.h"

/* Host memory: the public part first, so that the pointers convert. */
struct cu_hostmem {
    struct gc_hostmem h;
    struct gc_dev *dev;
    struct gc_buf view;
};

static const char *kind_name(enum gc_host_kind k)
{
    switch (k) {
    case GC_HOST_PAGEABLE:
        return "pageable";
    case GC_HOST_PINNED:
        return "pinned";
    case GC_HOST_WRITE_COMBINED:
        return "write-combined";
    case GC_HOST_MAPPED:
        return "mapped";
    }
    return "unknown";
}

/* The locked-memory limit, for the message of a refused pinned allocation. */
static void memlock_limit(char *buf, size_t len)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0)
        snprintf(buf, len, "unknown");
    else if (rl.rlim_cur == RLIM_INFINITY)
        snprintf(buf, len, "unlimited");
    else
        snprintf(buf, len, "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
}

int gc__cu_host_alloc(struct gc_dev *d, size_t bytes, enum gc_host_kind kind,
                      struct gc_hostmem **out)
{
    struct cu_hostmem *m = NULL;
    unsigned flags = CU_MEMHOSTALLOC_PORTABLE;
    int rc = 0, can_map = 0;
    CUresult res;

    *out = NULL;
    if (bytes == 0) {
        gc__cu_set_error(d, "cannot allocate 0 bytes of host memory");
        return GC_EINVAL;
    }
    m = calloc(1, sizeof(*m));
    if (!m) {
        gc__cu_set_error(d, "out of host memory");
        return GC_ENOMEM;
    }
    m->dev = d;
    m->h.bytes = bytes;
    m->h.kind = kind;
    if (kind == GC_HOST_PAGEABLE) {
        /* Page-aligned like the others, so that only the kind differs. */
        if (posix_memalign(&m->h.ptr, 4096, bytes) != 0) {
            gc__cu_set_error(d, "out of host memory allocating %zu bytes of pageable memory",
                             bytes);
            free(m);
            return GC_ENOMEM;
        }
        *out = &m->h;
        return 0;
    }
    if (kind == GC_HOST_WRITE_COMBINED)
        flags |= CU_MEMHOSTALLOC_WRITECOMBINED;
    if (kind == GC_HOST_MAPPED) {
        if (gc__cu.cuDeviceGetAttribute(&can_map, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, d->cu) !=
                CUDA_SUCCESS ||
            !can_map) {
            gc__cu_set_error(d, "the device cannot map host memory "
                                "(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY is 0)");
            free(m);
            return GC_ENOTSUP;
        }
        flags |= CU_MEMHOSTALLOC_DEVICEMAP;
    }
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    res = gc__cu.cuMemHostAlloc(&m->h.ptr, bytes, flags);
    if (res != CUDA_SUCCESS) {
        char lim[64];

        memlock_limit(lim, sizeof(lim));
        gc__cu_fail(d, res, "cuMemHostAlloc", __func__, __LINE__);
        gc__cu_append_error(d,
                            "; %zu bytes of %s host memory refused (locked-memory limit "
                            "RLIMIT_MEMLOCK: %s)",
                            bytes, kind_name(kind), lim);
        m->h.ptr = NULL;
        rc = GC_ENOMEM;
        goto out;
    }
    if (kind == GC_HOST_MAPPED) {
        m->view.dev = d;
        m->view.size = bytes;
        m->view.borrowed = true;
        GC_CU_CALL(d, gc__cu.cuMemHostGetDevicePointer(&m->view.ptr, m->h.ptr, 0));
        m->h.view = &m->view;
    }
    *out = &m->h;
    m = NULL;
out:
    if (m) {
        if (m->h.ptr)
            gc__cu.cuMemFreeHost(m->h.ptr);
        free(m);
    }
    return rc;
}

void gc__cu_host_free(struct gc_hostmem *h)
{
    struct cu_hostmem *m = (struct cu_hostmem *)h;

    if (!m)
        return;
    if (m->h.kind == GC_HOST_PAGEABLE) {
        free(m->h.ptr);
    } else if (m->h.ptr) {
        gc__cu.cuCtxSetCurrent(m->dev->ctx);
        gc__cu.cuMemFreeHost(m->h.ptr);
    }
    free(m);
}

/* The second stream and its end event, made once per device. */
static int ensure_stream2(struct gc_dev *d)
{
    int rc = 0;

    if (d->stream2 && d->ev_end2)
        return 0;
    if (!d->stream2)
        GC_CU_CALL(d, gc__cu.cuStreamCreate(&d->stream2, CU_STREAM_NON_BLOCKING));
    if (!d->ev_end2)
        GC_CU_CALL(d, gc__cu.cuEventCreate(&d->ev_end2, CU_EVENT_DEFAULT));
out:
    return rc;
}

void gc__cu_overhead_release(struct gc_dev *d)
{
    if (d->ev_end2)
        gc__cu.cuEventDestroy(d->ev_end2);
    if (d->stream2)
        gc__cu.cuStreamDestroy(d->stream2);
    d->ev_end2 = NULL;
    d->stream2 = NULL;
}

static bool in_range(const struct gc_buf *b, size_t off, size_t bytes)
{
    return b && off <= b->size && bytes <= b->size - off;
}

/* One copy of x on the stream(s). */
static int issue(struct gc_dev *d, const struct gc_xfer *x)
{
    int rc = 0;

    size_t h = x->streams == 2 ? x->bytes / 2 : x->bytes;

    switch (x->dir) {
    case GC_XFER_H2D:
        GC_CU_CALL(d, gc__cu.cuMemcpyHtoDAsync(x->buf->ptr + x->buf_off, x->host, h, d->stream));
        if (h < x->bytes)
            GC_CU_CALL(d, gc__cu.cuMemcpyHtoDAsync(x->buf->ptr + x->buf_off + h,
                                                   (const char *)x->host + h, x->bytes - h,
                                                   d->stream2));
        break;
    case GC_XFER_D2H:
        GC_CU_CALL(d, gc__cu.cuMemcpyDtoHAsync(x->host, x->buf->ptr + x->buf_off, h, d->stream));
        if (h < x->bytes)
            GC_CU_CALL(d,
                       gc__cu.cuMemcpyDtoHAsync((char *)x->host + h, x->buf->ptr + x->buf_off + h,
                                                x->bytes - h, d->stream2));
        break;
    case GC_XFER_D2D:
        GC_CU_CALL(d, gc__cu.cuMemcpyDtoDAsync(x->buf->ptr + x->buf_off, x->buf2->ptr + x->buf2_off,
                                               x->bytes, d->stream));
        break;
    case GC_XFER_BIDIR:
        GC_CU_CALL(
            d, gc__cu.cuMemcpyHtoDAsync(x->buf->ptr + x->buf_off, x->host, x->bytes, d->stream));
        GC_CU_CALL(d, gc__cu.cuMemcpyDtoHAsync(x->host2, x->buf2->ptr + x->buf2_off, x->bytes,
                                               d->stream2));
        break;
    }
out:
    return rc;
}

int gc__cu_transfer(struct gc_dev *d, const struct gc_xfer *x, double *elapsed_s)
{
    bool bidir = x && (x->dir == GC_XFER_BIDIR ||
                       (x->streams == 2 && (x->dir == GC_XFER_H2D || x->dir == GC_XFER_D2H))),
         two = false;
    float ms = 0, ms2 = 0;
    int rc = 0;

    *elapsed_s = 0;
    if (!x || x->count < 1 || x->bytes == 0 || !in_range(x->buf, x->buf_off, x->bytes) ||
        ((x->dir == GC_XFER_D2D || x->dir == GC_XFER_BIDIR) &&
         !in_range(x->buf2, x->buf2_off, x->bytes)) ||
        (x->dir != GC_XFER_D2D && !x->host) || (x->dir == GC_XFER_BIDIR && !x->host2)) {
        gc__cu_set_error(d, "invalid transfer: a buffer range or host pointer is missing or "
                            "outside its buffer");
        return GC_EINVAL;
    }
    if (x->method != GC_XFER_COPY) {
        gc__cu_set_error(d, "CUDA cannot map device memory into the host's address space; "
                            "mapped host memory is read by kernels instead");
        return GC_ENOTSUP;
    }
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    if (bidir) {
        rc = ensure_stream2(d);
        if (rc)
            goto out;
    }
    GC_CU_CALL(d, gc__cu.cuEventRecord(d->ev_start, d->stream));
    if (bidir) {
        /* The second stream starts with the first: both streams' copies are
         * in flight together, measured from the one start event. */
        GC_CU_CALL(d, gc__cu.cuStreamWaitEvent(d->stream2, d->ev_start, 0));
        two = true;
    }
    for (int i = 0; i < x->count; i++) {
        rc = issue(d, x);
        if (rc)
            goto out;
    }
    GC_CU_CALL(d, gc__cu.cuEventRecord(d->ev_end, d->stream));
    if (bidir)
        GC_CU_CALL(d, gc__cu.cuEventRecord(d->ev_end2, d->stream2));
    GC_CU_CALL(d, gc__cu.cuEventSynchronize(d->ev_end));
    GC_CU_CALL(d, gc__cu.cuEventElapsedTime(&ms, d->ev_start, d->ev_end));
    if (bidir) {
        GC_CU_CALL(d, gc__cu.cuEventSynchronize(d->ev_end2));
        GC_CU_CALL(d, gc__cu.cuEventElapsedTime(&ms2, d->ev_start, d->ev_end2));
        ms = ms2 > ms ? ms2 : ms;
    }
    *elapsed_s = ms * 1e-3;
out:
    if (rc) {
        /* Nothing of a failed transfer may still run when the caller frees
         * its buffers. */
        gc__cu.cuStreamSynchronize(d->stream);
        if (two)
            gc__cu.cuStreamSynchronize(d->stream2);
    }
    return rc;
}

int gc__cu_mem_info(struct gc_dev *d, size_t *free_bytes, size_t *total_bytes)
{
    int rc = 0;

    *free_bytes = *total_bytes = 0;
    GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
    GC_CU_CALL(d, gc__cu.cuMemGetInfo(free_bytes, total_bytes));
out:
    return rc;
}

int gc__cu_link_info(struct gc_dev *d, struct gc_link_info *out)
{
    unsigned v;

    memset(out, 0, sizeof(*out));
    if (!d->nvml || !gc__nvml.nvmlDeviceGetMaxPcieLinkGeneration ||
        !gc__nvml.nvmlDeviceGetMaxPcieLinkWidth) {
        gc__cu_set_error(d, "NVML does not report this device's PCIe link: %s",
                         d->nvml ? "the driver lacks the PCIe queries" : d->nvml_why);
        return GC_ENOTSUP;
    }
    if (gc__nvml.nvmlDeviceGetMaxPcieLinkGeneration(d->nvml, &v) == NVML_SUCCESS)
        out->gen_max = (int)v;
    if (gc__nvml.nvmlDeviceGetMaxPcieLinkWidth(d->nvml, &v) == NVML_SUCCESS)
        out->width_max = (int)v;
    if (gc__nvml.nvmlDeviceGetCurrPcieLinkGeneration &&
        gc__nvml.nvmlDeviceGetCurrPcieLinkGeneration(d->nvml, &v) == NVML_SUCCESS)
        out->gen_cur = (int)v;
    if (gc__nvml.nvmlDeviceGetCurrPcieLinkWidth &&
        gc__nvml.nvmlDeviceGetCurrPcieLinkWidth(d->nvml, &v) == NVML_SUCCESS)
        out->width_cur = (int)v;
    if (out->gen_max == 0 && out->gen_cur == 0) {
        gc__cu_set_error(d, "NVML reports no PCIe link for this device (not on PCIe?)");
        return GC_ENOTSUP;
    }
    snprintf(out->kind, sizeof(out->kind), "PCIe");
    snprintf(out->source, sizeof(out->source), "NVML");
    return 0;
}
