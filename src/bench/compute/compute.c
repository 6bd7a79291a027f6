/* compute.<itype>: one benchmark per instruction-catalogue entry (itypes.c).
 * Peak throughput over ILP 1/2/4/8 (and OpenCL vector widths) at full
 * occupancy (Lemeire §III and §V-C, MIPP §IV-A, uCLbench §2.1/§3.1, Volkov
 * §6.1); the occupancy roofline and the pipeline model's lambda and Lambda
 * from a warp-by-warp occupancy sweep timed by per-warp clocks (Lemeire
 * §III-V, Volkov §5.5-5.7 and §6.3), or from whole-kernel times where the
 * device has no in-kernel clock (the engine's kernel-timed sweep,
 * core/ktsweep.c); the single-thread sequential latency (uCLbench). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/compute/compute.h"
#include "core/benchcfg.h"
#include "core/cpulimits.h"
#include "core/harness.h"
#include "core/meterlaunch.h"
#include "core/minifloat.h"
#include "util/random.h"
#include "core/stats.h"
#include "core/sweep.h"
#include "core/kcache.h"
#include "core/ktsweep.h"
#include "kgen/kgen.h"
#include "model/pipeline.h"

static int cfg_steps(const struct compute_cfg *c)
{
    return c->per_rnd * c->unroll * c->trips;
}

static const char *scalar_type(enum gc_vtype vt, enum gc_dialect d)
{
    switch (vt) {
    case GC_VT_F32:
        return "float";
    case GC_VT_F64:
        return "double";
    case GC_VT_U64:
        return "GC_U64";
    default:
        return "GC_U32";
    }
    (void)d;
}

static const char *ocl_vec_base(enum gc_vtype vt)
{
    switch (vt) {
    case GC_VT_F32:
        return "float";
    case GC_VT_F64:
        return "double";
    case GC_VT_U64:
        return "ulong";
    default:
        return "uint";
    }
}

/* Steps per thread: scaled by the op's cost so that every launch lasts about
 * as long as the fp32 one; a power of two. CPU devices get 1/64 of it. */
static int steps_for(const struct gc_itype *t, const struct gc_device_info *info,
                     const struct gc_arch *a)
{
    double spec = gc__itype_spec(t, a);
    double steps = BASE_STEPS / (double)t->work;
    int p = 1;

    if (isfinite(spec))
        steps = BASE_STEPS * fmin(1.0, spec / 128.0) / t->counted;
    if (info->type != GC_DEVICE_GPU)
        steps /= 64;
    while (p * 2 <= steps)
        p *= 2;
    return p < 256 ? 256 : p;
}

static void cfg_init(struct compute_cfg *c, const struct gc_itype *t,
                     const struct gc_device_info *info, const struct gc_arch *a, int ilp, int vw)
{
    /* CPU devices compile the OpenCL C with LLVM at run time: a short body
     * keeps compilation in seconds (their launches are long anyway). */
    int body = (info->type == GC_DEVICE_GPU ? BODY_STEPS : 64) / t->work;

    c->ilp = ilp;
    c->vw = vw;
    c->nch = t->coupled && ilp == 1 ? 2 : ilp;
    c->per_rnd = c->nch;
    if (body < 2 * c->per_rnd)
        body = 2 * c->per_rnd;
    c->unroll = body / c->per_rnd;
    c->trips = steps_for(t, info, a) / (c->per_rnd * c->unroll);
    if (c->trips < 1)
        c->trips = 1;
}

/* Per-warp timestamp records (GC_KGEN_WARP_TIMESTAMPS): the cycle counter,
 * the ns timer and the SM id in the kernel. */
static bool warp_records(const struct gc_device_info *info)
{
    unsigned need = GC_CAP_CLOCK64 | GC_CAP_SMID | GC_CAP_GLOBALTIMER;

    /* The per-warp sweep runs up to the resident warps per CU, which an
     * OpenCL device does not report (NVIDIA's has the clocks through inline
     * PTX): without it the sweep would have no point, and the kernel-time
     * sweep stands in. */
    return (info->caps & need) == need && info->max_threads_per_cu > 0;
}

/* The spelling of the entry's step that the device takes (gc__kgen_form):
 * its OpenCL C form, or on an OpenCL device that takes inline PTX the CUDA
 * form's PTX (scalar chains only). */
static struct gc_kform op_form(const struct gc_itype *t, const struct gc_device *d)
{
    return gc__kgen_form(d->ops->dialect, d->info.caps, t->cuda, t->opencl, t->opencl_caps);
}

/* Whether the device's kernels of the entry take OpenCL C vector types
 * (widths 2-16): an OpenCL C spelling that works on them, not inline PTX. */
static bool op_vectors(const struct gc_itype *t, const struct gc_device *d)
{
    return gc__kgen_vector_arith(d->ops->dialect) && t->opencl_vector && !op_form(t, d).ptx;
}

