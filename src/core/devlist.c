/* The devices a --device value names when it may name several
 * (gpuchar/node.h): "all", a backend name, a comma-separated list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gpuchar/node.h"

static int backend_of(const gc_context *ctx, const char *name)
{
    for (int b = 0; b < ctx->nbackends; b++)
        if (strcmp(ctx->ops[b]->name, name) == 0)
            return b;
    return -1;
}

/* Backend b's status, initialised if it was not. */
static const struct gc_backend_status *probed(gc_context *ctx, int b)
{
    gc__backend_probe(ctx, b);
    return &ctx->status[b];
}

/* Every device of backend b, from list[0..n) into *out. */
static int take_backend(const struct gc_device_summary *list, int n, const char *backend,
                        struct gc_device_summary **out, int *nout)
{
    *nout = 0;
    *out = malloc((size_t)(n > 0 ? n : 1) * sizeof(**out));
    if (!*out)
        return GC_ENOMEM;
    for (int i = 0; i < n; i++)
        if (strcmp(list[i].backend, backend) == 0)
            (*out)[(*nout)++] = list[i];
    return 0;
}

/* "all": the devices of the first backend, in default-device order, that
 * has any and does not simulate them (CUDA before OpenCL: NVIDIA's OpenCL
 * lists the same GPUs again); the simulated devices when no other backend
 * has one. */
static int resolve_all(gc_context *ctx, struct gc_device_summary **out, int *n, char *err,
                       size_t errlen)
{
    struct gc_device_summary *list = NULL;
    int count = 0, rc = gc_device_list(ctx, &list, &count);
    const char *pick = NULL;

    if (rc)
        return rc;
    for (int pass = 0; pass < 2 && !pick; pass++)
        for (int b = 0; b < ctx->nbackends && !pick; b++) {
            if (!ctx->status[b].available || ctx->status[b].device_count == 0)
                continue;
            if ((pass == 0) == ctx->ops[b]->simulated)
                continue;
            for (int i = 0; i < count && !pick; i++)
                if (strcmp(list[i].backend, ctx->ops[b]->name) == 0)
                    pick = ctx->ops[b]->name;
        }
    if (!pick) {
        snprintf(err, errlen, "--device all: no backend reported a device (see 'gpuchar list')");
        rc = GC_ENODEV;
    } else {
        rc = take_backend(list, count, pick, out, n);
    }
    free(list);
    return rc;
}

/* Appends the device item names to *out, checking it against the others. */
static int add_item(gc_context *ctx, const char *item, struct gc_device_summary *out, int *n,
                    char *err, size_t errlen)
{
    struct gc_device_summary d;
    int rc = gc_device_resolve(ctx, item, &d);

    if (rc) {
        snprintf(err, errlen, "%s", gc_last_error(ctx)[0] ? gc_last_error(ctx) : item);
        return rc;
    }
    for (int i = 0; i < *n; i++) {
        if (strcmp(out[i].spec, d.spec) == 0) {
            if (strcmp(item, d.spec) == 0)
                snprintf(err, errlen, "--device lists %s twice", d.spec);
            else
                snprintf(err, errlen, "--device lists %s twice ('%s' is %s again)", d.spec, item,
                         d.spec);
            return GC_EINVAL;
        }
        if (strcmp(out[i].backend, d.backend) != 0) {
            snprintf(err, errlen,
                     "--device mixes backends: %s is %s, %s is %s; a node run measures the "
                     "devices of one backend (the same GPU may appear under both)",
                     out[i].spec, out[i].backend, d.spec, d.backend);
            return GC_EINVAL;
        }
    }
    out[(*n)++] = d;
    return 0;
}

static int resolve_items(gc_context *ctx, const char *value, struct gc_device_summary **out, int *n,
                         char *err, size_t errlen)
{
    size_t nitems = 1;
    int rc = 0;

    for (const char *p = value; *p; p++)
        nitems += *p == ',';
    *out = malloc(nitems * sizeof(**out));
    if (!*out)
        return GC_ENOMEM;
    for (const char *p = value; rc == 0;) {
        size_t len = strcspn(p, ",");
        char item[128];

        if (len == 0 || len >= sizeof(item)) {
            snprintf(err, errlen, "--device '%s': %s", value,
                     len ? "an item is too long" : "an empty item in the list");
            rc = GC_EINVAL;
            break;
        }
        snprintf(item, sizeof(item), "%.*s", (int)len, p);
        if (strcmp(item, "all") == 0) {
            snprintf(err, errlen, "--device '%s': 'all' stands alone, not in a list", value);
            rc = GC_EINVAL;
            break;
        }
        rc = add_item(ctx, item, *out, n, err, errlen);
        p += len;
        if (*p == '\0')
            break;
        p++;
    }
    return rc;
}

int gc_device_list_resolve(gc_context *ctx, const char *value, struct gc_device_summary **out,
                           int *n, bool *is_list, char *err, size_t errlen)
{
    int b, rc;

    *out = NULL;
    *n = 0;
    *is_list = false;
    err[0] = '\0';
    if (value && strcmp(value, "all") == 0) {
        *is_list = true;
        rc = resolve_all(ctx, out, n, err, errlen);
    } else if (value && (b = backend_of(ctx, value)) >= 0 && probed(ctx, b)->available &&
               ctx->status[b].device_count > 1) {
        struct gc_device_summary *list = NULL;
        int count = 0;

        rc = gc_device_list(ctx, &list, &count);
        if (rc == 0)
            rc = take_backend(list, count, value, out, n);
        free(list);
        *is_list = *n > 1;
    } else if (value && strchr(value, ',')) {
        *is_list = true;
        rc = resolve_items(ctx, value, out, n, err, errlen);
    } else {
        /* One device, exactly as gc_device_resolve takes it. */
        *out = malloc(sizeof(**out));
        rc = *out ? gc_device_resolve(ctx, value, *out) : GC_ENOMEM;
        *n = rc == 0;
        if (rc)
            snprintf(err, errlen, "%s", gc_last_error(ctx));
    }
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
