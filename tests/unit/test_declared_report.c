/* Golden test of everything the reporters derive from the benchmarks'
 * declarations: the summary tables (text, CSV, the HTML section) and the
 * figure catalogue, rendered from two synthetic results sets that fill every
 * cell: one with every candidate metric, one with only the fallback
 * candidates (and a metric in the wrong unit). The golden files were written
 * by the reporter that named benchmarks and metrics itself; the declarative
 * one must render them byte for byte, also after the tree went through a
 * results file (the declarations travel in it). A file that predates the
 * record still reports: on its own generic figures and no summary table,
 * and after gc_results_declare the tables of a fresh run. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "canned.h"
#include "core/results.h"
#include "report/figures.h"
#include "report/summary.h"

struct mdef {
    const char *bench, *metric, *unit;
};

/* Every metric a summary cell reads. */
static const struct mdef metrics[] = {
    {"energy.idle", "idle_counter_vs_integral", "%"},
    {"energy.idle", "idle_power_avg", "W"},
    {"energy.idle", "idle_power_max", "W"},
    {"energy.idle", "static_counter_vs_integral", "%"},
    {"energy.idle", "static_power_avg", "W"},
    {"energy.idle", "static_power_max", "W"},
    {"energy.idle", "static_sm_clock", "MHz"},
    {"energy.memory.atomics", "bytes_per_clk_per_cu", "B/clk/CU"},
    {"energy.memory.atomics", "counter_vs_integral", "%"},
    {"energy.memory.atomics", "dynamic_energy_per_byte", "pJ/B"},
    {"energy.memory.atomics", "energy", "J"},
    {"energy.memory.atomics", "energy_per_byte", "pJ/B"},
    {"energy.memory.atomics", "energy_per_transaction", "nJ"},
    {"energy.memory.atomics", "power_avg", "W"},
    {"energy.memory.atomics", "power_max", "W"},
    {"energy.memory.atomics", "sm_clock", "MHz"},
    {"energy.memory.atomics", "time", "s"},
    {"energy.memory.atomics", "transactions_per_joule", "trans/J"},
    {"energy.memory.constant", "bytes_per_clk_per_cu", "B/clk/CU"},
    {"energy.memory.constant", "counter_vs_integral", "%"},
    {"energy.memory.constant", "dynamic_energy_per_byte", "pJ/B"},
    {"energy.memory.constant", "energy", "J"},
    {"energy.memory.constant", "energy_per_byte", "pJ/B"},
    {"energy.memory.constant", "energy_per_transaction", "nJ"},
    {"energy.memory.constant", "power_avg", "W"},
    {"energy.memory.constant", "power_max", "W"},
    {"energy.memory.constant", "sm_clock", "MHz"},
    {"energy.memory.constant", "time", "s"},
    {"energy.memory.constant", "transactions_per_joule", "trans/J"},
    {"energy.memory.dram.read", "bytes_per_clk_per_cu", "B/clk/CU"},
    {"energy.memory.dram.read", "counter_vs_integral", "%"},
    {"energy.memory.dram.read", "dynamic_energy_per_byte", "pJ/B"},
    {"energy.memory.dram.read", "energy", "J"},
    {"energy.memory.dram.read", "energy_per_byte", "pJ/B"},
    {"energy.memory.dram.read", "energy_per_transaction", "nJ"},
    {"energy.memory.dram.read", "power_avg", "W"},
    {"energy.memory.dram.read", "power_max", "W"},
    {"energy.memory.dram.read", "sm_clock", "MHz"},
    {"energy.memory.dram.read", "time", "s"},
    {"energy.memory.dram.read", "transactions_per_joule", "trans/J"},
    {"energy.memory.dram.write", "bytes_per_clk_per_cu", "B/clk/CU"},
    {"energy.memory.dram.write", "counter_vs_integral", "%"},
    {"energy.memory.dram.write", "dynamic_energy_per_byte", "pJ/B"},
    {"energy.memory.dram.write", "energy", "J"},
    {"energy.memory.dram.write", "energy_per_byte", "pJ/B"},
    {"energy.memory.dram.write", "energy_per_transaction", "nJ"},
    {"energy.memory.dram.write", "power_avg", "W"},
    {"energy.memory.dram.write", "power_max", "W"},
    {"energy.memory.dram.write", "sm_clock", "MHz"},
    {"energy.memory.dram.write", "time", "s"},
    {"energy.memory.dram.write", "transactions_per_joule", "trans/J"},
    {"energy.memory.l1", "bytes_per_clk_per_cu", "B/clk/CU"},
    {"energy.memory.l1", "counter_vs_integral", "%"},
    {"energy.memory.l1", "dynamic_energy_per_byte", "pJ/B"},
    {"energy.memory.l1", "energy", "J"},
    {"energy.memory.l1", "energy_per_byte", "pJ/B"},
    {"energy.memory.l1", "energy_per_transaction", "nJ"},
    {"energy.memory.l1", "power_avg", "W"},
    {"energy.memory.l1", "power_max", "W"},
    {"energy.memory.l1", "sm_clock", "MHz"},
    {"energy.memory.l1", "time", "s"},
    {"energy.memory.l1", "transactions_per_joule", "trans/J"},
    {"energy.memory.l2", "bytes_per_clk_per_cu", "B/clk/CU"},
    {"energy.memory.l2", "counter_vs_integral", "%"},
    {"energy.memory.l2", "dynamic_energy_per_byte", "pJ/B"},
    {"energy.memory.l2", "energy", "J"},
    {"energy.memory.l2", "energy_per_byte", "pJ/B"},
    {"energy.memory.l2", "energy_per_transaction", "nJ"},
    {"energy.memory.l2", "power_avg", "W"},
    {"energy.memory.l2", "power_max", "W"},
    {"energy.memory.l2", "sm_clock", "MHz"},
    {"energy.memory.l2", "time", "s"},
    {"energy.memory.l2", "transactions_per_joule", "trans/J"},
    {"energy.memory.shared", "bytes_per_clk_per_cu", "B/clk/CU"},
    {"energy.memory.shared", "counter_vs_integral", "%"},
    {"energy.memory.shared", "dynamic_energy_per_byte", "pJ/B"},
    {"energy.memory.shared", "energy", "J"},
    {"energy.memory.shared", "energy_per_byte", "pJ/B"},
    {"energy.memory.shared", "energy_per_transaction", "nJ"},
    {"energy.memory.shared", "power_avg", "W"},
    {"energy.memory.shared", "power_max", "W"},
    {"energy.memory.shared", "sm_clock", "MHz"},
    {"energy.memory.shared", "time", "s"},
    {"energy.memory.shared", "transactions_per_joule", "trans/J"},
    {"hiding.params", "alu_latency_cycles", "cycles"},
    {"hiding.params", "alu_thru_per_clk_sm", "inst/clk/SM"},
    {"hiding.params", "mem_latency_cycles", "cycles"},
    {"hiding.params", "mem_thru_bytes_per_clk_sm", "B/clk/SM"},
    {"hiding.params", "sfu_latency_cycles", "cycles"},
    {"hiding.params", "sfu_thru_per_clk_sm", "inst/clk/SM"},
    {"hiding.params", "shared_latency_cycles", "cycles"},
    {"hiding.params", "shared_thru_per_clk_sm", "inst/clk/SM"},
    {"memory.bandwidth", "dram_read_bandwidth", "B/s"},
    {"memory.bandwidth", "dram_read_bytes_per_clk_per_sm", "B/clk/SM"},
    {"memory.bandwidth", "l1_bytes_per_clk_per_sm", "B/clk/SM"},
    {"memory.bandwidth", "l2_bytes_per_clk_per_sm", "B/clk/SM"},
    {"memory.constant", "constant_words_per_clk_per_cu", "words/clk/CU"},
    {"memory.copy_kernel", "bandwidth_16B", "B/s"},
    {"memory.copy_kernel", "bandwidth_1B", "B/s"},
    {"memory.copy_kernel", "bandwidth_2B", "B/s"},
    {"memory.copy_kernel", "bandwidth_4B", "B/s"},
    {"memory.copy_kernel", "bandwidth_8B", "B/s"},
    {"memory.copy_kernel", "completion_latency_16B", "cycles"},
    {"memory.copy_kernel", "completion_latency_1B", "cycles"},
    {"memory.copy_kernel", "completion_latency_2B", "cycles"},
    {"memory.copy_kernel", "completion_latency_4B", "cycles"},
    {"memory.copy_kernel", "completion_latency_8B", "cycles"},
    {"memory.copy_kernel", "issue_latency_16B", "cycles"},
    {"memory.copy_kernel", "issue_latency_1B", "cycles"},
    {"memory.copy_kernel", "issue_latency_2B", "cycles"},
    {"memory.copy_kernel", "issue_latency_4B", "cycles"},
    {"memory.copy_kernel", "issue_latency_8B", "cycles"},
    {"memory.dram.read", "read_bandwidth", "B/s"},
    {"memory.dram.read", "read_bytes_per_clk_per_cu", "B/clk/CU"},
    {"memory.latency.constant", "constant_level1_latency_cycles", "cycles"},
    {"memory.latency.global", "dram_latency_cycles", "cycles"},
    {"memory.latency.global", "l1_latency_cycles", "cycles"},
    {"memory.latency.global", "l1_size_bytes", "B"},
    {"memory.latency.global", "l2_latency_cycles", "cycles"},
    {"memory.latency.global", "l2_size_bytes", "B"},
    {"memory.latency.l2", "dram_latency_cycles", "cycles"},
    {"memory.latency.l2", "l2_all_sms_latency_cycles", "cycles"},
    {"memory.latency.l2", "l2_all_sms_size_bytes", "B"},
    {"memory.latency.l2", "l2_latency_cycles", "cycles"},
    {"memory.latency.l2", "l2_size_bytes", "B"},
    {"memory.latency.l2", "l2_total_size_bytes", "B"},
    {"memory.latency.l2_partition", "l2_far_latency_cycles", "cycles"},
    {"memory.latency.l2_partition", "l2_near_latency_cycles", "cycles"},
    {"memory.latency.private", "private_level1_latency_cycles", "cycles"},
    {"memory.latency.readonly", "l1_latency_cycles", "cycles"},
    {"memory.latency.shared", "shared_level1_latency_cycles", "cycles"},
    {"memory.latency.texture", "l1_latency_cycles", "cycles"},
    {"memory.shared", "shared_bytes_per_clk_per_cu", "B/clk/CU"},
    {"memory.shared", "shared_latency_cycles", "cycles"},
    {"overhead.alloc", "device_alloc_1MiB", "s"},
    {"overhead.alloc", "device_alloc_1MiB_p5", "s"},
    {"overhead.alloc", "device_alloc_1MiB_p95", "s"},
    {"overhead.alloc", "device_alloc_1MiB_p99", "s"},
    {"overhead.alloc", "pinned_alloc_1MiB", "s"},
    {"overhead.alloc", "pinned_alloc_1MiB_p5", "s"},
    {"overhead.alloc", "pinned_alloc_1MiB_p95", "s"},
    {"overhead.alloc", "pinned_alloc_1MiB_p99", "s"},
    {"overhead.compile", "cached_load", "s"},
    {"overhead.compile", "compile_fixed_cost", "s"},
    {"overhead.compile", "compile_per_line", "s"},
    {"overhead.launch.graph", "graph_round_trip", "s"},
    {"overhead.launch.graph", "graph_round_trip_p5", "s"},
    {"overhead.launch.graph", "graph_round_trip_p95", "s"},
    {"overhead.launch.graph", "graph_round_trip_p99", "s"},
    {"overhead.launch.rate", "launch_interval", "s"},
    {"overhead.launch.roundtrip", "enqueue", "s"},
    {"overhead.launch.roundtrip", "enqueue_p5", "s"},
    {"overhead.launch.roundtrip", "enqueue_p95", "s"},
    {"overhead.launch.roundtrip", "enqueue_p99", "s"},
    {"overhead.launch.roundtrip", "round_trip", "s"},
    {"overhead.launch.roundtrip", "round_trip_p5", "s"},
    {"overhead.launch.roundtrip", "round_trip_p95", "s"},
    {"overhead.launch.roundtrip", "round_trip_p99", "s"},
    {"overhead.launch.start", "invocation_overhead", "s"},
    {"overhead.launch.start", "invocation_overhead_p5", "s"},
    {"overhead.launch.start", "invocation_overhead_p95", "s"},
    {"overhead.launch.start", "invocation_overhead_p99", "s"},
    {"overhead.launch.start", "launch_to_start", "s"},
    {"overhead.launch.start", "launch_to_start_p5", "s"},
    {"overhead.launch.start", "launch_to_start_p95", "s"},
    {"overhead.launch.start", "launch_to_start_p99", "s"},
    {"transfer.d2d", "d2d_bandwidth", "B/s"},
    {"transfer.d2d", "d2d_bandwidth_fit", "B/s"},
    {"transfer.d2d", "d2d_latency", "s"},
    {"transfer.d2d", "d2d_n_half", "B"},
    {"transfer.map", "d2h_bandwidth", "B/s"},
    {"transfer.map", "d2h_bandwidth_fit", "B/s"},
    {"transfer.map", "d2h_latency", "s"},
    {"transfer.map", "d2h_n_half", "B"},
    {"transfer.map", "h2d_bandwidth", "B/s"},
    {"transfer.map", "h2d_bandwidth_fit", "B/s"},
    {"transfer.map", "h2d_latency", "s"},
    {"transfer.map", "h2d_n_half", "B"},
    {"transfer.mapped", "d2h_bandwidth", "B/s"},
    {"transfer.mapped", "d2h_bandwidth_fit", "B/s"},
    {"transfer.mapped", "d2h_latency", "s"},
    {"transfer.mapped", "d2h_n_half", "B"},
    {"transfer.mapped", "h2d_bandwidth", "B/s"},
    {"transfer.mapped", "h2d_bandwidth_fit", "B/s"},
    {"transfer.mapped", "h2d_latency", "s"},
    {"transfer.mapped", "h2d_n_half", "B"},
    {"transfer.pageable", "d2h_bandwidth", "B/s"},
    {"transfer.pageable", "d2h_bandwidth_fit", "B/s"},
    {"transfer.pageable", "d2h_latency", "s"},
    {"transfer.pageable", "d2h_n_half", "B"},
    {"transfer.pageable", "h2d_bandwidth", "B/s"},
    {"transfer.pageable", "h2d_bandwidth_fit", "B/s"},
    {"transfer.pageable", "h2d_latency", "s"},
    {"transfer.pageable", "h2d_n_half", "B"},
    {"transfer.pinned", "bidir_bandwidth", "B/s"},
    {"transfer.pinned", "bidir_bandwidth_fit", "B/s"},
    {"transfer.pinned", "bidir_latency", "s"},
    {"transfer.pinned", "bidir_n_half", "B"},
    {"transfer.pinned", "d2h_bandwidth", "B/s"},
    {"transfer.pinned", "d2h_bandwidth_fit", "B/s"},
    {"transfer.pinned", "d2h_bandwidth_two_streams", "B/s"},
    {"transfer.pinned", "d2h_latency", "s"},
    {"transfer.pinned", "d2h_n_half", "B"},
    {"transfer.pinned", "h2d_bandwidth", "B/s"},
    {"transfer.pinned", "h2d_bandwidth_fit", "B/s"},
    {"transfer.pinned", "h2d_bandwidth_two_streams", "B/s"},
    {"transfer.pinned", "h2d_latency", "s"},
    {"transfer.pinned", "h2d_n_half", "B"},
    {"transfer.write_combined", "d2h_bandwidth", "B/s"},
    {"transfer.write_combined", "d2h_bandwidth_fit", "B/s"},
    {"transfer.write_combined", "d2h_latency", "s"},
    {"transfer.write_combined", "d2h_n_half", "B"},
    {"transfer.write_combined", "h2d_bandwidth", "B/s"},
    {"transfer.write_combined", "h2d_bandwidth_fit", "B/s"},
    {"transfer.write_combined", "h2d_latency", "s"},
    {"transfer.write_combined", "h2d_n_half", "B"},
};

