/* The OpenCL backend's probe of the in-kernel clocks. OpenCL C has no clock
 * read; NVIDIA's compiler accepts inline PTX, and with it the SM's cycle
 * counter (%clock64), the ns timer (%globaltimer) and the SM id (%smid) that
 * CUDA kernels read. Whether a device takes them is learnt by running them:
 * a compiler that does not know inline PTX (PoCL's) fails the build, and
 * the device keeps the event-timed paths. */
#include <stdint.h>
#include <string.h>

#include "backend/opencl/loader.h"
#include "backend/opencl/opencl_int.h"

/* Reads the counter and the timer, spins until 20 us of the timer have
 * passed (bounded in iterations, so a timer that does not run cannot hang
 * the probe), reads both again and the SM id. The reads are static inline
 * functions around the asm, as the kernels' prelude spells them
 * (src/kgen/kgen.c), so that a pass means those kernels build too. */
static const char probe_src[] =
    "static inline ulong gc_clock64(void)\n"
    "{ ulong t; asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(t)); return t; }\n"
    "static inline ulong gc_globaltimer(void)\n"
    "{ ulong t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); return t; }\n"
    "static inline uint gc_smid(void)\n"
    "{ uint r; asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(r)); return r; }\n"
    "__kernel void gc_clocks(__global ulong *o)\n"
    "{\n"
    "    uint i = 0;\n"
    "    ulong t0 = gc_globaltimer(), c0 = gc_clock64(), t1;\n"
    "    do {\n"
    "        t1 = gc_globaltimer();\n"
    "    } while (t1 - t0 < 20000 && ++i < 4000000u);\n"
    "    ulong c1 = gc_clock64();\n"
    "    o[0] = c0;\n    o[1] = c1;\n    o[2] = t0;\n    o[3] = t1;\n    o[4] = gc_smid();\n"
    "}\n";

/* Plausible readings: both clocks ran forward, the timer for the whole
 * spin, the cycle counter at 50 MHz to 10 GHz against it, and the SM id is
 * one of the device's. */
static bool sane(const uint64_t o[5], int compute_units)
{
    if (o[1] <= o[0] || o[3] <= o[2] || o[3] - o[2] < 20000)
        return false;
    double mhz = (double)(o[1] - o[0]) / (double)(o[3] - o[2]) * 1e3;
    return mhz >= 50 && mhz <= 10000 && (compute_units <= 0 || o[4] < (uint64_t)compute_units);
}

unsigned gc__cl_probe_clocks(cl_platform_id platform, cl_device_id device, int compute_units)
{
    cl_context_properties props[3] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    const char *src = probe_src;
    cl_context ctx = NULL;
    cl_command_queue q = NULL;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_mem buf = NULL;
    uint64_t o[5];
    size_t one = 1;
    cl_int clrc;
    unsigned caps = 0;

    memset(o, 0xff, sizeof(o)); /* poison: a kernel that wrote nothing fails sane() */
    ctx = gc__cl.clCreateContext(props, 1, &device, NULL, NULL, &clrc);
    if (clrc != CL_SUCCESS || !ctx)
        goto out;
    q = gc__cl.clCreateCommandQueue(ctx, device, 0, &clrc);
    if (clrc != CL_SUCCESS || !q)
        goto out;
    prog = gc__cl.clCreateProgramWithSource(ctx, 1, &src, NULL, &clrc);
    if (clrc != CL_SUCCESS || !prog ||
        gc__cl.clBuildProgram(prog, 1, &device, NULL, NULL, NULL) != CL_SUCCESS)
        goto out;
    k = gc__cl.clCreateKernel(prog, "gc_clocks", &clrc);
    if (clrc != CL_SUCCESS || !k)
        goto out;
    buf = gc__cl.clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(o), o, &clrc);
    if (clrc != CL_SUCCESS || !buf ||
        gc__cl.clSetKernelArg(k, 0, sizeof(buf), &buf) != CL_SUCCESS ||
        gc__cl.clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL) != CL_SUCCESS ||
        gc__cl.clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(o), o, 0, NULL, NULL) != CL_SUCCESS)
        goto out;
    if (sane(o, compute_units))
        caps = GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER | GC_CAP_SMID | GC_CAP_INLINE_ASM;
out:
    if (buf)
        gc__cl.clReleaseMemObject(buf);
    if (k)
        gc__cl.clReleaseKernel(k);
    if (prog)
        gc__cl.clReleaseProgram(prog);
    if (q)
        gc__cl.clReleaseCommandQueue(q);
    if (ctx)
        gc__cl.clReleaseContext(ctx);
    return caps;
}
