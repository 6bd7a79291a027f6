/* Cross-benchmark summary tables (see summary.h): each table is data, a list
 * of columns naming the metric that fills them, and rows that are either
 * every benchmark of a kind or fixed memory levels with candidate sources. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/results.h"
#include "report/summary.h"
#include "report/units.h"

/* What fills a cell: a metric's value, its limit or its fraction (as %),
 * optionally scaled. */
enum pick { PICK_VALUE, PICK_LIMIT, PICK_PERCENT };

struct source {
    const char *bench;  /* exact benchmark name; NULL: the row's benchmark */
    const char *metric; /* metric name */
    const char *unit;   /* required unit, NULL accepts any */
    enum pick pick;
    double scale; /* multiplies the value; 0 means 1 */
};

/* A metric of a benchmark that completed (or was interrupted after it). */
static const struct gc_metric *find_metric(const struct gc_bench_result *b, const char *name)
{
    if (!b || (b->status != GC_BENCH_OK && b->status != GC_BENCH_INTERRUPTED))
        return NULL;
    return gc__bench_find_metric(b, name);
}

/* The cell value of src for a row whose own benchmark is row_bench. */
static double pick(const struct gc_results *r, const struct gc_bench_result *row_bench,
                   const struct source *src)
{
    const struct gc_bench_result *b = src->bench ? gc__results_find(r, src->bench) : row_bench;
    const struct gc_metric *m = find_metric(b, src->metric);
    double v;

    if (!m || (src->unit && strcmp(m->unit, src->unit) != 0))
        return NAN;
    switch (src->pick) {
    case PICK_LIMIT:
        v = m->limit;
        break;
    case PICK_PERCENT:
        v = 100.0 * m->fraction;
        break;
    default:
        v = m->value;
        break;
    }
    return isfinite(v) ? v * (src->scale != 0 ? src->scale : 1.0) : NAN;
}

/* The first candidate that has a value. */
static double pick_first(const struct gc_results *r, const struct gc_bench_result *row_bench,
                         const struct source *cands, int n)
{
    for (int i = 0; i < n; i++) {
        if (!cands[i].metric)
            break;
        double v = pick(r, row_bench, &cands[i]);
        if (isfinite(v))
            return v;
    }
    return NAN;
}

static bool row_has_value(const struct gc_summary_row *row, int ncols)
{
    for (int c = 0; c < ncols; c++)
        if (isfinite(row->v[c]))
            return true;
    return false;
}

static int add_row(struct gc_summary_table *t, const char *label, const double *v)
{
    struct gc_summary_row *rows = realloc(t->rows, (size_t)(t->nrows + 1) * sizeof(*rows));

    if (!rows)
        return GC_ENOMEM;
    t->rows = rows;
    struct gc_summary_row *row = &rows[t->nrows];
    snprintf(row->label, sizeof(row->label), "%s", label);
    for (int c = 0; c < GC_SUMMARY_MAXCOLS; c++)
        row->v[c] = c < t->ncols ? v[c] : NAN;
    if (row_has_value(row, t->ncols))
        t->nrows++;
    return 0;
}

/* ---- Per-benchmark tables (one row per benchmark of a kind) ------------- */

struct bench_table {
    const char *name, *title, *label_title;
    const char *prefixes[3]; /* rows: benchmarks whose name starts with one of these */
    const char *strip;       /* ... listed without this prefix */
    const char *key_metric;  /* ... and that have this metric (NULL: any) */
    int ncols;
    const char *col_title[GC_SUMMARY_MAXCOLS];
    const char *col_unit[GC_SUMMARY_MAXCOLS];
    struct source src[GC_SUMMARY_MAXCOLS][2]; /* candidates per column */
};

#define ROW_METRIC(m, u)                                                                           \
    {                                                                                              \
        {                                                                                          \
            NULL, (m), (u), PICK_VALUE, 0                                                          \
        }                                                                                          \
    }

