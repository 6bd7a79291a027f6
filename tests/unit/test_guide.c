/* Unit tests of the guide (model/guide.c, model/guide_rules.c,
 * report/guide_text.c, report/guide_json.c): golden text and JSON on the
 * canned H200, H100 and PoCL profiles (tests/cli/fixtures/guide), and the
 * rules' properties on variations of them: a flat staircase makes manual
 * caching pay by the stencil's estimate, a missing input is named, a
 * measurement unlike the prediction is a miss with its reason. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "canned.h"
#include "core/results.h"
#include "gpuchar/guide.h"
#include "model/guide.h"

static struct gc_results *load(const char *name)
{
    char path[512], err[512];
    struct gc_results *r = NULL;

    snprintf(path, sizeof(path), "%s/%s.json", GC_GUIDE_FIXTURES, name);
    if (gc_read_json(path, &r, err, sizeof(err)))
        fail_msg("%s: %s", path, err);
    return r;
}

static char *text_of(const struct gc_guide *g, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    assert_non_null(f);
    assert_int_equal(gc_write_guide_text(g, f), 0);
    fclose(f);
    return buf;
}

static void golden_profile(const char *name)
{
    struct gc_results *r = load(name);
    struct gc_guide g;
    char err[256], gold[64], *txt;
    size_t len;

    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    txt = text_of(&g, &len);
    snprintf(gold, sizeof(gold), "guide/%s.txt", name);
    assert_true(golden_check(gold, txt, len));
    free(txt);
    gc_results_free(r);
}

static void test_golden_h200(void **state)
{
    (void)state;
    golden_profile("h200");
}

static void test_golden_h100(void **state)
{
    (void)state;
    golden_profile("h100");
}

static void test_golden_pocl(void **state)
{
    (void)state;
    golden_profile("pocl");
}

/* The JSON view of the PoCL guide. */
static void test_golden_json(void **state)
{
    struct gc_results *r = load("pocl");
    struct gc_guide g;
    char err[256], *dir = make_temp_dir(), path[600], *txt;
    size_t len;

    (void)state;
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    snprintf(path, sizeof(path), "%s/guide.json", dir);
    assert_int_equal(gc_write_guide_json(&g, path), 0);
    txt = slurp(path, &len);
    assert_non_null(txt);
    assert_true(golden_check("guide/pocl.json", txt, len));
    free(txt);
    rm_rf(dir);
    free(dir);
    gc_results_free(r);
}

static const struct gc_guide_item *item(const struct gc_guide *g, const char *topic)
{
    for (int i = 0; i < g->nitems; i++)
        if (strcmp(g->items[i].topic, topic) == 0)
            return &g->items[i];
    fail_msg("no item %s", topic);
    return NULL;
}

static struct gc_bench_result *bench(struct gc_results *r, const char *name)
{
    for (int i = 0; i < r->nbenches; i++)
        if (strcmp(r->benches[i].name, name) == 0)
            return &r->benches[i];
    return NULL;
}

/* A staircase without steps (no cache): manual caching pays by the
 * stencil's estimate from the figures themselves. */
static void test_uncached(void **state)
{
    struct gc_results *r = load("h200");
    struct gc_series *s = (struct gc_series *)gc__bench_find_series(
        bench(r, "memory.latency.global"), "latency_cycles");
    struct gc_guide g;
    char err[256];
    double dram = s->points[s->npoints - 1].y, ll = 23.0;

    (void)state;
    for (int i = 0; i < s->npoints; i++)
        s->points[i].y = dram;
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    const struct gc_guide_item *mc = item(&g, "manual caching");
    double want = (GC_GUIDE_STENCIL_LOADS * dram / (dram + GC_GUIDE_STENCIL_LOADS * ll) - 1) * 100;
    assert_int_equal(mc->verdict, GC_GUIDE_PAYS);
    assert_true(fabs(mc->gain_pct - want) < 1e-9);
    assert_string_equal(g.predicted_class, "manual caching");
    assert_non_null(strstr(mc->advice, "not cached"));
    gc_results_free(r);
}

