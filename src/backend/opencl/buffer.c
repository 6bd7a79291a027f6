/* The OpenCL backend's buffers: allocation (with large host pages on CPU
 * devices), reads, writes, copies and maps. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backend/opencl/loader.h"
#include "backend/opencl/opencl_int.h"

/* The error of a failed allocation: the device's memory (GC_EDEVMEM) or the
 * host's (GC_ENOMEM) where the native code says so, else rc. */
static int alloc_error(cl_int clrc, int rc)
{
    if (clrc == CL_MEM_OBJECT_ALLOCATION_FAILURE || clrc == CL_OUT_OF_RESOURCES ||
        clrc == CL_INVALID_BUFFER_SIZE)
        return GC_EDEVMEM;
    if (clrc == CL_OUT_OF_HOST_MEMORY)
        return GC_ENOMEM;
    return rc;
}

int gc__cl_alloc(struct gc_dev *d, size_t bytes, struct gc_buf **out)
{
    struct gc_buf *b = NULL;
    const unsigned char zero = 0;
    cl_int clrc = CL_SUCCESS;
    int rc = GC_EBACKEND;

    *out = NULL;
    if (bytes == 0) {
        gc__cl_set_error(d, "cannot allocate a buffer of 0 bytes");
        return GC_EINVAL;
    }
    if (bytes > d->max_alloc) {
        gc__cl_set_error(d,
                         "cannot allocate %zu bytes: the device's largest buffer "
                         "(CL_DEVICE_MAX_MEM_ALLOC_SIZE) is %zu bytes",
                         bytes, d->max_alloc);
        return GC_EDEVMEM;
    }
    b = calloc(1, sizeof(*b));
    if (!b) {
        gc__cl_set_error(d, "out of host memory allocating a buffer");
        return GC_ENOMEM;
    }
    b->dev = d;
    b->size = bytes;
    GC_CL_CREATE(d, b->mem, gc__cl.clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &clrc));
    /* Implementations may defer the allocation to the first use of the
     * buffer; one byte written now makes a shortage show here, as
     * GC_EDEVMEM, rather than later as a failed launch. */
    GC_CL_CALL(d,
               gc__cl.clEnqueueWriteBuffer(d->queue, b->mem, CL_TRUE, 0, 1, &zero, 0, NULL, NULL));
    *out = b;
    b = NULL;
    rc = 0;
out:
    if (b) {
        rc = alloc_error(clrc, rc);
        if (b->mem)
            gc__cl.clReleaseMemObject(b->mem);
        free(b);
    }
    return rc;
}

#if defined(__linux__) && defined(MADV_HUGEPAGE)
/* Bytes of [p, p + len) that the kernel backs with transparent huge pages:
 * the AnonHugePages of the mappings that overlap the range
 * (/proc/self/smaps), at most len. */
static size_t huge_bytes(const void *p, size_t len)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + len;
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    bool in = false;
    size_t kib = 0, total = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long a, b;
        char c;
        if (sscanf(line, "%lx-%lx %c", &a, &b, &c) == 3 && strchr(line, '-') < strchr(line, ' ')) {
            in = a < hi && b > lo;
            continue;
        }
        if (in && sscanf(line, "AnonHugePages: %zu kB", &kib) == 1)
            total += kib * 1024;
    }
    fclose(f);
    return total < len ? total : len;
}
#endif

int gc__cl_alloc_large_pages(struct gc_dev *d, size_t bytes, struct gc_buf **out,
                             size_t *large_bytes)
{
    *out = NULL;
    *large_bytes = 0;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t page = (size_t)2 << 20;
    struct gc_buf *b = NULL;
    cl_int clrc = CL_SUCCESS;
    int rc = GC_EBACKEND;
    size_t len;
    void *host;

    if (!d->cpu) {
        gc__cl_set_error(d, "the device does not run on host memory");
        return GC_ENOTSUP;
    }
    if (bytes == 0 || bytes > d->max_alloc)
        return gc__cl_alloc(d, bytes, out);
    len = (bytes + page - 1) / page * page;
    host = aligned_alloc(page, len);
    if (!host) {
        gc__cl_set_error(d, "out of host memory allocating %zu bytes", len);
        return GC_ENOMEM;
    }
    if (madvise(host, len, MADV_HUGEPAGE) != 0) {
        free(host);
        gc__cl_set_error(d,
                         "madvise(MADV_HUGEPAGE) failed: the host has no transparent huge pages");
        return GC_ENOTSUP;
    }
    /* Touched now, so that the pages are the huge ones and counted. */
    memset(host, 0, len);
    b = calloc(1, sizeof(*b));
    if (!b) {
        free(host);
        gc__cl_set_error(d, "out of host memory allocating a buffer");
        return GC_ENOMEM;
    }
    b->dev = d;
    b->size = bytes;
    b->host = host;
    GC_CL_CREATE(
        d, b->mem,
        gc__cl.clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &clrc));
    *large_bytes = huge_bytes(host, len);
    *out = b;
    b = NULL;
    rc = 0;
