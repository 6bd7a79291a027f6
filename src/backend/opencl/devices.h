/* The enumerated OpenCL devices (devices.c). Private to
 * src/backend/opencl/. */
#ifndef GC_BACKEND_OPENCL_DEVICES_H
#define GC_BACKEND_OPENCL_DEVICES_H

#include <stdatomic.h>
#include <stddef.h>

#include <CL/cl.h>

/* One enumerated device. What device_info learns by running
 * kernels is kept here, since device_info is called before any open and
 * from any thread: simd_width is learnt when the device is first opened
 * (gc__cl_probe_simd_width), clock_caps on the first device_info of an
 * NVIDIA device (clock.c). */
struct gc__cl_devent {
    cl_platform_id platform;
    cl_device_id device;
    atomic_int simd_width; /* 0 until known */
    atomic_int clock_caps; /* GC_CAP_* bits + 1; 0 until probed */
};

/* The enumerated device index; NULL when there is none (or no init). */
struct gc__cl_devent *gc__cl_devent(int index);

/* Lists the devices of every platform once (the loader loaded); 0, or
 * GC_EBACKEND / GC_ENOMEM with the reason in why (and none listed). */
int gc__cl_devices_list(char *why, size_t whylen);
/* The devices listed; -1 before they are. */
int gc__cl_devices_count(void);
/* Forgets the list (fini). */
void gc__cl_devices_forget(void);

#endif
