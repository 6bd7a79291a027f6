/* The CPU microarchitecture table (core/cpuarch.h) and the identification of
 * the host CPU. Sources, per row: AMD Software Optimization Guide for AMD
 * Family 19h Processors (Zen 3 and Zen 4, pub. 56665 and 57647), for AMD
 * Family 1Ah Processors (Zen 5, pub. 58455); Intel 64 and IA-32 Architectures
 * Optimization Reference Manual (Skylake server, Ice Lake / Sunny Cove and
 * Golden Cove chapters); Arm Neoverse N1, N2, V1 and V2 Software
 * Optimization Guides (instruction throughput and pipeline tables). Where a
 * guide leaves a choice open the row takes the larger figure: a limit may be
 * loose, never below what the core can do. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "core/cpuarch.h"
#include "gpuchar/gpuchar.h"

/* Operation ports in the order of enum gc_cpu_op: any, fma, fadd, fmul,
 * vint, vimul. */
#define OPS(any, fma, fadd, fmul, vint, vimul)                                                     \
    {                                                                                              \
        any, fma, fadd, fmul, vint, vimul                                                          \
    }
#define P(n, b)                                                                                    \
    {                                                                                              \
        n, b                                                                                       \
    }

static const struct gc_cpu_uarch fallback = {
    .name = "unknown CPU (fallback ceilings)",
    .guide = "no row for this CPU: the generous ceilings over current cores (6 vector "
             "instructions of any kind, 4 loads and 2 stores per clock)",
    .op = OPS(P(6, 0), P(6, 0), P(6, 0), P(6, 0), P(6, 0), P(6, 0)),
    .load = P(4, 0),
    .store = P(2, 0),
    .fallback = true,
};

/* Zen 3 and Zen 4: four 256-bit pipes, FMA and FMUL on FP0/FP1, FADD on
 * FP2/FP3, integer ALU on all four; a 512-bit operation (Zen 4) takes a pipe
 * for two cycles. Three loads (two of 256 bits) and two stores (one of 256
 * bits) per clock. */
static const struct gc_cpu_uarch zen34 = {
    .name = "AMD Zen 3 / Zen 4 (four 256-bit FP pipes)",
    .guide = "AMD Software Optimization Guide for Family 19h (pubs. 56665, 57647): FMA/FMUL on "
             "FP0-1, FADD on FP2-3, 256-bit datapath",
    .op = OPS(P(4, 128), P(2, 64), P(2, 64), P(2, 64), P(4, 128), P(2, 64)),
    .load = P(3, 64),
    .store = P(2, 32),
};

/* Zen 5 with the 512-bit datapath (EPYC 9005, Ryzen 9000 desktop): the same
 * four pipes, each 512 bits wide; four loads (two of 512 bits) and two
 * stores (one of 512 bits) per clock. */
static const struct gc_cpu_uarch zen5 = {
    .name = "AMD Zen 5 (four 512-bit FP pipes)",
    .guide = "AMD Software Optimization Guide for Family 1Ah (pub. 58455): FMA/FMUL on FP0-1, "
             "FADD on FP2-3, 512-bit datapath",
    .op = OPS(P(4, 256), P(2, 128), P(2, 128), P(2, 128), P(4, 256), P(2, 128)),
    .load = P(4, 128),
    .store = P(2, 64),
};

/* Zen 5 in the mobile parts (Strix Point, Krackan Point): 256-bit pipes. */
static const struct gc_cpu_uarch zen5m = {
    .name = "AMD Zen 5 (four 256-bit FP pipes, mobile)",
    .guide = "AMD Software Optimization Guide for Family 1Ah (pub. 58455): FMA/FMUL on FP0-1, "
             "FADD on FP2-3, 256-bit datapath in the mobile models",
    .op = OPS(P(4, 128), P(2, 64), P(2, 64), P(2, 64), P(4, 128), P(2, 64)),
    .load = P(4, 128),
    .store = P(2, 64),
};

/* Skylake, Skylake-SP, Cascade Lake: FMA (also add and multiply) on ports 0
 * and 1; a 512-bit operation on the fused ports 0+1 and, with the second
 * FMA unit, on port 5. Vector integer on ports 0, 1, 5. Two loads and one
 * store per clock, 64 bytes each. */