out:
    if (b) {
        rc = alloc_error(clrc, rc);
        free(b->host);
        free(b);
    }
    return rc;
#else
    (void)bytes;
    gc__cl_set_error(d, "no transparent huge pages on this host");
    return GC_ENOTSUP;
#endif
}

void gc__cl_free(struct gc_buf *b)
{
    if (!b || b->borrowed)
        return;
    gc__cl.clReleaseMemObject(b->mem);
    if (b->host) {
        /* The driver may use the host memory until the queue has drained. */
        gc__cl.clFinish(b->dev->queue);
        free(b->host);
    }
    free(b);
}

/* Checks that [offset, offset + bytes) lies inside the buffer. */
static int check_range(const struct gc_buf *b, size_t offset, size_t bytes, const char *what)
{
    if (offset > b->size || bytes > b->size - offset) {
        gc__cl_set_error(b->dev, "%s of %zu bytes at offset %zu exceeds the %zu-byte buffer", what,
                         bytes, offset, b->size);
        return GC_EINVAL;
    }
    return 0;
}

int gc__cl_write(struct gc_buf *b, size_t offset, const void *src, size_t bytes)
{
    struct gc_dev *d = b->dev;
    cl_int clrc;
    int rc = check_range(b, offset, bytes, "write");

    if (rc || bytes == 0)
        return rc;
    rc = GC_EBACKEND;
    GC_CL_CALL(d, gc__cl.clEnqueueWriteBuffer(d->queue, b->mem, CL_TRUE, offset, bytes, src, 0,
                                              NULL, NULL));
    rc = 0;
out:
    return rc;
}

int gc__cl_read(struct gc_buf *b, size_t offset, void *dst, size_t bytes)
{
    struct gc_dev *d = b->dev;
    cl_int clrc;
    int rc = check_range(b, offset, bytes, "read");

    if (rc || bytes == 0)
        return rc;
    rc = GC_EBACKEND;
    GC_CL_CALL(d, gc__cl.clEnqueueReadBuffer(d->queue, b->mem, CL_TRUE, offset, bytes, dst, 0, NULL,
                                             NULL));
    rc = 0;
out:
    return rc;
}

int gc__cl_copy(struct gc_buf *dst, size_t dst_off, struct gc_buf *src, size_t src_off,
                size_t bytes)
{
    struct gc_dev *d = dst->dev;
    cl_int clrc;
    int rc;

    if (src->dev != d) {
        gc__cl_set_error(d, "cannot copy between buffers of two different devices");
        return GC_EINVAL;
    }
    rc = check_range(dst, dst_off, bytes, "copy destination");
    if (!rc)
        rc = check_range(src, src_off, bytes, "copy source");
    if (rc || bytes == 0)
        return rc;
    rc = GC_EBACKEND;
    GC_CL_CALL(d, gc__cl.clEnqueueCopyBuffer(d->queue, src->mem, dst->mem, src_off, dst_off, bytes,
                                             0, NULL, NULL));
    GC_CL_CALL(d, gc__cl.clFinish(d->queue));
    rc = 0;
out:
    return rc;
}

int gc__cl_map(struct gc_buf *b, size_t offset, size_t bytes, void **host)
{
    struct gc_dev *d = b->dev;
    cl_int clrc;
    int rc = check_range(b, offset, bytes, "map");

    *host = NULL;
    if (rc)
        return rc;
    if (bytes == 0) {
        gc__cl_set_error(d, "cannot map 0 bytes");
        return GC_EINVAL;
    }
    rc = GC_EBACKEND;
    GC_CL_CREATE(d, *host,
                 gc__cl.clEnqueueMapBuffer(d->queue, b->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                           offset, bytes, 0, NULL, NULL, &clrc));
    rc = 0;
out:
    return rc;
}

/* Waits for the unmap, so that the data is on the device when it returns. */
int gc__cl_unmap(struct gc_buf *b, void *host)
{
    struct gc_dev *d = b->dev;
    cl_int clrc;
    int rc = GC_EBACKEND;

    GC_CL_CALL(d, gc__cl.clEnqueueUnmapMemObject(d->queue, b->mem, host, 0, NULL, NULL));
    GC_CL_CALL(d, gc__cl.clFinish(d->queue));
    rc = 0;
out:
    return rc;
}
