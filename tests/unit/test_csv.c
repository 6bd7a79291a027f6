/* Tests of the CSV emitter (src/report/csv.c): golden files, RFC 4180
 * quoting read back by a strict parser, file names and empty cells. */
#include <dirent.h>
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

#define MAX_FIELDS 32
#define MAX_ROWS 64

/* A strict RFC 4180 reader: fields[row][col] are malloc'ed. Returns the row
 * count, or -1 on a syntax error (an unbalanced or stray quote). */
struct table {
    char *f[MAX_ROWS][MAX_FIELDS];
    int ncols[MAX_ROWS];
    int nrows;
};

static int parse_csv(const char *s, struct table *t)
{
    char buf[4096];
    size_t n = 0;
    int row = 0, col = 0;

    memset(t, 0, sizeof(*t));
    while (*s) {
        n = 0;
        if (*s == '"') {
            s++;
            for (;;) {
                if (!*s)
                    return -1;
                if (*s == '"' && s[1] == '"') {
                    buf[n++] = '"';
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    buf[n++] = *s++;
                }
            }
            if (*s && *s != ',' && *s != '\n')
                return -1;
        } else {
            while (*s && *s != ',' && *s != '\n') {
                if (*s == '"' || *s == '\r')
                    return -1;
                buf[n++] = *s++;
            }
        }
        buf[n] = '\0';
        if (row >= MAX_ROWS || col >= MAX_FIELDS)
            return -1;
        t->f[row][col++] = strdup(buf);
        if (*s == ',') {
            s++;
            if (!*s || *s == '\n')
                t->f[row][col++] = strdup("");
        }
        if (*s == '\n' || !*s) {
            t->ncols[row++] = col;
            col = 0;
            if (*s)
                s++;
        }
    }
    t->nrows = row;
    return row;
}

static void free_table(struct table *t)
{
    for (int r = 0; r < MAX_ROWS; r++)
        for (int c = 0; c < MAX_FIELDS; c++)
            free(t->f[r][c]);
}

static char *read_in(const char *dir, const char *name)
{
    char path[1200];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return slurp(path, NULL);
}

static int setup(void **state)
{
    char *dir = make_temp_dir();

    *state = dir;
    return dir ? 0 : -1;
}

static int teardown(void **state)
{
    rm_rf(*state);
    free(*state);
    return 0;
}

static const char *const canned_files[] = {
    "benchmarks.csv",
    "compute.fma_fp32__cpi_vs_occupancy.csv",
    "compute.fma_fp32__empty.csv",
    "memory.copy__bw_vs_size.csv",
    "metrics.csv",
    "run.csv",
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_golden(void **state)
{
    const char *dir = *state;
    struct gc_results *r = canned_results();
    char *names[16];
    int n = 0;
    struct dirent *e;
    DIR *d;

    assert_int_equal(gc_write_csv(r, dir), 0);
    /* Exactly the expected files, each equal to its golden copy. */
    d = opendir(dir);
    assert_non_null(d);
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && n < 16)
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
    assert_int_equal(n, sizeof(canned_files) / sizeof(canned_files[0]));
    for (int i = 0; i < n; i++) {
        char golden[256];
        size_t len;
        char path[1200], *text;

        assert_string_equal(names[i], canned_files[i]);
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        text = slurp(path, &len);
        assert_non_null(text);
        snprintf(golden, sizeof(golden), "csv/%s", names[i]);
        assert_true(golden_check(golden, text, len));
        free(text);
        free(names[i]);
    }
    gc_results_free(r);
}

/* Commas, quotes and line breaks survive a strict reader; every row has the
 * header's number of columns. */
