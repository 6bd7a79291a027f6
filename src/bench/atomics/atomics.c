/* memory.atomics: atomic-add throughput in global and shared memory for
 * 32-bit integers, 32-bit floats and 64-bit integers, from every thread on
 * its own address to the whole grid on one address. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/atomics/atomics.h"
#include "bench/bench.h"
#include "bench/launchcfg.h"
#include "util/random.h"
#include "core/cpulimits.h"
#include "core/stats.h"
#include "core/harness.h"
#include "core/kcache.h"
#include "kgen/kgen.h"

#define AT_BLOCK 256
#define AT_SHIFT_BLOCK 8 /* log2(AT_BLOCK) */
#define AT_UNROLL 8      /* atomics in one trip of the timed loop */
/* At most this many additions land on one address, so that float sums of
 * integer addends 1..4 onto integer starts below 1024 stay below 2^24: every
 * partial sum is then exact and the result is independent of the order. */
#define AT_MAX_PER_ADDR (1u << 22)

enum at_type { AT_U32, AT_F32, AT_U64 };
enum at_space { AT_GLOBAL, AT_SHARED };

static const char *const type_names[] = {"u32", "f32", "u64"};
static const char *const type_c[] = {"GC_U32", "float", "GC_U64"};
static const char *const type_op[] = {"GC_ATOMIC_ADD_U32", "GC_ATOMIC_ADD_F32",
                                      "GC_ATOMIC_ADD_U64"};
static const int type_bytes[] = {4, 4, 8};

struct at_mode {
    const char *name;
    unsigned shift_global; /* address = thread >> shift */
    int sharers;           /* threads per address; 0 = the whole grid */
};

static const struct at_mode modes[] = {
    {"distinct", 0, 1},
    {"warp", 5, 32},
    {"block", AT_SHIFT_BLOCK, AT_BLOCK},
    {"grid", 31, 0},
};

/* Each thread adds its addend AT_UNROLL x trips times to one address. The
 * address is thread >> shift with shift a run-time value, so the compiler
 * cannot prove it uniform and rewrite the loop as a warp-aggregated atomic:
 * what runs is one atomic per thread per add. */
