/* The access-pattern and on-chip memory benchmarks end to end on the first
 * OpenCL device (PoCL in CI): memory.coalescing, memory.shared,
 * memory.constant and memory.atomics run in quick mode, verify their kernels
 * and give structurally complete, sane figures. Orderings that follow from
 * the hardware (bandwidth falls with lane stride, conflicts cost throughput)
 * are asserted on GPUs only: a CPU has no warps or banks. */
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

static char cache_dir[256];
static struct gc_results *results;
static gc_context *ctx;

static bool on_gpu(void)
{
    return results->meta.device.type == GC_DEVICE_GPU;
}

/* A measured figure: finite, positive, within its own sample range and not
 * above its limit (when one is known). */
static void assert_sane_metric(const struct gc_metric *m)
{
    assert_non_null(m);
    assert_true(isfinite(m->value) && m->value > 0);
    if (m->stats.n > 0)
        assert_true(m->stats.min <= m->stats.median && m->stats.median <= m->stats.max);
    if (isfinite(m->limit))
        assert_true(m->value <= 1.01 * m->limit);
}

static void assert_positive_series(const struct gc_series *s, int npoints)
{
    assert_non_null(s);
    assert_int_equal(s->npoints, npoints);
    for (int i = 0; i < s->npoints; i++)
        assert_true(isfinite(s->points[i].y) && s->points[i].y > 0);
}

/* y never rises by more than tol (relative) from one point to the next. */
static void assert_non_increasing(const struct gc_series *s, double tol)
{
    for (int i = 1; i < s->npoints; i++)
        assert_true(s->points[i].y <= s->points[i - 1].y * (1 + tol));
}

