/* The backend interface: one const struct gc_backend_ops per backend, filled
 * with designated initialisers. The core talks to devices only through it and
 * decides what a device can do from capability flags, never from names. */
#ifndef GC_BACKEND_H
#define GC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuchar/gpuchar.h"

/* Capability flags of a device. */
enum {
    GC_CAP_CLOCK64 = 1u << 0,         /* in-kernel cycle counter (clock64) */
    GC_CAP_GLOBALTIMER = 1u << 1,     /* in-kernel ns timer (%globaltimer) */
    GC_CAP_SMID = 1u << 2,            /* in-kernel SM id (%smid) */
    GC_CAP_INLINE_ASM = 1u << 3,      /* inline PTX */
    GC_CAP_OCCUPANCY_API = 1u << 4,   /* max_active_blocks works */
    GC_CAP_SENSOR_CLOCK = 1u << 5,    /* sensors report SM clock */
    GC_CAP_SENSOR_POWER = 1u << 6,    /* sensors report power */
    GC_CAP_SENSOR_THROTTLE = 1u << 7, /* sensors report throttle reasons */
    GC_CAP_FP64 = 1u << 8,
    GC_CAP_FP16 = 1u << 9,
    GC_CAP_DYN_SHARED = 1u << 10, /* dynamic shared/local memory per launch */
    GC_CAP_ENERGY = 1u << 11,     /* cumulative energy counter */
    /* Loads pick their cache path (L2 only, read-only, no L1 allocation)
     * through inline PTX cache operators (ld.global.cg / .nc / hints). */
    GC_CAP_CACHE_HINTS = 1u << 12,
};

enum gc_dialect { GC_DIALECT_CUDA, GC_DIALECT_OPENCL };

/* Everything the core needs to know about a device. Fields a backend cannot
 * fill are 0 (sizes, counts) or NAN (rates). */
struct gc_device_info {
    char name[256];
    char vendor[128];
    char driver[128];       /* driver / platform version */
    char compiler[128];     /* compiler identity, part of the cache key */
    char arch[64];          /* "sm_90"; OpenCL: device version + name */
    int cc_major, cc_minor; /* CUDA compute capability; 0 on OpenCL */
    enum gc_device_type type;
    int compute_units; /* SMs / CUs */
    int simd_width;    /* warp size; OpenCL: preferred work-group multiple */
    int max_threads_per_block;
    int max_threads_per_cu;
    int max_blocks_per_cu;
    int regs_per_cu;
    size_t shared_per_cu;             /* bytes of shared/local memory per CU */
    size_t shared_per_block;          /* default per-block limit */
    size_t shared_per_block_optin;    /* with opt-in (CUDA); else = shared_per_block */
    size_t shared_reserved_per_block; /* reserved by the system per block (CUDA) */
    size_t global_mem;
    size_t max_alloc;     /* largest single buffer */
    size_t l2_size;       /* last-level cache; 0 unknown */
    double clock_mhz;     /* maximum SM clock reported */
    double mem_clock_mhz; /* maximum memory clock (actual, not data rate) */
    int mem_bus_width;    /* bits */
    double mem_bw_spec;   /* theoretical DRAM bandwidth, B/s; NAN unknown */
    char pci_bus_id[32];  /* "0000:3b:00.0" where known */
    int ecc_enabled;      /* -1 unknown */
    unsigned caps;
    /* Bytes of the widest SIMD vector of a CPU device: the largest native
     * vector width OpenCL reports for any type times the type's size; 0
     * unknown (and on GPUs, whose lanes are threads). */
    int vector_bytes;
};

/* One reading of the device's sensors. valid has a GC_SENSOR_* bit per field. */
enum {
    GC_SENSOR_SM_CLOCK = 1u << 0,
    GC_SENSOR_MEM_CLOCK = 1u << 1,
    GC_SENSOR_POWER = 1u << 2,
    GC_SENSOR_TEMP = 1u << 3,
    GC_SENSOR_THROTTLE = 1u << 4,
    GC_SENSOR_ENERGY = 1u << 5,
    GC_SENSOR_POWER_LIMIT = 1u << 6,
};

