/* The fleet document (docs/schema.md, "gpuchar fleet"): thresholds and
 * rules, counts, the headline figures, per group and figure the statistics,
 * every device's identity and status, and the flagged devices with the
 * figures that put them there and their likely causes. The figures' values
 * of every device are in the CSV, not here. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/fleet.h"
#include "report/fleet_node_json.h"
#include "report/outfile.h"

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *thresholds(const struct gc_fleet *f)
{
    char low[400], high[300];

    snprintf(low, sizeof(low),
             "low: a figure worse than the stricter of the relative floor (%.3g x the group "
             "median; median / %.3g where lower is better; groups of at least %d devices) and the "
             "SKU's absolute floor from the reference file",
             f->opt.low_ratio, f->opt.low_ratio, f->opt.min_group);
    snprintf(high, sizeof(high),
             "high: a figure better than %.3g x the group median (median / %.3g where lower is "
             "better) with a robust z beyond %.3g: a wrong limit or a measurement error",
             f->opt.high_ratio, f->opt.high_ratio, f->opt.high_z);
    return json_pack("{s:f,s:f,s:f,s:i,s:s,s:[s,s]}", "low_ratio", f->opt.low_ratio, "high_ratio",
                     f->opt.high_ratio, "high_z", f->opt.high_z, "min_group", f->opt.min_group,
                     "reference", f->reference, "rules", low, high);
}

static json_t *counts(const struct gc_fleet *f)
{
    int n[4] = {0};

    for (int i = 0; i < f->ngpus; i++)
        if ((int)f->gpus[i].status >= 0 && f->gpus[i].status <= GC_FLEET_REFUSED)
            n[f->gpus[i].status]++;
    return json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}", "gpus", f->ngpus, "ok", n[0], "failed", n[1],
                     "timeout", n[2], "refused", n[3], "flagged", f->nflagged_gpus);
}

static json_t *groups(const struct gc_fleet *f)
{
    json_t *a = json_array();

    for (int g = 0; g < f->ngroups; g++) {
        json_t *st = json_array();

        for (int s = 0; s < f->nstats; s++) {
            const struct gc_fleet_stat *x = &f->stats[s];

            if (x->group != g)
                continue;
            json_t *o = json_pack("{s:s,s:i}", "figure", f->figures[x->figure].key, "n", x->n);
            json_object_set_new(o, "median", jnum(x->median));
            json_object_set_new(o, "mad", jnum(x->mad));
            json_object_set_new(o, "relative_floor", jnum(x->rel_floor));
            json_object_set_new(o, "absolute_floor", jnum(x->abs_floor));
            json_object_set_new(o, "floor", jnum(x->floor));
            json_object_set_new(o, "high", jnum(x->high));
            json_array_append_new(st, o);
        }
        json_array_append_new(a, json_pack("{s:s,s:s,s:i,s:o}", "key", f->groups[g].key, "name",
                                           f->groups[g].name, "gpus", f->groups[g].ngpus, "figures",
                                           st));
    }
    return a;
}

static json_t *gpu(const struct gc_fleet_gpu *g, bool flagged)
{
    json_t *o =
        json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:b,s:s,s:s,s:s}", "rank", g->rank, "host",
                  g->host, "spec", g->spec, "name", g->name, "pci", g->pci, "uuid", g->uuid,
                  "status", gc_fleet_status_name(g->status), "message", g->message, "flagged",
                  flagged, "group", g->group, "profile", g->profile, "source", g->source);

    json_object_set_new(o, "ecc", g->ecc < 0 ? json_null() : json_boolean(g->ecc));
    json_object_set_new(o, "throttle_reasons", json_integer((json_int_t)g->throttle_reasons));
    json_object_set_new(o, "throttled_samples", json_integer(g->throttled_samples));
    json_object_set_new(o, "pcie",
                        json_pack("{s:i,s:i,s:i,s:i}", "gen", g->pcie_gen, "width", g->pcie_width,
                                  "gen_max", g->pcie_gen_max, "width_max", g->pcie_width_max));
    return o;
}

/* The flagged devices, each with its flags and likely causes. */
static json_t *flagged(const struct gc_fleet *f, const bool *is_flagged)
{
    json_t *a = json_array();
    char causes[512];

    for (int i = 0; i < f->ngpus; i++) {
        const struct gc_fleet_gpu *g = &f->gpus[i];
        json_t *figs;

        if (!is_flagged[i])
            continue;
        figs = json_array();
        for (int k = 0; k < f->nflags; k++) {
            const struct gc_fleet_flag *fl = &f->flags[k];
            const struct gc_fleet_stat *st = &f->stats[fl->stat];

            if (fl->gpu != i)
                continue;
            json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "figure", f->figures[fl->figure].key, "unit",
                                  f->figures[fl->figure].unit, "kind",
                                  fl->kind == GC_FLEET_LOW ? "low" : "high", "rule", fl->rule);
            json_object_set_new(o, "value", jnum(fl->value));
            json_object_set_new(o, "median", jnum(st->median));
            json_object_set_new(o, "ratio", jnum(st->median != 0 ? fl->value / st->median : NAN));
            json_object_set_new(o, "z", jnum(fl->z));
            json_object_set_new(o, "threshold",
                                jnum(fl->kind == GC_FLEET_LOW ? st->floor : st->high));
            json_array_append_new(figs, o);
        }
        gc__fleet_causes(f, i, causes, sizeof(causes));
        json_array_append_new(a, json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:s,s:o}", "rank", g->rank,
                                           "host", g->host, "spec", g->spec, "pci", g->pci, "uuid",
                                           g->uuid, "name", g->name, "likely_cause", causes,
                                           "figures", figs));
    }
    return a;
}

