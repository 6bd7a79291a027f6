/* memory.latency.<path>: dependent-load latency against footprint through
 * each memory path (Lemeire et al. SVI-B/C random walk and varying-size
 * random walk; uCLbench S2.2/S3.2 latency per address space; Volkov S6.7
 * footprint and TLB), and the cache levels found in the staircase. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "core/random.h"
#include "core/sensors.h"
#include "core/stats.h"
#include "kgen/kcache.h"
#include "kgen/kgen.h"
#include "model/cache.h"

enum chase_path {
    PATH_GLOBAL,
    PATH_L2,
    PATH_READONLY,
    PATH_TEXTURE,
    PATH_CONSTANT,
    PATH_SHARED,
    PATH_PRIVATE,
    PATH_TLB,
    PATH_L2_PARTITION,
};

struct chase_def {
    enum chase_path path;
    bool cuda_only;
};

/* Dependent loads in one trip of the timed loop: the loop's counter and
 * branch run beside the chain, which is the only dependence. */
/* Dynamic shared memory of the L1 paths' launches. A kernel with no shared
 * memory at all is given a 32 KiB carve-out on sm_90 whatever the
 * preference (its L1 then starts to miss at 218 KiB on an H100); with a
 * little, the driver takes the smallest non-zero carve-out, 8 KiB (misses
 * from 242 KiB), the largest L1 the SM can have. */
#define CH_L1_DYN 1024

#define CHASE_UNROLL 32
/* Dependent loads per timed segment on CUDA (one clock64 reading each). */
#define CHASE_SEG_LOADS 2048
/* OpenCL: timed loads of the short and the long kernel; the difference of
 * their times cancels launch overhead and the warm-up pass. */
#define CHASE_CL_LOADS 32768
/* CPUs: launches through a host runtime jitter by tens of microseconds, so
 * the chase must last milliseconds for the difference to stand out. */
#define CHASE_CL_CPU_LOADS (1 << 19)
/* The launch overhead that the OpenCL difference implies may be at most this
 * share of the short kernel's time: a launch costs microseconds (50-120 at
 * the median through PoCL on a Xeon) against the short kernel's
 * milliseconds, so a larger overhead means that the two kernels ran in
 * different modes and the difference is too small. Where a consistent pair
 * is turned down, the bound that stands instead reads o / (m + 2L) high:
 * about 5% at L1 on that Xeon, less at slower levels. */
#define CHASE_CL_MAX_OVERHEAD 0.10
/* Per-thread array of the private path: its largest footprint. */
#define CHASE_PRIVATE_BYTES 4096
/* Most footprints in one sweep, refinement included. */
#define CHASE_MAX_POINTS 256
/* Adaptive refinement: an interval between two measured footprints is split
 * while the latency changes across it by more than this factor (GPUs; CPU
 * staircases are noisier) and it is wider than CHASE_REFINE_WIDTH, so that
 * eq. 6 is fitted with points on each step. */
#define CHASE_REFINE_JUMP_GPU 0.05
#define CHASE_REFINE_JUMP_CPU 0.15
#define CHASE_REFINE_WIDTH 0.03

/* ---- The chain --------------------------------------------------------- */

/* A Sattolo cycle over m elements: next[e] is the element after e, and
 * following next from any element visits all m before returning. */
static uint32_t *sattolo(size_t m, uint64_t seed)
{
    uint32_t *a = malloc((m ? m : 1) * sizeof(*a));
    uint64_t st = seed ? seed : 1;

    if (!a)
        return NULL;
    for (size_t i = 0; i < m; i++)
        a[i] = (uint32_t)i;
    for (size_t i = m; i-- > 1;) {
        size_t j = (size_t)(gc__xorshift64s(&st) % i); /* j < i: one cycle */
        uint32_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
    return a;
}

/* slices disjoint Sattolo cycles of m elements each: slice k covers elements
 * k m .. (k + 1) m - 1 and next never leaves its slice. */
static uint32_t *sattolo_slices(size_t m, int slices, uint64_t seed)
{
    size_t n = m * (size_t)slices;
    uint32_t *a = malloc((n > 0 ? n : 1) * sizeof(*a));

    if (!a)
        return NULL;
    for (int k = 0; k < slices; k++) {
        uint32_t *t = sattolo(m, seed + (uint64_t)k * 0x9E3779B97F4A7C15ULL);
        if (!t) {
            free(a);
            return NULL;
        }
        for (size_t e = 0; e < m; e++)
            a[(size_t)k * m + e] = (uint32_t)((size_t)k * m + t[e]);
        free(t);
    }
    return a;
}

/* The element reached from element start after steps steps along a cycle
 * of length m through it. */
static uint32_t walk_from(const uint32_t *next, uint32_t start, size_t m, uint64_t steps)
{
    uint32_t e = start;

    steps %= m;
    for (uint64_t i = 0; i < steps; i++)
        e = next[e];
    return e;
}

/* The element reached from element 0 after steps steps. */
static uint32_t walk(const uint32_t *next, size_t m, uint64_t steps)
{
    return walk_from(next, 0, m, steps);
}

/* ---- Paths and their kernels ------------------------------------------- */

static bool words_path(enum chase_path p)
{
    return p == PATH_CONSTANT || p == PATH_SHARED || p == PATH_PRIVATE;
}

static const char *path_name(enum chase_path p)
{
    switch (p) {
    case PATH_GLOBAL:
        return "global";
    case PATH_L2:
        return "l2";
    case PATH_READONLY:
        return "readonly";
    case PATH_TEXTURE:
        return "texture";
    case PATH_CONSTANT:
        return "constant";
    case PATH_SHARED:
        return "shared";
    case PATH_PRIVATE:
        return "private";
    case PATH_TLB:
        return "tlb";
    default:
        return "l2_partition";
    }
}

/* The SASS load each CUDA path must compile to (checked per timed loop). */
static const char *path_sass(enum chase_path p)
{
    switch (p) {
    case PATH_GLOBAL:
        return "LDG.E.64";
    case PATH_L2:
    case PATH_TLB:
    case PATH_L2_PARTITION:
        return "LDG.E.64.STRONG.GPU";
    case PATH_READONLY:
        return "LDG.E.64.CONSTANT";
    case PATH_TEXTURE:
        return "TLD";
    case PATH_CONSTANT:
        /* The chase index is warp-uniform, so ptxas loads through the
         * uniform datapath: ULDC, from the same constant caches as LDC. */
        return "ULDC";
    case PATH_SHARED:
        return "LDS";
    default:
        return "LDL";
    }
}

/* CUDA helpers: one inline-PTX load per global path, so the instruction and
 * its cache operator are exactly the ones named; clock and timer reads. */
static void cuda_helpers(struct gc_sbuf *b, enum chase_path p)
{
    const char *op = p == PATH_GLOBAL     ? "ld.global.u64"
                     : p == PATH_READONLY ? "ld.global.nc.u64"
                                          : "ld.global.cg.u64";

    if (p == PATH_L2_PARTITION)
        gc__sbuf_puts(b, "static __device__ __forceinline__ GC_U32 gc_chase_smid(void)\n"
                         "{ GC_U32 r; asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(r)); "
                         "return r; }\n");
    else
        gc__sbuf_puts(b, "static __device__ __forceinline__ GC_U64 gc_gtimer(void)\n"
                         "{ GC_U64 t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : "
                         "\"=l\"(t)); return t; }\n");
    if (p == PATH_TEXTURE)
        gc__sbuf_puts(b, "static __device__ __forceinline__ GC_U64 gc_ld(GC_U64 tex, GC_U64 j)\n"
                         "{ GC_U32 x, y, z, w; asm volatile(\"tex.1d.v4.u32.s32 {%0, %1, %2, %3}, "
                         "[%4, {%5}];\" : \"=r\"(x), \"=r\"(y), \"=r\"(z), \"=r\"(w) : \"l\"(tex), "
                         "\"r\"((int)j)); (void)y; (void)z; (void)w; return x; }\n");
    else if (!words_path(p))
        gc__sbuf_printf(b,
                        "static __device__ __forceinline__ GC_U64 gc_ld(GC_U64 p)\n"
                        "{ GC_U64 v; asm volatile(\"%s %%0, [%%1];\" : \"=l\"(v) : \"l\"(p)); "
                        "return v; }\n",
                        op);
}

struct kspec {
    enum chase_path path;
    enum gc_dialect d;
    /* The cycle path: inline-PTX loads, clock64 between segments (devices
     * with GC_CAP_INLINE_ASM, CLOCK64 and GLOBALTIMER); else plain loads
     * timed by the launch's events. */
    bool clocks;
    int loads;              /* timed loads per segment (clocks) or in all (events) */
    int nseg;               /* timed segments (clocks) */
    const uint32_t *cwords; /* constant path with clocks: the chain as data */
    size_t ncwords;
};

/* One dependent step of the chase, in the path's own spelling. */
static const char *chase_step(enum chase_path p, bool ptx)
{
    if (ptx) {
        switch (p) {
        case PATH_TEXTURE:
            return "j = gc_ld(tex, j);";
        case PATH_CONSTANT:
            return "j = gc_cchain[j];";
        case PATH_SHARED:
            return "j = sm[j];";
        case PATH_PRIVATE:
            return "j = a[j];";
        default:
            return "j = gc_ld(j);";
        }
    }
    switch (p) {
    case PATH_CONSTANT:
        return "j = c[j];";
    case PATH_SHARED:
        return "j = sm[j];";
    case PATH_PRIVATE:
        return "j = a[j];";
    default:
        return "j = buf[j];";
    }
}

/* The chase kernel of a path. Thread 0 of one block walks: a warm pass of
 * `warm` loads (a whole cycle, so every element is where the footprint puts
 * it), then the timed loads. On CUDA the timed loads are nseg segments with a
 * clock64 reading between them; on OpenCL the launch is timed by events. The
 * final position is stored for verification. */
static char *gen_chase(const struct kspec *k)
{
    struct gc_sbuf b;
    bool cuda = k->clocks;
    enum chase_path p = k->path;
    const char *st = chase_step(p, k->clocks);
    /* Global paths on CUDA chase absolute addresses (no index arithmetic on
     * the dependent path); everything else chases indices. */
    bool addr = cuda && !words_path(p) && p != PATH_TEXTURE;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, k->d, 0);
    if (cuda)
        cuda_helpers(&b, p);
    if (cuda && p == PATH_CONSTANT) {
        gc__sbuf_printf(&b, "GC_CONSTANT_ARRAY GC_U32 gc_cchain[%zu] = {", k->ncwords);
        for (size_t i = 0; i < k->ncwords; i++)
            gc__sbuf_printf(&b, "%s%uu",
                            i == 0  ? "\n    "
                            : i % 8 ? ", "
                                    : ",\n    ",
                            k->cwords[i]);
        gc__sbuf_puts(&b, "\n};\n");
    }
    /* Parameters. */
    if (words_path(p)) {
        const char *src = p == PATH_CONSTANT ? (cuda ? "" : "GC_CONSTANT GC_U32 *c, ")
                                             : "GC_GLOBAL const GC_U32 *src, GC_U32 nwords, ";
        gc__sbuf_printf(&b,
                        "GC_KERNEL void gc_chase(%sGC_U32 start, GC_U32 warm, "
                        "GC_GLOBAL GC_U64 *out%s)\n{\n",
                        src, p == PATH_SHARED ? " GC_DYN_SHARED_PARAM(GC_U32, sm)" : "");
        if (p == PATH_SHARED)
            gc__sbuf_puts(&b, "    GC_DYN_SHARED_DECL(GC_U32, sm)\n"
                              "    for (GC_U32 i = GC_TID; i < nwords; i += GC_BDIM)\n"
                              "        sm[i] = src[i];\n"
                              "    GC_BARRIER();\n");
        gc__sbuf_puts(&b, "    if (GC_TID != 0)\n        return;\n");
        if (p == PATH_PRIVATE)
            gc__sbuf_printf(&b,
                            "    GC_U32 a[%d];\n"
                            "    for (GC_U32 i = 0; i < nwords; i++)\n"
                            "        a[i] = src[i];\n",
                            CHASE_PRIVATE_BYTES / 4);
        gc__sbuf_puts(&b, "    GC_U32 j = start;\n");
    } else {
        gc__sbuf_printf(&b,
                        "GC_KERNEL void gc_chase(GC_GLOBAL %sGC_U64 *buf, %sGC_U64 start, "
                        "GC_U32 warm, GC_GLOBAL GC_U64 *out)\n{\n"
                        "    if (GC_TID != 0)\n        return;\n",
                        cuda ? "" : "const ", p == PATH_TEXTURE ? "GC_U64 tex, " : "");
        if (addr)
            gc__sbuf_puts(&b, "    GC_U64 j = (GC_U64)buf + start * 8;\n");
        else
            gc__sbuf_puts(&b, "    GC_U64 j = start;\n");
    }
    gc__sbuf_printf(&b,
                    "    /* Warm pass: one whole cycle. */\n"
                    "#pragma unroll 1\n"
                    "    for (GC_U32 i = 0; i < warm; i++) {\n        %s\n    }\n",
                    st);
    if (cuda) {
        gc__sbuf_printf(&b,
                        "    GC_U64 t0 = gc_gtimer();\n"
                        "    out[2] = clock64();\n"
                        "#pragma unroll 1\n"
                        "    for (int s = 0; s < %d; s++) {\n"
                        "#pragma unroll 1\n"
                        "        for (int i = 0; i < %d; i++) {\n",
                        k->nseg, k->loads / CHASE_UNROLL);
        for (int u = 0; u < CHASE_UNROLL; u++)
            gc__sbuf_printf(&b, "            %s\n", st);
        gc__sbuf_puts(&b, "        }\n"
                          "        out[3 + s] = clock64();\n"
                          "    }\n"
                          "    out[1] = gc_gtimer() - t0;\n");
    } else {
        gc__sbuf_printf(&b, "    for (int i = 0; i < %d; i++) {\n", k->loads / CHASE_UNROLL);
        for (int u = 0; u < CHASE_UNROLL; u++)
            gc__sbuf_printf(&b, "        %s\n", st);
        gc__sbuf_puts(&b, "    }\n");
    }
    if (addr)
        gc__sbuf_puts(&b, "    out[0] = (j - (GC_U64)buf) / 8;\n}\n");
    else
        gc__sbuf_puts(&b, "    out[0] = j;\n}\n");
    return gc__sbuf_take(&b);
}

