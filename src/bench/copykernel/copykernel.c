/* memory.copy_kernel: Lemeire et al. §VI-A copy kernel: bandwidth and cycles
 * per memory request (CPMR) per warp over an occupancy sweep for 1..16-byte
 * elements, issue latency λ = min and Λ = max over the sweep (eqs. 3-5 with
 * the timeOfRun correction), and Fig. 6: constant vs kernel-argument loop
 * bound. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/copykernel/copykernel.h"
#include "core/cpulimits.h"
#include "core/devfill.h"
#include "core/harness.h"
#include "core/occupancy.h"
#include "core/stats.h"
#include "kgen/gen_stream.h"
#include "util/random.h"

#define CK_READS 64 /* reads per work-item of the occupancy sweep */
/* One block in CK_TS_STRIDE records timestamps: grids reach 10^5 blocks. */
#define CK_TS_STRIDE 16

#define CK_NELEM 5
/* Configurations at most: 16 sweep points x 5 element sizes, 7 x 2 of Fig. 6. */
#define CK_MAX_CFG (16 * CK_NELEM + 14)
static const int elem_sizes[CK_NELEM] = {1, 2, 4, 8, 16};
static const int fig6_reads[] = {1, 2, 4, 8, 16, 32, 64}, fig6_quick[] = {4, 64};

/* The paper's listing: work-item id reads elements id, id + global size, ...
 * and sums them; the sum is stored only when flag x sum != 0 (flag is 0 in
 * timed runs, 1 in the verification run; an integer product cannot be split
 * into a test of flag alone, so the loads cannot be sunk under the branch).
 * reads > 0: a literal, fully unrolled bound; reads == 0: the bound is the
 * kernel argument n ('dynamic loop' of Fig. 6). */
