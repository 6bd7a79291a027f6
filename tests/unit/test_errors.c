/* Unit tests of the error names and messages (src/core/errors.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpuchar/gpuchar.h"

static void test_messages(void **state)
{
    (void)state;
    assert_string_equal(gc_strerror(0), "success");
    assert_string_equal(gc_err_name(0), "GC_OK");
    assert_string_equal(gc_strerror(GC_ENOMEM), "out of host memory");
    assert_string_equal(gc_err_name(GC_ENOMEM), "GC_ENOMEM");
    assert_string_equal(gc_strerror(GC_EUNSTABLE), "measurement did not stabilise");
    assert_string_equal(gc_err_name(GC_ENOTSUP), "GC_ENOTSUP");
    assert_string_equal(gc_strerror(12345), "unknown error");
    assert_string_equal(gc_err_name(-1), "unknown error");
}

/* Every code of the list has its own message and a name of the form GC_E*. */
static void test_every_code(void **state)
{
    (void)state;
    for (int e = GC__ERR_FIRST + 1; e < GC__ERR_LAST; e++) {
        assert_string_not_equal(gc_strerror(e), "unknown error");
        assert_int_equal(strncmp(gc_err_name(e), "GC_E", 4), 0);
        for (int f = e + 1; f < GC__ERR_LAST; f++) {
            assert_string_not_equal(gc_strerror(e), gc_strerror(f));
            assert_string_not_equal(gc_err_name(e), gc_err_name(f));
        }
    }
    assert_true(GC__ERR_LAST < 0);
}

/* The version string agrees with the version macros of the header. */
static void test_version(void **state)
{
    char want[32];

    (void)state;
    snprintf(want, sizeof(want), "%d.%d.%d", GC_VERSION_MAJOR, GC_VERSION_MINOR, GC_VERSION_PATCH);
    assert_string_equal(gc_version(), want);
    assert_non_null(gc_git_revision());
    assert_true(strlen(gc_git_revision()) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_every_code),
        cmocka_unit_test(test_version),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
