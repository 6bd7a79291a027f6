/* Vendor-specified per-clock rates used as theoretical limits. */
#ifndef GC_CORE_SPECS_H
#define GC_CORE_SPECS_H

#include "backend/backend.h"

/* fp32 FMA lanes per compute unit (FMA instructions per clock per SM), from
 * the CUDA C Programming Guide's arithmetic-throughput table; NAN when the
 * device is not a CUDA device of a known compute capability. */
double gc__spec_fp32_fma_per_clk_cu(const struct gc_device_info *info);

#endif
