/* The run's compile plan (see kplan.h). Thread count: one per host core (at
 * most 16) for every backend, the per-benchmark builds' limit (NVRTC's
 * memory) notwithstanding: the plan is a few seconds of the run, and the
 * compilers' freed memory is handed back when it ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/devfill.h"
#include "core/kcache.h"
#include "core/kplan.h"

#define PLAN_MAX_THREADS 16

/* The kernels the benchmarks declare, gathered in one array. */
struct plan_set {
    struct gc_ksrc *k;
    int n, cap;
    int benches;
};

static int append(struct plan_set *p, struct gc_ksrc *k, int n)
{
    if (p->n + n > p->cap) {
        int cap = p->cap ? p->cap : 256;
        struct gc_ksrc *nk;

        while (cap < p->n + n)
            cap *= 2;
        nk = realloc(p->k, (size_t)cap * sizeof(*nk));
        if (!nk)
            return GC_ENOMEM;
        p->k = nk;
        p->cap = cap;
    }
    memcpy(p->k + p->n, k, (size_t)n * sizeof(*k));
    p->n += n;
    return 0;
}

/* The benchmarks' kernels, and the fill and check program they share
 * (core/devfill.h), which the first of them to fill a buffer builds. */
static int gather(struct gc_session *s, const struct gc_bench *const *benches, int n,
                  struct plan_set *p)
{
    struct gc_ksrc fill = {.label = "gc_fill"};

    if (n > 0 && (fill.src = gc__devfill_source(s)) && append(p, &fill, 1) != 0) {
        free(fill.src);
        return GC_ENOMEM;
    }
    for (int i = 0; i < n; i++) {
        struct gc_ksrc *k = NULL;
        int nk = 0;

        if (!benches[i]->plan || benches[i]->plan(s, benches[i], &k, &nk) != 0)
            continue;
        if (nk > 0 && append(p, k, nk) != 0) {
            gc__ksrc_free(k, nk);
            return GC_ENOMEM;
        }
        free(k); /* the entries moved into p */
        p->benches += nk > 0;
    }
    return 0;
}

static int plan_threads(void)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

    return ncpu < 1 ? 1 : ncpu > PLAN_MAX_THREADS ? PLAN_MAX_THREADS : (int)ncpu;
}

int gc__kplan_make(struct gc_session *s, const struct gc_bench *const *benches, int n,
                   struct gc_plan_info *out)
{
    struct plan_set p = {0};
    struct gc_kplan_stats st;
    struct gc_kreq *reqs = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    out->made = true;
    rc = gather(s, benches, n, &p);
    if (rc == 0 && p.n > 0 && !(reqs = calloc((size_t)p.n, sizeof(*reqs))))
        rc = GC_ENOMEM;
    if (rc == 0 && p.n > 0) {
        for (int i = 0; i < p.n; i++) {
            reqs[i].label = p.k[i].label;
            reqs[i].src = p.k[i].src; /* moves: released with the requests */
            reqs[i].options = p.k[i].options[0] ? p.k[i].options : NULL;
            p.k[i].src = NULL;
        }
        rc = gc__kcache_plan(s, reqs, p.n, plan_threads(), &st);
        gc__kreq_release(s, reqs, p.n);
        out->kernels = st.kernels;
        out->compiled = st.compiled;
        out->cached = st.cached;
        out->failed = st.failed;
        out->threads = st.threads;
        out->wall_s = st.wall_s;
        out->compile_s = st.compile_s;
        out->cpu_s = st.cpu_s;
        out->load_s = st.load_s;
        out->workers = st.workers;
        out->worker_compiled = st.worker_compiled;
        out->workers_failed = st.workers_failed;
        out->worker_cpu_s = st.worker_cpu_s;
        snprintf(out->worker_note, sizeof(out->worker_note), "%s", st.worker_note);
    }
    out->benches = p.benches;
    free(reqs);
    gc__ksrc_free(p.k, p.n);
    return rc;
}

void gc__kplan_finish(struct gc_session *s, const struct gc_results *r, struct gc_plan_info *p)
{
    size_t off = 0, len = sizeof(p->on_demand);

    p->on_demand[0] = '\0';
    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_bench_result *b = &r->benches[i];
        int w;

        if (b->kernels_compiled + b->kernels_cached == 0)
            continue;
        w = snprintf(p->on_demand + off, len - off, "%s%s", off ? ", " : "", b->name);
        if (w < 0 || (size_t)w >= len - off) {
            snprintf(p->on_demand + (off < len - 4 ? off : len - 4), 4, "...");
            break;
        }
        off += (size_t)w;
    }
    if (p->made)
        p->unused = gc__kcache_plan_unused(s->kcache);
}
