/* The CPU cache facts' fallback chain (core/cpucache.c) on fake sources: a
 * sysfs tree written to a temporary directory, a sysconf and a cpuid that
 * answer from tables. Nothing here reads the host's own facts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/cpucache.h"

/* ---- A fake sysfs tree ------------------------------------------------- */

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void index_dir(const char *root, int i, const char *type, const char *level,
                      const char *size, const char *shared)
{
    char dir[512];

    snprintf(dir, sizeof(dir), "%s/cpu0/cache/index%d", root, i);
    assert_int_equal(mkdir(dir, 0755), 0);
    put(dir, "type", type);
    put(dir, "level", level);
    put(dir, "size", size);
    put(dir, "coherency_line_size", "64\n");
    put(dir, "shared_cpu_list", shared);
}

/* cpu0 of a 16-CPU host: L1d 48K, L1i 32K, L2 1M per core pair, L3 32M per
 * 8 CPUs (two instances). */
static char *fake_sysfs(void)
{
    char tmpl[] = "/tmp/gc-sysfs-XXXXXX", dir[512];
    char *root = mkdtemp(tmpl) ? strdup(tmpl) : NULL;

    assert_non_null(root);
    snprintf(dir, sizeof(dir), "%s/cpu0", root);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(dir, sizeof(dir), "%s/cpu0/cache", root);
    assert_int_equal(mkdir(dir, 0755), 0);
    index_dir(root, 0, "Data\n", "1\n", "48K\n", "0-1\n");
    index_dir(root, 1, "Instruction\n", "1\n", "32K\n", "0-1\n");
    index_dir(root, 2, "Unified\n", "2\n", "1024K\n", "0-1\n");
    index_dir(root, 3, "Unified\n", "3\n", "32768K\n", "0-7\n");
    return root;
}

static void remove_tree(const char *root)
{
    char cmd[600];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* ---- Fake sysconf and cpuid --------------------------------------------- */

static long sc_l3 = 532676608; /* a VM's answer: the host socket's whole L3 */

static long fake_sysconf(int name)
{
    switch (name) {
    case _SC_LEVEL1_DCACHE_SIZE:
        return 48 << 10;
    case _SC_LEVEL1_DCACHE_LINESIZE:
        return 64;
    case _SC_LEVEL2_CACHE_SIZE:
        return 1 << 20;
    case _SC_LEVEL3_CACHE_SIZE:
        return sc_l3;
    default:
        return 0; /* glibc's answer for a level it does not know */
    }
}

static long silent_sysconf(int name)
{
    (void)name;
    return -1;
}

/* An AMD CPU: leaf 0 names the vendor, 0x8000001D lists L1d, L1i, L2, L3
 * (the L3 shared by 16 logical CPUs). */
static bool fake_cpuid_amd(unsigned leaf, unsigned sub, unsigned r[4])
{
    memset(r, 0, 4 * sizeof(unsigned));
    if (leaf == 0) {
        r[1] = 0x68747541u; /* "Auth" */
        return true;
    }
    if (leaf != 0x8000001Du)
        return false;
    /* EAX: type | level << 5 | (sharing - 1) << 14; EBX: (line - 1) |
     * (partitions - 1) << 12 | (ways - 1) << 22; ECX: sets - 1. */
    switch (sub) {
    case 0: /* L1d 48 KiB: 12 ways x 64 sets x 64 B */
        r[0] = 1 | 1u << 5 | 1u << 14;
        r[1] = 63 | 11u << 22;
        r[2] = 63;
        return true;
    case 1: /* L1i */
        r[0] = 2 | 1u << 5;
        r[1] = 63 | 7u << 22;
        r[2] = 63;
        return true;
    case 2: /* L2 1 MiB: 16 ways x 1024 sets x 64 B */
        r[0] = 3 | 2u << 5 | 1u << 14;
        r[1] = 63 | 15u << 22;
        r[2] = 1023;
        return true;
    case 3: /* L3 32 MiB: 16 ways x 32768 sets x 64 B, 16 CPUs share it */
        r[0] = 3 | 3u << 5 | 15u << 14;
        r[1] = 63 | 15u << 22;
        r[2] = 32767;
        return true;
    default:
        return true; /* type 0: no more caches */
    }
}

static bool no_cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
    (void)leaf;
    (void)sub;
    (void)r;
    return false;
}

/* ---- Tests --------------------------------------------------------------- */