/* Writes the chain into the chase buffer: buf[pairs[2i]] = pairs[2i + 1],
 * plus the buffer's own address when reloc is set (CUDA address chase). */
static char *gen_install(enum gc_dialect d)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, 0);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_install(GC_GLOBAL GC_U64 *buf, GC_GLOBAL const GC_U64 "
                      "*pairs, GC_U32 n, GC_U32 reloc)\n{\n"
                      "    GC_U32 i = GC_GID;\n"
                      "    if (i < n)\n"
                      "        buf[pairs[2 * i]] = pairs[2 * i + 1] + (reloc ? (GC_U64)buf : 0);\n"
                      "}\n");
    return gc__sbuf_take(&b);
}

/* The near/far L2 kernel (CUDA): one block per SM (the dynamic shared memory
 * lets only one fit), and only the block on SM `target` works: either a
 * whole pass over the chain through L2 (timed == 0: the touch), or the timed
 * chase. Each working block counts itself in out[2]. */
static char *gen_l2part(enum gc_dialect d, int loads)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, 0);
    cuda_helpers(&b, PATH_L2_PARTITION);
    gc__sbuf_printf(&b,
                    "GC_KERNEL void gc_l2part(GC_GLOBAL GC_U64 *buf, GC_U64 start, GC_U32 warm, "
                    "GC_U32 target, GC_U32 timed, GC_GLOBAL GC_U64 *out "
                    "GC_DYN_SHARED_PARAM(GC_U64, gc_dyn))\n{\n"
                    "    GC_DYN_SHARED_DECL(GC_U64, gc_dyn)\n"
                    "    if (GC_TID != 0 || gc_chase_smid() != target)\n        return;\n"
                    "    GC_ATOMIC_ADD_U64(&out[2], 1ull);\n"
                    "    GC_U64 j = (GC_U64)buf + start * 8;\n"
                    "    if (!timed) {\n"
                    "#pragma unroll 1\n"
                    "        for (GC_U32 i = 0; i < warm; i++)\n"
                    "            j = gc_ld(j);\n"
                    "        out[0] = (j - (GC_U64)buf) / 8;\n"
                    "        return;\n"
                    "    }\n"
                    "    GC_U64 c0 = clock64();\n"
                    "#pragma unroll 1\n"
                    "    for (int i = 0; i < %d; i++) {\n",
                    loads / CHASE_UNROLL);
    for (int u = 0; u < CHASE_UNROLL; u++)
        gc__sbuf_puts(&b, "        j = gc_ld(j);\n");
    gc__sbuf_puts(&b, "    }\n"
                      "    out[1] = clock64() - c0;\n"
                      "    out[0] = (j - (GC_U64)buf) / 8;\n"
                      "}\n");
    return gc__sbuf_take(&b);
}

/* Words of one block's record in the every-SM chase: final element, %smid,
 * %globaltimer at the start and end of the timed loads, clock64 at the
 * start, then clock64 after each segment. */
#define ALL_REC_HEAD 5

/* The every-SM chase (CUDA): one block of one warp per SM (the dynamic
 * shared memory lets only one fit), lane 0 of block b chases its own slice
 * of ms elements (a cycle of its own, starting at element b x ms) with
 * ld.global.cg, all SMs at once, so that the whole L2 holds the footprint.
 * Each block warms its slice with one whole pass, then times nseg segments
 * of `loads` dependent loads with its own SM's clock64. */
static char *gen_chase_all(enum gc_dialect d, int loads, int nseg, size_t spacing)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, 0);
    cuda_helpers(&b, PATH_L2);
    gc__sbuf_printf(&b,
                    "static __device__ __forceinline__ GC_U32 gc_chase_smid(void)\n"
                    "{ GC_U32 r; asm volatile(\"mov.u32 %%0, %%%%smid;\" : \"=r\"(r)); "
                    "return r; }\n"
                    "GC_KERNEL void gc_chase_all(GC_GLOBAL GC_U64 *buf, GC_U32 ms, "
                    "GC_GLOBAL GC_U64 *out GC_DYN_SHARED_PARAM(GC_U64, gc_dyn))\n{\n"
                    "    GC_DYN_SHARED_DECL(GC_U64, gc_dyn)\n"
                    "    if (GC_TID != 0)\n        return;\n"
                    "    GC_GLOBAL GC_U64 *o = out + (GC_U64)GC_BID * %du;\n"
                    "    GC_U64 j = (GC_U64)buf + (GC_U64)GC_BID * ms * %zuu;\n"
                    "    /* Warm pass: the whole slice. */\n"
                    "#pragma unroll 1\n"
                    "    for (GC_U32 i = 0; i < ms; i++)\n"
                    "        j = gc_ld(j);\n"
                    "    o[1] = gc_chase_smid();\n"
                    "    GC_U64 t0 = gc_gtimer();\n"
                    "    o[4] = clock64();\n"
                    "#pragma unroll 1\n"
                    "    for (int s = 0; s < %d; s++) {\n"
                    "#pragma unroll 1\n"
                    "        for (int i = 0; i < %d; i++) {\n",
                    ALL_REC_HEAD + nseg, spacing, nseg, loads / CHASE_UNROLL);
    for (int u = 0; u < CHASE_UNROLL; u++)
        gc__sbuf_puts(&b, "            j = gc_ld(j);\n");
    gc__sbuf_printf(&b,
                    "        }\n"
                    "        o[%d + s] = clock64();\n"
                    "    }\n"
                    "    o[3] = gc_gtimer();\n"
                    "    o[2] = t0;\n"
                    "    o[0] = (j - (GC_U64)buf) / 8;\n"
                    "}\n",
                    ALL_REC_HEAD);
    return gc__sbuf_take(&b);
}

/* ---- What to sweep ------------------------------------------------------ */

/* The host CPU's caches from sysfs (for OpenCL CPU devices): sizes in bytes,
 * 0 unknown. */
struct cpu_caches {
    size_t l1d, l2, l3, line;
};

static size_t read_size(const char *path)
{
    FILE *f = fopen(path, "r");
    char buf[64] = "";
    char *end;
    size_t v;

    if (!f)
        return 0;
    if (!fgets(buf, sizeof(buf), f))
        buf[0] = '\0';
    fclose(f);
    v = (size_t)strtoull(buf, &end, 10);
    if (*end == 'K')
        v <<= 10;
    else if (*end == 'M')
        v <<= 20;
    else if (*end == 'G')
        v <<= 30;
    return v;
}

static void cpu_caches(struct cpu_caches *c)
{
    memset(c, 0, sizeof(*c));
    for (int i = 0; i < 16; i++) {
        char path[128], type[32] = "";
        FILE *f;

        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        f = fopen(path, "r");
        if (!f)
            break;
        if (!fgets(type, sizeof(type), f))
            type[0] = '\0';
        fclose(f);
        if (strncmp(type, "Instruction", 11) == 0)
            continue;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        size_t level = read_size(path);
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        size_t size = read_size(path);
        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
        size_t line = read_size(path);
        if (level == 1)
            c->l1d = size;
        else if (level == 2)
            c->l2 = size;
        else if (level == 3)
            c->l3 = size;
        if (line && !c->line)
            c->line = line;
    }
}

struct plan {
    size_t fp[CHASE_MAX_POINTS]; /* footprints, bytes */
    int n;
    size_t spacing; /* bytes between consecutive elements (a line or a page) */
    size_t line;    /* cache line assumed (tlb: element offset granule in a page) */
    bool paged;     /* tlb: one element per page at a random line of it */
    size_t esize;   /* element bytes: 8 (global family) or 4 (the others) */
    size_t bytes;   /* buffer bytes */
    size_t llc;     /* largest cache known (sweep extent), 0 unknown */
};

static void sweep(struct plan *pl, size_t lo, size_t hi, int per_oct)
{
    pl->n = 0;
    if (hi < lo)
        hi = lo;
    for (int k = 0; pl->n < CHASE_MAX_POINTS; k++) {
        double v = (double)lo * pow(2.0, (double)k / per_oct);
        size_t f = (size_t)v / pl->spacing * pl->spacing;
        if (f < 2 * pl->spacing)
            f = 2 * pl->spacing;
        if (f > hi)
            f = hi / pl->spacing * pl->spacing;
        if (pl->n == 0 || f > pl->fp[pl->n - 1])
            pl->fp[pl->n++] = f;
        if (v >= (double)hi)
            break;
    }
    pl->bytes = pl->fp[pl->n - 1];
}

