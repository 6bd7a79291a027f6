/* The benchmark harness on the simulated (null) device: planning, the
 * screen and the refinement of the leaders, the budget, the group stop,
 * verification and setup failures, interruption with partial results, and
 * the buffer pool. Every launch of the null device takes the same time, so
 * a configuration's figure (work / time) follows the work it declares. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/null/null.h"
#include "core/devfill.h"
#include "core/harness.h"
#include "util/random.h"
#include "core/results.h"
#include "core/kcache.h"
#include "nullfx.h"

static struct gc_bench_result *fx_r; /* the run's result, one series */

/* What the test description does, per configuration index. */
struct tdesc {
    double work[64];
    int setups, verifies, befores;
    int fail_verify_at; /* -1 none */
    int fail_setup_at;  /* -1 none */
    int absent_at;      /* -1 none: this one does not fit the device */
    int stop_after;     /* request a stop after this many verifications; 0 never */
};

static int t_setup(struct gc_harness *h, struct gc_hconf *c, struct gc_hlaunch *out)
{
    struct tdesc *t = h->d->user;
    int i = (int)(c - h->cfg);

    t->setups++;
    if (i == t->fail_setup_at) {
        snprintf(h->s->dev->err, sizeof(h->s->dev->err), "setup failed on purpose");
        return GC_EDEVMEM;
    }
    out->absent = i == t->absent_at;
    out->l = (struct gc_launch){{1, 1, 1}, {32, 1, 1}, 0, out->args, 0, 1};
    out->work = t->work[i];
    snprintf(out->desc, sizeof(out->desc), "config %d", i);
    return 0;
}

static int t_before(struct gc_harness *h, struct gc_hconf *c)
{
    (void)c;
    ((struct tdesc *)h->d->user)->befores++;
    return 0;
}

static int t_verify(struct gc_harness *h, struct gc_hconf *c, char *msg, size_t len)
{
    struct tdesc *t = h->d->user;

    t->verifies++;
    if (t->stop_after && t->verifies >= t->stop_after)
        fx.stop = 1;
    if ((int)(c - h->cfg) == t->fail_verify_at) {
        snprintf(msg, len, "word 7 is wrong");
        return GC_EVERIFY;
    }
    return 0;
}

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-4, .noise_rel = 0.0, .seed = 3};

    (void)state;
    nullfx_open(&fx, &cfg, 0);
    fx_r = gc__results_add_bench(fx.res, "test.harness", "test");
    assert_non_null(gc__bench_add_series(fx_r, "s", "x", "-", "y", "u/s"));
    return 0;
}

static struct gc_hdesc make_desc(struct tdesc *t)
{
    t->fail_verify_at = t->fail_setup_at = t->absent_at = -1;
    return (struct gc_hdesc){.budget_s = 0,
                             .refine_top = 2,
                             .refine_within = 0.01,
                             .refine_max = 4,
                             .setup = t_setup,
                             .before = t_before,
                             .verify = t_verify,
                             .user = t};
}

static void plan(struct gc_harness *h, int n, const double *work, struct tdesc *t)
{
    for (int i = 0; i < n; i++) {
        struct gc_hconf *c = gc__harness_add(h);

        assert_non_null(c);
        snprintf(c->label, sizeof(c->label), "k%d", i);
        c->src = strdup("kernel text");
        c->kernel = "k";
        c->series = 0;
        c->x = i;
        snprintf(c->point, sizeof(c->point), "p%d", i);
        t->work[i] = work[i];
    }
}

/* Ten configurations: every one screened, only the two best (and one within
 * 1% of the best) measured in full; the winner is the best by its full
 * measurement, and the series has a point for every configuration, the
 * screened ones marked. */
static void test_screen_then_refine(void **state)
{
    static const double w[10] = {1, 5, 3, 9, 2, 8.95, 4, 7, 6, 0.5};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;

    (void)state;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 10, w, &t);
    assert_int_equal(gc__harness_run(&h), 0);
    assert_true(h.screen);
    assert_int_equal(h.screened, 10);
    assert_int_equal(h.refined, 2); /* 9 and 8.95 (within 1%); 8 is neither */
    assert_int_equal(h.best, 3);
    assert_int_equal(h.cfg[3].state, GC_H_REFINED);
    assert_int_equal(h.cfg[5].state, GC_H_REFINED);
    assert_int_equal(h.cfg[7].state, GC_H_SCREENED);
    /* The figure comes from the full measurement, never the screen. */
    assert_true(h.cfg[3].m.samples >= fx.s.sampling.min_samples);
    assert_true(h.cfg[3].stats.n == h.cfg[3].m.samples);
    assert_float_equal(h.cfg[3].value, 9 / 1e-4, 9 / 1e-4 * 1e-9);
    /* Every measurement was prepared and verified: 10 screens + 2 full. */
    assert_int_equal(t.befores, 12);
    assert_int_equal(t.verifies, 12);
    assert_int_equal(t.setups, 10);
    assert_int_equal(fx_r->series[0].npoints, 10);
    for (int i = 0; i < 10; i++) {
        bool full = i == 3 || i == 5;

        assert_int_equal(strstr(fx_r->series[0].points[i].label, "(screened)") == NULL, full);
    }
    gc__harness_free(&h);
}

