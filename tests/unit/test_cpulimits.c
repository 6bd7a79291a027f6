/* The physical limits of CPU devices (core/cpulimits.c, core/cpuarch.c):
 * unknown on GPUs and where a fact is missing, the identification of a CPU
 * from cpuinfo text, the pipes of its row, the stated formulas, and a
 * fastest clock never below the clock the device reports. The host's own
 * CPU never enters: the process reads a fake /proc/cpuinfo (a Zen 4) through
 * GPUCHAR_CPUINFO. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include <cmocka.h>

#include "core/cpulimits.h"
#include "gpuchar/gpuchar.h"

static struct gc_device_info cpu(void)
{
    struct gc_device_info i;

    memset(&i, 0, sizeof(i));
    i.type = GC_DEVICE_CPU;
    i.compute_units = 2;
    i.clock_mhz = 2000;
    i.vector_bytes = 64;
    return i;
}

static void test_unknown(void **state)
{
    struct gc_device_info g = cpu();

    (void)state;
    g.type = GC_DEVICE_GPU;
    assert_true(isnan(gc__cpu_clock_mhz(&g)));
    assert_true(isnan(gc__cpu_ops_limit(&g, GC_CPU_FMA, 4)));
    assert_true(isnan(gc__cpu_stream_limit(&g, 1, 0)));
    assert_true(isnan(gc__cpu_atomics_limit(&g)));
    /* A CPU that reports no vector width or no compute units: unknown,
     * never a guess. */
    g = cpu();
    g.vector_bytes = 0;
#if !defined(__aarch64__)
    assert_true(isnan(gc__cpu_ops_limit(&g, GC_CPU_FMA, 4)));
    assert_true(isnan(gc__cpu_stream_limit(&g, 1, 1)));
#endif
    g = cpu();
    g.compute_units = 0;
    assert_true(isnan(gc__cpu_stream_limit(&g, 1, 0)));
    g = cpu();
    assert_true(isnan(gc__cpu_stream_limit(&g, 0, 0)));
    assert_true(isnan(gc__cpu_ops_limit(&g, GC_CPU_FMA, 0)));
}

/* The fastest clock is at least the reported one, and the measured one
 * where the host has the add chain. */
static void test_clock(void **state)
{
    struct gc_device_info c = cpu();
    double f = gc__cpu_clock_mhz(&c), m = gc__cpu_measured_clock_mhz();

    (void)state;
    assert_true(f >= c.clock_mhz);
#if defined(__x86_64__) || defined(__aarch64__)
    assert_true(isfinite(m) && m > 0);
    assert_true(f >= m);
#endif
    /* Measured once: the same value again. */
    assert_true(gc__cpu_clock_mhz(&c) == f);
}

static const char zen4_info[] = "processor\t: 0\n"
                                "vendor_id\t: AuthenticAMD\n"
                                "cpu family\t: 25\n"
                                "model\t\t: 17\n"
                                "model name\t: AMD EPYC 9654 96-Core Processor\n"
                                "\n"
                                "processor\t: 1\n"
                                "vendor_id\t: GenuineIntel\n";

static const struct gc_cpu_uarch *row_of(const char *text)
{
    struct gc_cpu_ident id;

    assert_int_equal(gc__cpu_ident_parse(text, &id), 0);
    return gc__cpu_uarch_lookup(&id);
}

/* Identification: x86 vendor, family and model (decimal, as cpuinfo writes
 * them), the Xeon Silver exception, AArch64 MIDR fields, unknown CPUs. */
