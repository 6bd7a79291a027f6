/* docs/methodology.md is reference only: every registered benchmark (the
 * names docs/schema.md lists, which test_schema holds to the registry) has a
 * numbered subsection with a Method, a Formulas and a Paper part, and the file
 * holds no run log, dated measurement or figure measured on a named device
 * (those belong in docs/results/<device>.md). GPUCHAR_METHODOLOGY names
 * another file to check, e.g. an older version of the document. */
#include <fnmatch.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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

#define MAX_SUBSECTIONS 256
#define MAX_PATTERNS 8

/* One "### N.M ..." subsection: the backticked names of its heading as shell
 * patterns ("<...>" turned into "*") and its body up to the next heading of
 * level 2 or 3. */
struct subsection {
    char heading[256];
    char pattern[MAX_PATTERNS][96];
    int npattern;
    const char *body;
    const char *end;
};

static char *doc;
static const char *doc_path;
static struct subsection subs[MAX_SUBSECTIONS];
static int nsubs;

static void heading_patterns(struct subsection *s)
{
    const char *h = s->heading;

    for (const char *p = strchr(h, '`'); p && s->npattern < MAX_PATTERNS; p = strchr(p + 1, '`')) {
        const char *q = strchr(p + 1, '`');
        size_t k = 0;
        char *out = s->pattern[s->npattern];

        if (!q)
            break;
        for (const char *c = p + 1; c < q && k + 1 < sizeof(s->pattern[0]); c++) {
            if (*c == '<') {
                out[k++] = '*';
                while (c < q && *c != '>')
                    c++;
            } else
                out[k++] = *c;
        }
        out[k] = '\0';
        if (k > 0)
            s->npattern++;
        p = q;
    }
}

static int setup(void **state)
{
    static char path[1024];
    const char *env = getenv("GPUCHAR_METHODOLOGY");

    (void)state;
    snprintf(path, sizeof(path), "%s/docs/methodology.md", GC_SOURCE_DIR);
    doc_path = env && *env ? env : path;
    doc = slurp(doc_path, NULL);
    if (!doc) {
        fprintf(stderr, "cannot read %s\n", doc_path);
        return -1;
    }
    for (const char *p = doc; p && *p && nsubs < MAX_SUBSECTIONS;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);

        if (strncmp(p, "### ", 4) == 0 || strncmp(p, "## ", 3) == 0) {
            if (nsubs > 0 && !subs[nsubs - 1].end)
                subs[nsubs - 1].end = p;
            if (p[2] == '#') {
                struct subsection *s = &subs[nsubs++];

                memset(s, 0, sizeof(*s));
                snprintf(s->heading, sizeof(s->heading), "%.*s", (int)len, p);
                heading_patterns(s);
                s->body = eol ? eol + 1 : p + len;
            }
        }
        p = eol ? eol + 1 : NULL;
    }
    if (nsubs > 0 && !subs[nsubs - 1].end)
        subs[nsubs - 1].end = doc + strlen(doc);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(doc);
    return 0;
}

static bool names_bench(const struct subsection *s, const char *bench)
{
    for (int k = 0; k < s->npattern; k++)
        if (fnmatch(s->pattern[k], bench, 0) == 0)
            return true;
    return false;
}

