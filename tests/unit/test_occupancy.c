/* Occupancy control (Lemeire eq. 2) and the clock estimate from per-block
 * timestamps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "core/measure.h"
#include "core/occupancy.h"

/* H100 SXM figures as the CUDA driver reports them. */
static struct gc_device_info h100(void)
{
    struct gc_device_info i;

    memset(&i, 0, sizeof(i));
    i.shared_per_cu = 233472;
    i.shared_per_block = 49152;
    i.shared_per_block_optin = 232448;
    i.shared_reserved_per_block = 1024;
    i.max_threads_per_cu = 2048;
    i.max_blocks_per_cu = 32;
    return i;
}

static void test_exactly_k_fit(void **state)
{
    struct gc_device_info i = h100();

    (void)state;
    for (int k = 1; k <= 8; k++) {
        size_t dyn;

        assert_int_equal(gc__occupancy_shared(&i, k, 256, 0, &dyn), 0);
        size_t per = dyn + i.shared_reserved_per_block;
        /* k blocks fit, k + 1 do not. */
        assert_true((size_t)k * per <= i.shared_per_cu);
        assert_true((size_t)(k + 1) * per > i.shared_per_cu);
        assert_true(dyn <= i.shared_per_block_optin);
    }
}

static void test_static_shared_counts(void **state)
{
    struct gc_device_info i = h100();
    size_t a, b;

    (void)state;
    assert_int_equal(gc__occupancy_shared(&i, 4, 128, 0, &a), 0);
    assert_int_equal(gc__occupancy_shared(&i, 4, 128, 4096, &b), 0);
    assert_int_equal(a - b, 4096);
}

static void test_impossible_occupancy(void **state)
{
    struct gc_device_info i = h100();
    size_t dyn;

    (void)state;
    /* 9 blocks of 256 threads exceed 2048 threads per SM. */
    assert_int_equal(gc__occupancy_shared(&i, 9, 256, 0, &dyn), GC_ERANGE);
    assert_int_equal(gc__occupancy_shared(&i, 0, 256, 0, &dyn), GC_ERANGE);
    assert_int_equal(gc__occupancy_shared(&i, 33, 32, 0, &dyn), GC_ERANGE);
    i.shared_per_cu = 0;
    assert_int_equal(gc__occupancy_shared(&i, 1, 256, 0, &dyn), GC_ERANGE);
}

static void test_clock_from_timestamps(void **state)
{
    /* Two SMs, three blocks each, clock 1500 MHz over 1 ms spans. */
    unsigned long long ts[6 * GC_TS_WORDS];

    (void)state;
    for (int b = 0; b < 6; b++) {
        unsigned long long *w = ts + b * GC_TS_WORDS;
        unsigned long long t0 = 1000000ULL + (unsigned long long)(b / 2) * 300000ULL;
        unsigned long long base = b % 2 ? 777777ULL : 123ULL; /* per-SM counters differ */

        w[0] = (unsigned long long)(b % 2);
        w[3] = t0;
        w[4] = t0 + 400000ULL;
        w[1] = base + (t0 - 1000000ULL) * 3 / 2;
        w[2] = base + (w[4] - 1000000ULL) * 3 / 2;
    }
    assert_float_equal(gc__clock_from_timestamps(ts, 6), 1500.0, 1e-6);
    /* Spans (per SM, first start to last end) too short for the timer give
     * no estimate. */
    for (int b = 0; b < 6; b++) {
        ts[b * GC_TS_WORDS + 3] = 1000000ULL;
        ts[b * GC_TS_WORDS + 4] = 1000000ULL + 100;
        ts[b * GC_TS_WORDS + 1] = 5000;
        ts[b * GC_TS_WORDS + 2] = 5000 + 150;
    }
    assert_true(isnan(gc__clock_from_timestamps(ts, 6)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exactly_k_fit),
        cmocka_unit_test(test_static_shared_counts),
        cmocka_unit_test(test_impossible_occupancy),
        cmocka_unit_test(test_clock_from_timestamps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
