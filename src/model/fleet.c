/* The fleet analysis (docs/methodology.md, "Fleets"): devices grouped by
 * model and configuration; per group and headline figure the median, the
 * median absolute deviation and each device's robust z; a device is flagged
 * when a figure is worse than the stricter of a relative floor (a fraction
 * of its group's median) and the absolute floor of its SKU's reference, or
 * far better than its group. Pure functions over the summaries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "model/fleet.h"

static const char *const status_names[] = {"ok", "failed", "timeout", "refused"};

const char *gc_fleet_status_name(enum gc_fleet_status s)
{
    if ((int)s < 0 || (size_t)s >= sizeof(status_names) / sizeof(status_names[0]))
        return "unknown";
    return status_names[s];
}

void gc_fleet_options_init(struct gc_fleet_options *o)
{
    o->low_ratio = 0.90;
    o->high_ratio = 1.10;
    o->high_z = 3.5;
    o->min_group = 3;
}

int gc_fleet_create(struct gc_fleet **out)
{
    *out = calloc(1, sizeof(**out));
    if (!*out)
        return GC_ENOMEM;
    gc_fleet_options_init(&(*out)->opt);
    return 0;
}

static void free_analysis(struct gc_fleet *f)
{
    free(f->groups);
    free(f->stats);
    free(f->flags);
    free(f->notes);
    f->groups = NULL;
    f->stats = NULL;
    f->flags = NULL;
    f->notes = NULL;
    f->ngroups = f->nstats = f->nflags = f->nnotes = 0;
    f->nflagged_gpus = f->nfailed = 0;
}

void gc_fleet_free(struct gc_fleet *f)
{
    if (!f)
        return;
    for (int i = 0; i < f->ngpus; i++)
        free(f->gpus[i].v);
    free(f->gpus);
    free(f->figures);
    free_analysis(f);
    gc__fleet_free_nodes(f);
    free(f);
}

struct gc_fleet_gpu *gc__fleet_new_gpu(struct gc_fleet *f)
{
    if (f->ngpus == f->gpu_cap) {
        int cap = f->gpu_cap ? 2 * f->gpu_cap : 16;
        struct gc_fleet_gpu *p = realloc(f->gpus, (size_t)cap * sizeof(*p));

        if (!p)
            return NULL;
        f->gpus = p;
        f->gpu_cap = cap;
    }
    struct gc_fleet_gpu *g = &f->gpus[f->ngpus++];
    memset(g, 0, sizeof(*g));
    g->rank = -1;
    g->ecc = -1;
    g->schema_version = GC_SCHEMA_VERSION;
    return g;
}

int gc__fleet_figure(struct gc_fleet *f, const char *key, const char *unit, int direction, int hint)
{
    if (hint >= 0 && hint < f->nfig && strcmp(f->figures[hint].key, key) == 0)
        return hint;
    for (int i = 0; i < f->nfig; i++)
        if (strcmp(f->figures[i].key, key) == 0)
            return i;
    if (f->nfig == f->fig_cap) {
        int cap = f->fig_cap ? 2 * f->fig_cap : 32;
        struct gc_fleet_figure *p = realloc(f->figures, (size_t)cap * sizeof(*p));

        if (!p)
            return -1;
        f->figures = p;
        f->fig_cap = cap;
    }
    struct gc_fleet_figure *fg = &f->figures[f->nfig];
    snprintf(fg->key, sizeof(fg->key), "%s", key);
    snprintf(fg->unit, sizeof(fg->unit), "%s", unit ? unit : "");
    fg->direction = direction;
    return f->nfig++;
}

int gc__fleet_set(struct gc_fleet_gpu *g, int fig, double v)
{
    if (fig >= g->nv) {
        int nv = fig + 1 > 2 * g->nv ? fig + 1 : 2 * g->nv;
        double *p = realloc(g->v, (size_t)nv * sizeof(*p));

        if (!p)
            return GC_ENOMEM;
        for (int i = g->nv; i < nv; i++)
            p[i] = NAN;
        g->v = p;
        g->nv = nv;
    }
    g->v[fig] = v;
    return 0;
}

void gc__fleet_group_key(struct gc_fleet_gpu *g)
{
    char link[32] = "link unknown";

    if (g->pcie_gen_max > 0 && g->pcie_width_max > 0)
        snprintf(link, sizeof(link), "PCIe gen%d x%d", g->pcie_gen_max, g->pcie_width_max);
    snprintf(g->group, sizeof(g->group), "%s | %s profile | SM %.0f MHz | mem %.0f MHz | %s",
             g->name, g->profile[0] ? g->profile : "unknown", g->max_sm_clock_mhz,
             g->max_mem_clock_mhz, link);
}

double gc__fleet_robust_z(double x, double median, double mad)
{
    if (mad > 0)
        return 0.6745 * (x - median) / mad;
    return x == median ? 0.0 : x > median ? INFINITY : -INFINITY;
}

void gc__fleet_median_mad(double *x, int n, double *median, double *mad)
{
    *median = gc__percentile(x, n, 50);
    for (int i = 0; i < n; i++)
        x[i] = fabs(x[i] - *median);
    *mad = gc__percentile(x, n, 50);
}

/* ---- Analysis ------------------------------------------------------------- */

