/* docs/schema.md's "Metrics per benchmark" against the code: every
 * registered benchmark is listed under a heading and every heading names a
 * benchmark that exists; every metric a summary cell reads, and every metric
 * the benchmarks emit when the whole registry (opt-in ones included) runs on
 * the null device, is listed under its benchmark. README's benchmark table
 * covers the registry. */
#include <fnmatch.h>
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
#include "gpuchar/gpuchar.h"

#ifndef GC_SOURCE_DIR
#define GC_SOURCE_DIR "."
#endif

#define MAX_SECTIONS 256
#define MAX_NAMES 256

/* One heading: the benchmark patterns it names and the metric patterns of
 * its table ("<...>" turned into "*"). */
struct section {
    char bench[4][96];
    int nbench;
    char (*metric)[96];
    int nmetric;
};

static struct section sections[MAX_SECTIONS];
static int nsections;
static char *schema;

/* The backticked names of text up to its end, as shell patterns. */
static int patterns(const char *text, const char *end, char (*out)[96], int max)
{
    int n = 0;

    for (const char *p = strchr(text, '`'); p && p < end && n < max; p = strchr(p + 1, '`')) {
        const char *q = strchr(p + 1, '`');
        size_t k = 0;

        if (!q || q > end)
            break;
        for (const char *c = p + 1; c < q && k + 1 < sizeof(out[0]); c++) {
            if (*c == '<') {
                out[n][k++] = '*';
                while (c < q && *c != '>')
                    c++;
            } else
                out[n][k++] = *c;
        }
        out[n++][k] = '\0';
        p = q;
    }
    return n;
}

static int setup(void **state)
{
    char path[1024];

    (void)state;
    snprintf(path, sizeof(path), "%s/docs/schema.md", GC_SOURCE_DIR);
    schema = slurp(path, NULL);
    if (!schema)
        return -1;
    const char *p = strstr(schema, "\n## Metrics per benchmark\n");
    if (!p)
        return -1;
    p++;
    const char *stop = strstr(p + 3, "\n## ");
    while ((p = strstr(p, "\n### ")) && (!stop || p < stop) && nsections < MAX_SECTIONS) {
        struct section *s = &sections[nsections++];
        const char *eol = strchr(p + 1, '\n');
        const char *dash = strstr(p + 1, " — ");

        s->nbench = patterns(p + 1, dash && dash < eol ? dash : eol, s->bench, 4);
        s->metric = calloc(MAX_NAMES, sizeof(*s->metric));
        if (!s->metric)
            return -1;
        const char *next = strstr(eol, "\n### ");
        const char *end = next ? next : stop ? stop : eol + strlen(eol);
        for (const char *row = strstr(eol, "\n| `"); row && row < end && s->nmetric < MAX_NAMES;
             row = strstr(row + 1, "\n| `")) {
            const char *cell = strstr(row + 3, " | ");
            s->nmetric += patterns(row + 2, cell ? cell : end, s->metric + s->nmetric,
                                   MAX_NAMES - s->nmetric);
        }
        p = eol;
    }
    return nsections > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < nsections; i++)
        free(sections[i].metric);
    free(schema);
    return 0;
}

static bool section_has_bench(const struct section *s, const char *bench)
{
    for (int i = 0; i < s->nbench; i++)
        if (fnmatch(s->bench[i], bench, 0) == 0)
            return true;
    return false;
}

/* Is metric listed under a heading that names bench? */
static bool listed(const char *bench, const char *metric)
{
    for (int i = 0; i < nsections; i++) {
        if (!section_has_bench(&sections[i], bench))
            continue;
        for (int k = 0; k < sections[i].nmetric; k++)
            if (fnmatch(sections[i].metric[k], metric, 0) == 0)
                return true;
    }
    return false;
}

static void test_every_benchmark_listed(void **state)
{
    const struct gc_bench *b;
    int missing = 0;

    (void)state;
    for (int i = 0; (b = gc__bench_at(i)); i++) {
        bool found = false;

        for (int k = 0; k < nsections && !found; k++)
            found = section_has_bench(&sections[k], b->info.name);
        if (!found) {
            fprintf(stderr, "docs/schema.md lists no metrics of %s\n", b->info.name);
            missing++;
        }
    }
    assert_int_equal(missing, 0);
}

static void test_no_unknown_benchmark(void **state)
{
    int unknown = 0;

    (void)state;
    for (int k = 0; k < nsections; k++) {
        assert_true(sections[k].nbench > 0);
        assert_true(sections[k].nmetric > 0);
        for (int j = 0; j < sections[k].nbench; j++) {
            const struct gc_bench *b;
            bool found = false;

            for (int i = 0; (b = gc__bench_at(i)) && !found; i++)
                found = fnmatch(sections[k].bench[j], b->info.name, 0) == 0;
            if (!found) {
                fprintf(stderr, "docs/schema.md lists %s, which is no benchmark\n",
                        sections[k].bench[j]);
                unknown++;
            }
        }
    }
    assert_int_equal(unknown, 0);
}