static size_t clamp_sz(size_t v, size_t lo, size_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void make_plan(const struct gc_session *s, enum chase_path p, struct plan *pl)
{
    const struct gc_device_info *info = &s->dev->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    int per_oct = s->profile == GC_PROFILE_QUICK ? 2 : s->profile == GC_PROFILE_FULL ? 8 : 4;
    struct cpu_caches cc;
    size_t hi, mem_cap = (size_t)1 << 40;

    memset(pl, 0, sizeof(*pl));
    cpu_caches(&cc);
    if (info->max_alloc)
        mem_cap = info->max_alloc;
    if (info->global_mem && mem_cap > info->global_mem / 2)
        mem_cap = info->global_mem / 2;
    pl->line = gpu ? 128 : cc.line ? cc.line : 64;
    pl->spacing = pl->line;
    pl->esize = words_path(p) ? 4 : 8;
    pl->llc = gpu ? info->l2_size : cc.l3 ? cc.l3 : cc.l2 ? cc.l2 : info->l2_size;
    switch (p) {
    case PATH_TLB:
        pl->paged = true;
        pl->spacing = gpu ? (size_t)2 << 20 : 4096;
        if (gpu)
            hi = s->profile == GC_PROFILE_QUICK  ? (size_t)4 << 30
                 : s->profile == GC_PROFILE_FULL ? (size_t)64 << 30
                                                 : (size_t)16 << 30;
        else
            hi = s->profile == GC_PROFILE_QUICK  ? (size_t)64 << 20
                 : s->profile == GC_PROFILE_FULL ? (size_t)1 << 30
                                                 : (size_t)256 << 20;
        if (hi > mem_cap)
            hi = mem_cap;
        sweep(pl, 16 * pl->spacing, hi, per_oct);
        break;
    case PATH_CONSTANT:
        pl->spacing = 64;
        sweep(pl, 512, 64 << 10, per_oct);
        break;
    case PATH_SHARED:
        /* The opt-in limit (equal to the default where there is no opt-in). */
        hi = info->shared_per_block_optin;
        if (!gpu && hi > (256u << 10))
            hi = 256u << 10;
        sweep(pl, 1024, hi, per_oct);
        break;
    case PATH_PRIVATE:
        sweep(pl, 512, CHASE_PRIVATE_BYTES, per_oct);
        break;
    default:
        if (gpu) {
            hi = info->l2_size ? 4 * info->l2_size : (size_t)256 << 20;
            hi = clamp_sz(hi, (size_t)16 << 20, (size_t)2 << 30);
        } else {
            /* A few times the last-level cache, bounded so that CPU runs stay
             * short (the warm pass walks the whole footprint every launch). */
            size_t cap = s->profile == GC_PROFILE_QUICK  ? (size_t)32 << 20
                         : s->profile == GC_PROFILE_FULL ? (size_t)1 << 30
                                                         : (size_t)64 << 20;
            hi = clamp_sz(4 * (pl->llc ? pl->llc : (size_t)8 << 20), (size_t)4 << 20, cap);
        }
        if (p == PATH_TEXTURE && hi > ((size_t)1 << 30))
            hi = (size_t)1 << 30; /* 2^27 texels of 8 bytes */
        if (hi > mem_cap)
            hi = mem_cap;
        sweep(pl, 1024, hi, per_oct);
        break;
    }
}

/* Index (in elements of esize bytes) of chain element e. */
static size_t slot_of(const struct plan *pl, size_t e)
{
    if (pl->paged) {
        size_t lines = pl->spacing / pl->line;
        size_t off = (size_t)((e * 2654435761ULL) % lines) * pl->line;
        return (e * pl->spacing + off) / pl->esize;
    }
    return e * pl->spacing / pl->esize;
}

/* ---- Measuring one path ------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;

    return (u > v) - (u < v);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t u = *(const uint64_t *)a, v = *(const uint64_t *)b;

    return (u > v) - (u < v);
}

/* The cycle path needs the cycle counter and the ns timer read through
 * inline PTX, and loads spelled in PTX. */
static bool chase_clocks(const struct gc_device_info *info)
{
    unsigned need = GC_CAP_INLINE_ASM | GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER;

    return (info->caps & need) == need;
}

struct chase_ctx {
    struct gc_session *s;
    struct gc_bench_result *r;
    enum chase_path path;
    struct plan pl;
    bool clocks; /* the cycle path (struct kspec) */
    int nseg;    /* clocks: timed segments per launch */
    int loads;   /* clocks: loads per segment; else loads of the short kernel */
    struct gc_kreq *reqs;
    int nreq;
    struct gc_kern *install;
    struct gc_buf *buf, *out, *pairs, *words;
    uint64_t tex;
    /* CUDA L1 paths: the chase kernel asked for the largest L1 (carve-out
     * preference 0); carveout_err holds why not where that failed. */
    bool carveout;
    char carveout_err[160];
    /* The every-SM chase (memory.latency.l2 on CUDA). */
    struct gc_kern *all;
    struct gc_buf *all_out;
    int nsm;
};

/* Puts the chain of footprint fp into the device buffer the kernel reads:
 * one cycle, or `slices` disjoint cycles of fp / spacing / slices elements
 * each (the every-SM chase). Returns the chain (malloc'ed) through *next and
 * its length in all through *m. */
static int install_chain(struct chase_ctx *c, size_t fp, int slices, uint64_t seed, uint32_t **next,
                         size_t *m)
{
    struct gc_device *d = c->s->dev;
    const struct plan *pl = &c->pl;
    size_t per = fp / pl->spacing / (size_t)slices, n = per * (size_t)slices;
    uint32_t *nx = slices > 1 ? sattolo_slices(per, slices, seed) : sattolo(n, seed);
    uint64_t *pairs = NULL;
    uint32_t *w = NULL;
    int rc = 0;

    *next = NULL;
    *m = n;
    if (!nx)
        return GC_ENOMEM;
    if (words_path(c->path)) {
        /* Dense words: the chain's indices where the elements are, random
         * words in between (never read). */
        size_t nw = fp / 4;
        w = malloc(nw * sizeof(*w));
        if (!w) {
            rc = GC_ENOMEM;
            goto out;
        }
        gc__random_fill(w, nw * sizeof(*w), seed ^ 0x5EEDULL);
        for (size_t e = 0; e < n; e++)
            w[slot_of(pl, e)] = (uint32_t)slot_of(pl, nx[e]);
        if (c->words)
            rc = gc__dev_write(d, c->words, 0, w, nw * sizeof(*w));
        /* The CUDA constant path has the chain in its kernel's source. */
    } else {
        pairs = malloc(2 * n * sizeof(*pairs));
        if (!pairs) {
            rc = GC_ENOMEM;
            goto out;
        }
        for (size_t e = 0; e < n; e++) {
            pairs[2 * e] = slot_of(pl, e);
            /* CUDA global paths chase byte addresses (the install kernel adds
             * the buffer's base); the texture and OpenCL chase indices. */
            pairs[2 * e + 1] =
                c->clocks && c->path != PATH_TEXTURE ? slot_of(pl, nx[e]) * 8 : slot_of(pl, nx[e]);
        }
        rc = gc__dev_write(d, c->pairs, 0, pairs, 2 * n * sizeof(*pairs));
        if (rc)
            goto out;
        struct gc_arg a[4] = {
            {.type = GC_ARG_BUF, .v.buf = c->buf},
            {.type = GC_ARG_BUF, .v.buf = c->pairs},
            {.type = GC_ARG_U32, .v.u32 = (uint32_t)n},
            {.type = GC_ARG_U32, .v.u32 = c->clocks && c->path != PATH_TEXTURE},
        };
        struct gc_launch l = {{(unsigned)((n + 255) / 256), 1, 1}, {256, 1, 1}, 0, a, 4, 1};
        double el;
        rc = gc__dev_launch(d, c->install, &l, &el);
    }
out:
    free(pairs);
    free(w);
    if (rc)
        free(nx);
    else
        *next = nx;
    return rc;
}

static int verify_end(struct chase_ctx *c, uint64_t got, uint64_t want, size_t fp)
{
    if (got == want)
        return 0;
    gc__bench_set_error(c->r, GC_BENCH_ERROR,
                        "verification failed (%s, %zu-byte footprint): the chase ended at "
                        "element index %llu, the cycle says %llu",
                        path_name(c->path), fp, (unsigned long long)got, (unsigned long long)want);
    return GC_EVERIFY;
}

/* CUDA: one launch; nseg samples of cycles per load from clock64, ns per
 * load through the SM clock observed over the segments (clock64 against
 * %globaltimer). */
static int point_cuda(struct chase_ctx *c, struct gc_kern *k, size_t fp, const uint32_t *next,
                      size_t m, struct gc_stats *cyc, struct gc_stats *ns, double *mhz)
{
    struct gc_device *d = c->s->dev;
    int nw = 3 + c->nseg, rc;
    uint64_t *o = malloc((size_t)nw * sizeof(*o));
    double *v = malloc((size_t)c->nseg * sizeof(*v));
    struct gc_arg a[5];
    int na = 0;
    unsigned block = 32;
    size_t dyn = 0;

    if (!o || !v) {
        rc = GC_ENOMEM;
        goto out;
    }
    for (int i = 0; i < nw; i++)
        o[i] = ~0ULL; /* poison */
    rc = gc__dev_write(d, c->out, 0, o, (size_t)nw * sizeof(*o));
    if (rc)
        goto out;
    if (words_path(c->path)) {
        if (c->path != PATH_CONSTANT) {
            a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->words};
            a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)(fp / 4)};
        }
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 0};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)m};
        if (c->path == PATH_SHARED) {
            dyn = fp;
            block = 256;
        }
    } else {
        a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->buf};
        if (c->path == PATH_TEXTURE)
            a[na++] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = c->tex};
        a[na++] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = 0};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)m};
    }
    a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->out};
    if (c->carveout && dyn == 0)
        dyn = CH_L1_DYN;
    struct gc_launch l = {{1, 1, 1}, {block, 1, 1}, dyn, a, na, 1};
    double el;
    rc = gc__dev_launch(d, k, &l, &el);
    if (rc)
        goto out;
    rc = gc__dev_read(d, c->out, 0, o, (size_t)nw * sizeof(*o));
    if (rc)
        goto out;
    uint64_t want = slot_of(&c->pl, walk(next, m, m + (uint64_t)c->nseg * c->loads));
    rc = verify_end(c, o[0], want, fp);
    if (rc)
        goto out;
    for (int i = 0; i < c->nseg; i++)
        v[i] = (double)(o[3 + i] - o[2 + i]) / c->loads;
    gc__stats_compute(v, c->nseg, cyc);
    *mhz = o[1] > 0 ? (double)(o[2 + c->nseg] - o[2]) / (double)o[1] * 1e3 : NAN;
    *ns = *cyc;
    if (isfinite(*mhz) && *mhz > 0)
        gc__stats_scale(ns, 1e3 / *mhz);
    else
        ns->n = 0;
out:
    free(o);
    free(v);
    return rc;
}

/* Labels of the OpenCL points whose latency is a kernel's upper bound. */
static const char cl_bound_long[] = "upper bound (long kernel)";
static const char cl_bound_short[] = "upper bound (short kernel)";

/* Seconds per load from one launch time t1 of the short kernel (m warm-up
 * loads, then L = `loads` timed ones) and t2 of the long one (m + 2L):
 * with a launch overhead o >= 0, t_k = o + (m + kL) t. The difference
 * d = (t2 - t1) / L cancels o. The overhead it implies, o = t1 - (m + L) d,
 * equals t2 - (m + 2L) d, so o >= 0 is the bound d <= t2 / (m + 2L). d
 * stands when o is neither negative nor a large share of t1
 * (CHASE_CL_MAX_OVERHEAD): the two times then come from one mode of the
 * device. Otherwise they do not (one kernel in a slow mode: a sibling
 * hardware thread taking part of the cache, bimodal hits near a capacity;
 * a short kernel in a slow mode makes d far too small) and the tighter of
 * the upper bounds t_k / (m + kL) stands, overhead included, which is
 * small against the milliseconds of a CPU chase. *how is NULL for d, else
 * the bound's label. */
static double cl_latency(double t1, double t2, size_t m, uint64_t loads, const char **how)
{
    double n1 = (double)m + (double)loads, n2 = (double)m + 2.0 * (double)loads;
    double d = (t2 - t1) / (double)loads, o = t1 - n1 * d;

    *how = NULL;
    if (o >= 0 && o <= CHASE_CL_MAX_OVERHEAD * t1)
        return d;
    /* t_k / (m + kL) = d + o / (m + kL): the long kernel's bound is the
     * tighter one where o >= 0, the short kernel's where o < 0 (the long
     * kernel's minimum in a slower mode than the short's). */
    if (t2 / n2 <= t1 / n1) {
        *how = cl_bound_long;
        return t2 / n2;
    }
    *how = cl_bound_short;
    return t1 / n1;
}

/* OpenCL: the short and the long kernel measured by the engine; ns per load
 * from their times per launch, pair by pair of sorted samples (cl_latency).
 * *best is the pair of minima's, *how its label (NULL: the difference). */
