/* Physical upper bounds of a CPU device's throughput (cpulimits.h): cores x
 * per-core issue ceilings x the widest SIMD vector x the fastest clock. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/prctl.h>
#endif

#include "core/cpucache.h"
#include "core/cpulimits.h"

/* ---- The fastest clock ------------------------------------------------- */

#if defined(__x86_64__) || defined(__aarch64__)
#if defined(__x86_64__)
#define ADD1 "add %1, %0\n\t"
#else
#define ADD1 "add %0, %0, %1\n\t"
#endif
#define ADD8 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1
#define ADD64 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Clock in MHz over ITERS trips of 64 dependent register-register adds. A
 * register operand (not an immediate) keeps renamers that fold immediate
 * adds from shortening the chain; the loop counter runs beside the chain. */
static double chain_mhz(long iters, volatile uint64_t *one)
{
    uint64_t x = 0, y = *one;
    double t0 = now_s(), t;

    for (long i = 0; i < iters; i++)
        __asm__ volatile(ADD64 : "+r"(x) : "r"(y));
    t = now_s() - t0;
    return t > 0 ? 64.0 * (double)iters / t / 1e6 : NAN;
}

static double measure_clock(void)
{
    volatile uint64_t one = 1;
    long iters = 1024;
    double best = NAN;

    /* Trips for about 0.5 ms at the first estimate, after a warm-up of
     * about 20 ms that lets the core leave its idle clock. */
    for (double t0 = now_s(); now_s() - t0 < 0.02;)
        chain_mhz(iters, &one);
    double est = chain_mhz(iters * 16, &one);
    if (!(est > 0))
        return NAN;
    iters = (long)(est * 1e6 * 0.0005 / 64.0) + 1;
    /* The best of many short runs: preemption (a loaded host) and frequency
     * dips only lower a run, and a short one likely fits in a time slice. */
    for (int i = 0; i < 60; i++) {
        double v = chain_mhz(iters, &one);

        if (isfinite(v) && !(v <= best))
            best = v;
    }
    return best;
}
#else
static double measure_clock(void)
{
    return NAN;
}
#endif

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static double g_measured = NAN, g_sysfs = NAN;

/* The largest cpuinfo_max_freq (kHz) over the host's CPUs; NAN without
 * cpufreq (most virtual machines). */
static double sysfs_max_mhz(void)
{
    double best = NAN;

    for (int c = 0; c < 4096; c++) {
        char path[96];
        unsigned long khz = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", c);
        f = fopen(path, "r");
        if (!f) {
            if (c > 0)
                break;
            continue;
        }
        if (fscanf(f, "%lu", &khz) == 1 && khz > 0 && !(khz / 1e3 <= best))
            best = (double)khz / 1e3;
        fclose(f);
    }
    return best;
}

static void init_clock(void)
{
    g_sysfs = sysfs_max_mhz();
    g_measured = measure_clock();
}

double gc__cpu_measured_clock_mhz(void)
{
    pthread_once(&g_once, init_clock);
    return g_measured;
}

double gc__cpu_clock_mhz(const struct gc_device_info *info)
{
    double f = info->clock_mhz > 0 ? info->clock_mhz : NAN;

    if (info->type != GC_DEVICE_CPU)
        return NAN;
    pthread_once(&g_once, init_clock);
    if (isfinite(g_sysfs) && !(g_sysfs <= f))
        f = g_sysfs;
    if (isfinite(g_measured) && !(g_measured <= f))
        f = g_measured;
    return f;
}

/* ---- Limits ------------------------------------------------------------ */

int gc__cpu_vector_bytes(const struct gc_device_info *info)
{
    int vb = info->vector_bytes;

#if defined(__aarch64__) && defined(__linux__) && defined(PR_SVE_GET_VL)
    {
        int vl = prctl(PR_SVE_GET_VL);

        if (vl > 0 && (vl & PR_SVE_VL_LEN_MASK) > vb)
            vb = vl & PR_SVE_VL_LEN_MASK;
    }
#endif
    return vb;
}

/* Compute units x clock in Hz, or NAN. */
static double core_hz(const struct gc_device_info *info)
{
    double f = gc__cpu_clock_mhz(info);

    if (info->type != GC_DEVICE_CPU || info->compute_units <= 0 || !(f > 0) ||
        gc__cpu_vector_bytes(info) <= 0)
        return NAN;
    return info->compute_units * f * 1e6;
}

