/* Kernel generation layer: string buffer, dialect preludes, cache keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/kcache.h"
#include "kgen/kgen.h"

static void test_sbuf_grows_and_formats(void **state)
{
    struct gc_sbuf b;

    (void)state;
    gc__sbuf_init(&b);
    for (int i = 0; i < 1000; i++)
        gc__sbuf_printf(&b, "x%d = %d;\n", i, i * 3);
    assert_false(b.oom);
    assert_non_null(strstr(b.s, "x999 = 2997;\n"));
    assert_int_equal(strlen(b.s), b.len);
    char *s = gc__sbuf_take(&b);
    assert_non_null(s);
    assert_null(b.s);
    assert_int_equal(b.len, 0);
    free(s);
}

static void test_empty_take_is_empty_string(void **state)
{
    struct gc_sbuf b;

    (void)state;
    gc__sbuf_init(&b);
    char *s = gc__sbuf_take(&b);
    assert_non_null(s);
    assert_string_equal(s, "");
    free(s);
}

static void test_prelude_dialects(void **state)
{
    struct gc_sbuf b;

    (void)state;
    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, GC_DIALECT_CUDA, GC_KGEN_TIMESTAMPS);
    assert_non_null(strstr(b.s, "#define GC_KERNEL extern \"C\" __global__"));
    assert_non_null(strstr(b.s, "%%globaltimer"));
    assert_non_null(strstr(b.s, "%%smid"));
    assert_non_null(strstr(b.s, "#define GC_TS_PARAM , GC_GLOBAL GC_U64 *gc_ts"));
    assert_non_null(strstr(b.s, "#define GC_CLOCK64() clock64()"));
    gc__sbuf_free(&b);

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, GC_DIALECT_CUDA, 0);
    assert_null(strstr(b.s, "globaltimer"));
    assert_non_null(strstr(b.s, "#define GC_TS_PARAM\n"));
    gc__sbuf_free(&b);

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, GC_DIALECT_OPENCL, GC_KGEN_TIMESTAMPS);
    assert_non_null(strstr(b.s, "#define GC_KERNEL __kernel"));
    assert_non_null(strstr(b.s, "__local T *name"));
    /* Asked for (where the caps have the clocks), OpenCL reads the same
     * special registers through inline PTX, in OpenCL C's own spelling. */
    assert_non_null(strstr(b.s, "asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(t))"));
    assert_non_null(strstr(b.s, "#define GC_TS_PARAM , GC_GLOBAL GC_U64 *gc_ts"));
    assert_null(strstr(b.s, "__device__"));
    assert_null(strstr(b.s, "threadIdx"));
    gc__sbuf_free(&b);

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, GC_DIALECT_OPENCL, 0);
    assert_null(strstr(b.s, "asm"));
    assert_null(strstr(b.s, "GC_CLOCK64"));
    gc__sbuf_free(&b);
    assert_string_equal(gc__kgen_ext(GC_DIALECT_CUDA), ".cu");
    assert_string_equal(gc__kgen_ext(GC_DIALECT_OPENCL), ".cl");
}

static void test_cache_key_depends_on_every_field(void **state)
{
    struct gc_device_info a = {0}, b;
    char k0[33], k1[33];

    (void)state;
    snprintf(a.name, sizeof(a.name), "dev");
    snprintf(a.arch, sizeof(a.arch), "sm_90");
    snprintf(a.compiler, sizeof(a.compiler), "NVRTC 13.0");
    gc__kcache_key(&a, "cuda", "src", "-O3", k0);
    assert_int_equal(strlen(k0), 32);
    gc__kcache_key(&a, "cuda", "src", "-O3", k1);
    assert_string_equal(k0, k1);
    gc__kcache_key(&a, "cuda", "src2", "-O3", k1);
    assert_string_not_equal(k0, k1);
    gc__kcache_key(&a, "cuda", "src", "-O2", k1);
    assert_string_not_equal(k0, k1);
    gc__kcache_key(&a, "opencl", "src", "-O3", k1);
    assert_string_not_equal(k0, k1);
    b = a;
    snprintf(b.arch, sizeof(b.arch), "sm_80");
    gc__kcache_key(&b, "cuda", "src", "-O3", k1);
    assert_string_not_equal(k0, k1);
    b = a;
    snprintf(b.compiler, sizeof(b.compiler), "NVRTC 13.1");
    gc__kcache_key(&b, "cuda", "src", "-O3", k1);
    assert_string_not_equal(k0, k1);
    /* Field boundaries matter: moving a character between fields changes the key. */
    gc__kcache_key(&a, "cuda", "srcX", "-O3", k0);
    gc__kcache_key(&a, "cuda", "src", "X-O3", k1);
    assert_string_not_equal(k0, k1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sbuf_grows_and_formats),
        cmocka_unit_test(test_empty_take_is_empty_string),
        cmocka_unit_test(test_prelude_dialects),
        cmocka_unit_test(test_cache_key_depends_on_every_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