static const struct bench_table bench_tables[] = {
    {"compute",
     "compute: instruction throughput, pipeline model and occupancy needed (Lemeire Table III, "
     "MIPP Table I, Volkov Tables 6.1-6.3)",
     "itype",
     {"compute.", NULL},
     "compute.",
     "per_clk_per_cu",
     11,
     {"per clk/SM", "spec", "% of spec", "lambda", "Lambda", "ridge ILP1", "ridge ILP2",
      "ridge ILP4", "90% ILP1", "Little's law", "sequential"},
     {"results", "results", "%", "cycles", "cycles", "warps", "warps", "warps", "warps", "warps",
      "cycles"},
     {ROW_METRIC("per_clk_per_cu", NULL),
      {{NULL, "per_clk_per_cu", NULL, PICK_LIMIT, 0}},
      {{NULL, "per_clk_per_cu", NULL, PICK_PERCENT, 0}},
      ROW_METRIC("issue_latency", "cycles"),
      ROW_METRIC("completion_latency", "cycles"),
      ROW_METRIC("ridge_warps_ilp1", "warps"),
      ROW_METRIC("ridge_warps_ilp2", "warps"),
      ROW_METRIC("ridge_warps_ilp4", "warps"),
      ROW_METRIC("warps_90pct_ilp1", "warps"),
      ROW_METRIC("littles_law_warps", "warps"),
      ROW_METRIC("sequential_latency_cycles", "cycles")}},
    {"matrix",
     "matrix units: dense throughput against the vendor's rate",
     "unit and types",
     {"compute.mma.", "compute.wgmma.", NULL},
     "compute.",
     NULL,
     4,
     {"per clk/SM", "spec", "% of spec", "instr/clk/SM"},
     {"(FL)OP", "(FL)OP", "%", ""},
     {{{NULL, "flop_per_clk_per_sm", NULL, PICK_VALUE, 0},
       {NULL, "op_per_clk_per_sm", NULL, PICK_VALUE, 0}},
      {{NULL, "flop_per_clk_per_sm", NULL, PICK_LIMIT, 0},
       {NULL, "op_per_clk_per_sm", NULL, PICK_LIMIT, 0}},
      {{NULL, "flop_per_clk_per_sm", NULL, PICK_PERCENT, 0},
       {NULL, "op_per_clk_per_sm", NULL, PICK_PERCENT, 0}},
      ROW_METRIC("instructions_per_clk_per_sm", NULL)}},
    {"energy_compute",
     "energy per instruction type and matrix unit (MIPP Tables I-II: time, spec vs real "
     "throughput, average/max power, energy, efficiency, energy per instruction)",
     "itype",
     {"energy.compute.", NULL},
     "energy.compute.",
     "energy_per_op",
     11,
     {"time", "spec", "real", "avg power", "max power", "energy", "efficiency", "energy/op",
      "dynamic/op", "SM clock", "counter-integral"},
     {"s", "ops/clk/SM", "ops/clk/SM", "W", "W", "J", "MIPS/W/SM", "pJ", "pJ", "MHz", "%"},
     {ROW_METRIC("time", "s"),
      {{NULL, "per_clk_per_cu", NULL, PICK_LIMIT, 0}},
      ROW_METRIC("per_clk_per_cu", NULL),
      ROW_METRIC("power_avg", "W"),
      ROW_METRIC("power_max", "W"),
      ROW_METRIC("energy", "J"),
      ROW_METRIC("mips_per_watt_per_sm", NULL),
      ROW_METRIC("energy_per_op", NULL),
      ROW_METRIC("dynamic_energy_per_op", NULL),
      ROW_METRIC("sm_clock", "MHz"),
      ROW_METRIC("counter_vs_integral", "%")}},
};

