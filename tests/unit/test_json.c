/* Tests of the JSON emitter and reader (src/report/json.c): golden output,
 * exact round trip, NaN as null, escaping, and the reader's errors. */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "canned.h"
#include "core/benchcfg.h"
#include "core/results.h"
#include "core/stats.h"

/* Equal as stored: bit-identical values, NaN equal to NaN. */
static void assert_same(double a, double b)
{
    if (isnan(a) && isnan(b))
        return;
    if (a != b)
        fail_msg("%.17g != %.17g", a, b);
}

static void assert_same_stats(const struct gc_stats *a, const struct gc_stats *b)
{
    assert_int_equal(a->n, b->n);
    if (a->n == 0)
        return;
    assert_same(a->median, b->median);
    assert_same(a->min, b->min);
    assert_same(a->max, b->max);
    assert_same(a->mean, b->mean);
    assert_same(a->stddev, b->stddev);
    assert_same(a->ci95, b->ci95);
    assert_same(a->cv, b->cv);
}

static void assert_same_tree(const struct gc_results *a, const struct gc_results *b)
{
    const struct gc_run_meta *ma = &a->meta, *mb = &b->meta;

    assert_int_equal(a->complete, b->complete);
    assert_string_equal(a->incomplete_reason, b->incomplete_reason);
    assert_same(a->wall_s, b->wall_s);
    assert_string_equal(ma->tool_version, mb->tool_version);
    assert_string_equal(ma->git_revision, mb->git_revision);
    assert_string_equal(ma->date, mb->date);
    assert_string_equal(ma->host, mb->host);
    assert_string_equal(ma->command_line, mb->command_line);
    assert_string_equal(ma->profile, mb->profile);
    assert_string_equal(ma->device.spec, mb->device.spec);
    assert_string_equal(ma->device.backend, mb->device.backend);
    assert_int_equal(ma->device.index, mb->device.index);
    assert_string_equal(ma->device.name, mb->device.name);
    assert_string_equal(ma->device.vendor, mb->device.vendor);
    assert_string_equal(ma->device.arch, mb->device.arch);
    assert_string_equal(ma->device.driver, mb->device.driver);
    assert_int_equal(ma->device.type, mb->device.type);
    assert_int_equal(ma->device.compute_units, mb->device.compute_units);
    assert_same(ma->device.clock_mhz, mb->device.clock_mhz);
    assert_true(ma->device.global_mem == mb->device.global_mem);
    assert_string_equal(ma->device_extra, mb->device_extra);
    assert_string_equal(ma->data_init, mb->data_init);
    assert_int_equal(ma->repeat, mb->repeat);
    assert_same(ma->min_time_ms, mb->min_time_ms);
    assert_int_equal(a->nbenches, b->nbenches);
    for (int i = 0; i < a->nbenches; i++) {
        const struct gc_bench_result *x = &a->benches[i], *y = &b->benches[i];
        const struct gc_context_info *cx = &x->context, *cy = &y->context;

        assert_string_equal(x->name, y->name);
        assert_string_equal(x->group, y->group);
        assert_int_equal(x->status, y->status);
        assert_string_equal(x->error, y->error);
        assert_same(x->wall_s, y->wall_s);
        assert_same(x->compile_s, y->compile_s);
        assert_int_equal(x->kernels_compiled, y->kernels_compiled);
        assert_int_equal(x->kernels_cached, y->kernels_cached);
        assert_string_equal(x->stop_rule, y->stop_rule);
        assert_int_equal(x->sampling.min_samples, y->sampling.min_samples);
        assert_int_equal(x->sampling.max_samples, y->sampling.max_samples);
        assert_same(x->sampling.min_time_s, y->sampling.min_time_s);
        assert_same(x->sampling.spread_target, y->sampling.spread_target);
        assert_same(x->sampling.time_cap_s, y->sampling.time_cap_s);
        assert_int_equal(x->sampling.repeat_explicit, y->sampling.repeat_explicit);
        assert_int_equal(x->sampling.min_time_explicit, y->sampling.min_time_explicit);
        assert_same(cx->sm_clock_mhz, cy->sm_clock_mhz);
        assert_string_equal(cx->sm_clock_source, cy->sm_clock_source);
        assert_same(cx->sm_clock_min_mhz, cy->sm_clock_min_mhz);
        assert_same(cx->sm_clock_max_mhz, cy->sm_clock_max_mhz);
        assert_same(cx->mem_clock_mhz, cy->mem_clock_mhz);
        assert_same(cx->temp_start_c, cy->temp_start_c);
        assert_same(cx->temp_end_c, cy->temp_end_c);
        assert_same(cx->power_limit_w, cy->power_limit_w);
        assert_same(cx->power_avg_w, cy->power_avg_w);
        assert_int_equal(cx->ecc_enabled, cy->ecc_enabled);
        assert_true(cx->throttle_reasons == cy->throttle_reasons);
        assert_int_equal(cx->throttled_samples, cy->throttled_samples);
        assert_int_equal(cx->redone_samples, cy->redone_samples);
        assert_int_equal(x->nmetrics, y->nmetrics);
        for (int j = 0; j < x->nmetrics; j++) {
            const struct gc_metric *p = &x->metrics[j], *q = &y->metrics[j];

            assert_string_equal(p->name, q->name);
            assert_same(p->value, q->value);
            assert_string_equal(p->unit, q->unit);
            assert_same(p->limit, q->limit);
            assert_same(p->fraction, q->fraction);
            assert_same_stats(&p->stats, &q->stats);
            assert_string_equal(p->note, q->note);
        }
        assert_int_equal(x->nconfig, y->nconfig);
        for (int j = 0; j < x->nconfig; j++) {
            assert_string_equal(x->config[j].name, y->config[j].name);
            assert_same(x->config[j].value, y->config[j].value);
            assert_string_equal(x->config[j].text, y->config[j].text);
        }
        assert_int_equal(x->nseries, y->nseries);
        for (int j = 0; j < x->nseries; j++) {
            const struct gc_series *p = &x->series[j], *q = &y->series[j];

            assert_string_equal(p->name, q->name);
            assert_string_equal(p->x_name, q->x_name);
            assert_string_equal(p->x_unit, q->x_unit);
            assert_string_equal(p->y_name, q->y_name);
            assert_string_equal(p->y_unit, q->y_unit);
            assert_int_equal(p->npoints, q->npoints);
            for (int k = 0; k < p->npoints; k++) {
                assert_same(p->points[k].x, q->points[k].x);
                assert_same(p->points[k].y, q->points[k].y);
                assert_string_equal(p->points[k].label, q->points[k].label);
                assert_same_stats(&p->points[k].stats, &q->points[k].stats);
            }
        }
    }
}