/* A reference configuration is measured in full even when it ranks low. */
static void test_always_refine(void **state)
{
    static const double w[6] = {1, 2, 3, 4, 5, 6};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;

    (void)state;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 6, w, &t);
    h.cfg[0].always_refine = true;
    assert_int_equal(gc__harness_run(&h), 0);
    assert_int_equal(h.cfg[0].state, GC_H_REFINED);
    assert_int_equal(h.refined, 3);
    assert_int_equal(h.best, 5);
    gc__harness_free(&h);
}

/* A space no larger than what would be refined is measured in full. */
static void test_small_space_no_screen(void **state)
{
    static const double w[2] = {2, 1};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;

    (void)state;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 2, w, &t);
    assert_int_equal(gc__harness_run(&h), 0);
    assert_false(h.screen);
    assert_int_equal(h.screened, 0);
    assert_int_equal(h.refined, 2);
    assert_int_equal(h.best, 0);
    gc__harness_free(&h);
}

/* A group stops once its points fell clearly from their peak. */
static void test_group_peak_stop(void **state)
{
    static const double w[8] = {1, 4, 3, 2, 1, 1, 5, 6};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;

    (void)state;
    d.peak_drop = 0.1;
    d.peak_after = 2;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 8, w, &t);
    for (int i = 0; i < 6; i++)
        h.cfg[i].group = 0;
    assert_int_equal(gc__harness_run(&h), 0);
    /* 1, 4 (peak), 3, 2 (two drops): 1 and 1 are pruned. */
    assert_int_equal(h.cfg[3].state, GC_H_SCREENED);
    assert_int_equal(h.cfg[4].state, GC_H_PRUNED);
    assert_int_equal(h.cfg[5].state, GC_H_PRUNED);
    assert_int_equal(h.pruned, 2);
    assert_int_equal(h.best, 7);
    /* No point for what was never measured. */
    assert_int_equal(fx_r->series[0].npoints, 6);
    gc__harness_free(&h);
}

/* A spent budget ends the screen early but the best screened configuration
 * is still measured in full; the profile scales the budget. */
static void test_budget(void **state)
{
    static const double w[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;

    (void)state;
    d.budget_s = 1e-9;
    fx.s.profile = GC_PROFILE_FULL;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    assert_float_equal(h.budget_s, 4e-9, 1e-18);
    fx.s.profile = GC_PROFILE_QUICK;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    assert_float_equal(h.budget_s, 0.25e-9, 1e-18);
    fx.s.profile = GC_PROFILE_DEFAULT;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 12, w, &t);
    assert_int_equal(gc__harness_run(&h), 0);
    assert_int_equal(h.screened, 1);
    assert_int_equal(h.over, 11);
    assert_int_equal(h.refined, 1);
    assert_int_equal(h.best, 0);
    assert_int_equal(h.cfg[0].state, GC_H_REFINED);
    gc__harness_free(&h);
}

/* A wrong output is the benchmark's error, never a number; what was
 * measured before stays in the series. */
static void test_verify_failure(void **state)
{
    static const double w[6] = {1, 2, 3, 4, 5, 6};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;

    (void)state;
    t.fail_verify_at = 2;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 6, w, &t);
    assert_int_equal(gc__harness_run(&h), GC_EVERIFY);
    assert_int_equal(fx_r->status, GC_BENCH_ERROR);
    assert_non_null(strstr(fx_r->error, "verification failed (config 2): word 7 is wrong"));
    assert_int_equal(h.best, -1);
    assert_int_equal(fx_r->series[0].npoints, 2);
    gc__harness_free(&h);
}

/* A configuration its setup finds the device cannot run is left out: not
 * measured, not verified, no point, and the run goes on. */
