/* The run's kept host data (core/memo.h): a short list searched in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memo.h"

struct memo_ent {
    char tag[24];
    uint64_t a, b;
    size_t bytes;
    void *data;
    struct memo_ent *next;
};

struct gc_memo {
    struct memo_ent *head;
    size_t bytes; /* kept in all */
    int n;
};

static struct memo_ent *find(const struct gc_memo *mo, const char *tag, uint64_t a, uint64_t b)
{
    for (struct memo_ent *e = mo ? mo->head : NULL; e; e = e->next)
        if (e->a == a && e->b == b && strncmp(e->tag, tag, sizeof(e->tag)) == 0)
            return e;
    return NULL;
}

void *gc__memo_copy(struct gc_session *s, const char *tag, uint64_t a, uint64_t b, size_t *bytes)
{
    const struct memo_ent *e = find(s->memo, tag, a, b);
    void *p = e ? malloc(e->bytes ? e->bytes : 1) : NULL;

    *bytes = 0;
    if (!p)
        return NULL;
    memcpy(p, e->data, e->bytes);
    *bytes = e->bytes;
    return p;
}

void gc__memo_put(struct gc_session *s, const char *tag, uint64_t a, uint64_t b, const void *data,
                  size_t bytes)
{
    struct gc_memo *mo = s->memo;
    struct memo_ent *e;

    if (!mo && !(mo = s->memo = calloc(1, sizeof(*mo))))
        return;
    if (bytes > GC_MEMO_MAX_BYTES - mo->bytes || find(mo, tag, a, b))
        return;
    if (!(e = calloc(1, sizeof(*e))) || !(e->data = malloc(bytes ? bytes : 1))) {
        free(e);
        return;
    }
    snprintf(e->tag, sizeof(e->tag), "%s", tag);
    e->a = a;
    e->b = b;
    e->bytes = bytes;
    memcpy(e->data, data, bytes);
    e->next = mo->head;
    mo->head = e;
    mo->bytes += bytes;
    mo->n++;
}

void gc__memo_free(struct gc_session *s)
{
    struct gc_memo *mo = s->memo;

    if (!mo)
        return;
    for (struct memo_ent *e = mo->head, *nx; e; e = nx) {
        nx = e->next;
        free(e->data);
        free(e);
    }
    free(mo);
    s->memo = NULL;
}

int gc__memo_count(const struct gc_session *s, size_t *bytes)
{
    *bytes = s->memo ? s->memo->bytes : 0;
    return s->memo ? s->memo->n : 0;
}
