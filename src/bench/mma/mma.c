/* compute.mma.* and compute.wgmma.*: matrix-unit (tensor core) throughput of
 * the warp-level mma.sync instructions and, on sm_90a, of the warpgroup-level
 * wgmma.mma_async instructions, per input/accumulator type (the matrix-unit
 * counterpart of the occupancy roofline of Lemeire et al. SIII and of the peak
 * throughput of Volkov S6.1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/mma/mma.h"
#include "bench/launchcfg.h"
#include "core/arch.h"
#include "core/devfill.h"
#include "core/harness.h"
#include "core/occupancy.h"
#include "core/stats.h"
#include "core/kcache.h"
#include "kgen/kgen.h"

static bool emulated(const struct mma_op *op, const struct gc_arch *a);
static int run_mma(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r);

/* Dense multiply-add throughput of the matrix units, FLOP (int8: OP) per
 * clock per SM, from the architecture table (NAN unknown). An emulated
 * instruction runs on the fp16 path. */
static double spec_per_clk_sm(const struct mma_op *op, const struct gc_arch *a)
{
    return a->mma_rate[emulated(op, a) ? GC_MMA_F16_F32 : op->cls];
}

/* ---- The table of benchmarks ------------------------------------------- */

static const struct mma_op ops[] = {
    {K_SYNC, E_F16, E_F32, GC_MMA_F16_F32, 16, 8, 16, 80,
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", NULL, "HMMA.16816.F32"},
    {K_SYNC, E_F16, E_F16, GC_MMA_F16_F16, 16, 8, 16, 80,
     "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", NULL, "HMMA.16816.F16"},
    {K_SYNC, E_BF16, E_F32, GC_MMA_BF16, 16, 8, 16, 80,
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", NULL, "HMMA.16816.F32.BF16"},
    {K_SYNC, E_TF32, E_F32, GC_MMA_TF32, 16, 8, 8, 80,
     "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", NULL, "HMMA.1688.F32.TF32"},
    {K_SYNC, E_S8, E_S32, GC_MMA_INT8, 16, 8, 32, 80,
     "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", NULL, "IMMA.16832.S8.S8"},
    {K_SYNC, E_E4M3, E_F32, GC_MMA_FP8, 16, 8, 32, 89,
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", NULL, "QMMA.16832.F32.E4M3.E4M3"},
    {K_WGMMA, E_F16, E_F32, GC_MMA_F16_F32, 64, 256, 16, 90,
     "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", "1, 1, 0, 0", "HGMMA.64x256x16.F32"},
    {K_WGMMA, E_F16, E_F16, GC_MMA_F16_F16, 64, 256, 16, 90,
     "wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16", "1, 1, 0, 0", "HGMMA.64x256x16.F16"},
    {K_WGMMA, E_BF16, E_F32, GC_MMA_BF16, 64, 256, 16, 90,
     "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "1, 1, 0, 0",
     "HGMMA.64x256x16.F32.BF16"},
    {K_WGMMA, E_TF32, E_F32, GC_MMA_TF32, 64, 256, 8, 90,
     "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", "1, 1", "HGMMA.64x256x8.F32.TF32"},
    {K_WGMMA, E_E4M3, E_F32, GC_MMA_FP8, 64, 256, 32, 90,
     "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", "1, 1",
     "QGMMA.64x256x32.F32.E4M3.E4M3"},
    {K_WGMMA, E_S8, E_S32, GC_MMA_INT8, 64, 256, 32, 90,
     "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8", NULL, "IGMMA.64x256x32.S8.S8"},
};

#define NOPS ((int)(sizeof(ops) / sizeof(ops[0])))

/* ---- Running ------------------------------------------------------------ */

/* Instructions one warp (mma.sync) or warpgroup (wgmma) executes per launch. */
static double instr_per_unit(const struct mma_op *op, int ilp)
{
    if (op->kind == K_SYNC)
        return (double)SYNC_TRIPS * SYNC_BODY + ilp;
    return (double)WG_TRIPS * WG_GROUP + 1;
}

static bool is_int(const struct mma_op *op)
{
    return op->ab == E_S8;
}

/* fp8 mma.sync exists natively on sm_89 and sm_120 (QMMA); on sm_90 the
 * compiler emulates it by converting the operands to fp16 and issuing two
 * m16n8k16 HMMA per instruction (NVIDIA/cutlass issue 1986): that is no
 * hardware rate, and the benchmark reports it as not available there. */
static bool emulated(const struct mma_op *op, const struct gc_arch *a)
{
    return op->ab == E_E4M3 && op->kind == K_SYNC && a->mma_fp8_emulated;
}

/* Why the device cannot run op, or NULL when it can. */
static const char *unavailable(const struct mma_op *op, const struct gc_arch *a, char *buf,
                               size_t len)
{
    if (a->cc == 0) {
        snprintf(buf, len,
                 "not available on this device: the matrix units are reached through inline "
                 "PTX (%s) on CUDA devices; OpenCL C has no matrix-multiply instruction",
                 op->kind == K_SYNC ? "mma.sync" : "wgmma.mma_async");
        return buf;
    }
    if (op->kind == K_WGMMA && !a->wgmma) {
        snprintf(buf, len,
                 "not available on this device (needs sm_90a: wgmma exists only on compute "
                 "capability 9.0; this is sm_%d)",
                 a->cc);
        return buf;
    }
    if (gc__arch_older_than(a, op->min_cc)) {
        snprintf(buf, len, "not available on this device (needs sm_%d; this is sm_%d)", op->min_cc,
                 a->cc);
        return buf;
    }
    /* Measured on an H200, the compiler's sm_90 emulation of fp8 mma.sync
     * ran at 169% of the fp16 tensor rate it is supposed to be built from:
     * whatever it executes is not the instruction asked for, so neither a
     * number nor a SASS expectation is declared for it. */
    if (emulated(op, a)) {
        snprintf(buf, len,
                 "not available on this device: sm_%d has no native fp8 mma.sync (the "
                 "compiler's emulation is not a hardware rate); compute.wgmma.e4m3_f32 measures "
                 "the fp8 tensor path",
                 a->cc);
        return buf;
    }
    return NULL;
}

/* The kernel of op at ilp accumulators per warp (mma.sync; wgmma has one),
 * with its cache label. */
static int build_source(enum gc_dialect d, const struct mma_op *op, unsigned flags, int ilp,
                        char **src, char *label, size_t len)
{
    if (op->kind == K_WGMMA) {
        snprintf(label, len, "wgmma_%s", strchr(op->sass, '.') + 1);
        *src = gc__mma_gen_wgmma(d, op, flags);
        return *src ? 0 : GC_ENOMEM;
    }
    snprintf(label, len, "mma_%s_ilp%d", op->sass, ilp);
    for (char *c = label; *c; c++)
        if (*c == '.')
            *c = '_';
    *src = gc__mma_gen_sync(d, op, flags, ilp);
    return *src ? 0 : GC_ENOMEM;
}

/* ---- The run on the harness ---------------------------------------------
 *
 * Every point of the sweep is one configuration of the harness. A full
 * measurement (2 warm-ups, calibration, 5..10 samples of MMA_SUSTAINED_S (MMA_SAMPLING_S),
 * throttled samples redone up to 10 times) took 150-200 ms on an H200; a
 * screen (1 warm-up, calibration, 3 samples of 5 ms) takes 20-30 ms with
 * its check. The screens are ranked by FLOP per cycle of the clock each
 * observed: short samples run at up to 1820 MHz before the power
 * controller brings the clock to ~1600 MHz, during the screens, so FLOP/s
 * could misrank by 14%; the rate per clock (how well a point feeds the
 * units) does not move with it. Every point within 5% of the best per
 * clock is measured in full (the best always, at most 3): a point 5% below
 * draws less power but gains less than that in sustained clock. Figures
 * come from full measurements only; screened points are drawn as
 * "(screened)". Under the power cap every sustained sample is "throttled":
 * that is the state measured, so its samples are kept, not redone. Every
 * measurement's own launches are checked (accumulators poisoned before,
 * every value compared with C + A.B after). */

#define MMA_SCREEN_S 0.005
#define MMA_SCREEN_N 3
#define MMA_MAX_CFG 16

struct mma_pt {
    int ilp, units;
    double instr; /* per launch, set up */
};

struct gc_mma_run {
    const struct mma_op *op;
    unsigned flags;
    int nilp, nunit;
    int ilps[4], units[4];
    struct mma_bufs b;  /* for the largest configuration */
    struct gc_buf *tsb; /* timestamps of the largest grid */
    char skipped[512];  /* points the device cannot hold */
    struct mma_pt pt[MMA_MAX_CFG];
    struct gc_hdesc desc;
};

static int mma_setup(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out)
{
    struct gc_mma_run *mr = h->d->user;
    const struct mma_op *op = mr->op;
    struct mma_pt *p = &mr->pt[c - h->cfg];
    struct gc_device *d = h->s->dev;
    bool sync = op->kind == K_SYNC;
    int block = sync ? SYNC_BLOCK : WG_THREADS;
    int per_cu = sync ? p->units * 32 / SYNC_BLOCK : p->units, na = 0;
    struct gc_occupancy oc = {0};
    int rc = gc__occupancy_set(d, c->k, block, per_cu, &oc);

    if (rc == GC_ERANGE) {
        /* Registers or shared memory allow fewer blocks: this point of the
         * sweep does not exist on this device. */
        size_t l = strlen(mr->skipped);

        snprintf(mr->skipped + l, sizeof(mr->skipped) - l, "%s%d %s/SM", l ? ", " : "", p->units,
                 sync ? "warps" : "warpgroups");
        snprintf(out->desc, sizeof(out->desc), "%d %s/SM cannot be resident", p->units,
                 sync ? "warps" : "warpgroups");
        out->absent = true;
        return 0;
    }
    if (rc)
        return rc;
    unsigned grid = (unsigned)(per_cu * d->info.compute_units);
    double units = sync ? (double)grid * block / 32.0 : (double)grid;

    out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = mr->b.bops};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = mr->b.bc};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = mr->b.bout};
    if (!sync)
        out->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 1};
    if (mr->flags & GC_KGEN_TIMESTAMPS) {
        out->ts = (struct gc_timestamps){mr->tsb, grid};
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = mr->tsb};
    }
    out->l =
        (struct gc_launch){{grid, 1, 1}, {(unsigned)block, 1, 1}, oc.dyn_shared, out->args, na, 1};
    p->instr = units * instr_per_unit(op, p->ilp);
    out->work = 2.0 * op->m * op->n * op->k * p->instr;
    if (sync)
        snprintf(out->desc, sizeof(out->desc), "%d warps/SM, %d accumulators per warp, %s",
                 p->units, p->ilp, oc.note);
    else
        snprintf(out->desc, sizeof(out->desc), "%d warpgroup(s)/SM, %d wgmma per group, %s",
                 p->units, WG_GROUP, oc.note);
    return 0;
}

