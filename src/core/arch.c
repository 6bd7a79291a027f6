/* The architecture table (core/arch.h): one row per CUDA compute capability
 * with every per-architecture fact, and the per-major facts an unknown minor
 * version still has. Sources: CUDA C++ Programming Guide (arithmetic
 * instruction throughput, compute capabilities, per-architecture L1/shared
 * sections), NVIDIA's architecture whitepapers and tuning guides. */
#include <math.h>
#include <string.h>

#include "core/arch.h"

#define N NAN

/* Arithmetic rates per class, results per clock per SM, in the order of enum
 * gc_rate_class less GC_RATE_NONE: f32, f64, h2, bf2, mufu, i32, i32 slow.
 * fp16/bf16 follow the architecture whitepapers (non-tensor rates); 0 where
 * there is no figure. */
#define R70                                                                                        \
    {                                                                                              \
        64, 32, 128, 0, 16, 64, 16                                                                 \
    }
#define R75                                                                                        \
    {                                                                                              \
        64, 2, 128, 0, 16, 64, 16                                                                  \
    }
#define R80                                                                                        \
    {                                                                                              \
        64, 32, 256, 128, 16, 64, 16                                                               \
    }
#define R86                                                                                        \
    {                                                                                              \
        128, 2, 128, 0, 16, 64, 16                                                                 \
    }
#define R89                                                                                        \
    {                                                                                              \
        128, 2, 128, 0, 16, 64, 16                                                                 \
    }
#define R90                                                                                        \
    {                                                                                              \
        128, 64, 256, 256, 16, 64, 16                                                              \
    }
#define RNONE                                                                                      \
    {                                                                                              \
        0, 0, 0, 0, 0, 0, 0                                                                        \
    }

/* Dense matrix-unit multiply-add throughput, FLOP (int8: OP) per clock per
 * SM, in the order of enum gc_mma_class (peak TFLOPS divided by SMs x boost
 * clock). NAN where the rate depends on the product (GeForce parts of
 * sm_86/sm_89 run fp32 accumulation at half the rate of the professional
 * parts with the same compute capability) or is not known with certainty.
 *   sm_80  A100 whitepaper: fp16/bf16 312 TFLOPS, tf32 156, int8 624 TOPS at
 *          1410 MHz over 108 SMs -> 2048 / 1024 / 4096; fp16 accumulation runs
 *          at the fp32-accumulation rate.
 *   sm_86  GA102 whitepaper (RTX 3090: 82 SMs, 1695 MHz): fp16 with fp16
 *          accumulation 142 TFLOPS -> 1024; int8 284 TOPS -> 2048.
 *   sm_89  Ada whitepaper (RTX 4090: 128 SMs, 2520 MHz): fp16 with fp16
 *          accumulation 330.3 TFLOPS -> 1024; int8 660.6 TOPS -> 2048.
 *   sm_90  H100 whitepaper (H100 SXM5: 132 SMs, 1830 MHz): fp16/bf16
 *          989.4 TFLOPS -> 4096, tf32 494.7 -> 2048, fp8 and int8 1978.9
 *          -> 8192; H200 has the same GH100 SM. */
#define M80                                                                                        \
    {                                                                                              \
        2048, 2048, 2048, 1024, N, 4096                                                            \
    }
#define M86                                                                                        \
    {                                                                                              \
        N, 1024, N, N, N, 2048                                                                     \
    }
#define M89                                                                                        \
    {                                                                                              \
        N, 1024, N, N, N, 2048                                                                     \
    }
#define M90                                                                                        \
    {                                                                                              \
        4096, 4096, 4096, 2048, 8192, 8192                                                         \
    }
#define MNONE                                                                                      \
    {                                                                                              \
        N, N, N, N, N, N                                                                           \
    }

struct cc_row {
    int cc;
    double fp32_fma;
    float rate[GC_RATE_NCLASS - 1];
    double mma[GC_MMA_NCLASS];
    /* The unified L1 / shared array and its smallest and smallest non-zero
     * carve-outs (KiB). The device reports only the largest carve-out, not
     * the array. */
    int l1_unified, l1_smallest, l1_nonzero;
    /* Resident threads and blocks per SM (CUDA C++ Programming Guide,
     * technical specifications per compute capability); 0 unknown. */
    int threads, blocks;
};

/* Compute capabilities in increasing order. 7.2 and 8.7 take the rates of
 * 7.0 and 8.6 (the guide has no column of their own). */
