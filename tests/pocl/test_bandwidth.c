/* The bandwidth benchmarks end to end on the first OpenCL device (PoCL in
 * CI), quick profile: every kernel verifies, the results have their
 * structure, and the figures are positive, below a generous physical bound
 * and their own limits, and ordered (L1 plateau >= DRAM plateau); on a CPU
 * device a DRAM figure streams GC_CPU_DRAM_LLC_FACTOR x the last-level cache
 * or is not there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"
#include "backend/opencl/opencl.h"
#include "core/cpulimits.h"
#include "core/results.h"

/* No core of today loads 1 TB/s from any level. */
#define BW_BOUND_PER_CU 1e12

static char cache_dir[256];

static const struct gc_metric *metric(const struct gc_bench_result *b, const char *name)
{
    for (int i = 0; i < b->nmetrics; i++)
        if (strcmp(b->metrics[i].name, name) == 0)
            return &b->metrics[i];
    return NULL;
}

static const struct gc_bench_result *bench(const struct gc_results *r, const char *name)
{
    for (int i = 0; i < r->nbenches; i++)
        if (strcmp(r->benches[i].name, name) == 0)
            return &r->benches[i];
    return NULL;
}

static void check_bw(const struct gc_bench_result *b, const char *name, int cus)
{
    const struct gc_metric *m = metric(b, name);

    if (!m)
        fprintf(stderr, "%s: no metric %s\n", b->name, name);
    assert_non_null(m);
    assert_string_equal(m->unit, "B/s");
    assert_true(isfinite(m->value) && m->value > 0 &&
                m->value < BW_BOUND_PER_CU * (cus > 0 ? cus : 1));
    if (m->stats.n > 0)
        assert_true(m->stats.min <= m->stats.median && m->stats.median <= m->stats.max);
}

static void check_series(const struct gc_series *s)
{
    assert_true(s->npoints >= 1);
    for (int i = 0; i < s->npoints; i++)
        assert_true(isfinite(s->points[i].y) && s->points[i].y > 0);
}

