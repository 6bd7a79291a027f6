/* The run's compile plan, on the null backend: the plan compiles each
 * distinct program once, a benchmark's later request for it is a hit (no
 * compilation of its own), a program the plan did not declare compiles on
 * demand, and a compilation that fails in the plan becomes the error of the
 * benchmark that asks for it, not the run's. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"
#include "backend/null/null.h"
#include "core/device.h"
#include "core/kcache.h"
#include "core/run.h"
#include "core/session.h"

#define SRC_A "__kernel void a(__global int *p) { p[0] = 1; }"
#define SRC_B "__kernel void b(__global int *p) { p[0] = 2; }"
#define SRC_C "__kernel void c(__global int *p) { p[0] = 3; }"
#define SRC_BAD "__kernel void e(__global int *p) { p[0] = 4; }\n#error planted\n"

/* ---- the cache's plan ---------------------------------------------------- */

struct fixture {
    struct gc_device *dev;
    struct gc_session s;
};

static struct fixture fx;

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-5, .seed = 7};
    char why[128], err[256];

    (void)state;
    memset(&fx, 0, sizeof(fx));
    gc__null_configure(&cfg);
    assert_int_equal(gc__null_ops.init(why, sizeof(why)), 0);
    assert_int_equal(gc__device_open(&gc__null_ops, 0, &fx.dev, err, sizeof(err)), 0);
    fx.s.dev = fx.dev;
    /* The disk layer off: every hit below is the plan's. */
    assert_int_equal(gc__kcache_open(NULL, true, &fx.s.kcache), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gc__kcache_plan_drop(&fx.s);
    gc__kcache_close(fx.s.kcache);
    gc__device_close(fx.dev);
    gc__null_configure(NULL);
    return 0;
}

static void request(struct gc_kreq *r, const char *label, const char *src)
{
    memset(r, 0, sizeof(*r));
    r->label = label;
    r->src = strdup(src);
    assert_non_null(r->src);
}

/* Plans A, B, A again and a failing program; returns the stats. */
static struct gc_kplan_stats plan_four(void)
{
    struct gc_kreq reqs[4];
    struct gc_kplan_stats st;

    request(&reqs[0], "a", SRC_A);
    request(&reqs[1], "b", SRC_B);
    request(&reqs[2], "a_again", SRC_A);
    request(&reqs[3], "bad", SRC_BAD);
    assert_int_equal(gc__kcache_plan(&fx.s, reqs, 4, 2, &st), 0);
    for (int i = 0; i < 4; i++) {
        assert_null(reqs[i].prog); /* moved into the cache */
        assert_null(reqs[i].log);
    }
    gc__kreq_release(&fx.s, reqs, 4);
    return st;
}

static void test_plan_compiles_each_program_once(void **state)
{
    struct gc_kplan_stats st = plan_four();

    (void)state;
    assert_int_equal(st.kernels, 3);
    assert_int_equal(st.compiled, 2);
    assert_int_equal(st.cached, 0);
    assert_int_equal(st.failed, 1);
    assert_true(st.threads >= 1 && st.threads <= 2);
    assert_int_equal(gc__kcache_plan_unused(fx.s.kcache), 3);
}

static void test_later_requests_hit_the_plan(void **state)
{
    struct gc_kreq r[3];
    struct gc_kern *k = NULL;

    (void)state;
    plan_four();
    request(&r[0], "a", SRC_A);
    request(&r[1], "a_twice", SRC_A);
    request(&r[2], "c", SRC_C);
    assert_int_equal(gc__kcache_build(&fx.s, r, 3), 0);
    assert_true(r[0].planned && r[1].planned);
    assert_false(r[2].planned);
    for (int i = 0; i < 3; i++)
        assert_non_null(r[i].prog);
    /* The first took the planned program, the second a copy of its binary:
     * two programs. */
    assert_ptr_not_equal(r[0].prog, r[1].prog);
    assert_int_equal(fx.s.kernels_planned, 2);
    assert_int_equal(fx.s.kernels_compiled, 1); /* c, on demand */
    assert_int_equal(fx.s.kernels_cached, 0);
    assert_int_equal(fx.dev->ops->kernel(r[0].prog, "a", &k), 0);
    assert_int_equal(gc__kcache_plan_unused(fx.s.kcache), 2); /* b, bad */
    gc__kreq_release(&fx.s, r, 3);
}

static void test_failed_plan_is_the_requests_error(void **state)
{
    struct gc_kreq r;

    (void)state;
    plan_four();
    request(&r, "the_bad_one", SRC_BAD);
    assert_int_equal(gc__kcache_build(&fx.s, &r, 1), GC_ECOMPILE);
    assert_true(r.planned);
    assert_null(r.prog);
    assert_non_null(strstr(fx.dev->err, "compiling kernel 'the_bad_one' failed"));
    assert_non_null(strstr(fx.dev->err, "#error"));
    assert_int_equal(fx.s.kernels_compiled, 0);
    gc__kreq_release(&fx.s, &r, 1);
}

