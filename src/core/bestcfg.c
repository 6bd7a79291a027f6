#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bestcfg.h"

struct gc_best {
    struct gc_best *next;
    char key[96];
    size_t len;
    unsigned char data[];
};

int gc__best_put(struct gc_session *s, const char *key, const void *cfg, size_t len)
{
    struct gc_best **p = &s->best, *b;

    for (; *p; p = &(*p)->next)
        if (strcmp((*p)->key, key) == 0)
            break;
    b = malloc(sizeof(*b) + len);
    if (!b)
        return GC_ENOMEM;
    snprintf(b->key, sizeof(b->key), "%s", key);
    b->len = len;
    memcpy(b->data, cfg, len);
    if (*p) {
        b->next = (*p)->next;
        free(*p);
    } else {
        b->next = NULL;
    }
    *p = b;
    return 0;
}

const void *gc__best_get(const struct gc_session *s, const char *key, size_t len)
{
    for (const struct gc_best *b = s->best; b; b = b->next)
        if (strcmp(b->key, key) == 0)
            return b->len == len ? b->data : NULL;
    return NULL;
}

void gc__best_free(struct gc_best *b)
{
    while (b) {
        struct gc_best *n = b->next;

        free(b);
        b = n;
    }
}
