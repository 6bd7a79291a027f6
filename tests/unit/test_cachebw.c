/* memory.bandwidth on the harness, on the simulated (null) device made to
 * look like a GPU with cache hints and a 256 KiB L2: the plan (every curve x
 * footprint, the plateau each point may feed), the run (every point screened
 * and drawn, only each plateau's leaders measured in full), the figures
 * (from full measurements only), and the expected per-thread sums of the
 * load kernel from lane prefix sums against a brute-force sum. The null
 * device runs no kernel, so the runs here replace the verification. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/null/null.h"
#include "bench/cachebw/cachebw.h"
#include "core/benchcfg.h"
#include "bench/cachebw/verify.h"
#include "bench/launchcfg.h"
#include "core/devfill.h"
#include "core/harness.h"
#include "core/kcache.h"
#include "core/results.h"
#include "util/random.h"
#include "nullfx.h"

#define L2 ((size_t)256 << 10)

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-4, .noise_rel = 0.01, .seed = 5};

    (void)state;
    nullfx_open(&fx, &cfg, 77);
    fx.dev->info.type = GC_DEVICE_GPU;
    fx.dev->info.caps |= GC_CAP_CACHE_HINTS;
    fx.dev->info.l2_size = L2;
    return 0;
}

static int count_bits(const struct gc_harness *h, unsigned bit)
{
    int n = 0;

    for (int i = 0; i < h->ncfg; i++)
        n += (h->cfg[i].plateaus & bit) != 0;
    return n;
}

/* Default profile: 6 curves (load default/cg/nc 16 B, 8 B, 4 B, copy 16 B)
 * x 11 footprints (4 KiB doubling to 16 x L2). L1: the caching loads up to
 * 64 KiB; L2: the .cg load in [32 blocks x 16 KiB / 4, L2 / 2] = 128 KiB;
 * L2 copy: the copy there; DRAM: every load at 4 MiB. */
static void test_plan(void **state)
{
    struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.bandwidth", "memory");
    struct gc_harness h;
    struct gc_cachebw_run *cr = NULL;

    (void)state;
    assert_int_equal(gc__cachebw_plan(&fx.s, r, &h, &cr), 0);
    assert_int_equal(r->nseries, 6);
    assert_int_equal(h.ncfg, 66);
    assert_int_equal(count_bits(&h, GC_CB_L1), 4 * 5);
    assert_int_equal(count_bits(&h, GC_CB_L2), 1);
    assert_int_equal(count_bits(&h, GC_CB_L2_COPY), 1);
    assert_int_equal(count_bits(&h, GC_CB_DRAM), 5);
    for (int i = 0; i < h.ncfg; i++) {
        const struct gc_hconf *c = &h.cfg[i];

        assert_true(c->series >= 0 && c->series < 6);
        assert_true(c->x >= 4096 && c->x <= 16.0 * L2);
        if (c->plateaus & GC_CB_L2)
            assert_float_equal(c->x, L2 / 2, 0);
        if (c->plateaus & GC_CB_DRAM)
            assert_float_equal(c->x, 16.0 * L2, 0);
    }
    /* Without 8x the cache in the sweep there is no DRAM plateau; a CPU
     * takes L1 at any footprint. */
    assert_int_equal(gc__cachebw_plateaus(&fx.dev->info, false, GC_LD_DEFAULT, 4 * L2, 4 * L2, 32),
                     0);
    fx.dev->info.type = GC_DEVICE_OTHER;
    assert_true(gc__cachebw_plateaus(&fx.dev->info, false, GC_LD_DEFAULT, 2 * L2, 16 * L2, 32) &
                GC_CB_L1);
    gc__cachebw_free(&fx.s, &h, cr);

    /* Quick: footprints quadrupling (4 KiB to 4 MiB: 6); the 16-byte loads
     * and the copy at every footprint, the 8- and 4-byte loads at the L1
     * footprints only (4, 16 and 64 KiB), so that the L1 figure has every
     * width. A CPU device keeps the three curves. */
    fx.dev->info.type = GC_DEVICE_GPU;
    fx.s.profile = GC_PROFILE_QUICK;
    r = gc__results_add_bench(fx.res, "memory.bandwidth", "memory");
    assert_int_equal(gc__cachebw_plan(&fx.s, r, &h, &cr), 0);
    assert_int_equal(r->nseries, 5);
    assert_int_equal(h.ncfg, 3 * 6 + 2 * 3);
    assert_int_equal(count_bits(&h, GC_CB_L1), 3 * 3);
    for (int i = 0; i < h.ncfg; i++)
        if (h.cfg[i].series == 2 || h.cfg[i].series == 3) /* the 8- and 4-byte loads */
            assert_true(h.cfg[i].x <= 64 << 10 && (h.cfg[i].plateaus & GC_CB_L1));
    gc__cachebw_free(&fx.s, &h, cr);
    fx.dev->info.type = GC_DEVICE_CPU;
    r = gc__results_add_bench(fx.res, "memory.bandwidth", "memory");
    assert_int_equal(gc__cachebw_plan(&fx.s, r, &h, &cr), 0);
    assert_int_equal(r->nseries, 3);
    gc__cachebw_free(&fx.s, &h, cr);
    fx.dev->info.type = GC_DEVICE_GPU;
    fx.s.profile = GC_PROFILE_DEFAULT;
}

