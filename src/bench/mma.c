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
#include "bench/mma.h"
#include "bench/workload.h"
#include "core/arch.h"
#include "core/bestcfg.h"
#include "core/minifloat.h"
#include "core/occupancy.h"
#include "util/random.h"
#include "core/stats.h"
#include "core/kcache.h"
#include "kgen/kgen.h"

static bool emulated(const struct mma_op *op, const struct gc_arch *a);

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

static int build_sources(enum gc_dialect d, const struct mma_op *op, unsigned flags, int *ilps,
                         int nilp, struct gc_kreq *reqs, char (*labels)[64], char (*opts)[64])
{
    if (op->kind == K_WGMMA) {
        snprintf(labels[0], 64, "wgmma_%s", strchr(op->sass, '.') + 1);
        snprintf(opts[0], 64, "--gpu-architecture=sm_90a");
        reqs[0].label = labels[0];
        reqs[0].options = opts[0];
        reqs[0].src = gc__mma_gen_wgmma(d, op, flags);
        return reqs[0].src ? 1 : GC_ENOMEM;
    }
    for (int i = 0; i < nilp; i++) {
        snprintf(labels[i], 64, "mma_%s_ilp%d", op->sass, ilps[i]);
        for (char *c = labels[i]; *c; c++)
            if (*c == '.')
                *c = '_';
        opts[i][0] = '\0';
        reqs[i].label = labels[i];
        reqs[i].options = NULL;
        reqs[i].src = gc__mma_gen_sync(d, op, flags, ilps[i]);
        if (!reqs[i].src)
            return GC_ENOMEM;
    }
    return nilp;
}

