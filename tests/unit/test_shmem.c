/* memory.shared on the harness, on the simulated (null) device given an
 * H100-like shared memory: the plan (swap and load kernels per element
 * size, three chain launches per lane stride, one kernel per distinct
 * source), the metric formulas on the null device's synthetic timings
 * (bandwidths, bytes per clock per CU, latency from two trip counts, the
 * conflict slowdown, the best configuration for the energy workload), the
 * verification rejecting an output no kernel wrote, and the host's expected
 * outputs against brute force. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/shmem/shmem.h"
#include "bench/launchcfg.h"
#include "core/benchcfg.h"
#include "core/harness.h"
#include "core/results.h"
#include "nullfx.h"

static const struct gc_hbench hb = {gc__shmem_plan, gc__shmem_derive, gc__shmem_free};

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-4, .noise_rel = 0.01, .seed = 13};

    (void)state;
    nullfx_open(&fx, &cfg, 23);
    fx.dev->info.shared_per_cu = 228 << 10;
    fx.dev->info.shared_per_block = fx.dev->info.shared_per_block_optin = 227 << 10;
    return 0;
}

/* 3 swap + 3 load kernels and 3 chain launches per lane stride: 7, 11 or
 * 33 strides by profile; 7 kernels. */
static void test_plan(void **state)
{
    static const enum gc_profile p[3] = {GC_PROFILE_QUICK, GC_PROFILE_DEFAULT, GC_PROFILE_FULL};
    static const int nstrides[3] = {7, 11, 33};

    (void)state;
    for (int i = 0; i < 3; i++) {
        struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.shared", "memory");
        struct gc_harness h;

        fx.s.profile = p[i];
        assert_int_equal(gc__shmem_plan(&fx.s, r, &h), 0);
        assert_int_equal(r->nseries, 8);
        assert_int_equal(h.ncfg, 6 + 3 * nstrides[i]);
        assert_int_equal(nullfx_distinct_sources(&h), 7);
        gc__shmem_free(&fx.s, &h);
    }
}

static double bpc(const struct gc_hconf *c)
{
    return c->value / (c->m.clock_mhz * 1e6 * fx.dev->info.compute_units);
}

static void test_run(void **state)
{
    struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.shared", "memory");
    struct gc_harness h;

    (void)state;
    nullfx_run_all(&hb, r, &h, "memory.shared");
    /* The load kernel's best element size is the headline. */
    const struct gc_hconf *best = NULL;
    for (int b = 4; b <= 16; b *= 2) {
        char lab[32];
        snprintf(lab, sizeof(lab), "shmem_load_%dB", b);
        const struct gc_hconf *c = nullfx_by_label(&h, lab);
        assert_non_null(c);
        if (!best || c->value > best->value)
            best = c;
    }
    assert_float_equal(nullfx_metric(r, "shared_bandwidth")->value, best->value, 0);
    assert_float_equal(nullfx_metric(r, "shared_bytes_per_clk_per_cu")->value, bpc(best),
                       1e-9 * bpc(best));
    int eb = 0, per_cu = 0;
    assert_true(gc__config_int(r, NULL, "elem_bytes", &eb));
    assert_true(gc__config_int(r, NULL, "blocks_per_cu", &per_cu));
    assert_int_equal(eb, atoi(strrchr(best->label, '_') + 1));
    assert_int_equal(per_cu, gc__shmem_shape_per_cu(&fx.dev->info));
    assert_non_null(gc__bench_find_metric(r, "swap_bandwidth"));
    /* Latency: (time(2n) - time(n)) x clock / (64 n) over the two one-warp
     * launches of stride 1; the slowdown: stride 1 over stride 32. */
    const struct gc_hconf *l1 = nullfx_by_label(&h, "shmem_chain_s1_lat"),
                          *l2 = nullfx_by_label(&h, "shmem_chain_s1_lat2"),
                          *c1 = nullfx_by_label(&h, "shmem_chain_s1_thr"),
                          *c32 = nullfx_by_label(&h, "shmem_chain_s32_thr");
    assert_non_null(l1);
    assert_non_null(l2);
    assert_non_null(c1);
    assert_non_null(c32);
    double lat =
        (l2->m.seconds.median - l1->m.seconds.median) * l2->m.clock_mhz * 1e6 / l1->hl.work;
    assert_float_equal(nullfx_metric(r, "shared_latency_cycles")->value, lat,
                       1e-9 * fabs(lat) + 1e-12);
    double t1 = bpc(c1), t32 = bpc(c32);
    assert_float_equal(nullfx_metric(r, "shared_load_bytes_per_clk_per_cu")->value, t1, 1e-9 * t1);
    assert_float_equal(nullfx_metric(r, "conflict32_slowdown")->value, t1 / t32, 1e-9 * t1 / t32);
    assert_non_null(gc__bench_find_metric(r, "broadcast_latency_cycles"));
    /* Series: 3 sizes per family, 11 strides, 6 of them powers of two. */
    static const int npts[8] = {3, 3, 11, 11, 6, 6, 3, 3};
    for (int k = 0; k < 8; k++)
        assert_int_equal(r->series[k].npoints, npts[k]);
    gc__shmem_free(&fx.s, &h);
}

