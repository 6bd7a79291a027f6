/* The host CPU's data caches from sysfs, sysconf or cpuid (cpucache.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "core/cpucache.h"

/* ---- sysfs ------------------------------------------------------------- */

/* The first line of a file; false when it cannot be read. */
static bool read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    bool ok;

    if (!f)
        return false;
    ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* A size as sysfs writes it ("48K", "1024K", "32M"); 0 when unreadable. */
static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);

    if (end == s)
        return 0;
    if (*end == 'K')
        v <<= 10;
    else if (*end == 'M')
        v <<= 20;
    else if (*end == 'G')
        v <<= 30;
    return (size_t)v;
}

/* CPUs in a sysfs cpu list ("0-15,32-47"). */
static long cpulist_count(const char *s)
{
    long n = 0;

    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;

        if (end == s)
            return n;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        n += b >= a ? b - a + 1 : 0;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* Instances of a cache shared by `shared` CPUs among ncpu. */
static int instances(long ncpu, long shared)
{
    return shared > 0 && ncpu > 0 ? (int)((ncpu + shared - 1) / shared) : 1;
}

static void set_level(struct gc_cpu_caches *c, int level, size_t bytes, size_t line, int inst)
{
    if (level == 1)
        c->l1d = bytes;
    else if (level == 2)
        c->l2 = bytes;
    else if (level == 3)
        c->l3 = bytes;
    if (line && !c->line)
        c->line = line;
    if (bytes && level >= c->llc_level) {
        c->llc_level = level;
        c->llc_instances = inst > 0 ? inst : 1;
        c->llc_total = bytes * (size_t)c->llc_instances;
    }
}

static bool from_sysfs(const struct gc_cpu_cache_probe *p, struct gc_cpu_caches *c)
{
    const char *root = p->sysfs_root ? p->sysfs_root : "/sys/devices/system/cpu";

    for (int i = 0; i < 16; i++) {
        char path[4096], v[256];
        int level;
        size_t size, line = 0;
        long shared = 0;

        snprintf(path, sizeof(path), "%s/cpu0/cache/index%d/type", root, i);
        if (!read_line(path, v, sizeof(v)))
            break;
        if (strcmp(v, "Instruction") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/cpu0/cache/index%d/level", root, i);
        if (!read_line(path, v, sizeof(v)) || (level = atoi(v)) < 1)
            continue;
        snprintf(path, sizeof(path), "%s/cpu0/cache/index%d/size", root, i);
        if (!read_line(path, v, sizeof(v)) || !(size = parse_size(v)))
            continue;
        snprintf(path, sizeof(path), "%s/cpu0/cache/index%d/coherency_line_size", root, i);
        if (read_line(path, v, sizeof(v)))
            line = parse_size(v);
        snprintf(path, sizeof(path), "%s/cpu0/cache/index%d/shared_cpu_list", root, i);
        if (read_line(path, v, sizeof(v)))
            shared = cpulist_count(v);
        set_level(c, level, size, line, instances(p->ncpu, shared));
    }
    return c->llc_level > 0;
}

/* ---- sysconf ----------------------------------------------------------- */

static bool from_sysconf(const struct gc_cpu_cache_probe *p, struct gc_cpu_caches *c)
{
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL4_CACHE_SIZE)
    long (*sc)(int) = p->sysconf_fn ? p->sysconf_fn : sysconf;
    const int names[4] = {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE,
                          _SC_LEVEL4_CACHE_SIZE};
    long line = sc(_SC_LEVEL1_DCACHE_LINESIZE);

    for (int l = 0; l < 4; l++) {
        long v = sc(names[l]);

        /* glibc answers 0 or -1 for a level it does not know. sysconf says
         * nothing of sharing: one instance. */
        if (v > 0)
            set_level(c, l + 1, (size_t)v, line > 0 ? (size_t)line : 0, 1);
    }
    return c->llc_level > 0;
#else
    (void)p;
    (void)c;
    return false;
#endif
}

/* ---- cpuid ------------------------------------------------------------- */

static bool host_cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned max = __get_cpuid_max(leaf & 0x80000000u, NULL);

    if (max < leaf)
        return false;
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
    return true;
#else
    (void)leaf;
    (void)sub;
    (void)r;
    return false;
#endif
}

/* Intel's leaf 4 and AMD's 0x8000001D describe one cache per subleaf in the
 * same layout: type, level and sharing in EAX, line size, partitions and
 * ways in EBX, sets in ECX. */
