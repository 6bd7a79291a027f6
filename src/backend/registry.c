/* The table of compiled-in backends, in default-device order: a CUDA GPU is
 * preferred over an OpenCL device; the null backend shows devices only when
 * asked to (tests). */
#include "backend/backend.h"
#include "backend/null/null.h"
#ifdef GC_HAVE_CUDA
#include "backend/cuda/cuda.h"
#endif
#ifdef GC_HAVE_OPENCL
#include "backend/opencl/opencl.h"
#endif

const struct gc_backend_ops *const gc__backends[] = {
#ifdef GC_HAVE_CUDA
    &gc__cuda_ops,
#endif
#ifdef GC_HAVE_OPENCL
    &gc__opencl_ops,
#endif
    &gc__null_ops,
    NULL,
};