static char *gen_atomic(enum gc_dialect d, unsigned flags, enum at_type t, enum at_space sp)
{
    struct gc_sbuf b;
    const char *ty = type_c[t], *op = type_op[t];

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, flags);
    if (sp == AT_GLOBAL)
        gc__sbuf_printf(&b,
                        "GC_KERNEL void gc_atomic(GC_GLOBAL const %s *add, GC_GLOBAL %s *tgt, "
                        "GC_U32 shift, GC_U32 trips GC_TS_PARAM)\n{\n"
                        "    GC_TS_BEGIN\n"
                        "    GC_U32 g = GC_GID;\n"
                        "    %s a = add[g];\n"
                        "    GC_GLOBAL %s *p = tgt + (g >> shift);\n",
                        ty, ty, ty, ty);
    else
        gc__sbuf_printf(&b,
                        "GC_KERNEL void gc_atomic(GC_GLOBAL const %s *add, GC_GLOBAL %s *tgt, "
                        "GC_U32 shift, GC_U32 trips GC_TS_PARAM GC_DYN_SHARED_PARAM(%s, sm))\n{\n"
                        "    GC_DYN_SHARED_DECL(%s, sm)\n"
                        "    GC_TS_BEGIN\n"
                        "    GC_U32 g = GC_GID, tid = GC_TID;\n"
                        "    sm[tid] = tgt[g];\n"
                        "    GC_BARRIER();\n"
                        "    %s a = add[g];\n"
                        "    GC_U32 idx = tid >> shift;\n",
                        ty, ty, ty, ty, ty);
    /* trips is a run-time value; the loop stays as written so that its body
     * holds exactly AT_UNROLL atomics. */
    gc__sbuf_puts(&b, "#pragma unroll 1\n    for (GC_U32 i = 0; i < trips; i++) {\n");
    for (int u = 0; u < AT_UNROLL; u++)
        gc__sbuf_printf(&b, "        %s(%s, a);\n", op, sp == AT_GLOBAL ? "p" : "&sm[idx]");
    gc__sbuf_puts(&b, "    }\n");
    if (sp == AT_SHARED)
        gc__sbuf_puts(&b, "    GC_BARRIER();\n    tgt[g] = sm[tid];\n");
    gc__sbuf_puts(&b, "    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

/* Addends and starting values: random words for the integers (sums wrap);
 * small integers for floats (sums exact, see AT_MAX_PER_ADDR). */
static void make_data(enum at_type t, uint64_t seed, size_t n, void *add, void *init)
{
    uint64_t st = seed ? seed : 1;

    for (size_t i = 0; i < n; i++) {
        uint64_t x = gc__xorshift64s(&st), y = gc__xorshift64s(&st);
        switch (t) {
        case AT_U32:
            ((uint32_t *)add)[i] = (uint32_t)x;
            ((uint32_t *)init)[i] = (uint32_t)y;
            break;
        case AT_F32:
            ((float *)add)[i] = (float)(1 + x % 4);
            ((float *)init)[i] = (float)(y % 1024);
            break;
        default:
            ((uint64_t *)add)[i] = x;
            ((uint64_t *)init)[i] = y;
            break;
        }
    }
}

/* Checks the targets after one launch against the host's sums: 0, or
 * GC_EVERIFY with the first wrong counter in msg. */
static int verify(enum at_type t, enum at_space sp, unsigned shift, size_t nthreads,
                  uint64_t ops_per_thread, const void *add, const void *init, const void *got,
                  char *msg, size_t len)
{
    /* Shared counters live per block, thread tid of block b writing slot
     * tid; global counters are shared across blocks. */
    size_t ntgt = sp == AT_SHARED ? nthreads : shift >= 31 ? 1 : nthreads >> shift;
    double *fexp = NULL;
    uint64_t *iexp = NULL;
    int rc = 0;

    if (t == AT_F32)
        fexp = calloc(ntgt, sizeof(*fexp));
    else
        iexp = calloc(ntgt, sizeof(*iexp));
    if (!fexp && !iexp)
        return GC_ENOMEM;
    for (size_t i = 0; i < ntgt; i++) {
        if (t == AT_F32)
            fexp[i] = ((const float *)init)[i];
        else
            iexp[i] = t == AT_U32 ? ((const uint32_t *)init)[i] : ((const uint64_t *)init)[i];
    }
    for (size_t g = 0; g < nthreads; g++) {
        size_t k;
        if (sp == AT_SHARED)
            k = g / AT_BLOCK * AT_BLOCK + ((g % AT_BLOCK) >> shift);
        else
            k = shift >= 31 ? 0 : g >> shift;
        if (t == AT_F32)
            fexp[k] += (double)((const float *)add)[g] * (double)ops_per_thread;
        else if (t == AT_U32)
            iexp[k] += (uint64_t)((const uint32_t *)add)[g] * ops_per_thread;
        else
            iexp[k] += ((const uint64_t *)add)[g] * ops_per_thread;
    }
    for (size_t i = 0; i < ntgt && rc == 0; i++) {
        if (t == AT_F32) {
            double want = fexp[i], have = ((const float *)got)[i];

            /* Exact by construction: integer partial sums below 2^24. */
            if (!(want < 16777216.0 && have == want)) {
                snprintf(msg, len, "counter %zu is %.1f, expected %.1f", i, have, want);
                rc = GC_EVERIFY;
            }
        } else {
            uint64_t want = t == AT_U32 ? (uint32_t)iexp[i] : iexp[i];
            uint64_t have = t == AT_U32 ? ((const uint32_t *)got)[i] : ((const uint64_t *)got)[i];

            if (have != want) {
                snprintf(msg, len, "counter %zu is 0x%llx, expected 0x%llx", i,
                         (unsigned long long)have, (unsigned long long)want);
                rc = GC_EVERIFY;
            }
        }
    }
    free(fexp);
    free(iexp);
    return rc;
}

/* Blocks per CU of every launch: the CU full. */
static int full_per_cu(const struct gc_device_info *info)
{
    return info->max_threads_per_cu >= AT_BLOCK ? info->max_threads_per_cu / AT_BLOCK : 4;
}

/* ---- the description ----------------------------------------------------- */

struct at_cfg {
    enum at_space sp;
    enum at_type t;
    const struct at_mode *md;
    uint64_t trips;
};

#define AT_MAX_CFG 24

struct gc_atomics_run {
    struct gc_hdesc desc;
    struct at_cfg cfg[AT_MAX_CFG];
    unsigned flags;
    int per_cu;
    unsigned grid;
    size_t nthreads;
    void *add[3], *init[3]; /* per type: the addends and starting values */
    void *got;
    struct gc_buf *addb, *tgt;
    int s0; /* the first of the benchmark's series */
};

static int at_setup(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out)
{
    const struct gc_atomics_run *ar = h->d->user;
    const struct at_cfg *cf = c->user;
    struct gc_device *d = h->s->dev;
    int na = 4, rc;

    snprintf(out->desc, sizeof(out->desc), "%s %s, %s", cf->sp == AT_GLOBAL ? "global" : "shared",
             type_names[cf->t], cf->md->name);
    out->args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = ar->addb};
    out->args[1] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = ar->tgt};
    out->args[2] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = cf->md->shift_global};
    out->args[3] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)cf->trips};
    if (ar->flags & GC_KGEN_TIMESTAMPS) {
        if ((rc = gc__dev_alloc(d, (size_t)ar->grid * GC_TS_WORDS * 8, &out->own[0])))
            return rc;
        out->ts = (struct gc_timestamps){out->own[0], ar->grid};
        out->args[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = out->own[0]};
    }
    out->l = (struct gc_launch){{ar->grid, 1, 1},
                                {AT_BLOCK, 1, 1},
                                cf->sp == AT_SHARED ? AT_BLOCK * (size_t)type_bytes[cf->t] : 0,
                                out->args,
                                na,
                                1};
    out->work = (double)ar->nthreads * (double)cf->trips * AT_UNROLL;
    return 0;
}