/* The kernel of configuration c with the step spelt f (op_form). */
static char *gen(const struct gc_itype *t, enum gc_dialect d, struct gc_kform f, unsigned flags,
                 const struct compute_cfg *c)
{
    struct gc_sbuf b;
    const char *st = scalar_type(t->vt, d);
    char vty[32];

    if (c->vw > 1)
        snprintf(vty, sizeof(vty), "%s%d", ocl_vec_base(t->vt), c->vw);
    else
        snprintf(vty, sizeof(vty), "%s", st);
    gc__sbuf_init(&b);
    /* The half type only for the OpenCL C spelling: the PTX one carries
     * the packed pair as a 32-bit word. */
    gc__kgen_extensions(&b, d, t->vt == GC_VT_F64, t->vt == GC_VT_H2 && !f.ptx);
    gc__kgen_prelude(&b, d, flags);
    gc__sbuf_printf(&b, "#define GC_OP(x, y) %s\n", f.text ? f.text : "");
    gc__sbuf_printf(&b,
                    "GC_KERNEL void gc_op(GC_GLOBAL const %s *in, GC_GLOBAL %s *out, %s a_arg, "
                    "%s b_arg GC_TS_PARAM)\n{\n",
                    st, st, st, st);
    gc__sbuf_puts(&b, "    GC_TS_BEGIN\n    GC_U32 gid = GC_GID;\n");
    /* gid >> 31 is 0 in every launch (fewer than 2^31 threads), which no
     * compiler can prove: a is then a per-thread value (compute.h). */
    gc__sbuf_printf(&b, "    const %s a = (%s)(a_arg)%s;\n    const %s b = (%s)(b_arg);\n", vty,
                    vty, t->thread_operand ? " + (gid >> 31)" : "", vty, vty);
    gc__sbuf_puts(&b, "    (void)a;\n    (void)b;\n");
    for (int j = 0; j < c->nch; j++) {
        if (c->vw > 1)
            gc__sbuf_printf(&b, "    %s x%d = vload%d(gid * %du + %du, in);\n", vty, j, c->vw,
                            c->nch, j);
        else
            gc__sbuf_printf(&b, "    %s x%d = in[gid * %du + %du];\n", vty, j, c->nch, j);
    }
    if (t->coupled && c->nch > 2)
        gc__sbuf_printf(&b, "    %s t;\n", vty);
    gc__sbuf_puts(&b, gc__kgen_no_unroll(d));
    gc__sbuf_printf(&b, "    for (int i = 0; i < %d; i++) {\n", c->trips);
    for (int u = 0; u < c->unroll; u++) {
        if (!t->coupled) {
            for (int j = 0; j < c->nch; j++)
                gc__sbuf_printf(&b, "        GC_OP(x%d, a)\n", j);
        } else if (c->nch == 2) {
            gc__sbuf_puts(&b, "        GC_OP(x0, x1)\n        GC_OP(x1, x0)\n");
        } else {
            gc__sbuf_puts(&b, "        t = x0;\n");
            for (int j = 0; j + 1 < c->nch; j++)
                gc__sbuf_printf(&b, "        GC_OP(x%d, x%d)\n", j, j + 1);
            gc__sbuf_printf(&b, "        GC_OP(x%d, t)\n", c->nch - 1);
        }
    }
    gc__sbuf_puts(&b, "    }\n");
    for (int j = 0; j < c->nch; j++) {
        if (c->vw > 1)
            gc__sbuf_printf(&b, "    vstore%d(x%d, gid * %du + %du, out);\n", c->vw, j, c->nch, j);
        else
            gc__sbuf_printf(&b, "    out[gid * %du + %du] = x%d;\n", c->nch, j, j);
    }
    gc__sbuf_puts(&b, "    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

/* Results (counted operations x lanes) one launch performs. */
static double launch_results(const struct gc_itype *t, const struct compute_cfg *c, size_t nthreads)
{
    return (double)nthreads * cfg_steps(c) * c->vw * t->lanes * t->counted;
}

static int plan(const struct gc_itype *t, const struct gc_session *s, struct compute_cfg *cfgs)
{
    const struct gc_device_info *info = &s->dev->info;
    bool vec = op_vectors(t, s->dev);
    bool quick = s->profile == GC_PROFILE_QUICK;
    int n = 0;
    static const int ilps[] = {1, 2, 4, 8};

    for (int i = 0; i < 4; i++) {
        if (quick && ilps[i] == 2)
            continue;
        cfg_init(&cfgs[n++], t, info, &s->dev->arch, ilps[i], 1);
    }
    if (vec) {
        static const int widths[] = {2, 4, 8, 16};
        for (int i = 0; i < 4; i++) {
            if (quick && (widths[i] == 2 || widths[i] == 8))
                continue;
            cfg_init(&cfgs[n++], t, info, &s->dev->arch, 4, widths[i]);
        }
    }
    return n;
}

static const char *unit_of(const struct gc_itype *t)
{
    return t->flops ? "results/s" : "ops/s";
}

/* Blocks of `block` threads that can be resident per CU with kernel k. */
static int resident_blocks(struct gc_device *d, struct gc_kern *k, int block)
{
    const struct gc_device_info *info = &d->info;
    int per = info->max_threads_per_cu > 0 ? info->max_threads_per_cu / block : 4;
    int api = 0;

    if (info->max_blocks_per_cu > 0 && per > info->max_blocks_per_cu)
        per = info->max_blocks_per_cu;
    if ((info->caps & GC_CAP_OCCUPANCY_API) &&
        gc__dev_max_active_blocks(d, k, block, 0, &api) == 0 && api > 0 && api < per)
        per = api;
    return per < 1 ? 1 : per;
}

struct point {
    double warps, ops_clk, cpi;
};

/* One run of compute.<itype>: the configurations, their kernels and buffers,
 * the best peak so far, and the sweep's curves. */
struct itype_run {
    struct compute_ctx x;
    struct gc_device *d;
    const struct gc_device_info *info;
    bool warp_ts;
    struct compute_cfg cfgs[MAX_CFG];
    struct gc_kreq reqs[MAX_CFG];
    char labels[MAX_CFG][64];
    int ncfg, best_i, best_block, best_per_cu;
    double spec, best_rate, best_clk, clk_obs, best_results;
    struct gc_measurement best;
    char best_what[340];
    int peak_si[MAX_CFG];  /* series index of each peak config, -1 none */
    int peak_cfg[MAX_CFG]; /* harness configuration j -> config index */
    int peak_block[MAX_CFG], peak_per_cu[MAX_CFG];
    struct gc_sampling sampling; /* the benchmark's, with the CPU's sample floor */
    struct point curve[3][MAX_SWEEP];
    int ncurve[3];
};

static const int sweep_ilp[3] = {1, 2, 4};

/* Index of the (last) scalar configuration with ILP ilp; -1 if none. */
static int scalar_cfg(const struct itype_run *R, int ilp)
{
    int ci = -1;

    for (int i = 0; i < R->ncfg; i++)
        if (R->cfgs[i].ilp == ilp && R->cfgs[i].vw == 1)
            ci = i;
    return ci;
}

/* Timed launches per sweep point: the profile's count, or the user's
 * --repeat where one was given, never fewer than the two checked launches. */
static int sweep_reps(const struct itype_run *R, int profile_reps)
{
    const struct gc_sampling *p = &R->sampling;

    if (!p->samples_set)
        return profile_reps;
    return p->max_samples > 2 ? p->max_samples : 2;
}

/* The event-timed peak amortises launch boundaries over samples of at least
 * 10 ms: with 5 ms samples an H200's FFMA peak read 0.2% lower (66.12-66.38
 * against 66.38-66.39 TFLOP/s in three runs each). The sweeps are timed in
 * the kernel and do not depend on it. */
#define ITYPE_PEAK_SAMPLE_S 0.01
/* --quick takes the peak from 5 ms samples: 0.2-0.3% lower for half the
 * time (an H200's FFMA peak read 98.8-98.9% of the limit, 99.05-99.15%
 * with 10 ms). */
#define ITYPE_PEAK_SAMPLE_QUICK_S 0.005
#define SWEEP_FLAT 4 /* plateau points that end a sweep curve (see itype_sweep) */

/* Whether the device takes no spelling of the entry's step (op_form), and
 * why. */
static bool no_form(const struct gc_itype *t, const struct gc_device *d, char *why, size_t len)
{
    if (op_form(t, d).text)
        return false;
    if (t->opencl)
        snprintf(why, len, "%s's OpenCL C form needs %s, and the device takes no inline PTX",
                 t->name,
                 (t->opencl_caps & GC_CAP_FP16) ? "the half type (cl_khr_fp16)"
                                                : "a capability the device lacks");
    else
        snprintf(why, len, "%s has no OpenCL C form%s%s, and the device takes no inline PTX",
                 t->name, t->opencl_why ? ": " : "", t->opencl_why ? t->opencl_why : "");
    return true;
}

/* Records why the device cannot run the entry; false when it can. */
static bool itype_unavailable(const struct gc_itype *t, const struct gc_device *d,
                              struct gc_bench_result *r)
{
    char why[400];

    if (no_form(t, d, why, sizeof(why))) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE, "not available on this device: %s", why);
        return true;
    }
    if (gc__arch_older_than(&d->arch, t->min_cc)) {
        gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                            "not available on this device: %s needs compute capability %d.%d",
                            t->name, t->min_cc / 10, t->min_cc % 10);
        return true;
    }
    return false;
}

/* The configurations and their kernels, built through the cache. */
static int itype_build(struct itype_run *R)
{
    const struct gc_itype *t = R->x.t;

    R->ncfg = plan(t, R->x.s, R->cfgs);
    for (int i = 0; i < R->ncfg; i++) {
        snprintf(R->labels[i], sizeof(R->labels[i]), "%s_ilp%d_w%d", t->name, R->cfgs[i].ilp,
                 R->cfgs[i].vw);
        R->reqs[i].label = R->labels[i];
        R->reqs[i].src = gen(t, R->d->ops->dialect, op_form(t, R->d), R->x.flags, &R->cfgs[i]);
        if (!R->reqs[i].src)
            return GC_ENOMEM;
    }
    return gc__kcache_build(R->x.s, R->reqs, R->ncfg);
}

/* Buffers for the largest launch: full occupancy of the largest config. */
static int itype_buffers(struct itype_run *R)
{
    const struct gc_device_info *info = R->info;
    const struct gc_itype *t = R->x.t;
    struct compute_ctx *x = &R->x;
    size_t max_threads = 0, bytes;
    int maxw = info->max_threads_per_cu > 0 ? info->max_threads_per_cu : 1024, rc;

    for (int i = 0; i < R->ncfg; i++) {
        size_t th = (size_t)maxw * (size_t)(info->compute_units > 0 ? info->compute_units : 1);
        size_t el = th * (size_t)R->cfgs[i].nch * (size_t)R->cfgs[i].vw;
        /* The kernel-timed sweep's scalar configs (itype_ktime). */
        if (!R->warp_ts && info->type == GC_DEVICE_CPU && R->cfgs[i].vw == 1 &&
            R->cfgs[i].ilp <= 4 && el < (size_t)KTIME_CPU_THREADS * (size_t)R->cfgs[i].nch)
            el = (size_t)KTIME_CPU_THREADS * (size_t)R->cfgs[i].nch;
        if (th > max_threads)
            max_threads = th;
        if (el > x->in_elems)
            x->in_elems = el;
    }
    bytes = x->in_elems * gc__compute_vt_bytes(t->vt);
    x->hin = malloc(bytes);
    if (!x->hin)
        return GC_ENOMEM;
    gc__compute_make_inputs(t, x->hin, x->in_elems, x->s->seed ^ 0xC0FFEEULL ^ (uint64_t)t->work);
    if ((rc = gc__dev_alloc(R->d, bytes, &x->in)) || (rc = gc__dev_alloc(R->d, bytes, &x->out)))
        return rc;
    /* Without room for a second output the checks compare on the host. */
    if (gc__dev_alloc(R->d, bytes, &x->out2))
        x->out2 = NULL;
    if ((rc = gc__dev_write(R->d, x->in, 0, x->hin, bytes)))
        return rc;
    x->ts_warps = (max_threads + 31) / 32 + 64;
    if (!R->warp_ts)
        return 0;
    if ((rc = gc__dev_alloc(R->d, x->ts_warps * 5 * 8, &x->tsb)))
        return rc;
    /* Pinned once per run (about 0.8 ms per MiB: 0.3 ms for an H200's
     * 340 KB), where each of the sweep's launches copied the records through
     * pageable memory twice. */
    return gc__dev_hostbuf_alloc(R->d, x->ts_warps * 5 * 8, &x->ts_host);
}

/* One series per peak curve (scalar ILP, each vector width), by index (the
 * series array moves as series are added). With per-warp clocks, ILP 1 and 2
 * at full occupancy are the last points of their sweep curves and have no
 * peak point. */
static bool peak_config(const struct itype_run *R, int i)
{
    return !(R->warp_ts && R->cfgs[i].ilp < 4);
}

