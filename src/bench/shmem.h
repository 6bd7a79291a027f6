/* The shared-memory family's declarations, under the name that
 * bench/shmem_workload.c includes (the family lives in bench/shmem/). */
#ifndef GC_BENCH_SHMEM_FWD_H
#define GC_BENCH_SHMEM_FWD_H

#include "bench/shmem/shmem.h"

/* ---- shmem_workload.c */

struct gc_config_ask;
struct gc_meter_launch;
/* memory.shared's launch_at (core/benchdef.h). */
int gc__shared_launch_at(struct gc_session *s, const struct gc_bench *self,
                         const struct gc_config_ask *ask, struct gc_meter_launch *w);

#endif
