/* The configuration each energy benchmark meters, read from the results
 * tree on the simulated device: energy.X finds benchmark X's result in the
 * run's results and asks X's description (launch_at) for the launch of the
 * configuration X wrote there; with no result for X, or a failed one, X's
 * default configuration, said so; a configuration the launch cannot build or
 * the device cannot hold (a footprint outside the level, a shape the device
 * does not hold, an ILP the generator does not build) is refused with the
 * reason and the default is built. The simulated device runs no kernel, so
 * a launch's verification fails here: the launch shape it built is checked;
 * tests/pocl/test_energy.c runs the benchmarks first and reads the energy
 * benchmarks' notes end to end. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/null/null.h"
#include "bench/compute/compute.h"
#include "bench/launchcfg.h"
#include "core/benchcfg.h"
#include "core/kcache.h"
#include "core/meter.h"
#include "core/results.h"
#include "core/session.h"
#include "kgen/gen_stream.h"

static struct gc_device *dev;
static struct gc_session sess;
static struct gc_results *res;
static volatile sig_atomic_t stop_flag;

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-3, .seed = 7};
    char why[256], err[256];

    (void)state;
    gc__null_configure(&cfg);
    if (gc__null_ops.init(why, sizeof(why)) ||
        gc__device_open(&gc__null_ops, 0, &dev, err, sizeof(err)))
        return -1;
    memset(&sess, 0, sizeof(sess));
    sess.dev = dev;
    sess.stop = &stop_flag;
    sess.profile = GC_PROFILE_DEFAULT;
    sess.seed = 0x1234;
    return gc__kcache_open(NULL, true, &sess.kcache) ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    gc_results_free(res);
    gc__kcache_close(sess.kcache);
    gc__device_close(dev);
    gc__null_configure(NULL);
    return 0;
}

/* Each test starts from an empty results tree (no benchmark ran yet). */
static int clear(void **state)
{
    (void)state;
    gc_results_free(res);
    res = gc__results_new();
    sess.results = res;
    return res ? 0 : -1;
}

static const struct gc_itype *itype(const char *name)
{
    for (int i = 0; i < gc__itype_count(); i++)
        if (strcmp(gc__itype_get(i)->name, name) == 0)
            return gc__itype_get(i);
    return NULL;
}

/* The result benchmark `name` left in the run's results tree, status OK. */
static struct gc_bench_result *ran(const char *name)
{
    struct gc_bench_result *b = gc__results_add_bench(res, name, "x");

    assert_non_null(b);
    return b;
}

static void num(struct gc_bench_result *b, const char *part, const char *name, double v)
{
    assert_int_equal(gc__config_set_num(b, part, name, v), 0);
}

/* What energy.X asks X for, as the meter builds it from the results. */
static void ask_for(const char *bench, const char *part, struct gc_config_ask *ask, char *why,
                    size_t len)
{
    struct gc_meter_desc d = {.kind = GC_METER_LAUNCH, .part = part, .per = GC_METER_PER_BYTE};

    snprintf(d.bench, sizeof(d.bench), "%s", bench);
    gc__meter_config_ask(&sess, &d, 0, ask, why, len);
}

/* energy.X finds X's result in the results tree, or says why it has none. */
static void test_ask(void **state)
{
    struct gc_config_ask ask;
    char why[96];

    (void)state;
    ask_for("compute.fp32.fma", NULL, &ask, why, sizeof(why));
    assert_null(ask.from);
    assert_string_equal(ask.why_default, "did not run in this run");
    struct gc_bench_result *b = ran("compute.fp32.fma");
    ask_for("compute.fp32.fma", NULL, &ask, why, sizeof(why));
    assert_ptr_equal(ask.from, b);
    assert_null(ask.part);
    gc__bench_set_error(b, GC_BENCH_ERROR, "wrong result");
    ask_for("compute.fp32.fma", NULL, &ask, why, sizeof(why));
    assert_null(ask.from);
    assert_string_equal(ask.why_default, "failed in this run");
    /* Another benchmark's result is not this one's. */
    ran("compute.fp64.fma");
    ask_for("compute.fp32.fma", NULL, &ask, why, sizeof(why));
    assert_null(ask.from);
    ask_for("memory.bandwidth", "l2", &ask, why, sizeof(why));
    assert_null(ask.from);
    assert_string_equal(ask.part, "l2");
    /* A point of an occupancy sweep runs the default configuration. */
    struct gc_meter_desc d = {.kind = GC_METER_OCCUPANCY, .bench = "compute.fp64.fma"};
    gc__meter_config_ask(&sess, &d, 8, &ask, why, sizeof(why));
    assert_null(ask.from);
    assert_int_equal(ask.warps, 8);
}

