/* The session's store of each benchmark's best configuration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/bestcfg.h"

struct cfg {
    int vec, block;
};

static void test_put_get_replace(void **state)
{
    struct gc_session s;
    struct cfg a = {16, 256}, b = {8, 1024}, c = {4, 64};
    const struct cfg *got;

    (void)state;
    memset(&s, 0, sizeof(s));
    assert_null(gc__best_get(&s, "memory.dram.read", sizeof(a)));
    assert_int_equal(gc__best_put(&s, "memory.dram.read", &a, sizeof(a)), 0);
    assert_int_equal(gc__best_put(&s, "memory.dram.write", &b, sizeof(b)), 0);
    got = gc__best_get(&s, "memory.dram.read", sizeof(a));
    assert_non_null(got);
    assert_int_equal(got->vec, 16);
    assert_int_equal(got->block, 256);
    /* A record of another size is not this benchmark's configuration. */
    assert_null(gc__best_get(&s, "memory.dram.read", sizeof(a) + 1));
    assert_int_equal(gc__best_put(&s, "memory.dram.read", &c, sizeof(c)), 0);
    got = gc__best_get(&s, "memory.dram.read", sizeof(c));
    assert_int_equal(got->vec, 4);
    got = gc__best_get(&s, "memory.dram.write", sizeof(b));
    assert_int_equal(got->block, 1024);
    gc__best_free(s.best);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_put_get_replace)};

    return cmocka_run_group_tests(tests, NULL, NULL);
}
