/* The in-kernel clocks are a capability: on the simulated (null) device,
 * whose dialect is OpenCL C, the caps alone decide whether the pointer
 * chase takes the cycle path, and the kernel text then reads the cycle
 * counter and the timer in OpenCL's spelling (inline PTX in OpenCL C, no
 * CUDA qualifiers); without the caps the text has no asm at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "backend/null/null.h"
#include "bench/chase/chase.h"
#include "core/device.h"

#define CLOCK_CAPS (GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER | GC_CAP_SMID | GC_CAP_INLINE_ASM)

static struct gc_device *dev;

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-4, .seed = 5};
    char why[256], err[256];

    (void)state;
    gc__null_configure(&cfg);
    assert_int_equal(gc__null_ops.init(why, sizeof(why)), 0);
    assert_int_equal(gc__device_open(&gc__null_ops, 0, &dev, err, sizeof(err)), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gc__device_close(dev);
    if (gc__null_ops.fini)
        gc__null_ops.fini();
    gc__null_configure(NULL);
    return 0;
}

/* The chase kernel of path p as the benchmark would generate it for dev. */
static char *chase_text(enum chase_path p)
{
    static const uint32_t words[4] = {1, 2, 3, 0};
    bool clocks = gc__chase_clocks(&dev->info);
    struct kspec k = {
        p, dev->ops->dialect, clocks, clocks ? CHASE_SEG_LOADS : CHASE_CL_LOADS, 5, words, 4};

    return gc__chase_gen(&k);
}

static void test_no_clock_caps_no_asm(void **state)
{
    (void)state;
    dev->info.caps &= ~(unsigned)CLOCK_CAPS;
    assert_int_equal(dev->ops->dialect, GC_DIALECT_OPENCL);
    assert_false(gc__chase_clocks(&dev->info));
    for (enum chase_path p = PATH_GLOBAL; p <= PATH_PRIVATE; p++) {
        char *s;
        if (p == PATH_TEXTURE)
            continue;
        s = chase_text(p);
        assert_non_null(s);
        assert_null(strstr(s, "asm"));
        assert_null(strstr(s, "GC_CLOCK64"));
        free(s);
    }
}

static void test_clock_caps_opencl_reads(void **state)
{
    (void)state;
    dev->info.caps |= CLOCK_CAPS;
    assert_true(gc__chase_clocks(&dev->info));
    for (enum chase_path p = PATH_GLOBAL; p <= PATH_PRIVATE; p++) {
        char *s;
        if (p == PATH_TEXTURE)
            continue;
        s = chase_text(p);
        assert_non_null(s);
        /* The reads, spelled for OpenCL C. */
        assert_non_null(strstr(s, "static inline ulong gc_clock64(void)"));
        assert_non_null(strstr(s, "mov.u64 %0, %%clock64;"));
        assert_non_null(strstr(s, "mov.u64 %0, %%globaltimer;"));
        assert_non_null(strstr(s, "out[2] = GC_CLOCK64();"));
        assert_non_null(strstr(s, "out[1] = GC_GLOBALTIMER() - t0;"));
        /* Nothing of CUDA C's. */
        assert_null(strstr(s, "__device__"));
        assert_null(strstr(s, "__forceinline__"));
        assert_null(strstr(s, " clock64()"));
        assert_non_null(strstr(s, "__kernel"));
        free(s);
    }
    /* The global paths load through their PTX instruction. */
    char *s = chase_text(PATH_L2);
    assert_non_null(strstr(s, "ld.global.cg.u64"));
    assert_non_null(strstr(s, "GC_DEVFN GC_U64 gc_ld(GC_U64 p)"));
    free(s);
    /* The every-SM chase reads the SM id in the same spelling. */
    s = gc__chase_gen_all(dev->ops->dialect, CHASE_SEG_LOADS, 5, 128);
    assert_non_null(strstr(s, "mov.u32 %0, %%smid;"));
    assert_non_null(strstr(s, "o[1] = GC_SMID();"));
    assert_null(strstr(s, "__device__"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_clock_caps_no_asm),
        cmocka_unit_test(test_clock_caps_opencl_reads),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