/* A benchmark that failed counts as absent: its rule says what to run. */
static void test_missing(void **state)
{
    struct gc_results *r = load("h100");
    struct gc_guide g;
    char err[256];

    (void)state;
    bench(r, "control.divergence")->status = GC_BENCH_ERROR;
    bench(r, "hiding.params")->status = GC_BENCH_NOT_AVAILABLE;
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    assert_int_equal(item(&g, "branch elimination")->verdict, GC_GUIDE_UNKNOWN);
    assert_non_null(strstr(item(&g, "branch elimination")->missing,
                           "no divergence figures: run control.divergence"));
    assert_non_null(strstr(item(&g, "occupancy")->missing, "run hiding.params"));
    /* Without the SIMD width the CUDA profile's vectorization is unknown. */
    assert_int_equal(item(&g, "vectorization")->verdict, GC_GUIDE_UNKNOWN);
    /* Nothing the guide reads: an error that names what to run. */
    for (int i = 0; i < r->nbenches; i++)
        r->benches[i].status = GC_BENCH_ERROR;
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "memory.latency.global"));
    gc_results_free(r);
}

/* A measured best of another class than predicted is a miss, with the
 * figures of the predicted class in its reason (the H100's profile, where
 * no rule expects a gain). */
static void test_miss(void **state)
{
    struct gc_results *r = load("h100");
    struct gc_bench_result *b = gc__results_add_bench(r, "application.jacobi", "application");
    struct gc_guide g;
    char err[256];

    (void)state;
    assert_non_null(b);
    assert_non_null(gc__bench_add_metric(b, "baseline.time", 1.0e-3, "s", NAN, NULL, NULL));
    assert_non_null(gc__bench_add_metric(b, "vec4.time", 0.8e-3, "s", NAN, NULL, NULL));
    assert_non_null(gc__bench_add_metric(b, "BE.time", 0.99e-3, "s", NAN, NULL, NULL));
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    assert_true(g.jacobi.present);
    assert_string_equal(g.jacobi.best, "vec4");
    assert_true(fabs(g.jacobi.improvement_pct - 25.0) < 1e-9);
    assert_string_equal(g.jacobi.measured_class, "vectorization");
    assert_string_equal(g.predicted_class, "none");
    assert_false(g.jacobi.hit);
    assert_non_null(strstr(g.jacobi.why, "vec4 gained +25%"));
    /* Below the pays-off threshold the best is no class's, as for the
     * prediction: a measured +17% is a hit for "none". */
    b->metrics[1].value = 1.0e-3 / 1.17;
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    assert_true(fabs(g.jacobi.improvement_pct - 17.0) < 1e-9);
    assert_string_equal(g.jacobi.measured_class, "none");
    assert_true(g.jacobi.hit);
    b->metrics[1].value = 0.95e-3;
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    assert_string_equal(g.jacobi.measured_class, "none");
    assert_true(g.jacobi.hit);
    gc_results_free(r);
}

/* Sets memory.coalescing's access-size series (the canned H200 profile
 * carries the recorded one): copy bandwidth bw4 at 4-byte accesses, bw16
 * at 16-byte ones (2-byte a point below both). */
static void add_access_sizes(struct gc_results *r, double bw4, double bw16)
{
    struct gc_bench_result *b = bench(r, "memory.coalescing");
    struct gc_series *s;

    if (!b)
        b = gc__results_add_bench(r, "memory.coalescing", "memory");
    assert_non_null(b);
    s = (struct gc_series *)gc__bench_find_series(b, "bandwidth_vs_access_size");
    if (!s)
        s = gc__bench_add_series(b, "bandwidth_vs_access_size", "bytes per thread access", "B",
                                 "copy bandwidth (read + written)", "B/s");
    assert_non_null(s);
    s->npoints = 0;
    assert_int_equal(gc__series_add(s, 2, 0.5 * bw4, NULL, ""), 0);
    assert_int_equal(gc__series_add(s, 4, bw4, NULL, ""), 0);
    assert_int_equal(gc__series_add(s, 16, bw16, NULL, ""), 0);
}

/* Wide loads on a memory-bound device: the gain is the access-size
 * series' 16-byte over 4-byte bandwidth, it counts for vectorization, and
 * a measured vec4 best is then a hit (the H200's miss of docs/results). */
