/* Tests of the comparison of runs (src/report/compare*.c): a run against
 * itself, a copy with changes of every kind against the golden text and
 * markdown, the verdict rules (threshold, measured spread, direction) and
 * the ratios across devices. */
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

static char *render(const struct gc_comparison *c, bool markdown, size_t *len)
{
    FILE *f = tmpfile();
    char *buf;
    long n;

    assert_non_null(f);
    assert_int_equal(gc_write_compare_text(c, f, markdown), 0);
    n = ftell(f);
    assert_true(n > 0);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    *len = (size_t)n;
    fclose(f);
    return buf;
}

static struct gc_metric *metric(struct gc_results *r, const char *bench, const char *name)
{
    const struct gc_bench_result *b = gc__results_find(r, bench);
    const struct gc_metric *m = b ? gc__bench_find_metric(b, name) : NULL;

    assert_non_null(m);
    return (struct gc_metric *)m;
}

static const struct gc_cmp_row *row(const struct gc_comparison *c, const char *bench,
                                    const char *name)
{
    for (int i = 0; i < c->nrows; i++)
        if (strcmp(c->rows[i].bench, bench) == 0 && strcmp(c->rows[i].metric, name) == 0)
            return &c->rows[i];
    fail_msg("no row %s/%s", bench, name);
    return NULL;
}

/* The canned run with one change of every kind:
 *  - memory.copy bandwidth 10% lower, its CV ~0.4%: regressed;
 *  - bytes per clock per SM 2% higher: same (threshold 5%);
 *  - footprint doubled: changed, not counted (a capacity);
 *  - compute.fma_fp32 FMA 8% lower with a spread of 10% on each side: noise;
 *  - latency 4 -> 3 cycles, sampled with a CV of 1%: improved (lower is
 *    better);
 *  - a fitted bandwidth without spread 20% lower: changed with the note "no
 *    spread", never counted by the threshold alone;
 *  - launch overhead gone: missing;
 *  - launch.overhead ran in both (error in both): no row; a benchmark only
 *    in B: new, and the sets differ;
 *  - compute.extra ok in A, error in B: failed. */
static struct gc_results *changed_copy(struct gc_results **base)
{
    struct gc_results *a = canned_results(), *b = canned_results();
    struct gc_bench_result *x;
    struct gc_metric *m;

    x = gc__results_add_bench(a, "compute.extra", "compute");
    assert_non_null(x);
    gc__bench_add_metric(x, "throughput", 1e12, "op/s", NAN, NULL, "");
    x = gc__results_add_bench(b, "compute.extra", "compute");
    assert_non_null(x);
    gc__bench_set_error(x, GC_BENCH_ERROR, "kernel launch failed: out of resources");
    x = gc__results_add_bench(b, "transfer.h2d", "transfer");
    assert_non_null(x);
    gc__bench_add_metric(x, "bandwidth", 25e9, "B/s", NAN, NULL, "");

    metric(b, "memory.copy", "bandwidth")->value *= 0.90;
    metric(b, "memory.copy", "bytes per clock per SM")->value *= 1.02;
    metric(b, "memory.copy", "footprint")->value *= 2;
    m = metric(a, "compute.fma_fp32", "fp32 FMA");
    m->stats.cv = 0.10;
    m = metric(b, "compute.fma_fp32", "fp32 FMA");
    m->stats.cv = 0.10;
    m->value *= 0.92;
    metric(b, "compute.fma_fp32", "latency")->value = 3;
    for (int k = 0; k < 2; k++) {
        m = metric(k ? b : a, "compute.fma_fp32", "latency");
        m->stats.n = 5;
        m->stats.median = m->value;
        m->stats.cv = 0.01;
        x = (struct gc_bench_result *)gc__results_find(k ? b : a, "memory.copy");
        gc__bench_add_metric(x, "bandwidth_fit", k ? 0.8e11 : 1e11, "B/s", NAN, NULL,
                             "asymptote of a fit (no spread)");
    }
    x = (struct gc_bench_result *)gc__results_find(b, "compute.fma_fp32");
    assert_string_equal(x->metrics[x->nmetrics - 1].name, "launch overhead");
    x->nmetrics--;
    *base = a;
    return b;
}