static void test_absent(void **state)
{
    static const double w[3] = {1, 9, 2};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;

    (void)state;
    t.absent_at = 1;
    d.refine_top = 3; /* every one in full */
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 3, w, &t);
    assert_int_equal(gc__harness_run(&h), 0);
    assert_false(h.screen);
    assert_int_equal(h.cfg[1].state, GC_H_ABSENT);
    assert_int_equal(h.absent, 1);
    assert_int_equal(h.refined, 2);
    assert_int_equal(t.verifies, 2);
    assert_int_equal(h.best, 2);
    assert_int_equal(fx_r->series[0].npoints, 2);
    gc__harness_free(&h);
}

/* gc__harness_bench: a benchmark's whole flow. */
static struct {
    struct tdesc t;
    struct gc_hdesc d;
    int plan_rc, plans, derives, releases;
} hb;

static int hb_plan(struct gc_session *s, struct gc_bench_result *r, struct gc_harness *h)
{
    static const double w[4] = {1, 2, 3, 4};

    hb.plans++;
    hb.d = make_desc(&hb.t);
    gc__harness_init(h, s, r, &hb.d);
    plan(h, 4, w, &hb.t);
    return hb.plan_rc;
}

static int hb_derive(struct gc_session *s, const struct gc_harness *h, const char *bench)
{
    (void)s;
    assert_string_equal(bench, "test.harness");
    assert_ptr_equal(h->d, &hb.d);
    hb.derives++;
    return 0;
}

static void hb_release(struct gc_session *s, struct gc_harness *h)
{
    (void)s;
    hb.releases++;
    gc__harness_free(h);
}

/* Plan, run, derive and release once; a stop still derives what was
 * measured and returns GC_EINTR; a failed plan is released, not derived. */
static void test_bench_flow(void **state)
{
    static const struct gc_hbench b = {hb_plan, hb_derive, hb_release};

    (void)state;
    memset(&hb, 0, sizeof(hb));
    assert_int_equal(gc__harness_bench(&fx.s, fx_r, "test.harness", &b), 0);
    assert_int_equal(hb.plans + hb.derives + hb.releases, 3);
    assert_int_equal(fx_r->series[0].npoints, 4);
    memset(&hb, 0, sizeof(hb));
    hb.t.stop_after = 2;
    assert_int_equal(gc__harness_bench(&fx.s, fx_r, "test.harness", &b), GC_EINTR);
    assert_int_equal(hb.derives, 1);
    assert_int_equal(hb.releases, 1);
    fx.stop = 0;
    memset(&hb, 0, sizeof(hb));
    hb.plan_rc = GC_EDEVMEM;
    assert_int_equal(gc__harness_bench(&fx.s, fx_r, "test.harness", &b), GC_EDEVMEM);
    assert_int_equal(hb.derives, 0);
    assert_int_equal(hb.releases, 1);
}

/* A setup that fails stops the run with its error. */
static void test_setup_failure(void **state)
{
    static const double w[6] = {1, 2, 3, 4, 5, 6};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;

    (void)state;
    t.fail_setup_at = 4;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 6, w, &t);
    assert_int_equal(gc__harness_run(&h), GC_EDEVMEM);
    assert_int_equal(h.screened, 4);
    assert_int_equal(h.best, -1);
    assert_int_equal(fx_r->series[0].npoints, 4);
    gc__harness_free(&h);
}

/* A kernel that does not compile fails the benchmark before any launch. */
static void test_build_failure(void **state)
{
    static const double w[4] = {1, 2, 3, 4};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;

    (void)state;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 4, w, &t);
    free(h.cfg[2].src);
    h.cfg[2].src = strdup("#error broken on purpose");
    assert_int_not_equal(gc__harness_run(&h), 0);
    assert_int_equal(t.setups, 0);
    assert_int_equal(h.best, -1);
    gc__harness_free(&h);
}

/* A stop during the screen keeps the screened points and reports no figure
 * (none was measured in full); a stop during the refinement keeps the
 * configurations measured in full. */
static void test_interrupt(void **state)
{
    static const double w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;

    (void)state;
    t.stop_after = 3;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 8, w, &t);
    assert_int_equal(gc__harness_run(&h), GC_EINTR);
    assert_int_equal(h.screened, 3);
    assert_int_equal(h.best, -1);
    assert_int_equal(fx_r->series[0].npoints, 3);
    gc__harness_free(&h);

    fx.stop = 0;
    memset(&t, 0, sizeof(t));
    d = make_desc(&t);
    t.stop_after = 9; /* 8 screens, then the first full measurement */
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 8, w, &t);
    assert_int_equal(gc__harness_run(&h), GC_EINTR);
    assert_int_equal(h.refined, 1);
    assert_int_equal(h.best, 7);
    gc__harness_free(&h);
}

