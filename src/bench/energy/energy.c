/* energy.*: power and energy per operation and per byte (MIPP §IV-V,
 * Tables I-IV) of the performance benchmarks' own kernels, each at the
 * configuration its benchmark wrote into this run's results tree, else at
 * its default one, run under the device's energy meter by the meter runner
 * (core/meter.h); idle and static power; energy per FFMA and per DRAM byte
 * across the occupancy sweep. Physical orderings (DFMA above FFMA, DRAM
 * above L2 above shared per byte, tensor cores below FFMA per FLOP) are
 * given here as data and checked by the runner: a violation fails the
 * benchmark. The family runs with --full or when named with --bench; in the
 * default run it is skipped (its windows take seconds per kernel).
 *
 * This file holds the descriptions: one per instruction type, matrix unit
 * and memory level, each naming the performance benchmark whose kernel it
 * meters, plus energy.idle and the two occupancy sweeps. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/compute/compute.h"
#include "core/meter.h"

/* ---- the family ---------------------------------------------------------- */

#define ENERGY_METHOD                                                                              \
    "MIPP (Bombieri et al.) SIV-V, Tables I-IV, with the device's own energy counter in place "    \
    "of an external meter. A thread polls the cumulative counter (NVML total energy, mJ; on a "    \
    "CPU device the host's RAPL package and DRAM counters) every 0.2 ms and keeps its updates; "   \
    "power is sampled beside it every 5 ms (NVML instantaneous power, else the averaged "          \
    "reading). The kernel runs back to back (launch calls of ~20 ms of device time) for a "        \
    "settling time, then window after window, each long enough for one counter step (and its "     \
    "ends' timing) to be <= 2% of the energy it counts (0.9 s at 700 W with a 12.27 J step; at "   \
    "least 0.5 s, --quick 0.25 s, --full 1 s; at most 8 s); a window's energy is the counter "     \
    "difference between the first and last updates inside it, its power that over the time "       \
    "between them. Each figure states its source (counter, or the integral of the sampled power "  \
    "where the sensor's +-5 W is the smaller uncertainty), its uncertainty (W, %) and window "     \
    "length. A counter that does not advance, or a reading above 10x the power limit, is not "     \
    "available. Windows repeat until the CV of "                                                   \
    "their power is <= 1% (min 3, max 6; --full 0.5%, 4..10); a window whose counter went "        \
    "backwards (wrap, reset) or did not advance is measured again (at most 4 times), never "       \
    "reported. Per window the counter is compared with the trapezoidal integral of the sampled "   \
    "power; > 5% disagreement fails the benchmark. Energy per op = average power / (device-timed " \
    "throughput x busy fraction); dynamic = (average power - static power) / the same, static "    \
    "power being that of a kernel with one warp per SM sleeping on %globaltimer (CUDA; "           \
    "elsewhere idle power). Checks: average power over all windows not above the enforced power "  \
    "limit by more than its uncertainty for >= 1 s (the controller's averaging period; less is a " \
    "warning); dynamic energy per DFMA above FFMA's; tensor-core energy per FLOP below "           \
    "FFMA's; energy per byte DRAM > L2 > shared. Each kernel runs at the configuration its "       \
    "performance benchmark wrote into its result when that benchmark ran earlier in the same run " \
    "(read from the results tree, checked against what the launch can build and the device "       \
    "hold), else at the benchmark's default one; the throughput note says which. Skipped in the "  \
    "default run (seconds per kernel); runs with --full or --bench 'energy.*'."

extern const struct gc_bench_family gc__compute_family;
extern const struct gc_bench_family gc__family_mma;

/* A row of the family: the meter runner's description, and the performance
 * benchmark it meters where a family's table gives it (NULL: found by name
 * when the run reaches it; the table cannot be asked while this family is
 * being built). */
struct erow {
    struct gc_meter_desc meter;
    const struct gc_bench *perf;
};

static struct gc_bench *benches;
static struct erow *params;
static char (*names)[64];
static char (*sums)[160];
static int nbench;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define EN_CELL(c, m, u, pk)                                                                       \
    {                                                                                              \
        .table = &gc__sum_energy_compute, .row = "energy.compute.", .col = c, .metric = m,         \
        .unit = u, .pick = pk                                                                      \
    }
/* A row per instruction type and matrix unit, listed when its energy per
 * operation was measured. */
