/* What the files of the CUDA backend share: the backend's objects, the error
 * helpers and GC_CU_CALL. Private to src/backend/cuda/. */
#ifndef GC_BACKEND_CUDA_CUDA_INT_H
#define GC_BACKEND_CUDA_CUDA_INT_H

#include <pthread.h>
#include <stdbool.h>

#include "backend/backend.h"
#include "backend/cuda/cuda_api.h"
#include "backend/cuda/error.h"

struct gc_dev {
    int index;
    CUdevice cu;
    CUcontext ctx; /* the device's primary context, retained */
    CUstream stream;
    CUevent ev_start, ev_end;
    nvmlDevice_t nvml; /* NULL when NVML does not know the device */
    char nvml_why[1024];
    struct gc_device_info info;
    pthread_mutex_t err_lock; /* compile() writes err from several threads */
    char err[GC_ERRLEN];
    /* Made on first use by the overhead and transfer calls (overhead.c):
     * the second stream of bidirectional copies and its end event. */
    CUstream stream2;
    CUevent ev_end2;
};

struct gc_kern {
    struct gc_kern *next;
    struct gc_prog *prog;
    CUfunction fn;
    char name[];
};

/* A loaded module. Its kernels belong to it and are freed with it. */
struct gc_prog {
    struct gc_dev *dev;
    CUmodule mod;
    pthread_mutex_t lock;
    struct gc_kern *kerns;
};

struct gc_buf {
    struct gc_dev *dev;
    CUdeviceptr ptr;
    size_t size;
    bool borrowed; /* the device view of mapped host memory: not cuMemFree'd */
};

/* Driver calls: on failure record API name, native error name and text,
 * function and line in the device's buffer (dev NULL: the backend's), set rc
 * and go to the function's cleanup label. */
#define GC_CU_CALL(dev, call)                                                                      \
    do {                                                                                           \
        CUresult gc__res = (call);                                                                 \
        if (gc__res != CUDA_SUCCESS) {                                                             \
            rc = gc__cu_fail((dev), gc__res, #call, __func__, __LINE__);                           \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Storage for one kernel argument; cuLaunchKernel reads as many bytes from
 * its start as the kernel's parameter has. */
union gc__cu_arg {
    CUdeviceptr ptr;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
};

/* Checks a launch description and packs its arguments for cuLaunchKernel:
 * *vals and *params (malloc'ed, NULL without arguments; free both). Also
 * makes the device's context current and allows the launch's dynamic shared
 * memory on the function. */
int gc__cu_prepare_launch(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                          union gc__cu_arg **vals, void ***params);

/* Releases what the overhead calls made on first use (stream2, ev_end2). */
void gc__cu_overhead_release(struct gc_dev *d);

/* The overhead and transfer entry points (overhead.c, transfer.c). */
int gc__cu_host_alloc(struct gc_dev *d, size_t bytes, enum gc_host_kind kind,
                      struct gc_hostmem **out);
void gc__cu_host_free(struct gc_hostmem *h);
int gc__cu_transfer(struct gc_dev *d, const struct gc_xfer *x, double *elapsed_s);
int gc__cu_mem_info(struct gc_dev *d, size_t *free_bytes, size_t *total_bytes);
int gc__cu_link_info(struct gc_dev *d, struct gc_link_info *out);
int gc__cu_launch_timed(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                        unsigned flags, struct gc_launch_times *out);
int gc__cu_sync(struct gc_dev *d);
int gc__cu_graph_create(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                        struct gc_graph **out);
int gc__cu_graph_launch(struct gc_graph *g, unsigned flags, struct gc_launch_times *out);
void gc__cu_graph_destroy(struct gc_graph *g);
/* The peer-link entry points (peer.c). */
int gc__cu_peer_info(struct gc_dev *a, struct gc_dev *b, struct gc_peer_info *out);
int gc__cu_peer_enable(struct gc_dev *a, struct gc_dev *b);
int gc__cu_peer_copies(const struct gc_peer_copy *c, int n, int count, struct gc_peer_times *out);

#endif