static int setup(void **state)
{
    static const char *const pats[] = {"memory.coalescing", "memory.shared", "memory.constant",
                                       "memory.atomics", NULL};
    struct gc_run_options o;
    int rc;

    (void)state;
    snprintf(cache_dir, sizeof(cache_dir), "/tmp/gpuchar-test-onchip-%ld", (long)getpid());
    if (gc_context_create(&ctx))
        return -1;
    gc_run_options_init(&o);
    o.device = "opencl:0";
    o.patterns = pats;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 3;
    o.min_time_ms = 2;
    o.cache_dir = cache_dir;
    rc = gc_run(ctx, &o, &results);
    if (rc)
        fprintf(stderr, "run: %s: %s\n", gc_strerror(rc), gc_last_error(ctx));
    return results ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[300];

    (void)state;
    gc_results_free(results);
    gc_context_destroy(ctx);
    /* The directory is this test's own, named after its pid. */
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cache_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_all_ran(void **state)
{
    (void)state;
    assert_true(results->complete);
    assert_int_equal(results->nbenches, 4);
    for (int i = 0; i < results->nbenches; i++) {
        if (results->benches[i].status != GC_BENCH_OK)
            fprintf(stderr, "%s: %s\n", results->benches[i].name, results->benches[i].error);
        assert_int_equal(results->benches[i].status, GC_BENCH_OK);
        assert_true(results->benches[i].kernels_compiled + results->benches[i].kernels_cached +
                        results->benches[i].kernels_planned >=
                    1);
    }
}

static void test_coalescing(void **state)
{
    const struct gc_bench_result *b = gc__results_find(results, "memory.coalescing");

    (void)state;
    assert_non_null(b);
    assert_sane_metric(gc__bench_find_metric(b, "coalesced_bandwidth"));
    assert_sane_metric(gc__bench_find_metric(b, "permuted_bandwidth"));
    assert_sane_metric(gc__bench_find_metric(b, "stride32_slowdown"));
    assert_sane_metric(gc__bench_find_metric(b, "buffer_size"));

    const struct gc_series *bw = gc__bench_find_series(b, "bandwidth_vs_stride");
    const struct gc_series *sec = gc__bench_find_series(b, "sectors_per_request_vs_stride");
    assert_positive_series(bw, 3);
    assert_positive_series(sec, 3);
    assert_positive_series(gc__bench_find_series(b, "sector_bandwidth_vs_stride"), 3);
    assert_positive_series(gc__bench_find_series(b, "bandwidth_vs_access_size"), 3);
    assert_positive_series(gc__bench_find_series(b, "bandwidth_vs_coalescing"), 1);
    /* Sectors per request follow from the pattern: 4-byte words at lane
     * stride s touch min(32, 4 s) sectors of 32 bytes. */
    for (int i = 0; i < sec->npoints; i++) {
        double s = sec->points[i].x, want = 4 * s < 32 ? 4 * s : 32;
        assert_true(sec->points[i].y == want);
    }
    /* Groups of 8 lanes, each group in its own line: 4 sectors. */
    assert_true(gc__bench_find_series(b, "sectors_per_request_vs_coalescing")->points[0].y == 4);
    if (on_gpu()) {
        assert_non_increasing(bw, 0.03);
        assert_true(gc__bench_find_metric(b, "stride32_slowdown")->value > 2);
    }
}

static void test_shared(void **state)
{
    const struct gc_bench_result *b = gc__results_find(results, "memory.shared");

    (void)state;
    assert_non_null(b);
    assert_sane_metric(gc__bench_find_metric(b, "shared_bandwidth"));
    assert_sane_metric(gc__bench_find_metric(b, "shared_bytes_per_clk_per_cu"));
    assert_sane_metric(gc__bench_find_metric(b, "swap_bandwidth"));
    assert_sane_metric(gc__bench_find_metric(b, "swap_bytes_per_clk_per_cu"));
    assert_sane_metric(gc__bench_find_metric(b, "shared_load_bytes_per_clk_per_cu"));
    assert_sane_metric(gc__bench_find_metric(b, "broadcast_bytes_per_clk_per_cu"));
    assert_positive_series(gc__bench_find_series(b, "bandwidth_vs_element_size"), 3);
    assert_positive_series(gc__bench_find_series(b, "bytes_per_clk_per_cu_vs_element_size"), 3);
    /* The headline is the best of the (verified) load kernels. */
    const struct gc_series *ld = gc__bench_find_series(b, "load_bandwidth_vs_element_size");
    assert_positive_series(ld, 3);
    assert_positive_series(gc__bench_find_series(b, "load_bytes_per_clk_per_cu_vs_element_size"),
                           3);
    double best = 0;
    for (int i = 0; i < ld->npoints; i++)
        best = fmax(best, ld->points[i].y);
    assert_true(gc__bench_find_metric(b, "shared_bandwidth")->value == best);

    const struct gc_series *thr = gc__bench_find_series(b, "throughput_vs_lane_stride");
    const struct gc_series *lat = gc__bench_find_series(b, "latency_vs_lane_stride");
    const struct gc_series *deg = gc__bench_find_series(b, "throughput_vs_conflict_degree");
    assert_positive_series(thr, 7);
    assert_non_null(lat);
    assert_int_equal(lat->npoints, 7);
    assert_positive_series(deg, 5);
    /* Labels name the conflict degree gcd(stride, 32). */
    assert_string_equal(thr->points[0].label, "broadcast");
    assert_string_equal(thr->points[3].label, "1-way"); /* stride 3 */
    assert_string_equal(thr->points[6].label, "32-way");
    const struct gc_metric *l = gc__bench_find_metric(b, "shared_latency_cycles");
    assert_non_null(l);
    /* A difference of two chain times: a figure, or on a noisy CPU "below
     * resolution" / "not resolved" with no value. */
    assert_true(isfinite(l->value) || strncmp(l->note, "below resolution", 16) == 0 ||
                strncmp(l->note, "not resolved", 12) == 0);
    if (on_gpu()) {
        /* Wider conflict-free loads move at least as many bytes per clock:
         * one warp instruction carries 4, 8 or 16 bytes per lane. */
        const struct gc_series *lpc =
            gc__bench_find_series(b, "load_bytes_per_clk_per_cu_vs_element_size");
        assert_true(lpc->points[2].y >= 0.97 * lpc->points[0].y);
        /* Volkov §6.2: an n-way conflict costs throughput, never returns it. */
        assert_true(l->value > 0);
        assert_non_increasing(deg, 0.03);
        assert_true(deg->points[deg->npoints - 1].y < 0.2 * deg->points[0].y);
        for (int i = 0; i < lat->npoints; i++)
            assert_true(lat->points[i].y > 0);
    }
}

static void test_constant(void **state)
{
    const struct gc_bench_result *b = gc__results_find(results, "memory.constant");

    (void)state;
    assert_non_null(b);
    assert_sane_metric(gc__bench_find_metric(b, "constant_broadcast_bandwidth"));
    static const char *const sizes[] = {"4B", "8B"};
    for (int i = 0; i < 2; i++) {
        char name[48];
        snprintf(name, sizeof(name), "bandwidth_%s", sizes[i]);
        const struct gc_series *bw = gc__bench_find_series(b, name);
        assert_positive_series(bw, 4);
        snprintf(name, sizeof(name), "relative_throughput_%s", sizes[i]);
        const struct gc_series *rel = gc__bench_find_series(b, name);
        assert_positive_series(rel, 4);
        assert_true(rel->points[0].x == 1 && rel->points[0].y == 1);
        if (on_gpu()) {
            /* Distinct words in one warp load are served one after another. */
            assert_non_increasing(rel, 0.05);
            assert_true(rel->points[rel->npoints - 1].y < 0.5);
        }
    }
}

static void test_atomics(void **state)
{
    const struct gc_bench_result *b = gc__results_find(results, "memory.atomics");
    static const char *const names[] = {"global_u32_ops", "global_f32_ops", "global_u64_ops",
                                        "shared_u32_ops", "shared_f32_ops", "shared_u64_ops"};

    (void)state;
    assert_non_null(b);
    for (int i = 0; i < 6; i++) {
        const struct gc_series *s = gc__bench_find_series(b, names[i]);
        assert_positive_series(s, i < 3 ? 4 : 3);
        assert_string_equal(s->points[0].label, "distinct");
        assert_true(s->points[0].x == 1);
    }
    assert_sane_metric(gc__bench_find_metric(b, "global_atomic_u32_distinct"));
    assert_sane_metric(gc__bench_find_metric(b, "global_atomic_u32_same_address"));
    assert_sane_metric(gc__bench_find_metric(b, "shared_atomic_u32_distinct"));
    assert_sane_metric(gc__bench_find_metric(b, "shared_atomic_u32_same_address"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_ran), cmocka_unit_test(test_coalescing),
        cmocka_unit_test(test_shared),  cmocka_unit_test(test_constant),
        cmocka_unit_test(test_atomics),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