/* The type's addends and the counters' starting values. */
static int at_before(struct gc_harness *h, struct gc_hconf *c)
{
    const struct gc_atomics_run *ar = h->d->user;
    const struct at_cfg *cf = c->user;
    size_t bytes = ar->nthreads * (size_t)type_bytes[cf->t];
    int rc = gc__dev_write(h->s->dev, ar->addb, 0, ar->add[cf->t], bytes);

    return rc ? rc : gc__dev_write(h->s->dev, ar->tgt, 0, ar->init[cf->t], bytes);
}

/* One launch from the starting values, every counter checked on the host. */
static int at_verify(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    const struct gc_atomics_run *ar = h->d->user;
    const struct at_cfg *cf = c->user;
    struct gc_device *d = h->s->dev;
    size_t bytes = ar->nthreads * (size_t)type_bytes[cf->t];
    struct gc_launch one = c->hl.l;
    double el;
    int rc;

    one.count = 1;
    if ((rc = gc__dev_write(d, ar->tgt, 0, ar->init[cf->t], bytes)) ||
        (rc = gc__dev_launch(d, c->k, &one, &el)) ||
        (rc = gc__dev_read(d, ar->tgt, 0, ar->got, bytes)))
        return rc;
    return verify(cf->t, cf->sp, cf->md->shift_global, ar->nthreads, cf->trips * AT_UNROLL,
                  ar->add[cf->t], ar->init[cf->t], ar->got, msg, len);
}

