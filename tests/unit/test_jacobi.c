/* Unit tests of application.jacobi's parts that need no device: the variant
 * table and Table 2 (model/jacobi.c), the launch geometry, the generator's
 * forms in both dialects, the work record and the host reference
 * (bench/jacobi/). With GC_JACOBI_DUMP=DIR the generated sources are
 * written there (for a compiler's syntax check). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/jacobi/jacobi.h"
#include "model/guide.h"
#include "model/jacobi.h"

static void test_variants(void **state)
{
    char a[32], b[32];
    int combos = 0;

    (void)state;
    gc__jacobi_name(gc__jacobi_variant(0), a, sizeof(a));
    assert_string_equal(a, "baseline");
    assert_null(gc__jacobi_variant(GC_JACOBI_NVARIANTS));
    for (int i = 0; i < GC_JACOBI_NVARIANTS; i++) {
        const struct gc_jvariant *v = gc__jacobi_variant(i);
        int n = 0;

        gc__jacobi_name(v, a, sizeof(a));
        assert_int_equal(gc__jacobi_find(a), i); /* names are distinct */
        for (int j = 0; j < i; j++) {
            gc__jacobi_name(gc__jacobi_variant(j), b, sizeof(b));
            assert_string_not_equal(a, b);
        }
        for (int c = GC_JCLASS_VEC; c < GC_JCLASS_N; c++) {
            int s = gc__jacobi_single(v, (enum gc_jclass)c);
            if (s < 0)
                continue;
            n++;
            /* The single variant of a class has that class only. */
            const struct gc_jvariant *sv = gc__jacobi_variant(s);
            assert_true((sv->width > 1) + sv->be + (sv->mc != GC_JMC_NONE) == 1);
        }
        combos += n > 1;
    }
    /* 6 single optimizations, 10 combinations, the baseline. */
    assert_int_equal(combos, 10);
    assert_int_equal(gc__jacobi_find("vec8_BE_mcStat") >= 0, 1);
    assert_int_equal(gc__jacobi_find("nonsense"), -1);
}

static void test_table(void **state)
{
    double t[GC_JACOBI_NVARIANTS];
    struct gc_jtable tb;
    int best = gc__jacobi_find("vec4_BE_mcStat"), v4 = gc__jacobi_find("vec4");
    int be = gc__jacobi_find("BE"), mc = gc__jacobi_find("mcStat");

    (void)state;
    for (int i = 0; i < GC_JACOBI_NVARIANTS; i++)
        t[i] = 2.0;
    t[0] = 1.0;
    gc__jacobi_table(t, &tb);
    assert_int_equal(tb.best, 0);
    assert_int_equal(tb.best_class, GC_JCLASS_NONE);
    assert_true(fabs(tb.improvement_pct) < 1e-12);
    assert_int_equal(tb.measured, GC_JACOBI_NVARIANTS);
    /* A combined best: its primary is the component of the largest own gain. */
    t[best] = 0.25;
    t[v4] = 0.9;
    t[be] = 0.8;
    t[mc] = 0.5;
    gc__jacobi_table(t, &tb);
    assert_int_equal(tb.best, best);
    assert_true(fabs(tb.improvement_pct - (1.0 / 0.25 - 1) * 100) < 1e-9);
    assert_int_equal(tb.primary, mc);
    assert_true(fabs(tb.contribution_pct - (1.0 / 0.5 - 1) * 100) < 1e-9);
    assert_int_equal(tb.best_class, GC_JCLASS_MC);
    /* A single-optimization best has no primary. */
    t[best] = NAN;
    gc__jacobi_table(t, &tb);
    assert_int_equal(tb.best, mc);
    assert_int_equal(tb.primary, -1);
    assert_int_equal(tb.best_class, GC_JCLASS_MC);
    assert_int_equal(tb.measured, GC_JACOBI_NVARIANTS - 1);
    /* Nothing measured. */
    for (int i = 0; i < GC_JACOBI_NVARIANTS; i++)
        t[i] = NAN;
    gc__jacobi_table(t, &tb);
    assert_int_equal(tb.best, -1);
}

