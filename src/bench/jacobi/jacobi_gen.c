/* The kernel generator of application.jacobi: one ω-Jacobi relaxation step
 * u -> un, u_new = (1 - ω) u + ω/4 (u_W + u_E + u_S + u_N + h² f), in the
 * variant's form (bench/jacobi/jacobi.h). Work-item (gx, gy) of the 2-D
 * thread grid updates the W points x0 .. x0 + W - 1 of row y:
 *   branch elimination   x0 = 1 + W gx, y = 1 + gy: the interior only,
 *                        whole work-groups, no test at all;
 *   otherwise            x0 = 1 + W (gx - 1), y = gy: the grid covers the
 *                        boundary too, and a work-item on it takes the
 *                        branch that copies the Dirichlet values (the
 *                        straightforward kernel of §4.2).
 * Manual caching loads the work-group's tile (its rows and columns plus a
 * halo of one) into local memory first. Vectorization: OpenCL C's floatW
 * arithmetic on aligned float4 pieces; CUDA C has no arithmetic on vectors, so its form
 * moves the same data in 16-byte float4 loads and stores and computes lane
 * by lane. Both move u, f and un in 16-byte pieces. */
#include <stdio.h>

#include "bench/jacobi/jacobi.h"
#include "kgen/gen_vec.h"

#define TILE_PAD 3 /* tile column 1 + W tx lands 16-byte aligned */

static void gen_header(struct gc_sbuf *b, enum gc_dialect d, const struct gc_jvariant *v,
                       const struct gc_jgrid *g, int bx, int by, const struct gc_jlaunch *l)
{
    gc__sbuf_printf(b,
                    "#define JN %uu\n#define JNV %uu\n#define JP %uu\n#define JOFF %uu\n"
                    "#define JBX %uu\n#define JBY %uu\n#define JNBX %uu\n#define JW %d\n"
                    "#define JIDX(x, y) ((GC_U32)(y) * JP + (GC_U32)(x) + JOFF)\n",
                    g->N, g->n / (unsigned)v->width, g->pitch, g->off, (unsigned)bx, (unsigned)by,
                    l->nbx, v->width);
    if (v->mc != GC_JMC_NONE)
        gc__sbuf_printf(b, "#define JTW %uu\n#define JTH %uu\n#define JTP %uu\n", l->tw, l->th,
                        l->tp);
    gc__kgen_prelude(b, d, 0);
    gc__sbuf_printf(b,
                    "GC_KERNEL void gc_jacobi(GC_GLOBAL const float *GC_RESTRICT u, "
                    "GC_GLOBAL const float *GC_RESTRICT f, GC_GLOBAL float *GC_RESTRICT un, "
                    "float omega, float h2%s)\n{\n",
                    v->mc == GC_JMC_DYN ? " GC_DYN_SHARED_PARAM(float, tile)" : "");
    if (v->mc == GC_JMC_DYN)
        gc__sbuf_puts(b, "    GC_DYN_SHARED_DECL(float, tile)\n");
    else if (v->mc == GC_JMC_STAT)
        gc__sbuf_printf(b,
                        "    GC_SHARED float4 tile4[%zu];\n"
                        "    GC_SHARED_PTR float *tile = (GC_SHARED_PTR float *)tile4;\n",
                        l->tile_bytes / 16);
    gc__sbuf_puts(b, "    const GC_U32 t = GC_TID, b = GC_BID;\n"
                     "    const GC_U32 tx = t % JBX, ty = t / JBX;\n"
                     "    const GC_U32 gx = (b % JNBX) * JBX + tx, gy = (b / JNBX) * JBY + ty;\n"
                     "    const float a = 1.0f - omega, w4 = 0.25f * omega;\n");
    if (v->be)
        gc__sbuf_puts(b, "    const int x0 = 1 + JW * (int)gx, y = 1 + (int)gy;\n");
    else
        gc__sbuf_puts(b, "    const int x0 = 1 + JW * ((int)gx - 1), y = (int)gy;\n");
}