static void test_identify(void **state)
{
    struct gc_cpu_ident id;

    (void)state;
    assert_int_equal(gc__cpu_ident_parse(zen4_info, &id), 0);
    assert_string_equal(id.vendor, "AuthenticAMD");
    assert_int_equal(id.family, 25);
    assert_int_equal(id.model, 17);
    assert_string_equal(id.model_name, "AMD EPYC 9654 96-Core Processor");
    assert_non_null(strstr(row_of(zen4_info)->name, "Zen 4"));
    assert_non_null(strstr(
        row_of("vendor_id : AuthenticAMD\ncpu family : 26\nmodel : 2\nmodel name : AMD EPYC\n")
            ->name,
        "Zen 5 (four 512-bit"));
    assert_non_null(
        strstr(row_of("vendor_id : AuthenticAMD\ncpu family : 26\nmodel : 36\n")->name, "mobile"));
    assert_non_null(
        strstr(row_of("vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n")->name,
               "Golden Cove"));
    const struct gc_cpu_uarch *gold =
        row_of("vendor_id : GenuineIntel\ncpu family : 6\nmodel : 85\n"
               "model name : Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\n");
    const struct gc_cpu_uarch *silver =
        row_of("vendor_id : GenuineIntel\ncpu family : 6\nmodel : 85\n"
               "model name : Intel(R) Xeon(R) Silver 4214 CPU @ 2.20GHz\n");
    assert_non_null(strstr(gold->name, "two AVX-512"));
    assert_non_null(strstr(silver->name, "one AVX-512"));
    assert_true(gc__cpu_port_bytes(&silver->op[GC_CPU_FMA], 64, 4) * 2 ==
                gc__cpu_port_bytes(&gold->op[GC_CPU_FMA], 64, 4));
    assert_non_null(strstr(row_of("vendor_id : GenuineIntel\ncpu family : 6\nmodel : 106\n")->name,
                           "Ice Lake"));
    assert_non_null(strstr(row_of("processor : 0\nCPU implementer : 0x41\nCPU architecture: 8\n"
                                  "CPU part : 0xd4f\n")
                               ->name,
                           "Neoverse V2"));
    assert_non_null(strstr(row_of("CPU implementer : 0x41\nCPU part : 0xd0c\n")->name, "N1"));
    /* Not in the table: the fallback row, which says so. */
    assert_true(row_of("vendor_id : GenuineIntel\ncpu family : 6\nmodel : 1\n")->fallback);
    assert_true(row_of("vendor_id : HygonGenuine\ncpu family : 24\nmodel : 0\n")->fallback);
    assert_true(row_of("CPU implementer : 0x61\nCPU part : 0x22\n")->fallback);
    /* Nothing that identifies a CPU. */
    assert_int_equal(gc__cpu_ident_parse("flags : fpu\n", &id), GC_EINVAL);
    assert_int_equal(gc__cpu_ident_parse(NULL, &id), GC_EINVAL);
    /* Only the first processor's block counts. */
    assert_int_equal(gc__cpu_ident_parse("processor : 0\n\nvendor_id : AuthenticAMD\n"
                                         "cpu family : 25\nmodel : 1\n",
                                         &id),
                     GC_EINVAL);
}

/* Pipes: any vector pipe can do at least what any one kind can; the Zen
 * rows add on other pipes than they FMA on, and a vector wider than a pipe
 * moves no more bytes than the pipes' cap. */
static void test_pipes(void **state)
{
    const char *texts[] = {
        zen4_info,
        "vendor_id : AuthenticAMD\ncpu family : 26\nmodel : 2\n",
        "vendor_id : GenuineIntel\ncpu family : 6\nmodel : 85\n",
        "vendor_id : GenuineIntel\ncpu family : 6\nmodel : 143\n",
        "vendor_id : GenuineIntel\ncpu family : 6\nmodel : 106\n",
        "CPU implementer : 0x41\nCPU part : 0xd40\n",
        "vendor_id : Unknown\ncpu family : 1\nmodel : 1\n",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        const struct gc_cpu_uarch *u = row_of(texts[i]);

        for (int vb = 16; vb <= 64; vb *= 2)
            for (int op = 0; op < GC_CPU_NOPS; op++) {
                assert_true(gc__cpu_port_bytes(&u->op[op], vb, 4) > 0);
                assert_true(gc__cpu_port_bytes(&u->op[GC_CPU_ANY], vb, 4) >=
                            gc__cpu_port_bytes(&u->op[op], vb, 4));
                assert_true(gc__cpu_port_bytes(&u->op[op], vb, 4) <= u->op[op].per_clk * vb);
            }
    }
    const struct gc_cpu_uarch *z4 = row_of(zen4_info);
    /* Two 256-bit FMA pipes: 64 B per clock with 32- or 64-byte vectors. */
    assert_true(gc__cpu_port_bytes(&z4->op[GC_CPU_FMA], 64, 4) == 64);
    assert_true(gc__cpu_port_bytes(&z4->op[GC_CPU_FMA], 32, 4) == 64);
    assert_true(gc__cpu_port_bytes(&z4->op[GC_CPU_FMA], 16, 4) == 32);
    /* An element wider than the vector still takes one instruction. */
    assert_true(gc__cpu_port_bytes(&z4->op[GC_CPU_FMA], 4, 8) == 16);
    /* The fallback: 6 instructions of any kind, 4 loads, 2 stores. */
    const struct gc_cpu_uarch *fb = row_of("vendor_id : X\ncpu family : 1\nmodel : 1\n");
    assert_true(gc__cpu_port_bytes(&fb->op[GC_CPU_FMA], 64, 4) == 6 * 64);
    assert_true(gc__cpu_port_bytes(&fb->load, 64, 1) == 4 * 64);
    assert_true(gc__cpu_port_bytes(&fb->store, 64, 1) == 2 * 64);
}

