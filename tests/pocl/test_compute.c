/* The instruction catalogue end to end on the first OpenCL device (PoCL in
 * CI), scaled down: every selected entry runs, verifies its kernels and gives
 * sane figures; entries without a trustworthy OpenCL form say why. */
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

static void test_catalogue_on_opencl(void **state)
{
    static const char *const pats[] = {"compute.fp32.fma",
                                       "compute.fp32.sin.fast",
                                       "compute.int32.popc",
                                       "compute.cvt.f32.i32",
                                       "compute.int32.add",
                                       "compute.bf16x2.fma",
                                       NULL};
    struct gc_run_options o;
    struct gc_results *r = NULL;
    gc_context *ctx = NULL;
    char dir[128];
    int rc;

    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/gpuchar-test-compute-%ld", (long)getpid());
    assert_int_equal(gc_context_create(&ctx), 0);
    gc_run_options_init(&o);
    o.device = "opencl:0";
    o.patterns = pats;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 3;
    o.min_time_ms = 2;
    o.cache_dir = dir;
    rc = gc_run(ctx, &o, &r);
    if (rc)
        fprintf(stderr, "run: %s: %s\n", gc_strerror(rc), gc_last_error(ctx));
    assert_int_equal(rc, 0);
    assert_non_null(r);
    assert_int_equal(r->nbenches, 6);
    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_bench_result *b = &r->benches[i];

        if (strcmp(b->name, "compute.int32.add") == 0 ||
            strcmp(b->name, "compute.bf16x2.fma") == 0) {
            /* No OpenCL form: reported with the reason, never a number. */
            assert_int_equal(b->status, GC_BENCH_NOT_AVAILABLE);
            assert_non_null(strstr(b->error, "OpenCL"));
            assert_int_equal(b->nmetrics, 0);
            continue;
        }
        if (b->status != GC_BENCH_OK)
            fprintf(stderr, "%s: %s\n", b->name, b->error);
        assert_int_equal(b->status, GC_BENCH_OK);
        const struct gc_metric *thr = gc__bench_find_metric(b, "throughput");
        assert_non_null(thr);
        /* Positive and below 1e13 results/s: more than any CPU can do. */
        assert_true(thr->value > 1e5 && thr->value < 1e13);
        assert_true(thr->stats.min <= thr->stats.median && thr->stats.median <= thr->stats.max);
        /* The figure is the best of the peak configurations measured in
         * full; the others are only screened, and marked so. */
        double best = 0;
        int full = 0;
        for (int s = 0; s < b->nseries; s++) {
            if (strncmp(b->series[s].name, "peak_", 5) != 0)
                continue;
            for (int p = 0; p < b->series[s].npoints; p++) {
                const struct gc_point *pt = &b->series[s].points[p];
                if (strstr(pt->label, "(screened)"))
                    continue;
                best = fmax(best, pt->y);
                full++;
            }
        }
        assert_true(full >= 1 && full <= 2);
        assert_true(fabs(best - thr->value) <= 1e-9 * thr->value);
        const struct gc_metric *seq = gc__bench_find_metric(b, "sequential_latency");
        assert_non_null(seq);
        assert_true(seq->value > 0 && seq->value < 1e6);
    }
    gc_results_free(r);
    gc_context_destroy(ctx);
    char cmd[200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The series of name nm in b, NULL if none. */
static const struct gc_series *find_series(const struct gc_bench_result *b, const char *nm)
{
    for (int i = 0; i < b->nseries; i++)
        if (strcmp(b->series[i].name, nm) == 0)
            return &b->series[i];
    return NULL;
}

/* Without an in-kernel clock (PoCL) the occupancy roofline and the pipeline
 * model come from whole-kernel times (methodology 17.1): the ILP-1 and best
 * ILP curves exist, each point's throughput and CPI describe the same time,
 * Lambda >= lambda are the extremes of the CPI curves, the ridge is a swept
 * occupancy at which the curve reaches 95% of the peak, throughput rises up
 * to it within the noise of a shared CPU, and no figure passes the CPU's
 * limit. */
static void test_kernel_time_model(void **state)
{
    static const char *const pats[] = {"compute.fp32.fma", NULL};
    struct gc_run_options o;
    struct gc_results *r = NULL;
    gc_context *ctx = NULL;
    char dir[128];

    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/gpuchar-test-ktime-%ld", (long)getpid());
    assert_int_equal(gc_context_create(&ctx), 0);
    gc_run_options_init(&o);
    o.device = "opencl:0";
    o.patterns = pats;
    o.profile = GC_PROFILE_DEFAULT;
    /* The method's own sample count and time: an explicit --repeat or
     * --min-time holds for every benchmark, and three 2 ms kernel times on a
     * 2-core machine scatter by more than the curve's shape. */
    o.cache_dir = dir;
    assert_int_equal(gc_run(ctx, &o, &r), 0);
    const struct gc_bench_result *b = &r->benches[0];
    assert_int_equal(b->status, GC_BENCH_OK);
    const struct gc_metric *lam = gc__bench_find_metric(b, "issue_latency");
    const struct gc_metric *Lam = gc__bench_find_metric(b, "completion_latency");
    const struct gc_metric *thr = gc__bench_find_metric(b, "throughput");
    assert_non_null(lam);
    assert_non_null(Lam);
    assert_non_null(thr);
    assert_non_null(strstr(lam->note, "kernel times"));
    assert_non_null(strstr(Lam->note, "kernel times"));
    assert_true(lam->value > 0 && Lam->value >= lam->value);
    bool clk = strcmp(lam->unit, "cycles") == 0;
    assert_true(clk || strcmp(lam->unit, "ns") == 0);
    double per_s = clk ? r->meta.device.clock_mhz * 1e6 : 1e9; /* time units per second */
    double cus = r->meta.device.compute_units;
    double cmin = INFINITY, cmax = 0, peak = 0;
    int curves = 0, ridges = 0;
    for (int ilp = 1; ilp <= 4; ilp++) {
        char nm[32];
        snprintf(nm, sizeof(nm), "roofline_ilp%d", ilp);
        const struct gc_series *t = find_series(b, nm);
        snprintf(nm, sizeof(nm), "cpi_ilp%d", ilp);
        const struct gc_series *c = find_series(b, nm);
        if (!t) {
            assert_null(c);
            continue;
        }
        curves++;
        assert_non_null(c);
        assert_true(t->npoints >= 3 && t->npoints == c->npoints);
        assert_float_equal(t->points[0].x, 1, 0);
        for (int i = 0; i < t->npoints; i++) {
            const struct gc_point *p = &t->points[i], *q = &c->points[i];
            assert_true(i == 0 || p->x > t->points[i - 1].x);
            assert_true(p->x == q->x && p->y > 0 && q->y > 0);
            /* One time, two views: throughput x CPI = results per warp
             * instruction, the same at every point. */
            assert_float_equal(p->y * q->y, t->points[0].y * c->points[0].y, 1e-9 * p->y * q->y);
            /* Below the CPU's limit on throughput, in results/s. */
            if (isfinite(thr->limit))
                assert_true(p->y * per_s * cus <= thr->limit);
            cmin = fmin(cmin, q->y);
            cmax = fmax(cmax, q->y);
            peak = fmax(peak, p->y);
        }
    }
    assert_int_equal(curves, 2);
    /* eqs. 4-5: the extremes of CPI per warp over the sweep. */
    assert_float_equal(lam->value, cmin, 1e-9 * cmin);
    assert_float_equal(Lam->value, cmax, 1e-9 * cmax);
    for (int ilp = 1; ilp <= 4; ilp++) {
        char nm[32];
        snprintf(nm, sizeof(nm), "ridge_warps_ilp%d", ilp);
        const struct gc_metric *rm = gc__bench_find_metric(b, nm);
        snprintf(nm, sizeof(nm), "roofline_ilp%d", ilp);
        const struct gc_series *t = find_series(b, nm);
        if (!rm || isnan(rm->value))
            continue;
        assert_non_null(t);
        ridges++;
        assert_true(rm->value >= 1);
        double run_max = 0;
        bool at = false;
        for (int i = 0; i < t->npoints && t->points[i].x <= rm->value; i++) {
            /* Below the ridge no point reaches 95% of the peak: the ridge
             * is the first that does. On a CPU whose one vector chain per
             * core already keeps its pipes busy that is the first point
             * (a launch then lasts about a millisecond, so that its
             * overhead does not make one warp look slow). */
            if (t->points[i].x < rm->value)
                assert_true(t->points[i].y < 0.95 * peak);
            run_max = fmax(run_max, t->points[i].y);
            at = t->points[i].x == rm->value;
        }
        assert_true(at);                     /* the ridge is a swept point ... */
        assert_true(run_max >= 0.95 * peak); /* ... within 5% of the peak */
    }
    assert_true(ridges >= 1); /* the peak's own curve has one */
    gc_results_free(r);
    gc_context_destroy(ctx);
    char cmd[200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalogue_on_opencl),
        cmocka_unit_test(test_kernel_time_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
