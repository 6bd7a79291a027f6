/* Tests of the text report (src/report/text.c): the canned tree against the
 * golden report, and the properties every report has. */
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

/* Renders r into a malloc'ed string, through a temporary file so that the
 * report is written to a real FILE as the CLI does. */
static char *render(const struct gc_results *r, size_t *len, int *rc)
{
    FILE *f = tmpfile();
    char *buf;
    long n;

    assert_non_null(f);
    *rc = gc_write_text(r, f);
    n = ftell(f);
    assert_true(n >= 0);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    *len = (size_t)n;
    fclose(f);
    return buf;
}

static void test_golden(void **state)
{
    struct gc_results *r = canned_results();
    size_t len;
    int rc;
    char *text = render(r, &len, &rc);

    (void)state;
    assert_int_equal(rc, 0);
    assert_true(golden_check("report.txt", text, len));
    free(text);
    gc_results_free(r);
}

/* Properties that do not depend on the golden file: every benchmark has a
 * title, rates carry SI prefixes, no line ends in a blank, the last line is
 * the run's outcome. */
static void test_structure(void **state)
{
    struct gc_results *r = canned_results();
    size_t len;
    int rc;
    char *text = render(r, &len, &rc);

    (void)state;
    assert_int_equal(rc, 0);
    for (int i = 0; i < r->nbenches; i++) {
        char title[128];

        snprintf(title, sizeof(title), "\n== %s (%s): ", r->benches[i].name, r->benches[i].group);
        assert_non_null(strstr(text, title));
    }
    assert_non_null(strstr(text, "TB/s"));
    assert_non_null(strstr(text, "TFLOP/s"));
    assert_non_null(strstr(text, "4 GiB"));
    assert_non_null(strstr(text, "not available on this device"));
    assert_null(strstr(text, " \n"));
    assert_true(len > 10 && strcmp(text + len - 9, "complete\n") == 0);
    free(text);
    gc_results_free(r);
}

static void test_incomplete(void **state)
{
    struct gc_results *r = canned_results();
    size_t len;
    int rc;
    char *text;

    (void)state;
    r->complete = false;
    snprintf(r->incomplete_reason, sizeof(r->incomplete_reason),
             "interrupted: stopped by the user");
    text = render(r, &len, &rc);
    assert_int_equal(rc, 0);
    assert_true(len > 40);
    assert_string_equal(text + len - strlen("INCOMPLETE: interrupted: stopped by the user\n"),
                        "INCOMPLETE: interrupted: stopped by the user\n");
    free(text);
    gc_results_free(r);
}

/* The table's columns line up: the value column ends at the same offset on
 * the header and on every metric row of a benchmark. */
static void test_alignment(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "b", "g");
    size_t len;
    int rc;
    char *text, *line;
    long end = -1;

    (void)state;
    gc__bench_add_metric(b, "short", 1.5e9, "B/s", 2e9, NULL, "");
    gc__bench_add_metric(b, "a much longer metric name", 123.456, "cycles", NAN, NULL, "n");
    gc__bench_add_metric(b, "capacity", 50.0 * 1048576, "B", NAN, NULL, "");
    text = render(r, &len, &rc);
    assert_int_equal(rc, 0);
    line = strstr(text, "  metric");
    assert_non_null(line);
    for (int i = 0; i < 4; i++) {
        char *unit = strstr(line, i == 0   ? "  unit"
                                  : i == 1 ? "  GB/s"
                                  : i == 2 ? "  cycles"
                                           : "  MiB");

        assert_non_null(unit);
        assert_true(unit < strchr(line, '\n'));
        if (end < 0)
            end = unit - line;
        assert_int_equal(unit - line, end);
        line = strchr(line, '\n') + 1;
    }
    assert_non_null(strstr(text, "1.50  GB/s"));
    assert_non_null(strstr(text, "2.00"));
    assert_non_null(strstr(text, "75.0%"));
    assert_non_null(strstr(text, "50  MiB"));
    free(text);
    gc_results_free(r);
}

/* A write error (a full device) is reported, not ignored. */
static void test_write_error(void **state)
{
    struct gc_results *r = canned_results();
    FILE *f = fopen("/dev/full", "w");

    (void)state;
    if (!f) {
        gc_results_free(r);
        skip();
    }
    assert_int_equal(gc_write_text(r, f), GC_EIO);
    fclose(f);
    assert_int_equal(gc_write_text(NULL, stdout), GC_EINVAL);
    gc_results_free(r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),      cmocka_unit_test(test_structure),
        cmocka_unit_test(test_incomplete),  cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_write_error),
    };

    golden_init(argc, argv);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