static char *gen_copyk(enum gc_dialect d, unsigned flags, int elem, int reads, bool occ)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__sbuf_printf(&b, "#define GC_TS_STRIDE %d\n", CK_TS_STRIDE);
    gc__kgen_prelude(&b, d, flags);
    gc__sbuf_printf(&b, "typedef %s gc_elem;\n", gc__kgen_elem_type(elem));
    gc__sbuf_printf(&b,
                    "GC_KERNEL void gc_copyk(GC_GLOBAL const gc_elem *src, GC_GLOBAL GC_U32 *dst, "
                    "GC_U32 flag, GC_U32 n GC_TS_PARAM%s)\n{\n",
                    occ ? " GC_DYN_SHARED_PARAM(GC_U32, gc_dyn)" : "");
    if (occ)
        gc__sbuf_puts(&b, "    GC_DYN_SHARED_DECL(GC_U32, gc_dyn)\n");
    gc__sbuf_puts(&b, "    GC_TS_BEGIN\n"
                      "    GC_U32 id = GC_GID, index = id, stride = GC_NBLK * GC_BDIM, sum = 0;\n");
    if (reads > 0)
        gc__sbuf_printf(
            &b, "    (void)n;\n    #pragma unroll\n    for (int i = 0; i < %d; i++) {\n", reads);
    else
        gc__sbuf_puts(&b, "    for (GC_U32 i = 0; i < n; i++) {\n");
    gc__sbuf_puts(&b, "        gc_elem v = src[index];\n");
    if (elem <= 4)
        gc__sbuf_puts(&b, "        sum += (GC_U32)v;\n");
    else
        for (int w = 0; w < elem / 4; w++)
            gc__sbuf_printf(&b, "        sum += v%s;\n", gc__vec_comp(elem, w));
    gc__sbuf_puts(&b, "        index += stride;\n    }\n"
                      "    if (flag * sum)\n        dst[id] = sum;\n    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

/* One run of the benchmark: what the harness's callbacks share. */
struct gc_copyk_run {
    struct gc_hdesc desc;
    struct gc_copyk_sizing z;
    unsigned flags; /* GC_KGEN_TIMESTAMPS or 0 */
    bool occ;       /* occupancy enforced with dynamic shared memory */
    int nf6;
    const int *f6;
    int s0;                   /* the first of the benchmark's series */
    uint64_t seed;            /* the source holds gc__hash32(seed, .) words */
    struct gc_buf *src, *dst; /* one source and one output for every shape */
    unsigned char *host;      /* a host copy of the source (host path); NULL none yet */
    struct gc_copyk_cfg *cfg; /* per configuration, in plan order */
};

/* Byte o of the source: from the host copy when there is one, else from its
 * generator (gc__hash32(seed, .) words, little-endian). */
static unsigned src_byte(const struct gc_copyk_run *cr, size_t o)
{
    if (cr->host)
        return cr->host[o];
    return (gc__hash32(cr->seed, o / 4) >> (8 * (o % 4))) & 0xFFu;
}

static uint32_t src_word(const struct gc_copyk_run *cr, size_t i)
{
    uint32_t x;

    if (!cr->host)
        return gc__hash32(cr->seed, i);
    memcpy(&x, cr->host + 4 * i, 4);
    return x;
}

/* The sum work-item id of a launch of `stride` work-items computes. */
static uint32_t expect_sum(const struct gc_copyk_run *cr, int elem, size_t id, size_t stride,
                           int reads)
{
    uint32_t s = 0;

    for (int i = 0; i < reads; i++) {
        size_t o = (id + (size_t)i * stride) * (size_t)elem;

        if (elem == 1)
            s += src_byte(cr, o);
        else if (elem == 2)
            s += src_byte(cr, o) | src_byte(cr, o + 1) << 8;
        else
            for (int w = 0; w < elem / 4; w++)
                s += src_word(cr, o / 4 + (size_t)w);
    }
    return s;
}

/* What a work-item whose sum is 0 leaves in the output (it stores nothing). */
#define CK_POISON 0xDEADBEEFu

/* Work-items compared per piece on the host path. */
#define CK_VERIFY_CHUNK ((size_t)4 << 20)

static int check_word(size_t id, uint32_t got, uint32_t e, const char *extra, char *msg, size_t len)
{
    uint32_t want = e ? e : CK_POISON;

    if (got == want)
        return 0;
    snprintf(msg, len, "work-item %zu stored 0x%08x, expected 0x%08x%s", id, got, want, extra);
    return GC_EVERIFY;
}

/* The host path: every work-item's sum against a host copy of the source. */
static int verify_host(struct gc_copyk_run *cr, struct gc_device *d, const struct gc_copyk_cfg *cf,
                       size_t threads, char *msg, size_t len)
{
    size_t n = threads < CK_VERIFY_CHUNK ? threads : CK_VERIFY_CHUNK;
    uint32_t *got = malloc(n * 4);
    int rc = 0;

    if (!got)
        return GC_ENOMEM;
    if (!cr->host) {
        unsigned char *h = malloc(cr->z.src_bytes);

        if (!h) {
            free(got);
            return GC_ENOMEM;
        }
        gc__hash_fill((uint32_t *)(void *)h, 0, cr->z.src_bytes / 4, cr->seed);
        cr->host = h;
    }
    for (size_t base = 0; base < threads && rc == 0; base += n) {
        size_t cnt = threads - base < n ? threads - base : n;

        if ((rc = gc__dev_read(d, cr->dst, base * 4, got, cnt * 4)))
            break;
        for (size_t i = 0; i < cnt && rc == 0; i++)
            rc = check_word(base + i, got[i],
                            expect_sum(cr, cf->elem, base + i, threads, cf->reads), "", msg, len);
    }
    free(got);
    return rc;
}

/* The device check: every work-item's sum against a reference kernel that
 * computes it from bytes (kgen/gen_fill.h gc_copyk_ref). */
static int verify_device(struct gc_session *s, struct gc_copyk_run *cr,
                         const struct gc_copyk_cfg *cf, size_t threads, char *msg, size_t len)
{
    struct gc_buf *ref = NULL;
    int rc = gc__pool_output(s, "copyk_ref", threads * 4, &ref);

    if (rc == 0)
        rc = gc__devcheck_copyk_ref(s, cr->src, ref, (unsigned)cf->elem, (unsigned)cf->reads,
                                    threads, threads, CK_POISON);
    if (rc == 0) {
        struct gc_check c = {.kind = GC_CHECK_EQ, .want = ref, .got = cr->dst, .words = threads};

        rc = gc__devcheck(s, &c, msg, len);
    }
    return rc;
}

/* Runs the launch once with flag 1 into a poisoned output and checks every
 * work-item's sum: on the device (verify_device), then eight work-items on
 * the host from the generator alone (so that a reference that went wrong the
 * same way still fails); where the device cannot check, every work-item on
 * the host, which also names the first wrong one after a device failure. */
static int ck_verify(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    struct gc_copyk_run *cr = h->d->user;
    const struct gc_copyk_cfg *cf = c->user;
    struct gc_session *s = h->s;
    struct gc_device *d = s->dev;
    struct gc_launch l = c->hl.l;
    struct gc_arg args[GC_H_MAX_ARGS];
    size_t threads = (size_t)l.grid[0] * l.block[0];
    double el;
    int rc;

    if ((rc = gc__devfill_word(s, cr->dst, threads * 4, CK_POISON)))
        return rc;
    memcpy(args, c->hl.args, sizeof(args));
    args[2].v.u32 = 1;
    l.args = args;
    l.count = 1;
    if ((rc = gc__dev_launch(d, c->k, &l, &el)))
        return rc;
    rc = verify_device(s, cr, cf, threads, msg, len);
    if (rc == GC_EVERIFY)
        return verify_host(cr, d, cf, threads, msg, len) == GC_EVERIFY ? GC_EVERIFY : rc;
    if (rc == GC_ENOTSUP || rc == GC_EDEVMEM || rc == GC_ENOMEM) {
        d->err[0] = '\0';
        return verify_host(cr, d, cf, threads, msg, len);
    }
    for (int i = 0; i < 8 && rc == 0; i++) {
        size_t id = (size_t)(gc__hash32(cr->seed ^ 0x5EEDULL, (uint64_t)i) % threads);
        uint32_t got;

        if ((rc = gc__dev_read(d, cr->dst, id * 4, &got, 4)))
            return rc;
        rc = check_word(id, got, expect_sum(cr, cf->elem, id, threads, cf->reads),
                        " (the device check passed: its reference is wrong too)", msg, len);
    }
    return rc;
}

/* The launch of one shape: runs x CUs x blocks per CU blocks, the occupancy
 * enforced where the device can; a sweep point the kernel's registers do
 * not allow is skipped. */
static int ck_setup(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out)
{
    struct gc_copyk_run *cr = h->d->user;
    const struct gc_copyk_cfg *cf = c->user;
    struct gc_device *d = h->s->dev;
    int cus = d->info.compute_units > 0 ? d->info.compute_units : 1, na = 4, rc;
    unsigned grid = cf->runs * (unsigned)(cf->bps * cus);
    struct gc_occupancy oc = {0};

    if (cf->fig6)
        snprintf(out->desc, sizeof(out->desc), "%s loop bound, %d reads per work-item",
                 cf->fig6 == 2 ? "kernel-argument" : "constant", cf->reads);
    else
        snprintf(out->desc, sizeof(out->desc),
                 "%d-byte elements, %d warps per CU (%d block(s) of %d)", cf->elem, cf->warps,
                 cf->bps, cf->block);
    if (cr->occ && (rc = gc__occupancy_set(d, c->k, cf->block, cf->bps, &oc))) {
        out->absent = rc == GC_ERANGE && !cf->fig6;
        if (out->absent) {
            d->err[0] = '\0';
            return 0;
        }
        if (rc != GC_ERANGE)
            gc__bench_set_error(h->r, GC_BENCH_ERROR, "%s: %s", out->desc, d->err);
        return rc;
    }
    out->args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = cr->src};
    out->args[1] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = cr->dst};
    out->args[2] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 0};
    out->args[3] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)cf->reads};
    if (cr->flags & GC_KGEN_TIMESTAMPS) {
        unsigned nrec = (grid + CK_TS_STRIDE - 1) / CK_TS_STRIDE;

        if ((rc = gc__dev_alloc(d, (size_t)nrec * GC_TS_WORDS * 8, &out->own[0])))
            return rc;
        out->ts = (struct gc_timestamps){out->own[0], nrec};
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = out->own[0]};
    }
    out->l = (struct gc_launch){
        {grid, 1, 1}, {(unsigned)cf->block, 1, 1}, oc.dyn_shared, out->args, na, 1};
    out->work = (double)grid * cf->block * cf->reads * cf->elem;
    return 0;
}

