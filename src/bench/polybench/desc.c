/* application.polybench: the table of the nine kernels gpumembench §V
 * profiles, their problem sizes, and the run: every kernel built, measured
 * in full, verified against the host and recorded with its work (the
 * prediction and the attained-vs-peak view read those records, model/). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/polybench/polybench.h"
#include "core/harness.h"
#include "core/cpulimits.h"
#include "core/occupancy.h"
#include "util/parallel.h"
#include "util/random.h"

static const struct pb_kernel kernels[] = {
    {"fdtd_step1", "FDTD-2D", PB_FDTD1, 2}, {"fdtd_step2", "FDTD-2D", PB_FDTD2, 2},
    {"fdtd_step3", "FDTD-2D", PB_FDTD3, 3}, {"gemm", "GEMM", PB_GEMM, 3},
    {"mm3_kernel1", "3MM", PB_MM, 2},       {"mm3_kernel2", "3MM", PB_MM, 2},
    {"mm3_kernel3", "3MM", PB_MM, 2},       {"syr2k", "SYR2K", PB_SYR2K, 3},
    {"syrk", "SYRK", PB_SYRK, 2},
};
#define NK ((int)(sizeof(kernels) / sizeof(kernels[0])))
_Static_assert(sizeof(kernels) / sizeof(kernels[0]) == PB_NKERNELS, "PB_NKERNELS");

struct pb_run {
    struct gc_hdesc desc;
    struct pb_size z[NK];
    struct gc_buf *in[NK][PB_MAX_IN], *out[NK];
    /* On a CPU device every kernel writes one shared output buffer: a
     * buffer there is host memory whose first touch costs page faults (a
     * 256 MiB FDTD-2D output took 1.2 s on a 2-core VM), and every
     * measurement poisons the output before and checks it after its own
     * launches. NULL elsewhere: each kernel has its own. */
    struct gc_buf *out_shared;
    float *host_in[NK][PB_MAX_IN];
    float *scratch; /* the largest output, read back or poisoned */
    size_t scratch_elems;
    /* Per kernel, read while its program is loaded (at its first check). */
    int regs[NK];
    size_t shared[NK];
    double warps_per_cu[NK];
    bool attrs[NK];
    bool fdtd_bounded; /* FDTD-2D stopped below the cache by the time bound */
    /* FDTD-2D's three fields (ex, ey, hz), which its three steps read: one
     * host and one device copy each, shared by the steps. */
    float *field_host[3];
    struct gc_buf *field_buf[3];
};

/* The field each FDTD-2D step reads as its input a (gen.c: step 1 reads ey
 * and hz, step 2 ex and hz, step 3 hz, ex and ey). */
enum { PB_EX, PB_EY, PB_HZ };
static const int fdtd_field[3][PB_MAX_IN] = {{PB_EY, PB_HZ}, {PB_EX, PB_HZ}, {PB_HZ, PB_EX, PB_EY}};

/* gpumembench §V's sizes on a GPU (FDTD-2D 2048 x 2048, GEMM and 3MM 512,
 * SYRK and SYR2K 1024, the size the paper profiled SYR2K at), half of
 * each in the quick profile; on a CPU device FDTD-2D 512 and the matrices
 * 128, halved when quick. FDTD-2D grows until each of its arrays is at
 * least the last-level cache: its figure is DRAM traffic, and launches
 * measured back to back would otherwise find the arrays in the cache; on
 * a CPU no further than one launch of step 3 within the time bound of
 * memory.dram.* (gc__cpu_stream_bound, a PB_QUICK_SHRINK-th of it with
 * --quick: a fresh GiB costs seconds of page faults on a VM; true when
 * that stopped it). Every
 * size is then halved until all buffers together take at most a quarter of
 * the device's memory. */
#define PB_QUICK_SHRINK 4