/* The refined member of a plateau with the highest value. */
static const struct gc_hconf *best_refined(const struct gc_harness *h, unsigned bit)
{
    const struct gc_hconf *b = NULL;

    for (int i = 0; i < h->ncfg; i++)
        if (h->cfg[i].state == GC_H_REFINED && (h->cfg[i].plateaus & bit) &&
            (!b || h->cfg[i].value > b->value))
            b = &h->cfg[i];
    return b;
}

/* Every point screened and drawn; each plateau's leaders (at least one, at
 * most refine_max) and nothing else measured in full; the figures are those
 * full measurements, whatever a screen says. */
static void test_run(void **state)
{
    struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.bandwidth", "memory");
    struct gc_harness h;
    struct gc_cachebw_run *cr = NULL;
    static const unsigned bits[4] = {GC_CB_L1, GC_CB_L2, GC_CB_L2_COPY, GC_CB_DRAM};
    static const char *const names[4] = {"l1_bandwidth", "l2_bandwidth", "l2_copy_bandwidth",
                                         "dram_read_bandwidth"};

    (void)state;
    assert_int_equal(gc__cachebw_plan(&fx.s, r, &h, &cr), 0);
    gc__cachebw_desc(cr)->verify = NULL; /* the null device runs no kernel */
    assert_int_equal(gc__harness_run(&h), 0);
    assert_int_equal(gc__cachebw_derive(&fx.s, &h, cr, "memory.bandwidth"), 0);
    assert_int_equal(h.screened, h.ncfg);
    /* The L1 plateau's point is the result's configuration (part "l1"):
     * the footprint of the configuration the figure came from. */
    const struct gc_config_param *fl1 = gc__config_find(r, "l1", "footprint");
    const struct gc_hconf *cl1 = gc__cachebw_plateau_best(&h, GC_CB_L1);
    assert_non_null(fl1);
    assert_non_null(cl1);
    assert_float_equal(fl1->value, cl1->x, 0);
    assert_non_null(gc__config_text(r, "l1", "load_path"));
    int vb = 0;
    assert_true(gc__config_int(r, "l1", "vector_bytes", &vb));
    assert_true(vb == 4 || vb == 8 || vb == 16);
    int pts = 0;
    for (int k = 0; k < r->nseries; k++) {
        pts += r->series[k].npoints;
        for (int i = 1; i < r->series[k].npoints; i++)
            assert_true(r->series[k].points[i].x > r->series[k].points[i - 1].x);
    }
    assert_int_equal(pts, h.ncfg);
    for (int i = 0; i < h.ncfg; i++) {
        const struct gc_hconf *c = &h.cfg[i];

        if (c->state == GC_H_REFINED)
            assert_true(c->plateaus != 0);
        else
            assert_int_equal(c->state, GC_H_SCREENED);
    }
    for (int b = 0; b < 4; b++) {
        int refined = 0;
        const struct gc_hconf *best = best_refined(&h, bits[b]);
        const struct gc_metric *m = nullfx_metric(r, names[b]);

        for (int i = 0; i < h.ncfg; i++)
            refined += (h.cfg[i].plateaus & bits[b]) && h.cfg[i].state == GC_H_REFINED;
        assert_true(refined >= 1 && refined <= gc__cachebw_desc(cr)->refine_max);
        assert_non_null(best);
        assert_non_null(m);
        assert_float_equal(m->value, best->value, 0);
        assert_int_equal(m->stats.n, best->m.samples);
        assert_true(best->m.samples >= fx.s.sampling.min_samples);
    }
    /* A screen far above every full measurement changes no figure. */
    double l1 = nullfx_metric(r, "l1_bandwidth")->value;
    for (int i = 0; i < h.ncfg; i++)
        if ((h.cfg[i].plateaus & GC_CB_L1) && h.cfg[i].state == GC_H_SCREENED)
            h.cfg[i].screen_value = 1e30;
    struct gc_bench_result *r2 = gc__results_add_bench(fx.res, "memory.bandwidth", "memory");
    h.r = r2;
    assert_int_equal(gc__cachebw_derive(&fx.s, &h, cr, "memory.bandwidth"), 0);
    assert_float_equal(nullfx_metric(r2, "l1_bandwidth")->value, l1, 0);
    gc__cachebw_free(&fx.s, &h, cr);
}

