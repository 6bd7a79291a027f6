/* What the files of the OpenCL backend share: the backend's objects, the
 * error helpers and the GC_CL_CALL / GC_CL_CREATE macros. Private to
 * src/backend/opencl/. */
#ifndef GC_BACKEND_OPENCL_OPENCL_INT_H
#define GC_BACKEND_OPENCL_OPENCL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <CL/cl.h>

#include "backend/backend.h"
#include "backend/opencl/error.h"

struct gc_dev {
    int index;
    cl_platform_id platform;
    cl_device_id device;
    cl_context ctx;
    cl_command_queue queue;
    size_t max_alloc;
    size_t local_mem; /* CL_DEVICE_LOCAL_MEM_SIZE */
    bool cpu;         /* CL_DEVICE_TYPE_CPU: kernels run on the host's memory */
    /* Platforms whose clBuildProgram runs one build at a time per process,
     * whatever the threads: NVIDIA's (cl_nv_device_attribute_query; on an
     * H200 16 threads kept 1.2 cores busy) and PoCL (its LLVM compiles
     * behind one lock; on 2 cores 2 threads kept one busy). */
    bool compile_serialized;
    /* compile() may fail on several threads at once; the lock keeps their
     * messages from interleaving in err. */
    pthread_mutex_t lock;
    char err[GC_ERRLEN];
    /* The second in-order queue of bidirectional copies (transfer.c), made on
     * first use. */
    cl_command_queue queue2;
    /* Opened with other devices of its platform in one context (group.c):
     * ctx is shared (each device holds a reference); own_ctx, the device's
     * context of its own, is where its programs are built (a program of the
     * shared context would hold a binary per device). share_why: why the
     * device is not in a shared context where it was asked to be. */
    bool shared;
    cl_context own_ctx;
    char share_why[256];
};

struct gc_kern {
    struct gc_prog *prog;
    cl_kernel kernel;
    cl_uint nargs;       /* CL_KERNEL_NUM_ARGS, checked at every launch */
    size_t static_local; /* CL_KERNEL_LOCAL_MEM_SIZE before any argument is set */
    size_t max_wg;       /* CL_KERNEL_WORK_GROUP_SIZE */
    struct gc_kern *next;
    char name[128];
};

/* The vtable has no call to release a kernel, so a program owns the kernels
 * created from it and unload() releases them all. */
struct gc_prog {
    struct gc_dev *dev;
    cl_program program;
    struct gc_kern *kernels;
};

struct gc_buf {
    struct gc_dev *dev;
    cl_mem mem;
    size_t size;
    void *host;    /* the memory of a CL_MEM_USE_HOST_PTR buffer, ours to free */
    bool borrowed; /* the view of mapped host memory (transfer.c): freed with it */
};

/* Opening (opencl.c): device index in ctx when shared is non-NULL (a
 * context of the device's platform holding it; the device takes a
 * reference), else in a context of its own. */
int gc__cl_open_in(int index, cl_context shared, struct gc_dev **out, char *err, size_t errlen);
/* Devices of one platform opened in one context (group.c). */
int gc__cl_open_group(const int *index, int n, struct gc_dev **out, char *err, size_t errlen);

/* Peer links (peer.c): copies between devices that share a context. */
int gc__cl_peer_info(struct gc_dev *a, struct gc_dev *b, struct gc_peer_info *out);
int gc__cl_peer_enable(struct gc_dev *a, struct gc_dev *b);
int gc__cl_peer_copies(const struct gc_peer_copy *c, int n, int count, struct gc_peer_times *out);

/* Device facts (device.c). info_str: a string property of a device (device
 * != NULL) or of a platform, malloc'ed; NULL when the query fails. */