/* The pool hands the same filled buffer to the next benchmark that asks for
 * the same data, refills it for another seed, and never evicts what the
 * running benchmark holds. The null device runs no kernel: its fill falls
 * back to the host, and the data are the generator's all the same. */
static void test_pool(void **state)
{
    struct gc_buf *a = NULL, *b = NULL, *c = NULL;
    uint32_t w[4];
    size_t bytes;

    (void)state;
    gc__pool_begin(&fx.s);
    assert_int_equal(gc__pool_input(&fx.s, "in0", 4096, 11, &a), 0);
    assert_int_equal(gc__dev_read(fx.dev, a, 4000, w, 16), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(w[i], gc__hash32(11, 1000 + (uint64_t)i));
    gc__pool_begin(&fx.s);
    assert_int_equal(gc__pool_input(&fx.s, "in0", 4096, 11, &b), 0);
    assert_ptr_equal(a, b);
    assert_int_equal(gc__pool_output(&fx.s, "out", 4096, &c), 0);
    assert_ptr_not_equal(c, a);
    assert_int_equal(gc__pool_count(&fx.s, &bytes), 2);
    assert_int_equal(bytes, 8192);
    /* Another seed: the same buffer, refilled. */
    assert_int_equal(gc__pool_input(&fx.s, "in0", 4096, 12, &b), 0);
    assert_int_equal(gc__dev_read(fx.dev, b, 0, w, 4), 0);
    assert_int_equal(w[0], gc__hash32(12, 0));
    /* A smaller request of the same data: the same buffer, its prefix is
     * the smaller fill; a larger one than what was filled: filled again. */
    gc__pool_begin(&fx.s);
    assert_int_equal(gc__pool_input(&fx.s, "in0", 2048, 12, &a), 0);
    assert_ptr_equal(a, b);
    assert_int_equal(gc__pool_count(&fx.s, &bytes), 2);
    assert_int_equal(bytes, 8192);
    assert_int_equal(gc__pool_input(&fx.s, "in0", 1024, 13, &a), 0);
    assert_ptr_equal(a, b);
    assert_int_equal(gc__dev_read(fx.dev, a, 1020, w, 4), 0);
    assert_int_equal(w[0], gc__hash32(13, 255));
    assert_int_equal(gc__pool_input(&fx.s, "in0", 4096, 13, &a), 0);
    assert_ptr_equal(a, b);
    assert_int_equal(gc__dev_read(fx.dev, a, 4092, w, 4), 0);
    assert_int_equal(w[0], gc__hash32(13, 1023));
    /* Larger than the entry: a new buffer of that size. */
    assert_int_equal(gc__pool_input(&fx.s, "in0", 8192, 12, &b), 0);
    assert_int_equal(gc__pool_count(&fx.s, &bytes), 2);
    assert_int_equal(bytes, 4096 + 8192);
    assert_int_equal(gc__dev_read(fx.dev, b, 8188, w, 4), 0);
    assert_int_equal(w[0], gc__hash32(12, 2047));
    /* Poison: every word. */
    assert_int_equal(gc__devfill_word(&fx.s, c, 4096, 0xDEADBEEFu), 0);
    assert_int_equal(gc__dev_read(fx.dev, c, 4092, w, 4), 0);
    assert_int_equal(w[0], 0xDEADBEEFu);
    /* A device check that cannot run is no verification: the caller must
     * check on the host. */
    {
        struct gc_check ck = {.kind = GC_CHECK_EQ, .want = b, .got = c, .words = 1024};
        char msg[128];

        assert_int_equal(gc__devcheck(&fx.s, &ck, msg, sizeof(msg)), GC_ENOTSUP);
    }
}

/* Each plateau refines its own leaders: the best of the whole space sit in
 * plateau 1, yet plateau 2's best is measured in full; a configuration in
 * no plateau is not, however high it screens. */
static void test_plateaus(void **state)
{
    static const double w[8] = {10, 9.9, 9.8, 2, 1.5, 1, 8, 0.5};
    static const unsigned pl[8] = {1, 1, 1, 2, 2, 2, 0, 3};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;

    (void)state;
    d.refine_top = 1;
    d.refine_within = 0.015;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 8, w, &t);
    for (int i = 0; i < 8; i++)
        h.cfg[i].plateaus = pl[i];
    assert_int_equal(gc__harness_run(&h), 0);
    /* Plateau 1: 10 and 9.9 (within 1.5%), not 9.8; plateau 2: 2 only;
     * 0.5 is in both, below their leaders; 8 is in none. */
    assert_int_equal(h.cfg[0].state, GC_H_REFINED);
    assert_int_equal(h.cfg[1].state, GC_H_REFINED);
    assert_int_equal(h.cfg[2].state, GC_H_SCREENED);
    assert_int_equal(h.cfg[3].state, GC_H_REFINED);
    assert_int_equal(h.cfg[4].state, GC_H_SCREENED);
    assert_int_equal(h.cfg[6].state, GC_H_SCREENED);
    assert_int_equal(h.cfg[7].state, GC_H_SCREENED);
    assert_int_equal(h.refined, 3);
    gc__harness_free(&h);
}