static int itype_peak_series(struct itype_run *R)
{
    for (int i = 0; i < R->ncfg; i++) {
        struct gc_bench_result *r = R->x.r;
        char name[64];

        R->peak_si[i] = -1;
        if (!peak_config(R, i))
            continue;
        snprintf(name, sizeof(name), R->cfgs[i].vw > 1 ? "peak_vec%d" : "peak_ilp", R->cfgs[i].vw);
        for (int j = 0; j < r->nseries && R->peak_si[i] < 0; j++)
            if (strcmp(r->series[j].name, name) == 0)
                R->peak_si[i] = j;
        if (R->peak_si[i] >= 0)
            continue;
        if (!gc__bench_add_series(r, name,
                                  R->cfgs[i].vw > 1 ? "ILP (vector width in name)"
                                                    : "independent chains (ILP)",
                                  "", "throughput", unit_of(R->x.t)))
            return GC_ENOMEM;
        R->peak_si[i] = r->nseries - 1;
    }
    return 0;
}

/* The launch of peak config i at the highest occupancy it allows, checked
 * against the host model before it is measured. */
static int peak_setup(struct gc_harness *h, struct gc_hconf *hc, struct gc_hlaunch *out)
{
    struct itype_run *R = h->d->user;
    const struct gc_device_info *info = R->info;
    const struct gc_itype *t = R->x.t;
    int i = (int)(hc - h->cfg), ci = R->peak_cfg[i];
    const struct compute_cfg *c = &R->cfgs[ci];
    struct gc_device *d = R->d;
    int block = 256 < info->max_threads_per_block ? 256 : info->max_threads_per_block;
    int per_cu = resident_blocks(d, hc->k, block), rc;
    struct gc_occupancy oc = {0};

    if ((info->caps & GC_CAP_DYN_SHARED) && info->shared_per_cu > 0 &&
        info->max_threads_per_cu > 0 && (rc = gc__occupancy_set(d, hc->k, block, per_cu, &oc)))
        return rc;
    unsigned grid = (unsigned)(per_cu * (info->compute_units > 0 ? info->compute_units : 1));
    size_t nthreads = (size_t)grid * (size_t)block;
    out->args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = R->x.in};
    out->args[1] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = R->x.out};
    gc__compute_fill_args(t, out->args);
    out->l =
        (struct gc_launch){{grid, 1, 1}, {(unsigned)block, 1, 1}, oc.dyn_shared, out->args, 4, 1};
    if (R->warp_ts) {
        out->args[4] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = R->x.tsb};
        out->l.nargs = 5;
        out->ts = (struct gc_timestamps){R->x.tsb, (unsigned)(nthreads / 32)};
    }
    out->work = launch_results(t, c, nthreads);
    snprintf(out->desc, sizeof(out->desc),
             "ILP %d, vector width %d, block %d, %d blocks/CU (%d warps/CU)", c->ilp, c->vw, block,
             per_cu, per_cu * block / (info->simd_width > 0 ? info->simd_width : 32));
    R->peak_block[ci] = block;
    R->peak_per_cu[ci] = per_cu;
    return gc__compute_verify(&R->x, hc->k, &out->l, c, nthreads, 8, -1, out->desc);
}

/* The peak search: every peak configuration screened briefly, the best
 * measured in full (ITYPE_PEAK_SAMPLE_S samples); the figures come from that
 * measurement, which becomes the run's best. */
static int itype_peaks(struct itype_run *R)
{
    /* Configurations within 0.5% of the best screen are each measured in
     * full (at most 2) and the better full measurement stands: FFMA's ILP 4
     * and 8 screen within 0.1%, and one full measurement alone once read
     * 98.8% of an H100's limit (CV 0.17%) where the pair reads 99.0%. */
    /* --quick on a GPU with per-warp clocks measures its two peak
     * configurations (ILP 4 and 8) in full without screens: two short full
     * measurements cost less than two screens and one or two of them. */
    bool all_full = R->x.s->profile == GC_PROFILE_QUICK && R->warp_ts;
    const struct gc_hdesc desc = {
        .refine_top = all_full ? MAX_CFG : 1,
        .refine_within = 0.005,
        .refine_max = 2,
        .setup = peak_setup,
        .user = R,
    };
    struct gc_harness h;
    int rc = 0;

    /* The peak's samples (GPUs; a CPU's whole run takes them, run_itype). */
    double peak_s =
        R->x.s->profile == GC_PROFILE_QUICK ? ITYPE_PEAK_SAMPLE_QUICK_S : ITYPE_PEAK_SAMPLE_S;
    gc__harness_init(&h, R->x.s, R->x.r, &desc);
    h.sampling = R->sampling;
    gc__sampling_time_floor(&h.sampling, peak_s);
    for (int i = 0; i < R->ncfg && rc == 0; i++) {
        struct gc_hconf *hc;

        if (!peak_config(R, i))
            continue;
        if (!(hc = gc__harness_add(&h))) {
            rc = GC_ENOMEM;
            break;
        }
        R->peak_cfg[h.ncfg - 1] = i;
        snprintf(hc->label, sizeof(hc->label), "%s", R->labels[i]);
        if ((rc = R->d->ops->kernel(R->reqs[i].prog, "gc_op", &hc->k)))
            snprintf(R->d->err, sizeof(R->d->err), "%s", R->d->ops->last_error(R->d->dev));
        hc->series = R->peak_si[i];
        hc->x = R->cfgs[i].ilp;
    }
    if (rc == 0)
        rc = gc__harness_run(&h);
    for (int j = 0; j < h.ncfg; j++) {
        const struct gc_hconf *hc = &h.cfg[j];
        R->x.rate[R->peak_cfg[j]] = hc->state == GC_H_REFINED    ? hc->value
                                    : hc->state == GC_H_SCREENED ? hc->screen_value
                                                                 : NAN;
    }
    if ((rc == 0 || rc == GC_EINTR) && h.best >= 0) {
        struct gc_hconf *hc = &h.cfg[h.best];
        int ci = R->peak_cfg[h.best];
        char note[120];

        R->best = hc->m;
        memset(&hc->m, 0, sizeof(hc->m));
        R->best_rate = hc->value;
        R->best_i = ci;
        R->best_clk = R->best.clock_mhz;
        R->best_results = hc->hl.work;
        R->best_block = R->peak_block[ci];
        R->best_per_cu = R->peak_per_cu[ci];
        gc__harness_note(&h, note, sizeof(note));
        snprintf(R->best_what, sizeof(R->best_what), "%s (%s)", hc->hl.desc, note);
        if (isfinite(R->best_clk))
            R->clk_obs = R->best_clk;
    }
    gc__harness_free(&h);
    return rc;
}

/* throughput, flops and per_clk_per_cu of the best configuration, against
 * the vendor's rate (GPUs) or the CPU's SIMD limit. */
static void itype_peak_metrics(struct itype_run *R)
{
    const struct gc_device_info *info = R->info;
    const struct gc_itype *t = R->x.t;
    struct gc_bench_result *r = R->x.r;
    int cus = info->compute_units > 0 ? info->compute_units : 1;
    double clk = R->best_clk * 1e6, spec = R->spec;
    double limit = spec * cus * clk;
    struct gc_stats st;
    char note[600];

    snprintf(note, sizeof(note),
             "best: %s; limit = %g results/clk/SM (CUDA Programming Guide) x %d SMs x "
             "%.0f MHz (%s clock)",
             R->best_what, spec, cus, R->best_clk, R->best.clock_source);
    if (info->type == GC_DEVICE_CPU) {
        /* Each step of a chain takes at least one SIMD instruction per
         * vector of chain words; a word holds `lanes` results of `counted`
         * operations. */
        char cpu[200];

        limit = gc__cpu_ops_limit(info, t->cpu_op, (int)gc__compute_vt_bytes(t->vt)) * t->lanes *
                t->counted;
        spec = isfinite(limit) && clk > 0 ? limit / (clk * cus) : NAN;
        gc__cpu_limit_note(info, (int)t->cpu_op, cpu, sizeof(cpu));
        /* The limit's terms first: a metric note keeps 255 characters. */
        snprintf(note, sizeof(note), "%s, %d-byte words, %d result(s) each; best: %s", cpu,
                 (int)gc__compute_vt_bytes(t->vt), t->lanes * t->counted, R->best_what);
    }
    gc__stats_inverse(R->best.per_sample_s, R->best.samples, R->best_results, &st);
    gc__bench_add_metric(r, "throughput", R->best_rate, unit_of(t), isfinite(limit) ? limit : NAN,
                         &st, isfinite(limit) ? note : R->best_what);
    if (t->flops) {
        struct gc_stats fs = st;
        gc__stats_scale(&fs, t->flops);
        gc__bench_add_metric(r, "flops", R->best_rate * t->flops, "FLOP/s",
                             isfinite(limit) ? limit * t->flops : NAN, &fs,
                             "floating-point operations per second of the best configuration");
    }
    if (isfinite(clk) && clk > 0) {
        struct gc_stats pc = st;
        gc__stats_scale(&pc, 1.0 / (clk * cus));
        gc__bench_add_metric(r, "per_clk_per_cu", R->best_rate / (clk * cus), "results/clk/CU",
                             spec, &pc,
                             info->type == GC_DEVICE_CPU
                                 ? "results per clock per compute unit at the observed clock; "
                                   "the limit is the CPU limit of throughput at that clock"
                                 : "results per clock per compute unit at the observed clock; "
                                   "the limit is the vendor's rate (MIPP Table I style)");
    }
    r->context = R->best.ctx;
    snprintf(r->stop_rule, sizeof(r->stop_rule), "%s", R->best.stop_rule);
}

