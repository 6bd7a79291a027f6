/* The instruction-type rows of the compute family, under the name that
 * bench/energy.c includes (the family lives in bench/compute/). */
#ifndef GC_BENCH_ITYPE_FWD_H
#define GC_BENCH_ITYPE_FWD_H

#include "bench/compute/compute.h"

#endif
