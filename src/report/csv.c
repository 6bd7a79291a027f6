/* CSV view of the results tree: one file per series, metrics.csv,
 * benchmarks.csv and run.csv, quoted as RFC 4180 asks. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpuchar/gpuchar.h"
#include "report/summary.h"
#include "report/csv.h"
#include "report/units.h"

static const char *const status_names[] = {"ok", "error", "not_available", "interrupted",
                                           "skipped"};
static const char *const type_names[] = {"gpu", "cpu", "accelerator", "other"};

static int mkdir_p(const char *path)
{
    char *tmp = strdup(path);
    int rc = 0;

    if (!tmp)
        return GC_ENOMEM;
    for (char *p = tmp + 1; *p && rc == 0; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            rc = GC_EIO;
        *p = '/';
    }
    if (rc == 0 && mkdir(tmp, 0755) != 0 && errno != EEXIST)
        rc = GC_EIO;
    free(tmp);
    return rc;
}

/* A field is quoted when it holds a comma, a quote or a line break, and
 * quotes inside are doubled (RFC 4180, section 2). */
static void put_text(FILE *f, const char *s)
{
    if (!s)
        s = "";
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void gc__csv_text(FILE *f, const char *s)
{
    put_text(f, s);
}

/* Numbers are written exactly and in the C locale; an unknown value (NaN)
 * is an empty cell. */
static void put_num(FILE *f, double v)
{
    char buf[40];

    gc__fmt_double(buf, sizeof(buf), v);
    fputs(buf, f);
}

/* The statistics columns n,median,min,max,mean,stddev,ci95,cv: empty when
 * the value was not sampled (n == 0). */
static void put_stats(FILE *f, const struct gc_stats *s)
{
    if (s->n <= 0) {
        fputs(",,,,,,,", f);
        return;
    }
    fprintf(f, "%d,", s->n);
    put_num(f, s->median);
    fputc(',', f);
    put_num(f, s->min);
    fputc(',', f);
    put_num(f, s->max);
    fputc(',', f);
    put_num(f, s->mean);
    fputc(',', f);
    put_num(f, s->stddev);
    fputc(',', f);
    put_num(f, s->ci95);
    fputc(',', f);
    put_num(f, s->cv);
}

/* "name [unit]", or the bare name when there is no unit. */
static void put_axis(FILE *f, const char *name, const char *unit)
{
    char buf[128];

    if (unit && unit[0])
        snprintf(buf, sizeof(buf), "%s [%s]", name, unit);
    else
        snprintf(buf, sizeof(buf), "%s", name);
    put_text(f, buf);
}

/* Copies s to dst with every character outside [A-Za-z0-9._-] replaced by
 * '_', so that a file name never holds a path separator or a space. */
static void safe_name(char *dst, size_t size, const char *s)
{
    size_t n = 0;

    for (; *s && n + 1 < size; s++, n++) {
        char c = *s;
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';

        dst[n] = ok ? c : '_';
    }
    dst[n] = '\0';
}

/* Opens dir/name for writing; *f is NULL on failure. */
static int open_in(const char *dir, const char *name, FILE **f)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *path = malloc(len);

    *f = NULL;
    if (!path)
        return GC_ENOMEM;
    snprintf(path, len, "%s/%s", dir, name);
    *f = fopen(path, "w");
    free(path);
    return *f ? 0 : GC_EIO;
}

/* Closes f and reports any write error seen on it. */
static int close_checked(FILE *f)
{
    int bad = ferror(f);

    if (fclose(f) != 0 || bad)
        return GC_EIO;
    return 0;
}

static int write_series(const char *dir, const struct gc_bench_result *b, const struct gc_series *s)
{
    char bn[sizeof(b->name)], sn[sizeof(s->name)], name[sizeof(bn) + sizeof(sn) + 8];
    FILE *f;
    int rc;

    safe_name(bn, sizeof(bn), b->name);
    safe_name(sn, sizeof(sn), s->name);
    snprintf(name, sizeof(name), "%s__%s.csv", bn, sn);
    rc = open_in(dir, name, &f);
    if (rc)
        return rc;
    put_axis(f, s->x_name, s->x_unit);
    fputc(',', f);
    put_axis(f, s->y_name, s->y_unit);
    fputs(",label,n,median,min,max,mean,stddev,ci95,cv\n", f);
    for (int i = 0; i < s->npoints; i++) {
        const struct gc_point *p = &s->points[i];

        put_num(f, p->x);
        fputc(',', f);
        put_num(f, p->y);
        fputc(',', f);
        put_text(f, p->label);
        fputc(',', f);
        put_stats(f, &p->stats);
        fputc('\n', f);
    }
    return close_checked(f);
}

static int write_metrics(const char *dir, const struct gc_results *r)
{
    FILE *f;
    int rc = open_in(dir, "metrics.csv", &f);

    if (rc)
        return rc;
    fputs("bench,metric,value,unit,limit,fraction,n,median,min,max,mean,stddev,ci95,cv,note\n", f);
    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_bench_result *b = &r->benches[i];

        for (int j = 0; j < b->nmetrics; j++) {
            const struct gc_metric *m = &b->metrics[j];

            put_text(f, b->name);
            fputc(',', f);
            put_text(f, m->name);
            fputc(',', f);
            put_num(f, m->value);
            fputc(',', f);
            put_text(f, m->unit);
            fputc(',', f);
            put_num(f, m->limit);
            fputc(',', f);
            put_num(f, m->fraction);
            fputc(',', f);
            put_stats(f, &m->stats);
            fputc(',', f);
            put_text(f, m->note);
            fputc('\n', f);
        }
    }
    return close_checked(f);
}

