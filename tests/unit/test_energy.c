/* The energy meter: window analysis of counter traces (updates, wraps,
 * counters that stop), the host's RAPL counters read from a fake powercap
 * tree (readable, unreadable, absent), and the meter end to end on the
 * simulated device's energy counter (resolution, power, a counter that goes
 * backwards and the interval measured again). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/null/null.h"
#include "bench/bench.h"
#include "core/energy.h"
#include "core/powercap.h"
#include "core/session.h"

/* ---- window analysis ----------------------------------------------------- */

/* A steady load of watts: the counter updates every period seconds (with
 * mJ resolution), power samples every 5 ms. */
static void steady_trace(double watts, double period, double dur, struct gc_energy_point *e,
                         int *ne, struct gc_power_point *p, int *np)
{
    *ne = *np = 0;
    for (double t = 0; t <= dur; t += period)
        e[(*ne)++] = (struct gc_energy_point){t, floor(watts * t * 1e3) * 1e-3 + 1000.0, NAN};
    for (double t = 0.0025; t <= dur; t += 0.005)
        p[(*np)++] = (struct gc_power_point){t, watts};
}

static void test_analyse_steady(void **state)
{
    struct gc_energy_point e[512];
    struct gc_power_point p[1024];
    struct gc_energy_window w;
    int ne, np;

    (void)state;
    steady_trace(350.0, 0.02, 2.0, e, &ne, p, &np);
    gc__energy_analyse(e, ne, p, np, 0.5, 1.0, &w);
    assert_true(w.ok);
    /* Bounded by the updates inside the window. */
    assert_true(w.t0 >= 0.5 && w.t1 <= 1.0 && w.t1 - w.t0 > 0.45);
    assert_true(fabs(w.power_avg_w - 350.0) < 350.0 * 0.005);
    assert_true(fabs(w.energy_j - 350.0 * (w.t1 - w.t0)) < 0.01);
    assert_true(w.disagreement < 0.01);
    assert_true(fabs(w.period_s - 0.02) < 1e-9);
    assert_true(fabs(w.step_j - 7.0) < 0.01);
    assert_true(fabs(w.power_max_w - 350.0) < 1e-9);
    assert_int_equal(w.updates, (int)lround((w.t1 - w.t0) / 0.02));
}

static void test_analyse_power_step_disagrees(void **state)
{
    struct gc_energy_point e[512];
    struct gc_power_point p[1024];
    struct gc_energy_window w;
    int ne, np;

    (void)state;
    steady_trace(200.0, 0.01, 2.0, e, &ne, p, &np);
    /* Samples that read 10% high: the check must see it. */
    for (int i = 0; i < np; i++)
        p[i].w *= 1.10;
    gc__energy_analyse(e, ne, p, np, 0.2, 1.2, &w);
    assert_true(w.ok);
    assert_true(w.disagreement > 0.09 && w.disagreement < 0.11);
}

static void test_analyse_backwards(void **state)
{
    struct gc_energy_point e[512];
    struct gc_power_point p[1024];
    struct gc_energy_window w;
    int ne, np;

    (void)state;
    steady_trace(100.0, 0.02, 2.0, e, &ne, p, &np);
    /* A wrap inside the window: the counter restarts near zero. */
    for (int i = 0; i < ne; i++)
        if (e[i].t > 0.7)
            e[i].e -= 1000.0;
    gc__energy_analyse(e, ne, p, np, 0.5, 1.0, &w);
    assert_false(w.ok);
    assert_non_null(strstr(w.why, "backwards"));
    /* A window after the wrap is fine again. */
    gc__energy_analyse(e, ne, p, np, 1.0, 1.5, &w);
    assert_true(w.ok);
    assert_true(fabs(w.power_avg_w - 100.0) < 1.0);
}

static void test_analyse_no_update(void **state)
{
    struct gc_energy_point e[4] = {{0.0, 5.0, NAN}, {3.0, 6.0, NAN}};
    struct gc_energy_window w;

    (void)state;
    /* No update inside: no energy, never a zero. */
    gc__energy_analyse(e, 2, NULL, 0, 1.0, 2.0, &w);
    assert_false(w.ok);
    assert_non_null(strstr(w.why, "did not advance"));
    /* Two updates with the same value: zero energy is refused. */
    struct gc_energy_point f[3] = {{0.0, 5.0, NAN}, {1.2, 5.0, NAN}, {1.8, 5.0, NAN}};
    gc__energy_analyse(f, 3, NULL, 0, 1.0, 2.0, &w);
    assert_false(w.ok);
    assert_non_null(strstr(w.why, "no energy"));
}