void gc__copyk_sizing(const struct gc_device_info *info, enum gc_profile p,
                      struct gc_copyk_sizing *z)
{
    bool gpu = info->type == GC_DEVICE_GPU;
    int cus = info->compute_units > 0 ? info->compute_units : 1;
    int tpc = info->max_threads_per_cu > 0 ? info->max_threads_per_cu : 64;
    /* Bytes each launch reads: far above the last-level cache on GPUs. */
    double target = gpu ? (p == GC_PROFILE_QUICK ? 256.0 : 512.0) * (1 << 20) : 2.0 * (1 << 20);
    if (gpu && info->l2_size && target < 8.0 * (double)info->l2_size)
        target = 8.0 * (double)info->l2_size;
    /* The source holds a quarter more than the target (rounding up to whole
     * runs) and at least one run of the widest shape: 16-byte elements x 64
     * reads x every thread of every CU. */
    double one_run = 16.0 * CK_READS * tpc * cus;
    double src = target * 1.25 + (double)(16 << 20);
    if (src < 2.0 * one_run)
        src = 2.0 * one_run;
    z->target = target;
    z->src_bytes = ((size_t)src + 4095) & ~(size_t)4095;
    /* The shape with the fewest bytes per work-item decides how many
     * work-items a launch may have: Fig. 6's 4-byte elements with 1 read
     * (4 bytes; 16 with the quick profile's 4 reads). */
    z->min_thread_bytes =
        (size_t)4 * (size_t)(p == GC_PROFILE_QUICK ? fig6_quick[0] : fig6_reads[0]);
    z->dst_bytes = z->src_bytes / z->min_thread_bytes * 4 + 4096;
}

