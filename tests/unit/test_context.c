/* The library context initialises a backend only when it first needs it: a
 * device named exactly starts its own backend and no other, a listing and
 * a status query start the ones they cover, and the statuses read the same
 * whichever way they were reached. No driver is present here (CUDA and the
 * OpenCL loader point at files that do not exist); only the null backend has
 * a device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"

static int setup(void **state)
{
    (void)state;
    setenv("GPUCHAR_NULL_DEVICES", "1", 1);
    setenv("GPUCHAR_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    setenv("GPUCHAR_LIBOPENCL", "/nonexistent/libOpenCL.so.1", 1);
    return 0;
}

static int index_of(const gc_context *ctx, const char *name)
{
    for (int b = 0; b < ctx->nbackends; b++)
        if (strcmp(ctx->ops[b]->name, name) == 0)
            return b;
    fail_msg("no backend named %s", name);
    return -1;
}

static int nprobed(const gc_context *ctx)
{
    int n = 0;

    for (int b = 0; b < ctx->nbackends; b++)
        n += ctx->probed[b];
    return n;
}

static void test_created_context_starts_nothing(void **state)
{
    gc_context *ctx;

    (void)state;
    assert_int_equal(gc_context_create(&ctx), 0);
    assert_true(ctx->nbackends >= 3);
    assert_int_equal(nprobed(ctx), 0);
    /* The names are known without starting anything. */
    for (int b = 0; b < ctx->nbackends; b++)
        assert_string_equal(ctx->status[b].name, ctx->ops[b]->name);
    gc_context_destroy(ctx);
}

static void test_exact_spec_starts_its_backend_only(void **state)
{
    gc_context *ctx;
    struct gc_device_summary d;

    (void)state;
    assert_int_equal(gc_context_create(&ctx), 0);
    assert_int_equal(gc_device_resolve(ctx, "null:0", &d), 0);
    assert_string_equal(d.spec, "null:0");
    assert_true(ctx->probed[index_of(ctx, "null")]);
    assert_false(ctx->probed[index_of(ctx, "cuda")]);
    assert_false(ctx->probed[index_of(ctx, "opencl")]);
    assert_int_equal(nprobed(ctx), 1);
    gc_context_destroy(ctx);
}

static void test_status_query_starts_the_backend_asked(void **state)
{
    gc_context *ctx;
    struct gc_backend_status st;
    int cu;

    (void)state;
    assert_int_equal(gc_context_create(&ctx), 0);
    cu = index_of(ctx, "cuda");
    assert_int_equal(gc_backend_get(ctx, cu, &st), 0);
    assert_true(ctx->probed[cu]);
    assert_int_equal(nprobed(ctx), 1);
    assert_false(st.available);
    assert_non_null(strstr(st.reason, "/nonexistent/libcuda.so.1"));
    assert_int_equal(gc_backend_get(ctx, ctx->nbackends, &st), GC_EINVAL);
    gc_context_destroy(ctx);
}

/* A missing device names the reason of its backend, which the lookup
 * started; the statuses equal those a listing gives in a fresh context. */
static void test_statuses_same_either_way(void **state)
{
    gc_context *a, *b;
    struct gc_device_summary d, *list = NULL;
    int n = 0;

    (void)state;
    assert_int_equal(gc_context_create(&a), 0);
    assert_int_equal(gc_device_resolve(a, "cuda:0", &d), GC_ENODEV);
    assert_non_null(strstr(gc_last_error(a), "cuda backend unavailable"));
    assert_int_equal(gc_context_create(&b), 0);
    assert_int_equal(gc_device_list(b, &list, &n), 0);
    assert_int_equal(nprobed(b), b->nbackends);
    assert_int_equal(n, 1);
    assert_string_equal(list[0].spec, "null:0");
    for (int i = 0; i < a->nbackends; i++) {
        struct gc_backend_status sa, sb;

        assert_int_equal(gc_backend_get(a, i, &sa), 0);
        assert_int_equal(gc_backend_get(b, i, &sb), 0);
        assert_string_equal(sa.name, sb.name);
        assert_int_equal(sa.available, sb.available);
        assert_int_equal(sa.device_count, sb.device_count);
        assert_string_equal(sa.reason, sb.reason);
    }
    free(list);
    gc_context_destroy(a);
    gc_context_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_created_context_starts_nothing),
        cmocka_unit_test(test_exact_spec_starts_its_backend_only),
        cmocka_unit_test(test_status_query_starts_the_backend_asked),
        cmocka_unit_test(test_statuses_same_either_way),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
