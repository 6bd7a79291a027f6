/* An open device: the backend's handle plus what the core keeps beside it
 * (device facts, the last error, fault injection for tests). Every core and
 * benchmark call to a backend goes through the wrappers declared here. */
#ifndef GC_CORE_DEVICE_H
#define GC_CORE_DEVICE_H

#include <math.h>
#include "backend/backend.h"
#include "core/arch.h"

struct gc_sampler;

/* Pinned host buffers a device keeps for reuse (gc__dev_hostbuf_free). */
#define GC_PARKED_HOST 4

struct gc_device {
    const struct gc_backend_ops *ops;
    struct gc_dev *dev;
    int index;
    char spec[32];
    struct gc_device_info info;
    struct gc_arch arch; /* the architecture table's row of info, looked up at open */
    char err[GC_ERRLEN]; /* message of the last failure */
    /* Fault injection (GPUCHAR_FAULT=alloc:N,compile,launch:N): lets the
     * tests prove that each failure path reports and keeps partial results. */
    long fault_alloc_at, fault_launch_at, fault_lost_at;
    long fault_crash_at, fault_hang_at; /* the process dies (SIGKILL) / never returns */
    long alloc_calls, launch_calls;
    double launch_s; /* device time of the launches that succeeded (their elapsed_s) */
    bool fault_compile;
    long fault_worker_at; /* its compile workers end at this request (core/kworker.h) */
    /* GPUCHAR_FAULT scale: metric (or bench/metric) multiplied by factor. */
    char fault_scale_metric[128];
    double fault_scale;
    bool lost; /* injected: the context is gone, every call fails until reopened */
    /* Seconds of the host's clock per second of the device's timer (events
     * and %globaltimer), when a calibration found them to differ by more
     * than its resolution (gc__timer_calibrate); else 1. Device times are
     * multiplied by it and clock rates from %globaltimer divided by it. */
    double timer_scale;
    /* A stopped sensor sampler kept for the next measurement (sensors.c). */
    struct gc_sampler *parked_sampler;
    /* Pinned host memory gc__dev_hostbuf_free kept for the next
     * gc__dev_hostbuf_alloc of the same benchmark (pinning costs about a
     * millisecond per MiB each way), freed by gc__dev_hostbuf_release. */
    struct gc_hostmem *parked_host[GC_PARKED_HOST];
};

/* The device timer's scale (timer_scale, 1 when not calibrated). */
/* The last-level cache size a footprint must be measured against where
 * a GPU does not report its own (NVIDIA's OpenCL gives the per-SM L1
 * there): above the L2 of current GPUs (H100 50 MiB, H200 60 MiB), so a
 * footprint sized from it is not served by the cache it could not know. */
#define GC_GPU_L2_BOUND_BYTES ((size_t)128 << 20)

static inline size_t gc__gpu_l2_or_bound(const struct gc_device_info *i)
{
    return i->l2_size ? i->l2_size : GC_GPU_L2_BOUND_BYTES;
}

static inline double gc__timer_scale(const struct gc_device *d)
{
    return d && d->timer_scale > 0 ? d->timer_scale : 1.0;
}

/* The one rule for clocks read against the device timer: `cycles` of the SM
 * clock over `ns` of %globaltimer, in MHz, with the timer's scale divided
 * in; NAN without time. */
static inline double gc__clock_mhz(const struct gc_device *d, double cycles, double ns)
{
    return ns > 0 ? cycles / ns * 1e3 / gc__timer_scale(d) : NAN;
}

/* A clock already computed from raw %globaltimer readings (cycles / ns x
 * 1e3), corrected the same way. */
static inline double gc__clock_corrected(const struct gc_device *d, double raw_mhz)
{
    return gc__clock_mhz(d, raw_mhz, 1e3);
}

/* The highest SM clock an observed clock may show: the reported maximum
 * plus GC_CLOCK_STEP_ALLOWANCE. H100s and H200s were observed at 1995 MHz,
 * one 15 MHz step (0.76%) above the 1980 MHz their driver reports, with
 * compute throughput up by the same ratio and DRAM bandwidth unchanged
 * (methodology §1.3): a clock the device really ran, which a limit at the
 * reported maximum would refuse. */
#define GC_CLOCK_STEP_ALLOWANCE 0.01

static inline double gc__clock_ceiling_mhz(const struct gc_device_info *i)
{
    return i->clock_mhz > 0 ? i->clock_mhz * (1 + GC_CLOCK_STEP_ALLOWANCE) : NAN;
}

int gc__device_open(const struct gc_backend_ops *ops, int index, struct gc_device **out, char *err,
                    size_t errlen);
/* Opens device index for compiling only (a compile worker): with the
 * backend's open_compiler where it has one, else with its open. */
int gc__device_open_compiler(const struct gc_backend_ops *ops, int index, struct gc_device **out,
                             char *err, size_t errlen);
