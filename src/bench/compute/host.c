/* The host side of compute.<itype>: the chains' random inputs, the kernel
 * arguments, and the check of a launch's chains against the catalogue's host
 * model of one step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/compute/compute.h"
#include "core/devfill.h"
#include "core/minifloat.h"
#include "util/parallel.h"
#include "util/random.h"

size_t gc__compute_vt_bytes(enum gc_vtype vt)
{
    return vt == GC_VT_F64 || vt == GC_VT_U64 ? 8 : 4;
}

/* Host model of one thread: all its chains (and vector lanes) from the
 * inputs, exactly as the kernel steps them. */
static void host_thread(const struct gc_itype *t, const struct compute_cfg *c, const uint64_t *init,
                        uint64_t a, uint64_t b, uint64_t *res)
{
    int n = c->nch, rounds = c->unroll * c->trips;

    for (int l = 0; l < c->vw; l++) {
        uint64_t x[16];

        for (int j = 0; j < n; j++)
            x[j] = init[j * c->vw + l];
        for (int r = 0; r < rounds; r++) {
            if (!t->coupled) {
                for (int j = 0; j < n; j++)
                    x[j] = t->host(x[j], a, a, b);
            } else if (n == 2) {
                x[0] = t->host(x[0], x[1], a, b);
                x[1] = t->host(x[1], x[0], a, b);
            } else {
                uint64_t t0 = x[0];
                for (int j = 0; j + 1 < n; j++)
                    x[j] = t->host(x[j], x[j + 1], a, b);
                x[n - 1] = t->host(x[n - 1], t0, a, b);
            }
        }
        for (int j = 0; j < n; j++)
            res[j * c->vw + l] = x[j];
    }
}

static uint64_t get_elem(const void *buf, size_t i, enum gc_vtype vt)
{
    if (gc__compute_vt_bytes(vt) == 8) {
        uint64_t v;
        memcpy(&v, (const char *)buf + i * 8, 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, (const char *)buf + i * 4, 4);
    return v;
}

/* The relative tolerance of a chain of `rounds` steps: the row's own, or on
 * OpenCL the specification's per-step bound times the steps (each step's
 * relative error passes through the next ones undiminished when the
 * operation's condition number is at most 1, as for 1/x, a/x and sqrt). */
static double chain_tol(const struct gc_itype *t, enum gc_dialect d, int rounds)
{
    double ulp = t->vt == GC_VT_F64 ? ldexp(1.0, -52) : ldexp(1.0, -23);

    if (d != GC_DIALECT_OPENCL || t->ocl_ulp <= 0)
        return t->tol;
    return fmax(t->tol, (double)rounds * t->ocl_ulp * ulp);
}

static bool close_enough(const struct gc_itype *t, double tol, uint64_t got, uint64_t want)
{
    double g, w;

    if (got == want)
        return true;
    if (tol <= 0)
        return false;
    if (t->vt == GC_VT_F32) {
        float fg, fw;
        uint32_t ug = (uint32_t)got, uw = (uint32_t)want;
        memcpy(&fg, &ug, 4);
        memcpy(&fw, &uw, 4);
        g = fg;
        w = fw;
    } else if (t->vt == GC_VT_F64) {
        memcpy(&g, &got, 8);
        memcpy(&w, &want, 8);
    } else {
        return false;
    }
    if (!isfinite(g) || !isfinite(w))
        return false;
    return fabs(g - w) <= tol * fmax(fabs(w), 1e-3);
}

/* The kernel argument a and b as bit patterns of the chain's type. */
static void arg_bits(const struct gc_itype *t, uint64_t *a, uint64_t *b)
{
    if (t->vt == GC_VT_F32) {
        float fa = (float)t->a, fb = (float)t->b;
        uint32_t ua, ub;
        memcpy(&ua, &fa, 4);
        memcpy(&ub, &fb, 4);
        *a = ua;
        *b = ub;
    } else if (t->vt == GC_VT_F64) {
        memcpy(a, &t->a, 8);
        memcpy(b, &t->b, 8);
    } else {
        *a = t->ia;
        *b = t->ib;
    }
}

void gc__compute_fill_args(const struct gc_itype *t, struct gc_arg *args)
{
    switch (t->vt) {
    case GC_VT_F32:
        args[2] = (struct gc_arg){.type = GC_ARG_F32, .v.f32 = (float)t->a};
        args[3] = (struct gc_arg){.type = GC_ARG_F32, .v.f32 = (float)t->b};
        break;
    case GC_VT_F64:
        args[2] = (struct gc_arg){.type = GC_ARG_F64, .v.f64 = t->a};
        args[3] = (struct gc_arg){.type = GC_ARG_F64, .v.f64 = t->b};
        break;
    case GC_VT_U64:
        args[2] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = t->ia};
        args[3] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = t->ib};
        break;
    default:
        args[2] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)t->ia};
        args[3] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)t->ib};
        break;
    }
}