static const struct gc_sum_cell compute_cells[] = {
    EN_CELL(0, "time", "s", GC_SUM_VALUE),
    EN_CELL(1, "per_clk_per_cu", NULL, GC_SUM_LIMIT),
    EN_CELL(2, "per_clk_per_cu", NULL, GC_SUM_VALUE),
    EN_CELL(3, "power_avg", "W", GC_SUM_VALUE),
    EN_CELL(4, "power_max", "W", GC_SUM_VALUE),
    EN_CELL(5, "energy", "J", GC_SUM_VALUE),
    EN_CELL(6, "mips_per_watt_per_sm", NULL, GC_SUM_VALUE),
    {.table = &gc__sum_energy_compute,
     .row = "energy.compute.",
     .col = 7,
     .metric = "energy_per_op",
     .key = true},
    EN_CELL(8, "dynamic_energy_per_op", NULL, GC_SUM_VALUE),
    EN_CELL(9, "sm_clock", "MHz", GC_SUM_VALUE),
    EN_CELL(10, "counter_vs_integral", "%", GC_SUM_VALUE),
    {0},
};
static const struct gc_bench_report compute_report = {.cells = compute_cells};

static const struct gc_sum_cell idle_cells[] = {
    GC_SUM_V(gc__sum_energy_baseline, "idle", 0, "idle_power_avg", "W"),
    GC_SUM_V(gc__sum_energy_baseline, "idle", 1, "idle_power_max", "W"),
    GC_SUM_V(gc__sum_energy_baseline, "idle", 2, "idle_counter_vs_integral", "%"),
    GC_SUM_V(gc__sum_energy_baseline, "static (resident kernel, no work)", 0, "static_power_avg",
             "W"),
    GC_SUM_V(gc__sum_energy_baseline, "static (resident kernel, no work)", 1, "static_power_max",
             "W"),
    GC_SUM_V(gc__sum_energy_baseline, "static (resident kernel, no work)", 2,
             "static_counter_vs_integral", "%"),
    GC_SUM_V(gc__sum_energy_baseline, "static (resident kernel, no work)", 3, "static_sm_clock",
             "MHz"),
    {0},
};
static const struct gc_bench_report idle_report = {.cells = idle_cells};

/* The row of one memory level in the energy-per-memory-level table. */
#define EMEM_CELLS(label)                                                                          \
    {                                                                                              \
        GC_SUM_V(gc__sum_energy_memory, label, 0, "time", "s"),                                    \
            GC_SUM_V(gc__sum_energy_memory, label, 1, "bytes_per_clk_per_cu", NULL),               \
            GC_SUM_V(gc__sum_energy_memory, label, 2, "power_avg", "W"),                           \
            GC_SUM_V(gc__sum_energy_memory, label, 3, "power_max", "W"),                           \
            GC_SUM_V(gc__sum_energy_memory, label, 4, "energy", "J"),                              \
            {.table = &gc__sum_energy_memory,                                                      \
             .row = label,                                                                         \
             .col = 5,                                                                             \
             .metric = "transactions_per_joule",                                                   \
             .scale = 1e-6},                                                                       \
            GC_SUM_V(gc__sum_energy_memory, label, 6, "energy_per_transaction", "nJ"),             \
            GC_SUM_V(gc__sum_energy_memory, label, 7, "energy_per_byte", "pJ/B"),                  \
            GC_SUM_V(gc__sum_energy_memory, label, 8, "dynamic_energy_per_byte", "pJ/B"),          \
            GC_SUM_V(gc__sum_energy_memory, label, 9, "sm_clock", "MHz"),                          \
            GC_SUM_V(gc__sum_energy_memory, label, 10, "counter_vs_integral", "%"), {0},           \
    }
static const struct gc_sum_cell emem_dram_read[] = EMEM_CELLS("DRAM read");
static const struct gc_sum_cell emem_dram_write[] = EMEM_CELLS("DRAM write");
static const struct gc_sum_cell emem_l2[] = EMEM_CELLS("L2");
static const struct gc_sum_cell emem_l1[] = EMEM_CELLS("L1");
static const struct gc_sum_cell emem_shared[] = EMEM_CELLS("shared");
static const struct gc_sum_cell emem_constant[] = EMEM_CELLS("constant");
static const struct gc_sum_cell emem_atomics[] = EMEM_CELLS("atomics");

/* The orderings, as data: a figure's dynamic energy per unit against the one
 * recorded under the reference key earlier in the run. */
static const struct gc_meter_order dfma_above_ffma = {"fp32.fma", GC_METER_PER_OP, true, false,
                                                      "energy per DFMA above energy per FFMA"};
static const struct gc_meter_order mma_below_ffma = {
    "fp32.fma/FLOP", GC_METER_PER_FLOP, false, false, "tensor-core energy per FLOP below FFMA's"};