struct gc_sensor_sample {
    unsigned valid;
    double t; /* host monotonic seconds */
    double sm_clock_mhz;
    double mem_clock_mhz;
    double power_w;
    double power_limit_w;
    double temp_c;
    double energy_j;             /* cumulative since an arbitrary origin */
    unsigned long long throttle; /* raw reasons bitmask (NVML layout) */
    bool throttled;              /* a reason that lowers clocks is active */
};

/* One reading of a device's power meter (the backend op power): what the
 * caller asked for and the device answered has its GC_POWER_* bit in valid. */
enum {
    GC_POWER_ENERGY = 1u << 0,  /* cumulative energy counter */
    GC_POWER_INSTANT = 1u << 1, /* instantaneous (not averaged) power */
};

struct gc_power_reading {
    unsigned valid;
    double energy_j; /* cumulative since an arbitrary origin (NVML: driver load) */
    double power_w;  /* instantaneous board power */
};

/* Opaque backend objects. */
struct gc_dev;
struct gc_prog;
struct gc_kern;
struct gc_buf;
struct gc_graph;

enum gc_arg_type {
    GC_ARG_BUF,
    GC_ARG_I32,
    GC_ARG_U32,
    GC_ARG_I64,
    GC_ARG_U64,
    GC_ARG_F32,
    GC_ARG_F64
};

struct gc_arg {
    enum gc_arg_type type;
    union {
        struct gc_buf *buf;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f32;
        double f64;
    } v;
};

struct gc_launch {
    unsigned grid[3];  /* in blocks / work-groups */
    unsigned block[3]; /* threads / work-items per block */
    size_t dyn_shared; /* bytes of dynamic shared / local memory */
    const struct gc_arg *args;
    int nargs;
    int count; /* back-to-back launches timed together, >= 1 */
};

/* ---- Host memory, transfers, launch timing (runtime overheads) ----------- */

/* Kinds of host memory a transfer can start from or land in. */
enum gc_host_kind {
    GC_HOST_PAGEABLE,       /* ordinary (malloc'ed) memory: the driver stages it */
    GC_HOST_PINNED,         /* page-locked, DMA straight from/to it */
    GC_HOST_WRITE_COMBINED, /* page-locked, write-combined (fast to write, slow to read) */
    GC_HOST_MAPPED,         /* page-locked and mapped into the device's address space:
                               kernels read and write it directly (zero-copy) */
};

/* Host memory made by host_alloc. The backend owns the struct. */
struct gc_hostmem {
    void *ptr; /* host address of bytes bytes */
    size_t bytes;
    enum gc_host_kind kind;
    /* GC_HOST_MAPPED: the same memory as a buffer kernels can take as a
     * GC_ARG_BUF argument (owned by the hostmem: never pass it to free);
     * NULL for the other kinds. */
    struct gc_buf *view;
};

enum gc_xfer_dir {
    GC_XFER_H2D,   /* host -> device */
    GC_XFER_D2H,   /* device -> host */
    GC_XFER_D2D,   /* device -> device (the same device) */
    GC_XFER_BIDIR, /* H2D and D2H at once, on two queues/streams */
};

enum gc_xfer_method {
    GC_XFER_COPY, /* the runtime's copy call (cuMemcpy*Async, clEnqueueWrite/ReadBuffer) */
    GC_XFER_MAP,  /* map the device buffer, memcpy on the host, unmap (OpenCL) */
};

