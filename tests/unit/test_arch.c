/* The architecture table: every lookup returns what the six per-benchmark
 * tables it replaced returned (transcribed below as they were), for known,
 * aliased, unknown and OpenCL devices. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "bench/hiding/hiding.h"
#include "core/arch.h"

#define N NAN
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- The former tables ---------------------------------------------------- */

/* core/specs.c: fp32 FMA per clock per SM, exact compute capability. */
static const struct {
    int cc;
    double fp32;
} old_fp32[] = {{70, 64},  {72, 64},   {75, 64},   {80, 64},   {86, 128},  {87, 128}, {89, 128},
                {90, 128}, {100, 128}, {103, 128}, {110, 128}, {120, 128}, {121, 128}};

/* bench/compute/itypes.c: columns 7.0 7.5 8.0 8.6 8.9 9.0 per class, the exact column
 * or the nearest lower one of the same major version. */
static const int old_cols[6] = {70, 75, 80, 86, 89, 90};
static const float old_spec[GC_RATE_NCLASS][6] = {
    [GC_RATE_NONE] = {0, 0, 0, 0, 0, 0},      [GC_RATE_F32] = {64, 64, 64, 128, 128, 128},
    [GC_RATE_F64] = {32, 2, 32, 2, 2, 64},    [GC_RATE_H2] = {128, 128, 256, 128, 128, 256},
    [GC_RATE_BF2] = {0, 0, 128, 0, 0, 256},   [GC_RATE_MUFU] = {16, 16, 16, 16, 16, 16},
    [GC_RATE_I32] = {64, 64, 64, 64, 64, 64}, [GC_RATE_I32_SLOW] = {16, 16, 16, 16, 16, 16},
};

/* bench/mma/mma.c: FLOP per clock per SM by class, exact compute capability. */
static const struct {
    int cc;
    double rate[GC_MMA_NCLASS];
} old_mma[] = {
    {80, {2048, 2048, 2048, 1024, N, 4096}},
    {86, {N, 1024, N, N, N, 2048}},
    {89, {N, 1024, N, N, N, 2048}},
    {90, {4096, 4096, 4096, 2048, 8192, 8192}},
};

/* bench/chase/chase.c: the unified L1 / shared array, exact compute capability. */
static const struct {
    int cc, unified, smallest, nonzero;
} old_l1[] = {
    {70, 128, 0, 8}, {72, 128, 0, 8}, {75, 96, 32, 32}, {80, 192, 0, 8},
    {86, 128, 0, 8}, {87, 192, 0, 8}, {89, 128, 0, 8},  {90, 256, 0, 8},
};

static double old_fp32_rate(int cc)
{
    for (size_t i = 0; i < COUNT(old_fp32); i++)
        if (old_fp32[i].cc == cc)
            return old_fp32[i].fp32;
    return NAN;
}

static double old_itype(int cls, int major, int minor)
{
    int cc = major * 10 + minor, best = -1;

    if (major <= 0)
        return NAN;
    for (int i = 0; i < 6; i++)
        if (old_cols[i] <= cc && old_cols[i] / 10 == major)
            best = i;
    if (best < 0 || old_spec[cls][best] <= 0)
        return NAN;
    return old_spec[cls][best];
}