/* The kernel's form follows the device: a GPU's loop over the passes with
 * the next pass's index depending on the last load; a CPU's one chunk per
 * block without a loop (what an OpenCL CPU compiler vectorizes across
 * work-items), launched with as many blocks as cover the footprint and,
 * where the cache holds it, move the launch's bytes, within the per-thread
 * sums' buffer. */
static void test_cpu_form(void **state)
{
    for (int cpu = 0; cpu < 2; cpu++) {
        struct gc_bench_result *r = gc__results_add_bench(fx.res, "memory.bandwidth", "memory");
        struct gc_harness h;
        struct gc_cachebw_run *cr = NULL;

        (void)state;
        fx.dev->info.type = cpu ? GC_DEVICE_CPU : GC_DEVICE_GPU;
        assert_int_equal(gc__cachebw_plan(&fx.s, r, &h, &cr), 0);
        for (int i = 0; i < h.ncfg; i++) {
            const char *src = h.cfg[i].src;

            assert_non_null(src);
            assert_true((strstr(src, "for (") == NULL) == (cpu == 1));
            assert_true((strstr(src, "& zero") == NULL) == (cpu == 1));
        }
        gc__cachebw_desc(cr)->verify = NULL; /* the null device runs no kernel */
        assert_int_equal(gc__harness_run(&h), 0);
        assert_int_equal(gc__cachebw_derive(&fx.s, &h, cr, "memory.bandwidth"), 0);
        const struct gc_config_param *g = gc__config_find(r, "l1", "grid"),
                                     *f = gc__config_find(r, "l1", "footprint");
        assert_non_null(g);
        assert_non_null(f);
        if (cpu) {
            size_t chunk = f->value >= 16384 ? 16384 : f->value >= 8192 ? 8192 : 4096;
            /* A cached footprint: 64 MiB a launch, within 16 MiB of sums
             * (the largest footprint); else the footprint once. */
            double cached = (double)(64 << 20) / (double)chunk;
            if (cached > (16 << 20) / 1024)
                cached = (16 << 20) / 1024;
            assert_float_equal(g->value, f->value <= L2 ? cached : f->value / (double)chunk, 0);
        } else {
            assert_true(g->value <= 32 * 8); /* the resident blocks */
        }
        gc__cachebw_free(&fx.s, &h, cr);
    }
    fx.dev->info.type = GC_DEVICE_GPU;
}

/* The expected per-thread sums from lane prefix sums equal the brute-force
 * sums over the words each thread reads, with and without wrapping, for
 * each vector width. */
