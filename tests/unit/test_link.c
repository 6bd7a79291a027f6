/* The link.* family on the null backend's simulated devices: three devices
 * whose pair (0, 2) cannot reach each other, one device alone, a device
 * listed twice; and the matrix writers on a results tree built here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/null/null.h"
#include "bench/link/link.h"
#include "core/results.h"
#include "gpuchar/link.h"
#include "model/peerlink.h"

static gc_context *ctx;
static struct gc_results *three; /* the three-device run, shared by the tests */
static int three_rc;

static const char *const specs3[] = {"null:0", "null:1", "null:2"};

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 10e-6,
                                 .noise_rel = 0.002,
                                 .seed = 7,
                                 .unreachable = {0, 2},
                                 .global_mem = (size_t)32 << 20};
    struct gc_run_options o;

    (void)state;
    setenv("GPUCHAR_NULL_DEVICES", "3", 1);
    setenv("GPUCHAR_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    setenv("GPUCHAR_LIBOPENCL", "/nonexistent/libOpenCL.so.1", 1);
    unsetenv("GPUCHAR_FAULT");
    gc__null_configure(&cfg);
    if (gc_context_create(&ctx) != 0)
        return -1;
    gc_run_options_init(&o);
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 1;
    o.min_time_ms = 0.01;
    o.no_cache = true;
    three_rc = gc_run_links(ctx, &o, specs3, 3, &three);
    if (getenv("TEST_LINK_SHOW") && three)
        gc_write_link_text(three, stderr);
    return three ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gc_results_free(three);
    gc_context_destroy(ctx);
    gc__null_configure(NULL);
    return 0;
}

static const struct gc_bench_result *row(const struct gc_results *r, const char *name)
{
    const struct gc_bench_result *b = gc__results_find(r, name);

    assert_non_null(b);
    return b;
}

static const struct gc_metric *metric(const struct gc_bench_result *b, const char *name)
{
    const struct gc_metric *m = gc__bench_find_metric(b, name);

    if (!m)
        fail_msg("%s has no metric %s", b->name, name);
    return m;
}

/* Every pair that reaches the other has a figure within its limit, the
 * unreachable pair says why, in both directions. */
static void check_pairs(const struct gc_bench_result *b)
{
    char name[32];

    assert_int_equal(b->status, GC_BENCH_OK);
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) {
            if (a == c)
                continue;
            gc__pair_name(name, sizeof(name), a, c, NULL);
            const struct gc_metric *m = metric(b, name);
            if ((a == 0 && c == 2) || (a == 2 && c == 0)) {
                assert_false(isfinite(m->value));
                assert_non_null(strstr(m->note, "not reachable"));
                assert_non_null(strstr(b->warning, name));
                continue;
            }
            assert_true(isfinite(m->value) && m->value > 0);
            assert_true(isfinite(m->limit));
            assert_true(m->value <= m->limit);
        }
}

/* --repeat 1 (the shared run's setting) is one sample in every
 * measurement of every link row, whatever a method's own least is. */
static void test_repeat_bounds(void **state)
{
    int sampled = 0;

    (void)state;
    for (int i = 0; i < three->nbenches; i++) {
        const struct gc_bench_result *b = &three->benches[i];

        for (int m = 0; m < b->nmetrics; m++) {
            if (b->metrics[m].stats.n > 1)
                fail_msg("%s %s: %d samples", b->name, b->metrics[m].name, b->metrics[m].stats.n);
            sampled += b->metrics[m].stats.n;
        }
        for (int s = 0; s < b->nseries; s++)
            for (int p = 0; p < b->series[s].npoints; p++)
                if (b->series[s].points[p].stats.n > 1)
                    fail_msg("%s %s at %g: %d samples", b->name, b->series[s].name,
                             b->series[s].points[p].x, b->series[s].points[p].stats.n);
    }
    assert_true(sampled > 0);
}

static void test_copy_rows(void **state)
{
    (void)state;
    assert_int_equal(three_rc, 0);
    assert_true(three->complete);
    check_pairs(row(three, "link.ce_write"));
    check_pairs(row(three, "link.ce_read"));
    check_pairs(row(three, "link.ce_bidir"));
    /* Each pair's curve covers the sizes from 4 B up. */
    const struct gc_series *s = gc__bench_find_series(row(three, "link.ce_write"), "0->1");
    assert_non_null(s);
    assert_true(s->npoints >= 2);
    assert_true(s->points[0].x == 4);
    /* Both directions at once: the sum is the two directions' rates
     * together, each no more than alone would be. */
    const struct gc_bench_result *bi = row(three, "link.ce_bidir");
    assert_true(metric(bi, "0->1.sum")->value > metric(bi, "0->1")->value);
}

