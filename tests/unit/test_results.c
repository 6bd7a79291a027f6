/* Unit tests of the results-tree builders (src/core/results.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/results.h"
#include "core/stats.h"

/* Ends the test program on a NULL that an assertion already reported; it
 * also tells the compiler that the pointer is not NULL afterwards. */
static void *need(void *p)
{
    if (!p)
        abort();
    return p;
}

static void test_new(void **state)
{
    struct gc_results *r = gc__results_new();

    (void)state;
    assert_non_null(r);
    assert_true(r->complete);
    assert_string_equal(r->meta.tool_version, gc_version());
    assert_string_equal(r->meta.git_revision, gc_git_revision());
    assert_int_equal(r->nbenches, 0);
    assert_null(r->benches);
    gc_results_free(r);
    gc_results_free(NULL);
}

static void test_bench_defaults(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "memory.copy", "memory");

    (void)state;
    assert_non_null(b);
    assert_string_equal(b->name, "memory.copy");
    assert_string_equal(b->group, "memory");
    assert_int_equal(b->status, GC_BENCH_OK);
    assert_string_equal(b->error, "");
    assert_true(isnan(b->context.sm_clock_mhz));
    assert_true(isnan(b->context.power_avg_w));
    assert_int_equal(b->context.ecc_enabled, -1);
    assert_int_equal(b->nmetrics, 0);
    assert_int_equal(b->nseries, 0);
    gc_results_free(r);
}

/* Many rows, series, points and metrics: every earlier element survives the
 * reallocations with its content. */
static void test_growth(void **state)
{
    struct gc_results *r = gc__results_new();

    (void)state;
    for (int i = 0; i < 100; i++) {
        char name[32];
        struct gc_bench_result *b;

        snprintf(name, sizeof(name), "bench%d", i);
        b = gc__results_add_bench(r, name, "g");
        assert_non_null(b);
        for (int j = 0; j < 20; j++) {
            snprintf(name, sizeof(name), "m%d", j);
            assert_non_null(gc__bench_add_metric(b, name, j, "s", NAN, NULL, NULL));
        }
        for (int j = 0; j < 10; j++) {
            struct gc_series *s;

            snprintf(name, sizeof(name), "s%d", j);
            s = gc__bench_add_series(b, name, "x", "B", "y", "B/s");
            assert_non_null(s);
            for (int k = 0; k < 50; k++)
                assert_int_equal(gc__series_add(s, k, j * 1000 + k, NULL, NULL), 0);
        }
    }
    assert_int_equal(r->nbenches, 100);
    assert_true(r->cap >= 100);
    for (int i = 0; i < 100; i++) {
        char name[32];
        const struct gc_bench_result *b = &r->benches[i];

        snprintf(name, sizeof(name), "bench%d", i);
        assert_string_equal(b->name, name);
        assert_int_equal(b->nmetrics, 20);
        assert_int_equal(b->nseries, 10);
        assert_string_equal(b->metrics[19].name, "m19");
        assert_true(b->metrics[7].value == 7);
        for (int j = 0; j < 10; j++) {
            assert_int_equal(b->series[j].npoints, 50);
            assert_true(b->series[j].points[49].y == j * 1000 + 49);
            assert_true(b->series[j].points[0].x == 0);
        }
    }
    gc_results_free(r);
}

static void test_truncation(void **state)
{
    char longname[300];
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b;
    struct gc_series *s;

    (void)state;
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    b = need(gc__results_add_bench(r, longname, longname));
    assert_int_equal(strlen(b->name), sizeof(b->name) - 1);
    assert_int_equal(strlen(b->group), sizeof(b->group) - 1);
    s = need(gc__bench_add_series(b, longname, longname, longname, longname, longname));
    assert_int_equal(strlen(s->name), sizeof(s->name) - 1);
    assert_int_equal(strlen(s->x_unit), sizeof(s->x_unit) - 1);
    assert_int_equal(strlen(s->y_unit), sizeof(s->y_unit) - 1);
    gc__series_add(s, 1, 2, NULL, longname);
    assert_int_equal(strlen(s->points[0].label), sizeof(s->points[0].label) - 1);

    /* A two-byte character straddling the limit is dropped whole: 30 'b'
     * then "é" (2 bytes) into unit[32] leaves 30 'b' and no half byte. */
    {
        char u[40];

        memset(u, 'b', 30);
        strcpy(u + 30, "\xc3\xa9z");
        s = need(gc__bench_add_series(b, "utf8", "x", u, "y", ""));
        assert_int_equal(strlen(s->x_unit), 30);
        /* 29 'b' + "é" fits exactly (31 bytes). */
        u[29] = '\xc3';
        u[30] = '\xa9';
        u[31] = '\0';
        s = need(gc__bench_add_series(b, "utf8b", "x", u, "y", ""));
        assert_int_equal(strlen(s->x_unit), 31);
    }
    gc_results_free(r);
}