struct fixture {
    char *dir;
    char path[1100];
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));

    if (!fx)
        return -1;
    fx->dir = make_temp_dir();
    if (!fx->dir) {
        free(fx);
        return -1;
    }
    snprintf(fx->path, sizeof(fx->path), "%s/results.json", fx->dir);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;

    rm_rf(fx->dir);
    free(fx->dir);
    free(fx);
    return 0;
}

static void test_golden(void **state)
{
    struct fixture *fx = *state;
    struct gc_results *r = canned_results();
    size_t len;
    char *text;

    assert_int_equal(gc_write_json(r, fx->path), 0);
    text = slurp(fx->path, &len);
    assert_non_null(text);
    assert_true(golden_check("results.json", text, len));
    free(text);
    gc_results_free(r);
}

static void test_round_trip(void **state)
{
    struct fixture *fx = *state;
    struct gc_results *r = canned_results(), *back = NULL;
    struct gc_bench_result *b;
    char err[512];

    /* Every status, a throttle bitmask with the top bit set, an incomplete
     * run and extreme doubles. */
    b = gc__results_add_bench(r, "x.interrupted", "x");
    gc__bench_set_error(b, GC_BENCH_INTERRUPTED, "interrupted; partial data");
    b->context.throttle_reasons = (1ULL << 63) | 4;
    b->sampling = (struct gc_sampling_info){2, 7, 1e-3, 0.005, 10, true, false};
    gc__bench_add_metric(b, "tiny", 5e-324, "s", 1.7976931348623157e308, NULL, NULL);
    gc__bench_add_metric(b, "third", 1.0 / 3.0, "", 3, NULL, NULL);
    /* A configuration: whole numbers, a fraction, a word, parts. */
    assert_int_equal(gc__config_set_num(b, NULL, "ilp", 8), 0);
    assert_int_equal(gc__config_set_num(b, "l2", "footprint", 25165824), 0);
    assert_int_equal(gc__config_set_num(b, NULL, "ratio", 0.25), 0);
    assert_int_equal(gc__config_set_text(b, "l2", "load_path", "ld.global.cg"), 0);
    b = gc__results_add_bench(r, "x.skipped", "x");
    b->status = GC_BENCH_SKIPPED;
    r->complete = false;
    snprintf(r->incomplete_reason, sizeof(r->incomplete_reason), "stopped by the user");
    /* A plan with compile workers, one of which failed. */
    r->plan.made = true;
    r->plan.kernels = r->plan.compiled = 9;
    r->plan.workers = 2;
    r->plan.worker_compiled = 7;
    r->plan.workers_failed = 1;
    r->plan.worker_cpu_s = 3.25;
    r->plan.load_s = 0.5;
    snprintf(r->plan.worker_note, sizeof(r->plan.worker_note), "compile worker 2 failed");

    assert_int_equal(gc_write_json(r, fx->path), 0);
    assert_int_equal(gc_read_json(fx->path, &back, err, sizeof(err)), 0);
    assert_non_null(back);
    assert_string_equal(err, "");
    assert_same_tree(r, back);
    /* Spot checks of what the comparison covers. */
    assert_int_equal(back->benches[4].status, GC_BENCH_INTERRUPTED);
    assert_int_equal(back->benches[5].status, GC_BENCH_SKIPPED);
    assert_true(back->benches[4].context.throttle_reasons == ((1ULL << 63) | 4));
    assert_int_equal(back->benches[4].sampling.max_samples, 7);
    assert_true(back->benches[4].sampling.repeat_explicit);
    assert_true(back->benches[4].metrics[0].value == 5e-324);
    assert_true(back->benches[4].metrics[0].limit == 1.7976931348623157e308);
    assert_int_equal(back->plan.workers, 2);
    assert_int_equal(back->plan.worker_compiled, 7);
    assert_int_equal(back->plan.workers_failed, 1);
    assert_true(back->plan.worker_cpu_s == 3.25);
    assert_true(back->plan.load_s == 0.5);
    assert_string_equal(back->plan.worker_note, "compile worker 2 failed");
    int ilp = 0;
    assert_true(gc__config_int(&back->benches[4], NULL, "ilp", &ilp));
    assert_int_equal(ilp, 8);
    assert_string_equal(gc__config_text(&back->benches[4], "l2", "load_path"), "ld.global.cg");
    assert_true(gc__config_has_part(&back->benches[4], "l2"));
    assert_false(gc__config_has_part(&back->benches[4], "l1"));
    assert_int_equal(back->benches[5].nconfig, 0);
    gc_results_free(back);
    gc_results_free(r);
}