/* One point of sweep curve si: config ci at `warps` warps per CU, timed by
 * the warps' own clocks. Skipped (0, nothing added) where the kernel's
 * registers do not allow that many warps. */
static int itype_sweep_point(struct itype_run *R, int si, int ci, struct gc_kern *k, int warps,
                             int reps, struct gc_series *ser_thr, struct gc_series *ser_cpi)
{
    const struct gc_itype *t = R->x.t;
    const struct compute_cfg *c = &R->cfgs[ci];
    struct gc_shape sh;
    struct gc_warp_measurement wm;
    struct gc_arg args[5] = {{.type = GC_ARG_BUF, .v.buf = R->x.in},
                             {.type = GC_ARG_BUF, .v.buf = R->x.out}};
    int rc = gc__sweep_shape(R->d, k, warps, &sh);
    char what[96];

    if (rc == GC_ERANGE)
        return 0; /* more warps than the kernel's registers allow */
    if (rc)
        return rc;
    gc__compute_fill_args(t, args);
    args[4] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = R->x.tsb};
    struct gc_launch l = {
        {sh.grid, 1, 1}, {(unsigned)sh.block, 1, 1}, sh.occ.dyn_shared, args, 5, 1};
    size_t nthreads = (size_t)sh.grid * (size_t)sh.block;

    snprintf(what, sizeof(what), "sweep ILP %d, %d warps/CU", c->ilp, warps);
    /* The first two timed launches are the checked ones (reps >= 2). */
    struct compute_sweep_check sc = {.ci = ci, .what = what};
    struct gc_rep_hook hook = {gc__compute_check_before, gc__compute_check_after, &sc};
    if ((rc = gc__compute_vrun_init(&sc.v, &R->x, c, nthreads)) == 0)
        rc = gc__measure_warps(R->x.s, k, &l, R->x.tsb, (unsigned)(nthreads / 32), R->x.ts_host.ptr,
                               reps, &hook, &wm);
    gc__compute_vrun_free(&sc.v);
    if (rc)
        return rc;
    if (!sc.checked) {
        gc__bench_set_error(R->x.r, GC_BENCH_ERROR,
                            "verification failed (%s): fewer than two checked launches", what);
        return GC_EVERIFY;
    }
    if (wm.occ_attained_min != warps) {
        gc__bench_set_error(R->x.r, GC_BENCH_ERROR,
                            "occupancy control failed: %d warps/CU requested, %d..%d attained "
                            "(per-warp timestamps)",
                            warps, wm.occ_attained_min, wm.occ_attained_max);
        return GC_EVERIFY;
    }
    double steps_cu = (double)cfg_steps(c) * warps; /* warp-instructions */
    double cpi = wm.cycles.median / steps_cu;
    double thr = steps_cu * 32.0 * t->lanes * t->counted / wm.cycles.median;
    struct gc_stats cs = wm.cycles;
    gc__stats_scale(&cs, 1.0 / steps_cu);
    gc__series_add(ser_cpi, warps, cpi, &cs, NULL);
    gc__series_add(ser_thr, warps, thr, NULL, NULL);
    if (R->ncurve[si] < MAX_SWEEP)
        R->curve[si][R->ncurve[si]++] = (struct point){warps, thr, cpi};
    if (isfinite(wm.clock_mhz))
        R->clk_obs = wm.clock_mhz;
    return 0;
}

/* The occupancy sweep of ILP sweep_ilp[si] (roofline and pipeline model):
 * warp by warp, one run per launch (timeOfRun directly). */
static int itype_sweep(struct itype_run *R, int si, const int *warps, int nw)
{
    struct gc_device *d = R->d;
    /* Launches per point: the first two are the checked ones; each gives
     * every warp's clocks (a point's CV is ~0.01% on an H200), so a third
     * only adds time outside --full. */
    int ci = scalar_cfg(R, sweep_ilp[si]), rc,
        reps = sweep_reps(R, R->x.s->profile == GC_PROFILE_FULL ? 3 : 2);
    struct gc_kern *k = NULL;
    struct gc_series *ser_thr, *ser_cpi;
    char nm[64];

    if (ci < 0)
        return 0;
    rc = d->ops->kernel(R->reqs[ci].prog, "gc_op", &k);
    if (rc) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    snprintf(nm, sizeof(nm), "roofline_ilp%d", R->cfgs[ci].ilp);
    ser_thr =
        gc__bench_add_series(R->x.r, nm, "warps per CU", "warps", "throughput", "results/clk/CU");
    snprintf(nm, sizeof(nm), "cpi_ilp%d", R->cfgs[ci].ilp);
    ser_cpi = gc__bench_add_series(R->x.r, nm, "warps per CU", "warps", "CPI per warp",
                                   "cycles/warp-instruction");
    if (!ser_thr || !ser_cpi)
        return GC_ENOMEM;
    ser_thr = ser_cpi - 1; /* adding ser_cpi may have moved the result's series */
    /* A curve whose last SWEEP_FLAT points lie within 1% of each other at
     * 97% or more of the configurations' peak has clearly peaked: more warps
     * add plateau points and nothing to the model (lambda is the plateau's
     * CPI, the ridge and the 90% point lie before it). --full sweeps all. */
    double ref = R->best_clk > 0 && R->info->compute_units > 0
                     ? R->best_rate / (R->best_clk * 1e6 * R->info->compute_units)
                     : NAN;
    bool stop_flat = R->x.s->profile != GC_PROFILE_FULL && isfinite(ref);
    for (int wi = 0; wi < nw && !gc__stopped(R->x.s); wi++) {
        if ((rc = itype_sweep_point(R, si, ci, k, warps[wi], reps, ser_thr, ser_cpi)))
            return rc;
        int n = R->ncurve[si];
        if (!stop_flat || n < SWEEP_FLAT)
            continue;
        double lo = INFINITY, hi = 0;
        for (int i = n - SWEEP_FLAT; i < n; i++) {
            lo = fmin(lo, R->curve[si][i].ops_clk);
            hi = fmax(hi, R->curve[si][i].ops_clk);
        }
        if (lo >= 0.97 * ref && hi <= 1.01 * lo)
            break;
    }
    return 0;
}

/* Pipeline model and landmarks from the sweep's curves (Lemeire eqs. 4-5;
 * Volkov Tables 6.1-6.3; Little's law). */
static void itype_model_metrics(struct itype_run *R)
{
    const struct gc_itype *t = R->x.t;
    struct gc_bench_result *r = R->x.r;
    double lam = INFINITY, Lam = R->curve[0][0].cpi, peak_clk = 0;

    for (int si = 0; si < 3; si++)
        for (int i = 0; i < R->ncurve[si]; i++) {
            lam = fmin(lam, R->curve[si][i].cpi);
            peak_clk = fmax(peak_clk, R->curve[si][i].ops_clk);
        }
    gc__bench_add_metric(r, "completion_latency", Lam, "cycles", NAN, NULL,
                         "Lambda: CPI of one warp with one dependent chain (max over the "
                         "sweep, Lemeire eq. 5) = dependent-issue latency of one step");
    gc__bench_add_metric(r, "issue_latency", lam, "cycles", NAN, NULL,
                         "lambda: min CPI per warp over the sweep (Lemeire eq. 4): cycles "
                         "between independent warp instructions per CU");
    double best_clk_rate = isfinite(R->best_clk)
                               ? R->best_rate / (R->best_clk * 1e6 * R->info->compute_units)
                               : peak_clk;
    double peak_ref = fmax(best_clk_rate, peak_clk);
    for (int si = 0; si < 3; si++) {
        double xs[MAX_SWEEP], ys[MAX_SWEEP], y4[MAX_SWEEP];
        char nm[64], note[300];
        int n4 = 0;
        for (int i = 0; i < R->ncurve[si]; i++) {
            xs[i] = R->curve[si][i].warps;
            ys[i] = R->curve[si][i].ops_clk;
            /* Warps are dealt round-robin to the 4 schedulers of an SM
             * (CC >= 7.0): between multiples of 4 the busiest scheduler has
             * ceil(w/4) warps and throughput dips to w / (4 ceil(w/4)) of the
             * trend, so monotonicity is checked on multiples of 4. */
            if ((int)xs[i] % 4 == 0)
                y4[n4++] = ys[i];
        }
        if (!R->ncurve[si])
            continue;
        double ridge = gc__occupancy_for(xs, ys, R->ncurve[si], peak_ref, 0.95);
        double w90 = gc__occupancy_for(xs, ys, R->ncurve[si], peak_ref, 0.90);
        snprintf(nm, sizeof(nm), "ridge_warps_ilp%d", sweep_ilp[si]);
        snprintf(note, sizeof(note),
                 "smallest warps/CU within 5%% of the peak (%.4g results/clk/CU)%s%s", peak_ref,
                 isnan(ridge) ? "; not reached with this ILP" : "",
                 gc__monotone_within(y4, n4, 0.02)
                     ? "; monotone over multiples of 4 warps"
                     : "; NOT monotone within 2% over multiples of 4 warps");
        gc__bench_add_metric(r, nm, ridge, "warps", NAN, NULL, note);
        snprintf(nm, sizeof(nm), "warps_90pct_ilp%d", sweep_ilp[si]);
        gc__bench_add_metric(r, nm, w90, "warps", NAN, NULL,
                             "smallest warps/CU reaching 90% of the peak (Volkov 6.3)");
    }
    /* Little's law: warps needed = latency x peak issue rate. */
    double ipc = peak_ref / (32.0 * t->lanes * t->counted); /* warp-steps/clk/CU */
    gc__bench_add_metric(r, "littles_law_warps", Lam * ipc, "warps", NAN, NULL,
                         "Lambda x peak warp-instructions/clk/CU: warps needed to hide the "
                         "latency with one chain (compare ridge_warps_ilp1)");
}

