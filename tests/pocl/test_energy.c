/* The energy benchmarks end to end on the first OpenCL device (PoCL in CI),
 * whose energy is read from the host's RAPL counters: with no powercap tree
 * every energy benchmark is "not available" with the reason; with a fake
 * tree whose package and DRAM counters a thread advances at known powers,
 * the meter reports those powers and the figures derived from them are
 * consistent; on the machine's own tree the answer matches what the tree
 * allows (figures where it is readable, the reason where it is not). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"
#include "core/benchcfg.h"
#include "core/powercap.h"
#include "core/results.h"

#define PKG_W 30.0
#define DRAM_W 4.0

static char root[256], cache_dir[256];
static gc_context *ctx;
static pthread_t writer;
static volatile int quit;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void put(const char *zone, const char *file, const char *text)
{
    char path[512], tmp[520];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", root, zone);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%s/%s", root, zone, file);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    /* Written aside and renamed: a reader never sees half a number. */
    f = fopen(tmp, "w");
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    rename(tmp, path);
}

/* Advances the fake counters every millisecond, as RAPL updates. */
static void *write_counters(void *arg)
{
    double t0 = now();
    char v[64];

    (void)arg;
    while (!quit) {
        double t = now() - t0;
        /* DRAM first, then the package: the meter takes a package change
         * as the update and reads DRAM right after it, so both values it
         * sees are of the same instant even if this thread is descheduled
         * between the two writes (a loaded 2-core machine does that for
         * tens of milliseconds). */
        snprintf(v, sizeof(v), "%.0f\n", 7e8 + DRAM_W * t * 1e6);
        put("intel-rapl:0:2", "energy_uj", v);
        snprintf(v, sizeof(v), "%.0f\n", 5e8 + PKG_W * t * 1e6);
        put("intel-rapl:0", "energy_uj", v);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof(root), "/tmp/gpuchar-test-energy-rapl-%ld", (long)getpid());
    snprintf(cache_dir, sizeof(cache_dir), "/tmp/gpuchar-test-energy-%ld", (long)getpid());
    mkdir(root, 0755);
    put("intel-rapl:0", "name", "package-0\n");
    put("intel-rapl:0", "max_energy_range_uj", "262143328850\n");
    put("intel-rapl:0:2", "name", "dram\n");
    put("intel-rapl:0:2", "max_energy_range_uj", "65712999613\n");
    put("intel-rapl:0", "energy_uj", "500000000\n");
    put("intel-rapl:0:2", "energy_uj", "700000000\n");
    return gc_context_create(&ctx) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[600];

    (void)state;
    gc_context_destroy(ctx);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", root, cache_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static struct gc_results *run(const char *const *pats)
{
    struct gc_run_options o;
    struct gc_results *res = NULL;

    gc_run_options_init(&o);
    o.device = "opencl:0";
    o.patterns = pats;
    o.profile = GC_PROFILE_QUICK;
    o.cache_dir = cache_dir;
    gc_run(ctx, &o, &res);
    assert_non_null(res);
    return res;
}

static double metric(const struct gc_results *res, const char *bench, const char *name)
{
    const struct gc_bench_result *b = gc__results_find(res, bench);
    const struct gc_metric *m = b ? gc__bench_find_metric(b, name) : NULL;

    return m ? m->value : NAN;
}

static void test_no_powercap(void **state)
{
    static const char *const pats[] = {"energy.idle", "energy.compute.fp32.fma", NULL};
    struct gc_results *res;

    (void)state;
    setenv("GPUCHAR_POWERCAP_ROOT", "/nonexistent/powercap", 1);
    res = run(pats);
    assert_int_equal(res->nbenches, 2);
    for (int i = 0; i < res->nbenches; i++) {
        assert_int_equal(res->benches[i].status, GC_BENCH_NOT_AVAILABLE);
        assert_non_null(strstr(res->benches[i].error, "RAPL"));
        assert_non_null(strstr(res->benches[i].error, "/nonexistent/powercap"));
        assert_int_equal(res->benches[i].nmetrics, 0);
    }
    gc_results_free(res);
    unsetenv("GPUCHAR_POWERCAP_ROOT");
}

/* Runs pats against the fake RAPL tree while its counters advance; every
 * benchmark must succeed. */
static struct gc_results *run_on_fake_rapl(const char *const *pats)
{
    struct gc_results *res;

    setenv("GPUCHAR_POWERCAP_ROOT", root, 1);
    quit = 0;
    assert_int_equal(pthread_create(&writer, NULL, write_counters, NULL), 0);
    res = run(pats);
    quit = 1;
    pthread_join(writer, NULL);
    unsetenv("GPUCHAR_POWERCAP_ROOT");
    for (int i = 0; i < res->nbenches; i++) {
        const struct gc_bench_result *b = &res->benches[i];

        if (b->status != GC_BENCH_OK)
            fprintf(stderr, "%s: %s\n", b->name, b->error);
        /* The L2 workload needs memory.bandwidth's L2 plateau, which a CPU
         * whose reported last level lies far above its footprints has not. */
        if (strcmp(b->name, "energy.memory.l2") == 0 && b->status == GC_BENCH_NOT_AVAILABLE &&
            strstr(b->error, "no L2 plateau"))
            continue;
        assert_int_equal(b->status, GC_BENCH_OK);
    }
    return res;
}

static void test_fake_rapl(void **state)
{
    static const char *const pats[] = {"energy.idle", "energy.compute.fp32.fma",
                                       "energy.memory.dram.read", NULL};
    struct gc_results *res;

    (void)state;
    res = run_on_fake_rapl(pats);
    /* The meter measures the rate the counters advance at. The writer's
     * own scheduling jitters the counter by a millisecond or two per
     * update; a window holds hundreds of them. */
    double idle = metric(res, "energy.idle", "idle_power_avg");
    assert_true(fabs(idle - PKG_W) < 0.05 * PKG_W);
    assert_true(fabs(metric(res, "energy.idle", "idle_dram_power_avg") - DRAM_W) < 0.05 * DRAM_W);
    assert_true(metric(res, "energy.idle", "counter_resolution") > 0);
    assert_true(metric(res, "energy.idle", "counter_update_period") > 0);
    /* No static power without an in-kernel timer: the reason is given. */
    const struct gc_bench_result *b = gc__results_find(res, "energy.idle");
    const struct gc_metric *st = gc__bench_find_metric(b, "static_power");
    assert_non_null(st);
    assert_true(isnan(st->value));
    assert_non_null(strstr(st->note, "idle power"));
    /* Energy per op is power over the work done in the same windows. */
    for (int i = 1; i < 3; i++) {
        const char *bn = pats[i];
        double p = metric(res, bn, "power_avg"), thr = metric(res, bn, "throughput");
        double busy = metric(res, bn, "busy_fraction"), e = metric(res, bn, "energy_per_op");
        assert_true(fabs(p - PKG_W) < 0.05 * PKG_W);
        assert_true(busy > 0.5 && busy <= 1.0);
        assert_true(e > 0);
        assert_true(fabs(e * 1e-12 * thr * busy - p) < 1e-6 * p);
        /* RAPL has no separate sensor: no check is claimed. */
        assert_true(isnan(metric(res, bn, "counter_vs_integral")));
        assert_true(metric(res, bn, "energy") > 0 && metric(res, bn, "time") > 0);
    }
    assert_true(metric(res, "energy.memory.dram.read", "energy_per_byte") > 0);
    /* compute.fp32.fma did not run: its default configuration, said so. */
    const struct gc_metric *th =
        gc__bench_find_metric(gc__results_find(res, "energy.compute.fp32.fma"), "throughput");
    assert_non_null(th);
    assert_non_null(strstr(th->note, "default configuration (the performance benchmark "
                                     "compute.fp32.fma did not run in this run)"));
    gc_results_free(res);
}

static const char *throughput_note(const struct gc_results *res, const char *bench)
{
    const struct gc_bench_result *b = gc__results_find(res, bench);
    const struct gc_metric *m = b ? gc__bench_find_metric(b, "throughput") : NULL;

    assert_non_null(m);
    return m->note;
}

/* With the performance benchmarks run first in the same run, each energy
 * benchmark runs its kernel at the configuration its benchmark wrote into
 * the results tree (or says why that one was refused); never at the default
 * configuration as if the benchmark had not run. */
static void test_peak_configuration(void **state)
{
    static const char *const pats[] = {"compute.fp32.fma",        "memory.constant",
                                       "memory.shared",           "memory.bandwidth",
                                       "energy.compute.fp32.fma", "energy.memory.constant",
                                       "energy.memory.shared",    "energy.memory.l1",
                                       "energy.memory.l2",        NULL};
    struct gc_results *res;

    (void)state;
    res = run_on_fake_rapl(pats);
    const char *n = throughput_note(res, "energy.compute.fp32.fma");
    assert_non_null(strstr(n, "at the configuration compute.fp32.fma found in this run"));
    /* The peak's own configuration: the benchmark's note names it. */
    const struct gc_metric *pk =
        gc__bench_find_metric(gc__results_find(res, "compute.fp32.fma"), "throughput");
    assert_non_null(pk);
    const char *ilp = strstr(pk->note, "ILP ");
    assert_non_null(ilp);
    char cfg[40];
    snprintf(cfg, sizeof(cfg), "%.*s", (int)strcspn(ilp, ","), ilp);
    assert_non_null(strstr(n, cfg));
    /* Read from the benchmark's configuration in the results tree. */
    int v = 0;
    assert_true(gc__config_int(gc__results_find(res, "compute.fp32.fma"), NULL, "ilp", &v));
    snprintf(cfg, sizeof(cfg), "ILP %d,", v);
    assert_non_null(strstr(n, cfg));
    assert_non_null(strstr(throughput_note(res, "energy.memory.constant"),
                           "at the configuration memory.constant found in this run"));
    assert_non_null(strstr(throughput_note(res, "energy.memory.shared"),
                           "at the configuration memory.shared found in this run"));
    /* A CPU's L1 plateau may lie at any footprint: above 64 KiB the record
     * is refused, with the reason; never "did not run". */
    for (int l = 1; l <= 2; l++) {
        const char *name = l == 1 ? "energy.memory.l1" : "energy.memory.l2";

        if (gc__results_find(res, name)->status != GC_BENCH_OK)
            continue; /* no L2 plateau: said above */
        n = throughput_note(res, name);
        assert_true(strstr(n, "at the configuration memory.bandwidth found in this run") ||
                    strstr(n, "memory.bandwidth's was not used"));
    }
    gc_results_free(res);
}

static void test_host_powercap(void **state)
{
    static const char *const pats[] = {"energy.idle", NULL};
    struct gc_powercap pc;
    char why[600];
    struct gc_results *res;

    (void)state;
    unsetenv("GPUCHAR_POWERCAP_ROOT");
    bool readable = gc__powercap_open(NULL, &pc, why, sizeof(why)) == 0;
    res = run(pats);
    assert_int_equal(res->nbenches, 1);
    if (readable) {
        /* The machine's own counters: a real figure (or a failed check
         * that says why), never "not available". */
        assert_int_not_equal(res->benches[0].status, GC_BENCH_NOT_AVAILABLE);
        if (res->benches[0].status == GC_BENCH_OK)
            assert_true(metric(res, "energy.idle", "idle_power_avg") > 0);
    } else {
        assert_int_equal(res->benches[0].status, GC_BENCH_NOT_AVAILABLE);
        assert_non_null(strstr(res->benches[0].error, "RAPL"));
    }
    gc_results_free(res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_powercap),
        cmocka_unit_test(test_fake_rapl),
        cmocka_unit_test(test_peak_configuration),
        cmocka_unit_test(test_host_powercap),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