static const struct gc_cpu_uarch skx2 = {
    .name = "Intel Skylake / Skylake-SP / Cascade Lake (two AVX-512 FMA units)",
    .guide = "Intel 64 and IA-32 Optimization Reference Manual, Skylake server: FMA on ports 0, "
             "1 (512-bit: 0+1 and 5)",
    .op = OPS(P(3, 128), P(2, 128), P(2, 128), P(2, 128), P(3, 128), P(2, 128)),
    .load = P(2, 128),
    .store = P(1, 64),
};

/* Xeon Silver and Bronze: one AVX-512 FMA unit (ports 0+1 only). */
static const struct gc_cpu_uarch skx1 = {
    .name = "Intel Skylake-SP / Cascade Lake (one AVX-512 FMA unit)",
    .guide = "Intel 64 and IA-32 Optimization Reference Manual, Skylake server: FMA on ports 0, "
             "1; Xeon Silver/Bronze have no FMA unit on port 5",
    .op = OPS(P(3, 128), P(2, 64), P(2, 64), P(2, 64), P(3, 128), P(2, 64)),
    .load = P(2, 128),
    .store = P(1, 64),
};

/* Ice Lake-SP (Sunny Cove): as Skylake-SP with two FMA units and two store
 * ports (64 bytes per clock together). */
static const struct gc_cpu_uarch icx = {
    .name = "Intel Ice Lake-SP (Sunny Cove)",
    .guide = "Intel 64 and IA-32 Optimization Reference Manual, Ice Lake: FMA on ports 0, 1 "
             "(512-bit: 0+1 and 5), two loads and two stores per clock",
    .op = OPS(P(3, 128), P(2, 128), P(2, 128), P(2, 128), P(3, 128), P(2, 128)),
    .load = P(2, 128),
    .store = P(2, 64),
};

/* Golden Cove (Sapphire Rapids, Alder Lake P-cores) and Raptor Cove
 * (Emerald Rapids, Raptor Lake): FMA on ports 0 and 1 (512-bit: 0+1 and
 * 5), fast FADD units on ports 1 and 5; three loads (two of 512 bits) and
 * two stores (one of 512 bits) per clock. */
static const struct gc_cpu_uarch glc = {
    .name = "Intel Golden Cove / Raptor Cove (Sapphire Rapids, Emerald Rapids)",
    .guide = "Intel 64 and IA-32 Optimization Reference Manual, Golden Cove: FMA on ports 0, 1 "
             "(512-bit: 0+1 and 5), FADD on ports 1, 5",
    .op = OPS(P(3, 128), P(2, 128), P(3, 128), P(2, 128), P(3, 128), P(2, 128)),
    .load = P(3, 128),
    .store = P(2, 64),
};

/* Neoverse N1: two 128-bit pipes (V0, V1), both FMA; two load/store
 * pipes. */
static const struct gc_cpu_uarch n1 = {
    .name = "Arm Neoverse N1",
    .guide = "Arm Neoverse N1 Software Optimization Guide: two 128-bit FP/ASIMD pipes, two "
             "load/store pipes",
    .op = OPS(P(2, 0), P(2, 0), P(2, 0), P(2, 0), P(2, 0), P(2, 0)),
    .load = P(2, 0),
    .store = P(2, 0),
};

/* Neoverse N2: two 128-bit SVE2 pipes; two load/store pipes and a load
 * pipe. */
static const struct gc_cpu_uarch n2 = {
    .name = "Arm Neoverse N2",
    .guide = "Arm Neoverse N2 Software Optimization Guide: two 128-bit FP/ASIMD/SVE pipes, "
             "three loads and two stores per clock",
    .op = OPS(P(2, 0), P(2, 0), P(2, 0), P(2, 0), P(2, 0), P(2, 0)),
    .load = P(3, 0),
    .store = P(2, 0),
};

/* Neoverse V1: four 128-bit pipes (V0-V3), each FMA; 256-bit SVE operations
 * take two. Three loads (two of 256 bits), two stores of 128 bits. */
static const struct gc_cpu_uarch v1 = {
    .name = "Arm Neoverse V1",
    .guide = "Arm Neoverse V1 Software Optimization Guide: four 128-bit FP/ASIMD pipes (two "
             "256-bit SVE), three loads and two stores per clock",
    .op = OPS(P(4, 64), P(4, 64), P(4, 64), P(4, 64), P(4, 64), P(2, 64)),
    .load = P(3, 64),
    .store = P(2, 32),
};

/* Neoverse V2: four 128-bit pipes (V0-V3), each FMA; three loads and two
 * stores of 128 bits per clock. */