/* ---- The occupancy sweep timed as whole kernels ------------------------------
 * A device without an in-kernel clock (every OpenCL device today) gets the
 * roofline and the pipeline model's lambda and Lambda from whole-kernel
 * times, Lemeire's own method (timeOfRun, eqs. 3-5), on the engine's
 * kernel-timed sweep (core/ktsweep.c); series and metrics keep the names of
 * the per-warp path. */

/* A CPU launch lasts about this long (half with --quick), so that its
 * overhead (tens of us on PoCL) is a few percent of it. */
#define KT_CPU_TARGET_S 1e-3

/* The time unit of the curves: cycles of the cycle clock
 * (gc__cycle_clock_mhz), else ns. */
struct kt_clock {
    double hz; /* the clock, or 1e9 */
    const char *source;
    bool cycles;
    const char *tu; /* "clk" or "ns" */
};

/* One curve being swept: configuration ci's points and series. */
struct kt_curve {
    struct itype_run *R;
    const struct compute_cfg *c;
    int ci;
    const struct kt_clock *clk;
    struct gc_series *thr, *cpi;
    struct gc_ktime_point *pts;
    int n;
    struct compute_sweep_check sc;
    char what[96];
};

/* The point's timed launches are checked as they run (the first two). */
static int kt_prepare(void *u, const struct gc_ktsweep_point *p, struct gc_rep_hook *hook)
{
    struct kt_curve *C = u;
    int rc;

    snprintf(C->what, sizeof(C->what), "kernel-time sweep ILP %d, %d warps/CU, %d runs/CU",
             C->c->ilp, p->warps, p->runs);
    C->sc = (struct compute_sweep_check){.ci = C->ci, .what = C->what};
    *hook = (struct gc_rep_hook){gc__compute_check_before, gc__compute_check_after, &C->sc};
    if ((rc = gc__compute_vrun_init(&C->sc.v, &C->R->x, C->c, p->nthreads)))
        gc__compute_vrun_free(&C->sc.v);
    return rc;
}

/* A measured point: checked, then Lemeire's timeOfRun set on its launch
 * into the curve and its series. */
static int kt_done(void *u, const struct gc_ktsweep_point *p, int rc)
{
    struct kt_curve *C = u;
    const struct itype_run *R = C->R;
    const struct gc_itype *t = R->x.t;
    bool cpu = R->info->type == GC_DEVICE_CPU;

    gc__compute_vrun_free(&C->sc.v);
    if (rc)
        return rc;
    if (!C->sc.checked) {
        gc__bench_set_error(R->x.r, GC_BENCH_ERROR,
                            "verification failed (%s): fewer than two checked launches", C->what);
        return GC_EVERIFY;
    }
    struct gc_lemeire_launch ll = {.work_items = (double)p->nthreads,
                                   .wg_size = p->sh.block,
                                   .max_conc_wg = cpu ? 1 : p->sh.blocks_per_cu,
                                   .max_local_mem = 1,
                                   .warp_size = R->info->simd_width > 0 ? R->info->simd_width : 1,
                                   .max_conc_warps = p->warps,
                                   .cus = R->info->compute_units > 0 ? R->info->compute_units : 1,
                                   .instr_kernel = cfg_steps(C->c),
                                   .runtime_s = p->seconds,
                                   .clock_hz = C->clk->hz};
    struct gc_ktime_point *kp = &C->pts[C->n++];
    struct gc_stats cs = p->st;

    gc__ktime_point(&ll, (double)t->lanes * t->counted * C->c->vw, kp);
    gc__stats_scale(&cs, kp->cpi / p->seconds);
    gc__series_add(C->cpi, kp->warps, kp->cpi, &cs, NULL);
    gc__series_add(C->thr, kp->warps, kp->thr, NULL, NULL);
    return 0;
}

/* One curve: configuration ci over the warps, series roofline_ilp<N> and
 * cpi_ilp<N>; *np points into pts. */
static int kt_curve(struct itype_run *R, int ci, const struct kt_clock *clk, const int *warps,
                    int nw, struct gc_ktime_point *pts, int *np)
{
    const struct compute_cfg *c = &R->cfgs[ci];
    struct gc_arg args[4] = {{.type = GC_ARG_BUF, .v.buf = R->x.in},
                             {.type = GC_ARG_BUF, .v.buf = R->x.out}};
    struct kt_curve C = {.R = R, .c = c, .ci = ci, .clk = clk, .pts = pts};
    bool quick = R->x.s->profile == GC_PROFILE_QUICK;
    struct gc_kern *k = NULL;
    char nm[64], unit[48];
    int rc;

    *np = 0;
    if ((rc = R->d->ops->kernel(R->reqs[ci].prog, "gc_op", &k))) {
        snprintf(R->d->err, sizeof(R->d->err), "%s", R->d->ops->last_error(R->d->dev));
        return rc;
    }
    snprintf(nm, sizeof(nm), "roofline_ilp%d", c->ilp);
    snprintf(unit, sizeof(unit), "results/%s/CU", clk->tu);
    C.thr = gc__bench_add_series(R->x.r, nm, "warps per CU", "warps", "throughput", unit);
    snprintf(nm, sizeof(nm), "cpi_ilp%d", c->ilp);
    snprintf(unit, sizeof(unit), "%s/warp-instruction", clk->cycles ? "cycles" : "ns");
    C.cpi = gc__bench_add_series(R->x.r, nm, "warps per CU", "warps", "CPI per warp", unit);
    if (!C.thr || !C.cpi)
        return GC_ENOMEM;
    C.thr = C.cpi - 1; /* adding cpi may have moved the result's series */
    gc__compute_fill_args(R->x.t, args);
    const struct gc_ktsweep_desc kd = {
        .k = k,
        .args = args,
        .nargs = 4,
        .max_threads = R->x.in_elems / (size_t)(c->nch * c->vw),
        .warps = warps,
        .nw = nw,
        /* --quick: the two checked launches per point. */
        .reps = sweep_reps(R, quick ? 2 : 3),
        .cpu_target_s = quick ? KT_CPU_TARGET_S / 2 : KT_CPU_TARGET_S,
        .prepare = kt_prepare,
        .done = kt_done,
        .u = &C,
    };
    rc = gc__ktsweep_run(R->x.s, &kd);
    *np = C.n;
    return rc;
}

/* The pipeline model's metrics from the curves (Lemeire eqs. 4-5), under
 * the names of the per-warp path, each note saying where it comes from. */
static void kt_metrics(const struct itype_run *R, const struct kt_clock *clk,
                       const struct gc_ktime_point *const *curves, const int *n, const int *ilps,
                       int ncurves)
{
    struct gc_bench_result *r = R->x.r;
    const struct gc_itype *t = R->x.t;
    const char *lu = clk->cycles ? "cycles" : "ns";
    struct gc_ktime_marks mk;
    char src[200], note[400], nm[64];

    if (clk->cycles)
        snprintf(src, sizeof(src),
                 "from whole-kernel times (timeOfRun, Lemeire eqs. 3-5) in cycles of the "
                 "%s clock (%.0f MHz: no clock is read in the kernel)",
                 clk->source, clk->hz * 1e-6);
    else
        snprintf(src, sizeof(src),
                 "from whole-kernel times (timeOfRun, Lemeire eqs. 3-5) in ns (the device "
                 "reports no clock)");
    gc__ktime_marks(curves, n, ncurves, 0.05, &mk);
    snprintf(note, sizeof(note), "Lambda: max CPI per warp over the sweep (Lemeire eq. 5), %s",
             src);
    gc__bench_add_metric(r, "completion_latency", mk.Lambda, lu, NAN, NULL, note);
    snprintf(note, sizeof(note), "lambda: min CPI per warp over the sweep (Lemeire eq. 4), %s",
             src);
    gc__bench_add_metric(r, "issue_latency", mk.lambda, lu, NAN, NULL, note);
    for (int i = 0; i < ncurves; i++) {
        if (!n[i])
            continue;
        snprintf(nm, sizeof(nm), "ridge_warps_ilp%d", ilps[i]);
        snprintf(note, sizeof(note),
                 "smallest warps/CU within 5%% of the kernel-time sweep's peak (%.4g results/%s/"
                 "CU)%s%s; from whole-kernel times",
                 mk.peak, clk->tu, isnan(mk.ridge[i]) ? "; not reached with this ILP" : "",
                 mk.monotone[i] ? "; monotone within 5%" : "; NOT monotone within 5%");
        gc__bench_add_metric(r, nm, mk.ridge[i], "warps", NAN, NULL, note);
        snprintf(nm, sizeof(nm), "warps_90pct_ilp%d", ilps[i]);
        gc__bench_add_metric(r, nm, mk.w90[i], "warps", NAN, NULL,
                             "smallest warps/CU reaching 90% of the kernel-time sweep's peak "
                             "(Volkov 6.3); from whole-kernel times");
    }
    /* Little's law: warps needed = latency x peak warp-instructions per time unit. */
    double simd = R->info->simd_width > 0 ? R->info->simd_width : 1;
    double ipc = mk.peak / (simd * t->lanes * t->counted);
    gc__bench_add_metric(r, "littles_law_warps", mk.Lambda * ipc, "warps", NAN, NULL,
                         "Lambda x peak warp-instructions per time unit per CU: warps needed to "
                         "hide the latency with one chain; from whole-kernel times");
}

