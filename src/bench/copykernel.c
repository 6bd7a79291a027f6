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
#include "bench/copykernel.h"
#include "core/cpulimits.h"
#include "core/devfill.h"
#include "core/occupancy.h"
#include "core/stats.h"
#include "kgen/gen_stream.h"
#include "core/kcache.h"
#include "util/random.h"

#define CK_READS 64 /* reads per work-item of the occupancy sweep */
/* One block in CK_TS_STRIDE records timestamps: grids reach 10^5 blocks. */
#define CK_TS_STRIDE 16

static const int elem_sizes[] = {1, 2, 4, 8, 16};
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

static uint32_t host_sum(const unsigned char *src, int elem, size_t id, size_t stride, int reads)
{
    uint32_t s = 0;

    for (int i = 0; i < reads; i++) {
        const unsigned char *p = src + (id + (size_t)i * stride) * (size_t)elem;
        if (elem == 1)
            s += p[0];
        else if (elem == 2) {
            uint16_t x;
            memcpy(&x, p, 2);
            s += x;
        } else
            for (int w = 0; w < elem / 4; w++) {
                uint32_t x;
                memcpy(&x, p + 4 * w, 4);
                s += x;
            }
    }
    return s;
}

/* Byte o of a buffer of gc__hash32(seed, .) words (little-endian). */
static unsigned hash_byte(uint64_t seed, size_t o)
{
    return (gc__hash32(seed, o / 4) >> (8 * (o % 4))) & 0xFFu;
}

/* host_sum over a source filled with gc__hash32(seed, .) words, without a
 * copy of it: for the spot checks after a device check. */
static uint32_t hash_sum(uint64_t seed, int elem, size_t id, size_t stride, int reads)
{
    uint32_t s = 0;

    for (int i = 0; i < reads; i++) {
        size_t o = (id + (size_t)i * stride) * (size_t)elem;

        if (elem == 1)
            s += hash_byte(seed, o);
        else if (elem == 2)
            s += hash_byte(seed, o) | hash_byte(seed, o + 1) << 8;
        else
            for (int w = 0; w < elem / 4; w++)
                s += gc__hash32(seed, o / 4 + (size_t)w);
    }
    return s;
}

/* What a work-item whose sum is 0 leaves in the output (it stores nothing). */
#define CK_POISON 0xDEADBEEFu

struct ck_point {
    double bw, cpmr;
    struct gc_stats st;
};

/* Work-items compared per piece on the host path. */
#define CK_VERIFY_CHUNK ((size_t)4 << 20)

/* Inputs of one verification. */
struct ck_verify {
    struct gc_session *s;
    uint64_t seed;             /* the source holds gc__hash32(seed, .) words */
    const unsigned char *host; /* a host copy of the source (host path); NULL none yet */
    size_t src_bytes;
    struct gc_buf *src, *dst;
    unsigned char **host_out; /* where the host path keeps the copy it makes */
};

/* The host path: every work-item's sum against a host copy of the source. */
static int verify_host(struct ck_verify *v, int elem, int reads, size_t threads,
                       struct gc_bench_result *r, const char *what)
{
    struct gc_device *d = v->s->dev;
    size_t n = threads < CK_VERIFY_CHUNK ? threads : CK_VERIFY_CHUNK;
    uint32_t *got = malloc(n * 4);
    int rc = 0;

    if (!got)
        return GC_ENOMEM;
    if (!v->host) {
        unsigned char *h = malloc(v->src_bytes);

        if (!h) {
            free(got);
            return GC_ENOMEM;
        }
        gc__hash_fill((uint32_t *)(void *)h, 0, v->src_bytes / 4, v->seed);
        *v->host_out = h;
        v->host = h;
    }
    for (size_t base = 0; base < threads && rc == 0; base += n) {
        size_t len = threads - base < n ? threads - base : n;

        if ((rc = gc__dev_read(d, v->dst, base * 4, got, len * 4)))
            break;
        for (size_t i = 0; i < len; i++) {
            uint32_t e = host_sum(v->host, elem, base + i, threads, reads);
            uint32_t want = e ? e : CK_POISON;

            if (got[i] != want) {
                gc__bench_set_error(r, GC_BENCH_ERROR,
                                    "verification failed (%s): work-item %zu stored 0x%08x, "
                                    "expected 0x%08x",
                                    what, base + i, got[i], want);
                rc = GC_EVERIFY;
                break;
            }
        }
    }
    free(got);
    return rc;
}

