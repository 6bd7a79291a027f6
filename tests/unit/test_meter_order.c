/* The meter runner's physical orderings, given as data by a description
 * (core/meter.h): a figure recorded under its key by one metered benchmark
 * is the reference a later one's dynamic energy per operation, per FLOP or
 * per byte is checked against; no reference, or an unresolved dynamic
 * energy, is said in a note; a per-FLOP ordering is not made for a launch
 * that counts no FLOPs, nor a GPU-only one on another device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "core/meter.h"
#include "core/results.h"

static struct gc_device dev;
static struct gc_session sess;
static struct gc_results *res;

static const struct gc_meter_desc ffma_row = {
    .kind = GC_METER_LAUNCH, .bench = "compute.fp32.fma", .key = "fp32.fma"};
static const struct gc_meter_desc dfma_row = {
    .kind = GC_METER_LAUNCH,
    .bench = "compute.fp64.fma",
    .key = "fp64.fma",
    .order = {"fp32.fma", GC_METER_PER_OP, true, false, "energy per DFMA above energy per FFMA"}};
static const struct gc_meter_desc mma_row = {.kind = GC_METER_LAUNCH,
                                             .bench = "compute.mma.f16_f32",
                                             .key = "mma.f16_f32",
                                             .order = {"fp32.fma/FLOP", GC_METER_PER_FLOP, false,
                                                       false,
                                                       "tensor-core energy per FLOP below FFMA's"}};
static const struct gc_meter_desc dram_row = {.kind = GC_METER_LAUNCH,
                                              .bench = "memory.dram.read",
                                              .per = GC_METER_PER_BYTE,
                                              .key = "dram.read"};
static const struct gc_meter_desc l2_row = {
    .kind = GC_METER_LAUNCH,
    .bench = "memory.bandwidth",
    .part = "l2",
    .per = GC_METER_PER_BYTE,
    .key = "l2",
    .order = {"dram.read", GC_METER_PER_BYTE, false, true, "energy per byte from L2 below DRAM's"}};

/* Each test starts from a run where nothing was metered yet. */
static int fresh(void **state)
{
    (void)state;
    gc__energy_state_free(sess.energy);
    gc_results_free(res);
    memset(&sess, 0, sizeof(sess));
    memset(&dev, 0, sizeof(dev));
    dev.info.type = GC_DEVICE_CPU;
    sess.dev = &dev;
    res = gc__results_new();
    return res ? 0 : -1;
}

static int done(void **state)
{
    (void)state;
    gc__energy_state_free(sess.energy);
    sess.energy = NULL;
    gc_results_free(res);
    res = NULL;
    return 0;
}

/* A launch of ops operations, flops FLOPs and bytes bytes whose total and
 * dynamic energy per operation are total_pj and dyn_pj. */
static void launch(struct gc_meter_launch *w, struct gc_meter_figures *f, double ops, double flops,
                   double bytes, double total_pj, double dyn_pj)
{
    memset(w, 0, sizeof(*w));
    memset(f, 0, sizeof(*f));
    w->ops = ops;
    w->flops = flops;
    w->bytes = bytes;
    w->op_unit = flops > 0 ? "result" : "op";
    f->per_op_j = total_pj * 1e-12;
    f->dyn_op_j = dyn_pj * 1e-12;
}

static struct gc_bench_result *bench(const char *name)
{
    struct gc_bench_result *r = gc__results_add_bench(res, name, "x");

    assert_non_null(r);
    return r;
}