static void test_metric_fraction(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "b", "g");
    struct gc_metric *m;
    struct gc_stats st;
    const double x[3] = {1, 2, 3};

    (void)state;
    m = gc__bench_add_metric(b, "bw", 3.0e12, "B/s", 4.0e12, NULL, "note");
    assert_true(m->fraction == 0.75);
    assert_true(m->limit == 4.0e12);
    assert_string_equal(m->note, "note");
    assert_int_equal(m->stats.n, 0);
    assert_true(isnan(m->stats.median));
    m = gc__bench_add_metric(b, "nolimit", 1, "s", NAN, NULL, NULL);
    assert_true(isnan(m->fraction));
    assert_string_equal(m->note, "");
    m = gc__bench_add_metric(b, "zerolimit", 1, "s", 0, NULL, NULL);
    assert_true(isnan(m->fraction));
    m = gc__bench_add_metric(b, "neglimit", 1, "s", -5, NULL, NULL);
    assert_true(isnan(m->fraction));
    m = gc__bench_add_metric(b, "inflimit", 1, "s", INFINITY, NULL, NULL);
    assert_true(isnan(m->fraction));
    gc__stats_compute(x, 3, &st);
    m = gc__bench_add_metric(b, "sampled", st.median, "s", 4, &st, NULL);
    assert_int_equal(m->stats.n, 3);
    assert_true(m->stats.median == 2);
    assert_true(m->fraction == 0.5);
    gc_results_free(r);
}

static void test_point_stats(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "b", "g");
    struct gc_series *s = gc__bench_add_series(b, "s", "x", "", "y", "");
    struct gc_stats st;
    const double x[2] = {1, 3};

    (void)state;
    gc__stats_compute(x, 2, &st);
    assert_int_equal(gc__series_add(s, 1, 2, &st, "lbl"), 0);
    assert_int_equal(gc__series_add(s, 2, 5, NULL, NULL), 0);
    assert_int_equal(s->points[0].stats.n, 2);
    assert_string_equal(s->points[0].label, "lbl");
    assert_int_equal(s->points[1].stats.n, 0);
    assert_true(isnan(s->points[1].stats.cv));
    assert_string_equal(s->points[1].label, "");
    gc_results_free(r);
}

static void test_set_error(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "b", "g");
    char big[2000];

    (void)state;
    gc__bench_set_error(b, GC_BENCH_NOT_AVAILABLE, "lacks %s (%d)", "clock64", 3);
    assert_int_equal(b->status, GC_BENCH_NOT_AVAILABLE);
    assert_string_equal(b->error, "lacks clock64 (3)");
    memset(big, 'e', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    gc__bench_set_error(b, GC_BENCH_ERROR, "%s", big);
    assert_int_equal(b->status, GC_BENCH_ERROR);
    assert_int_equal(strlen(b->error), sizeof(b->error) - 1);
    gc_results_free(r);
}

static void test_context_init(void **state)
{
    struct gc_context_info c;

    (void)state;
    memset(&c, 0x7f, sizeof(c));
    gc__context_info_init(&c);
    assert_true(isnan(c.sm_clock_mhz) && isnan(c.sm_clock_min_mhz) && isnan(c.sm_clock_max_mhz));
    assert_true(isnan(c.mem_clock_mhz) && isnan(c.temp_start_c) && isnan(c.temp_end_c));
    assert_true(isnan(c.power_limit_w) && isnan(c.power_avg_w));
    assert_int_equal(c.ecc_enabled, -1);
    assert_int_equal(c.throttle_reasons, 0);
    assert_int_equal(c.throttled_samples, 0);
    assert_int_equal(c.redone_samples, 0);
    assert_string_equal(c.sm_clock_source, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new),
        cmocka_unit_test(test_bench_defaults),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_metric_fraction),
        cmocka_unit_test(test_point_stats),
        cmocka_unit_test(test_set_error),
        cmocka_unit_test(test_context_init),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