struct inputs_job {
    const struct gc_itype *t;
    unsigned char *buf;
    uint64_t seed;
};

/* Elements lo..hi of the inputs: element i from word i of the counter-based
 * stream, so that any part is made on its own (in parallel) and the whole
 * does not depend on how it was split. */
static void make_inputs_range(void *ctx, size_t lo, size_t hi)
{
    const struct inputs_job *j = ctx;
    const struct gc_itype *t = j->t;

    for (size_t i = lo; i < hi; i++) {
        uint64_t r = gc__hash64(j->seed, i);
        switch (t->vt) {
        case GC_VT_F32: {
            float f = gc__float_from_bits((uint32_t)(r >> 40), (float)t->lo, (float)t->hi);
            memcpy(j->buf + 4 * i, &f, 4);
            break;
        }
        case GC_VT_F64: {
            double u = (double)(r >> 11) * 0x1.0p-53;
            double v = t->lo + (t->hi - t->lo) * u;
            memcpy(j->buf + 8 * i, &v, 8);
            break;
        }
        case GC_VT_H2:
        case GC_VT_BF2: {
            uint32_t w = 0;
            for (int l = 0; l < 2; l++) {
                double v =
                    gc__float_from_bits((uint32_t)(r >> (40 - 24 * l)), (float)t->lo, (float)t->hi);
                uint16_t h = t->vt == GC_VT_H2 ? gc__half_from_double(v) : gc__bf16_from_double(v);
                w |= (uint32_t)h << (16 * l);
            }
            memcpy(j->buf + 4 * i, &w, 4);
            break;
        }
        case GC_VT_U64: {
            uint64_t v = r & t->mask;
            memcpy(j->buf + 8 * i, &v, 8);
            break;
        }
        default: {
            uint32_t v = (uint32_t)(r & t->mask);
            if (v == 0)
                v = 0x9e3779b9u;
            memcpy(j->buf + 4 * i, &v, 4);
            break;
        }
        }
    }
}

void gc__compute_make_inputs(const struct gc_itype *t, void *buf, size_t n, uint64_t seed)
{
    struct inputs_job j = {t, buf, seed};

    gc__parallel_for(n, 65536, make_inputs_range, &j);
}

/* ---- the run ------------------------------------------------------------- */

int gc__compute_vrun_init(struct compute_vrun *v, struct compute_ctx *x,
                          const struct compute_cfg *c, size_t nthreads)
{
    size_t n = nthreads * (size_t)c->nch * (size_t)c->vw;

    memset(v, 0, sizeof(*v));
    v->x = x;
    v->c = c;
    v->nthreads = nthreads;
    v->bytes = n * gc__compute_vt_bytes(x->t->vt);
    v->on_device = x->out2 && v->bytes % 4 == 0;
    /* Read whole only where the device does not compare the outputs; else
     * only the sampled threads' elements are written into g[0]. */
    v->g[0] = malloc(v->bytes ? v->bytes : 1);
    v->g[1] = malloc(v->bytes ? v->bytes : 1);
    return v->g[0] && v->g[1] ? 0 : GC_ENOMEM;
}

void gc__compute_vrun_free(struct compute_vrun *v)
{
    free(v->g[0]);
    free(v->g[1]);
    v->g[0] = v->g[1] = NULL;
}

int gc__compute_vrun_poison(struct compute_vrun *v, int pass)
{
    /* On the device: the host buffer is overwritten by the read anyway. */
    return gc__devfill_word(v->x->s, v->x->out, v->bytes, pass ? 0x00000000u : 0xFFFFFFFFu);
}

int gc__compute_vrun_read(struct compute_vrun *v, int pass)
{
    struct gc_device *d = v->x->s->dev;

    if (v->on_device)
        return pass == 0 ? gc__dev_copy(d, v->x->out2, v->x->out, v->bytes) : 0;
    return gc__dev_read(d, v->x->out, 0, v->g[pass], v->bytes);
}

/* Both outputs on the host: pass 0's from out2, pass 1's from out (a
 * difference to locate, or a device that cannot compare). */
static int read_both(struct compute_vrun *v)
{
    struct gc_device *d = v->x->s->dev;
    int rc = gc__dev_read(d, v->x->out2, 0, v->g[0], v->bytes);

    v->on_device = false;
    return rc ? rc : gc__dev_read(d, v->x->out, 0, v->g[1], v->bytes);
}

