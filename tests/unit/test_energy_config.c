/* The configuration each energy workload runs at (bench/workload.h), on the
 * simulated device: with no record of its performance benchmark the fixed
 * one, said so; with the record the benchmark stores after its peak (the
 * same key and struct the benchmark writes, gc__best_put) exactly that
 * configuration, said so; with a record the workload cannot run (a
 * footprint outside the level, a shape the device does not hold, an ILP the
 * generator does not build) the fixed one, with the reason. The simulated
 * device runs no kernel, so the performance benchmarks themselves cannot
 * reach their peak here: tests/pocl/test_energy.c runs them first and reads
 * the energy workloads' notes end to end. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "backend/null/null.h"
#include "bench/compute/compute.h"
#include "bench/workload.h"
#include "core/bestcfg.h"
#include "core/session.h"

static struct gc_device *dev;
static struct gc_session sess;
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
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gc__device_close(dev);
    gc__null_configure(NULL);
    return 0;
}

/* Each test starts from an empty store (no benchmark ran yet). */
static int clear(void **state)
{
    (void)state;
    gc__best_free(sess.best);
    sess.best = NULL;
    return 0;
}

static const struct gc_itype *itype(const char *name)
{
    for (int i = 0; i < gc__itype_count(); i++)
        if (strcmp(gc__itype_get(i)->name, name) == 0)
            return gc__itype_get(i);
    return NULL;
}

static void put(const char *key, const void *rec, size_t len)
{
    assert_int_equal(gc__best_put(&sess, key, rec, len), 0);
}