static int group_of(struct gc_fleet *f, const struct gc_fleet_gpu *g)
{
    for (int i = 0; i < f->ngroups; i++)
        if (strcmp(f->groups[i].key, g->group) == 0)
            return i;
    struct gc_fleet_group *p = realloc(f->groups, (size_t)(f->ngroups + 1) * sizeof(*p));
    if (!p)
        return -1;
    f->groups = p;
    memset(&p[f->ngroups], 0, sizeof(*p));
    snprintf(p[f->ngroups].key, sizeof(p->key), "%s", g->group);
    snprintf(p[f->ngroups].name, sizeof(p->name), "%s", g->name);
    return f->ngroups++;
}

/* The absolute floor of figure fig for the devices named sku; NAN none. */
static double ref_floor(const struct gc_fleet_reference *ref, const char *sku, const char *fig)
{
    for (int i = 0; ref && i < ref->n; i++)
        if (strcmp(ref->e[i].sku, sku) == 0 && strcmp(ref->e[i].figure, fig) == 0)
            return ref->e[i].limit;
    return NAN;
}

/* The stricter of two thresholds for direction dir (NAN: absent). */
static double stricter(double a, double b, int dir)
{
    if (!isfinite(a))
        return b;
    if (!isfinite(b))
        return a;
    return dir > 0 ? fmax(a, b) : fmin(a, b);
}

static int add_flag(struct gc_fleet *f, int *cap, const struct gc_fleet_flag *fl)
{
    if (f->nflags == *cap) {
        int c = *cap ? 2 * *cap : 16;
        struct gc_fleet_flag *p = realloc(f->flags, (size_t)c * sizeof(*p));

        if (!p)
            return GC_ENOMEM;
        f->flags = p;
        *cap = c;
    }
    f->flags[f->nflags++] = *fl;
    return 0;
}

/* The flag of device gi on figure st->figure, if any: below the floor, or
 * above the group by the high rules. */
static int judge(struct gc_fleet *f, int *cap, const struct gc_fleet_stat *st, int si, int gi)
{
    int dir = f->figures[st->figure].direction;
    double v = f->gpus[gi].v[st->figure];
    struct gc_fleet_flag fl = {.gpu = gi, .figure = st->figure, .stat = si, .value = v};

    fl.z = gc__fleet_robust_z(v, st->median, st->mad);
    if (dir == 0)
        return 0;
    if (isfinite(st->floor) && (dir > 0 ? v < st->floor : v > st->floor)) {
        fl.kind = GC_FLEET_LOW;
        snprintf(fl.rule, sizeof(fl.rule), "%s",
                 st->floor == st->abs_floor ? "absolute" : "relative");
        return add_flag(f, cap, &fl);
    }
    if (isfinite(st->high) &&
        (dir > 0 ? v > st->high && fl.z > f->opt.high_z : v < st->high && fl.z < -f->opt.high_z)) {
        fl.kind = GC_FLEET_HIGH;
        snprintf(fl.rule, sizeof(fl.rule), "above");
        return add_flag(f, cap, &fl);
    }
    return 0;
}

