/* Predicted time of an application kernel and its attained bandwidth beside
 * the measured peak (model/predict.h). */
#include "model/predict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/results.h"
#include "model/hiding.h"

#define WARP 32.0

/* Where each peak is read: benchmark, metric, unit; the highest present
 * figure of a resource's candidates is its peak. */
struct peak_src {
    int res;
    const char *bench, *metric, *unit;
};

static const struct peak_src peak_srcs[] = {
    {GC_PRED_RES_OPS + GC_APP_OP_FP32, "compute.fp32.fma", "throughput", NULL},
    {GC_PRED_RES_OPS + GC_APP_OP_FP64, "compute.fp64.fma", "throughput", NULL},
    {GC_PRED_RES_OPS + GC_APP_OP_INT32, "compute.int32.add", "throughput", NULL},
    {GC_PRED_RES_OPS + GC_APP_OP_SFU, "compute.fp32.rcp", "throughput", NULL},
    {GC_PRED_RES_LVL + GC_APP_LVL_DRAM, "memory.dram.read", "read_bandwidth", "B/s"},
    {GC_PRED_RES_LVL + GC_APP_LVL_DRAM, "memory.dram.copy", "copy_bandwidth", "B/s"},
    {GC_PRED_RES_LVL + GC_APP_LVL_DRAM, "memory.dram.write", "write_bandwidth", "B/s"},
    {GC_PRED_RES_LVL + GC_APP_LVL_DRAM, "memory.bandwidth", "dram_read_bandwidth", "B/s"},
    {GC_PRED_RES_LVL + GC_APP_LVL_L2, "memory.bandwidth", "l2_bandwidth", "B/s"},
    {GC_PRED_RES_LVL + GC_APP_LVL_L2, "memory.bandwidth", "l2_copy_bandwidth", "B/s"},
    {GC_PRED_RES_LVL + GC_APP_LVL_L1, "memory.bandwidth", "l1_bandwidth", "B/s"},
    {GC_PRED_RES_LVL + GC_APP_LVL_SHARED, "memory.shared", "shared_bandwidth", "B/s"},
    {GC_PRED_RES_LVL + GC_APP_LVL_CONST, "memory.constant", "constant_broadcast_bandwidth", "B/s"},
};

const char *gc__pred_res_name(int res)
{
    if (res == GC_PRED_RES_L1W)
        return "l1_wavefronts";
    if (res >= GC_PRED_RES_OPS && res < GC_PRED_RES_LVL)
        return gc__app_op_name((enum gc_app_op)(res - GC_PRED_RES_OPS));
    if (res >= GC_PRED_RES_LVL && res < GC_PRED_RES_N)
        return gc__app_level_name((enum gc_app_level)(res - GC_PRED_RES_LVL));
    return "?";
}

void gc__peaks_init(struct gc_peaks *p)
{
    memset(p, 0, sizeof(*p));
    for (int i = 0; i < GC_APP_OP_N; i++)
        p->ops[i] = NAN;
    for (int i = 0; i < GC_APP_LVL_N; i++)
        p->bw[i] = NAN;
    p->l1_wave = NAN;
}

void gc__peaks_from_results(const struct gc_results *r, struct gc_peaks *p)
{
    gc__peaks_init(p);
    for (size_t i = 0; i < sizeof(peak_srcs) / sizeof(peak_srcs[0]); i++) {
        const struct peak_src *s = &peak_srcs[i];
        const struct gc_bench_result *b = gc__results_find(r, s->bench);
        const struct gc_metric *m =
            b && b->status == GC_BENCH_OK ? gc__bench_find_metric(b, s->metric) : NULL;

        if (!m || !isfinite(m->value) || m->value <= 0 || (s->unit && strcmp(m->unit, s->unit)))
            continue;
        bool ops = s->res < GC_PRED_RES_LVL;
        double *v = ops ? &p->ops[s->res] : &p->bw[s->res - GC_PRED_RES_LVL];
        char *src = ops ? p->ops_src[s->res] : p->bw_src[s->res - GC_PRED_RES_LVL];
        if (isfinite(*v) && *v >= m->value)
            continue;
        *v = m->value;
        snprintf(src, sizeof(p->ops_src[0]), "%s %s", s->bench, s->metric);
    }
    if (isfinite(p->bw[GC_APP_LVL_L1])) {
        p->l1_wave = p->bw[GC_APP_LVL_L1] / GC_APP_L1_LINE;
        snprintf(p->l1_wave_src, sizeof(p->l1_wave_src), "%s / %.0f B", p->bw_src[GC_APP_LVL_L1],
                 GC_APP_L1_LINE);
    }
}

