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

/* Every callback returns 0 or a negative GC_E code and, on failure, writes a
 * message into the char buffer err[GC_ERRLEN] of its device (see errbuf). */
#define GC_ERRLEN 4096

struct gc_backend_ops {
    const char *name; /* "cuda", "opencl", "null" */
    enum gc_dialect dialect;

    /* Loads the backend's libraries and initialises it. On failure writes why
     * (naming the missing library) into why and returns GC_ENOLIB or
     * GC_EBACKEND. Zero devices is success. */
    int (*init)(char *why, size_t whylen);
    /* Releases what init acquired. May be NULL. */
    void (*fini)(void);

    int (*device_count)(void);
    int (*device_info)(int index, struct gc_device_info *out);

    int (*open)(int index, struct gc_dev **out, char *err, size_t errlen);
    void (*close)(struct gc_dev *dev);
    /* Message of the last failure on this device. Never NULL. */
    const char *(*last_error)(struct gc_dev *dev);

    /* Compiles source to a binary blob that load() accepts. *bin is malloc'ed.
     * *log (malloc'ed, may be NULL) gets the compiler output, also on success.
     * Must be callable from several threads at once for one device. */
    int (*compile)(struct gc_dev *dev, const char *src, const char *options, void **bin,
                   size_t *binlen, char **log);
    int (*load)(struct gc_dev *dev, const void *bin, size_t binlen, struct gc_prog **out);
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
};

/* The registered backends, NULL-terminated, in default-device order. */
extern const struct gc_backend_ops *const gc__backends[];

#endif