/* count copies of bytes each (per direction), back to back. */
struct gc_xfer {
    enum gc_xfer_dir dir;
    enum gc_xfer_method method;
    struct gc_buf *buf; /* H2D destination, D2H source, D2D destination; BIDIR: H2D dest. */
    size_t buf_off;
    struct gc_buf *buf2; /* D2D source; BIDIR: the D2H source; else unused */
    size_t buf2_off;
    void *host;  /* H2D source, D2H destination; BIDIR: the H2D source */
    void *host2; /* BIDIR: the D2H destination */
    size_t bytes;
    int count; /* >= 1 */
    /* H2D, D2H: each copy split in halves issued on two queues/streams at
     * once (2), to use two copy engines; 0 or 1: one. */
    int streams;
};

/* Flags of launch_timed / graph_launch. */
enum {
    GC_LT_NOWAIT = 1u << 0, /* return once enqueued; a later sync() waits */
    GC_LT_EVENTS = 1u << 1, /* device events around the launches (device_s) */
};

/* Host timestamps (CLOCK_MONOTONIC, seconds) and device times of one batch
 * of launches. Fields that do not apply are NAN. */
struct gc_launch_times {
    double t_begin;    /* just before the first enqueue call */
    double t_enqueued; /* just after the last enqueue call returned */
    double t_done;     /* just after the wait returned (NAN with GC_LT_NOWAIT) */
    double device_s;   /* GC_LT_EVENTS: device time from before the first launch to
                          after the last (events / profiling) */
    /* Profiling of the first launch (OpenCL event profiling; NAN on CUDA):
     * QUEUED -> SUBMIT, SUBMIT -> START, START -> END. */
    double queued_to_submit_s, submit_to_start_s, start_to_end_s;
};

/* The host link of a device. Fields not known are 0 / NAN. */
struct gc_link_info {
    char kind[16];          /* "PCIe"; "" unknown */
    int gen_cur, width_cur; /* negotiated now (may be lowered while idle) */
    int gen_max, width_max; /* the most the device and the system allow */
    char source[32];        /* "NVML", "sysfs" */
};

/* ---- Peer links (link.*) ------------------------------------------------ */

/* What the driver says of the link from device a to device b. Fields not
 * known are 0 / "" / NAN. */
struct gc_peer_info {
    bool access;        /* a's kernels and copies can reach b's memory */
    bool atomics;       /* ... with native atomics */
    char kind[16];      /* "NVLink", "PCIe", "simulated"; "" unknown */
    int nvlinks;        /* NVLink links between a and b */
    int nvlinks_active; /* NVLink links of a that are up, whatever they reach: its
                           NVLink total in each direction (0 unknown or none) */
    int nvlink_version;
    double link_rate; /* B/s per direction of one NVLink link; NAN unknown */
    char path[8];     /* PCIe path as the topology gives it: "PIX", "PXB", "PHB",
                         "NODE", "SYS"; "" unknown or NVLink */
    double limit;     /* the backend's own per-direction limit in B/s where it knows
                         one that the core cannot derive (a simulation); else NAN */
    char source[32];  /* "NVML", "driver", "null" */
    char why[256];    /* access false: why (the driver's answer) */
    /* Only the backend's copies cross the link: a kernel on a cannot read or
     * write b's memory in place (OpenCL moves a buffer to the device that
     * uses it); kernel_why says so. */
    bool copies_only;
    char kernel_why[200];
};

/* One copy of bytes from src + src_off to dst + dst_off (buffers of two
 * devices of the same backend, or of one). by_dst: the destination's device
 * issues it (it reads, "pulls"); else the source's device does (it writes,
 * "pushes"). */
struct gc_peer_copy {
    struct gc_buf *dst;
    size_t dst_off;
    struct gc_buf *src;
    size_t src_off;
    size_t bytes;
    bool by_dst;
};

/* Times of one call of peer_copies: each copy's own stream from its start
 * to the end of its last repetition (each[i]), the whole from the common
 * start to the last end (total_s), and the host's wall time from before the
 * first enqueue to the end of the wait (host_s). */
struct gc_peer_times {
    double total_s;
    double host_s;
    double each[16];
};

#define GC_PEER_MAX_COPIES 16