unsigned gc__copyk_runs(const struct gc_copyk_sizing *z, int elem, int reads, int block, int bps,
                        int cus)
{
    double per_run = (double)elem * reads * block * bps * cus;
    size_t run_items = (size_t)block * (size_t)bps * (size_t)cus;
    unsigned runs = (unsigned)ceil(z->target / per_run);

    if (runs < 1)
        runs = 1;
    while (runs > 0 && ((double)runs * per_run > (double)z->src_bytes ||
                        (size_t)runs * run_items * 4 > z->dst_bytes))
        runs--;
    return runs;
}

/* The limit of a figure: the DRAM bandwidth the device reports; on a CPU
 * device what its cores' loads allow (the timed launches store nothing). */
static double copyk_limit(const struct gc_device_info *info)
{
    return isfinite(info->mem_bw_spec) ? info->mem_bw_spec : gc__cpu_stream_limit(info, 1, 0);
}

/* Warps per CU of the sweep: 1, 2, 4, ... and the maximum (24 and 48 too in
 * the default and full profiles); two points on CPUs. */
static int plan_warps(const struct gc_device_info *info, bool quick, int *warps)
{
    int warp = info->simd_width > 0 ? info->simd_width : 32;
    int maxw = info->max_threads_per_cu > 0 ? info->max_threads_per_cu / warp : 2, nw = 0;

    for (int w = 1; w <= maxw && nw < 14; w *= 2)
        warps[nw++] = w;
    if (!quick && maxw >= 24)
        warps[nw++] = 24;
    if (!quick && maxw >= 48)
        warps[nw++] = 48;
    if (warps[nw - 1] != maxw)
        warps[nw++] = maxw;
    if (info->type != GC_DEVICE_GPU && nw > 2)
        nw = 2;
    return nw;
}

