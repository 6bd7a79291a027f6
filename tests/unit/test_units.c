/* Unit tests of the report's number formatting (src/report/units.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/units.h"

static void check_q(double v, const char *unit, const char *want)
{
    char buf[64];

    gc__fmt_quantity(buf, sizeof(buf), v, unit);
    if (strcmp(buf, want) != 0)
        fail_msg("%g %s gave \"%s\", want \"%s\"", v, unit, buf, want);
}

static void test_rates(void **state)
{
    (void)state;
    check_q(3.02e12, "B/s", "3.02 TB/s");
    check_q(61.3e12, "FLOP/s", "61.3 TFLOP/s");
    check_q(999.4, "B/s", "999 B/s");
    check_q(999.7e9, "B/s", "1.00 TB/s");
    check_q(1.5e9, "op/s", "1.50 Gop/s");
    check_q(2.5e18, "B/s", "2.50 EB/s");
    /* Already prefixed units are left alone. */
    check_q(3020, "GB/s", "3020 GB/s");
    check_q(1.25, "GiB/s", "1.25 GiB/s");
    /* A slow rate keeps its plain unit: no milli prefix on rates. */
    check_q(0.5, "op/s", "0.500 op/s");
}

static void test_capacities(void **state)
{
    (void)state;
    check_q(512, "B", "512 B");
    check_q(1024, "B", "1 KiB");
    check_q(50.0 * 1048576, "B", "50 MiB");
    check_q(1.5 * 1073741824.0, "B", "1.50 GiB");
    check_q(85899345920.0, "B", "80 GiB");
    check_q(256.0 * 1024, "B", "256 KiB");
}

static void test_times_and_others(void **state)
{
    (void)state;
    check_q(2.5e-6, "s", "2.50 us");
    check_q(0.010, "s", "10.0 ms");
    check_q(12.5, "s", "12.5 s");
    /* Seconds are never scaled up. */
    check_q(4500, "s", "4500 s");
    check_q(1.98e9, "Hz", "1.98 GHz");
    check_q(3.5e-9, "J", "3.50 nJ");
    check_q(4, "cycles", "4 cycles");
    check_q(123.456, "cycles", "123 cycles");
    check_q(11.5625, "B/clk/SM", "11.6 B/clk/SM");
    check_q(0, "B/s", "0 B/s");
    check_q(NAN, "B/s", "-");
    check_q(7, "", "7");
}

static void test_sig(void **state)
{
    char buf[32];

    (void)state;
    gc__fmt_sig(buf, sizeof(buf), 9.996);
    assert_string_equal(buf, "10.0");
    gc__fmt_sig(buf, sizeof(buf), 0.00512);
    assert_string_equal(buf, "0.00512");
    gc__fmt_sig(buf, sizeof(buf), -3.14159);
    assert_string_equal(buf, "-3.14");
    gc__fmt_sig(buf, sizeof(buf), 1980);
    assert_string_equal(buf, "1980");
    gc__fmt_sig(buf, sizeof(buf), 2e-5);
    assert_string_equal(buf, "2e-05");
    gc__fmt_sig(buf, sizeof(buf), INFINITY);
    assert_string_equal(buf, "inf");
}

/* The CSV number format is the shortest text that parses back exactly. */
static void test_double(void **state)
{
    static const double vals[] = {0.1, 1.0 / 3.0, 3.02e12, 1e-300, 5e-324, -2.5, 1e22, 0};
    char buf[40];

    (void)state;
    gc__fmt_double(buf, sizeof(buf), 0.1);
    assert_string_equal(buf, "0.1");
    gc__fmt_double(buf, sizeof(buf), 3.02e12);
    assert_string_equal(buf, "3020000000000");
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        gc__fmt_double(buf, sizeof(buf), vals[i]);
        assert_true(strtod(buf, NULL) == vals[i]);
    }
    gc__fmt_double(buf, sizeof(buf), NAN);
    assert_string_equal(buf, "");
    gc__fmt_double(buf, sizeof(buf), -INFINITY);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rates),
        cmocka_unit_test(test_capacities),
        cmocka_unit_test(test_times_and_others),
        cmocka_unit_test(test_sig),
        cmocka_unit_test(test_double),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