/* ---- RAPL from a fake powercap tree -------------------------------------- */

static char root[256];

static void put(const char *zone, const char *file, const char *text)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", root, zone);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%s/%s", root, zone, file);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int rapl_setup(void **state)
{
    (void)state;
    snprintf(root, sizeof(root), "/tmp/gpuchar-test-rapl-%ld", (long)getpid());
    mkdir(root, 0755);
    return 0;
}

static int rapl_teardown(void **state)
{
    char cmd[300];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_rapl_readable(void **state)
{
    struct gc_powercap pc;
    char why[600] = "";
    double pkg, dram;

    (void)state;
    put("intel-rapl:0", "name", "package-0\n");
    put("intel-rapl:0", "energy_uj", "1500000\n");
    put("intel-rapl:0", "max_energy_range_uj", "262143328850\n");
    put("intel-rapl:1", "name", "package-1\n");
    put("intel-rapl:1", "energy_uj", "2500000\n");
    put("intel-rapl:0:0", "name", "core\n");
    put("intel-rapl:0:0", "energy_uj", "999\n");
    put("intel-rapl:0:2", "name", "dram\n");
    put("intel-rapl:0:2", "energy_uj", "700000\n");
    /* The MMIO interface repeats package 0: counting it would double it. */
    put("intel-rapl-mmio:0", "name", "package-0\n");
    put("intel-rapl-mmio:0", "energy_uj", "1500000\n");
    assert_int_equal(gc__powercap_open(root, &pc, why, sizeof(why)), 0);
    assert_int_equal(pc.npackages, 2);
    assert_int_equal(pc.ndram, 1);
    assert_true(fabs(pc.z[0].range_j - 262143.32885) < 1e-6);
    assert_int_equal(gc__powercap_read(&pc, &pkg, &dram, why, sizeof(why)), 0);
    assert_true(fabs(pkg - 4.0) < 1e-9);
    assert_true(fabs(dram - 0.7) < 1e-9);
    /* A wrap shows as a decrease of the sum. */
    put("intel-rapl:1", "energy_uj", "100\n");
    double pkg2;
    assert_int_equal(gc__powercap_read(&pc, &pkg2, &dram, why, sizeof(why)), 0);
    assert_true(pkg2 < pkg);
    /* The environment variable names the root. */
    setenv("GPUCHAR_POWERCAP_ROOT", root, 1);
    assert_int_equal(gc__powercap_open(NULL, &pc, why, sizeof(why)), 0);
    assert_string_equal(pc.root, root);
    unsetenv("GPUCHAR_POWERCAP_ROOT");
}

static void test_rapl_unreadable(void **state)
{
    struct gc_powercap pc;
    char why[600] = "", path[512];

    (void)state;
    /* A counter that cannot be read: a directory stands for a file root may
     * not read (permissions do not stop root). */
    put("intel-rapl:0", "name", "package-0\n");
    snprintf(path, sizeof(path), "%s/intel-rapl:0/energy_uj", root);
    unlink(path);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(gc__powercap_open(root, &pc, why, sizeof(why)), GC_ENOTSUP);
    assert_non_null(strstr(why, "not readable"));
    assert_non_null(strstr(why, "energy_uj"));
    rmdir(path);
    if (geteuid() != 0) {
        /* Not root: the permission itself, with the kernel's rule named. */
        put("intel-rapl:0", "energy_uj", "1\n");
        chmod(path, 0);
        assert_int_equal(gc__powercap_open(root, &pc, why, sizeof(why)), GC_ENOTSUP);
        assert_non_null(strstr(why, "root"));
    }
}

static void test_rapl_absent(void **state)
{
    struct gc_powercap pc;
    char why[600] = "";

    (void)state;
    assert_int_equal(gc__powercap_open("/nonexistent/powercap", &pc, why, sizeof(why)), GC_ENOTSUP);
    assert_non_null(strstr(why, "/nonexistent/powercap"));
    /* A powercap tree without RAPL zones. */
    put("dtpm:0", "name", "soc\n");
    assert_int_equal(gc__powercap_open(root, &pc, why, sizeof(why)), GC_ENOTSUP);
    assert_non_null(strstr(why, "no RAPL package zone"));
}

/* ---- the meter on the simulated device ----------------------------------- */

static struct gc_device *dev;
static struct gc_session sess;
static volatile sig_atomic_t stop_flag;

static void open_null_cfg(const struct gc_null_config *cfg)
{
    char why[256], err[256];

    gc__null_configure(cfg);
    assert_int_equal(gc__null_ops.init(why, sizeof(why)), 0);
    assert_int_equal(gc__device_open(&gc__null_ops, 0, &dev, err, sizeof(err)), 0);
    memset(&sess, 0, sizeof(sess));
    stop_flag = 0;
    sess.dev = dev;
    sess.stop = &stop_flag;
    sess.profile = GC_PROFILE_QUICK;
}

static void open_null(double watts, long backwards_at)
{
    struct gc_null_config cfg = {.launch_s = 1e-3,
                                 .noise_rel = 0.0,
                                 .seed = 7,
                                 .power_w = watts,
                                 .energy_period_s = 0.01,
                                 .energy_backwards_at = backwards_at};

    open_null_cfg(&cfg);
}

static int null_teardown(void **state)
{
    (void)state;
    gc__device_close(dev);
    dev = NULL;
    gc__null_configure(NULL);
    return 0;
}

static void test_meter_absent(void **state)
{
    struct gc_energy_meter *m = NULL;
    char why[600] = "";

    (void)state;
    open_null(0, 0);
    assert_int_equal(gc__energy_open(dev, &m, why, sizeof(why)), GC_ENOTSUP);
    assert_null(m);
    assert_non_null(strstr(why, "no energy counter"));
    assert_non_null(strstr(why, "no simulated power meter"));
}

static void test_meter_resolution_and_power(void **state)
{
    struct gc_energy_meter *m = NULL;
    struct gc_energy_resolution res;
    struct gc_energy_cfg cfg;
    struct gc_energy_run run;
    char why[600] = "";

    (void)state;
    open_null(80.0, 0);
    assert_int_equal(gc__energy_open(dev, &m, why, sizeof(why)), 0);
    assert_true(gc__energy_independent_power(m));
    assert_int_equal(gc__energy_resolution(m, 0.3, &res), 0);
    /* 80 W counted every 10 ms: the smallest step is one update, 0.8 J to
     * the mJ; a poll that is descheduled sees two updates as one, so the
     * median step and interval may grow, but the interval never falls below
     * the counter's own period. */
    assert_true(res.updates >= 5);
    assert_true(fabs(res.step_j - 0.8) < 0.0015);
    assert_true(res.median_step_j >= res.step_j);
    assert_true(res.period_s > 0.0095);
    assert_true(res.reads > res.updates);

    gc__energy_cfg_defaults(&cfg, GC_PROFILE_QUICK, &dev->info);
    cfg.settle_s = 0.05;
    cfg.window_s = 0.2;
    assert_int_equal(gc__energy_measure(&sess, m, NULL, NULL, &cfg, &run), 0);
    assert_true(run.windows >= cfg.min_windows);
    assert_int_equal(run.redone, 0);
    assert_true(fabs(run.power.median - 80.0) < 0.8);
    assert_true(run.disagreement_max < 0.05);
    assert_true(run.energy_j > 0 && fabs(run.integral_j - run.energy_j) < 0.05 * run.energy_j);
    assert_true(run.busy_fraction == 0); /* idle: nothing launched */
    gc__energy_close(m);
}

static void test_meter_backwards_redone(void **state)
{
    struct gc_energy_meter *m = NULL;
    struct gc_energy_cfg cfg;
    struct gc_energy_run run;
    char why[600] = "";

    (void)state;
    /* The 10 ms update number 20 (0.2 s after opening) reads 1 J low: the
     * first window holds it and must be measured again. */
    open_null(60.0, 20);
    assert_int_equal(gc__energy_open(dev, &m, why, sizeof(why)), 0);
    gc__energy_cfg_defaults(&cfg, GC_PROFILE_QUICK, &dev->info);
    cfg.settle_s = 0.0;
    cfg.window_s = 0.25;
    cfg.min_windows = 2;
    assert_int_equal(gc__energy_measure(&sess, m, NULL, NULL, &cfg, &run), 0);
    assert_true(run.redone >= 1);
    assert_non_null(strstr(run.redo_why, "backwards"));
    assert_true(run.windows >= 2);
    for (int i = 0; i < run.windows; i++)
        assert_true(run.w[i].energy_j > 0);
    assert_true(fabs(run.power.median - 60.0) < 0.6);
    gc__energy_close(m);
}

/* Four windows of 0.25 s on a null device whose counter gains 3 J at its
 * 10 ms update number 60 (0.6 s after opening) that the power samples never
 * saw (a transient between them): one window holds the jump. bound is the
 * meter's agreement bound (0: no check). */
static void measure_jump(double bound, struct gc_energy_run *run)
{
    struct gc_null_config ncfg = {.launch_s = 1e-3,
                                  .seed = 7,
                                  .power_w = 60.0,
                                  .energy_period_s = 0.01,
                                  .energy_jump_j = 3.0,
                                  .energy_jump_at = 60};
    struct gc_energy_meter *m = NULL;
    struct gc_energy_cfg cfg;
    char why[600] = "";

    open_null_cfg(&ncfg);
    assert_int_equal(gc__energy_open(dev, &m, why, sizeof(why)), 0);
    gc__energy_cfg_defaults(&cfg, GC_PROFILE_QUICK, &dev->info);
    cfg.settle_s = 0.0;
    cfg.window_s = 0.25;
    cfg.min_windows = 4;
    cfg.max_windows = 4;
    cfg.agree_bound = bound;
    assert_int_equal(gc__energy_measure(&sess, m, NULL, NULL, &cfg, run), 0);
    gc__energy_close(m);
}

/* The window that holds the jump disagrees with the integral by about 20%:
 * it is measured again, and the figure comes from windows that agree. */
static void test_meter_disagreeing_window_redone(void **state)
{
    struct gc_energy_run run;

    (void)state;
    measure_jump(0.05, &run);
    assert_true(run.redone >= 1);
    assert_non_null(strstr(run.redo_why, "disagreed"));
    assert_true(run.disagreement_max <= 0.05);
    assert_true(fabs(run.power.median - 60.0) < 0.6);
}

/* Without the check the same trace keeps that window. */
static void test_meter_disagreement_unchecked(void **state)
{
    struct gc_energy_run run;

    (void)state;
    measure_jump(0, &run);
    assert_int_equal(run.redone, 0);
    assert_true(run.disagreement_max > 0.05);
}

static void test_meter_waits_for_steady_state(void **state)
{
    struct gc_energy_meter *m = NULL;
    struct gc_energy_cfg cfg;
    struct gc_energy_run run;
    char why[600] = "";

    (void)state;
    /* 100 W plus a 60 W tail decaying with a 0.15 s time constant: the
     * first windows still ride the tail (their power falls window to
     * window), the figure must come from the flat part after it. */
    open_null(100.0, 0);
    gc__null_configure(&(struct gc_null_config){.launch_s = 1e-3,
                                                .seed = 7,
                                                .power_w = 100.0,
                                                .energy_period_s = 0.005,
                                                .power_excess_w = 60.0,
                                                .power_tau_s = 0.15});
    gc__device_close(dev);
    assert_int_equal(gc__device_open(&gc__null_ops, 0, &dev, why, sizeof(why)), 0);
    sess.dev = dev;
    assert_int_equal(gc__energy_open(dev, &m, why, sizeof(why)), 0);
    gc__energy_cfg_defaults(&cfg, GC_PROFILE_QUICK, &dev->info);
    cfg.settle_s = 0.0;
    cfg.window_s = 0.1;
    cfg.min_windows = 3;
    cfg.max_windows = 20;
    cfg.cv_bound = 0.01;
    assert_int_equal(gc__energy_measure(&sess, m, NULL, NULL, &cfg, &run), 0);
    assert_non_null(strstr(run.stop_rule, "trend"));
    assert_true(run.settling_windows >= 2);
    assert_int_equal(run.windows, cfg.min_windows);
    /* At the first kept window the tail is below 2% of the base power. */
    assert_true(run.power.median < 102.0);
    assert_true(run.power.median > 99.0);
    gc__energy_close(m);
}

static void test_meter_busy(void **state)
{
    struct gc_energy_meter *m = NULL;
    struct gc_energy_cfg cfg;
    struct gc_energy_run run;
    char why[600] = "";
    void *bin = NULL;
    size_t len = 0;
    char *log = NULL;
    struct gc_prog *p = NULL;
    struct gc_kern *k = NULL;

    (void)state;
    open_null(40.0, 0);
    assert_int_equal(dev->ops->compile(dev->dev, "kernel", NULL, &bin, &len, &log), 0);
    assert_int_equal(dev->ops->load(dev->dev, bin, len, &p), 0);
    assert_int_equal(dev->ops->kernel(p, "k", &k), 0);
    assert_int_equal(gc__energy_open(dev, &m, why, sizeof(why)), 0);
    gc__energy_cfg_defaults(&cfg, GC_PROFILE_QUICK, &dev->info);
    cfg.settle_s = 0.05;
    cfg.window_s = 0.15;
    struct gc_launch l = {{1, 1, 1}, {32, 1, 1}, 0, NULL, 0, 1};
    assert_int_equal(gc__energy_measure(&sess, m, k, &l, &cfg, &run), 0);
    assert_true(run.launches > 0);
    /* The simulated launch takes 1 ms of device time. */
    assert_true(fabs(run.launch_s - 1e-3) < 1e-9);
    assert_true(run.busy_fraction > 0 && run.busy_fraction <= 1);
    gc__energy_close(m);
    dev->ops->unload(p);
    free(bin);
    free(log);
}

static const struct gc_bench *find_bench(const char *name)
{
    for (int i = 0; gc__bench_at(i); i++)
        if (strcmp(gc__bench_at(i)->info.name, name) == 0)
            return gc__bench_at(i);
    return NULL;
}

/* The family is opt-in (left out of the default and quick runs, run with
 * --full or a pattern naming it); run, it says why on a device without a
 * meter. */
static void test_opt_in(void **state)
{
    static const char *const pats[] = {"energy.*", NULL};
    const struct gc_bench *b = find_bench("energy.idle");
    struct gc_bench_result r;

    (void)state;
    assert_non_null(b);
    assert_string_equal(b->info.group, "energy");
    for (int i = 0; gc__bench_at(i); i++)
        assert_true(gc__bench_at(i)->opt_in ==
                    (strncmp(gc__bench_at(i)->info.name, "energy.", 7) == 0));
    open_null(0, 0);
    memset(&r, 0, sizeof(r));
    sess.patterns = pats;
    assert_int_equal(b->run(&sess, b, &r), 0);
    assert_int_equal(r.status, GC_BENCH_NOT_AVAILABLE);
    assert_non_null(strstr(r.error, "no energy counter"));
    gc__energy_state_free(sess.energy);
    sess.energy = NULL;
    sess.patterns = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_analyse_steady),
        cmocka_unit_test(test_analyse_power_step_disagrees),
        cmocka_unit_test(test_analyse_backwards),
        cmocka_unit_test(test_analyse_no_update),
        cmocka_unit_test_setup_teardown(test_rapl_readable, rapl_setup, rapl_teardown),
        cmocka_unit_test_setup_teardown(test_rapl_unreadable, rapl_setup, rapl_teardown),
        cmocka_unit_test_setup_teardown(test_rapl_absent, rapl_setup, rapl_teardown),
        cmocka_unit_test_teardown(test_meter_absent, null_teardown),
        cmocka_unit_test_teardown(test_meter_resolution_and_power, null_teardown),
        cmocka_unit_test_teardown(test_meter_backwards_redone, null_teardown),
        cmocka_unit_test_teardown(test_meter_disagreeing_window_redone, null_teardown),
        cmocka_unit_test_teardown(test_meter_disagreement_unchecked, null_teardown),
        cmocka_unit_test_teardown(test_meter_waits_for_steady_state, null_teardown),
        cmocka_unit_test_teardown(test_meter_busy, null_teardown),
        cmocka_unit_test_teardown(test_opt_in, null_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
