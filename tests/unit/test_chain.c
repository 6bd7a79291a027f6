/* The pointer chase's chain (gc__chase_chain_words, gc__chase_install_chain):
 * one cycle through every element, or one per slice, the walks' orders
 * stored after it and the ends of walks looked up in them, the words and the
 * install kernel's pairs, and the cycles themselves, which every figure of
 * the chases depends on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"
#include "core/kcache.h"
#include "core/memo.h"
#include "nullfx.h"

/* FNV-1a over words: the cycles' fingerprints. */
static uint64_t fnv(const uint32_t *w, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (size_t i = 0; i < n; i++) {
        h ^= w[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* The end of a walk of steps from element 0, looked up in the stored order,
 * against the walk itself; and from any element of the cycle, through the
 * element's position in the order. */
static void check_ends(const uint32_t *next, size_t m)
{
    const uint64_t steps[] = {0, 1, 2, 17, 1000, 4097, 18432, ((uint64_t)1 << 40) + 7};
    uint32_t *pos = malloc(m * sizeof(*pos));

    assert_non_null(pos);
    for (size_t k = 0; k < m; k++)
        pos[next[m + k]] = (uint32_t)k;
    for (size_t t = 0; t < sizeof(steps) / sizeof(steps[0]); t++) {
        uint64_t n = steps[t];
        assert_int_equal(gc__chase_walk(next, m, n), gc__chase_walk_from(next, 0, m, n));
        assert_int_equal(gc__chase_walk(next, m, m + n), gc__chase_walk_from(next, 0, m, n));
        for (uint32_t start = 0; start < m; start += (uint32_t)(m / 5 + 1))
            assert_int_equal(gc__chase_end(next, m, 0, m, pos[start] + n),
                             gc__chase_walk_from(next, start, m, n));
    }
    free(pos);
}

/* A dense plan: one 4-byte element per 64-byte line. */
static struct plan dense_plan(void)
{
    struct plan pl;

    memset(&pl, 0, sizeof(pl));
    pl.spacing = 64;
    pl.line = 64;
    pl.esize = 4;
    return pl;
}

static void test_one_cycle_and_its_order(void **state)
{
    static const size_t ms[] = {1, 2, 3, 7, 64, 1000, 4099};
    struct plan pl = dense_plan();

    (void)state;
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
            check_ends(next, m);
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
    pl = dense_plan();
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

/* The cycles never change: the same seed gives the same chain, words and
 * order, whatever the code that makes them (fingerprints of the chains the
 * chases have always walked). */
static void test_same_cycles(void **state)
{
    static const struct {
        size_t m;
        uint64_t seed, chain, words;
    } g[] = {
        {1000, 1, 0xee3a04ae151f898bULL, 0xe89bdfba3e40cbecULL},
        {100003, 0x1234, 0x6699b93710fdffb7ULL, 0x0ad5ce4a89d2e5e2ULL},
    };
    struct plan pl = dense_plan();

    (void)state;
    for (size_t t = 0; t < sizeof(g) / sizeof(g[0]); t++) {
        uint32_t *next = NULL;
        size_t m = 0;
        uint32_t *w = gc__chase_chain_words(&pl, g[t].m * pl.spacing, g[t].seed, &next, &m);
        assert_non_null(w);
        assert_int_equal(fnv(next, 2 * m), g[t].chain);
        assert_int_equal(fnv(w, g[t].m * pl.spacing / 4), g[t].words);
        free(next);
        free(w);
    }
}

/* The slots of a walk's order, dense and one per page, are gc__chase_slot_of's. */
static void test_order_slots(void **state)
{
    struct plan pl;
    uint32_t order[3000], ord[3000];

    (void)state;
    for (size_t k = 0; k < 3000; k++)
        order[k] = (uint32_t)((k * 7919) % 3000);
    for (int paged = 0; paged < 2; paged++)
        for (size_t esize = 4; esize <= 8; esize += 4) {
            memset(&pl, 0, sizeof(pl));
            pl.paged = paged;
            pl.line = 128;
            pl.spacing = paged ? (size_t)2 << 20 : 128;
            pl.esize = esize;
            gc__chase_order_slots(&pl, order, 3000, ord);
            for (size_t k = 0; k < 3000; k++)
                assert_int_equal(ord[k], gc__chase_slot_of(&pl, order[k]));
        }
}

/* A chase context on the simulated device with the install kernel and
 * buffers for n elements of 128 bytes (the cycle path's L2 chase). */
static void install_open(struct chase_ctx *c, struct gc_kreq *req, size_t n)
{
    memset(c, 0, sizeof(*c));
    memset(req, 0, sizeof(*req));
    c->s = &fx.s;
    c->path = PATH_L2;
    c->clocks = true;
    c->pl.spacing = c->pl.line = 128;
    c->pl.esize = 8;
    req->label = "install";
    req->src = gc__chase_gen_install(fx.dev->ops->dialect);
    assert_int_equal(gc__kcache_build(&fx.s, req, 1), 0);
    assert_int_equal(fx.dev->ops->kernel(req->prog, "gc_install", &c->install), 0);
    assert_int_equal(gc__dev_alloc(fx.dev, n * 128, &c->buf), 0);
    assert_int_equal(gc__dev_alloc(fx.dev, 2 * n * 8, &c->pairs), 0);
}

static void install_close(struct chase_ctx *c, struct gc_kreq *req)
{
    gc__dev_free(fx.dev, c->buf);
    gc__dev_free(fx.dev, c->pairs);
    gc__kreq_release(&fx.s, req, 1);
}

/* A chain of slices installed on the simulated device: each slice one cycle
 * of its own elements, its order stored after the chain, the ends of walks
 * from its first element looked up there as a walk finds them; the pairs the
 * install kernel reads (byte offsets where the chase carries addresses); and
 * the cycles the every-SM chase has always had. */
static void test_slices(void **state)
{
    const size_t ms = 37, n = ms * 5;
    struct gc_kreq req;
    struct chase_ctx c;
    uint32_t *next = NULL;
    size_t m = 0;
    uint64_t pairs[2 * 185];

    (void)state;
    install_open(&c, &req, n);
    assert_int_equal(gc__chase_install_chain(&c, n * 128, 5, 3, &next, &m), 0);
    assert_int_equal(m, n);
    assert_int_equal(fnv(next, n), 0x8f42ab4bf38b9c61ULL);
    for (size_t b = 0; b < 5; b++) {
        uint32_t e = (uint32_t)(b * ms);
        for (size_t k = 0; k < ms; k++) {
            assert_int_equal(next[n + b * ms + k], e);
            assert_true(e >= b * ms && e < (b + 1) * ms);
            e = next[e];
        }
        assert_int_equal(e, b * ms);
        for (uint64_t st = 0; st < 3 * ms; st += 5)
            assert_int_equal(gc__chase_end(next, n, b * ms, ms, st),
                             gc__chase_walk_from(next, (uint32_t)(b * ms), ms, st));
    }
    assert_int_equal(gc__dev_read(fx.dev, c.pairs, 0, pairs, sizeof(pairs)), 0);
    for (size_t e = 0; e < n; e++) {
        assert_int_equal(pairs[2 * e], gc__chase_slot_of(&c.pl, e));
        assert_int_equal(pairs[2 * e + 1], 8 * gc__chase_slot_of(&c.pl, next[e]));
    }
    free(next);
    install_close(&c, &req);
}

/* The cycle path keeps its one-SM cycles for the run: installing the same
 * footprint and seed again gives the same chain (a copy of the kept one),
 * the one gc__chase_chain_words makes; the event path keeps none. */
static void test_kept_cycles(void **state)
{
    const size_t n = 1000;
    struct gc_kreq req;
    struct chase_ctx c;
    struct plan pl = {.spacing = 128, .line = 128, .esize = 8};
    uint32_t *a = NULL, *b = NULL, *ref = NULL, *w;
    size_t m = 0, bytes = 0;

    (void)state;
    gc__memo_free(&fx.s);
    install_open(&c, &req, n);
    c.clocks = false;
    assert_int_equal(gc__chase_install_chain(&c, n * 128, 1, 9, &a, &m), 0);
    assert_int_equal(gc__memo_count(&fx.s, &bytes), 0);
    c.clocks = true;
    free(a);
    assert_int_equal(gc__chase_install_chain(&c, n * 128, 1, 9, &a, &m), 0);
    assert_int_equal(gc__memo_count(&fx.s, &bytes), 1);
    assert_int_equal(bytes, 2 * n * sizeof(uint32_t));
    assert_int_equal(gc__chase_install_chain(&c, n * 128, 1, 9, &b, &m), 0);
    assert_int_equal(gc__memo_count(&fx.s, &bytes), 1);
    w = gc__chase_chain_words(&pl, n * 128, 9, &ref, &m);
    assert_non_null(w);
    assert_ptr_not_equal(a, b);
    assert_memory_equal(a, ref, 2 * n * sizeof(uint32_t));
    assert_memory_equal(b, ref, 2 * n * sizeof(uint32_t));
    free(a);
    free(b);
    free(ref);
    free(w);
    install_close(&c, &req);
}

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-4, .seed = 5};

    (void)state;
    nullfx_open(&fx, &cfg, 7);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_cycle_and_its_order),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_same_cycles),
        cmocka_unit_test(test_order_slots),
        cmocka_unit_test(test_slices),
        cmocka_unit_test(test_kept_cycles),
    };
    return cmocka_run_group_tests(tests, setup, nullfx_teardown);
}