/* Two series per space and type: ops/s and ops/clk/CU over the modes. */
static int add_series(struct gc_session *s, struct gc_bench_result *r)
{
    for (int sp = 0; sp < 2; sp++)
        for (int t = 0; t < 3; t++) {
            char name[48], yname[80];
            const char *spn = sp == AT_GLOBAL ? "global" : "shared";

            snprintf(name, sizeof(name), "%s_%s_ops", spn, type_names[t]);
            /* CUDA has no shared 64-bit atomic add instruction (at_sass): the
             * rate is that of a compare-and-swap loop, and the output says so. */
            snprintf(yname, sizeof(yname), "%s atomic adds (%s%s)", spn, type_names[t],
                     s->dev->arch.sm && sp == AT_SHARED && t == AT_U64 ? "; a compare-and-swap loop"
                                                                       : "");
            if (!gc__bench_add_series(r, name, "threads per address (0 = whole grid)", "threads",
                                      yname, "ops/s"))
                return GC_ENOMEM;
            snprintf(name, sizeof(name), "%s_%s_ops_per_clk_per_cu", spn, type_names[t]);
            if (!gc__bench_add_series(r, name, "threads per address (0 = whole grid)", "threads",
                                      yname, "ops/clk/CU"))
                return GC_ENOMEM;
        }
    return 0;
}

/* Per space and type, every mode (shared memory has no grid-wide
 * address), its trips bounded by AT_MAX_PER_ADDR adds per address. */
static int plan_cfgs(struct gc_session *s, struct gc_harness *h, struct gc_atomics_run *ar)
{
    struct gc_device *d = s->dev;
    uint64_t max_trips = d->info.type == GC_DEVICE_GPU ? 64 : 8;

    for (int sp = 0; sp < 2; sp++)
        for (int t = 0; t < 3; t++)
            for (int mi = 0; mi < 4; mi++) {
                const struct at_mode *md = &modes[mi];
                size_t sharers = md->sharers ? (size_t)md->sharers : ar->nthreads;
                uint64_t trips = AT_MAX_PER_ADDR / (sharers * AT_UNROLL);
                struct gc_hconf *c;

                if (sp == AT_SHARED && md->sharers == 0)
                    continue;
                if (h->ncfg >= AT_MAX_CFG || !(c = gc__harness_add(h)))
                    return GC_ENOMEM;
                ar->cfg[h->ncfg - 1] = (struct at_cfg){(enum at_space)sp, (enum at_type)t, md,
                                                       trips < 1           ? 1
                                                       : trips > max_trips ? max_trips
                                                                           : trips};
                c->user = &ar->cfg[h->ncfg - 1];
                snprintf(c->label, sizeof(c->label), "atomic_%s_%s_%s",
                         sp == AT_GLOBAL ? "global" : "shared", type_names[t], md->name);
                c->src = gen_atomic(d->ops->dialect, ar->flags, (enum at_type)t, (enum at_space)sp);
                c->kernel = "gc_atomic";
            }
    return 0;
}

/* The run's compile plan: the kernels plan_cfgs requests, one per space
 * and type (the modes share them). */
static int plan_atomics(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out,
                        int *n)
{
    struct gc_device *d = s->dev;
    unsigned flags = gc__harness_ts_flags(&d->info);
    struct gc_ksrc *k = calloc(6, sizeof(*k));
    int m = 0;

    (void)self;
    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    for (int sp = 0; sp < 2; sp++)
        for (int t = 0; t < 3; t++) {
            snprintf(k[m].label, sizeof(k[m].label), "atomic_%s_%s",
                     sp == AT_GLOBAL ? "global" : "shared", type_names[t]);
            if (!(k[m++].src =
                      gen_atomic(d->ops->dialect, flags, (enum at_type)t, (enum at_space)sp))) {
                gc__ksrc_free(k, m);
                return GC_ENOMEM;
            }
        }
    *out = k;
    *n = m;
    return 0;
}

/* The host's data per type, the device's addends and counters. */
static int alloc_run(struct gc_session *s, struct gc_atomics_run *ar)
{
    size_t n = ar->nthreads;
    int rc;

    for (int t = 0; t < 3; t++) {
        ar->add[t] = malloc(n * 8);
        ar->init[t] = malloc(n * 8);
        if (!ar->add[t] || !ar->init[t])
            return GC_ENOMEM;
        make_data((enum at_type)t, s->seed ^ (0xA70ULL + (uint64_t)t), n, ar->add[t], ar->init[t]);
    }
    if (!(ar->got = malloc(n * 8)))
        return GC_ENOMEM;
    if ((rc = gc__dev_alloc(s->dev, n * 8, &ar->addb)))
        return rc;
    return gc__dev_alloc(s->dev, n * 8, &ar->tgt);
}

