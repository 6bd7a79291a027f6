#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/devfill.h"
#include "core/harness.h"
#include "core/kcache.h"
#include "core/memo.h"
#include "core/results.h"
#include "nullfx.h"

struct nullfx fx;

void nullfx_open(struct nullfx *f, const struct gc_null_config *cfg, uint64_t seed)
{
    char why[256], err[256];

    memset(f, 0, sizeof(*f));
    gc__null_configure(cfg);
    assert_int_equal(gc__null_ops.init(why, sizeof(why)), 0);
    assert_int_equal(gc__device_open(&gc__null_ops, 0, &f->dev, err, sizeof(err)), 0);
    f->s.dev = f->dev;
    f->s.stop = &f->stop;
    f->s.profile = GC_PROFILE_DEFAULT;
    f->s.seed = seed;
    gc__sampling_defaults(&f->s.run_sampling, GC_PROFILE_DEFAULT, true, 0, 0);
    f->s.run_sampling.target_sample_s = 1e-3;
    f->s.sampling = f->s.run_sampling;
    assert_int_equal(gc__kcache_open(NULL, true, &f->s.kcache), 0);
    f->res = gc__results_new();
    assert_non_null(f->res);
}

void nullfx_close(struct nullfx *f)
{
    gc__devfill_free(&f->s);
    gc__memo_free(&f->s);
    gc__kcache_close(f->s.kcache);
    gc_results_free(f->res);
    gc__device_close(f->dev);
    if (gc__null_ops.fini)
        gc__null_ops.fini();
    gc__null_configure(NULL);
}

void nullfx_no_verify(struct gc_harness *h)
{
    /* The description is the run's own (h->d points into it). */
    ((struct gc_hdesc *)(uintptr_t)h->d)->verify = NULL;
}

int nullfx_distinct_sources(const struct gc_harness *h)
{
    int n = 0;

    for (int i = 0; i < h->ncfg; i++) {
        bool seen = false;

        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(h->cfg[i].src, h->cfg[j].src) == 0;
        n += !seen;
    }
    return n;
}

const struct gc_hconf *nullfx_by_label(const struct gc_harness *h, const char *label)
{
    for (int k = 0; k < h->ncfg; k++)
        if (strcmp(h->cfg[k].label, label) == 0)
            return &h->cfg[k];
    return NULL;
}

int nullfx_teardown(void **state)
{
    (void)state;
    nullfx_close(&fx);
    return 0;
}

const struct gc_metric *nullfx_metric(const struct gc_bench_result *b, const char *name)
{
    const struct gc_metric *m = gc__bench_find_metric(b, name);

    assert_non_null(m);
    return m;
}

void nullfx_rejects(const struct gc_hbench *b, const char *bench, const char *error)
{
    struct gc_bench_result *r = gc__results_add_bench(fx.res, bench, "memory");
    struct gc_harness h;

    memset(&h, 0, sizeof(h));
    assert_int_equal(b->plan(&fx.s, r, &h), 0);
    assert_int_equal(gc__harness_run(&h), GC_EVERIFY);
    assert_int_equal(r->status, GC_BENCH_ERROR);
    assert_non_null(strstr(r->error, error));
    assert_int_equal(h.best, -1);
    b->release(&fx.s, &h);
}

void nullfx_run_all(const struct gc_hbench *b, struct gc_bench_result *r, struct gc_harness *h,
                    const char *bench)
{
    memset(h, 0, sizeof(*h));
    assert_int_equal(b->plan(&fx.s, r, h), 0);
    nullfx_no_verify(h);
    assert_int_equal(gc__harness_run(h), 0);
    assert_int_equal(b->derive(&fx.s, h, bench), 0);
    assert_false(h->screen);
    assert_int_equal(h->refined, h->ncfg);
}
