/* Compiling CUDA C with NVRTC: one compile used by the CUDA backend (with its
 * table of entry points) and by device-less inspection of what a generated
 * kernel compiles to (with a table of its own: no driver, no GPU). */
#ifndef GC_BACKEND_CUDA_NVRTC_H
#define GC_BACKEND_CUDA_NVRTC_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/cuda/loader.h"

/* Compiles src through api for the architecture arch ("sm_90"), unless
 * options (blank-separated NVRTC options, may be NULL) name one with
 * --gpu-architecture or -arch, which then wins (e.g. sm_90a). *bin
 * (malloc'ed) and *len get the CUBIN, or the PTX when a virtual architecture
 * was named and need_cubin is false. *log (may be NULL; malloc'ed, NULL when
 * empty) gets the compiler output, also on failure. Returns 0, GC_ECOMPILE
 * (err holds the NVRTC error and the start of the log), GC_ENOTSUP (need_cubin
 * and a virtual architecture), GC_EINVAL, GC_ENOMEM or GC_EBACKEND, with err
 * saying why. Several kernels may compile at once. */
int gc__nvrtc_compile(const struct gc_nvrtc_api *api, const char *src, const char *options,
                      const char *arch, bool need_cubin, void **bin, size_t *len, char **log,
                      char *err, size_t errlen);

/* Opens NVRTC once per process for inspection (later calls return the first
 * outcome), with gc__nvrtc_open's search. The CUDA driver is never loaded.
 * The table is private to this module, so that it cannot disturb the CUDA
 * backend's own NVRTC. Sets *major and *minor (either may be NULL)
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