static void test_compute(void **state)
{
    const struct gc_itype *t = itype("fp32.fma");
    struct gc_best_compute fixed, c;
    struct gc_config_ask ask;
    struct gc_cfg_pick p;
    char why[96];

    (void)state;
    assert_non_null(t);
    ask_for("compute.fp32.fma", NULL, &ask, why, sizeof(why));
    gc__compute_pick(&sess, t, &ask, &fixed, &p);
    assert_int_equal(p.origin, GC_CFG_DEFAULT);
    assert_string_equal(p.bench, "compute.fp32.fma");
    assert_string_equal(p.why, "did not run in this run");
    /* The default is one the generator builds at full occupancy (blocks
     * per CU 0: what is resident). */
    assert_true(fixed.ilp == 8 || (fixed.ilp == 4 && fixed.vw == 8));
    assert_int_equal(fixed.blocks_per_cu, 0);
    /* The benchmark ran and wrote its configuration: exactly that one. */
    struct gc_bench_result *b = ran("compute.fp32.fma");
    ask_for("compute.fp32.fma", NULL, &ask, why, sizeof(why));
    gc__compute_pick(&sess, t, &ask, &c, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_non_null(strstr(p.why, "records no ILP"));
    num(b, NULL, "ilp", 2);
    num(b, NULL, "vector_width", 1);
    num(b, NULL, "block", 128);
    num(b, NULL, "blocks_per_cu", 12);
    gc__compute_pick(&sess, t, &ask, &c, &p);
    assert_int_equal(p.origin, GC_CFG_RESULT);
    assert_int_equal(c.ilp, 2);
    assert_int_equal(c.vw, 1);
    assert_int_equal(c.block, 128);
    assert_int_equal(c.blocks_per_cu, 12);
    /* Configurations the launch cannot run: each refused with its reason,
     * the default kept. */
    static const struct {
        struct gc_best_compute r;
        const char *why;
    } bad[] = {
        {{3, 1, 256, 8}, "ILP 3"},           {{16, 1, 256, 8}, "ILP 16"},
        {{4, 3, 256, 8}, "vector width 3"},  {{4, 1, 2048, 1}, "block of 2048"},
        {{4, 1, 256, 9}, "9 blocks of 256"}, {{4, 1, 256, 0}, "0 blocks"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        num(b, NULL, "ilp", bad[i].r.ilp);
        num(b, NULL, "vector_width", bad[i].r.vw);
        num(b, NULL, "block", bad[i].r.block);
        num(b, NULL, "blocks_per_cu", bad[i].r.blocks_per_cu);
        gc__compute_pick(&sess, t, &ask, &c, &p);
        assert_int_equal(p.origin, GC_CFG_REFUSED);
        assert_non_null(strstr(p.why, bad[i].why));
        assert_memory_equal(&c, &fixed, sizeof(c));
    }
    /* A word where a number belongs is no configuration. */
    assert_int_equal(gc__config_set_text(b, NULL, "ilp", "eight"), 0);
    gc__compute_pick(&sess, t, &ask, &c, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
}

/* The meter builds energy.compute.fp32.fma through compute.fp32.fma's
 * description, at the launch shape of the configuration in the results. */
static void test_compute_launch(void **state)
{
    struct gc_meter_desc d = {.kind = GC_METER_LAUNCH, .bench = "compute.fp32.fma"};
    const struct gc_bench *perf = gc__bench_find(d.bench);
    struct gc_meter_launch w;
    int rc;

    (void)state;
    struct gc_bench_result *b = ran("compute.fp32.fma");
    num(b, NULL, "ilp", 2);
    num(b, NULL, "vector_width", 1);
    num(b, NULL, "block", 128);
    num(b, NULL, "blocks_per_cu", 3);
    gc__meter_launch_init(&w);
    rc = gc__meter_build(&sess, &d, perf, 0, &w);
    /* The simulated device computes nothing: the check of the first launch
     * fails, after the launch was laid out. */
    assert_true(rc == 0 || rc == GC_EVERIFY);
    assert_int_equal(w.l.block[0], 128);
    assert_int_equal(w.l.grid[0], 3 * dev->info.compute_units);
    assert_non_null(strstr(w.what, rc == 0 ? "ILP 2" : "ilp2"));
    gc__meter_launch_release(&sess, &w);
    /* A block the device cannot hold: the default block is built. */
    num(b, NULL, "block", 4096);
    gc__meter_launch_init(&w);
    rc = gc__meter_build(&sess, &d, perf, 0, &w);
    assert_true(rc == 0 || rc == GC_EVERIFY);
    assert_int_equal(w.l.block[0], 256);
    gc__meter_launch_release(&sess, &w);
}

/* energy.memory.dram.read: memory.dram.read's stream kernel at the vector
 * size, unroll and block of its result; the default where the block does
 * not fit the device. */
static void test_dram_launch(void **state)
{
    struct gc_meter_desc d = {
        .kind = GC_METER_LAUNCH, .bench = "memory.dram.read", .per = GC_METER_PER_BYTE};
    const struct gc_bench *perf = gc__bench_find(d.bench);
    struct gc_meter_launch w;
    int rc;

    (void)state;
    struct gc_bench_result *b = ran("memory.dram.read");
    num(b, NULL, "vector_bytes", 8);
    num(b, NULL, "unroll", 2);
    num(b, NULL, "block", 128);
    num(b, NULL, "streaming_stores", 0);
    num(b, NULL, "persistent", 1);
    assert_int_equal(gc__config_set_text(b, NULL, "load_path", "ld.global"), 0);
    gc__meter_launch_init(&w);
    rc = gc__meter_build(&sess, &d, perf, 0, &w);
    assert_true(rc == 0 || rc == GC_EVERIFY);
    assert_int_equal(w.l.block[0], 128);
    /* The kernel the configuration gives, over the buffer's tiles (the
     * trip bound the launch chose). */
    struct gc_stream_cfg want = {GC_STREAM_READ, 8, 128, 2, 0, GC_LD_DEFAULT, false, 1};
    const char *loop = w.req[0].src ? strstr(w.req[0].src, "t < ") : NULL;
    assert_non_null(loop);
    assert_int_equal(sscanf(loop, "t < %uu", &want.tiles), 1);
    char *src = gc__gen_stream(dev->ops->dialect, 0, &want);
    assert_non_null(src);
    assert_string_equal(w.req[0].src, src);
    free(src);
    gc__meter_launch_release(&sess, &w);
    /* A load path no device has: refused, the default built. */
    assert_int_equal(gc__config_set_text(b, NULL, "load_path", "ld.nowhere"), 0);
    gc__meter_launch_init(&w);
    rc = gc__meter_build(&sess, &d, perf, 0, &w);
    assert_true(rc == 0 || rc == GC_EVERIFY);
    assert_int_equal(w.l.block[0], dev->info.type == GC_DEVICE_GPU ? 512 : 256);
    gc__meter_launch_release(&sess, &w);
}

static void test_mma(void **state)
{
    const struct gc_bench *sync = gc__bench_find("compute.mma.f16_f32");
    const struct gc_bench *wg = gc__bench_find("compute.wgmma.f16_f32");
    struct gc_best_mma c, fixed;
    struct gc_config_ask ask;
    struct gc_cfg_pick p;
    char why[96];

    (void)state;
    assert_non_null(sync);
    assert_non_null(sync->launch_at);
    ask_for(sync->info.name, NULL, &ask, why, sizeof(why));
    gc__mma_pick(&sess, sync, &ask, &fixed, &p);
    assert_int_equal(p.origin, GC_CFG_DEFAULT);
    struct gc_bench_result *b = ran(sync->info.name);
    ask_for(sync->info.name, NULL, &ask, why, sizeof(why));
    num(b, NULL, "accumulators", 4);
    num(b, NULL, "units_per_sm", 32);
    gc__mma_pick(&sess, sync, &ask, &c, &p);
    assert_int_equal(p.origin, GC_CFG_RESULT);
    assert_int_equal(c.ilp, 4);
    assert_int_equal(c.units, 32);
    /* 3 accumulators: no such kernel; 6 warps: not whole 128-thread
     * blocks; 128 warps: above the SM's 64. */
    num(b, NULL, "accumulators", 3);
    num(b, NULL, "units_per_sm", 16);
    gc__mma_pick(&sess, sync, &ask, &c, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_non_null(strstr(p.why, "3 accumulators"));
    assert_memory_equal(&c, &fixed, sizeof(c));
    num(b, NULL, "accumulators", 8);
    num(b, NULL, "units_per_sm", 6);
    gc__mma_pick(&sess, sync, &ask, &c, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    num(b, NULL, "units_per_sm", 128);
    gc__mma_pick(&sess, sync, &ask, &c, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_non_null(strstr(p.why, "128 warps"));
    if (wg) {
        /* wgmma has one kernel: a configuration with accumulators is not it. */
        struct gc_bench_result *g = ran(wg->info.name);
        ask_for(wg->info.name, NULL, &ask, why, sizeof(why));
        num(g, NULL, "accumulators", 1);
        num(g, NULL, "units_per_sm", 3);
        gc__mma_pick(&sess, wg, &ask, &c, &p);
        assert_int_equal(p.origin, GC_CFG_RESULT);
        assert_int_equal(c.units, 3);
        num(g, NULL, "accumulators", 2);
        num(g, NULL, "units_per_sm", 2);
        gc__mma_pick(&sess, wg, &ask, &c, &p);
        assert_int_equal(p.origin, GC_CFG_REFUSED);
    }
}

/* Field by field: the struct has padding. */
static void same_cb(const struct gc_best_cachebw *a, const struct gc_best_cachebw *b)
{
    assert_int_equal(a->vec_bytes, b->vec_bytes);
    assert_int_equal(a->ld, b->ld);
    assert_int_equal(a->footprint, b->footprint);
    assert_int_equal(a->grid, b->grid);
}

static void plateau(struct gc_bench_result *b, const char *part, const struct gc_best_cachebw *c)
{
    num(b, part, "vector_bytes", c->vec_bytes);
    assert_int_equal(
        gc__config_set_text(b, part, "load_path", gc__ldpath_ptx((enum gc_ldpath)c->ld)), 0);
    num(b, part, "footprint", (double)c->footprint);
    num(b, part, "grid", c->grid);
}

static void test_cachebw(void **state)
{
    struct gc_best_cachebw c, fixed1, fixed2;
    struct gc_config_ask a1, a2;
    struct gc_cfg_pick p;
    size_t l2 = dev->info.l2_size;
    unsigned grid = 32; /* 8 blocks of 256 on each of 4 CUs */
    char w1[96], w2[96];

    (void)state;
    assert_true(l2 >= ((size_t)1 << 20));
    ask_for("memory.bandwidth", "l1", &a1, w1, sizeof(w1));
    ask_for("memory.bandwidth", "l2", &a2, w2, sizeof(w2));
    gc__cachebw_pick(&sess, 1, &a1, &fixed1, &p);
    assert_int_equal(p.origin, GC_CFG_DEFAULT);
    assert_string_equal(p.bench, "memory.bandwidth");
    gc__cachebw_pick(&sess, 2, &a2, &fixed2, &p);
    assert_int_equal(p.origin, GC_CFG_DEFAULT);
    assert_true(fixed2.footprint <= l2 / 2);
    /* The plateaus' points: each level reads its own part. */
    struct gc_best_cachebw r1 = {8, GC_LD_DEFAULT, 32 << 10, grid};
    struct gc_best_cachebw r2 = {16, GC_LD_DEFAULT, l2 / 4, grid};
    struct gc_bench_result *b = ran("memory.bandwidth");
    ask_for("memory.bandwidth", "l1", &a1, w1, sizeof(w1));
    ask_for("memory.bandwidth", "l2", &a2, w2, sizeof(w2));
    plateau(b, "l1", &r1);
    /* The benchmark ran and found no L2 plateau: said so. */
    gc__cachebw_pick(&sess, 2, &a2, &c, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_non_null(strstr(p.why, "no L2 plateau"));
    same_cb(&c, &fixed2);
    plateau(b, "l2", &r2);
    gc__cachebw_pick(&sess, 1, &a1, &c, &p);
    assert_int_equal(p.origin, GC_CFG_RESULT);
    same_cb(&c, &r1);
    gc__cachebw_pick(&sess, 2, &a2, &c, &p);
    assert_int_equal(p.origin, GC_CFG_RESULT);
    same_cb(&c, &r2);
    /* An L1 footprint above what every L1 holds, an L2 one above half the
     * cache or below what one SM's blocks merge, the L2-only path for L1 or
     * on a device without cache operators, an odd vector, a grid the device
     * does not hold: refused. */
    static const struct {
        int level;
        struct gc_best_cachebw r;
        const char *why;
    } bad[] = {
        {1, {16, GC_LD_DEFAULT, 128 << 10, 32}, "above the 64 KiB"},
        {1, {16, GC_LD_DEFAULT, 12288, 32}, "whole number of chunks"},
        {1, {12, GC_LD_DEFAULT, 16 << 10, 32}, "12-byte"},
        {1, {16, GC_LD_CG, 16 << 10, 32}, "load path"},
        {1, {16, GC_LD_DEFAULT, 16 << 10, 4096}, "4096 blocks"},
        {2, {16, GC_LD_DEFAULT, 1 << 20, 32}, "L2/2"},
        {2, {16, GC_LD_DEFAULT, 64 << 10, 32}, "L2/2"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        plateau(b, bad[i].level == 1 ? "l1" : "l2", &bad[i].r);
        gc__cachebw_pick(&sess, bad[i].level, bad[i].level == 1 ? &a1 : &a2, &c, &p);
        assert_int_equal(p.origin, GC_CFG_REFUSED);
        assert_non_null(strstr(p.why, bad[i].why));
        same_cb(&c, bad[i].level == 1 ? &fixed1 : &fixed2);
    }
}

static void elem(struct gc_bench_result *b, int bytes, int per_cu)
{
    num(b, NULL, "elem_bytes", bytes);
    num(b, NULL, "blocks_per_cu", per_cu);
}

static void test_shared_constant_atomics(void **state)
{
    struct gc_best_elem e, fixed;
    struct gc_best_atomics a, afixed;
    struct gc_config_ask ask;
    struct gc_cfg_pick p;
    char why[96];

    (void)state;
    ask_for("memory.shared", NULL, &ask, why, sizeof(why));
    gc__shared_pick(&sess, &ask, &fixed, &p);
    assert_int_equal(p.origin, GC_CFG_DEFAULT);
    assert_int_equal(fixed.elem_bytes, 16);
    struct gc_bench_result *b = ran("memory.shared");
    ask_for("memory.shared", NULL, &ask, why, sizeof(why));
    elem(b, 8, fixed.blocks_per_cu);
    gc__shared_pick(&sess, &ask, &e, &p);
    assert_int_equal(p.origin, GC_CFG_RESULT);
    assert_int_equal(e.elem_bytes, 8);
    elem(b, 8, fixed.blocks_per_cu + 1);
    gc__shared_pick(&sess, &ask, &e, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_int_equal(e.elem_bytes, 16);
    elem(b, 12, fixed.blocks_per_cu);
    gc__shared_pick(&sess, &ask, &e, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);

    ask_for("memory.constant", NULL, &ask, why, sizeof(why));
    gc__constant_pick(&sess, &ask, &fixed, &p);
    assert_int_equal(p.origin, GC_CFG_DEFAULT);
    assert_int_equal(fixed.elem_bytes, 4);
    b = ran("memory.constant");
    ask_for("memory.constant", NULL, &ask, why, sizeof(why));
    gc__constant_pick(&sess, &ask, &e, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_non_null(strstr(p.why, "records no element size"));
    elem(b, 8, fixed.blocks_per_cu);
    gc__constant_pick(&sess, &ask, &e, &p);
    assert_int_equal(p.origin, GC_CFG_RESULT);
    assert_int_equal(e.elem_bytes, 8);
    elem(b, 16, fixed.blocks_per_cu);
    gc__constant_pick(&sess, &ask, &e, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_memory_equal(&e, &fixed, sizeof(e));

    ask_for("memory.atomics", NULL, &ask, why, sizeof(why));
    gc__atomics_pick(&sess, &ask, &afixed, &p);
    assert_int_equal(p.origin, GC_CFG_DEFAULT);
    b = ran("memory.atomics");
    ask_for("memory.atomics", NULL, &ask, why, sizeof(why));
    num(b, NULL, "blocks_per_cu", afixed.blocks_per_cu);
    num(b, NULL, "trips", 16);
    gc__atomics_pick(&sess, &ask, &a, &p);
    assert_int_equal(p.origin, GC_CFG_RESULT);
    assert_int_equal(a.trips, 16);
    num(b, NULL, "blocks_per_cu", afixed.blocks_per_cu + 1);
    gc__atomics_pick(&sess, &ask, &a, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_memory_equal(&a, &afixed, sizeof(a));
    num(b, NULL, "blocks_per_cu", afixed.blocks_per_cu);
    num(b, NULL, "trips", 1 << 20);
    gc__atomics_pick(&sess, &ask, &a, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
}

/* The note says where the configuration came from, first. */
static void test_describe(void **state)
{
    struct gc_meter_launch w;
    struct gc_config_ask ask = {.why_default = "failed in this run"};
    struct gc_cfg_pick p;

    (void)state;
    gc__meter_launch_init(&w);
    assert_null(gc__cfg_pick_start(&p, "memory.bandwidth", &ask));
    p.origin = GC_CFG_RESULT;
    gc__meter_launch_describe(&w, &p, "memory.bandwidth load kernel", "%d-byte vectors", 8);
    assert_string_equal(w.what, "memory.bandwidth load kernel at the configuration "
                                "memory.bandwidth found in this run: 8-byte vectors");
    gc__cfg_pick_start(&p, "memory.bandwidth", &ask);
    gc__meter_launch_describe(&w, &p, "k", "%d-byte vectors", 16);
    assert_string_equal(w.what, "k, default configuration (the performance benchmark "
                                "memory.bandwidth failed in this run): 16-byte vectors");
    gc__cfg_refuse(&p, "footprint %d KiB", 128);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    gc__meter_launch_describe(&w, &p, "k", "%d-byte vectors", 16);
    assert_non_null(strstr(w.what, "default configuration"));
    assert_non_null(strstr(w.what, "memory.bandwidth's was not used: footprint 128 KiB"));
    assert_null(strstr(w.what, "failed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_ask, clear),
        cmocka_unit_test_setup(test_compute, clear),
        cmocka_unit_test_setup(test_compute_launch, clear),
        cmocka_unit_test_setup(test_dram_launch, clear),
        cmocka_unit_test_setup(test_mma, clear),
        cmocka_unit_test_setup(test_cachebw, clear),
        cmocka_unit_test_setup(test_shared_constant_atomics, clear),
        cmocka_unit_test(test_describe),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
