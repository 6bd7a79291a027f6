/* Unit tests of the predicted time and Table IV (src/model/predict.c,
 * predict_tree.c) on made-up profiles: the formulas of docs/methodology.md
 * §26.3-26.4 evaluated exactly. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/occupancy.h"
#include "core/results.h"
#include "model/hiding.h"
#include "model/predict.h"
#include "report/apphtml.h"

#define REL(a, b) (fabs((a) - (b)) <= 1e-12 * fabs(b))

static struct gc_peaks peaks(void)
{
    struct gc_peaks p;

    gc__peaks_init(&p);
    p.ops[GC_APP_OP_FP32] = 1e12;
    p.bw[GC_APP_LVL_DRAM] = 1e11;
    p.bw[GC_APP_LVL_L2] = 4e11;
    p.bw[GC_APP_LVL_L1] = 1e12;
    return p;
}

static void test_roofline(void **state)
{
    struct gc_peaks p = peaks();
    struct gc_app_work w;
    struct gc_prediction pr;

    (void)state;
    gc__app_work_init(&w);
    w.threads = 1 << 20;
    w.block_threads = 256;
    w.ops[GC_APP_OP_FP32] = 2e9;    /* 2 ms */
    w.bytes[GC_APP_LVL_DRAM] = 1e8; /* 1 ms */
    w.bytes[GC_APP_LVL_L2] = 1e9;   /* 2.5 ms */
    w.bytes[GC_APP_LVL_L1] = 1e9;   /* 1 ms */
    assert_int_equal(gc__predict_time(&w, &p, NULL, NAN, &pr), 0);
    assert_true(REL(pr.roof_s, 2.5e-3));
    assert_int_equal(pr.roof_res, GC_PRED_RES_LVL + GC_APP_LVL_L2);
    assert_string_equal(gc__pred_res_name(pr.roof_res), "l2");
    assert_true(isnan(pr.volkov_s));
    assert_false(pr.by_volkov);
    assert_true(REL(pr.time_s, 2.5e-3));
    assert_int_equal(pr.unpriced, 0);

    /* Work without a peak is left unpriced and counted. */
    w.bytes[GC_APP_LVL_SHARED] = 1e12;
    w.ops[GC_APP_OP_INT32] = 1e12;
    assert_int_equal(gc__predict_time(&w, &p, NULL, NAN, &pr), 0);
    assert_int_equal(pr.unpriced, 2);
    assert_true(REL(pr.time_s, 2.5e-3));

    /* Nothing priced: no prediction. */
    struct gc_peaks none;
    gc__peaks_init(&none);
    assert_int_equal(gc__predict_time(&w, &none, NULL, NAN, &pr), GC_EINVAL);
}

static struct gc_hiding_hw hw(void)
{
    struct gc_hiding_hw h;

    memset(&h, 0, sizeof(h));
    h.unit[GC_HIDING_ALU] = (struct gc_hiding_unit){true, 4, 4, 1};
    h.unit[GC_HIDING_MEM] = (struct gc_hiding_unit){true, 400, 1, 1};
    h.issue_thru = 4;
    h.mem_bytes_per_inst = 128;
    h.max_warps = 64;
    h.clock_hz = 1e9;
    h.sm_count = 100;
    return h;
}

/* 100 SMs x 64 warps; per warp 10 ALU instructions and 2 memory ones. */
static struct gc_app_work volkov_work(void)
{
    struct gc_app_work w;

    gc__app_work_init(&w);
    w.threads = 100.0 * 64 * 32;
    w.block_threads = 256;
    w.ops[GC_APP_OP_FP32] = 10 * w.threads;
    w.bytes[GC_APP_LVL_DRAM] = 100.0 * 64 * 2 * 128;
    return w;
}