/* Adds configuration cf (w warps per CU: one block of w warps for w <= 32,
 * else two of w / 2) to the plan, its kernel generated. */
static int add_cfg(struct gc_session *s, struct gc_harness *h, struct gc_copyk_run *cr,
                   struct gc_copyk_cfg cf, int series, double x)
{
    const struct gc_device_info *info = &s->dev->info;
    int warp = info->simd_width > 0 ? info->simd_width : 32;
    int cus = info->compute_units > 0 ? info->compute_units : 1;
    struct gc_copyk_cfg *slot;
    struct gc_hconf *c;

    cf.bps = cf.warps > 32 ? 2 : 1;
    cf.block = cf.warps / cf.bps * warp;
    cf.runs = gc__copyk_runs(&cr->z, cf.elem, cf.reads, cf.block, cf.bps, cus);
    if (!cf.runs) {
        if (cf.fig6)
            gc__bench_set_error(h->r, GC_BENCH_ERROR, "no launch of %d reads fits", cf.reads);
        else
            gc__bench_set_error(h->r, GC_BENCH_ERROR, "no launch of %d-byte elements fits",
                                cf.elem);
        return GC_ERANGE;
    }
    if (h->ncfg >= CK_MAX_CFG || !(c = gc__harness_add(h)))
        return GC_ENOMEM;
    slot = &cr->cfg[h->ncfg - 1];
    *slot = cf;
    snprintf(c->label, sizeof(c->label), "copyk_e%d_n%d%s_w%d", cf.elem, cf.reads,
             cf.fig6 == 2 ? "_dynamic" : "", cf.warps);
    c->src =
        gen_copyk(s->dev->ops->dialect, cr->flags, cf.elem, cf.fig6 == 2 ? 0 : cf.reads, cr->occ);
    c->kernel = "gc_copyk";
    c->series = series;
    c->x = x;
    c->user = slot;
    return 0;
}

static int add_series(struct gc_bench_result *r)
{
    char name[48];

    for (int e = 0; e < CK_NELEM; e++) {
        snprintf(name, sizeof(name), "bandwidth_%dB", elem_sizes[e]);
        if (!gc__bench_add_series(r, name, "warps per CU", "warps", "bandwidth", "B/s"))
            return GC_ENOMEM;
        snprintf(name, sizeof(name), "cpmr_%dB", elem_sizes[e]);
        if (!gc__bench_add_series(r, name, "warps per CU", "warps", "CPMR per warp", "cycles"))
            return GC_ENOMEM;
    }
    if (!gc__bench_add_series(r, "bandwidth_constant_loop", "reads per work-item", "", "bandwidth",
                              "B/s") ||
        !gc__bench_add_series(r, "bandwidth_dynamic_loop", "reads per work-item", "", "bandwidth",
                              "B/s"))
        return GC_ENOMEM;
    return 0;
}

/* The occupancy sweep per element size, then Fig. 6 at full occupancy:
 * each reads per work-item with a literal bound and with the bound as a
 * kernel argument. */
static int plan_cfgs(struct gc_session *s, struct gc_harness *h, struct gc_copyk_run *cr, int s0)
{
    int warps[16], nw = plan_warps(&s->dev->info, s->profile == GC_PROFILE_QUICK, warps), rc = 0;

    for (int e = 0; e < CK_NELEM && rc == 0; e++)
        for (int i = 0; i < nw && rc == 0; i++)
            rc = add_cfg(
                s, h, cr,
                (struct gc_copyk_cfg){.elem = elem_sizes[e], .reads = CK_READS, .warps = warps[i]},
                s0 + 2 * e, warps[i]);
    for (int i = 0; i < cr->nf6 && rc == 0; i++)
        for (int v = 1; v <= 2 && rc == 0; v++)
            rc = add_cfg(s, h, cr,
                         (struct gc_copyk_cfg){
                             .elem = 4, .reads = cr->f6[i], .fig6 = v, .warps = warps[nw - 1]},
                         s0 + 2 * CK_NELEM + v - 1, cr->f6[i]);
    return rc;
}