static const struct gc_cpu_uarch v2 = {
    .name = "Arm Neoverse V2",
    .guide = "Arm Neoverse V2 Software Optimization Guide: four 128-bit FP/ASIMD/SVE pipes, "
             "three loads and two stores per clock",
    .op = OPS(P(4, 0), P(4, 0), P(4, 0), P(4, 0), P(4, 0), P(2, 0)),
    .load = P(3, 0),
    .store = P(2, 0),
};

/* x86 rows: vendor, family, a model range. */
struct x86_row {
    const char *vendor;
    int family, model_lo, model_hi;
    const struct gc_cpu_uarch *u;
};

static const struct x86_row x86_rows[] = {
    /* Family 19h: Zen 3 (Milan, Vermeer, Cezanne) and Zen 4 (Genoa,
     * Bergamo, Raphael, Phoenix) share the pipe layout. */
    {"AuthenticAMD", 0x19, 0x00, 0xff, &zen34},
    /* Family 1Ah: Strix Point (20h-2Fh) and Krackan Point (60h-6Fh) have
     * the 256-bit datapath; Turin (00h-1Fh), Granite Ridge (40h-4Fh) and the
     * rest the 512-bit one. */
    {"AuthenticAMD", 0x1a, 0x20, 0x2f, &zen5m},
    {"AuthenticAMD", 0x1a, 0x60, 0x6f, &zen5m},
    {"AuthenticAMD", 0x1a, 0x00, 0xff, &zen5},
    /* Skylake client and server, Cascade/Cooper Lake, Kaby/Coffee/Comet
     * Lake: the Skylake core. */
    {"GenuineIntel", 6, 0x55, 0x55, &skx2},
    {"GenuineIntel", 6, 0x4e, 0x4e, &skx2},
    {"GenuineIntel", 6, 0x5e, 0x5e, &skx2},
    {"GenuineIntel", 6, 0x8e, 0x8e, &skx2},
    {"GenuineIntel", 6, 0x9e, 0x9e, &skx2},
    {"GenuineIntel", 6, 0xa5, 0xa6, &skx2},
    {"GenuineIntel", 6, 0x6a, 0x6a, &icx},
    {"GenuineIntel", 6, 0x6c, 0x6c, &icx},
    {"GenuineIntel", 6, 0x8f, 0x8f, &glc}, /* Sapphire Rapids */
    {"GenuineIntel", 6, 0xcf, 0xcf, &glc}, /* Emerald Rapids */
    {"GenuineIntel", 6, 0x97, 0x97, &glc}, /* Alder Lake */
    {"GenuineIntel", 6, 0x9a, 0x9a, &glc},
    {"GenuineIntel", 6, 0xb7, 0xb7, &glc}, /* Raptor Lake */
    {"GenuineIntel", 6, 0xba, 0xba, &glc},
    {"GenuineIntel", 6, 0xbf, 0xbf, &glc},
};

/* AArch64 rows: MIDR implementer and part. */
static const struct {
    int implementer, part;
    const struct gc_cpu_uarch *u;
} arm_rows[] = {
    {0x41, 0xd0c, &n1},
    {0x41, 0xd49, &n2},
    {0x41, 0xd40, &v1},
    {0x41, 0xd4f, &v2},
};

const struct gc_cpu_uarch *gc__cpu_uarch_lookup(const struct gc_cpu_ident *id)
{
    for (size_t i = 0; i < sizeof(arm_rows) / sizeof(arm_rows[0]); i++)
        if (id->implementer == arm_rows[i].implementer && id->part == arm_rows[i].part)
            return arm_rows[i].u;
    for (size_t i = 0; i < sizeof(x86_rows) / sizeof(x86_rows[0]); i++) {
        const struct x86_row *r = &x86_rows[i];

        if (strcmp(id->vendor, r->vendor) != 0 || id->family != r->family ||
            id->model < r->model_lo || id->model > r->model_hi)
            continue;
        /* Xeon Silver and Bronze (Skylake-SP, Cascade Lake) have one
         * AVX-512 FMA unit; the model number does not tell. */
        if (r->u == &skx2 && (strstr(id->model_name, "Silver") || strstr(id->model_name, "Bronze")))
            return &skx1;
        return r->u;
    }
    return &fallback;
}

/* The value of a "key : value" line of cpuinfo text whose key is `key`
 * (tabs and spaces before the colon ignored), copied into buf; false when
 * absent. Only the first processor's block is read. */