#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

/* Benchmarks with a row of their own: every column's metric. */
static const char *const compute_metrics[][2] = {
    {"per_clk_per_cu", "results/clk/CU"},    {"issue_latency", "cycles"},
    {"completion_latency", "cycles"},        {"ridge_warps_ilp1", "warps"},
    {"ridge_warps_ilp2", "warps"},           {"ridge_warps_ilp4", "warps"},
    {"warps_90pct_ilp1", "warps"},           {"littles_law_warps", "warps"},
    {"sequential_latency_cycles", "cycles"},
};

static const char *const energy_metrics[][2] = {
    {"time", "s"},           {"per_clk_per_cu", "ops/clk/SM"},
    {"power_avg", "W"},      {"power_max", "W"},
    {"energy", "J"},         {"mips_per_watt_per_sm", "MIPS/W/SM"},
    {"energy_per_op", "pJ"}, {"dynamic_energy_per_op", "pJ"},
    {"sm_clock", "MHz"},     {"counter_vs_integral", "%"},
};

/* The first candidates of cells that have a fallback: left out of the
 * second set so that the fallbacks fill those cells. */
static const char *const first_candidates[][2] = {
    {"memory.dram.read", "read_bytes_per_clk_per_cu"},
    {"memory.dram.read", "read_bandwidth"},
    {"memory.latency.l2", "l2_latency_cycles"},
    {"memory.latency.l2", "l2_size_bytes"},
    {"memory.latency.l2", "l2_total_size_bytes"},
    {"memory.latency.global", "dram_latency_cycles"},
    {"memory.shared", "shared_latency_cycles"},
    {"memory.latency.texture", "l1_latency_cycles"},
};