/* Where a line of the subsection starts with `part`, or NULL. */
static const char *part_at(const struct subsection *s, const char *part)
{
    size_t n = strlen(part);

    for (const char *p = s->body; p && p < s->end;) {
        if (strncmp(p, part, n) == 0)
            return p;
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return NULL;
}

/* NULL when the subsection has the three parts in order, a numbered heading
 * and a Paper part that cites a section, table, figure or equation; else what
 * is wrong. */
static const char *shape_problem(const struct subsection *s)
{
    const char *method = part_at(s, "**Method.**");
    const char *formulas = part_at(s, "**Formulas.**");
    const char *paper = part_at(s, "**Paper.**");
    int major, minor;

    if (sscanf(s->heading, "### %d.%d ", &major, &minor) != 2)
        return "the heading is not numbered \"### N.M\"";
    if (!method)
        return "no **Method.** part";
    if (!formulas)
        return "no **Formulas.** part";
    if (!paper)
        return "no **Paper.** part";
    if (!(method < formulas && formulas < paper))
        return "the parts are not in the order Method, Formulas, Paper";
    const char *stop = strstr(paper, "\n\n");
    size_t len = (size_t)((stop && stop < s->end ? stop : s->end) - paper);
    char cite[2048];

    snprintf(cite, sizeof(cite), "%.*s", (int)(len < sizeof(cite) - 1 ? len : sizeof(cite) - 1),
             paper);
    if (!strstr(cite, "§") && !strstr(cite, "Table") && !strstr(cite, "eq") && !strstr(cite, "Fig"))
        return "the Paper part cites no section, table, figure or equation";
    return NULL;
}

/* Rules that separate reference text from run output and measurements: */
static const char *const log_rules[][2] = {
    /* a date: a reference states no date; a run does */
    {"(^|[^0-9])(19|20)[0-9][0-9]-[01][0-9]-[0-3][0-9]([^0-9]|$)", "a date"},
    {"measured (on|through|at) ", "\"measured on/through/at\""},
    /* the text report's header and a run's count of results */
    {"^(gpuchar [0-9]|device   |driver   |date     |command  )",
     "a line of gpuchar's report header"},
    {"[0-9]+ benchmarks?[:,] [0-9]+ ok", "a run's result count"},
    {"^\\$ .*gpuchar ", "a shell prompt running gpuchar"},
    /* a named device and, later in the line, a decimal figure or one with a
     * measured unit */
    {"on (an?|the|one|two|this|that) ([A-Za-z0-9-]+ )?(H100|H200|A100|Hopper GPU|Xeon|EPYC|CI host|"
     "build host|VM)([^0-9].*)?[^0-9.]([0-9]+\\.[0-9]+|[0-9][0-9.,]* ?(TB/s|GB/s|MB/s|cycles|ns|µs|"
     "us|ms|%|B/clk|GHz)([^A-Za-z]|$))",
     "a figure on a named device"},
    {"[0-9][0-9.,]* ?(TB/s|GB/s|MB/s|cycles|ns|µs|ms|%|B/clk|GHz)([^A-Za-z.;][^.;]*)? on "
     "(an?|the|one) "
     "([A-Za-z0-9-]+ )?(H100|H200|A100|Xeon|EPYC|CI host|build host|VM)",
     "a figure on a named device"},
    {"^#+ .*(measured|[Ff]indings|[Rr]un log)", "a heading that announces measurements"},
};

#define NRULES (sizeof(log_rules) / sizeof(log_rules[0]))

static regex_t rules[NRULES];

static int compile_rules(void)
{
    for (size_t i = 0; i < NRULES; i++)
        if (regcomp(&rules[i], log_rules[i][0], REG_EXTENDED | REG_NOSUB | REG_ICASE) != 0) {
            fprintf(stderr, "bad rule %s\n", log_rules[i][0]);
            return -1;
        }
    return 0;
}

static void free_rules(void)
{
    for (size_t i = 0; i < NRULES; i++)
        regfree(&rules[i]);
}

/* Which rule a line breaks, or NULL. A pointer to the results
 * ("... docs/results/h200.md, ...") is allowed to name what it points to. */
static const char *log_marker(const char *line)
{
    if (strstr(line, "docs/results/"))
        return NULL;
    for (size_t i = 0; i < NRULES; i++)
        if (regexec(&rules[i], line, 0, NULL, 0) == 0)
            return log_rules[i][1];
    return NULL;
}

static void test_every_benchmark_has_a_subsection(void **state)
{
    const struct gc_bench *b;
    int missing = 0;

    (void)state;
    for (int i = 0; (b = gc__bench_at(i)); i++) {
        bool found = false;

        for (int k = 0; k < nsubs && !found; k++)
            found = names_bench(&subs[k], b->info.name);
        if (!found) {
            fprintf(stderr, "%s: no subsection names %s\n", doc_path, b->info.name);
            missing++;
        }
    }
    assert_int_equal(missing, 0);
}

/* Every subsection whose heading names a registered benchmark has the shape. */
static void test_subsections_have_three_parts(void **state)
{
    const struct gc_bench *b;
    int bad = 0, checked = 0;

    (void)state;
    for (int k = 0; k < nsubs; k++) {
        bool bench = false;

        for (int i = 0; !bench && (b = gc__bench_at(i)); i++)
            bench = names_bench(&subs[k], b->info.name);
        if (!bench)
            continue;
        checked++;
        const char *why = shape_problem(&subs[k]);

        if (why) {
            fprintf(stderr, "%s: \"%s\": %s\n", doc_path, subs[k].heading, why);
            bad++;
        }
    }
    assert_true(checked > 0);
    assert_int_equal(bad, 0);
}

static void test_no_run_logs(void **state)
{
    int bad = 0, lineno = 0;

    (void)state;
    for (const char *p = doc; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[4096];
        const char *why;

        lineno++;
        snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) - 1 ? len : sizeof(line) - 1),
                 p);
        if ((why = log_marker(line))) {
            fprintf(stderr, "%s:%d: %s: %s\n", doc_path, lineno, why, line);
            bad++;
        }
        p = eol ? eol + 1 : NULL;
    }
    assert_int_equal(bad, 0);
}

