/* The physical limits of CPU devices (core/cpulimits.c): unknown on GPUs and
 * where a fact is missing, the stated formulas elsewhere, and a fastest
 * clock never below the clock the device reports. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/cpulimits.h"

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
    assert_true(isnan(gc__cpu_ops_limit(&g, 4)));
    assert_true(isnan(gc__cpu_stream_limit(&g, 1, 0)));
    assert_true(isnan(gc__cpu_atomics_limit(&g)));
    /* A CPU that reports no vector width or no compute units: unknown,
     * never a guess. */
    g = cpu();
    g.vector_bytes = 0;
#if !defined(__aarch64__)
    assert_true(isnan(gc__cpu_ops_limit(&g, 4)));
    assert_true(isnan(gc__cpu_stream_limit(&g, 1, 1)));
#endif
    g = cpu();
    g.compute_units = 0;
    assert_true(isnan(gc__cpu_stream_limit(&g, 1, 0)));
    g = cpu();
    assert_true(isnan(gc__cpu_stream_limit(&g, 0, 0)));
    assert_true(isnan(gc__cpu_ops_limit(&g, 0)));
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

static void test_formulas(void **state)
{
    struct gc_device_info c = cpu();
    double hz = 2 * gc__cpu_clock_mhz(&c) * 1e6;
    double vb = gc__cpu_vector_bytes(&c);

    (void)state;
    assert_true(vb >= 64);
    /* Elementwise: cores x SIMD issue x lanes x clock. */
    assert_true(fabs(gc__cpu_ops_limit(&c, 4) - hz * GC_CPU_SIMD_PER_CLK * (vb / 4)) <=
                1e-9 * gc__cpu_ops_limit(&c, 4));
    assert_true(gc__cpu_ops_limit(&c, 8) * 2 == gc__cpu_ops_limit(&c, 4));
    /* Streams: reads are load-bound, writes store-bound, mixes by the
     * tighter of the two, bytes counted read + written. */
    double rd = gc__cpu_stream_limit(&c, 1, 0), wr = gc__cpu_stream_limit(&c, 0, 1);
    double cp = gc__cpu_stream_limit(&c, 1, 1), tr = gc__cpu_stream_limit(&c, 2, 1);
    assert_true(fabs(rd - hz * GC_CPU_LOADS_PER_CLK * vb) <= 1e-9 * rd);
    assert_true(fabs(wr - hz * GC_CPU_STORES_PER_CLK * vb) <= 1e-9 * wr);
    assert_true(fabs(cp - hz * 2 * vb * 2) <= 1e-9 * cp);
    assert_true(fabs(tr - hz * 3 * vb * 2) <= 1e-9 * tr);
    assert_true(wr < rd && cp <= rd + wr && tr > cp);
    assert_true(fabs(gc__cpu_atomics_limit(&c) - hz * GC_CPU_STORES_PER_CLK) <=
                1e-9 * gc__cpu_atomics_limit(&c));
    /* Linear in the cores. */
    c.compute_units = 16;
    assert_true(fabs(gc__cpu_stream_limit(&c, 1, 0) - 8 * rd) <= 1e-9 * 8 * rd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_clock),
        cmocka_unit_test(test_formulas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
