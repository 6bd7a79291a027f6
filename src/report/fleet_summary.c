/* A run reduced to what a fleet compares (include/gpuchar/fleet.h): the
 * device's identity and conditions and its headline figures, the measured
 * cells of the summary tables (report/summary.h), keyed
 * "<table>/<row>/<column>". The same summary travels from a rank to rank 0 as
 * a small JSON object (docs/schema.md, "fleet summary"); a node's links
 * (report/fleet_node_summary.c) as one more. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fleet.h"
#include "report/summary.h"

#define SUMMARY_SCHEMA "gpuchar-fleet-summary"
#define NODE_SUMMARY_SCHEMA "gpuchar-fleet-node-summary"

/* The value of "key=" in a "key=value; ..." list, into buf ("" absent). */
static void extra_value(const char *extra, const char *key, char *buf, size_t len)
{
    size_t kl = strlen(key);

    buf[0] = '\0';
    for (const char *p = extra; p && *p;) {
        while (*p == ' ' || *p == ';')
            p++;
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t n = strcspn(p + kl + 1, ";");
            snprintf(buf, len, "%.*s", (int)n, p + kl + 1);
            return;
        }
        p = strchr(p, ';');
    }
}

static double extra_num(const char *extra, const char *key)
{
    char buf[64], *end;
    double v;

    extra_value(extra, key, buf, sizeof(buf));
    v = strtod(buf, &end);
    return buf[0] && *end == '\0' && isfinite(v) ? v : 0;
}

/* Identity and conditions of r's device into g. */
static void identity(struct gc_fleet_gpu *g, const struct gc_results *r)
{
    const struct gc_run_meta *m = &r->meta;
    const char *x = m->device_extra;
    char ecc[16];

    snprintf(g->host, sizeof(g->host), "%s", m->host);
    snprintf(g->spec, sizeof(g->spec), "%s", m->device.spec);
    snprintf(g->name, sizeof(g->name), "%.127s", m->device.name);
    snprintf(g->tool_version, sizeof(g->tool_version), "%s", m->tool_version);
    snprintf(g->profile, sizeof(g->profile), "%s", m->profile);
    extra_value(x, "pci", g->pci, sizeof(g->pci));
    if (strcmp(g->pci, "unknown") == 0)
        g->pci[0] = '\0';
    extra_value(x, "uuid", g->uuid, sizeof(g->uuid));
    g->max_sm_clock_mhz = extra_num(x, "max_sm_clock_mhz");
    if (g->max_sm_clock_mhz == 0)
        g->max_sm_clock_mhz = m->device.clock_mhz;
    g->max_mem_clock_mhz = extra_num(x, "max_mem_clock_mhz");
    g->pcie_gen = (int)extra_num(x, "pcie_gen");
    g->pcie_width = (int)extra_num(x, "pcie_width");
    g->pcie_gen_max = (int)extra_num(x, "pcie_gen_max");
    g->pcie_width_max = (int)extra_num(x, "pcie_width_max");
    extra_value(x, "ecc", ecc, sizeof(ecc));
    g->ecc = strcmp(ecc, "on") == 0 ? 1 : strcmp(ecc, "off") == 0 ? 0 : -1;
    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_context_info *c = &r->benches[i].context;

        g->throttle_reasons |= c->throttle_reasons;
        if (c->throttled_samples > 0)
            g->throttled_samples += c->throttled_samples;
        if (g->ecc < 0 && c->ecc_enabled >= 0)
            g->ecc = c->ecc_enabled;
    }
    g->complete = r->complete;
    if (!r->complete) {
        g->status = GC_FLEET_FAILED;
        snprintf(g->message, sizeof(g->message), "incomplete run: %.200s", r->incomplete_reason);
    }
    gc__fleet_group_key(g);
}

/* The measured cells of the summary tables as figures of f for its last
 * device. */
static int figures(struct gc_fleet *f, const struct gc_results *r)
{
    struct gc_summary_table *t = NULL;
    int nt = 0, rc = gc__summary_build(r, &t, &nt), k = 0;
    char key[160];

    for (int i = 0; rc == 0 && i < nt; i++)
        for (int row = 0; rc == 0 && row < t[i].nrows; row++)
            for (int c = 0; rc == 0 && c < t[i].ncols; c++) {
                double v = t[i].rows[row].v[c];

                if (!t[i].col_measured[c] || !isfinite(v))
                    continue;
                snprintf(key, sizeof(key), "%s/%s/%s", t[i].name, t[i].rows[row].label,
                         t[i].col_title[c]);
                int fig = gc__fleet_figure(f, key, t[i].col_unit[c], t[i].col_direction[c], k);
                rc = fig < 0 ? GC_ENOMEM : gc__fleet_set(&f->gpus[f->ngpus - 1], fig, v);
                k = fig + 1;
            }
    gc__summary_free(t, nt);
    return rc;
}

