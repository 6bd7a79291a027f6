/* Tests of the figure catalogue (src/report/figures.c) and of the gnuplot
 * scripts (src/report/plot.c): a tree with the series the GPU benchmarks
 * emit (roofline, staircase with levels, latency hiding with its models,
 * DRAM configurations) and one of a family the catalogue does not know;
 * every series is drawn exactly once, with the right marks and axes; with
 * gnuplot present the figures are drawn and not empty. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "canned.h"
#include "core/results.h"
#include "report/figures.h"
#include "report/plot.h"

static struct gc_series *series(struct gc_bench_result *b, const char *name, const char *xn,
                                const char *xu, const char *yn, const char *yu)
{
    struct gc_series *s = gc__bench_add_series(b, name, xn, xu, yn, yu);

    assert_non_null(s);
    return s;
}

static struct gc_results *gpu_tree(double scale)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b;
    struct gc_series *s;
    struct gc_stats st = {5, 0, 0, 0, 0, 0, 0.5, 0.01};

    assert_non_null(r);
    snprintf(r->meta.device.name, sizeof(r->meta.device.name), "Example GPU");
    r->meta.device.compute_units = 132;

    b = gc__results_add_bench(r, "compute.fp32.fma", "compute");
    for (int ilp = 1; ilp <= 4; ilp *= 2) {
        char n1[32], n2[32];

        snprintf(n1, sizeof(n1), "roofline_ilp%d", ilp);
        snprintf(n2, sizeof(n2), "cpi_ilp%d", ilp);
        struct gc_series *t =
            series(b, n1, "warps per CU", "warps", "throughput", "results/clk/CU");
        for (int w = 1; w <= 64; w *= 2)
            gc__series_add(t, w, scale * fmin(128, 8.0 * w * ilp), NULL, NULL);
        t = series(b, n2, "warps per CU", "warps", "CPI per warp", "cycles/warp-instruction");
        for (int w = 1; w <= 64; w *= 2)
            gc__series_add(t, w, fmax(4.0 / ilp, w / 4.0), NULL, NULL);
    }
    gc__bench_add_metric(b, "per_clk_per_cu", 127 * scale, "results/clk/CU", 128, NULL, "");
    gc__bench_add_metric(b, "ridge_warps_ilp1", 16, "warps", NAN, NULL, "");
    gc__bench_add_metric(b, "ridge_warps_ilp4", 4, "warps", NAN, NULL, "");
    gc__bench_add_metric(b, "littles_law_warps", 15.9, "warps", NAN, NULL, "");

    b = gc__results_add_bench(r, "memory.latency.global", "memory");
    s = series(b, "latency_cycles", "footprint", "B", "latency", "cycles/load");
    for (int e = 12; e <= 30; e++) {
        double y = e < 16 ? 35 : e < 25 ? 260 : 600;

        st.median = st.min = st.max = y;
        st.min = 0.98 * y;
        st.max = 1.05 * y;
        gc__series_add(s, ldexp(1, e), y * scale, &st, NULL);
    }
    gc__bench_add_metric(b, "l1_latency_cycles", 35, "cycles", NAN, NULL,
                         "plateau of 4 footprints (4096 B .. 32768 B), median");
    gc__bench_add_metric(b, "l1_size_bytes", 49152, "B", NAN, NULL,
                         "eq. 6 fit, step between 32768 B and 65536 B");
    gc__bench_add_metric(b, "l2_latency_cycles", 260, "cycles", NAN, NULL,
                         "plateau of 9 footprints (65536 B .. 16777216 B), median");

    b = gc__results_add_bench(r, "hiding.mix.mem", "hiding");
    s = series(b, "a2_ilp1", "warps per CU", "warps", "measured", "GB/s");
    struct gc_series *sb =
        series(b, "a2_ilp1_basic", "warps per CU", "warps", "basic model", "GB/s");
    struct gc_series *sr =
        series(b, "a2_ilp1_refined", "warps per CU", "warps", "refined model", "GB/s");
    for (int w = 1; w <= 64; w *= 2) {
        gc__series_add(s, w, scale * 40 * w, NULL, NULL);
        gc__series_add(sb, w, 45 * w, NULL, NULL);
        gc__series_add(sr, w, 42 * w, NULL, NULL);
    }
    s = series(b, "needed_measured", "alpha", "adds per op", "warps for 90% of bound", "warps/SM");
    for (int a = 1; a <= 512; a *= 2)
        gc__series_add(s, a, a < 16 ? 30 : 10, NULL, NULL);
    gc__bench_add_metric(b, "cusp_alpha", 16, "adds per op", NAN, NULL, "");

    b = gc__results_add_bench(r, "memory.dram.read", "memory");
    s = series(b, "bandwidth_vec16B", "block size", "threads", "bandwidth", "B/s");
    for (int i = 0; i < 8; i++)
        gc__series_add(s, 128 << (i % 4), scale * (3.0e12 + 1e10 * i), NULL, "config");
    gc__bench_add_metric(b, "read_bandwidth", 3.1e12, "B/s", 3.35e12, NULL, "");

    /* A family the catalogue has no rule for. */
    b = gc__results_add_bench(r, "transfer.h2d", "transfer");
    s = series(b, "bandwidth_vs_size", "transfer size", "B", "bandwidth", "B/s");
    for (int e = 12; e <= 30; e += 2)
        gc__series_add(s, ldexp(1, e), scale * 25e9 * (1 - exp(-ldexp(1, e - 20))), NULL, NULL);
    gc__bench_add_metric(b, "peak_bandwidth", 25e9, "B/s", 32e9, NULL, "");
    /* A series without a finite point has no figure. */
    s = series(b, "empty", "x", "", "y", "");
    gc__series_add(s, 1, NAN, NULL, NULL);
    canned_declare(r);
    return r;
}

