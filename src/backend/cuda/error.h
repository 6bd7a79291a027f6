/* The CUDA backend's error messages (error.c): each device has a buffer for
 * the message of its last failure, and the backend one for failures that
 * have no device (init, device_info). Private to src/backend/cuda/. */
#ifndef GC_BACKEND_CUDA_ERROR_H
#define GC_BACKEND_CUDA_ERROR_H

#include <stddef.h>

#include "backend/cuda/cuda_api.h"

struct gc_dev;

/* Writes / appends the message of a failure into the device's buffer (the
 * backend's when d is NULL). */
void gc__cu_set_error(struct gc_dev *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gc__cu_append_error(struct gc_dev *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Records a failed driver call (API name from the stringised call, native
 * error name and text, function, line) and returns the GC_E code for it. */
int gc__cu_fail(struct gc_dev *d, CUresult res, const char *call, const char *func, int line);

/* The API name in a stringified call: "cuMemAlloc" out of
 * "gc__cu.cuMemAlloc(&b->ptr, bytes)". */
void gc__cu_api_name(const char *call, char *out, size_t len);

/* The message of the last failure that had no device ("" when none). */
const char *gc__cu_backend_error(void);

#endif
