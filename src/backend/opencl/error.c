/* The OpenCL backend's error messages (error.h): the names of the native
 * codes and the device's buffer for the message of its last failure. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend/opencl/error.h"
#include "backend/opencl/opencl_int.h"

/* The native codes named in error messages. */
#define GC_CL_CODES(XX)                                                                            \
    XX(CL_SUCCESS)                                                                                 \
    XX(CL_DEVICE_NOT_FOUND)                                                                        \
    XX(CL_DEVICE_NOT_AVAILABLE)                                                                    \
    XX(CL_COMPILER_NOT_AVAILABLE)                                                                  \
    XX(CL_MEM_OBJECT_ALLOCATION_FAILURE)                                                           \
    XX(CL_OUT_OF_RESOURCES)                                                                        \
    XX(CL_OUT_OF_HOST_MEMORY)                                                                      \
    XX(CL_PROFILING_INFO_NOT_AVAILABLE)                                                            \
    XX(CL_MEM_COPY_OVERLAP)                                                                        \
    XX(CL_BUILD_PROGRAM_FAILURE)                                                                   \
    XX(CL_MAP_FAILURE)                                                                             \
    XX(CL_MISALIGNED_SUB_BUFFER_OFFSET)                                                            \
    XX(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)                                               \
    XX(CL_COMPILE_PROGRAM_FAILURE)                                                                 \
    XX(CL_LINKER_NOT_AVAILABLE)                                                                    \
    XX(CL_LINK_PROGRAM_FAILURE)                                                                    \
    XX(CL_INVALID_VALUE)                                                                           \
    XX(CL_INVALID_DEVICE_TYPE)                                                                     \
    XX(CL_INVALID_PLATFORM)                                                                        \
    XX(CL_INVALID_DEVICE)                                                                          \
    XX(CL_INVALID_CONTEXT)                                                                         \
    XX(CL_INVALID_QUEUE_PROPERTIES)                                                                \
    XX(CL_INVALID_COMMAND_QUEUE)                                                                   \
    XX(CL_INVALID_HOST_PTR)                                                                        \
    XX(CL_INVALID_MEM_OBJECT)                                                                      \
    XX(CL_INVALID_BINARY)                                                                          \
    XX(CL_INVALID_BUILD_OPTIONS)                                                                   \
    XX(CL_INVALID_PROGRAM)                                                                         \
    XX(CL_INVALID_PROGRAM_EXECUTABLE)                                                              \
    XX(CL_INVALID_KERNEL_NAME)                                                                     \
    XX(CL_INVALID_KERNEL_DEFINITION)                                                               \
    XX(CL_INVALID_KERNEL)                                                                          \
    XX(CL_INVALID_ARG_INDEX)                                                                       \
    XX(CL_INVALID_ARG_VALUE)                                                                       \
    XX(CL_INVALID_ARG_SIZE)                                                                        \
    XX(CL_INVALID_KERNEL_ARGS)                                                                     \
    XX(CL_INVALID_WORK_DIMENSION)                                                                  \
    XX(CL_INVALID_WORK_GROUP_SIZE)                                                                 \
    XX(CL_INVALID_WORK_ITEM_SIZE)                                                                  \
    XX(CL_INVALID_GLOBAL_OFFSET)                                                                   \
    XX(CL_INVALID_EVENT_WAIT_LIST)                                                                 \
    XX(CL_INVALID_EVENT)                                                                           \
    XX(CL_INVALID_OPERATION)                                                                       \
    XX(CL_INVALID_BUFFER_SIZE)                                                                     \
    XX(CL_INVALID_GLOBAL_WORK_SIZE)                                                                \
    XX(CL_INVALID_PROPERTY)                                                                        \
    XX(CL_INVALID_COMPILER_OPTIONS)                                                                \
    XX(CL_INVALID_LINKER_OPTIONS)                                                                  \
    XX(CL_PLATFORM_NOT_FOUND_KHR)

const char *gc__cl_code_name(cl_int code)
{
    static const struct {
        cl_int code;
        const char *name;
    } codes[] = {
#define GC__CL_CODE(c) {c, #c},
        GC_CL_CODES(GC__CL_CODE)
#undef GC__CL_CODE
    };
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        if (codes[i].code == code)
            return codes[i].name;
    }
    return "unknown OpenCL error";
}

void gc__cl_set_error(struct gc_dev *d, const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&d->lock);
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof(d->err), fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&d->lock);
}

/* Writes "<api> failed: <name> (<code>) in <func>() line <line>" and, when
 * detail is given (a build log), the detail on the following lines. The API
 * name is recovered from the stringised call: the identifier after "gc__cl.". */
void gc__cl_set_cl_error(struct gc_dev *d, const char *call, cl_int code, const char *func,
                         int line, const char *detail)
{
    const char *api = strstr(call, "gc__cl.");
    int n;

    api = api ? api + strlen("gc__cl.") : call;
    n = (int)strcspn(api, "( ");
    if (detail && *detail)
        gc__cl_set_error(d, "%.*s failed: %s (%d) in %s() line %d\n%s", n, api,
                         gc__cl_code_name(code), (int)code, func, line, detail);
    else
        gc__cl_set_error(d, "%.*s failed: %s (%d) in %s() line %d", n, api, gc__cl_code_name(code),
                         (int)code, func, line);
}
