/* The chase's description on the simulated device, with and without the
 * in-kernel clocks, as a GPU and as a CPU: every path's footprints (an
 * ascending grid of multiples of its spacing that ends at the buffer), the
 * staircase's placement rules (coarse to fine only where the launches are
 * timed by events; the refinement's time share only on CPUs), and the
 * kernels the run plans (one chase kernel, timed by segments or by the
 * events of launches of two lengths, plus the installer on the global family,
 * or one kernel per footprint for the cycle path's constant chase). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/null/null.h"
#include "bench/chase/chase.h"
#include "core/device.h"
#include "nullfx.h"

#define CLOCK_CAPS (GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER | GC_CAP_INLINE_ASM)

extern const struct gc_bench_family gc__bench_chase_family;

static int setup(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-4, .seed = 5};

    (void)state;
    nullfx_open(&fx, &cfg, 7);
    return 0;
}

static void check_plan(const struct plan *pl)
{
    assert_true(pl->n >= 1 && pl->n <= CHASE_MAX_POINTS);
    for (int i = 0; i < pl->n; i++) {
        assert_int_equal(pl->fp[i] % pl->spacing, 0);
        assert_true(pl->fp[i] >= 2 * pl->spacing);
        if (i)
            assert_true(pl->fp[i] > pl->fp[i - 1]);
    }
    assert_int_equal(pl->bytes, pl->fp[pl->n - 1]);
}

/* The run's kernels for bench b: their count and labels. */
static void check_kernels(struct gc_session *s, const struct gc_bench *b, bool clocks)
{
    const struct chase_def *def = b->param;
    struct gc_ksrc *k = NULL;
    struct plan pl;
    int n = 0;

    assert_int_equal(b->plan(s, b, &k, &n), 0);
    if (def->path == PATH_L2_PARTITION || (def->path == PATH_TEXTURE && !fx.dev->ops->tex_create)) {
        /* The partition chase builds its own; the null device has no
         * textures. */
        assert_int_equal(n, 0);
        return;
    }
    gc__chase_make_plan(s, def->path, &pl);
    bool words = gc__chase_words_path(def->path);
    bool cconst = clocks && def->path == PATH_CONSTANT;
    int nchase = cconst ? n : 1;
    assert_int_equal(n, nchase + (words ? 0 : 1) +
                            (k && strncmp(k[n - 1].label, "chase_l2_all", 12) == 0));
    for (int i = 0; i < n; i++) {
        assert_non_null(k[i].src);
        assert_non_null(strstr(k[i].src, "gc_"));
    }
    if (cconst) {
        /* One kernel per planned footprint, ascending (the plan may stop at
         * the constant array's limit). */
        assert_true(n >= 2 && n <= pl.n);
        for (int i = 0; i < n; i++) {
            char want[48];
            snprintf(want, sizeof(want), "chase_constant_%zu", pl.fp[i]);
            assert_string_equal(k[i].label, want);
        }
    } else {
        char want[48];
        if (clocks)
            snprintf(want, sizeof(want), "chase_%s_%d", gc__chase_path_name(def->path),
                     CHASE_SEG_LOADS);
        else /* the timed loads are an argument */
            snprintf(want, sizeof(want), "chase_%s_events", gc__chase_path_name(def->path));
        assert_string_equal(k[0].label, want);
        assert_int_equal(strstr(k[0].src, "GC_U32 trips") != NULL, !clocks);
        if (!words)
            assert_string_equal(k[nchase].label, "chase_install");
    }
    gc__ksrc_free(k, n);
}

static void check_device(enum gc_device_type type, bool clocks)
{
    struct gc_session s = {.dev = fx.dev, .seed = 7};
    struct gc_device_info info0 = fx.dev->info;

    fx.dev->info.type = type;
    fx.dev->info.caps = clocks ? (info0.caps | CLOCK_CAPS) : (info0.caps & ~(unsigned)CLOCK_CAPS);
    fx.dev->info.l2_size = (size_t)4 << 20;
    for (int p = GC_PROFILE_QUICK; p <= GC_PROFILE_FULL; p++) {
        s.profile = (enum gc_profile)p;
        for (enum chase_path path = PATH_GLOBAL; path <= PATH_L2_PARTITION; path++) {
            struct plan pl;
            gc__chase_make_plan(&s, path, &pl);
            check_plan(&pl);
        }
        for (int b = 0; b < gc__bench_chase_family.count(); b++) {
            const struct gc_bench *bench = gc__bench_chase_family.at(b);
            /* The benchmarks point at their path's row, in path order. */
            assert_int_equal(((const struct chase_def *)bench->param)->path, b);
            check_kernels(&s, bench, clocks);
        }
    }
    /* The staircase as a sweep. */
    struct chase_ctx c = {.s = &s, .clocks = clocks};
    size_t grid[4] = {256, 512, 1024, 2048};
    struct gc_ksweep_desc d = gc__chase_staircase(&c, grid, 4, 9, 128, NULL, NULL);
    assert_int_equal(d.stride, clocks ? 1 : CHASE_COARSE_STRIDE);
    assert_int_equal(d.steer, clocks ? 0 : 1);
    assert_int_equal(d.max_points, CHASE_MAX_POINTS);
    assert_int_equal(d.budget, 9);
    assert_int_equal(d.granule, 128);
    assert_true(type == GC_DEVICE_GPU ? d.refine_time_share == 0 : d.refine_time_share > 0);
    assert_true(d.refine_jump ==
                (type == GC_DEVICE_GPU ? CHASE_REFINE_JUMP_GPU : CHASE_REFINE_JUMP_CPU));
    fx.dev->info = info0;
}

static void test_gpu_events(void **state)
{
    (void)state;
    check_device(GC_DEVICE_GPU, false);
}

static void test_gpu_clocks(void **state)
{
    (void)state;
    check_device(GC_DEVICE_GPU, true);
}

static void test_cpu_events(void **state)
{
    (void)state;
    check_device(GC_DEVICE_CPU, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_events),
        cmocka_unit_test(test_gpu_clocks),
        cmocka_unit_test(test_cpu_events),
    };
    return cmocka_run_group_tests(tests, setup, nullfx_teardown);
}
