/* The runtime-overhead formulas and the transfer benchmarks on the simulated
 * (null) device: percentiles, the Hockney fit, PCIe link rates and the link
 * read from sysfs, the SIMD width and cutoff rule of the branch table, the
 * transfer size plan, and transfer.* run end to end on synthetic timings
 * whose latency and bandwidth are known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/null/null.h"
#include "bench/transfer/transfer.h"
#include "core/results.h"
#include "core/stats.h"
#include "model/divergence.h"
#include "model/link.h"
#include "report/summary.h"

static void test_percentiles(void **state)
{
    double x[100], p[4] = {5, 50, 95, 99}, v[4];

    (void)state;
    /* 100..1, so that the helper must sort (and must not sort x itself). */
    for (int i = 0; i < 100; i++)
        x[i] = 100 - i;
    gc__percentiles(x, 100, p, 4, v);
    /* Rank (n - 1) p / 100 between order statistics: 1 + 4.95 = 5.95 ... */
    assert_float_equal(v[0], 5.95, 1e-12);
    assert_float_equal(v[1], 50.5, 1e-12);
    assert_float_equal(v[2], 95.05, 1e-12);
    assert_float_equal(v[3], 99.01, 1e-12);
    assert_true(x[0] == 100 && x[99] == 1);
    assert_float_equal(gc__percentile(x, 100, 0), 1, 0);
    assert_float_equal(gc__percentile(x, 100, 100), 100, 0);
    assert_float_equal(gc__percentile(x, 1, 50), 100, 0);
    assert_true(isnan(gc__percentile(x, 0, 50)));
    assert_true(isnan(gc__percentile(x, 100, 101)));
    assert_true(isnan(gc__percentile(x, 100, -1)));
}

static void test_hockney_exact(void **state)
{
    double n[20], t[20];
    struct gc_hockney h;

    (void)state;
    /* t = 2 us + n / 25 GB/s from 4 B to 2 MiB: the fit is the model. */
    for (int i = 0; i < 20; i++) {
        n[i] = 4.0 * pow(2.0, i);
        t[i] = 2e-6 + n[i] / 25e9;
    }
    assert_int_equal(gc__hockney_fit(n, t, 20, &h), 0);
    assert_float_equal(h.latency_s, 2e-6, 1e-12);
    assert_float_equal(h.bandwidth, 25e9, 25e9 * 1e-6);
    /* n_half = t0 r_inf: at that size the bandwidth is half of r_inf. */
    assert_float_equal(h.n_half, 50000, 0.1);
    double bw_half = h.n_half / (h.latency_s + h.n_half / h.bandwidth);
    assert_float_equal(bw_half, h.bandwidth / 2, h.bandwidth * 1e-9);
    assert_true(h.max_rel_resid < 1e-9);
    assert_int_equal(h.npoints, 20);
}

static void test_hockney_edges(void **state)
{
    double n[4] = {1e3, 1e4, 1e5, 1e6}, t[4];
    struct gc_hockney h;

    (void)state;
    /* Times below the pure-bandwidth line: a negative intercept becomes a
     * line through the origin with zero latency. */
    for (int i = 0; i < 4; i++)
        t[i] = n[i] / 10e9 * (i == 0 ? 0.5 : 1.0);
    assert_int_equal(gc__hockney_fit(n, t, 4, &h), 0);
    assert_true(h.latency_s == 0 && h.n_half == 0);
    assert_true(h.bandwidth > 9e9 && h.bandwidth < 21e9);
    /* One distinct size is no fit; nor is a falling line. */
    double same[3] = {64, 64, 64}, ts[3] = {1e-6, 1.1e-6, 0.9e-6};
    assert_int_equal(gc__hockney_fit(same, ts, 3, &h), GC_EINVAL);
    double tf[4] = {4e-3, 3e-3, 2e-3, 1e-3};
    assert_int_equal(gc__hockney_fit(n, tf, 4, &h), GC_EINVAL);
    /* Non-finite and non-positive points are skipped. */
    double nn[4] = {1e3, NAN, 1e5, 1e6}, tn[4] = {1e-6 + 1e-7, 1.0, 1e-6 + 1e-5, 1e-6 + 1e-4};
    assert_int_equal(gc__hockney_fit(nn, tn, 4, &h), 0);
    assert_int_equal(h.npoints, 3);
    assert_float_equal(h.latency_s, 1e-6, 1e-12);
}