/* Poisoned, so that the check proves the launches wrote every value. */
static int mma_before(struct gc_harness *h, struct gc_hconf *c)
{
    struct gc_mma_run *mr = h->d->user;

    (void)c;
    return gc__devfill_word(h->s, mr->b.bout, mr->b.cwords * 4, 0xFFFFFFFFu);
}

static int mma_verify(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    struct gc_mma_run *mr = h->d->user;
    const struct mma_pt *p = &mr->pt[c - h->cfg];

    return gc__mma_check(h->s->dev, mr->op, &mr->b, c->hl.l.grid[0], p->ilp, msg, len);
}

/* The sweep of a profile: accumulators per warp x warps per SM (mma.sync),
 * warpgroups per SM (wgmma). */
static void sweep_of(enum gc_profile pr, const struct mma_op *op, struct gc_mma_run *mr)
{
    static const int ilps_q[] = {4, 8}, ilps_d[] = {2, 4, 8}, ilps_f[] = {1, 2, 4, 8};
    static const int warps_q[] = {8, 16}, warps_d[] = {8, 16, 32}, warps_f[] = {4, 8, 16, 32};
    static const int wgs_q[] = {1, 2}, wgs_d[] = {1, 2}, wgs_f[] = {1, 2, 3};
    bool quick = pr == GC_PROFILE_QUICK, full = pr == GC_PROFILE_FULL;

    if (op->kind == K_SYNC) {
        mr->nilp = quick ? 2 : full ? 4 : 3;
        mr->nunit = quick ? 2 : full ? 4 : 3;
        memcpy(mr->ilps, quick ? ilps_q : full ? ilps_f : ilps_d, (size_t)mr->nilp * sizeof(int));
        memcpy(mr->units,
               quick  ? warps_q
               : full ? warps_f
                      : warps_d,
               (size_t)mr->nunit * sizeof(int));
    } else {
        mr->nilp = 1;
        mr->ilps[0] = 1;
        mr->nunit = quick ? 2 : full ? 3 : 2;
        memcpy(mr->units, quick ? wgs_q : full ? wgs_f : wgs_d, (size_t)mr->nunit * sizeof(int));
    }
}

