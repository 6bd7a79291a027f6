/* Tests of the cross-benchmark summary tables (src/report/summary.c): which
 * tables and rows appear, which metric fills which cell, units checked,
 * failed benchmarks ignored, and the text and CSV forms. */
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
#include "report/summary.h"

static struct gc_bench_result *bench(struct gc_results *r, const char *name, const char *group)
{
    struct gc_bench_result *b = gc__results_add_bench(r, name, group);

    assert_non_null(b);
    b->status = GC_BENCH_OK;
    return b;
}

static struct gc_results *sample(void)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b;

    assert_non_null(r);
    b = bench(r, "compute.fp32.fma", "compute");
    gc__bench_add_metric(b, "per_clk_per_cu", 127.2, "results/clk/CU", 128, NULL, NULL);
    gc__bench_add_metric(b, "issue_latency", 0.25, "cycles", NAN, NULL, NULL);
    gc__bench_add_metric(b, "completion_latency", 4.02, "cycles", NAN, NULL, NULL);
    gc__bench_add_metric(b, "ridge_warps_ilp1", 16, "warps", NAN, NULL, NULL);
    /* A wrong unit must not fill the cell. */
    gc__bench_add_metric(b, "littles_law_warps", 16, "cycles", NAN, NULL, NULL);
    b = bench(r, "compute.int32.add", "compute");
    gc__bench_add_metric(b, "per_clk_per_cu", 126.5, "results/clk/CU", NAN, NULL, NULL);
    /* A failed benchmark contributes nothing. */
    b = bench(r, "compute.fp64.fma", "compute");
    gc__bench_add_metric(b, "per_clk_per_cu", 63.9, "results/clk/CU", 64, NULL, NULL);
    gc__bench_set_error(b, GC_BENCH_ERROR, "verification failed");
    b = bench(r, "compute.wgmma.f16_f32", "compute");
    gc__bench_add_metric(b, "flop_per_clk_per_sm", 3932, "FLOP/clk/SM", 4096, NULL, NULL);
    b = bench(r, "memory.latency.global", "memory");
    gc__bench_add_metric(b, "l1_latency_cycles", 32, "cycles", NAN, NULL, NULL);
    gc__bench_add_metric(b, "l1_size_bytes", 256 * 1024, "B", NAN, NULL, NULL);
    gc__bench_add_metric(b, "l2_latency_cycles", 280, "cycles", NAN, NULL, NULL);
    b = bench(r, "memory.latency.l2", "memory");
    gc__bench_add_metric(b, "l2_latency_cycles", 277, "cycles", NAN, NULL, NULL);
    b = bench(r, "memory.shared", "memory");
    gc__bench_add_metric(b, "shared_bytes_per_clk_per_cu", 125, "B/clk/CU", 128, NULL, NULL);
    canned_declare(r);
    return r;
}

