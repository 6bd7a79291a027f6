/* Compiled-kernel cache and parallel compilation. A program's binary is
 * stored under a 128-bit hash of everything that can change it (tool version,
 * backend, device, compiler version, options, source); kernels missing from
 * the cache compile on a pool of threads. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/kcache.h"
#include "core/kclaim.h"
#include "core/kentry.h"
#include "core/kmem.h"
#include "core/kpool.h"
#include "core/sensors.h"
#include "kgen/kgen.h"

struct gc_kcache {
    char dir[1024];
    bool disabled;
    pthread_mutex_t lock;     /* guards the two fields below */
    int rejected;             /* invalid entries found (and compiled again) */
    char last_rejected[1700]; /* the last one's path and what was wrong */
    struct gc_kmem mem;       /* the run's planned programs (core/kmem.h) */
};

static int mkdir_p(const char *path)
{
    char tmp[1024];

    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

int gc__kcache_open(const char *dir, bool disabled, struct gc_kcache **out)
{
    struct gc_kcache *c = calloc(1, sizeof(*c));
    const char *env;

    *out = NULL;
    if (!c)
        return GC_ENOMEM;
    c->disabled = disabled;
    pthread_mutex_init(&c->lock, NULL);
    if (dir && *dir)
        snprintf(c->dir, sizeof(c->dir), "%s", dir);
    else if ((env = getenv("GPUCHAR_CACHE_DIR")) && *env)
        snprintf(c->dir, sizeof(c->dir), "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        snprintf(c->dir, sizeof(c->dir), "%s/gpuchar", env);
    else if ((env = getenv("HOME")) && *env)
        snprintf(c->dir, sizeof(c->dir), "%s/.cache/gpuchar", env);
    else
        c->disabled = true;
    /* A cache that cannot be created only costs time: compile without it. */
    if (!c->disabled && mkdir_p(c->dir) != 0)
        c->disabled = true;
    *out = c;
    return 0;
}

void gc__kcache_close(struct gc_kcache *c)
{
    if (!c)
        return;
    gc__kmem_clear(&c->mem);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

int gc__kcache_rejected(struct gc_kcache *c, char *last, size_t len)
{
    int n;

    pthread_mutex_lock(&c->lock);
    n = c->rejected;
    if (last && len)
        snprintf(last, len, "%s", c->last_rejected);
    pthread_mutex_unlock(&c->lock);
    return n;
}

const char *gc__kcache_dir(const struct gc_kcache *c)
{
    return c->disabled ? "" : c->dir;
}

/* Two independent 64-bit FNV-1a streams over the fields, separated by a
 * byte that cannot occur in them so that field boundaries matter. */
struct hash128 {
    uint64_t a, b;
};

static void hash_bytes(struct hash128 *h, const void *p, size_t n)
{
    const unsigned char *s = p;

    for (size_t i = 0; i < n; i++) {
        h->a = (h->a ^ s[i]) * 0x100000001b3ULL;
        h->b = (h->b ^ s[i]) * 0x100000001b3ULL;
        h->b ^= h->b >> 29;
    }
    h->a = (h->a ^ 0xff) * 0x100000001b3ULL;
    h->b = (h->b ^ 0xfe) * 0x100000001b3ULL;
}

static void hash_str(struct hash128 *h, const char *s)
{
    hash_bytes(h, s ? s : "", s ? strlen(s) : 0);
}

void gc__kcache_key(const struct gc_device_info *info, const char *backend, const char *src,
                    const char *options, char hex[33])
{
    struct hash128 h = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL};

    hash_str(&h, gc_version());
    hash_str(&h, backend);
    hash_str(&h, info->name);
    hash_str(&h, info->arch);
    hash_str(&h, info->driver);
    hash_str(&h, info->compiler);
    hash_str(&h, options);
    hash_str(&h, src);
    snprintf(hex, 33, "%016llx%016llx", (unsigned long long)h.a, (unsigned long long)h.b);
}

static void cache_path(const struct gc_kcache *c, const char *key, char *path, size_t len)
{
    snprintf(path, len, "%s/%s.bin", c->dir, key);
}

static void note_rejected(struct gc_kcache *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void note_rejected(struct gc_kcache *c, const char *key, const char *fmt, ...)
{
    char why[512];
    va_list ap;

    if (!c)
        return;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&c->lock);
    c->rejected++;
    snprintf(c->last_rejected, sizeof(c->last_rejected), "%s/%s.bin: %s", c->dir, key, why);
    pthread_mutex_unlock(&c->lock);
}

/* A missing entry is a plain miss; an invalid one (truncated, written for
 * another key, foreign bytes, another format version) is counted and treated
 * as a miss too: the kernel is compiled again and the entry rewritten. */
static int cache_read_noting(struct gc_kcache *c, const char *key, void **bin, size_t *len,
                             bool note);

static int cache_read(struct gc_kcache *c, const char *key, void **bin, size_t *len)
{
    return cache_read_noting(c, key, bin, len, true);
}

/* cache_read that counts an invalid entry only when note is set: a second
 * look at an entry already counted must not count it again. */
static int cache_read_noting(struct gc_kcache *c, const char *key, void **bin, size_t *len,
                             bool note)
{
    char path[1200], why[400];
    int rc;

    *bin = NULL;
    if (!c || c->disabled)
        return -1;
    cache_path(c, key, path, sizeof(path));
    rc = gc__kentry_read(path, key, bin, len, why, sizeof(why));
    if (rc == GC_EINVAL && note)
        note_rejected(c, key, "%s", why);
    return rc == 0 ? 0 : -1;
}

static void cache_write(const struct gc_kcache *c, const char *key, const void *bin, size_t len)
{
    char path[1200];

    if (!c || c->disabled)
        return;
    cache_path(c, key, path, sizeof(path));
    /* A cache that cannot be written only costs time on the next run. */
    (void)gc__kentry_write(path, key, bin, len);
}

static void dump_source(struct gc_session *s, const struct gc_kreq *r)
{
    char path[1200];
    FILE *f;

    if (!s->dump_dir || mkdir_p(s->dump_dir) != 0)
        return;
    snprintf(path, sizeof(path), "%s/%s%s", s->dump_dir, r->label,
             gc__kgen_ext(s->dev->ops->dialect));
    f = fopen(path, "w");
    if (!f)
        return;
    fputs(r->src, f);
    fclose(f);
}

struct job {
    struct gc_session *s;
    struct gc_kreq *reqs;
    char (*keys)[33];
    void **bins;
    size_t *lens;
    int *todo;
    int ntodo, next;
    /* The workers load what they have (the backend's load is thread-safe). */
    bool load;
    int nthreads; /* compile threads wanted; 0: the backend's compile_threads */
    bool plan;    /* the run's plan: a stop request ends it early */
    /* The plan's compile workers (core/kpool.h), one per thread: the
     * threads take slots 0, 1, ... as they start; NULL none. */
    struct gc_kpool *pool;
    int slots;
    pthread_mutex_t lock;
};

/* CPU time, user and system, of this process and of its children that
 * ended (a compiler may run helper processes: PoCL its linker). */
static double process_cpu_s(void)
{
    struct rusage self, kids;
    double t = 0;

    if (getrusage(RUSAGE_SELF, &self) == 0)
        t += (double)self.ru_utime.tv_sec + 1e-6 * (double)self.ru_utime.tv_usec +
             (double)self.ru_stime.tv_sec + 1e-6 * (double)self.ru_stime.tv_usec;
    if (getrusage(RUSAGE_CHILDREN, &kids) == 0)
        t += (double)kids.ru_utime.tv_sec + 1e-6 * (double)kids.ru_utime.tv_usec +
             (double)kids.ru_stime.tv_sec + 1e-6 * (double)kids.ru_stime.tv_usec;
    return t;
}

/* Compiles src for request t through the compile worker of slot where
 * there is one that works, else in this process. */
static void compile_src(struct job *j, int t, const char *src, int slot)
{
    struct gc_device *d = j->s->dev;
    struct gc_kreq *r = &j->reqs[t];
    char key[33];

    if (slot >= 0) {
        if (src == r->src)
            memcpy(key, j->keys[t], sizeof(key));
        else
            gc__kcache_key(&d->info, d->ops->name, src, r->options, key);
        r->by_worker = gc__kpool_compile(j->pool, slot, key, src, r->options, &j->bins[t],
                                         &j->lens[t], &r->log, &r->err);
        if (r->by_worker)
            return;
    }
    r->err = d->ops->compile(d->dev, src, r->options, &j->bins[t], &j->lens[t], &r->log);
}

/* Compiles request t (its source, or the source with the injected fault)
 * and writes the binary to the cache. share: take the binary another
 * device of the run compiles or compiled meanwhile, where there is one.
 * slot: the calling thread's compile worker, -1 none. */
static void compile_one(struct job *j, int t, bool share, int slot)
{
    struct gc_device *d = j->s->dev;
    struct gc_kreq *r = &j->reqs[t];
    const char *src = r->src;
    char *faulty = NULL;

    if (d->fault_compile) {
        size_t n = strlen(src);
        static const char bad[] = "\n#error injected compile fault (GPUCHAR_FAULT=compile)\n";
        faulty = malloc(n + sizeof(bad));
        if (faulty) {
            memcpy(faulty, src, n);
            memcpy(faulty + n, bad, sizeof(bad));
            src = faulty;
        }
    }
    /* Another device of this run may be compiling the same kernel: wait for
     * it and take its cache entry (an injected fault compiles regardless). */
    share = share && !faulty;
    while (share && !gc__kclaim_acquire(j->keys[t]))
        if (cache_read_noting(j->s->kcache, j->keys[t], &j->bins[t], &j->lens[t], false) == 0) {
            r->cached = true;
            return;
        }
    /* ... or may have written it since this request missed the cache. */
    if (share &&
        cache_read_noting(j->s->kcache, j->keys[t], &j->bins[t], &j->lens[t], false) == 0) {
        gc__kclaim_release(j->keys[t]);
        r->cached = true;
        return;
    }
    double t0 = gc__now();
    compile_src(j, t, src, slot);
    r->compile_s += gc__now() - t0;
    if (r->err == 0)
        cache_write(j->s->kcache, j->keys[t], j->bins[t], j->lens[t]);
    if (share)
        gc__kclaim_release(j->keys[t]);
    free(faulty);
}

/* Loads request t's binary. An intact cache entry that the loader refuses
 * (a driver update the key missed) is compiled again once and rewritten. */
static void load_one(struct job *j, int t)
{
    struct gc_device *d = j->s->dev;
    struct gc_kreq *r = &j->reqs[t];

    if (r->err != 0 || r->prog || !j->bins[t])
        return;
    double t0 = gc__now();
    r->err = d->ops->load(d->dev, j->bins[t], j->lens[t], &r->prog);
    r->load_s += gc__now() - t0;
    if (!r->err || !r->cached)
        return;
    note_rejected(j->s->kcache, j->keys[t], "the backend's loader refused it: %s",
                  d->ops->last_error(d->dev));
    free(j->bins[t]);
    j->bins[t] = NULL;
    r->cached = false;
    compile_one(j, t, false, -1);
    if (r->err == 0)
        r->err = d->ops->load(d->dev, j->bins[t], j->lens[t], &r->prog);
}

static void *compile_worker(void *arg)
{
    struct job *j = arg;
    int slot = -1;

    if (j->pool) {
        pthread_mutex_lock(&j->lock);
        slot = j->slots++;
        pthread_mutex_unlock(&j->lock);
    }
    for (;;) {
        pthread_mutex_lock(&j->lock);
        int t = j->next < j->ntodo ? j->todo[j->next++] : -1;
        pthread_mutex_unlock(&j->lock);
        if (j->plan && gc__stopped(j->s))
            break;
        if (t < 0)
            break;
        if (!j->reqs[t].cached)
            compile_one(j, t, true, slot);
        if (j->load)
            load_one(j, t);
    }
    return NULL;
}

#define MAX_COMPILE_THREADS 16

/* Works through the requests j->todo names on a few threads: the backend's
 * compile_threads (CUDA: two, since each concurrent NVRTC compilation holds
 * tens of MB of host memory at its peak, and on an H200 a cold default run
 * peaked at 601-615 MiB with four), else one per host core, at most 16. */
static void compile_todo(struct job *j)
{
    pthread_t threads[MAX_COMPILE_THREADS];
    int nthreads = 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nmax = j->nthreads > 0 ? j->nthreads : j->s->dev->ops->compile_threads;
    int want;

    if (nmax <= 0 || nmax > MAX_COMPILE_THREADS)
        nmax = ncpu > 0 && ncpu < MAX_COMPILE_THREADS ? (int)ncpu : MAX_COMPILE_THREADS;
    want = j->ntodo < nmax ? j->ntodo : nmax;
    /* A thread that drives a compile worker mostly waits for it. */
    if (ncpu > 0 && want > ncpu && !j->pool)
        want = (int)ncpu;
    /* One request (a warm run's benchmarks mostly load one or two cached
     * binaries) runs on this thread. */
    for (int i = 0; want > 1 && i < want; i++)
        if (pthread_create(&threads[nthreads], NULL, compile_worker, j) == 0)
            nthreads++;
    if (nthreads == 0)
        compile_worker(j);
    for (int i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    j->nthreads = nthreads > 0 ? nthreads : 1;
    /* The compilers' freed memory stays in the workers' malloc arenas
     * (tens of MB) unless it is handed back; a batch that only loaded
     * cached binaries compiled nothing to hand back. Not under
     * AddressSanitizer, whose allocator owns no glibc arenas to trim
     * (trimming from two devices' threads at once faults there). */
#ifndef __SANITIZE_ADDRESS__
    for (int i = 0; i < j->ntodo; i++)
        if (!j->reqs[j->todo[i]].cached) {
            malloc_trim(0);
            break;
        }
#endif
}

/* Request i of a plan's batch, taken from the programs the plan built: its
 * loaded program, a copy of its binary (loaded like a cached one), or its
 * compilation's error and log. False when the plan has no such program. */
static bool take_planned(struct job *j, int i)
{
    struct gc_kcache *c = j->s->kcache;
    struct gc_kmem_entry *e = c ? gc__kmem_find(&c->mem, j->keys[i]) : NULL;
    struct gc_kreq *r = &j->reqs[i];

    if (!e)
        return false;
    if (e->err) {
        r->err = e->err;
        r->log = e->log ? strdup(e->log) : NULL;
    } else if (e->prog) {
        r->prog = e->prog;
        e->prog = NULL;
    } else {
        j->bins[i] = malloc(e->len);
        if (!j->bins[i])
            return false;
        memcpy(j->bins[i], e->bin, e->len);
        j->lens[i] = e->len;
        r->cached = true;
        if (j->load)
            j->todo[j->ntodo++] = i;
    }
    e->used = true;
    r->planned = true;
    r->plan_compile_s = e->compile_s;
    return true;
}

/* Request i's outputs cleared, its key, and its binary from the disk cache
 * where it is there. */
static void prepare_one(struct job *j, int i)
{
    struct gc_session *s = j->s;
    struct gc_device *d = s->dev;
    struct gc_kreq *r = &j->reqs[i];

    r->prog = NULL;
    r->log = NULL;
    r->err = 0;
    r->cached = r->planned = r->by_worker = false;
    r->compile_s = r->plan_compile_s = r->load_s = 0;
    gc__kcache_key(&d->info, d->ops->name, r->src, r->options, j->keys[i]);
}

/* Each request's key, its program from the run's plan or its binary from
 * the disk cache where it is there, and the list of those the workers must
 * take: the misses, or every request when the workers also load. */
static void plan_requests(struct job *j, int n)
{
    struct gc_session *s = j->s;

    for (int i = 0; i < n; i++) {
        struct gc_kreq *r = &j->reqs[i];

        prepare_one(j, i);
        dump_source(s, r);
        if (take_planned(j, i))
            continue;
        if (!s->dev->fault_compile &&
            cache_read(s->kcache, j->keys[i], &j->bins[i], &j->lens[i]) == 0)
            r->cached = true;
        if (!r->cached || j->load)
            j->todo[j->ntodo++] = i;
    }
}

static int job_alloc(struct job *j, int n)
{
    j->keys = calloc((size_t)n, sizeof(*j->keys));
    j->bins = calloc((size_t)n, sizeof(*j->bins));
    j->lens = calloc((size_t)n, sizeof(*j->lens));
    j->todo = calloc((size_t)n, sizeof(*j->todo));
    return j->keys && j->bins && j->lens && j->todo ? 0 : GC_ENOMEM;
}

static void job_free(struct job *j, int n)
{
    if (j->bins)
        for (int i = 0; i < n; i++)
            free(j->bins[i]);
    free(j->bins);
    free(j->lens);
    free(j->keys);
    free(j->todo);
}

/* Counts request r of a build in the session's per-benchmark accounting. */
static void account(struct gc_session *s, const struct gc_kreq *r)
{
    if (r->planned) {
        s->kernels_planned++;
        s->plan_compile_s += r->plan_compile_s;
    } else if (r->cached) {
        s->kernels_cached++;
    } else {
        s->kernels_compiled++;
    }
}

int gc__kcache_build(struct gc_session *s, struct gc_kreq *reqs, int n)
{
    struct gc_device *d = s->dev;
    struct job j = {.s = s, .reqs = reqs, .load = d->ops->load_threadsafe};
    int rc = 0;
    double t0 = gc__now();

    if (job_alloc(&j, n)) {
        rc = GC_ENOMEM;
        snprintf(d->err, sizeof(d->err), "out of host memory compiling kernels");
        goto out;
    }
    pthread_mutex_init(&j.lock, NULL);
    plan_requests(&j, n);
    if (j.ntodo > 0)
        compile_todo(&j);
    pthread_mutex_destroy(&j.lock);
    s->compile_s += gc__now() - t0;
    for (int i = 0; i < n; i++) {
        struct gc_kreq *r = &reqs[i];

        if (!j.load)
            load_one(&j, i);
        if (r->err == 0) {
            account(s, r);
            continue;
        }
        if (rc == 0) {
            rc = r->err;
            if (r->err == GC_ECOMPILE)
                snprintf(d->err, sizeof(d->err), "compiling kernel '%s' failed:\n%.3500s", r->label,
                         r->log ? r->log : "(no compiler output)");
            else
                snprintf(d->err, sizeof(d->err), "building kernel '%s' failed: %s", r->label,
                         d->ops->last_error(d->dev));
        }
    }
out:
    job_free(&j, n);
    return rc;
}

/* ---- the run's compile plan ---------------------------------------------- */

/* Whether request i's key is one of an earlier request's. */
static bool duplicate(const struct job *j, int i)
{
    for (int k = 0; k < i; k++)
        if (strcmp(j->keys[k], j->keys[i]) == 0)
            return true;
    return false;
}

/* Moves request i's outcome into the cache's memory: its binary and loaded
 * program, or its compilation's failure. Other failures (a load the
 * backend refused, no memory) are not kept: the benchmark's own request
 * meets them again and reports them. */
static void keep_planned(struct job *j, int i, struct gc_kplan_stats *st)
{
    struct gc_kcache *c = j->s->kcache;
    struct gc_kreq *r = &j->reqs[i];
    int rc;

    if (r->err == GC_ECOMPILE) {
        st->failed++;
        if (gc__kmem_add(&c->mem, j->keys[i], NULL, 0, NULL, r->err, r->log, r->compile_s) == 0)
            r->log = NULL;
        return;
    }
    if (r->err != 0 || !j->bins[i])
        return;
    if (r->cached)
        st->cached++;
    else
        st->compiled++;
    rc = gc__kmem_add(&c->mem, j->keys[i], j->bins[i], j->lens[i], r->prog, 0, NULL, r->compile_s);
    if (rc == 0) {
        j->bins[i] = NULL;
        r->prog = NULL;
    }
}

/* The plan's compile workers for the programs the disk cache does not
 * have (core/kpool.h): then one plan thread per worker. */
static void plan_pool(struct job *j, struct gc_kplan_stats *st)
{
    int misses = 0, n;

    for (int k = 0; k < j->ntodo; k++)
        misses += !j->reqs[j->todo[k]].cached;
    n = gc__kpool_size(j->s->dev, misses, st->worker_note, sizeof(st->worker_note));
    if (n > 0 && gc__kpool_create(j->s->dev, n, &j->pool) == 0)
        j->nthreads = n;
}

/* Ends the plan's compile workers (before the CPU time is read: a child's
 * time counts once it has been waited for) and records what they did. */
static void plan_pool_end(struct job *j, struct gc_kplan_stats *st)
{
    struct gc_kpool_stats ps;

    if (!j->pool)
        return;
    gc__kpool_finish(j->pool, &ps);
    j->pool = NULL;
    st->workers = ps.workers;
    st->workers_failed = ps.failed;
    st->worker_cpu_s = ps.cpu_s;
    if (ps.note[0])
        snprintf(st->worker_note, sizeof(st->worker_note), "%s", ps.note);
}

/* A program to compile and its source's length, for longest_first. */
struct todo_len {
    size_t len;
    int i;
};

static int cmp_todo_len(const void *a, const void *b)
{
    const struct todo_len *x = a, *y = b;

    if (x->len != y->len)
        return x->len < y->len ? 1 : -1;
    return x->i - y->i;
}

/* Orders the plan's list so that the programs to compile come first,
 * longest source first, and the cached ones after them: the threads take
 * from the front, so the longest compilations start early and the plan
 * does not end waiting for one that began last. A source's length stands
 * for its compile time. Left as it is when the copy cannot be made. */
static void longest_first(struct job *j)
{
    struct todo_len *v = malloc((size_t)(j->ntodo > 0 ? j->ntodo : 1) * sizeof(*v));

    if (!v)
        return;
    for (int k = 0; k < j->ntodo; k++) {
        const struct gc_kreq *r = &j->reqs[j->todo[k]];
        v[k] = (struct todo_len){r->cached ? 0 : strlen(r->src ? r->src : "") + 1, j->todo[k]};
    }
    qsort(v, (size_t)j->ntodo, sizeof(*v), cmp_todo_len);
    for (int k = 0; k < j->ntodo; k++)
        j->todo[k] = v[k].i;
    free(v);
}

int gc__kcache_plan(struct gc_session *s, struct gc_kreq *reqs, int n, int threads,
                    struct gc_kplan_stats *st)
{
    struct gc_device *d = s->dev;
    struct job j = {
        .s = s, .reqs = reqs, .load = d->ops->load_threadsafe, .nthreads = threads, .plan = true};
    bool *dup = calloc((size_t)(n > 0 ? n : 1), sizeof(*dup));
    double t0 = gc__now(), c0 = process_cpu_s();
    int rc = 0;

    memset(st, 0, sizeof(*st));
    if (!s->kcache || s->kcache->mem.sealed)
        goto out;
    if (!dup || job_alloc(&j, n)) {
        rc = GC_ENOMEM;
        goto out;
    }
    pthread_mutex_init(&j.lock, NULL);
    for (int i = 0; i < n; i++) {
        prepare_one(&j, i);
        if ((dup[i] = duplicate(&j, i)))
            continue;
        st->kernels++;
        if (!d->fault_compile && cache_read(s->kcache, j.keys[i], &j.bins[i], &j.lens[i]) == 0)
            reqs[i].cached = true;
        j.todo[j.ntodo++] = i;
    }
    if (j.ntodo > 0) {
        longest_first(&j);
        plan_pool(&j, st);
        compile_todo(&j);
        plan_pool_end(&j, st);
    }
    pthread_mutex_destroy(&j.lock);
    st->threads = j.ntodo > 0 ? j.nthreads : 0;
    for (int i = 0; i < n; i++) {
        if (dup[i])
            continue;
        st->compile_s += reqs[i].compile_s;
        st->load_s += reqs[i].load_s;
        st->worker_compiled += reqs[i].by_worker;
        keep_planned(&j, i, st);
    }
    gc__kmem_seal(&s->kcache->mem);
out:
    st->wall_s = gc__now() - t0;
    st->cpu_s = process_cpu_s() - c0;
    free(dup);
    job_free(&j, n);
    return rc;
}

int gc__kcache_plan_unused(struct gc_kcache *c)
{
    return c ? gc__kmem_unused(&c->mem) : 0;
}

void gc__kcache_plan_drop(struct gc_session *s)
{
    if (s->kcache)
        gc__kmem_drop_progs(&s->kcache->mem, s->dev->ops->unload);
}

void gc__kreq_release(struct gc_session *s, struct gc_kreq *reqs, int n)
{
    for (int i = 0; i < n; i++) {
        if (reqs[i].prog)
            s->dev->ops->unload(reqs[i].prog);
        reqs[i].prog = NULL;
        free(reqs[i].log);
        reqs[i].log = NULL;
        free((char *)reqs[i].src);
        reqs[i].src = NULL;
    }
}
