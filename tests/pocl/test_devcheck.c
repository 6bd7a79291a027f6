/* The device-side fill and checks on a real OpenCL device: the fill kernel
 * writes the host's generator exactly, a correct output passes, and a wrong
 * word or an unwritten (poisoned) region fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/opencl/opencl.h"
#include "core/devfill.h"
#include "util/random.h"
#include "kgen/gen_stream.h"
#include "core/kcache.h"

#define WORDS ((size_t)1 << 20)

static void test_fill_and_checks(void **state)
{
    struct gc_session s;
    struct gc_device *d = NULL;
    struct gc_buf *in = NULL, *in2 = NULL, *out = NULL;
    char why[256], err[GC_ERRLEN], msg[200], dir[96];
    uint32_t *host = malloc(WORDS * 4);
    size_t bytes = WORDS * 4;

    (void)state;
    assert_non_null(host);
    assert_int_equal(gc__opencl_ops.init(why, sizeof(why)), 0);
    assert_int_equal(gc__device_open(&gc__opencl_ops, 0, &d, err, sizeof(err)), 0);
    memset(&s, 0, sizeof(s));
    s.dev = d;
    snprintf(dir, sizeof(dir), "/tmp/gpuchar-test-devcheck-%ld", (long)getpid());
    assert_int_equal(gc__kcache_open(dir, false, &s.kcache), 0);

    /* The device fill is the host's generator, word for word. */
    assert_int_equal(gc__pool_input(&s, "in0", bytes, 77, &in), 0);
    assert_int_equal(gc__pool_input(&s, "in1", bytes, 78, &in2), 0);
    assert_int_equal(gc__pool_output(&s, "out", bytes, &out), 0);
    assert_int_equal(gc__dev_read(d, in, 0, host, bytes), 0);
    for (size_t i = 0; i < WORDS; i++)
        if (host[i] != gc__hash32(77, i))
            fail_msg("word %zu of the device fill is 0x%08x, expected 0x%08x", i, host[i],
                     gc__hash32(77, i));

    /* Copy: a faithful copy passes, one wrong word and an unwritten region
     * fail. */
    struct gc_check eq = {.kind = GC_CHECK_EQ, .want = in, .got = out, .words = WORDS};
    assert_int_equal(gc__dev_copy(d, out, in, bytes), 0);
    assert_int_equal(gc__devcheck(&s, &eq, msg, sizeof(msg)), 0);
    uint32_t bad = host[12345] ^ 1u;
    assert_int_equal(gc__dev_write(d, out, 12345 * 4, &bad, 4), 0);
    assert_int_equal(gc__devcheck(&s, &eq, msg, sizeof(msg)), GC_EVERIFY);
    assert_non_null(strstr(msg, "1 of 1048576 words"));
    assert_int_equal(gc__devfill_word(&s, out, bytes, 0xDEADBEEFu), 0);
    assert_int_equal(gc__dev_copy(d, out, in, bytes / 2), 0); /* the second half unwritten */
    assert_int_equal(gc__devcheck(&s, &eq, msg, sizeof(msg)), GC_EVERIFY);
    assert_non_null(strstr(msg, "524288 of"));

    /* A stretch of the generator's words landed at an offset (a peer
     * copy's slot): words first.. of seed 77 from word skip on pass; a
     * wrong word, another seed and another first word fail. */
    {
        const size_t skip = 1000, first = 333, n = WORDS / 2;
        struct gc_check h = {.kind = GC_CHECK_HASH,
                             .got = out,
                             .words = n,
                             .seed = 77,
                             .first = first,
                             .got_off = skip};

        assert_int_equal(gc__devfill_word(&s, out, bytes, 0), 0);
        for (size_t i = 0; i < n; i++)
            host[i] = gc__hash32(77, first + i);
        assert_int_equal(gc__dev_write(d, out, skip * 4, host, n * 4), 0);
        assert_int_equal(gc__devcheck(&s, &h, msg, sizeof(msg)), 0);
        h.seed = 78;
        assert_int_equal(gc__devcheck(&s, &h, msg, sizeof(msg)), GC_EVERIFY);
        h.seed = 77;
        h.first = first + 1;
        assert_int_equal(gc__devcheck(&s, &h, msg, sizeof(msg)), GC_EVERIFY);
        h.first = first;
        bad = host[n - 1] ^ 0x80000000u;
        assert_int_equal(gc__dev_write(d, out, (skip + n - 1) * 4, &bad, 4), 0);
        assert_int_equal(gc__devcheck(&s, &h, msg, sizeof(msg)), GC_EVERIFY);
        assert_non_null(strstr(msg, "1 of 524288 words"));
    }

    /* Write pattern and triad, from host-made outputs. */
    for (size_t i = 0; i < WORDS; i++)
        host[i] = gc__stream_pattern(0x1234u, i);
    assert_int_equal(gc__dev_write(d, out, 0, host, bytes), 0);
    struct gc_check pat = {.kind = GC_CHECK_PATTERN, .got = out, .words = WORDS, .arg = 0x1234u};
    assert_int_equal(gc__devcheck(&s, &pat, msg, sizeof(msg)), 0);
    pat.arg = 0x1235u;
    assert_int_equal(gc__devcheck(&s, &pat, msg, sizeof(msg)), GC_EVERIFY);
    for (size_t i = 0; i < WORDS; i++)
        host[i] = gc__hash32(77, i) + 5u * gc__hash32(78, i);
    assert_int_equal(gc__dev_write(d, out, 0, host, bytes), 0);
    struct gc_check tri = {
        .kind = GC_CHECK_TRIAD, .b = in, .c = in2, .got = out, .words = WORDS, .arg = 5u};
    assert_int_equal(gc__devcheck(&s, &tri, msg, sizeof(msg)), 0);
    host[WORDS - 1]++;
    assert_int_equal(gc__dev_write(d, out, bytes - 4, &host[WORDS - 1], 4), 0);
    assert_int_equal(gc__devcheck(&s, &tri, msg, sizeof(msg)), GC_EVERIFY);

    /* The read kernel's per-thread sums: thread g of block b sums the words
     * of vectors t x tile_vecs + p, tiles t = b, b + grid, ..., positions p
     * = g, g + block, ...; sums the host makes pass, one wrong sum and the
     * sums of another grid fail. */
    {
        const unsigned grid = 3, block = 64, vw = 4, tile_vecs = 2 * 64;
        const unsigned tiles = (unsigned)(WORDS / (tile_vecs * vw));
        uint32_t sums[3 * 64];

        for (unsigned th = 0; th < grid * block; th++) {
            uint32_t sum = 0;

            for (unsigned t = th / block; t < tiles; t += grid)
                for (unsigned p = th % block; p < tile_vecs; p += block)
                    for (unsigned w = 0; w < vw; w++)
                        sum += gc__hash32(77, ((size_t)t * tile_vecs + p) * vw + w);
            sums[th] = sum;
        }
        assert_int_equal(gc__dev_write(d, out, 0, sums, sizeof(sums)), 0);
        struct gc_check_read rd = {in, out, tiles, tile_vecs, vw, grid, block};
        assert_int_equal(gc__devcheck_read(&s, &rd, msg, sizeof(msg)), 0);
        /* The same sums produced on the device (gc_read_ref). */
        struct gc_buf *ref = NULL;
        uint32_t dev_sums[3 * 64];
        assert_int_equal(gc__dev_alloc(d, sizeof(dev_sums), &ref), 0);
        assert_int_equal(gc__devcheck_read_ref(&s, in, ref, tiles, tile_vecs, vw, grid, block), 0);
        assert_int_equal(gc__dev_read(d, ref, 0, dev_sums, sizeof(dev_sums)), 0);
        assert_memory_equal(dev_sums, sums, sizeof(sums));
        gc__dev_free(d, ref);
        rd.grid = 2;
        rd.block = 96;
        assert_int_equal(gc__devcheck_read(&s, &rd, msg, sizeof(msg)), GC_EVERIFY);
        rd.grid = grid;
        rd.block = block;
        sums[100]++;
        assert_int_equal(gc__dev_write(d, out, 100 * 4, &sums[100], 4), 0);
        assert_int_equal(gc__devcheck_read(&s, &rd, msg, sizeof(msg)), GC_EVERIFY);
        assert_non_null(strstr(msg, "1 of 192"));
    }

    /* The copy kernel's reference sums: work-item id sums element id + r x
     * stride for r < reads; a zero sum stands as the poison. Each element
     * size against sums the host makes from the generator. */
    {
        static const unsigned elems[] = {1, 2, 4, 8, 16};
        const unsigned reads = 3;
        const unsigned char *src8 = (const unsigned char *)host;

        for (size_t i = 0; i < WORDS; i++)
            host[i] = gc__hash32(77, i);
        for (size_t e = 0; e < sizeof(elems) / sizeof(elems[0]); e++) {
            /* The sums go to `out` (WORDS words). */
            size_t threads = bytes / elems[e] / reads < WORDS ? bytes / elems[e] / reads : WORDS;
            uint32_t *got = malloc(threads * 4);

            assert_non_null(got);
            assert_int_equal(
                gc__devcheck_copyk_ref(&s, in, out, elems[e], reads, threads, threads, 0xDEADBEEFu),
                0);
            assert_int_equal(gc__dev_read(d, out, 0, got, threads * 4), 0);
            for (size_t id = 0; id < threads; id++) {
                uint32_t want = 0;

                for (unsigned r = 0; r < reads; r++) {
                    size_t o = (id + r * threads) * elems[e];

                    if (elems[e] == 1)
                        want += src8[o];
                    else if (elems[e] == 2)
                        want += (uint32_t)src8[o] | (uint32_t)src8[o + 1] << 8;
                    else
                        for (unsigned w = 0; w < elems[e] / 4; w++)
                            want += host[o / 4 + w];
                }
                if (!want)
                    want = 0xDEADBEEFu;
                if (got[id] != want)
                    fail_msg("copy-kernel reference, %u-byte elements: work-item %zu is 0x%08x, "
                             "expected 0x%08x",
                             elems[e], id, got[id], want);
            }
            free(got);
        }
    }

    gc__devfill_free(&s);
    gc__kcache_close(s.kcache);
    gc__device_close(d);
    if (gc__opencl_ops.fini)
        gc__opencl_ops.fini();
    free(host);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_and_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