/* The rules themselves: lines of run logs and measurements (taken from
 * earlier versions of the document) are caught; reference lines (vendor
 * limits, formulas, pointers to the results) are not. */
static void test_rules(void **state)
{
    static const char *const logs[] = {
        "Run of 2026-11-25 00:08 UTC: exit 0, 99 benchmarks (97 ok, 2 not available)",
        "`transfer.d2d` measured on the H100 after the fix",
        "the best configuration reaches 3.035 TB/s (90.5%, CV 0.04%) on an H100 SXM",
        "On an H100 SXM (HBM3, limit 3.352 TB/s from",
        "ILP-4 FFMA curve on an H200 are exactly 79.2/128 = 5/8, 105.4/128 = 10/12 and",
        "the load kernel: 85.8% on an H200, against the banks' 128 B/clk.",
        "(on a Xeon host: 6 ns at 256 KiB to 10 ns at",
        "**Compute** (`gpuchar run --bench 'compute.*'`, 62 benchmarks: 61 ok, fp8 not",
        "date     2026-11-24T23:51:07Z",
        "$ ./build/gpuchar run --device cuda:0",
        "### Findings on Hopper (H200, 1980 MHz observed)",
    };
    static const char *const reference[] = {
        "| 9.0 | 4096 | 4096 | 4096 | 2048 | 8192 | 8192 | H100 SXM5: 989.4 / 494.7 / 1978.9 T, "
        "132 "
        "SMs, 1830 MHz |",
        "Gen 5 ×16: 32e9 × 16 × 128/130 / 8 = **63.0 GB/s**",
        "    bandwidth = 2 × B / t       [B/s]",
        "Measured figures: docs/results/h200.md, \"Memory latency: measured on the H200\".",
        "- The expected L1 is therefore array − kept carve-out: 256 − 8 = 248 KiB on an H100/H200.",
        "### 4.1 `memory.dram.*`, `memory.copy` — streaming kernels",
        "Volkov, \"Understanding Latency Hiding on GPUs\" (2016), chapters 3-7.",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++)
        if (!log_marker(logs[i]))
            fail_msg("not caught as a log: %s", logs[i]);
    for (size_t i = 0; i < sizeof(reference) / sizeof(reference[0]); i++) {
        const char *why = log_marker(reference[i]);

        if (why)
            fail_msg("reference line caught as %s: %s", why, reference[i]);
    }
}

/* The shape check itself: a subsection without its Paper part, or with the
 * parts out of order, is rejected. */
static void test_shape_rules(void **state)
{
    static const char good[] = "**Method.** a kernel\n\n**Formulas.** x = y / t [B/s]\n\n"
                               "**Paper.** Lemeire et al. §VI-A.\n";
    static const char no_paper[] = "**Method.** a kernel\n\n**Formulas.** x = y / t\n";
    static const char order[] = "**Formulas.** x\n\n**Method.** k\n\n**Paper.** MIPP §IV-B\n";
    static const char no_cite[] = "**Method.** k\n\n**Formulas.** x\n\n**Paper.** a paper.\n";
    struct subsection s = {.heading = "### 4.1 `memory.dram.*`"};

    (void)state;
    s.body = good, s.end = good + sizeof(good) - 1;
    assert_null(shape_problem(&s));
    s.body = no_paper, s.end = no_paper + sizeof(no_paper) - 1;
    assert_non_null(shape_problem(&s));
    s.body = order, s.end = order + sizeof(order) - 1;
    assert_non_null(shape_problem(&s));
    s.body = no_cite, s.end = no_cite + sizeof(no_cite) - 1;
    assert_non_null(shape_problem(&s));
    snprintf(s.heading, sizeof(s.heading), "### `memory.dram.*`");
    s.body = good, s.end = good + sizeof(good) - 1;
    assert_non_null(shape_problem(&s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_shape_rules),
        cmocka_unit_test(test_every_benchmark_has_a_subsection),
        cmocka_unit_test(test_subsections_have_three_parts),
        cmocka_unit_test(test_no_run_logs),
    };
    int rc;

    if (compile_rules() != 0)
        return 1;
    rc = cmocka_run_group_tests(tests, setup, teardown);
    free_rules();
    return rc;
}