static void test_pcie_rates(void **state)
{
    (void)state;
    /* 32 GT/s x 16 lanes x 128/130 / 8 = 63.0 GB/s per direction. */
    assert_float_equal(gc__pcie_bytes_per_s(5, 16), 32e9 * 16 * 128 / 130 / 8, 1);
    assert_true(fabs(gc__pcie_bytes_per_s(5, 16) - 63.0e9) < 0.05e9);
    assert_true(fabs(gc__pcie_bytes_per_s(4, 16) - 31.5e9) < 0.05e9);
    assert_true(fabs(gc__pcie_bytes_per_s(3, 16) - 15.75e9) < 0.01e9);
    /* 8b/10b: gen 1 x1 moves 250 MB/s. */
    assert_float_equal(gc__pcie_bytes_per_s(1, 1), 250e6, 1);
    assert_float_equal(gc__pcie_bytes_per_s(2, 8), 4e9, 1);
    assert_true(gc__pcie_bytes_per_s(6, 16) > gc__pcie_bytes_per_s(5, 16));
    assert_true(isnan(gc__pcie_bytes_per_s(0, 16)));
    assert_true(isnan(gc__pcie_bytes_per_s(7, 16)));
    assert_true(isnan(gc__pcie_bytes_per_s(4, 0)));
    struct gc_link_info li = {
        .kind = "PCIe", .gen_cur = 1, .width_cur = 16, .gen_max = 5, .width_max = 16};
    /* An idle link trained down to gen 1 does not lower the limit. */
    assert_float_equal(gc__link_limit(&li), gc__pcie_bytes_per_s(5, 16), 1);
    li.kind[0] = '\0';
    assert_true(isnan(gc__link_limit(&li)));
}

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_link_sysfs(void **state)
{
    char root[128], dev[256], cmd[300];
    struct gc_link_info li;

    (void)state;
    snprintf(root, sizeof(root), "/tmp/gpuchar-test-sysfs-%ld", (long)getpid());
    snprintf(dev, sizeof(dev), "%s/0000:3b:00.0", root);
    assert_int_equal(mkdir(root, 0700), 0);
    assert_int_equal(mkdir(dev, 0700), 0);
    put(dev, "current_link_speed", "2.5 GT/s PCIe\n");
    put(dev, "current_link_width", "16\n");
    put(dev, "max_link_speed", "32.0 GT/s PCIe\n");
    put(dev, "max_link_width", "16\n");
    setenv("GPUCHAR_SYSFS_PCI", root, 1);
    assert_int_equal(gc__link_from_sysfs("0000:3b:00.0", &li), 0);
    assert_string_equal(li.kind, "PCIe");
    assert_int_equal(li.gen_cur, 1);
    assert_int_equal(li.gen_max, 5);
    assert_int_equal(li.width_max, 16);
    /* The upstream port (the parent directory) allows only gen 4 x8. */
    put(root, "max_link_speed", "16.0 GT/s PCIe\n");
    put(root, "max_link_width", "8\n");
    assert_int_equal(gc__link_from_sysfs("0000:3b:00.0", &li), 0);
    assert_int_equal(li.gen_max, 4);
    assert_int_equal(li.width_max, 8);
    assert_float_equal(gc__link_limit(&li), gc__pcie_bytes_per_s(4, 16), 1);
    assert_int_equal(gc__link_from_sysfs("0000:00:00.9", &li), GC_ENOTSUP);
    assert_int_equal(gc__link_from_sysfs("", &li), GC_ENOTSUP);
    unsetenv("GPUCHAR_SYSFS_PCI");
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

static const int counts[8] = {1, 2, 4, 8, 16, 32, 64, 128};
static const int widths[6] = {1, 2, 4, 8, 16, 32};

/* A SIMT device of the given SIMD width: a warp runs every distinct branch
 * among its lanes one after the other, plus a fixed cost. */
static void simt_table(int simd, double *rel)
{
    for (int w = 0; w < 6; w++)
        for (int c = 0; c < 8; c++) {
            int lanes_per_branch = widths[w];
            int distinct = (simd + lanes_per_branch - 1) / lanes_per_branch;
            if (distinct > counts[c])
                distinct = counts[c];
            rel[w * 8 + c] = (0.1 + distinct) / 1.1;
        }
}

static void test_simd_width(void **state)
{
    double rel[48], flat[8] = {1, 1.02, 0.99, 1.01, 1, 1.03, 0.98, 1};
    bool sat;
    int checked;

    (void)state;
    simt_table(32, rel);
    assert_int_equal(gc__simd_width_from_branches(counts, rel, 8, &sat), 32);
    assert_true(sat);
    /* The cutoff rule holds for every width on such a device. */
    assert_int_equal(gc__cutoff_rule_check(widths, 6, counts, 8, rel, 32, &checked), 6);
    assert_int_equal(checked, 6);
    simt_table(64, rel);
    assert_int_equal(gc__simd_width_from_branches(counts, rel, 8, &sat), 64);
    /* A device whose time keeps growing past the warp breaks the rule at
     * width 4 (it should stop at 8 branches). */
    simt_table(32, rel);
    rel[2 * 8 + 4] *= 1.5;
    rel[2 * 8 + 5] *= 2.0;
    assert_int_equal(gc__cutoff_rule_check(widths, 6, counts, 8, rel, 32, &checked), 5);
    /* No penalty (a CPU): width 1, and the rule holds trivially. */
    assert_int_equal(gc__simd_width_from_branches(counts, flat, 8, &sat), 1);
    assert_true(sat);
    double flat_all[48];
    for (int i = 0; i < 48; i++)
        flat_all[i] = flat[i % 8];
    assert_int_equal(gc__cutoff_rule_check(widths, 6, counts, 8, flat_all, 1, &checked), 6);
    /* Still growing at 128 branches: 128, not saturated. */
    double grow[8] = {1, 2, 4, 8, 16, 32, 64, 128};
    assert_int_equal(gc__simd_width_from_branches(counts, grow, 8, &sat), 128);
    assert_false(sat);
    /* Unusable tables. */
    grow[3] = NAN;
    assert_int_equal(gc__simd_width_from_branches(counts, grow, 8, NULL), 0);
    assert_int_equal(gc__simd_width_from_branches(counts + 1, flat, 7, NULL), 0);
}

static void test_transfer_sizes(void **state)
{
    size_t s[96];
    int n;

    (void)state;
    n = gc__transfer_sizes((size_t)1 << 30, 2, s, 96);
    assert_int_equal((int)s[0], 4);
    assert_true(s[n - 1] == (size_t)1 << 30);
    for (int i = 1; i < n; i++) {
        assert_true(s[i] > s[i - 1]);
        assert_int_equal((int)(s[i] % 4), 0);
        /* Half octaves: never more than a factor 2 (the smallest sizes
         * round to whole words), at least sqrt(2) - rounding above 64 B. */
        assert_true(s[i] <= 2 * s[i - 1]);
        if (s[i] > 64)
            assert_true((double)s[i] / (double)s[i - 1] > 1.35);
    }
    /* 4 B to 1 GiB: 28 octaves, 57 half-octave sizes less the duplicates
     * that rounding to words makes among the smallest. */
    assert_true(n >= 54 && n <= 57);
    assert_int_equal(gc__transfer_sizes(3, 2, s, 96), 0);
    assert_int_equal(gc__transfer_sizes((size_t)1 << 30, 2, s, 5), 5);
    /* Whole octaves: every power of two from 4 B to 1 GiB. */
    n = gc__transfer_sizes((size_t)1 << 30, 1, s, 96);
    assert_int_equal(n, 29);
    for (int i = 0; i < n; i++)
        assert_true(s[i] == (size_t)4 << i);
    /* The default GPU plan holds at most 64 MiB per host buffer, pinned
     * included, and copies past L2 inside the device; --full reaches 1 GiB
     * for every kind, 2 GiB for pinned. */
    assert_true(gc__transfer_max_size(GC_PROFILE_DEFAULT, true, true, true) <= (size_t)64 << 20);
    assert_true(gc__transfer_max_size(GC_PROFILE_DEFAULT, true, false, true) <= (size_t)64 << 20);
    assert_true(gc__transfer_max_size(GC_PROFILE_DEFAULT, true, true, false) >= (size_t)256 << 20);
    assert_true(gc__transfer_max_size(GC_PROFILE_FULL, true, false, true) >= (size_t)1 << 30);
    assert_true(gc__transfer_max_size(GC_PROFILE_FULL, true, true, true) >= (size_t)2 << 30);
    assert_true(gc__transfer_max_size(GC_PROFILE_QUICK, false, true, true) <=
                gc__transfer_max_size(GC_PROFILE_DEFAULT, false, true, true));
    /* --quick's device-to-device copies still reach past an L2 (DRAM's rate). */
    assert_true(gc__transfer_max_size(GC_PROFILE_QUICK, true, true, false) ==
                gc__transfer_max_size(GC_PROFILE_DEFAULT, true, true, false));
}

/* ---- transfer.* on the null device -------------------------------------- */

static struct gc_results *run_null(const struct gc_null_config *cfg, const char *const *pats)
{
    struct gc_run_options o;
    struct gc_results *r = NULL;
    gc_context *ctx = NULL;

    gc__null_configure(cfg);
    assert_int_equal(gc_context_create(&ctx), 0);
    gc_run_options_init(&o);
    o.device = "null";
    o.patterns = pats;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 3;
    o.min_time_ms = 1;
    o.no_cache = true;
    gc_run(ctx, &o, &r);
    gc_context_destroy(ctx);
    gc__null_configure(NULL);
    assert_non_null(r);
    return r;
}

static const struct gc_metric *metric(const struct gc_results *r, const char *bench,
                                      const char *name)
{
    const struct gc_bench_result *b = gc__results_find(r, bench);

    assert_non_null(b);
    if (b->status != GC_BENCH_OK)
        fprintf(stderr, "%s: %s\n", bench, b->error);
    assert_int_equal(b->status, GC_BENCH_OK);
    const struct gc_metric *m = gc__bench_find_metric(b, name);
    if (!m)
        fprintf(stderr, "%s: no metric %s\n", bench, name);
    assert_non_null(m);
    return m;
}

static void test_null_transfers(void **state)
{
    static const char *const pats[] = {"transfer.pinned", "transfer.pageable",       "transfer.d2d",
                                       "transfer.map",    "transfer.write_combined", NULL};
    struct gc_null_config cfg = {.launch_s = 10e-6, .noise_rel = 0.002, .seed = 7};
    struct gc_results *r;

    (void)state;
    r = run_null(&cfg, pats);
    assert_true(r->complete);
    /* The Hockney fit gives back the simulated latency and bandwidths. */
    const struct gc_metric *lat = metric(r, "transfer.pinned", "h2d_latency");
    assert_string_equal(lat->unit, "s");
    assert_true(fabs(lat->value - GC_NULL_XFER_LATENCY_S) < 0.05 * GC_NULL_XFER_LATENCY_S);
    const struct gc_metric *fit = metric(r, "transfer.pinned", "h2d_bandwidth_fit");
    assert_true(fabs(fit->value - GC_NULL_PINNED_BW) < 0.03 * GC_NULL_PINNED_BW);
    fit = metric(r, "transfer.pinned", "d2h_bandwidth_fit");
    assert_true(fabs(fit->value - GC_NULL_PINNED_BW) < 0.03 * GC_NULL_PINNED_BW);
    fit = metric(r, "transfer.pageable", "h2d_bandwidth_fit");
    assert_true(fabs(fit->value - GC_NULL_PAGEABLE_BW) < 0.03 * GC_NULL_PAGEABLE_BW);
    /* Both directions at once: 2 x 3/4 of one. */
    fit = metric(r, "transfer.pinned", "bidir_bandwidth_fit");
    assert_true(fabs(fit->value - 1.5 * GC_NULL_PINNED_BW) < 0.05 * GC_NULL_PINNED_BW);
    const struct gc_metric *nh = metric(r, "transfer.pinned", "h2d_n_half");
    assert_true(fabs(nh->value - GC_NULL_XFER_LATENCY_S * GC_NULL_PINNED_BW) <
                0.08 * GC_NULL_XFER_LATENCY_S * GC_NULL_PINNED_BW);
    /* Against the simulated link, gen 4 x16. */
    double link = gc__pcie_bytes_per_s(GC_NULL_PCIE_GEN, GC_NULL_PCIE_WIDTH);
    const struct gc_metric *bw = metric(r, "transfer.pinned", "h2d_bandwidth");
    assert_float_equal(bw->limit, link, 1);
    assert_true(bw->fraction > 0 && bw->fraction <= 1);
    assert_true(bw->value < GC_NULL_PINNED_BW * 1.01);
    assert_float_equal(metric(r, "transfer.pinned", "bidir_bandwidth")->limit, 2 * link, 1);
    assert_float_equal(metric(r, "transfer.pinned", "link_limit")->value, link, 1);
    assert_non_null(strstr(metric(r, "transfer.pinned", "link_limit")->note, "x16"));
    /* The map method pays twice the latency. */
    lat = metric(r, "transfer.map", "d2h_latency");
    assert_true(fabs(lat->value - 2 * GC_NULL_XFER_LATENCY_S) < 0.1 * GC_NULL_XFER_LATENCY_S);
    /* Write-combined memory is a copy source: H2D only, at the pinned rate. */
    fit = metric(r, "transfer.write_combined", "h2d_bandwidth_fit");
    assert_true(fabs(fit->value - GC_NULL_PINNED_BW) < 0.03 * GC_NULL_PINNED_BW);
    assert_null(
        gc__bench_find_metric(gc__results_find(r, "transfer.write_combined"), "d2h_bandwidth"));
    fit = metric(r, "transfer.d2d", "d2d_bandwidth_fit");
    assert_true(fabs(fit->value - GC_NULL_D2D_BW) < 0.05 * GC_NULL_D2D_BW);
    /* Every size measured: from 4 B, time never falling with size. */
    const struct gc_series *ts =
        gc__bench_find_series(gc__results_find(r, "transfer.pinned"), "h2d_time_vs_size");
    assert_non_null(ts);
    assert_true(ts->npoints >= 19); /* --quick: 4 B to 1 MiB, whole octaves */
    assert_float_equal(ts->points[0].x, 4, 0);
    for (int i = 1; i < ts->npoints; i++)
        assert_true(ts->points[i].y >= ts->points[i - 1].y * 0.99);
    const struct gc_metric *big = metric(r, "transfer.pinned", "largest_size");
    assert_float_equal(big->value, big->limit, 0);
    assert_float_equal(big->value,
                       (double)gc__transfer_max_size(GC_PROFILE_QUICK, false, true, true), 0);
    /* The summary's transfer table has the rows that were measured. */
    struct gc_summary_table *t;
    int n, found = -1;
    assert_int_equal(gc__summary_build(r, &t, &n), 0);
    for (int i = 0; i < n; i++)
        if (strcmp(t[i].name, "transfers") == 0)
            found = i;
    assert_true(found >= 0);
    assert_string_equal(t[found].rows[0].label, "pinned H2D");
    assert_float_equal(t[found].rows[0].v[0],
                       1e6 * metric(r, "transfer.pinned", "h2d_latency")->value, 1e-9);
    gc__summary_free(t, n);
    gc_results_free(r);
}

static void test_null_pinned_refused(void **state)
{
    static const char *const pats[] = {"transfer.pinned", "transfer.pageable", NULL};
    struct gc_null_config cfg = {.launch_s = 10e-6, .seed = 7, .host_lock_limit = 300 << 10};
    struct gc_results *r;

    (void)state;
    /* A locked-memory limit of 300 KiB: pinned sizes stop below it, the
     * row names the limit, pageable copies go on to the end. */
    r = run_null(&cfg, pats);
    const struct gc_metric *big = metric(r, "transfer.pinned", "largest_size");
    assert_true(big->value < 300 << 10);
    assert_true(big->fraction < 1);
    assert_non_null(strstr(big->note, "locked-memory limit"));
    big = metric(r, "transfer.pageable", "largest_size");
    assert_float_equal(big->value, big->limit, 0);
    gc_results_free(r);

    /* Nothing pinned at all: not available, with the reason. */
    cfg.host_lock_limit = 1024;
    r = run_null(&cfg, pats);
    const struct gc_bench_result *b = gc__results_find(r, "transfer.pinned");
    assert_int_equal(b->status, GC_BENCH_NOT_AVAILABLE);
    assert_non_null(strstr(b->error, "locked-memory limit"));
    assert_int_equal(gc__results_find(r, "transfer.pageable")->status, GC_BENCH_OK);
    gc_results_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles),         cmocka_unit_test(test_hockney_exact),
        cmocka_unit_test(test_hockney_edges),       cmocka_unit_test(test_pcie_rates),
        cmocka_unit_test(test_link_sysfs),          cmocka_unit_test(test_simd_width),
        cmocka_unit_test(test_transfer_sizes),      cmocka_unit_test(test_null_transfers),
        cmocka_unit_test(test_null_pinned_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