static int point_cl(struct chase_ctx *c, struct gc_kern *k1, struct gc_kern *k2, size_t fp,
                    const uint32_t *next, size_t m, struct gc_stats *ns, double *best,
                    const char **how, double *mhz, struct gc_measurement *keep)
{
    struct gc_device *d = c->s->dev;
    struct gc_measurement m1 = {0}, m2 = {0};
    struct gc_arg a[5];
    int na = 0, rc;
    unsigned block = 1;
    size_t dyn = 0;
    uint64_t o = ~0ULL;
    double *v = NULL;

    if (words_path(c->path)) {
        a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->words};
        if (c->path != PATH_CONSTANT)
            a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)(fp / 4)};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 0};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)m};
        if (c->path == PATH_SHARED) {
            dyn = fp;
            block = d->info.max_threads_per_block >= 64 ? 64 : 1;
        }
    } else {
        a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->buf};
        a[na++] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = 0};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)m};
    }
    a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->out};
    if (c->carveout && dyn == 0)
        dyn = CH_L1_DYN;
    struct gc_launch l = {{1, 1, 1}, {block, 1, 1}, dyn, a, na, 1};
    for (int pass = 0; pass < 2; pass++) {
        uint64_t loads = (uint64_t)c->loads * (pass + 1);
        rc = gc__dev_write(d, c->out, 0, &o, sizeof(o));
        if (rc)
            goto out;
        rc = gc__measure(c->s, pass ? k2 : k1, &l, NULL, NULL, 0, pass ? &m2 : &m1);
        if (rc)
            goto out;
        uint64_t got;
        rc = gc__dev_read(d, c->out, 0, &got, sizeof(got));
        if (rc)
            goto out;
        rc = verify_end(c, got, slot_of(&c->pl, walk(next, m, m + loads)), fp);
        if (rc)
            goto out;
    }
    int n = m1.samples < m2.samples ? m1.samples : m2.samples;
    v = malloc((size_t)(n ? n : 1) * sizeof(*v));
    if (!v) {
        rc = GC_ENOMEM;
        goto out;
    }
    /* Interference from other work on the device (a CPU's other processes)
     * only adds time, so the samples of each kernel are paired in sorted
     * order, and the reported value is the pair of minima's; every pair
     * gives an estimate of its own under the same bounds, and those give the
     * spread. */
    qsort(m1.per_sample_s, (size_t)m1.samples, sizeof(double), cmp_double);
    qsort(m2.per_sample_s, (size_t)m2.samples, sizeof(double), cmp_double);
    *how = NULL;
    for (int i = 0; i < n; i++) {
        const char *h;
        v[i] = cl_latency(m1.per_sample_s[i], m2.per_sample_s[i], m, (uint64_t)c->loads, &h) * 1e9;
        if (i == 0)
            *how = h;
    }
    gc__stats_compute(v, n, ns);
    *best = n > 0 ? v[0] : NAN;
    *mhz = m2.clock_mhz;
    gc__measurement_free(keep);
    *keep = m2;
    m2.per_sample_s = NULL;
out:
    free(v);
    gc__measurement_free(&m1);
    gc__measurement_free(&m2);
    return rc;
}

/* ---- Levels into metrics ------------------------------------------------ */

/* The L1 an SM keeps with the carve-out preference at 0: the unified L1 /
 * shared-memory array of the architecture table (the device reports only the
 * largest carve-out, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
 * less the carve-out the driver must still make (the smallest one, or the
 * smallest non-zero one where the system reserves shared memory in every
 * block). NAN where the array is not known; why says how it is derived. */
static double l1_expected(const struct gc_device *d, char *why, size_t len)
{
    const struct gc_device_info *info = &d->info;
    const struct gc_arch *a = &d->arch;
    int keep = a->l1_smallest_kib;

    why[0] = '\0';
    if (a->l1_unified_kib <= 0)
        return NAN;
    if (keep == 0 && info->shared_reserved_per_block > 0)
        keep = a->l1_nonzero_kib;
    snprintf(why, len,
             "carve-out pref. 0%%: %d KiB L1/shared array (CC %d.%d) less %d KiB kept "
             "(%s); at the %.0f KiB shared maximum L1 is %.0f KiB",
             a->l1_unified_kib, a->cc / 10, a->cc % 10, keep,
             keep == a->l1_smallest_kib ? "the smallest carve-out"
                                        : "smallest non-zero: blocks reserve some",
             info->shared_per_cu / 1024.0, a->l1_unified_kib - info->shared_per_cu / 1024.0);
    return (double)(a->l1_unified_kib - keep) * 1024;
}

/* Names the detected levels of a path's staircase: name[k] is the metric
 * prefix of level k. x_max is the largest footprint measured. */
static void level_names(const struct chase_ctx *c, const struct gc_cache_fit *f, double x_max,
                        char name[][24])
{
    const struct gc_device_info *info = &c->s->dev->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    int nl = f->nlevels;
    /* The sweep reached the backing store when it went well past the largest
     * cache known. */
    bool memory = c->pl.llc && x_max >= 2.0 * (double)c->pl.llc;
    /* One SM sees the L2 partition next to it first; where its footprint
     * outgrows that share, a plateau between the L2 and DRAM latencies can
     * follow until the footprint outgrows the whole L2 (H100/H200). */
    double l2 = (double)info->l2_size;

    for (int k = 0; k < nl; k++)
        snprintf(name[k], 24, "level%d", k + 1);
    switch (c->path) {
    case PATH_TLB:
        for (int k = 0; k < nl; k++)
            snprintf(name[k], 24, "tlb%d", k + 1);
        return;
    case PATH_CONSTANT:
    case PATH_SHARED:
    case PATH_PRIVATE:
        for (int k = 0; k < nl; k++)
            /* Path names have at most 8 characters and there are at most
             * GC_CACHE_MAX_LEVELS levels: the name always fits. */
            snprintf(name[k], 24, "%.8s_level%u", path_name(c->path), (unsigned)(k + 1) & 0xffu);
        return;
    case PATH_L2:
        if (nl >= 1)
            snprintf(name[0], 24, "l2");
        if (nl >= 2)
            snprintf(name[nl - 1], 24, "dram");
        if (nl == 3 && l2 > 0 && f->level[1].capacity >= l2 / 2 && f->level[1].capacity <= 2 * l2)
            snprintf(name[1], 24, "l2_spill");
        return;
    default:
        break;
    }
    if (!gpu) {
        /* A CPU staircase has more steps than caches (the TLBs add theirs,
         * and part of L1 can be taken by other work on the core), so L1, L2
         * and L3 are the steps nearest to the sizes sysfs gives, when within
         * a factor of 4, L1 first; the other steps keep their position as
         * name. Without a sysfs size for L1, the first plateau is L1. */
        struct cpu_caches cc;
        size_t want[3];
        cpu_caches(&cc);
        want[0] = cc.l1d;
        want[1] = cc.l2;
        want[2] = cc.l3;
        for (int w = 0; w < 3; w++) {
            int best = -1;
            for (int k = 0; want[w] && k + 1 < nl; k++) {
                double dk = fabs(log(f->level[k].capacity / (double)want[w]));
                if (dk < log(4.0) && strncmp(name[k], "level", 5) == 0 &&
                    (best < 0 || dk < fabs(log(f->level[best].capacity / (double)want[w]))))
                    best = k;
            }
            if (best >= 0)
                snprintf(name[best], 24, "l%d", w + 1);
            else if (w == 0 && nl >= 1)
                snprintf(name[0], 24, "l1");
        }
        if (memory && nl >= 2)
            snprintf(name[nl - 1], 24, "dram");
        return;
    }
    if (nl == 2 && l2 > 0 && f->level[0].capacity > l2 / 4) {
        /* No L1 step: the path does not cache in L1. */
        snprintf(name[0], 24, "l2");
        snprintf(name[1], 24, "dram");
        return;
    }
    /* L1, then the L2 as one SM sees it (the first level after L1, whatever
     * its size: a partitioned L2 gives one SM less than the whole), DRAM. */
    if (nl >= 1)
        snprintf(name[0], 24, "l1");
    if (nl >= 2)
        snprintf(name[1], 24, "l2");
    if (nl >= 3 || (nl >= 2 && memory))
        snprintf(name[nl - 1], 24, "dram");
    if (nl == 4 && l2 > 0 && f->level[2].capacity >= l2 / 2 && f->level[2].capacity <= 2 * l2)
        snprintf(name[2], 24, "l2_spill");
}

/* The metric name of a level's capacity, its limit where the device or the
 * host says it, and what the note adds. */
static double level_size(const struct chase_ctx *c, const char *name, char *mname, size_t mlen,
                         char *src, size_t len)
{
    const struct gc_device_info *info = &c->s->dev->info;
    struct cpu_caches cc;

    src[0] = '\0';
    snprintf(mname, mlen, "%s_%s_bytes", name, c->path == PATH_TLB ? "reach" : "size");
    if (info->type == GC_DEVICE_GPU) {
        if (strcmp(name, "l2") == 0) {
            if (info->l2_size)
                snprintf(src, len,
                         "one SM: its share of L2 (a split L2's near partition); the whole %.0f "
                         "KiB reported%s",
                         info->l2_size / 1024.0,
                         c->clocks ? " is measured from every SM in memory.latency.l2 "
                                     "(l2_all_sms_size_bytes)"
                                   : "");
            return NAN;
        }
        if (strcmp(name, "l2_spill") == 0) {
            snprintf(src, len,
                     "one SM: end of the plateau between its L2 and DRAM latencies; %.0f KiB "
                     "of L2 reported in all",
                     info->l2_size / 1024.0);
            return NAN;
        }
        if (strcmp(name, "l1") == 0) {
            char why[400];
            double v = c->carveout ? l1_expected(c->s->dev, why, sizeof(why)) : NAN;
            if (isfinite(v)) {
                snprintf(src, len, "%s", why);
                return v;
            }
            if (info->shared_per_cu)
                snprintf(src, len,
                         "L1 and shared memory share one array per SM; shared memory may take "
                         "up to %.0f KiB of it%s%s",
                         info->shared_per_cu / 1024.0, c->carveout_err[0] ? "; " : "",
                         c->carveout_err);
            else if (c->carveout_err[0])
                snprintf(src, len, "%s", c->carveout_err);
        }
        return NAN;
    }
    if (info->type != GC_DEVICE_CPU)
        return NAN;
    cpu_caches(&cc);
    size_t v = strcmp(name, "l1") == 0   ? cc.l1d
               : strcmp(name, "l2") == 0 ? cc.l2
               : strcmp(name, "l3") == 0 ? cc.l3
                                         : 0;
    if (!v)
        return NAN;
    snprintf(src, len, "sysfs says %.0f KiB for cpu0 (the OpenCL driver reports %.0f KiB)",
             v / 1024.0, info->l2_size / 1024.0);
    return (double)v;
}

static void add_level_metrics(struct chase_ctx *c, const double *x, const double *y_ns,
                              const double *y_cyc, const bool *planned, int n, bool have_cyc,
                              bool detect_on_cycles)
{
    struct gc_bench_result *r = c->r;
    const double *y = detect_on_cycles ? y_cyc : y_ns;
    struct gc_cache_fit f;
    char names[GC_CACHE_MAX_LEVELS][24], mname[64], note[768], src[512];

    if (gc__cache_detect_refined(x, y, n, planned, &f) != 0 || f.nlevels == 0)
        return;
    level_names(c, &f, x[n - 1], names);
    /* The ratio between the two series (the clock) converts the levels. */
    for (int k = 0; k < f.nlevels; k++) {
        const struct gc_cache_level *L = &f.level[k];
        double to_cyc = 1, to_ns = 1;
        if (have_cyc && y_ns[L->first] > 0)
            to_cyc = y_cyc[L->first] / y_ns[L->first];
        if (detect_on_cycles && y_cyc[L->first] > 0)
            to_ns = y_ns[L->first] / y_cyc[L->first];
        double lat_ns = detect_on_cycles ? L->latency * to_ns : L->latency;
        double lat_cyc = detect_on_cycles ? L->latency : L->latency * to_cyc;

        if (isfinite(f.rms_rel))
            snprintf(note, sizeof(note),
                     "plateau of %d footprints (%.0f B .. %.0f B), median; eq. 6 fit %.4g %s, "
                     "fit rms %.1f%%",
                     L->last - L->first + 1, x[L->first], x[L->last], L->latency_fit,
                     detect_on_cycles ? "cycles" : "ns", 100 * f.rms_rel);
        else
            snprintf(note, sizeof(note),
                     "plateau of %d footprints (%.0f B .. %.0f B), median; no eq. 6 fit",
                     L->last - L->first + 1, x[L->first], x[L->last]);
        if (have_cyc) {
            snprintf(mname, sizeof(mname), "%s_latency_cycles", names[k]);
            gc__bench_add_metric(r, mname, lat_cyc, "cycles", NAN, NULL, note);
        }
        snprintf(mname, sizeof(mname), "%s_latency_ns", names[k]);
        gc__bench_add_metric(r, mname, lat_ns, "ns", NAN, NULL, note);
        if (!isfinite(L->capacity))
            continue;
        /* The size the device or the host reports is a reference, not a
         * bound: a chase's step lies where latency starts to rise, which
         * replacement, hashing and a victim cache below can move either way
         * (a 2 MiB L2 over a non-inclusive L3 was seen at 2.4 MiB). It goes
         * into the note, not into the limit the guard enforces. */
        double ref = level_size(c, names[k], mname, sizeof(mname), src, sizeof(src));
        char refs[64] = "";
        if (isfinite(ref))
            snprintf(refs, sizeof(refs), "; %.0f%% of the %.0f KiB reported",
                     100 * L->capacity / ref, ref / 1024);
        snprintf(note, sizeof(note), "%s, step between %.0f B and %.0f B%s%s%s",
                 isfinite(f.rms_rel) ? "eq. 6 fit" : "last footprint at the plateau (no eq. 6 fit)",
                 L->capacity_lo, L->capacity_hi, refs, src[0] ? "; " : "", src);
        gc__bench_add_metric(r, mname, L->capacity, "B", NAN, NULL, note);
    }
    if (c->path == PATH_TLB && f.nlevels >= 2) {
        snprintf(note, sizeof(note),
                 "first step of the page-strided chase (one access per %zu-byte page)",
                 c->pl.spacing);
        gc__bench_add_metric(r, "tlb_reach_bytes", f.level[0].capacity, "B", NAN, NULL, note);
    }
}

