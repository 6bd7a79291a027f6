/* Settings that hold: the whole registry (opt-in benchmarks included) on the
 * null device with an explicit --repeat 2 and --min-time 1: no statistic of
 * the results tree has more than 2 samples, whatever minimum a benchmark's
 * method sets for itself, and every benchmark that ran records the user's
 * policy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "gpuchar/gpuchar.h"

#define REPEAT 2

/* Statistics over REPEAT samples in b, each named on stderr; *n counts them all. */
static int over_repeat(const struct gc_bench_result *b, int *n)
{
    int over = 0;

    for (int k = 0; k < b->nmetrics; k++) {
        const struct gc_stats *st = &b->metrics[k].stats;
        *n += st->n > 0;
        if (st->n > REPEAT) {
            fprintf(stderr, "%s/%s: %d samples\n", b->name, b->metrics[k].name, st->n);
            over++;
        }
    }
    for (int j = 0; j < b->nseries; j++)
        for (int k = 0; k < b->series[j].npoints; k++) {
            const struct gc_stats *st = &b->series[j].points[k].stats;
            *n += st->n > 0;
            if (st->n > REPEAT) {
                fprintf(stderr, "%s/%s[%d]: %d samples\n", b->name, b->series[j].name, k, st->n);
                over++;
            }
        }
    return over;
}

static void test_repeat_holds_everywhere(void **state)
{
    static const char *const all[] = {"*", NULL};
    struct gc_run_options o;
    struct gc_results *r = NULL;
    gc_context *ctx = NULL;
    int over = 0, nstats = 0, recorded = 0;

    (void)state;
    setenv("GPUCHAR_NULL_DEVICES", "1", 1);
    setenv("GPUCHAR_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    setenv("GPUCHAR_LIBOPENCL", "/nonexistent/libOpenCL.so.1", 1);
    unsetenv("GPUCHAR_FAULT");
    assert_int_equal(gc_context_create(&ctx), 0);
    gc_run_options_init(&o);
    o.device = "null:0";
    o.patterns = all;
    o.profile = GC_PROFILE_QUICK;
    o.repeat = REPEAT;
    o.min_time_ms = 1;
    o.no_cache = true;
    /* Kernels do not execute on the null device: many benchmarks fail their
     * verification; what they measured before is in the tree. */
    (void)gc_run(ctx, &o, &r);
    assert_non_null(r);
    assert_int_equal(r->meta.repeat, REPEAT);
    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_bench_result *b = &r->benches[i];
        const struct gc_sampling_info *p = &b->sampling;

        over += over_repeat(b, &nstats);
        /* Rows refused before they ran (a capability the device lacks)
         * measured nothing and may record no policy. */
        if (b->status == GC_BENCH_SKIPPED ||
            (b->status == GC_BENCH_NOT_AVAILABLE && p->max_samples == 0))
            continue;
        assert_int_not_equal(p->max_samples, 0);
        recorded++;
        if (p->max_samples > REPEAT || p->min_samples > REPEAT || !p->repeat_explicit ||
            !p->min_time_explicit || p->min_time_s != 1e-3) {
            fprintf(stderr, "%s: sampling policy %d..%d samples of %g s, not the user's\n", b->name,
                    p->min_samples, p->max_samples, p->min_time_s);
            over++;
        }
    }
    fprintf(stderr, "%d statistics, %d policies over %d benchmarks\n", nstats, recorded,
            r->nbenches);
    assert_true(nstats > 0);
    assert_true(recorded > r->nbenches / 2);
    assert_int_equal(over, 0);
    gc_results_free(r);
    gc_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repeat_holds_everywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