bool gc__pb_plan_sizes(const struct gc_device_info *info, enum gc_profile p, struct pb_size *z)
{
    bool gpu = info->type == GC_DEVICE_GPU;
    int shift = (p == GC_PROFILE_QUICK ? 1 : 0);
    int fd = (gpu ? 2048 : 512) >> shift, mm = (gpu ? 512 : 128) >> shift;
    int sy = (gpu ? 1024 : 128) >> shift;
    size_t llc = gpu             ? gc__gpu_l2_or_bound(info)
                 : info->l2_size ? info->l2_size
                                 : gc__cpu_llc_bytes(info);

    /* On a CPU one launch of step 3 (its four arrays) stays within the
     * time bound memory.dram.* streams by. */
    double bound = gpu                     ? INFINITY
                   : p == GC_PROFILE_QUICK ? (double)gc__cpu_stream_bound(p) / PB_QUICK_SHRINK
                                           : (double)gc__cpu_stream_bound(p);
    bool bounded = false;

    while (fd < 16384 && 4.0 * fd * fd < (double)llc) {
        if (4 * 4.0 * (2.0 * fd) * (2.0 * fd) > bound) {
            bounded = true;
            break;
        }
        fd *= 2;
    }

    for (;;) {
        double bytes = 0;

        for (int i = 0; i < NK; i++) {
            int n = kernels[i].kind <= PB_FDTD3 ? fd : kernels[i].kind <= PB_MM ? mm : sy;

            z[i] = (struct pb_size){n, n, kernels[i].kind <= PB_FDTD3 ? 0 : n};
            bytes += 4.0 * (double)n * n * (kernels[i].nin + 1);
        }
        if (!info->global_mem || bytes <= (double)info->global_mem / 4 ||
            (fd <= 64 && mm <= 64 && sy <= 64))
            return bounded;
        fd = fd > 64 ? fd / 2 : fd;
        mm = mm > 64 ? mm / 2 : mm;
        sy = sy > 64 ? sy / 2 : sy;
    }
}

static int pb_setup(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out)
{
    struct pb_run *R = h->d->user;
    int i = (int)((const struct pb_kernel *)c->user - kernels);
    const struct pb_size *z = &R->z[i];
    int na = 0;

    for (int a = 0; a < kernels[i].nin; a++)
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = R->in[i][a]};
    out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = R->out[i]};
    unsigned blocks = (unsigned)((size_t)z->rows * z->cols / (PB_BX * PB_BY));
    out->l = (struct gc_launch){{blocks, 1, 1}, {PB_BX * PB_BY, 1, 1}, 0, out->args, na, 1};
    out->work = 1.0; /* the figure is launches per second; the time is what is recorded */
    snprintf(out->desc, sizeof(out->desc), "%s (%s), %d x %d, 32 x 8 blocks", kernels[i].name,
             kernels[i].program, z->rows, z->cols);
    return 0;
}

/* Before every measurement the output is poisoned (all bits set: NaN), so
 * that the check proves this measurement's launches wrote it. */
static int pb_before(struct gc_harness *h, struct gc_hconf *c)
{
    struct pb_run *R = h->d->user;
    int i = (int)((const struct pb_kernel *)c->user - kernels);
    size_t n = gc__pb_out_elems(&R->z[i]);

    memset(R->scratch, 0xff, n * sizeof(float));
    return gc__dev_write(h->s->dev, R->out[i], 0, R->scratch, n * sizeof(float));
}

/* Resident warps (of 32 threads, on every device) per CU of the kernel as
 * launched: the occupancy API where the device has one, else the device's
 * limits (core/occupancy.c); never more than the launch has per CU. */
static double occupancy(struct gc_session *s, const struct gc_hconf *c, int regs,
                        const struct pb_size *z)
{
    return gc__occupancy_warps(s->dev, c->k, PB_BX * PB_BY, regs, 0, 0,
                               (double)z->rows * z->cols / PB_BX / PB_BY);
}

