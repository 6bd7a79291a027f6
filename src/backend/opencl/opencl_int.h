/* What the files of the OpenCL backend share: the backend's objects, the
 * error helpers and the GC_CL_CALL / GC_CL_CREATE macros. Private to
 * src/backend/opencl/. */
#ifndef GC_BACKEND_OPENCL_OPENCL_INT_H
#define GC_BACKEND_OPENCL_OPENCL_INT_H

#include <pthread.h>
#include <stdbool.h>

#include <CL/cl.h>

#include "backend/backend.h"

struct gc_dev {
    int index;
    cl_platform_id platform;
    cl_device_id device;
    cl_context ctx;
    cl_command_queue queue;
    size_t max_alloc;
    size_t local_mem; /* CL_DEVICE_LOCAL_MEM_SIZE */
    bool cpu;         /* CL_DEVICE_TYPE_CPU: kernels run on the host's memory */
    /* compile() may fail on several threads at once; the lock keeps their
     * messages from interleaving in err. */
    pthread_mutex_t lock;
    char err[GC_ERRLEN];
    /* The second in-order queue of bidirectional copies (transfer.c), made on
     * first use. */
    cl_command_queue queue2;
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

/* The name of an OpenCL error code ("CL_INVALID_VALUE"). */
const char *gc__cl_code_name(cl_int code);

void gc__cl_set_error(struct gc_dev *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes "<api> failed: <name> (<code>) in <func>() line <line>" and, when
 * detail is given (a build log), the detail on the following lines. The API
 * name is recovered from the stringised call: the identifier after "gc__cl.". */
void gc__cl_set_cl_error(struct gc_dev *d, const char *call, cl_int code, const char *func,
                         int line, const char *detail);

/* Sets the arguments of a launch on the kernel (see opencl.c). */
int gc__cl_set_args(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l);

/* Checks a launch's count and shape and gives the NDRange: global and local
 * sizes per dimension and the work dimension (the highest one in use).
 * GC_EINVAL with the device's error set on a count under 1 or a 0 extent. */
int gc__cl_launch_shape(struct gc_dev *d, const struct gc_kern *k, const struct gc_launch *l,
                        size_t global[3], size_t local[3], cl_uint *dims);

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