/* Series (one per warps-per-SM along the accumulators for mma.sync, one
 * along the warpgroups for wgmma) and the configurations. */
static int plan_points(struct gc_session *s, struct gc_harness *h, struct gc_mma_run *mr)
{
    const struct mma_op *op = mr->op;
    const char *unit = is_int(op) ? "OP/s" : "FLOP/s";
    bool sync = op->kind == K_SYNC;
    int s0 = h->r->nseries;

    for (int u = 0; u < (sync ? mr->nunit : 1); u++) {
        char name[48];

        snprintf(name, sizeof(name), sync ? "throughput_%dwarps_per_sm" : "throughput",
                 mr->units[u]);
        if (!gc__bench_add_series(h->r, name,
                                  sync ? "accumulators per warp (ILP)" : "warpgroups per SM", "",
                                  "throughput", unit))
            return GC_ENOMEM;
    }
    for (int ki = 0; ki < mr->nilp; ki++)
        for (int u = 0; u < mr->nunit; u++) {
            struct gc_hconf *hc = gc__harness_add(h);

            if (!hc)
                return GC_ENOMEM;
            mr->pt[h->ncfg - 1] = (struct mma_pt){mr->ilps[ki], mr->units[u], 0};
            if (build_source(s->dev->ops->dialect, op, mr->flags, mr->ilps[ki], &hc->src, hc->label,
                             sizeof(hc->label)))
                return GC_ENOMEM;
            snprintf(hc->label + strlen(hc->label), sizeof(hc->label) - strlen(hc->label), "_u%d",
                     mr->units[u]);
            hc->options = sync ? NULL : "--gpu-architecture=sm_90a";
            hc->kernel = sync ? "gc_mma" : "gc_wgmma";
            hc->series = s0 + (sync ? u : 0);
            hc->x = sync ? mr->ilps[ki] : mr->units[u];
        }
    return 0;
}