static const struct gc_summary_table *table(const struct gc_summary_table *t, int n,
                                            const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

static const struct gc_summary_row *row(const struct gc_summary_table *t, const char *label)
{
    for (int i = 0; t && i < t->nrows; i++)
        if (strcmp(t->rows[i].label, label) == 0)
            return &t->rows[i];
    return NULL;
}

static int col(const struct gc_summary_table *t, const char *title)
{
    for (int c = 0; c < t->ncols; c++)
        if (strcmp(t->col_title[c], title) == 0)
            return c;
    fail_msg("no column %s", title);
    return -1;
}

static void test_compute(void **state)
{
    struct gc_results *r = sample();
    struct gc_summary_table *t;
    int n;

    (void)state;
    assert_int_equal(gc__summary_build(r, &t, &n), 0);
    const struct gc_summary_table *c = table(t, n, "compute");
    assert_non_null(c);
    assert_int_equal(c->nrows, 2); /* fma, int32.add; fp64.fma failed */
    const struct gc_summary_row *fma = row(c, "fp32.fma");
    assert_non_null(fma);
    assert_true(fma->v[col(c, "per clk/SM")] == 127.2);
    assert_true(fma->v[col(c, "spec")] == 128);
    assert_true(fabs(fma->v[col(c, "% of spec")] - 100 * 127.2 / 128) < 1e-9);
    assert_true(fma->v[col(c, "Lambda")] == 4.02);
    assert_true(fma->v[col(c, "ridge ILP1")] == 16);
    assert_true(isnan(fma->v[col(c, "Little's law")])); /* unit was wrong */
    assert_true(isnan(fma->v[col(c, "ridge ILP2")]));   /* not measured */
    const struct gc_summary_row *add = row(c, "int32.add");
    assert_non_null(add);
    assert_true(isnan(add->v[col(c, "spec")]));
    assert_null(row(c, "fp64.fma"));
    /* The matrix unit is in its own table, not among the itypes. */
    assert_null(row(c, "wgmma.f16_f32"));
    const struct gc_summary_table *m = table(t, n, "matrix");
    assert_non_null(m);
    assert_int_equal(m->nrows, 1);
    assert_true(row(m, "wgmma.f16_f32")->v[col(m, "per clk/SM")] == 3932);
    gc__summary_free(t, n);
    gc_results_free(r);
}

static void test_memory(void **state)
{
    struct gc_results *r = sample();
    struct gc_summary_table *t;
    int n;

    (void)state;
    assert_int_equal(gc__summary_build(r, &t, &n), 0);
    const struct gc_summary_table *m = table(t, n, "memory");
    assert_non_null(m);
    assert_true(row(m, "L1")->v[col(m, "latency")] == 32);
    assert_true(row(m, "L1")->v[col(m, "capacity")] == 256 * 1024);
    /* The L2-only chase is preferred to the staircase through L1. */
    assert_true(row(m, "L2 (one SM)")->v[col(m, "latency")] == 277);
    assert_true(row(m, "shared")->v[col(m, "bandwidth")] == 125);
    assert_true(fabs(row(m, "shared")->v[col(m, "% of limit")] - 100 * 125.0 / 128) < 1e-9);
    /* Levels nothing measured are left out. */
    assert_null(row(m, "constant"));
    assert_null(row(m, "DRAM"));
    /* No copy-kernel metrics: no table. */
    assert_null(table(t, n, "copy_kernel"));
    gc__summary_free(t, n);
    gc_results_free(r);
}

static void test_empty(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_summary_table *t;
    int n = -1;

    (void)state;
    bench(r, "launch.overhead", "launch");
    canned_declare(r);
    assert_int_equal(gc__summary_build(r, &t, &n), 0);
    assert_int_equal(n, 0);
    gc__summary_free(t, n);
    gc_results_free(r);
}

static char *render(const struct gc_summary_table *t, int n, bool csv)
{
    FILE *f = tmpfile();
    long len;
    char *buf;

    assert_non_null(f);
    if (csv)
        assert_int_equal(gc__summary_write_csv(t, f), 0);
    else
        assert_int_equal(gc__summary_write_text(t, n, f), 0);
    len = ftell(f);
    buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

static void test_writers(void **state)
{
    struct gc_results *r = sample();
    struct gc_summary_table *t;
    int n;

    (void)state;
    assert_int_equal(gc__summary_build(r, &t, &n), 0);
    char *text = render(t, n, false);
    assert_non_null(strstr(text, "\n== summary: compute: "));
    assert_non_null(strstr(text, "\n== summary: memory: "));
    assert_non_null(strstr(text, "256 KiB")); /* capacities keep a binary prefix */
    assert_null(strstr(text, " \n"));
    /* The memory table's header names its columns; its unit line follows. */
    const char *p = strstr(text, "\n== summary: memory: ");
    p = strchr(p + 1, '\n') + 1;
    assert_true(strncmp(p, "  memory ", 9) == 0);
    assert_non_null(strstr(p, "capacity\n"));
    p = strchr(p, '\n') + 1;
    assert_non_null(strstr(p, "B/clk/SM"));
    assert_true(strstr(p, "B/clk/SM") < strchr(p, '\n'));
    free(text);

    const struct gc_summary_table *c = table(t, n, "compute");
    char *csv = render(c, 1, true);
    assert_true(strncmp(csv, "itype,per clk/SM [results],spec [results],% of spec [%],", 56) == 0);
    assert_non_null(strstr(csv, "\nfp32.fma,127.2,128,"));
    /* Not measured is an empty field. */
    assert_non_null(strstr(csv, "\nint32.add,126.5,,"));
    free(csv);
    gc__summary_free(t, n);
    gc_results_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compute),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_writers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