struct sdef {
    const char *bench, *series, *x_name, *x_unit, *y_name, *y_unit;
};

/* One or more series of every figure rule, and some that no rule names. */
static const struct sdef series[] = {
    {"compute.fp32.fma", "roofline_ilp1", "warps per SM", "warps", "throughput", "ops/clk/SM"},
    {"compute.fp32.fma", "roofline_ilp2", "warps per SM", "warps", "throughput", "ops/clk/SM"},
    {"compute.fp32.fma", "cpi_ilp1", "warps per SM", "warps", "CPI per warp", "cycles"},
    {"compute.fp32.fma", "peak_vs_chains", "chains", "chains", "throughput", "ops/clk/SM"},
    {"compute.fp32.fma", "peak_model", "chains", "", "model", "ops/clk/SM"},
    {"hiding.params", "peak_alu", "chains", "chains", "throughput", "inst/clk/SM"},
    {"hiding.params", "mem_latency_vs_throughput", "throughput", "B/clk/SM", "latency", "cycles"},
    {"hiding.params", "contention_fit", "throughput (fit)", "B/clk/SM", "latency fitted", "cycles"},
    {"hiding.params", "latency_p50_vs_throughput", "throughput", "B/clk/SM", "latency", "cycles"},
    {"hiding.params", "latency_p99_vs_throughput", "throughput", "B/clk/SM", "latency", "cycles"},
    {"hiding.mix.sfu", "a0.5_ilp1", "warps per SM", "warps", "throughput", "inst/clk/SM"},
    {"hiding.mix.sfu", "a0.5_ilp1_model", "warps per SM", "warps", "model", "inst/clk/SM"},
    {"hiding.mix.sfu", "a2_ilp1", "warps per SM", "warps", "throughput", "inst/clk/SM"},
    {"hiding.mix.sfu", "needed_90", "alpha", "", "warps", "warps"},
    {"hiding.mix.sfu", "error_ilp1", "alpha", "", "model / measured", ""},
    {"memory.latency.global", "latency_cycles", "footprint", "B", "latency", "cycles/load"},
    {"memory.latency.l2", "latency_cycles_all_sms", "footprint", "B", "latency", "cycles/load"},
    {"memory.latency.private", "latency_ns", "footprint", "B", "latency", "ns/load"},
    {"memory.bandwidth", "load_l1", "footprint", "B", "bandwidth", "B/s"},
    {"memory.bandwidth", "load_l2", "footprint", "B", "bandwidth", "B/s"},
    {"memory.bandwidth", "copy_l1", "footprint", "B", "bandwidth", "B/s"},
    {"memory.copy_kernel", "bandwidth_4B", "warps per SM", "warps", "bandwidth", "B/s"},
    {"memory.copy_kernel", "bandwidth_16B", "warps per SM", "warps", "bandwidth", "B/s"},
    {"memory.copy_kernel", "cpmr_4B", "warps per SM", "warps", "cycles per request", "cycles"},
    {"memory.copy_kernel", "bandwidth_4B_loop", "warps per SM", "warps", "bandwidth", "B/s"},
    {"memory.coalescing", "lane_stride", "stride", "elements", "bandwidth", "B/s"},
    {"memory.coalescing", "coalescing_fraction", "fraction", "", "bandwidth", "B/s"},
    {"memory.coalescing", "access_size", "size", "B", "bandwidth", "B/s"},
    {"memory.shared", "bank_conflict", "ways", "", "bandwidth", "B/clk/SM"},
    {"memory.shared", "lane_stride", "stride", "words", "bandwidth", "B/clk/SM"},
    {"memory.shared", "element_size", "size", "B", "bandwidth", "B/clk/SM"},
    {"memory.constant", "broadcast", "distinct addresses", "", "time", "cycles"},
    {"memory.dram.read", "bandwidth_vec4", "configuration", "", "bandwidth", "B/s"},
    {"memory.dram.copy", "bandwidth_vec2", "configuration", "", "bandwidth", "B/s"},
    {"memory.atomics", "contention", "threads per address", "threads", "rate", "atomics/s"},
    {"transfer.pinned", "h2d", "size", "B", "bandwidth", "B/s"},
    {"energy.occupancy.fp32_fma", "power", "warps per CU", "warps", "power", "W"},
};