static void test_launch(void **state)
{
    struct gc_jgrid g;
    struct gc_jlaunch l;
    char why[200];
    const struct gc_jvariant *be16 = gc__jacobi_variant(gc__jacobi_find("vec16_BE_mcStat"));

    (void)state;
    gc__jacobi_grid(256, &g);
    assert_int_equal(g.N, 258);
    assert_int_equal(g.pitch % 16, 0);
    /* The first interior point of a row is 16-byte aligned. */
    assert_int_equal((g.pitch * 5 + 1 + g.off) % 4, 0);
    assert_int_equal(gc__jacobi_launch(be16, &g, 16, 4, &l, why, sizeof(why)), 0);
    assert_int_equal(l.tx, 16);
    assert_int_equal(l.nbx * 16 * 16, 256); /* whole groups cover the interior */
    assert_true(l.tile_bytes >= (size_t)(16 * 16 + 2) * 6 * 4);
    assert_int_equal(l.tp % 4, 0);
    assert_int_equal(gc__jacobi_launch(be16, &g, 32, 8, &l, why, sizeof(why)), GC_ERANGE);
    assert_non_null(strstr(why, "does not tile"));
    /* Without branch elimination any shape covers the whole grid. */
    assert_int_equal(gc__jacobi_launch(gc__jacobi_variant(3), &g, 32, 8, &l, why, sizeof(why)), 0);
    assert_true(l.nbx * 32 >= 256 / 16 + 2 && l.nby * 8 >= 258);
}

static void dump(const char *dir, const char *name, enum gc_dialect d, const char *src)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s%s", dir, name, d == GC_DIALECT_CUDA ? ".cu" : ".cl");
    if ((f = fopen(path, "w"))) {
        fputs(src, f);
        fclose(f);
    }
}

/* Every variant in both dialects: each idea in the dialect's own spelling. */
static void test_gen(void **state)
{
    const char *dir = getenv("GC_JACOBI_DUMP");
    struct gc_jgrid g;

    (void)state;
    gc__jacobi_grid(256, &g);
    for (int i = 0; i < GC_JACOBI_NVARIANTS; i++)
        for (int d = GC_DIALECT_CUDA; d <= GC_DIALECT_OPENCL; d++) {
            const struct gc_jvariant *v = gc__jacobi_variant(i);
            struct gc_jlaunch l;
            char why[200], name[32];

            assert_int_equal(gc__jacobi_launch(v, &g, 16, 4, &l, why, sizeof(why)), 0);
            char *s = gc__jacobi_gen((enum gc_dialect)d, v, &g, 16, 4, &l);
            assert_non_null(s);
            gc__jacobi_name(v, name, sizeof(name));
            if (dir)
                dump(dir, name, (enum gc_dialect)d, s);
            /* After the prelude, the dialect layer's vocabulary only. */
            const char *k = strstr(s, "GC_KERNEL void gc_jacobi");
            assert_non_null(k);
            assert_null(strstr(k, "__global"));
            assert_null(strstr(k, "__local"));
            assert_null(strstr(k, "__shared__"));
            /* Branch elimination: no test at all in the kernel. */
            assert_int_equal(strstr(k, "if (") == NULL, v->be);
            assert_int_equal(strstr(k, "GC_BARRIER") != NULL, v->mc != GC_JMC_NONE);
            assert_int_equal(strstr(k, "GC_DYN_SHARED_DECL") != NULL, v->mc == GC_JMC_DYN);
            assert_int_equal(strstr(k, "GC_SHARED float4") != NULL, v->mc == GC_JMC_STAT);
            if (v->width > 1 && d == GC_DIALECT_OPENCL) {
                char vt[32];
                /* floatW arithmetic on aligned float4 pieces: no vloadW,
                 * which promises a float's alignment only. */
                snprintf(vt, sizeof(vt), "const float%d res", v->width);
                assert_non_null(strstr(s, vt));
                assert_non_null(strstr(s, "const float4 *)(us + ci + 0)"));
                assert_non_null(strstr(s, "*(GC_GLOBAL float4 *)(un + gi + 0)"));
                assert_null(strstr(s, "vload"));
            }
            if (v->width > 1 && d == GC_DIALECT_CUDA)
                assert_non_null(strstr(s, "make_float4"));
            /* The record's access width: a float, or float4 pieces. */
            assert_int_equal(gc__jacobi_access_bytes((enum gc_dialect)d, v),
                             v->width == 1 ? 4 : 16);
            free(s);
        }
}

/* The work record follows the grid: compulsory DRAM traffic, 6 fp32
 * operations per interior point. */