void gc__pred_work_of(const struct gc_app_work *w, const struct gc_peaks *p, int res, double *work,
                      double *peak, const char **unit)
{
    const char *u;

    if (res < GC_PRED_RES_LVL) {
        *work = w->ops[res];
        *peak = p->ops[res];
        u = "ops";
    } else if (res < GC_PRED_RES_L1W) {
        *work = w->bytes[res - GC_PRED_RES_LVL];
        *peak = p->bw[res - GC_PRED_RES_LVL];
        u = "B";
    } else {
        *work = w->l1_wavefronts;
        *peak = p->l1_wave;
        u = "wavefronts";
    }
    if (unit)
        *unit = u;
}

const char *gc__pred_src_of(const struct gc_peaks *p, int res)
{
    return res < GC_PRED_RES_LVL   ? p->ops_src[res]
           : res < GC_PRED_RES_L1W ? p->bw_src[res - GC_PRED_RES_LVL]
                                   : p->l1_wave_src;
}

/* The latency-hiding model's time for w at n warps per SM (model/hiding.h). */
static int volkov(const struct gc_app_work *w, const struct gc_hiding_hw *hw, double warps_per_cu,
                  struct gc_prediction *out)
{
    struct gc_hiding_mix mix = {{0}, 1.0, 1.0};
    struct gc_hiding_point pt;
    double warps = w->threads / WARP;

    if (!(w->threads > 0) || hw->sm_count < 1 || !(hw->clock_hz > 0) ||
        !(hw->mem_bytes_per_inst > 0))
        return GC_EINVAL;
    double per_sm = warps / hw->sm_count;
    double n = isfinite(warps_per_cu) && warps_per_cu > 0 ? warps_per_cu : per_sm;
    if (n > per_sm)
        n = ceil(per_sm);
    if (n > hw->max_warps)
        n = hw->max_warps;
    mix.count[GC_HIDING_ALU] = (w->ops[GC_APP_OP_FP32] + w->ops[GC_APP_OP_INT32]) / w->threads;
    if (hw->unit[GC_HIDING_SFU].present)
        mix.count[GC_HIDING_SFU] = w->ops[GC_APP_OP_SFU] / w->threads;
    mix.count[GC_HIDING_MEM] = w->bytes[GC_APP_LVL_DRAM] / warps / hw->mem_bytes_per_inst;
    /* A warp's load of access_bytes per lane moves that many of the
     * model's memory units (mem_bytes_per_inst per warp) at once. */
    if (w->access_bytes * WARP > hw->mem_bytes_per_inst)
        mix.mem_ilp = w->access_bytes * WARP / hw->mem_bytes_per_inst;
    if (n <= 0 || gc__hiding_refined(hw, &mix, n, &pt) != 0 || !(pt.thru > 0))
        return GC_EINVAL;
    out->warps = n;
    out->volkov_s = per_sm / pt.thru / hw->clock_hz;
    out->volkov_limit = pt.limit;
    return 0;
}

int gc__predict_time(const struct gc_app_work *w, const struct gc_peaks *p,
                     const struct gc_hiding_hw *hw, double warps_per_cu, struct gc_prediction *out)
{
    memset(out, 0, sizeof(*out));
    out->roof_res = -1;
    out->volkov_s = NAN;
    out->volkov_limit = -1;
    out->warps = NAN;
    for (int res = 0; res < GC_PRED_RES_N; res++) {
        double work, peak;

        gc__pred_work_of(w, p, res, &work, &peak, NULL);
        if (!(work > 0))
            continue;
        if (!(peak > 0)) {
            out->unpriced++;
            continue;
        }
        if (work / peak > out->roof_s) {
            out->roof_s = work / peak;
            out->roof_res = res;
        }
    }
    if (hw)
        volkov(w, hw, warps_per_cu, out);
    out->by_volkov = isfinite(out->volkov_s) && out->volkov_s > out->roof_s;
    out->time_s = out->by_volkov ? out->volkov_s : out->roof_s;
    return out->time_s > 0 ? 0 : GC_EINVAL;
}

void gc__attained(const struct gc_app_work *w, double time_s, const struct gc_peaks *p,
                  struct gc_attained *out)
{
    double best = -1;

    *out = (struct gc_attained){-1, NAN, NAN, false};
    if (!(time_s > 0))
        return;
    for (int res = 0; res < GC_PRED_RES_N; res++) {
        double work, peak;

        gc__pred_work_of(w, p, res, &work, &peak, NULL);
        if (!(work > 0) || !(peak > 0) || work / time_s / peak <= best)
            continue;
        best = work / time_s / peak;
        *out = (struct gc_attained){res, work / time_s, peak, work / time_s > peak};
    }
}