/* ---- The near/far L2 benchmark (CUDA) ----------------------------------- */

static int run_l2part(struct gc_session *s, struct gc_bench_result *r)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    const int loads = 4096;
    size_t fp = info->l2_size ? info->l2_size / 8 : (size_t)4 << 20;
    struct chase_ctx c;
    struct gc_kreq req[2];
    struct gc_kern *k = NULL;
    struct gc_buf *flush = NULL;
    size_t flush_bytes = info->l2_size ? 2 * info->l2_size : (size_t)256 << 20;
    uint32_t *next = NULL;
    size_t m = 0;
    double *lat = NULL;
    int rc, nsm = info->compute_units, step = s->profile == GC_PROFILE_QUICK ? 8 : 1;
    char names[2][16] = {"l2part", "install"};

    memset(&c, 0, sizeof(c));
    memset(req, 0, sizeof(req));
    c.s = s;
    c.r = r;
    c.path = PATH_L2_PARTITION;
    c.clocks = true;
    fp = clamp_sz(fp, (size_t)1 << 20, (size_t)8 << 20);
    c.pl.spacing = c.pl.line = 128;
    c.pl.esize = 8;
    c.pl.n = 1;
    c.pl.fp[0] = fp;
    if (nsm < 1 || !info->shared_per_block_optin) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available: the SM count or shared memory size is unknown");
        return 0;
    }
    req[0].label = names[0];
    req[0].src = gen_l2part(d->ops->dialect, loads);
    req[1].label = names[1];
    req[1].src = gen_install(d->ops->dialect);
    if (!req[0].src || !req[1].src) {
        rc = GC_ENOMEM;
        goto out;
    }
    rc = gc__kcache_build(s, req, 2);
    if (rc)
        goto out;
    if ((rc = d->ops->kernel(req[0].prog, "gc_l2part", &k)) ||
        (rc = d->ops->kernel(req[1].prog, "gc_install", &c.install))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        goto out;
    }
    if ((rc = gc__dev_alloc(d, fp, &c.buf)) || (rc = gc__dev_alloc(d, 64, &c.out)) ||
        (rc = gc__dev_alloc(d, 2 * (fp / 128) * 8, &c.pairs)) ||
        (rc = gc__dev_alloc(d, flush_bytes, &flush)))
        goto out;
    if ((rc = gc__dev_fill_random(d, c.buf, fp, s->seed ^ 0xC4A5EULL)) ||
        (rc = gc__dev_fill_random(d, flush, flush_bytes, s->seed ^ 0xF1ULL)))
        goto out;
    rc = install_chain(&c, fp, 1, s->seed ^ 0x12ULL, &next, &m);
    if (rc)
        goto out;
    lat = malloc((size_t)nsm * sizeof(*lat));
    if (!lat) {
        rc = GC_ENOMEM;
        goto out;
    }
    struct gc_series *ser = gc__bench_add_series(r, "sm0_latency_after_touch_from_sm",
                                                 "SM that "
                                                 "touched the data",
                                                 "SM id", "latency on SM 0", "cycles/load");
    if (!ser) {
        rc = GC_ENOMEM;
        goto out;
    }
    int nmeas = 0, kmin = -1, kmax = -1;
    for (int sm = 0; sm < nsm && !gc__stopped(s); sm += step) {
        uint64_t o[3];
        double el;
        /* Flush L2, let SM `sm` touch the chain, then chase it from SM 0. */
        rc = d->ops->copy(flush, flush_bytes / 2, flush, 0, flush_bytes / 2);
        if (rc) {
            snprintf(d->err, sizeof(d->err), "L2 flush: %s", d->ops->last_error(d->dev));
            goto out;
        }
        for (int phase = 0; phase < 2; phase++) {
            struct gc_arg a[6] = {
                {.type = GC_ARG_BUF, .v.buf = c.buf},
                {.type = GC_ARG_U64, .v.u64 = 0},
                {.type = GC_ARG_U32, .v.u32 = (uint32_t)m},
                {.type = GC_ARG_U32, .v.u32 = phase ? 0u : (uint32_t)sm},
                {.type = GC_ARG_U32, .v.u32 = (uint32_t)phase},
                {.type = GC_ARG_BUF, .v.buf = c.out},
            };
            /* A block takes all the shared memory one may have, so at most one
             * fits on an SM and the nsm blocks cover every SM. */
            struct gc_launch l = {
                {(unsigned)nsm, 1, 1}, {32, 1, 1}, info->shared_per_block_optin, a, 6, 1};
            o[0] = o[1] = ~0ULL;
            o[2] = 0;
            if ((rc = gc__dev_write(d, c.out, 0, o, sizeof(o))) ||
                (rc = gc__dev_launch(d, k, &l, &el)) ||
                (rc = gc__dev_read(d, c.out, 0, o, sizeof(o))))
                goto out;
            uint64_t want = slot_of(&c.pl, walk(next, m, phase ? (uint64_t)loads : m));
            if (o[2] != 1) {
                gc__bench_set_error(r, GC_BENCH_ERROR,
                                    "%llu blocks ran on SM %d (expected exactly one): the "
                                    "one-block-per-SM placement did not hold",
                                    (unsigned long long)o[2], phase ? 0 : sm);
                rc = GC_EVERIFY;
                goto out;
            }
            rc = verify_end(&c, o[0], want, fp);
            if (rc)
                goto out;
        }
        lat[nmeas] = (double)o[1] / loads;
        gc__series_add(ser, sm, lat[nmeas], NULL, NULL);
        if (kmin < 0 || lat[nmeas] < lat[kmin])
            kmin = nmeas;
        if (kmax < 0 || lat[nmeas] > lat[kmax])
            kmax = nmeas;
        nmeas++;
    }
    if (nmeas > 0) {
        char note[256];
        snprintf(note, sizeof(note),
                 "SM 0 chasing %.0f KiB with ld.global.cg after SM %d touched it (L2 flushed "
                 "before each touch); min over %d SMs",
                 fp / 1024.0, kmin * step, nmeas);
        gc__bench_add_metric(r, "l2_near_latency_cycles", lat[kmin], "cycles", NAN, NULL, note);
        snprintf(note, sizeof(note),
                 "SM 0 chasing %.0f KiB with ld.global.cg after SM %d touched it (L2 flushed "
                 "before each touch); max over %d SMs",
                 fp / 1024.0, kmax * step, nmeas);
        gc__bench_add_metric(r, "l2_far_latency_cycles", lat[kmax], "cycles", NAN, NULL, note);
    }
    if (gc__stopped(s))
        rc = GC_EINTR;
out:
    free(lat);
    free(next);
    gc__dev_free(d, flush);
    gc__dev_free(d, c.buf);
    gc__dev_free(d, c.out);
    gc__dev_free(d, c.pairs);
    gc__kreq_release(s, req, 2);
    return rc;
}

/* ---- The staircase benchmarks ------------------------------------------- */

/* The chain of footprint fp as the words the word paths read (random words
 * between the elements); also returns the chain. */
static uint32_t *chain_words(const struct plan *pl, size_t fp, uint64_t seed, uint32_t **next,
                             size_t *m)
{
    size_t n = fp / pl->spacing, nw = fp / 4;
    uint32_t *w = malloc(nw * sizeof(*w));

    *m = n;
    *next = sattolo(n, seed);
    if (!w || !*next) {
        free(w);
        free(*next);
        *next = NULL;
        return NULL;
    }
    gc__random_fill(w, nw * sizeof(*w), seed ^ 0x5EEDULL);
    for (size_t e = 0; e < n; e++)
        w[slot_of(pl, e)] = (uint32_t)slot_of(pl, (*next)[e]);
    return w;
}

static uint64_t point_seed(const struct gc_session *s, int i)
{
    return s->seed ^ (0xC4A5E000ULL + (uint64_t)i * 0x9E3779B97F4A7C15ULL);
}

/* One measured footprint of a staircase. */
struct chase_pt {
    double x;       /* footprint, bytes */
    double cyc, ns; /* latency per load; NAN where unknown */
    double mhz;     /* SM clock observed */
    struct gc_stats scyc, sns;
    bool planned;    /* false: added by refinement */
    const char *how; /* OpenCL: the label of a kernel's bound standing in, else NULL */
};

/* The points of a staircase, in footprint order. */
struct curve {
    struct chase_pt *pt; /* CHASE_MAX_POINTS entries */
    int n;
    int planned; /* points of the planned sweep; the others were added by refinement */
};

/* Measures footprint fp; i numbers the point (the planned sweep's index, then
 * on) for its seed. */
typedef int (*point_fn)(struct chase_ctx *c, void *arg, size_t fp, int i, struct chase_pt *p);

static void curve_add(struct curve *cv, const struct chase_pt *p)
{
    int at = cv->n;

    while (at > 0 && cv->pt[at - 1].x > p->x)
        at--;
    if ((at > 0 && cv->pt[at - 1].x == p->x) || cv->n >= CHASE_MAX_POINTS)
        return;
    memmove(cv->pt + at + 1, cv->pt + at, (size_t)(cv->n - at) * sizeof(*cv->pt));
    cv->pt[at] = *p;
    cv->n++;
}

/* The planned footprints, then up to `budget` more where the latency steps
 * (gc__cache_refine_next on the cycles where the device counts them, else
 * the ns), each a multiple of granule. On CPUs, where a point of the chase
 * lasts up to a second, the refinement also stops once it has taken a
 * quarter of the planned sweep's time. */
static int sweep_curve(struct chase_ctx *c, point_fn fn, void *arg, const size_t *fps, int nfp,
                       int budget, size_t granule, struct curve *cv)
{
    bool gpu = c->s->dev->info.type == GC_DEVICE_GPU;
    double jump = gpu ? CHASE_REFINE_JUMP_GPU : CHASE_REFINE_JUMP_CPU;
    double *x = malloc(CHASE_MAX_POINTS * sizeof(*x)), *y = malloc(CHASE_MAX_POINTS * sizeof(*y));
    double t0 = gc__now(), t_planned;
    struct chase_pt p;
    int rc = 0;

    if (!x || !y) {
        rc = GC_ENOMEM;
        goto out;
    }
    for (int i = 0; i < nfp && !gc__stopped(c->s); i++) {
        p = (struct chase_pt){0};
        rc = fn(c, arg, fps[i], i, &p);
        if (rc)
            goto out;
        p.planned = true;
        curve_add(cv, &p);
    }
    cv->planned = cv->n;
    t_planned = gc__now() - t0;
    t0 = gc__now();
    /* Every point must have landed (a stop, or a footprint measured twice,
     * ends the refinement). Each round splits every step once. */
    int want = nfp;
    double after = 0;
    for (int k = 0; k < budget && cv->n < CHASE_MAX_POINTS && !gc__stopped(c->s); k++) {
        if (!gpu && gc__now() - t0 > 0.25 * t_planned)
            break;
        bool ok = cv->n == want;
        for (int i = 0; ok && i < cv->n; i++) {
            x[i] = cv->pt[i].x;
            y[i] = c->clocks ? cv->pt[i].cyc : cv->pt[i].ns;
            ok = isfinite(y[i]) && y[i] > 0;
        }
        double nx = ok ? gc__cache_refine_next(x, y, cv->n, jump, CHASE_REFINE_WIDTH,
                                               (double)granule, after)
                       : NAN;
        if (isnan(nx))
            break;
        after = nx;
        p = (struct chase_pt){0};
        rc = fn(c, arg, (size_t)nx, nfp + k, &p);
        if (rc)
            goto out;
        p.planned = false;
        curve_add(cv, &p);
        want++;
    }
out:
    free(x);
    free(y);
    return rc;
}