/* Every callback returns 0 or a negative GC_E code and, on failure, writes a
 * message into the char buffer err[GC_ERRLEN] of its device (see errbuf). */
#define GC_ERRLEN 4096

struct gc_backend_ops {
    const char *name; /* "cuda", "opencl", "null" */
    enum gc_dialect dialect;
    /* Its devices are simulations (the tests' null backend): they are used
     * only when named, never as the default device. */
    bool simulated;

    /* Loads the backend's libraries and initialises it. On failure writes why
     * (naming the missing library) into why and returns GC_ENOLIB or
     * GC_EBACKEND. Zero devices is success. */
    int (*init)(char *why, size_t whylen);
    /* Releases what init acquired. May be NULL. */
    void (*fini)(void);

    int (*device_count)(void);
    int (*device_info)(int index, struct gc_device_info *out);

    int (*open)(int index, struct gc_dev **out, char *err, size_t errlen);
    /* Opens the n devices index[0..n) as open does, so that their buffers can
     * reach each other where the backend can arrange it (OpenCL: the devices
     * of one platform in one shared context; peer_info says per pair what
     * came of it). out[i] gets device index[i]; on failure none stays open.
     * May be NULL: the devices are opened one by one. */
    int (*open_group)(const int *index, int n, struct gc_dev **out, char *err, size_t errlen);
    /* Opens only what compile() and last_error() need, for a compile worker
     * (core/kworker.h): CUDA creates no context, so that the workers neither
     * hold device memory nor meet a GPU in exclusive-process mode that allows
     * one process's context only. close() releases it. May be NULL: the
     * workers open the device with open(). */
    int (*open_compiler)(int index, struct gc_dev **out, char *err, size_t errlen);
    void (*close)(struct gc_dev *dev);
    /* Message of the last failure on this device. Never NULL. */
    const char *(*last_error)(struct gc_dev *dev);

    /* Compiles source to a binary blob that load() accepts. *bin is malloc'ed.
     * *log (malloc'ed, may be NULL) gets the compiler output, also on success.
     * Must be callable from several threads at once for one device. */
    int (*compile)(struct gc_dev *dev, const char *src, const char *options, void **bin,
                   size_t *binlen, char **log);
    /* At most this many compile() calls at once (NVRTC: each holds tens of
     * MB of host memory); 0: one per host core. */
    int compile_threads;
    /* True when the device's compiler runs faster in separate processes
     * than on threads of one process: NVIDIA's OpenCL and PoCL build one
     * program at a time per process whatever the threads, and NVRTC's
     * compilations on threads of one process mostly wait for each other. The run's compile
     * plan then compiles in worker processes that start this program again
     * (core/kworker.h), each opening the same device. May be NULL: never. */
    bool (*compile_in_processes)(struct gc_dev *dev);
    int (*load)(struct gc_dev *dev, const void *bin, size_t binlen, struct gc_prog **out);
    /* load() may run on several threads at once for distinct binaries (the
     * compile threads then load what they compiled: OpenCL, where loading
     * builds the binary for the device again); false: only on the thread
     * that uses the device. */
    bool load_threadsafe;
    void (*unload)(struct gc_prog *prog);
    int (*kernel)(struct gc_prog *prog, const char *name, struct gc_kern **out);
    /* Registers per thread, static shared bytes, max threads per block of a
     * kernel. May be NULL. */
    int (*kernel_attrs)(struct gc_kern *k, int *regs, size_t *static_shared, int *max_threads);
    /* Maximum resident blocks per CU for a launch shape. NULL when unknown. */
    int (*max_active_blocks)(struct gc_kern *k, int block_threads, size_t dyn_shared, int *out);
    /* Preferred share of the unified L1 / shared-memory array that launches
     * of k give to shared memory, in percent of the largest shared-memory
     * configuration (0: the largest L1 the device offers; -1: the driver's
     * default). A preference: a launch still gets the shared memory it
     * needs. May be NULL: the device offers no such choice. */
    int (*kernel_set_carveout)(struct gc_kern *k, int shared_percent);