/* The kernel-timed sweep: ILP 1 (Lambda) and the better of ILP 2 and 4 by
 * the measured peak (ILP 1 alone with --quick), then the model's metrics. */
static int itype_ktime(struct itype_run *R)
{
    bool quick = R->x.s->profile == GC_PROFILE_QUICK;
    int warps[MAX_SWEEP], nw = gc__ktsweep_warps(R->info, quick, warps, MAX_SWEEP);
    int ci[2], ilps[2] = {1, 4}, n[2] = {0, 0}, rc = 0;
    struct gc_ktime_point pts[2][MAX_SWEEP];
    const struct gc_ktime_point *curves[2] = {pts[0], pts[1]};
    struct kt_clock clk;

    clk.hz = gc__cycle_clock_mhz(R->info, &clk.source) * 1e6;
    clk.cycles = clk.hz > 0;
    if (!clk.cycles)
        clk.hz = 1e9;
    clk.tu = clk.cycles ? "clk" : "ns";
    ci[0] = scalar_cfg(R, 1);
    int c2 = scalar_cfg(R, 2), c4 = scalar_cfg(R, 4);
    ci[1] = quick ? -1 : c2 >= 0 && (c4 < 0 || R->x.rate[c2] > R->x.rate[c4]) ? c2 : c4;
    if ((rc = gc__compute_model01(&R->x, R->cfgs, ci, 2)))
        return rc;
    for (int i = 0; i < 2 && !rc && !gc__stopped(R->x.s); i++) {
        if (ci[i] < 0)
            continue;
        ilps[i] = R->cfgs[ci[i]].ilp;
        rc = kt_curve(R, ci[i], &clk, warps, nw, pts[i], &n[i]);
    }
    if (!rc && n[0] > 0)
        kt_metrics(R, &clk, curves, n, ilps, ci[1] >= 0 ? 2 : 1);
    return rc;
}

/* Sequential latency (uCLbench): one thread, one chain, event-timed. */
static int itype_sequential(struct itype_run *R)
{
    const struct gc_device_info *info = R->info;
    struct gc_device *d = R->d;
    struct gc_kern *k = NULL;
    struct gc_arg args[5] = {{.type = GC_ARG_BUF, .v.buf = R->x.in},
                             {.type = GC_ARG_BUF, .v.buf = R->x.out}};
    struct gc_measurement m;
    unsigned blk = R->warp_ts ? 32 : 1;
    int ci = scalar_cfg(R, 1), rc;

    if (ci < 0)
        return 0;
    if ((rc = d->ops->kernel(R->reqs[ci].prog, "gc_op", &k)))
        return rc;
    gc__compute_fill_args(R->x.t, args);
    struct gc_launch l = {{1, 1, 1}, {blk, 1, 1}, 0, args, 4, 1};
    struct gc_timestamps ts = {R->x.tsb, 1};
    if (R->warp_ts) {
        args[4] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = R->x.tsb};
        l.nargs = 5;
    }
    /* Thread 0 of ILP 1: the sweep's model of that thread (cache slot ci). */
    if ((rc = gc__compute_verify(&R->x, k, &l, &R->cfgs[ci], blk, 1, ci, "sequential")))
        return rc;
    rc = gc__measure(R->x.s, R->sampling, k, &l, R->warp_ts ? &ts : NULL, NULL, 0, &m);
    if (rc == 0) {
        struct gc_stats ns;
        gc__stats_compute(m.per_sample_s, m.samples, &ns);
        gc__stats_scale(&ns, 1e9 / cfg_steps(&R->cfgs[ci]));
        gc__bench_add_metric(R->x.r, "sequential_latency", ns.median, "ns", NAN, &ns,
                             R->warp_ts ? "one warp (one thread's chain), event-timed, per "
                                          "dependent step; includes the launch gap"
                                        : "one work-item, one chain, event-timed, per "
                                          "dependent step; includes the launch overhead");
        const char *how = "observed";
        double mhz = isfinite(R->clk_obs) ? R->clk_obs : gc__cycle_clock_mhz(info, &how);
        char cn[96];

        snprintf(cn, sizeof(cn), "at the %s clock, %.0f MHz", how, mhz);
        if (mhz > 0)
            gc__bench_add_metric(R->x.r, "sequential_latency_cycles", ns.median * mhz * 1e-3,
                                 "cycles", NAN, NULL, cn);
    }
    gc__measurement_free(&m);
    return rc;
}

/* The measurements in order: the peak of every configuration, the
 * occupancy sweeps and their model, the sequential latency. */
static int itype_measure(struct itype_run *R)
{
    struct gc_session *s = R->x.s;
    int rc;

    if ((rc = itype_peak_series(R)) || (rc = itype_peaks(R)))
        return rc;
    if (R->best_i < 0)
        return 0;
    itype_peak_metrics(R);
    /* The configuration of the peak, in the results (the energy meter runs
     * the same launch: compute_launch_at). */
    if ((rc = gc__config_set_num(R->x.r, NULL, "ilp", R->cfgs[R->best_i].ilp)) ||
        (rc = gc__config_set_num(R->x.r, NULL, "vector_width", R->cfgs[R->best_i].vw)) ||
        (rc = gc__config_set_num(R->x.r, NULL, "block", R->best_block)) ||
        (rc = gc__config_set_num(R->x.r, NULL, "blocks_per_cu", R->best_per_cu)))
        return rc;
    if (R->warp_ts && !gc__stopped(s)) {
        int warps[MAX_SWEEP];
        int maxw =
            R->info->max_threads_per_cu / (R->info->simd_width > 0 ? R->info->simd_width : 32);
        int nw = gc__sweep_warps(maxw, warps, MAX_SWEEP);
        int swept[3] = {scalar_cfg(R, sweep_ilp[0]), scalar_cfg(R, sweep_ilp[1]),
                        scalar_cfg(R, sweep_ilp[2])};
        if ((rc = gc__compute_model01(&R->x, R->cfgs, swept, 3)))
            return rc;
        for (int si = 0; si < 3 && !gc__stopped(s); si++)
            if ((rc = itype_sweep(R, si, warps, nw)))
                return rc;
    } else if (!gc__stopped(s) && (rc = itype_ktime(R)))
        return rc;
    if (R->ncurve[0] > 0)
        itype_model_metrics(R);
    if (!gc__stopped(s) && (rc = itype_sequential(R)))
        return rc;
    return gc__stopped(s) ? GC_EINTR : 0;
}

static int run_itype(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    const struct gc_itype *t = self->param;
    struct itype_run *R;
    int rc;

    if (itype_unavailable(t, s->dev, r))
        return 0;
    R = calloc(1, sizeof(*R));
    if (!R)
        return GC_ENOMEM;
    R->x = (struct compute_ctx){.s = s, .t = t, .r = r};
    R->d = s->dev;
    R->info = &s->dev->info;
    R->warp_ts = warp_records(R->info);
    R->x.flags = R->warp_ts ? GC_KGEN_WARP_TIMESTAMPS : 0;
    R->best_i = -1;
    R->spec = gc__itype_spec(t, &R->d->arch);
    R->best_clk = R->clk_obs = NAN;
    /* A CPU device times every measurement of the benchmark (the kernel-time
     * sweep too) with samples of at least the peak's length: its launches
     * and timers are noisier. A GPU's sweeps are timed in the kernel and its
     * sequential latency includes the launch gap whatever the sample. */
    R->sampling = s->sampling;
    if (R->info->type == GC_DEVICE_CPU)
        gc__sampling_time_floor(&R->sampling, ITYPE_PEAK_SAMPLE_S);
    if (!(rc = itype_build(R)) && !(rc = itype_buffers(R)))
        rc = itype_measure(R);
    gc__measurement_free(&R->best);
    for (int i = 0; i < MAX_CFG; i++)
        free(R->x.want01[i]);
    free(R->x.hin);
    gc__dev_hostbuf_free(R->d, &R->x.ts_host);
    gc__dev_free(R->d, R->x.tsb);
    gc__dev_free(R->d, R->x.in);
    gc__dev_free(R->d, R->x.out);
    gc__dev_free(R->d, R->x.out2);
    gc__kreq_release(s, R->reqs, R->ncfg);
    free(R);
    return rc;
}

/* ---- declared kernels (SASS checks) ------------------------------------- */

