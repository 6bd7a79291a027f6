#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/benchcfg.h"

/* "part.name" (or name) into buf; false when it does not fit. */
static bool full_name(const char *part, const char *name, char *buf, size_t len)
{
    int n = part ? snprintf(buf, len, "%s.%s", part, name) : snprintf(buf, len, "%s", name);

    return n > 0 && (size_t)n < len;
}

const struct gc_config_param *gc__config_find(const struct gc_bench_result *b, const char *part,
                                              const char *name)
{
    char full[sizeof(b->config->name)];

    if (!b || !full_name(part, name, full, sizeof(full)))
        return NULL;
    for (int i = 0; i < b->nconfig; i++)
        if (strcmp(b->config[i].name, full) == 0)
            return &b->config[i];
    return NULL;
}

/* The entry named part.name, added when absent; NULL on GC_ENOMEM or a
 * name that does not fit (*rc says which). */
static struct gc_config_param *slot(struct gc_bench_result *b, const char *part, const char *name,
                                    int *rc)
{
    struct gc_config_param *p = (struct gc_config_param *)gc__config_find(b, part, name);
    char full[sizeof(p->name)];

    *rc = 0;
    if (p)
        return p;
    if (!full_name(part, name, full, sizeof(full))) {
        *rc = GC_EINVAL;
        return NULL;
    }
    if (b->nconfig == b->config_cap) {
        int cap = b->config_cap ? 2 * b->config_cap : 8;
        void *n = realloc(b->config, (size_t)cap * sizeof(*b->config));

        if (!n) {
            *rc = GC_ENOMEM;
            return NULL;
        }
        b->config = n;
        b->config_cap = cap;
    }
    p = &b->config[b->nconfig++];
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "%s", full);
    return p;
}

int gc__config_set_num(struct gc_bench_result *b, const char *part, const char *name, double v)
{
    int rc;
    struct gc_config_param *p = slot(b, part, name, &rc);

    if (!p)
        return rc;
    p->value = v;
    p->text[0] = '\0';
    return 0;
}

int gc__config_set_text(struct gc_bench_result *b, const char *part, const char *name,
                        const char *text)
{
    int rc;
    struct gc_config_param *p = slot(b, part, name, &rc);

    if (!p)
        return rc;
    if (!text || !text[0] || strlen(text) >= sizeof(p->text))
        return GC_EINVAL;
    p->value = NAN;
    snprintf(p->text, sizeof(p->text), "%s", text);
    return 0;
}

bool gc__config_int(const struct gc_bench_result *b, const char *part, const char *name, int *v)
{
    const struct gc_config_param *p = gc__config_find(b, part, name);

    if (!p || p->text[0] || !isfinite(p->value) || p->value != floor(p->value) ||
        p->value < INT_MIN || p->value > INT_MAX)
        return false;
    *v = (int)p->value;
    return true;
}

const char *gc__config_text(const struct gc_bench_result *b, const char *part, const char *name)
{
    const struct gc_config_param *p = gc__config_find(b, part, name);

    return p && p->text[0] ? p->text : NULL;
}

bool gc__config_has_part(const struct gc_bench_result *b, const char *part)
{
    size_t n = part ? strlen(part) : 0;

    for (int i = 0; b && i < b->nconfig; i++)
        if (!part || (strncmp(b->config[i].name, part, n) == 0 && b->config[i].name[n] == '.'))
            return true;
    return false;
}