static void test_self(void **state)
{
    struct gc_results *a = canned_results();
    const struct gc_results *runs[2] = {a, a};
    struct gc_comparison *c;

    (void)state;
    assert_int_equal(gc_compare(runs, NULL, 2, NULL, &c), 0);
    assert_int_equal(c->regressions, 0);
    assert_int_equal(c->improvements, 0);
    assert_false(c->cross_device);
    assert_int_equal(c->nnotes, 0);
    assert_true(c->nrows > 0);
    for (int i = 0; i < c->nrows; i++) {
        assert_int_equal(c->rows[i].cell[0].verdict, GC_CMP_BASELINE);
        /* A null value (the NaN bandwidth point is in a series, not a metric)
         * is unknown; every other metric is the same. */
        assert_true(c->rows[i].cell[1].verdict == GC_CMP_SAME ||
                    c->rows[i].cell[1].verdict == GC_CMP_UNKNOWN);
    }
    gc_comparison_free(c);
    gc_results_free(a);
}

static void test_verdicts(void **state)
{
    struct gc_results *a, *b = changed_copy(&a);
    const struct gc_results *runs[2] = {a, b};
    struct gc_comparison *c;
    const struct gc_cmp_row *r;

    (void)state;
    assert_int_equal(gc_compare(runs, NULL, 2, NULL, &c), 0);
    r = row(c, "memory.copy", "bandwidth");
    assert_int_equal(r->direction, 1);
    assert_int_equal(r->cell[1].verdict, GC_CMP_REGRESSED);
    assert_true(fabs(r->cell[1].ratio - 0.9) < 1e-12);
    assert_true(r->cell[1].noise > 0 && r->cell[1].noise < 0.05);
    assert_int_equal(row(c, "memory.copy", "bytes per clock per SM")->cell[1].verdict, GC_CMP_SAME);
    r = row(c, "memory.copy", "footprint");
    assert_int_equal(r->direction, 0);
    assert_int_equal(r->cell[1].verdict, GC_CMP_CHANGED);
    r = row(c, "compute.fma_fp32", "fp32 FMA");
    assert_int_equal(r->cell[1].verdict, GC_CMP_NOISE);
    assert_true(r->cell[1].noise > 0.2);
    r = row(c, "compute.fma_fp32", "latency");
    assert_int_equal(r->direction, -1);
    assert_int_equal(r->cell[1].verdict, GC_CMP_IMPROVED);
    r = row(c, "memory.copy", "bandwidth_fit");
    assert_int_equal(r->direction, 1);
    assert_int_equal(r->cell[1].verdict, GC_CMP_CHANGED);
    assert_non_null(strstr(r->cell[1].note, "no spread: worse by 20.0%, not counted"));
    assert_int_equal(row(c, "compute.fma_fp32", "launch overhead")->cell[1].verdict,
                     GC_CMP_MISSING);
    assert_int_equal(row(c, "compute.extra", "")->cell[1].verdict, GC_CMP_FAILED);
    assert_int_equal(row(c, "transfer.h2d", "bandwidth")->cell[1].verdict, GC_CMP_NEW);
    /* The regressions: the bandwidth and the failed benchmark. */
    assert_int_equal(c->regressions, 2);
    assert_int_equal(c->improvements, 1);
    assert_int_equal(c->nnotes, 1);
    assert_non_null(strstr(c->notes[0], "the benchmark sets differ: 0 only in A, 1 only in B"));

    /* A threshold above every change leaves only the failed benchmark; with
     * no noise allowance the FMA change counts. */
    gc_comparison_free(c);
    {
        struct gc_compare_options o;

        gc_compare_options_init(&o);
        o.threshold = 0.5;
        assert_int_equal(gc_compare(runs, NULL, 2, &o, &c), 0);
        assert_int_equal(c->regressions, 1);
        gc_comparison_free(c);
        gc_compare_options_init(&o);
        o.noise_factor = 0;
        assert_int_equal(gc_compare(runs, NULL, 2, &o, &c), 0);
        assert_int_equal(row(c, "compute.fma_fp32", "fp32 FMA")->cell[1].verdict, GC_CMP_REGRESSED);
        gc_comparison_free(c);
    }
    gc_results_free(a);
    gc_results_free(b);
}