static int run_mma(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    const struct mma_op *op = self->param;
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    static const int ilps_q[] = {4, 8}, ilps_d[] = {2, 4, 8}, ilps_f[] = {1, 2, 4, 8};
    static const int warps_q[] = {8, 16}, warps_d[] = {8, 16, 32}, warps_f[] = {4, 8, 16, 32};
    static const int wgs_q[] = {1, 2}, wgs_d[] = {1, 2}, wgs_f[] = {1, 2, 3};
    bool quick = s->profile == GC_PROFILE_QUICK, full = s->profile == GC_PROFILE_FULL;
    int ilps[4], nilp, units[4], nunit;
    unsigned flags = (info->caps & GC_CAP_CLOCK64) && (info->caps & GC_CAP_GLOBALTIMER) &&
                             (info->caps & GC_CAP_SMID)
                         ? GC_KGEN_TIMESTAMPS
                         : 0;
    struct gc_kreq reqs[4];
    char labels[4][64], opts[4][64], why[512];
    int nk = 0, rc = 0, nw = gc__mma_acc_words(op);
    size_t nthreads, nblocks_max, cwords, opwords;
    char skipped[512] = "";
    struct gc_buf *bops = NULL, *bc = NULL, *bout = NULL, *tsb = NULL;
    uint32_t *hops = NULL, *hc = NULL, *hout = NULL;
    int32_t *hab = NULL;
    double best_rate = 0, best_instr = 0;
    struct gc_measurement best = {0};
    struct gc_best_mma best_at = {0, 0};
    char best_cfg[256] = "";
    const char *unit = is_int(op) ? "OP/s" : "FLOP/s";
    double flop_per_instr = 2.0 * op->m * op->n * op->k;

    memset(reqs, 0, sizeof(reqs));
    if (unavailable(op, &d->arch, why, sizeof(why))) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "%s", why);
        return 0;
    }
    if (op->kind == K_SYNC) {
        const int *il = quick ? ilps_q : full ? ilps_f : ilps_d;
        const int *wa = quick ? warps_q : full ? warps_f : warps_d;
        nilp = quick ? 2 : full ? 4 : 3;
        nunit = quick ? 2 : full ? 4 : 3;
        memcpy(ilps, il, (size_t)nilp * sizeof(int));
        memcpy(units, wa, (size_t)nunit * sizeof(int));
    } else {
        const int *wg = quick ? wgs_q : full ? wgs_f : wgs_d;
        nilp = 1;
        ilps[0] = 1;
        nunit = quick ? 2 : full ? 3 : 2;
        memcpy(units, wg, (size_t)nunit * sizeof(int));
    }

    nk = build_sources(d->ops->dialect, op, flags, ilps, nilp, reqs, labels, opts);
    if (nk < 0) {
        rc = nk;
        nk = nilp;
        goto out;
    }
    rc = gc__kcache_build(s, reqs, nk);
    if (rc)
        goto out;

    /* Buffers for the largest configuration. */
    int max_unit = units[nunit - 1];
    if (op->kind == K_SYNC) {
        nblocks_max = (size_t)(max_unit * 32 / SYNC_BLOCK) * (size_t)info->compute_units;
        nthreads = nblocks_max * SYNC_BLOCK;
        opwords = nthreads * SYNC_OPW;
        cwords = nthreads * SYNC_MAX_ILP * (size_t)nw;
    } else {
        nblocks_max = (size_t)max_unit * (size_t)info->compute_units;
        nthreads = nblocks_max * WG_THREADS;
        opwords = nblocks_max * gc__mma_wg_tile_bytes(op) / 4;
        cwords = nthreads * (size_t)nw;
    }
    hops = malloc(opwords * 4);
    hc = malloc(cwords * 4);
    hout = malloc(cwords * 4);
    if (op->kind == K_SYNC)
        hab = malloc(nthreads / 32 * 128 * sizeof(int32_t));
    if (!hops || !hc || !hout || (op->kind == K_SYNC && !hab)) {
        rc = GC_ENOMEM;
        goto out;
    }
    if (op->kind == K_SYNC)
        gc__mma_sync_fill(op, nthreads, s->seed ^ 0x3A3AULL, hops, hc, hab);
    else
        gc__mma_wg_fill(op, nblocks_max, s->seed ^ 0x3A3BULL, (unsigned char *)hops, hc);
    if ((rc = gc__dev_alloc(d, opwords * 4, &bops)) || (rc = gc__dev_alloc(d, cwords * 4, &bc)) ||
        (rc = gc__dev_alloc(d, cwords * 4, &bout)))
        goto out;
    if ((rc = gc__dev_write(d, bops, 0, hops, opwords * 4)) ||
        (rc = gc__dev_write(d, bc, 0, hc, cwords * 4)))
        goto out;
    if (flags & GC_KGEN_TIMESTAMPS) {
        rc = gc__dev_alloc(d, nblocks_max * GC_TS_WORDS * 8, &tsb);
        if (rc)
            goto out;
    }

    if (op->kind == K_SYNC) {
        for (int u = 0; u < nunit; u++) {
            char name[48];

            snprintf(name, sizeof(name), "throughput_%dwarps_per_sm", units[u]);
            if (!gc__bench_add_series(r, name, "accumulators per warp (ILP)", "", "throughput",
                                      unit)) {
                rc = GC_ENOMEM;
                goto out;
            }
        }
    } else if (!gc__bench_add_series(r, "throughput", "warpgroups per SM", "", "throughput",
                                     unit)) {
        rc = GC_ENOMEM;
        goto out;
    }

    for (int ki = 0; ki < nk && !gc__stopped(s); ki++)
        for (int u = 0; u < nunit && !gc__stopped(s); u++) {
            int block = op->kind == K_SYNC ? SYNC_BLOCK : WG_THREADS;
            int per_cu = op->kind == K_SYNC ? units[u] * 32 / SYNC_BLOCK : units[u];
            struct gc_kern *k = NULL;
            struct gc_occupancy oc = {0};
            char cfgname[256];

            rc = d->ops->kernel(reqs[ki].prog, op->kind == K_SYNC ? "gc_mma" : "gc_wgmma", &k);
            if (rc) {
                snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
                goto out;
            }
            rc = gc__occupancy_set(d, k, block, per_cu, &oc);
            if (rc == GC_ERANGE) {
                /* Registers or shared memory allow fewer blocks: this point of
                 * the sweep does not exist on this device. */
                size_t l = strlen(skipped);
                snprintf(skipped + l, sizeof(skipped) - l, "%s%d %s/SM%s", l ? ", " : "", units[u],
                         op->kind == K_SYNC ? "warps" : "warpgroups", op->kind == K_SYNC ? "" : "");
                rc = 0;
                continue;
            }
            if (rc)
                goto out;
            unsigned grid = (unsigned)(per_cu * info->compute_units);
            size_t nth = (size_t)grid * (size_t)block;
            struct gc_arg args[5] = {
                {.type = GC_ARG_BUF, .v.buf = bops},
                {.type = GC_ARG_BUF, .v.buf = bc},
                {.type = GC_ARG_BUF, .v.buf = bout},
            };
            int nargs = 3;
            if (op->kind == K_WGMMA)
                args[nargs++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 1};
            struct gc_timestamps ts = {tsb, grid};
            if (flags & GC_KGEN_TIMESTAMPS)
                args[nargs++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = tsb};
            struct gc_launch l = {
                {grid, 1, 1}, {(unsigned)block, 1, 1}, oc.dyn_shared, args, nargs, 1};
            struct gc_measurement m;

            if (op->kind == K_SYNC)
                snprintf(cfgname, sizeof(cfgname), "%d warps/SM, %d accumulators per warp, %s",
                         units[u], ilps[ki], oc.note);
            else
                snprintf(cfgname, sizeof(cfgname), "%d warpgroup(s)/SM, %d wgmma per group, %s",
                         units[u], WG_GROUP, oc.note);
            rc = gc__measure(s, k, &l, (flags & GC_KGEN_TIMESTAMPS) ? &ts : NULL, NULL, 0, &m);
            if (rc == 0 || (rc == GC_EINTR && m.samples > 0)) {
                /* Poison, one launch, check every output value. */
                int vrc;
                double el;
                struct gc_launch one = l;

                memset(hout, 0xFF, cwords * 4);
                vrc = gc__dev_write(d, bout, 0, hout, cwords * 4);
                one.count = 1;
                if (!vrc)
                    vrc = gc__dev_launch(d, k, &one, &el);
                if (!vrc)
                    vrc = gc__dev_read(d, bout, 0, hout, cwords * 4);
                if (!vrc) {
                    why[0] = '\0';
                    vrc =
                        op->kind == K_SYNC
                            ? gc__mma_sync_check(op, nth, ilps[ki], hc, hab, hout, why, sizeof(why))
                            : gc__mma_wg_check(op, grid, (const unsigned char *)hops, hc, hout, why,
                                               sizeof(why));
                    if (vrc == GC_EVERIFY)
                        gc__bench_set_error(r, GC_BENCH_ERROR, "verification failed (%s): %s",
                                            cfgname, why);
                }
                if (vrc) {
                    gc__measurement_free(&m);
                    rc = vrc;
                    goto out;
                }
                double units_total =
                    op->kind == K_SYNC ? (double)nth / 32.0 : (double)nth / WG_THREADS;
                double instr = units_total * instr_per_unit(op, ilps[ki]);
                struct gc_stats fl;

                gc__stats_inverse(m.per_sample_s, m.samples, flop_per_instr * instr, &fl);
                if (op->kind == K_SYNC)
                    gc__series_add(&r->series[u], ilps[ki], fl.median, &fl, NULL);
                else
                    gc__series_add(&r->series[0], units[u], fl.median, &fl, NULL);
                if (fl.median > best_rate) {
                    gc__measurement_free(&best);
                    best = m;
                    m.per_sample_s = NULL;
                    best_rate = fl.median;
                    best_instr = instr;
                    best_at = (struct gc_best_mma){ilps[ki], units[u]};
                    snprintf(best_cfg, sizeof(best_cfg), "%s", cfgname);
                }
            }
            gc__measurement_free(&m);
            if (rc)
                goto out;
        }

    if (best_rate > 0) {
        double spec = spec_per_clk_sm(op, &d->arch);
        double clk = best.clock_mhz * 1e6;
        struct gc_stats fl;
        char note[1600], metric[64];
        const char *emu = emulated(op, &d->arch)
                              ? " (no native fp8 mma.sync on sm_90: the compiler emulates it with "
                                "two fp16 HMMA per instruction, so the limit is the fp16 rate; "
                                "compute.wgmma.e4m3_f32 measures the native fp8 path)"
                              : "";

        gc__stats_inverse(best.per_sample_s, best.samples, flop_per_instr * best_instr, &fl);
        if (isfinite(spec))
            snprintf(note, sizeof(note),
                     "%s%s; best config: %s; limit = %g %s/clk/SM dense (NVIDIA whitepaper) x %d "
                     "SMs x %.0f MHz (%s clock)%s%s",
                     op->ptx, emu, best_cfg, spec, is_int(op) ? "OP" : "FLOP", info->compute_units,
                     best.clock_mhz, best.clock_source, skipped[0] ? "; not enforceable: " : "",
                     skipped);
        else
            snprintf(note, sizeof(note),
                     "%s%s; best config: %s; no per-clock specification known for this type on "
                     "this architecture%s%s",
                     op->ptx, emu, best_cfg, skipped[0] ? "; not enforceable: " : "", skipped);
        snprintf(metric, sizeof(metric), "%s_throughput", strchr(self->info.name + 8, '.') + 1);
        gc__bench_add_metric(r, metric, fl.median, unit, spec * info->compute_units * clk, &fl,
                             note);
        if (isfinite(clk) && clk > 0) {
            struct gc_stats pc, ic;

            gc__stats_inverse(best.per_sample_s, best.samples,
                              flop_per_instr * best_instr / (clk * info->compute_units), &pc);
            gc__bench_add_metric(r, is_int(op) ? "op_per_clk_per_sm" : "flop_per_clk_per_sm",
                                 pc.median, is_int(op) ? "OP/clk/SM" : "FLOP/clk/SM", spec, &pc,
                                 "dense multiply-add operations (2 per multiply-add) per clock "
                                 "per SM at the observed clock");
            gc__stats_inverse(best.per_sample_s, best.samples,
                              best_instr / (clk * info->compute_units), &ic);
            gc__bench_add_metric(r, "instructions_per_clk_per_sm", ic.median, "instr/clk/SM",
                                 spec / flop_per_instr, &ic,
                                 op->kind == K_SYNC
                                     ? "mma.sync instructions (per warp) per clock per SM"
                                     : "wgmma instructions (per warpgroup) per clock per SM");
        }
        r->context = best.ctx;
        snprintf(r->stop_rule, sizeof(r->stop_rule), "%s", best.stop_rule);
        /* For the energy workload of the same kernel (gc__mma_workload). */
        if (rc == 0 && (rc = gc__best_put(s, self->info.name, &best_at, sizeof(best_at))))
            goto out;
    } else if (!gc__stopped(s) && r->status == GC_BENCH_OK) {
        gc__bench_set_error(r, GC_BENCH_ERROR,
                            "no configuration could be enforced on this device (%s)", skipped);
        rc = GC_ERANGE;
    }
    if (gc__stopped(s))
        rc = GC_EINTR;
