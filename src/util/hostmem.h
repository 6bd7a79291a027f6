/* How much host memory a new allocation can still get: the system's
 * MemAvailable and the process's address-space limit (RLIMIT_AS, ulimit -v)
 * less what the process maps already. A leaf: libc and /proc only. */
#ifndef GC_UTIL_HOSTMEM_H
#define GC_UTIL_HOSTMEM_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of host memory available to a new allocation (MemAvailable of
 * /proc/meminfo); 0 when unknown. */
size_t gc__host_mem_available(void);

/* Address space the process may still map: RLIMIT_AS less its current
 * size (VmSize); SIZE_MAX when there is no limit. *limit gets the limit
 * (SIZE_MAX none); may be NULL. */
size_t gc__host_as_room(size_t *limit);

#endif
