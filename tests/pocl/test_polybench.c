/* End-to-end on the first OpenCL device (PoCL in CI): application.polybench
 * runs its nine kernels, each verified against the host (a failed check
 * fails the benchmark), and records for each its work, its time and, with
 * a peak measured in the same run (compute.fp32.fma), a prediction and the
 * Table IV figure; the prediction made again from the saved JSON is the
 * same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"
#include "core/results.h"
#include "model/appwork.h"

static const char *const kernels[] = {"fdtd_step1",  "fdtd_step2",  "fdtd_step3",
                                      "gemm",        "mm3_kernel1", "mm3_kernel2",
                                      "mm3_kernel3", "syr2k",       "syrk"};
#define NKERN 9

static double value(const struct gc_bench_result *b, const char *k, const char *what)
{
    char name[96];

    snprintf(name, sizeof(name), "%s.%s", k, what);
    const struct gc_metric *m = gc__bench_find_metric(b, name);
    if (!m)
        fprintf(stderr, "missing %s\n", name);
    assert_non_null(m);
    return m->value;
}

static void check_kernels(const struct gc_bench_result *pb)
{
    for (int i = 0; i < NKERN; i++) {
        struct gc_app_work w;
        char name[96];

        assert_true(gc__app_work_get(pb, kernels[i], &w));
        assert_true(w.ops[GC_APP_OP_FP32] > 0);
        assert_true(w.bytes[GC_APP_LVL_DRAM] > 0);
        /* Every byte that reaches DRAM passed L2, and L1 before it. */
        assert_true(w.bytes[GC_APP_LVL_L2] >= w.bytes[GC_APP_LVL_DRAM]);
        assert_true(w.bytes[GC_APP_LVL_L1] >= w.bytes[GC_APP_LVL_L2] * 0.999);
        assert_int_equal(w.block_threads, 256);
        snprintf(name, sizeof(name), "%s.time", kernels[i]);
        const struct gc_metric *t = gc__bench_find_metric(pb, name);
        assert_non_null(t);
        assert_string_equal(t->unit, "s");
        assert_true(t->value > 0 && isfinite(t->value));
        assert_true(t->stats.n >= 1);
        assert_true(value(pb, kernels[i], "warps_per_cu") > 0);
        double pt = value(pb, kernels[i], "predicted_time");
        assert_true(pt > 0 && isfinite(pt));
        assert_true(isfinite(value(pb, kernels[i], "prediction_error")));
        snprintf(name, sizeof(name), "%s.attained", kernels[i]);
        const struct gc_metric *a = gc__bench_find_metric(pb, name);
        assert_non_null(a);
        assert_true(a->value > 0 && a->limit > 0);
    }
    const struct gc_metric *med = gc__bench_find_metric(pb, "prediction_error_median");
    assert_non_null(med);
    assert_true(isfinite(med->value) && med->value >= 0);
    fprintf(stderr, "application.polybench on this device: median |prediction error| %.1f%%\n",
            med->value);
}

static void test_polybench_on_opencl(void **state)
{
    /* The fp32 peak is the quickest profile figure to measure: with it every
     * kernel has a priced class. */
    static const char *const pats[] = {"application.polybench", "compute.fp32.fma", NULL};
    struct gc_run_options o;
    struct gc_results *r = NULL, *back = NULL;
    gc_context *ctx = NULL;
    char cache[256], path[256], err[256];

    (void)state;
    snprintf(cache, sizeof(cache), "/tmp/gpuchar-test-cache-pb-%ld", (long)getpid());
    snprintf(path, sizeof(path), "/tmp/gpuchar-test-pb-%ld.json", (long)getpid());
    assert_int_equal(gc_context_create(&ctx), 0);
    gc_run_options_init(&o);
    o.device = "opencl:0";
    o.patterns = pats;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 3;
    o.min_time_ms = 2;
    o.cache_dir = cache;
    int rc = gc_run(ctx, &o, &r);
    if (rc)
        fprintf(stderr, "run: %s: %s\n", gc_strerror(rc), gc_last_error(ctx));
    assert_int_equal(rc, 0);
    const struct gc_bench_result *pb = gc__results_find(r, "application.polybench");
    assert_non_null(pb);
    if (pb->status != GC_BENCH_OK)
        fprintf(stderr, "application.polybench: %s\n", pb->error);
    assert_int_equal(pb->status, GC_BENCH_OK);
    assert_int_equal(gc_predict_results(r), NKERN);
    check_kernels(pb);

    /* From the saved file: the same predictions. */
    assert_int_equal(gc_write_json(r, path), 0);
    assert_int_equal(gc_read_json(path, &back, err, sizeof(err)), 0);
    assert_int_equal(gc_predict_results(back), NKERN);
    const struct gc_bench_result *pb2 = gc__results_find(back, "application.polybench");
    assert_non_null(pb2);
    for (int i = 0; i < NKERN; i++) {
        double a = value(pb, kernels[i], "predicted_time");
        double b = value(pb2, kernels[i], "predicted_time");

        assert_true(fabs(a - b) <= 1e-9 * a);
    }
    unlink(path);
    gc_results_free(back);
    gc_results_free(r);
    gc_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_polybench_on_opencl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