static bool has_prefix(const char *s, const char *const *prefixes)
{
    for (int i = 0; i < 3 && prefixes[i]; i++)
        if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

static int build_bench_table(const struct gc_results *r, const struct bench_table *bt,
                             struct gc_summary_table *t)
{
    t->name = bt->name;
    t->title = bt->title;
    t->label_title = bt->label_title;
    t->ncols = bt->ncols;
    for (int c = 0; c < bt->ncols; c++) {
        t->col_title[c] = bt->col_title[c];
        t->col_unit[c] = bt->col_unit[c];
    }
    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_bench_result *b = &r->benches[i];
        double v[GC_SUMMARY_MAXCOLS];

        if (!has_prefix(b->name, bt->prefixes))
            continue;
        if (bt->key_metric && !find_metric(b, bt->key_metric))
            continue;
        const char *label = b->name;
        if (strncmp(label, bt->strip, strlen(bt->strip)) == 0)
            label += strlen(bt->strip);
        for (int c = 0; c < bt->ncols; c++)
            v[c] = pick_first(r, b, bt->src[c], 2);
        int rc = add_row(t, label, v);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- Fixed-row tables (memory levels) ----------------------------------- */

#define MAXCAND 3

struct fixed_row {
    const char *label;
    struct source src[GC_SUMMARY_MAXCOLS][MAXCAND];
};

struct fixed_table {
    const char *name, *title, *label_title;
    int ncols;
    const char *col_title[GC_SUMMARY_MAXCOLS];
    const char *col_unit[GC_SUMMARY_MAXCOLS];
    int nrows;
    struct fixed_row rows[16];
};

#define V(b, m, u)                                                                                 \
    {                                                                                              \
        (b), (m), (u), PICK_VALUE, 0                                                               \
    }
#define P(b, m)                                                                                    \
    {                                                                                              \
        (b), (m), NULL, PICK_PERCENT, 0                                                            \
    }

/* A row of the energy-per-memory-level table: every column from the
 * energy benchmark of that level. */
#define EMEM_ROW(label, b)                                                                         \
    {                                                                                              \
        label,                                                                                     \
        {                                                                                          \
            {V(b, "time", "s")}, {V(b, "bytes_per_clk_per_cu", NULL)}, {V(b, "power_avg", "W")},   \
                {V(b, "power_max", "W")}, {V(b, "energy", "J")},                                   \
                {{b, "transactions_per_joule", NULL, PICK_VALUE, 1e-6}},                           \
                {V(b, "energy_per_transaction", "nJ")}, {V(b, "energy_per_byte", "pJ/B")},         \
                {V(b, "dynamic_energy_per_byte", "pJ/B")}, {V(b, "sm_clock", "MHz")},              \
                {V(b, "counter_vs_integral", "%")},                                                \
        }                                                                                          \
    }

static const struct fixed_table fixed_tables[] = {
    {"memory",
     "memory: bandwidth per memory type (gpumembench Table III), latency and capacity per level "
     "(Lemeire Table III)",
     "memory",
     4,
     {"bandwidth", "% of limit", "latency", "capacity"},
     {"B/clk/SM", "%", "cycles", "B"},
     10,
     {{"L1",
       {{V("memory.bandwidth", "l1_bytes_per_clk_per_sm", "B/clk/SM")},
        {P("memory.bandwidth", "l1_bytes_per_clk_per_sm")},
        {V("memory.latency.global", "l1_latency_cycles", "cycles")},
        {V("memory.latency.global", "l1_size_bytes", "B")}}},
      {"L2 (one SM)",
       {{V("memory.bandwidth", "l2_bytes_per_clk_per_sm", "B/clk/SM")},
        {P("memory.bandwidth", "l2_bytes_per_clk_per_sm")},
        {V("memory.latency.l2", "l2_latency_cycles", "cycles"),
         V("memory.latency.global", "l2_latency_cycles", "cycles")},
        {V("memory.latency.l2", "l2_size_bytes", "B"),
         V("memory.latency.global", "l2_size_bytes", "B")}}},
      {"L2 (all SMs)",
       {{{NULL}},
        {{NULL}},
        {V("memory.latency.l2", "l2_all_sms_latency_cycles", "cycles")},
        {V("memory.latency.l2", "l2_total_size_bytes", "B"),
         V("memory.latency.l2", "l2_all_sms_size_bytes", "B")}}},
      {"L2 near partition",
       {{{NULL}},
        {{NULL}},
        {V("memory.latency.l2_partition", "l2_near_latency_cycles", "cycles")}}},
      {"L2 far partition",
       {{{NULL}}, {{NULL}}, {V("memory.latency.l2_partition", "l2_far_latency_cycles", "cycles")}}},
      {"DRAM",
       {{V("memory.dram.read", "read_bytes_per_clk_per_cu", NULL),
         V("memory.bandwidth", "dram_read_bytes_per_clk_per_sm", "B/clk/SM")},
        {P("memory.dram.read", "read_bandwidth"), P("memory.bandwidth", "dram_read_bandwidth")},
        {V("memory.latency.global", "dram_latency_cycles", "cycles"),
         V("memory.latency.l2", "dram_latency_cycles", "cycles")}}},
      {"shared",
       {{V("memory.shared", "shared_bytes_per_clk_per_cu", NULL)},
        {P("memory.shared", "shared_bytes_per_clk_per_cu")},
        {V("memory.shared", "shared_latency_cycles", "cycles"),
         V("memory.latency.shared", "shared_level1_latency_cycles", "cycles")}}},
      {"constant",
       {{{"memory.constant", "constant_words_per_clk_per_cu", NULL, PICK_VALUE, 4.0}},
        {P("memory.constant", "constant_words_per_clk_per_cu")},
        {V("memory.latency.constant", "constant_level1_latency_cycles", "cycles")}}},
      {"read-only / texture",
       {{{NULL}},
        {{NULL}},
        {V("memory.latency.texture", "l1_latency_cycles", "cycles"),
         V("memory.latency.readonly", "l1_latency_cycles", "cycles")}}},
      {"local / private",
       {{{NULL}},
        {{NULL}},
        {V("memory.latency.private", "private_level1_latency_cycles", "cycles")}}}}},
    {"energy_memory",
     "energy per memory level (MIPP Tables III-IV: time, throughput, average/max power, energy, "
     "transactions per joule, energy per transaction and per byte)",
     "memory",
     11,
     {"time", "throughput", "avg power", "max power", "energy", "efficiency", "energy/trans",
      "energy/byte", "dynamic/byte", "SM clock", "counter-integral"},
     {"s", "B/clk/SM", "W", "W", "J", "10^6 trans/J", "nJ", "pJ", "pJ", "MHz", "%"},
     7,
     {EMEM_ROW("DRAM read", "energy.memory.dram.read"),
      EMEM_ROW("DRAM write", "energy.memory.dram.write"), EMEM_ROW("L2", "energy.memory.l2"),
      EMEM_ROW("L1", "energy.memory.l1"), EMEM_ROW("shared", "energy.memory.shared"),
      EMEM_ROW("constant", "energy.memory.constant"),
      EMEM_ROW("atomics", "energy.memory.atomics")}},
    {"energy_baseline",
     "idle and static power, energy counter (MIPP SV: the power the device draws without work)",
     "state",
     4,
     {"avg power", "max power", "counter-integral", "SM clock"},
     {"W", "W", "%", "MHz"},
     2,
     {{"idle",
       {{V("energy.idle", "idle_power_avg", "W")},
        {V("energy.idle", "idle_power_max", "W")},
        {V("energy.idle", "idle_counter_vs_integral", "%")}}},
      {"static (resident kernel, no work)",
       {{V("energy.idle", "static_power_avg", "W")},
        {V("energy.idle", "static_power_max", "W")},
        {V("energy.idle", "static_counter_vs_integral", "%")},
        {V("energy.idle", "static_sm_clock", "MHz")}}}}},
    {"copy_kernel",
     "copy kernel per element size: bandwidth and memory issue/completion latency (Lemeire "
     "Table III, memory rows)",
     "element",
     3,
     {"bandwidth", "lambda", "Lambda"},
     {"B/s", "cycles", "cycles"},
     5,
     {{"1 B",
       {{V("memory.copy_kernel", "bandwidth_1B", "B/s")},
        {V("memory.copy_kernel", "issue_latency_1B", "cycles")},
        {V("memory.copy_kernel", "completion_latency_1B", "cycles")}}},
      {"2 B",
       {{V("memory.copy_kernel", "bandwidth_2B", "B/s")},
        {V("memory.copy_kernel", "issue_latency_2B", "cycles")},
        {V("memory.copy_kernel", "completion_latency_2B", "cycles")}}},
      {"4 B",
       {{V("memory.copy_kernel", "bandwidth_4B", "B/s")},
        {V("memory.copy_kernel", "issue_latency_4B", "cycles")},
        {V("memory.copy_kernel", "completion_latency_4B", "cycles")}}},
      {"8 B",
       {{V("memory.copy_kernel", "bandwidth_8B", "B/s")},
        {V("memory.copy_kernel", "issue_latency_8B", "cycles")},
        {V("memory.copy_kernel", "completion_latency_8B", "cycles")}}},
      {"16 B",
       {{V("memory.copy_kernel", "bandwidth_16B", "B/s")},
        {V("memory.copy_kernel", "issue_latency_16B", "cycles")},
        {V("memory.copy_kernel", "completion_latency_16B", "cycles")}}}}},
    {"hiding",
     "latency hiding: register-dependency latency and peak throughput per instruction type "
     "(Volkov Tables 6.1-6.2, the model's parameters)",
     "instruction",
     3,
     {"latency", "peak", "peak"},
     {"cycles", "inst/clk/SM", "B/clk/SM"},
     4,
     {{"fp32 add",
       {{V("hiding.params", "alu_latency_cycles", "cycles")},
        {V("hiding.params", "alu_thru_per_clk_sm", "inst/clk/SM")}}},
      {"rsqrt (SFU)",
       {{V("hiding.params", "sfu_latency_cycles", "cycles")},
        {V("hiding.params", "sfu_thru_per_clk_sm", "inst/clk/SM")}}},
      {"shared load",
       {{V("hiding.params", "shared_latency_cycles", "cycles")},
        {V("hiding.params", "shared_thru_per_clk_sm", "inst/clk/SM")}}},
      {"global load (streaming)",
       {{V("hiding.params", "mem_latency_cycles", "cycles")},
        {{NULL}},
        {V("hiding.params", "mem_thru_bytes_per_clk_sm", "B/clk/SM")}}}}},
    {"overheads",
     "runtime overheads: launch, compilation, allocation (uCLbench §2.4 / §3.4, Table 1), "
     "median and tail percentiles",
     "overhead",
     4,
     {"median", "p5", "p95", "p99"},
     {"us", "us", "us", "us"},
     11,
     {{"launch call (host)",
       {{{"overhead.launch.roundtrip", "enqueue", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.roundtrip", "enqueue_p5", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.roundtrip", "enqueue_p95", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.roundtrip", "enqueue_p99", "s", PICK_VALUE, 1e6}}}},
      {"launch + wait (round trip)",
       {{{"overhead.launch.roundtrip", "round_trip", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.roundtrip", "round_trip_p5", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.roundtrip", "round_trip_p95", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.roundtrip", "round_trip_p99", "s", PICK_VALUE, 1e6}}}},
      {"invocation QUEUED->START",
       {{{"overhead.launch.start", "invocation_overhead", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.start", "invocation_overhead_p5", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.start", "invocation_overhead_p95", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.start", "invocation_overhead_p99", "s", PICK_VALUE, 1e6}}}},
      {"launch to kernel start",
       {{{"overhead.launch.start", "launch_to_start", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.start", "launch_to_start_p5", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.start", "launch_to_start_p95", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.start", "launch_to_start_p99", "s", PICK_VALUE, 1e6}}}},
      {"back-to-back launch interval",
       {{{"overhead.launch.rate", "launch_interval", "s", PICK_VALUE, 1e6}}}},
      {"graph launch + wait",
       {{{"overhead.launch.graph", "graph_round_trip", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.graph", "graph_round_trip_p5", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.graph", "graph_round_trip_p95", "s", PICK_VALUE, 1e6}},
        {{"overhead.launch.graph", "graph_round_trip_p99", "s", PICK_VALUE, 1e6}}}},
      {"compile per line", {{{"overhead.compile", "compile_per_line", "s", PICK_VALUE, 1e6}}}},
      {"compile fixed cost", {{{"overhead.compile", "compile_fixed_cost", "s", PICK_VALUE, 1e6}}}},
      {"kernel from gpuchar's cache",
       {{{"overhead.compile", "cached_load", "s", PICK_VALUE, 1e6}}}},
      {"device alloc 1 MiB",
       {{{"overhead.alloc", "device_alloc_1MiB", "s", PICK_VALUE, 1e6}},
        {{"overhead.alloc", "device_alloc_1MiB_p5", "s", PICK_VALUE, 1e6}},
        {{"overhead.alloc", "device_alloc_1MiB_p95", "s", PICK_VALUE, 1e6}},
        {{"overhead.alloc", "device_alloc_1MiB_p99", "s", PICK_VALUE, 1e6}}}},
      {"pinned host alloc 1 MiB",
       {{{"overhead.alloc", "pinned_alloc_1MiB", "s", PICK_VALUE, 1e6}},
        {{"overhead.alloc", "pinned_alloc_1MiB_p5", "s", PICK_VALUE, 1e6}},
        {{"overhead.alloc", "pinned_alloc_1MiB_p95", "s", PICK_VALUE, 1e6}},
        {{"overhead.alloc", "pinned_alloc_1MiB_p99", "s", PICK_VALUE, 1e6}}}}}},
    {"transfers",
     "host<->device transfers: Hockney latency and asymptotic bandwidth, best bandwidth against "
     "the link, n_half (uCLbench §2.2)",
     "transfer",
     5,
     {"latency", "bandwidth", "% of link", "r_inf (fit)", "n_half"},
     {"us", "B/s", "%", "B/s", "B"},
     14,
     {{"pinned H2D",
       {{{"transfer.pinned", "h2d_latency", "s", PICK_VALUE, 1e6}},
        {V("transfer.pinned", "h2d_bandwidth", "B/s")},
        {P("transfer.pinned", "h2d_bandwidth")},
        {V("transfer.pinned", "h2d_bandwidth_fit", "B/s")},
        {V("transfer.pinned", "h2d_n_half", "B")}}},
      {"pinned D2H",
       {{{"transfer.pinned", "d2h_latency", "s", PICK_VALUE, 1e6}},
        {V("transfer.pinned", "d2h_bandwidth", "B/s")},
        {P("transfer.pinned", "d2h_bandwidth")},
        {V("transfer.pinned", "d2h_bandwidth_fit", "B/s")},
        {V("transfer.pinned", "d2h_n_half", "B")}}},
      {"pinned H2D, 2 streams",
       {{{NULL}},
        {V("transfer.pinned", "h2d_bandwidth_two_streams", "B/s")},
        {P("transfer.pinned", "h2d_bandwidth_two_streams")}}},
      {"pinned both ways",
       {{{"transfer.pinned", "bidir_latency", "s", PICK_VALUE, 1e6}},
        {V("transfer.pinned", "bidir_bandwidth", "B/s")},
        {P("transfer.pinned", "bidir_bandwidth")},
        {V("transfer.pinned", "bidir_bandwidth_fit", "B/s")},
        {V("transfer.pinned", "bidir_n_half", "B")}}},
      {"pinned D2H, 2 streams",
       {{{NULL}},
        {V("transfer.pinned", "d2h_bandwidth_two_streams", "B/s")},
        {P("transfer.pinned", "d2h_bandwidth_two_streams")}}},
      {"pageable H2D",
       {{{"transfer.pageable", "h2d_latency", "s", PICK_VALUE, 1e6}},
        {V("transfer.pageable", "h2d_bandwidth", "B/s")},
        {P("transfer.pageable", "h2d_bandwidth")},
        {V("transfer.pageable", "h2d_bandwidth_fit", "B/s")},
        {V("transfer.pageable", "h2d_n_half", "B")}}},
      {"pageable D2H",
       {{{"transfer.pageable", "d2h_latency", "s", PICK_VALUE, 1e6}},
        {V("transfer.pageable", "d2h_bandwidth", "B/s")},
        {P("transfer.pageable", "d2h_bandwidth")},
        {V("transfer.pageable", "d2h_bandwidth_fit", "B/s")},
        {V("transfer.pageable", "d2h_n_half", "B")}}},
      {"write-combined H2D",
       {{{"transfer.write_combined", "h2d_latency", "s", PICK_VALUE, 1e6}},
        {V("transfer.write_combined", "h2d_bandwidth", "B/s")},
        {P("transfer.write_combined", "h2d_bandwidth")},
        {V("transfer.write_combined", "h2d_bandwidth_fit", "B/s")},
        {V("transfer.write_combined", "h2d_n_half", "B")}}},
      {"write-combined D2H",
       {{{"transfer.write_combined", "d2h_latency", "s", PICK_VALUE, 1e6}},
        {V("transfer.write_combined", "d2h_bandwidth", "B/s")},
        {P("transfer.write_combined", "d2h_bandwidth")},
        {V("transfer.write_combined", "d2h_bandwidth_fit", "B/s")},
        {V("transfer.write_combined", "d2h_n_half", "B")}}},
      {"mapped (zero-copy) H2D",
       {{{"transfer.mapped", "h2d_latency", "s", PICK_VALUE, 1e6}},
        {V("transfer.mapped", "h2d_bandwidth", "B/s")},
        {P("transfer.mapped", "h2d_bandwidth")},
        {V("transfer.mapped", "h2d_bandwidth_fit", "B/s")},
        {V("transfer.mapped", "h2d_n_half", "B")}}},
      {"mapped (zero-copy) D2H",
       {{{"transfer.mapped", "d2h_latency", "s", PICK_VALUE, 1e6}},
        {V("transfer.mapped", "d2h_bandwidth", "B/s")},
        {P("transfer.mapped", "d2h_bandwidth")},
        {V("transfer.mapped", "d2h_bandwidth_fit", "B/s")},
        {V("transfer.mapped", "d2h_n_half", "B")}}},
      {"map/unmap H2D",
       {{{"transfer.map", "h2d_latency", "s", PICK_VALUE, 1e6}},
        {V("transfer.map", "h2d_bandwidth", "B/s")},
        {P("transfer.map", "h2d_bandwidth")},
        {V("transfer.map", "h2d_bandwidth_fit", "B/s")},
        {V("transfer.map", "h2d_n_half", "B")}}},
      {"map/unmap D2H",
       {{{"transfer.map", "d2h_latency", "s", PICK_VALUE, 1e6}},
        {V("transfer.map", "d2h_bandwidth", "B/s")},
        {P("transfer.map", "d2h_bandwidth")},
        {V("transfer.map", "d2h_bandwidth_fit", "B/s")},
        {V("transfer.map", "d2h_n_half", "B")}}},
      {"device to device",
       {{{"transfer.d2d", "d2d_latency", "s", PICK_VALUE, 1e6}},
        {V("transfer.d2d", "d2d_bandwidth", "B/s")},
        {P("transfer.d2d", "d2d_bandwidth")},
        {V("transfer.d2d", "d2d_bandwidth_fit", "B/s")},
        {V("transfer.d2d", "d2d_n_half", "B")}}}}},
};

static int build_fixed_table(const struct gc_results *r, const struct fixed_table *ft,
                             struct gc_summary_table *t)
{
    t->name = ft->name;
    t->title = ft->title;
    t->label_title = ft->label_title;
    t->ncols = ft->ncols;
    for (int c = 0; c < ft->ncols; c++) {
        t->col_title[c] = ft->col_title[c];
        t->col_unit[c] = ft->col_unit[c];
    }
    for (int i = 0; i < ft->nrows; i++) {
        double v[GC_SUMMARY_MAXCOLS];

        for (int c = 0; c < ft->ncols; c++)
            v[c] = pick_first(r, NULL, ft->rows[i].src[c], MAXCAND);
        int rc = add_row(t, ft->rows[i].label, v);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- Grid tables (a family of series as rows, chosen x values as columns) */

struct grid_table {
    const char *name, *title, *label_title;
    const char *bench;  /* the benchmark holding the series */
    const char *prefix; /* rows: its series whose name starts with this ... */
    const char *label;  /* ... labelled this word and the rest of the name */
    int ncols;
    double x[GC_SUMMARY_MAXCOLS]; /* a cell is the point at this x */
    const char *col_title[GC_SUMMARY_MAXCOLS];
};

static const struct grid_table grid_tables[] = {
    {"divergence",
     "branch divergence: time relative to one branch, branches (columns) x branch width in "
     "threads (rows) (uCLbench §3.3, Fig. 7)",
     "width",
     "control.divergence",
     "relative_time_width_",
     "width ",
     8,
     {1, 2, 4, 8, 16, 32, 64, 128},
     {"1", "2", "4", "8", "16", "32", "64", "128"}},
};

static int build_grid_table(const struct gc_results *r, const struct grid_table *gt,
                            struct gc_summary_table *t)
{
    const struct gc_bench_result *b = gc__results_find(r, gt->bench);
    size_t plen = strlen(gt->prefix);

    t->name = gt->name;
    t->title = gt->title;
    t->label_title = gt->label_title;
    t->ncols = gt->ncols;
    for (int c = 0; c < gt->ncols; c++) {
        t->col_title[c] = gt->col_title[c];
        t->col_unit[c] = "";
    }
    if (!b || (b->status != GC_BENCH_OK && b->status != GC_BENCH_INTERRUPTED))
        return 0;
    for (int i = 0; i < b->nseries; i++) {
        const struct gc_series *se = &b->series[i];
        double v[GC_SUMMARY_MAXCOLS];
        char label[48];

        if (strncmp(se->name, gt->prefix, plen) != 0)
            continue;
        for (int c = 0; c < gt->ncols; c++) {
            v[c] = NAN;
            for (int p = 0; p < se->npoints; p++)
                if (se->points[p].x == gt->x[c])
                    v[c] = se->points[p].y;
        }
        snprintf(label, sizeof(label), "%s%s", gt->label, se->name + plen);
        int rc = add_row(t, label, v);
        if (rc)
            return rc;
    }
    return 0;
}

int gc__summary_build(const struct gc_results *r, struct gc_summary_table **out, int *n)
{
    int nb = (int)(sizeof(bench_tables) / sizeof(bench_tables[0]));
    int nf = (int)(sizeof(fixed_tables) / sizeof(fixed_tables[0]));
    int ng = (int)(sizeof(grid_tables) / sizeof(grid_tables[0]));
    struct gc_summary_table *t = calloc((size_t)(nb + nf + ng), sizeof(*t));
    int k = 0, rc = 0;

    *out = NULL;
    *n = 0;
    if (!t)
        return GC_ENOMEM;
    for (int i = 0; i < nb + nf + ng && rc == 0; i++) {
        rc = i < nb        ? build_bench_table(r, &bench_tables[i], &t[k])
             : i < nb + nf ? build_fixed_table(r, &fixed_tables[i - nb], &t[k])
                           : build_grid_table(r, &grid_tables[i - nb - nf], &t[k]);
        if (rc == 0 && t[k].nrows > 0)
            k++;
        else {
            free(t[k].rows);
            memset(&t[k], 0, sizeof(t[k]));
        }
    }
    if (rc) {
        gc__summary_free(t, k);
        return rc;
    }
    *out = t;
    *n = k;
    return 0;
}

void gc__summary_free(struct gc_summary_table *t, int n)
{
    if (!t)
        return;
    for (int i = 0; i < n; i++)
        free(t[i].rows);
    free(t);
}

/* ---- Writers ------------------------------------------------------------ */

static void fmt_cell(char *buf, size_t len, double v, const char *unit)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (strcmp(unit, "B") == 0 || strcmp(unit, "B/s") == 0)
        gc__fmt_quantity(buf, len, v, unit);
    else
        gc__fmt_sig(buf, len, v);
}

/* The unit line under a column title: capacities and byte rates carry
 * their unit in every cell, counts and ratios have none. */
static const char *unit_line(const char *unit)
{
    return unit[0] && strcmp(unit, "B") != 0 && strcmp(unit, "B/s") != 0 ? unit : "";
}

static void put_cells(FILE *f, int cols, const int *width, const char *const *cell)
{
    char line[1024];
    size_t off = 0;

    for (int c = 0; c < cols && off < sizeof(line); c++) {
        int w = snprintf(line + off, sizeof(line) - off, c == 0 ? "  %-*s" : "  %*s", width[c],
                         cell[c]);
        off += w > 0 ? (size_t)w : 0;
    }
    if (off >= sizeof(line))
        off = sizeof(line) - 1;
    while (off > 0 && line[off - 1] == ' ')
        off--;
    line[off] = '\0';
    fprintf(f, "%s\n", line);
}

int gc__summary_write_text(const struct gc_summary_table *t, int n, FILE *f)
{
    for (int i = 0; i < n; i++) {
        const struct gc_summary_table *tb = &t[i];
        int cols = tb->ncols + 1, width[GC_SUMMARY_MAXCOLS + 1];
        const char *head[GC_SUMMARY_MAXCOLS + 1], *units[GC_SUMMARY_MAXCOLS + 1];
        const char *cells[GC_SUMMARY_MAXCOLS + 1];
        char text[GC_SUMMARY_MAXCOLS][48];
        bool any_unit = false;

        head[0] = tb->label_title;
        units[0] = "";
        for (int c = 0; c < tb->ncols; c++) {
            head[c + 1] = tb->col_title[c];
            units[c + 1] = unit_line(tb->col_unit[c]);
            any_unit = any_unit || units[c + 1][0];
        }
        for (int c = 0; c < cols; c++) {
            int a = (int)strlen(head[c]), b = (int)strlen(units[c]);
            width[c] = a > b ? a : b;
        }
        for (int ro = 0; ro < tb->nrows; ro++) {
            int l = (int)strlen(tb->rows[ro].label);
            if (l > width[0])
                width[0] = l;
            for (int c = 0; c < tb->ncols; c++) {
                fmt_cell(text[c], sizeof(text[c]), tb->rows[ro].v[c], tb->col_unit[c]);
                l = (int)strlen(text[c]);
                if (l > width[c + 1])
                    width[c + 1] = l;
            }
        }
        fprintf(f, "\n== summary: %s\n", tb->title);
        put_cells(f, cols, width, head);
        if (any_unit)
            put_cells(f, cols, width, units);
        for (int ro = 0; ro < tb->nrows; ro++) {
            cells[0] = tb->rows[ro].label;
            for (int c = 0; c < tb->ncols; c++) {
                fmt_cell(text[c], sizeof(text[c]), tb->rows[ro].v[c], tb->col_unit[c]);
                cells[c + 1] = text[c];
            }
            put_cells(f, cols, width, cells);
        }
    }
    return ferror(f) ? GC_EIO : 0;
}

int gc__summary_write_csv(const struct gc_summary_table *t, FILE *f)
{
    char num[40];

    fprintf(f, "%s", t->label_title);
    for (int c = 0; c < t->ncols; c++) {
        if (t->col_unit[c][0])
            fprintf(f, ",%s [%s]", t->col_title[c], t->col_unit[c]);
        else
            fprintf(f, ",%s", t->col_title[c]);
    }
    fputc('\n', f);
    for (int ro = 0; ro < t->nrows; ro++) {
        /* Labels are benchmark names and fixed words: no commas or quotes. */
        fprintf(f, "%s", t->rows[ro].label);
        for (int c = 0; c < t->ncols; c++) {
            gc__fmt_double(num, sizeof(num), t->rows[ro].v[c]);
            fprintf(f, ",%s", num);
        }
        fputc('\n', f);
    }
    return ferror(f) ? GC_EIO : 0;
}