int gc__compute_itype_sources(const struct gc_itype *t, enum gc_dialect d,
                              const struct gc_device_info *info, struct gc_ksrc **out, int *n)
{
    static const int ilps[] = {1, 2, 4, 8};
    struct gc_kform f = gc__kgen_form(d, info->caps, t->cuda, t->opencl, t->opencl_caps);
    struct gc_ksrc *k;
    struct gc_arch arch;

    *out = NULL;
    *n = 0;
    gc__arch_lookup(info, &arch);
    if (gc__arch_older_than(&arch, t->min_cc) || !f.text)
        return 0;
    k = calloc(4, sizeof(*k));
    if (!k)
        return GC_ENOMEM;
    for (int i = 0; i < 4; i++) {
        struct compute_cfg c;
        cfg_init(&c, t, info, &arch, ilps[i], 1);
        snprintf(k[i].label, sizeof(k[i].label), "%s_ilp%d", t->name, ilps[i]);
        k[i].src = gen(t, d, f, GC_KGEN_WARP_TIMESTAMPS, &c);
        if (!k[i].src) {
            gc__ksrc_free(k, i);
            return GC_ENOMEM;
        }
        for (int e = 0; e < 3 && t->sass[e].mnemonic; e++)
            k[i].expect[k[i].nexpect++] = (struct gc_sass_expect){
                t->sass[e].mnemonic, t->sass[e].per_loop * c.per_rnd * c.unroll};
    }
    *out = k;
    *n = 4;
    return 0;
}

static int sources_itype(const struct gc_bench *self, const struct gc_device_info *info,
                         struct gc_ksrc **out, int *n)
{
    return gc__compute_itype_sources(self->param, gc__kgen_inspect_dialect(), info, out, n);
}

/* ---- the run's compile plan ---------------------------------------------- */

/* The kernels run_itype requests (itype_build), as it requests them. */
static int plan_itype(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out,
                      int *n)
{
    const struct gc_itype *t = self->param;
    struct gc_device *d = s->dev;
    unsigned flags = warp_records(&d->info) ? GC_KGEN_WARP_TIMESTAMPS : 0;
    struct compute_cfg cfgs[MAX_CFG];
    struct gc_ksrc *k;
    char why[400];
    int nc;

    *out = NULL;
    *n = 0;
    if (no_form(t, d, why, sizeof(why)) || gc__arch_older_than(&d->arch, t->min_cc))
        return 0;
    nc = plan(t, s, cfgs);
    k = calloc((size_t)(nc > 0 ? nc : 1), sizeof(*k));
    if (!k)
        return GC_ENOMEM;
    for (int i = 0; i < nc; i++) {
        snprintf(k[i].label, sizeof(k[i].label), "%s_ilp%d_w%d", t->name, cfgs[i].ilp, cfgs[i].vw);
        k[i].src = gen(t, d->ops->dialect, op_form(t, d), flags, &cfgs[i]);
        if (!k[i].src) {
            gc__ksrc_free(k, i);
            return GC_ENOMEM;
        }
    }
    *out = k;
    *n = nc;
    return 0;
}

/* ---- the family ---------------------------------------------------------- */

#define COMPUTE_METHOD                                                                             \
    "Each thread runs ILP (1, 2, 4, 8) independent dependency chains of the step (coupled "        \
    "entries: chain j combines chain j+1, so that ptxas cannot fold two steps into one "           \
    "instruction), in a loop of ~1024 unrolled steps with compile-time trip counts, from "         \
    "random inputs; kernel arguments a and b keep the compiler from folding. Peak: the best "      \
    "configuration at the highest occupancy the kernel allows (enforced with dynamic shared "      \
    "memory, Lemeire eq. 2), event-timed by the engine; results/clk/CU at the clock observed "     \
    "in the kernel, against the CUDA Programming Guide's rate (MIPP Tables I-II). Occupancy "      \
    "roofline (Lemeire SIII): ILP 1, 2, 4 swept warp by warp from 1 warp/CU to the maximum; "      \
    "each point is one run timed by per-warp clock64 records (timeOfRun directly, Volkov "         \
    "S5.5), attained occupancy checked from the same records (Volkov S5.7). Pipeline model "       \
    "(Lemeire SIV-V, eqs. 4-5): CPI per warp = cycles of the run / warp-instructions per CU; "     \
    "lambda = min, Lambda = max (1 warp, 1 chain = dependent-issue latency); ridge = smallest "    \
    "occupancy within 5% of peak, and 90% (Volkov Table 6.3); Little's law: warps needed = "       \
    "Lambda x peak warp-instructions per clock per CU. Sequential latency (uCLbench): one "        \
    "thread, one chain, event-timed. OpenCL: the same kernels with vector widths 2-16 at ILP "     \
    "4; without an in-kernel clock the sweep (ILP 1 and the better of 2 and 4) is timed as "       \
    "whole kernels (Lemeire's timeOfRun, eqs. 3-5). Verification: every launch measured is "       \
    "first run twice into differently poisoned outputs (every chain must be written, "             \
    "deterministically) "                                                                          \
    "and sampled threads' chains are recomputed by a host model of the step (bit-exact for "       \
    "IEEE and integer ops, relative tolerance for approximate ones)."

/* The compute table's row of each instruction type (labelled without
 * "compute."), listed when its throughput was measured. */
#define ITYPE_CELL(c, m, u, pk)                                                                    \
    {                                                                                              \
        .table = &gc__sum_compute, .row = "compute.", .col = c, .metric = m, .unit = u, .pick = pk \
    }
static const struct gc_sum_cell itype_cells[] = {
    {.table = &gc__sum_compute,
     .row = "compute.",
     .col = 0,
     .metric = "per_clk_per_cu",
     .key = true},
    ITYPE_CELL(1, "per_clk_per_cu", NULL, GC_SUM_LIMIT),
    ITYPE_CELL(2, "per_clk_per_cu", NULL, GC_SUM_PERCENT),
    ITYPE_CELL(3, "issue_latency", "cycles", GC_SUM_VALUE),
    ITYPE_CELL(4, "completion_latency", "cycles", GC_SUM_VALUE),
    ITYPE_CELL(5, "ridge_warps_ilp1", "warps", GC_SUM_VALUE),
    ITYPE_CELL(6, "ridge_warps_ilp2", "warps", GC_SUM_VALUE),
    ITYPE_CELL(7, "ridge_warps_ilp4", "warps", GC_SUM_VALUE),
    ITYPE_CELL(8, "warps_90pct_ilp1", "warps", GC_SUM_VALUE),
    ITYPE_CELL(9, "littles_law_warps", "warps", GC_SUM_VALUE),
    ITYPE_CELL(10, "sequential_latency_cycles", "cycles", GC_SUM_VALUE),
    {0},
};
const struct gc_fig_rule gc__compute_figures[] = {
    {"roofline_ilp*", "occupancy roofline (ILP 1, 2, 4)", 0, NULL, false, false, false},
    {"cpi_ilp*", "CPI per warp vs occupancy (pipeline model)", 0, NULL, false, false, false},
    {"peak_*", "peak throughput vs independent chains", 0, NULL, true, false, false},
    {0},
};
static const struct gc_bench_report itype_report = {itype_cells, gc__compute_figures};

static struct gc_bench *benches;
static char (*names)[64];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int compute_launch_at(struct gc_session *s, const struct gc_bench *self,
                             const struct gc_config_ask *ask, struct gc_meter_launch *w);

static void build_family(void)
{
    int n = gc__itype_count();

    benches = calloc((size_t)n, sizeof(*benches));
    names = calloc((size_t)n, sizeof(*names));
    if (!benches || !names) {
        free(benches);
        free(names);
        benches = NULL;
        return;
    }
    for (int i = 0; i < n; i++) {
        const struct gc_itype *t = gc__itype_get(i);
        snprintf(names[i], sizeof(names[i]), "compute.%s", t->name);
        benches[i] = (struct gc_bench){
            .info = {.name = names[i],
                     .group = "compute",
                     .summary = t->summary,
                     .method = COMPUTE_METHOD},
            .needs_caps = t->needs_caps,
            .run = run_itype,
            .param = t,
            .sources = sources_itype,
            .plan = plan_itype,
            .report = &itype_report,
            .launch_at = compute_launch_at,
        };
    }
}

static int family_count(void)
{
    pthread_once(&once, build_family);
    return benches ? gc__itype_count() : 0;
}

static const struct gc_bench *family_at(int i)
{
    return i >= 0 && i < family_count() ? &benches[i] : NULL;
}

const struct gc_bench_family gc__compute_family = {family_count, family_at};

/* ---- workload for the energy meter (core/meterlaunch.h) ------------------ */

static void compute_fixed(const struct gc_session *s, const struct gc_itype *t,
                          struct gc_best_compute *c)
{
    const struct gc_device_info *info = &s->dev->info;
    bool vec = op_vectors(t, s->dev);
    int maxb = info->max_threads_per_block > 0 ? info->max_threads_per_block : 256;

    *c = (struct gc_best_compute){vec ? 4 : 8, vec ? 8 : 1, maxb < 256 ? maxb : 256, 0};
}

/* The record of compute.<itype>, when it is a configuration gen() builds
 * and the device holds; else the fixed one: ILP 8 (ILP 4 with 8-wide vectors
 * on OpenCL for vector-capable entries), 256-thread blocks, as many blocks as
 * are resident (blocks_per_cu 0). */
