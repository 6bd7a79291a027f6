/* The node document (docs/schema.md, "gpuchar node"): written with jansson,
 * each device's section embedding its whole results document. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuchar/node.h"
#include "report/infile.h"
#include "report/json.h"
#include "report/node_phases.h"

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
    return json_string(s ? s : "");
}

static json_t *resources_json(unsigned mask)
{
    json_t *a = json_array();

    for (unsigned bit = 1; bit & GC_RES_ALL; bit <<= 1) {
        char name[32];

        if (mask & bit)
            json_array_append_new(a, jstr(gc_resource_names(bit, name, sizeof(name))));
    }
    return a;
}

static json_t *device_json(const struct gc_node_device *d)
{
    json_t *o = json_object(), *id = json_object();

    json_object_set_new(o, "spec", jstr(d->spec));
    json_object_set_new(o, "name", jstr(d->name));
    json_object_set_new(o, "status",
                        jstr(d->lost             ? "lost"
                             : !d->results       ? "failed"
                             : d->rc == 0        ? "ok"
                             : d->rc == GC_EINTR ? "interrupted"
                                                 : "failed"));
    json_object_set_new(o, "error", jstr(d->rc ? gc_err_name(d->rc) : ""));
    json_object_set_new(o, "message", jstr(d->message));
    json_object_set_new(id, "pci_bus_id", jstr(d->id.pci));
    json_object_set_new(id, "uuid", jstr(d->id.uuid));
    json_object_set_new(id, "numa_node", json_integer(d->id.numa_node));
    json_object_set_new(id, "driver", jstr(d->id.driver));
    json_object_set_new(id, "ecc", d->id.ecc < 0 ? json_null() : json_boolean(d->id.ecc));
    json_object_set_new(id, "max_sm_clock_mhz",
                        d->id.max_sm_clock_mhz > 0 ? json_real(d->id.max_sm_clock_mhz)
                                                   : json_null());
    json_object_set_new(id, "max_mem_clock_mhz",
                        d->id.max_mem_clock_mhz > 0 ? json_real(d->id.max_mem_clock_mhz)
                                                    : json_null());
    json_object_set_new(o, "identity", id);
    json_object_set_new(o, "results", d->results ? gc__results_to_json(d->results) : json_null());
    return o;
}

static json_t *figure_json(const struct gc_node *n, const struct gc_node_figure *g)
{
    json_t *o = json_object();

    json_object_set_new(o, "figure", jstr(g->key));
    json_object_set_new(o, "unit", jstr(g->unit));
    json_object_set_new(o, "direction", json_integer(g->direction));
    json_object_set_new(o, "n", json_integer(g->n));
    json_object_set_new(o, "median", jnum(g->median));
    json_object_set_new(o, "min", jnum(g->min));
    json_object_set_new(o, "max", jnum(g->max));
    json_object_set_new(o, "spread", jnum(g->spread));
    json_object_set_new(o, "deviant",
                        g->deviant >= 0 && g->deviant < n->ndevices
                            ? jstr(n->devices[g->deviant].spec)
                            : json_null());
    json_object_set_new(o, "flagged", json_boolean(g->flagged));
    return o;
}

static json_t *node_to_json(const struct gc_node *n)
{
    json_t *doc = json_object(), *devs = json_array(), *sched = json_array(), *figs = json_array(),
           *sum = json_object();

    json_object_set_new(doc, "schema", jstr(GC__NODE_SCHEMA_NAME));
    json_object_set_new(doc, "schema_version", json_integer(GC_NODE_SCHEMA_VERSION));
    json_object_set_new(doc, "results_schema_version", json_integer(GC_SCHEMA_VERSION));
    json_object_set_new(doc, "tool_version", jstr(n->tool_version));
    json_object_set_new(doc, "git_revision", jstr(n->git_revision));
    json_object_set_new(doc, "date", jstr(n->date));
    json_object_set_new(doc, "host", jstr(n->host));
    json_object_set_new(doc, "command_line", jstr(n->command_line));
    json_object_set_new(doc, "profile", jstr(n->profile));
    json_object_set_new(doc, "wall_s", jnum(n->wall_s));
    json_object_set_new(doc, "complete", json_boolean(n->complete));
    for (int i = 0; i < n->ndevices; i++)
        json_array_append_new(devs, device_json(&n->devices[i]));
    json_object_set_new(doc, "devices", devs);
    for (int i = 0; i < n->nsched; i++) {
        json_t *o = json_object();

        json_object_set_new(o, "bench", jstr(n->sched[i].bench));
        json_object_set_new(o, "resources", resources_json(n->sched[i].resources));
        json_object_set_new(o, "mode", jstr(n->sched[i].concurrent ? "concurrent" : "serialized"));
        json_array_append_new(sched, o);
    }
    json_object_set_new(doc, "schedule", sched);
    json_object_set_new(doc, "phases", gc__node_phases_json(n));
    json_object_set_new(doc, "links", n->links ? gc__results_to_json(n->links) : json_null());
    json_object_set_new(doc, "links_note", jstr(n->links_note));
    json_object_set_new(sum, "flag_spread", jnum(n->flag_spread));
    for (int i = 0; i < n->nfigures; i++)
        json_array_append_new(figs, figure_json(n, &n->figures[i]));
    json_object_set_new(sum, "figures", figs);
    json_object_set_new(doc, "summary", sum);
    return doc;
}

int gc_write_node_json(const struct gc_node *n, const char *path)
{
    json_t *doc;
    int rc;

    if (!n || !path || !*path)
        return GC_EINVAL;
    doc = node_to_json(n);
    if (!doc)
        return GC_ENOMEM;
    rc = gc__json_write_doc(doc, path);
    json_decref(doc);
    return rc;
}

/* ---- Reading ------------------------------------------------------------- */