/* The kernel's registers, static shared memory and occupancy. */
static void read_attrs(struct gc_harness *h, const struct gc_hconf *c, struct pb_run *R, int i)
{
    struct gc_device *d = h->s->dev;
    int regs = 0, maxthr = 0;
    size_t shared = 0;

    if (R->attrs[i] || !c->k)
        return;
    if (!d->ops->kernel_attrs || d->ops->kernel_attrs(c->k, &regs, &shared, &maxthr) != 0)
        regs = 0, shared = 0;
    R->regs[i] = regs > 0 ? regs : -1;
    R->shared[i] = shared;
    R->warps_per_cu[i] = occupancy(h->s, c, R->regs[i], &R->z[i]);
    R->attrs[i] = true;
}

static int pb_verify(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    struct pb_run *R = h->d->user;
    int i = (int)((const struct pb_kernel *)c->user - kernels);
    size_t n = gc__pb_out_elems(&R->z[i]);
    int rc;

    if ((rc = gc__dev_read(h->s->dev, R->out[i], 0, R->scratch, n * sizeof(float))))
        return rc;
    read_attrs(h, c, R, i);
    rc = gc__pb_check(&kernels[i], &R->z[i], (const float *const *)R->host_in[i], R->scratch, msg,
                      len);
    if (rc) {
        char tmp[512];

        snprintf(tmp, sizeof(tmp), "%s: %s", kernels[i].name, msg);
        snprintf(msg, len, "%s", tmp);
    }
    return rc;
}

struct input_job {
    float *dst;
    uint64_t st; /* the generator's state before value 0 */
};

static float input_value(uint64_t *st)
{
    return (float)((double)(gc__xorshift64s(st) >> 40) * 0x1p-23 - 1.0);
}

/* Values lo .. hi - 1 of the stream, from the states the values before
 * them leave: the same values one pass over the buffer gives. The range is
 * made as four parts in step, so that the generator's four chains of
 * dependent shifts overlap. */
static void input_range(void *ctx, size_t lo, size_t hi)
{
    const struct input_job *J = ctx;
    size_t q = (hi - lo) / 4, at[4];
    uint64_t st[4];

    for (int p = 0; p < 4; p++) {
        at[p] = lo + (size_t)p * q;
        st[p] = gc__xorshift64s_jump(J->st, at[p]);
    }
    for (size_t e = 0; e < q; e++)
        for (int p = 0; p < 4; p++)
            J->dst[at[p] + e] = input_value(&st[p]);
    for (size_t e = at[3] + q; e < hi; e++)
        J->dst[e] = input_value(&st[3]);
}

/* n values uniform in [-1, 1) from the generator state *st (advanced past
 * them), in a new host buffer uploaded to a new device buffer. The parts
 * are made in parallel: FDTD-2D's fields take hundreds of MB on a GPU. */
static int make_input(struct gc_session *s, uint64_t *st, size_t n, float **host,
                      struct gc_buf **buf)
{
    float *hbuf = malloc(n * sizeof(float));
    struct input_job J = {hbuf, *st};

    *host = hbuf;
    if (!hbuf)
        return GC_ENOMEM;
    gc__parallel_for(n, (size_t)1 << 16, input_range, &J);
    *st = gc__xorshift64s_jump(*st, n);
    int rc = gc__dev_alloc(s->dev, n * sizeof(float), buf);

    return rc ? rc : gc__dev_write(s->dev, *buf, 0, hbuf, n * sizeof(float));
}

/* Inputs uniform in [-1, 1) from the run's seed, uploaded; FDTD-2D's steps
 * share its three fields (each made once), as the program does. */