static void test_sysfs_first(void **state)
{
    char *root = fake_sysfs();
    struct gc_cpu_cache_probe p = {root, fake_sysconf, fake_cpuid_amd, 16, GC_CPUCACHE_ALL};
    struct gc_cpu_caches c;

    (void)state;
    gc__cpu_caches_probe(&p, &c);
    assert_string_equal(c.source, "sysfs");
    assert_int_equal(c.l1d, 48 << 10);
    assert_int_equal(c.l2, 1 << 20);
    assert_int_equal(c.l3, 32 << 20);
    assert_int_equal(c.line, 64);
    assert_int_equal(c.llc_level, 3);
    /* 16 CPUs, 8 share each L3: two instances. */
    assert_int_equal(c.llc_instances, 2);
    assert_int_equal(c.llc_total, (size_t)64 << 20);
    remove_tree(root);
    free(root);
}

/* A VM without sysfs's cache directory: sysconf answers. */
static void test_sysconf_when_sysfs_hidden(void **state)
{
    struct gc_cpu_cache_probe p = {"/nonexistent-gc-root", fake_sysconf, fake_cpuid_amd, 2,
                                   GC_CPUCACHE_ALL};
    struct gc_cpu_caches c;
    char text[160];

    (void)state;
    gc__cpu_caches_probe(&p, &c);
    assert_string_equal(c.source, "sysconf");
    assert_int_equal(c.l1d, 48 << 10);
    assert_int_equal(c.l3, (size_t)sc_l3);
    assert_int_equal(c.llc_level, 3);
    assert_int_equal(c.llc_total, (size_t)sc_l3);
    gc__cpu_caches_describe(&c, text, sizeof(text));
    assert_non_null(strstr(text, "L1d 48 KiB"));
    assert_non_null(strstr(text, "(sysconf)"));
}

/* Neither sysfs nor sysconf: cpuid's deterministic cache parameters. */
static void test_cpuid_last(void **state)
{
    struct gc_cpu_cache_probe p = {"/nonexistent-gc-root", silent_sysconf, fake_cpuid_amd, 32,
                                   GC_CPUCACHE_ALL};
    struct gc_cpu_caches c;

    (void)state;
    gc__cpu_caches_probe(&p, &c);
    assert_string_equal(c.source, "cpuid");
    assert_int_equal(c.l1d, 48 << 10);
    assert_int_equal(c.l2, 1 << 20);
    assert_int_equal(c.l3, 32 << 20);
    assert_int_equal(c.llc_instances, 2);
    assert_int_equal(c.llc_total, (size_t)64 << 20);
}

/* Sources left out are not read, and nothing found is 0 with no source. */
static void test_none(void **state)
{
    char *root = fake_sysfs();
    struct gc_cpu_cache_probe p = {root, fake_sysconf, no_cpuid, 2, GC_CPUCACHE_CPUID};
    struct gc_cpu_caches c;
    char text[160];

    (void)state;
    gc__cpu_caches_probe(&p, &c);
    assert_int_equal(c.llc_level, 0);
    assert_int_equal(c.llc_total, 0);
    assert_string_equal(c.source, "");
    gc__cpu_caches_describe(&c, text, sizeof(text));
    assert_non_null(strstr(text, "none of"));
    /* Only sysconf allowed: it answers although sysfs would have. */
    p.sources = GC_CPUCACHE_SYSCONF;
    gc__cpu_caches_probe(&p, &c);
    assert_string_equal(c.source, "sysconf");
    remove_tree(root);
    free(root);
}

/* A sysfs tree with unreadable sizes falls through to the next source. */
static void test_bad_sysfs_falls_through(void **state)
{
    char tmpl[] = "/tmp/gc-sysfs-XXXXXX", dir[512];
    char *root = mkdtemp(tmpl);
    struct gc_cpu_cache_probe p = {NULL, fake_sysconf, no_cpuid, 2, GC_CPUCACHE_ALL};
    struct gc_cpu_caches c;

    (void)state;
    assert_non_null(root);
    p.sysfs_root = root;
    snprintf(dir, sizeof(dir), "%s/cpu0", root);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(dir, sizeof(dir), "%s/cpu0/cache", root);
    assert_int_equal(mkdir(dir, 0755), 0);
    index_dir(root, 0, "Data\n", "1\n", "garbage\n", "0\n");
    gc__cpu_caches_probe(&p, &c);
    assert_string_equal(c.source, "sysconf");
    remove_tree(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sysfs_first),
        cmocka_unit_test(test_sysconf_when_sysfs_hidden),
        cmocka_unit_test(test_cpuid_last),
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_bad_sysfs_falls_through),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
