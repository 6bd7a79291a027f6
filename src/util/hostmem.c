/* Host memory bounds from /proc and getrlimit. */
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/hostmem.h"

size_t gc__host_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(f);
    return (size_t)kib * 1024;
}

/* The process's mapped size (the first field of /proc/self/statm, pages). */
static size_t mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0;
    long page = sysconf(_SC_PAGESIZE);

    if (!f)
        return 0;
    if (fscanf(f, "%llu", &pages) != 1)
        pages = 0;
    fclose(f);
    return (size_t)pages * (size_t)(page > 0 ? page : 4096);
}

size_t gc__host_as_room(size_t *limit)
{
    struct rlimit rl;
    size_t used;

    if (limit)
        *limit = SIZE_MAX;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= (rlim_t)SIZE_MAX)
        return SIZE_MAX;
    if (limit)
        *limit = (size_t)rl.rlim_cur;
    used = mapped_bytes();
    return used < (size_t)rl.rlim_cur ? (size_t)rl.rlim_cur - used : 0;
}
