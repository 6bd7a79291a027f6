/* The link.* rows as JSON matrices (gc_write_link_json, docs/schema.md
 * "Peer links"): per row and suffix an n x n array of values (null on the
 * diagonal and where no figure exists) with the limits beside it. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuchar/link.h"
#include "report/link_matrix.h"

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* values and limits arrays of one matrix. */
static json_t *matrix_json(const struct gc_link_matrix *m)
{
    json_t *o = json_object(), *vals = json_array(), *lims = json_array();

    for (int a = 0; a < m->n; a++) {
        json_t *rv = json_array(), *rl = json_array();

        for (int b = 0; b < m->n; b++) {
            const struct gc_metric *x = m->cell[a * m->n + b];
            json_array_append_new(rv, num(x ? x->value : NAN));
            json_array_append_new(rl, num(x ? x->limit : NAN));
        }
        json_array_append_new(vals, rv);
        json_array_append_new(lims, rl);
    }
    json_object_set_new(o, "unit", json_string(m->unit));
    json_object_set_new(o, "values", vals);
    json_object_set_new(o, "limits", lims);
    return o;
}

static int add_row(json_t *mats, json_t *devs, const struct gc_bench_result *b)
{
    static const char *const suffixes[] = {NULL, "sum", "latency", "device"};
    char key[96];
    int rc = 0;

    for (int i = 0; i < b->nmetrics && json_array_size(devs) == 0; i++)
        if (strcmp(b->metrics[i].name, "devices") == 0)
            json_array_append_new(devs, json_string(b->metrics[i].note));
    for (size_t s = 0; s < sizeof(suffixes) / sizeof(suffixes[0]) && rc == 0; s++) {
        struct gc_link_matrix m;

        if ((rc = gc__link_matrix(b, suffixes[s], &m)))
            break;
        snprintf(key, sizeof(key), "%s%s%s", b->name, suffixes[s] ? "." : "",
                 suffixes[s] ? suffixes[s] : "");
        if (m.n > 0)
            json_object_set_new(mats, key, matrix_json(&m));
        gc__link_matrix_free(&m);
    }
    return rc;
}

int gc_write_link_json(const struct gc_results *links, FILE *f)
{
    json_t *doc = json_object(), *mats = json_object(), *devs = json_array();
    int rc = 0;

    if (!links || !f || !doc || !mats || !devs) {
        json_decref(doc);
        json_decref(mats);
        json_decref(devs);
        return !links || !f ? GC_EINVAL : GC_ENOMEM;
    }
    for (int i = 0; i < links->nbenches && rc == 0; i++)
        if (gc__link_row(&links->benches[i]))
            rc = add_row(mats, devs, &links->benches[i]);
    json_object_set_new(doc, "devices", devs);
    json_object_set_new(doc, "matrices", mats);
    if (rc == 0 && json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0)
        rc = GC_EIO;
    json_decref(doc);
    return rc;
}
