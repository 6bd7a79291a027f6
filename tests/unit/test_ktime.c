/* The kernel-time path of the pipeline model (devices without an in-kernel
 * clock): Lemeire's timeOfRun on synthetic kernel times of a modelled device
 * gives back its latencies and ridge points, the sweep's warp lists, and the
 * whole-kernel timing engine and the kernel-timed sweep runner on the
 * simulated (null) device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "backend/null/null.h"
#include "core/ktsweep.h"
#include "core/measure.h"
#include "core/session.h"
#include "core/sweep.h"
#include "model/pipeline.h"

/* A modelled CU: one warp's dependent instruction completes after LAT
 * cycles, the CU issues one warp-instruction per ISSUE cycles. With w warps
 * of ilp independent chains a run of INSTR instructions per work item takes
 * INSTR / ilp x max(LAT, w x ilp x ISSUE) cycles. */
#define LAT 4.0
#define ISSUE 1.0
#define INSTR 1000.0
#define SIMD 8.0
#define CUS 2.0
#define MAX_W 32

static double model_run_cycles(double w, double ilp)
{
    return INSTR / ilp * fmax(LAT, w * ilp * ISSUE);
}

/* The launch of w warps per CU repeated over runs per CU, as the CPU path
 * lays it out (one work-group of w warps per CU at a time), timed whole. */
static struct gc_lemeire_launch model_launch(double w, double ilp, double runs, double clock_hz)
{
    struct gc_lemeire_launch l = {.work_items = runs * CUS * w * SIMD,
                                  .wg_size = w * SIMD,
                                  .max_conc_wg = 1,
                                  .max_local_mem = 1,
                                  .warp_size = SIMD,
                                  .max_conc_warps = w,
                                  .cus = CUS,
                                  .instr_kernel = INSTR,
                                  /* a launch overhead-free kernel time */
                                  .runtime_s = runs * model_run_cycles(w, ilp) / 2e9,
                                  .clock_hz = clock_hz};
    return l;
}

static void sweep(double ilp, double clock_hz, struct gc_ktime_point *p, int *n)
{
    static const double ws[] = {1, 2, 4, 8, 16};

    *n = 0;
    for (int i = 0; i < 5; i++) {
        struct gc_lemeire_launch l = model_launch(ws[i], ilp, 10 * (i + 1), clock_hz);
        gc__ktime_point(&l, 1.0, &p[(*n)++]);
    }
}

static void test_point_is_timeofrun(void **state)
{
    struct gc_ktime_point p;
    struct gc_lemeire_launch l = model_launch(2, 1, 10, 2e9);

    (void)state;
    gc__ktime_point(&l, 1.0, &p);
    /* timeOfRun = runtime / runsCU; CPI per warp = cycles / (INSTR x w). */
    assert_float_equal(p.warps, 2, 0);
    assert_float_equal(p.cpi, model_run_cycles(2, 1) / (INSTR * 2), 1e-9);
    /* Throughput per CU per clock: w x SIMD lanes x INSTR per run. */
    assert_float_equal(p.thr, 2 * SIMD * INSTR / model_run_cycles(2, 1), 1e-9);
    /* Each warp-instruction carries SIMD results: thr x CPI = SIMD. */
    assert_float_equal(p.thr * p.cpi, SIMD, 1e-9);
    /* Without a clock (ns at 1e9) the CPI is in ns: 2 GHz halves it. */
    l.clock_hz = 1e9;
    gc__ktime_point(&l, 1.0, &p);
    assert_float_equal(p.cpi, model_run_cycles(2, 1) / (INSTR * 2) / 2, 1e-9);
}

static void test_marks_recover_the_model(void **state)
{
    struct gc_ktime_point a[5], b[5];
    const struct gc_ktime_point *curves[2] = {a, b};
    int n[2];
    struct gc_ktime_marks mk;

    (void)state;
    sweep(1, 2e9, a, &n[0]);
    sweep(2, 2e9, b, &n[1]);
    gc__ktime_marks(curves, n, 2, 0.01, &mk);
    /* eq. 5: Lambda = max CPI = LAT (one warp, one chain); eq. 4: lambda =
     * min CPI = ISSUE (the CU saturated). */
    assert_float_equal(mk.Lambda, LAT, 1e-9);
    assert_float_equal(mk.lambda, ISSUE, 1e-9);
    assert_float_equal(mk.peak, SIMD / ISSUE, 1e-9);
    /* The ridge: LAT / ISSUE warps with one chain, half of it with two. */
    assert_float_equal(mk.ridge[0], LAT / ISSUE, 0);
    assert_float_equal(mk.ridge[1], LAT / ISSUE / 2, 0);
    assert_true(mk.monotone[0] && mk.monotone[1]);
    assert_true(isnan(mk.ridge[2]) && !mk.monotone[2]);
    /* Only the one-chain curve: the same latencies and ridge. */
    gc__ktime_marks(curves, n, 1, 0.01, &mk);
    assert_float_equal(mk.Lambda, LAT, 1e-9);
    assert_float_equal(mk.ridge[0], 4, 0);
    /* A curve that drops is not monotone, and the ridge follows the peak. */
    a[4].thr = 0.5 * a[3].thr;
    gc__ktime_marks(curves, n, 1, 0.05, &mk);
    assert_false(mk.monotone[0]);
    assert_float_equal(mk.ridge[0], 4, 0);
    /* No point: NAN latencies, no ridge. */
    n[0] = 0;
    gc__ktime_marks(curves, n, 1, 0.05, &mk);
    assert_true(isnan(mk.lambda) && isnan(mk.Lambda) && isnan(mk.ridge[0]));
}