static const struct gc_figure *find_fig(const struct gc_figure *f, int n, const char *bench,
                                        const char *layer0)
{
    for (int i = 0; i < n; i++)
        if (strcmp(f[i].bench, bench) == 0 && strcmp(f[i].layers[0].s->name, layer0) == 0)
            return &f[i];
    fail_msg("no figure of %s starting with %s", bench, layer0);
    return NULL;
}

static int marks(const struct gc_figure *f, enum gc_fig_mark_kind k)
{
    int n = 0;

    for (int i = 0; i < f->nmarks; i++)
        n += f->marks[i].kind == k;
    return n;
}

static void test_every_series_once(void **state)
{
    struct gc_results *r = gpu_tree(1);
    const struct gc_results *runs[1] = {r};
    struct gc_figure *f;
    int n;

    (void)state;
    assert_int_equal(gc__figures_build(runs, NULL, 1, &f, &n), 0);
    for (int b = 0; b < r->nbenches; b++)
        for (int s = 0; s < r->benches[b].nseries; s++) {
            const struct gc_series *ser = &r->benches[b].series[s];
            int seen = 0;
            bool finite = false;

            for (int p = 0; p < ser->npoints; p++)
                finite |= isfinite(ser->points[p].y);
            for (int i = 0; i < n; i++)
                for (int l = 0; l < f[i].nlayers; l++)
                    seen += f[i].layers[l].s == ser;
            assert_int_equal(seen, finite ? 1 : 0);
        }
    for (int i = 0; i < n; i++) {
        assert_true(f[i].id[0] && f[i].title[0] && f[i].xlabel[0] && f[i].ylabel[0]);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(f[i].id, f[j].id);
    }
    gc__figures_free(f, n);
    gc_results_free(r);
}