static void test_quoting(void **state)
{
    const char *dir = *state;
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "q", "g");
    const char *note = "a, \"b\"\nc\r\nd";
    struct table t;
    char *text;

    gc__bench_add_metric(b, "m,1", 1.5, "B/s", 3, NULL, note);
    gc__bench_add_metric(b, "plain", 2, "s", NAN, NULL, "");
    assert_int_equal(gc_write_csv(r, dir), 0);
    text = read_in(dir, "metrics.csv");
    assert_non_null(text);
    assert_int_equal(parse_csv(text, &t), 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(t.ncols[i], 15);
    assert_string_equal(t.f[0][0], "bench");
    assert_string_equal(t.f[0][14], "note");
    assert_string_equal(t.f[1][1], "m,1");
    assert_string_equal(t.f[1][2], "1.5");
    assert_string_equal(t.f[1][5], "0.5");
    assert_string_equal(t.f[1][14], note);
    assert_string_equal(t.f[2][1], "plain");
    /* Unknown limit and fraction, no stats: empty cells. */
    assert_string_equal(t.f[2][4], "");
    assert_string_equal(t.f[2][5], "");
    for (int c = 6; c < 14; c++)
        assert_string_equal(t.f[2][c], "");
    free_table(&t);
    free(text);

    text = read_in(dir, "run.csv");
    assert_int_equal(parse_csv(text, &t) > 10, 1);
    for (int i = 0; i < t.nrows; i++)
        assert_int_equal(t.ncols[i], 2);
    free_table(&t);
    free(text);
    gc_results_free(r);
}

static void test_file_names(void **state)
{
    const char *dir = *state;
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b = gc__results_add_bench(r, "a/b c", "g");
    struct gc_series *s = gc__bench_add_series(b, "x:y/../z", "size", "B", "t", "");
    struct stat st;
    char path[1200];

    gc__series_add(s, 1, 2, NULL, NULL);
    assert_int_equal(gc_write_csv(r, dir), 0);
    snprintf(path, sizeof(path), "%s/a_b_c__x_y_.._z.csv", dir);
    assert_int_equal(stat(path, &st), 0);
    gc_results_free(r);
}

/* A series file: header with units, NaN and unsampled points as empty cells. */
static void test_series_cells(void **state)
{
    const char *dir = *state;
    struct gc_results *r = canned_results();
    struct table t;
    char *text;

    assert_int_equal(gc_write_csv(r, dir), 0);
    text = read_in(dir, "memory.copy__bw_vs_size.csv");
    assert_non_null(text);
    assert_int_equal(parse_csv(text, &t), 5);
    assert_string_equal(t.f[0][0], "size [B]");
    assert_string_equal(t.f[0][1], "bandwidth [B/s]");
    assert_string_equal(t.f[0][2], "label");
    assert_string_equal(t.f[0][10], "cv");
    for (int i = 0; i < 5; i++)
        assert_int_equal(t.ncols[i], 11);
    assert_string_equal(t.f[1][0], "65536");
    assert_string_equal(t.f[1][1], "1500000000000");
    assert_string_equal(t.f[1][3], "");
    assert_string_equal(t.f[3][2], "DRAM, cold");
    assert_string_equal(t.f[3][3], "7");
    assert_true(strtod(t.f[3][4], NULL) == r->benches[0].series[0].points[2].stats.median);
    assert_true(strtod(t.f[3][8], NULL) == r->benches[0].series[0].points[2].stats.stddev);
    assert_string_equal(t.f[4][1], "");
    free_table(&t);
    free(text);

    /* A unitless axis has no brackets. */
    text = read_in(dir, "compute.fma_fp32__empty.csv");
    assert_string_equal(text, "x,y,label,n,median,min,max,mean,stddev,ci95,cv\n");
    free(text);
    gc_results_free(r);
}

static void test_directories(void **state)
{
    const char *dir = *state;
    struct gc_results *r = canned_results();
    char nested[1200], blocked[1300];
    struct stat st;
    FILE *f;

    snprintf(nested, sizeof(nested), "%s/one/two/three", dir);
    assert_int_equal(gc_write_csv(r, nested), 0);
    snprintf(blocked, sizeof(blocked), "%s/run.csv", nested);
    assert_int_equal(stat(blocked, &st), 0);
    /* Writing again over existing files succeeds. */
    assert_int_equal(gc_write_csv(r, nested), 0);
    /* A regular file where a directory must go. */
    snprintf(blocked, sizeof(blocked), "%s/file", dir);
    f = fopen(blocked, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(nested, sizeof(nested), "%s/file/sub", dir);
    assert_int_equal(gc_write_csv(r, nested), GC_EIO);
    assert_int_equal(gc_write_csv(r, ""), GC_EINVAL);
    assert_int_equal(gc_write_csv(NULL, dir), GC_EINVAL);
    gc_results_free(r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_golden, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quoting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_series_cells, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directories, setup, teardown),
    };

    golden_init(argc, argv);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