#define NSERIES (sizeof(series) / sizeof(series[0]))

/* A value for the i-th metric in its unit: distinct, of the magnitude the
 * unit suggests, so that every formatting path is taken. */
static double value_of(int i, const char *unit)
{
    double v = 1.0 + (double)((i * 37) % 101) * 0.731;

    if (strcmp(unit, "B/s") == 0)
        return v * 1e10;
    if (strcmp(unit, "B") == 0)
        return (double)((long)(v * 4) << 16);
    if (strcmp(unit, "s") == 0)
        return v * 1e-6;
    return v;
}

static void meta(struct gc_results *r)
{
    struct gc_run_meta *m = &r->meta;

    snprintf(m->tool_version, sizeof(m->tool_version), "0.1.0");
    snprintf(m->git_revision, sizeof(m->git_revision), "0123456789ab");
    snprintf(m->date, sizeof(m->date), "2024-05-01T12:00:00Z");
    snprintf(m->host, sizeof(m->host), "testhost");
    snprintf(m->command_line, sizeof(m->command_line), "gpuchar run --full");
    snprintf(m->profile, sizeof(m->profile), "full");
    snprintf(m->device.spec, sizeof(m->device.spec), "cuda:0");
    m->device.backend = "cuda";
    snprintf(m->device.name, sizeof(m->device.name), "Example GPU");
    snprintf(m->device.vendor, sizeof(m->device.vendor), "Example Corp");
    snprintf(m->device.arch, sizeof(m->device.arch), "sm_90");
    m->device.type = GC_DEVICE_GPU;
    m->device.compute_units = 132;
    m->device.clock_mhz = 1980;
    m->device.global_mem = (size_t)80 << 30;
    m->repeat = 5;
    m->min_time_ms = 10;
    r->complete = false;
    snprintf(r->incomplete_reason, sizeof(r->incomplete_reason), "a benchmark failed");
    r->wall_s = 12.5;
}