static void test_doublings(void **state)
{
    int w[16];

    (void)state;
    assert_int_equal(gc__sweep_doublings(8, w, 16), 4);
    assert_true(w[0] == 1 && w[1] == 2 && w[2] == 4 && w[3] == 8);
    assert_int_equal(gc__sweep_doublings(12, w, 16), 5);
    assert_int_equal(w[4], 12);
    assert_int_equal(gc__sweep_doublings(1, w, 16), 1);
    assert_int_equal(gc__sweep_doublings(0, w, 16), 0);
    assert_int_equal(gc__sweep_doublings(64, w, 3), 3);
}

static int hook_calls[2];

static int count_before(void *u, int rep)
{
    (void)u;
    assert_int_equal(rep, hook_calls[0]);
    hook_calls[0]++;
    return 0;
}

static int count_after(void *u, int rep)
{
    (void)u;
    assert_int_equal(rep, hook_calls[1]);
    return ++hook_calls[1] == 2 ? *(int *)u : 0;
}

/* A kernel of the simulated (null) device, whose launches take launch_s
 * each, noiselessly, and a session on it. */
struct null_fix {
    struct gc_device *dev;
    struct gc_prog *p;
    struct gc_kern *k;
    struct gc_session s;
    volatile sig_atomic_t stop;
    void *bin;
    char *log;
};

static void null_open(struct null_fix *f, double launch_s, unsigned long long seed)
{
    struct gc_null_config cfg = {.launch_s = launch_s, .seed = seed};
    char why[256], err[256];
    size_t len = 0;

    memset(f, 0, sizeof(*f));
    gc__null_configure(&cfg);
    assert_int_equal(gc__null_ops.init(why, sizeof(why)), 0);
    assert_int_equal(gc__device_open(&gc__null_ops, 0, &f->dev, err, sizeof(err)), 0);
    f->s.dev = f->dev;
    f->s.stop = &f->stop;
    assert_int_equal(f->dev->ops->compile(f->dev->dev, "kernel", NULL, &f->bin, &len, &f->log), 0);
    assert_int_equal(f->dev->ops->load(f->dev->dev, f->bin, len, &f->p), 0);
    assert_int_equal(f->dev->ops->kernel(f->p, "k", &f->k), 0);
}

static void null_close(struct null_fix *f)
{
    f->dev->ops->unload(f->p);
    free(f->bin);
    free(f->log);
    gc__device_close(f->dev);
    if (gc__null_ops.fini)
        gc__null_ops.fini();
}

/* gc__measure_runs on the null device: each launch's simulated time, the
 * hook around every timed launch, and a hook's error ends the measurement. */
static void test_measure_runs_null(void **state)
{
    struct null_fix f;
    struct gc_stats st;
    struct gc_launch l = {{4, 1, 1}, {32, 1, 1}, 0, NULL, 0, 7};
    int fail = 0;
    struct gc_rep_hook hook = {count_before, count_after, &fail};

    (void)state;
    null_open(&f, 2e-3, 5);
    assert_int_equal(gc__measure_runs(&f.s, f.k, &l, 1, 5, &hook, &st), 0);
    /* One launch each (count forced to 1), noiseless: exactly launch_s. */
    assert_int_equal(st.n, 5);
    assert_float_equal(st.median, 2e-3, 1e-12);
    assert_float_equal(st.min, 2e-3, 1e-12);
    assert_int_equal(hook_calls[0], 5);
    assert_int_equal(hook_calls[1], 5);
    hook_calls[0] = hook_calls[1] = 0;
    fail = GC_EVERIFY;
    assert_int_equal(gc__measure_runs(&f.s, f.k, &l, 1, 5, &hook, &st), GC_EVERIFY);
    assert_int_equal(st.n, 1);
    null_close(&f);
}

