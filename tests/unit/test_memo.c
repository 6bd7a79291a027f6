/* The run's kept host data (core/memo.h): a copy of what was kept under the
 * same key, nothing under another, nothing kept past the budget, all freed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/memo.h"

static void test_keep_and_copy(void **state)
{
    struct gc_session s;
    uint32_t w[64];
    size_t bytes = 1;

    (void)state;
    memset(&s, 0, sizeof(s));
    for (uint32_t i = 0; i < 64; i++)
        w[i] = i * 2654435761u;
    assert_null(gc__memo_copy(&s, "cycle", 64, 7, &bytes));
    assert_int_equal(bytes, 0);
    gc__memo_put(&s, "cycle", 64, 7, w, sizeof(w));
    gc__memo_put(&s, "cycle", 64, 7, w, 8); /* the key is kept already */
    uint32_t *c = gc__memo_copy(&s, "cycle", 64, 7, &bytes);
    assert_non_null(c);
    assert_int_equal(bytes, sizeof(w));
    assert_memory_equal(c, w, sizeof(w));
    c[0] ^= 1; /* the caller's own copy */
    free(c);
    c = gc__memo_copy(&s, "cycle", 64, 7, &bytes);
    assert_memory_equal(c, w, sizeof(w));
    free(c);
    assert_null(gc__memo_copy(&s, "cycle", 64, 8, &bytes));
    assert_null(gc__memo_copy(&s, "cycle", 63, 7, &bytes));
    assert_null(gc__memo_copy(&s, "other", 64, 7, &bytes));
    assert_int_equal(gc__memo_count(&s, &bytes), 1);
    assert_int_equal(bytes, sizeof(w));
    gc__memo_free(&s);
    assert_null(s.memo);
    assert_int_equal(gc__memo_count(&s, &bytes), 0);
}

/* Past the budget nothing more is kept, and the caller makes its data. */
static void test_budget(void **state)
{
    struct gc_session s;
    size_t half = GC_MEMO_MAX_BYTES / 2 + 1, bytes;
    char *big = calloc(half, 1);

    (void)state;
    memset(&s, 0, sizeof(s));
    assert_non_null(big);
    gc__memo_put(&s, "big", 1, 0, big, half);
    gc__memo_put(&s, "big", 2, 0, big, half);
    assert_int_equal(gc__memo_count(&s, &bytes), 1);
    assert_int_equal(bytes, half);
    assert_null(gc__memo_copy(&s, "big", 2, 0, &bytes));
    gc__memo_put(&s, "small", 1, 0, big, 16);
    assert_int_equal(gc__memo_count(&s, &bytes), 2);
    free(big);
    gc__memo_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keep_and_copy),
        cmocka_unit_test(test_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
