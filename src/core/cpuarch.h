/* The CPU microarchitecture table: which vector pipes of a core can execute
 * each kind of operation, how wide they are and how many loads and stores
 * a core issues per clock, by microarchitecture, from the vendors'
 * optimization guides (docs/methodology.md, "Per-core ceilings"). The CPU
 * is identified from x86 cpuid or the AArch64 MIDR in /proc/cpuinfo; an
 * unknown CPU gets the fallback row, the generous ceilings over all current
 * cores. cpulimits.c turns a row into limits. */
#ifndef GC_CORE_CPUARCH_H
#define GC_CORE_CPUARCH_H

#include <stdbool.h>
#include <stddef.h>

/* Kinds of vector operation, each executed by its own set of pipes. */
enum gc_cpu_op {
    GC_CPU_ANY,   /* any vector instruction (sequences: div, sqrt, exp, conversions) */
    GC_CPU_FMA,   /* floating-point fused multiply-add */
    GC_CPU_FADD,  /* floating-point add */
    GC_CPU_FMUL,  /* floating-point multiply */
    GC_CPU_VINT,  /* integer add, logic, shift, compare, min/max */
    GC_CPU_VIMUL, /* integer multiply */
    GC_CPU_NOPS
};

/* How many instructions of one kind a core completes per clock: `per_clk`
 * instructions each moving at most one vector register, and no more than
 * `bytes` bytes per clock at any width (0: no byte cap). Wide instructions
 * that occupy two narrow pipes (Zen 4's 512-bit operations, Intel's fused
 * ports 0+1) are what the byte cap expresses. */
struct gc_cpu_port {
    int per_clk;
    int bytes;
};

struct gc_cpu_uarch {
    const char *name;  /* "AMD Zen 5 (512-bit datapath)" */
    const char *guide; /* where the figures come from */
    struct gc_cpu_port op[GC_CPU_NOPS];
    struct gc_cpu_port load, store;
    bool fallback; /* the row for CPUs the table does not know */
};

/* What identifies a CPU: x86 vendor, family and model (display values,
 * extended fields added), or the AArch64 MIDR implementer and part; -1
 * unknown. */
struct gc_cpu_ident {
    char vendor[16];      /* "GenuineIntel", "AuthenticAMD", "" */
    char model_name[128]; /* cpuinfo "model name", "" */
    int family, model;
    int implementer, part; /* AArch64 */
};

/* Fills *id from the text of a /proc/cpuinfo (its first processor). Returns
 * 0, or GC_EINVAL when the text identifies nothing. */
int gc__cpu_ident_parse(const char *cpuinfo, struct gc_cpu_ident *id);

/* The table's row for id; the fallback row when id is not in the table.
 * Never NULL. */
const struct gc_cpu_uarch *gc__cpu_uarch_lookup(const struct gc_cpu_ident *id);

/* The host's row, identified once per process: from the file named by the
 * environment variable GPUCHAR_CPUINFO when set (a fake /proc/cpuinfo),
 * else from cpuid on x86-64, else from /proc/cpuinfo. Never NULL. */
const struct gc_cpu_uarch *gc__cpu_uarch(void);

/* Bytes per clock of port p with vectors of vb bytes (elements of
 * elem_bytes: an element never splits across instructions): per_clk x
 * max(vb, elem_bytes), capped at bytes. */
double gc__cpu_port_bytes(const struct gc_cpu_port *p, int vb, int elem_bytes);

#endif
