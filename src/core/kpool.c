/* The compile plan's workers (see kpool.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/device.h"
#include "core/kpool.h"
#include "core/kworker.h"

struct slot {
    struct gc_kworker w;
    bool started;
    char why[700]; /* how it failed */
};

struct gc_kpool {
    struct gc_device *d;
    int n;
    struct slot *s;
};

/* GPUCHAR_COMPILE_WORKERS as a count, -1 when unset; -2 when invalid. */
static int env_count(void)
{
    const char *v = getenv(GC_KPOOL_ENV);
    char *end;
    long n;

    if (!v || !*v)
        return -1;
    if (!isdigit((unsigned char)v[0]))
        return -2;
    n = strtol(v, &end, 10);
    return *end || n > GC_KPOOL_MAX ? -2 : (int)n;
}

int gc__kpool_size(struct gc_device *d, int todo, char *note, size_t len)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int n = env_count();

    note[0] = '\0';
    if (n == -2) {
        snprintf(note, len, GC_KPOOL_ENV " is not a count from 0 to %d: ignored", GC_KPOOL_MAX);
        n = -1;
    }
    if (n < 0) {
        bool procs = d->ops->compile_in_processes && d->ops->compile_in_processes(d->dev);

        n = !procs ? 0 : ncpu < 1 ? 1 : ncpu > GC_KPOOL_MAX ? GC_KPOOL_MAX : (int)ncpu;
    }
    if (n > 0 && !gc__kworker_offered()) {
        snprintf(note, len,
                 "no compile workers: this program does not offer the worker entry "
                 "(a program using the library); compiled on threads");
        return 0;
    }
    return n < todo ? n : todo;
}

int gc__kpool_create(struct gc_device *d, int n, struct gc_kpool **out)
{
    struct gc_kpool *p = calloc(1, sizeof(*p));

    *out = NULL;
    if (!p || !(p->s = calloc((size_t)n, sizeof(*p->s)))) {
        free(p);
        return GC_ENOMEM;
    }
    p->d = d;
    p->n = n;
    *out = p;
    return 0;
}

bool gc__kpool_compile(struct gc_kpool *p, int slot, const char *key, const char *src,
                       const char *options, void **bin, size_t *len, char **log, int *err)
{
    struct slot *s;
    struct gc_kworker_out o;

    if (!p || slot < 0 || slot >= p->n)
        return false;
    s = &p->s[slot];
    if (!s->started) {
        s->started = true;
        if (gc__kworker_start(p->d->ops->name, p->d->index, p->d->info.pci_bus_id, &s->w, s->why,
                              sizeof(s->why)) != 0)
            return false;
    }
    if (s->w.dead)
        return false;
    if (gc__kworker_compile(&s->w, key, src, options, &o, s->why, sizeof(s->why)) != 0)
        return false;
    *bin = o.bin;
    *len = o.len;
    *log = o.log;
    *err = o.err;
    return true;
}

void gc__kpool_finish(struct gc_kpool *p, struct gc_kpool_stats *st)
{
    memset(st, 0, sizeof(*st));
    if (!p)
        return;
    for (int i = 0; i < p->n; i++) {
        struct slot *s = &p->s[i];
        char why[200];
        double cpu = 0;
        bool failed;

        if (!s->started)
            continue;
        failed = s->w.dead;
        st->workers += s->w.pid > 0;
        if (gc__kworker_stop(&s->w, &cpu, why, sizeof(why)) != 0 && !failed) {
            failed = true;
            snprintf(s->why, sizeof(s->why), "%s", why);
        } else if (failed && why[0]) {
            size_t u = strlen(s->why);
            snprintf(s->why + u, sizeof(s->why) - u, " (%s)", why);
        }
        st->cpu_s += cpu;
        if (failed && st->failed++ == 0)
            snprintf(st->note, sizeof(st->note),
                     "compile worker %d failed after %d program%s: %s; the rest of its share "
                     "compiled in the process",
                     i + 1, s->w.compiled, s->w.compiled == 1 ? "" : "s", s->why);
    }
    free(p->s);
    free(p);
}
