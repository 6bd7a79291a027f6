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

/* The spelling a device takes, by dialect and capabilities. */
static void test_form_by_caps(void **state)
{
    static const char cuda_ptx[] = "asm(\"add.u32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));";
    static const char cuda_c[] = "x = __fdividef(y, x);";
    static const char ocl[] = "x = x + y;";
    struct gc_kform f;

    (void)state;
    /* CUDA: always its own spelling. */
    f = gc__kgen_form(GC_DIALECT_CUDA, 0, cuda_ptx, ocl, GC_CAP_FP16);
    assert_ptr_equal(f.text, cuda_ptx);
    assert_false(f.ptx);
    /* OpenCL with what the OpenCL C spelling needs: that one, even where
     * inline PTX would do (it also takes vector types). */
    f = gc__kgen_form(GC_DIALECT_OPENCL, GC_CAP_INLINE_ASM, cuda_ptx, ocl, 0);
    assert_ptr_equal(f.text, ocl);
    assert_false(f.ptx);
    f = gc__kgen_form(GC_DIALECT_OPENCL, GC_CAP_FP16, cuda_ptx, ocl, GC_CAP_FP16);
    assert_ptr_equal(f.text, ocl);
    /* Without the capability the OpenCL C spelling needs: the PTX one where
     * the device takes inline PTX, else none. */
    f = gc__kgen_form(GC_DIALECT_OPENCL, GC_CAP_INLINE_ASM, cuda_ptx, ocl, GC_CAP_FP16);
    assert_ptr_equal(f.text, cuda_ptx);
    assert_true(f.ptx);
    f = gc__kgen_form(GC_DIALECT_OPENCL, 0, cuda_ptx, ocl, GC_CAP_FP16);
    assert_null(f.text);
    /* No OpenCL C spelling. */
    f = gc__kgen_form(GC_DIALECT_OPENCL, GC_CAP_INLINE_ASM | GC_CAP_CLOCK64, cuda_ptx, NULL, 0);
    assert_ptr_equal(f.text, cuda_ptx);
    assert_true(f.ptx);
    f = gc__kgen_form(GC_DIALECT_OPENCL, GC_CAP_CLOCK64 | GC_CAP_FP16, cuda_ptx, NULL, 0);
    assert_null(f.text);
    /* A CUDA spelling that is not pure inline PTX never reaches OpenCL. */
    f = gc__kgen_form(GC_DIALECT_OPENCL, GC_CAP_INLINE_ASM, cuda_c, NULL, 0);
    assert_null(f.text);
    f = gc__kgen_form(GC_DIALECT_OPENCL, GC_CAP_INLINE_ASM, NULL, NULL, 0);
    assert_null(f.text);
}

static void test_pure_ptx(void **state)
{
    static const char *const yes[] = {
        "asm(\"add.u32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));",
        "asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(t));",
        "  asm(\"and.b32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y)); "
        "asm(\"shf.l.wrap.b32 %0, %0, %0, %1;\" : \"+r\"(x) : \"r\"(b));\n",
        "asm(\"{.reg .b32 m; mov.b32 m, 0x3bff3bff; fma.rn.f16x2 %0, %0, m, %1;}\" "
        ": \"+r\"(x) : \"r\"(b)); (void)y;",
        "asm(\"fma.rn.f64 %0, %0, %1, %2;\" : \"+d\"(x) : \"d\"(y), \"d\"(b));",
        "asm(\"add.rn.f32 %0, %0, %1;\" : \"+f\"(x) : \"f\"((y)));",
        "asm volatile(\"membar.cta;\" ::: \"memory\");",
        "__asm__(\"mov.b16 %0, %1;\" : \"=h\"(s) : \"h\"(t));",
        "asm(\"x\\\"y;\" : \"+r\"(x));",
    };
    static const char *const no[] = {
        "",
        "   \n",
        "(void)y;",
        "x = x + y;",
        "x = __fdividef(y, x);",
        "asm(\"add.u32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y)); x = x + 1;",
        "asm(\"add.u32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y))",
        "asm(\"add.u32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y);",
        "asm(\"add.u32 %0, %0, %1;\" : \"+r\"(x) : \"n\"(5));",
        "asm(\"st.v4.u32 [%0], %1;\" :: \"l\"(p), \"v\"(q));",
        "asm(\"unterminated : \"+r\"(x));",
        "asmx(\"add.u32 %0, %0, %1;\" : \"+r\"(x));",
        "asm(: \"+r\"(x));",
        "(void) 3;",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (!gc__kgen_pure_ptx(yes[i]))
            fail_msg("not taken as pure inline PTX: %s", yes[i]);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        if (gc__kgen_pure_ptx(no[i]))
            fail_msg("taken as pure inline PTX: %s", no[i]);
    }
    assert_false(gc__kgen_pure_ptx(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sbuf_grows_and_formats),
        cmocka_unit_test(test_empty_take_is_empty_string),
        cmocka_unit_test(test_prelude_dialects),
        cmocka_unit_test(test_cache_key_depends_on_every_field),
        cmocka_unit_test(test_form_by_caps),
        cmocka_unit_test(test_pure_ptx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
