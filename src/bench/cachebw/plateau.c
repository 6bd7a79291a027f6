/* memory.bandwidth's plateaus: which points may feed the L1, L2, L2-copy
 * and DRAM figures, and the figures from the points measured in full. */
#include <math.h>
#include <stdio.h>

#include "bench/cachebw/cachebw.h"
#include "core/cpulimits.h"
#include "core/harness.h"
#include "core/results.h"

size_t gc__cachebw_l2_min_fp(unsigned grid)
{
    return (size_t)grid * GC_CACHEBW_CHUNK_MAX / 4;
}

/* Below 8x the last-level cache part of the footprint stays cached (an H200
 * showed 115% of the DRAM spec at 4x): no DRAM figure then. CPUs: 8x the
 * larger of the reported and the host's last-level cache. */
static bool dram_reported(const struct gc_device_info *info, size_t fmax)
{
    size_t l2s = info->l2_size;
    size_t llc = info->type == GC_DEVICE_CPU ? gc__cpu_llc_bytes(info) : l2s;

    return !(l2s && fmax < 8 * l2s) && (info->type != GC_DEVICE_CPU || (llc && fmax >= 8 * llc));
}

/* The footprints a plateau may come from are those where the level it is
 * named after serves the bytes (tools/ncu-levels.sh reads the hardware
 * counters). L1: a load through a caching path (on GPUs up to 64 KiB, which
 * every L1 holds). L2: an L2-only (.cg) load up to half the cache on CUDA,
 * else a default load between 1/8 and 1/2 of it, from footprints of at least
 * resident blocks x 16 KiB / 4: below, the blocks of one SM read the same
 * chunks at the same time and L1 merges their misses, so that L2 serves only
 * a part of the bytes counted (25% at 4 KiB on an H100, which then
 * "reached" 76 B/clk/SM). L2 copy: a copy in the same range. DRAM: a load at
 * the largest footprint. */
unsigned gc__cachebw_plateaus(const struct gc_device_info *info, bool copy, enum gc_ldpath ld,
                              size_t fp, size_t fmax, unsigned grid)
{
    bool gpu = info->type == GC_DEVICE_GPU, hints = info->caps & GC_CAP_CACHE_HINTS;
    /* A CPU device that reports no cache (PoCL without sysfs's cache
     * directory): the host's last level, which PoCL reports where it can. */
    size_t l2s = info->l2_size || gpu ? info->l2_size : gc__cpu_llc_bytes(info);
    bool in_l2 = l2s && fp <= l2s / 2 && fp >= gc__cachebw_l2_min_fp(grid);
    unsigned b = 0;

    if (!copy && ld != GC_LD_CG && (!gpu || fp <= CB_L1_MAX_FP))
        b |= GC_CB_L1;
    if (!copy && in_l2 && (hints ? ld == GC_LD_CG : fp >= l2s / 8))
        b |= GC_CB_L2;
    if (copy && in_l2)
        b |= GC_CB_L2_COPY;
    if (!copy && fp == fmax && dram_reported(info, fmax))
        b |= GC_CB_DRAM;
    return b;
}

/* Adds value, B/clk/SM and 32-bit words/clk/SM (gpumembench Table III) of
 * one plateau. */
static void add_level(struct gc_bench_result *r, const struct gc_device_info *info,
                      const char *name, const struct gc_hconf *p, double limit_bpc, double limit_bw,
                      const char *note)
{
    char n[64], nt[256];
    int sms = info->compute_units;

    if (!p)
        return;
    double mhz = p->m.clock_mhz;
    double lim = isfinite(limit_bpc) && isfinite(mhz) ? limit_bpc * sms * mhz * 1e6 : limit_bw;
    snprintf(n, sizeof(n), "%s_bandwidth", name);
    gc__bench_add_metric(r, n, p->value, "B/s", lim, &p->stats, note);
    if (!isfinite(mhz) || sms <= 0)
        return;
    double bpc = p->value / (mhz * 1e6 * sms);
    snprintf(nt, sizeof(nt), "at the observed SM clock (%.0f MHz) and %d SMs", mhz, sms);
    snprintf(n, sizeof(n), "%s_bytes_per_clk_per_sm", name);
    gc__bench_add_metric(r, n, bpc, "B/clk/SM", limit_bpc, NULL, nt);
    snprintf(n, sizeof(n), "%s_words_per_clk_per_sm", name);
    gc__bench_add_metric(r, n, bpc / 4, "words/clk/SM", limit_bpc / 4, NULL,
                         "32-bit words per SM per clock, as gpumembench Table III normalises");
}