/* NaN and infinities are null in the file and NaN after reading. */
static void test_nan_is_null(void **state)
{
    struct fixture *fx = *state;
    struct gc_results *r = gc__results_new(), *back = NULL;
    struct gc_bench_result *b = gc__results_add_bench(r, "b", "g");
    struct gc_series *s;
    char err[256], *text;
    json_t *doc, *m;

    gc__bench_add_metric(b, "m", NAN, "s", INFINITY, NULL, NULL);
    s = gc__bench_add_series(b, "s", "x", "", "y", "");
    gc__series_add(s, 1, NAN, NULL, NULL);
    snprintf(r->meta.date, sizeof(r->meta.date), "2024-01-01T00:00:00Z");
    assert_int_equal(gc_write_json(r, fx->path), 0);

    doc = json_load_file(fx->path, 0, NULL);
    assert_non_null(doc);
    m = json_array_get(
        json_object_get(json_array_get(json_object_get(doc, "benchmarks"), 0), "metrics"), 0);
    assert_true(json_is_null(json_object_get(m, "value")));
    assert_true(json_is_null(json_object_get(m, "limit")));
    assert_true(json_is_null(json_object_get(m, "fraction")));
    /* No stats object for an unsampled value. */
    assert_null(json_object_get(m, "stats"));
    json_decref(doc);
    text = slurp(fx->path, NULL);
    assert_null(strstr(text, "nan"));
    assert_null(strstr(text, "inf"));
    free(text);

    assert_int_equal(gc_read_json(fx->path, &back, err, sizeof(err)), 0);
    assert_true(isnan(back->benches[0].metrics[0].value));
    assert_true(isnan(back->benches[0].metrics[0].limit));
    assert_true(isnan(back->benches[0].series[0].points[0].y));
    assert_true(back->benches[0].series[0].points[0].x == 1);
    gc_results_free(back);
    gc_results_free(r);
}

