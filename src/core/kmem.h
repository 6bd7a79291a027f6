/* The in-memory layer of the compiled-kernel cache: the kernels a run's
 * compile plan built before measuring, by cache key, each with its binary,
 * the program already loaded where the backend loads on any thread, or the
 * compiler's failure. A benchmark's later request for the same key takes it
 * from here instead of compiling. */
#ifndef GC_CORE_KMEM_H
#define GC_CORE_KMEM_H

#include <stdbool.h>
#include <stddef.h>

struct gc_prog;

struct gc_kmem_entry {
    char key[33];
    void *bin; /* malloc'ed; NULL for a failed compilation */
    size_t len;
    struct gc_prog *prog; /* loaded program not yet handed out; NULL none */
    int err;              /* the compilation's error (GC_ECOMPILE), 0 when it built */
    char *log;            /* its compiler output (malloc'ed), may be NULL */
    double compile_s;     /* host seconds its compilation took (0: from the disk cache) */
    bool used;            /* a benchmark asked for it */
};

struct gc_kmem {
    struct gc_kmem_entry *e; /* sorted by key once sealed */
    int n, cap;
    bool sealed;
};

/* Adds an entry, taking bin, prog and log. Returns 0 or GC_ENOMEM (the
 * caller still owns them then). */
int gc__kmem_add(struct gc_kmem *m, const char *key, void *bin, size_t len, struct gc_prog *prog,
                 int err, char *log, double compile_s);
/* Sorts the entries for lookups; no entry is added afterwards. */
void gc__kmem_seal(struct gc_kmem *m);
/* The entry of key, or NULL (also before sealing). */
struct gc_kmem_entry *gc__kmem_find(struct gc_kmem *m, const char *key);
/* Entries no benchmark asked for. */
int gc__kmem_unused(const struct gc_kmem *m);
/* Unloads the programs not handed out (through unload), keeping the
 * binaries: before the device they were loaded on closes. */
void gc__kmem_drop_progs(struct gc_kmem *m, void (*unload)(struct gc_prog *));
/* Frees every entry; the programs must have been dropped. */
void gc__kmem_clear(struct gc_kmem *m);

#endif