/* With the outputs compared on the device: equal, and the sampled threads'
 * elements read into g[0] (n of them, per elements each). */
static int compare_on_device(struct compute_vrun *v, const size_t *ths, int n, size_t per)
{
    struct compute_ctx *x = v->x;
    size_t eb = gc__compute_vt_bytes(x->t->vt);
    struct gc_check ck = {
        .kind = GC_CHECK_EQ, .want = x->out2, .got = x->out, .words = v->bytes / 4};
    char msg[160];
    int rc = gc__devcheck(x->s, &ck, msg, sizeof(msg));

    if (rc == GC_ENOTSUP || rc == GC_EVERIFY)
        return read_both(v);
    for (int i = 0; i < n && rc == 0; i++)
        rc = gc__dev_read(x->s->dev, x->out, ths[i] * per * eb, v->g[0] + ths[i] * per * eb,
                          per * eb);
    return rc;
}

/* The host model of several threads of a launch, each on a host thread of
 * its own (gc__parallel_for): a sampled thread runs the whole chain (10^5
 * steps on a GPU, with a software minifloat for the 16-bit types), so eight
 * of them one after the other took ~0.1 s per check of an fp16x2 kernel. */
struct model_job {
    const struct compute_ctx *x;
    const struct compute_cfg *c;
    const size_t *ths;
    size_t per;
    uint64_t a, b, *want;
};

static void model_range(void *arg, size_t lo, size_t hi)
{
    const struct model_job *j = arg;
    const struct gc_itype *t = j->x->t;
    uint64_t init[16 * 16];

    for (size_t i = lo; i < hi; i++) {
        for (size_t e = 0; e < j->per; e++)
            init[e] = get_elem(j->x->hin, j->ths[i] * j->per + e, t->vt);
        host_thread(t, j->c, init, j->a, j->b, j->want + i * j->per);
    }
}

/* want[i * per ..] = the model of thread ths[i], for i < n (n <= 8). */
static void model_threads(const struct compute_ctx *x, const struct compute_cfg *c,
                          const size_t *ths, int n, uint64_t *want)
{
    struct model_job j = {x, c, ths, (size_t)c->nch * (size_t)c->vw, 0, 0, want};

    arg_bits(x->t, &j.a, &j.b);
    gc__parallel_for((size_t)n, 1, model_range, &j);
}

/* Threads 0 and 1 of n configurations: job i is thread i % 2 of cfg[i / 2],
 * into x->want01[slot[i / 2]]. */
struct model01_job {
    const struct compute_ctx *x;
    const struct compute_cfg *cfg[MAX_CFG];
    int slot[MAX_CFG];
    uint64_t a, b;
};

static void model01_range(void *arg, size_t lo, size_t hi)
{
    const struct model01_job *j = arg;
    const struct gc_itype *t = j->x->t;
    uint64_t init[16 * 16];

    for (size_t i = lo; i < hi; i++) {
        const struct compute_cfg *c = j->cfg[i / 2];
        size_t per = (size_t)c->nch * (size_t)c->vw, th = i % 2;

        for (size_t e = 0; e < per; e++)
            init[e] = get_elem(j->x->hin, th * per + e, t->vt);
        host_thread(t, c, init, j->a, j->b, j->x->want01[j->slot[i / 2]] + th * per);
    }
}

/* x->want01[slot[i]] of configuration cfg[i], for i < n, where not yet
 * computed. */
static int model01(struct compute_ctx *x, const struct compute_cfg *const *cfg, const int *slot,
                   int n)
{
    struct model01_job j = {.x = x};
    int nj = 0;

    for (int i = 0; i < n; i++) {
        if (slot[i] < 0 || x->want01[slot[i]])
            continue;
        size_t per = (size_t)cfg[i]->nch * (size_t)cfg[i]->vw;
        x->want01[slot[i]] = malloc(2 * per * sizeof(uint64_t));
        if (!x->want01[slot[i]])
            return GC_ENOMEM;
        j.cfg[nj] = cfg[i];
        j.slot[nj++] = slot[i];
    }
    arg_bits(x->t, &j.a, &j.b);
    gc__parallel_for((size_t)nj * 2, 1, model01_range, &j);
    return 0;
}