int gc__mma_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h)
{
    /* The result is named after its benchmark, whose entry holds the op. */
    const struct gc_bench *self = gc__bench_find(r->name);
    const struct gc_device_info *info = &s->dev->info;
    struct gc_mma_run *mr;
    const struct mma_op *op;
    int rc;

    if (!self || self->run != run_mma) {
        snprintf(s->dev->err, sizeof(s->dev->err), "%s is no matrix-unit benchmark", r->name);
        return GC_EINVAL;
    }
    if (!(mr = calloc(1, sizeof(*mr)))) {
        snprintf(s->dev->err, sizeof(s->dev->err), "out of host memory");
        return GC_ENOMEM;
    }
    op = mr->op = self->param;
    mr->flags = gc__harness_ts_flags(info);
    sweep_of(s->profile, op, mr);
    /* --quick measures only the best screened point in full: the others
     * within 5% per clock are there to catch one that the power controller
     * lets run faster, which the quick figure does not claim to settle. */
    bool quick = s->profile == GC_PROFILE_QUICK;
    mr->desc = (struct gc_hdesc){
        .refine_top = 1,
        .refine_within = quick ? 0 : 0.05,
        .refine_max = quick ? 1 : 3,
        .screen_sample_s = MMA_SCREEN_S,
        .screen_samples = MMA_SCREEN_N,
        .screen_per_clock = true,
        .setup = mma_setup,
        .before = mma_before,
        .verify = mma_verify,
        .user = mr,
    };
    gc__harness_init(h, s, r, &mr->desc);
    /* Under the power cap every sustained sample is "throttled": that is
     * the state measured, so its samples are kept (and counted). */
    h->sampling.redo_throttled = false;
    if ((rc = plan_points(s, h, mr)))
        return rc;
    /* Buffers for the largest configuration. */
    int max_unit = mr->units[mr->nunit - 1];
    size_t nblocks = (size_t)(op->kind == K_SYNC ? max_unit * 32 / SYNC_BLOCK : max_unit) *
                     (size_t)info->compute_units;
    if ((rc = gc__mma_bufs_make(s, op, nblocks, &mr->b)))
        return rc;
    if (mr->flags & GC_KGEN_TIMESTAMPS)
        rc = gc__dev_alloc(s->dev, nblocks * GC_TS_WORDS * 8, &mr->tsb);
    return rc;
}

/* Throughput, per clock per SM and instructions per clock per SM of the
 * best full measurement, against the dense rate at its observed clock. */
static void add_figures(struct gc_session *s, const char *bench, const struct gc_harness *h,
                        const struct gc_mma_run *mr)
{
    const struct mma_op *op = mr->op;
    const struct gc_device_info *info = &s->dev->info;
    const struct gc_hconf *bc = &h->cfg[h->best];
    const struct gc_measurement *best = &bc->m;
    double instr = mr->pt[h->best].instr, fpi = 2.0 * op->m * op->n * op->k;
    double spec = spec_per_clk_sm(op, &s->dev->arch), clk = best->clock_mhz * 1e6;
    const char *emu = emulated(op, &s->dev->arch)
                          ? " (no native fp8 mma.sync on sm_90: the compiler emulates it with "
                            "two fp16 HMMA per instruction, so the limit is the fp16 rate; "
                            "compute.wgmma.e4m3_f32 measures the native fp8 path)"
                          : "";
    const char *ne = mr->skipped[0] ? "; not enforceable: " : "";
    char note[1600], metric[64], how[200];
    struct gc_stats pc, ic;

    gc__harness_note(h, how, sizeof(how));
    if (isfinite(spec))
        snprintf(note, sizeof(note),
                 "%s%s; %s: %s; limit = %g %s/clk/SM dense (NVIDIA whitepaper) x %d SMs x %.0f "
                 "MHz (the highest %s clock of a sample; median %.0f MHz)%s%s",
                 op->ptx, emu, how, bc->hl.desc, spec, is_int(op) ? "OP" : "FLOP",
                 info->compute_units,
                 isfinite(best->clock_max_mhz) ? best->clock_max_mhz : best->clock_mhz,
                 best->clock_source, best->clock_mhz, ne, mr->skipped);
    else
        snprintf(note, sizeof(note),
                 "%s%s; %s: %s; no per-clock specification known for this type on this "
                 "architecture%s%s",
                 op->ptx, emu, how, bc->hl.desc, ne, mr->skipped);
    snprintf(metric, sizeof(metric), "%s_throughput", strchr(bench + 8, '.') + 1);
    /* The rate's limit is at the highest clock a sample ran at: a sustained,
     * power-limited rate's samples run at clocks that move, and the median
     * sample need not be the one of the median clock. The figures per clock
     * pair each sample with its own clock. */
    double clk_max = isfinite(best->clock_max_mhz) ? best->clock_max_mhz * 1e6 : clk;
    gc__bench_add_metric(h->r, metric, bc->value, is_int(op) ? "OP/s" : "FLOP/s",
                         spec * info->compute_units * clk_max, &bc->stats, note);
    if (!(isfinite(clk) && clk > 0))
        return;
    if (best->per_sample_cycles)
        gc__stats_inverse(best->per_sample_cycles, best->samples, fpi * instr / info->compute_units,
                          &pc);
    else
        gc__stats_inverse(best->per_sample_s, best->samples,
                          fpi * instr / (clk * info->compute_units), &pc);
    gc__bench_add_metric(h->r, is_int(op) ? "op_per_clk_per_sm" : "flop_per_clk_per_sm", pc.median,
                         is_int(op) ? "OP/clk/SM" : "FLOP/clk/SM", spec, &pc,
                         "dense multiply-add operations (2 per multiply-add) per clock per SM at "
                         "the observed clock");
    if (best->per_sample_cycles)
        gc__stats_inverse(best->per_sample_cycles, best->samples, instr / info->compute_units, &ic);
    else
        gc__stats_inverse(best->per_sample_s, best->samples, instr / (clk * info->compute_units),
                          &ic);
    gc__bench_add_metric(h->r, "instructions_per_clk_per_sm", ic.median, "instr/clk/SM", spec / fpi,
                         &ic,
                         op->kind == K_SYNC ? "mma.sync instructions (per warp) per clock per SM"
                                            : "wgmma instructions (per warpgroup) per clock per "
                                              "SM");
}