/* One figure of one group: its statistics, then each member judged. */
static int analyse_figure(struct gc_fleet *f, const struct gc_fleet_reference *ref, int grp,
                          int fig, const int *member, int nmember, double *scratch, int *flag_cap)
{
    const struct gc_fleet_figure *fg = &f->figures[fig];
    struct gc_fleet_stat st = {.group = grp, .figure = fig};
    int n = 0, dir = fg->direction;

    for (int k = 0; k < nmember; k++) {
        const struct gc_fleet_gpu *g = &f->gpus[member[k]];

        if (fig < g->nv && isfinite(g->v[fig]))
            scratch[n++] = g->v[fig];
    }
    if (n == 0)
        return 0;
    st.n = n;
    gc__fleet_median_mad(scratch, n, &st.median, &st.mad);
    st.rel_floor = st.high = NAN;
    if (dir != 0 && n >= f->opt.min_group) {
        st.rel_floor = dir > 0 ? f->opt.low_ratio * st.median : st.median / f->opt.low_ratio;
        st.high = dir > 0 ? f->opt.high_ratio * st.median : st.median / f->opt.high_ratio;
    }
    st.abs_floor = dir != 0 ? ref_floor(ref, f->groups[grp].name, fg->key) : NAN;
    st.floor = stricter(st.rel_floor, st.abs_floor, dir);
    struct gc_fleet_stat *p = realloc(f->stats, (size_t)(f->nstats + 1) * sizeof(*p));
    if (!p)
        return GC_ENOMEM;
    f->stats = p;
    f->stats[f->nstats] = st;
    for (int k = 0; k < nmember; k++) {
        const struct gc_fleet_gpu *g = &f->gpus[member[k]];

        if (fig < g->nv && isfinite(g->v[fig])) {
            int rc = judge(f, flag_cap, &st, f->nstats, member[k]);
            if (rc)
                return rc;
        }
    }
    f->nstats++;
    return 0;
}

/* Notes for reference SKUs no group has: a typo would otherwise leave the
 * fleet without its floors silently. */
static int reference_notes(struct gc_fleet *f, const struct gc_fleet_reference *ref)
{
    for (int i = 0; ref && i < ref->n; i++) {
        bool seen = false, noted = false;

        for (int g = 0; g < f->ngroups && !seen; g++)
            seen = strcmp(f->groups[g].name, ref->e[i].sku) == 0;
        for (int j = 0; j < i && !noted; j++)
            noted = strcmp(ref->e[j].sku, ref->e[i].sku) == 0;
        if (seen || noted)
            continue;
        char(*p)[256] = realloc(f->notes, (size_t)(f->nnotes + 1) * sizeof(*p));
        if (!p)
            return GC_ENOMEM;
        f->notes = p;
        snprintf(p[f->nnotes++], sizeof(*p),
                 "reference SKU '%.120s' matches no device of the fleet: its floors are unused",
                 ref->e[i].sku);
    }
    return 0;
}

/* The devices of each group, in order: member[start[g] .. start[g + 1]). */
static int members(struct gc_fleet *f, int **member, int **start)
{
    int *gof = malloc((size_t)(f->ngpus ? f->ngpus : 1) * sizeof(int));
    int rc = 0;

    *member = malloc((size_t)(f->ngpus ? f->ngpus : 1) * sizeof(int));
    *start = NULL;
    if (!gof || !*member)
        goto nomem;
    for (int i = 0; i < f->ngpus; i++) {
        gof[i] = -1;
        if (f->gpus[i].status != GC_FLEET_OK) {
            f->nfailed++;
            continue;
        }
        if ((gof[i] = group_of(f, &f->gpus[i])) < 0)
            goto nomem;
        f->groups[gof[i]].ngpus++;
    }
    *start = calloc((size_t)f->ngroups + 1, sizeof(int));
    if (!*start)
        goto nomem;
    for (int g = 0; g < f->ngroups; g++)
        (*start)[g + 1] = (*start)[g] + f->groups[g].ngpus;
    int *fill = calloc((size_t)f->ngroups + 1, sizeof(int));
    if (!fill)
        goto nomem;
    for (int i = 0; i < f->ngpus; i++)
        if (gof[i] >= 0)
            (*member)[(*start)[gof[i]] + fill[gof[i]]++] = i;
    free(fill);
    free(gof);
    return rc;
nomem:
    free(gof);
    free(*member);
    free(*start);
    *member = *start = NULL;
    return GC_ENOMEM;
}