int gc__compute_model01(struct compute_ctx *x, const struct compute_cfg *cfgs, const int *ci, int n)
{
    const struct compute_cfg *cfg[MAX_CFG];

    for (int i = 0; i < n && i < MAX_CFG; i++)
        cfg[i] = ci[i] >= 0 ? &cfgs[ci[i]] : NULL;
    return model01(x, cfg, ci, n < MAX_CFG ? n : MAX_CFG);
}

int gc__compute_vrun_check(struct compute_vrun *v, int nsample, int cache_slot, const char *what)
{
    struct compute_ctx *x = v->x;
    const struct gc_itype *t = x->t;
    const struct compute_cfg *c = v->c;
    size_t per = (size_t)c->nch * (size_t)c->vw, eb = gc__compute_vt_bytes(t->vt);
    size_t n = v->bytes / eb, nthreads = v->nthreads, ths[8];
    const unsigned char *g1 = v->g[0], *g2 = v->g[1];
    uint64_t *want = NULL;
    int rc = 0;

    if (nsample > (cache_slot >= 0 ? 2 : 8))
        nsample = cache_slot >= 0 ? 2 : 8;
    /* Threads 0 and 1 of a cached configuration (the sweep's points share
     * them), else nsample threads spread over the grid. */
    for (int si = 0; si < nsample; si++)
        ths[si] = cache_slot >= 0 ? (size_t)si
                  : nsample == 1  ? 0
                                  : (nthreads - 1) * (size_t)si / (size_t)(nsample - 1);
    if (v->on_device && (rc = compare_on_device(v, ths, nsample, per)))
        return rc;
    if (!v->on_device && memcmp(g1, g2, n * eb) != 0) {
        size_t i = 0;
        while (i < n * eb && g1[i] == g2[i])
            i++;
        gc__bench_set_error(x->r, GC_BENCH_ERROR,
                            "verification failed (%s): output element %zu (thread %zu) was not "
                            "written or is not deterministic",
                            what, i / eb, i / eb / per);
        return GC_EVERIFY;
    }
    if (cache_slot >= 0 && (rc = model01(x, &c, &cache_slot, 1)))
        return rc;
    if (cache_slot >= 0) {
        want = x->want01[cache_slot];
    } else {
        want = malloc((size_t)nsample * per * sizeof(uint64_t));
        if (!want)
            return GC_ENOMEM;
        model_threads(x, c, ths, nsample, want);
    }
    double tol = chain_tol(t, x->s->dev->ops->dialect, c->unroll * c->trips);

    for (int si = 0; si < nsample && rc == 0; si++) {
        size_t th = ths[si];

        for (size_t e = 0; e < per; e++) {
            uint64_t got = get_elem(g1, th * per + e, t->vt);
            uint64_t w = want[(size_t)si * per + e];
            if (!close_enough(t, tol, got, w)) {
                gc__bench_set_error(x->r, GC_BENCH_ERROR,
                                    "verification failed (%s): thread %zu chain %zu gave 0x%llx, "
                                    "the host model 0x%llx (relative tolerance %.3g)",
                                    what, th, e, (unsigned long long)got, (unsigned long long)w,
                                    tol);
                rc = GC_EVERIFY;
                break;
            }
        }
    }
    if (cache_slot < 0)
        free(want);
    return rc;
}

int gc__compute_verify(struct compute_ctx *x, struct gc_kern *k, const struct gc_launch *l,
                       const struct compute_cfg *c, size_t nthreads, int nsample, int cache_slot,
                       const char *what)
{
    struct compute_vrun v;
    struct gc_launch one = *l;
    double el;
    int rc = gc__compute_vrun_init(&v, x, c, nthreads);

    one.count = 1;
    for (int pass = 0; pass < 2 && !rc; pass++) {
        rc = gc__compute_vrun_poison(&v, pass);
        if (!rc)
            rc = gc__dev_launch(x->s->dev, k, &one, &el);
        if (!rc)
            rc = gc__compute_vrun_read(&v, pass);
    }
    if (!rc)
        rc = gc__compute_vrun_check(&v, nsample, cache_slot, what);
    gc__compute_vrun_free(&v);
    return rc;
}

int gc__compute_check_before(void *u, int rep)
{
    struct compute_sweep_check *sc = u;

    return rep < 2 ? gc__compute_vrun_poison(&sc->v, rep) : 0;
}

int gc__compute_check_after(void *u, int rep)
{
    struct compute_sweep_check *sc = u;
    int rc;

    if (rep >= 2)
        return 0;
    if ((rc = gc__compute_vrun_read(&sc->v, rep)) || rep == 0)
        return rc;
    rc = gc__compute_vrun_check(&sc->v, 2, sc->ci, sc->what);
    sc->checked = rc == 0;
    return rc;
}