int gc__atomics_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h)
{
    const struct gc_device_info *info = &s->dev->info;
    struct gc_atomics_run *ar = calloc(1, sizeof(*ar));
    int rc;

    if (!ar) {
        snprintf(s->dev->err, sizeof(s->dev->err), "out of host memory");
        return GC_ENOMEM;
    }
    ar->flags = gc__harness_ts_flags(info);
    ar->per_cu = full_per_cu(info);
    ar->grid = (unsigned)(ar->per_cu * (info->compute_units > 0 ? info->compute_units : 1));
    ar->nthreads = (size_t)ar->grid * AT_BLOCK;
    /* Every configuration is a point of a series: each in full. */
    ar->desc = (struct gc_hdesc){
        .refine_top = AT_MAX_CFG,
        .setup = at_setup,
        .before = at_before,
        .verify = at_verify,
        .user = ar,
    };
    gc__harness_init(h, s, r, &ar->desc);
    ar->s0 = r->nseries;
    if ((rc = add_series(s, r)) || (rc = plan_cfgs(s, h, ar)))
        return rc;
    return alloc_run(s, ar);
}

void gc__atomics_free(struct gc_session *s, struct gc_harness *h)
{
    struct gc_atomics_run *ar = h->d ? h->d->user : NULL;

    gc__harness_free(h);
    if (!ar)
        return;
    for (int t = 0; t < 3; t++) {
        free(ar->add[t]);
        free(ar->init[t]);
    }
    free(ar->got);
    gc__dev_free(s->dev, ar->addb);
    gc__dev_free(s->dev, ar->tgt);
    free(ar);
}

/* ---- the figures ---------------------------------------------------------- */

/* The u32 headline figures: distinct addresses, the whole grid on one word
 * (global), a block on one word (shared). */
static void u32_metric(const struct gc_harness *h, const struct gc_atomics_run *ar,
                       const struct gc_hconf *c)
{
    const struct at_cfg *cf = c->user;
    const struct at_mode *md = cf->md;
    char mname[64], note[160];

    if (!(cf->t == AT_U32 && (md->sharers == 1 || md->sharers == 0 ||
                              (cf->sp == AT_SHARED && md->sharers == AT_BLOCK))))
        return;
    snprintf(mname, sizeof(mname), "%s_atomic_u32_%s", cf->sp ? "shared" : "global",
             md->sharers == 1 ? "distinct" : "same_address");
    snprintf(note, sizeof(note),
             "atomic adds per second, %s; %d blocks of %d per CU, %llu adds per thread",
             md->sharers == 1   ? "every thread on its own word"
             : md->sharers == 0 ? "the whole grid on one word"
                                : "every thread of a block on one word",
             ar->per_cu, AT_BLOCK, (unsigned long long)(cf->trips * AT_UNROLL));
    /* CPU devices: each atomic is at least one scalar store. */
    gc__bench_add_metric(h->r, mname, c->value, "ops/s", gc__cpu_atomics_limit(&h->s->dev->info),
                         &c->stats, note);
}