static struct gc_bench_result *bench(struct gc_results *r, const char *name)
{
    struct gc_bench_result *b;
    char group[32];

    for (int i = 0; i < r->nbenches; i++)
        if (strcmp(r->benches[i].name, name) == 0)
            return &r->benches[i];
    snprintf(group, sizeof(group), "%.*s", (int)strcspn(name, "."), name);
    b = gc__results_add_bench(r, name, group);
    assert_non_null(b);
    b->status = GC_BENCH_OK;
    return b;
}

static bool is_first_candidate(const struct mdef *d)
{
    for (size_t i = 0; i < sizeof(first_candidates) / sizeof(first_candidates[0]); i++)
        if (strcmp(d->bench, first_candidates[i][0]) == 0 &&
            strcmp(d->metric, first_candidates[i][1]) == 0)
            return true;
    return false;
}

static void add(struct gc_bench_result *b, int i, const char *name, const char *unit)
{
    double v = value_of(i, unit);

    assert_non_null(
        gc__bench_add_metric(b, name, v, unit, i % 3 == 0 ? v * 1.25 : NAN, NULL, NULL));
}

static void own_rows(struct gc_results *r, const char *prefix, const char *const (*m)[2], int nm,
                     const char *const *names, int nnames, int salt)
{
    char name[96];

    for (int k = 0; k < nnames; k++) {
        snprintf(name, sizeof(name), "%s%s", prefix, names[k]);
        struct gc_bench_result *b = bench(r, name);
        /* The k-th benchmark has its first nm - k metrics: partial rows. */
        for (int j = 0; j < nm - k; j++)
            add(b, salt + 11 * k + j, m[j][0], m[j][1]);
    }
}