/* The run's compile plan: the kernels plan_cfgs requests (one per element
 * size at CK_READS, then Fig. 6's per reads count with a literal bound, and
 * the one with the bound as an argument). */
static int plan_copyk(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out,
                      int *n)
{
    const struct gc_device_info *info = &s->dev->info;
    bool quick = s->profile == GC_PROFILE_QUICK;
    unsigned flags = gc__harness_ts_flags(info);
    bool occ =
        (info->caps & GC_CAP_DYN_SHARED) && info->shared_per_cu > 0 && info->max_threads_per_cu > 0;
    const int *f6 = quick ? fig6_quick : fig6_reads;
    int nf6 = quick ? 2 : 7, m = 0;
    struct gc_ksrc *k = calloc((size_t)(CK_NELEM + nf6 + 1), sizeof(*k));

    (void)self;
    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    for (int e = 0; e < CK_NELEM + nf6 + 1; e++) {
        int elem = e < CK_NELEM ? elem_sizes[e] : 4;
        int reads = e < CK_NELEM ? CK_READS : e < CK_NELEM + nf6 ? f6[e - CK_NELEM] : 0;

        snprintf(k[m].label, sizeof(k[m].label), "copyk_e%d_n%d", elem, reads);
        if (!(k[m++].src = gen_copyk(s->dev->ops->dialect, flags, elem, reads, occ))) {
            gc__ksrc_free(k, m);
            return GC_ENOMEM;
        }
    }
    *out = k;
    *n = m;
    return 0;
}

int gc__copyk_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h)
{
    const struct gc_device_info *info = &s->dev->info;
    bool quick = s->profile == GC_PROFILE_QUICK;
    struct gc_copyk_run *cr = calloc(1, sizeof(*cr));
    int rc;

    if (!cr || !(cr->cfg = calloc(CK_MAX_CFG, sizeof(*cr->cfg)))) {
        free(cr);
        snprintf(s->dev->err, sizeof(s->dev->err), "out of host memory");
        return GC_ENOMEM;
    }
    cr->flags = gc__harness_ts_flags(info);
    cr->occ =
        (info->caps & GC_CAP_DYN_SHARED) && info->shared_per_cu > 0 && info->max_threads_per_cu > 0;
    cr->f6 = quick ? fig6_quick : fig6_reads;
    cr->nf6 = quick ? 2 : 7;
    cr->seed = s->seed ^ 0xC0C0ULL;
    gc__copyk_sizing(info, s->profile, &cr->z);
    /* Every point is a figure (lambda and Lambda are the extremes of the
     * whole sweep): each configuration is measured in full, none screened. */
    cr->desc = (struct gc_hdesc){
        .refine_top = CK_MAX_CFG,
        .setup = ck_setup,
        .verify = ck_verify,
        .user = cr,
    };
    gc__harness_init(h, s, r, &cr->desc);
    cr->s0 = r->nseries;
    if ((rc = add_series(r)) || (rc = plan_cfgs(s, h, cr, cr->s0)))
        return rc;
    /* One source and one output buffer for every shape; counter-based
     * random words filled on the device, so that the host computes any of
     * them without a copy of the source (ck_verify). */
    if ((rc = gc__dev_alloc(s->dev, cr->z.src_bytes, &cr->src)) ||
        (rc = gc__dev_alloc(s->dev, cr->z.dst_bytes, &cr->dst)))
        return rc;
    return gc__devfill_hash(s, cr->src, cr->z.src_bytes, cr->seed);
}

const struct gc_copyk_cfg *gc__copyk_cfg(const struct gc_hconf *c)
{
    return c->user;
}

double gc__copyk_cpmr(const struct gc_copyk_cfg *cf, double seconds, double clock_mhz, int warp)
{
    /* Lemeire eqs. 3-5 with timeOfRun = runtime / runsCU: one run holds
     * bps blocks of `block` work-items per CU, each issuing `reads` loads. */
    double clk = isfinite(clock_mhz) ? clock_mhz * 1e6 : NAN;
    double cycles_run = seconds / cf->runs * clk;
    double instr_run = (double)cf->reads * cf->block * cf->bps;

    return cycles_run / instr_run * (cf->block < warp ? cf->block : warp);
}