static void check_versions(struct gc_fleet_gpu *g);

int gc_fleet_add_results(struct gc_fleet *f, const struct gc_results *r, int rank,
                         const char *source)
{
    struct gc_fleet_gpu *g = gc__fleet_new_gpu(f);

    if (!g)
        return GC_ENOMEM;
    g->rank = rank;
    snprintf(g->source, sizeof(g->source), "%s", source ? source : "");
    identity(g, r);
    g->schema_version = GC_SCHEMA_VERSION; /* gc_read_json reads no other */
    check_versions(g);
    return figures(f, r);
}

int gc_fleet_add_missing(struct gc_fleet *f, int rank, const char *host,
                         enum gc_fleet_status status, const char *message)
{
    struct gc_fleet_gpu *g = gc__fleet_new_gpu(f);

    if (!g)
        return GC_ENOMEM;
    g->rank = rank;
    g->status = status;
    snprintf(g->host, sizeof(g->host), "%s", host ? host : "");
    snprintf(g->message, sizeof(g->message), "%s", message ? message : "");
    snprintf(g->tool_version, sizeof(g->tool_version), "%s", gc_version());
    return 0;
}

/* ---- The summary as JSON ------------------------------------------------- */

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *gpu_to_json(const struct gc_fleet *f, const struct gc_fleet_gpu *g)
{
    json_t *o = json_object(), *figs = json_array();

    json_object_set_new(o, "schema", json_string(SUMMARY_SCHEMA));
    json_object_set_new(o, "schema_version", json_integer(GC_FLEET_SCHEMA_VERSION));
    json_object_set_new(o, "results_schema_version", json_integer(g->schema_version));
    json_object_set_new(o, "tool_version", json_string(g->tool_version));
    json_object_set_new(o, "rank", json_integer(g->rank));
    json_object_set_new(o, "status", json_string(gc_fleet_status_name(g->status)));
    json_object_set_new(o, "message", json_string(g->message));
    json_object_set_new(o, "source", json_string(g->source));
    json_object_set_new(o, "host", json_string(g->host));
    json_object_set_new(o, "spec", json_string(g->spec));
    json_object_set_new(o, "name", json_string(g->name));
    json_object_set_new(o, "pci", json_string(g->pci));
    json_object_set_new(o, "uuid", json_string(g->uuid));
    json_object_set_new(o, "profile", json_string(g->profile));
    json_object_set_new(o, "max_sm_clock_mhz", jnum(g->max_sm_clock_mhz));
    json_object_set_new(o, "max_mem_clock_mhz", jnum(g->max_mem_clock_mhz));
    json_object_set_new(
        o, "pcie",
        json_pack("[iiii]", g->pcie_gen, g->pcie_width, g->pcie_gen_max, g->pcie_width_max));
    json_object_set_new(o, "ecc", json_integer(g->ecc));
    json_object_set_new(o, "throttle_reasons", json_integer((json_int_t)g->throttle_reasons));
    json_object_set_new(o, "throttled_samples", json_integer(g->throttled_samples));
    json_object_set_new(o, "complete", json_boolean(g->complete));
    for (int i = 0; i < g->nv && i < f->nfig; i++)
        if (isfinite(g->v[i]))
            json_array_append_new(figs, json_pack("[ssif]", f->figures[i].key, f->figures[i].unit,
                                                  f->figures[i].direction, g->v[i]));
    json_object_set_new(o, "figures", figs);
    return o;
}

int gc_fleet_summary_encode(const struct gc_results *r, int rank, char **out, size_t *len)
{
    struct gc_fleet *f = NULL;
    int rc = gc_fleet_create(&f);

    *out = NULL;
    *len = 0;
    if (rc == 0)
        rc = gc_fleet_add_results(f, r, rank, "");
    if (rc == 0)
        rc = gc_fleet_gpu_encode(f, 0, out, len);
    gc_fleet_free(f);
    return rc;
}