static void test_escaping(void **state)
{
    struct fixture *fx = *state;
    struct gc_results *r = canned_results(), *back = NULL;
    const char *nasty = "quote \" backslash \\ ctl \x01\x1f tab \t nl \n cr \r end";
    char err[256], *text;

    snprintf(r->benches[0].error, sizeof(r->benches[0].error), "%s", nasty);
    snprintf(r->meta.host, sizeof(r->meta.host), "h\xe2\x82\xac");
    /* Not UTF-8: written with '?' rather than failing the whole document. */
    snprintf(r->meta.device_extra, sizeof(r->meta.device_extra), "bad \xff\xfe byte");
    assert_int_equal(gc_write_json(r, fx->path), 0);
    text = slurp(fx->path, NULL);
    assert_non_null(
        strstr(text, "quote \\\" backslash \\\\ ctl \\u0001\\u001F tab \\t nl \\n cr \\r end"));
    free(text);
    assert_int_equal(gc_read_json(fx->path, &back, err, sizeof(err)), 0);
    assert_string_equal(back->benches[0].error, nasty);
    assert_string_equal(back->meta.host, "h\xe2\x82\xac");
    assert_string_equal(back->meta.device_extra, "bad ?? byte");
    gc_results_free(back);
    gc_results_free(r);
}

/* Writes the canned document with a change made by edit, reads it back and
 * checks the error code and message. */
static void check_bad(struct fixture *fx, void (*edit)(json_t *doc), int want_rc,
                      const char *want_err)
{
    struct gc_results *r = canned_results(), *back = (struct gc_results *)1;
    char err[512];
    json_t *doc;

    assert_int_equal(gc_write_json(r, fx->path), 0);
    gc_results_free(r);
    doc = json_load_file(fx->path, 0, NULL);
    assert_non_null(doc);
    edit(doc);
    assert_int_equal(json_dump_file(doc, fx->path, 0), 0);
    json_decref(doc);
    assert_int_equal(gc_read_json(fx->path, &back, err, sizeof(err)), want_rc);
    assert_null(back);
    if (strcmp(err, want_err) != 0)
        fail_msg("error \"%s\", want \"%s\"", err, want_err);
}

static void edit_version7(json_t *doc)
{
    json_object_set_new(doc, "schema_version", json_integer(7));
}

static void edit_no_version(json_t *doc)
{
    json_object_del(doc, "schema_version");
}

static void edit_version_string(json_t *doc)
{
    json_object_set_new(doc, "schema_version", json_string("1"));
}

static void edit_schema_name(json_t *doc)
{
    json_object_set_new(doc, "schema", json_string("other-tool"));
}

static void edit_no_schema(json_t *doc)
{
    json_object_del(doc, "schema");
}

static json_t *bench0(json_t *doc)
{
    return json_array_get(json_object_get(doc, "benchmarks"), 0);
}

static void edit_no_metric_value(json_t *doc)
{
    json_object_del(json_array_get(json_object_get(bench0(doc), "metrics"), 1), "value");
}

static void edit_no_bench_name(json_t *doc)
{
    json_object_del(json_array_get(json_object_get(doc, "benchmarks"), 2), "name");
}

static void edit_config_array(json_t *doc)
{
    json_t *b = json_array_get(json_object_get(doc, "benchmarks"), 0);

    json_object_set_new(b, "config", json_pack("{s:[i]}", "ilp", 8));
}

static void edit_no_meta(json_t *doc)
{
    json_object_del(doc, "meta");
}

static void edit_no_device_name(json_t *doc)
{
    json_object_del(json_object_get(json_object_get(doc, "meta"), "device"), "name");
}

static void edit_point_y_string(json_t *doc)
{
    json_t *s = json_array_get(json_object_get(bench0(doc), "series"), 0);

    json_object_set_new(json_array_get(json_object_get(s, "points"), 2), "y", json_string("fast"));
}

static void edit_status(json_t *doc)
{
    json_object_set_new(bench0(doc), "status", json_string("great"));
}

static void edit_no_stats_n(json_t *doc)
{
    json_object_del(
        json_object_get(json_array_get(json_object_get(bench0(doc), "metrics"), 0), "stats"), "n");
}