static void str_field(json_t *o, const char *key, char *dst, size_t len)
{
    json_t *v = json_object_get(o, key);

    snprintf(dst, len, "%s", json_is_string(v) ? json_string_value(v) : "");
}

static double num_field(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int read_device(struct gc_node *n, json_t *o, size_t i, char *err, size_t errlen)
{
    char spec[32], name[256], msg[512], status[32], sub[400] = "";
    json_t *id = json_object_get(o, "identity"), *res = json_object_get(o, "results");
    struct gc_results *r = NULL;
    struct gc_node_device *d;
    int rc;

    if (!json_is_object(o) || !json_is_object(id)) {
        snprintf(err, errlen, "devices[%zu] is not a device section with an identity", i);
        return GC_EINVAL;
    }
    if (json_is_object(res) && (rc = gc__results_from_json(res, &r, sub, sizeof(sub))) != 0) {
        snprintf(err, errlen, "devices[%zu].results: %s", i, sub);
        return rc;
    }
    str_field(o, "spec", spec, sizeof(spec));
    str_field(o, "name", name, sizeof(name));
    str_field(o, "message", msg, sizeof(msg));
    str_field(o, "status", status, sizeof(status));
    rc = gc_node_add_device(n, spec, name, r,
                            strcmp(status, "ok") == 0            ? 0
                            : strcmp(status, "interrupted") == 0 ? GC_EINTR
                                                                 : GC_EBACKEND,
                            strcmp(status, "lost") == 0, msg);
    if (rc)
        return rc;
    d = &n->devices[n->ndevices - 1];
    str_field(id, "pci_bus_id", d->id.pci, sizeof(d->id.pci));
    str_field(id, "uuid", d->id.uuid, sizeof(d->id.uuid));
    str_field(id, "driver", d->id.driver, sizeof(d->id.driver));
    d->id.numa_node = json_is_integer(json_object_get(id, "numa_node"))
                          ? (int)json_integer_value(json_object_get(id, "numa_node"))
                          : -1;
    d->id.ecc =
        json_is_boolean(json_object_get(id, "ecc")) ? json_is_true(json_object_get(id, "ecc")) : -1;
    d->id.max_sm_clock_mhz = num_field(id, "max_sm_clock_mhz");
    d->id.max_mem_clock_mhz = num_field(id, "max_mem_clock_mhz");
    return 0;
}

static unsigned resources_mask(json_t *a)
{
    unsigned mask = 0;
    size_t i;
    json_t *v;

    json_array_foreach(a, i, v)
    {
        for (unsigned bit = 1; bit & GC_RES_ALL; bit <<= 1) {
            char name[32];

            if (json_is_string(v) &&
                strcmp(json_string_value(v), gc_resource_names(bit, name, sizeof(name))) == 0)
                mask |= bit;
        }
    }
    return mask;
}

static int read_lists(struct gc_node *n, json_t *doc)
{
    json_t *sched = json_object_get(doc, "schedule"), *sum = json_object_get(doc, "summary");
    json_t *figs = json_object_get(sum, "figures"), *v;
    size_t i;

    n->sched = calloc(json_array_size(sched) + 1, sizeof(*n->sched));
    n->figures = calloc(json_array_size(figs) + 1, sizeof(*n->figures));
    if (!n->sched || !n->figures)
        return GC_ENOMEM;
    json_array_foreach(sched, i, v)
    {
        struct gc_node_sched *s = &n->sched[n->nsched++];
        char mode[32];

        str_field(v, "bench", s->bench, sizeof(s->bench));
        str_field(v, "mode", mode, sizeof(mode));
        s->concurrent = strcmp(mode, "concurrent") == 0;
        s->resources = resources_mask(json_object_get(v, "resources"));
    }
    n->flag_spread = num_field(sum, "flag_spread");
    json_array_foreach(figs, i, v)
    {
        struct gc_node_figure *g = &n->figures[n->nfigures++];
        char dev[32];

        str_field(v, "figure", g->key, sizeof(g->key));
        str_field(v, "unit", g->unit, sizeof(g->unit));
        g->direction = (int)json_integer_value(json_object_get(v, "direction"));
        g->n = (int)json_integer_value(json_object_get(v, "n"));
        g->median = num_field(v, "median");
        g->min = num_field(v, "min");
        g->max = num_field(v, "max");
        g->spread = num_field(v, "spread");
        g->flagged = json_is_true(json_object_get(v, "flagged"));
        str_field(v, "deviant", dev, sizeof(dev));
        g->deviant = -1;
        for (int d = 0; d < n->ndevices && dev[0]; d++)
            if (strcmp(n->devices[d].spec, dev) == 0)
                g->deviant = d;
    }
    return 0;
}

static int read_node(json_t *doc, struct gc_node *n, char *err, size_t errlen)
{
    json_t *devs = json_object_get(doc, "devices"), *links = json_object_get(doc, "links"), *v;
    json_t *ver = json_object_get(doc, "schema_version");
    size_t i;
    int rc = 0;

    if (!json_is_integer(ver) || json_integer_value(ver) != GC_NODE_SCHEMA_VERSION) {
        snprintf(err, errlen, "unsupported node schema_version (this gpuchar reads %d)",
                 GC_NODE_SCHEMA_VERSION);
        return GC_EINVAL;
    }
    if (!json_is_array(devs)) {
        snprintf(err, errlen, "\"devices\" is missing or not an array");
        return GC_EINVAL;
    }
    str_field(doc, "tool_version", n->tool_version, sizeof(n->tool_version));
    str_field(doc, "git_revision", n->git_revision, sizeof(n->git_revision));
    str_field(doc, "date", n->date, sizeof(n->date));
    str_field(doc, "host", n->host, sizeof(n->host));
    str_field(doc, "command_line", n->command_line, sizeof(n->command_line));
    str_field(doc, "profile", n->profile, sizeof(n->profile));
    str_field(doc, "links_note", n->links_note, sizeof(n->links_note));
    n->wall_s = num_field(doc, "wall_s");
    n->devices_s = num_field(json_object_get(doc, "phases"), "devices_s");
    n->links_s = num_field(json_object_get(doc, "phases"), "links_s");
    n->complete = json_is_true(json_object_get(doc, "complete"));
    json_array_foreach(devs, i, v) if (rc == 0) rc = read_device(n, v, i, err, errlen);
    if (rc == 0 && json_is_object(links)) {
        char sub[400] = "";

        rc = gc__results_from_json(links, &n->links, sub, sizeof(sub));
        if (rc)
            snprintf(err, errlen, "links: %s", sub);
    }
    return rc ? rc : read_lists(n, doc);
}

/* The document at path parsed, or NULL with the reason. */
static json_t *load(const char *path, int *rc, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    json_error_t je;
    json_t *doc;

    *rc = gc__infile_read(path, GC_RESULTS_MAX_BYTES, &text, &len, err, errlen);
    if (*rc)
        return NULL;
    doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!doc) {
        snprintf(err, errlen, "invalid JSON at line %d, column %d: %s", je.line, je.column,
                 je.text);
        *rc = GC_EINVAL;
    }
    return doc;
}

static bool is_node(json_t *doc)
{
    json_t *s = json_object_get(doc, "schema");

    return json_is_string(s) && strcmp(json_string_value(s), GC__NODE_SCHEMA_NAME) == 0;
}

bool gc_is_node_json(const char *path)
{
    char err[256];
    int rc;
    json_t *doc = load(path, &rc, err, sizeof(err));
    bool yes = doc && is_node(doc);

    json_decref(doc);
    return yes;
}

int gc_read_node_json(const char *path, struct gc_node **out, char *err, size_t errlen)
{
    int rc;
    json_t *doc;

    *out = NULL;
    err[0] = '\0';
    doc = load(path, &rc, err, errlen);
    if (!doc)
        return rc;
    if (!is_node(doc)) {
        snprintf(err, errlen, "not a node document: \"schema\" is not \"%s\"",
                 GC__NODE_SCHEMA_NAME);
        rc = GC_EINVAL;
    } else if ((rc = gc_node_create(out)) == 0 && (rc = read_node(doc, *out, err, errlen)) != 0) {
        gc_node_free(*out);
        *out = NULL;
    }
    json_decref(doc);
    return rc;
}
