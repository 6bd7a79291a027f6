/* The per-SKU reference file of a fleet (docs/schema.md, "fleet
 * reference"): absolute floors a centre sets for each model's headline
 * figures. Every figure must name a measured column of a summary table and
 * every floor must be a positive number: a typo is refused, not ignored. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/present.h"
#include "gpuchar/fleet.h"

#define REF_SCHEMA "gpuchar-fleet-reference"

/* True when key is "<table>/<row>/<column>" of a summary table: the table
 * and column by name, the row among the fixed rows where the table has
 * them. */
static bool known_row(const struct gc_sum_table *t, const char *row, size_t len)
{
    if (t->kind != GC_SUM_FIXED)
        return len > 0;
    for (int r = 0; r < GC_SUM_MAXROWS && t->rows[r]; r++)
        if (strlen(t->rows[r]) == len && strncmp(t->rows[r], row, len) == 0)
            return true;
    return false;
}

static bool known_figure(const char *key)
{
    const char *s1 = strchr(key, '/');
    size_t kl = strlen(key);
    const struct gc_sum_table *t;

    if (!s1)
        return false;
    for (int i = 0; (t = gc__sum_table_at(i)); i++) {
        if (strlen(t->name) != (size_t)(s1 - key) || strncmp(t->name, key, (size_t)(s1 - key)))
            continue;
        for (int c = 0; c < t->ncols; c++) {
            size_t tl = strlen(t->col_title[c]);
            const char *col = key + kl - tl;

            if (kl < tl + 2 || col - 1 <= s1 || col[-1] != '/' || strcmp(col, t->col_title[c]))
                continue;
            if (known_row(t, s1 + 1, (size_t)(col - 1 - (s1 + 1))))
                return true;
        }
        return false;
    }
    return false;
}

static int add_entry(struct gc_fleet_reference *ref, const char *sku, const char *fig, double v)
{
    struct gc_fleet_ref_entry *p = realloc(ref->e, (size_t)(ref->n + 1) * sizeof(*p));

    if (!p)
        return GC_ENOMEM;
    ref->e = p;
    snprintf(p[ref->n].sku, sizeof(p->sku), "%s", sku);
    snprintf(p[ref->n].figure, sizeof(p->figure), "%s", fig);
    p[ref->n++].limit = v;
    return 0;
}

static int read_sku(struct gc_fleet_reference *ref, const char *path, const char *sku, json_t *figs,
                    char *err, size_t errlen)
{
    const char *fig;
    json_t *v;

    if (!json_is_object(figs)) {
        snprintf(err, errlen, "%s: SKU '%s': expected an object of figure: floor", path, sku);
        return GC_EINVAL;
    }
    json_object_foreach(figs, fig, v)
    {
        double x = json_is_number(v) ? json_number_value(v) : NAN;

        if (!known_figure(fig)) {
            snprintf(err, errlen,
                     "%s: SKU '%s': '%s' is not a headline figure "
                     "('<table>/<row>/<column>' of the summary tables; see the fleet CSV's header)",
                     path, sku, fig);
            return GC_EINVAL;
        }
        if (!isfinite(x) || x <= 0) {
            snprintf(err, errlen, "%s: SKU '%s', figure '%s': the floor must be a positive number",
                     path, sku, fig);
            return GC_EINVAL;
        }
        if (add_entry(ref, sku, fig, x))
            return GC_ENOMEM;
    }
    return 0;
}

int gc_fleet_reference_read(const char *path, struct gc_fleet_reference *out, char *err,
                            size_t errlen)
{
    json_error_t je;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je), *skus, *v;
    const char *schema = json_string_value(json_object_get(doc, "schema")), *sku;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    snprintf(out->path, sizeof(out->path), "%s", path);
    if (!doc) {
        snprintf(err, errlen, "%s: line %d: %s", path, je.line, je.text);
        return je.line <= 0 ? GC_EIO : GC_EINVAL;
    }
    if (!schema || strcmp(schema, REF_SCHEMA) != 0 ||
        !json_is_object(skus = json_object_get(doc, "skus"))) {
        snprintf(err, errlen,
                 "%s: not a fleet reference (\"schema\": \"%s\" and an object \"skus\")", path,
                 REF_SCHEMA);
        json_decref(doc);
        return GC_EINVAL;
    }
    json_object_foreach(skus, sku, v)
    {
        if ((rc = read_sku(out, path, sku, v, err, errlen)) != 0)
            break;
    }
    json_decref(doc);
    if (rc)
        gc_fleet_reference_free(out);
    return rc;
}

void gc_fleet_reference_free(struct gc_fleet_reference *ref)
{
    if (!ref)
        return;
    free(ref->e);
    ref->e = NULL;
    ref->n = 0;
}