/* The null device runs no kernel: the random words before the launch stay,
 * and the first configuration fails naming the thread. */
static void test_verify_rejects(void **state)
{
    (void)state;
    nullfx_rejects(&hb, "memory.shared",
                   "verification failed (swap, 4-byte elements): thread 0 row");
}

/* One iteration of swaps (0,1) (2,3) (4,5) (1,2) (3,4) leaves rows
 * 1 3 0 5 2 4; the expected load sums against a brute-force walk of the
 * kernel's trips; the chain's end after 1 and 3 trips (64 and 192 loads
 * through 3 pages). */
static void test_expected(void **state)
{
    static const int perm1[6] = {1, 3, 0, 5, 2, 4};
    const size_t nthreads = 2 * SH_BLOCK;
    const uint32_t seed = 0x1234u;
    uint32_t *rows = malloc(nthreads * SH_ROWS * 2 * 4);
    char msg[160];

    (void)state;
    assert_non_null(rows);
    for (size_t g = 0; g < nthreads; g++)
        for (int r = 0; r < SH_ROWS; r++)
            for (uint32_t c = 0; c < 2; c++)
                rows[(g * SH_ROWS + (size_t)r) * 2 + c] =
                    (((uint32_t)g * 8u + (uint32_t)perm1[r]) * 4u + c) * 2654435761u ^ seed;
    assert_int_equal(gc__shmem_check_swap(rows, nthreads, 8, 1, seed, msg, sizeof(msg)), 0);
    rows[(300 * SH_ROWS + 2) * 2 + 1] ^= 1;
    assert_int_equal(gc__shmem_check_swap(rows, nthreads, 8, 1, seed, msg, sizeof(msg)),
                     GC_EVERIFY);
    assert_non_null(strstr(msg, "thread 300 row 2 word 1"));
    free(rows);
    for (int bytes = 4; bytes <= 16; bytes *= 2) {
        int ncomp = bytes / 4, n = SH_LD_BYTES / bytes;
        for (size_t g = 0; g < nthreads; g += 37) {
            uint32_t blk = (uint32_t)(g / SH_BLOCK), tid = (uint32_t)(g % SH_BLOCK), sum = 0;
            for (uint32_t i = 0; i < 16; i++)
                for (int e = (int)(tid ^ ((i & 7u) << 5)); e < n; e += SH_BLOCK)
                    for (int c = 0; c < ncomp; c++)
                        sum +=
                            (((blk * (uint32_t)n + (uint32_t)e) * (uint32_t)ncomp + (uint32_t)c) *
                             2654435761u) ^
                            seed;
            assert_int_equal(gc__shmem_load_sum(g, bytes, 16, seed), sum);
        }
    }
    assert_int_equal(gc__shmem_chain_end(5, 1), 5 + SH_PAGE);
    assert_int_equal(gc__shmem_chain_end(5, 3), 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plan, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_run, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_verify_rejects, setup, nullfx_teardown),
        cmocka_unit_test(test_expected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
