/* Host expectations of the streaming kernels: the per-thread sums a read
 * kernel must produce, checked against a direct computation over odd shapes
 * (block and unroll not powers of two, tiles that straddle the regeneration
 * chunks, more blocks than tiles, 32-byte vectors). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "bench/dram/verify.h"

/* The sums computed the plain way: the whole buffer regenerated, then every
 * vector v added into thread ((v / tile) mod grid) x block + v mod block. */
static void direct_sums(uint32_t *sums, size_t n_vec, int vec_bytes, unsigned tile_vecs,
                        unsigned grid, unsigned block, uint64_t seed)
{
    size_t vw = (size_t)vec_bytes / 4;
    uint32_t *w = malloc(n_vec * vw * 4);

    assert_non_null(w);
    gc__fill_random_range(w, 0, n_vec * vw * 4, seed);
    memset(sums, 0, (size_t)grid * block * sizeof(*sums));
    for (size_t v = 0; v < n_vec; v++) {
        size_t owner = (v / tile_vecs) % grid * block + v % block;
        for (size_t c = 0; c < vw; c++)
            sums[owner] += w[v * vw + c];
    }
    free(w);
}

static void test_read_sums_match(void **state)
{
    static const struct {
        int vec;
        unsigned block, unroll, grid;
        size_t tiles;
    } cases[] = {
        {4, 256, 16, 528, 1000},  /* grid-stride, several tiles per block */
        {8, 1024, 1, 5000, 3000}, /* one tile per block, blocks left idle */
        {16, 384, 3, 7, 2900},    /* odd block and unroll, tiles straddle chunks */
        {32, 512, 2, 132, 600},   /* two 16-byte loads per vector */
        {16, 128, 4, 1, 513},     /* one block takes every tile */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t tile = (size_t)cases[i].block * cases[i].unroll, n = tile * cases[i].tiles;
        size_t nt = (size_t)cases[i].grid * cases[i].block;
        uint32_t *a = malloc(nt * sizeof(*a)), *b = malloc(nt * sizeof(*b));

        assert_non_null(a);
        assert_non_null(b);
        direct_sums(a, n, cases[i].vec, (unsigned)tile, cases[i].grid, cases[i].block, 77 + i);
        gc__stream_read_sums(b, n, cases[i].vec, (unsigned)tile, cases[i].grid, cases[i].block,
                             77 + i);
        assert_memory_equal(a, b, nt * sizeof(*a));
        free(a);
        free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_sums_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
