/* Open devices and the checked wrappers every caller uses to reach a backend:
 * they copy the backend's message into the device's error buffer and apply
 * the fault injection that the tests use (GPUCHAR_FAULT). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/device.h"
#include "core/fault.h"
#include "core/sensors.h"
#include "util/random.h"

/* GPUCHAR_FAULT (core/fault.h) sets the faults; a setting that does not
 * parse fails the open, so a test never runs without the fault it asked
 * for. */
static int parse_faults(struct gc_device *d, char *err, size_t errlen)
{
    struct gc_faults f;
    const char *only = getenv("GPUCHAR_FAULT_DEVICE");
    /* GPUCHAR_FAULT_DEVICE limits the faults to one device of a node run. */
    bool here = !only || !*only || strcmp(only, d->spec) == 0;
    int rc = gc__faults_parse(here ? getenv("GPUCHAR_FAULT") : NULL, &f, err, errlen);

    d->fault_alloc_at = f.alloc_at;
    d->fault_launch_at = f.launch_at;
    d->fault_lost_at = f.lost_at;
    d->fault_crash_at = f.crash_at;
    d->fault_hang_at = f.hang_at;
    d->fault_compile = f.compile;
    d->fault_worker_at = f.worker_at;
    snprintf(d->fault_scale_metric, sizeof(d->fault_scale_metric), "%s", f.scale_metric);
    d->fault_scale = f.scale_factor;
    return rc;
}

/* A device's record before its backend opens it: spec, faults, facts. */
static int device_new(const struct gc_backend_ops *ops, int index, struct gc_device **out,
                      char *err, size_t errlen)
{
    struct gc_device *d = calloc(1, sizeof(*d));
    int rc;

    *out = NULL;
    if (!d)
        return GC_ENOMEM;
    d->ops = ops;
    d->index = index;
    snprintf(d->spec, sizeof(d->spec), "%s:%d", ops->name, index);
    rc = parse_faults(d, err, errlen);
    if (rc == 0 && (rc = ops->device_info(index, &d->info)) != 0)
        snprintf(err, errlen, "%s: cannot query device %d", ops->name, index);
    if (rc) {
        free(d);
        return rc;
    }
    gc__arch_lookup(&d->info, &d->arch);
    *out = d;
    return 0;
}