static void test_volkov(void **state)
{
    struct gc_hiding_hw h = hw();
    struct gc_peaks p;
    struct gc_app_work w = volkov_work();
    struct gc_prediction pr;

    (void)state;
    gc__peaks_init(&p);
    p.ops[GC_APP_OP_FP32] = 1e12; /* 2.048e-6 s */
    p.bw[GC_APP_LVL_DRAM] = 1e12; /* 1.6384e-6 s */
    /* 8 warps/SM: Latency = 10 x 4 + 2 x 400 = 840 cycles per group, x =
     * 8 / 840 (under every throughput bound), T = 64 / x / 1e9. */
    assert_int_equal(gc__predict_time(&w, &p, &h, 8, &pr), 0);
    assert_true(REL(pr.roof_s, 2.048e-6));
    assert_true(REL(pr.volkov_s, 64.0 * 840 / 8 / 1e9));
    assert_int_equal(pr.volkov_limit, GC_HIDING_LATENCY);
    assert_true(pr.warps == 8);
    assert_true(pr.by_volkov);
    assert_true(REL(pr.time_s, 6.72e-6));

    /* No occupancy given: all 64 warps of the launch per SM, 840 ns, under
     * the roofline's 2.048 us. */
    assert_int_equal(gc__predict_time(&w, &p, &h, NAN, &pr), 0);
    assert_true(pr.warps == 64);
    assert_true(REL(pr.volkov_s, 840e-9));
    assert_false(pr.by_volkov);
    assert_true(REL(pr.time_s, 2.048e-6));

    /* More warps asked than the launch has per SM: the launch's. */
    assert_int_equal(gc__predict_time(&w, &p, &h, 1000, &pr), 0);
    assert_true(pr.warps == 64);

    /* 16-byte loads: each warp load is four of the model's 128-byte units
     * in flight together, Latency = 10 x 4 + 2 x 400 / 4 = 240 cycles. */
    w.access_bytes = 16;
    assert_int_equal(gc__predict_time(&w, &p, &h, 8, &pr), 0);
    assert_true(REL(pr.volkov_s, 64.0 * 240 / 8 / 1e9));
    /* 4-byte loads are the unit itself: unchanged. */
    w.access_bytes = 4;
    assert_int_equal(gc__predict_time(&w, &p, &h, 8, &pr), 0);
    assert_true(REL(pr.volkov_s, 64.0 * 840 / 8 / 1e9));
}

static void test_attained(void **state)
{
    struct gc_peaks p = peaks();
    struct gc_app_work w;
    struct gc_attained a;

    (void)state;
    gc__app_work_init(&w);
    w.threads = 1024;
    w.block_threads = 256;
    w.bytes[GC_APP_LVL_DRAM] = 5e7; /* 5e10 B/s in 1 ms: 50% */
    w.bytes[GC_APP_LVL_L2] = 3e8;   /* 3e11 B/s: 75% */
    gc__attained(&w, 1e-3, &p, &a);
    assert_int_equal(a.res, GC_PRED_RES_LVL + GC_APP_LVL_L2);
    assert_true(REL(a.rate, 3e11));
    assert_true(a.peak == 4e11);
    assert_false(a.above);

    w.bytes[GC_APP_LVL_L1] = 2e9; /* 2e12 B/s, twice the peak */
    gc__attained(&w, 1e-3, &p, &a);
    assert_int_equal(a.res, GC_PRED_RES_LVL + GC_APP_LVL_L1);
    assert_true(a.above);

    gc__attained(&w, 0, &p, &a);
    assert_int_equal(a.res, -1);
}

static void add_peak(struct gc_results *r, const char *bench, const char *metric, double v,
                     const char *unit, enum gc_bench_status st)
{
    struct gc_bench_result *b = gc__results_add_bench(r, bench, "memory");

    assert_non_null(b);
    b->status = st;
    assert_non_null(gc__bench_add_metric(b, metric, v, unit, NAN, NULL, NULL));
}

static void add_kernel(struct gc_bench_result *b, const char *k, double dram, double t)
{
    struct gc_app_work w;
    char name[64];

    gc__app_work_init(&w);
    w.threads = 4096;
    w.block_threads = 256;
    w.bytes[GC_APP_LVL_DRAM] = dram;
    assert_int_equal(gc__app_work_put(b, k, &w), 0);
    snprintf(name, sizeof(name), "%s.time", k);
    assert_non_null(gc__bench_add_metric(b, name, t, "s", NAN, NULL, NULL));
}

static double value(const struct gc_bench_result *b, const char *name)
{
    const struct gc_metric *m = gc__bench_find_metric(b, name);

    assert_non_null(m);
    return m->value;
}

/* The L1's request rate from its bandwidth (one line a wavefront), and a
 * kernel whose requests touch many lines for few sectors bound by it: a
 * column walk's 32 lines per request against 32 sectors, where the sectors
 * alone would be a quarter of the time. */