/* What the one-SM (one work-group) chase needs besides the context. */
struct one_arg {
    struct gc_kern *k1, *k2; /* OpenCL: the short and the long kernel */
    bool cconst;             /* CUDA constant path: kernel i holds chain i */
    uint32_t **cnext;
    struct gc_measurement *keep;
    bool clk_nominal;
};

static int one_point(struct chase_ctx *c, void *argp, size_t fp, int i, struct chase_pt *p)
{
    struct one_arg *a = argp;
    struct gc_session *s = c->s;
    struct gc_device *d = s->dev;
    struct gc_kern *k = a->k1;
    uint32_t *next = NULL;
    size_t m = 0;
    struct gc_stats cyc = {0}, ns = {0};
    double mhz = NAN, best = NAN, to_cyc = NAN;
    const char *how = NULL;
    int rc;

    if (a->cconst) {
        next = a->cnext[i];
        a->cnext[i] = NULL;
        m = fp / c->pl.spacing;
        rc = d->ops->kernel(c->reqs[i].prog, "gc_chase", &k);
        if (rc)
            snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    } else {
        rc = install_chain(c, fp, 1, point_seed(s, i), &next, &m);
    }
    if (!rc && c->path == PATH_TEXTURE) {
        rc = d->ops->tex_create(c->buf, 0, fp, 2, &c->tex);
        if (rc)
            snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    }
    if (!rc) {
        if (c->clocks)
            rc = point_cuda(c, k, fp, next, m, &cyc, &ns, &mhz);
        else
            rc = point_cl(c, k, a->k2, fp, next, m, &ns, &best, &how, &mhz, a->keep);
    }
    if (c->tex) {
        d->ops->tex_destroy(d->dev, c->tex);
        c->tex = 0;
    }
    free(next);
    if (rc)
        return rc;
    if (c->clocks) {
        best = cyc.median;
        to_cyc = 1;
    } else {
        if (!(best > 0)) {
            gc__bench_set_error(c->r, GC_BENCH_ERROR,
                                "the %zu-byte footprint gave %.3g ns per load: the timing "
                                "noise exceeds the chase",
                                fp, best);
            return GC_EUNSTABLE;
        }
        a->clk_nominal = strcmp(a->keep->clock_source, "nominal") == 0;
        cyc = ns;
        if (isfinite(mhz) && mhz > 0) {
            gc__stats_scale(&cyc, mhz * 1e-3);
            to_cyc = mhz * 1e-3;
        } else {
            cyc.n = 0;
        }
    }
    /* CUDA: medians of the segments; OpenCL: the difference of the minima, or
     * a kernel's bound where it is inconsistent (see cl_latency), the spread
     * from the paired samples. */
    p->x = (double)fp;
    p->cyc = cyc.n ? best * to_cyc : NAN;
    p->ns = c->clocks ? (ns.n ? ns.median : NAN) : best;
    p->mhz = mhz;
    p->scyc = cyc;
    p->sns = ns;
    p->how = how;
    return 0;
}

/* ---- The whole L2: every SM at once (CUDA) -------------------------------- */

/* One footprint of the every-SM chase: nsm disjoint cycles (slices), one
 * warp per SM chasing its own, all at once. The point's latency is the
 * median over the SMs of each SM's median segment (its own clock64); the
 * spread is over the SMs. Checked: every slice ended where its cycle says,
 * every block ran on its own SM, and the timed loads of all SMs overlapped. */
static int all_point(struct chase_ctx *c, void *argp, size_t fp, int i, struct chase_pt *p)
{
    struct gc_device *d = c->s->dev;
    const struct gc_device_info *info = &d->info;
    int nsm = c->nsm, w = ALL_REC_HEAD + c->nseg, rc;
    size_t nw = (size_t)nsm * (size_t)w, m = 0;
    uint64_t *o = malloc(nw * sizeof(*o)), *smid = malloc((size_t)nsm * sizeof(*smid));
    double *lat = malloc((size_t)nsm * sizeof(*lat)), *mhz = malloc((size_t)nsm * sizeof(*mhz));
    double *seg = malloc((size_t)c->nseg * sizeof(*seg));
    uint32_t *next = NULL;
    struct gc_stats st;

    (void)argp;
    if (!o || !smid || !lat || !mhz || !seg) {
        rc = GC_ENOMEM;
        goto out;
    }
    rc = install_chain(c, fp, nsm, point_seed(c->s, 4096 + i), &next, &m);
    if (rc)
        goto out;
    size_t ms = m / (size_t)nsm;
    memset(o, 0xFF, nw * sizeof(*o)); /* poison */
    if ((rc = gc__dev_write(d, c->all_out, 0, o, nw * sizeof(*o))))
        goto out;
    struct gc_arg a[3] = {
        {.type = GC_ARG_BUF, .v.buf = c->buf},
        {.type = GC_ARG_U32, .v.u32 = (uint32_t)ms},
        {.type = GC_ARG_BUF, .v.buf = c->all_out},
    };
    /* A block takes all the shared memory one may have, so at most one fits
     * on an SM and the nsm blocks cover every SM. */
    struct gc_launch l = {{(unsigned)nsm, 1, 1}, {32, 1, 1}, info->shared_per_block_optin, a, 3, 1};
    double el;
    if ((rc = gc__dev_launch(d, c->all, &l, &el)) ||
        (rc = gc__dev_read(d, c->all_out, 0, o, nw * sizeof(*o))))
        goto out;
    uint64_t t0max = 0, t1min = UINT64_MAX;
    for (int b = 0; b < nsm; b++) {
        const uint64_t *ob = o + (size_t)b * (size_t)w;
        uint32_t first = (uint32_t)((size_t)b * ms);
        uint64_t want = slot_of(
            &c->pl, walk_from(next, first, ms, ms + (uint64_t)c->nseg * (uint64_t)c->loads));
        rc = verify_end(c, ob[0], want, fp);
        if (rc)
            goto out;
        smid[b] = ob[1];
        t0max = ob[2] > t0max ? ob[2] : t0max;
        t1min = ob[3] < t1min ? ob[3] : t1min;
        for (int k = 0; k < c->nseg; k++)
            seg[k] = (double)(ob[ALL_REC_HEAD + k] - ob[ALL_REC_HEAD - 1 + k]) / c->loads;
        gc__stats_compute(seg, c->nseg, &st);
        lat[b] = st.median;
        mhz[b] = ob[3] > ob[2] ? (double)(ob[ALL_REC_HEAD - 1 + c->nseg] - ob[ALL_REC_HEAD - 1]) /
                                     (double)(ob[3] - ob[2]) * 1e3
                               : NAN;
    }
    qsort(smid, (size_t)nsm, sizeof(*smid), cmp_u64);
    for (int b = 1; b < nsm; b++)
        if (smid[b] == smid[b - 1]) {
            gc__bench_set_error(c->r, GC_BENCH_ERROR,
                                "two blocks of the every-SM chase ran on SM %llu (one per SM "
                                "expected): the one-block-per-SM placement did not hold",
                                (unsigned long long)smid[b]);
            rc = GC_EVERIFY;
            goto out;
        }
    if (!(t0max < t1min)) {
        gc__bench_set_error(c->r, GC_BENCH_ERROR,
                            "the SMs of the every-SM chase did not all chase at once (%zu-byte "
                            "footprint): the last started after the first finished",
                            fp);
        rc = GC_EVERIFY;
        goto out;
    }
    gc__stats_compute(lat, nsm, &p->scyc);
    gc__stats_compute(mhz, nsm, &st);
    p->x = (double)(ms * (size_t)nsm * c->pl.spacing);
    p->cyc = p->scyc.median;
    p->mhz = st.median;
    p->sns = p->scyc;
    if (isfinite(p->mhz) && p->mhz > 0) {
        gc__stats_scale(&p->sns, 1e3 / p->mhz);
        p->ns = p->sns.median;
    } else {
        p->sns.n = 0;
        p->ns = NAN;
    }
out:
    free(next);
    free(o);
    free(smid);
    free(lat);
    free(mhz);
    free(seg);
    return rc;
}

/* Levels of the every-SM staircase: the capacity of the step into its last
 * level (the backing store) is the L2 the whole GPU holds, compared with the
 * size the device reports. */
static void add_all_sms_metrics(struct chase_ctx *c, const double *x, const double *y_ns,
                                const double *y_cyc, const bool *planned, int n)
{
    const struct gc_device_info *info = &c->s->dev->info;
    struct gc_cache_fit f;
    char mname[64], note[256];

    if (gc__cache_detect_refined(x, y_cyc, n, planned, &f) != 0 || f.nlevels == 0)
        return;
    int nl = f.nlevels;
    for (int k = 0; k < nl; k++) {
        const struct gc_cache_level *L = &f.level[k];
        char name[32];
        if (k == 0)
            snprintf(name, sizeof(name), "l2_all_sms");
        else if (k == nl - 1)
            snprintf(name, sizeof(name), "dram_all_sms");
        else
            snprintf(name, sizeof(name), "all_sms_level%d", k + 1);
        snprintf(note, sizeof(note),
                 "every SM chasing its own slice at once, median over SMs; plateau of %d "
                 "footprints (%.0f B .. %.0f B)",
                 L->last - L->first + 1, x[L->first], x[L->last]);
        snprintf(mname, sizeof(mname), "%s_latency_cycles", name);
        gc__bench_add_metric(c->r, mname, L->latency, "cycles", NAN, NULL, note);
        double to_ns = y_cyc[L->first] > 0 ? y_ns[L->first] / y_cyc[L->first] : NAN;
        snprintf(mname, sizeof(mname), "%s_latency_ns", name);
        gc__bench_add_metric(c->r, mname, L->latency * to_ns, "ns", NAN, NULL, note);
        if (!isfinite(L->capacity))
            continue;
        bool whole = k == nl - 2;
        if (whole)
            snprintf(mname, sizeof(mname), "l2_all_sms_size_bytes");
        else
            snprintf(mname, sizeof(mname), "all_sms_step%d_bytes", k + 1);
        snprintf(note, sizeof(note),
                 "every SM chasing its own slice at once (ld.global.cg): %s of the step %s, "
                 "between %.0f B and %.0f B; the device reports %.0f KiB of L2",
                 isfinite(f.rms_rel) ? "eq. 6 fit" : "last footprint at the plateau",
                 whole ? "into the last level" : "before the last one", L->capacity_lo,
                 L->capacity_hi, info->l2_size / 1024.0);
        gc__bench_add_metric(c->r, mname, L->capacity, "B", NAN, NULL, note);
    }
}

/* Adds the two series of a curve and returns its points as arrays (x, ns,
 * cycles), malloc'ed together in *xs, and which were planned in *planned
 * (malloc'ed). */
static int curve_series(struct gc_bench_result *r, const struct curve *cv, const char *suffix,
                        const char *y_cyc_name, double **xs, bool **planned)
{
    char n1[64], n2[64];
    int n = cv->n;
    double *x = malloc(3 * (size_t)(n ? n : 1) * sizeof(*x));
    bool *pl = malloc((size_t)(n ? n : 1) * sizeof(*pl));

    *xs = x;
    *planned = pl;
    if (!x || !pl)
        return GC_ENOMEM;
    for (int i = 0; i < n; i++)
        pl[i] = cv->pt[i].planned;
    snprintf(n1, sizeof(n1), "latency_cycles%s", suffix);
    snprintf(n2, sizeof(n2), "latency_ns%s", suffix);
    struct gc_series *scyc =
        gc__bench_add_series(r, n1, "footprint", "B", y_cyc_name, "cycles/load");
    if (!scyc)
        return GC_ENOMEM;
    for (int i = 0; i < n; i++) {
        x[i] = cv->pt[i].x;
        x[n + i] = cv->pt[i].ns;
        x[2 * n + i] = cv->pt[i].cyc;
        if (isfinite(cv->pt[i].cyc))
            gc__series_add(scyc, x[i], cv->pt[i].cyc, cv->pt[i].scyc.n ? &cv->pt[i].scyc : NULL,
                           cv->pt[i].how);
    }
    struct gc_series *sns = gc__bench_add_series(r, n2, "footprint", "B", "latency", "ns/load");
    if (!sns)
        return GC_ENOMEM;
    for (int i = 0; i < n; i++)
        if (isfinite(cv->pt[i].ns))
            gc__series_add(sns, x[i], cv->pt[i].ns, cv->pt[i].sns.n ? &cv->pt[i].sns : NULL,
                           cv->pt[i].how);
    return 0;
}

