/* The guide as a JSON document (docs/schema.md, "The guide"). */
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "gpuchar/guide.h"
#include "report/outfile.h"

#define GUIDE_SCHEMA "gpuchar-guide"
#define GUIDE_VERSION 1

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *item_json(const struct gc_guide_item *it)
{
    static const char *const verdicts[] = {"unknown", "none", "small", "pays", "info"};
    json_t *o = json_object(), *figs = json_array();

    for (int k = 0; k < it->nfigs; k++)
        json_array_append_new(figs, json_pack("{s:s, s:o, s:s}", "name", it->figs[k].name, "value",
                                              num(it->figs[k].value), "unit", it->figs[k].unit));
    json_object_set_new(o, "optimization", json_string(it->topic));
    json_object_set_new(o, "class", it->klass[0] ? json_string(it->klass) : json_null());
    json_object_set_new(o, "verdict", json_string(verdicts[it->verdict]));
    json_object_set_new(o, "expected_gain_pct", num(it->gain_pct));
    json_object_set_new(o, "advice", json_string(it->advice));
    json_object_set_new(o, "missing", it->missing[0] ? json_string(it->missing) : json_null());
    json_object_set_new(o, "figures", figs);
    return o;
}

static json_t *check_json(const struct gc_guide *g)
{
    const struct gc_guide_check *c = &g->jacobi;

    if (!c->present)
        return json_null();
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:s, s:b, s:s}", "bench", c->bench, "best", c->best,
                     "improvement_pct", num(c->improvement_pct), "primary",
                     c->primary[0] ? json_string(c->primary) : json_null(), "contribution_pct",
                     num(c->contribution_pct), "measured_class", c->measured_class, "hit", c->hit,
                     "why", c->why);
}

static json_t *guide_json(const struct gc_guide *g)
{
    json_t *items = json_array();

    for (int i = 0; i < g->nitems; i++)
        json_array_append_new(items, item_json(&g->items[i]));
    return json_pack("{s:s, s:i, s:s, s:s, s:o, s:s, s:o, s:o}", "schema", GUIDE_SCHEMA,
                     "schema_version", GUIDE_VERSION, "device", g->device, "backend", g->backend,
                     "rules", items, "predicted_class", g->predicted_class, "predicted_gain_pct",
                     num(g->predicted_gain_pct), "jacobi", check_json(g));
}

int gc_write_guide_json(const struct gc_guide *g, const char *path)
{
    struct gc_outfile of;
    char err[256];
    json_t *doc;
    int rc;

    if (!g || !path || !*path)
        return GC_EINVAL;
    if (!(doc = guide_json(g)))
        return GC_ENOMEM;
    if (strcmp(path, "-") == 0) {
        rc = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0 ||
                     fputc('\n', stdout) == EOF
                 ? GC_EIO
                 : 0;
    } else if ((rc = gc__outfile_open(path, &of, err, sizeof(err))) == 0) {
        if (json_dumpf(doc, of.f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0 ||
            fputc('\n', of.f) == EOF) {
            gc__outfile_abort(&of);
            rc = GC_EIO;
        } else {
            rc = gc__outfile_commit(&of, err, sizeof(err));
        }
    }
    json_decref(doc);
    return rc;
}
