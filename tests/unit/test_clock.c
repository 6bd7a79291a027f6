/* The clock rule for %globaltimer readings: cycles over nanoseconds, with the
 * calibrated device timer's scale divided in. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "core/device.h"

static void test_clock_uncalibrated(void **state)
{
    struct gc_device d = {0};

    (void)state;
    /* 1980 cycles in 1000 ns: 1980 MHz; scale 0 means not calibrated. */
    assert_float_equal(gc__clock_mhz(&d, 1980.0, 1000.0), 1980.0, 1e-9);
    assert_float_equal(gc__clock_corrected(&d, 1980.0), 1980.0, 1e-9);
    assert_true(isnan(gc__clock_mhz(&d, 1980.0, 0.0)));
    assert_float_equal(gc__clock_mhz(NULL, 990.0, 1000.0), 990.0, 1e-9);
}

static void test_clock_slow_timer(void **state)
{
    struct gc_device d = {0};

    (void)state;
    /* A timer 0.7% slow reads 1000 ns where 1007 ns passed: the raw clock is
     * 0.7% high and the scale brings it back. */
    d.timer_scale = 1.007;
    double raw = 1980.0 * 1.007;
    assert_float_equal(gc__clock_mhz(&d, raw, 1000.0), 1980.0, 1e-9);
    assert_float_equal(gc__clock_corrected(&d, raw), 1980.0, 1e-9);
    assert_true(gc__clock_mhz(&d, raw, 1000.0) < raw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock_uncalibrated),
        cmocka_unit_test(test_clock_slow_timer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
