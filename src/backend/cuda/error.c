/* The CUDA backend's error messages (error.h): the device's buffer or, for
 * failures with no device to hold them, the backend's own. */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend/cuda/cuda_int.h"
#include "backend/cuda/error.h"
#include "backend/cuda/loader.h"

/* Messages of failures that have no device to hold them (init, device_info). */
static pthread_mutex_t g_err_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_err[GC_ERRLEN];

/* Writes the message of a failure into the device's buffer. */
void gc__cu_set_error(struct gc_dev *d, const char *fmt, ...)
{
    pthread_mutex_t *lock = d ? &d->err_lock : &g_err_lock;
    char *buf = d ? d->err : g_err;
    va_list ap;

    pthread_mutex_lock(lock);
    va_start(ap, fmt);
    vsnprintf(buf, GC_ERRLEN, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(lock);
}

/* Appends to the message already in the device's buffer. */
void gc__cu_append_error(struct gc_dev *d, const char *fmt, ...)
{
    pthread_mutex_t *lock = d ? &d->err_lock : &g_err_lock;
    char *buf = d ? d->err : g_err;
    size_t n;
    va_list ap;

    pthread_mutex_lock(lock);
    n = strlen(buf);
    va_start(ap, fmt);
    vsnprintf(buf + n, GC_ERRLEN - n, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(lock);
}

/* The API name in a stringified call: "cuMemAlloc" out of
 * "gc__cu.cuMemAlloc(&b->ptr, bytes)". */
void gc__cu_api_name(const char *call, char *out, size_t len)
{
    const char *end = strchr(call, '(');
    const char *start;

    if (!end)
        end = call + strlen(call);
    start = end;
    while (start > call && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
        start--;
    snprintf(out, len, "%.*s", (int)(end - start), start);
}

/* Names of the errors the backend expects, for a driver that cannot name
 * them itself (the toolkit's stub library, a failed cuInit). */
static const char *known_cu_error(CUresult res)
{
#define GC__CU_ERR(e)                                                                              \
    case e:                                                                                        \
        return #e;
    switch (res) {
        GC__CU_ERR(CUDA_SUCCESS)
        GC__CU_ERR(CUDA_ERROR_INVALID_VALUE)
        GC__CU_ERR(CUDA_ERROR_OUT_OF_MEMORY)
        GC__CU_ERR(CUDA_ERROR_NOT_INITIALIZED)
        GC__CU_ERR(CUDA_ERROR_STUB_LIBRARY)
        GC__CU_ERR(CUDA_ERROR_INSUFFICIENT_DRIVER)
        GC__CU_ERR(CUDA_ERROR_NO_DEVICE)
        GC__CU_ERR(CUDA_ERROR_INVALID_IMAGE)
        GC__CU_ERR(CUDA_ERROR_NO_BINARY_FOR_GPU)
        GC__CU_ERR(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
        GC__CU_ERR(CUDA_ERROR_NOT_READY)
        GC__CU_ERR(CUDA_ERROR_ILLEGAL_ADDRESS)
        GC__CU_ERR(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        GC__CU_ERR(CUDA_ERROR_LAUNCH_FAILED)
    }
#undef GC__CU_ERR
    return NULL;
}

int gc__cu_fail(struct gc_dev *d, CUresult res, const char *call, const char *func, int line)
{
    const char *name = NULL, *str = NULL;
    char api[96];

    gc__cu_api_name(call, api, sizeof(api));
    if (!gc__cu.cuGetErrorName || gc__cu.cuGetErrorName(res, &name) != CUDA_SUCCESS)
        name = known_cu_error(res);
    if (!gc__cu.cuGetErrorString || gc__cu.cuGetErrorString(res, &str) != CUDA_SUCCESS)
        str = NULL;
    if (name)
        gc__cu_set_error(d, "%s failed: %s: %s (in %s, line %d)", api, name,
                         str ? str : "no description", func, line);
    else
        gc__cu_set_error(d, "%s failed: CUDA error %d (in %s, line %d)", api, (int)res, func, line);
    return res == CUDA_ERROR_OUT_OF_MEMORY ? GC_EDEVMEM : GC_EBACKEND;
}

const char *gc__cu_backend_error(void)
{
    return g_err;
}