/* full: every metric; else the fallbacks only and one metric in a wrong
 * unit. */
static struct gc_results *synthetic(bool full)
{
    static const char *const itypes[] = {"fp32.fma", "int32.add", "fp64.div", "fp16x2.fma"};
    static const char *const mma[] = {"mma.f16_f32", "wgmma.s8_s32"};
    struct gc_results *r = gc__results_new();
    struct gc_bench_result *b;

    assert_non_null(r);
    meta(r);
    own_rows(r, "compute.", compute_metrics, 9, itypes, 4, full ? 3 : 5);
    /* No key metric: no row. */
    b = bench(r, "compute.fp32.add");
    add(b, 1, "issue_latency", "cycles");
    /* A failed benchmark contributes nothing, an interrupted one its
     * metrics. */
    b = bench(r, "compute.int32.mul");
    add(b, 2, "per_clk_per_cu", "results/clk/CU");
    gc__bench_set_error(b, GC_BENCH_ERROR, "verification failed");
    b = bench(r, "compute.int64.add");
    add(b, 3, "per_clk_per_cu", "results/clk/CU");
    b->status = GC_BENCH_INTERRUPTED;
    b = bench(r, "compute.mma.f16_f32");
    add(b, 4, full ? "flop_per_clk_per_sm" : "op_per_clk_per_sm", "FLOP/clk/SM");
    add(b, 5, "instructions_per_clk_per_sm", "inst/clk/SM");
    b = bench(r, "compute.wgmma.s8_s32");
    add(b, 6, "op_per_clk_per_sm", "OP/clk/SM");
    own_rows(r, "energy.compute.", energy_metrics, 10, itypes, 2, 7);
    own_rows(r, "energy.compute.", energy_metrics, 10, mma, 1, 8);
    for (size_t i = 0; i < NMETRICS; i++) {
        const struct mdef *d = &metrics[i];

        if (!full && is_first_candidate(d))
            continue;
        b = bench(r, d->bench);
        if (!full && strcmp(d->metric, "alu_latency_cycles") == 0)
            add(b, (int)i, d->metric, "ns");
        else
            add(b, (int)i, d->metric, d->unit);
    }
    b = bench(r, "control.divergence");
    for (int w = 1; w <= (full ? 128 : 8); w *= 2) {
        char nm[64];

        snprintf(nm, sizeof(nm), "relative_time_width_%d", w);
        struct gc_series *s = gc__bench_add_series(b, nm, "branches", "", "relative time", "");
        assert_non_null(s);
        for (int k = 1; k <= 64; k *= 2)
            assert_int_equal(gc__series_add(s, k, 1.0 + 0.25 * k * w / 8.0, NULL, NULL), 0);
    }
    for (size_t i = 0; i < NSERIES; i++) {
        const struct sdef *d = &series[i];
        struct gc_series *s;

        b = bench(r, d->bench);
        s = gc__bench_add_series(b, d->series, d->x_name, d->x_unit, d->y_name, d->y_unit);
        assert_non_null(s);
        for (int k = 0; k < 6; k++)
            assert_int_equal(gc__series_add(s, (double)(1 << k),
                                            10.0 + (double)((k * 7 + (int)i) % 9), NULL, NULL),
                             0);
    }
    canned_declare(r);
    return r;
}