int gc__atomics_derive(struct gc_session *s, const struct gc_harness *h, const char *bench)
{
    const struct gc_atomics_run *ar = h->d->user;
    int cus = s->dev->info.compute_units;
    const struct gc_hconf *first = NULL;
    int rc = 0;

    for (int i = 0; i < h->ncfg && rc == 0; i++) {
        const struct gc_hconf *c = &h->cfg[i];
        const struct at_cfg *cf = c->user;
        int si = ar->s0 + (cf->sp * 3 + cf->t) * 2;

        if (c->state != GC_H_REFINED)
            continue;
        first = first ? first : c;
        gc__series_add(&h->r->series[si], (double)cf->md->sharers, c->value, &c->stats,
                       cf->md->name);
        if (isfinite(c->m.clock_mhz) && cus > 0) {
            struct gc_stats pc = c->stats;

            gc__stats_scale(&pc, 1.0 / (c->m.clock_mhz * 1e6 * cus));
            gc__series_add(&h->r->series[si + 1], (double)cf->md->sharers, pc.median, &pc,
                           cf->md->name);
        }
        u32_metric(h, ar, c);
        /* The configuration of the energy meter's launch (atomics_launch_at). */
        if (cf->t == AT_U32 && cf->sp == AT_GLOBAL && cf->md->sharers == 1 &&
            !(rc = gc__config_set_num(h->r, NULL, "blocks_per_cu", ar->per_cu)))
            rc = gc__config_set_num(h->r, NULL, "trips", cf->trips);
    }
    if (first) {
        h->r->context = first->m.ctx;
        snprintf(h->r->stop_rule, sizeof(h->r->stop_rule), "%s", first->m.stop_rule);
    }
    return rc;
}

static int run_atomics(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    static const struct gc_hbench hb = {gc__atomics_plan, gc__atomics_derive, gc__atomics_free};

    return gc__harness_bench(s, r, self->info.name, &hb);
}

/* The SASS of each CUDA kernel's loop, per space and type. A global add
 * whose result is unused compiles to a reduction: RED up to sm_89, REDG
 * (with its scope, and the float's rounding) from sm_90 on. Shared 32-bit
 * adds are ATOMS.ADD. Shared 64-bit adds have no instruction of their own
 * (sm_75 to sm_90): each is a load and a compare-and-swap retried until it
 * lands, LDS.64 + ATOMS.CAST.SPIN.64 in a spin loop of its own; the timed
 * loop is the one around the 8 of them (it holds the most CAS). The shared
 * f32 add has no single-instruction form on every architecture and is not
 * declared. */
static const struct gc_sass_expect at_sass[2][3][2] = {
    [AT_GLOBAL] =
        {
            [AT_U32] = {{"sm_70-89:RED.E.ADD.STRONG", AT_UNROLL},
                        {"sm_90+:REDG.E.ADD.STRONG.GPU", AT_UNROLL}},
            [AT_F32] = {{"sm_70-89:RED.E.ADD.F32", AT_UNROLL},
                        {"sm_90+:REDG.E.ADD.F32.FTZ.RN.STRONG.GPU", AT_UNROLL}},
            [AT_U64] = {{"sm_70-89:RED.E.ADD.64", AT_UNROLL},
                        {"sm_90+:REDG.E.ADD.64.STRONG.GPU", AT_UNROLL}},
        },
    [AT_SHARED] =
        {
            [AT_U32] = {{"ATOMS.ADD", AT_UNROLL}, {NULL, 0}},
            [AT_F32] = {{NULL, 0}, {NULL, 0}},
            [AT_U64] = {{"ATOMS.CAST.SPIN.64", AT_UNROLL}, {"LDS.64", AT_UNROLL}},
        },
};

static int sources_atomics(const struct gc_bench *self, const struct gc_device_info *info,
                           struct gc_ksrc **out, int *n)
{
    struct gc_ksrc *k = calloc(5, sizeof(*k));
    int m = 0;

    (void)self;
    (void)info;
    *out = NULL;
    *n = 0;
    if (!k)
        return GC_ENOMEM;
    for (int sp = 0; sp < 2; sp++)
        for (int t = 0; t < 3; t++) {
            const struct gc_sass_expect *e = at_sass[sp][t];
            if (!e[0].mnemonic)
                continue;
            snprintf(k[m].label, sizeof(k[m].label), "atomic_%s_%s",
                     sp == AT_GLOBAL ? "global" : "shared", type_names[t]);
            k[m].src =
                gen_atomic(gc__kgen_inspect_dialect(), 0, (enum at_type)t, (enum at_space)sp);
            for (int i = 0; i < 2 && e[i].mnemonic; i++)
                k[m].expect[k[m].nexpect++] = e[i];
            if (!k[m].src) {
                gc__ksrc_free(k, 5);
                return GC_ENOMEM;
            }
            m++;
        }
    *out = k;
    *n = m;
    return 0;
}

