/* The host CPU's data caches for OpenCL CPU devices, from the first source
 * that answers: Linux sysfs, glibc's sysconf, then the cpuid instruction
 * (Intel leaf 4, AMD leaf 0x8000001D). A virtual machine may hide sysfs's
 * cache directory, and the OpenCL driver then reports no cache at all
 * (docs/methodology.md, "CPU devices: cache facts"). */
#ifndef GC_CORE_CPUCACHE_H
#define GC_CORE_CPUCACHE_H

#include <stdbool.h>
#include <stddef.h>

/* Sources of cache facts (bits of gc_cpu_cache_probe.sources). */
enum {
    GC_CPUCACHE_SYSFS = 1u << 0,
    GC_CPUCACHE_SYSCONF = 1u << 1,
    GC_CPUCACHE_CPUID = 1u << 2,
    GC_CPUCACHE_ALL = 7u,
};

struct gc_cpu_caches {
    size_t l1d, l2, l3; /* bytes of one instance; 0 unknown */
    size_t line;        /* bytes of a cache line; 0 unknown */
    int llc_level;      /* the last data level found; 0 none */
    size_t llc_total;   /* that level's bytes, all instances together */
    int llc_instances;  /* instances counted in llc_total (1 when unknown) */
    char source[16];    /* "sysfs", "sysconf", "cpuid"; "" none answered */
};

/* Where the facts are read from: the defaults are the host's (NULL hooks),
 * tests pass a fake sysfs root and fake sysconf / cpuid functions.
 * cpuid_fn returns false where the leaf does not exist. */
struct gc_cpu_cache_probe {
    const char *sysfs_root; /* the cpu directory: "/sys/devices/system/cpu" */
    long (*sysconf_fn)(int name);
    bool (*cpuid_fn)(unsigned leaf, unsigned sub, unsigned regs[4]);
    long ncpu; /* logical CPUs, to count instances; <= 0: unknown (1 instance) */
    unsigned sources;
};

/* Fills *out from the probe's sources, in the order above. */
void gc__cpu_caches_probe(const struct gc_cpu_cache_probe *p, struct gc_cpu_caches *out);

/* The host's facts, read once per process. GPUCHAR_SYSFS_CPU replaces the
 * sysfs root and GPUCHAR_CPU_CACHE_SOURCES ("sysfs,sysconf,cpuid", "none")
 * limits the sources, so that a machine without sysfs's cache directory can
 * be imitated on one with it. */
const struct gc_cpu_caches *gc__cpu_caches(void);

/* One line naming each size found and its source, e.g. "L1d 48 KiB, L2 1
 * MiB, L3 508 MiB x1 (sysconf)"; "none of sysfs, sysconf and cpuid
 * answered" when nothing was found. */
void gc__cpu_caches_describe(const struct gc_cpu_caches *c, char *buf, size_t len);

#endif