static int write_benches(const char *dir, const struct gc_results *r)
{
    FILE *f;
    int rc = open_in(dir, "benchmarks.csv", &f);

    if (rc)
        return rc;
    fputs("bench,group,status,error,warning,wall_s,compile_s,kernels_compiled,kernels_cached,stop_"
          "rule,"
          "sm_clock_mhz,sm_clock_source,sm_clock_min_mhz,sm_clock_max_mhz,mem_clock_mhz,"
          "temp_start_c,temp_end_c,power_limit_w,power_avg_w,ecc_enabled,throttle_reasons,"
          "throttled_samples,redone_samples\n",
          f);
    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_bench_result *b = &r->benches[i];
        const struct gc_context_info *c = &b->context;
        int st = (int)b->status;

        put_text(f, b->name);
        fputc(',', f);
        put_text(f, b->group);
        fputc(',', f);
        fputs(st >= 0 && st < 5 ? status_names[st] : "error", f);
        fputc(',', f);
        put_text(f, b->error);
        fputc(',', f);
        put_text(f, b->warning);
        fputc(',', f);
        put_num(f, b->wall_s);
        fputc(',', f);
        put_num(f, b->compile_s);
        fprintf(f, ",%d,%d,", b->kernels_compiled, b->kernels_cached);
        put_text(f, b->stop_rule);
        fputc(',', f);
        put_num(f, c->sm_clock_mhz);
        fputc(',', f);
        put_text(f, c->sm_clock_source);
        const double rest[] = {c->sm_clock_min_mhz, c->sm_clock_max_mhz, c->mem_clock_mhz,
                               c->temp_start_c,     c->temp_end_c,       c->power_limit_w,
                               c->power_avg_w};
        for (size_t k = 0; k < sizeof(rest) / sizeof(rest[0]); k++) {
            fputc(',', f);
            put_num(f, rest[k]);
        }
        fputc(',', f);
        if (c->ecc_enabled >= 0)
            fputs(c->ecc_enabled ? "true" : "false", f);
        fprintf(f, ",%llu,%d,%d\n", c->throttle_reasons, c->throttled_samples, c->redone_samples);
    }
    return close_checked(f);
}

static void kv_text(FILE *f, const char *key, const char *value)
{
    fputs(key, f);
    fputc(',', f);
    put_text(f, value);
    fputc('\n', f);
}

static void kv_num(FILE *f, const char *key, double value)
{
    fputs(key, f);
    fputc(',', f);
    put_num(f, value);
    fputc('\n', f);
}

static int write_run(const char *dir, const struct gc_results *r)
{
    const struct gc_run_meta *m = &r->meta;
    const struct gc_device_summary *d = &m->device;
    int t = (int)d->type;
    FILE *f;
    int rc = open_in(dir, "run.csv", &f);

    if (rc)
        return rc;
    fputs("key,value\n", f);
    fprintf(f, "schema_version,%d\n", GC_SCHEMA_VERSION);
    kv_text(f, "tool_version", m->tool_version);
    kv_text(f, "git_revision", m->git_revision);
    kv_text(f, "date", m->date);
    kv_text(f, "host", m->host);
    kv_text(f, "command_line", m->command_line);
    kv_text(f, "profile", m->profile);
    kv_text(f, "device.spec", d->spec);
    kv_text(f, "device.backend", d->backend);
    fprintf(f, "device.index,%d\n", d->index);
    kv_text(f, "device.name", d->name);
    kv_text(f, "device.vendor", d->vendor);
    kv_text(f, "device.arch", d->arch);
    kv_text(f, "device.driver", d->driver);
    kv_text(f, "device.type", t >= 0 && t < 4 ? type_names[t] : "other");
    fprintf(f, "device.compute_units,%d\n", d->compute_units);
    kv_num(f, "device.clock_mhz", d->clock_mhz);
    fprintf(f, "device.global_mem,%zu\n", d->global_mem);
    kv_text(f, "device_extra", m->device_extra);
    kv_text(f, "data_init", m->data_init);
    fprintf(f, "repeat,%d\n", m->repeat);
    kv_num(f, "min_time_ms", m->min_time_ms);
    kv_num(f, "wall_s", r->wall_s);
    kv_text(f, "complete", r->complete ? "true" : "false");
    kv_text(f, "incomplete_reason", r->incomplete_reason);
    return close_checked(f);
}

/* summary_<table>.csv for every cross-benchmark summary table. */
static int write_summaries(const char *dir, const struct gc_results *r)
{
    struct gc_summary_table *t;
    int n, rc = gc__summary_build(r, &t, &n);

    for (int i = 0; i < n && rc == 0; i++) {
        char name[64];
        FILE *f;

        snprintf(name, sizeof(name), "summary_%s.csv", t[i].name);
        rc = open_in(dir, name, &f);
        if (rc)
            break;
        rc = gc__summary_write_csv(&t[i], f);
        int rc2 = close_checked(f);
        if (rc == 0)
            rc = rc2;
    }
    gc__summary_free(t, n);
    return rc;
}

int gc_write_csv(const struct gc_results *r, const char *dir)
{
    int rc;

    if (!r || !dir || !*dir)
        return GC_EINVAL;
    rc = mkdir_p(dir);
    if (rc)
        return rc;
    rc = write_run(dir, r);
    if (rc == 0)
        rc = write_benches(dir, r);
    if (rc == 0)
        rc = write_metrics(dir, r);
    for (int i = 0; i < r->nbenches && rc == 0; i++)
        for (int j = 0; j < r->benches[i].nseries && rc == 0; j++)
            rc = write_series(dir, &r->benches[i], &r->benches[i].series[j]);
    if (rc == 0)
        rc = write_summaries(dir, r);
    return rc;
}