    int (*alloc)(struct gc_dev *dev, size_t bytes, struct gc_buf **out);
    /* The same, the buffer backed by the host's large pages (2 MiB on x86-64
     * Linux, madvise(MADV_HUGEPAGE)): for a device that runs on the host's
     * memory (a CPU), so that a chase through caches larger than the
     * first-level TLB's reach does not also measure TLB misses. *large_bytes
     * gets how many bytes of the buffer the kernel actually backed with large
     * pages (0 when it gave none). May be NULL; GC_ENOTSUP where the device
     * does not run on host memory or the host has no large pages. */
    int (*alloc_large_pages)(struct gc_dev *dev, size_t bytes, struct gc_buf **out,
                             size_t *large_bytes);
    void (*free)(struct gc_buf *buf);
    int (*write)(struct gc_buf *buf, size_t offset, const void *src, size_t bytes);
    int (*read)(struct gc_buf *buf, size_t offset, void *dst, size_t bytes);
    int (*copy)(struct gc_buf *dst, size_t dst_off, struct gc_buf *src, size_t src_off,
                size_t bytes);
    /* Maps a buffer range for host access; unmap writes it back. */
    int (*map)(struct gc_buf *buf, size_t offset, size_t bytes, void **host);
    int (*unmap)(struct gc_buf *buf, void *host);

    /* Launches l->count times back to back and waits; *elapsed_s is the
     * device-measured time from the start of the first to the end of the
     * last launch. */
    int (*launch)(struct gc_dev *dev, struct gc_kern *k, const struct gc_launch *l,
                  double *elapsed_s);

    /* Reads the sensors. NULL or GC_ENOTSUP when the device has none. Must be
     * callable from a second thread while a launch is in progress. */
    int (*sensors)(struct gc_dev *dev, struct gc_sensor_sample *out);

    /* Backend-specific facts for the run metadata ("key=value; ..."). May be NULL. */
    void (*describe)(struct gc_dev *dev, char *buf, size_t len);

    /* Creates a texture object that reads bytes of buf from offset as a linear
     * 1D array of elements of channels (1, 2 or 4) unsigned 32-bit integers,
     * point-sampled, unnormalised, read as integers, so that a kernel fetches
     * through the texture path (tex1Dfetch). *handle is what the kernel takes
     * as a 64-bit argument (GC_ARG_U64); the buffer must outlive it. May be
     * NULL: the device has no texture objects (OpenCL buffers). */
    int (*tex_create)(struct gc_buf *buf, size_t offset, size_t bytes, int channels,
                      uint64_t *handle);
    /* Destroys a texture object made by tex_create on dev; 0 is ignored. NULL
     * exactly when tex_create is. */
    void (*tex_destroy)(struct gc_dev *dev, uint64_t handle);

    /* Reads the device's energy counter and/or instantaneous power (what:
     * GC_POWER_* bits) and nothing else, so that the energy meter can poll
     * it in a tight loop: sensors reads a dozen values. Returns 0 when at
     * least one asked value was read (its bit set in out->valid), else
     * GC_ENOTSUP with the reason (not supported, not permitted) in the
     * device's error. Callable from a second thread while a launch is in
     * progress. May be NULL: the device has no power meter of its own (a
     * CPU's package counters are read by the core, core/powercap.c). */
    int (*power)(struct gc_dev *dev, unsigned what, struct gc_power_reading *out);
    /* ---- Runtime overheads (transfer.*, overhead.*) -------------------- */

