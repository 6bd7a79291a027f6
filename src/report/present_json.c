/* A benchmark's report declaration in the results file (present_json.h).
 * Only the fields that differ from their defaults are written. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/present.h"
#include "gpuchar/gpuchar.h"
#include "report/present_json.h"

static const char *const pick_names[] = {"value", "limit", "percent"};

/* Sets key to val (a new reference, NULL on ENOMEM); false on failure. */
static bool set(json_t *o, const char *key, json_t *val)
{
    return val && json_object_set_new(o, key, val) == 0;
}

static bool set_str(json_t *o, const char *key, const char *s)
{
    return !s || set(o, key, json_string(s));
}

static json_t *cell_to_json(const struct gc_sum_cell *c)
{
    json_t *o = json_object();
    bool ok = o && set_str(o, "table", c->table->name) && set_str(o, "row", c->row) &&
              set(o, "col", json_integer(c->col)) && set_str(o, "metric", c->metric) &&
              set_str(o, "unit", c->unit);

    if (ok && c->pick != GC_SUM_VALUE)
        ok = set_str(o, "pick", pick_names[c->pick]);
    if (ok && c->scale != 0)
        ok = set(o, "scale", json_real(c->scale));
    if (ok && c->rank != 0)
        ok = set(o, "rank", json_integer(c->rank));
    if (ok && c->key)
        ok = set(o, "key", json_true());
    if (!ok)
        json_decref(o);
    return ok ? o : NULL;
}

static json_t *figure_to_json(const struct gc_fig_rule *f)
{
    json_t *o = json_object();
    bool ok = o && set_str(o, "series", f->series) && set_str(o, "title", f->title);

    if (ok && f->key_end)
        ok = set(o, "key_skip", json_integer(f->key_skip)) && set_str(o, "key_end", f->key_end);
    if (ok && f->any_x_name)
        ok = set(o, "any_x_name", json_true());
    if (ok && f->staircase)
        ok = set(o, "staircase", json_true());
    if (ok && f->scatter)
        ok = set(o, "scatter", json_true());
    if (!ok)
        json_decref(o);
    return ok ? o : NULL;
}

json_t *gc__present_to_json(const struct gc_bench_report *r)
{
    json_t *o = json_object(), *cells = json_array(), *figs = json_array();
    bool ok = o && cells && figs;

    for (int i = 0; ok && i < gc__report_ncells(r); i++)
        ok = json_array_append_new(cells, cell_to_json(&r->cells[i])) == 0;
    for (int i = 0; ok && i < gc__report_nfigures(r); i++)
        ok = json_array_append_new(figs, figure_to_json(&r->figures[i])) == 0;
    if (ok && json_array_size(cells) > 0)
        ok = json_object_set(o, "cells", cells) == 0;
    if (ok && json_array_size(figs) > 0)
        ok = json_object_set(o, "figures", figs) == 0;
    json_decref(cells);
    json_decref(figs);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ---- Reading ------------------------------------------------------------ */

struct preader {
    const char *where;
    char *err;
    size_t errlen;
    int rc;
};

static void bad(struct preader *rd, const char *list, size_t i, const char *key, const char *what)
{
    if (rd->rc)
        return;
    rd->rc = GC_EINVAL;
    if (rd->err && rd->errlen > 0)
        snprintf(rd->err, rd->errlen, "field \"%s.presentation.%s[%zu]%s%s\" must be %s", rd->where,
                 list, i, *key ? "." : "", key, what);
}

/* An optional string (NULL when absent); a required one that is absent or
 * any non-string fails. */
static const char *str(struct preader *rd, json_t *o, const char *list, size_t i, const char *key,
                       bool required)
{
    json_t *v = json_object_get(o, key);

    if (!v && !required)
        return NULL;
    if (!v || !json_is_string(v)) {
        bad(rd, list, i, key, "a string");
        return NULL;
    }
    return json_string_value(v);
}

static int integer(struct preader *rd, json_t *o, const char *list, size_t i, const char *key)
{
    json_t *v = json_object_get(o, key);

    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1000) {
        bad(rd, list, i, key, "an integer from 0 to 1000");
        return 0;
    }
    return (int)json_integer_value(v);
}