/* Per element size: the best bandwidth over the sweep, lambda and Lambda
 * (the extremes of CPMR per warp), and the CPMR series. */
static int derive_sweep(const struct gc_harness *h, int s0, int e)
{
    struct gc_bench_result *r = h->r;
    const struct gc_device_info *info = &h->s->dev->info;
    int warp = info->simd_width > 0 ? info->simd_width : 32;
    const struct gc_hconf *best = NULL;
    double lam = INFINITY, Lam = 0;
    char name[48];

    for (int i = 0; i < h->ncfg; i++) {
        const struct gc_hconf *c = &h->cfg[i];
        const struct gc_copyk_cfg *cf = c->user;

        if (c->state != GC_H_REFINED || cf->fig6 || cf->elem != elem_sizes[e])
            continue;
        double cpmr = gc__copyk_cpmr(cf, c->m.seconds.median, c->m.clock_mhz, warp);
        if (gc__series_add(&r->series[s0 + 2 * e + 1], c->x, cpmr, NULL, NULL))
            return GC_ENOMEM;
        if (isfinite(cpmr)) {
            lam = cpmr < lam ? cpmr : lam;
            Lam = cpmr > Lam ? cpmr : Lam;
        }
        if (!best || c->value > best->value)
            best = c;
    }
    if (best && best->value > 0) {
        snprintf(name, sizeof(name), "bandwidth_%dB", elem_sizes[e]);
        gc__bench_add_metric(r, name, best->value, "B/s", copyk_limit(info), &best->stats,
                             "best over the occupancy sweep; bytes read");
    }
    if (Lam > 0) {
        snprintf(name, sizeof(name), "issue_latency_%dB", elem_sizes[e]);
        gc__bench_add_metric(r, name, lam, "cycles", NAN, NULL,
                             "lambda (Lemeire eq. 4): min CPMR per warp over the occupancy "
                             "sweep");
        snprintf(name, sizeof(name), "completion_latency_%dB", elem_sizes[e]);
        gc__bench_add_metric(r, name, Lam, "cycles", NAN, NULL,
                             "Lambda (Lemeire eq. 5): max CPMR per warp over the occupancy "
                             "sweep");
    }
    return 0;
}

/* Fig. 6: the best of each loop bound over reads per work-item. */
static void derive_fig6(const struct gc_harness *h)
{
    const struct gc_hconf *b[3] = {NULL, NULL, NULL};

    for (int i = 0; i < h->ncfg; i++) {
        const struct gc_hconf *c = &h->cfg[i];
        const struct gc_copyk_cfg *cf = c->user;

        if (c->state == GC_H_REFINED && cf->fig6 && c->value > 0 &&
            (!b[cf->fig6] || c->value > b[cf->fig6]->value))
            b[cf->fig6] = c;
    }
    if (!b[1] || !b[2])
        return;
    double lim = copyk_limit(&h->s->dev->info);
    gc__bench_add_metric(h->r, "constant_loop_bandwidth", b[1]->value, "B/s", lim, &b[1]->stats,
                         "best over reads per work-item; literal, unrolled loop bound");
    gc__bench_add_metric(h->r, "dynamic_loop_bandwidth", b[2]->value, "B/s", lim, &b[2]->stats,
                         "best over reads per work-item; loop bound a kernel argument");
    gc__bench_add_metric(h->r, "dynamic_loop_ratio", b[2]->value / b[1]->value, "", NAN, NULL,
                         "dynamic / constant loop bandwidth (Lemeire Fig. 6)");
}