/* Opens the devices index[0..n) of one backend together (its open_group:
 * OpenCL puts the devices of one platform in one context, so that copies
 * cross between them), else one by one; out[i] for index[i]. On failure
 * none stays open. */
int gc__device_open_group(const struct gc_backend_ops *ops, const int *index, int n,
                          struct gc_device **out, char *err, size_t errlen);
void gc__device_close(struct gc_device *d);

/* True when the device still answers: a small buffer is allocated, written
 * and read back. A kernel fault that killed the context or the queue (CUDA's
 * sticky errors such as an illegal address, an OpenCL queue the driver
 * invalidated) makes every later call fail, so one failed benchmark would
 * otherwise fail all that follow. */
bool gc__device_healthy(struct gc_device *d);

/* Closes *d and opens the same backend device again, keeping the fault
 * injection's counters (they count over the whole process). On failure *d
 * is NULL and err says why. */
int gc__device_reopen(struct gc_device **d, char *err, size_t errlen);

/* Wrappers: same contracts as the ops, with d->err filled on failure. */
int gc__dev_alloc(struct gc_device *d, size_t bytes, struct gc_buf **out);
/* gc__dev_alloc backed by the host's large pages where the backend offers
 * them for this device (alloc_large_pages), else a plain allocation;
 * *large_bytes says how much of the buffer has large pages (0: none). */
int gc__dev_alloc_large_pages(struct gc_device *d, size_t bytes, struct gc_buf **out,
                              size_t *large_bytes);
void gc__dev_free(struct gc_device *d, struct gc_buf *b);
/* The backend's host_alloc (pageable, pinned, write-combined or mapped host
 * memory), counted by the fault injection as an allocation like
 * gc__dev_alloc (a kind the backend lacks, GC_ENOTSUP, is not counted). */
int gc__dev_host_alloc(struct gc_device *d, size_t bytes, enum gc_host_kind kind,
                       struct gc_hostmem **out);
void gc__dev_host_free(struct gc_device *d, struct gc_hostmem *h);
/* Host memory a benchmark reads device results into (or uploads from) at
 * every launch: pinned where the backend has it, so the copies run at the
 * link's rate instead of through the driver's staging of pageable memory
 * (a fraction of it), else malloc'ed. Not counted by the fault injection's
 * allocations and never an error while the host has memory: pinned memory
 * is a speed-up only. ptr is NULL (GC_ENOMEM) when neither kind could be
 * had. Freed by gc__dev_hostbuf_free (a zeroed one is ignored). */
struct gc_hostbuf {
    void *ptr;
    struct gc_hostmem *mem; /* the pinned memory; NULL when ptr is malloc'ed */
};
int gc__dev_hostbuf_alloc(struct gc_device *d, size_t bytes, struct gc_hostbuf *out);
void gc__dev_hostbuf_free(struct gc_device *d, struct gc_hostbuf *b);
/* Frees the pinned buffers the device keeps. The run calls it after every
 * benchmark: live pinned memory changes what the next one may measure (an
 * H200's 1 MiB pinned allocation took 3 us instead of 0.8 ms while 9 MB
 * stayed pinned), so each benchmark starts with none of its predecessors'. */
void gc__dev_hostbuf_release(struct gc_device *d);
int gc__dev_write(struct gc_device *d, struct gc_buf *b, size_t off, const void *src, size_t n);
int gc__dev_read(struct gc_device *d, struct gc_buf *b, size_t off, void *dst, size_t n);
int gc__dev_copy(struct gc_device *d, struct gc_buf *dst, struct gc_buf *src, size_t n);
int gc__dev_launch(struct gc_device *d, struct gc_kern *k, const struct gc_launch *l,
                   double *elapsed_s);
/* The backend's power meter (op power); GC_ENOTSUP when it has none. Does
 * not touch d->err: it runs on the energy meter's thread. */
int gc__dev_power(struct gc_device *d, unsigned what, struct gc_power_reading *out);
int gc__dev_max_active_blocks(struct gc_device *d, struct gc_kern *k, int block_threads,
                              size_t dyn_shared, int *out);

/* Fills a buffer with xorshift64* random words seeded by seed (never zeros,
 * never a constant): the input data of every benchmark. The stream is
 * written in chunks of GC_FILL_CHUNK bytes, chunk k seeded with
 * seed + k * GC_FILL_STEP, so that the host can regenerate any part. */
#define GC_FILL_CHUNK ((size_t)16 << 20)
#define GC_FILL_STEP 0x9E3779B97F4A7C15ULL
int gc__dev_fill_random(struct gc_device *d, struct gc_buf *b, size_t bytes, uint64_t seed);

/* Regenerates bytes [off, off + len) of what gc__dev_fill_random(seed) wrote
 * (off and len multiples of GC_FILL_CHUNK, or the whole tail). */
void gc__fill_random_range(void *dst, size_t off, size_t len, uint64_t seed);

#endif
