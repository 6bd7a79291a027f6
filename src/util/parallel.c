/* gc__parallel_for (see parallel.h) on a pool of threads kept for the
 * process's life: a run calls it thousands of times (every full check of a
 * launch, every host model), and starting and joining up to 15 threads per
 * call cost about half a millisecond each time. One caller at a time has
 * the pool; a concurrent one (another device's measuring thread, or a chunk
 * that itself splits its range) starts threads of its own for the call. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "util/parallel.h"

#define GC_PAR_MAX 16

struct par_job {
    void (*fn)(void *ctx, size_t lo, size_t hi);
    void *ctx;
    size_t lo, hi;
};

static struct {
    pthread_mutex_t use;  /* held by the caller that has the pool */
    pthread_mutex_t lock; /* guards the fields below */
    pthread_cond_t go, done;
    unsigned long gen;               /* the call being served, counted */
    unsigned long born[GC_PAR_MAX];  /* gen when worker i was started */
    struct par_job jobs[GC_PAR_MAX]; /* job i for worker i; 0 is the caller's */
    size_t njobs, pending, nworkers; /* workers 1 .. nworkers run */
} pool = {
    .use = PTHREAD_MUTEX_INITIALIZER,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .go = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
};

static void *worker_main(void *arg)
{
    size_t me = (size_t)(uintptr_t)arg;

    pthread_mutex_lock(&pool.lock);
    for (unsigned long seen = pool.born[me];;) {
        while (pool.gen == seen)
            pthread_cond_wait(&pool.go, &pool.lock);
        seen = pool.gen;
        if (me >= pool.njobs)
            continue;
        struct par_job j = pool.jobs[me];
        pthread_mutex_unlock(&pool.lock);
        j.fn(j.ctx, j.lo, j.hi);
        pthread_mutex_lock(&pool.lock);
        if (--pool.pending == 0)
            pthread_cond_signal(&pool.done);
    }
    return NULL;
}

static void *par_main(void *arg)
{
    struct par_job *j = arg;

    j->fn(j->ctx, j->lo, j->hi);
    return NULL;
}

/* The call on threads of its own, joined before it returns. */
static void spawned(const struct par_job *jobs, size_t nt)
{
    pthread_t tid[GC_PAR_MAX];
    int started[GC_PAR_MAX] = {0};

    for (size_t i = 1; i < nt; i++)
        started[i] = pthread_create(&tid[i], NULL, par_main, (void *)&jobs[i]) == 0;
    jobs[0].fn(jobs[0].ctx, jobs[0].lo, jobs[0].hi);
    for (size_t i = 1; i < nt; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else
            jobs[i].fn(jobs[i].ctx, jobs[i].lo, jobs[i].hi);
    }
}

/* The call on the pool (its caller holds pool.use): workers started up to
 * nt - 1 where missing; a job without a worker runs on the caller. */
static void pooled(const struct par_job *jobs, size_t nt)
{
    pthread_mutex_lock(&pool.lock);
    while (pool.nworkers < nt - 1) {
        size_t i = pool.nworkers + 1;
        pthread_t t;

        pool.born[i] = pool.gen;
        if (pthread_create(&t, NULL, worker_main, (void *)(uintptr_t)i) != 0)
            break;
        pthread_detach(t);
        pool.nworkers = i;
    }
    size_t served = pool.nworkers < nt - 1 ? pool.nworkers + 1 : nt;
    for (size_t i = 0; i < nt; i++)
        pool.jobs[i] = jobs[i];
    pool.njobs = served;
    pool.pending = served - 1;
    pool.gen++;
    pthread_cond_broadcast(&pool.go);
    pthread_mutex_unlock(&pool.lock);
    jobs[0].fn(jobs[0].ctx, jobs[0].lo, jobs[0].hi);
    for (size_t i = served; i < nt; i++)
        jobs[i].fn(jobs[i].ctx, jobs[i].lo, jobs[i].hi);
    pthread_mutex_lock(&pool.lock);
    while (pool.pending > 0)
        pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
}

void gc__parallel_for(size_t n, size_t min_chunk, void (*fn)(void *ctx, size_t lo, size_t hi),
                      void *ctx)
{
    struct par_job jobs[GC_PAR_MAX];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = cpus > 1 ? (size_t)cpus : 1;

    if (min_chunk < 1)
        min_chunk = 1;
    if (nt > GC_PAR_MAX)
        nt = GC_PAR_MAX;
    if (nt > n / min_chunk)
        nt = n / min_chunk;
    if (nt <= 1) {
        if (n)
            fn(ctx, 0, n);
        return;
    }
    for (size_t i = 0; i < nt; i++)
        jobs[i] = (struct par_job){fn, ctx, n * i / nt, n * (i + 1) / nt};
    if (pthread_mutex_trylock(&pool.use) != 0) {
        spawned(jobs, nt);
        return;
    }
    pooled(jobs, nt);
    pthread_mutex_unlock(&pool.use);
}

struct first_job {
    bool (*bad)(void *ctx, size_t i);
    void *ctx;
    _Atomic size_t first;
};

static void first_range(void *u, size_t lo, size_t hi)
{
    struct first_job *j = u;

    for (size_t i = lo; i < hi && i < atomic_load_explicit(&j->first, memory_order_relaxed); i++) {
        if (!j->bad(j->ctx, i))
            continue;
        size_t cur = atomic_load(&j->first);
        while (i < cur && !atomic_compare_exchange_weak(&j->first, &cur, i))
            ;
        return;
    }
}

size_t gc__parallel_first(size_t n, size_t min_chunk, bool (*bad)(void *ctx, size_t i), void *ctx)
{
    struct first_job j = {bad, ctx, SIZE_MAX};

    gc__parallel_for(n, min_chunk, first_range, &j);
    return atomic_load(&j.first);
}