/* Runs the launch once with flag 1 into a poisoned output and checks every
 * work-item's sum: on the device against a reference kernel that computes
 * it from bytes (kgen/gen_fill.h gc_copyk_ref), then eight work-items on the
 * host from the generator alone (so that a reference that went wrong the
 * same way still fails); where the device cannot check, every work-item on
 * the host. */
static int verify_sums(struct ck_verify *v, struct gc_kern *k, struct gc_launch *l,
                       struct gc_arg *args, int elem, int reads, size_t threads,
                       struct gc_bench_result *r, const char *what)
{
    struct gc_session *s = v->s;
    struct gc_device *d = s->dev;
    struct gc_buf *ref = NULL;
    char msg[200];
    double el;
    int rc;

    if ((rc = gc__devfill_word(s, v->dst, threads * 4, CK_POISON)))
        return rc;
    args[2].v.u32 = 1;
    l->count = 1;
    rc = gc__dev_launch(d, k, l, &el);
    args[2].v.u32 = 0;
    if (rc)
        return rc;
    rc = gc__pool_output(s, "copyk_ref", threads * 4, &ref);
    if (rc == 0)
        rc = gc__devcheck_copyk_ref(s, v->src, ref, (unsigned)elem, (unsigned)reads, threads,
                                    threads, CK_POISON);
    if (rc == 0) {
        struct gc_check c = {.kind = GC_CHECK_EQ, .want = ref, .got = v->dst, .words = threads};

        rc = gc__devcheck(s, &c, msg, sizeof(msg));
    }
    if (rc == GC_EVERIFY) /* name the first wrong work-item */
        return verify_host(v, elem, reads, threads, r, what) == GC_EVERIFY ? GC_EVERIFY : rc;
    if (rc == GC_ENOTSUP || rc == GC_EDEVMEM || rc == GC_ENOMEM) {
        d->err[0] = '\0';
        return verify_host(v, elem, reads, threads, r, what);
    }
    if (rc)
        return rc;
    for (int i = 0; i < 8; i++) {
        size_t id = (size_t)(gc__hash32(v->seed ^ 0x5EEDULL, (uint64_t)i) % threads);
        uint32_t got, e = hash_sum(v->seed, elem, id, threads, reads);
        uint32_t want = e ? e : CK_POISON;

        if ((rc = gc__dev_read(d, v->dst, id * 4, &got, 4)))
            return rc;
        if (got != want) {
            gc__bench_set_error(r, GC_BENCH_ERROR,
                                "verification failed (%s): work-item %zu stored 0x%08x, expected "
                                "0x%08x (the device check passed: its reference is wrong too)",
                                what, id, got, want);
            return GC_EVERIFY;
        }
    }
    return 0;
}

/* One launch shape: measured with flag 0, then verified with flag 1 into a
 * poisoned output. */
static int measure_one(struct gc_session *s, struct gc_kern *k, int elem, int reads, int block,
                       int bps, unsigned runs, bool occ, struct ck_verify *v, unsigned flags,
                       struct ck_point *pt, struct gc_bench_result *r, const char *what)
{
    struct gc_buf *src = v->src, *dst = v->dst;
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    struct gc_occupancy oc = {0};
    int cus = info->compute_units > 0 ? info->compute_units : 1, rc;
    unsigned grid = runs * (unsigned)(bps * cus);
    size_t threads = (size_t)grid * (size_t)block;
    struct gc_buf *tsb = NULL;
    struct gc_measurement m = {0};