static bool from_cpuid(const struct gc_cpu_cache_probe *p, struct gc_cpu_caches *c)
{
    bool (*id)(unsigned, unsigned, unsigned *) = p->cpuid_fn ? p->cpuid_fn : host_cpuid;
    unsigned r[4], leaf;

    if (!id(0, 0, r))
        return false;
    /* EBX-EDX-ECX spell the vendor: "Auth" "enti" "cAMD", "Hygo" "nGen" "uine". */
    if (r[1] == 0x68747541u || r[1] == 0x6f677948u)
        leaf = 0x8000001Du;
    else
        leaf = 4;
    for (unsigned sub = 0; sub < 16; sub++) {
        unsigned type, level;
        size_t line, parts, ways, sets;

        if (!id(leaf, sub, r) || (type = r[0] & 0x1f) == 0)
            break;
        if (type == 2) /* instruction cache */
            continue;
        level = (r[0] >> 5) & 7;
        line = (r[1] & 0xfff) + 1;
        parts = ((r[1] >> 12) & 0x3ff) + 1;
        ways = ((r[1] >> 22) & 0x3ff) + 1;
        sets = (size_t)r[2] + 1;
        set_level(c, (int)level, line * parts * ways * sets, line,
                  instances(p->ncpu, (long)((r[0] >> 14) & 0xfff) + 1));
    }
    return c->llc_level > 0;
}

/* ---- The chain --------------------------------------------------------- */

void gc__cpu_caches_probe(const struct gc_cpu_cache_probe *p, struct gc_cpu_caches *out)
{
    static const struct {
        unsigned bit;
        const char *name;
        bool (*read)(const struct gc_cpu_cache_probe *, struct gc_cpu_caches *);
    } chain[] = {
        {GC_CPUCACHE_SYSFS, "sysfs", from_sysfs},
        {GC_CPUCACHE_SYSCONF, "sysconf", from_sysconf},
        {GC_CPUCACHE_CPUID, "cpuid", from_cpuid},
    };

    for (size_t i = 0; i < sizeof(chain) / sizeof(chain[0]); i++) {
        memset(out, 0, sizeof(*out));
        if (!(p->sources & chain[i].bit) || !chain[i].read(p, out))
            continue;
        snprintf(out->source, sizeof(out->source), "%s", chain[i].name);
        return;
    }
    memset(out, 0, sizeof(*out));
}

static struct gc_cpu_caches g_caches;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* The sources GPUCHAR_CPU_CACHE_SOURCES names; all when it is unset. */
static unsigned env_sources(void)
{
    const char *e = getenv("GPUCHAR_CPU_CACHE_SOURCES");
    unsigned s = 0;

    if (!e || !*e)
        return GC_CPUCACHE_ALL;
    if (strstr(e, "sysfs"))
        s |= GC_CPUCACHE_SYSFS;
    if (strstr(e, "sysconf"))
        s |= GC_CPUCACHE_SYSCONF;
    if (strstr(e, "cpuid"))
        s |= GC_CPUCACHE_CPUID;
    return s;
}

static void read_host(void)
{
    const char *root = getenv("GPUCHAR_SYSFS_CPU");
    struct gc_cpu_cache_probe p = {
        .sysfs_root = root && *root ? root : NULL,
        .ncpu = sysconf(_SC_NPROCESSORS_CONF),
        .sources = env_sources(),
    };

    gc__cpu_caches_probe(&p, &g_caches);
}

const struct gc_cpu_caches *gc__cpu_caches(void)
{
    pthread_once(&g_once, read_host);
    return &g_caches;
}

static void size_text(size_t b, char *buf, size_t len)
{
    if (b >= ((size_t)1 << 20) && b % ((size_t)1 << 20) == 0)
        snprintf(buf, len, "%zu MiB", b >> 20);
    else if (b >= ((size_t)1 << 20))
        snprintf(buf, len, "%.1f MiB", (double)b / (1 << 20));
    else
        snprintf(buf, len, "%zu KiB", b >> 10);
}

void gc__cpu_caches_describe(const struct gc_cpu_caches *c, char *buf, size_t len)
{
    const size_t sz[3] = {c->l1d, c->l2, c->l3};
    const char *nm[3] = {"L1d", "L2", "L3"};
    size_t used = 0;

    buf[0] = '\0';
    if (!c->llc_level) {
        snprintf(buf, len, "none of sysfs, sysconf and cpuid answered");
        return;
    }
    for (int i = 0; i < 3 && used < len; i++) {
        char t[32];

        if (!sz[i])
            continue;
        size_text(sz[i], t, sizeof(t));
        used += (size_t)snprintf(buf + used, len - used, "%s%s %s", used ? ", " : "", nm[i], t);
        if (i + 1 == c->llc_level && c->llc_instances > 1 && used < len)
            used += (size_t)snprintf(buf + used, len - used, " x%d", c->llc_instances);
    }
    if (used < len)
        snprintf(buf + used, len - used, " (%s)", c->source);
}