int gc_fleet_analyse(struct gc_fleet *f, const struct gc_fleet_options *opt,
                     const struct gc_fleet_reference *ref)
{
    int *member = NULL, *start = NULL, flag_cap = 0, rc;
    double *scratch = NULL;

    free_analysis(f);
    if (opt)
        f->opt = *opt;
    snprintf(f->reference, sizeof(f->reference), "%s", ref ? ref->path : "");
    rc = members(f, &member, &start);
    if (rc)
        return rc;
    scratch = malloc((size_t)(f->ngpus ? f->ngpus : 1) * sizeof(*scratch));
    if (!scratch)
        rc = GC_ENOMEM;
    for (int g = 0; g < f->ngroups && rc == 0; g++)
        for (int fig = 0; fig < f->nfig && rc == 0; fig++)
            rc = analyse_figure(f, ref, g, fig, member + start[g], start[g + 1] - start[g], scratch,
                                &flag_cap);
    if (rc == 0)
        rc = reference_notes(f, ref);
    if (rc == 0)
        rc = gc__fleet_analyse_nodes(f);
    if (rc == 0) {
        bool *seen = calloc((size_t)(f->ngpus ? f->ngpus : 1), sizeof(*seen));

        if (!seen)
            rc = GC_ENOMEM;
        for (int i = 0; seen && i < f->nflags; i++) {
            f->nflagged_gpus += !seen[f->flags[i].gpu];
            seen[f->flags[i].gpu] = true;
        }
        free(seen);
    }
    free(scratch);
    free(member);
    free(start);
    return rc;
}

/* NVML's clock event (throttle) reasons, by bit. */
static const struct {
    unsigned long long bit;
    const char *what;
} throttle_bits[] = {
    {0x2ULL, "application clocks setting"}, {0x4ULL, "software power cap"},
    {0x8ULL, "hardware slowdown"},          {0x20ULL, "sync boost"},
    {0x40ULL, "software thermal slowdown"}, {0x80ULL, "hardware thermal slowdown"},
    {0x100ULL, "hardware power brake"},
};

static void append(char *buf, size_t len, const char *text)
{
    size_t used = strlen(buf);

    if (used < len)
        snprintf(buf + used, len - used, "%s%s", used ? "; " : "", text);
}

/* True when another device of g's group has ECC on. */
static bool group_ecc_on(const struct gc_fleet *f, const struct gc_fleet_gpu *g)
{
    for (int i = 0; i < f->ngpus; i++)
        if (&f->gpus[i] != g && f->gpus[i].ecc == 1 && strcmp(f->gpus[i].group, g->group) == 0)
            return true;
    return false;
}

void gc__fleet_causes(const struct gc_fleet *f, int gi, char *buf, size_t len)
{
    const struct gc_fleet_gpu *g = &f->gpus[gi];
    char t[128];

    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(throttle_bits) / sizeof(throttle_bits[0]); i++)
        if (g->throttle_reasons & throttle_bits[i].bit) {
            snprintf(t, sizeof(t), "clock throttled: %s", throttle_bits[i].what);
            append(buf, len, t);
        }
    if (g->throttled_samples > 0) {
        snprintf(t, sizeof(t), "%d samples taken under a lowered clock", g->throttled_samples);
        append(buf, len, t);
    }
    if (g->pcie_width > 0 && g->pcie_width_max > 0 && g->pcie_width < g->pcie_width_max) {
        snprintf(t, sizeof(t), "PCIe link x%d of x%d", g->pcie_width, g->pcie_width_max);
        append(buf, len, t);
    }
    if (g->pcie_gen > 0 && g->pcie_gen_max > 0 && g->pcie_gen < g->pcie_gen_max) {
        snprintf(t, sizeof(t), "PCIe link gen%d of gen%d", g->pcie_gen, g->pcie_gen_max);
        append(buf, len, t);
    }
    if (g->ecc == 0 && group_ecc_on(f, g))
        append(buf, len, "ECC off where its group has it on");
}