int gc__mma_derive(struct gc_session *s, const struct gc_harness *h, const char *bench)
{
    const struct gc_mma_run *mr = h->d->user;

    if (h->best < 0) {
        if (gc__stopped(s) || h->r->status != GC_BENCH_OK)
            return 0;
        gc__bench_set_error(h->r, GC_BENCH_ERROR,
                            "no configuration could be enforced on this device (%s)", mr->skipped);
        return GC_ERANGE;
    }
    add_figures(s, bench, h, mr);
    h->r->context = h->cfg[h->best].m.ctx;
    snprintf(h->r->stop_rule, sizeof(h->r->stop_rule), "%s", h->cfg[h->best].m.stop_rule);
    /* The configuration, in the results (the energy meter runs the same
     * launch: mma_launch_at). */
    int rc = gc__config_set_num(h->r, NULL, "accumulators", mr->pt[h->best].ilp);
    return rc ? rc : gc__config_set_num(h->r, NULL, "units_per_sm", mr->pt[h->best].units);
}

void gc__mma_free(struct gc_session *s, struct gc_harness *h)
{
    struct gc_mma_run *mr = h->d ? h->d->user : NULL;

    gc__harness_free(h);
    if (!mr)
        return;
    gc__mma_bufs_free(s->dev, &mr->b);
    gc__dev_free(s->dev, mr->tsb);
    free(mr);
}

static int run_mma(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    static const struct gc_hbench hb = {gc__mma_plan, gc__mma_derive, gc__mma_free};
    char why[512];

    if (unavailable(self->param, &s->dev->arch, why, sizeof(why))) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "%s", why);
        return 0;
    }
    return gc__harness_bench(s, r, self->info.name, &hb);
}

/* The run's compile plan: the kernels plan_points requests, one per
 * accumulator count (each shared by the warps-per-SM points). */
static int plan_mma(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out, int *n)
{
    const struct mma_op *op = self->param;
    struct gc_mma_run mr;
    struct gc_ksrc *k;
    char why[512];

    *out = NULL;
    *n = 0;
    if (unavailable(op, &s->dev->arch, why, sizeof(why)))
        return 0;
    memset(&mr, 0, sizeof(mr));
    mr.op = op;
    sweep_of(s->profile, op, &mr);
    if (!(k = calloc((size_t)mr.nilp, sizeof(*k))))
        return GC_ENOMEM;
    for (int i = 0; i < mr.nilp; i++) {
        if (build_source(s->dev->ops->dialect, op, gc__harness_ts_flags(&s->dev->info), mr.ilps[i],
                         &k[i].src, k[i].label, sizeof(k[i].label))) {
            gc__ksrc_free(k, i + 1);
            return GC_ENOMEM;
        }
        if (op->kind != K_SYNC)
            snprintf(k[i].options, sizeof(k[i].options), "--gpu-architecture=sm_90a");
    }
    *out = k;
    *n = mr.nilp;
    return 0;
}

/* The kernels of a benchmark with their expected SASS: one per accumulator
 * count (mma.sync) or the one wgmma kernel, with timestamps as on a GPU. */
static int mma_sources(const struct gc_bench *self, const struct gc_device_info *info,
                       struct gc_ksrc **out, int *n)
{
    const struct mma_op *op = self->param;
    static const int ilps[] = {1, 2, 4, 8};
    int cnt = op->kind == K_SYNC ? 4 : 1;
    struct gc_ksrc *k;
    char why[256];
    struct gc_arch arch;

    *out = NULL;
    *n = 0;
    if (info) {
        gc__arch_lookup(info, &arch);
        if (unavailable(op, &arch, why, sizeof(why)))
            return 0;
    }
    k = calloc((size_t)cnt, sizeof(*k));
    if (!k)
        return GC_ENOMEM;
    for (int i = 0; i < cnt; i++) {
        if (op->kind == K_SYNC) {
            snprintf(k[i].label, sizeof(k[i].label), "%s_ilp%d", self->info.name, ilps[i]);
            k[i].src =
                gc__mma_gen_sync(gc__kgen_inspect_dialect(), op, GC_KGEN_TIMESTAMPS, ilps[i]);
            k[i].expect[0] = (struct gc_sass_expect){op->sass, SYNC_BODY};
        } else {
            snprintf(k[i].label, sizeof(k[i].label), "%s", self->info.name);
            snprintf(k[i].options, sizeof(k[i].options), "--gpu-architecture=sm_90a");
            k[i].src = gc__mma_gen_wgmma(gc__kgen_inspect_dialect(), op, GC_KGEN_TIMESTAMPS);
            k[i].expect[0] = (struct gc_sass_expect){op->sass, WG_GROUP};
        }
        k[i].nexpect = 1;
        if (!k[i].src) {
            gc__ksrc_free(k, cnt);
            return GC_ENOMEM;
        }
    }
    *out = k;
    *n = cnt;
    return 0;
}

/* ---- The family ----------------------------------------------------------- */