static int fill_inputs(struct gc_session *s, struct pb_run *R, int i)
{
    uint64_t st = s->seed ^ (0x9B1ULL * (uint64_t)(i + 1));
    int rc = 0;

    for (int a = 0; a < kernels[i].nin && rc == 0; a++) {
        size_t n = gc__pb_in_elems(&kernels[i], &R->z[i], a);

        if (kernels[i].kind <= PB_FDTD3) {
            int f = fdtd_field[kernels[i].kind - PB_FDTD1][a];
            uint64_t fst = s->seed ^ (0xFD7DULL * (uint64_t)(f + 1));

            if (!R->field_host[f])
                rc = make_input(s, &fst, n, &R->field_host[f], &R->field_buf[f]);
            R->host_in[i][a] = R->field_host[f];
            R->in[i][a] = R->field_buf[f];
        } else {
            rc = make_input(s, &st, n, &R->host_in[i][a], &R->in[i][a]);
        }
    }
    if (rc)
        return rc;
    size_t no = gc__pb_out_elems(&R->z[i]);
    if (no > R->scratch_elems)
        R->scratch_elems = no;
    return s->dev->info.type == GC_DEVICE_CPU
               ? 0
               : gc__dev_alloc(s->dev, no * sizeof(float), &R->out[i]);
}

static int pb_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h)
{
    struct pb_run *R = calloc(1, sizeof(*R));
    int rc = 0;

    if (!R)
        return GC_ENOMEM;
    /* Every kernel is a figure: each measured in full, none screened. */
    R->desc = (struct gc_hdesc){
        .refine_top = NK, .setup = pb_setup, .before = pb_before, .verify = pb_verify, .user = R};
    gc__harness_init(h, s, r, &R->desc);
    R->fdtd_bounded = gc__pb_plan_sizes(&s->dev->info, s->profile, R->z);
    for (int i = 0; i < NK && rc == 0; i++) {
        struct gc_hconf *c = gc__harness_add(h);

        if (!c)
            return GC_ENOMEM;
        snprintf(c->label, sizeof(c->label), "pb_%s", kernels[i].name);
        c->src = gc__pb_source(&kernels[i], &R->z[i], s->dev->ops->dialect);
        c->kernel = c->label; /* the source's kernel name is "pb_<name>" too */
        c->series = -1;
        c->user = &kernels[i];
        if (!c->src)
            return GC_ENOMEM;
        rc = fill_inputs(s, R, i);
    }
    if (rc == 0 && !(R->scratch = malloc(R->scratch_elems * sizeof(float))))
        rc = GC_ENOMEM;
    if (rc == 0 && s->dev->info.type == GC_DEVICE_CPU) {
        rc = gc__dev_alloc(s->dev, R->scratch_elems * sizeof(float), &R->out_shared);
        for (int i = 0; i < NK && rc == 0; i++)
            R->out[i] = R->out_shared;
    }
    return rc;
}

static int record(const struct gc_harness *h, const struct gc_hconf *c)
{
    const struct pb_run *R = h->d->user;
    int i = (int)((const struct pb_kernel *)c->user - kernels);
    const struct pb_size *z = &R->z[i];
    struct gc_app_work w;
    int rc;
    char name[64], note[400];

    gc__pb_work(&kernels[i], z, h->s->dev->info.type != GC_DEVICE_GPU, &w);
    w.regs_per_thread = R->regs[i];
    w.shared_per_block = (double)R->shared[i];
    if ((rc = gc__app_work_put(h->r, kernels[i].name, &w)))
        return rc;
    snprintf(name, sizeof(name), "%s.time", kernels[i].name);
    snprintf(note, sizeof(note), "median per launch; %s (%s), %d x %d outputs%s, 32 x 8 blocks%s",
             kernels[i].name, kernels[i].program, z->rows, z->cols,
             z->k ? ", inner dimension as large" : "",
             R->fdtd_bounded && kernels[i].kind <= PB_FDTD3
                 ? "; below the LLC: FDTD-2D stops growing where one step-3 launch would "
                   "pass memory.dram's CPU time bound (1 GiB; 4 GiB with --full; a quarter "
                   "of it with --quick)"
                 : "");
    if (!gc__bench_add_metric(h->r, name, c->m.seconds.median, "s", NAN, &c->m.seconds, note))
        return GC_ENOMEM;
    snprintf(name, sizeof(name), "%s.warps_per_cu", kernels[i].name);
    if (!gc__bench_add_metric(
            h->r, name, R->attrs[i] ? R->warps_per_cu[i] : NAN, "warps", NAN, NULL,
            "resident warps of 32 threads per CU as launched: the occupancy API, else the "
            "device's thread, block, register and shared-memory limits"))
        return GC_ENOMEM;
    return 0;
}