/* Configurations that share a source share one program: each distinct
 * source is compiled once. */
static void test_shared_source(void **state)
{
    static const double w[6] = {1, 2, 3, 4, 5, 6};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;
    int before = fx.s.kernels_compiled + fx.s.kernels_cached;

    (void)state;
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 6, w, &t);
    for (int i = 0; i < 6; i++) {
        free(h.cfg[i].src);
        h.cfg[i].src = strdup(i % 3 == 0 ? "kernel a" : i % 3 == 1 ? "kernel b" : "kernel c");
    }
    assert_int_equal(gc__harness_run(&h), 0);
    assert_int_equal(fx.s.kernels_compiled + fx.s.kernels_cached - before, 3);
    assert_int_equal(h.screened, 6);
    gc__harness_free(&h);
}

/* Configurations whose kernel the description built itself (no source,
 * the kernel set): nothing is built for them, the others are, and every one
 * is measured with its own kernel, which the runner leaves to its owner. */
static void test_prebuilt_kernel(void **state)
{
    static const double w[4] = {1, 4, 2, 3};
    struct tdesc t = {0};
    struct gc_hdesc d = make_desc(&t);
    struct gc_harness h;
    struct gc_kreq req = {.label = "own", .src = strdup("the description's kernel")};
    struct gc_kern *own = NULL;
    int before = fx.s.kernels_compiled + fx.s.kernels_cached;

    (void)state;
    assert_int_equal(gc__kcache_build(&fx.s, &req, 1), 0);
    assert_int_equal(fx.dev->ops->kernel(req.prog, "k", &own), 0);
    gc__harness_init(&h, &fx.s, fx_r, &d);
    plan(&h, 4, w, &t);
    for (int i = 0; i < 4; i += 2) {
        free(h.cfg[i].src);
        h.cfg[i].src = NULL;
        h.cfg[i].k = own;
    }
    assert_int_equal(gc__harness_run(&h), 0);
    /* One build for the description, one for the two configurations that
     * kept their (shared) source. */
    assert_int_equal(fx.s.kernels_compiled + fx.s.kernels_cached - before, 2);
    assert_int_equal(h.screened, 4);
    assert_int_equal(h.best, 1);
    assert_int_equal(t.setups, 4);
    gc__harness_free(&h);
    /* The description's kernel outlives the run. */
    assert_non_null(own);
    gc__kreq_release(&fx.s, &req, 1);
}

/* A description's screen settings, never longer than the full rule. */
static void test_screen_cfg(void **state)
{
    struct gc_hdesc d = {.screen_sample_s = 0.002, .screen_samples = 2};
    struct gc_sampling full, sc;

    (void)state;
    gc__sampling_defaults(&full, GC_PROFILE_DEFAULT, true, 0, 0);
    gc__harness_screen_cfg_of(&d, &full, &sc);
    assert_float_equal(sc.target_sample_s, 0.002, 1e-12);
    assert_int_equal(sc.min_samples, 2);
    assert_int_equal(sc.max_samples, 2);
    assert_int_equal(sc.warmup, 1);
    full.target_sample_s = 0.001;
    gc__harness_screen_cfg_of(&d, &full, &sc);
    assert_float_equal(sc.target_sample_s, 0.001, 1e-12);
    gc__harness_screen_cfg(&full, &sc);
    assert_int_equal(sc.max_samples, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_screen_then_refine, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_always_refine, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_small_space_no_screen, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_group_peak_stop, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_budget, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_verify_failure, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_absent, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_bench_flow, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_setup_failure, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_build_failure, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_interrupt, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_pool, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_plateaus, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_shared_source, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_screen_cfg, setup, nullfx_teardown),
        cmocka_unit_test_setup_teardown(test_prebuilt_kernel, setup, nullfx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