/* Memory levels are a GPU's (gpu_only): on a CPU "shared" memory is cached
 * global memory and the device's cache figures are the host's. */
static const struct gc_meter_order l2_below_dram = {"dram.read", GC_METER_PER_BYTE, false, true,
                                                    "energy per byte from L2 below DRAM's"};
static const struct gc_meter_order shared_below_l2 = {
    "l2", GC_METER_PER_BYTE, false, true, "energy per byte from shared memory below L2's"};

static const struct {
    const char *name, *key, *summary;
    struct gc_bench_report report;
    const char *bench, *part; /* whose kernel it meters */
    const struct gc_meter_order *order;
} mem_rows[] = {
    {"energy.memory.dram.read",
     "dram.read",
     "energy per byte of DRAM reads (memory.dram.read's kernel)",
     {.cells = emem_dram_read},
     "memory.dram.read",
     NULL,
     NULL},
    {"energy.memory.dram.write",
     "dram.write",
     "energy per byte of DRAM writes (memory.dram.write's kernel)",
     {.cells = emem_dram_write},
     "memory.dram.write",
     NULL,
     NULL},
    {"energy.memory.l2",
     "l2",
     "energy per byte of L2 reads (memory.bandwidth's kernel)",
     {.cells = emem_l2},
     "memory.bandwidth",
     "l2",
     &l2_below_dram},
    {"energy.memory.l1",
     "l1",
     "energy per byte of L1 reads (memory.bandwidth's kernel)",
     {.cells = emem_l1},
     "memory.bandwidth",
     "l1",
     NULL},
    {"energy.memory.shared",
     "shared",
     "energy per byte of shared-memory loads (memory.shared's kernel)",
     {.cells = emem_shared},
     "memory.shared",
     NULL,
     &shared_below_l2},
    {"energy.memory.constant",
     "constant",
     "energy per constant-cache broadcast load (memory.constant's kernel)",
     {.cells = emem_constant},
     "memory.constant",
     NULL,
     NULL},
    {"energy.memory.atomics",
     "atomics",
     "energy per global atomic add (memory.atomics's kernel)",
     {.cells = emem_atomics},
     "memory.atomics",
     NULL,
     NULL},
};

#define NMEM ((int)(sizeof(mem_rows) / sizeof(mem_rows[0])))

/* The occupancy sweeps: the default launch of FFMA and of the DRAM read at
 * each point of warps per CU. Both come last, and both are left out where
 * the device has no fp32.fma row. */
static const struct {
    const char *name, *bench, *summary;
    enum gc_meter_per per;
} occ_rows[] = {
    {"energy.occupancy.fp32_fma", "compute.fp32.fma",
     "power, energy per FFMA and SM clock across the occupancy sweep", GC_METER_PER_OP},
    {"energy.occupancy.dram_read", "memory.dram.read",
     "power, energy per DRAM byte and SM clock across the occupancy sweep", GC_METER_PER_BYTE},
};
#define NOCC ((int)(sizeof(occ_rows) / sizeof(occ_rows[0])))

/* Every energy.* benchmark's run: the meter runner on its description, with
 * the performance benchmark it meters (none for energy.idle). */
static int run_energy(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    const struct erow *e = self->param;
    const struct gc_bench *perf = e->perf;

    if (!perf && e->meter.kind != GC_METER_IDLE)
        perf = gc__bench_find(e->meter.bench);
    return gc__meter_run(s, &e->meter, perf, r);
}

/* Row k's benchmark: name and summary (kept by the caller), the family's
 * run and method, its description params[k], its summary-table cells. */
static void describe(int k, const char *name, const char *summary,
                     const struct gc_bench_report *report)
{
    benches[k] = (struct gc_bench){
        .info = {.name = name, .group = "energy", .summary = summary, .method = ENERGY_METHOD},
        .run = run_energy,
        .opt_in = true,
        .param = &params[k],
        .report = report,
    };
}

/* One row per instruction type from k on (fp32.fma noted in *ffma for the
 * occupancy sweep); returns the next free row. */