int gc__device_open(const struct gc_backend_ops *ops, int index, struct gc_device **out, char *err,
                    size_t errlen)
{
    int rc = device_new(ops, index, out, err, errlen);

    if (rc == 0 && (rc = ops->open(index, &(*out)->dev, err, errlen)) != 0) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

int gc__device_open_compiler(const struct gc_backend_ops *ops, int index, struct gc_device **out,
                             char *err, size_t errlen)
{
    int rc;

    if (!ops->open_compiler)
        return gc__device_open(ops, index, out, err, errlen);
    if ((rc = device_new(ops, index, out, err, errlen)) == 0 &&
        (rc = ops->open_compiler(index, &(*out)->dev, err, errlen)) != 0) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

int gc__device_open_group(const struct gc_backend_ops *ops, const int *index, int n,
                          struct gc_device **out, char *err, size_t errlen)
{
    struct gc_dev **devs = calloc((size_t)(n > 0 ? n : 1), sizeof(*devs));
    int rc = devs ? 0 : GC_ENOMEM;

    for (int i = 0; i < n; i++)
        out[i] = NULL;
    for (int i = 0; i < n && rc == 0; i++)
        rc = ops->open_group ? device_new(ops, index[i], &out[i], err, errlen)
                             : gc__device_open(ops, index[i], &out[i], err, errlen);
    if (rc == 0 && ops->open_group && (rc = ops->open_group(index, n, devs, err, errlen)) == 0)
        for (int i = 0; i < n; i++)
            out[i]->dev = devs[i];
    for (int i = 0; rc && i < n; i++) {
        gc__device_close(out[i]);
        out[i] = NULL;
    }
    free(devs);
    return rc;
}

void gc__device_close(struct gc_device *d)
{
    if (!d)
        return;
    gc__sampler_release(d);
    gc__dev_hostbuf_release(d);
    if (d->dev)
        d->ops->close(d->dev);
    free(d);
}

bool gc__device_healthy(struct gc_device *d)
{
    uint64_t out[8], in[8];
    struct gc_buf *b = NULL;
    bool ok;

    gc__random_fill(out, sizeof(out), 0x6865616c7468ULL);
    memset(in, 0, sizeof(in));
    ok = gc__dev_alloc(d, sizeof(out), &b) == 0 && gc__dev_write(d, b, 0, out, sizeof(out)) == 0 &&
         gc__dev_read(d, b, 0, in, sizeof(in)) == 0 && memcmp(in, out, sizeof(in)) == 0;
    gc__dev_free(d, b);
    return ok;
}

int gc__device_reopen(struct gc_device **d, char *err, size_t errlen)
{
    struct gc_device *old = *d, *nd = NULL;
    const struct gc_backend_ops *ops = old->ops;
    int index = old->index;
    long allocs = old->alloc_calls, launches = old->launch_calls;
    double launch_s = old->launch_s;
    double scale = old->timer_scale;

    gc__device_close(old);
    *d = NULL;
    int rc = gc__device_open(ops, index, &nd, err, errlen);
    if (rc)
        return rc;
    nd->alloc_calls = allocs;
    nd->launch_calls = launches;
    nd->launch_s = launch_s;
    nd->timer_scale = scale;
    *d = nd;
    return 0;
}

static int fail(struct gc_device *d, int rc, const char *what)
{
    if (rc)
        snprintf(d->err, sizeof(d->err), "%s: %s", what, d->ops->last_error(d->dev));
    return rc;
}

/* The injected loss of the context: every call fails as the backend's would. */
static int lost(struct gc_device *d, const char *what)
{
    snprintf(d->err, sizeof(d->err), "%s: the device's context is lost (injected fault)", what);
    return GC_EBACKEND;
}

/* Counts an allocation (device or host memory) for the injected faults;
 * crash:N and hang:N end or stop the process at the N-th. */
static void count_alloc(struct gc_device *d)
{
    d->alloc_calls++;
    if (d->fault_crash_at > 0 && d->alloc_calls == d->fault_crash_at)
        kill(getpid(), SIGKILL); /* as a driver fault or the OOM killer would */
    while (d->fault_hang_at > 0 && d->alloc_calls == d->fault_hang_at)
        pause(); /* a call into the driver that never returns */
}

int gc__dev_alloc(struct gc_device *d, size_t bytes, struct gc_buf **out)
{
    if (d->lost) {
        *out = NULL;
        return lost(d, "allocation");
    }
    count_alloc(d);
    if (d->fault_alloc_at > 0 && d->alloc_calls == d->fault_alloc_at) {
        *out = NULL;
        snprintf(d->err, sizeof(d->err),
                 "allocation of %zu bytes failed: out of device memory (injected fault)", bytes);
        return GC_EDEVMEM;
    }
    if (bytes > d->info.max_alloc && d->info.max_alloc > 0) {
        *out = NULL;
        snprintf(d->err, sizeof(d->err),
                 "allocation of %zu bytes exceeds the device's largest buffer (%zu bytes)", bytes,
                 d->info.max_alloc);
        return GC_EDEVMEM;
    }
    int rc = d->ops->alloc(d->dev, bytes, out);
    if (rc) {
        snprintf(d->err, sizeof(d->err), "allocation of %zu bytes failed: %s", bytes,
                 d->ops->last_error(d->dev));
    }
    return rc;
}

int gc__dev_alloc_large_pages(struct gc_device *d, size_t bytes, struct gc_buf **out,
                              size_t *large_bytes)
{
    *large_bytes = 0;
    if (d->ops->alloc_large_pages && !(d->info.max_alloc > 0 && bytes > d->info.max_alloc) &&
        !(d->fault_alloc_at > 0 && d->alloc_calls + 1 == d->fault_alloc_at)) {
        int rc = d->ops->alloc_large_pages(d->dev, bytes, out, large_bytes);
        if (rc == 0) {
            count_alloc(d);
            return 0;
        }
        if (rc != GC_ENOTSUP) {
            snprintf(d->err, sizeof(d->err), "allocation of %zu bytes failed: %s", bytes,
                     d->ops->last_error(d->dev));
            return rc;
        }
    }
    return gc__dev_alloc(d, bytes, out);
}

int gc__dev_host_alloc(struct gc_device *d, size_t bytes, enum gc_host_kind kind,
                       struct gc_hostmem **out)
{
    static const char *const names[] = {"pageable", "pinned", "write-combined", "mapped"};
    const char *what = (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "host";

    *out = NULL;
    if (!d->ops->host_alloc) {
        snprintf(d->err, sizeof(d->err), "the %s backend has no host memory of its own",
                 d->ops->name);
        return GC_ENOTSUP;
    }
    if (d->lost)
        return lost(d, "host allocation");
    /* A kind the backend does not have is no allocation: the injected fault
     * counts the ones it makes, and fails the N-th after the fact. */
    int rc = d->ops->host_alloc(d->dev, bytes, kind, out);
    if (rc) {
        snprintf(d->err, sizeof(d->err), "allocation of %zu bytes of %s host memory failed: %s",
                 bytes, what, d->ops->last_error(d->dev));
        if (rc == GC_ENOTSUP)
            return rc;
    }
    count_alloc(d);
    if (rc == 0 && d->fault_alloc_at > 0 && d->alloc_calls == d->fault_alloc_at) {
        d->ops->host_free(*out);
        *out = NULL;
        snprintf(d->err, sizeof(d->err),
                 "allocation of %zu bytes of %s host memory failed (injected fault): out of "
                 "host memory",
                 bytes, what);
        return GC_ENOMEM;
    }
    return rc;
}

void gc__dev_host_free(struct gc_device *d, struct gc_hostmem *h)
{
    if (h)
        d->ops->host_free(h);
}

int gc__dev_hostbuf_alloc(struct gc_device *d, size_t bytes, struct gc_hostbuf *out)
{
    int best = -1;

    out->ptr = NULL;
    out->mem = NULL;
    /* The smallest kept buffer that holds bytes. */
    for (int i = 0; i < GC_PARKED_HOST; i++) {
        struct gc_hostmem *h = d->parked_host[i];
        if (h && h->bytes >= bytes && (best < 0 || h->bytes < d->parked_host[best]->bytes))
            best = i;
    }
    if (best >= 0) {
        out->mem = d->parked_host[best];
        d->parked_host[best] = NULL;
        out->ptr = out->mem->ptr;
        return 0;
    }
    /* Straight to the backend: a refusal (no pinned memory, a locked-memory
     * limit) is no failure of the benchmark and leaves d->err alone. */
    if (d->ops->host_alloc && !d->lost &&
        d->ops->host_alloc(d->dev, bytes ? bytes : 1, GC_HOST_PINNED, &out->mem) == 0) {
        out->ptr = out->mem->ptr;
        return 0;
    }
    out->mem = NULL;
    out->ptr = malloc(bytes ? bytes : 1);
    return out->ptr ? 0 : GC_ENOMEM;
}

void gc__dev_hostbuf_free(struct gc_device *d, struct gc_hostbuf *b)
{
    struct gc_hostmem *h = b->mem;

    if (!h)
        free(b->ptr);
    /* Kept in a free slot, else in place of the smallest kept one when
     * larger (which is freed), else freed. */
    for (int i = 0; h && i < GC_PARKED_HOST; i++) {
        struct gc_hostmem *p = d->parked_host[i];
        if (!p || p->bytes < h->bytes) {
            d->parked_host[i] = h;
            h = p;
            if (!h)
                break;
        }
    }
    if (h)
        d->ops->host_free(h);
    b->ptr = NULL;
    b->mem = NULL;
}

void gc__dev_hostbuf_release(struct gc_device *d)
{
    for (int i = 0; i < GC_PARKED_HOST; i++) {
        if (d->parked_host[i])
            d->ops->host_free(d->parked_host[i]);
        d->parked_host[i] = NULL;
    }
}

void gc__dev_free(struct gc_device *d, struct gc_buf *b)
{
    if (b)
        d->ops->free(b);
}

int gc__dev_write(struct gc_device *d, struct gc_buf *b, size_t off, const void *src, size_t n)
{
    if (d->lost)
        return lost(d, "buffer write");
    return fail(d, d->ops->write(b, off, src, n), "buffer write");
}

int gc__dev_read(struct gc_device *d, struct gc_buf *b, size_t off, void *dst, size_t n)
{
    if (d->lost)
        return lost(d, "buffer read");
    return fail(d, d->ops->read(b, off, dst, n), "buffer read");
}

int gc__dev_copy(struct gc_device *d, struct gc_buf *dst, struct gc_buf *src, size_t n)
{
    return fail(d, d->ops->copy(dst, 0, src, 0, n), "buffer copy");
}

int gc__dev_launch(struct gc_device *d, struct gc_kern *k, const struct gc_launch *l,
                   double *elapsed_s)
{
    if (d->lost)
        return lost(d, "kernel launch");
    d->launch_calls++;
    if (d->fault_lost_at > 0 && d->launch_calls == d->fault_lost_at) {
        d->lost = true;
        return lost(d, "kernel launch");
    }
    if (d->fault_launch_at > 0 && d->launch_calls == d->fault_launch_at) {
        snprintf(d->err, sizeof(d->err), "kernel launch failed (injected fault)");
        return GC_ELAUNCH;
    }
    int rc = fail(d, d->ops->launch(d->dev, k, l, elapsed_s), "kernel launch");

    if (rc == 0 && elapsed_s && d->timer_scale > 0)
        *elapsed_s *= d->timer_scale;
    if (rc == 0 && elapsed_s && isfinite(*elapsed_s))
        d->launch_s += *elapsed_s;
    return rc;
}

int gc__dev_power(struct gc_device *d, unsigned what, struct gc_power_reading *out)
{
    memset(out, 0, sizeof(*out));
    if (!d->ops->power)
        return GC_ENOTSUP;
    return d->ops->power(d->dev, what, out);
}

int gc__dev_max_active_blocks(struct gc_device *d, struct gc_kern *k, int block_threads,
                              size_t dyn_shared, int *out)
{
    *out = 0;
    if (!d->ops->max_active_blocks)
        return GC_ENOTSUP;
    return fail(d, d->ops->max_active_blocks(k, block_threads, dyn_shared, out), "occupancy query");
}

int gc__dev_fill_random(struct gc_device *d, struct gc_buf *b, size_t bytes, uint64_t seed)
{
    /* Chunked so that host memory stays small whatever the buffer size. */
    const size_t chunk = GC_FILL_CHUNK;
    size_t n = bytes < chunk ? bytes : chunk;
    unsigned char *tmp = malloc(n ? n : 1);
    int rc = 0;

    if (!tmp) {
        snprintf(d->err, sizeof(d->err), "out of host memory filling a buffer");
        return GC_ENOMEM;
    }
    for (size_t off = 0; off < bytes && rc == 0; off += n) {
        size_t len = bytes - off < n ? bytes - off : n;

        gc__random_fill(tmp, len, seed + off / chunk * GC_FILL_STEP);
        rc = gc__dev_write(d, b, off, tmp, len);
    }
    free(tmp);
    return rc;
}

void gc__fill_random_range(void *dst, size_t off, size_t len, uint64_t seed)
{
    unsigned char *p = dst;

    for (size_t done = 0; done < len;) {
        size_t k = (off + done) / GC_FILL_CHUNK;
        size_t n = len - done < GC_FILL_CHUNK ? len - done : GC_FILL_CHUNK;

        gc__random_fill(p + done, n, seed + k * GC_FILL_STEP);
        done += n;
    }
}