/* The simulated pair (0, 1) is twice as fast as (1, 2): the measurement
 * must rank them so (the rates come from the device, not the host). */
static void test_ranking(void **state)
{
    const struct gc_bench_result *b = row(three, "link.ce_write");

    (void)state;
    assert_true(metric(b, "0->1")->value > metric(b, "1->2")->value);
    assert_true(metric(b, "0->1.latency")->value >= 0);
}

static void test_topology_and_latency(void **state)
{
    const struct gc_bench_result *t = row(three, "link.topology");
    const struct gc_bench_result *l = row(three, "link.latency");

    (void)state;
    assert_int_equal(t->status, GC_BENCH_OK);
    assert_non_null(strstr(metric(t, "0->2")->note, "not reachable"));
    assert_non_null(strstr(metric(t, "0->1")->note, "P2P access yes"));
    assert_int_equal((int)metric(t, "reachable_pairs")->value, 4);
    assert_int_equal(l->status, GC_BENCH_OK);
    assert_true(metric(l, "1->2")->value > 0);
    assert_false(isfinite(metric(l, "2->0")->value));
    /* Simulated devices run no kernels: the SM rows say so. */
    assert_int_equal(row(three, "link.sm_read")->status, GC_BENCH_NOT_AVAILABLE);
    assert_non_null(strstr(row(three, "link.sm_write")->error, "run no kernels"));
    assert_int_equal(row(three, "link.chase")->status, GC_BENCH_NOT_AVAILABLE);
}

static void test_groups(void **state)
{
    const struct gc_bench_result *in = row(three, "link.all_to_one");
    const struct gc_bench_result *out = row(three, "link.one_to_all");
    const struct gc_bench_result *host = row(three, "link.all_to_host");

    (void)state;
    assert_int_equal(in->status, GC_BENCH_OK);
    assert_int_equal(out->status, GC_BENCH_OK);
    /* Device 1 takes from both others, device 0 from one only. */
    assert_true(metric(in, "all->1")->value <= metric(in, "all->1")->limit);
    assert_true(metric(in, "all->1")->limit > metric(in, "all->0")->limit);
    assert_true(isfinite(metric(out, "2->all")->value));
    assert_int_equal(host->status, GC_BENCH_OK);
    double sum = 0;
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof(name), "%d->host", i);
        sum += metric(host, name)->value;
    }
    assert_true(fabs(metric(host, "all->host")->value - sum) <= 1e-9 * sum);
    assert_int_equal(row(three, "link.host_to_all")->status, GC_BENCH_OK);
}

static void test_one_device(void **state)
{
    static const char *const one[] = {"null:1"};
    struct gc_results *r = NULL;
    struct gc_run_options o;

    (void)state;
    gc_run_options_init(&o);
    assert_int_equal(gc_run_links(ctx, &o, one, 1, &r), 0);
    assert_true(r->nbenches >= 11);
    for (int i = 0; i < r->nbenches; i++) {
        assert_int_equal(r->benches[i].status, GC_BENCH_NOT_AVAILABLE);
        assert_non_null(strstr(r->benches[i].error, "not available: one device"));
    }
    gc_results_free(r);
}

static void test_bad_lists(void **state)
{
    static const char *const twice[] = {"null:1", "null:1"};
    static const char *const nodev[] = {"null:0", "null:9"};
    const char *const pat[] = {"link.topology", NULL};
    struct gc_results *r = NULL;
    struct gc_run_options o;

    (void)state;
    gc_run_options_init(&o);
    o.patterns = pat;
    assert_int_equal(gc_run_links(ctx, &o, twice, 2, &r), GC_EINVAL);
    assert_non_null(strstr(gc_last_error(ctx), "listed twice"));
    assert_false(r->complete);
    gc_results_free(r);
    assert_int_equal(gc_run_links(ctx, &o, nodev, 2, &r), GC_ENODEV);
    gc_results_free(r);
}

/* A copy that lands wrong fails its row, which names the copy and byte. */
static void test_corrupt_copy(void **state)
{
    struct gc_null_config cfg = {
        .launch_s = 10e-6, .seed = 7, .peer_corrupt = true, .global_mem = (size_t)32 << 20};
    const char *const pat[] = {"link.ce_read", NULL};
    struct gc_results *r = NULL;
    struct gc_run_options o;

    (void)state;
    gc__null_configure(&cfg);
    gc_run_options_init(&o);
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 1;
    o.no_cache = true;
    o.patterns = pat;
    assert_int_equal(gc_run_links(ctx, &o, specs3, 2, &r), GC_EBACKEND);
    assert_int_equal(r->nbenches, 1);
    assert_int_equal(r->benches[0].status, GC_BENCH_ERROR);
    assert_non_null(
        strstr(r->benches[0].error, "verification failed (copy 0->1, 4 bytes): byte 3"));
    assert_false(r->complete);
    gc_results_free(r);
}

