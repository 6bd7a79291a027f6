/* gc__parallel_for: every element exactly once, whatever the split. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_element_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
