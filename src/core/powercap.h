/* The host's Linux powercap (RAPL) energy counters: every CPU package and,
 * where the platform exposes it, its DRAM domain. The energy meter reads
 * them for devices that run on the host's CPUs (PoCL). */
#ifndef GC_CORE_POWERCAP_H
#define GC_CORE_POWERCAP_H

#include <stdbool.h>
#include <stddef.h>

#define GC_POWERCAP_MAX_ZONES 16

struct gc_powercap_zone {
    char path[512]; /* the zone's energy_uj file */
    char name[64];  /* its "name": "package-0", "dram" */
    bool dram;
    double range_j; /* max_energy_range_uj: where the counter wraps; NAN unknown */
};

struct gc_powercap {
    char root[256];
    int nzones, npackages, ndram;
    struct gc_powercap_zone z[GC_POWERCAP_MAX_ZONES];
};

/* Finds the package zones and their DRAM zones under root (NULL:
 * $GPUCHAR_POWERCAP_ROOT, else /sys/class/powercap) and reads each counter
 * once. Returns 0 when at least one package counter reads; else GC_ENOTSUP
 * with the reason in why (no powercap directory, no RAPL zone, a counter that
 * cannot be read: since Linux 5.10 energy_uj is readable by root only). */
int gc__powercap_open(const char *root, struct gc_powercap *pc, char *why, size_t whylen);

/* Reads every zone: *pkg_j the sum of the package counters, *dram_j the sum
 * of the DRAM counters (NAN when there is none), in joules. A counter that
 * wraps shows as a decrease of the sum (the energy meter then redoes the
 * interval). GC_EIO with the reason when a file cannot be read. */
int gc__powercap_read(const struct gc_powercap *pc, double *pkg_j, double *dram_j, char *why,
                      size_t whylen);

#endif
