/* OpenCL copies across devices on PoCL exposing two devices of one platform
 * (POCL_DEVICES="pthread pthread"): the link run opens them in one context,
 * copies between their buffers arrive verified in both directions, the SM
 * copies and the chase say why OpenCL cannot run them; one device alone is
 * "not available: one device". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/results.h"
#include "gpuchar/link.h"

static const char *const specs[] = {"opencl:0", "opencl:1"};

static const struct gc_metric *metric(const struct gc_bench_result *b, const char *name)
{
    const struct gc_metric *m = gc__bench_find_metric(b, name);

    if (!m)
        fail_msg("%s has no metric %s", b->name, name);
    return m;
}

static struct gc_results *run(gc_context *ctx, int n, const char *const *patterns, int *rc)
{
    struct gc_run_options o;
    struct gc_results *r = NULL;

    gc_run_options_init(&o);
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 3;
    o.min_time_ms = 1;
    o.no_cache = true;
    o.patterns = patterns;
    *rc = gc_run_links(ctx, &o, specs, n, &r);
    return r;
}

static void test_two_devices(void **state)
{
    static const char *const pats[] = {
        "link.topology", "link.ce_write", "link.ce_read", "link.ce_bidir",
        "link.sm_read",  "link.chase",    "link.latency", NULL};
    gc_context *ctx = *state;
    int rc;
    struct gc_results *r = run(ctx, 2, pats, &rc);
    const struct gc_bench_result *b;

    assert_non_null(r);
    assert_int_equal(rc, 0);
    b = gc__results_find(r, "link.topology");
    assert_non_null(b);
    assert_int_equal((int)metric(b, "reachable_pairs")->value, 2);
    for (int k = 0; k < 3; k++) {
        static const char *const rows[] = {"link.ce_write", "link.ce_read", "link.ce_bidir"};

        b = gc__results_find(r, rows[k]);
        assert_non_null(b);
        /* Every size of every pair was verified on arrival, or the row
         * would have failed. */
        assert_int_equal(b->status, GC_BENCH_OK);
        assert_true(metric(b, "0->1")->value > 0);
        assert_true(metric(b, "1->0")->value > 0);
    }
    assert_true(metric(gc__results_find(r, "link.latency"), "0->1")->value > 0);
    for (int k = 0; k < 2; k++) {
        b = gc__results_find(r, k ? "link.chase" : "link.sm_read");
        assert_int_equal(b->status, GC_BENCH_NOT_AVAILABLE);
        assert_non_null(strstr(b->error, "in place"));
    }
    gc_results_free(r);
}

static void test_one_device(void **state)
{
    static const char *const pats[] = {"link.ce_write", NULL};
    int rc;
    struct gc_results *r = run(*state, 1, pats, &rc);

    assert_non_null(r);
    assert_int_equal(r->benches[0].status, GC_BENCH_NOT_AVAILABLE);
    assert_non_null(strstr(r->benches[0].error, "one device"));
    gc_results_free(r);
}

static int setup(void **state)
{
    gc_context *ctx = NULL;
    struct gc_device_summary d;

    setenv("POCL_DEVICES", "pthread pthread", 1);
    setenv("GPUCHAR_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    unsetenv("GPUCHAR_FAULT");
    if (gc_context_create(&ctx) != 0)
        return -1;
    *state = ctx;
    /* PoCL of this build lists one device whatever it is told: skip. */
    if (gc_device_resolve(ctx, "opencl:1", &d) != 0) {
        gc_context_destroy(ctx);
        exit(77);
    }
    return 0;
}

static int teardown(void **state)
{
    gc_context_destroy(*state);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_devices),
        cmocka_unit_test(test_one_device),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
