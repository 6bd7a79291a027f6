/* Run-time loading of the CUDA driver (libcuda.so.1), NVRTC and NVML: one
 * table of function pointers per library, filled by dlsym and checked symbol
 * by symbol at load, so that one binary runs on machines without a GPU. */
#ifndef GC_BACKEND_CUDA_LOADER_H
#define GC_BACKEND_CUDA_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/cuda/cuda_api.h"

/* The loaded entry points, called as gc__cu.cuInit(0). Valid between a
 * successful load and the matching unload. */
#define GC__MEMBER(ret, name, sym, alt, params) gc_pfn_##name name;

struct gc_cu_api {
    GC_CU_SYMBOLS(GC__MEMBER)
};

struct gc_nvrtc_api {
    GC_NVRTC_SYMBOLS(GC__MEMBER)
};

/* The optional members are NULL when the library lacks them. */
struct gc_nvml_api {
    GC_NVML_SYMBOLS(GC__MEMBER)
    GC_NVML_OPTIONAL_SYMBOLS(GC__MEMBER)
};

#undef GC__MEMBER

extern struct gc_cu_api gc__cu;
extern struct gc_nvrtc_api gc__nvrtc;
extern struct gc_nvml_api gc__nvml;

/* Default library names and the environment variables that replace them
 * with a path or another name. */
#define GC_CU_LIBNAME "libcuda.so.1"
#define GC_CU_LIBENV "GPUCHAR_LIBCUDA"
#define GC_NVRTC_LIBENV "GPUCHAR_LIBNVRTC"
#define GC_NVML_LIBNAME "libnvidia-ml.so.1"
#define GC_NVML_LIBENV "GPUCHAR_LIBNVML"

/* Opens the CUDA driver and resolves every symbol of GC_CU_SYMBOLS. Returns 0,
 * or GC_ENOLIB with why naming the library and dlerror() or the first missing
 * symbol; the table is then left cleared. A second call without an unload in
 * between returns 0 at once. */
int gc__cu_load(char *why, size_t whylen);

/* The name or path of the driver library: the one open, else the one that
 * gc__cu_load() would open. */
const char *gc__cu_libname(void);

/* Clears the table, so that the next gc__cu_load() starts over, and closes
 * the library only when keep is false. A driver that cuInit has started must
 * be kept: it runs threads and has registered exit handlers that would jump
 * into unmapped code. gc__cu_load() then reuses the open handle, whatever
 * GPUCHAR_LIBCUDA says by then. */
void gc__cu_unload(bool keep);

/* Opens NVRTC: the library named by GPUCHAR_LIBNVRTC if set, else the first
 * of libnvrtc.so.13, libnvrtc.so.12 and libnvrtc.so found on the search path,
 * then under /usr/local/cuda/lib64 and $CUDA_HOME/lib64. An NVRTC whose major
 * version is newer than driver_major (the CUDA version of the driver, 0 when
 * unknown) is taken only when no other is found, because the driver may not
 * load what it produces. On success sets *major and *minor from nvrtcVersion.
 * Returns 0 or GC_ENOLIB with why naming what was tried. */
int gc__nvrtc_load(int driver_major, int *major, int *minor, char *why, size_t whylen);

/* The same search as gc__nvrtc_load, but the library and its table are the
 * caller's (*api, *handle) and the backend's table is left alone; major and
 * minor may be NULL. */
int gc__nvrtc_open(int driver_major, struct gc_nvrtc_api *api, void **handle, int *major,
                   int *minor, char *why, size_t whylen);

/* Clears the table and closes NVRTC unless keep is true. NVRTC is a C++
 * library: closing it orphans what its C++ runtime allocated at load (leak
 * checkers report it), so the backend keeps it mapped between inits. */
void gc__nvrtc_unload(bool keep);

/* Opens NVML (GPUCHAR_LIBNVML or libnvidia-ml.so.1). Does not call nvmlInit.
 * Returns 0 or GC_ENOLIB with why. */
int gc__nvml_load(char *why, size_t whylen);
void gc__nvml_unload(void);

#endif