    /* Allocates bytes of host memory of a kind (see enum gc_host_kind).
     * GC_ENOTSUP with the reason when the kind does not exist on this device
     * (write-combined memory in OpenCL, mapped memory on a device that cannot
     * reach host memory); GC_ENOMEM when the host refuses (the message names
     * the limit, e.g. the locked-memory limit for pinned memory). May be NULL:
     * the backend offers no host memory of its own (no transfer benchmarks). */
    int (*host_alloc)(struct gc_dev *dev, size_t bytes, enum gc_host_kind kind,
                      struct gc_hostmem **out);
    /* Frees what host_alloc made; NULL is ignored. NULL exactly when
     * host_alloc is. */
    void (*host_free)(struct gc_hostmem *h);
    /* Performs x (count copies back to back, waited for) and returns in
     * *elapsed_s their time: device-measured (events / profiling, start of the
     * first copy to end of the last; BIDIR: to the end of the later of the two
     * directions) for GC_XFER_COPY, host wall time for GC_XFER_MAP. GC_ENOTSUP
     * for a method or direction the backend has not. May be NULL. */
    int (*transfer)(struct gc_dev *dev, const struct gc_xfer *x, double *elapsed_s);
    /* Launches l->count times back to back like launch(), but reports host
     * timestamps around the enqueue calls and the wait, and does not wait with
     * GC_LT_NOWAIT (then sync(), or a launch() or a waiting launch_timed()
     * queued behind it in order, must follow before any other call that
     * uses the device's queue; kernel errors surface there). No event is
     * recorded unless GC_LT_EVENTS. May be NULL. */
    int (*launch_timed)(struct gc_dev *dev, struct gc_kern *k, const struct gc_launch *l,
                        unsigned flags, struct gc_launch_times *out);
    /* Waits for everything queued on the device. NULL exactly when
     * launch_timed is. */
    int (*sync)(struct gc_dev *dev);
    /* Builds an executable graph of l->count launches of k, one after the
     * other (CUDA graphs). May be NULL: the device has no graphs. */
    int (*graph_create)(struct gc_dev *dev, struct gc_kern *k, const struct gc_launch *l,
                        struct gc_graph **out);
    /* Launches a graph once, timed as launch_timed does (flags alike). */
    int (*graph_launch)(struct gc_graph *g, unsigned flags, struct gc_launch_times *out);
    /* Destroys a graph; NULL is ignored. NULL exactly when graph_create is. */
    void (*graph_destroy)(struct gc_graph *g);
    /* The device's host link (PCIe generation and width). May be NULL or
     * GC_ENOTSUP: then the core reads sysfs from the PCI bus id. */
    int (*link_info)(struct gc_dev *dev, struct gc_link_info *out);
    /* Free and total device memory in bytes now. May be NULL (unknown). */
    int (*mem_info)(struct gc_dev *dev, size_t *free_bytes, size_t *total_bytes);

    /* ---- Peer links (link.*) ------------------------------------------- */

    /* What the driver says of the link from a to b (struct gc_peer_info).
     * GC_ENOTSUP with the reason in a's error when the backend cannot tell
     * (then no peer call below works either). May be NULL: no peer links. */
    int (*peer_info)(struct gc_dev *a, struct gc_dev *b, struct gc_peer_info *out);
    /* Lets a's kernels and copies reach b's memory: after it a buffer of b
     * is a valid GC_ARG_BUF argument of a kernel launched on a (unified
     * addressing). Enabling twice is no error. GC_ENOTSUP with the driver's
     * reason when refused. NULL exactly when peer_info is. */
    int (*peer_enable)(struct gc_dev *a, struct gc_dev *b);
    /* Performs the n copies c[0..n) (n <= GC_PEER_MAX_COPIES) at once, each
     * repeated count times back to back on a stream of its own on its
     * issuing device, all released from one common start, and waits. Times
     * in *out (device events; host_s from the host clock). The copies must
     * not overlap. On failure the message is in the error of the device
     * that issues c[0]. NULL exactly when peer_info is. */
    int (*peer_copies)(const struct gc_peer_copy *c, int n, int count, struct gc_peer_times *out);
};

/* The registered backends, NULL-terminated, in default-device order. */
extern const struct gc_backend_ops *const gc__backends[];

#endif
