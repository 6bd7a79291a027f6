/* Physical upper bounds of a CPU device's throughput: what its cores, the
 * widest SIMD vector it reports and the fastest clock any of its cores runs
 * at allow, so that a figure above them is a failure as on a GPU
 * (docs/methodology.md, "CPU devices: limits and DRAM footprints"). Every
 * function returns NAN for a device that is not a CPU or whose facts are
 * unknown: an unknown limit, never a guess. */
#ifndef GC_CORE_CPULIMITS_H
#define GC_CORE_CPULIMITS_H

#include "backend/backend.h"
#include "core/cpuarch.h"

/* Kinds of ceiling beyond the operations of enum gc_cpu_op: loads and
 * stores per clock. */
#define GC_CPU_LOAD GC_CPU_NOPS
#define GC_CPU_STORE (GC_CPU_NOPS + 1)

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

/* Elementwise results per second of operation op on elements of
 * elem_bytes: compute units x the bytes per clock of the pipes that execute
 * op (cpuarch.h: instructions per clock x vector bytes, capped at the pipes'
 * bytes per clock) / elem_bytes x clock. Each step of a dependent chain
 * takes at least one instruction of its kind per vector of lanes. The
 * pipes are those of the host's microarchitecture (gc__cpu_uarch), the
 * fallback ceilings for an unknown CPU. */
double gc__cpu_ops_limit(const struct gc_device_info *info, enum gc_cpu_op op, int elem_bytes);

/* Bytes per second of a stream that reads `reads` and writes `writes`
 * equal parts (read only 1/0, write only 0/1, copy 1/1, triad 2/1), counted
 * read + written: compute units x (reads + writes) x vector bytes x
 * min(loads / reads, stores / writes) x clock, with loads and stores the
 * vectors per clock of the microarchitecture's load and store ports. Every
 * byte passes through a load or a store of at most one vector register,
 * whichever memory level serves it. */
double gc__cpu_stream_limit(const struct gc_device_info *info, int reads, int writes);

/* Read-modify-write atomics per second: compute units x stores per clock x
 * clock (each is at least one scalar store). */
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

/* The time bound on what a CPU device streams per launch: 1 GiB (4 GiB
 * with --full). One launch then stays near a tenth of a second at the
 * 10-20 GB/s of a few cores, where a virtual machine that reports its host
 * socket's whole L3 (512 MiB) would otherwise stream GiBs per launch on
 * two cores. memory.dram.* bounds its buffers together by it,
 * application.polybench one FDTD-2D launch's arrays. */
size_t gc__cpu_stream_bound(enum gc_profile p);

/* How gc__cpu_clock_mhz was found: "cpu add chain", "cpufreq maximum",
 * "reported" or "none". */
const char *gc__cpu_clock_source(const struct gc_device_info *info);

/* The clock cycles are counted at where a benchmark has no in-kernel clock
 * and no clock sensor: on a CPU device the clock its limits use
 * (gc__cpu_clock_mhz, the fastest observed), elsewhere the clock the device
 * reports ("nominal"); NAN when there is none. *source names it. */
double gc__cycle_clock_mhz(const struct gc_device_info *info, const char **source);

/* One line saying how a limit above was formed (for metric notes): kind is
 * an enum gc_cpu_op, GC_CPU_LOAD or GC_CPU_STORE. */
void gc__cpu_limit_note(const struct gc_device_info *info, int kind, char *buf, size_t len);

#endif
