/* The layouts of the run's summary tables, in report order: titles, columns
 * and fixed rows. The benchmarks fill them (present.h); a table no
 * benchmark of the run fills is left out of the report. */
#include <stddef.h>
#include <string.h>

#include "core/present.h"

const struct gc_sum_table gc__sum_compute = {
    .name = "compute",
    .title = "compute: instruction throughput, pipeline model and occupancy needed (Lemeire Table "
             "III, MIPP Table I, Volkov Tables 6.1-6.3)",
    .label_title = "itype",
    .kind = GC_SUM_PER_BENCH,
    .ncols = 11,
    .col_title = {"per clk/SM", "spec", "% of spec", "lambda", "Lambda", "ridge ILP1", "ridge ILP2",
                  "ridge ILP4", "90% ILP1", "Little's law", "sequential"},
    .col_unit = {"results", "results", "%", "cycles", "cycles", "warps", "warps", "warps", "warps",
                 "warps", "cycles"},
};

const struct gc_sum_table gc__sum_matrix = {
    .name = "matrix",
    .title = "matrix units: dense throughput against the vendor's rate",
    .label_title = "unit and types",
    .kind = GC_SUM_PER_BENCH,
    .ncols = 4,
    .col_title = {"per clk/SM", "spec", "% of spec", "instr/clk/SM"},
    .col_unit = {"(FL)OP", "(FL)OP", "%", ""},
};

const struct gc_sum_table gc__sum_energy_compute = {
    .name = "energy_compute",
    .title = "energy per instruction type and matrix unit (MIPP Tables I-II: time, spec vs real "
             "throughput, average/max power, energy, efficiency, energy per instruction)",
    .label_title = "itype",
    .kind = GC_SUM_PER_BENCH,
    .ncols = 11,
    .col_title = {"time", "spec", "real", "avg power", "max power", "energy", "efficiency",
                  "energy/op", "dynamic/op", "SM clock", "counter-integral"},
    .col_unit = {"s", "ops/clk/SM", "ops/clk/SM", "W", "W", "J", "MIPS/W/SM", "pJ", "pJ", "MHz",
                 "%"},
};

const struct gc_sum_table gc__sum_memory = {
    .name = "memory",
    .title = "memory: bandwidth per memory type (gpumembench Table III), latency and capacity per "
             "level (Lemeire Table III)",
    .label_title = "memory",
    .kind = GC_SUM_FIXED,
    .ncols = 4,
    .col_title = {"bandwidth", "% of limit", "latency", "capacity"},
    .col_unit = {"B/clk/SM", "%", "cycles", "B"},
    .rows = {"L1", "L2 (one SM)", "L2 (all SMs)", "L2 near partition", "L2 far partition", "DRAM",
             "shared", "constant", "read-only / texture", "local / private"},
};

const struct gc_sum_table gc__sum_energy_memory = {
    .name = "energy_memory",
    .title = "energy per memory level (MIPP Tables III-IV: time, throughput, average/max power, "
             "energy, transactions per joule, energy per transaction and per byte)",
    .label_title = "memory",
    .kind = GC_SUM_FIXED,
    .ncols = 11,
    .col_title = {"time", "throughput", "avg power", "max power", "energy", "efficiency",
                  "energy/trans", "energy/byte", "dynamic/byte", "SM clock", "counter-integral"},
    .col_unit = {"s", "B/clk/SM", "W", "W", "J", "10^6 trans/J", "nJ", "pJ", "pJ", "MHz", "%"},
    .rows = {"DRAM read", "DRAM write", "L2", "L1", "shared", "constant", "atomics"},
};

const struct gc_sum_table gc__sum_energy_baseline = {
    .name = "energy_baseline",
    .title = "idle and static power, energy counter (MIPP SV: the power the device draws without "
             "work)",
    .label_title = "state",
    .kind = GC_SUM_FIXED,
    .ncols = 4,
    .col_title = {"avg power", "max power", "counter-integral", "SM clock"},
    .col_unit = {"W", "W", "%", "MHz"},
    .rows = {"idle", "static (resident kernel, no work)"},
};

const struct gc_sum_table gc__sum_copy_kernel = {
    .name = "copy_kernel",
    .title = "copy kernel per element size: bandwidth and memory issue/completion latency (Lemeire "
             "Table III, memory rows)",
    .label_title = "element",
    .kind = GC_SUM_FIXED,
    .ncols = 3,
    .col_title = {"bandwidth", "lambda", "Lambda"},
    .col_unit = {"B/s", "cycles", "cycles"},
    .rows = {"1 B", "2 B", "4 B", "8 B", "16 B"},
};

