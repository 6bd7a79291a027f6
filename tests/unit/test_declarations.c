/* The report's data comes from the benchmarks' declarations: the reporters
 * (the C files of src/report) name no benchmark of the registry and no metric a
 * summary cell reads, and every declaration points at a table, row and
 * column that exist. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/bench.h"
#include "canned.h"

#ifndef GC_SOURCE_DIR
#define GC_SOURCE_DIR "."
#endif

/* A character that may continue a benchmark or metric name. */
static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.';
}

/* Where text holds word as a whole name (not part of a longer one). */
static const char *find_word(const char *text, const char *word)
{
    size_t l = strlen(word);

    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || !name_char(p[-1])) && !name_char(p[l]))
            return p;
    return NULL;
}

static int line_of(const char *text, const char *at)
{
    int line = 1;

    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* Calls check on the text of every C file of src/report; returns how many
 * files were read. */
static int each_report_file(void (*check)(const char *path, const char *text, int *bad), int *bad)
{
    char dir[1024], path[2048];
    struct dirent *e;
    int n = 0;

    snprintf(dir, sizeof(dir), "%s/src/report", GC_SOURCE_DIR);
    DIR *d = opendir(dir);
    assert_non_null(d);
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);

        if (l < 3 || strcmp(e->d_name + l - 2, ".c") != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        char *text = slurp(path, NULL);
        assert_non_null(text);
        check(path, text, bad);
        free(text);
        n++;
    }
    closedir(d);
    return n;
}

static void no_bench_name(const char *path, const char *text, int *bad)
{
    const struct gc_bench *b;

    for (int i = 0; (b = gc__bench_at(i)); i++) {
        const char *at = find_word(text, b->info.name);

        if (at) {
            fprintf(stderr, "%s:%d names the benchmark %s\n", path, line_of(text, at),
                    b->info.name);
            (*bad)++;
        }
    }
}

static void test_report_names_no_benchmark(void **state)
{
    int bad = 0;

    (void)state;
    assert_true(gc__bench_at(0) != NULL);
    assert_true(each_report_file(no_bench_name, &bad) >= 3);
    assert_int_equal(bad, 0);
}

/* A metric name a summary cell reads, quoted in a reporter. Plain words
 * ("time", "energy") are left out: the generic rules of the comparison
 * judge a metric's direction by such words in any name. */
static void no_cell_metric(const char *path, const char *text, int *bad)
{
    const struct gc_bench *b;
    char quoted[96];

    for (int i = 0; (b = gc__bench_at(i)); i++) {
        if (!b->report || !b->report->cells)
            continue;
        for (const struct gc_sum_cell *c = b->report->cells; c->table; c++) {
            if (!strchr(c->metric, '_'))
                continue;
            snprintf(quoted, sizeof(quoted), "\"%s\"", c->metric);
            const char *at = strstr(text, quoted);
            if (at) {
                fprintf(stderr, "%s:%d names the metric %s\n", path, line_of(text, at), c->metric);
                (*bad)++;
            }
        }
    }
}

static void test_report_names_no_metric(void **state)
{
    int bad = 0;

    (void)state;
    each_report_file(no_cell_metric, &bad);
    assert_int_equal(bad, 0);
}

static bool known_table(const struct gc_sum_table *t)
{
    for (int i = 0; gc__sum_table_at(i); i++)
        if (gc__sum_table_at(i) == t)
            return true;
    return false;
}

/* Every cell names a table of the catalogue, a column and (fixed tables) a
 * row it has; every table is filled by some benchmark. */
static void test_cells_fit_their_tables(void **state)
{
    const struct gc_bench *b;
    int used[64] = {0}, ncells = 0;

    (void)state;
    for (int i = 0; (b = gc__bench_at(i)); i++) {
        if (!b->report || !b->report->cells)
            continue;
        for (const struct gc_sum_cell *c = b->report->cells; c->table; c++) {
            const struct gc_sum_table *t = c->table;
            bool row_ok = false;

            ncells++;
            if (!known_table(t))
                fail_msg("%s: a cell of a table not in the catalogue", b->info.name);
            assert_non_null(c->metric);
            assert_true(c->metric[0] != '\0');
            for (int k = 0; gc__sum_table_at(k); k++)
                if (gc__sum_table_at(k) == t && k < 64)
                    used[k]++;
            switch (t->kind) {
            case GC_SUM_FIXED:
                if (c->col < 0 || c->col >= t->ncols)
                    fail_msg("%s: column %d of %s", b->info.name, c->col, t->name);
                for (int r = 0; r < GC_SUM_MAXROWS && t->rows[r]; r++)
                    row_ok = row_ok || (c->row && strcmp(c->row, t->rows[r]) == 0);
                if (!row_ok)
                    fail_msg("%s: no row '%s' in %s", b->info.name, c->row ? c->row : "(null)",
                             t->name);
                break;
            case GC_SUM_PER_BENCH:
                if (c->col < 0 || c->col >= t->ncols)
                    fail_msg("%s: column %d of %s", b->info.name, c->col, t->name);
                /* The label prefix is the benchmark's own. */
                if (c->row && strncmp(b->info.name, c->row, strlen(c->row)) != 0)
                    fail_msg("%s: label prefix '%s'", b->info.name, c->row);
                break;
            case GC_SUM_GRID:
                break;
            }
        }
    }
    assert_true(ncells > 0);
    for (int k = 0; gc__sum_table_at(k); k++)
        if (!used[k])
            fail_msg("no benchmark fills the table %s", gc__sum_table_at(k)->name);
}

static void test_figure_rules(void **state)
{
    const struct gc_bench *b;
    int n = 0;

    (void)state;
    for (int i = 0; (b = gc__bench_at(i)); i++) {
        if (!b->report || !b->report->figures)
            continue;
        for (const struct gc_fig_rule *ru = b->report->figures; ru->series; ru++, n++) {
            assert_true(ru->series[0] != '\0');
            assert_non_null(ru->title);
            /* A title that takes the key part has one. */
            if (strstr(ru->title, "%s"))
                assert_non_null(ru->key_end);
        }
    }
    assert_true(n > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_names_no_benchmark),
        cmocka_unit_test(test_report_names_no_metric),
        cmocka_unit_test(test_cells_fit_their_tables),
        cmocka_unit_test(test_figure_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