void gc__compute_pick(const struct gc_session *s, const struct gc_itype *t,
                      const struct gc_config_ask *ask, struct gc_best_compute *c,
                      struct gc_cfg_pick *p)
{
    const struct gc_device_info *info = &s->dev->info;
    bool vec = op_vectors(t, s->dev);
    int maxb = info->max_threads_per_block > 0 ? info->max_threads_per_block : 256;
    struct gc_best_compute rec, *b = &rec;
    char name[80];
    const struct gc_bench_result *from;

    snprintf(name, sizeof(name), "compute.%s", t->name);
    from = gc__cfg_pick_start(p, name, ask);
    compute_fixed(s, t, c);
    if (!from)
        return;
    if (!gc__config_int(from, NULL, "ilp", &b->ilp) ||
        !gc__config_int(from, NULL, "vector_width", &b->vw) ||
        !gc__config_int(from, NULL, "block", &b->block) ||
        !gc__config_int(from, NULL, "blocks_per_cu", &b->blocks_per_cu))
        gc__cfg_refuse(p, "its result records no ILP, vector width, block and blocks per CU");
    else if (b->ilp != 1 && b->ilp != 2 && b->ilp != 4 && b->ilp != 8)
        gc__cfg_refuse(p, "ILP %d is not one the kernel generator builds (1, 2, 4, 8)", b->ilp);
    else if (b->vw != 1 && !(vec && (b->vw == 2 || b->vw == 4 || b->vw == 8 || b->vw == 16)))
        gc__cfg_refuse(p, "vector width %d is not one this device's kernels take", b->vw);
    else if (b->block < 1 || b->block > maxb)
        gc__cfg_refuse(p, "block of %d threads outside 1..%d", b->block, maxb);
    else if (b->blocks_per_cu < 1 ||
             (info->max_threads_per_cu > 0 &&
              b->blocks_per_cu * b->block > info->max_threads_per_cu) ||
             (info->max_blocks_per_cu > 0 && b->blocks_per_cu > info->max_blocks_per_cu))
        gc__cfg_refuse(p, "%d blocks of %d per CU do not fit on a CU", b->blocks_per_cu, b->block);
    else {
        *c = *b;
        p->origin = GC_CFG_RESULT;
    }
}

/* The launch shape of the workload at full occupancy (the record's blocks
 * per CU, at most what is resident) or at `warps` warps per CU. */
static int compute_shape(struct gc_device *d, struct gc_kern *k, const struct gc_best_compute *pc,
                         int warps, int *block, int *per_cu, unsigned *grid,
                         struct gc_occupancy *oc)
{
    const struct gc_device_info *info = &d->info;
    int rc;

    if (warps > 0) {
        struct gc_shape sh;

        if ((rc = gc__sweep_shape(d, k, warps, &sh)))
            return rc;
        *block = sh.block;
        *grid = sh.grid;
        *oc = sh.occ;
        *per_cu = sh.blocks_per_cu;
        return 0;
    }
    *block = pc->block;
    *per_cu = resident_blocks(d, k, *block);
    if (pc->blocks_per_cu > 0 && pc->blocks_per_cu < *per_cu)
        *per_cu = pc->blocks_per_cu;
    if ((info->caps & GC_CAP_DYN_SHARED) && info->shared_per_cu > 0 &&
        info->max_threads_per_cu > 0 && (rc = gc__occupancy_set(d, k, *block, *per_cu, oc)))
        return rc;
    *grid = (unsigned)(*per_cu * (info->compute_units > 0 ? info->compute_units : 1));
    return 0;
}

/* The kernel exactly as the throughput measurement generates it, at the
 * configuration of gc__compute_pick, at full occupancy or at `warps` warps
 * per CU (the fixed ILP: the occupancy sweep's curve). */
/* Whether the device can run the instruction type's kernel at all; w->why
 * says why not. */
static int workload_supported(const struct gc_device *d, const struct gc_itype *t,
                              struct gc_meter_launch *w)
{
    if (no_form(t, d, w->why, sizeof(w->why)))
        return GC_ENOTSUP;
    if (gc__arch_older_than(&d->arch, t->min_cc)) {
        snprintf(w->why, sizeof(w->why), "%s needs compute capability %d.%d", t->name,
                 t->min_cc / 10, t->min_cc % 10);
        return GC_ENOTSUP;
    }
    if ((t->needs_caps & d->info.caps) != t->needs_caps) {
        snprintf(w->why, sizeof(w->why), "the device lacks a capability %s needs", t->name);
        return GC_ENOTSUP;
    }
    return 0;
}

/* compute.<itype>'s launch_at: the kernel exactly as the throughput
 * measurement generates it, at the configuration of gc__compute_pick. */
static int compute_launch_at(struct gc_session *s, const struct gc_bench *self,
                             const struct gc_config_ask *ask, struct gc_meter_launch *w)
{
    const struct gc_itype *t = self->param;
    int warps = ask->warps;
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    bool warp_ts = warp_records(info);
    struct gc_bench_result vr;
    struct compute_ctx x = {.s = s, .t = t, .r = &vr};
    struct compute_cfg c;
    struct gc_best_compute pc;
    struct gc_cfg_pick pick = {0};
    int rc, block, per_cu;
    unsigned grid;
    struct gc_occupancy oc = {0};
    size_t bytes;

    memset(&vr, 0, sizeof(vr));
    if ((rc = workload_supported(d, t, w)))
        return rc;
    /* The sweep's points keep one kernel whatever the peak's was. */
    gc__compute_pick(s, t, ask, &pc, &pick);
    cfg_init(&c, t, info, &d->arch, pc.ilp, pc.vw);
    x.flags = warp_ts ? GC_KGEN_WARP_TIMESTAMPS : 0;
    /* The label names the dumped source while building (w->what is
     * rewritten with the description afterwards). */
    snprintf(w->what, sizeof(w->what), "energy_%s_ilp%d_w%d", t->name, c.ilp, c.vw);
    w->req[0].label = w->what;
    w->req[0].src = gen(t, d->ops->dialect, op_form(t, d), x.flags, &c);
    w->nreq = 1;
    if (!w->req[0].src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(s, w->req, 1)))
        return rc;
    if ((rc = d->ops->kernel(w->req[0].prog, "gc_op", &w->k))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    if ((rc = compute_shape(d, w->k, &pc, warps, &block, &per_cu, &grid, &oc)))
        return rc;
    size_t nthreads = (size_t)grid * (size_t)block;
    x.in_elems = nthreads * (size_t)c.nch * (size_t)c.vw;
    bytes = x.in_elems * gc__compute_vt_bytes(t->vt);
    x.hin = malloc(bytes);
    w->host[0] = x.hin;
    if (!x.hin)
        return GC_ENOMEM;
    gc__compute_make_inputs(t, x.hin, x.in_elems, s->seed ^ 0xC0FFEEULL ^ (uint64_t)t->work);
    if ((rc = gc__dev_alloc(d, bytes, &w->bufs[0])) || (rc = gc__dev_alloc(d, bytes, &w->bufs[1])))
        return rc;
    x.in = w->bufs[0];
    x.out = w->bufs[1];
    if ((rc = gc__dev_write(d, x.in, 0, x.hin, bytes)))
        return rc;
    w->args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = x.in};
    w->args[1] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = x.out};
    gc__compute_fill_args(t, w->args);
    w->l = (struct gc_launch){{grid, 1, 1}, {(unsigned)block, 1, 1}, oc.dyn_shared, w->args, 4, 1};
    if (warp_ts) {
        if ((rc = gc__dev_alloc(d, ((nthreads + 31) / 32 + 64) * GC_TS_WORDS * 8, &w->bufs[2])))
            return rc;
        w->args[4] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[2]};
        w->l.nargs = 5;
    }
    rc = gc__compute_verify(&x, w->k, &w->l, &c, nthreads, 8, -1, w->what);
    if (rc == GC_EVERIFY)
        snprintf(w->why, sizeof(w->why), "%s", vr.error);
    if (rc)
        return rc;
    w->ops = launch_results(t, &c, nthreads);
    w->op_unit = t->flops ? "result" : "op";
    w->flops = w->ops * t->flops;
    w->spec_per_clk_cu = gc__itype_spec(t, &d->arch);
    w->warps_per_cu = per_cu * block / (info->simd_width > 0 ? info->simd_width : 32);
    char kname[96];
    snprintf(kname, sizeof(kname), "compute.%s kernel", t->name);
    if (warps > 0)
        snprintf(w->what, sizeof(w->what),
                 "%s: ILP %d, vector width %d, block %d, %d blocks/CU (%d warps/CU: a point of "
                 "the occupancy sweep)",
                 kname, c.ilp, c.vw, block, per_cu, w->warps_per_cu);
    else
        gc__meter_launch_describe(
            w, &pick, kname, "ILP %d, vector width %d, block %d, %d blocks/CU (%d warps/CU)%s",
            c.ilp, c.vw, block, per_cu, w->warps_per_cu,
            pc.blocks_per_cu > per_cu ? "; fewer blocks are resident than the "
                                        "record's"
                                      : "");
    return 0;
}
