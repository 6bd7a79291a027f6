/* The guide as aligned text (include/gpuchar/guide.h): one row per
 * optimization with its verdict and expected gain, the advice and the
 * figures it rests on, the inputs missing, and the application kernel's
 * measured Table 2 beside the prediction. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuchar/guide.h"
#include "report/units.h"

static const char *verdict_name(enum gc_guide_verdict v)
{
    static const char *const names[] = {"unknown", "no gain", "small", "pays off", "constraint"};

    return v >= GC_GUIDE_UNKNOWN && v <= GC_GUIDE_INFO ? names[v] : "?";
}

static void item_text(const struct gc_guide_item *it, FILE *f)
{
    char gain[32] = "-", q[64];

    if (isfinite(it->gain_pct))
        snprintf(gain, sizeof(gain), "%+.0f%%", it->gain_pct);
    fprintf(f, "  %-20s %-11s %13s\n", it->topic, verdict_name(it->verdict), gain);
    if (it->advice[0])
        fprintf(f, "      %s\n", it->advice);
    if (it->klass[0] && strcmp(it->klass, it->topic) != 0)
        fprintf(f, "      counts for the class: %s\n", it->klass);
    for (int k = 0; k < it->nfigs; k++) {
        gc__fmt_quantity(q, sizeof(q), it->figs[k].value, it->figs[k].unit);
        fprintf(f, "      rests on %-58s %s\n", it->figs[k].name, q);
    }
    if (it->missing[0])
        fprintf(f, "      missing: %s\n", it->missing);
}

static void check_text(const struct gc_guide *g, FILE *f)
{
    const struct gc_guide_check *c = &g->jacobi;

    fprintf(f, "\n%s (uCLbench Table 2, measured)\n", c->bench);
    if (!c->present) {
        fprintf(f, "  not in the profile: run %s to set the measurement beside the prediction\n",
                c->bench);
        return;
    }
    fprintf(f, "  best version      %s\n  improvement       %+.0f%%\n", c->best,
            c->improvement_pct);
    if (c->primary[0])
        fprintf(f, "  primary           %s (%+.0f%% on its own)\n", c->primary,
                c->contribution_pct);
    else
        fprintf(f, "  primary           -\n");
    fprintf(f, "  measured class    %s\n  predicted class   %s\n  verdict           %s\n",
            c->measured_class, g->predicted_class, c->hit ? "hit" : "miss");
    if (c->why[0])
        fprintf(f, "  why               %s\n", c->why);
}

int gc_write_guide_text(const struct gc_guide *g, FILE *f)
{
    if (!g || !f)
        return GC_EINVAL;
    fprintf(f,
            "guide for %s (%s backend): which hand optimizations should pay off (uCLbench S4)\n\n",
            g->device, g->backend);
    fprintf(f, "  %-20s %-11s %13s\n", "optimization", "verdict", "expected gain");
    for (int i = 0; i < g->nitems; i++)
        item_text(&g->items[i], f);
    if (isfinite(g->predicted_gain_pct))
        fprintf(f, "\npredicted best class: %s (up to %+.0f%%)\n", g->predicted_class,
                g->predicted_gain_pct);
    else
        fprintf(f, "\npredicted best class: none (no rule expects a gain of 25%% or more)\n");
    check_text(g, f);
    return ferror(f) ? GC_EIO : 0;
}