#define SYNC_METHOD                                                                                \
    "Warp-level mma.sync (inline PTX; the largest shape of the type: m16n8k16 for fp16/bf16, "     \
    "m16n8k8 for tf32, m16n8k32 for int8/fp8) issued back to back in a loop of 64 "                \
    "instructions per trip and a compile-time trip count (512 trips, 32768 instructions per "      \
    "warp), spread over 1-8 independent accumulators per warp (ILP) and 4-32 warps per SM "        \
    "(blocks of 128 threads, exactly k blocks per SM enforced with dynamic shared memory and "     \
    "checked with the occupancy calculator; Lemeire eq. 2, Volkov S5.7); every point is "          \
    "screened (3 x 5 ms, ranked per clock), those within 5% measured in full, the best reported. " \
    "Operands stay in registers, loaded once from random small integers "                          \
    "(nonzero, |v| <= 3, xorshift64*); each accumulator alternates +B and -B so that it returns "  \
    "exactly to C after every pair, and one final +B gives C + A.B, which the host checks for "    \
    "every output value of every warp (exact in every accumulator type). Throughput = 2 M N K x "  \
    "instructions / time per launch (int8: OP/s); per clock per SM at the SM clock observed in "   \
    "the kernel (clock64 against globaltimer). Limit: dense tensor rate per SM per clock from "    \
    "NVIDIA's whitepapers x SMs x observed clock (sm_90: 4096 FLOP/clk/SM fp16/bf16, 2048 tf32, "  \
    "8192 fp8/int8; sm_80: 2048/1024/4096). On sm_90 mma.sync is expected well below that "        \
    "limit, which wgmma reaches. Not available on OpenCL devices (no matrix instruction in "       \
    "OpenCL C) or below the instruction's architecture."

#define WGMMA_METHOD                                                                               \
    "Warpgroup-level wgmma.mma_async (sm_90a; inline PTX, compiled with "                          \
    "--gpu-architecture=sm_90a) of shape m64n256kK (K = 16 fp16/bf16, 8 tf32, 32 fp8/int8), "      \
    "with A and B in shared memory described by matrix descriptors (no-swizzle K-major "           \
    "canonical layout: 8-row x 16-byte core matrices, leading byte offset = rows x 16 B, stride "  \
    "byte offset = 128 B) and the 64x256 accumulator in registers. Each warpgroup (128 threads, "  \
    "one per block, 1-3 blocks per SM enforced with shared memory) issues groups of 8 wgmma on "   \
    "one accumulator, commits each group and waits for the previous one (two groups in flight), "  \
    "1024 groups per launch; every point screened (3 x 5 ms, ranked per clock), those within 5% "  \
    "measured in full. Operands are random nonzero small integers; B alternates with -B "          \
    "(a second copy in shared memory) so the accumulator returns exactly to C, and a final +B "    \
    "gives C + A.B, checked on the host for every value of every warpgroup. Throughput = 2 x 64 "  \
    "x 256 x K x instructions / time (int8: OP/s), per clock per SM at the observed SM clock; "    \
    "limit from the H100 whitepaper (4096 FLOP/clk/SM fp16/bf16 dense, 2048 tf32, 8192 "           \
    "fp8/int8) x SMs x observed clock. Not available outside compute capability 9.0 or on "        \
    "OpenCL devices."

/* FLOP where the unit counts floating-point operations, OP for integers. */
#define MMA_CELL(c, pk)                                                                            \
    {.table = &gc__sum_matrix,                                                                     \
     .row = "compute.",                                                                            \
     .col = c,                                                                                     \
     .metric = "flop_per_clk_per_sm",                                                              \
     .pick = pk},                                                                                  \
    {                                                                                              \
        .table = &gc__sum_matrix, .row = "compute.", .col = c, .metric = "op_per_clk_per_sm",      \
        .pick = pk, .rank = 1                                                                      \
    }
static const struct gc_sum_cell mma_cells[] = {
    MMA_CELL(0, GC_SUM_VALUE),
    MMA_CELL(1, GC_SUM_LIMIT),
    MMA_CELL(2, GC_SUM_PERCENT),
    {.table = &gc__sum_matrix,
     .row = "compute.",
     .col = 3,
     .metric = "instructions_per_clk_per_sm"},
    {0},
};
/* compute.c's: the matrix units are drawn as the other instruction types. */
extern const struct gc_fig_rule gc__compute_figures[];
static const struct gc_bench_report mma_report = {mma_cells, gc__compute_figures};

/* The tensor cores reach the power limit within tens of milliseconds: with
 * 5 ms samples an H200's wgmma ran at 1820 MHz before the clock came down
 * (907 TFLOP/s), with 10-20 ms at the sustained 1600 MHz (830-850). The
 * figure is the sustained one. */
#define MMA_SUSTAINED_S 0.02
/* At most 10 such samples: under the power cap the clock drifts by a few
 * MHz from sample to sample, and the 0.5% spread rule then ran every
 * measurement to its 25th sample (0.5 s each) for a median that ten give. */
#define MMA_SAMPLING_S 0.2

/* Inline PTX for the instructions, and the occupancy API, with which each
 * point's occupancy is cross-checked (gc__occupancy_set). The API also keeps
 * the benchmark off NVIDIA's OpenCL, which has inline PTX since the clock
 * probe but whose compiler neither takes these kernels' pointer spellings
 * nor targets sm_90a for wgmma. */
#define MMA_CAPS (GC_CAP_INLINE_ASM | GC_CAP_OCCUPANCY_API)

static int mma_launch_at(struct gc_session *s, const struct gc_bench *self,
                         const struct gc_config_ask *ask, struct gc_meter_launch *w);