static void test_bad_documents(void **state)
{
    struct fixture *fx = *state;

    check_bad(fx, edit_version7, GC_EINVAL, "unsupported schema_version 7 (this gpuchar reads 1)");
    check_bad(fx, edit_no_version, GC_EINVAL, "missing required field \"schema_version\"");
    check_bad(fx, edit_version_string, GC_EINVAL, "field \"schema_version\" must be an integer");
    check_bad(fx, edit_schema_name, GC_EINVAL,
              "not a gpuchar results document: \"schema\" is \"other-tool\", expected "
              "\"gpuchar-results\"");
    check_bad(fx, edit_no_schema, GC_EINVAL,
              "not a gpuchar results document: \"schema\" is missing, expected "
              "\"gpuchar-results\"");
    check_bad(fx, edit_no_metric_value, GC_EINVAL,
              "missing required field \"benchmarks[0].metrics[1].value\"");
    check_bad(fx, edit_no_bench_name, GC_EINVAL, "missing required field \"benchmarks[2].name\"");
    check_bad(fx, edit_no_meta, GC_EINVAL, "missing required field \"meta\"");
    check_bad(fx, edit_no_device_name, GC_EINVAL, "missing required field \"meta.device.name\"");
    check_bad(fx, edit_point_y_string, GC_EINVAL,
              "field \"benchmarks[0].series[0].points[2].y\" must be a number or null");
    check_bad(fx, edit_status, GC_EINVAL,
              "field \"benchmarks[0].status\" has unknown value \"great\"");
    check_bad(fx, edit_no_stats_n, GC_EINVAL,
              "missing required field \"benchmarks[0].metrics[0].stats.n\"");
    check_bad(fx, edit_config_array, GC_EINVAL,
              "field \"benchmarks[0].config.ilp\" must be a number or a string of at most 47 "
              "bytes");
}

static void test_not_json(void **state)
{
    struct fixture *fx = *state;
    struct gc_results *back = NULL;
    char err[512], missing[1200];
    FILE *f = fopen(fx->path, "w");

    assert_non_null(f);
    fputs("{\"schema\": \"gpuchar-results\",\n  oops}", f);
    fclose(f);
    assert_int_equal(gc_read_json(fx->path, &back, err, sizeof(err)), GC_EINVAL);
    assert_null(back);
    assert_non_null(strstr(err, "invalid JSON at line 2"));

    f = fopen(fx->path, "w");
    fputs("[1, 2]", f);
    fclose(f);
    assert_int_equal(gc_read_json(fx->path, &back, err, sizeof(err)), GC_EINVAL);
    assert_string_equal(err, "not a gpuchar results document: the top level is not an object");

    snprintf(missing, sizeof(missing), "%s/none.json", fx->dir);
    assert_int_equal(gc_read_json(missing, &back, err, sizeof(err)), GC_EIO);
    assert_non_null(strstr(err, "none.json"));
    /* A NULL or zero-length error buffer is allowed. */
    assert_int_equal(gc_read_json(missing, &back, NULL, 0), GC_EIO);
}

/* The document replaces the file in one step and no temporary file stays
 * behind, also when the write fails. */
static void test_atomic(void **state)
{
    struct fixture *fx = *state;
    struct gc_results *r = canned_results();
    char bad[1200];
    struct dirent *e;
    DIR *d;
    int entries = 0;
    FILE *f = fopen(fx->path, "w");

    assert_non_null(f);
    fputs("old content", f);
    fclose(f);
    assert_int_equal(gc_write_json(r, fx->path), 0);
    snprintf(bad, sizeof(bad), "%s/no/such/dir/r.json", fx->dir);
    assert_int_equal(gc_write_json(r, bad), GC_EIO);
    assert_int_equal(gc_write_json(r, ""), GC_EINVAL);
    assert_int_equal(gc_write_json(NULL, fx->path), GC_EINVAL);
    d = opendir(fx->dir);
    assert_non_null(d);
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            assert_string_equal(e->d_name, "results.json");
            entries++;
        }
    closedir(d);
    assert_int_equal(entries, 1);
    {
        char *text = slurp(fx->path, NULL);

        assert_int_equal(strncmp(text, "{\n  \"schema\": \"gpuchar-results\"", 31), 0);
        free(text);
    }
    gc_results_free(r);
}

/* "-" writes the same document to standard output. */
static void test_stdout(void **state)
{
    struct fixture *fx = *state;
    struct gc_results *r = canned_results();
    char out[1200];
    int saved, fd;
    char *a, *b;

    snprintf(out, sizeof(out), "%s/stdout.json", fx->dir);
    fflush(stdout);
    saved = dup(1);
    fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 1);
    close(fd);
    assert_int_equal(gc_write_json(r, "-"), 0);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    assert_int_equal(gc_write_json(r, fx->path), 0);
    a = slurp(out, NULL);
    b = slurp(fx->path, NULL);
    assert_string_equal(a, b);
    free(a);
    free(b);
    gc_results_free(r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_golden, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nan_is_null, setup, teardown),
        cmocka_unit_test_setup_teardown(test_escaping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_documents, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_atomic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stdout, setup, teardown),
    };

    golden_init(argc, argv);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