static void test_wide_loads(void **state)
{
    struct gc_results *r = load("h200");
    struct gc_bench_result *b;
    struct gc_guide g;
    char err[256];
    double bw4 = 3.0e12, bw16 = 4.2e12;

    (void)state;
    add_access_sizes(r, bw4, bw16);
    b = gc__results_add_bench(r, "application.jacobi", "application");
    assert_non_null(b);
    assert_non_null(gc__bench_add_metric(b, "baseline.time", 1.0e-3, "s", NAN, NULL, NULL));
    assert_non_null(gc__bench_add_metric(b, "vec4.time", 0.7e-3, "s", NAN, NULL, NULL));
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    const struct gc_guide_item *w = item(&g, "wide loads");
    assert_int_equal(w->verdict, GC_GUIDE_PAYS);
    assert_true(fabs(w->gain_pct - (bw16 / bw4 - 1) * 100) < 1e-9);
    assert_string_equal(w->klass, "vectorization");
    assert_non_null(strstr(w->advice, "memory-bound"));
    assert_string_equal(g.predicted_class, "vectorization");
    assert_string_equal(g.jacobi.measured_class, "vectorization");
    assert_true(g.jacobi.hit);
    gc_results_free(r);
}

/* A compute-bound stencil (the scalar peak below 6 operations per 12
 * bytes at the 4-byte bandwidth) gains only what the roofline leaves:
 * with the arithmetic time above the memory time at both widths, none. */
static void test_wide_loads_compute_bound(void **state)
{
    struct gc_results *r = load("h200");
    struct gc_guide g;
    char err[256];
    double p = gc__guide_series_max(r, "compute.fp32.fma", "peak_ilp", NULL);
    /* bytes per second at which the stencil's 12 B take as long as its 6 ops */
    double even = p * GC_GUIDE_STENCIL_BYTES / GC_GUIDE_STENCIL_OPS;

    (void)state;
    add_access_sizes(r, 2 * even, 3 * even);
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    const struct gc_guide_item *w = item(&g, "wide loads");
    assert_int_equal(w->verdict, GC_GUIDE_NONE);
    assert_true(fabs(w->gain_pct) < 1e-9);
    assert_non_null(strstr(w->advice, "compute-bound"));
    /* Half way: 4-byte accesses memory-bound, 16-byte ones compute-bound:
     * the gain stops at the arithmetic time. */
    gc_results_free(r);
    r = load("h200");
    add_access_sizes(r, 0.5 * even, 3 * even);
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    w = item(&g, "wide loads");
    assert_true(fabs(w->gain_pct - 100.0) < 1e-9);
    gc_results_free(r);
}

/* Sets hiding.params' metric name of profile r to v. */
static void set_hiding(struct gc_results *r, const char *name, double v)
{
    struct gc_metric *m =
        (struct gc_metric *)gc__bench_find_metric(bench(r, "hiding.params"), name);

    assert_non_null(m);
    m->value = v;
}

/* Loads in flight (Little's law): the H200's memory peak needs more loads
 * in flight per SM than its 64 warps keep one float at a time, and 16-byte
 * accesses (four 128-byte units a warp) close the gap; the H100's needs
 * fewer than 64. Fewer resident warps raise the gain; a compute-bound
 * stencil gains nothing; a CPU device and a profile without hiding.params
 * are unknown. */