/* A growable text buffer written through a FILE. */
static char *file_text(FILE *f, size_t *len)
{
    long l = ftell(f);
    char *buf;

    assert_true(l >= 0);
    buf = malloc((size_t)l + 1);
    assert_non_null(buf);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)l, f), (size_t)l);
    buf[l] = '\0';
    *len = (size_t)l;
    return buf;
}

/* r written to a results file and read back (r is freed); strip removes
 * the "presentation" records first, as in a file of an older gpuchar. */
static struct gc_results *through_file(struct gc_results *r, bool strip)
{
    char *dir = make_temp_dir(), path[512], err[256];
    struct gc_results *back = NULL;

    assert_non_null(dir);
    snprintf(path, sizeof(path), "%s/results.json", dir);
    assert_int_equal(gc_write_json(r, path), 0);
    gc_results_free(r);
    if (strip) {
        json_t *doc = json_load_file(path, 0, NULL), *b;
        size_t i;
        int had = 0;

        assert_non_null(doc);
        json_array_foreach(json_object_get(doc, "benchmarks"), i, b)
        {
            had += json_object_get(b, "presentation") != NULL;
            json_object_del(b, "presentation");
        }
        assert_true(had > 0);
        assert_int_equal(json_dump_file(doc, path, JSON_INDENT(1)), 0);
        json_decref(doc);
    }
    assert_int_equal(gc_read_json(path, &back, err, sizeof(err)), 0);
    rm_rf(dir);
    free(dir);
    return back;
}

static void check_summary_of(struct gc_results *r, bool full)
{
    struct gc_summary_table *t = NULL;
    int n = 0;
    FILE *f = tmpfile();
    char name[64];
    size_t len;

    assert_non_null(f);
    assert_int_equal(gc__summary_build(r, &t, &n), 0);
    assert_int_equal(gc__summary_write_text(t, n, f), 0);
    for (int i = 0; i < n; i++) {
        fprintf(f, "\n--- summary_%s.csv\n", t[i].name);
        assert_int_equal(gc__summary_write_csv(&t[i], f), 0);
    }
    char *text = file_text(f, &len);
    snprintf(name, sizeof(name), "declared/summary_%s.txt", full ? "full" : "fallback");
    assert_true(golden_check(name, text, len));
    free(text);
    fclose(f);
    gc__summary_free(t, n);
    gc_results_free(r);
}

static void check_summary(bool full)
{
    check_summary_of(synthetic(full), full);
}

static void test_summary_full(void **state)
{
    (void)state;
    check_summary(true);
}

/* The same tables from the results file. */
static void test_summary_from_file(void **state)
{
    (void)state;
    check_summary_of(through_file(synthetic(true), false), true);
    check_summary_of(through_file(synthetic(false), false), false);
}

/* A file without the records: every benchmark still reports (metrics, the
 * generic figures), and no summary table is made up. */