static void test_marks_and_axes(void **state)
{
    struct gc_results *r = gpu_tree(1);
    const struct gc_results *runs[1] = {r};
    const struct gc_figure *g;
    struct gc_figure *f;
    int n;

    (void)state;
    assert_int_equal(gc__figures_build(runs, NULL, 1, &f, &n), 0);

    /* The roofline: three ILP curves, the vendor rate, the ridges and
     * Little's law, warps on a log2 axis. */
    g = find_fig(f, n, "compute.fp32.fma", "roofline_ilp1");
    assert_int_equal(g->nlayers, 3);
    assert_int_equal(marks(g, GC_FIG_LIMIT), 1);
    assert_true(g->marks[0].v == 128);
    assert_int_equal(marks(g, GC_FIG_XMARK), 3);
    assert_true(g->logx && g->logx_base == 2);
    assert_non_null(strstr(g->title, "roofline"));
    assert_non_null(strstr(g->ylabel, "[results/clk/CU]"));

    /* The staircase: two levels over their plateaus with the spread of the
     * plateau as the band, the L1 capacity with its step bounds. */
    g = find_fig(f, n, "memory.latency.global", "latency_cycles");
    assert_int_equal(marks(g, GC_FIG_LEVEL), 2);
    for (int i = 0; i < g->nmarks; i++) {
        const struct gc_fig_mark *m = &g->marks[i];

        if (m->kind == GC_FIG_LEVEL && m->v == 35) {
            assert_true(m->from == 4096 && m->to == 32768);
            assert_true(m->band_lo < 35 && m->band_hi > 35);
        }
        if (m->kind == GC_FIG_XMARK) {
            assert_true(m->v == 49152);
            assert_true(m->band_lo == 32768 && m->band_hi == 65536);
        }
    }
    assert_int_equal(marks(g, GC_FIG_XMARK), 1);
    assert_true(g->logx && g->logx_base == 2 && g->logy);

    /* Latency hiding: the measurement and both models in one figure. */
    g = find_fig(f, n, "hiding.mix.mem", "a2_ilp1");
    assert_int_equal(g->nlayers, 3);
    assert_int_equal(g->layers[0].style, GC_FIG_MEASURED);
    assert_int_equal(g->layers[1].style, GC_FIG_MODEL);
    assert_int_equal(g->layers[2].style, GC_FIG_MODEL);
    g = find_fig(f, n, "hiding.mix.mem", "needed_measured");
    assert_int_equal(marks(g, GC_FIG_XMARK), 1);

    /* DRAM configurations as a scatter. */
    g = find_fig(f, n, "memory.dram.read", "bandwidth_vec16B");
    assert_int_equal(g->layers[0].style, GC_FIG_SCATTER);
    assert_int_equal(marks(g, GC_FIG_LIMIT), 1);

    /* The unknown family: log axis over octaves of sizes, its limit. */
    g = find_fig(f, n, "transfer.h2d", "bandwidth_vs_size");
    assert_true(g->logx && g->logx_base == 2);
    assert_int_equal(marks(g, GC_FIG_LIMIT), 1);
    assert_true(g->marks[0].v == 32e9);
    gc__figures_free(f, n);
    gc_results_free(r);
}

static void test_overlay(void **state)
{
    struct gc_results *a = gpu_tree(1), *b = gpu_tree(1.1);
    const struct gc_results *runs[2] = {a, b};
    const struct gc_figure *g;
    struct gc_figure *f;
    int n;

    (void)state;
    assert_int_equal(gc__figures_build(runs, NULL, 2, &f, &n), 0);
    g = find_fig(f, n, "compute.fp32.fma", "roofline_ilp1");
    assert_int_equal(g->nlayers, 6);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(g->layers[i].run, 0);
        assert_int_equal(g->layers[i + 3].run, 1);
        assert_string_equal(g->layers[i].s->name, g->layers[i + 3].s->name);
        assert_non_null(strstr(g->layers[i + 3].title, "(B)"));
    }
    gc__figures_free(f, n);
    gc_results_free(a);
    gc_results_free(b);
}

static char *script_of(const struct gc_figure *f)
{
    FILE *out = tmpfile();
    char *buf;
    long len;

    assert_non_null(out);
    assert_int_equal(gc__plot_script(f, 0, "/tmp/x.svg", "/tmp/x.png", true, out), 0);
    len = ftell(out);
    buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    rewind(out);
    assert_int_equal(fread(buf, 1, (size_t)len, out), (size_t)len);
    buf[len] = '\0';
    fclose(out);
    return buf;
}

