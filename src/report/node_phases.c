/* Where a node run's time went (node_phases.h). */
#include <math.h>
#include <string.h>

#include "report/node_phases.h"

static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* Whether the schedule says bench ran one device at a time. */
static bool serialized(const struct gc_node *n, const char *bench)
{
    for (int i = 0; i < n->nsched; i++)
        if (strcmp(n->sched[i].bench, bench) == 0)
            return !n->sched[i].concurrent;
    return false;
}

void gc__node_phase(const struct gc_node *n, int i, struct gc_node_phase *out)
{
    const struct gc_results *r = n->devices[i].results;

    memset(out, 0, sizeof(*out));
    out->wall_s = out->plan_s = NAN;
    if (!r)
        return;
    out->wall_s = r->wall_s;
    out->plan_s = r->plan.made ? r->plan.wall_s : 0;
    for (int b = 0; b < r->nbenches; b++) {
        const struct gc_bench_result *br = &r->benches[b];

        if (serialized(n, br->name) || br->wait_s > 0 || br->deferred)
            out->serialized_s += isfinite(br->wall_s) ? br->wall_s : 0;
        out->wait_s += br->wait_s;
        out->deferred += br->deferred;
    }
}

json_t *gc__node_phases_json(const struct gc_node *n)
{
    json_t *o = json_object(), *devs = json_array(), *links = json_array();

    json_object_set_new(o, "devices_s", num(n->devices_s));
    json_object_set_new(o, "links_s", num(n->links_s));
    for (int i = 0; i < n->ndevices; i++) {
        struct gc_node_phase p;
        json_t *d = json_object();

        gc__node_phase(n, i, &p);
        json_object_set_new(d, "spec", json_string(n->devices[i].spec));
        json_object_set_new(d, "wall_s", num(p.wall_s));
        json_object_set_new(d, "plan_s", num(p.plan_s));
        json_object_set_new(d, "serialized_s", num(p.serialized_s));
        json_object_set_new(d, "wait_s", num(p.wait_s));
        json_object_set_new(d, "deferred", json_integer(p.deferred));
        json_array_append_new(devs, d);
    }
    json_object_set_new(o, "devices", devs);
    for (int b = 0; n->links && b < n->links->nbenches; b++) {
        json_t *l = json_object();

        json_object_set_new(l, "bench", json_string(n->links->benches[b].name));
        json_object_set_new(l, "wall_s", num(n->links->benches[b].wall_s));
        json_array_append_new(links, l);
    }
    json_object_set_new(o, "links", links);
    return o;
}

void gc__node_phases_text(const struct gc_node *n, FILE *f)
{
    fprintf(f, "\n== Time ==\n");
    fprintf(f, "devices (at once) %.1f s, links %.1f s, whole run %.1f s\n", n->devices_s,
            n->links_s, n->wall_s);
    for (int i = 0; i < n->ndevices; i++) {
        struct gc_node_phase p;

        gc__node_phase(n, i, &p);
        fprintf(f,
                "  %-12s own run %.1f s: compile plan %.1f s, one device at a time %.1f s "
                "(waiting %.1f s), %d row%s put back while another device held the resource\n",
                n->devices[i].spec, p.wall_s, p.plan_s, p.serialized_s, p.wait_s, p.deferred,
                p.deferred == 1 ? "" : "s");
    }
    for (int b = 0; n->links && b < n->links->nbenches; b++)
        fprintf(f, "  %-24s %.1f s\n", n->links->benches[b].name, n->links->benches[b].wall_s);
}