static int atomics_launch_at(struct gc_session *s, const struct gc_bench *self,
                             const struct gc_config_ask *ask, struct gc_meter_launch *w);

/* At most ten samples of the profile's length per measurement (five with
 * --quick): global atomics that share addresses are arbitrated afresh in
 * every launch, and their rate moves by 0.5-1.7% from sample to sample on
 * an H200, so the 0.5% spread rule ran those points to their 25th sample
 * (0.4-0.6 s of the benchmark's 0.9-1.5 s) for a median that ten give
 * within that spread. Distinct addresses (the headline figures) stop at
 * three samples as before. */
#define AT_SAMPLING_S 0.03

const struct gc_bench gc__bench_atomics = {
    .info =
        {
            .name = "memory.atomics",
            .group = "memory",
            .summary = "atomic-add throughput (ops/s, ops/clk/CU) in global and shared memory, "
                       "u32/f32/u64, distinct vs shared addresses",
            .method =
                "Every thread adds its own addend to one address 8 x trips times (8 atomics "
                "per loop trip); the address is thread >> shift, shift a run-time argument so "
                "the compiler cannot aggregate: shift 0 = a word per thread, 5 = per warp, "
                "8 = per block of 256, 31 = one word for the whole grid (global only). Types: "
                "32-bit int, 32-bit float, 64-bit int (OpenCL: atomic_add, atom_add with "
                "cl_khr_int64_base_atomics, and a float add emulated with two atomic_xchg). "
                "Global results are unused, so CUDA emits reductions (RED; REDG from sm_90); "
                "shared counters are loaded from global memory, updated with ATOMS, and "
                "written back. CUDA has no shared 64-bit atomic add instruction: each such "
                "add is a load and a compare-and-swap retried until it lands (LDS.64 + "
                "ATOMS.CAST.SPIN.64), so its rate is that loop's and falls with contention "
                "for one address more than a native atomic's would. One "
                "wave of full CUs; at most 2^22 adds per address. Throughput = adds / time "
                "per launch, and per clock per CU at the observed clock. Verification: "
                "counters start from random values, one launch, and every counter is compared "
                "with the host's sum: integers exactly (wrapping), floats exactly too since "
                "addends are integers 1..4 and starts below 1024, keeping every partial sum "
                "an integer below 2^24 whatever the order.",
        },
    .needs_caps = GC_CAP_DYN_SHARED,
    .run = run_atomics,
    .sources = sources_atomics,
    .plan = plan_atomics,
    .launch_at = atomics_launch_at,
    .max_sampling_s = AT_SAMPLING_S,
};

/* ---- workload for the energy meter (bench/launchcfg.h) -------------------- */

/* The shape and trips of memory.atomics' global u32 adds on distinct
 * addresses when the device holds them; else a full device and 64 trips (8
 * on a CPU). */
void gc__atomics_pick(const struct gc_session *s, const struct gc_config_ask *ask,
                      struct gc_best_atomics *c, struct gc_cfg_pick *p)
{
    const struct gc_device_info *info = &s->dev->info;
    struct gc_best_atomics rec, *b = &rec;
    int per_cu = full_per_cu(info);
    const struct gc_bench_result *from = gc__cfg_pick_start(p, "memory.atomics", ask);

    *c = (struct gc_best_atomics){per_cu, info->type == GC_DEVICE_GPU ? 64 : 8};
    if (!from)
        return;
    if (!gc__config_int(from, NULL, "blocks_per_cu", &b->blocks_per_cu) ||
        !gc__config_int(from, NULL, "trips", &b->trips))
        gc__cfg_refuse(p, "its result records no blocks per CU and trips");
    else if (b->blocks_per_cu < 1 || b->blocks_per_cu > per_cu)
        gc__cfg_refuse(p, "%d blocks of %d per CU do not fit on a CU", b->blocks_per_cu, AT_BLOCK);
    else if (b->trips < 1 || (unsigned)b->trips > AT_MAX_PER_ADDR / AT_UNROLL)
        gc__cfg_refuse(p, "%d trips is outside 1..%u", b->trips, AT_MAX_PER_ADDR / AT_UNROLL);
    else {
        *c = *b;
        p->origin = GC_CFG_RESULT;
    }
}