/* The refined member of a plateau with the highest value: the figures come
 * from full measurements only. */
const struct gc_hconf *gc__cachebw_plateau_best(const struct gc_harness *h, unsigned bit)
{
    const struct gc_hconf *best = NULL;

    for (int i = 0; i < h->ncfg; i++) {
        const struct gc_hconf *c = &h->cfg[i];

        if (c->state == GC_H_REFINED && (c->plateaus & bit) && isfinite(c->value) &&
            (!best || c->value > best->value))
            best = c;
    }
    return best;
}

void gc__cachebw_figures(struct gc_session *s, const struct gc_harness *h, size_t fmax)
{
    const struct gc_device_info *info = &s->dev->info;
    struct gc_bench_result *r = h->r;
    bool hints = info->caps & GC_CAP_CACHE_HINTS, gpu = info->type == GC_DEVICE_GPU;
    const struct gc_hconf *l1 = gc__cachebw_plateau_best(h, GC_CB_L1),
                          *l2 = gc__cachebw_plateau_best(h, GC_CB_L2),
                          *l2c = gc__cachebw_plateau_best(h, GC_CB_L2_COPY),
                          *dr = gc__cachebw_plateau_best(h, GC_CB_DRAM);
    /* CPU devices: their cores' loads (and stores) bound every level. */
    double cpu_ld = gc__cpu_stream_limit(info, 1, 0), cpu_cp = gc__cpu_stream_limit(info, 1, 1);
    bool l1lim = isfinite(s->dev->arch.l1_bytes_per_clk);
    size_t l2s = info->l2_size;
    char l2note[200], note[200];

    add_level(r, info, "l1", l1, s->dev->arch.l1_bytes_per_clk, cpu_ld,
              l1lim ? "best load through L1, footprint <= 64 KiB; limit 128 B/clk/SM (the "
                      "L1 / shared-memory data path, CC >= 7.0) x SMs x observed clock"
              : gpu ? "best load, footprint <= 64 KiB"
                    : "best load at any footprint");
    snprintf(l2note, sizeof(l2note),
             "%s, footprint %.0f KiB (in [resident blocks x 16 KiB / 4, L2/2]: no two "
             "blocks of an SM read one chunk at once)",
             hints ? "best ld.global.cg (L2-only) load" : "best load", l2 ? l2->x / 1024 : 0.0);
    add_level(r, info, "l2", l2, NAN, cpu_ld, l2note);
    add_level(r, info, "l2_copy", l2c, NAN, cpu_cp,
              "best copy (loads + streaming stores), footprint in [resident blocks x 16 KiB "
              "/ 4, L2/2]; bytes read + written");
    snprintf(note, sizeof(note), "best load at the largest footprint, %.0f MiB%s",
             (double)fmax / (1 << 20),
             l2s && fmax < 4 * l2s ? " (less than 4x the last-level cache: may hit in it)" : "");
    if (dram_reported(info, fmax))
        add_level(r, info, "dram_read", dr, NAN,
                  isfinite(info->mem_bw_spec) ? info->mem_bw_spec : cpu_ld, note);
    const struct gc_hconf *ctx = dr ? dr : l1 ? l1 : l2 ? l2 : l2c;
    if (ctx) {
        r->context = ctx->m.ctx;
        snprintf(r->stop_rule, sizeof(r->stop_rule), "%s", ctx->m.stop_rule);
    }
}