static void test_expected_sums(void **state)
{
    static const unsigned passes[3] = {1, 5, 13};
    const int block = 256;
    const unsigned grid = 7;

    (void)state;
    for (int vec = 4; vec <= 16; vec *= 2)
        for (int pi = 0; pi < 3; pi++) {
            struct gc_cb_check c = {.seed = 99,
                                    .fp = 64 << 10,
                                    .chunk = 16 << 10,
                                    .vec_bytes = vec,
                                    .unroll = (16 << 10) / (block * vec),
                                    .block = block,
                                    .grid = grid,
                                    .passes = passes[pi]};
            struct gc_cb_lanes l = {0};
            size_t n = c.fp / c.chunk, cw = c.chunk / 4, vw = (size_t)vec / 4;

            assert_int_equal(gc__cb_lanes_host(&c, &l), 0);
            for (unsigned b = 0; b < grid; b++)
                for (int t = 0; t < block; t += 37) {
                    uint32_t want = 0;
                    size_t ch = (size_t)b * c.passes % n;

                    for (unsigned k = 0; k < c.passes; k++) {
                        for (int u = 0; u < c.unroll; u++)
                            for (size_t w = 0; w < vw; w++)
                                want += gc__hash32(
                                    c.seed, ch * cw + ((size_t)u * block + (size_t)t) * vw + w);
                        ch = ch + 1 == n ? 0 : ch + 1;
                    }
                    assert_int_equal(gc__cb_expected(&l, b, (unsigned)t, c.passes), want);
                }
            gc__cb_lanes_free(&l);
        }
}

/* The check passes an output that holds what the kernel must write and
 * names a wrong word: per-thread sums (lanes from the device's reference
 * kernel, which the null device does not run: the spot check against the
 * generator sends it to the host) and a copy (the device's check cannot run
 * here either: the host compares). */
static void test_check(void **state)
{
    struct gc_buf *src = NULL, *out = NULL, *ref = NULL;
    struct gc_cb_lanes l = {0};
    struct gc_cb_check c = {.seed = 4,
                            .fp = 32 << 10,
                            .chunk = 16 << 10,
                            .vec_bytes = 16,
                            .unroll = 4,
                            .block = 256,
                            .grid = 3,
                            .passes = 3};
    uint32_t sums[3 * 256], bad = 1;
    char msg[200] = "";

    (void)state;
    assert_int_equal(gc__dev_alloc(fx.dev, c.fp, &src), 0);
    assert_int_equal(gc__dev_alloc(fx.dev, c.fp, &out), 0);
    assert_int_equal(gc__dev_alloc(fx.dev, 2 * 256 * 4, &ref), 0);
    assert_int_equal(gc__devfill_hash(&fx.s, src, c.fp, c.seed), 0);
    c.src = src;
    c.out = out;
    c.ref = ref;
    assert_int_equal(gc__cb_lanes_host(&c, &l), 0);
    for (unsigned i = 0; i < 3 * 256; i++)
        sums[i] = gc__cb_expected(&l, i / 256, i % 256, c.passes);
    gc__cb_lanes_free(&l);
    assert_int_equal(gc__dev_write(fx.dev, out, 0, sums, sizeof(sums)), 0);
    assert_int_equal(gc__cb_check(&fx.s, &c, &l, msg, sizeof(msg)), 0);
    assert_int_equal(gc__dev_write(fx.dev, out, 4 * 300, &bad, 4), 0);
    assert_int_equal(gc__cb_check(&fx.s, &c, &l, msg, sizeof(msg)), GC_EVERIFY);
    assert_non_null(strstr(msg, "per-thread sum word 300"));

    c.copy = true;
    assert_int_equal(gc__devfill_hash(&fx.s, out, c.fp, c.seed), 0);
    assert_int_equal(gc__cb_check(&fx.s, &c, &l, msg, sizeof(msg)), 0);
    assert_int_equal(gc__dev_write(fx.dev, out, 4 * 1000, &bad, 4), 0);
    assert_int_equal(gc__cb_check(&fx.s, &c, &l, msg, sizeof(msg)), GC_EVERIFY);
    assert_non_null(strstr(msg, "copied word 1000"));
    gc__cb_lanes_free(&l);
    gc__dev_free(fx.dev, src);
    gc__dev_free(fx.dev, out);
    gc__dev_free(fx.dev, ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plan, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_run, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_cpu_form, setup, nullfx_teardown),
        cmocka_unit_test(test_expected_sums),
        cmocka_unit_test_setup_teardown(test_check, setup, nullfx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