static int add_compute_rows(int k, int nit, const struct gc_itype **ffma)
{
    for (int i = 0; i < nit; i++, k++) {
        const struct gc_itype *t = gc__itype_get(i);
        if (strcmp(t->name, "fp32.fma") == 0)
            *ffma = t;
        params[k].meter = (struct gc_meter_desc){.kind = GC_METER_LAUNCH, .key = t->name};
        if (strcmp(t->name, "fp64.fma") == 0)
            params[k].meter.order = dfma_above_ffma;
        params[k].perf = gc__compute_family.at(i);
        snprintf(params[k].meter.bench, sizeof(params[k].meter.bench), "compute.%s", t->name);
        snprintf(names[k], sizeof(names[k]), "energy.compute.%s", t->name);
        snprintf(sums[k], sizeof(sums[k]), "power and energy per operation of compute.%s", t->name);
        describe(k, names[k], sums[k], &compute_report);
        benches[k].needs_caps = t->needs_caps;
    }
    return k;
}

/* One row per matrix-unit benchmark from k on; returns the next free row. */
static int add_mma_rows(int k)
{
    for (int i = 0; i < gc__family_mma.count(); i++) {
        const struct gc_bench *b = gc__family_mma.at(i);
        if (strncmp(b->info.name, "compute.mma.", 12) != 0 &&
            strncmp(b->info.name, "compute.wgmma.", 14) != 0)
            continue;
        params[k].meter = (struct gc_meter_desc){
            .kind = GC_METER_LAUNCH, .key = b->info.name + 8, .order = mma_below_ffma};
        params[k].perf = b;
        snprintf(params[k].meter.bench, sizeof(params[k].meter.bench), "%s", b->info.name);
        snprintf(names[k], sizeof(names[k]), "energy.%s", b->info.name);
        snprintf(sums[k], sizeof(sums[k]), "power and energy per FLOP (OP) of %s", b->info.name);
        describe(k, names[k], sums[k], &compute_report);
        k++;
    }
    return k;
}

static void build_family(void)
{
    int nit = gc__itype_count(), nmma = 0, n, k = 0;
    const struct gc_itype *ffma = NULL;

    /* The matrix-unit benchmarks come from their own family (not through
     * gc__bench_at, which would ask this family's count while it is being
     * built). */
    for (int i = 0; i < gc__family_mma.count(); i++) {
        const char *nm = gc__family_mma.at(i)->info.name;
        if (strncmp(nm, "compute.mma.", 12) == 0 || strncmp(nm, "compute.wgmma.", 14) == 0)
            nmma++;
    }
    n = 1 + nit + nmma + NMEM + NOCC;
    benches = calloc((size_t)n, sizeof(*benches));
    params = calloc((size_t)n, sizeof(*params));
    names = calloc((size_t)n, sizeof(*names));
    sums = calloc((size_t)n, sizeof(*sums));
    if (!benches || !params || !names || !sums) {
        free(benches);
        free(params);
        free(names);
        free(sums);
        benches = NULL;
        return;
    }
    params[k].meter = (struct gc_meter_desc){.kind = GC_METER_IDLE};
    describe(k, "energy.idle",
             "energy counter resolution and update period, idle power, static power of a "
             "resident kernel that does no work",
             &idle_report);
    k++;
    k = add_compute_rows(k, nit, &ffma);
    k = add_mma_rows(k);
    for (int i = 0; i < NMEM; i++, k++) {
        params[k].meter = (struct gc_meter_desc){.kind = GC_METER_LAUNCH,
                                                 .part = mem_rows[i].part,
                                                 .per = GC_METER_PER_BYTE,
                                                 .key = mem_rows[i].key};
        if (mem_rows[i].order)
            params[k].meter.order = *mem_rows[i].order;
        snprintf(params[k].meter.bench, sizeof(params[k].meter.bench), "%s", mem_rows[i].bench);
        describe(k, mem_rows[i].name, mem_rows[i].summary, &mem_rows[i].report);
    }
    for (int i = 0; i < NOCC; i++, k++) {
        params[k].meter =
            (struct gc_meter_desc){.kind = GC_METER_OCCUPANCY, .per = occ_rows[i].per};
        snprintf(params[k].meter.bench, sizeof(params[k].meter.bench), "%s", occ_rows[i].bench);
        describe(k, occ_rows[i].name, occ_rows[i].summary, NULL);
    }
    nbench = ffma ? k : k - NOCC;
    /* The power readings of two devices measured at once would each
     * include the other's heat in the host's budget and its power capping:
     * one device at a time. */
    for (int i = 0; i < nbench; i++)
        benches[i].resources = GC_RES_POWER_METER;
}

static int family_count(void)
{
    pthread_once(&once, build_family);
    return benches ? nbench : 0;
}

static const struct gc_bench *family_at(int i)
{
    return i >= 0 && i < family_count() ? &benches[i] : NULL;
}

const struct gc_bench_family gc__family_energy = {family_count, family_at};