static bool same(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

/* Every fact against the former tables and the former compute-capability
 * comparisons of the benchmarks (hiding.c, run.c and mix.c of bench/hiding/,
 * cachebw.c, shmem.c, dram.c, energy.c). */
static void check_device(int major, int minor)
{
    struct gc_device_info info = {.cc_major = major, .cc_minor = minor};
    struct gc_arch a;
    bool cuda = major > 0;
    int cc = major * 10 + minor;

    gc__arch_lookup(&info, &a);
    assert_int_equal(a.cc, cuda ? cc : 0);
    assert_true(same(a.fp32_fma_per_clk, cuda ? old_fp32_rate(cc) : NAN));
    for (int c = 0; c < GC_RATE_NCLASS; c++)
        assert_true(same(a.rate[c], old_itype(c, major, minor)));
    for (int c = 0; c < GC_MMA_NCLASS; c++) {
        double want = NAN;
        for (size_t i = 0; i < COUNT(old_mma); i++)
            if (old_mma[i].cc == cc)
                want = old_mma[i].rate[c];
        assert_true(same(a.mma_rate[c], want));
    }
    int unified = 0, smallest = 0, nonzero = 0;
    for (size_t i = 0; i < COUNT(old_l1); i++)
        if (old_l1[i].cc == cc) {
            unified = old_l1[i].unified;
            smallest = old_l1[i].smallest;
            nonzero = old_l1[i].nonzero;
        }
    assert_int_equal(a.l1_unified_kib, unified);
    if (unified) {
        assert_int_equal(a.l1_smallest_kib, smallest);
        assert_int_equal(a.l1_nonzero_kib, nonzero);
    }
    assert_true(same(a.sfu_per_clk, !cuda ? NAN : major >= 7 ? 16 : major >= 5 ? 32 : NAN));
    assert_true(same(a.shared_words_per_clk, cuda && major >= 5 ? 32 : NAN));
    assert_true(same(a.shared2_words_per_clk, cuda && major >= 5 ? 16 : NAN));
    assert_true(same(a.l1_bytes_per_clk, cuda && major >= 7 ? 128 : NAN));
    assert_int_equal(a.schedulers, cuda ? (major >= 3 ? 4 : 2) : 1);
    assert_true(a.issue_per_scheduler == (cuda && major >= 7));
    assert_true(a.load_hints == (cuda && major >= 8));
    assert_true(a.timed_sleep == (cuda && major >= 7));
    assert_true(a.sm == cuda);
    assert_true(a.wgmma == (cc == 90));
    assert_true(a.mma_fp8_emulated == (cc == 90));
}

static void test_against_former_tables(void **state)
{
    (void)state;
    static const int ccs[][2] = {{0, 0},  {2, 1},  {3, 5},  {5, 2},  {6, 1},  {7, 0},
                                 {7, 2},  {7, 3},  {7, 5},  {8, 0},  {8, 5},  {8, 6},
                                 {8, 7},  {8, 8},  {8, 9},  {9, 0},  {9, 1},  {10, 0},
                                 {10, 3}, {11, 0}, {12, 0}, {12, 1}, {12, 2}, {13, 0}};
    for (size_t i = 0; i < COUNT(ccs); i++)
        check_device(ccs[i][0], ccs[i][1]);
}

/* The rows the measured GPUs use, spelled out. */
static void test_known_rows(void **state)
{
    (void)state;
    struct gc_device_info info = {.cc_major = 9, .cc_minor = 0};
    struct gc_arch a;

    gc__arch_lookup(&info, &a);
    assert_true(a.known);
    assert_true(a.fp32_fma_per_clk == 128 && a.rate[GC_RATE_F64] == 64);
    assert_true(a.mma_rate[GC_MMA_F16_F32] == 4096 && a.mma_rate[GC_MMA_FP8] == 8192);
    assert_int_equal(a.l1_unified_kib, 256);
    assert_true(a.wgmma);

    info.cc_major = 8;
    gc__arch_lookup(&info, &a);
    assert_true(a.fp32_fma_per_clk == 64 && a.rate[GC_RATE_H2] == 256);
    assert_true(a.mma_rate[GC_MMA_TF32] == 1024 && isnan(a.mma_rate[GC_MMA_FP8]));
    assert_int_equal(a.l1_unified_kib, 192);
    assert_false(a.wgmma);

    info.cc_minor = 9;
    gc__arch_lookup(&info, &a);
    assert_true(a.fp32_fma_per_clk == 128 && a.rate[GC_RATE_F64] == 2);
    assert_true(isnan(a.mma_rate[GC_MMA_F16_F32]) && a.mma_rate[GC_MMA_F16_F16] == 1024);
    assert_false(a.mma_fp8_emulated);

    /* An unknown device: no compute capability. */
    memset(&info, 0, sizeof(info));
    gc__arch_lookup(&info, &a);
    assert_false(a.known);
    assert_int_equal(a.cc, 0);
    assert_true(isnan(a.fp32_fma_per_clk) && isnan(a.rate[GC_RATE_F32]));
    assert_int_equal(a.schedulers, 1);
    assert_int_equal(a.l1_unified_kib, 0);
}

static void test_older_than(void **state)
{
    (void)state;
    struct gc_device_info info = {.cc_major = 8, .cc_minor = 9};
    struct gc_arch a;

    gc__arch_lookup(&info, &a);
    assert_true(gc__arch_older_than(&a, 90));
    assert_false(gc__arch_older_than(&a, 89));
    assert_false(gc__arch_older_than(&a, 0));
    memset(&info, 0, sizeof(info));
    gc__arch_lookup(&info, &a);
    assert_false(gc__arch_older_than(&a, 90)); /* OpenCL: the compiler decides */
}

/* A device that gives its compute capability but no residency limits
 * (NVIDIA's OpenCL) gets the row's; limits it reported are kept, and a
 * device without a known row gets none. */
static void test_fill_residency(void **state)
{
    struct gc_device_info info;
    struct gc_arch a;

    (void)state;
    memset(&info, 0, sizeof(info));
    info.cc_major = 9;
    gc__arch_lookup(&info, &a);
    gc__arch_fill_residency(&a, &info);
    assert_int_equal(info.max_threads_per_cu, 2048);
    assert_int_equal(info.max_blocks_per_cu, 32);
    assert_int_equal(info.regs_per_cu, 65536);
    memset(&info, 0, sizeof(info));
    info.cc_major = 8;
    info.cc_minor = 6;
    info.max_threads_per_cu = 1000;
    gc__arch_lookup(&info, &a);
    gc__arch_fill_residency(&a, &info);
    assert_int_equal(info.max_threads_per_cu, 1000);
    assert_int_equal(info.max_blocks_per_cu, 16);
    memset(&info, 0, sizeof(info));
    gc__arch_lookup(&info, &a);
    gc__arch_fill_residency(&a, &info);
    assert_int_equal(info.max_threads_per_cu, 0);
    assert_int_equal(info.regs_per_cu, 0);
}

/* The latency-hiding sweep's top: the device's resident-thread limit, else
 * the architecture's (NVIDIA's OpenCL reports a compute capability and no
 * limit), else one work-group. */
static void test_hiding_max_warps(void **state)
{
    struct gc_device_info info;

    (void)state;
    memset(&info, 0, sizeof(info));
    info.type = GC_DEVICE_GPU;
    info.simd_width = 32;
    info.max_threads_per_block = 1024;
    info.cc_major = 9;
    assert_int_equal(gc__hid_max_warps(&info), 64);
    info.max_threads_per_cu = 1536;
    assert_int_equal(gc__hid_max_warps(&info), 48);
    info.max_threads_per_cu = 0;
    info.cc_major = 0;
    assert_int_equal(gc__hid_max_warps(&info), 32);
    info.type = GC_DEVICE_CPU;
    info.cc_major = 9;
    assert_int_equal(gc__hid_max_warps(&info), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_former_tables),
        cmocka_unit_test(test_known_rows),
        cmocka_unit_test(test_older_than),
        cmocka_unit_test(test_fill_residency),
        cmocka_unit_test(test_hiding_max_warps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