/* The work-group's tile: rows y - ty - 1 .. +JTH, columns from the first
 * point of work-item 0 minus one, JTW of them; outside the grid (only
 * without branch elimination) nothing is loaded. */
static void gen_tile(struct gc_sbuf *b, const struct gc_jvariant *v)
{
    gc__sbuf_printf(b,
                    "    const int xb = x0 - JW * (int)tx - 1, yb = y - (int)ty - 1;\n"
                    "    for (GC_U32 i = t; i < JTW * JTH; i += JBX * JBY) {\n"
                    "        const int r = (int)(i / JTW), c = (int)(i %% JTW);\n"
                    "        const int xx = xb + c, yy = yb + r;\n"
                    "%s"
                    "        tile[(GC_U32)r * JTP + (GC_U32)c + %du] = u[JIDX(xx, yy)];\n"
                    "    }\n"
                    "    GC_BARRIER();\n",
                    v->be ? ""
                          : "        if (xx < 0 || xx >= (int)JN || yy < 0 || yy >= (int)JN)\n"
                            "            continue;\n",
                    TILE_PAD);
}

/* Without branch elimination: a work-item on the boundary (or past the grid)
 * copies the Dirichlet values it covers and leaves. */
static void gen_edge(struct gc_sbuf *b)
{
    gc__sbuf_puts(b, "    if (gx == 0u || gx > JNV || gy == 0u || gy >= JN - 1u) {\n"
                     "        for (int k = 0; k < JW; k++) {\n"
                     "            const int x = x0 + k;\n"
                     "            if (x >= 0 && x < (int)JN && y < (int)JN)\n"
                     "                un[JIDX(x, y)] = u[JIDX(x, y)];\n"
                     "        }\n"
                     "        return;\n"
                     "    }\n");
}

/* The update with scalars (W == 1): s is the source of u (global or the
 * tile), at index ci, rows jp apart. */
static void gen_update_scalar(struct gc_sbuf *b)
{
    static const char *const nm[6] = {"c", "l", "r", "s", "n", "ff"};
    static const char *const at[6] = {"us + ci",      "us + ci - 1",  "us + ci + 1",
                                      "us + ci - jp", "us + ci + jp", "f + gi"};

    for (int k = 0; k < 6; k++)
        gc__sbuf_printf(b, "    const float %s = *(%s);\n", nm[k], at[k]);
    gc__sbuf_puts(b, "    const float res = a * c + w4 * (l + r + s + n + h2 * ff);\n"
                     "    un[gi] = res;\n");
}

/* The update with OpenCL C vectors (W > 1): u, the rows above and below, f
 * and the store moved in aligned float4 pieces (x0 lands 16-byte aligned in
 * the arrays and in the tile; kgen/gen_vec.h), the left and right
 * neighbours made of c's lanes and the two floats beyond it, the
 * arithmetic on floatW. as_u is the address space of us. */
static void gen_update_vec(struct gc_sbuf *b, enum gc_dialect d, int w, const char *as_u)
{
    const char *T = gc__kgen_vec_type(d, w);
    static const char *const nm[4] = {"c", "s", "n", "ff"};
    static const char *const at[4] = {"us + ci", "us + ci - jp", "us + ci + jp", "f + gi"};
    /* c's lanes in pieces of valid vector sizes (1, 2, 3, 4, 8, 16):
     * l = (u[x0 - 1], c0 .. c(W-2)), r = (c1 .. c(W-1), u[x0 + W]). */
    static const char *const lanes_l[17] = {
        [4] = "c.s012", [8] = "c.s012, c.s3456", [16] = "c.s012, c.s3456789a, c.sbcde"};
    static const char *const lanes_r[17] = {
        [4] = "c.s123", [8] = "c.s1234, c.s567", [16] = "c.s1234, c.s56789abc, c.sdef"};

    for (int k = 0; k < 4; k++) {
        gc__sbuf_printf(b, "    const %s %s = ", T, nm[k]);
        gc__kgen_vec_load_a16(b, d, w, k == 3 ? "GC_GLOBAL" : as_u, at[k]);
        gc__sbuf_puts(b, ";\n");
    }
    gc__sbuf_printf(b,
                    "    const %s l = (%s)(us[ci - 1], %s);\n"
                    "    const %s r = (%s)(%s, us[ci + %d]);\n"
                    "    const %s res = a * c + w4 * (l + r + s + n + h2 * ff);\n",
                    T, T, lanes_l[w], T, T, lanes_r[w], w, T);
    gc__sbuf_puts(b, "    ");
    gc__kgen_vec_store_a16(b, d, w, "res", "un + gi");
    gc__sbuf_puts(b, "\n");
}