int gc_fleet_gpu_encode(const struct gc_fleet *f, int i, char **out, size_t *len)
{
    json_t *o = gpu_to_json(f, &f->gpus[i]);

    *out = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    *len = *out ? strlen(*out) : 0;
    json_decref(o);
    return *out ? 0 : GC_ENOMEM;
}

static void jcopy(json_t *o, const char *key, char *buf, size_t len)
{
    const char *s = json_string_value(json_object_get(o, key));

    snprintf(buf, len, "%s", s ? s : "");
}

static double jdouble(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    return json_is_number(v) ? json_number_value(v) : NAN;
}

static enum gc_fleet_status status_of(const char *s)
{
    for (int i = GC_FLEET_OK; i <= GC_FLEET_REFUSED; i++)
        if (strcmp(s, gc_fleet_status_name((enum gc_fleet_status)i)) == 0)
            return (enum gc_fleet_status)i;
    return GC_FLEET_FAILED;
}

static void gpu_from_json(json_t *o, struct gc_fleet_gpu *g)
{
    char st[16];

    g->rank = (int)json_integer_value(json_object_get(o, "rank"));
    g->schema_version = (int)json_integer_value(json_object_get(o, "results_schema_version"));
    jcopy(o, "tool_version", g->tool_version, sizeof(g->tool_version));
    jcopy(o, "status", st, sizeof(st));
    g->status = status_of(st);
    jcopy(o, "message", g->message, sizeof(g->message));
    jcopy(o, "source", g->source, sizeof(g->source));
    jcopy(o, "host", g->host, sizeof(g->host));
    jcopy(o, "spec", g->spec, sizeof(g->spec));
    jcopy(o, "name", g->name, sizeof(g->name));
    jcopy(o, "pci", g->pci, sizeof(g->pci));
    jcopy(o, "uuid", g->uuid, sizeof(g->uuid));
    jcopy(o, "profile", g->profile, sizeof(g->profile));
    g->max_sm_clock_mhz = jdouble(o, "max_sm_clock_mhz");
    g->max_mem_clock_mhz = jdouble(o, "max_mem_clock_mhz");
    json_unpack(json_object_get(o, "pcie"), "[iiii]", &g->pcie_gen, &g->pcie_width,
                &g->pcie_gen_max, &g->pcie_width_max);
    g->ecc = (int)json_integer_value(json_object_get(o, "ecc"));
    g->throttle_reasons =
        (unsigned long long)json_integer_value(json_object_get(o, "throttle_reasons"));
    g->throttled_samples = (int)json_integer_value(json_object_get(o, "throttled_samples"));
    g->complete = json_is_true(json_object_get(o, "complete"));
    gc__fleet_group_key(g);
}

/* A device of another gpuchar or results schema is kept as refused. */
static void check_versions(struct gc_fleet_gpu *g)
{
    if (strcmp(g->tool_version, gc_version()) == 0 && g->schema_version == GC_SCHEMA_VERSION)
        return;
    g->status = GC_FLEET_REFUSED;
    snprintf(g->message, sizeof(g->message),
             "gpuchar %.31s with results schema %d, but this is gpuchar %s with schema %d",
             g->tool_version, g->schema_version, gc_version(), GC_SCHEMA_VERSION);
}

/* ---- The node summary as JSON -------------------------------------------- */

static json_t *node_to_json(const struct gc_fleet *f, const struct gc_fleet_node *nd)
{
    json_t *o = json_object(), *figs = json_array();

    json_object_set_new(o, "schema", json_string(NODE_SUMMARY_SCHEMA));
    json_object_set_new(o, "schema_version", json_integer(GC_FLEET_SCHEMA_VERSION));
    json_object_set_new(o, "tool_version", json_string(gc_version()));
    json_object_set_new(o, "rank", json_integer(nd->rank));
    json_object_set_new(o, "host", json_string(nd->host));
    json_object_set_new(o, "source", json_string(nd->source));
    json_object_set_new(o, "topology", json_string(nd->topology));
    json_object_set_new(o, "devices", json_integer(nd->ndevices));
    for (int i = 0; i < nd->nv && i < f->nnode_fig; i++)
        if (isfinite(nd->v[i]))
            json_array_append_new(figs, json_pack("[ssif]", f->node_figures[i].key,
                                                  f->node_figures[i].unit,
                                                  f->node_figures[i].direction, nd->v[i]));
    json_object_set_new(o, "figures", figs);
    return o;
}