static bool flag(struct preader *rd, json_t *o, const char *list, size_t i, const char *key)
{
    json_t *v = json_object_get(o, key);

    if (v && !json_is_boolean(v))
        bad(rd, list, i, key, "true or false");
    return v && json_is_true(v);
}

/* Reads cell i into *c; false when it names a table this gpuchar lacks. */
static bool read_cell(struct preader *rd, json_t *o, size_t i, struct gc_sum_cell *c)
{
    const char *table = str(rd, o, "cells", i, "table", true);
    const char *pick = str(rd, o, "cells", i, "pick", false);
    json_t *scale = json_object_get(o, "scale");

    *c = (struct gc_sum_cell){.row = str(rd, o, "cells", i, "row", false),
                              .col = integer(rd, o, "cells", i, "col"),
                              .metric = str(rd, o, "cells", i, "metric", true),
                              .unit = str(rd, o, "cells", i, "unit", false),
                              .rank = integer(rd, o, "cells", i, "rank"),
                              .key = flag(rd, o, "cells", i, "key")};
    if (c->col >= GC_SUM_MAXCOLS)
        bad(rd, "cells", i, "col", "a column of the table");
    if (scale && (!json_is_number(scale) || !isfinite(json_number_value(scale))))
        bad(rd, "cells", i, "scale", "a number");
    c->scale = scale ? json_number_value(scale) : 0;
    for (int k = 0; pick && k < (int)(sizeof(pick_names) / sizeof(pick_names[0])); k++)
        if (strcmp(pick, pick_names[k]) == 0) {
            c->pick = (enum gc_sum_pick)k;
            pick = NULL;
        }
    if (pick)
        bad(rd, "cells", i, "pick", "\"value\", \"limit\" or \"percent\"");
    c->table = table ? gc__sum_table_find(table) : NULL;
    return c->table != NULL;
}

static void read_figure(struct preader *rd, json_t *o, size_t i, struct gc_fig_rule *f)
{
    *f = (struct gc_fig_rule){.series = str(rd, o, "figures", i, "series", true),
                              .title = str(rd, o, "figures", i, "title", false),
                              .key_skip = integer(rd, o, "figures", i, "key_skip"),
                              .key_end = str(rd, o, "figures", i, "key_end", false),
                              .any_x_name = flag(rd, o, "figures", i, "any_x_name"),
                              .staircase = flag(rd, o, "figures", i, "staircase"),
                              .scatter = flag(rd, o, "figures", i, "scatter")};
}

static json_t *list(struct preader *rd, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    if (v && !json_is_array(v)) {
        rd->rc = GC_EINVAL;
        if (rd->err && rd->errlen > 0)
            snprintf(rd->err, rd->errlen, "field \"%s.presentation.%s\" must be an array",
                     rd->where, key);
        return NULL;
    }
    return v;
}

int gc__present_from_json(json_t *o, const char *where, struct gc_bench_report **out, char *err,
                          size_t errlen)
{
    struct preader rd = {where, err, errlen, 0};
    json_t *cells, *figs, *v;
    struct gc_sum_cell *c = NULL;
    struct gc_fig_rule *f = NULL;
    size_t i, nc = 0;
    int rc;

    *out = NULL;
    if (!json_is_object(o)) {
        if (err && errlen > 0)
            snprintf(err, errlen, "field \"%s.presentation\" must be an object", where);
        return GC_EINVAL;
    }
    cells = list(&rd, o, "cells");
    figs = list(&rd, o, "figures");
    if (rd.rc)
        return rd.rc;
    c = calloc(json_array_size(cells) + 1, sizeof(*c));
    f = calloc(json_array_size(figs) + 1, sizeof(*f));
    if (!c || !f) {
        free(c);
        free(f);
        return GC_ENOMEM;
    }
    json_array_foreach(cells, i, v)
    {
        if (!json_is_object(v))
            bad(&rd, "cells", i, "", "an object");
        else if (read_cell(&rd, v, i, &c[nc]))
            nc++;
    }
    json_array_foreach(figs, i, v)
    {
        if (json_is_object(v))
            read_figure(&rd, v, i, &f[i]);
        else
            bad(&rd, "figures", i, "", "an object");
    }
    c[nc] = (struct gc_sum_cell){0};
    rc = rd.rc ? rd.rc : gc__report_pack(&(struct gc_bench_report){c, f}, out);
    free(c);
    free(f);
    return rc;
}