static const struct gc_cpu_port *port_of(const struct gc_cpu_uarch *u, int kind)
{
    if (kind == GC_CPU_LOAD)
        return &u->load;
    if (kind == GC_CPU_STORE)
        return &u->store;
    return kind >= 0 && kind < GC_CPU_NOPS ? &u->op[kind] : &u->op[GC_CPU_ANY];
}

double gc__cpu_ops_limit(const struct gc_device_info *info, enum gc_cpu_op op, int elem_bytes)
{
    const struct gc_cpu_port *p = port_of(gc__cpu_uarch(), (int)op);

    if (elem_bytes <= 0)
        return NAN;
    return core_hz(info) * gc__cpu_port_bytes(p, gc__cpu_vector_bytes(info), elem_bytes) /
           elem_bytes;
}

double gc__cpu_stream_limit(const struct gc_device_info *info, int reads, int writes)
{
    const struct gc_cpu_uarch *u = gc__cpu_uarch();
    int vb = gc__cpu_vector_bytes(info);
    double per_part;

    if (reads < 0 || writes < 0 || reads + writes == 0)
        return NAN;
    /* Parts (one vector each of every stream) per clock per core. */
    per_part = reads ? gc__cpu_port_bytes(&u->load, vb, 1) / vb / reads : INFINITY;
    if (writes)
        per_part = fmin(per_part, gc__cpu_port_bytes(&u->store, vb, 1) / vb / writes);
    return core_hz(info) * (reads + writes) * vb * per_part;
}

double gc__cpu_atomics_limit(const struct gc_device_info *info)
{
    return core_hz(info) * gc__cpu_uarch()->store.per_clk;
}

/* ---- Last-level cache -------------------------------------------------- */

size_t gc__cpu_stream_bound(enum gc_profile p)
{
    return p == GC_PROFILE_FULL ? (size_t)4 << 30 : (size_t)1 << 30;
}

size_t gc__cpu_llc_bytes(const struct gc_device_info *info)
{
    size_t s;

    if (info->type != GC_DEVICE_CPU)
        return 0;
    s = gc__cpu_caches()->llc_total;
    return info->l2_size > s ? info->l2_size : s;
}

const char *gc__cpu_clock_source(const struct gc_device_info *info)
{
    double f = gc__cpu_clock_mhz(info), m = gc__cpu_measured_clock_mhz();

    if (!isfinite(f))
        return "none";
    if (isfinite(m) && m >= f)
        return "cpu add chain";
    return isfinite(g_sysfs) && g_sysfs >= f ? "cpufreq maximum" : "reported";
}

double gc__cycle_clock_mhz(const struct gc_device_info *info, const char **source)
{
    double f = info->type == GC_DEVICE_CPU ? gc__cpu_clock_mhz(info) : NAN;

    if (isfinite(f) && f > 0) {
        *source = gc__cpu_clock_source(info);
        return f;
    }
    *source = info->clock_mhz > 0 ? "nominal" : "none";
    return info->clock_mhz > 0 ? info->clock_mhz : NAN;
}

void gc__cpu_limit_note(const struct gc_device_info *info, int kind, char *buf, size_t len)
{
    static const char *const what[] = {"vector", "FMA", "FADD", "FMUL", "int ALU", "int mul"};
    const struct gc_cpu_uarch *u = gc__cpu_uarch();
    const struct gc_cpu_port *p = port_of(u, kind);
    const char *name = kind == GC_CPU_LOAD               ? "load"
                       : kind == GC_CPU_STORE            ? "store"
                       : kind >= 0 && kind < GC_CPU_NOPS ? what[kind]
                                                         : what[0];
    char cap[32] = "";

    if (p->bytes > 0)
        snprintf(cap, sizeof(cap), ", <= %d B", p->bytes);
    snprintf(buf, len, "CPU limit: %d cores x %d %s/clk%s (%s) x %d-B vectors x %.0f MHz (%s)",
             info->compute_units, p->per_clk, name, cap, u->name, gc__cpu_vector_bytes(info),
             gc__cpu_clock_mhz(info), gc__cpu_clock_source(info));
}