static void test_work(void **state)
{
    struct gc_jgrid g;
    struct gc_jlaunch l;
    struct gc_app_work w;
    char why[200];

    (void)state;
    gc__jacobi_grid(1024, &g);
    for (int i = 0; i < GC_JACOBI_NVARIANTS; i++) {
        const struct gc_jvariant *v = gc__jacobi_variant(i);
        double in = 1024.0 * 1024, all = 1026.0 * 1026;

        assert_int_equal(gc__jacobi_launch(v, &g, 16, 4, &l, why, sizeof(why)), 0);
        gc__jacobi_work(v, &g, 16, 4, &l, &w);
        assert_true(w.ops[GC_APP_OP_FP32] >= 6 * in);
        assert_true(w.bytes[GC_APP_LVL_DRAM] == 4 * all + 4 * in + 4 * (v->be ? in : all));
        assert_true(w.bytes[GC_APP_LVL_L1] >= w.bytes[GC_APP_LVL_DRAM] * 0.9);
        assert_int_equal(w.block_threads, 64);
        assert_true(w.threads >= in / v->width);
        assert_int_equal(w.bytes[GC_APP_LVL_SHARED] > 0, v->mc != GC_JMC_NONE);
    }
}

/* The L1 wavefronts lane by lane, from the kernel's own formulas: for
 * every warp request the float indices its active lanes touch, then their
 * distinct 128-byte lines. */
struct jb {
    const struct gc_jvariant *v;
    const struct gc_jgrid *g;
    const struct gc_jlaunch *l;
    int bx, by;
    bool f4;
};

struct lane {
    long gx, gy, tx, ty, t;
};

static long jb_idx(const struct jb *c, long x, long y)
{
    return y * (long)c->g->pitch + x + (long)c->g->off;
}

static long jb_x0(const struct jb *c, const struct lane *ln)
{
    return c->v->be ? 1 + c->v->width * ln->gx : 1 + c->v->width * (ln->gx - 1);
}

static long jb_y(const struct jb *c, const struct lane *ln)
{
    return c->v->be ? 1 + ln->gy : ln->gy;
}