/* The limits of the process's CPU (the fake Zen 4): the formulas over its
 * row's pipes at the clock the limits use. */
static void test_formulas(void **state)
{
    struct gc_device_info c = cpu();
    double hz = 2 * gc__cpu_clock_mhz(&c) * 1e6;
    int vb = gc__cpu_vector_bytes(&c);
    const struct gc_cpu_uarch *u = gc__cpu_uarch();
    char note[256];

    (void)state;
    assert_true(vb >= 64);
    assert_non_null(strstr(u->name, "Zen 4"));
    /* Elementwise: cores x the kind's bytes per clock / element bytes x
     * clock; adds and FMAs on their own pipes, fewer than any pipe. */
    for (int op = 0; op < GC_CPU_NOPS; op++) {
        double want = hz * gc__cpu_port_bytes(&u->op[op], vb, 4) / 4;
        double got = gc__cpu_ops_limit(&c, (enum gc_cpu_op)op, 4);
        assert_true(fabs(got - want) <= 1e-9 * want);
        assert_true(gc__cpu_ops_limit(&c, (enum gc_cpu_op)op, 8) * 2 == got);
    }
    assert_true(gc__cpu_ops_limit(&c, GC_CPU_FMA, 4) < gc__cpu_ops_limit(&c, GC_CPU_ANY, 4));
    /* Streams: reads are load-bound, writes store-bound, mixes by the
     * tighter of the two, bytes counted read + written. */
    double ld = gc__cpu_port_bytes(&u->load, vb, 1), st = gc__cpu_port_bytes(&u->store, vb, 1);
    double rd = gc__cpu_stream_limit(&c, 1, 0), wr = gc__cpu_stream_limit(&c, 0, 1);
    double cp = gc__cpu_stream_limit(&c, 1, 1), tr = gc__cpu_stream_limit(&c, 2, 1);
    assert_true(fabs(rd - hz * ld) <= 1e-9 * rd);
    assert_true(fabs(wr - hz * st) <= 1e-9 * wr);
    assert_true(fabs(cp - hz * 2 * fmin(ld, st)) <= 1e-9 * cp);
    assert_true(fabs(tr - hz * 3 * fmin(ld / 2, st)) <= 1e-9 * tr);
    assert_true(wr < rd && cp <= rd + wr);
    assert_true(fabs(gc__cpu_atomics_limit(&c) - hz * u->store.per_clk) <=
                1e-9 * gc__cpu_atomics_limit(&c));
    /* Linear in the cores. */
    c.compute_units = 16;
    assert_true(fabs(gc__cpu_stream_limit(&c, 1, 0) - 8 * rd) <= 1e-9 * 8 * rd);
    /* The note names the row and the clock's source. */
    gc__cpu_limit_note(&c, GC_CPU_FMA, note, sizeof(note));
    assert_non_null(strstr(note, "2 FMA/clk"));
    assert_non_null(strstr(note, "Zen 4"));
    assert_non_null(strstr(note, gc__cpu_clock_source(&c)));
}

/* Cycles on a CPU are counted at the clock the limits use; elsewhere at
 * the reported one. */
static void test_cycle_clock(void **state)
{
    struct gc_device_info c = cpu();
    const char *how = NULL;

    (void)state;
    assert_true(gc__cycle_clock_mhz(&c, &how) == gc__cpu_clock_mhz(&c));
    assert_string_equal(how, gc__cpu_clock_source(&c));
    assert_string_not_equal(how, "nominal");
    c.type = GC_DEVICE_GPU;
    assert_true(gc__cycle_clock_mhz(&c, &how) == c.clock_mhz);
    assert_string_equal(how, "nominal");
    c.clock_mhz = 0;
    assert_true(isnan(gc__cycle_clock_mhz(&c, &how)));
    assert_string_equal(how, "none");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown),  cmocka_unit_test(test_clock),
        cmocka_unit_test(test_identify), cmocka_unit_test(test_pipes),
        cmocka_unit_test(test_formulas), cmocka_unit_test(test_cycle_clock),
    };
    char path[] = "/tmp/gc_cpuinfo_XXXXXX";
    int fd = mkstemp(path), rc;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

    if (!f || fputs(zen4_info, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write a fake cpuinfo\n");
        return 1;
    }
    setenv("GPUCHAR_CPUINFO", path, 1);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(path);
    return rc;
}
