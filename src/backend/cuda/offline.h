/* Compiling CUDA C to a CUBIN with NVRTC alone: no driver, no GPU. Used to
 * inspect what a generated kernel compiles to for a described device. */
#ifndef GC_BACKEND_CUDA_OFFLINE_H
#define GC_BACKEND_CUDA_OFFLINE_H

#include <stddef.h>

/* Opens NVRTC once per process (later calls return the first outcome): the
 * library named by GPUCHAR_LIBNVRTC if set, else the first of libnvrtc.so.13,
 * libnvrtc.so.12 and libnvrtc.so found on the search path, then under
 * /usr/local/cuda/lib64 and $CUDA_HOME/lib64. The CUDA driver is never
 * loaded. The table is private to this module, so that it cannot disturb
 * the CUDA backend's own NVRTC. Sets *major and *minor (either may be NULL)
 * from nvrtcVersion. Returns 0, or GC_ENOLIB with why naming what was tried.
 * Thread-safe. */
int gc__nvrtc_offline_load(int *major, int *minor, char *why, size_t whylen);

/* Compiles src with NVRTC for the real architecture arch ("sm_90"), unless
 * options (space-separated NVRTC options, may be NULL) already name one with
 * --gpu-architecture or -arch, which then wins (e.g. sm_90a). On success
 * *cubin (malloc'ed) and *len hold the CUBIN. *log (may be NULL; malloc'ed,
 * NULL when empty) gets the compiler output, also on failure. Returns 0,
 * GC_ENOLIB (no NVRTC), GC_ECOMPILE (with the NVRTC error and the log's
 * start in err), GC_ENOTSUP (the options name a virtual architecture, so
 * there is no SASS), GC_EINVAL or GC_ENOMEM. Thread-safe: several kernels
 * may compile at once. */
int gc__nvrtc_compile_offline(const char *src, const char *options, const char *arch, void **cubin,
                              size_t *len, char **log, char *err, size_t errlen);

#endif