/* The same update lane by lane, the data moved in float4 (CUDA C). */
static void gen_update_lanes(struct gc_sbuf *b, enum gc_dialect d, int w)
{
    static const char *const row[5] = {"c", "s", "n", "ff", NULL};
    static const char *const at[4] = {"us + ci", "us + ci - jp", "us + ci + jp", "f + gi"};
    char p[64], nm[16];

    for (int k = 0; row[k]; k++)
        for (int q = 0; q < w / 4; q++) {
            snprintf(p, sizeof(p), "%s + %d", at[k], 4 * q);
            snprintf(nm, sizeof(nm), "%s%d_", row[k], q);
            gc__sbuf_puts(b, "    ");
            gc__kgen_f4_load(b, d, p, nm);
            gc__sbuf_puts(b, "\n");
        }
    gc__sbuf_printf(b, "    const float l0 = us[ci - 1], r%d = us[ci + %d];\n", w - 1, w);
    for (int q = 0; q < w / 4; q++) {
        char e[4][160];
        const char *v[4] = {e[0], e[1], e[2], e[3]};

        for (int j = 0; j < 4; j++) {
            int k = 4 * q + j;
            char lft[16], rgt[16];

            if (k == 0)
                snprintf(lft, sizeof(lft), "l0");
            else
                snprintf(lft, sizeof(lft), "c%d_%d", (k - 1) / 4, (k - 1) % 4);
            if (k == w - 1)
                snprintf(rgt, sizeof(rgt), "r%d", k);
            else
                snprintf(rgt, sizeof(rgt), "c%d_%d", (k + 1) / 4, (k + 1) % 4);
            snprintf(e[j], sizeof(e[j]),
                     "a * c%d_%d + w4 * (%s + %s + s%d_%d + n%d_%d + h2 * ff%d_%d)", q, j, lft, rgt,
                     q, j, q, j, q, j);
        }
        snprintf(p, sizeof(p), "un + gi + %d", 4 * q);
        gc__sbuf_puts(b, "    ");
        gc__kgen_f4_store(b, d, p, v);
        gc__sbuf_puts(b, "\n");
    }
}

char *gc__jacobi_gen(enum gc_dialect d, const struct gc_jvariant *v, const struct gc_jgrid *g,
                     int bx, int by, const struct gc_jlaunch *l)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gen_header(&b, d, v, g, bx, by, l);
    if (v->mc != GC_JMC_NONE)
        gen_tile(&b, v);
    if (!v->be)
        gen_edge(&b);
    gc__sbuf_puts(&b, "    const GC_U32 gi = JIDX(x0, y);\n");
    if (v->mc != GC_JMC_NONE)
        gc__sbuf_printf(&b,
                        "    GC_SHARED_PTR const float *us = tile;\n"
                        "    const GC_U32 ci = (ty + 1u) * JTP + 1u + JW * tx + %du, jp = JTP;\n",
                        TILE_PAD);
    else
        gc__sbuf_puts(&b, "    GC_GLOBAL const float *us = u;\n"
                          "    const GC_U32 ci = gi, jp = JP;\n");
    if (v->width == 1)
        gen_update_scalar(&b);
    else if (gc__kgen_vec_type(d, v->width))
        gen_update_vec(&b, d, v->width, v->mc != GC_JMC_NONE ? "GC_SHARED_PTR" : "GC_GLOBAL");
    else
        gen_update_lanes(&b, d, v->width);
    gc__sbuf_puts(&b, "}\n");
    return gc__sbuf_take(&b);
}