static json_t *fleet_to_json(const struct gc_fleet *f, const bool *is_flagged)
{
    json_t *doc = json_pack("{s:s,s:i,s:s}", "schema", "gpuchar-fleet", "schema_version",
                            GC_FLEET_SCHEMA_VERSION, "tool_version", gc_version());
    json_t *figs = json_array(), *gpus = json_array(), *notes = json_array();

    json_object_set_new(doc, "thresholds", thresholds(f));
    json_object_set_new(doc, "counts", counts(f));
    for (int i = 0; i < f->nfig; i++)
        json_array_append_new(figs,
                              json_pack("{s:s,s:s,s:i}", "key", f->figures[i].key, "unit",
                                        f->figures[i].unit, "direction", f->figures[i].direction));
    json_object_set_new(doc, "figures", figs);
    json_object_set_new(doc, "groups", groups(f));
    for (int i = 0; i < f->ngpus; i++)
        json_array_append_new(gpus, gpu(&f->gpus[i], is_flagged[i]));
    json_object_set_new(doc, "gpus", gpus);
    json_object_set_new(doc, "flagged", flagged(f, is_flagged));
    for (int i = 0; i < f->nnotes; i++)
        json_array_append_new(notes, json_string(f->notes[i]));
    json_object_set_new(doc, "notes", notes);
    json_object_set_new(doc, "nodes", gc__fleet_nodes_json(f));
    return doc;
}

int gc_write_fleet_json(const struct gc_fleet *f, const char *path)
{
    bool *is_flagged = calloc((size_t)(f->ngpus ? f->ngpus : 1), sizeof(*is_flagged));
    struct gc_outfile of;
    char err[512];
    json_t *doc;
    int rc;

    if (!is_flagged)
        return GC_ENOMEM;
    for (int k = 0; k < f->nflags; k++)
        is_flagged[f->flags[k].gpu] = true;
    doc = fleet_to_json(f, is_flagged);
    free(is_flagged);
    if (!doc)
        return GC_ENOMEM;
    rc = gc__outfile_open(path, &of, err, sizeof(err));
    if (rc) {
        json_decref(doc);
        return rc;
    }
    if (json_dumpf(doc, of.f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0)
        rc = GC_EIO;
    if (rc == 0 && fputc('\n', of.f) == EOF)
        rc = GC_EIO;
    if (rc == 0)
        rc = gc__outfile_commit(&of, err, sizeof(err));
    else
        gc__outfile_abort(&of);
    json_decref(doc);
    return rc;
}
