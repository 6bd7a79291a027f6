/* The OpenCL backend's programs: OpenCL C built to a binary, binaries loaded,
 * kernels looked up in them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/opencl/loader.h"
#include "backend/opencl/opencl_int.h"

/* The build log of prog for the device, malloc'ed; NULL when empty or not
 * available. */
static char *build_log(cl_program prog, cl_device_id device)
{
    size_t n = 0;
    char *s;

    if (gc__cl.clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) !=
            CL_SUCCESS ||
        n == 0)
        return NULL;
    s = malloc(n + 1);
    if (!s)
        return NULL;
    if (gc__cl.clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, n, s, NULL) !=
        CL_SUCCESS) {
        free(s);
        return NULL;
    }
    s[n] = '\0';
    /* Implementations pad the log with blank lines; trim them so that an
     * empty log reads as none. */
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\0'))
        s[--n] = '\0';
    if (n == 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Builds prog for the device; a failure is GC_ECOMPILE with the log in the
 * error message, which names the calling function and line. The log is
 * handed to *log when log is not NULL. */
static int build(struct gc_dev *d, cl_program prog, const char *options, char **log,
                 const char *func, int line)
{
    cl_int clrc = gc__cl.clBuildProgram(prog, 1, &d->device, options, NULL, NULL);
    char *lg = build_log(prog, d->device);

    if (clrc != CL_SUCCESS)
        gc__cl_set_cl_error(d, "clBuildProgram", clrc, func, line,
                            lg ? lg : "(the compiler wrote no log)");
    if (log)
        *log = lg;
    else
        free(lg);
    return clrc == CL_SUCCESS ? 0 : GC_ECOMPILE;
}

/* Each call builds its own program object, and OpenCL allows building
 * distinct programs from several threads at once, so compile() needs no lock
 * of its own. */
int gc__cl_compile(struct gc_dev *d, const char *src, const char *options, void **bin,
                   size_t *binlen, char **log)
{
    cl_program prog = NULL;
    unsigned char *b = NULL;
    unsigned char *ptrs[1];
    size_t n = 0;
    cl_int clrc;
    int rc = GC_EBACKEND;

    *bin = NULL;
    *binlen = 0;
    if (log)
        *log = NULL;
    /* A device in a shared context builds in its own (one binary). */
    GC_CL_CREATE(
        d, prog,
        gc__cl.clCreateProgramWithSource(d->own_ctx ? d->own_ctx : d->ctx, 1, &src, NULL, &clrc));
    rc = build(d, prog, options, log, __func__, __LINE__);
    if (rc)
        goto out;
    rc = GC_EBACKEND;
    GC_CL_CALL(d, gc__cl.clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(n), &n, NULL));
    if (n == 0) {
        gc__cl_set_error(d, "clGetProgramInfo reports an empty binary for the built program");
        goto out;
    }
    b = malloc(n);
    if (!b) {
        rc = GC_ENOMEM;
        gc__cl_set_error(d, "out of host memory for a %zu-byte program binary", n);
        goto out;
    }
    ptrs[0] = b;
    GC_CL_CALL(d, gc__cl.clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(ptrs), ptrs, NULL));
    *bin = b;
    *binlen = n;
    b = NULL;
    rc = 0;
out:
    free(b);
    if (prog)
        gc__cl.clReleaseProgram(prog);
    return rc;
}

void gc__cl_unload_prog(struct gc_prog *p)
{
    if (!p)
        return;
    while (p->kernels) {
        struct gc_kern *k = p->kernels;

        p->kernels = k->next;
        gc__cl.clReleaseKernel(k->kernel);
        free(k);
    }
    if (p->program)
        gc__cl.clReleaseProgram(p->program);
    free(p);
}

int gc__cl_load_prog(struct gc_dev *d, const void *bin, size_t binlen, struct gc_prog **out)
{
    struct gc_prog *p = NULL;
    const unsigned char *b = bin;
    cl_int status = CL_SUCCESS, clrc;
    int rc = GC_EBACKEND;

    *out = NULL;
    p = calloc(1, sizeof(*p));
    if (!p) {
        gc__cl_set_error(d, "out of host memory loading a program");
        return GC_ENOMEM;
    }
    p->dev = d;
    GC_CL_CREATE(
        d, p->program,
        gc__cl.clCreateProgramWithBinary(d->ctx, 1, &d->device, &binlen, &b, &status, &clrc));
    /* A binary must still be built before kernels can be created from it;
     * for most implementations this only finalises it (NVIDIA translates its
     * PTX here). */
    rc = build(d, p->program, NULL, NULL, __func__, __LINE__);
    if (rc)
        goto out;
    *out = p;
    p = NULL;
out:
    gc__cl_unload_prog(p);
    return rc;
}

int gc__cl_kernel(struct gc_prog *p, const char *name, struct gc_kern **out)
{
    struct gc_dev *d = p->dev;
    struct gc_kern *k = NULL;
    cl_ulong local = 0;
    cl_int clrc = CL_SUCCESS;
    int rc = GC_EBACKEND;

    *out = NULL;
    k = calloc(1, sizeof(*k));
    if (!k) {
        gc__cl_set_error(d, "out of host memory creating kernel %s", name);
        return GC_ENOMEM;
    }
    k->prog = p;
    snprintf(k->name, sizeof(k->name), "%s", name);
    GC_CL_CREATE(d, k->kernel, gc__cl.clCreateKernel(p->program, name, &clrc));
    GC_CL_CALL(d, gc__cl.clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof(k->nargs), &k->nargs,
                                         NULL));
    GC_CL_CALL(d, gc__cl.clGetKernelWorkGroupInfo(k->kernel, d->device, CL_KERNEL_WORK_GROUP_SIZE,
                                                  sizeof(k->max_wg), &k->max_wg, NULL));
    /* Queried now, while no __local argument is set: later the figure would
     * include the dynamic local memory of the last launch. */
    GC_CL_CALL(d, gc__cl.clGetKernelWorkGroupInfo(k->kernel, d->device, CL_KERNEL_LOCAL_MEM_SIZE,
                                                  sizeof(local), &local, NULL));
    k->static_local = (size_t)local;
    k->next = p->kernels;
    p->kernels = k;
    *out = k;
    k = NULL;
    rc = 0;
out:
    if (k) {
        if (k->kernel)
            gc__cl.clReleaseKernel(k->kernel);
        free(k);
        if (clrc == CL_INVALID_KERNEL_NAME)
            rc = GC_EINVAL;
    }
    return rc;
}

/* OpenCL does not report registers per work-item: regs is 0 (unknown). */
int gc__cl_kernel_attrs(struct gc_kern *k, int *regs, size_t *static_shared, int *max_threads)
{
    if (regs)
        *regs = 0;
    if (static_shared)
        *static_shared = k->static_local;
    if (max_threads)
        *max_threads = (int)k->max_wg;
    return 0;
}