out:
    gc__measurement_free(&best);
    free(hops);
    free(hc);
    free(hout);
    free(hab);
    gc__dev_free(d, tsb);
    gc__dev_free(d, bops);
    gc__dev_free(d, bc);
    gc__dev_free(d, bout);
    gc__kreq_release(s, reqs, nk);
    return rc;
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
    "checked with the occupancy calculator; Lemeire eq. 2, Volkov S5.7); the best point of the "   \
    "sweep is reported. Operands stay in registers, loaded once from random small integers "       \
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
    "1024 groups per launch. Operands are random nonzero small integers; B alternates with -B "    \
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

/* Inline PTX for the instructions, and the occupancy API, with which each
 * point's occupancy is cross-checked (gc__occupancy_set). The API also keeps
 * the benchmark off NVIDIA's OpenCL, which has inline PTX since the clock
 * probe but whose compiler neither takes these kernels' pointer spellings
 * nor targets sm_90a for wgmma. */
#define MMA_CAPS (GC_CAP_INLINE_ASM | GC_CAP_OCCUPANCY_API)

#define MMA_ENTRY(i, nm, sum, meth)                                                                \
    {                                                                                              \
        .info = {.name = nm, .group = "compute", .summary = sum, .method = meth},                  \
        .needs_caps = MMA_CAPS, .run = run_mma, .param = &ops[i], .sources = mma_sources,          \
        .report = &mma_report, .min_sample_s = MMA_SUSTAINED_S                                     \
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

/* ---- workload for the energy meter (bench/workload.h) -------------------- */

/* The record of the benchmark when the kernel generator builds it and the
 * device holds its warps; else the fixed configuration, at the top of the
 * sweep on the GPUs it ran on: mma.sync 8 accumulators per warp at 16 warps
 * per SM, wgmma 2 warpgroups per SM. */
void gc__mma_pick(const struct gc_session *s, const struct gc_bench *self, struct gc_best_mma *c,
                  struct gc_cfg_pick *p)
{
    const struct mma_op *op = self->param;
    const struct gc_device_info *info = &s->dev->info;
    bool sync = op->kind == K_SYNC;
    int per_unit = sync ? 32 : WG_THREADS, block = sync ? SYNC_BLOCK : WG_THREADS;
    int max_units = info->max_threads_per_cu > 0 ? info->max_threads_per_cu / per_unit : 0;
    const struct gc_best_mma *b;

    memset(p, 0, sizeof(*p));
    snprintf(p->bench, sizeof(p->bench), "%s", self->info.name);
    *c = sync ? (struct gc_best_mma){SYNC_MAX_ILP, 16} : (struct gc_best_mma){1, 2};
    if (!(b = gc__best_get(s, self->info.name, sizeof(*b))))
        return;
    if (sync ? b->ilp < 1 || b->ilp > SYNC_MAX_ILP || (b->ilp & (b->ilp - 1)) : b->ilp != 1)
        gc__cfg_refuse(p, "%d accumulators per warp is not a kernel the generator builds here",
                       b->ilp);
    else if (b->units < 1 || (b->units * per_unit) % block ||
             (max_units > 0 && b->units > max_units))
        gc__cfg_refuse(p, "%d %s per SM is not a launch of %d-thread blocks the device holds",
                       b->units, sync ? "warps" : "warpgroups", block);
    else {
        *c = *b;
        p->origin = GC_CFG_BEST;
    }
}

/* The kernel at the configuration of gc__mma_pick; the output of one launch
 * is checked as the throughput measurement checks it. */
int gc__mma_workload(struct gc_session *s, const struct gc_bench *self, struct gc_workload *w)
{
    const struct mma_op *op = self->param;
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    unsigned flags = (info->caps & GC_CAP_CLOCK64) && (info->caps & GC_CAP_GLOBALTIMER) &&
                             (info->caps & GC_CAP_SMID)
                         ? GC_KGEN_TIMESTAMPS
                         : 0;
    struct gc_best_mma pc;
    struct gc_cfg_pick pick;
    int ilp, unit;
    int block = op->kind == K_SYNC ? SYNC_BLOCK : WG_THREADS;
    int per_cu, nw = gc__mma_acc_words(op), rc;
    char labels[1][64], opts[1][64];
    struct gc_occupancy oc = {0};
    size_t nblocks, nthreads, opwords, cwords;
    uint32_t *hops, *hc, *hout;
    int32_t *hab = NULL;
    double el;

    if (unavailable(op, &d->arch, w->why, sizeof(w->why)))
        return GC_ENOTSUP;
    gc__mma_pick(s, self, &pc, &pick);
    ilp = pc.ilp;
    unit = pc.units;
    per_cu = op->kind == K_SYNC ? unit * 32 / SYNC_BLOCK : unit;
    rc = build_sources(d->ops->dialect, op, flags, &ilp, 1, w->req, labels, opts);
    w->nreq = 1;
    if (rc < 0)
        return rc;
    /* The request keeps pointers to labels and options only while building. */
    if ((rc = gc__kcache_build(s, w->req, 1)))
        return rc;
    w->req[0].label = NULL;
    w->req[0].options = NULL;
    if ((rc = d->ops->kernel(w->req[0].prog, op->kind == K_SYNC ? "gc_mma" : "gc_wgmma", &w->k))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    rc = gc__occupancy_set(d, w->k, block, per_cu, &oc);
    if (rc == GC_ERANGE) {
        snprintf(w->why, sizeof(w->why), "%d %s per SM cannot be resident with this kernel", unit,
                 op->kind == K_SYNC ? "warps" : "warpgroups");
        return GC_ENOTSUP;
    }
    if (rc)
        return rc;
    nblocks = (size_t)per_cu * (size_t)info->compute_units;
    nthreads = nblocks * (size_t)block;
    if (op->kind == K_SYNC) {
        opwords = nthreads * SYNC_OPW;
        cwords = nthreads * SYNC_MAX_ILP * (size_t)nw;
    } else {
        opwords = nblocks * gc__mma_wg_tile_bytes(op) / 4;
        cwords = nthreads * (size_t)nw;
    }
    hops = w->host[0] = malloc(opwords * 4);
    hc = w->host[1] = malloc(cwords * 4);
    hout = w->host[2] = malloc(cwords * 4);
    if (op->kind == K_SYNC)
        hab = w->host[3] = malloc(nthreads / 32 * 128 * sizeof(int32_t));
    if (!hops || !hc || !hout || (op->kind == K_SYNC && !hab))
        return GC_ENOMEM;
    if (op->kind == K_SYNC)
        gc__mma_sync_fill(op, nthreads, s->seed ^ 0x3A3AULL, hops, hc, hab);
    else
        gc__mma_wg_fill(op, nblocks, s->seed ^ 0x3A3BULL, (unsigned char *)hops, hc);
    if ((rc = gc__dev_alloc(d, opwords * 4, &w->bufs[0])) ||
        (rc = gc__dev_alloc(d, cwords * 4, &w->bufs[1])) ||
        (rc = gc__dev_alloc(d, cwords * 4, &w->bufs[2])) ||
        (rc = gc__dev_write(d, w->bufs[0], 0, hops, opwords * 4)) ||
        (rc = gc__dev_write(d, w->bufs[1], 0, hc, cwords * 4)))
        return rc;
    int na = 0;
    for (int b = 0; b < 3; b++)
        w->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[b]};
    if (op->kind == K_WGMMA)
        w->args[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 1};
    if (flags & GC_KGEN_TIMESTAMPS) {
        if ((rc = gc__dev_alloc(d, nblocks * GC_TS_WORDS * 8, &w->bufs[3])))
            return rc;
        w->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[3]};
    }
    w->l = (struct gc_launch){
        {(unsigned)nblocks, 1, 1}, {(unsigned)block, 1, 1}, oc.dyn_shared, w->args, na, 1};
    memset(hout, 0xFF, cwords * 4);
    if ((rc = gc__dev_write(d, w->bufs[2], 0, hout, cwords * 4)))
        return rc;
    struct gc_launch one = w->l;
    one.count = 1;
    if ((rc = gc__dev_launch(d, w->k, &one, &el)) ||
        (rc = gc__dev_read(d, w->bufs[2], 0, hout, cwords * 4)))
        return rc;
    char why[400] = "";
    rc = op->kind == K_SYNC ? gc__mma_sync_check(op, nthreads, ilp, hc, hab, hout, why, sizeof(why))
                            : gc__mma_wg_check(op, (unsigned)nblocks, (const unsigned char *)hops,
                                               hc, hout, why, sizeof(why));
    if (rc == GC_EVERIFY)
        snprintf(w->why, sizeof(w->why), "verification failed: %s", why);
    if (rc)
        return rc;
    double units = op->kind == K_SYNC ? (double)nthreads / 32.0 : (double)nthreads / WG_THREADS;
    double instr = units * instr_per_unit(op, ilp);
    w->ops = instr * 2.0 * op->m * op->n * op->k;
    w->op_unit = is_int(op) ? "OP" : "FLOP";
    w->flops = is_int(op) ? 0 : w->ops;
    w->spec_per_clk_cu = spec_per_clk_sm(op, &d->arch);
    w->warps_per_cu = per_cu * block / 32;
    char kname[200];
    snprintf(kname, sizeof(kname), "%s kernel (%s)", self->info.name, op->ptx);
    if (op->kind == K_SYNC)
        gc__workload_describe(w, &pick, kname, "%d warps/SM, %d accumulators per warp", unit, ilp);
    else
        gc__workload_describe(w, &pick, kname, "%d warpgroups/SM, %d wgmma per group", unit,
                              WG_GROUP);
    return 0;
}