/* The every-SM sweep of memory.latency.l2: footprints from L2/32 to the top of
 * the one-SM sweep, multiples of nsm elements, refined like the one-SM one. */
static int run_all_sms(struct chase_ctx *c, int per_oct, int budget)
{
    struct gc_device *d = c->s->dev;
    const struct gc_device_info *info = &d->info;
    size_t granule = c->pl.spacing * (size_t)c->nsm, lo, hi = c->pl.bytes;
    size_t fps[CHASE_MAX_POINTS];
    struct curve cv = {0};
    double *xs = NULL;
    bool *planned = NULL;
    int nfp = 0, rc;

    lo = info->l2_size ? info->l2_size / 32 : (size_t)1 << 20;
    if (lo < 4 * granule)
        lo = 4 * granule;
    for (int k = 0; nfp < CHASE_MAX_POINTS / 2; k++) {
        double v = (double)lo * pow(2.0, (double)k / per_oct);
        size_t f = (size_t)v / granule * granule;
        if (f > hi)
            break;
        if (nfp == 0 || f > fps[nfp - 1])
            fps[nfp++] = f;
    }
    if (nfp < 3)
        return 0;
    cv.pt = calloc(CHASE_MAX_POINTS, sizeof(*cv.pt));
    if (!cv.pt)
        return GC_ENOMEM;
    rc = gc__dev_alloc(d, (size_t)c->nsm * (ALL_REC_HEAD + (size_t)c->nseg) * 8, &c->all_out);
    if (rc)
        goto out;
    rc = sweep_curve(c, all_point, NULL, fps, nfp, budget, granule, &cv);
    if (rc)
        goto out;
    rc = curve_series(c->r, &cv, "_all_sms", "latency, every SM at once (median over SMs)", &xs,
                      &planned);
    if (rc)
        goto out;
    if (!gc__stopped(c->s) && cv.n >= 3)
        add_all_sms_metrics(c, xs, xs + cv.n, xs + 2 * cv.n, planned, cv.n);
    char note[256];
    snprintf(note, sizeof(note),
             "%d footprints from %.0f B to %.0f B (%d added where the latency steps), each "
             "split into %d disjoint slices, one per SM, chased by all SMs at once",
             cv.n, cv.n ? cv.pt[0].x : 0.0, cv.n ? cv.pt[cv.n - 1].x : 0.0, cv.n - cv.planned,
             c->nsm);
    gc__bench_add_metric(c->r, "footprints_all_sms", cv.n, "", NAN, NULL, note);
out:
    free(xs);
    free(planned);
    free(cv.pt);
    gc__dev_free(d, c->all_out);
    c->all_out = NULL;
    return rc;
}

static int run_chase(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    const struct chase_def *def = self->param;
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    struct chase_ctx c;
    struct gc_kern *k1 = NULL, *k2 = NULL;
    struct gc_measurement keep = {0};
    char(*labels)[48] = NULL;
    uint32_t **cnext = NULL;
    struct curve cv = {0};
    double *xs = NULL;
    bool *planned = NULL;
    int rc = 0, nchase, all_req = -1;
    size_t large = 0; /* bytes of the chase buffer on large pages */
    int per_oct = s->profile == GC_PROFILE_QUICK ? 2 : s->profile == GC_PROFILE_FULL ? 8 : 4;
    /* Refinement costs little on a GPU (one short launch per point); a CPU
     * chase lasts about a second per point, so its budget is smaller. */
    int budget = info->type == GC_DEVICE_GPU ? CHASE_MAX_POINTS : 6 * per_oct;

    if (def->path == PATH_L2_PARTITION)
        return run_l2part(s, r);
    if (def->path == PATH_TEXTURE && !d->ops->tex_create) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available on this device: the backend has no texture objects");
        return 0;
    }
    memset(&c, 0, sizeof(c));
    c.s = s;
    c.r = r;
    c.path = def->path;
    c.clocks = chase_clocks(info);
    c.nseg = s->profile == GC_PROFILE_QUICK ? 5 : s->profile == GC_PROFILE_FULL ? 25 : 9;
    c.loads = c.clocks                      ? CHASE_SEG_LOADS
              : info->type == GC_DEVICE_GPU ? CHASE_CL_LOADS
                                            : CHASE_CL_CPU_LOADS;
    c.nsm = info->compute_units;
    make_plan(s, c.path, &c.pl);
    if (c.pl.n < 1 || c.pl.bytes < 2 * c.pl.spacing) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available on this device: too little memory for a %s chase",
                            path_name(c.path));
        return 0;
    }
    bool cconst = c.clocks && c.path == PATH_CONSTANT;
    /* The every-SM chase: memory.latency.l2 where the device has SM ids and
     * the shared memory to pin one block per SM. */
    bool all = c.clocks && c.path == PATH_L2 && (info->caps & GC_CAP_SMID) && c.nsm > 1 &&
               info->shared_per_block_optin > 0;
    /* Kernels: the CUDA constant path has one per footprint (the chain is its
     * __constant__ data); CUDA has one chase kernel otherwise, OpenCL two
     * (short and long); global paths add the install kernel, and
     * memory.latency.l2 the every-SM chase. */
    nchase = cconst ? c.pl.n : c.clocks ? 1 : 2;
    c.nreq = nchase + (words_path(c.path) ? 0 : 1) + (all ? 1 : 0);
    c.reqs = calloc((size_t)c.nreq, sizeof(*c.reqs));
    labels = calloc((size_t)c.nreq, sizeof(*labels));
    cnext = calloc((size_t)c.pl.n, sizeof(*cnext));
    cv.pt = calloc(CHASE_MAX_POINTS, sizeof(*cv.pt));
    if (!c.reqs || !labels || !cnext || !cv.pt) {
        rc = GC_ENOMEM;
        goto out;
    }
    for (int i = 0; i < nchase; i++) {
        struct kspec ks = {
            c.path, d->ops->dialect, c.clocks, c.loads * (c.clocks ? 1 : i + 1), c.nseg, NULL, 0};
        uint32_t *w = NULL;
        size_t m;
        if (cconst) {
            w = chain_words(&c.pl, c.pl.fp[i], point_seed(s, i), &cnext[i], &m);
            if (!w) {
                rc = GC_ENOMEM;
                goto out;
            }
            ks.cwords = w;
            ks.ncwords = c.pl.fp[i] / 4;
            snprintf(labels[i], sizeof(labels[i]), "chase_constant_%zu", c.pl.fp[i]);
        } else {
            snprintf(labels[i], sizeof(labels[i]), "chase_%s_%d", path_name(c.path), ks.loads);
        }
        c.reqs[i].label = labels[i];
        c.reqs[i].src = gen_chase(&ks);
        free(w);
        if (!c.reqs[i].src) {
            rc = GC_ENOMEM;
            goto out;
        }
    }
    if (!words_path(c.path)) {
        snprintf(labels[nchase], sizeof(labels[nchase]), "chase_install");
        c.reqs[nchase].label = labels[nchase];
        c.reqs[nchase].src = gen_install(d->ops->dialect);
        if (!c.reqs[nchase].src) {
            rc = GC_ENOMEM;
            goto out;
        }
    }
    if (all) {
        all_req = c.nreq - 1;
        snprintf(labels[all_req], sizeof(labels[all_req]), "chase_l2_all_sms_%d", c.nseg);
        c.reqs[all_req].label = labels[all_req];
        c.reqs[all_req].src = gen_chase_all(d->ops->dialect, c.loads, c.nseg, c.pl.spacing);
        if (!c.reqs[all_req].src) {
            rc = GC_ENOMEM;
            goto out;
        }
    }
    rc = gc__kcache_build(s, c.reqs, c.nreq);
    if (rc)
        goto out;
    if (!words_path(c.path) &&
        (rc = d->ops->kernel(c.reqs[nchase].prog, "gc_install", &c.install))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        goto out;
    }
    if (all && (rc = d->ops->kernel(c.reqs[all_req].prog, "gc_chase_all", &c.all))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        goto out;
    }
    if (!cconst && ((rc = d->ops->kernel(c.reqs[0].prog, "gc_chase", &k1)) ||
                    (!c.clocks && (rc = d->ops->kernel(c.reqs[1].prog, "gc_chase", &k2))))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        goto out;
    }
    /* The shared path's largest footprints leave room for what the kernel
     * keeps in shared / local memory statically, known once it is built
     * (NVIDIA's OpenCL keeps a byte: 48 KiB of dynamic memory then fail to
     * launch). */
    if (!cconst && c.path == PATH_SHARED && d->ops->kernel_attrs) {
        int regs = 0, maxt = 0;
        size_t st = 0, cap = d->info.shared_per_block_optin;
        if (d->ops->kernel_attrs(k1, &regs, &st, &maxt) == 0 && st > 0 && cap > st)
            while (c.pl.n > 1 && c.pl.fp[c.pl.n - 1] > cap - st)
                c.pl.n--;
    }
    if (c.clocks && (c.path == PATH_GLOBAL || c.path == PATH_READONLY || c.path == PATH_TEXTURE)) {
        /* The L1 paths ask for the largest L1 the SM can have: the unified
         * array's shared-memory carve-out at its minimum. */
        if (!d->ops->kernel_set_carveout)
            snprintf(c.carveout_err, sizeof(c.carveout_err),
                     "the backend cannot set the carve-out");
        else if (d->ops->kernel_set_carveout(k1, 0) == 0)
            c.carveout = true;
        else
            snprintf(c.carveout_err, sizeof(c.carveout_err), "carve-out not set: %.120s",
                     d->ops->last_error(d->dev));
    }
    rc = gc__dev_alloc(d, 8 * (size_t)(3 + c.nseg), &c.out);
    if (rc)
        goto out;
    if (words_path(c.path)) {
        if (!cconst)
            rc = gc__dev_alloc(d, c.pl.bytes, &c.words);
    } else {
        size_t mmax = c.pl.bytes / c.pl.spacing;
        /* The cache paths on a device that runs on host memory take large
         * pages where the host has them: the first-level TLB of a CPU core
         * covers less than its L2 with 4 KiB pages, and its misses would
         * blur the L2 step. The page-strided path measures the TLB itself
         * and keeps the default pages. */
        if (c.pl.paged)
            rc = gc__dev_alloc(d, c.pl.bytes, &c.buf);
        else
            rc = gc__dev_alloc_large_pages(d, c.pl.bytes, &c.buf, &large);
        if (rc || (rc = gc__dev_alloc(d, 2 * mmax * 8, &c.pairs)))
            goto out;
        /* Random data around the chain of the dense paths; the page-strided
         * buffer (up to GiBs) is left as allocated: only the chain is read. */
        if (!c.pl.paged)
            rc = gc__dev_fill_random(d, c.buf, c.pl.bytes, s->seed ^ 0xB0FULL);
    }
    if (rc)
        goto out;

    /* The planned sweep, then points where the latency steps (the CUDA
     * constant path compiles a kernel per footprint: planned ones only). */
    struct one_arg oa = {k1, k2, cconst, cnext, &keep, false};
    rc = sweep_curve(&c, one_point, &oa, c.pl.fp, c.pl.n, cconst ? 0 : budget, c.pl.spacing, &cv);
    if (rc)
        goto out;
    int np = cv.n;
    rc = curve_series(r, &cv, "", oa.clk_nominal ? "latency (nominal clock)" : "latency", &xs,
                      &planned);
    if (rc)
        goto out;
    if (np >= 1 && cv.planned == c.pl.n) {
        double *x = xs, *yns = xs + np, *ycyc = xs + 2 * np;
        bool have_cyc = true, have_ns = true;
        for (int i = 0; i < np; i++) {
            have_cyc = have_cyc && isfinite(ycyc[i]) && ycyc[i] > 0;
            have_ns = have_ns && isfinite(yns[i]) && yns[i] > 0;
        }
        if (have_ns && (c.clocks ? have_cyc : true))
            add_level_metrics(&c, x, yns, ycyc, planned, np, have_cyc, c.clocks);
        double *mhzs = malloc((size_t)np * sizeof(*mhzs));
        if (!mhzs) {
            rc = GC_ENOMEM;
            goto out;
        }
        for (int i = 0; i < np; i++)
            mhzs[i] = cv.pt[i].mhz;
        struct gc_stats cs;
        gc__stats_compute(mhzs, np, &cs);
        free(mhzs);
        if (c.clocks) {
            r->context.sm_clock_mhz = cs.median;
            snprintf(r->context.sm_clock_source, sizeof(r->context.sm_clock_source),
                     "clock64/globaltimer");
        } else {
            r->context = keep.ctx;
            snprintf(r->stop_rule, sizeof(r->stop_rule), "%s", keep.stop_rule);
        }
        char note[320], bounds[96] = "", pages[64] = "";
        int nb = 0;
        for (int i = 0; i < np; i++)
            nb += cv.pt[i].how != NULL;
        if (!c.clocks)
            snprintf(bounds, sizeof(bounds),
                     "; %d at a kernel's upper bound (labelled), the difference being "
                     "inconsistent",
                     nb);
        if (large > 0)
            snprintf(pages, sizeof(pages), "; %.0f of %.0f MiB on 2 MiB pages",
                     (double)large / 1048576.0, (double)c.pl.bytes / 1048576.0);
        snprintf(note, sizeof(note),
                 "%d footprints from %.0f B to %.0f B (%d added where the latency steps), "
                 "elements %zu B apart%s%s%s",
                 np, x[0], x[np - 1], np - cv.planned, c.pl.spacing,
                 c.pl.paged ? " (one per page, at a random line of it)" : "", bounds, pages);
        gc__bench_add_metric(r, "footprints", np, "", NAN, NULL, note);
    }
    if (all && !gc__stopped(s)) {
        rc = run_all_sms(&c, per_oct, budget);
        if (rc)
            goto out;
    }
    if (gc__stopped(s))
        rc = GC_EINTR;