static void test_one_plan_per_cache(void **state)
{
    struct gc_kreq r;
    struct gc_kplan_stats st;

    (void)state;
    plan_four();
    request(&r, "c", SRC_C);
    assert_int_equal(gc__kcache_plan(&fx.s, &r, 1, 2, &st), 0);
    assert_int_equal(st.kernels, 0);
    gc__kreq_release(&fx.s, &r, 1);
}

/* The null backend's compile, recording each source's length in order. */
static size_t compiled_len[8];
static int ncompiled;

static int recording_compile(struct gc_dev *dev, const char *src, const char *options, void **bin,
                             size_t *binlen, char **log)
{
    if (ncompiled < 8)
        compiled_len[ncompiled++] = strlen(src);
    return gc__null_ops.compile(dev, src, options, bin, binlen, log);
}

/* The plan compiles the longest source first: on one thread the lengths
 * come in non-increasing order, whatever order the requests came in. */
static void test_plan_compiles_longest_first(void **state)
{
    static const char *const src[] = {
        SRC_A,
        "__kernel void d(__global int *p) { p[0] = 5; p[1] = 6; p[2] = 7; p[3] = 8; }",
        "__kernel void e(__global int *p) { p[0] = 9; p[1] = 10; }",
        "__kernel void f(__global int *p) { p[0] = 11; p[1] = 12; p[2] = 13; p[3] = 14; "
        "p[4] = 15; p[5] = 16; }",
    };
    struct gc_backend_ops ops = gc__null_ops;
    struct gc_kreq r[4];
    struct gc_kplan_stats st;

    (void)state;
    ops.compile = recording_compile;
    fx.dev->ops = &ops;
    ncompiled = 0;
    for (int i = 0; i < 4; i++)
        request(&r[i], "k", src[i]);
    assert_int_equal(gc__kcache_plan(&fx.s, r, 4, 1, &st), 0);
    fx.dev->ops = &gc__null_ops;
    assert_int_equal(st.compiled, 4);
    assert_int_equal(ncompiled, 4);
    assert_int_equal(compiled_len[0], strlen(src[3]));
    for (int i = 1; i < 4; i++)
        assert_true(compiled_len[i - 1] >= compiled_len[i]);
    assert_int_equal(compiled_len[3], strlen(src[0]));
    gc__kreq_release(&fx.s, r, 4);
}

/* ---- a run ------------------------------------------------------------- */

static int build_one(struct gc_session *s, const char *label, const char *src)
{
    struct gc_kreq r;
    int rc;

    memset(&r, 0, sizeof(r));
    r.label = label;
    r.src = strdup(src);
    if (!r.src)
        return GC_ENOMEM;
    rc = gc__kcache_build(s, &r, 1);
    gc__kreq_release(s, &r, 1);
    return rc;
}

static int run_good(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    (void)self;
    (void)r;
    return build_one(s, "good", SRC_A);
}

static int run_bad(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    (void)self;
    (void)r;
    return build_one(s, "bad", SRC_BAD);
}

/* The device time of run_demand's launches, as the backend gave it. */
static double demand_elapsed;

/* Builds its kernel and launches it three times (twice per call). */
static int run_demand(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    struct gc_buf *b = NULL;
    struct gc_kern *k = NULL;
    struct gc_kreq q;
    int rc;

    (void)self;
    (void)r;
    demand_elapsed = 0;
    memset(&q, 0, sizeof(q));
    q.label = "demand";
    q.src = strdup(SRC_C);
    if (!q.src)
        return GC_ENOMEM;
    rc = gc__kcache_build(s, &q, 1);
    if (rc == 0)
        rc = s->dev->ops->kernel(q.prog, "c", &k);
    if (rc == 0)
        rc = gc__dev_alloc(s->dev, 64, &b);
    struct gc_arg arg = {.type = GC_ARG_BUF, .v.buf = b};
    struct gc_launch l = {{4, 1, 1}, {32, 1, 1}, 0, &arg, 1, 2};
    for (int i = 0; i < 3 && rc == 0; i++) {
        double el = 0;
        rc = gc__dev_launch(s->dev, k, &l, &el);
        demand_elapsed += el;
    }
    gc__dev_free(s->dev, b);
    gc__kreq_release(s, &q, 1);
    return rc;
}

static int declare(const char *src, struct gc_ksrc **out, int *n)
{
    *out = calloc(1, sizeof(**out));
    if (!*out)
        return GC_ENOMEM;
    snprintf((*out)->label, sizeof((*out)->label), "declared");
    (*out)->src = strdup(src);
    *n = 1;
    return (*out)->src ? 0 : GC_ENOMEM;
}

