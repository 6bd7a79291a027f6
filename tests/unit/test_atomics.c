/* memory.atomics on the harness, on the simulated (null) device: the plan
 * (every space x type x mode, the grid-wide address in global memory only,
 * the adds per address bounded), the figures on the null device's synthetic
 * timings (ops/s and ops/clk/CU, the u32 headline metrics, the shape stored
 * for the energy workload), and the verification rejecting counters no
 * kernel added to. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/atomics/atomics.h"
#include "bench/launchcfg.h"
#include "core/benchcfg.h"
#include "core/harness.h"
#include "core/results.h"
#include "nullfx.h"

static const struct gc_hbench hb = {gc__atomics_plan, gc__atomics_derive, gc__atomics_free};

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-4, .noise_rel = 0.01, .seed = 17};

    (void)state;
    nullfx_open(&fx, &cfg, 29);
    fx.dev->info.type = GC_DEVICE_GPU;
    return 0;
}

/* 2 spaces x 3 types x 4 modes less shared memory's grid mode: 21
 * configurations of 6 kernels, 12 series; a full device of 2048 threads
 * per CU on 4 CUs (8192 threads); adds per thread 8 x trips, trips at most
 * 64 and at most 2^22 adds per address (the grid: 2^22 / 8192 / 8 = 64). */
static void test_plan(void **state)
{
    struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.atomics", "memory");
    struct gc_harness h;
    int kernels = 0;

    (void)state;
    assert_int_equal(gc__atomics_plan(&fx.s, r, &h), 0);
    assert_int_equal(r->nseries, 12);
    assert_int_equal(h.ncfg, 21);
    for (int i = 0; i < h.ncfg; i++) {
        bool seen = false;

        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(h.cfg[i].src, h.cfg[j].src) == 0;
        kernels += !seen;
    }
    assert_int_equal(kernels, 6);
    assert_null(nullfx_by_label(&h, "atomic_shared_u32_grid"));
    assert_non_null(nullfx_by_label(&h, "atomic_global_u64_grid"));
    gc__atomics_free(&fx.s, &h);
}

static void test_run(void **state)
{
    struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.atomics", "memory");
    struct gc_harness h;
    static const char *const heads[4][2] = {
        {"global_atomic_u32_distinct", "atomic_global_u32_distinct"},
        {"global_atomic_u32_same_address", "atomic_global_u32_grid"},
        {"shared_atomic_u32_distinct", "atomic_shared_u32_distinct"},
        {"shared_atomic_u32_same_address", "atomic_shared_u32_block"},
    };

    (void)state;
    nullfx_run_all(&hb, r, &h, "memory.atomics");
    /* Ops per launch: threads x 8 adds x trips. */
    const struct gc_hconf *grid = nullfx_by_label(&h, "atomic_global_u32_grid");
    assert_float_equal(grid->hl.work, 8192.0 * 8 * 64, 0);
    for (int i = 0; i < 4; i++) {
        const struct gc_hconf *c = nullfx_by_label(&h, heads[i][1]);
        const struct gc_metric *m = nullfx_metric(r, heads[i][0]);

        assert_non_null(c);
        assert_float_equal(m->value, c->value, 0);
        assert_int_equal(m->stats.n, c->m.samples);
        assert_non_null(strstr(m->note, "8 blocks of 256 per CU, 512 adds per thread"));
    }
    assert_int_equal(r->nmetrics, 4);
    /* Per clock per CU: ops/s / (clock x CUs), per mode. */
    const struct gc_series *ops = gc__bench_find_series(r, "global_u32_ops"),
                           *pc = gc__bench_find_series(r, "global_u32_ops_per_clk_per_cu");
    assert_int_equal(ops->npoints, 4);
    assert_int_equal(pc->npoints, 4);
    assert_float_equal(pc->points[3].y,
                       ops->points[3].y / (grid->m.clock_mhz * 1e6 * fx.dev->info.compute_units),
                       1e-9 * pc->points[3].y);
    assert_string_equal(ops->points[3].label, "grid");
    assert_int_equal(gc__bench_find_series(r, "shared_u64_ops")->npoints, 3);
    int per_cu = 0, trips = 0;
    assert_true(gc__config_int(r, NULL, "blocks_per_cu", &per_cu));
    assert_true(gc__config_int(r, NULL, "trips", &trips));
    assert_int_equal(per_cu, 8);
    assert_int_equal(trips, 64);
    gc__atomics_free(&fx.s, &h);
}

/* The null device runs no kernel: the counters keep their starting values
 * and the first configuration fails, naming a counter. */
static void test_verify_rejects(void **state)
{
    (void)state;
    nullfx_rejects(&hb, "memory.atomics", "verification failed (global u32, distinct): counter ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plan, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_run, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_verify_rejects, setup, nullfx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