static int node_from_json(struct gc_fleet *f, json_t *o, char *err, size_t errlen)
{
    json_t *figs = json_object_get(o, "figures"), *e;
    const char *s;
    struct gc_fleet_node *nd;
    size_t i;

    if (!json_is_array(figs)) {
        snprintf(err, errlen, "not a gpuchar fleet node summary: no figures");
        return GC_EINVAL;
    }
    if (!(nd = gc__fleet_new_node(f)))
        return GC_ENOMEM;
    nd->rank = (int)json_integer_value(json_object_get(o, "rank"));
    nd->ndevices = (int)json_integer_value(json_object_get(o, "devices"));
    s = json_string_value(json_object_get(o, "host"));
    snprintf(nd->host, sizeof(nd->host), "%s", s ? s : "");
    s = json_string_value(json_object_get(o, "source"));
    snprintf(nd->source, sizeof(nd->source), "%s", s ? s : "");
    s = json_string_value(json_object_get(o, "topology"));
    snprintf(nd->topology, sizeof(nd->topology), "%s", s ? s : "");
    json_array_foreach(figs, i, e)
    {
        const char *key = NULL, *unit = NULL;
        int dir = 0;
        double v = NAN;

        if (json_unpack(e, "[ssiF]", &key, &unit, &dir, &v) != 0)
            continue;
        int fig = gc__fleet_node_figure(f, key, unit, dir);
        int rc = fig < 0 ? GC_ENOMEM : gc__fleet_node_set(&f->nodes[f->nnodes - 1], fig, v);
        if (rc)
            return rc;
    }
    return 0;
}

int gc_fleet_encode_all(const struct gc_fleet *f, char **out, size_t *len)
{
    json_t *a = json_array();

    for (int i = 0; a && i < f->ngpus; i++)
        json_array_append_new(a, gpu_to_json(f, &f->gpus[i]));
    for (int i = 0; a && i < f->nnodes; i++)
        json_array_append_new(a, node_to_json(f, &f->nodes[i]));
    *out = a ? json_dumps(a, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    *len = *out ? strlen(*out) : 0;
    json_decref(a);
    return *out ? 0 : GC_ENOMEM;
}

/* One summary object: a device's or a node's. */
static int add_object(struct gc_fleet *f, json_t *o, char *err, size_t errlen)
{
    const char *schema = json_string_value(json_object_get(o, "schema"));
    struct gc_fleet_gpu *g;
    json_t *figs, *e;
    int rc = 0, k = 0;
    size_t i;

    if (schema && strcmp(schema, NODE_SUMMARY_SCHEMA) == 0)
        return node_from_json(f, o, err, errlen);
    if (!schema || strcmp(schema, SUMMARY_SCHEMA) != 0 ||
        !json_is_array(figs = json_object_get(o, "figures"))) {
        snprintf(err, errlen, "not a gpuchar fleet summary");
        return GC_EINVAL;
    }
    if (!(g = gc__fleet_new_gpu(f)))
        return GC_ENOMEM;
    gpu_from_json(o, g);
    check_versions(g);
    json_array_foreach(figs, i, e)
    {
        const char *key = NULL, *unit = NULL;
        int dir = 0;
        double v = NAN;

        if (json_unpack(e, "[ssiF]", &key, &unit, &dir, &v) != 0)
            continue;
        int fig = gc__fleet_figure(f, key, unit, dir, k);
        rc = fig < 0 ? GC_ENOMEM : gc__fleet_set(&f->gpus[f->ngpus - 1], fig, v);
        if (rc)
            break;
        k = fig + 1;
    }
    return rc;
}

int gc_fleet_add_summary(struct gc_fleet *f, const char *text, size_t len, char *err, size_t errlen)
{
    json_error_t je;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je), *e;
    int rc = 0;
    size_t i;

    if (!o) {
        snprintf(err, errlen, "not a gpuchar fleet summary: %s", je.text);
        return GC_EINVAL;
    }
    if (!json_is_array(o))
        rc = add_object(f, o, err, errlen);
    else if (json_array_size(o) == 0) {
        snprintf(err, errlen, "not a gpuchar fleet summary: an empty list");
        rc = GC_EINVAL;
    }
    json_array_foreach(json_is_array(o) ? o : NULL, i, e)
    {
        if (rc == 0)
            rc = add_object(f, e, err, errlen);
    }
    json_decref(o);
    return rc;
}