static int plan_good(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out,
                     int *n)
{
    (void)s;
    (void)self;
    return declare(SRC_A, out, n);
}

static int plan_bad(struct gc_session *s, const struct gc_bench *self, struct gc_ksrc **out, int *n)
{
    (void)s;
    (void)self;
    return declare(SRC_BAD, out, n);
}

static const struct gc_bench good = {
    .info = {.name = "t.good", .group = "t", .summary = "s", .method = "m"},
    .run = run_good,
    .plan = plan_good,
};
static const struct gc_bench bad = {
    .info = {.name = "t.bad", .group = "t", .summary = "s", .method = "m"},
    .run = run_bad,
    .plan = plan_bad,
};
static const struct gc_bench demand = {
    .info = {.name = "t.demand", .group = "t", .summary = "s", .method = "m"},
    .run = run_demand,
};

static gc_context *ctx;

static int run_setup(void **state)
{
    (void)state;
    setenv("GPUCHAR_NULL_DEVICES", "1", 1);
    setenv("GPUCHAR_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    setenv("GPUCHAR_LIBOPENCL", "/nonexistent/libOpenCL.so.1", 1);
    unsetenv("GPUCHAR_FAULT");
    return gc_context_create(&ctx) == 0 ? 0 : -1;
}

static int run_teardown(void **state)
{
    (void)state;
    gc_context_destroy(ctx);
    ctx = NULL;
    return 0;
}

static struct gc_results *run_three(bool no_plan)
{
    static const struct gc_bench *const list[] = {&good, &bad, &demand};
    struct gc_run_options o;
    struct gc_results *r = NULL;

    gc_run_options_init(&o);
    o.device = "null:0";
    o.profile = GC_PROFILE_QUICK;
    o.no_cache = true;
    o.no_plan = no_plan;
    /* One benchmark fails: the run says so, and goes on. */
    assert_int_equal(gc__run_benches(ctx, &o, list, 3, &r), GC_EBACKEND);
    assert_non_null(r);
    assert_int_equal(r->nbenches, 3);
    return r;
}

static void test_run_takes_its_kernels_from_the_plan(void **state)
{
    struct gc_results *r = run_three(false);

    (void)state;
    assert_true(r->plan.made);
    assert_int_equal(r->plan.benches, 2);
    /* good's and bad's, and the fill program the run's benchmarks share */
    assert_int_equal(r->plan.kernels, 3);
    assert_int_equal(r->plan.failed, 1);
    assert_int_equal(r->plan.unused, 1); /* no benchmark filled a buffer */
    assert_int_equal(r->benches[0].status, GC_BENCH_OK);
    assert_int_equal(r->benches[0].kernels_planned, 1);
    assert_int_equal(r->benches[0].kernels_compiled, 0);
    assert_int_equal(r->benches[1].status, GC_BENCH_ERROR);
    assert_non_null(strstr(r->benches[1].error, "compiling kernel 'bad' failed"));
    assert_int_equal(r->benches[2].status, GC_BENCH_OK);
    assert_int_equal(r->benches[2].kernels_compiled, 1);
    assert_string_equal(r->plan.on_demand, "t.demand");
    /* Each benchmark's own launches and their device time: none for good,
     * run_demand's three calls for demand, whatever ran before it. */
    assert_int_equal(r->benches[0].launches, 0);
    assert_true(r->benches[0].kernel_s == 0);
    assert_int_equal(r->benches[2].launches, 3);
    assert_true(demand_elapsed > 0);
    assert_true(fabs(r->benches[2].kernel_s - demand_elapsed) <= 1e-12 * demand_elapsed);
    gc_results_free(r);
}

static void test_no_plan_compiles_on_demand(void **state)
{
    struct gc_results *r = run_three(true);

    (void)state;
    assert_false(r->plan.made);
    assert_int_equal(r->plan.kernels, 0);
    assert_int_equal(r->benches[0].status, GC_BENCH_OK);
    assert_int_equal(r->benches[0].kernels_planned, 0);
    assert_int_equal(r->benches[0].kernels_compiled, 1);
    assert_int_equal(r->benches[1].status, GC_BENCH_ERROR);
    assert_non_null(strstr(r->benches[1].error, "compiling kernel 'bad' failed"));
    assert_string_equal(r->plan.on_demand, "t.good, t.demand");
    gc_results_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plan_compiles_each_program_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_later_requests_hit_the_plan, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_plan_is_the_requests_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_plan_per_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plan_compiles_longest_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_takes_its_kernels_from_the_plan, run_setup,
                                        run_teardown),
        cmocka_unit_test_setup_teardown(test_no_plan_compiles_on_demand, run_setup, run_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