static void test_summary_metrics_listed(void **state)
{
    const struct gc_bench *b;
    int missing = 0, n = 0;

    (void)state;
    for (int i = 0; (b = gc__bench_at(i)); i++) {
        if (!b->report || !b->report->cells)
            continue;
        for (const struct gc_sum_cell *c = b->report->cells; c->table; c++) {
            if (c->table->kind == GC_SUM_GRID)
                continue; /* a series, not a metric */
            n++;
            if (!listed(b->info.name, c->metric)) {
                fprintf(stderr, "%s: metric %s (a summary cell) is not in docs/schema.md\n",
                        b->info.name, c->metric);
                missing++;
            }
        }
    }
    assert_true(n > 0);
    assert_int_equal(missing, 0);
}

/* Every benchmark, opt-in ones included, on the null device. */
static void test_emitted_metrics_listed(void **state)
{
    static const char *const all[] = {"*", NULL};
    struct gc_run_options o;
    struct gc_results *r = NULL;
    gc_context *ctx = NULL;
    int missing = 0, nmetrics = 0;

    (void)state;
    setenv("GPUCHAR_NULL_DEVICES", "1", 1);
    setenv("GPUCHAR_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    setenv("GPUCHAR_LIBOPENCL", "/nonexistent/libOpenCL.so.1", 1);
    unsetenv("GPUCHAR_FAULT");
    assert_int_equal(gc_context_create(&ctx), 0);
    gc_run_options_init(&o);
    o.device = "null:0";
    o.patterns = all;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 2;
    o.no_cache = true;
    /* Kernels do not execute on the null device: most benchmarks fail their
     * verification; the run still returns what was measured. */
    (void)gc_run(ctx, &o, &r);
    assert_non_null(r);
    assert_int_equal(r->nbenches, gc_bench_count());
    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_bench_result *b = &r->benches[i];

        for (int k = 0; k < b->nmetrics; k++, nmetrics++)
            if (!listed(b->name, b->metrics[k].name)) {
                fprintf(stderr, "%s emits %s, which docs/schema.md does not list under it\n",
                        b->name, b->metrics[k].name);
                missing++;
            }
    }
    assert_true(nmetrics > 0);
    assert_int_equal(missing, 0);
    gc_results_free(r);
    gc_context_destroy(ctx);
}

/* README's benchmark table: every row names benchmarks that exist
 * ("{a,b}" alternatives, "*" and "<...>" patterns), every benchmark has a
 * row, and the instruction-type count it states is the registry's. */
static void test_readme_table(void **state)
{
    char path[1024], pats[64][96], word[32];
    char *readme;
    int npats = 0, nitypes = 0, bad = 0;
    const struct gc_bench *b;

    (void)state;
    snprintf(path, sizeof(path), "%s/README.md", GC_SOURCE_DIR);
    readme = slurp(path, NULL);
    assert_non_null(readme);
    for (const char *row = strstr(readme, "\n| `"); row && npats < 60;
         row = strstr(row + 1, "\n| `")) {
        const char *cell = strstr(row + 3, " | ");
        char raw[8][96];
        int n = patterns(row + 2, cell, raw, 8);

        for (int i = 0; i < n && npats < 60; i++) {
            char *brace = strchr(raw[i], '{'), *close = brace ? strchr(brace, '}') : NULL;

            if (raw[i][0] == '-')
                continue; /* an option, not a benchmark */
            if (!brace || !close) {
                snprintf(pats[npats++], sizeof(pats[0]), "%s", raw[i]);
                continue;
            }
            *close = '\0';
            for (char *alt = strtok(brace + 1, ","); alt && npats < 60; alt = strtok(NULL, ","))
                snprintf(pats[npats++], sizeof(pats[0]), "%.*s%s%s", (int)(brace - raw[i]), raw[i],
                         alt, close + 1);
        }
    }
    assert_true(npats > 10);
    for (int k = 0; k < npats; k++) {
        bool found = false;

        /* A row may name a benchmark's alias (a name kept for one it
         * replaced). */
        for (int i = 0; (b = gc__bench_at(i)) && !found; i++)
            found = fnmatch(pats[k], b->info.name, 0) == 0 ||
                    (b->info.alias && strcmp(pats[k], b->info.alias) == 0);
        if (!found) {
            fprintf(stderr, "README.md's table names %s, which is no benchmark\n", pats[k]);
            bad++;
        }
    }
    for (int i = 0; (b = gc__bench_at(i)); i++) {
        bool found = false;

        for (int k = 0; k < npats && !found; k++)
            found = fnmatch(pats[k], b->info.name, 0) == 0;
        if (!found) {
            fprintf(stderr, "README.md's table has no row for %s\n", b->info.name);
            bad++;
        }
        nitypes += strncmp(b->info.name, "compute.", 8) == 0 &&
                   strncmp(b->info.name, "compute.mma.", 12) != 0 &&
                   strncmp(b->info.name, "compute.wgmma.", 14) != 0;
    }
    snprintf(word, sizeof(word), "| %d instruction types", nitypes);
    if (!strstr(readme, word)) {
        fprintf(stderr, "README.md does not say '%s' (the registry's count)\n", word + 2);
        bad++;
    }
    assert_int_equal(bad, 0);
    free(readme);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_benchmark_listed),
        cmocka_unit_test(test_no_unknown_benchmark),
        cmocka_unit_test(test_summary_metrics_listed),
        cmocka_unit_test(test_emitted_metrics_listed),
        cmocka_unit_test(test_readme_table),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
