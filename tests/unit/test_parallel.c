/* gc__parallel_for: every element exactly once, whatever the split, call
 * after call on the kept threads, from concurrent callers and nested. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "util/parallel.h"

struct marks {
    unsigned char *seen;
    size_t n;
};

static void mark(void *ctx, size_t lo, size_t hi)
{
    struct marks *m = ctx;

    assert_true(lo < hi);
    assert_true(hi <= m->n);
    for (size_t i = lo; i < hi; i++)
        m->seen[i]++;
}

static void test_every_element_once(void **state)
{
    static const size_t ns[] = {0, 1, 2, 15, 16, 17, 255, 1000, 65537, 1000003};
    static const size_t chunks[] = {0, 1, 7, 256, 65536, 2000000};

    (void)state;
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
        for (size_t b = 0; b < sizeof(chunks) / sizeof(chunks[0]); b++) {
            struct marks m = {calloc(ns[a] + 1, 1), ns[a]};
            assert_non_null(m.seen);
            gc__parallel_for(ns[a], chunks[b], mark, &m);
            for (size_t i = 0; i < ns[a]; i++)
                assert_int_equal(m.seen[i], 1);
            assert_int_equal(m.seen[ns[a]], 0);
            free(m.seen);
        }
}

/* Many calls in a row reuse the kept threads; the sizes change between
 * calls, so a thread that served a large call sits out a small one. */
static void test_calls_in_a_row(void **state)
{
    (void)state;
    for (size_t k = 0; k < 300; k++) {
        size_t n = (k * 7919) % 50000;
        struct marks m = {calloc(n + 1, 1), n};
        assert_non_null(m.seen);
        gc__parallel_for(n, k % 3 ? 64 : 4096, mark, &m);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(m.seen[i], 1);
        free(m.seen);
    }
}

static void *caller(void *arg)
{
    int *fails = arg;

    for (size_t k = 0; k < 50; k++) {
        size_t n = 10000 + k * 131;
        struct marks m = {calloc(n, 1), n};

        if (!m.seen)
            return NULL;
        gc__parallel_for(n, 100, mark, &m);
        for (size_t i = 0; i < n; i++)
            *fails += m.seen[i] != 1;
        free(m.seen);
    }
    return NULL;
}

/* Four threads calling at once: one has the kept threads, the others
 * start their own; every call still covers its range exactly once. */
static void test_concurrent_callers(void **state)
{
    pthread_t t[4];
    int fails[4] = {0};

    (void)state;
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, caller, &fails[i]), 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(fails[i], 0);
    }
}

struct nest {
    struct marks *inner;
    size_t per;
};

/* Each outer element marks its own block of the inner range through a
 * parallel call of its own. */
static void outer(void *ctx, size_t lo, size_t hi)
{
    struct nest *nt = ctx;

    for (size_t i = lo; i < hi; i++) {
        struct marks part = {nt->inner->seen + i * nt->per, nt->per};
        gc__parallel_for(nt->per, 16, mark, &part);
    }
}

static void test_nested_calls(void **state)
{
    size_t outer_n = 64, per = 1000;
    struct marks inner = {calloc(outer_n * per, 1), outer_n * per};
    struct nest nt = {&inner, per};

    (void)state;
    assert_non_null(inner.seen);
    gc__parallel_for(outer_n, 1, outer, &nt);
    for (size_t i = 0; i < outer_n * per; i++)
        assert_int_equal(inner.seen[i], 1);
    free(inner.seen);
}

struct flags {
    const unsigned char *bad;
};

static bool is_bad(void *ctx, size_t i)
{
    return ((const struct flags *)ctx)->bad[i] != 0;
}

/* The first bad element is the one a sequential scan finds, wherever the
 * bad ones lie and however the range is split. */
static void test_first_bad(void **state)
{
    static const size_t ns[] = {0, 1, 17, 1000, 65537};
    static const size_t chunks[] = {1, 7, 4096};
    uint64_t st = 12345;

    (void)state;
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
        for (size_t b = 0; b < sizeof(chunks) / sizeof(chunks[0]); b++)
            for (int density = 0; density < 4; density++) {
                size_t n = ns[a], want = SIZE_MAX;
                unsigned char *bad = calloc(n + 1, 1);
                assert_non_null(bad);
                for (size_t i = 0; i < n; i++) {
                    st = st * 6364136223846793005ULL + 1442695040888963407ULL;
                    /* none, one in ~n, one in 64, one in 2 */
                    uint64_t r = st >> 33;
                    bad[i] = density == 1   ? r % (n + 1) == 0
                             : density == 2 ? r % 64 == 0
                             : density == 3 ? r % 2 == 0
                                            : 0;
                    if (bad[i] && want == SIZE_MAX)
                        want = i;
                }
                struct flags f = {bad};
                assert_true(gc__parallel_first(n, chunks[b], is_bad, &f) == want);
                free(bad);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_element_once), cmocka_unit_test(test_calls_in_a_row),
        cmocka_unit_test(test_concurrent_callers), cmocka_unit_test(test_nested_calls),
        cmocka_unit_test(test_first_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