#define MMA_ENTRY(i, nm, sum, meth)                                                                \
    {                                                                                              \
        .info = {.name = nm, .group = "compute", .summary = sum, .method = meth},                  \
        .needs_caps = MMA_CAPS, .run = run_mma, .param = &ops[i], .sources = mma_sources,          \
        .plan = plan_mma, .report = &mma_report, .min_sample_s = MMA_SUSTAINED_S,                  \
        .max_sampling_s = MMA_SAMPLING_S, .launch_at = mma_launch_at                               \
    }

static const struct gc_bench entries[] = {
    MMA_ENTRY(0, "compute.mma.f16_f32",
              "mma.sync m16n8k16 fp16 x fp16 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              SYNC_METHOD),
    MMA_ENTRY(1, "compute.mma.f16_f16",
              "mma.sync m16n8k16 fp16 x fp16 + fp16 tensor throughput (FLOP/s, FLOP/clk/SM)",
              SYNC_METHOD),
    MMA_ENTRY(2, "compute.mma.bf16_f32",
              "mma.sync m16n8k16 bf16 x bf16 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              SYNC_METHOD),
    MMA_ENTRY(3, "compute.mma.tf32_f32",
              "mma.sync m16n8k8 tf32 x tf32 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              SYNC_METHOD),
    MMA_ENTRY(4, "compute.mma.s8_s32",
              "mma.sync m16n8k32 int8 x int8 + int32 tensor throughput (OP/s, OP/clk/SM)",
              SYNC_METHOD),
    MMA_ENTRY(5, "compute.mma.e4m3_f32",
              "mma.sync m16n8k32 fp8 e4m3 x e4m3 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              SYNC_METHOD),
    MMA_ENTRY(6, "compute.wgmma.f16_f32",
              "wgmma m64n256k16 fp16 x fp16 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              WGMMA_METHOD),
    MMA_ENTRY(7, "compute.wgmma.f16_f16",
              "wgmma m64n256k16 fp16 x fp16 + fp16 tensor throughput (FLOP/s, FLOP/clk/SM)",
              WGMMA_METHOD),
    MMA_ENTRY(8, "compute.wgmma.bf16_f32",
              "wgmma m64n256k16 bf16 x bf16 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              WGMMA_METHOD),
    MMA_ENTRY(9, "compute.wgmma.tf32_f32",
              "wgmma m64n256k8 tf32 x tf32 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              WGMMA_METHOD),
    MMA_ENTRY(10, "compute.wgmma.e4m3_f32",
              "wgmma m64n256k32 fp8 e4m3 x e4m3 + fp32 tensor throughput (FLOP/s, FLOP/clk/SM)",
              WGMMA_METHOD),
    MMA_ENTRY(11, "compute.wgmma.s8_s32",
              "wgmma m64n256k32 int8 x int8 + int32 tensor throughput (OP/s, OP/clk/SM)",
              WGMMA_METHOD),
};

_Static_assert(sizeof(entries) / sizeof(entries[0]) == sizeof(ops) / sizeof(ops[0]),
               "one benchmark per instruction");

static int mma_count(void)
{
    return NOPS;
}

static const struct gc_bench *mma_at(int i)
{
    return i >= 0 && i < NOPS ? &entries[i] : NULL;
}

const struct gc_bench_family gc__family_mma = {mma_count, mma_at};

/* ---- workload for the energy meter (bench/launchcfg.h) -------------------- */

/* The record of the benchmark when the kernel generator builds it and the
 * device holds its warps; else the fixed configuration, at the top of the
 * sweep on the GPUs it ran on: mma.sync 8 accumulators per warp at 16 warps
 * per SM, wgmma 2 warpgroups per SM. */
void gc__mma_pick(const struct gc_session *s, const struct gc_bench *self,
                  const struct gc_config_ask *ask, struct gc_best_mma *c, struct gc_cfg_pick *p)
{
    const struct mma_op *op = self->param;
    const struct gc_device_info *info = &s->dev->info;
    bool sync = op->kind == K_SYNC;
    int per_unit = sync ? 32 : WG_THREADS, block = sync ? SYNC_BLOCK : WG_THREADS;
    int max_units = info->max_threads_per_cu > 0 ? info->max_threads_per_cu / per_unit : 0;
    struct gc_best_mma rec, *b = &rec;
    const struct gc_bench_result *from = gc__cfg_pick_start(p, self->info.name, ask);

    *c = sync ? (struct gc_best_mma){SYNC_MAX_ILP, 16} : (struct gc_best_mma){1, 2};
    if (!from)
        return;
    if (!gc__config_int(from, NULL, "accumulators", &b->ilp) ||
        !gc__config_int(from, NULL, "units_per_sm", &b->units))
        gc__cfg_refuse(p, "its result records no accumulators and units per SM");
    else if (sync ? b->ilp < 1 || b->ilp > SYNC_MAX_ILP || (b->ilp & (b->ilp - 1)) : b->ilp != 1)
        gc__cfg_refuse(p, "%d accumulators per warp is not a kernel the generator builds here",
                       b->ilp);
    else if (b->units < 1 || (b->units * per_unit) % block ||
             (max_units > 0 && b->units > max_units))
        gc__cfg_refuse(p, "%d %s per SM is not a launch of %d-thread blocks the device holds",
                       b->units, sync ? "warps" : "warpgroups", block);
    else {
        *c = *b;
        p->origin = GC_CFG_RESULT;
    }
}

/* Builds the workload's kernel and sets exactly per_cu blocks per SM. */
static int workload_kernel(struct gc_session *s, const struct mma_op *op, int ilp, int per_cu,
                           struct gc_meter_launch *w, struct gc_occupancy *oc)
{
    struct gc_device *d = s->dev;
    unsigned flags = gc__harness_ts_flags(&d->info);
    char label[64], *src = NULL;
    int rc;

    w->nreq = 1;
    rc = build_source(d->ops->dialect, op, flags, ilp, &src, label, sizeof(label));
    w->req[0].src = src;
    if (rc)
        return rc;
    /* The request keeps pointers to its label and options only while building. */
    w->req[0].label = label;
    w->req[0].options = op->kind == K_SYNC ? NULL : "--gpu-architecture=sm_90a";
    rc = gc__kcache_build(s, w->req, 1);
    w->req[0].label = NULL;
    w->req[0].options = NULL;
    if (rc)
        return rc;
    if ((rc = d->ops->kernel(w->req[0].prog, op->kind == K_SYNC ? "gc_mma" : "gc_wgmma", &w->k))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    rc = gc__occupancy_set(d, w->k, op->kind == K_SYNC ? SYNC_BLOCK : WG_THREADS, per_cu, oc);
    if (rc == GC_ERANGE)
        snprintf(w->why, sizeof(w->why),
                 "%d blocks of %s per SM cannot be resident with this "
                 "kernel",
                 per_cu, op->kind == K_SYNC ? "warps" : "warpgroups");
    return rc == GC_ERANGE ? GC_ENOTSUP : rc;
}

/* The launch_at of compute.mma.* and compute.wgmma.*: the kernel at the
 * configuration of gc__mma_pick; the output of one launch is checked as the
 * throughput measurement checks it. */
static int mma_launch_at(struct gc_session *s, const struct gc_bench *self,
                         const struct gc_config_ask *ask, struct gc_meter_launch *w)
{
    const struct mma_op *op = self->param;
    struct gc_device *d = s->dev;
    int block = op->kind == K_SYNC ? SYNC_BLOCK : WG_THREADS;
    struct gc_best_mma pc;
    struct gc_cfg_pick pick;
    struct gc_occupancy oc = {0};
    struct mma_bufs b;
    int per_cu, rc, na = 0;
    char why[400] = "", kname[200];
    double el;

    if (unavailable(op, &d->arch, w->why, sizeof(w->why)))
        return GC_ENOTSUP;
    gc__mma_pick(s, self, ask, &pc, &pick);
    per_cu = op->kind == K_SYNC ? pc.units * 32 / SYNC_BLOCK : pc.units;
    if ((rc = workload_kernel(s, op, pc.ilp, per_cu, w, &oc)))
        return rc;
    rc = gc__mma_bufs_make(s, op, (size_t)per_cu * (size_t)d->info.compute_units, &b);
    /* The workload owns the buffers from here (gc__meter_launch_release). */
    w->host[0] = b.hops;
    w->host[1] = b.hc;
    w->host[2] = b.hout;
    w->host[3] = b.hab;
    w->host[4] = b.hexp;
    w->bufs[0] = b.bops;
    w->bufs[1] = b.bc;
    w->bufs[2] = b.bout;
    if (rc)
        return rc;
    for (int i = 0; i < 3; i++)
        w->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[i]};
    if (op->kind == K_WGMMA)
        w->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 1};
    if (gc__harness_ts_flags(&d->info)) {
        if ((rc = gc__dev_alloc(d, b.nblocks * GC_TS_WORDS * 8, &w->bufs[3])))
            return rc;
        w->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[3]};
    }
    w->l = (struct gc_launch){
        {(unsigned)b.nblocks, 1, 1}, {(unsigned)block, 1, 1}, oc.dyn_shared, w->args, na, 1};
    struct gc_launch one = w->l;
    one.count = 1;
    if ((rc = gc__devfill_word(s, b.bout, b.cwords * 4, 0xFFFFFFFFu)) ||
        (rc = gc__dev_launch(d, w->k, &one, &el)))
        return rc;
    rc = gc__mma_check(d, op, &b, b.nblocks, pc.ilp, why, sizeof(why));
    if (rc == GC_EVERIFY)
        snprintf(w->why, sizeof(w->why), "verification failed: %s", why);
    if (rc)
        return rc;
    double units = (double)b.nthreads / (op->kind == K_SYNC ? 32.0 : WG_THREADS);
    w->ops = units * instr_per_unit(op, pc.ilp) * 2.0 * op->m * op->n * op->k;
    w->op_unit = is_int(op) ? "OP" : "FLOP";
    w->flops = is_int(op) ? 0 : w->ops;
    w->spec_per_clk_cu = spec_per_clk_sm(op, &d->arch);
    w->warps_per_cu = per_cu * block / 32;
    snprintf(kname, sizeof(kname), "%s kernel (%s)", self->info.name, op->ptx);
    if (op->kind == K_SYNC)
        gc__meter_launch_describe(w, &pick, kname, "%d warps/SM, %d accumulators per warp",
                                  pc.units, pc.ilp);
    else
        gc__meter_launch_describe(w, &pick, kname, "%d warpgroups/SM, %d wgmma per group", pc.units,
                                  WG_GROUP);
    return 0;
}