static void test_script(void **state)
{
    struct gc_results *r = gpu_tree(1);
    const struct gc_results *runs[1] = {r};
    struct gc_figure *f;
    char *s;
    int n;

    (void)state;
    assert_int_equal(gc__figures_build(runs, NULL, 1, &f, &n), 0);
    s = script_of(find_fig(f, n, "memory.latency.global", "latency_cycles"));
    assert_non_null(strstr(s, "set terminal svg"));
    assert_non_null(strstr(s, "set terminal pngcairo"));
    assert_non_null(strstr(s, "set logscale x 2"));
    /* Sizes are labelled with binary prefixes, the levels drawn as data. */
    assert_non_null(strstr(s, "'64 KiB' 65536"));
    assert_non_null(strstr(s, "$F0M"));
    assert_non_null(strstr(s, "yerrorlines"));
    free(s);
    /* A rate axis is scaled to its prefix: TB/s, not B/s. */
    s = script_of(find_fig(f, n, "memory.dram.read", "bandwidth_vec16B"));
    assert_non_null(strstr(s, "[TB/s]"));
    assert_non_null(strstr(s, "with points"));
    free(s);
    gc__figures_free(f, n);
    gc_results_free(r);
}

/* With gnuplot installed (CI installs gnuplot-nox) every figure is drawn;
 * without it the renderer says so and draws nothing. */
static void test_render(void **state)
{
    struct gc_results *r = gpu_tree(1);
    const struct gc_results *runs[1] = {r};
    struct gc_plot_tool t;
    struct gc_figure *f;
    char *dir = make_temp_dir(), err[512], **svg;
    bool *ok;
    int n;

    (void)state;
    assert_non_null(dir);
    assert_int_equal(gc_plot_probe(&t), 0);
    assert_int_equal(gc__figures_build(runs, NULL, 1, &f, &n), 0);
    svg = calloc((size_t)n, sizeof(*svg));
    ok = calloc((size_t)n, sizeof(*ok));
    assert_non_null(svg);
    assert_non_null(ok);
    for (int i = 0; i < n; i++) {
        svg[i] = malloc(1300);
        assert_non_null(svg[i]);
        snprintf(svg[i], 1300, "%s/%d.svg", dir, i);
    }
    if (!t.available) {
        assert_true(t.reason[0] != '\0');
        assert_int_equal(
            gc__plot_render(&t, f, n, (const char *const *)svg, NULL, ok, err, sizeof(err)),
            GC_ENOLIB);
        fprintf(stderr, "gnuplot missing (%s): figures not drawn\n", t.reason);
    } else {
        assert_int_equal(
            gc__plot_render(&t, f, n, (const char *const *)svg, NULL, ok, err, sizeof(err)), 0);
        for (int i = 0; i < n; i++) {
            char *text = slurp(svg[i], NULL);

            assert_true(ok[i]);
            assert_non_null(text);
            assert_non_null(strstr(text, "<svg"));
            assert_non_null(strstr(text, "<path"));
            free(text);
        }
    }
    for (int i = 0; i < n; i++)
        free(svg[i]);
    free(svg);
    free(ok);
    gc__figures_free(f, n);
    gc_results_free(r);
    rm_rf(dir);
    free(dir);
}

static void test_octaves(void **state)
{
    const double wide[] = {1, 4, 64}, narrow[] = {1, 2, 8}, neg[] = {-1, 10, 1000};

    (void)state;
    assert_true(gc__figures_spans_octaves(wide, 3));
    assert_false(gc__figures_spans_octaves(narrow, 3));
    assert_false(gc__figures_spans_octaves(neg, 3));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_series_once),
        cmocka_unit_test(test_marks_and_axes),
        cmocka_unit_test(test_overlay),
        cmocka_unit_test(test_script),
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_octaves),
    };

    golden_init(argc, argv);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
