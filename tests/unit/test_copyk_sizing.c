/* Buffer sizing of memory.copy_kernel: every launch shape the benchmark can
 * plan stays inside its source and output buffers, and on GPUs a launch
 * reads at least 8x the last-level cache, whatever that cache's size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "backend/backend.h"
#include "bench/copykernel/copykernel.h"

static struct gc_device_info dev(enum gc_device_type type, int cus, int threads_per_cu, size_t l2)
{
    struct gc_device_info i;

    memset(&i, 0, sizeof(i));
    i.type = type;
    i.compute_units = cus;
    i.max_threads_per_cu = threads_per_cu;
    i.simd_width = 32;
    i.l2_size = l2;
    return i;
}

/* Every shape: element sizes 1-16 B with 64 reads and 4-byte elements with
 * 1..64 reads, each with blocks of 1..max warps and 1 or 2 blocks per CU. */
static void check_all_shapes(const struct gc_device_info *i, enum gc_profile p)
{
    struct gc_copyk_sizing z;
    static const int elems[] = {1, 2, 4, 8, 16};
    static const int reads[] = {1, 2, 4, 8, 16, 32, 64};
    int maxw = i->max_threads_per_cu / 32;

    gc__copyk_sizing(i, p, &z);
    assert_true(z.src_bytes > 0 && z.dst_bytes > 0);
    if (i->type == GC_DEVICE_GPU && i->l2_size)
        assert_true(z.target >= 8.0 * (double)i->l2_size);
    for (int e = 0; e < 5; e++)
        for (int r = 0; r < 7; r++) {
            int elem = reads[r] == 64 ? elems[e] : 4;
            if (reads[r] != 64 && e > 0)
                continue;
            if (p == GC_PROFILE_QUICK && reads[r] < 4)
                continue; /* the quick profile's Fig. 6 starts at 4 reads */
            for (int w = 1; w <= maxw; w++)
                for (int bps = 1; bps <= 2; bps++) {
                    if (w % bps)
                        continue;
                    int block = w / bps * 32;
                    unsigned runs =
                        gc__copyk_runs(&z, elem, reads[r], block, bps, i->compute_units);
                    size_t items =
                        (size_t)runs * (size_t)block * (size_t)bps * (size_t)i->compute_units;

                    assert_true(runs >= 1);
                    assert_true(items * (size_t)elem * (size_t)reads[r] <= z.src_bytes);
                    assert_true(items * 4 <= z.dst_bytes);
                    /* About the target: never less than it by more than one
                     * run, and not cut short by the buffers. */
                    double per_run = (double)elem * reads[r] * block * bps * i->compute_units;
                    assert_true((double)runs * per_run >= z.target - per_run);
                }
        }
}

static void test_h100(void **state)
{
    (void)state;
    struct gc_device_info i = dev(GC_DEVICE_GPU, 132, 2048, (size_t)50 << 20);
    check_all_shapes(&i, GC_PROFILE_DEFAULT);
    check_all_shapes(&i, GC_PROFILE_QUICK);
    check_all_shapes(&i, GC_PROFILE_FULL);
}

static void test_h200(void **state)
{
    (void)state;
    struct gc_device_info i = dev(GC_DEVICE_GPU, 132, 2048, (size_t)60 << 20);
    check_all_shapes(&i, GC_PROFILE_DEFAULT);
    check_all_shapes(&i, GC_PROFILE_QUICK);
}

/* Caches of no round size, small and huge devices, a CPU. */
static void test_odd_sizes(void **state)
{
    (void)state;
    const struct gc_device_info devs[] = {
        dev(GC_DEVICE_GPU, 7, 1536, ((size_t)3 << 20) + 17),
        dev(GC_DEVICE_GPU, 108, 2048, (size_t)40 << 20),
        dev(GC_DEVICE_GPU, 170, 1536, ((size_t)96 << 20) + 4096 * 3),
        dev(GC_DEVICE_GPU, 1000, 2048, (size_t)257 << 20),
        dev(GC_DEVICE_GPU, 1, 64, 0),
        dev(GC_DEVICE_CPU, 2, 4096, (size_t)32 << 20),
        dev(GC_DEVICE_CPU, 16, 4096, ((size_t)105 << 20) / 2),
    };
    for (size_t k = 0; k < sizeof(devs) / sizeof(devs[0]); k++) {
        check_all_shapes(&devs[k], GC_PROFILE_DEFAULT);
        check_all_shapes(&devs[k], GC_PROFILE_QUICK);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h100),
        cmocka_unit_test(test_h200),
        cmocka_unit_test(test_odd_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
