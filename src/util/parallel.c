/* gc__parallel_for (see parallel.h). */
#include <pthread.h>
#include <unistd.h>

#include "util/parallel.h"

#define GC_PAR_MAX 16

struct par_job {
    void (*fn)(void *ctx, size_t lo, size_t hi);
    void *ctx;
    size_t lo, hi;
};

static void *par_main(void *arg)
{
    struct par_job *j = arg;

    j->fn(j->ctx, j->lo, j->hi);
    return NULL;
}

void gc__parallel_for(size_t n, size_t min_chunk, void (*fn)(void *ctx, size_t lo, size_t hi),
                      void *ctx)
{
    struct par_job jobs[GC_PAR_MAX];
    pthread_t tid[GC_PAR_MAX];
    int started[GC_PAR_MAX] = {0};
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
    for (size_t i = 1; i < nt; i++)
        started[i] = pthread_create(&tid[i], NULL, par_main, &jobs[i]) == 0;
    fn(ctx, jobs[0].lo, jobs[0].hi);
    for (size_t i = 1; i < nt; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else
            fn(ctx, jobs[i].lo, jobs[i].hi);
    }
}
