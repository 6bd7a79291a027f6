/* Library context: probes every backend once, lists and resolves devices. */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"

int gc__set_error(struct gc_context *ctx, int err, const char *fmt, ...)
{
    va_list ap;

    if (!ctx)
        return err;
    va_start(ap, fmt);
    vsnprintf(ctx->last_error, sizeof(ctx->last_error), fmt, ap);
    va_end(ap);
    return err;
}

int gc_context_create(gc_context **out)
{
    struct gc_context *ctx = calloc(1, sizeof(*ctx));

    *out = NULL;
    if (!ctx)
        return GC_ENOMEM;
    for (int i = 0; gc__backends[i] && ctx->nbackends < GC_MAX_BACKENDS; i++) {
        ctx->ops[ctx->nbackends] = gc__backends[i];
        ctx->status[ctx->nbackends++].name = gc__backends[i]->name;
    }
    *out = ctx;
    return 0;
}

void gc__backend_probe(struct gc_context *ctx, int b)
{
    struct gc_backend_status *st = &ctx->status[b];

    if (ctx->probed[b])
        return;
    ctx->probed[b] = true;
    if (ctx->ops[b]->init(st->reason, sizeof(st->reason)) == 0) {
        st->available = true;
        st->reason[0] = '\0';
        st->device_count = ctx->ops[b]->device_count();
        if (st->device_count < 0)
            st->device_count = 0;
    } else if (st->reason[0] == '\0') {
        snprintf(st->reason, sizeof(st->reason), "initialisation failed");
    }
}

void gc_context_destroy(gc_context *ctx)
{
    if (!ctx)
        return;
    for (int i = 0; i < ctx->nbackends; i++)
        if (ctx->probed[i] && ctx->status[i].available && ctx->ops[i]->fini)
            ctx->ops[i]->fini();
    free(ctx);
}

const char *gc_last_error(const gc_context *ctx)
{
    return ctx ? ctx->last_error : "";
}

void gc_request_stop(gc_context *ctx)
{
    if (ctx)
        ctx->stop = 1;
}

int gc_backend_count(const gc_context *ctx)
{
    return ctx->nbackends;
}

int gc_backend_get(gc_context *ctx, int i, struct gc_backend_status *out)
{
    if (i < 0 || i >= ctx->nbackends)
        return GC_EINVAL;
    gc__backend_probe(ctx, i);
    *out = ctx->status[i];
    return 0;
}

static void summarize(const struct gc_backend_ops *ops, int index,
                      const struct gc_device_info *info, struct gc_device_summary *s)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->spec, sizeof(s->spec), "%s:%d", ops->name, index);
    s->backend = ops->name;
    s->index = index;
    snprintf(s->name, sizeof(s->name), "%s", info->name);
    snprintf(s->vendor, sizeof(s->vendor), "%s", info->vendor);
    snprintf(s->arch, sizeof(s->arch), "%s", info->arch);
    snprintf(s->driver, sizeof(s->driver), "%s", info->driver);
    s->type = info->type;
    s->compute_units = info->compute_units;
    s->clock_mhz = info->clock_mhz;
    s->global_mem = info->global_mem;
}

int gc_device_list(gc_context *ctx, struct gc_device_summary **out, int *count)
{
    struct gc_device_summary *list = NULL;
    int n = 0, cap = 0;

    *out = NULL;
    *count = 0;
    for (int b = 0; b < ctx->nbackends; b++) {
        gc__backend_probe(ctx, b);
        if (!ctx->status[b].available)
            continue;
        for (int i = 0; i < ctx->status[b].device_count; i++) {
            struct gc_device_info info;

            if (ctx->ops[b]->device_info(i, &info) != 0)
                continue;
            if (n == cap) {
                int ncap = cap ? 2 * cap : 8;
                struct gc_device_summary *p = realloc(list, (size_t)ncap * sizeof(*p));

                if (!p) {
                    free(list);
                    return GC_ENOMEM;
                }
                list = p;
                cap = ncap;
            }
            summarize(ctx->ops[b], i, &info, &list[n++]);
        }
    }
    *out = list;
    *count = n;
    return 0;
}

static bool icontains(const char *hay, const char *needle)
{
    size_t nl = strlen(needle);

    for (; *hay; hay++) {
        size_t i = 0;

        while (i < nl && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == nl)
            return true;
    }
    return nl == 0;
}

/* Whether d belongs to a backend whose devices are simulations. */
static bool simulated(const gc_context *ctx, const struct gc_device_summary *d)
{
    for (int b = 0; b < ctx->nbackends; b++)
        if (ctx->ops[b]->name == d->backend)
            return ctx->ops[b]->simulated;
    return false;
}