/* The kernel-timed sweep's points: a CPU's doublings up to
 * GC_KTSWEEP_CPU_MAX_THREADS threads per CU (every third and the top with
 * quick), a GPU's the per-warp sweep's. */
static void test_ktsweep_warps(void **state)
{
    struct gc_device_info cpu = {.type = GC_DEVICE_CPU,
                                 .simd_width = 1,
                                 .max_threads_per_cu = 4096,
                                 .max_threads_per_block = 4096};
    struct gc_device_info gpu = {.type = GC_DEVICE_GPU,
                                 .simd_width = 32,
                                 .max_threads_per_cu = 2048,
                                 .max_threads_per_block = 1024};
    int w[MAX_W], v[MAX_W], n;

    (void)state;
    n = gc__ktsweep_warps(&cpu, false, w, MAX_W);
    assert_int_equal(n, 7);
    for (int i = 0; i < n; i++)
        assert_int_equal(w[i], 1 << i);
    n = gc__ktsweep_warps(&cpu, true, w, MAX_W);
    assert_int_equal(n, 3);
    assert_true(w[0] == 1 && w[1] == 8 && w[2] == 64);
    cpu.simd_width = 16; /* 64 threads: 4 vectors */
    n = gc__ktsweep_warps(&cpu, false, w, MAX_W);
    assert_true(n == 3 && w[0] == 1 && w[1] == 2 && w[2] == 4);
    n = gc__ktsweep_warps(&gpu, false, w, MAX_W);
    assert_int_equal(n, gc__sweep_warps(64, v, MAX_W));
    assert_memory_equal(w, v, (size_t)n * sizeof(int));
    assert_int_equal(gc__ktsweep_warps(&gpu, true, w, MAX_W), n);
}

/* What a sweep's description saw. */
struct kt_seen {
    int prepared, done, warps[MAX_W], failing_point;
    double seconds[MAX_W];
    int runs[MAX_W];
    size_t nthreads[MAX_W];
};

static int seen_prepare(void *u, const struct gc_ktsweep_point *p, struct gc_rep_hook *hook)
{
    struct kt_seen *k = u;

    assert_int_equal(k->prepared, k->done); /* one point at a time */
    k->prepared++;
    hook->before = hook->after = NULL;
    assert_true(p->nthreads > 0);
    return 0;
}

static int seen_done(void *u, const struct gc_ktsweep_point *p, int rc)
{
    struct kt_seen *k = u;
    int i = k->done++;

    assert_int_equal(rc, 0);
    k->warps[i] = p->warps;
    k->seconds[i] = p->seconds;
    k->runs[i] = p->runs;
    k->nthreads[i] = p->nthreads;
    assert_int_equal(p->st.n, 3);
    return i + 1 == k->failing_point ? GC_EVERIFY : 0;
}

/* gc__ktsweep_run on the null device (a GPU): each point laid out, prepared,
 * timed over its launches (the median: noiseless, launch_s) and handed over
 * once, in order, one run per launch; points the buffers cannot hold are
 * skipped; the description's failure ends the sweep. */
static void test_ktsweep_run_null(void **state)
{
    struct null_fix f;
    int warps[] = {1, 2, 4, 8};
    struct kt_seen seen = {0};

    (void)state;
    null_open(&f, 1e-3, 7);
    int simd = f.dev->info.simd_width > 0 ? f.dev->info.simd_width : 32;
    size_t per_warp = (size_t)simd * (size_t)f.dev->info.compute_units;
    struct gc_ktsweep_desc d = {.k = f.k,
                                .max_threads = 4 * per_warp, /* up to 4 warps per CU */
                                .warps = warps,
                                .nw = 4,
                                .reps = 3,
                                .cpu_target_s = 1e-3,
                                .prepare = seen_prepare,
                                .done = seen_done,
                                .u = &seen};
    assert_int_equal(gc__ktsweep_run(&f.s, &d), 0);
    assert_int_equal(seen.done, 3); /* 8 warps per CU do not fit */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(seen.warps[i], warps[i]);
        assert_int_equal(seen.runs[i], 1);
        assert_int_equal(seen.nthreads[i], (size_t)warps[i] * per_warp);
        assert_float_equal(seen.seconds[i], 1e-3, 1e-12);
    }
    memset(&seen, 0, sizeof(seen));
    seen.failing_point = 2;
    assert_int_equal(gc__ktsweep_run(&f.s, &d), GC_EVERIFY);
    assert_int_equal(seen.done, 2);
    null_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_point_is_timeofrun), cmocka_unit_test(test_marks_recover_the_model),
        cmocka_unit_test(test_doublings),          cmocka_unit_test(test_measure_runs_null),
        cmocka_unit_test(test_ktsweep_warps),      cmocka_unit_test(test_ktsweep_run_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