    if (occ && (rc = gc__occupancy_set(d, k, block, bps, &oc))) {
        /* More warps than the kernel's registers allow: the caller skips
         * the point (GC_ERANGE) instead of failing the benchmark. */
        if (rc != GC_ERANGE)
            gc__bench_set_error(r, GC_BENCH_ERROR, "%s: %s", what, d->err);
        return rc;
    }
    struct gc_arg args[5] = {
        {.type = GC_ARG_BUF, .v.buf = src},
        {.type = GC_ARG_BUF, .v.buf = dst},
        {.type = GC_ARG_U32, .v.u32 = 0},
        {.type = GC_ARG_U32, .v.u32 = (uint32_t)reads},
    };
    struct gc_launch l = {{grid, 1, 1}, {(unsigned)block, 1, 1}, oc.dyn_shared, args, 4, 1};
    unsigned nrec = (grid + CK_TS_STRIDE - 1) / CK_TS_STRIDE;
    struct gc_timestamps ts = {NULL, nrec};
    if (flags & GC_KGEN_TIMESTAMPS) {
        if ((rc = gc__dev_alloc(d, (size_t)nrec * GC_TS_WORDS * 8, &tsb)))
            goto out;
        ts.buf = tsb;
        args[4] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = tsb};
        l.nargs = 5;
    }
    rc = gc__measure(s, k, &l, tsb ? &ts : NULL, NULL, 0, &m);
    if (rc && !(rc == GC_EINTR && m.samples > 0))
        goto out;
    /* Verification: the output is poisoned, the work-items whose sum is 0
     * leave the poison in place. */
    rc = verify_sums(v, k, &l, args, elem, reads, threads, r, what);
    if (rc)
        goto out;
    /* Lemeire eqs. 3-5 with timeOfRun = runtime / runsCU: one run holds
     * bps blocks of `block` work-items per CU, each issuing `reads` loads. */
    gc__stats_inverse(m.per_sample_s, m.samples, (double)threads * reads * elem, &pt->st);
    pt->bw = pt->st.median;
    double clk = isfinite(m.clock_mhz) ? m.clock_mhz * 1e6 : NAN;
    double cycles_run = m.seconds.median / runs * clk;
    double instr_run = (double)reads * block * bps;
    int warp = info->simd_width > 0 ? info->simd_width : 32;
    pt->cpmr = cycles_run / instr_run * (block < warp ? block : warp);
    r->context = m.ctx;
    snprintf(r->stop_rule, sizeof(r->stop_rule), "%s", m.stop_rule);
out:
    gc__measurement_free(&m);
    gc__dev_free(d, tsb);
    return rc;
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

