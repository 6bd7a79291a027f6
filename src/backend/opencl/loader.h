/* Run-time loading of the OpenCL ICD loader (libOpenCL.so.1): one table of
 * function pointers, filled by dlsym and checked symbol by symbol at load. */
#ifndef GC_BACKEND_OPENCL_LOADER_H
#define GC_BACKEND_OPENCL_LOADER_H

#include <stddef.h>

#include <CL/cl.h>

/* Every entry point the backend calls, as XX(return type, name, parameter
 * list). The list generates both the table's members and the symbols that
 * gc__cl_load() requires, so a function cannot be called without having been
 * checked at load. All of them exist since OpenCL 1.2; clCreateCommandQueue is
 * deprecated from 2.0 on but every ICD loader still exports it. */
#define GC_CL_SYMBOLS(XX)                                                                          \
    XX(cl_int, clGetPlatformIDs, (cl_uint, cl_platform_id *, cl_uint *))                           \
    XX(cl_int, clGetPlatformInfo, (cl_platform_id, cl_platform_info, size_t, void *, size_t *))    \
    XX(cl_int, clGetDeviceIDs,                                                                     \
       (cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *))                       \
    XX(cl_int, clGetDeviceInfo, (cl_device_id, cl_device_info, size_t, void *, size_t *))          \
    XX(cl_context, clCreateContext,                                                                \
       (const cl_context_properties *, cl_uint, const cl_device_id *,                              \
        void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *, cl_int *))        \
    XX(cl_int, clReleaseContext, (cl_context))                                                     \
    XX(cl_command_queue, clCreateCommandQueue,                                                     \
       (cl_context, cl_device_id, cl_command_queue_properties, cl_int *))                          \
    XX(cl_int, clReleaseCommandQueue, (cl_command_queue))                                          \
    XX(cl_program, clCreateProgramWithSource,                                                      \
       (cl_context, cl_uint, const char **, const size_t *, cl_int *))                             \
    XX(cl_program, clCreateProgramWithBinary,                                                      \
       (cl_context, cl_uint, const cl_device_id *, const size_t *, const unsigned char **,         \
        cl_int *, cl_int *))                                                                       \
    XX(cl_int, clBuildProgram,                                                                     \
       (cl_program, cl_uint, const cl_device_id *, const char *,                                   \
        void(CL_CALLBACK *)(cl_program, void *), void *))                                          \
    XX(cl_int, clGetProgramInfo, (cl_program, cl_program_info, size_t, void *, size_t *))          \
    XX(cl_int, clGetProgramBuildInfo,                                                              \
       (cl_program, cl_device_id, cl_program_build_info, size_t, void *, size_t *))                \
    XX(cl_int, clReleaseProgram, (cl_program))                                                     \
    XX(cl_kernel, clCreateKernel, (cl_program, const char *, cl_int *))                            \
    XX(cl_int, clReleaseKernel, (cl_kernel))                                                       \
    XX(cl_int, clGetKernelInfo, (cl_kernel, cl_kernel_info, size_t, void *, size_t *))             \
    XX(cl_int, clGetKernelWorkGroupInfo,                                                           \
       (cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *, size_t *))             \
    XX(cl_int, clSetKernelArg, (cl_kernel, cl_uint, size_t, const void *))                         \
    XX(cl_mem, clCreateBuffer, (cl_context, cl_mem_flags, size_t, void *, cl_int *))               \
    XX(cl_int, clReleaseMemObject, (cl_mem))                                                       \
    XX(cl_int, clEnqueueReadBuffer,                                                                \
       (cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint, const cl_event *,      \
        cl_event *))                                                                               \
    XX(cl_int, clEnqueueWriteBuffer,                                                               \
       (cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint,                  \
        const cl_event *, cl_event *))                                                             \
    XX(cl_int, clEnqueueCopyBuffer,                                                                \
       (cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint, const cl_event *,       \
        cl_event *))                                                                               \
    XX(void *, clEnqueueMapBuffer,                                                                 \
       (cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint,                  \
        const cl_event *, cl_event *, cl_int *))                                                   \
    XX(cl_int, clEnqueueUnmapMemObject,                                                            \
       (cl_command_queue, cl_mem, void *, cl_uint, const cl_event *, cl_event *))                  \
    XX(cl_int, clEnqueueNDRangeKernel,                                                             \
       (cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *,      \
        cl_uint, const cl_event *, cl_event *))                                                    \
    XX(cl_int, clFinish, (cl_command_queue))                                                       \
    XX(cl_int, clFlush, (cl_command_queue))                                                        \
    XX(cl_int, clWaitForEvents, (cl_uint, const cl_event *))                                       \
    XX(cl_int, clGetEventProfilingInfo, (cl_event, cl_profiling_info, size_t, void *, size_t *))   \
    XX(cl_int, clReleaseEvent, (cl_event))                                                         \
    XX(cl_int, clRetainContext, (cl_context))                                                      \
    XX(cl_event, clCreateUserEvent, (cl_context, cl_int *))                                        \
    XX(cl_int, clSetUserEventStatus, (cl_event, cl_int))                                           \
    XX(cl_int, clEnqueueMigrateMemObjects,                                                         \
       (cl_command_queue, cl_uint, const cl_mem *, cl_mem_migration_flags, cl_uint,                \
        const cl_event *, cl_event *))

/* The loaded entry points; valid between a successful gc__cl_load() and
 * gc__cl_unload(). Called as gc__cl.clFinish(queue). */
struct gc_cl_api {
#define GC__CL_MEMBER(ret, name, params) ret(CL_API_CALL *name) params;
    GC_CL_SYMBOLS(GC__CL_MEMBER)
#undef GC__CL_MEMBER
};

extern struct gc_cl_api gc__cl;

/* Default library name, and the environment variable that overrides it with
 * a path or another name. */
#define GC_CL_LIBNAME "libOpenCL.so.1"
#define GC_CL_LIBENV "GPUCHAR_LIBOPENCL"

/* Opens the ICD loader and resolves every symbol of GC_CL_SYMBOLS. Returns 0,
 * or GC_ENOLIB with why naming the library and dlerror() (library missing) or
 * the first missing symbol; the table is then left cleared. Loading twice
 * without gc__cl_unload() in between is GC_EINVAL. */
int gc__cl_load(char *why, size_t whylen);

/* Clears the table and closes the library, so that gc__cl_load() can run
 * again (possibly with another GPUCHAR_LIBOPENCL). Safe when nothing is loaded. */
void gc__cl_unload(void);

#endif
