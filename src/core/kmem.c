/* The in-memory layer of the compiled-kernel cache (see kmem.h): an array
 * filled while the run's plan compiles, then sorted by key for lookups. */
#include <stdlib.h>
#include <string.h>

#include "gpuchar/gpuchar.h"
#include "core/kmem.h"

int gc__kmem_add(struct gc_kmem *m, const char *key, void *bin, size_t len, struct gc_prog *prog,
                 int err, char *log, double compile_s)
{
    struct gc_kmem_entry *e;

    if (m->sealed)
        return GC_EINVAL;
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 64;
        struct gc_kmem_entry *ne = realloc(m->e, (size_t)cap * sizeof(*ne));

        if (!ne)
            return GC_ENOMEM;
        m->e = ne;
        m->cap = cap;
    }
    e = &m->e[m->n++];
    memset(e, 0, sizeof(*e));
    memcpy(e->key, key, sizeof(e->key) - 1);
    e->bin = bin;
    e->len = len;
    e->prog = prog;
    e->err = err;
    e->log = log;
    e->compile_s = compile_s;
    return 0;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const struct gc_kmem_entry *)a)->key, ((const struct gc_kmem_entry *)b)->key);
}

void gc__kmem_seal(struct gc_kmem *m)
{
    if (m->n > 1)
        qsort(m->e, (size_t)m->n, sizeof(*m->e), by_key);
    m->sealed = true;
}

struct gc_kmem_entry *gc__kmem_find(struct gc_kmem *m, const char *key)
{
    struct gc_kmem_entry probe;

    if (!m || !m->sealed || m->n == 0)
        return NULL;
    memset(&probe, 0, sizeof(probe));
    memcpy(probe.key, key, sizeof(probe.key) - 1);
    return bsearch(&probe, m->e, (size_t)m->n, sizeof(*m->e), by_key);
}

int gc__kmem_unused(const struct gc_kmem *m)
{
    int n = 0;

    for (int i = 0; i < m->n; i++)
        n += !m->e[i].used;
    return n;
}

void gc__kmem_drop_progs(struct gc_kmem *m, void (*unload)(struct gc_prog *))
{
    for (int i = 0; i < m->n; i++) {
        if (m->e[i].prog)
            unload(m->e[i].prog);
        m->e[i].prog = NULL;
    }
}

void gc__kmem_clear(struct gc_kmem *m)
{
    for (int i = 0; i < m->n; i++) {
        free(m->e[i].bin);
        free(m->e[i].log);
    }
    free(m->e);
    memset(m, 0, sizeof(*m));
}