static void test_bandwidth_quick(void **state)
{
    static const char *const pats[] = {"memory.dram.*", "memory.copy", "memory.bandwidth",
                                       "memory.copy_kernel", NULL};
    struct gc_run_options o;
    struct gc_results *r = NULL;
    struct gc_device_info info;
    gc_context *ctx = NULL;
    char dir[300];
    int rc;

    (void)state;
    snprintf(cache_dir, sizeof(cache_dir), "/tmp/gpuchar-test-bw-%ld", (long)getpid());
    assert_int_equal(gc_context_create(&ctx), 0);
    gc_run_options_init(&o);
    o.device = "opencl:0";
    o.patterns = pats;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 3;
    o.min_time_ms = 2;
    o.cache_dir = cache_dir;
    rc = gc_run(ctx, &o, &r);
    if (rc)
        fprintf(stderr, "run: %s: %s\n", gc_strerror(rc), gc_last_error(ctx));
    assert_int_equal(rc, 0);
    assert_non_null(r);
    assert_true(r->complete);
    /* memory.copy selects memory.dram.copy (one benchmark per measurement). */
    assert_int_equal(r->nbenches, 6);
    assert_int_equal(gc__opencl_ops.device_info(0, &info), 0);
    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_bench_result *b = &r->benches[i];
        bool dram = strncmp(b->name, "memory.dram.", 12) == 0;

        /* A CPU device without the memory for streams of 8x its last-level
         * cache has no DRAM figure, and says why. */
        if (dram && info.type == GC_DEVICE_CPU && b->status == GC_BENCH_NOT_AVAILABLE) {
            assert_non_null(strstr(b->error, "8x the"));
            assert_non_null(strstr(b->error, "last-level cache"));
            continue;
        }
        if (b->status != GC_BENCH_OK)
            fprintf(stderr, "%s: %s\n", b->name, b->error);
        assert_int_equal(b->status, GC_BENCH_OK);
        assert_true(b->nseries >= 1);
        for (int k = 0; k < b->nseries; k++)
            check_series(&b->series[k]);
        /* No figure above its limit: on a CPU device too, where the limits
         * come from its cores, vectors and fastest clock. */
        for (int k = 0; k < b->nmetrics; k++) {
            const struct gc_metric *m = &b->metrics[k];
            if (isfinite(m->limit) && !(m->value <= 1.005 * m->limit))
                fail_msg("%s %s = %g above its limit %g", b->name, m->name, m->value, m->limit);
            if (info.type == GC_DEVICE_CPU && strcmp(m->unit, "B/s") == 0)
                assert_true(isfinite(m->limit));
        }
    }

    /* DRAM streams: headline, reference configuration and footprint. */
    static const char *const ops[] = {"read", "write", "copy", "triad"};
    static const int nstreams[] = {1, 1, 2, 3};
    for (int i = 0; i < 4; i++) {
        char name[64], metric_name[64];
        snprintf(name, sizeof(name), "memory.dram.%s", ops[i]);
        const struct gc_bench_result *b = bench(r, name);
        assert_non_null(b);
        if (b->status != GC_BENCH_OK)
            continue;
        /* CPUs: the streams together hold GC_CPU_DRAM_LLC_FACTOR x the
         * last-level cache, or the note names the bound that stopped them
         * short of it (a VM that reports its socket's whole L3). */
        if (info.type == GC_DEVICE_CPU) {
            const struct gc_metric *bs = metric(b, "buffer_size");
            bool full = bs->value * nstreams[i] >=
                        GC_CPU_DRAM_LLC_FACTOR * (double)gc__cpu_llc_bytes(&info);
            if (!full)
                fprintf(stderr, "%s buffer_size: %s\n", name, bs->note);
            assert_true(full || strstr(bs->note, "bounded to") != NULL);
            assert_true(bs->value * nstreams[i] >= (double)((size_t)16 << 20));
        }
        snprintf(metric_name, sizeof(metric_name), "%s_bandwidth", ops[i]);
        check_bw(b, metric_name, info.compute_units);
        check_bw(b, "baseline_bandwidth", info.compute_units);
        /* The best configuration includes the reference. */
        assert_true(metric(b, metric_name)->value >= metric(b, "baseline_bandwidth")->value);
        assert_non_null(metric(b, "buffer_size"));
        assert_true(metric(b, "buffer_size")->value >= (double)(16u << 20));
    }
    /* The alias added no row of its own. */
    for (int i = 0; i < r->nbenches; i++)
        assert_string_not_equal(r->benches[i].name, "memory.copy");

    /* cachebench: plateaus, normalisations, ordering. */
    const struct gc_bench_result *cb = bench(r, "memory.bandwidth");
    assert_non_null(cb);
    check_bw(cb, "l1_bandwidth", info.compute_units);
    /* The L2 copy plateau needs footprints within [LLC / 8, LLC / 2]; a CPU
     * whose reported last level is far above the 16 MiB CPU footprints
     * (a VM that reports its socket's whole L3) has none. */
    if (info.type != GC_DEVICE_CPU || metric(cb, "l2_copy_bandwidth"))
        check_bw(cb, "l2_copy_bandwidth", info.compute_units);
    /* A DRAM figure exists only when the sweep reached 8x the last-level
     * cache (PoCL reports a large one); then L1 is at least as fast. */
    if (metric(cb, "dram_read_bandwidth")) {
        check_bw(cb, "dram_read_bandwidth", info.compute_units);
        assert_true(metric(cb, "l1_bandwidth")->value >= metric(cb, "dram_read_bandwidth")->value);
    }
    const struct gc_metric *bpc = metric(cb, "l1_bytes_per_clk_per_sm"),
                           *wpc = metric(cb, "l1_words_per_clk_per_sm");
    assert_non_null(bpc);
    assert_non_null(wpc);
    assert_true(fabs(bpc->value - 4 * wpc->value) <= 1e-9 * bpc->value);
    /* Footprints grow along each curve, from a few KiB. */
    for (int k = 0; k < cb->nseries; k++) {
        const struct gc_series *s = &cb->series[k];
        assert_true(s->points[0].x <= 8192);
        for (int i = 1; i < s->npoints; i++)
            assert_true(s->points[i].x > s->points[i - 1].x);
    }

    /* Lemeire copy kernel: every element size, lambda <= Lambda, Fig. 6. */
    const struct gc_bench_result *ck = bench(r, "memory.copy_kernel");
    assert_non_null(ck);
    static const int elems[] = {1, 2, 4, 8, 16};
    for (int i = 0; i < 5; i++) {
        char n[64];
        snprintf(n, sizeof(n), "bandwidth_%dB", elems[i]);
        check_bw(ck, n, info.compute_units);
        snprintf(n, sizeof(n), "issue_latency_%dB", elems[i]);
        const struct gc_metric *lam = metric(ck, n);
        snprintf(n, sizeof(n), "completion_latency_%dB", elems[i]);
        const struct gc_metric *Lam = metric(ck, n);
        assert_non_null(lam);
        assert_non_null(Lam);
        assert_true(lam->value > 0 && lam->value <= Lam->value);
    }
    check_bw(ck, "constant_loop_bandwidth", info.compute_units);
    check_bw(ck, "dynamic_loop_bandwidth", info.compute_units);

    gc_results_free(r);
    gc_context_destroy(ctx);
    /* The cache directory is this test's own, named after its pid. */
    snprintf(dir, sizeof(dir), "rm -rf '%s'", cache_dir);
    assert_int_equal(system(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bandwidth_quick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
