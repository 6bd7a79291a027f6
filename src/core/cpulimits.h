/* Physical upper bounds of a CPU device's throughput: what its cores, the
 * widest SIMD vector it reports and the fastest clock any of its cores runs
 * at allow, so that a figure above them is a failure as on a GPU
 * (docs/methodology.md, "CPU devices: limits and DRAM footprints"). Every
 * function returns NAN for a device that is not a CPU or whose facts are
 * unknown: an unknown limit, never a guess. */
#ifndef GC_CORE_CPULIMITS_H
#define GC_CORE_CPULIMITS_H

#include "backend/backend.h"

/* Ceilings over current CPU cores (x86-64 and Arm), per core per clock:
 * SIMD instructions issued (Cortex-X925: six 128-bit pipes; Zen 5: four
 * 512-bit; Golden Cove: three), loads (Zen 5: four; Golden Cove, Neoverse
 * V2: three) and stores (two), each moving at most one vector register. */
#define GC_CPU_SIMD_PER_CLK 6
#define GC_CPU_LOADS_PER_CLK 4
#define GC_CPU_STORES_PER_CLK 2

/* The fastest clock a core of a CPU device runs at, MHz: the largest of the
 * clock the device reports, the host's cpufreq maximum and a clock measured
 * on the host with a chain of dependent register adds (one cycle each on
 * every x86-64 and Arm core), which sees turbo clocks that a virtual
 * machine's reported clock does not. Measured once per process. NAN when
 * the device is not a CPU. */
double gc__cpu_clock_mhz(const struct gc_device_info *info);

/* The clock measured with the add chain alone (MHz); NAN where the host has
 * no such measurement (architectures other than x86-64 and AArch64). */
double gc__cpu_measured_clock_mhz(void);

/* Bytes of the widest SIMD vector: info->vector_bytes, raised to the host's
 * SVE vector length on AArch64 (OpenCL reports NEON widths there); 0
 * unknown. */
int gc__cpu_vector_bytes(const struct gc_device_info *info);

/* Elementwise results per second: compute units x GC_CPU_SIMD_PER_CLK x
 * (vector bytes / elem_bytes) x clock. Each step of a dependent chain takes
 * at least one SIMD instruction per vector of lanes. */
double gc__cpu_ops_limit(const struct gc_device_info *info, int elem_bytes);

/* Bytes per second of a stream that reads `reads` and writes `writes`
 * equal parts (read only 1/0, write only 0/1, copy 1/1, triad 2/1), counted
 * read + written: compute units x (reads + writes) x vector bytes x
 * min(GC_CPU_LOADS_PER_CLK / reads, GC_CPU_STORES_PER_CLK / writes) x
 * clock. Every byte passes through a load or a store of at most one vector
 * register, whichever memory level serves it. */
double gc__cpu_stream_limit(const struct gc_device_info *info, int reads, int writes);

/* Read-modify-write atomics per second: compute units x
 * GC_CPU_STORES_PER_CLK x clock (each is at least one scalar store). */
double gc__cpu_atomics_limit(const struct gc_device_info *info);

/* Bytes of last-level cache a CPU device's data may stay in: the larger of
 * the global-memory cache the device reports and the host's last cache
 * level times its instances (core/cpucache.h: sysfs, else sysconf, else
 * cpuid); 0 unknown or not a CPU.
 * A DRAM figure on a CPU needs a footprint of GC_CPU_DRAM_LLC_FACTOR times
 * this. */
size_t gc__cpu_llc_bytes(const struct gc_device_info *info);

/* A stream over S bytes uses each line again only after S bytes: with
 * LRU-like replacement nothing survives once S exceeds the cache, and a
 * policy that protects part of a thrashing stream (adaptive insertion)
 * keeps at most LLC / S of its lines, a quarter at 4x. The LLC figure is
 * already the larger of the device's and the whole socket's (a VM or a
 * process sees a share of it), and every launch then streams at least
 * 4x it: twice that only doubled the time and the host memory of the four
 * DRAM benchmarks (docs/results/pocl.md compares both on the CI host). */
#define GC_CPU_DRAM_LLC_FACTOR 4

/* One line saying how a limit above was formed (for metric notes). */
void gc__cpu_limit_note(const struct gc_device_info *info, char *buf, size_t len);

#endif
