/* The JSON document of a results tree (schema: docs/schema.md), written and
 * read with jansson so that every string is escaped and validated. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/benchcfg.h"
#include "core/results.h"
#include "report/infile.h"
#include "report/json.h"
#include "report/outfile.h"
#include "report/present_json.h"

#define SCHEMA_NAME "gpuchar-results"

/* Seventeen significant digits make every double read back bit-exact. */
#define DUMP_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(17))

static const char *const status_names[] = {
    [GC_BENCH_OK] = "ok",
    [GC_BENCH_ERROR] = "error",
    [GC_BENCH_NOT_AVAILABLE] = "not_available",
    [GC_BENCH_INTERRUPTED] = "interrupted",
    [GC_BENCH_SKIPPED] = "skipped",
};

static const char *const type_names[] = {
    [GC_DEVICE_GPU] = "gpu",
    [GC_DEVICE_CPU] = "cpu",
    [GC_DEVICE_ACCELERATOR] = "accelerator",
    [GC_DEVICE_OTHER] = "other",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- Writing ------------------------------------------------------------ */

/* A builder that remembers whether any allocation failed, so that the tree
 * is built without a check after every key and a document with a missing
 * key is never written. */
struct writer {
    bool failed;
};

static void put(struct writer *w, json_t *obj, const char *key, json_t *val)
{
    /* json_object_set_new takes the reference even when it fails. */
    if (!val || json_object_set_new(obj, key, val) != 0)
        w->failed = true;
}

static void append(struct writer *w, json_t *arr, json_t *val)
{
    if (!val || json_array_append_new(arr, val) != 0)
        w->failed = true;
}

/* jansson accepts only valid UTF-8. A name from a driver is not guaranteed
 * to be, so a string it refuses is written with every byte outside ASCII
 * replaced by '?' rather than dropped. */
static json_t *jstr(const char *s)
{
    json_t *v;
    char *copy;

    if (!s)
        s = "";
    v = json_string(s);
    if (v)
        return v;
    copy = strdup(s);
    if (!copy)
        return NULL;
    for (char *p = copy; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    v = json_string(copy);
    free(copy);
    return v;
}

/* NaN and infinities have no JSON spelling: they are written as null. */
static json_t *jnum(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *stats_to_json(struct writer *w, const struct gc_stats *s)
{
    json_t *o = json_object();

    put(w, o, "n", json_integer(s->n));
    put(w, o, "median", jnum(s->median));
    put(w, o, "min", jnum(s->min));
    put(w, o, "max", jnum(s->max));
    put(w, o, "mean", jnum(s->mean));
    put(w, o, "stddev", jnum(s->stddev));
    put(w, o, "ci95", jnum(s->ci95));
    put(w, o, "cv", jnum(s->cv));
    return o;
}

static json_t *device_to_json(struct writer *w, const struct gc_device_summary *d)
{
    json_t *o = json_object();
    int t = (int)d->type;

    put(w, o, "spec", jstr(d->spec));
    put(w, o, "backend", jstr(d->backend));
    put(w, o, "index", json_integer(d->index));
    put(w, o, "name", jstr(d->name));
    put(w, o, "vendor", jstr(d->vendor));
    put(w, o, "arch", jstr(d->arch));
    put(w, o, "driver", jstr(d->driver));
    put(w, o, "type", jstr(t >= 0 && t < (int)NELEM(type_names) ? type_names[t] : "other"));
    put(w, o, "compute_units", json_integer(d->compute_units));
    put(w, o, "clock_mhz", jnum(d->clock_mhz));
    put(w, o, "global_mem", json_integer((json_int_t)d->global_mem));
    return o;
}

static json_t *meta_to_json(struct writer *w, const struct gc_run_meta *m)
{
    json_t *o = json_object();

    put(w, o, "tool_version", jstr(m->tool_version));
    put(w, o, "git_revision", jstr(m->git_revision));
    put(w, o, "date", jstr(m->date));
    put(w, o, "host", jstr(m->host));
    put(w, o, "command_line", jstr(m->command_line));
    put(w, o, "profile", jstr(m->profile));
    put(w, o, "device", device_to_json(w, &m->device));
    put(w, o, "device_extra", jstr(m->device_extra));
    put(w, o, "data_init", jstr(m->data_init));
    put(w, o, "repeat", json_integer(m->repeat));
    put(w, o, "min_time_ms", jnum(m->min_time_ms));
    return o;
}

static json_t *context_to_json(struct writer *w, const struct gc_context_info *c)
{
    json_t *o = json_object();

    put(w, o, "sm_clock_mhz", jnum(c->sm_clock_mhz));
    put(w, o, "sm_clock_source", jstr(c->sm_clock_source));
    put(w, o, "sm_clock_min_mhz", jnum(c->sm_clock_min_mhz));
    put(w, o, "sm_clock_max_mhz", jnum(c->sm_clock_max_mhz));
    put(w, o, "mem_clock_mhz", jnum(c->mem_clock_mhz));
    put(w, o, "temp_start_c", jnum(c->temp_start_c));
    put(w, o, "temp_end_c", jnum(c->temp_end_c));
    put(w, o, "power_limit_w", jnum(c->power_limit_w));
    put(w, o, "power_avg_w", jnum(c->power_avg_w));
    put(w, o, "ecc_enabled", c->ecc_enabled < 0 ? json_null() : json_boolean(c->ecc_enabled));
    put(w, o, "throttle_reasons", json_integer((json_int_t)c->throttle_reasons));
    put(w, o, "throttled_samples", json_integer(c->throttled_samples));
    put(w, o, "redone_samples", json_integer(c->redone_samples));
    return o;
}

static json_t *sampling_to_json(struct writer *w, const struct gc_sampling_info *p)
{
    json_t *o = json_object();

    put(w, o, "min_samples", json_integer(p->min_samples));
    put(w, o, "max_samples", json_integer(p->max_samples));
    put(w, o, "min_time_s", jnum(p->min_time_s));
    put(w, o, "spread_target", jnum(p->spread_target));
    put(w, o, "time_cap_s", jnum(p->time_cap_s));
    put(w, o, "repeat_explicit", json_boolean(p->repeat_explicit));
    put(w, o, "min_time_explicit", json_boolean(p->min_time_explicit));
    return o;
}

static json_t *metric_to_json(struct writer *w, const struct gc_metric *m)
{
    json_t *o = json_object();

    put(w, o, "name", jstr(m->name));
    put(w, o, "value", jnum(m->value));
    put(w, o, "unit", jstr(m->unit));
    put(w, o, "limit", jnum(m->limit));
    put(w, o, "fraction", jnum(m->fraction));
    if (m->stats.n > 0)
        put(w, o, "stats", stats_to_json(w, &m->stats));
    put(w, o, "note", jstr(m->note));
    return o;
}

static json_t *axis_to_json(struct writer *w, const char *name, const char *unit)
{
    json_t *o = json_object();

    put(w, o, "name", jstr(name));
    put(w, o, "unit", jstr(unit));
    return o;
}

static json_t *series_to_json(struct writer *w, const struct gc_series *s)
{
    json_t *o = json_object(), *pts = json_array();

    put(w, o, "name", jstr(s->name));
    put(w, o, "x", axis_to_json(w, s->x_name, s->x_unit));
    put(w, o, "y", axis_to_json(w, s->y_name, s->y_unit));
    for (int i = 0; i < s->npoints; i++) {
        const struct gc_point *p = &s->points[i];
        json_t *jp = json_object();

        put(w, jp, "x", jnum(p->x));
        put(w, jp, "y", jnum(p->y));
        if (p->label[0])
            put(w, jp, "label", jstr(p->label));
        if (p->stats.n > 0)
            put(w, jp, "stats", stats_to_json(w, &p->stats));
        append(w, pts, jp);
    }
    put(w, o, "points", pts);
    return o;
}

/* The configuration: whole numbers as integers, words as strings. */
static json_t *config_to_json(struct writer *w, const struct gc_bench_result *b)
{
    json_t *o = json_object();

    for (int i = 0; i < b->nconfig; i++) {
        const struct gc_config_param *p = &b->config[i];
        double v = p->value;

        put(w, o, p->name,
            p->text[0]                                       ? jstr(p->text)
            : isfinite(v) && v == floor(v) && fabs(v) < 9e15 ? json_integer((json_int_t)v)
                                                             : jnum(v));
    }
    return o;
}

static json_t *bench_to_json(struct writer *w, const struct gc_bench_result *b)
{
    json_t *o = json_object(), *metrics = json_array(), *series = json_array();
    int st = (int)b->status;

    put(w, o, "name", jstr(b->name));
    put(w, o, "group", jstr(b->group));
    /* An out-of-range status is a caller bug; it is reported as an error
     * rather than producing a document the reader rejects. */
    put(w, o, "status",
        jstr(st >= 0 && st < (int)NELEM(status_names) ? status_names[st] : "error"));
    put(w, o, "error", jstr(b->error));
    put(w, o, "warning", jstr(b->warning));
    put(w, o, "wall_s", jnum(b->wall_s));
    put(w, o, "compile_s", jnum(b->compile_s));
    put(w, o, "kernels_compiled", json_integer(b->kernels_compiled));
    put(w, o, "kernels_cached", json_integer(b->kernels_cached));
    put(w, o, "kernels_planned", json_integer(b->kernels_planned));
    put(w, o, "plan_compile_s", jnum(b->plan_compile_s));
    put(w, o, "launches", json_integer(b->launches));
    put(w, o, "kernel_s", jnum(b->kernel_s));
    /* Only where a node run made the row wait or moved it back. */
    if (b->wait_s > 0 || b->deferred) {
        put(w, o, "wait_s", jnum(b->wait_s));
        put(w, o, "deferred", json_boolean(b->deferred));
    }
    put(w, o, "stop_rule", jstr(b->stop_rule));
    if (b->sampling.max_samples > 0)
        put(w, o, "sampling", sampling_to_json(w, &b->sampling));
    put(w, o, "context", context_to_json(w, &b->context));
    if (b->nconfig > 0)
        put(w, o, "config", config_to_json(w, b));
    for (int i = 0; i < b->nmetrics; i++)
        append(w, metrics, metric_to_json(w, &b->metrics[i]));
    put(w, o, "metrics", metrics);
    for (int i = 0; i < b->nseries; i++)
        append(w, series, series_to_json(w, &b->series[i]));
    put(w, o, "series", series);
    if (b->report)
        put(w, o, "presentation", gc__present_to_json(b->report));
    return o;
}

static json_t *plan_to_json(struct writer *w, const struct gc_plan_info *p)
{
    json_t *o = json_object();

    put(w, o, "made", json_boolean(p->made));
    put(w, o, "benchmarks", json_integer(p->benches));
    put(w, o, "kernels", json_integer(p->kernels));
    put(w, o, "compiled", json_integer(p->compiled));
    put(w, o, "cached", json_integer(p->cached));
    put(w, o, "failed", json_integer(p->failed));
    put(w, o, "unused", json_integer(p->unused));
    put(w, o, "threads", json_integer(p->threads));
    put(w, o, "wall_s", jnum(p->wall_s));
    put(w, o, "compile_s", jnum(p->compile_s));
    put(w, o, "cpu_s", jnum(p->cpu_s));
    put(w, o, "load_s", jnum(p->load_s));
    put(w, o, "workers", json_integer(p->workers));
    put(w, o, "worker_compiled", json_integer(p->worker_compiled));
    put(w, o, "workers_failed", json_integer(p->workers_failed));
    put(w, o, "worker_cpu_s", jnum(p->worker_cpu_s));
    put(w, o, "worker_note", jstr(p->worker_note));
    put(w, o, "on_demand", jstr(p->on_demand));
    return o;
}

json_t *gc__results_to_json(const struct gc_results *r)
{
    struct writer w = {false};
    json_t *doc = json_object(), *benches = json_array();

    put(&w, doc, "schema", jstr(SCHEMA_NAME));
    put(&w, doc, "schema_version", json_integer(GC_SCHEMA_VERSION));
    put(&w, doc, "complete", json_boolean(r->complete));
    put(&w, doc, "incomplete_reason", jstr(r->incomplete_reason));
    put(&w, doc, "meta", meta_to_json(&w, &r->meta));
    put(&w, doc, "wall_s", jnum(r->wall_s));
    put(&w, doc, "plan", plan_to_json(&w, &r->plan));
    for (int i = 0; i < r->nbenches; i++)
        append(&w, benches, bench_to_json(&w, &r->benches[i]));
    put(&w, doc, "benchmarks", benches);
    if (w.failed) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* Writes doc to a temporary file beside path and renames it into place, so
 * that a reader or a crash never sees half a document. */
static int write_atomic(const json_t *doc, const char *path)
{
    struct gc_outfile of;
    char err[256];
    int rc = gc__outfile_open(path, &of, err, sizeof(err));

    if (rc)
        return rc;
    if (json_dumpf(doc, of.f, DUMP_FLAGS) != 0 || fputc('\n', of.f) == EOF) {
        gc__outfile_abort(&of);
        return GC_EIO;
    }
    return gc__outfile_commit(&of, err, sizeof(err));
}

int gc_write_json(const struct gc_results *r, const char *path)
{
    json_t *doc;
    int rc;

    if (!r || !path || !*path)
        return GC_EINVAL;
    doc = gc__results_to_json(r);
    if (!doc)
        return GC_ENOMEM;
    rc = gc__json_write_doc(doc, path);
    json_decref(doc);
    return rc;
}

int gc__json_write_doc(json_t *doc, const char *path)
{
    int rc = 0;

    if (strcmp(path, "-") == 0) {
        if (json_dumpf(doc, stdout, DUMP_FLAGS) != 0 || fputc('\n', stdout) == EOF ||
            fflush(stdout) != 0)
            rc = GC_EIO;
    } else {
        rc = write_atomic(doc, path);
    }
    return rc;
}

/* ---- Reading ------------------------------------------------------------ */

/* The reader keeps the first failure's message; later checks still run but
 * say nothing, so the message names the first problem found. */
struct reader {
    char *err;
    size_t errlen;
    int rc;
};

static void fail(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct reader *rd, const char *fmt, ...)
{
    va_list ap;

    if (rd->rc)
        return;
    rd->rc = GC_EINVAL;
    if (!rd->err || rd->errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(rd->err, rd->errlen, fmt, ap);
    va_end(ap);
}

/* Copies a string into a fixed field, cutting at a UTF-8 boundary. */
static void copy_field(char *dst, size_t size, const char *src)
{
    size_t i, n = size - 1;

    if ((size_t)snprintf(dst, size, "%s", src) < size)
        return;
    if (((unsigned char)src[n] & 0xC0) != 0x80)
        return;
    for (i = n; i > 0 && ((unsigned char)src[i] & 0xC0) == 0x80; i--)
        ;
    dst[i] = '\0';
}

/* Looks up key in obj; where is the dotted path of obj for messages. */
static json_t *field(struct reader *rd, json_t *obj, const char *where, const char *key,
                     bool required)
{
    json_t *v = json_object_get(obj, key);

    if (!v && required)
        fail(rd, "missing required field \"%s%s%s\"", where, *where ? "." : "", key);
    return v;
}

static void wrong_type(struct reader *rd, const char *where, const char *key, const char *what)
{
    fail(rd, "field \"%s%s%s\" must be %s", where, *where ? "." : "", key, what);
}

static void get_str(struct reader *rd, json_t *obj, const char *where, const char *key,
                    bool required, char *dst, size_t size)
{
    json_t *v = field(rd, obj, where, key, required);

    dst[0] = '\0';
    if (!v || json_is_null(v))
        return;
    if (!json_is_string(v)) {
        wrong_type(rd, where, key, "a string");
        return;
    }
    copy_field(dst, size, json_string_value(v));
}

/* Numbers: null (written for NaN and infinities) reads back as NaN, and so
 * does an absent optional field. */
static double get_num(struct reader *rd, json_t *obj, const char *where, const char *key,
                      bool required)
{
    json_t *v = field(rd, obj, where, key, required);

    if (!v || json_is_null(v))
        return NAN;
    if (!json_is_number(v)) {
        wrong_type(rd, where, key, "a number or null");
        return NAN;
    }
    return json_number_value(v);
}

static long long get_llong(struct reader *rd, json_t *obj, const char *where, const char *key,
                           bool required, long long def)
{
    json_t *v = field(rd, obj, where, key, required);

    if (!v)
        return def;
    if (!json_is_integer(v)) {
        wrong_type(rd, where, key, "an integer");
        return def;
    }
    return json_integer_value(v);
}

static int get_int(struct reader *rd, json_t *obj, const char *where, const char *key,
                   bool required, int def)
{
    long long x = get_llong(rd, obj, where, key, required, def);

    if (x < INT_MIN || x > INT_MAX) {
        wrong_type(rd, where, key, "an integer in the range of int");
        return def;
    }
    return (int)x;
}

static json_t *get_obj(struct reader *rd, json_t *obj, const char *where, const char *key,
                       bool required)
{
    json_t *v = field(rd, obj, where, key, required);

    if (v && !json_is_object(v)) {
        wrong_type(rd, where, key, "an object");
        return NULL;
    }
    return v;
}

static json_t *get_arr(struct reader *rd, json_t *obj, const char *where, const char *key,
                       bool required)
{
    json_t *v = field(rd, obj, where, key, required);

    if (v && !json_is_array(v)) {
        wrong_type(rd, where, key, "an array");
        return NULL;
    }
    return v;
}

/* Names of the enums in files are matched exactly; -1 when unknown. */
static int lookup(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], s) == 0)
            return (int)i;
    return -1;
}

/* gc_device_summary.backend is a pointer, not an array: the tree owns no
 * storage for it. Names read from files are kept in a small process-wide
 * table whose entries never change once written; the report knows no
 * backend by name. */
static const char *intern_backend(const char *name)
{
    static char names[16][32];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    const char *found = "unknown";

    if (name[0] == '\0')
        return ""; /* an empty slot of the table is free, so "" is not kept there */
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < NELEM(names); i++) {
        if (names[i][0] == '\0')
            copy_field(names[i], sizeof(names[i]), name);
        if (strcmp(names[i], name) == 0) {
            found = names[i];
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

static void read_stats(struct reader *rd, json_t *obj, const char *where, struct gc_stats *s)
{
    char path[256];
    json_t *o = get_obj(rd, obj, where, "stats", false);

    s->n = 0;
    s->median = s->min = s->max = s->mean = s->stddev = s->ci95 = s->cv = NAN;
    if (!o)
        return;
    snprintf(path, sizeof(path), "%s.stats", where);
    s->n = get_int(rd, o, path, "n", true, 0);
    if (s->n < 0)
        fail(rd, "field \"%s.n\" must not be negative", path);
    s->median = get_num(rd, o, path, "median", false);
    s->min = get_num(rd, o, path, "min", false);
    s->max = get_num(rd, o, path, "max", false);
    s->mean = get_num(rd, o, path, "mean", false);
    s->stddev = get_num(rd, o, path, "stddev", false);
    s->ci95 = get_num(rd, o, path, "ci95", false);
    s->cv = get_num(rd, o, path, "cv", false);
}

static void read_meta(struct reader *rd, json_t *doc, struct gc_run_meta *m)
{
    json_t *o = get_obj(rd, doc, "", "meta", true), *d;
    char type[32];
    int t;

    if (!o)
        return;
    get_str(rd, o, "meta", "tool_version", true, m->tool_version, sizeof(m->tool_version));
    get_str(rd, o, "meta", "git_revision", false, m->git_revision, sizeof(m->git_revision));
    get_str(rd, o, "meta", "date", true, m->date, sizeof(m->date));
    get_str(rd, o, "meta", "host", false, m->host, sizeof(m->host));
    get_str(rd, o, "meta", "command_line", false, m->command_line, sizeof(m->command_line));
    get_str(rd, o, "meta", "profile", false, m->profile, sizeof(m->profile));
    get_str(rd, o, "meta", "device_extra", false, m->device_extra, sizeof(m->device_extra));
    get_str(rd, o, "meta", "data_init", false, m->data_init, sizeof(m->data_init));
    m->repeat = get_int(rd, o, "meta", "repeat", false, 0);
    m->min_time_ms = get_num(rd, o, "meta", "min_time_ms", false);

    d = get_obj(rd, o, "meta", "device", true);
    if (!d)
        return;
    {
        char backend[32];
        long long mem;

        get_str(rd, d, "meta.device", "spec", true, m->device.spec, sizeof(m->device.spec));
        get_str(rd, d, "meta.device", "backend", true, backend, sizeof(backend));
        m->device.backend = intern_backend(backend);
        m->device.index = get_int(rd, d, "meta.device", "index", false, 0);
        get_str(rd, d, "meta.device", "name", true, m->device.name, sizeof(m->device.name));
        get_str(rd, d, "meta.device", "vendor", false, m->device.vendor, sizeof(m->device.vendor));
        get_str(rd, d, "meta.device", "arch", false, m->device.arch, sizeof(m->device.arch));
        get_str(rd, d, "meta.device", "driver", false, m->device.driver, sizeof(m->device.driver));
        get_str(rd, d, "meta.device", "type", false, type, sizeof(type));
        t = lookup(type_names, NELEM(type_names), type);
        if (type[0] && t < 0)
            fail(rd, "field \"meta.device.type\" has unknown value \"%s\"", type);
        m->device.type = t < 0 ? GC_DEVICE_OTHER : (enum gc_device_type)t;
        m->device.compute_units = get_int(rd, d, "meta.device", "compute_units", false, 0);
        m->device.clock_mhz = get_num(rd, d, "meta.device", "clock_mhz", false);
        mem = get_llong(rd, d, "meta.device", "global_mem", false, 0);
        if (mem < 0)
            fail(rd, "field \"meta.device.global_mem\" must not be negative");
        m->device.global_mem = mem < 0 ? 0 : (size_t)mem;
    }
}

static void read_context(struct reader *rd, json_t *bench, const char *where,
                         struct gc_context_info *c)
{
    char path[128];
    json_t *o = get_obj(rd, bench, where, "context", false), *ecc;

    gc__context_info_init(c);
    if (!o)
        return;
    snprintf(path, sizeof(path), "%s.context", where);
    c->sm_clock_mhz = get_num(rd, o, path, "sm_clock_mhz", false);
    get_str(rd, o, path, "sm_clock_source", false, c->sm_clock_source, sizeof(c->sm_clock_source));
    c->sm_clock_min_mhz = get_num(rd, o, path, "sm_clock_min_mhz", false);
    c->sm_clock_max_mhz = get_num(rd, o, path, "sm_clock_max_mhz", false);
    c->mem_clock_mhz = get_num(rd, o, path, "mem_clock_mhz", false);
    c->temp_start_c = get_num(rd, o, path, "temp_start_c", false);
    c->temp_end_c = get_num(rd, o, path, "temp_end_c", false);
    c->power_limit_w = get_num(rd, o, path, "power_limit_w", false);
    c->power_avg_w = get_num(rd, o, path, "power_avg_w", false);
    ecc = json_object_get(o, "ecc_enabled");
    if (ecc && json_is_boolean(ecc))
        c->ecc_enabled = json_is_true(ecc);
    else if (ecc && !json_is_null(ecc))
        wrong_type(rd, path, "ecc_enabled", "true, false or null");
    /* The bitmask is stored as a JSON integer; values past 2^63 come back
     * through the two's complement of the signed integer. */
    c->throttle_reasons = (unsigned long long)get_llong(rd, o, path, "throttle_reasons", false, 0);
    c->throttled_samples = get_int(rd, o, path, "throttled_samples", false, 0);
    c->redone_samples = get_int(rd, o, path, "redone_samples", false, 0);
}

/* A boolean field of o; false when absent. */
static bool get_flag(struct reader *rd, json_t *o, const char *where, const char *key)
{
    json_t *v = json_object_get(o, key);

    if (v && !json_is_boolean(v))
        wrong_type(rd, where, key, "true or false");
    return v && json_is_true(v);
}

static void read_sampling(struct reader *rd, json_t *bench, const char *where,
                          struct gc_sampling_info *p)
{
    char path[128];
    json_t *o = get_obj(rd, bench, where, "sampling", false);

    memset(p, 0, sizeof(*p));
    if (!o)
        return;
    snprintf(path, sizeof(path), "%s.sampling", where);
    p->min_samples = get_int(rd, o, path, "min_samples", true, 0);
    p->max_samples = get_int(rd, o, path, "max_samples", true, 0);
    p->min_time_s = get_num(rd, o, path, "min_time_s", false);
    p->spread_target = get_num(rd, o, path, "spread_target", false);
    p->time_cap_s = get_num(rd, o, path, "time_cap_s", false);
    p->repeat_explicit = get_flag(rd, o, path, "repeat_explicit");
    p->min_time_explicit = get_flag(rd, o, path, "min_time_explicit");
}

/* The benchmark's configuration; absent where it records none (and in
 * documents written before it existed). */
static void read_config(struct reader *rd, json_t *bench, const char *where,
                        struct gc_bench_result *b)
{
    char path[128];
    json_t *o = get_obj(rd, bench, where, "config", false), *v;
    const char *key;

    if (!o)
        return;
    snprintf(path, sizeof(path), "%s.config", where);
    json_object_foreach(o, key, v)
    {
        int rc = json_is_string(v)   ? gc__config_set_text(b, NULL, key, json_string_value(v))
                 : json_is_number(v) ? gc__config_set_num(b, NULL, key, json_number_value(v))
                                     : GC_EINVAL;

        if (rc == GC_ENOMEM) {
            rd->rc = rc;
            return;
        }
        if (rc) {
            fail(rd, "field \"%s.%s\" must be a number or a string of at most 47 bytes", path, key);
            return;
        }
    }
}

/* The run's compile plan; absent in documents written before it existed. */
static void read_plan(struct reader *rd, json_t *doc, struct gc_plan_info *p)
{
    json_t *o = get_obj(rd, doc, "", "plan", false);

    memset(p, 0, sizeof(*p));
    if (!o)
        return;
    p->made = get_flag(rd, o, "plan", "made");
    p->benches = get_int(rd, o, "plan", "benchmarks", false, 0);
    p->kernels = get_int(rd, o, "plan", "kernels", false, 0);
    p->compiled = get_int(rd, o, "plan", "compiled", false, 0);
    p->cached = get_int(rd, o, "plan", "cached", false, 0);
    p->failed = get_int(rd, o, "plan", "failed", false, 0);
    p->unused = get_int(rd, o, "plan", "unused", false, 0);
    p->threads = get_int(rd, o, "plan", "threads", false, 0);
    p->wall_s = get_num(rd, o, "plan", "wall_s", false);
    p->compile_s = get_num(rd, o, "plan", "compile_s", false);
    p->cpu_s = get_num(rd, o, "plan", "cpu_s", false);
    p->load_s = get_num(rd, o, "plan", "load_s", false);
    p->workers = get_int(rd, o, "plan", "workers", false, 0);
    p->worker_compiled = get_int(rd, o, "plan", "worker_compiled", false, 0);
    p->workers_failed = get_int(rd, o, "plan", "workers_failed", false, 0);
    p->worker_cpu_s = get_num(rd, o, "plan", "worker_cpu_s", false);
    get_str(rd, o, "plan", "worker_note", false, p->worker_note, sizeof(p->worker_note));
    get_str(rd, o, "plan", "on_demand", false, p->on_demand, sizeof(p->on_demand));
}

static void read_metric(struct reader *rd, json_t *o, const char *where, struct gc_bench_result *b)
{
    char name[sizeof(b->metrics->name)], unit[sizeof(b->metrics->unit)];
    char note[sizeof(b->metrics->note)];
    struct gc_stats st;
    struct gc_metric *m;
    double value, limit;
    json_t *fr;

    if (!json_is_object(o)) {
        fail(rd, "\"%s\" must be an object", where);
        return;
    }
    get_str(rd, o, where, "name", true, name, sizeof(name));
    value = get_num(rd, o, where, "value", true);
    get_str(rd, o, where, "unit", true, unit, sizeof(unit));
    limit = get_num(rd, o, where, "limit", false);
    get_str(rd, o, where, "note", false, note, sizeof(note));
    read_stats(rd, o, where, &st);
    if (rd->rc)
        return;
    m = gc__bench_add_metric(b, name, value, unit, limit, &st, note);
    if (!m) {
        rd->rc = GC_ENOMEM;
        return;
    }
    /* The stored fraction is taken as written; it is recomputed only when
     * the file has none. */
    fr = json_object_get(o, "fraction");
    if (fr)
        m->fraction = get_num(rd, o, where, "fraction", false);
}

static void read_axis(struct reader *rd, json_t *s, const char *where, const char *key, char *name,
                      size_t nsize, char *unit, size_t usize)
{
    char path[160];
    json_t *o = get_obj(rd, s, where, key, true);

    name[0] = unit[0] = '\0';
    if (!o)
        return;
    snprintf(path, sizeof(path), "%s.%s", where, key);
    get_str(rd, o, path, "name", true, name, nsize);
    get_str(rd, o, path, "unit", true, unit, usize);
}

static void read_series(struct reader *rd, json_t *o, const char *where, struct gc_bench_result *b)
{
    struct gc_series tmp, *s;
    json_t *pts, *p;
    size_t i;

    if (!json_is_object(o)) {
        fail(rd, "\"%s\" must be an object", where);
        return;
    }
    get_str(rd, o, where, "name", true, tmp.name, sizeof(tmp.name));
    read_axis(rd, o, where, "x", tmp.x_name, sizeof(tmp.x_name), tmp.x_unit, sizeof(tmp.x_unit));
    read_axis(rd, o, where, "y", tmp.y_name, sizeof(tmp.y_name), tmp.y_unit, sizeof(tmp.y_unit));
    pts = get_arr(rd, o, where, "points", true);
    if (rd->rc)
        return;
    s = gc__bench_add_series(b, tmp.name, tmp.x_name, tmp.x_unit, tmp.y_name, tmp.y_unit);
    if (!s) {
        rd->rc = GC_ENOMEM;
        return;
    }
    json_array_foreach(pts, i, p)
    {
        char path[192], label[sizeof(s->points->label)];
        struct gc_stats st;
        double x, y;

        snprintf(path, sizeof(path), "%s.points[%zu]", where, i);
        if (!json_is_object(p)) {
            fail(rd, "\"%s\" must be an object", path);
            return;
        }
        x = get_num(rd, p, path, "x", true);
        y = get_num(rd, p, path, "y", true);
        get_str(rd, p, path, "label", false, label, sizeof(label));
        read_stats(rd, p, path, &st);
        if (rd->rc)
            return;
        if (gc__series_add(s, x, y, &st, label) != 0) {
            rd->rc = GC_ENOMEM;
            return;
        }
    }
}

static void read_bench(struct reader *rd, json_t *o, const char *where, struct gc_results *r)
{
    char name[sizeof(r->benches->name)], group[sizeof(r->benches->group)], status[32];
    struct gc_bench_result *b;
    json_t *metrics, *series, *v;
    size_t i;
    int st;

    if (!json_is_object(o)) {
        fail(rd, "\"%s\" must be an object", where);
        return;
    }
    get_str(rd, o, where, "name", true, name, sizeof(name));
    get_str(rd, o, where, "group", true, group, sizeof(group));
    get_str(rd, o, where, "status", true, status, sizeof(status));
    if (rd->rc)
        return;
    st = lookup(status_names, NELEM(status_names), status);
    if (st < 0) {
        fail(rd, "field \"%s.status\" has unknown value \"%s\"", where, status);
        return;
    }
    b = gc__results_add_bench(r, name, group);
    if (!b) {
        rd->rc = GC_ENOMEM;
        return;
    }
    b->status = (enum gc_bench_status)st;
    get_str(rd, o, where, "error", false, b->error, sizeof(b->error));
    get_str(rd, o, where, "warning", false, b->warning, sizeof(b->warning));
    b->wall_s = get_num(rd, o, where, "wall_s", false);
    b->compile_s = get_num(rd, o, where, "compile_s", false);
    b->kernels_compiled = get_int(rd, o, where, "kernels_compiled", false, 0);
    b->kernels_cached = get_int(rd, o, where, "kernels_cached", false, 0);
    b->kernels_planned = get_int(rd, o, where, "kernels_planned", false, 0);
    b->plan_compile_s = get_num(rd, o, where, "plan_compile_s", false);
    b->launches = (long)get_llong(rd, o, where, "launches", false, 0);
    b->kernel_s = get_num(rd, o, where, "kernel_s", false);
    b->wait_s = get_num(rd, o, where, "wait_s", false);
    b->wait_s = isfinite(b->wait_s) ? b->wait_s : 0;
    b->deferred = json_is_true(json_object_get(o, "deferred"));
    get_str(rd, o, where, "stop_rule", false, b->stop_rule, sizeof(b->stop_rule));
    read_sampling(rd, o, where, &b->sampling);
    read_context(rd, o, where, &b->context);
    read_config(rd, o, where, b);
    metrics = get_arr(rd, o, where, "metrics", true);
    series = get_arr(rd, o, where, "series", true);
    if (rd->rc)
        return;
    /* Files that predate the record have none: their figures are drawn by
     * the generic rules and they fill no summary table. */
    v = json_object_get(o, "presentation");
    if (v)
        rd->rc = gc__present_from_json(v, where, &b->report, rd->err, rd->errlen);
    if (rd->rc)
        return;
    json_array_foreach(metrics, i, v)
    {
        char path[128];

        snprintf(path, sizeof(path), "%s.metrics[%zu]", where, i);
        read_metric(rd, v, path, b);
        if (rd->rc)
            return;
    }
    json_array_foreach(series, i, v)
    {
        char path[128];

        snprintf(path, sizeof(path), "%s.series[%zu]", where, i);
        read_series(rd, v, path, b);
        if (rd->rc)
            return;
    }
}

static void read_doc(struct reader *rd, json_t *doc, struct gc_results *r)
{
    json_t *v, *benches;
    size_t i;

    if (!json_is_object(doc)) {
        fail(rd, "not a gpuchar results document: the top level is not an object");
        return;
    }
    v = json_object_get(doc, "schema");
    if (v && json_is_string(v) && strcmp(json_string_value(v), GC__NODE_SCHEMA_NAME) == 0) {
        fail(rd, "it is a node document (a run over several devices), not one device's "
                 "results: 'gpuchar report' reads it");
        return;
    }
    if (!v || !json_is_string(v) || strcmp(json_string_value(v), SCHEMA_NAME) != 0) {
        fail(rd, "not a gpuchar results document: \"schema\" is %s%s%s, expected \"%s\"",
             v && json_is_string(v) ? "\"" : "",
             !v                  ? "missing"
             : json_is_string(v) ? json_string_value(v)
                                 : "not a string",
             v && json_is_string(v) ? "\"" : "", SCHEMA_NAME);
        return;
    }
    v = field(rd, doc, "", "schema_version", true);
    if (!v)
        return;
    if (!json_is_integer(v)) {
        wrong_type(rd, "", "schema_version", "an integer");
        return;
    }
    if (json_integer_value(v) != GC_SCHEMA_VERSION) {
        fail(rd, "unsupported schema_version %lld (this gpuchar reads %d)",
             (long long)json_integer_value(v), GC_SCHEMA_VERSION);
        return;
    }
    v = field(rd, doc, "", "complete", true);
    if (v && !json_is_boolean(v))
        wrong_type(rd, "", "complete", "true or false");
    r->complete = v && json_is_true(v);
    get_str(rd, doc, "", "incomplete_reason", false, r->incomplete_reason,
            sizeof(r->incomplete_reason));
    r->wall_s = get_num(rd, doc, "", "wall_s", false);
    read_plan(rd, doc, &r->plan);
    read_meta(rd, doc, &r->meta);
    benches = get_arr(rd, doc, "", "benchmarks", true);
    if (rd->rc)
        return;
    json_array_foreach(benches, i, v)
    {
        char path[64];

        snprintf(path, sizeof(path), "benchmarks[%zu]", i);
        read_bench(rd, v, path, r);
        if (rd->rc)
            return;
    }
}

int gc__results_from_json(json_t *doc, struct gc_results **out, char *err, size_t errlen)
{
    struct reader rd = {err, errlen, 0};
    struct gc_results *r = gc__results_new();

    *out = NULL;
    if (!r)
        return GC_ENOMEM;
    read_doc(&rd, doc, r);
    if (rd.rc) {
        gc_results_free(r);
        return rd.rc;
    }
    *out = r;
    return 0;
}

int gc_read_json(const char *path, struct gc_results **out, char *err, size_t errlen)
{
    struct reader rd = {err, errlen, 0};
    struct gc_results *r = NULL;
    json_error_t je;
    json_t *doc = NULL;
    char *text = NULL;
    size_t len = 0;

    if (out)
        *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    if (!path || !out)
        return GC_EINVAL;
    /* The file is read here, not by jansson, so that "cannot open" (an I/O
     * error) and "not JSON" (invalid input) keep distinct codes, and so that
     * a folder, an empty, huge or binary file is named as such. */
    rd.rc = gc__infile_read(path, GC_RESULTS_MAX_BYTES, &text, &len, err, errlen);
    if (rd.rc)
        goto out;
    doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        /* A document that does not even start as one is "not JSON"; one
         * that breaks off or goes wrong later is "invalid JSON". */
        size_t lead = strspn(text, " \t\r\n");

        if (text[lead] != '{' && text[lead] != '[')
            fail(&rd, "it is not JSON: %s at line %d, column %d", je.text, je.line, je.column);
        else
            fail(&rd, "invalid JSON at line %d, column %d: %s", je.line, je.column, je.text);
        goto out;
    }
    r = gc__results_new();
    if (!r) {
        rd.rc = GC_ENOMEM;
        goto out;
    }
    read_doc(&rd, doc, r);
out:
    if (rd.rc == GC_ENOMEM && err && errlen && !err[0])
        snprintf(err, errlen, "out of host memory reading the results");
    if (rd.rc) {
        gc_results_free(r);
        r = NULL;
    }
    *out = r;
    json_decref(doc);
    free(text);
    return rd.rc;
}
