/* The OpenCL backend: every device of every platform the ICD loader lists,
 * driven through OpenCL 1.2 calls loaded at run time (see loader.h). */
#ifndef GC_BACKEND_OPENCL_OPENCL_H
#define GC_BACKEND_OPENCL_OPENCL_H

#include "backend/backend.h"

extern const struct gc_backend_ops gc__opencl_ops;

#endif