static void test_wavefronts(void **state)
{
    struct gc_results *r = gc__results_new();
    struct gc_peaks p;
    struct gc_app_work w;
    struct gc_prediction pr;
    double l1 = 3.2e13, l2 = 8e12, warps = 1 << 15, k = 1024;

    (void)state;
    assert_non_null(r);
    add_peak(r, "memory.bandwidth", "l1_bandwidth", l1, "B/s", GC_BENCH_OK);
    assert_non_null(
        gc__bench_add_metric(&r->benches[0], "l2_bandwidth", l2, "B/s", NAN, NULL, NULL));
    gc__peaks_from_results(r, &p);
    assert_true(p.bw[GC_APP_LVL_L2] == l2);
    assert_true(REL(p.l1_wave, l1 / GC_APP_L1_LINE));
    assert_non_null(strstr(p.l1_wave_src, "l1_bandwidth"));
    gc_results_free(r);

    gc__app_work_init(&w);
    w.threads = warps * 32;
    w.block_threads = 256;
    /* per warp and trip: a broadcast (1 sector, 1 line), a column walk (32, 32) */
    w.bytes[GC_APP_LVL_L1] = warps * k * 33 * 32.0;
    w.l1_wavefronts = warps * k * 33;
    w.bytes[GC_APP_LVL_L2] = warps * k * 4.125 * 32.0;
    assert_int_equal(gc__predict_time(&w, &p, NULL, NAN, &pr), 0);
    assert_int_equal(pr.roof_res, GC_PRED_RES_L1W);
    assert_string_equal(gc__pred_res_name(pr.roof_res), "l1_wavefronts");
    assert_true(REL(pr.time_s, warps * k * 33 * GC_APP_L1_LINE / l1));
    /* the sectors alone: a quarter of that */
    assert_true(REL(w.bytes[GC_APP_LVL_L1] / p.bw[GC_APP_LVL_L1], pr.time_s / 4));

    /* Table IV names the wavefronts as the busiest resource, per second. */
    struct gc_attained a;
    gc__attained(&w, 2 * pr.time_s, &p, &a);
    assert_int_equal(a.res, GC_PRED_RES_L1W);
    assert_true(REL(a.rate, 0.5 * p.l1_wave));

    /* No L1 peak in the run: the wavefronts are unpriced like any work. */
    p.l1_wave = NAN;
    assert_int_equal(gc__predict_time(&w, &p, NULL, NAN, &pr), 0);
    assert_int_equal(pr.unpriced, 1);
}