static int pb_derive(struct gc_session *s, const struct gc_harness *h, const char *bench)
{
    int rc = 0;

    (void)s;
    (void)bench;
    for (int i = 0; i < h->ncfg && rc == 0; i++)
        if (h->cfg[i].state == GC_H_REFINED)
            rc = record(h, &h->cfg[i]);
    if (h->best >= 0) {
        h->r->context = h->cfg[h->best].m.ctx;
        snprintf(h->r->stop_rule, sizeof(h->r->stop_rule), "%s", h->cfg[h->best].m.stop_rule);
    }
    return rc;
}

static void pb_release(struct gc_session *s, struct gc_harness *h)
{
    struct pb_run *R = h->d ? h->d->user : NULL;

    gc__harness_free(h);
    if (!R)
        return;
    for (int i = 0; i < NK; i++) {
        for (int a = 0; a < PB_MAX_IN && kernels[i].kind > PB_FDTD3; a++) {
            free(R->host_in[i][a]);
            gc__dev_free(s->dev, R->in[i][a]);
        }
        if (R->out[i] != R->out_shared)
            gc__dev_free(s->dev, R->out[i]);
    }
    gc__dev_free(s->dev, R->out_shared);
    for (int f = 0; f < 3; f++) {
        free(R->field_host[f]);
        gc__dev_free(s->dev, R->field_buf[f]);
    }
    free(R->scratch);
    free(R);
}

static int run_polybench(struct gc_session *s, const struct gc_bench *self,
                         struct gc_bench_result *r)
{
    static const struct gc_hbench hb = {pb_plan, pb_derive, pb_release};

    return gc__harness_bench(s, r, self->info.name, &hb);
}

const struct gc_bench gc__bench_polybench = {
    .info =
        {
            .name = "application.polybench",
            .group = "application",
            .summary = "gpumembench SV: the nine kernels of FDTD-2D, GEMM, 3MM, SYR2K and SYRK, "
                       "verified, timed, with their work, predicted time and attained "
                       "bandwidth beside the measured peaks (Table IV)",
            .method =
                "Konstantinidis & Cotronis SV: the five polybench-gpu programs with the most L2 "
                "traffic (FDTD-2D steps 1-3, GEMM, 3MM kernels 1-3, SYR2K, SYRK), each kernel "
                "written from PolyBench's definition, one output element per thread in "
                "polybench-gpu's 32 x 8 blocks, fp32 data uniform in [-1, 1), outputs to a "
                "separate buffer. Sizes: the paper's on a GPU (FDTD-2D 2048^2, GEMM and 3MM "
                "512, SYRK and SYR2K 1024), halved for --quick, smaller on CPU devices; "
                "FDTD-2D grown until each array is at least the last-level cache (on a CPU "
                "while one launch moves at most memory.dram's time bound); all halved "
                "until they take at most a quarter of device memory. Each kernel is measured "
                "with the engine's stopping rule (median time per launch), every measurement's "
                "output poisoned before and checked against a double-precision host reference "
                "within the fp32 error bound gamma_n sum|terms|. The generator counts each "
                "launch's work (fp32 and index operations, bytes per level: DRAM compulsory, "
                "L2 distinct sectors per block, L1 sectors per warp request); the profile "
                "predicts each time from it (roofline over the measured peaks and Volkov's "
                "latency bound, docs/methodology.md) and sets the attained bandwidth of the "
                "dominant level beside the measured peak of that level.",
        },
    .needs_caps = 0,
    .run = run_polybench,
    .expect_s = 20,
};