out:
    gc__measurement_free(&keep);
    if (cnext)
        for (int i = 0; i < c.pl.n; i++)
            free(cnext[i]);
    free(cnext);
    free(cv.pt);
    free(xs);
    free(planned);
    gc__dev_free(d, c.buf);
    gc__dev_free(d, c.out);
    gc__dev_free(d, c.pairs);
    gc__dev_free(d, c.words);
    if (c.reqs) {
        gc__kreq_release(s, c.reqs, c.nreq);
    }
    free(c.reqs);
    free(labels);
    return rc;
}

/* ---- Declared kernels and the family ------------------------------------ */

static int chase_sources(const struct gc_bench *self, const struct gc_device_info *info,
                         struct gc_ksrc **out, int *n)
{
    const struct chase_def *def = self->param;
    /* memory.latency.l2 also declares its every-SM chase. */
    struct gc_ksrc *k = calloc(2, sizeof(*k));
    struct plan pl = {.spacing = 64, .line = 64, .esize = 4};
    uint32_t *next = NULL, *w = NULL;
    size_t m;

    (void)info;
    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    if (def->path == PATH_L2_PARTITION) {
        k->src = gen_l2part(gc__kgen_inspect_dialect(), 4096);
    } else {
        struct kspec ks = {def->path, gc__kgen_inspect_dialect(), true, CHASE_SEG_LOADS, 9, NULL,
                           0};
        if (def->path == PATH_CONSTANT) {
            w = chain_words(&pl, 4096, 1, &next, &m);
            if (!w) {
                free(k);
                return GC_ENOMEM;
            }
            ks.cwords = w;
            ks.ncwords = 1024;
        }
        k->src = gen_chase(&ks);
    }
    free(w);
    free(next);
    if (!k->src) {
        free(k);
        return GC_ENOMEM;
    }
    snprintf(k->label, sizeof(k->label), "chase_%s", path_name(def->path));
    k->expect[0] = (struct gc_sass_expect){path_sass(def->path), CHASE_UNROLL};
    k->nexpect = 1;
    *out = k;
    *n = 1;
    if (def->path == PATH_L2) {
        k[1].src = gen_chase_all(gc__kgen_inspect_dialect(), CHASE_SEG_LOADS, 9, 128);
        if (!k[1].src) {
            gc__ksrc_free(k, 2);
            *out = NULL;
            *n = 0;
            return GC_ENOMEM;
        }
        snprintf(k[1].label, sizeof(k[1].label), "chase_l2_all_sms");
        k[1].expect[0] = (struct gc_sass_expect){path_sass(PATH_L2), CHASE_UNROLL};
        k[1].nexpect = 1;
        *n = 2;
    }
    return 0;
}

#define CHASE_METHOD_COMMON                                                                        \
    "Random walk (Lemeire et al. SVI-B/C; uCLbench S2.2): a Sattolo cycle over the elements of "   \
    "a footprint, built on the host, so that one pass visits every element once in random "        \
    "order and no prefetcher can guess the next. One thread chases j = next[j]: first a whole "    \
    "pass (warm-up: every access then has a reuse distance of the footprint), then a "             \
    "compile-time number of dependent loads in a loop unrolled 32 times. CUDA: clock64 read "      \
    "between segments of 2048 loads (5/9/25 segments by profile are the samples), cycles per "     \
    "load = elapsed / loads, ns through the SM clock observed against %globaltimer. OpenCL: "      \
    "event times of an N-load and a 2N-load kernel (N = 32768 on GPUs, 524288 on CPUs); ns per "   \
    "load = difference of the two kernels' minima over samples / N (launch overhead and warm-up "  \
    "cancel) where the launch overhead it implies is neither negative nor above 10% of the short " \
    "kernel's time; otherwise the two kernels ran in different modes and the tighter of their "    \
    "upper bounds, time / loads with the overhead included, stands (the point's label says "       \
    "which); cycles through the clock the engine observed "                                        \
    "(nominal where the device has no sensor, as the series says). The chase's final element "     \
    "is checked against the one the cycle predicts. After the planned footprints, every "          \
    "interval where the latency changes by more than 5% (15% on CPUs) is split at its middle "     \
    "until neighbours are less than 3% apart, so that each step has points on it (CPUs: within "   \
    "a budget). Levels: plateaus of the staircase, capacity from a fit of eq. 6 (hit ratio = "     \
    "capacity / footprint) around each step, latency the plateau's median (see "                   \
    "docs/methodology.md). "

static const struct chase_def defs[] = {
    {PATH_GLOBAL, false},  {PATH_L2, true},        {PATH_READONLY, true},
    {PATH_TEXTURE, true},  {PATH_CONSTANT, false}, {PATH_SHARED, false},
    {PATH_PRIVATE, false}, {PATH_TLB, false},      {PATH_L2_PARTITION, true},
};

#define CUDA_CAPS (GC_CAP_INLINE_ASM | GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER)

static const struct gc_bench benches[] = {
    {.info = {.name = "memory.latency.global",
              .group = "memory",
              .summary = "global-memory load latency vs footprint (L1, L2, DRAM staircase)",
              .method = CHASE_METHOD_COMMON
              "Path: default global loads (ld.global, cached in L1 and L2; OpenCL __global). "
              "Elements one cache line apart (128 B on GPUs, the CPU's line on CPUs); "
              "footprints 1 KiB to 4x the L2 in 2^(1/4) steps (CPUs: a few times the LLC, "
              "bounded by profile). Reports L1/L2/DRAM latency and the L1/L2 sizes. CUDA: the "
              "kernel's shared-memory carve-out preference is 0 (the largest L1); the L1 limit "
              "is the unified L1/shared array of the compute capability less the carve-out the "
              "driver keeps. On GPUs the L2 size is what one SM reaches (on a split L2, its "
              "near partition's share); memory.latency.l2 measures the whole L2."},
     .run = run_chase,
     .param = &defs[0],
     .sources = chase_sources},
    {.info = {.name = "memory.latency.l2",
              .group = "memory",
              .summary = "L2-only load latency vs footprint (ld.global.cg: L1 bypassed)",
              .method = CHASE_METHOD_COMMON
              "Path: ld.global.cg (cache global: L2 only). One SM's staircase gives the L2 it "
              "reaches (l2_size_bytes: on a split L2, its near partition's share). The whole L2: "
              "the same chase from every SM at once, one warp per SM pinned by the shared "
              "memory it takes, each SM on its own disjoint slice (a cycle of its own) of the "
              "footprint, latency per SM from its own clock64, median over SMs; footprints L2/32 "
              "to 4x L2, refined the same way; checked: every slice's end, one block per SM "
              "(%smid), overlapping timed windows. l2_all_sms_size_bytes = the step into DRAM, "
              "against the L2 size the device reports."},
     .needs_caps = CUDA_CAPS,
     .run = run_chase,
     .param = &defs[1],
     .sources = chase_sources},
    {.info = {.name = "memory.latency.readonly",
              .group = "memory",
              .summary = "read-only (non-coherent) load latency vs footprint (ld.global.nc)",
              .method = CHASE_METHOD_COMMON "Path: ld.global.nc (the read-only data path)."},
     .needs_caps = CUDA_CAPS,
     .run = run_chase,
     .param = &defs[2],
     .sources = chase_sources},
    {.info = {.name = "memory.latency.texture",
              .group = "memory",
              .summary = "texture fetch latency vs footprint (tex.1d on a linear texture object)",
              .method = CHASE_METHOD_COMMON
              "Path: tex.1d.v4.u32.s32 through a texture object over the buffer (linear, "
              "2 x u32 per texel, point sampling, integer reads); the chase carries indices."},
     .needs_caps = CUDA_CAPS,
     .run = run_chase,
     .param = &defs[3],
     .sources = chase_sources},
    {.info = {.name = "memory.latency.constant",
              .group = "memory",
              .summary = "constant-memory load latency vs footprint (up to 64 KiB)",
              .method = CHASE_METHOD_COMMON
              "Path: constant memory, elements 64 B apart, 512 B to 64 KiB. CUDA: the chain is "
              "the initialiser of a __constant__ array, one kernel per footprint (LDC with a "
              "register index); OpenCL: a __constant pointer parameter."},
     .run = run_chase,
     .param = &defs[4],
     .sources = chase_sources},
    {.info = {.name = "memory.latency.shared",
              .group = "memory",
              .summary = "shared-memory (OpenCL __local) load latency vs footprint",
              .method = CHASE_METHOD_COMMON
              "Path: shared memory (OpenCL __local) of the block, sized per footprint up to the "
              "per-block limit; the block copies the chain in, then thread 0 chases 32-bit "
              "indices."},
     .run = run_chase,
     .param = &defs[5],
     .sources = chase_sources},
    {.info = {.name = "memory.latency.private",
              .group = "memory",
              .summary = "per-thread array (CUDA local / OpenCL __private) load latency",
              .method = CHASE_METHOD_COMMON
              "Path: a 4 KiB per-thread array indexed by the chase (so it cannot live in "
              "registers: CUDA local memory, OpenCL private), filled from global memory, "
              "footprints 512 B to 4 KiB."},
     .run = run_chase,
     .param = &defs[6],
     .sources = chase_sources},
    {.info = {.name = "memory.latency.tlb",
              .group = "memory",
              .summary = "load latency vs footprint with one access per page (TLB reach)",
              .method = CHASE_METHOD_COMMON
              "Page-strided variant (Volkov S6.7): one element per page (2 MiB on GPUs, 4 KiB "
              "on CPUs) at a random line of the page so cache sets do not collide; footprints "
              "from 16 pages to several GiB on GPUs (4/16/64 GiB by profile, at most half the "
              "memory). CUDA uses ld.global.cg, so the few lines stay L2 hits and the steps "
              "are the TLBs'. tlb_reach_bytes = the first step."},
     .run = run_chase,
     .param = &defs[7],
     .sources = chase_sources},
    {.info = {.name = "memory.latency.l2_partition",
              .group = "memory",
              .summary = "near/far L2 latency: SM 0 chasing data that SM k touched",
              .method =
                  "A chain of L2/8 (1..8 MiB, fits L2, not L1) with ld.global.cg. For each SM k "
                  "(every 8th in the quick profile): L2 flushed (a copy of 2x L2), one launch "
                  "of one block per SM (each takes the whole shared memory, so one fits per "
                  "SM) where only the block whose %smid is k walks the whole chain, then the "
                  "same with SM 0 chasing 4096 loads timed by clock64. Series: SM 0's cycles "
                  "per load by toucher SM; near/far = min/max. Checks: exactly one block ran "
                  "on the chosen SM, and the chase ended where the cycle says."},
     .needs_caps = CUDA_CAPS | GC_CAP_SMID,
     .run = run_chase,
     .param = &defs[8],
     .sources = chase_sources},
};

static int chase_count(void)
{
    return (int)(sizeof(benches) / sizeof(benches[0]));
}

static const struct gc_bench *chase_at(int i)
{
    return i >= 0 && i < chase_count() ? &benches[i] : NULL;
}

const struct gc_bench_family gc__bench_chase_family = {chase_count, chase_at};