static int run_copyk(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    enum gc_dialect dia = d->ops->dialect;
    bool gpu = info->type == GC_DEVICE_GPU, quick = s->profile == GC_PROFILE_QUICK;
    unsigned flags = (info->caps & GC_CAP_CLOCK64) && (info->caps & GC_CAP_GLOBALTIMER) &&
                             (info->caps & GC_CAP_SMID)
                         ? GC_KGEN_TIMESTAMPS
                         : 0;
    bool occ =
        (info->caps & GC_CAP_DYN_SHARED) && info->shared_per_cu > 0 && info->max_threads_per_cu > 0;
    int warp = info->simd_width > 0 ? info->simd_width : 32;
    int maxw = info->max_threads_per_cu > 0 ? info->max_threads_per_cu / warp : 2;
    int cus = info->compute_units > 0 ? info->compute_units : 1;
    const int *f6 = quick ? fig6_quick : fig6_reads;
    int nf6 = quick ? 2 : 7, nelem = 5, rc = 0;
    struct gc_copyk_sizing z;
    int warps[16], nw = 0;
    struct gc_kreq reqs[16];
    char labels[16][40];
    int nk = 0;
    struct gc_buf *src = NULL, *dst = NULL;
    unsigned char *host = NULL;
    uint64_t seed = s->seed ^ 0xC0C0ULL;
    (void)self;

    memset(reqs, 0, sizeof(reqs));
    /* Warps per CU: 1, 2, 4, ... and the maximum; w <= 32 is one block of w
     * warps per CU, more is two blocks of w / 2 warps. */
    for (int w = 1; w <= maxw && nw < 14; w *= 2)
        warps[nw++] = w;
    if (!quick && maxw >= 24)
        warps[nw++] = 24;
    if (!quick && maxw >= 48)
        warps[nw++] = 48;
    if (warps[nw - 1] != maxw)
        warps[nw++] = maxw;
    if (!gpu && nw > 2)
        nw = 2;
    for (int i = 0; i < nelem; i++, nk++) {
        snprintf(labels[nk], sizeof(labels[nk]), "copyk_e%d_n%d", elem_sizes[i], CK_READS);
        reqs[nk].src = gen_copyk(dia, flags, elem_sizes[i], CK_READS, occ);
    }
    for (int i = 0; i < nf6; i++, nk++) {
        snprintf(labels[nk], sizeof(labels[nk]), "copyk_e4_n%d", f6[i]);
        reqs[nk].src =
            f6[i] == CK_READS ? strdup(reqs[2].src) : gen_copyk(dia, flags, 4, f6[i], occ);
    }
    snprintf(labels[nk], sizeof(labels[nk]), "copyk_e4_dynamic");
    reqs[nk++].src = gen_copyk(dia, flags, 4, 0, occ);
    for (int i = 0; i < nk; i++) {
        reqs[i].label = labels[i];
        if (!reqs[i].src) {
            rc = GC_ENOMEM;
            goto out;
        }
    }
    rc = gc__kcache_build(s, reqs, nk);
    if (rc)
        goto out;

    /* One source and one output buffer for every shape. */
    gc__copyk_sizing(info, s->profile, &z);
    size_t src_bytes = z.src_bytes;
    if ((rc = gc__dev_alloc(d, src_bytes, &src)) || (rc = gc__dev_alloc(d, z.dst_bytes, &dst)))
        goto out;
    /* Counter-based random words, filled on the device: the host computes
     * any of them without a copy of the source (verify_sums). */
    if ((rc = gc__devfill_hash(s, src, src_bytes, seed)))
        goto out;
    struct ck_verify ver = {s, seed, NULL, src_bytes, src, dst, &host};

    for (int e = 0; e < nelem && !gc__stopped(s); e++) {
        char name[48], what[128];
        struct gc_series *sb, *sc;
        double lam = INFINITY, Lam = 0, best = 0;
        struct gc_stats best_st = {0};
        int si = r->nseries;

        snprintf(name, sizeof(name), "bandwidth_%dB", elem_sizes[e]);
        sb = gc__bench_add_series(r, name, "warps per CU", "warps", "bandwidth", "B/s");
        snprintf(name, sizeof(name), "cpmr_%dB", elem_sizes[e]);
        sc = gc__bench_add_series(r, name, "warps per CU", "warps", "CPMR per warp", "cycles");
        if (!sb || !sc) {
            rc = GC_ENOMEM;
            goto out;
        }
        for (int i = 0; i < nw && !gc__stopped(s); i++) {
            struct gc_kern *k = NULL;
            struct ck_point pt;
            int w = warps[i], bps = w > 32 ? 2 : 1, block = w / bps * warp;
            unsigned runs = gc__copyk_runs(&z, elem_sizes[e], CK_READS, block, bps, cus);

            if (!runs) {
                gc__bench_set_error(r, GC_BENCH_ERROR, "no launch of %d-byte elements fits",
                                    elem_sizes[e]);
                rc = GC_ERANGE;
                goto out;
            }
            if ((rc = d->ops->kernel(reqs[e].prog, "gc_copyk", &k))) {
                snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
                goto out;
            }
            snprintf(what, sizeof(what), "%d-byte elements, %d warps per CU (%d block(s) of %d)",
                     elem_sizes[e], w, bps, block);
            rc = measure_one(s, k, elem_sizes[e], CK_READS, block, bps, runs, occ, &ver, flags, &pt,
                             r, what);
            if (rc == GC_ERANGE) {
                rc = 0;
                d->err[0] = '\0';
                continue;
            }
            if (rc)
                goto out;
            gc__series_add(&r->series[si], w, pt.bw, &pt.st, NULL);
            gc__series_add(&r->series[si + 1], w, pt.cpmr, NULL, NULL);
            if (isfinite(pt.cpmr)) {
                lam = pt.cpmr < lam ? pt.cpmr : lam;
                Lam = pt.cpmr > Lam ? pt.cpmr : Lam;
            }
            if (pt.bw > best) {
                best = pt.bw;
                best_st = pt.st;
            }
        }
        if (best > 0) {
            snprintf(name, sizeof(name), "bandwidth_%dB", elem_sizes[e]);
            gc__bench_add_metric(r, name, best, "B/s", copyk_limit(info), &best_st,
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
    }

    /* Fig. 6: reads per work-item with a literal bound and with the bound
     * as a kernel argument, 4-byte elements, full occupancy. */
    {
        int w = maxw, bps = w > 32 ? 2 : 1, block = w / bps * warp;
        double bc = 0, bd = 0;
        struct gc_stats sc_st = {0}, sd_st = {0};
        int si = r->nseries;

        if (!gc__bench_add_series(r, "bandwidth_constant_loop", "reads per work-item", "",
                                  "bandwidth", "B/s") ||
            !gc__bench_add_series(r, "bandwidth_dynamic_loop", "reads per work-item", "",
                                  "bandwidth", "B/s")) {
            rc = GC_ENOMEM;
            goto out;
        }
        for (int i = 0; i < nf6 && !gc__stopped(s); i++)
            for (int v = 0; v < 2; v++) {
                struct gc_kern *k = NULL;
                struct ck_point pt;
                char what[128];
                unsigned runs = gc__copyk_runs(&z, 4, f6[i], block, bps, cus);

                if (!runs) {
                    gc__bench_set_error(r, GC_BENCH_ERROR, "no launch of %d reads fits", f6[i]);
                    rc = GC_ERANGE;
                    goto out;
                }
                if ((rc = d->ops->kernel(reqs[v ? nk - 1 : nelem + i].prog, "gc_copyk", &k))) {
                    snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
                    goto out;
                }
                snprintf(what, sizeof(what), "%s loop bound, %d reads per work-item",
                         v ? "kernel-argument" : "constant", f6[i]);
                rc = measure_one(s, k, 4, f6[i], block, bps, runs, occ, &ver, flags, &pt, r, what);
                if (rc)
                    goto out;
                gc__series_add(&r->series[si + v], f6[i], pt.bw, &pt.st, NULL);
                if (!v && pt.bw > bc) {
                    bc = pt.bw;
                    sc_st = pt.st;
                }
                if (v && pt.bw > bd) {
                    bd = pt.bw;
                    sd_st = pt.st;
                }
            }
        if (bc > 0 && bd > 0) {
            double lim = copyk_limit(info);
            gc__bench_add_metric(r, "constant_loop_bandwidth", bc, "B/s", lim, &sc_st,
                                 "best over reads per work-item; literal, unrolled loop bound");
            gc__bench_add_metric(r, "dynamic_loop_bandwidth", bd, "B/s", lim, &sd_st,
                                 "best over reads per work-item; loop bound a kernel argument");
            gc__bench_add_metric(r, "dynamic_loop_ratio", bd / bc, "", NAN, NULL,
                                 "dynamic / constant loop bandwidth (Lemeire Fig. 6)");
        }
    }
    if (gc__stopped(s))
        rc = GC_EINTR;
out:
    free(host);
    gc__dev_free(d, src);
    gc__dev_free(d, dst);
    gc__kreq_release(s, reqs, nk);
    return rc;
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
    .report = &copyk_report,
};
