/* Unit tests of the random input data (src/util/random.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/random.h"

/* The same seed gives the same bytes; a tail shorter than 8 bytes is the
 * prefix of what a longer fill writes there. */
static void test_fill_deterministic(void **state)
{
    unsigned char a[1003], b[1003], c[1000];

    (void)state;
    gc__random_fill(a, sizeof(a), 42);
    gc__random_fill(b, sizeof(b), 42);
    assert_memory_equal(a, b, sizeof(a));
    gc__random_fill(c, sizeof(c), 42);
    assert_memory_equal(a, c, sizeof(c));
    gc__random_fill(b, sizeof(b), 43);
    assert_memory_not_equal(a, b, sizeof(a));
}

/* Exactly n bytes are written: the guard bytes after the tail survive. */
static void test_fill_tail(void **state)
{
    unsigned char buf[32];

    (void)state;
    for (size_t n = 0; n <= 16; n++) {
        memset(buf, 0xEE, sizeof(buf));
        gc__random_fill(buf, n, 7);
        for (size_t i = n; i < sizeof(buf); i++)
            assert_int_equal(buf[i], 0xEE);
    }
}

/* Seed 0 would give an all-zero stream; it is replaced, so the data is
 * neither zero nor constant. */
static void test_fill_seed_zero(void **state)
{
    uint64_t w[64];
    int zeros = 0, same = 0;

    (void)state;
    gc__random_fill(w, sizeof(w), 0);
    for (int i = 0; i < 64; i++) {
        zeros += w[i] == 0;
        same += i > 0 && w[i] == w[i - 1];
    }
    assert_int_equal(zeros, 0);
    assert_int_equal(same, 0);
}

/* The first word is the generator's first output for the seed. */
static void test_fill_matches_generator(void **state)
{
    uint64_t s = 12345, want = gc__xorshift64s(&s), got;

    (void)state;
    gc__random_fill(&got, sizeof(got), 12345);
    assert_true(got == want);
}

/* Roughly uniform bytes: each bit is set about half of the time. */
static void test_fill_balance(void **state)
{
    enum { N = 1 << 16 };
    unsigned char *buf = malloc(N);
    long ones = 0;

    (void)state;
    assert_non_null(buf);
    gc__random_fill(buf, N, 99);
    for (int i = 0; i < N; i++)
        ones += __builtin_popcount(buf[i]);
    /* 8 * 65536 bits: the mean is 262144, sigma 362. */
    assert_true(labs(ones - 262144) < 3000);
    free(buf);
}

static void test_float_range(void **state)
{
    uint64_t s = 0;
    double sum = 0;

    (void)state;
    for (int i = 0; i < 100000; i++) {
        float f = gc__random_float(&s, -1.0f, 2.0f);

        assert_true(f >= -1.0f && f < 2.0f);
        sum += f;
    }
    assert_true(s != 0);
    /* The mean of U(-1, 2) is 0.5. */
    assert_true(sum / 100000 > 0.49 && sum / 100000 < 0.51);
    /* A range too narrow for float rounding still excludes hi. */
    s = 5;
    for (int i = 0; i < 1000; i++) {
        float f = gc__random_float(&s, 1.0f, 1.0000001f);

        assert_true(f >= 1.0f && f < 1.0000001f);
    }
}

/* A jump of n lands on the state n calls leave, for short and long jumps
 * and for a stream split into parts. */
static void test_jump(void **state)
{
    static const uint64_t lens[] = {0, 1, 2, 3, 63, 64, 65, 1000, 123457};
    uint64_t s = 0x1234567ULL, part = s;

    (void)state;
    for (size_t t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
        uint64_t seq = s;

        for (uint64_t k = 0; k < lens[t]; k++)
            (void)gc__xorshift64s(&seq);
        assert_true(gc__xorshift64s_jump(s, lens[t]) == seq);
        part = gc__xorshift64s_jump(part, lens[t]);
        s = seq;
    }
    assert_true(part == s);
    assert_true(gc__xorshift64s_jump(0, 99) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_deterministic),
        cmocka_unit_test(test_fill_tail),
        cmocka_unit_test(test_fill_seed_zero),
        cmocka_unit_test(test_fill_matches_generator),
        cmocka_unit_test(test_fill_balance),
        cmocka_unit_test(test_float_range),
        cmocka_unit_test(test_jump),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
