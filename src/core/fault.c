/* Parsing GPUCHAR_FAULT. Each item is matched whole: "compiles" or
 * "alloc:3x" is an error, not a fault half applied. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "gpuchar/gpuchar.h"

#define FAULT_SYNTAX                                                                               \
    "a comma-separated list of alloc:N, launch:N, lost:N, crash:N, hang:N, worker:N (N >= 1), "    \
    "compile, worker and scale:METRIC:FACTOR (FACTOR > 0)"

/* Reads the count after "name:" in an item of length len; false unless the
 * rest of the item is a positive decimal number. */
static bool parse_count(const char *item, size_t len, const char *name, long *out)
{
    size_t nl = strlen(name);
    char digits[24];
    char *end;
    long v;

    if (len <= nl + 1 || strncmp(item, name, nl) != 0 || item[nl] != ':')
        return false;
    if (len - nl - 1 >= sizeof(digits))
        return false;
    memcpy(digits, item + nl + 1, len - nl - 1);
    digits[len - nl - 1] = '\0';
    if (!isdigit((unsigned char)digits[0]))
        return false;
    errno = 0;
    v = strtol(digits, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < 1)
        return false;
    *out = v;
    return true;
}

/* "scale:METRIC:FACTOR" of length len. */
static bool parse_scale(const char *item, size_t len, struct gc_faults *out)
{
    const char *colon = memchr(item + 6, ':', len - 6);
    char num[32], *end;
    size_t ml, nl;
    double v;

    if (!colon)
        return false;
    ml = (size_t)(colon - item - 6);
    nl = len - ml - 7;
    if (ml == 0 || ml >= sizeof(out->scale_metric) || nl == 0 || nl >= sizeof(num))
        return false;
    memcpy(num, colon + 1, nl);
    num[nl] = '\0';
    errno = 0;
    v = strtod(num, &end);
    if (*end != '\0' || errno == ERANGE || !(v > 0) || v > 1e6)
        return false;
    memcpy(out->scale_metric, item + 6, ml);
    out->scale_metric[ml] = '\0';
    out->scale_factor = v;
    return true;
}

void gc__faults_scale(const char *metric, double factor, struct gc_bench_result *b)
{
    size_t bl = strlen(b->name);

    if (!metric[0])
        return;
    for (int i = 0; i < b->nmetrics; i++) {
        struct gc_metric *m = &b->metrics[i];
        bool hit = strcmp(metric, m->name) == 0 ||
                   (strncmp(metric, b->name, bl) == 0 && metric[bl] == '/' &&
                    strcmp(metric + bl + 1, m->name) == 0);

        if (!hit)
            continue;
        m->value *= factor;
        m->fraction *= factor;
        m->stats.median *= factor;
        m->stats.min *= factor;
        m->stats.max *= factor;
        m->stats.mean *= factor;
        m->stats.stddev *= factor;
        m->stats.ci95 *= factor;
        size_t used = strlen(m->note);
        snprintf(m->note + used, sizeof(m->note) - used, "%sscaled by %g (GPUCHAR_FAULT)",
                 used ? "; " : "", factor);
    }
}

int gc__faults_parse(const char *spec, struct gc_faults *out, char *err, size_t errlen)
{
    const char *p = spec;

    memset(out, 0, sizeof(*out));
    if (err && errlen)
        err[0] = '\0';
    if (!spec || !*spec)
        return 0;
    for (;;) {
        size_t len = strcspn(p, ",");
        bool ok = true;

        if (len == 7 && strncmp(p, "compile", 7) == 0)
            out->compile = true;
        else if (len == 6 && strncmp(p, "worker", 6) == 0)
            out->worker_at = 1;
        else if (strncmp(p, "worker:", 7) == 0)
            ok = parse_count(p, len, "worker", &out->worker_at);
        else if (strncmp(p, "alloc:", 6) == 0)
            ok = parse_count(p, len, "alloc", &out->alloc_at);
        else if (strncmp(p, "launch:", 7) == 0)
            ok = parse_count(p, len, "launch", &out->launch_at);
        else if (strncmp(p, "lost:", 5) == 0)
            ok = parse_count(p, len, "lost", &out->lost_at);
        else if (strncmp(p, "crash:", 6) == 0)
            ok = parse_count(p, len, "crash", &out->crash_at);
        else if (strncmp(p, "hang:", 5) == 0)
            ok = parse_count(p, len, "hang", &out->hang_at);
        else if (len > 6 && strncmp(p, "scale:", 6) == 0)
            ok = parse_scale(p, len, out);
        else
            ok = false;
        if (!ok) {
            if (err && errlen)
                snprintf(err, errlen,
                         "invalid GPUCHAR_FAULT '%.64s': bad item '%.*s'; expected " FAULT_SYNTAX,
                         spec, (int)(len > 64 ? 64 : len), p);
            memset(out, 0, sizeof(*out));
            return GC_EINVAL;
        }
        p += len;
        if (*p == '\0')
            return 0;
        p++;
    }
}

int gc_check_fault_setting(char *err, size_t errlen)
{
    struct gc_faults f;

    return gc__faults_parse(getenv("GPUCHAR_FAULT"), &f, err, errlen);
}
