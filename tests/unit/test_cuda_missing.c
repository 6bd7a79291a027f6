/* The CUDA backend on a machine without the driver: init must fail with
 * GC_ENOLIB and a message that names the library it could not load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cuda/cuda.h"

static void test_missing_default_name(void **state)
{
    char why[512] = "";

    (void)state;
    /* A name that no loader resolves stands for the missing libcuda.so.1;
     * the real one may exist where this test runs. */
    setenv("GPUCHAR_LIBCUDA", "libcuda-gpuchar-missing.so.1", 1);
    assert_int_equal(gc__cuda_ops.init(why, sizeof(why)), GC_ENOLIB);
    assert_non_null(strstr(why, "libcuda-gpuchar-missing.so.1"));
    assert_non_null(strstr(why, "not found"));
    assert_non_null(strstr(why, "GPUCHAR_LIBCUDA"));
}

static void test_missing_path(void **state)
{
    char why[512] = "";

    (void)state;
    setenv("GPUCHAR_LIBCUDA", "/nonexistent", 1);
    assert_int_equal(gc__cuda_ops.init(why, sizeof(why)), GC_ENOLIB);
    assert_non_null(strstr(why, "/nonexistent"));
    assert_non_null(strstr(why, "no NVIDIA driver?"));
    /* A failed init leaves nothing behind: it can be tried again. */
    memset(why, 0, sizeof(why));
    assert_int_equal(gc__cuda_ops.init(why, sizeof(why)), GC_ENOLIB);
    assert_non_null(strstr(why, "/nonexistent"));
}

static void test_wrong_library(void **state)
{
    char why[512] = "";

    (void)state;
    /* A library that exists but is not the driver: the symbol check names
     * the first entry point it lacks. */
    setenv("GPUCHAR_LIBCUDA", "libm.so.6", 1);
    assert_int_equal(gc__cuda_ops.init(why, sizeof(why)), GC_ENOLIB);
    assert_non_null(strstr(why, "libm.so.6"));
    assert_non_null(strstr(why, "lacks the symbol cuGetErrorName"));
}

static void test_default_name(void **state)
{
    char why[512] = "";
    int rc;

    (void)state;
    unsetenv("GPUCHAR_LIBCUDA");
    rc = gc__cuda_ops.init(why, sizeof(why));
    if (rc == 0) {
        /* A machine with the driver: nothing to check here. */
        gc__cuda_ops.fini();
        skip();
    }
    /* No library (ENOLIB), or one whose cuInit fails (under the address
     * sanitizer, for one: its shadow memory leaves the driver none): either
     * way the reason names the library it tried. */
    assert_true(rc < 0);
    assert_non_null(strstr(why, "libcuda.so.1"));
}

static void test_stub_library(void **state)
{
    static const char stub[] = "/usr/local/cuda/lib64/stubs/libcuda.so";
    char why[512] = "";
    int rc;

    (void)state;
    if (access(stub, R_OK) != 0)
        skip();
    /* The toolkit's link-time stub loads and has every symbol, but cuInit
     * reports that it is no driver. */
    setenv("GPUCHAR_LIBCUDA", stub, 1);
    rc = gc__cuda_ops.init(why, sizeof(why));
    if (rc == 0) {
        /* A real driver started earlier in this process stays loaded. */
        gc__cuda_ops.fini();
        skip();
    }
    assert_int_equal(rc, GC_ENOLIB);
    assert_non_null(strstr(why, "cuInit failed: CUDA_ERROR_STUB_LIBRARY"));
    assert_non_null(strstr(why, stub));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_default_name),
        cmocka_unit_test(test_missing_path),
        cmocka_unit_test(test_wrong_library),
        cmocka_unit_test(test_stub_library),
        /* Last: where the driver exists it stays loaded once started. */
        cmocka_unit_test(test_default_name),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
