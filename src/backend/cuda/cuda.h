/* The CUDA backend: NVIDIA GPUs through the driver API, with kernels compiled
 * by NVRTC and sensors read through NVML, all loaded at run time. */
#ifndef GC_BACKEND_CUDA_CUDA_H
#define GC_BACKEND_CUDA_CUDA_H

#include "backend/backend.h"

extern const struct gc_backend_ops gc__cuda_ops;

#endif
