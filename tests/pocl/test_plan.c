/* A planned run against an unplanned one on the first OpenCL device (PoCL in
 * CI): the compile plan changes where kernels are compiled, never which.
 * Both runs request exactly the same kernel sources (--dump-kernels writes
 * the same files, byte for byte), the planned run compiles none of them on
 * demand and plans none that no benchmark asks for, and both report the
 * same benchmarks, statuses and metrics. No figure is compared: they are
 * measurements. Compile workers asked for are not used: this program does
 * not offer their entry (gc_compile_worker_entry). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"

static const char *const pats[] = {"compute.fp32.fma", "memory.constant", "memory.atomics",
                                   "memory.shared",    "hiding.mix.sfu",  NULL};

static char dirs[2][256];

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];

    if (!d)
        return;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static int setup(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++)
        snprintf(dirs[i], sizeof(dirs[i]), "/tmp/gpuchar-test-plan-%ld-%d", (long)getpid(), i);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++)
        remove_dir(dirs[i]);
    return 0;
}

static struct gc_results *run(gc_context *ctx, bool no_plan, const char *dump)
{
    struct gc_run_options o;
    struct gc_results *r = NULL;
    int rc;

    gc_run_options_init(&o);
    o.device = "opencl:0";
    o.patterns = pats;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = 2;
    o.min_time_ms = 1;
    o.no_cache = true; /* both compile everything */
    o.no_plan = no_plan;
    o.dump_kernels_dir = dump;
    rc = gc_run(ctx, &o, &r);
    if (rc)
        fprintf(stderr, "run: %s: %s\n", gc_strerror(rc), gc_last_error(ctx));
    assert_int_equal(rc, 0);
    assert_non_null(r);
    return r;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Every file of a is in b with the same bytes, and both hold as many. */
static int same_files(const char *a, const char *b)
{
    DIR *d = opendir(a);
    struct dirent *e;
    int n = 0, nb = 0;

    assert_non_null(d);
    while ((e = readdir(d))) {
        char pa[512], pb[512];
        size_t la, lb;

        if (e->d_name[0] == '.')
            continue;
        snprintf(pa, sizeof(pa), "%s/%s", a, e->d_name);
        snprintf(pb, sizeof(pb), "%s/%s", b, e->d_name);
        assert_int_equal(access(pb, R_OK), 0);
        char *x = slurp(pa, &la), *y = slurp(pb, &lb);
        assert_int_equal(la, lb);
        assert_memory_equal(x, y, la);
        free(x);
        free(y);
        n++;
    }
    closedir(d);
    assert_non_null(d = opendir(b));
    while ((e = readdir(d)))
        nb += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(n, nb);
    return n;
}

static void same_results(const struct gc_results *p, const struct gc_results *u)
{
    assert_int_equal(p->nbenches, u->nbenches);
    for (int i = 0; i < p->nbenches; i++) {
        const struct gc_bench_result *a = &p->benches[i], *b = &u->benches[i];

        assert_string_equal(a->name, b->name);
        assert_int_equal(a->status, b->status);
        assert_int_equal(a->status, GC_BENCH_OK);
        /* The same requests: planned in one run, compiled in the other. */
        assert_true(a->kernels_planned > 0);
        assert_int_equal(a->kernels_compiled + a->kernels_cached, 0);
        assert_int_equal(b->kernels_planned, 0);
        assert_int_equal(a->kernels_planned, b->kernels_compiled + b->kernels_cached);
        assert_int_equal(a->nmetrics, b->nmetrics);
        for (int m = 0; m < a->nmetrics; m++) {
            assert_string_equal(a->metrics[m].name, b->metrics[m].name);
            assert_string_equal(a->metrics[m].unit, b->metrics[m].unit);
        }
    }
}

static void test_planned_run_requests_the_same_kernels(void **state)
{
    gc_context *ctx = NULL;
    struct gc_results *planned, *unplanned;

    (void)state;
    assert_int_equal(gc_context_create(&ctx), 0);
    /* Workers asked for: a program that merely links the library (this
     * test) never offered the worker entry, so the plan compiles on
     * threads and says why. */
    setenv("GPUCHAR_COMPILE_WORKERS", "2", 1);
    planned = run(ctx, false, dirs[0]);
    unsetenv("GPUCHAR_COMPILE_WORKERS");
    unplanned = run(ctx, true, dirs[1]);

    assert_true(planned->plan.made);
    assert_int_equal(planned->plan.benches, 5);
    assert_true(planned->plan.kernels > 5);
    assert_int_equal(planned->plan.failed, 0);
    /* Every plan hook declares what its run asks for, nothing more. */
    assert_int_equal(planned->plan.unused, 0);
    assert_string_equal(planned->plan.on_demand, "");
    assert_int_equal(planned->plan.workers, 0);
    assert_int_equal(planned->plan.worker_compiled, 0);
    assert_non_null(strstr(planned->plan.worker_note, "does not offer the worker entry"));
    assert_true(planned->plan.load_s > 0);
    assert_false(unplanned->plan.made);
    assert_true(same_files(dirs[0], dirs[1]) > 5);
    same_results(planned, unplanned);
    gc_results_free(planned);
    gc_results_free(unplanned);
    gc_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_planned_run_requests_the_same_kernels, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