static void test_loads_in_flight(void **state)
{
    struct gc_results *r = load("h200");
    struct gc_guide g;
    char err[256];

    (void)state;
    /* Warp loads of 128 B per clock: the peak's bytes per clock over 128;
     * the thread loads of 4 B (mem_peak_ops_per_clk_sm) say the same. */
    double lat = gc__guide_metric(r, "hiding.params", "mem_latency_cycles", NULL);
    double bpc = gc__guide_metric(r, "hiding.params", "mem_thru_bytes_per_clk_sm", NULL);
    double ops = gc__guide_metric(r, "hiding.params", "mem_peak_ops_per_clk_sm", NULL);
    double need = lat * bpc / 128;
    assert_true(fabs(ops * 4 / 128 - bpc / 128) < 1e-12);
    assert_true(need > 64);
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    const struct gc_guide_item *it = item(&g, "loads in flight");
    assert_int_equal(it->verdict, GC_GUIDE_PAYS);
    assert_true(fabs(it->gain_pct - (need / 64 - 1) * 100) < 1e-9);
    assert_string_equal(it->klass, "vectorization");
    assert_string_equal(g.predicted_class, "vectorization");
    /* 16 warps: one float a warp reaches 16 / need, four 64 / need. */
    set_hiding(r, "max_warps_per_sm", 16);
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    it = item(&g, "loads in flight");
    assert_true(fabs(it->gain_pct - 300.0) < 1e-9);
    /* A compute-bound stencil: the arithmetic bounds both widths. */
    set_hiding(r, "max_warps_per_sm", 64);
    add_access_sizes(r, 1e18, 1e18);
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    it = item(&g, "loads in flight");
    assert_int_equal(it->verdict, GC_GUIDE_NONE);
    assert_true(fabs(it->gain_pct) < 1e-9);
    gc_results_free(r);

    r = load("h100");
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    it = item(&g, "loads in flight");
    assert_int_equal(it->verdict, GC_GUIDE_NONE);
    assert_string_equal(g.predicted_class, "none");
    gc_results_free(r);

    r = load("pocl");
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    it = item(&g, "loads in flight");
    assert_int_equal(it->verdict, GC_GUIDE_UNKNOWN);
    assert_non_null(strstr(it->missing, "not a GPU"));
    gc_results_free(r);

    /* Without the bytes per clock: the thread loads per clock, the same. */
    r = load("h200");
    set_hiding(r, "mem_thru_bytes_per_clk_sm", NAN);
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    it = item(&g, "loads in flight");
    assert_true(fabs(it->gain_pct - (need / 64 - 1) * 100) < 1e-9);
    gc_results_free(r);

    r = load("h200");
    bench(r, "hiding.params")->status = GC_BENCH_ERROR;
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    it = item(&g, "loads in flight");
    assert_int_equal(it->verdict, GC_GUIDE_UNKNOWN);
    assert_non_null(strstr(it->missing, "run hiding.params"));
    gc_results_free(r);
}

/* Sets memory.bandwidth's L1 figure of profile r to l1 B/s. */
static void set_l1(struct gc_results *r, double l1)
{
    struct gc_metric *m =
        (struct gc_metric *)gc__bench_find_metric(bench(r, "memory.bandwidth"), "l1_bandwidth");

    assert_non_null(m);
    m->value = l1;
}

/* The stencil's time per point at 4-byte and 16-byte accesses by the
 * rule's own terms (docs/methodology.md): DRAM bytes at the width's
 * bandwidth, wavefronts at l1 / 128 B, 4-byte requests at r4 / 128 B
 * (r4 0: unpriced), 16-byte ones at l1 / 512 B. */
static void stencil_times(double bw4, double bw16, double l1, double r4, double *t1, double *t4)
{
    double wave = l1 / 128, q4 = r4 / 128, q16 = l1 / 512;
    double req1 = r4 > 0 ? GC_GUIDE_REQ1 / q4 : 0;
    double req4 = r4 > 0 ? GC_GUIDE_REQ4_F4 / q16 + GC_GUIDE_REQ4_F1 / q4 : 0;

    *t1 = fmax(12 / bw4, fmax(GC_GUIDE_WAVE1 / wave, req1));
    *t4 = fmax(12 / bw16, fmax(GC_GUIDE_WAVE4 / wave, req4));
}

/* The H200's recorded figures: the L1's wavefronts take 60% of the scalar
 * stencil's DRAM time, so the rule expects nothing. An L1 slow enough to take twice the
 * DRAM time makes it pay by the scalar over the vec4 time, for the
 * vectorization class, and a measured vec4 best is then a hit. */
static void test_l1_requests(void **state)
{
    struct gc_results *r = load("h200");
    struct gc_guide g;
    char err[256];
    double bw4 = 4.23e12, bw16 = 4.06e12, t1, t4;

    (void)state;
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    const struct gc_guide_item *it = item(&g, "L1 requests");
    assert_int_equal(it->verdict, GC_GUIDE_NONE);
    assert_true(it->gain_pct == 0);
    assert_non_null(strstr(it->advice, "not L1-bound"));
    /* the L1's wavefronts at twice the DRAM time */
    double l1 = 128 * GC_GUIDE_WAVE1 / (2 * 12 / bw4);
    set_l1(r, l1);
    struct gc_bench_result *b = gc__results_add_bench(r, "application.jacobi", "application");
    assert_non_null(b);
    assert_non_null(gc__bench_add_metric(b, "baseline.time", 1.0e-3, "s", NAN, NULL, NULL));
    assert_non_null(gc__bench_add_metric(b, "vec4.time", 0.6e-3, "s", NAN, NULL, NULL));
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    it = item(&g, "L1 requests");
    stencil_times(bw4, bw16, l1, 0, &t1, &t4);
    assert_int_equal(it->verdict, GC_GUIDE_PAYS);
    assert_true(fabs(it->gain_pct - (t1 / t4 - 1) * 100) < 1e-9);
    assert_true(it->gain_pct > GC_GUIDE_PAYS_PCT);
    assert_non_null(strstr(it->advice, "L1-bound"));
    assert_null(strstr(it->advice, "not L1-bound"));
    assert_string_equal(it->klass, "vectorization");
    assert_string_equal(g.predicted_class, "vectorization");
    assert_true(g.jacobi.hit);
    /* wide loads, reading DRAM alone, still expects nothing */
    assert_int_equal(item(&g, "wide loads")->verdict, GC_GUIDE_NONE);
    gc_results_free(r);
}