/* Global 32-bit atomic adds, one address per thread (no contention: the
 * atomic units' throughput), at the shape of gc__atomics_pick; the counters
 * are checked after one launch from their starting values. */
static int atomics_launch_at(struct gc_session *s, const struct gc_bench *self,
                             const struct gc_config_ask *ask, struct gc_meter_launch *w)
{
    struct gc_device *d = s->dev;
    const struct gc_device_info *info = &d->info;
    struct gc_best_atomics pc;
    struct gc_cfg_pick pick;

    (void)self;
    gc__atomics_pick(s, ask, &pc, &pick);
    int per_cu = pc.blocks_per_cu;
    unsigned grid = (unsigned)(per_cu * (info->compute_units > 0 ? info->compute_units : 1));
    size_t nthreads = (size_t)grid * AT_BLOCK;
    uint32_t trips = (uint32_t)pc.trips;
    char msg[200];
    void *add, *init, *got;
    int rc;
    double el;

    w->req[0].label = "energy_atomic_global_u32";
    w->req[0].src = gen_atomic(d->ops->dialect, 0, AT_U32, AT_GLOBAL);
    w->nreq = 1;
    if (!w->req[0].src)
        return GC_ENOMEM;
    if ((rc = gc__kcache_build(s, w->req, 1)))
        return rc;
    if ((rc = d->ops->kernel(w->req[0].prog, "gc_atomic", &w->k))) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return rc;
    }
    add = w->host[0] = malloc(nthreads * 4);
    init = w->host[1] = malloc(nthreads * 4);
    got = w->host[2] = malloc(nthreads * 4);
    if (!add || !init || !got)
        return GC_ENOMEM;
    make_data(AT_U32, s->seed ^ 0xA70ULL, nthreads, add, init);
    if ((rc = gc__dev_alloc(d, nthreads * 4, &w->bufs[0])) ||
        (rc = gc__dev_alloc(d, nthreads * 4, &w->bufs[1])) ||
        (rc = gc__dev_write(d, w->bufs[0], 0, add, nthreads * 4)) ||
        (rc = gc__dev_write(d, w->bufs[1], 0, init, nthreads * 4)))
        return rc;
    w->args[0] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[0]};
    w->args[1] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = w->bufs[1]};
    w->args[2] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = 0};
    w->args[3] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = trips};
    w->l = (struct gc_launch){{grid, 1, 1}, {AT_BLOCK, 1, 1}, 0, w->args, 4, 1};
    {
        struct gc_launch one = w->l;

        one.count = 1;
        if ((rc = gc__dev_launch(d, w->k, &one, &el)) ||
            (rc = gc__dev_read(d, w->bufs[1], 0, got, nthreads * 4)))
            return rc;
    }
    rc = verify(AT_U32, AT_GLOBAL, 0, nthreads, (uint64_t)trips * AT_UNROLL, add, init, got, msg,
                sizeof(msg));
    if (rc == GC_EVERIFY)
        snprintf(w->why, sizeof(w->why), "verification failed (global u32, distinct addresses): %s",
                 msg);
    if (rc)
        return rc;
    w->ops = (double)nthreads * trips * AT_UNROLL;
    w->bytes = w->ops * 4;
    w->op_unit = "atomic";
    w->transactions = w->ops; /* one read-modify-write of one word each */
    w->spec_per_clk_cu = NAN;
    w->warps_per_cu = per_cu * AT_BLOCK / 32;
    gc__meter_launch_describe(w, &pick, "memory.atomics kernel",
                              "global u32 adds, one address per thread, %d per trip, %u trips, %d "
                              "blocks of %d per CU",
                              AT_UNROLL, trips, per_cu, AT_BLOCK);
    return 0;
}
