/* Tests of the mix generator (src/kgen/gen_mix.c): the kernel text holds
 * exactly the intended instructions per loop trip in both dialects, the
 * pseudo-random line order is a bijection, and the host model of every
 * chain agrees with a walk through the array layouts the fill kernels
 * document, touching no entry twice in a launch (§5.10, §6.7). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kgen/gen_mix.h"

static int count(const char *s, const char *needle)
{
    int n = 0;

    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static struct gc_mix_cfg cfg(enum gc_mix_op op, int alpha, int ilp, int unroll, int trips)
{
    struct gc_mix_cfg c;

    memset(&c, 0, sizeof(c));
    c.op = op;
    c.alpha = alpha;
    c.ilp = ilp;
    c.unroll = unroll;
    c.trips = trips;
    c.lines = 32;
    return c;
}

static void test_check(void **state)
{
    struct gc_mix_cfg c = cfg(GC_MIX_GLOBAL, 3, 2, 8, 4);

    (void)state;
    assert_int_equal(gc__mix_check(&c), 0);
    assert_int_equal(gc__mix_groups(&c), 32);
    c.ilp = GC_MIX_MAX_ILP + 1;
    assert_int_equal(gc__mix_check(&c), GC_EINVAL);
    c = cfg(GC_MIX_ADD, 0, 1, 8, 4); /* an add chain needs adds */
    assert_int_equal(gc__mix_check(&c), GC_EINVAL);
    c = cfg(GC_MIX_RANDOM, 0, 1, 8, 4);
    c.lines = 3;
    assert_int_equal(gc__mix_check(&c), GC_EINVAL);
    c = cfg(GC_MIX_SHARED, 0, 1, 8, 4); /* sampling: global loads only */
    c.sample = true;
    assert_int_equal(gc__mix_check(&c), GC_EINVAL);
    c = cfg(GC_MIX_GLOBAL, 0, 1, 12, 4); /* one load in eight: unroll % 8 */
    c.sample = true;
    assert_int_equal(gc__mix_check(&c), GC_EINVAL);
    assert_null(gc__gen_mix(GC_DIALECT_CUDA, 0, &c));
    c.unroll = 16;
    assert_int_equal(gc__mix_check(&c), 0);
}

/* Per loop trip: unroll x ilp of the studied instruction, alpha times as
 * many adds, the trip count a literal; the dialect spells nothing itself. */