static bool field(const char *text, const char *key, char *buf, size_t len)
{
    size_t klen = strlen(key);

    for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
        if (*l == '\n')
            return false; /* a blank line ends the first block */
        if (strncmp(l, key, klen) != 0)
            continue;
        const char *p = l + klen;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != ':')
            continue;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strcspn(p, "\n");
        if (n >= len)
            n = len - 1;
        memcpy(buf, p, n);
        buf[n] = '\0';
        while (n > 0 && isspace((unsigned char)buf[n - 1]))
            buf[--n] = '\0';
        return true;
    }
    return false;
}

/* An integer field (decimal or 0x hex); -1 when absent or not a number. */
static int int_field(const char *text, const char *key)
{
    char v[64], *end;
    long x;

    if (!field(text, key, v, sizeof(v)) || !v[0])
        return -1;
    x = strtol(v, &end, 0);
    return *end || x < 0 || x > 0xffff ? -1 : (int)x;
}

int gc__cpu_ident_parse(const char *cpuinfo, struct gc_cpu_ident *id)
{
    memset(id, 0, sizeof(*id));
    id->family = id->model = id->implementer = id->part = -1;
    if (!cpuinfo)
        return GC_EINVAL;
    field(cpuinfo, "vendor_id", id->vendor, sizeof(id->vendor));
    field(cpuinfo, "model name", id->model_name, sizeof(id->model_name));
    id->family = int_field(cpuinfo, "cpu family");
    id->model = int_field(cpuinfo, "model");
    id->implementer = int_field(cpuinfo, "CPU implementer");
    id->part = int_field(cpuinfo, "CPU part");
    if (id->vendor[0] && id->family >= 0 && id->model >= 0)
        return 0;
    return id->implementer >= 0 && id->part >= 0 ? 0 : GC_EINVAL;
}

/* The whole text of a small file (NULL on failure); the caller frees it. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    size_t cap = 1 << 16, n;
    char *buf;

    if (!f)
        return NULL;
    buf = malloc(cap);
    if (buf) {
        n = fread(buf, 1, cap - 1, f);
        buf[n] = '\0';
    }
    fclose(f);
    return buf;
}

#if defined(__x86_64__) || defined(__i386__)
/* Vendor, family and model from cpuid leaves 0 and 1 (the display family
 * and model: extended family added for family 0Fh, extended model for
 * families 06h and 0Fh); the model name from /proc/cpuinfo where readable. */
static bool ident_cpuid(struct gc_cpu_ident *id)
{
    unsigned a, b, c, d;

    if (!__get_cpuid(0, &a, &b, &c, &d))
        return false;
    memcpy(id->vendor, &b, 4);
    memcpy(id->vendor + 4, &d, 4);
    memcpy(id->vendor + 8, &c, 4);
    id->vendor[12] = '\0';
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return false;
    int fam = (int)((a >> 8) & 0xf), model = (int)((a >> 4) & 0xf);
    if (fam == 0xf)
        fam += (int)((a >> 20) & 0xff);
    if (fam == 0x6 || fam >= 0xf)
        model += (int)((a >> 16) & 0xf) << 4;
    id->family = fam;
    id->model = model;
    return true;
}
#endif

static const struct gc_cpu_uarch *g_host;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void init_host(void)
{
    const char *env = getenv("GPUCHAR_CPUINFO");
    char *text = slurp(env && *env ? env : "/proc/cpuinfo");
    struct gc_cpu_ident id;
    int rc = gc__cpu_ident_parse(text, &id);

#if defined(__x86_64__) || defined(__i386__)
    /* cpuid is the host's own answer (the model name still comes from
     * cpuinfo); a fake cpuinfo replaces it. */
    struct gc_cpu_ident c = id;

    if (!(env && *env) && ident_cpuid(&c)) {
        id = c;
        rc = 0;
    }
#endif
    free(text);
    g_host = rc == 0 ? gc__cpu_uarch_lookup(&id) : &fallback;
}

const struct gc_cpu_uarch *gc__cpu_uarch(void)
{
    pthread_once(&g_once, init_host);
    return g_host;
}

double gc__cpu_port_bytes(const struct gc_cpu_port *p, int vb, int elem_bytes)
{
    double per;

    if (vb <= 0 || elem_bytes <= 0 || p->per_clk <= 0)
        return 0;
    /* Whole elements per instruction, at least one. */
    per = vb >= elem_bytes ? (double)(vb / elem_bytes) * elem_bytes : (double)elem_bytes;
    per *= p->per_clk;
    return p->bytes > 0 && per > p->bytes ? (double)p->bytes : per;
}