static void test_tree(void **state)
{
    struct gc_results *r = gc__results_new();

    (void)state;
    assert_non_null(r);
    add_peak(r, "memory.dram.read", "read_bandwidth", 1e11, "B/s", GC_BENCH_OK);
    add_peak(r, "memory.dram.copy", "copy_bandwidth", 2e11, "B/s", GC_BENCH_OK);
    /* A failed benchmark's figure is no peak. */
    add_peak(r, "memory.dram.write", "write_bandwidth", 9e11, "B/s", GC_BENCH_ERROR);
    struct gc_bench_result *b = gc__results_add_bench(r, "application.test", "application");
    assert_non_null(b);
    /* Predicted 1 ms each (2e8 B at 2e11 B/s); measured 1.25, 0.5, 0.8 ms:
     * errors -20%, +100%, +25%, median |error| 25%. */
    add_kernel(b, "k1", 2e8, 1.25e-3);
    add_kernel(b, "k2", 2e8, 0.5e-3);
    add_kernel(b, "k3", 2e8, 0.8e-3);

    struct gc_peaks p;
    gc__peaks_from_results(r, &p);
    assert_true(p.bw[GC_APP_LVL_DRAM] == 2e11);
    assert_string_equal(p.bw_src[GC_APP_LVL_DRAM], "memory.dram.copy copy_bandwidth");
    assert_true(isnan(p.ops[GC_APP_OP_FP32]));

    assert_int_equal(gc_predict_results(r), 3);
    b = &r->benches[r->nbenches - 1];
    assert_true(REL(value(b, "k1.predicted_time"), 1e-3));
    assert_true(REL(value(b, "k1.prediction_error"), -20.0));
    assert_true(REL(value(b, "k2.prediction_error"), 100.0));
    assert_true(REL(value(b, "k3.prediction_error"), 25.0));
    assert_true(REL(value(b, "prediction_error_median"), 25.0));
    /* Table IV: k2 moves 2e8 B in 0.5 ms, 4e11 B/s, twice the peak. */
    const struct gc_metric *a = gc__bench_find_metric(b, "k2.attained");
    assert_non_null(a);
    assert_true(REL(a->value, 4e11));
    assert_true(a->limit == 2e11);
    assert_true(REL(a->fraction, 2.0));
    assert_non_null(strstr(a->note, "ABOVE"));
    assert_non_null(strstr(b->warning, "k2"));
    assert_null(strstr(gc__bench_find_metric(b, "k1.attained")->note, "ABOVE"));

    /* The report's section: one row per kernel, k2 flagged. */
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    assert_non_null(f);
    assert_int_equal(gc_write_text(r, f), 0);
    fclose(f);
    const char *sec = strstr(text, "== application.test: measured vs predicted time");
    assert_non_null(sec);
    const char *row = strstr(sec, "\n  k2 ");
    assert_non_null(row);
    const char *eol = strchr(row + 1, '\n');
    assert_non_null(eol);
    char line[256];
    snprintf(line, sizeof(line), "%.*s", (int)(eol - row), row);
    assert_non_null(strstr(line, "+100.0%"));
    assert_non_null(strstr(line, "dram"));
    assert_non_null(strstr(line, "200.0% ABOVE"));
    assert_non_null(strstr(sec, "median |error| 25.0%"));
    free(text);

    /* The figure's series: measured and predicted per kernel, by index. */
    const struct gc_series *sm = gc__bench_find_series(b, "time_measured_per_kernel");
    const struct gc_series *sp = gc__bench_find_series(b, "time_predicted_per_kernel");
    assert_non_null(sm);
    assert_non_null(sp);
    assert_int_equal(sm->npoints, 3);
    assert_int_equal(sp->npoints, 3);
    assert_true(sm->points[1].x == 2 && sm->points[1].y == 0.5e-3);
    assert_string_equal(sm->points[1].label, "k2");
    assert_true(REL(sp->points[1].y, 1e-3));

    /* The HTML page's table: the same rows and the median. */
    text = NULL;
    f = open_memstream(&text, &tlen);
    assert_non_null(f);
    gc__app_html(f, b);
    fclose(f);
    assert_non_null(strstr(text, "Table IV"));
    assert_non_null(strstr(text, "<td>k2</td>"));
    assert_non_null(strstr(text, "200.0% ABOVE"));
    assert_non_null(strstr(text, "median |error| 25.0%"));
    assert_null(strstr(text, "Table 2")); /* no best_variant: no Table 2 view */
    free(text);

    /* With uCLbench's Table 2 metrics: its view, the best version named once. */
    assert_non_null(gc__bench_add_metric(b, "best_variant", 1, "", NAN, NULL,
                                         "best version vec4 (vectorization); (T_baseline / T_best "
                                         "- 1) x 100"));
    assert_non_null(gc__bench_add_metric(b, "improvement", 25.0, "%", NAN, NULL, NULL));
    text = NULL;
    f = open_memstream(&text, &tlen);
    assert_non_null(f);
    gc__app_html(f, b);
    fclose(f);
    assert_non_null(strstr(text, "Table 2"));
    assert_non_null(strstr(text, "<td>vec4 (vectorization)</td>"));
    assert_non_null(strstr(text, "<td>+25.0%</td>"));
    free(text);

    /* Predicting again (a saved file) replaces, adds nothing. */
    int n = b->nmetrics, ns = b->nseries;
    assert_int_equal(gc_predict_results(r), 3);
    assert_int_equal(b->nmetrics, n);
    assert_int_equal(b->nseries, ns);
    assert_int_equal(gc__bench_find_series(b, "time_measured_per_kernel")->npoints, 3);
    assert_true(REL(value(b, "prediction_error_median"), 25.0));
    assert_int_equal(gc_predict_results(NULL), GC_EINVAL);
    gc_results_free(r);
}

static void test_resident(void **state)
{
    struct gc_device_info info;

    (void)state;
    memset(&info, 0, sizeof(info));
    info.max_threads_per_cu = 2048;
    info.max_blocks_per_cu = 32;
    info.regs_per_cu = 65536;
    info.shared_per_cu = 233472;
    info.shared_reserved_per_block = 1024;
    assert_int_equal(gc__occupancy_resident(&info, 256, -1, 0), 8);      /* threads */
    assert_int_equal(gc__occupancy_resident(&info, 256, 64, 0), 4);      /* registers */
    assert_int_equal(gc__occupancy_resident(&info, 256, 32, 100000), 2); /* shared */
    assert_int_equal(gc__occupancy_resident(&info, 32, -1, 0), 32);      /* block slots */
    assert_int_equal(gc__occupancy_resident(&info, 0, -1, 0), 0);
    memset(&info, 0, sizeof(info)); /* nothing reported: one block */
    assert_int_equal(gc__occupancy_resident(&info, 256, -1, 0), 1);
    /* Shared memory alone is no bound: a kernel with a few bytes of it is
     * still one block where no thread or block limit is known. */
    info.shared_per_cu = 49152;
    info.regs_per_cu = 65536;
    assert_int_equal(gc__occupancy_resident(&info, 256, -1, 8), 1);
    assert_int_equal(gc__occupancy_resident(&info, 256, 16, 8), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roofline), cmocka_unit_test(test_volkov),
        cmocka_unit_test(test_attained), cmocka_unit_test(test_tree),
        cmocka_unit_test(test_resident), cmocka_unit_test(test_wavefronts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