static void test_file_without_record(void **state)
{
    struct gc_results *r = through_file(synthetic(true), true);
    const struct gc_results *runs[1] = {r};
    struct gc_summary_table *t = NULL;
    struct gc_figure *fig = NULL;
    int n = -1, nf = 0;
    FILE *f = tmpfile();

    (void)state;
    assert_non_null(f);
    assert_int_equal(gc__summary_build(r, &t, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(gc__figures_build(runs, NULL, 1, &fig, &nf), 0);
    assert_true(nf > 0);
    assert_int_equal(gc_write_text(r, f), 0);
    assert_true(ftell(f) > 0);
    fclose(f);
    gc__figures_free(fig, nf);
    gc__summary_free(t, n);
    gc_results_free(r);
}

/* The same file after gc_results_declare (what the commands that read
 * files call): this gpuchar's declarations, the tables of a fresh run. */
static void test_file_declared(void **state)
{
    struct gc_results *r = through_file(synthetic(true), true);

    (void)state;
    assert_int_equal(gc_results_declare(r), 0);
    check_summary_of(r, true);
}

static void test_summary_fallback(void **state)
{
    (void)state;
    check_summary(false);
}

static const char *style_name(enum gc_fig_style s)
{
    return s == GC_FIG_SCATTER ? "scatter" : s == GC_FIG_MODEL ? "model" : "measured";
}

static void check_figures_of(struct gc_results *r, bool full)
{
    const struct gc_results *runs[1] = {r};
    struct gc_figure *fig = NULL;
    int n = 0;
    FILE *f = tmpfile();
    char name[64];
    size_t len;

    assert_non_null(f);
    assert_int_equal(gc__figures_build(runs, NULL, 1, &fig, &n), 0);
    for (int i = 0; i < n; i++) {
        const struct gc_figure *g = &fig[i];

        fprintf(f, "figure %s\n  bench %s\n  title %s\n  x %s [%s]%s\n  y %s [%s]%s\n", g->id,
                g->bench, g->title, g->xlabel, g->xunit, g->logx ? " log" : "", g->ylabel, g->yunit,
                g->logy ? " log" : "");
        for (int k = 0; k < g->nlayers; k++)
            fprintf(f, "  layer %s %s \"%s\"\n", g->layers[k].s->name,
                    style_name(g->layers[k].style), g->layers[k].title);
        for (int k = 0; k < g->nmarks; k++)
            fprintf(f, "  mark %d %.6g \"%s\"\n", (int)g->marks[k].kind, g->marks[k].v,
                    g->marks[k].label);
    }
    char *text = file_text(f, &len);
    snprintf(name, sizeof(name), "declared/figures_%s.txt", full ? "full" : "fallback");
    assert_true(golden_check(name, text, len));
    free(text);
    fclose(f);
    gc__figures_free(fig, n);
    gc_results_free(r);
}

static void check_figures(bool full)
{
    check_figures_of(synthetic(full), full);
}

static void test_figures_full(void **state)
{
    (void)state;
    check_figures(true);
}

static void test_figures_from_file(void **state)
{
    (void)state;
    check_figures_of(through_file(synthetic(true), false), true);
    check_figures_of(through_file(synthetic(false), false), false);
}

static void test_figures_fallback(void **state)
{
    (void)state;
    check_figures(false);
}

/* The summary section of the HTML page (without gnuplot: tables only) and
 * the whole text report. */
static void check_pages(bool full)
{
    struct gc_results *r = synthetic(full);
    char *dir = make_temp_dir();
    char path[512], name[64];
    struct gc_html_info info;
    char err[256];
    size_t len;

    assert_non_null(dir);
    snprintf(path, sizeof(path), "%s/report.html", dir);
    setenv("GPUCHAR_GNUPLOT", "/nonexistent/gnuplot", 1);
    assert_int_equal(gc_write_html(r, path, &info, err, sizeof(err)), 0);
    char *html = slurp(path, &len);
    assert_non_null(html);
    char *from = strstr(html, "<h2 id=\"summary\">");
    assert_non_null(from);
    char *to = strstr(from + 1, "<h2");
    if (to)
        *to = '\0';
    snprintf(name, sizeof(name), "declared/html_summary_%s.html", full ? "full" : "fallback");
    assert_true(golden_check(name, from, strlen(from)));
    free(html);

    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(gc_write_text(r, f), 0);
    char *text = file_text(f, &len);
    snprintf(name, sizeof(name), "declared/report_%s.txt", full ? "full" : "fallback");
    assert_true(golden_check(name, text, len));
    free(text);
    fclose(f);
    rm_rf(dir);
    free(dir);
    gc_results_free(r);
}

static void test_pages_full(void **state)
{
    (void)state;
    check_pages(true);
}

static void test_pages_fallback(void **state)
{
    (void)state;
    check_pages(false);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_full),        cmocka_unit_test(test_summary_fallback),
        cmocka_unit_test(test_figures_full),        cmocka_unit_test(test_figures_fallback),
        cmocka_unit_test(test_pages_full),          cmocka_unit_test(test_pages_fallback),
        cmocka_unit_test(test_summary_from_file),   cmocka_unit_test(test_figures_from_file),
        cmocka_unit_test(test_file_without_record), cmocka_unit_test(test_file_declared),
    };

    golden_init(argc, argv);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
