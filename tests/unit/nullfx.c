#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/bestcfg.h"
#include "core/devfill.h"
#include "core/kcache.h"
#include "core/results.h"
#include "nullfx.h"

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
    gc__measure_cfg_defaults(&f->s.mcfg, GC_PROFILE_DEFAULT, true, 0, 0);
    f->s.mcfg.target_sample_s = 1e-3;
    assert_int_equal(gc__kcache_open(NULL, true, &f->s.kcache), 0);
    f->res = gc__results_new();
    assert_non_null(f->res);
}

void nullfx_close(struct nullfx *f)
{
    gc__devfill_free(&f->s);
    gc__best_free(f->s.best);
    f->s.best = NULL;
    gc__kcache_close(f->s.kcache);
    gc_results_free(f->res);
    gc__device_close(f->dev);
    if (gc__null_ops.fini)
        gc__null_ops.fini();
    gc__null_configure(NULL);
}
