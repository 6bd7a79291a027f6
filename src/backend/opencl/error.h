/* The OpenCL backend's error messages (error.c). Private to
 * src/backend/opencl/. */
#ifndef GC_BACKEND_OPENCL_ERROR_H
#define GC_BACKEND_OPENCL_ERROR_H

#include <CL/cl.h>

/* Returned by the ICD loader's clGetPlatformIDs when no vendor driver is
 * installed (cl_khr_icd); it means zero platforms, not a failure. */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

struct gc_dev;

/* The name of an OpenCL error code ("CL_INVALID_VALUE"). */
const char *gc__cl_code_name(cl_int code);

void gc__cl_set_error(struct gc_dev *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes "<api> failed: <name> (<code>) in <func>() line <line>" and, when
 * detail is given (a build log), the detail on the following lines. The API
 * name is recovered from the stringised call: the identifier after "gc__cl.". */
void gc__cl_set_cl_error(struct gc_dev *d, const char *call, cl_int code, const char *func,
                         int line, const char *detail);

#endif
