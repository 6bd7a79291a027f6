/* Unit tests of the application-kernel work record (src/model/appwork.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/results.h"
#include "model/appwork.h"

static struct gc_app_work sample(void)
{
    struct gc_app_work w;

    gc__app_work_init(&w);
    w.ops[GC_APP_OP_FP32] = 5.0 * 4096 * 4096;
    w.ops[GC_APP_OP_INT32] = 1.0e6;
    w.bytes[GC_APP_LVL_DRAM] = 2.0 * 4 * 4096 * 4096;
    w.bytes[GC_APP_LVL_L1] = 5.0 * 4 * 4096 * 4096;
    w.threads = 4096.0 * 4096;
    w.block_threads = 256;
    w.shared_per_block = 4352;
    return w;
}

static void test_round_trip(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_app_work in = sample(), out;

    (void)state;
    assert_non_null(r);
    struct gc_bench_result *b = gc__results_add_bench(r, "application.jacobi", "application");
    assert_non_null(b);
    assert_int_equal(gc__app_work_put(b, "baseline", &in), 0);
    in.regs_per_thread = 32;
    in.ops[GC_APP_OP_SFU] = 7;
    in.access_bytes = 16;
    assert_int_equal(gc__app_work_put(b, "vec4", &in), 0);

    assert_true(gc__app_work_get(b, "baseline", &out));
    assert_true(out.ops[GC_APP_OP_FP32] == sample().ops[GC_APP_OP_FP32]);
    assert_true(out.bytes[GC_APP_LVL_DRAM] == sample().bytes[GC_APP_LVL_DRAM]);
    assert_true(out.bytes[GC_APP_LVL_SHARED] == 0.0);
    assert_int_equal(out.block_threads, 256);
    assert_int_equal(out.regs_per_thread, -1); /* unknown stays unknown */
    assert_true(out.access_bytes == 0.0);      /* not known: not written */
    assert_null(gc__bench_find_metric(b, "baseline.access_bytes"));
    assert_true(out.shared_per_block == 4352.0);

    assert_true(gc__app_work_get(b, "vec4", &out));
    assert_int_equal(out.regs_per_thread, 32);
    assert_true(out.ops[GC_APP_OP_SFU] == 7.0);
    assert_true(out.access_bytes == 16.0);
    assert_string_equal(gc__bench_find_metric(b, "vec4.access_bytes")->unit, "B");
    assert_false(gc__app_work_get(b, "vec8", &out));
    assert_non_null(gc__bench_find_metric(b, "vec4.bytes.dram"));
    assert_string_equal(gc__bench_find_metric(b, "vec4.ops.fp32")->unit, "ops");
    gc_results_free(r);
}

static void test_rejects(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_app_work w = sample();

    (void)state;
    assert_non_null(r);
    struct gc_bench_result *b = gc__results_add_bench(r, "application.x", "application");
    assert_non_null(b);
    w.bytes[GC_APP_LVL_L2] = -1.0;
    assert_int_equal(gc__app_work_put(b, "k", &w), GC_EINVAL);
    w = sample();
    w.ops[GC_APP_OP_FP64] = NAN;
    assert_int_equal(gc__app_work_put(b, "k", &w), GC_EINVAL);
    w = sample();
    w.access_bytes = -4;
    assert_int_equal(gc__app_work_put(b, "k", &w), GC_EINVAL);
    w = sample();
    w.block_threads = 0;
    assert_int_equal(gc__app_work_put(b, "k", &w), GC_EINVAL);
    w = sample();
    assert_int_equal(gc__app_work_put(b, "", &w), GC_EINVAL);
    assert_int_equal(gc__app_work_put(b, "a_kernel_name_that_is_longer_than_forty_characters", &w),
                     GC_EINVAL);
    assert_int_equal(b->nmetrics, 0); /* nothing half-written */
    assert_string_equal(gc__app_op_name(GC_APP_OP_SFU), "sfu");
    assert_string_equal(gc__app_level_name(GC_APP_LVL_SHARED), "shared");
    gc_results_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