static void test_per_op(void **state)
{
    struct gc_meter_launch w;
    struct gc_meter_figures f;
    struct gc_bench_result *r = bench("energy.compute.fp64.fma");
    const struct gc_metric *m;

    (void)state;
    /* No reference yet: said so, not a failure. */
    launch(&w, &f, 100, 200, 0, 40, 30);
    assert_true(gc__meter_orderings(&sess, r, &dfma_row, &w, &f));
    assert_non_null(m = gc__bench_find_metric(r, "ordering_check"));
    assert_true(isnan(m->value));
    assert_non_null(strstr(m->note, "not checked: fp32.fma was not measured earlier"));
    /* FFMA recorded per result and per FLOP; DFMA's dynamic energy above. */
    launch(&w, &f, 100, 200, 0, 20, 10);
    gc__meter_remember(&sess, &ffma_row, &w, &f);
    r = bench("energy.compute.fp64.fma");
    launch(&w, &f, 100, 200, 0, 40, 30);
    assert_true(gc__meter_orderings(&sess, r, &dfma_row, &w, &f));
    assert_non_null(m = gc__bench_find_metric(r, "ordering_check"));
    assert_true(fabs(m->value - 3.0) < 1e-9);
    assert_non_null(strstr(m->note, "is above"));
    /* Below it: a violation fails the benchmark. */
    r = bench("energy.compute.fp64.fma");
    launch(&w, &f, 100, 200, 0, 40, 5);
    assert_false(gc__meter_orderings(&sess, r, &dfma_row, &w, &f));
    assert_int_equal(r->status, GC_BENCH_ERROR);
    assert_non_null(strstr(r->error, "physical ordering violated"));
    /* An unresolved dynamic energy: not checked, said with the totals. */
    r = bench("energy.compute.fp64.fma");
    launch(&w, &f, 100, 200, 0, 40, NAN);
    assert_true(gc__meter_orderings(&sess, r, &dfma_row, &w, &f));
    assert_non_null(m = gc__bench_find_metric(r, "ordering_check"));
    assert_non_null(strstr(m->note, "dynamic energy not resolved"));
}

static void test_per_flop(void **state)
{
    struct gc_meter_launch w;
    struct gc_meter_figures f;
    struct gc_bench_result *r = bench("energy.compute.mma.f16_f32");
    const struct gc_metric *m;

    (void)state;
    /* FFMA: 10 pJ of dynamic energy per result of 2 FLOPs, 5 per FLOP. */
    launch(&w, &f, 100, 200, 0, 20, 10);
    gc__meter_remember(&sess, &ffma_row, &w, &f);
    /* A launch that counts no FLOPs: no per-FLOP ordering. */
    launch(&w, &f, 100, 0, 0, 4000, 3000);
    assert_true(gc__meter_orderings(&sess, r, &mma_row, &w, &f));
    assert_null(gc__bench_find_metric(r, "ordering_check"));
    /* 4096 FLOPs per operation: 1000 / 4096 pJ per FLOP, below 5. */
    launch(&w, &f, 100, 409600, 0, 2000, 1000);
    assert_true(gc__meter_orderings(&sess, r, &mma_row, &w, &f));
    assert_non_null(m = gc__bench_find_metric(r, "ordering_check"));
    assert_true(fabs(m->value - 1000.0 / 4096 / 5) < 1e-9);
    assert_non_null(strstr(m->note, "pJ/FLOP"));
}

static void test_per_byte_gpu_only(void **state)
{
    struct gc_meter_launch w;
    struct gc_meter_figures f;
    struct gc_bench_result *r = bench("energy.memory.l2");
    const struct gc_metric *m;

    (void)state;
    /* DRAM: 64 pJ of dynamic energy per access of 32 bytes, 2 per byte. */
    launch(&w, &f, 10, 0, 320, 96, 64);
    gc__meter_remember(&sess, &dram_row, &w, &f);
    /* On a CPU the memory orderings are not made. */
    launch(&w, &f, 10, 0, 320, 48, 16);
    assert_true(gc__meter_orderings(&sess, r, &l2_row, &w, &f));
    assert_null(gc__bench_find_metric(r, "ordering_check"));
    /* On a GPU: 0.5 pJ/B from L2 below DRAM's 2. */
    dev.info.type = GC_DEVICE_GPU;
    assert_true(gc__meter_orderings(&sess, r, &l2_row, &w, &f));
    assert_non_null(m = gc__bench_find_metric(r, "ordering_check"));
    assert_true(fabs(m->value - 0.25) < 1e-9);
    assert_non_null(strstr(m->note, "pJ/B"));
    /* Above it: a violation. */
    r = bench("energy.memory.l2");
    launch(&w, &f, 10, 0, 320, 200, 100);
    assert_false(gc__meter_orderings(&sess, r, &l2_row, &w, &f));
    assert_int_equal(r->status, GC_BENCH_ERROR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_per_op, fresh, done),
        cmocka_unit_test_setup_teardown(test_per_flop, fresh, done),
        cmocka_unit_test_setup_teardown(test_per_byte_gpu_only, fresh, done),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