/* A tree made here: two devices, one figure and one unreachable pair. */
static struct gc_results *canned(void)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "link.ce_write", "link");

    gc__bench_add_metric(b, "devices", 2, "", NAN, NULL, "0=cuda:0 a; 1=cuda:1 b");
    gc__bench_add_metric(b, "0->1", 3.94e11, "B/s", 4.78e11, NULL, "best size 1 GiB");
    gc__bench_add_metric(b, "1->0", NAN, "B/s", NAN, NULL, "not reachable: refused <&>");
    gc__bench_add_metric(b, "0->1.latency", 2e-6, "s", NAN, NULL, "Hockney t0");
    return r;
}

static char *written(int (*fn)(const struct gc_results *, FILE *), const struct gc_results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(fn(r, f), 0);
    fclose(f);
    return buf;
}

static void test_writers(void **state)
{
    struct gc_results *r = canned();
    char *text = written(gc_write_link_text, r), *csv = written(gc_write_link_csv, r);
    char *html = written(gc_write_link_html, r), *js = written(gc_write_link_json, r);
    json_error_t err;
    json_t *doc = json_loads(js, 0, &err);

    (void)state;
    assert_non_null(strstr(text, "394 GB/s"));
    assert_non_null(strstr(text, "n/a"));
    assert_non_null(strstr(text, "1->0: not reachable: refused"));
    assert_non_null(strstr(text, "82% of the limit"));
    assert_non_null(strstr(csv, "link.ce_write,0->1,0,1,394000000000,B/s,478000000000,"));
    assert_non_null(strstr(html, "&lt;&amp;&gt;"));
    assert_null(strstr(html, "<&>"));
    assert_non_null(doc);
    json_t *v = json_object_get(json_object_get(json_object_get(doc, "matrices"), "link.ce_write"),
                                "values");
    assert_int_equal(json_array_size(v), 2);
    assert_true(json_real_value(json_array_get(json_array_get(v, 0), 1)) == 3.94e11);
    assert_true(json_is_null(json_array_get(json_array_get(v, 1), 0)));
    assert_true(json_is_null(json_array_get(json_array_get(v, 0), 0)));
    json_decref(doc);
    free(text);
    free(csv);
    free(html);
    free(js);
    gc_results_free(r);
}

/* The sizes without --full: the latency points four octaves apart up to
 * 64 MiB, then the bandwidth points; a memory bound keeps a point at it. */
static void test_ladder(void **state)
{
    size_t s[GC_LINK_MAX_SIZES];
    int n;

    (void)state;
    n = gc__link_ladder((size_t)1 << 30, true, s, GC_LINK_MAX_SIZES);
    assert_int_equal(n, 9);
    assert_true(s[0] == 4 && s[6] == (size_t)64 << 20);
    assert_true(s[7] == (size_t)256 << 20 && s[8] == (size_t)1 << 30);
    for (int i = 1; i < n; i++)
        assert_true(s[i] > s[i - 1] && s[i] % 4 == 0);
    n = gc__link_ladder((size_t)600 << 20, true, s, GC_LINK_MAX_SIZES);
    assert_true(s[n - 2] == (size_t)256 << 20 && s[n - 1] == (size_t)600 << 20);
    n = gc__link_ladder((size_t)64 << 20, false, s, GC_LINK_MAX_SIZES);
    assert_int_equal(n, 7);
    assert_true(s[n - 1] == (size_t)64 << 20);
    assert_int_equal(gc__link_ladder(2, true, s, GC_LINK_MAX_SIZES), 0);
}

static void test_pair_names(void **state)
{
    int a, b;
    const char *suf;
    char buf[32];

    (void)state;
    gc__pair_name(buf, sizeof(buf), 3, 12, "sum");
    assert_string_equal(buf, "3->12.sum");
    assert_true(gc__pair_parse(buf, &a, &b, &suf));
    assert_int_equal(a, 3);
    assert_int_equal(b, 12);
    assert_string_equal(suf, "sum");
    assert_true(gc__pair_parse("0->1", &a, &b, &suf) && suf == NULL);
    assert_false(gc__pair_parse("all->1", &a, &b, &suf));
    assert_false(gc__pair_parse("0->host", &a, &b, &suf));
    assert_false(gc__pair_parse("0-1", &a, &b, &suf));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_rows),
        cmocka_unit_test(test_ranking),
        cmocka_unit_test(test_topology_and_latency),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_one_device),
        cmocka_unit_test(test_bad_lists),
        cmocka_unit_test(test_writers),
        cmocka_unit_test(test_pair_names),
        cmocka_unit_test(test_ladder),
        cmocka_unit_test(test_corrupt_copy),
        cmocka_unit_test(test_repeat_bounds),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