static void test_compute(void **state)
{
    const struct gc_itype *t = itype("fp32.fma");
    struct gc_best_compute fixed, c, rec = {2, 1, 128, 12};
    struct gc_cfg_pick p;

    (void)state;
    assert_non_null(t);
    gc__compute_pick(&sess, t, &fixed, &p);
    assert_int_equal(p.origin, GC_CFG_FIXED);
    assert_string_equal(p.bench, "compute.fp32.fma");
    /* The fixed configuration is one the generator builds at full
     * occupancy (blocks per CU 0: what is resident). */
    assert_true(fixed.ilp == 8 || (fixed.ilp == 4 && fixed.vw == 8));
    assert_int_equal(fixed.blocks_per_cu, 0);
    /* The benchmark ran: its peak, exactly. */
    put("compute.fp32.fma", &rec, sizeof(rec));
    gc__compute_pick(&sess, t, &c, &p);
    assert_int_equal(p.origin, GC_CFG_BEST);
    assert_memory_equal(&c, &rec, sizeof(c));
    /* Another entry's record is not this one's. */
    gc__compute_pick(&sess, itype("fp64.fma"), &c, &p);
    assert_int_equal(p.origin, GC_CFG_FIXED);
    /* Records the workload cannot run: each refused with its reason, the
     * fixed configuration kept. */
    static const struct {
        struct gc_best_compute r;
        const char *why;
    } bad[] = {
        {{3, 1, 256, 8}, "ILP 3"},           {{16, 1, 256, 8}, "ILP 16"},
        {{4, 3, 256, 8}, "vector width 3"},  {{4, 1, 2048, 1}, "block of 2048"},
        {{4, 1, 256, 9}, "9 blocks of 256"}, {{4, 1, 256, 0}, "0 blocks"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        put("compute.fp32.fma", &bad[i].r, sizeof(bad[i].r));
        gc__compute_pick(&sess, t, &c, &p);
        assert_int_equal(p.origin, GC_CFG_REFUSED);
        assert_non_null(strstr(p.why, bad[i].why));
        assert_memory_equal(&c, &fixed, sizeof(c));
    }
}

static void test_mma(void **state)
{
    const struct gc_bench *sync = gc__bench_find("compute.mma.f16_f32");
    const struct gc_bench *wg = gc__bench_find("compute.wgmma.f16_f32");
    struct gc_best_mma c, fixed, rec = {4, 32};
    struct gc_cfg_pick p;

    (void)state;
    assert_non_null(sync);
    gc__mma_pick(&sess, sync, &fixed, &p);
    assert_int_equal(p.origin, GC_CFG_FIXED);
    put(sync->info.name, &rec, sizeof(rec));
    gc__mma_pick(&sess, sync, &c, &p);
    assert_int_equal(p.origin, GC_CFG_BEST);
    assert_memory_equal(&c, &rec, sizeof(c));
    /* 3 accumulators: no such kernel; 6 warps: not whole 128-thread
     * blocks; 128 warps: above the SM's 64. */
    put(sync->info.name, &(struct gc_best_mma){3, 16}, sizeof(rec));
    gc__mma_pick(&sess, sync, &c, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_non_null(strstr(p.why, "3 accumulators"));
    assert_memory_equal(&c, &fixed, sizeof(c));
    put(sync->info.name, &(struct gc_best_mma){8, 6}, sizeof(rec));
    gc__mma_pick(&sess, sync, &c, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    put(sync->info.name, &(struct gc_best_mma){8, 128}, sizeof(rec));
    gc__mma_pick(&sess, sync, &c, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_non_null(strstr(p.why, "128 warps"));
    if (wg) {
        /* wgmma has one kernel: a record with accumulators is not it. */
        put(wg->info.name, &(struct gc_best_mma){1, 3}, sizeof(rec));
        gc__mma_pick(&sess, wg, &c, &p);
        assert_int_equal(p.origin, GC_CFG_BEST);
        assert_int_equal(c.units, 3);
        put(wg->info.name, &(struct gc_best_mma){2, 2}, sizeof(rec));
        gc__mma_pick(&sess, wg, &c, &p);
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

static void test_cachebw(void **state)
{
    struct gc_best_cachebw c, fixed1, fixed2;
    struct gc_cfg_pick p;
    size_t l2 = dev->info.l2_size;
    unsigned grid = 32; /* 8 blocks of 256 on each of 4 CUs */

    (void)state;
    assert_true(l2 >= ((size_t)1 << 20));
    gc__cachebw_pick(&sess, 1, &fixed1, &p);
    assert_int_equal(p.origin, GC_CFG_FIXED);
    assert_string_equal(p.bench, "memory.bandwidth");
    gc__cachebw_pick(&sess, 2, &fixed2, &p);
    assert_int_equal(p.origin, GC_CFG_FIXED);
    assert_true(fixed2.footprint <= l2 / 2);
    /* The plateaus' points: each level reads its own record. */
    struct gc_best_cachebw r1 = {8, GC_LD_DEFAULT, 32 << 10, grid};
    struct gc_best_cachebw r2 = {16, GC_LD_DEFAULT, l2 / 4, grid};
    put(GC_BEST_L1, &r1, sizeof(r1));
    gc__cachebw_pick(&sess, 2, &c, &p);
    assert_int_equal(p.origin, GC_CFG_FIXED);
    /* The benchmark ran and found no L2 plateau: said so. */
    put("memory.bandwidth", "", 1);
    gc__cachebw_pick(&sess, 2, &c, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_non_null(strstr(p.why, "no L2 plateau"));
    same_cb(&c, &fixed2);
    put(GC_BEST_L2, &r2, sizeof(r2));
    gc__cachebw_pick(&sess, 1, &c, &p);
    assert_int_equal(p.origin, GC_CFG_BEST);
    same_cb(&c, &r1);
    gc__cachebw_pick(&sess, 2, &c, &p);
    assert_int_equal(p.origin, GC_CFG_BEST);
    same_cb(&c, &r2);
    /* An L1 footprint above what every L1 holds, an L2 one above half the
     * cache or below what one SM's blocks merge, the L2-only path for L1 or
     * on a device without cache operators, an odd vector: refused. */
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
        put(bad[i].level == 1 ? GC_BEST_L1 : GC_BEST_L2, &bad[i].r, sizeof(bad[i].r));
        gc__cachebw_pick(&sess, bad[i].level, &c, &p);
        assert_int_equal(p.origin, GC_CFG_REFUSED);
        assert_non_null(strstr(p.why, bad[i].why));
        same_cb(&c, bad[i].level == 1 ? &fixed1 : &fixed2);
    }
}

static void test_shared_constant_atomics(void **state)
{
    struct gc_best_elem e, fixed;
    struct gc_best_atomics a, afixed;
    struct gc_cfg_pick p;

    (void)state;
    gc__shared_pick(&sess, &fixed, &p);
    assert_int_equal(p.origin, GC_CFG_FIXED);
    assert_int_equal(fixed.elem_bytes, 16);
    put("memory.shared", &(struct gc_best_elem){8, fixed.blocks_per_cu}, sizeof(e));
    gc__shared_pick(&sess, &e, &p);
    assert_int_equal(p.origin, GC_CFG_BEST);
    assert_int_equal(e.elem_bytes, 8);
    put("memory.shared", &(struct gc_best_elem){8, fixed.blocks_per_cu + 1}, sizeof(e));
    gc__shared_pick(&sess, &e, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_int_equal(e.elem_bytes, 16);
    put("memory.shared", &(struct gc_best_elem){12, fixed.blocks_per_cu}, sizeof(e));
    gc__shared_pick(&sess, &e, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);

    gc__constant_pick(&sess, &fixed, &p);
    assert_int_equal(p.origin, GC_CFG_FIXED);
    assert_int_equal(fixed.elem_bytes, 4);
    put("memory.constant", &(struct gc_best_elem){8, fixed.blocks_per_cu}, sizeof(e));
    gc__constant_pick(&sess, &e, &p);
    assert_int_equal(p.origin, GC_CFG_BEST);
    assert_int_equal(e.elem_bytes, 8);
    put("memory.constant", &(struct gc_best_elem){16, fixed.blocks_per_cu}, sizeof(e));
    gc__constant_pick(&sess, &e, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_memory_equal(&e, &fixed, sizeof(e));

    gc__atomics_pick(&sess, &afixed, &p);
    assert_int_equal(p.origin, GC_CFG_FIXED);
    put("memory.atomics", &(struct gc_best_atomics){afixed.blocks_per_cu, 16}, sizeof(a));
    gc__atomics_pick(&sess, &a, &p);
    assert_int_equal(p.origin, GC_CFG_BEST);
    assert_int_equal(a.trips, 16);
    put("memory.atomics", &(struct gc_best_atomics){afixed.blocks_per_cu + 1, 16}, sizeof(a));
    gc__atomics_pick(&sess, &a, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    assert_memory_equal(&a, &afixed, sizeof(a));
    put("memory.atomics", &(struct gc_best_atomics){afixed.blocks_per_cu, 1 << 20}, sizeof(a));
    gc__atomics_pick(&sess, &a, &p);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
}

/* The note says where the configuration came from, first. */
static void test_describe(void **state)
{
    struct gc_workload w;
    struct gc_cfg_pick p = {GC_CFG_BEST, "memory.bandwidth", ""};

    (void)state;
    gc__workload_init(&w);
    gc__workload_describe(&w, &p, "memory.bandwidth load kernel", "%d-byte vectors", 8);
    assert_string_equal(w.what, "memory.bandwidth load kernel at the configuration "
                                "memory.bandwidth found in this run: 8-byte vectors");
    p.origin = GC_CFG_FIXED;
    gc__workload_describe(&w, &p, "k", "%d-byte vectors", 16);
    assert_non_null(strstr(w.what, "fixed configuration"));
    assert_non_null(strstr(w.what, "memory.bandwidth did not run in this session"));
    assert_non_null(strstr(w.what, "16-byte vectors"));
    gc__cfg_refuse(&p, "footprint %d KiB", 128);
    assert_int_equal(p.origin, GC_CFG_REFUSED);
    gc__workload_describe(&w, &p, "k", "%d-byte vectors", 16);
    assert_non_null(strstr(w.what, "fixed configuration"));
    assert_non_null(strstr(w.what, "memory.bandwidth's was not used: footprint 128 KiB"));
    assert_null(strstr(w.what, "did not run"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_compute, clear),
        cmocka_unit_test_setup(test_mma, clear),
        cmocka_unit_test_setup(test_cachebw, clear),
        cmocka_unit_test_setup(test_shared_constant_atomics, clear),
        cmocka_unit_test(test_describe),
    };
    int rc = cmocka_run_group_tests(tests, setup, teardown);

    gc__best_free(sess.best);
    return rc;
}