static void test_text(void **state)
{
    static const struct {
        enum gc_mix_op op;
        const char *cuda, *opencl;
    } ops[] = {
        {GC_MIX_ADD, NULL, NULL},
        {GC_MIX_SFU, "= gc_mix_rsqrt(x", "= native_rsqrt(x"},
        {GC_MIX_SHARED, "= gc_mix_lds(x", "gc_ring[(GC_MIX_AS_U(x"},
        {GC_MIX_SHARED2, "= gc_mix_lds(x", "gc_ring[(GC_MIX_AS_U(x"},
        {GC_MIX_GLOBAL, "= gc_mix_ldg(pb, x", "chain[GC_MIX_AS_U(x"},
        {GC_MIX_RANDOM, "= gc_mix_ldg(pb, x", "chain[GC_MIX_AS_U(x"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        for (int d = 0; d < 2; d++) {
            struct gc_mix_cfg c = cfg(ops[i].op, ops[i].op == GC_MIX_ADD ? 5 : 3, 2, 6, 7);
            char *s = gc__gen_mix(d ? GC_DIALECT_OPENCL : GC_DIALECT_CUDA,
                                  d ? 0 : GC_KGEN_WARP_TIMESTAMPS, &c);
            const char *op = d ? ops[i].opencl : ops[i].cuda;

            assert_non_null(s);
            assert_int_equal(count(s, "GC_KERNEL void gc_mix("), 1);
            assert_int_equal(count(s, "i < 7u;"), 1);
            assert_int_equal(count(s, "= GC_MIX_ADDF(x"), c.alpha * c.unroll * c.ilp);
            if (op)
                assert_int_equal(count(s, op), c.unroll * c.ilp);
            assert_int_equal(count(s, "    GC_TS_BEGIN\n"), 1);
            assert_int_equal(count(s, "GC_TS_END\n}"), 1);
            assert_int_equal(count(s, "out[gid * 2u + "), 2);
            /* The dialect layer spells the qualifiers: __global__ only in
             * the prelude's definition of GC_KERNEL. */
            assert_true(count(s, "__global__") <= 1 && count(s, "__kernel") <= 1);
            /* Inline PTX on CUDA wherever the instruction is the subject. */
            if (d)
                assert_int_equal(count(s, "asm"), 0);
            else
                assert_int_equal(count(s, "GC_MIX_FN float gc_mix_"), ops[i].op != GC_MIX_ADD);
            free(s);
        }
}

static void test_sample_text(void **state)
{
    struct gc_mix_cfg c = cfg(GC_MIX_GLOBAL, 0, 2, 16, 5);
    char *s;

    (void)state;
    c.sample = true;
    s = gc__gen_mix(GC_DIALECT_CUDA, GC_KGEN_WARP_TIMESTAMPS, &c);
    assert_non_null(s);
    /* One timed load of chain 0 in eight, stamped before (once its address
     * is there) and after (once it has completed), into a shared buffer of
     * one slot per timed load of the launch, copied out after the loop. */
    assert_int_equal(count(s, "t0 = gc_mix_stamp(sink, x0)"), c.unroll / 8);
    assert_int_equal(count(s, "gc_mix_stamp(sink, x0) - t0"), c.unroll / 8);
    assert_int_equal(count(s, "gc_mix_stamp(sink, x1)"), 0);
    assert_int_equal(count(s, "GC_U32 gc_lat[10];"), 1);
    assert_int_equal(count(s, "k < 10u; k++"), 1);
    free(s);
    /* OpenCL has no clock: sampling is left out. */
    s = gc__gen_mix(GC_DIALECT_OPENCL, 0, &c);
    assert_non_null(s);
    assert_int_equal(count(s, "gc_lat"), 0);
    free(s);
    s = gc__gen_mix_fill(GC_DIALECT_OPENCL);
    assert_non_null(s);
    assert_int_equal(count(s, "GC_KERNEL void gc_mix_fill_"), 2);
    free(s);
    s = gc__gen_mix_empty(GC_DIALECT_CUDA, GC_KGEN_WARP_TIMESTAMPS);
    assert_non_null(s);
    assert_int_equal(count(s, "GC_KERNEL void gc_mix_empty("), 1);
    free(s);
}

static void test_hash_bijection(void **state)
{
    (void)state;
    for (int k = 1; k <= 16; k++) {
        uint32_t n = 1u << k;
        unsigned char *seen = calloc(n, 1);

        assert_non_null(seen);
        for (uint32_t p = 0; p < n; p++) {
            uint32_t h = gc__mix_hash(p, k);

            assert_true(h < n);
            assert_false(seen[h]);
            seen[h] = 1;
            /* Reduced modulo 2^k. */
            assert_int_equal(gc__mix_hash(p + n, k), h);
        }
        free(seen);
    }
    /* Neighbouring positions land far apart (no locality for the caches). */
    {
        int near = 0;

        for (uint32_t p = 0; p < 4096; p++) {
            int64_t d = (int64_t)gc__mix_hash(p + 1, 20) - (int64_t)gc__mix_hash(p, 20);

            near += d > -64 && d < 64;
        }
        assert_true(near < 8);
    }
}

/* The stream layout of §5.10 walked on the host: every chain ends where the
 * model says, and no entry is read twice. */
static void test_stream_walk(void **state)
{
    struct gc_mix_cfg c = cfg(GC_MIX_GLOBAL, 0, 2, 4, 3);
    struct gc_mix_args a = {0};
    unsigned grid = 5, groups = (unsigned)gc__mix_groups(&c);
    size_t words;
    uint32_t *arr;
    unsigned char *seen;

    (void)state;
    a.block = 64;
    a.base = 100;
    a.spacing = (uint32_t)c.ilp * a.block * groups;
    words = a.base + (size_t)grid * a.spacing + (size_t)c.ilp * a.block;
    arr = malloc(words * sizeof(*arr));
    seen = calloc(words, 1);
    assert_non_null(arr);
    assert_non_null(seen);
    for (size_t i = 0; i < words; i++)
        arr[i] = GC_MIX_BIAS + (uint32_t)i + (uint32_t)c.ilp * a.block;
    for (uint64_t t = 0; t < (uint64_t)grid * a.block; t++)
        for (int j = 0; j < c.ilp; j++) {
            uint32_t v = GC_MIX_BIAS + a.base + (uint32_t)(t / a.block) * a.spacing +
                         (uint32_t)j * a.block + (uint32_t)(t % a.block);

            for (unsigned g = 0; g < groups; g++) {
                uint32_t e = v - GC_MIX_BIAS;

                assert_true(e < words);
                assert_false(seen[e]);
                seen[e] = 1;
                v = arr[e];
            }
            assert_int_equal(v, gc__mix_expect(&c, &a, t, j));
        }
    free(arr);
    free(seen);
}

/* The random layout of §6.7: a warp access touches exactly `lines`
 * distinct lines, no line is read twice in a launch, every chain ends
 * where the model says. */
static void test_random_walk(void **state)
{
    static const int lines[] = {1, 2, 8, 32};
    const int k = 12;
    uint32_t n = 1u << k, *arr = malloc((size_t)32 * n * sizeof(uint32_t));
    unsigned char *seen = malloc(n);

    (void)state;
    assert_non_null(arr);
    assert_non_null(seen);
    for (uint32_t p = 0; p < n; p++)
        for (uint32_t w = 0; w < 32; w++)
            arr[32 * gc__mix_hash(p, k) + w] = GC_MIX_BIAS + 32 * gc__mix_hash(p + 1, k) + w;
    for (size_t li = 0; li < sizeof(lines) / sizeof(lines[0]); li++) {
        struct gc_mix_cfg c = cfg(GC_MIX_RANDOM, 0, 2, 5, 4);
        struct gc_mix_args a = {0};
        unsigned warps = 3, groups = (unsigned)gc__mix_groups(&c);
        uint32_t cur[3 * 32 * 2];

        c.lines = lines[li];
        a.block = 64;
        a.log2_lines = k;
        a.base = 4000; /* wraps around the 2^k positions */
        a.spacing = gc__mix_random_spacing(k, (uint64_t)warps * c.lines * c.ilp);
        assert_true(a.spacing >= groups);
        memset(seen, 0, n);
        for (uint32_t t = 0; t < warps * 32; t++)
            for (int j = 0; j < c.ilp; j++) {
                uint32_t g = 32u / (uint32_t)c.lines, lane = t & 31u;
                uint32_t ch = ((t >> 5) * (uint32_t)c.lines + lane / g) * (uint32_t)c.ilp + j;

                cur[t * c.ilp + j] =
                    GC_MIX_BIAS + 32 * gc__mix_hash(a.base + ch * a.spacing, k) + lane % g;
            }
        for (unsigned s = 0; s < groups; s++) {
            for (uint32_t wp = 0; wp < warps; wp++)
                for (int j = 0; j < c.ilp; j++) {
                    uint32_t ls[32];
                    int distinct = 0;

                    for (uint32_t l = 0; l < 32; l++) {
                        uint32_t line = (cur[(wp * 32 + l) * c.ilp + j] - GC_MIX_BIAS) / 32;
                        bool dup = false;

                        for (int q = 0; q < distinct; q++)
                            dup = dup || ls[q] == line;
                        if (!dup) {
                            ls[distinct++] = line;
                            assert_false(seen[line]);
                            seen[line] = 1;
                        }
                    }
                    assert_int_equal(distinct, c.lines);
                }
            for (uint32_t i = 0; i < warps * 32 * (uint32_t)c.ilp; i++)
                cur[i] = arr[cur[i] - GC_MIX_BIAS];
        }
        for (uint32_t t = 0; t < warps * 32; t++)
            for (int j = 0; j < c.ilp; j++)
                assert_int_equal(cur[t * c.ilp + j], gc__mix_expect(&c, &a, t, j));
    }
    free(arr);
    free(seen);
}

/* The shared rings: the chain ends at its start plus the loads modulo the
 * ring, and the conflicting variant puts the two half warps on two words of
 * one bank. The half warp is that of the thread's local id, as the kernel
 * computes it: blocks of 2, 16, 17 or 48 threads (a CPU device's) restart
 * the lanes at every block. */
static void test_shared_rings(void **state)
{
    static const unsigned blocks[] = {2, 16, 17, 32, 48, 64};

    (void)state;
    for (int v = 0; v < 2; v++)
        for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
            struct gc_mix_cfg c = cfg(v ? GC_MIX_SHARED2 : GC_MIX_SHARED, 2, 3, 7, 5);
            struct gc_mix_args a = {0};

            a.seed = 29;
            a.block = blocks[b];
            for (uint32_t t = 0; t < 4 * blocks[b]; t++)
                for (int j = 0; j < c.ilp; j++) {
                    uint32_t lid = t % blocks[b];
                    uint32_t ring = v ? ((lid & 31u) >> 4) * 32u : 0u;
                    uint32_t pos = (a.seed + (uint32_t)j) % GC_MIX_RING;
                    uint32_t other = v ? ((lid & 31u) < 16 ? 32u : 0u) : ring;

                    for (int g = 0; g < gc__mix_groups(&c); g++) {
                        /* Same bank (word mod 32) as the other half warp. */
                        assert_int_equal((ring + pos) % 32, (other + pos) % 32);
                        pos = (pos + 1) % GC_MIX_RING;
                    }
                    assert_int_equal(gc__mix_expect(&c, &a, t, j), GC_MIX_BIAS + 4 * (ring + pos));
                }
        }
    /* Add and SFU chains keep their start value. */
    {
        struct gc_mix_cfg c = cfg(GC_MIX_ADD, 4, 2, 3, 3);
        struct gc_mix_args a = {GC_MIX_ONE_BITS, 0, 0, 32, 0};

        assert_int_equal(gc__mix_expect(&c, &a, 10, 1), GC_MIX_ONE_BITS + 21);
        c.op = GC_MIX_SFU;
        assert_int_equal(gc__mix_expect(&c, &a, 10, 1), GC_MIX_ONE_BITS);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),        cmocka_unit_test(test_text),
        cmocka_unit_test(test_sample_text),  cmocka_unit_test(test_hash_bijection),
        cmocka_unit_test(test_stream_walk),  cmocka_unit_test(test_random_walk),
        cmocka_unit_test(test_shared_rings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