/* "backend:index" of an available backend's device, without asking the
 * other backends for theirs (an OpenCL platform's clock probe compiles and
 * runs a kernel). false when spec is no such name. */
static bool resolve_exact(gc_context *ctx, const char *spec, struct gc_device_summary *out)
{
    const char *colon = spec ? strchr(spec, ':') : NULL;
    char *end = NULL;

    if (!colon || !isdigit((unsigned char)colon[1]))
        return false;
    long index = strtol(colon + 1, &end, 10);
    if (*end || index < 0 || index > INT_MAX)
        return false;
    for (int b = 0; b < ctx->nbackends; b++) {
        struct gc_device_info info;
        const char *name = ctx->ops[b]->name;

        if (strlen(name) != (size_t)(colon - spec) || strncmp(name, spec, strlen(name)) != 0)
            continue;
        gc__backend_probe(ctx, b);
        if (!ctx->status[b].available || index >= ctx->status[b].device_count ||
            ctx->ops[b]->device_info((int)index, &info) != 0)
            return false;
        summarize(ctx->ops[b], (int)index, &info, out);
        return true;
    }
    return false;
}

/* The default device, the first GPU in backend order (CUDA before
 * OpenCL) of a backend that does not simulate it, probing the backends one
 * after another and none past it. false when no backend has one. */
static bool resolve_first_gpu(gc_context *ctx, struct gc_device_summary *out)
{
    for (int b = 0; b < ctx->nbackends; b++) {
        gc__backend_probe(ctx, b);
        if (!ctx->status[b].available || ctx->ops[b]->simulated)
            continue;
        for (int i = 0; i < ctx->status[b].device_count; i++) {
            struct gc_device_info info;

            if (ctx->ops[b]->device_info(i, &info) == 0 && info.type == GC_DEVICE_GPU) {
                summarize(ctx->ops[b], i, &info, out);
                return true;
            }
        }
    }
    return false;
}

int gc_device_resolve(gc_context *ctx, const char *spec, struct gc_device_summary *out)
{
    struct gc_device_summary *list = NULL;
    int n = 0, rc;

    if (resolve_exact(ctx, spec, out) || ((!spec || !*spec) && resolve_first_gpu(ctx, out)))
        return 0;
    rc = gc_device_list(ctx, &list, &n);

    if (rc)
        return rc;
    rc = GC_ENODEV;
    if (!spec || !*spec) {
        /* The default: the first GPU in backend order (CUDA before OpenCL),
         * else the first device of the first backend that has one and does
         * not simulate it. */
        for (int i = 0; i < n && rc; i++)
            if (list[i].type == GC_DEVICE_GPU && !simulated(ctx, &list[i])) {
                *out = list[i];
                rc = 0;
            }
        for (int i = 0; i < n && rc; i++)
            if (!simulated(ctx, &list[i])) {
                *out = list[i];
                rc = 0;
            }
        if (rc)
            gc__set_error(ctx, rc,
                          "no device found: no backend reported a device (see 'gpuchar list')");
        goto out;
    }
    for (int i = 0; i < n && rc; i++)
        if (strcmp(list[i].spec, spec) == 0) {
            *out = list[i];
            rc = 0;
        }
    /* A bare backend name picks its first device. */
    for (int i = 0; i < n && rc; i++)
        if (strcmp(list[i].backend, spec) == 0) {
            *out = list[i];
            rc = 0;
        }
    for (int i = 0; i < n && rc; i++)
        if (!strchr(spec, ':') && icontains(list[i].name, spec)) {
            *out = list[i];
            rc = 0;
        }
    if (rc) {
        char reason[600] = "";

        /* Say why a backend-qualified spec found nothing. */
        for (int b = 0; b < ctx->nbackends; b++) {
            size_t bl = strlen(ctx->status[b].name);

            if (strncmp(spec, ctx->status[b].name, bl) == 0 && spec[bl] == ':') {
                if (!ctx->status[b].available)
                    snprintf(reason, sizeof(reason), ": %s backend unavailable: %s",
                             ctx->status[b].name, ctx->status[b].reason);
                else
                    snprintf(reason, sizeof(reason), ": %s has %d device(s)", ctx->status[b].name,
                             ctx->status[b].device_count);
            }
        }
        gc__set_error(ctx, rc, "no device matches '%s'%s (see 'gpuchar list')", spec, reason);
    }
out:
    free(list);
    return rc;
}