static const struct cc_row rows[] = {
    {70, 64, R70, MNONE, 128, 0, 8, 2048, 32},   {72, 64, R70, MNONE, 128, 0, 8, 2048, 32},
    {75, 64, R75, MNONE, 96, 32, 32, 1024, 16},  {80, 64, R80, M80, 192, 0, 8, 2048, 32},
    {86, 128, R86, M86, 128, 0, 8, 1536, 16},    {87, 128, R86, MNONE, 192, 0, 8, 1536, 16},
    {89, 128, R89, M89, 128, 0, 8, 1536, 24},    {90, 128, R90, M90, 256, 0, 8, 2048, 32},
    {100, 128, RNONE, MNONE, 0, 0, 0, 2048, 32}, {103, 128, RNONE, MNONE, 0, 0, 0, 2048, 32},
    {110, 128, RNONE, MNONE, 0, 0, 0, 0, 0},     {120, 128, RNONE, MNONE, 0, 0, 0, 1536, 32},
    {121, 128, RNONE, MNONE, 0, 0, 0, 0, 0},
};

/* Facts that follow from the major version alone, the first row whose
 * major is at most the device's applies. */
static const struct major_row {
    int major;
    double sfu, shared_words, shared2_words, l1_bytes;
    int schedulers;
    bool issue_per_scheduler, load_hints, timed_sleep;
} majors[] = {
    {8, 16, 32, 16, 128, 4, true, true, true},  {7, 16, 32, 16, 128, 4, true, false, true},
    {5, 32, 32, 16, N, 4, false, false, false}, {3, N, N, N, N, 4, false, false, false},
    {1, N, N, N, N, 2, false, false, false},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void no_facts(struct gc_arch *a)
{
    memset(a, 0, sizeof(*a));
    a->fp32_fma_per_clk = NAN;
    for (int i = 0; i < GC_RATE_NCLASS; i++)
        a->rate[i] = NAN;
    for (int i = 0; i < GC_MMA_NCLASS; i++)
        a->mma_rate[i] = NAN;
    a->sfu_per_clk = a->shared_words_per_clk = a->shared2_words_per_clk = NAN;
    a->l1_bytes_per_clk = NAN;
    a->schedulers = 1;
}

static void take_rates(struct gc_arch *a, const struct cc_row *r)
{
    for (int i = 1; i < GC_RATE_NCLASS; i++)
        a->rate[i] = r->rate[i - 1] > 0 ? r->rate[i - 1] : NAN;
}

void gc__arch_lookup(const struct gc_device_info *info, struct gc_arch *out)
{
    const struct cc_row *lower = NULL;

    no_facts(out);
    if (info->cc_major <= 0)
        return;
    out->cc = info->cc_major * 10 + info->cc_minor;
    out->sm = true;
    for (size_t i = 0; i < COUNT(majors); i++) {
        const struct major_row *m = &majors[i];
        if (m->major > info->cc_major)
            continue;
        out->sfu_per_clk = m->sfu;
        out->shared_words_per_clk = m->shared_words;
        out->shared2_words_per_clk = m->shared2_words;
        out->l1_bytes_per_clk = m->l1_bytes;
        out->schedulers = m->schedulers;
        out->issue_per_scheduler = m->issue_per_scheduler;
        out->load_hints = m->load_hints;
        out->timed_sleep = m->timed_sleep;
        break;
    }
    out->wgmma = out->cc == 90;
    out->mma_fp8_emulated = out->cc == 90;
    for (size_t i = 0; i < COUNT(rows); i++) {
        const struct cc_row *r = &rows[i];
        if (r->cc / 10 == info->cc_major && r->cc < out->cc)
            lower = r;
        if (r->cc != out->cc)
            continue;
        out->known = true;
        out->fp32_fma_per_clk = r->fp32_fma;
        take_rates(out, r);
        for (int k = 0; k < GC_MMA_NCLASS; k++)
            out->mma_rate[k] = r->mma[k];
        out->l1_unified_kib = r->l1_unified;
        out->l1_smallest_kib = r->l1_smallest;
        out->l1_nonzero_kib = r->l1_nonzero;
        out->threads_per_sm = r->threads;
        out->blocks_per_sm = r->blocks;
        out->regs_per_sm = r->threads > 0 ? 65536 : 0;
        return;
    }
    /* An unknown minor version: the rates of the nearest lower row of its
     * major version, nothing else. */
    if (lower)
        take_rates(out, lower);
}

void gc__arch_fill_residency(const struct gc_arch *a, struct gc_device_info *info)
{
    if (!a->known || a->threads_per_sm <= 0)
        return;
    if (info->max_threads_per_cu <= 0)
        info->max_threads_per_cu = a->threads_per_sm;
    if (info->max_blocks_per_cu <= 0)
        info->max_blocks_per_cu = a->blocks_per_sm;
    if (info->regs_per_cu <= 0)
        info->regs_per_cu = a->regs_per_sm;
}

bool gc__arch_older_than(const struct gc_arch *a, int cc)
{
    return a->cc > 0 && cc > 0 && a->cc < cc;
}