/* A pattern that selects nothing is named; patterns that select something
 * (in either run) pass. */
static void test_unmatched(void **state)
{
    struct gc_results *a, *b = changed_copy(&a);
    const struct gc_results *runs[2] = {a, b};
    const char *const good_metrics[] = {"memory.copy/band*", "latency", NULL};
    const char *const bad_metrics[] = {"latency", "nosuch*", NULL};
    const char *const only_b[] = {"transfer.*", NULL};
    const char *const bad_benches[] = {"compute", "nosuch", NULL};
    struct gc_compare_options o;
    char err[256];

    (void)state;
    gc_compare_options_init(&o);
    assert_null(gc_compare_unmatched(runs, 2, &o, err, sizeof(err)));
    o.metrics = good_metrics;
    assert_null(gc_compare_unmatched(runs, 2, &o, err, sizeof(err)));
    o.metrics = bad_metrics;
    assert_string_equal(gc_compare_unmatched(runs, 2, &o, err, sizeof(err)), "nosuch*");
    assert_non_null(strstr(err, "--metric 'nosuch*' matches no metric"));
    gc_compare_options_init(&o);
    o.benches = only_b;
    assert_null(gc_compare_unmatched(runs, 2, &o, err, sizeof(err)));
    /* "latency" is a metric of compute.fma_fp32, not of transfer.h2d. */
    o.metrics = good_metrics + 1;
    assert_string_equal(gc_compare_unmatched(runs, 2, &o, err, sizeof(err)), "latency");
    assert_non_null(strstr(err, "of the selected benchmarks"));
    gc_compare_options_init(&o);
    o.benches = bad_benches;
    assert_string_equal(gc_compare_unmatched(runs, 2, &o, err, sizeof(err)), "nosuch");
    assert_non_null(strstr(err, "--bench 'nosuch' matches no benchmark"));
    gc_results_free(a);
    gc_results_free(b);
}

static void test_selection(void **state)
{
    struct gc_results *a, *b = changed_copy(&a);
    const struct gc_results *runs[2] = {a, b};
    const char *const metrics[] = {"memory.copy/band*", "latency", NULL};
    const char *const benches[] = {"compute", NULL};
    struct gc_compare_options o;
    struct gc_comparison *c;

    (void)state;
    gc_compare_options_init(&o);
    o.metrics = metrics;
    assert_int_equal(gc_compare(runs, NULL, 2, &o, &c), 0);
    for (int i = 0; i < c->nrows; i++)
        assert_true(strncmp(c->rows[i].metric, "bandwidth", 9) == 0 ||
                    strcmp(c->rows[i].metric, "latency") == 0 || c->rows[i].metric[0] == '\0');
    gc_comparison_free(c);
    gc_compare_options_init(&o);
    o.benches = benches;
    assert_int_equal(gc_compare(runs, NULL, 2, &o, &c), 0);
    for (int i = 0; i < c->nrows; i++)
        assert_true(strncmp(c->rows[i].bench, "compute.", 8) == 0);
    gc_comparison_free(c);
    gc_results_free(a);
    gc_results_free(b);
}

/* Another device with twice the compute units at a lower clock: the ratio
 * per clock per compute unit takes both out. */