int gc__copyk_derive(struct gc_session *s, const struct gc_harness *h, const char *bench)
{
    const struct gc_copyk_run *cr = h->d->user;
    int rc = 0;

    (void)s;
    (void)bench;
    for (int e = 0; e < CK_NELEM && rc == 0; e++)
        rc = derive_sweep(h, cr->s0, e);
    if (rc == 0)
        derive_fig6(h);
    if (h->best >= 0) {
        h->r->context = h->cfg[h->best].m.ctx;
        snprintf(h->r->stop_rule, sizeof(h->r->stop_rule), "%s", h->cfg[h->best].m.stop_rule);
    }
    return rc;
}

void gc__copyk_free(struct gc_session *s, struct gc_harness *h)
{
    struct gc_copyk_run *cr = h->d ? h->d->user : NULL;

    gc__harness_free(h);
    if (!cr)
        return;
    free(cr->host);
    gc__dev_free(s->dev, cr->src);
    gc__dev_free(s->dev, cr->dst);
    free(cr->cfg);
    free(cr);
}

static int run_copyk(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    static const struct gc_hbench hb = {gc__copyk_plan, gc__copyk_derive, gc__copyk_free};

    return gc__harness_bench(s, r, self->info.name, &hb);
}

#define COPYK_ROW(label, size)                                                                     \
    GC_SUM_V(gc__sum_copy_kernel, label, 0, "bandwidth_" size, "B/s"),                             \
        GC_SUM_V(gc__sum_copy_kernel, label, 1, "issue_latency_" size, "cycles"),                  \
        GC_SUM_V(gc__sum_copy_kernel, label, 2, "completion_latency_" size, "cycles")
static const struct gc_sum_cell copyk_cells[] = {
    COPYK_ROW("1 B", "1B"), COPYK_ROW("2 B", "2B"),   COPYK_ROW("4 B", "4B"),
    COPYK_ROW("8 B", "8B"), COPYK_ROW("16 B", "16B"), {0},
};
static const struct gc_fig_rule copyk_figures[] = {
    {"bandwidth_*B", "copy kernel: bandwidth vs occupancy per element size", 0, NULL, false, false,
     false},
    {"cpmr_*", "copy kernel: cycles per memory request per warp", 0, NULL, false, false, false},
    {"bandwidth_*_loop", "copy kernel: loop bound as a constant vs a kernel argument", 0, NULL,
     false, false, false},
    {0},
};
static const struct gc_bench_report copyk_report = {copyk_cells, copyk_figures};

const struct gc_bench gc__bench_copykernel = {
    .info =
        {
            .name = "memory.copy_kernel",
            .group = "memory",
            .summary = "Lemeire copy kernel: bandwidth and cycles per memory request vs warps "
                       "per CU for 1-16 byte elements (lambda, Lambda); constant vs dynamic loop "
                       "bound (Fig. 6)",
            .method =
                "Lemeire et al. SVI-A: work-item id reads elements id, id + global size, ... "
                "(64 reads of 1, 2, 4, 8 or 16 bytes, a literal and unrolled bound), sums them "
                "and stores the sum only when flag x sum != 0 (flag = 0 in timed launches; 1 in "
                "a verification launch into a poisoned output, every sum checked against the "
                "host). Occupancy sweep: w warps per CU from 1 to the maximum, one block of w "
                "warps per CU for w <= 32 and two of w/2 beyond, enforced with dynamic shared "
                "memory and checked with the occupancy calculator (Lemeire eq. 2); the grid is "
                "runs x CUs x blocks per CU with enough runs that a launch reads ~8x the "
                "last-level cache (>= 512 MiB). Bandwidth = bytes read / time per launch. CPMR "
                "per warp (eq. 3 with the timeOfRun correction): timeOfRun = runtime / runsCU, "
                "cyclesOfRun at the observed clock, instrRun = reads x block x blocks per CU, "
                "CPMR = cyclesOfRun / instrRun x warp size; issue latency lambda = min and "
                "completion latency Lambda = max over the sweep (eqs. 4-5). Fig. 6: 4-byte "
                "elements at full occupancy, 1..64 reads per work-item, with the bound a literal "
                "(unrolled) and a kernel argument; both verified.",
        },
    .needs_caps = 0,
    .run = run_copyk,
    .plan = plan_copyk,
    .report = &copyk_report,
};
