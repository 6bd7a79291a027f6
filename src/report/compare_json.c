/* The comparison as JSON (docs/schema.md, "gpuchar compare"), written with
 * jansson: the runs, the notes, one object per row with every run's cell,
 * and the counts a CI job reads. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuchar/gpuchar.h"
#include "report/outfile.h"

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(17))

struct writer {
    bool failed;
};

static void put(struct writer *w, json_t *obj, const char *key, json_t *val)
{
    if (!val || json_object_set_new(obj, key, val) != 0)
        w->failed = true;
}

static void append(struct writer *w, json_t *arr, json_t *val)
{
    if (!val || json_array_append_new(arr, val) != 0)
        w->failed = true;
}

/* Strings come from documents jansson has read (valid UTF-8) or from our
 * own formatting; a refusal is recorded as a failure, never written. */
static json_t *jstr(const char *s)
{
    return json_string(s ? s : "");
}

static json_t *jnum(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *run_to_json(struct writer *w, const struct gc_comparison *c, int k)
{
    const struct gc_results *r = c->runs[k];
    json_t *o = json_object();

    put(w, o, "label", jstr(c->label[k]));
    put(w, o, "file", jstr(c->source[k]));
    put(w, o, "device", jstr(r->meta.device.name));
    put(w, o, "spec", jstr(r->meta.device.spec));
    put(w, o, "compute_units", json_integer(r->meta.device.compute_units));
    put(w, o, "clock_mhz", jnum(r->meta.device.clock_mhz > 0 ? r->meta.device.clock_mhz : NAN));
    put(w, o, "date", jstr(r->meta.date));
    put(w, o, "tool_version", jstr(r->meta.tool_version));
    put(w, o, "git_revision", jstr(r->meta.git_revision));
    put(w, o, "profile", jstr(r->meta.profile));
    put(w, o, "complete", json_boolean(r->complete));
    return o;
}

static json_t *cell_to_json(struct writer *w, const struct gc_comparison *c,
                            const struct gc_cmp_cell *x, int k)
{
    json_t *o = json_object();

    put(w, o, "run", jstr(c->label[k]));
    put(w, o, "present", json_boolean(x->present));
    put(w, o, "value", jnum(x->value));
    put(w, o, "spread", jnum(x->spread));
    if (k > 0) {
        put(w, o, "ratio", jnum(x->ratio));
        put(w, o, "ratio_per_clk_cu", jnum(x->ratio_per_clk_cu));
        put(w, o, "change", jnum(x->change));
        put(w, o, "noise", jnum(x->noise));
    }
    put(w, o, "verdict", jstr(gc_cmp_verdict_name(x->verdict)));
    if (x->note[0])
        put(w, o, "note", jstr(x->note));
    return o;
}

static json_t *to_json(const struct gc_comparison *c, struct writer *w)
{
    json_t *doc = json_object(), *runs = json_array(), *notes = json_array();
    json_t *rows = json_array(), *regressed = json_array();

    put(w, doc, "schema", jstr("gpuchar-compare"));
    put(w, doc, "schema_version", json_integer(1));
    put(w, doc, "threshold", jnum(c->opt.threshold));
    put(w, doc, "noise_factor", jnum(c->opt.noise_factor));
    put(w, doc, "cross_device", json_boolean(c->cross_device));
    for (int k = 0; k < c->nruns; k++)
        append(w, runs, run_to_json(w, c, k));
    put(w, doc, "runs", runs);
    for (int i = 0; i < c->nnotes; i++)
        append(w, notes, jstr(c->notes[i]));
    put(w, doc, "notes", notes);
    for (int i = 0; i < c->nrows; i++) {
        const struct gc_cmp_row *row = &c->rows[i];
        json_t *o = json_object(), *cells = json_array();

        put(w, o, "bench", jstr(row->bench));
        put(w, o, "metric", jstr(row->metric));
        put(w, o, "unit", jstr(row->unit));
        put(w, o, "direction", json_integer(row->direction));
        for (int k = 0; k < c->nruns; k++) {
            enum gc_cmp_verdict v = row->cell[k].verdict;

            append(w, cells, cell_to_json(w, c, &row->cell[k], k));
            if (k > 0 && (v == GC_CMP_REGRESSED || v == GC_CMP_FAILED)) {
                json_t *g = json_object();

                put(w, g, "bench", jstr(row->bench));
                put(w, g, "metric", jstr(row->metric));
                put(w, g, "run", jstr(c->label[k]));
                put(w, g, "verdict", jstr(gc_cmp_verdict_name(v)));
                put(w, g, "change", jnum(row->cell[k].change));
                append(w, regressed, g);
            }
        }
        put(w, o, "cells", cells);
        append(w, rows, o);
    }
    put(w, doc, "rows", rows);
    put(w, doc, "regressions", json_integer(c->regressions));
    put(w, doc, "improvements", json_integer(c->improvements));
    put(w, doc, "regressed", regressed);
    return doc;
}

int gc_write_compare_json(const struct gc_comparison *c, const char *path)
{
    struct writer w = {false};
    struct gc_outfile of;
    char err[256];
    json_t *doc;
    int rc = 0;

    if (!c || !path || !*path)
        return GC_EINVAL;
    doc = to_json(c, &w);
    if (!doc || w.failed) {
        json_decref(doc);
        return GC_ENOMEM;
    }
    if (strcmp(path, "-") == 0) {
        if (json_dumpf(doc, stdout, DUMP_FLAGS) != 0 || fputc('\n', stdout) == EOF ||
            fflush(stdout) != 0)
            rc = GC_EIO;
    } else if ((rc = gc__outfile_open(path, &of, err, sizeof(err))) == 0) {
        if (json_dumpf(doc, of.f, DUMP_FLAGS) != 0 || fputc('\n', of.f) == EOF) {
            gc__outfile_abort(&of);
            rc = GC_EIO;
        } else {
            rc = gc__outfile_commit(&of, err, sizeof(err));
        }
    }
    json_decref(doc);
    return rc;
}
