/* The ω-Jacobi variants of uCLbench §4.2 and Table 2 over their times
 * (model/jacobi.h). */
#include "model/jacobi.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The 16 combinations of vectorization (none, 4, 8, 16), branch
 * elimination and static manual caching, plus the dynamic caching on its
 * own: the paper's "16 implementations plus one baseline". Static caching
 * carries the combinations because §3.2 finds it as fast as or faster than
 * dynamic caching on every device; mcDyn is there to measure that claim. */
static const struct gc_jvariant variants[GC_JACOBI_NVARIANTS] = {
    {1, false, GC_JMC_NONE},  {4, false, GC_JMC_NONE}, {8, false, GC_JMC_NONE},
    {16, false, GC_JMC_NONE}, {1, true, GC_JMC_NONE},  {1, false, GC_JMC_DYN},
    {1, false, GC_JMC_STAT},  {4, true, GC_JMC_NONE},  {8, true, GC_JMC_NONE},
    {16, true, GC_JMC_NONE},  {4, false, GC_JMC_STAT}, {8, false, GC_JMC_STAT},
    {16, false, GC_JMC_STAT}, {1, true, GC_JMC_STAT},  {4, true, GC_JMC_STAT},
    {8, true, GC_JMC_STAT},   {16, true, GC_JMC_STAT},
};

const struct gc_jvariant *gc__jacobi_variant(int i)
{
    return i >= 0 && i < GC_JACOBI_NVARIANTS ? &variants[i] : NULL;
}

void gc__jacobi_name(const struct gc_jvariant *v, char *buf, size_t len)
{
    char w[16] = "";

    if (v->width > 1)
        snprintf(w, sizeof(w), "vec%d", v->width);
    if (v->width == 1 && !v->be && v->mc == GC_JMC_NONE) {
        snprintf(buf, len, "baseline");
        return;
    }
    snprintf(buf, len, "%s%s%s%s%s", w, w[0] && v->be ? "_" : "", v->be ? "BE" : "",
             (w[0] || v->be) && v->mc != GC_JMC_NONE ? "_" : "",
             v->mc == GC_JMC_DYN    ? "mcDyn"
             : v->mc == GC_JMC_STAT ? "mcStat"
                                    : "");
}

int gc__jacobi_find(const char *name)
{
    char n[32];

    for (int i = 0; i < GC_JACOBI_NVARIANTS; i++) {
        gc__jacobi_name(&variants[i], n, sizeof(n));
        if (strcmp(n, name) == 0)
            return i;
    }
    return -1;
}

static int find_variant(int width, bool be, enum gc_jmc mc)
{
    for (int i = 0; i < GC_JACOBI_NVARIANTS; i++)
        if (variants[i].width == width && variants[i].be == be && variants[i].mc == mc)
            return i;
    return -1;
}

int gc__jacobi_single(const struct gc_jvariant *v, enum gc_jclass c)
{
    switch (c) {
    case GC_JCLASS_VEC:
        return v->width > 1 ? find_variant(v->width, false, GC_JMC_NONE) : -1;
    case GC_JCLASS_BE:
        return v->be ? find_variant(1, true, GC_JMC_NONE) : -1;
    case GC_JCLASS_MC:
        return v->mc != GC_JMC_NONE ? find_variant(1, false, v->mc) : -1;
    default:
        return -1;
    }
}

const char *gc__jacobi_class_name(enum gc_jclass c)
{
    static const char *const names[GC_JCLASS_N] = {"none", "vectorization", "branch elimination",
                                                   "manual caching"};

    return c >= 0 && c < GC_JCLASS_N ? names[c] : "?";
}

static double improvement(double base, double t)
{
    return isfinite(base) && isfinite(t) && t > 0 ? (base / t - 1.0) * 100.0 : NAN;
}

/* The classes v combines, and the one alone if there is one. */
static int classes_of(const struct gc_jvariant *v, enum gc_jclass *only)
{
    int n = 0;

    *only = GC_JCLASS_NONE;
    for (int c = GC_JCLASS_VEC; c < GC_JCLASS_N; c++)
        if (gc__jacobi_single(v, (enum gc_jclass)c) >= 0) {
            n++;
            *only = (enum gc_jclass)c;
        }
    return n;
}

void gc__jacobi_table(const double *time, struct gc_jtable *out)
{
    *out = (struct gc_jtable){.best = -1,
                              .improvement_pct = NAN,
                              .primary = -1,
                              .contribution_pct = NAN,
                              .best_class = GC_JCLASS_NONE};
    for (int i = 0; i < GC_JACOBI_NVARIANTS; i++) {
        if (!isfinite(time[i]) || time[i] <= 0)
            continue;
        out->measured++;
        if (out->best < 0 || time[i] < time[out->best])
            out->best = i;
    }
    if (out->best < 0)
        return;
    const struct gc_jvariant *b = &variants[out->best];
    out->improvement_pct = improvement(time[0], time[out->best]);
    if (classes_of(b, &out->best_class) < 2)
        return;
    /* A combination: the component whose single variant gains the most on
     * its own is the primary optimization (Table 2's "Primary"). */
    out->best_class = GC_JCLASS_NONE;
    for (int c = GC_JCLASS_VEC; c < GC_JCLASS_N; c++) {
        int s = gc__jacobi_single(b, (enum gc_jclass)c);
        double g = s >= 0 ? improvement(time[0], time[s]) : NAN;

        if (!isfinite(g) || (out->primary >= 0 && !(g > out->contribution_pct)))
            continue;
        out->primary = s;
        out->contribution_pct = g;
        out->best_class = (enum gc_jclass)c;
    }
}