static bool jb_edge(const struct jb *c, const struct lane *ln)
{
    long jnv = c->g->n / (unsigned)c->v->width, N = c->g->N;

    return !c->v->be && (ln->gx == 0 || ln->gx > jnv || ln->gy == 0 || ln->gy >= N - 1);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static double lines_of(long *f, int n)
{
    double d = 0;

    for (int i = 0; i < n; i++)
        f[i] /= 32;
    qsort(f, (size_t)n, sizeof(long), cmp_long);
    for (int i = 0; i < n; i++)
        d += i == 0 || f[i] != f[i - 1];
    return d;
}

/* Request kinds of the update: 0 f, 1 the store, 2 u, 3 the row above, 4
 * the row below, at piece p; 5 the left, 6 the right neighbour. */
static int jb_update(const struct jb *c, const struct lane *ln, int kind, int p, long *f)
{
    long x0 = jb_x0(c, ln), y = jb_y(c, ln), W = c->v->width, len = c->f4 ? 4 : 1;
    static const int dy[5] = {0, 0, 0, -1, 1};
    int n = 0;

    if (kind == 5 || kind == 6) {
        f[n++] = jb_idx(c, kind == 5 ? x0 - 1 : x0 + W, y);
        return n;
    }
    for (long k = 0; k < len; k++)
        f[n++] = jb_idx(c, x0 + 4 * p + k, y + dy[kind]);
    return n;
}

static double jb_warp(const struct jb *c, const struct lane *ln, int nl)
{
    long f[32 * 16], W = c->v->width, N = c->g->N, B = (long)c->bx * c->by;
    long tiles = (long)c->l->tw * c->l->th;
    double waves = 0;
    int n;

    for (long k = 0; c->v->mc != GC_JMC_NONE && ln[0].t + k * B < tiles; k++) {
        n = 0;
        for (int i = 0; i < nl; i++) {
            long e = ln[i].t + k * B;
            long xb = jb_x0(c, &ln[i]) - W * ln[i].tx - 1, yb = jb_y(c, &ln[i]) - ln[i].ty - 1;
            long xx = xb + e % c->l->tw, yy = yb + e / c->l->tw;
            if (e < tiles && (c->v->be || (xx >= 0 && xx < N && yy >= 0 && yy < N)))
                f[n++] = jb_idx(c, xx, yy);
        }
        waves += lines_of(f, n);
    }
    for (long k = 0; k < W; k++) { /* the boundary branch: load and store */
        n = 0;
        for (int i = 0; i < nl; i++) {
            long x = jb_x0(c, &ln[i]) + k, y = jb_y(c, &ln[i]);
            if (jb_edge(c, &ln[i]) && x >= 0 && x < N && y < N)
                f[n++] = jb_idx(c, x, y);
        }
        waves += 2 * lines_of(f, n);
    }
    int pieces = c->f4 ? (int)W / 4 : 1;
    for (int kind = 0; kind < 7; kind++)
        for (int p = 0; p < (kind < 5 ? pieces : 1); p++) {
            if (kind >= 2 && c->v->mc != GC_JMC_NONE)
                continue;
            n = 0;
            for (int i = 0; i < nl; i++)
                if (!jb_edge(c, &ln[i]))
                    n += jb_update(c, &ln[i], kind, p, f + n);
            waves += lines_of(f, n);
        }
    return waves;
}

static double brute_waves(const struct jb *c)
{
    double waves = 0;
    long B = (long)c->bx * c->by;

    for (long b = 0; b < (long)c->l->nbx * c->l->nby; b++)
        for (long w = 0; w * 32 < B; w++) {
            struct lane ln[32];
            int nl = 0;

            for (long t = 32 * w; t < 32 * w + 32 && t < B; t++) {
                long tx = t % c->bx, ty = t / c->bx;
                ln[nl++] = (struct lane){(b % c->l->nbx) * c->bx + tx, (b / c->l->nbx) * c->by + ty,
                                         tx, ty, t};
            }
            waves += jb_warp(c, ln, nl);
        }
    return waves;
}

/* The wavefront count of the work record equals the lane-by-lane count of
 * every variant and shape on grids whose rows start on a line or half a
 * line from it; OpenCL C's vector forms are not counted. */
static void test_wavefronts(void **state)
{
    static const unsigned ns[] = {64, 112, 128};
    static const int shapes[][2] = {{16, 4}, {32, 8}, {64, 4}, {128, 1}, {8, 8}};
    char why[200], name[32];

    (void)state;
    for (int gi = 0; gi < 3; gi++) {
        struct gc_jgrid g;
        gc__jacobi_grid(ns[gi], &g);
        for (int i = 0; i < GC_JACOBI_NVARIANTS; i++)
            for (int s = 0; s < 5; s++) {
                const struct gc_jvariant *v = gc__jacobi_variant(i);
                struct gc_jlaunch l;
                int bx = shapes[s][0], by = shapes[s][1];

                if (gc__jacobi_launch(v, &g, bx, by, &l, why, sizeof(why)))
                    continue;
                struct jb c = {v, &g, &l, bx, by, v->width > 1};
                double want = brute_waves(&c);
                double got = gc__jacobi_wavefronts(GC_DIALECT_CUDA, v, &g, bx, by, &l);
                gc__jacobi_name(v, name, sizeof(name));
                if (got != want)
                    fail_msg("n %u %s %dx%d: %g wavefronts, lane by lane %g", ns[gi], name, bx, by,
                             got, want);
                double ocl = gc__jacobi_wavefronts(GC_DIALECT_OPENCL, v, &g, bx, by, &l);
                assert_true(ocl == want);
            }
    }
}

/* The guide's per-point L1 figures of the scalar and the vec4 stencil
 * (model/guide.h) are what the generator's requests cost away from the
 * grid's edges: within 1.5% of the count per interior point of a 4096^2
 * grid on a 32-wide work-group (the boundary branch's requests make the
 * rest). */
static void test_guide_constants(void **state)
{
    struct gc_jgrid g;
    struct gc_jlaunch l;
    char why[200];
    static const struct {
        const char *name;
        double want;
    } k[] = {{"baseline", GC_GUIDE_WAVE1}, {"vec4", GC_GUIDE_WAVE4}};

    (void)state;
    gc__jacobi_grid(4096, &g);
    for (int i = 0; i < 2; i++) {
        const struct gc_jvariant *v = gc__jacobi_variant(gc__jacobi_find(k[i].name));

        assert_int_equal(gc__jacobi_launch(v, &g, 32, 8, &l, why, sizeof(why)), 0);
        double per = gc__jacobi_wavefronts(GC_DIALECT_CUDA, v, &g, 32, 8, &l) / (4096.0 * 4096);
        if (fabs(per / k[i].want - 1) > 0.015)
            fail_msg("%s: %g wavefronts per point counted, the guide's %g", k[i].name, per,
                     k[i].want);
    }
}

/* The exact relaxation step at interior point i, rounded to fp32. */
static float step_at(const struct gc_jgrid *g, const float *u, const float *f, float om, float h2,
                     size_t i)
{
    return (float)((1.0 - om) * u[i] + 0.25 * om *
                                           ((double)u[i - 1] + u[i + 1] + u[i - g->pitch] +
                                            u[i + g->pitch] + (double)h2 * f[i]));
}

/* Inputs u and f on grid g and o the exact step rounded to fp32 (each
 * malloc'ed): what a correct device writes. */
static void exact_step(const struct gc_jgrid *g, float om, float h2, float **pu, float **pf,
                       float **po)
{
    float *u = malloc(g->elems * 4), *f = malloc(g->elems * 4), *o = malloc(g->elems * 4);

    assert_true(u && f && o);
    for (size_t i = 0; i < g->elems; i++) {
        u[i] = (float)((i * 7919) % 1000) / 1000.0f;
        f[i] = (float)((i * 104729) % 2000) / 1000.0f - 1.0f;
    }
    for (unsigned y = 0; y < g->N; y++)
        for (unsigned x = 0; x < g->N; x++) {
            size_t i = (size_t)y * g->pitch + x + g->off;
            bool edge = x == 0 || y == 0 || x == g->N - 1 || y == g->N - 1;
            o[i] = edge ? u[i] : step_at(g, u, f, om, h2, i);
        }
    *pu = u;
    *pf = f;
    *po = o;
}

/* The reference accepts the exact step rounded to fp32 and rejects a point
 * one part in 10^5 off, or left unwritten (NaN). */
static void test_check(void **state)
{
    struct gc_jgrid g;
    char msg[256];
    float om = 0.8f, h2 = 1.0f / (33.0f * 33.0f);

    (void)state;
    gc__jacobi_grid(32, &g);
    float *u, *f, *o;
    exact_step(&g, om, h2, &u, &f, &o);
    assert_int_equal(gc__jacobi_check(&g, u, f, om, h2, false, o, msg, sizeof(msg)), 0);
    size_t k = (size_t)7 * g.pitch + 9 + g.off;
    o[k] *= 1.00001f;
    assert_int_equal(gc__jacobi_check(&g, u, f, om, h2, false, o, msg, sizeof(msg)), GC_EVERIFY);
    assert_non_null(strstr(msg, "(9, 7)"));
    o[k] = NAN;
    assert_int_equal(gc__jacobi_check(&g, u, f, om, h2, false, o, msg, sizeof(msg)), GC_EVERIFY);
    /* A boundary point left unwritten fails unless only the interior counts. */
    o[k] = u[k];
    gc__jacobi_check(&g, u, f, om, h2, false, o, msg, sizeof(msg));
    o[g.off + 3] = NAN;
    o[k] = step_at(&g, u, f, om, h2, k);
    assert_int_equal(gc__jacobi_check(&g, u, f, om, h2, false, o, msg, sizeof(msg)), GC_EVERIFY);
    assert_int_equal(gc__jacobi_check(&g, u, f, om, h2, true, o, msg, sizeof(msg)), 0);
    free(u);
    free(f);
    free(o);
}

/* A grid of many row chunks (checked on several threads where the host
 * has them): every point is checked, and of two bad points the first in
 * row order is named, whichever chunk finishes first. */
static void test_check_rows(void **state)
{
    struct gc_jgrid g;
    char msg[256];
    float om = 0.8f, h2 = 1.0f / (1025.0f * 1025.0f);

    (void)state;
    gc__jacobi_grid(1022, &g);
    float *u, *f, *o;
    exact_step(&g, om, h2, &u, &f, &o);
    assert_int_equal(gc__jacobi_check(&g, u, f, om, h2, false, o, msg, sizeof(msg)), 0);
    o[(size_t)1000 * g.pitch + 500 + g.off] = NAN;
    assert_int_equal(gc__jacobi_check(&g, u, f, om, h2, false, o, msg, sizeof(msg)), GC_EVERIFY);
    assert_non_null(strstr(msg, "(500, 1000)"));
    o[(size_t)70 * g.pitch + 3 + g.off] += 1.0f;
    assert_int_equal(gc__jacobi_check(&g, u, f, om, h2, false, o, msg, sizeof(msg)), GC_EVERIFY);
    assert_non_null(strstr(msg, "(3, 70)"));
    free(u);
    free(f);
    free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants),   cmocka_unit_test(test_table),
        cmocka_unit_test(test_launch),     cmocka_unit_test(test_gen),
        cmocka_unit_test(test_work),       cmocka_unit_test(test_check),
        cmocka_unit_test(test_wavefronts), cmocka_unit_test(test_guide_constants),
        cmocka_unit_test(test_check_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
