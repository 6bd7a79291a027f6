/* The shared-memory family's declarations, under the name that
 * bench/shmem_workload.c includes (the family lives in bench/shmem/). */
#ifndef GC_BENCH_SHMEM_FWD_H
#define GC_BENCH_SHMEM_FWD_H

#include "bench/shmem/shmem.h"

#endif