static void test_cross_device(void **state)
{
    struct gc_results *a = canned_results(), *b = canned_results();
    const struct gc_results *runs[2] = {a, b};
    struct gc_bench_result *cb = (struct gc_bench_result *)gc__results_find(b, "memory.copy");
    const struct gc_bench_result *ca = gc__results_find(a, "memory.copy");
    struct gc_comparison *c;
    const struct gc_cmp_row *r;
    double ratio;

    (void)state;
    snprintf(b->meta.device.name, sizeof(b->meta.device.name), "Other GPU");
    b->meta.device.compute_units = 2 * a->meta.device.compute_units;
    cb->context.sm_clock_mhz = 1500;
    metric(b, "memory.copy", "bandwidth")->value *= 1.5;
    assert_int_equal(gc_compare(runs, NULL, 2, NULL, &c), 0);
    assert_true(c->cross_device);
    r = row(c, "memory.copy", "bandwidth");
    ratio = 1.5 * (ca->context.sm_clock_mhz * a->meta.device.compute_units) /
            (1500.0 * b->meta.device.compute_units);
    assert_true(fabs(r->cell[1].ratio - 1.5) < 1e-12);
    assert_true(fabs(r->cell[1].ratio_per_clk_cu - ratio) < 1e-12);
    /* A time is compared in cycles: seconds times the clock. */
    r = row(c, "compute.fma_fp32", "launch overhead");
    assert_true(isfinite(r->cell[1].ratio_per_clk_cu));
    /* A figure already per clock, or a capacity, has no such ratio. */
    assert_true(isnan(row(c, "memory.copy", "footprint")->cell[1].ratio_per_clk_cu));
    gc_comparison_free(c);
    gc_results_free(a);
    gc_results_free(b);
}

static void test_golden(void **state)
{
    struct gc_results *a, *b = changed_copy(&a);
    const struct gc_results *runs[2] = {a, b};
    const char *const src[2] = {"base.json", "new.json"};
    struct gc_comparison *c;
    size_t len;
    char *text;

    (void)state;
    assert_int_equal(gc_compare(runs, src, 2, NULL, &c), 0);
    text = render(c, false, &len);
    assert_true(golden_check("compare.txt", text, len));
    free(text);
    text = render(c, true, &len);
    assert_true(golden_check("compare.md", text, len));
    free(text);
    gc_comparison_free(c);
    gc_results_free(a);
    gc_results_free(b);
}

/* The JSON output reads back with the counts and the regressed list. */
static void test_json(void **state)
{
    struct gc_results *a, *b = changed_copy(&a);
    const struct gc_results *runs[2] = {a, b};
    struct gc_comparison *c;
    char *dir = make_temp_dir(), path[1200], *text;

    (void)state;
    assert_non_null(dir);
    snprintf(path, sizeof(path), "%s/cmp.json", dir);
    assert_int_equal(gc_compare(runs, NULL, 2, NULL, &c), 0);
    assert_int_equal(gc_write_compare_json(c, path), 0);
    text = slurp(path, NULL);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"schema\": \"gpuchar-compare\""));
    assert_non_null(strstr(text, "\"regressions\": 2"));
    assert_non_null(strstr(text, "\"verdict\": \"regressed\""));
    assert_non_null(strstr(text, "\"verdict\": \"failed\""));
    free(text);
    gc_comparison_free(c);
    gc_results_free(a);
    gc_results_free(b);
    rm_rf(dir);
    free(dir);
}

static void test_bad_args(void **state)
{
    struct gc_results *a = canned_results();
    const struct gc_results *one[1] = {a};
    const struct gc_results *withnull[2] = {a, NULL};
    struct gc_comparison *c = (struct gc_comparison *)1;

    (void)state;
    assert_int_equal(gc_compare(one, NULL, 1, NULL, &c), GC_EINVAL);
    assert_null(c);
    assert_int_equal(gc_compare(withnull, NULL, 2, NULL, &c), GC_EINVAL);
    gc_results_free(a);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self),      cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_selection), cmocka_unit_test(test_cross_device),
        cmocka_unit_test(test_golden),    cmocka_unit_test(test_json),
        cmocka_unit_test(test_bad_args),  cmocka_unit_test(test_unmatched),
    };

    golden_init(argc, argv);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