const struct gc_sum_table gc__sum_hiding = {
    .name = "hiding",
    .title = "latency hiding: register-dependency latency and peak throughput per instruction type "
             "(Volkov Tables 6.1-6.2, the model's parameters)",
    .label_title = "instruction",
    .kind = GC_SUM_FIXED,
    .ncols = 3,
    .col_title = {"latency", "peak", "peak"},
    .col_unit = {"cycles", "inst/clk/SM", "B/clk/SM"},
    .rows = {"fp32 add", "rsqrt (SFU)", "shared load", "global load (streaming)"},
};

const struct gc_sum_table gc__sum_overheads = {
    .name = "overheads",
    .title = "runtime overheads: launch, compilation, allocation (uCLbench §2.4 / §3.4, Table 1), "
             "median and tail percentiles",
    .label_title = "overhead",
    .kind = GC_SUM_FIXED,
    .ncols = 4,
    .col_title = {"median", "p5", "p95", "p99"},
    .col_unit = {"us", "us", "us", "us"},
    .rows = {"launch call (host)", "launch + wait (round trip)", "invocation QUEUED->START",
             "launch to kernel start", "back-to-back launch interval", "graph launch + wait",
             "compile per line", "compile fixed cost", "kernel from gpuchar's cache",
             "device alloc 1 MiB", "pinned host alloc 1 MiB"},
};

const struct gc_sum_table gc__sum_transfers = {
    .name = "transfers",
    .title = "host<->device transfers: Hockney latency and asymptotic bandwidth, best bandwidth "
             "against the link, n_half (uCLbench §2.2)",
    .label_title = "transfer",
    .kind = GC_SUM_FIXED,
    .ncols = 5,
    .col_title = {"latency", "bandwidth", "% of link", "r_inf (fit)", "n_half"},
    .col_unit = {"us", "B/s", "%", "B/s", "B"},
    .rows = {"pinned H2D", "pinned D2H", "pinned H2D, 2 streams", "pinned both ways",
             "pinned D2H, 2 streams", "pageable H2D", "pageable D2H", "write-combined H2D",
             "mapped (zero-copy) H2D", "mapped (zero-copy) D2H", "map/unmap H2D", "map/unmap D2H",
             "device to device"},
};

const struct gc_sum_table gc__sum_divergence = {
    .name = "divergence",
    .title = "branch divergence: time relative to one branch, branches (columns) x branch width in "
             "threads (rows) (uCLbench §3.3, Fig. 7)",
    .label_title = "width",
    .kind = GC_SUM_GRID,
    .ncols = 8,
    .col_title = {"1", "2", "4", "8", "16", "32", "64", "128"},
    .col_unit = {"", "", "", "", "", "", "", ""},
    .x = {1, 2, 4, 8, 16, 32, 64, 128},
};

/* application.jacobi: uCLbench Table 2's measurements, one row per
 * variant. */
const struct gc_sum_table gc__sum_jacobi = {
    .name = "jacobi",
    .title = "omega-Jacobi relaxation per variant: time per step and speedup over the baseline "
             "(uCLbench S4.3, Table 2)",
    .label_title = "variant",
    .kind = GC_SUM_FIXED,
    .ncols = 2,
    .col_title = {"time", "speedup"},
    .col_unit = {"us", "x"},
    .rows = {"baseline", "vec4", "vec8", "vec16", "BE", "mcDyn", "mcStat", "vec4_BE", "vec8_BE",
             "vec16_BE", "vec4_mcStat", "vec8_mcStat", "vec16_mcStat", "BE_mcStat",
             "vec4_BE_mcStat", "vec8_BE_mcStat", "vec16_BE_mcStat"},
};

static const struct gc_sum_table *const tables[] = {
    &gc__sum_compute,
    &gc__sum_matrix,
    &gc__sum_energy_compute,
    &gc__sum_memory,
    &gc__sum_energy_memory,
    &gc__sum_energy_baseline,
    &gc__sum_copy_kernel,
    &gc__sum_hiding,
    &gc__sum_overheads,
    &gc__sum_transfers,
    &gc__sum_divergence,
    &gc__sum_jacobi,
    NULL,
};

const struct gc_sum_table *gc__sum_table_at(int i)
{
    int n = (int)(sizeof(tables) / sizeof(tables[0])) - 1;

    return i >= 0 && i < n ? tables[i] : NULL;
}

const struct gc_sum_table *gc__sum_table_find(const char *name)
{
    const struct gc_sum_table *t;

    for (int i = 0; name && (t = gc__sum_table_at(i)); i++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}