char *gc__cl_info_str(cl_platform_id platform, cl_device_id device, cl_uint param);
bool gc__cl_dev_get(cl_device_id d, cl_uint param, void *v, size_t n);
/* True when the space-separated extension list exts names ext. */
bool gc__cl_has_ext(const char *exts, const char *ext);
int gc__cl_device_info(int index, struct gc_device_info *out);
void gc__cl_probe_simd_width(struct gc_dev *d);

/* The in-kernel clocks (clock.c): GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER |
 * GC_CAP_SMID | GC_CAP_INLINE_ASM where a probe kernel reading the PTX
 * special registers through inline asm builds on the device and returns
 * increasing, plausible values; else 0 (with no error kept anywhere). */
unsigned gc__cl_probe_clocks(cl_platform_id platform, cl_device_id device, int compute_units);

/* Programs and kernels (program.c). */
int gc__cl_compile(struct gc_dev *d, const char *src, const char *options, void **bin,
                   size_t *binlen, char **log);
int gc__cl_load_prog(struct gc_dev *d, const void *bin, size_t binlen, struct gc_prog **out);
void gc__cl_unload_prog(struct gc_prog *p);
int gc__cl_kernel(struct gc_prog *p, const char *name, struct gc_kern **out);
int gc__cl_kernel_attrs(struct gc_kern *k, int *regs, size_t *static_shared, int *max_threads);

/* Buffers (buffer.c). */
int gc__cl_alloc(struct gc_dev *d, size_t bytes, struct gc_buf **out);
int gc__cl_alloc_large_pages(struct gc_dev *d, size_t bytes, struct gc_buf **out, size_t *page);
void gc__cl_free(struct gc_buf *b);
int gc__cl_write(struct gc_buf *b, size_t offset, const void *src, size_t bytes);
int gc__cl_read(struct gc_buf *b, size_t offset, void *dst, size_t bytes);
int gc__cl_copy(struct gc_buf *dst, size_t dst_off, struct gc_buf *src, size_t src_off,
                size_t bytes);
int gc__cl_map(struct gc_buf *b, size_t offset, size_t bytes, void **host);
int gc__cl_unmap(struct gc_buf *b, void *host);

/* Launches (launch.c): one batch timed by the events of its first and last
 * launch. */
int gc__cl_launch(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                  double *elapsed_s);

/* Calls an OpenCL function returning cl_int; on failure records the API,
 * the native code with its name, the function and the line in the device's
 * error buffer and jumps to the caller's out label. The native code is left
 * in the caller's local cl_int clrc. */
#define GC_CL_CALL(dev, call)                                                                      \
    do {                                                                                           \
        clrc = (call);                                                                             \
        if (clrc != CL_SUCCESS) {                                                                  \
            gc__cl_set_cl_error((dev), #call, clrc, __func__, __LINE__, NULL);                     \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* The same for the creators, which return an object and report their code
 * through their last argument (which must be &clrc). */
#define GC_CL_CREATE(dev, lhs, call)                                                               \
    do {                                                                                           \
        clrc = CL_SUCCESS;                                                                         \
        (lhs) = (call);                                                                            \
        if (clrc != CL_SUCCESS || !(lhs)) {                                                        \
            if (clrc == CL_SUCCESS)                                                                \
                clrc = CL_OUT_OF_RESOURCES;                                                        \
            gc__cl_set_cl_error((dev), #call, clrc, __func__, __LINE__, NULL);                     \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* The overhead and transfer entry points (transfer.c, launch.c). */
int gc__cl_host_alloc(struct gc_dev *d, size_t bytes, enum gc_host_kind kind,
                      struct gc_hostmem **out);
void gc__cl_host_free(struct gc_hostmem *h);
int gc__cl_transfer(struct gc_dev *d, const struct gc_xfer *x, double *elapsed_s);
int gc__cl_launch_timed(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                        unsigned flags, struct gc_launch_times *out);
int gc__cl_sync(struct gc_dev *d);
/* Releases what transfer.c made on first use (queue2). */
void gc__cl_overhead_release(struct gc_dev *d);

#endif