/* The L1's 4-byte request rate, where memory.bandwidth measured it at a
 * footprint the L1 serves (a larger footprint's point is not the L1's):
 * requests slower than the wavefronts bound the scalar stencil. */
static void test_l1_requests_4byte(void **state)
{
    struct gc_results *r = load("h200");
    struct gc_bench_result *b = bench(r, "memory.bandwidth");
    struct gc_guide g;
    char err[256];
    double bw4 = 4.23e12, bw16 = 4.06e12, l1 = 32.67e12, t1, t4;
    /* 4-byte requests at three times the scalar stencil's DRAM time */
    double r4 = 128 * GC_GUIDE_REQ1 / (3 * 12 / bw4);

    (void)state;
    struct gc_series *s =
        gc__bench_add_series(b, "load_default_vec4B", "footprint", "B", "bandwidth", "B/s");
    assert_non_null(s);
    assert_int_equal(gc__series_add(s, 16384, 0.9 * r4, NULL, ""), 0);
    assert_int_equal(gc__series_add(s, 32768, r4, NULL, ""), 0);
    assert_int_equal(gc__series_add(s, 1 << 20, 4 * r4, NULL, ""), 0);
    set_l1(r, l1);
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    const struct gc_guide_item *it = item(&g, "L1 requests");
    stencil_times(bw4, bw16, l1, r4, &t1, &t4);
    assert_int_equal(it->verdict, GC_GUIDE_PAYS);
    assert_true(fabs(it->gain_pct - (t1 / t4 - 1) * 100) < 1e-9);
    assert_non_null(strstr(it->advice, "4-byte requests/s"));
    assert_string_equal(it->missing, "");
    bool fig = false;
    for (int i = 0; i < it->nfigs; i++)
        fig |= strcmp(it->figs[i].name, "memory.bandwidth:load_default_vec4B[<= 64 KiB]") == 0 &&
               it->figs[i].value == r4;
    assert_true(fig);
    gc_results_free(r);
}

/* Without memory.bandwidth the rule is unknown and says what to run; a
 * CPU device's profile is not one it prices. */
static void test_l1_requests_missing(void **state)
{
    struct gc_results *r = load("h200");
    struct gc_guide g;
    char err[256];

    (void)state;
    bench(r, "memory.bandwidth")->status = GC_BENCH_ERROR;
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    const struct gc_guide_item *it = item(&g, "L1 requests");
    assert_int_equal(it->verdict, GC_GUIDE_UNKNOWN);
    assert_non_null(strstr(it->missing, "run memory.bandwidth"));
    gc_results_free(r);
    r = load("pocl");
    assert_int_equal(gc_guide(r, &g, err, sizeof(err)), 0);
    assert_int_equal(item(&g, "L1 requests")->verdict, GC_GUIDE_UNKNOWN);
    assert_non_null(strstr(item(&g, "L1 requests")->advice, "CPU device"));
    gc_results_free(r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_h200),
        cmocka_unit_test(test_golden_h100),
        cmocka_unit_test(test_golden_pocl),
        cmocka_unit_test(test_golden_json),
        cmocka_unit_test(test_uncached),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_wide_loads),
        cmocka_unit_test(test_wide_loads_compute_bound),
        cmocka_unit_test(test_miss),
        cmocka_unit_test(test_l1_requests),
        cmocka_unit_test(test_loads_in_flight),
        cmocka_unit_test(test_l1_requests_4byte),
        cmocka_unit_test(test_l1_requests_missing),
    };
    golden_init(argc, argv);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
