/* The pointer chase's chain (gc__chase_chain_words): one cycle through every
 * element, the walk's order stored after it, the words the kernel follows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"

static void test_one_cycle_and_its_order(void **state)
{
    static const size_t ms[] = {1, 2, 3, 7, 64, 1000, 4099};
    struct plan pl;

    (void)state;
    memset(&pl, 0, sizeof(pl));
    pl.spacing = 64;
    pl.line = 64;
    pl.esize = 4;
    for (size_t t = 0; t < sizeof(ms) / sizeof(ms[0]); t++)
        for (uint64_t seed = 1; seed < 6; seed++) {
            uint32_t *next = NULL;
            size_t m = 0;
            uint32_t *w = gc__chase_chain_words(&pl, ms[t] * pl.spacing, seed, &next, &m);
            unsigned char *seen = calloc(m, 1);

            assert_non_null(w);
            assert_non_null(seen);
            assert_int_equal(m, ms[t]);
            /* From element 0, m steps visit every element once and return;
             * the order after the chain is that walk. */
            uint32_t e = 0;
            for (size_t k = 0; k < m; k++) {
                assert_int_equal(next[m + k], e);
                assert_false(seen[e]);
                seen[e] = 1;
                /* The word at e's slot leads to next[e]'s slot. */
                assert_int_equal(w[gc__chase_slot_of(&pl, e)], gc__chase_slot_of(&pl, next[e]));
                e = next[e];
            }
            assert_int_equal(e, 0);
            assert_int_equal(gc__chase_walk(next, m, m), 0);
            free(seen);
            free(next);
            free(w);
        }
}

/* Different seeds give different cycles, and the element after 0 is spread
 * over the others (not a fixed or sequential chain). */
static void test_random(void **state)
{
    struct plan pl;
    int hits[16] = {0};

    (void)state;
    memset(&pl, 0, sizeof(pl));
    pl.spacing = 64;
    pl.line = 64;
    pl.esize = 4;
    for (uint64_t seed = 1; seed <= 1500; seed++) {
        uint32_t *next = NULL;
        size_t m = 0;
        uint32_t *w = gc__chase_chain_words(&pl, 16 * pl.spacing, seed, &next, &m);
        assert_non_null(w);
        assert_true(next[0] >= 1 && next[0] < 16);
        hits[next[0]]++;
        free(next);
        free(w);
    }
    /* 1500 draws over 15 successors, 100 expected each (sigma ~10). */
    for (int i = 1; i < 16; i++)
        assert_true(hits[i] > 50 && hits[i] < 150);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_cycle_and_its_order),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
