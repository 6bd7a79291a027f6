// What the CUDA runtime reference programs (cublas-reference.cu,
// overhead-reference.cu, pinned-probe.cu, stream-reference.cu) share: a
// failing CUDA runtime call ends the program with the call, its place and the
// runtime's message, so that no figure is printed from a broken run.
// Included as "reference-common.h": the compiler finds it beside the .cu
// file, so each program still builds with one nvcc command and no -I.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                        \
                         cudaGetErrorString(e_));                                                  \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)
