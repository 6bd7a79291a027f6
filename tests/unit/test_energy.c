/* The energy meter: window analysis of counter traces (updates, wraps,
 * counters that stop), the host's RAPL counters read from a fake powercap
 * tree (readable, unreadable, absent), and the meter end to end on the
 * simulated device's energy counter (resolution, power, a counter that goes
 * backwards and the interval measured again); the 2% rule on a coarse
 * counter (windows lengthened, the figure's uncertainty), the power limit
 * judged with that uncertainty, and counters that never move or read
 * implausible powers ("not available"). */
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
#include "core/guard.h"
#include "core/powercap.h"
#include "core/results.h"
#include "core/session.h"

/* ---- window analysis ----------------------------------------------------- */

/* A steady load of watts: the counter updates every period seconds (with
 * mJ resolution), power samples every 5 ms. */
static void steady_trace(double watts, double period, double dur, struct gc_energy_point *e,
                         int *ne, struct gc_power_point *p, int *np)
{
    *ne = *np = 0;
    for (double t = 0; t <= dur; t += period)
        e[(*ne)++] = (struct gc_energy_point){t, floor(watts * t * 1e3) * 1e-3 + 1000.0, NAN, 0};
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
    struct gc_energy_point e[4] = {{0.0, 5.0, NAN, 0}, {3.0, 6.0, NAN, 0}};
    struct gc_energy_window w;

    (void)state;
    /* No update inside: no energy, never a zero. */
    gc__energy_analyse(e, 2, NULL, 0, 1.0, 2.0, &w);
    assert_false(w.ok);
    assert_non_null(strstr(w.why, "did not advance"));
    /* Two updates with the same value: zero energy is refused. */
    struct gc_energy_point f[3] = {{0.0, 5.0, NAN, 0}, {1.2, 5.0, NAN, 0}, {1.8, 5.0, NAN, 0}};
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
    /* The 10 ms update number 40 (0.4 s after opening, after the meter's
     * opening probe) reads 1 J low: one of the first windows holds it and
     * must be measured again. */
    open_null(60.0, 40);
    assert_int_equal(gc__energy_open(dev, &m, why, sizeof(why)), 0);
    gc__energy_cfg_defaults(&cfg, GC_PROFILE_QUICK, &dev->info);
    cfg.settle_s = 0.0;
    cfg.window_s = 0.25;
    cfg.min_windows = 2;
    cfg.max_windows = 2;
    cfg.target_rel = 0; /* windows of window_s: the bad update falls in the first */
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
    cfg.target_rel = 0; /* windows of window_s: the jump falls in one */
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
    cfg.target_rel = 0; /* short windows, so that the first ones ride the tail */
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

/* ---- the 2% rule, the figure's uncertainty, the power limit ------------- */

/* The window the rule asks for: one step within 2% of the energy counted
 * between the first and last updates inside it (up to two periods
 * shorter), longer at lower power, bounded by the cap. */
static void test_window_for(void **state)
{
    struct gc_energy_cfg c;
    struct gc_device_info info;
    double q = 12.27, per = 0.1, prev = 0;

    (void)state;
    memset(&info, 0, sizeof(info));
    info.type = GC_DEVICE_GPU;
    gc__energy_cfg_defaults(&c, GC_PROFILE_QUICK, &info);
    assert_true(c.target_rel > 0 && c.target_rel <= 0.02);
    for (double p = 1400; p >= 100; p /= 2) {
        double t = gc__energy_window_for(q, p, per, &c);

        if (t < c.max_window_s) {
            assert_true(q <= c.target_rel * p * (t - 2 * per));
            assert_true(t >= c.window_s);
        }
        assert_true(t <= c.max_window_s);
        assert_true(t >= prev); /* longer at lower power */
        prev = t;
    }
    /* A fine counter (1 mJ) keeps the configured window. */
    assert_true(gc__energy_window_for(1e-3, 700, 0.01, &c) == c.window_s);
    /* Nothing known yet: the configured window. */
    assert_true(gc__energy_window_for(NAN, 700, per, &c) == c.window_s);
    assert_true(gc__energy_window_for(q, NAN, per, &c) == c.window_s);
    c.target_rel = 0;
    assert_true(gc__energy_window_for(q, 100, per, &c) == c.window_s);
}

/* The H200's figure (730 W from the counter over 0.385 s, one 12.27 J step
 * = +-32 W, every sample <= 713 W) against its 700 W limit is a warning,
 * never a failure; a precise excursion shorter than the controller's
 * period likewise; the same sustained for the period fails, as does twice
 * the limit. */
static void test_power_limit_check(void **state)
{
    char msg[400];

    (void)state;
    assert_int_equal(gc__power_limit_check(730, 12.27 / 0.385, 0.385, 700, msg, sizeof(msg)),
                     GC_POWER_WARN);
    assert_non_null(strstr(msg, "within its uncertainty"));
    assert_int_equal(gc__power_limit_check(730, 5, 0.385, 700, msg, sizeof(msg)), GC_POWER_WARN);
    assert_non_null(strstr(msg, "short excursion"));
    assert_int_equal(gc__power_limit_check(730, 5, GC_POWER_LIMIT_PERIOD_S, 700, msg, sizeof(msg)),
                     GC_POWER_OVER);
    assert_non_null(strstr(msg, "more than its uncertainty"));
    assert_int_equal(gc__power_limit_check(1400, 28, 2.0, 700, msg, sizeof(msg)), GC_POWER_OVER);
    assert_int_equal(gc__power_limit_check(690, 14, 2.0, 700, msg, sizeof(msg)), GC_POWER_WITHIN);
    assert_string_equal(msg, "");
    assert_int_equal(gc__power_limit_check(730, 5, 2.0, NAN, msg, sizeof(msg)), GC_POWER_WITHIN);
    /* The controller's period is at least the 1 s NVML averages its power
     * over. */
    assert_true(GC_POWER_LIMIT_PERIOD_S >= 1.0);
}

/* A coarse counter: steps of 1.2 J (the counter reads the energy rounded
 * down to them) at 100 W, i.e. one step per 12 ms; the configured 0.1 s
 * windows would count only 8 steps. */
static void open_coarse(double watts, double limit_w)
{
    struct gc_null_config cfg = {.launch_s = 1e-3,
                                 .seed = 7,
                                 .power_w = watts,
                                 .energy_period_s = 0.01,
                                 .energy_quantum_j = 1.2,
                                 .power_limit_w = limit_w};

    open_null_cfg(&cfg);
}

/* The meter lengthens the windows until a step is within 2% of each
 * window's energy; the figure states an uncertainty of at most 2% that
 * holds the true power, and its source (the counter: the sensor's 5 W is
 * 5% here). */
static void test_coarse_counter(void **state)
{
    struct gc_energy_meter *m = NULL;
    struct gc_energy_cfg cfg;
    struct gc_energy_run run;
    char why[600] = "";

    (void)state;
    open_coarse(100.0, 0);
    assert_int_equal(gc__energy_open(dev, &m, why, sizeof(why)), 0);
    gc__energy_cfg_defaults(&cfg, GC_PROFILE_QUICK, &dev->info);
    cfg.settle_s = 0.1;
    cfg.window_s = 0.1;
    assert_int_equal(gc__energy_measure(&sess, m, NULL, NULL, &cfg, &run), 0);
    assert_true(run.windows >= cfg.min_windows);
    /* The step the meter saw is the counter's (a multiple of 1.2 J). */
    assert_true(run.quantum_j > 1.19 && run.quantum_j < 2.41);
    for (int i = 0; i < run.windows; i++)
        assert_true(run.quantum_j <= cfg.target_rel * run.w[i].energy_j * 1.0001);
    assert_true(run.window_s > 0.1);
    assert_false(run.from_integral);
    assert_true(run.u_rel <= cfg.target_rel + 1e-9);
    /* One step over the longest window is the least it can claim. */
    for (int i = 0; i < run.windows; i++)
        assert_true(run.u_w >= run.quantum_j / (run.w[i].t1 - run.w[i].t0) * 0.9999);
    /* The truth lies within the stated uncertainty. */
    assert_true(fabs(run.power.median - 100.0) <= run.u_w);
    assert_true(fabs(run.sustained_w - 100.0) <= run.sustained_u_w);
    gc__energy_close(m);
}

/* With windows capped below what the rule needs, the sensor's integral
 * (5 W) beats the counter (a 1.2 J step over < 0.06 s: > 20 W): the figure
 * says it uses the integral and carries the sensor's uncertainty. */
static void test_coarse_counter_integral(void **state)
{
    struct gc_energy_meter *m = NULL;
    struct gc_energy_cfg cfg;
    struct gc_energy_run run;
    char why[600] = "";

    (void)state;
    open_coarse(100.0, 0);
    assert_int_equal(gc__energy_open(dev, &m, why, sizeof(why)), 0);
    gc__energy_cfg_defaults(&cfg, GC_PROFILE_QUICK, &dev->info);
    cfg.settle_s = 0.05;
    cfg.window_s = 0.06;
    cfg.max_window_s = 0.06;
    cfg.agree_bound = 0; /* 0.06 s windows of a 1.2 J counter disagree by design */
    assert_int_equal(gc__energy_measure(&sess, m, NULL, NULL, &cfg, &run), 0);
    assert_true(run.u_counter_w > GC_ENERGY_SENSOR_TOL_W);
    assert_true(run.from_integral);
    assert_true(run.u_w == GC_ENERGY_SENSOR_TOL_W);
    assert_true(fabs(run.power.median - 100.0) <= run.u_w);
    gc__energy_close(m);
}

/* energy.idle on the coarse counter, run as the family runs it: the
 * figure's uncertainty, source and window length are metrics. */
static struct gc_bench_result *run_idle_bench(struct gc_results **res, int want_rc)
{
    static const char *const pats[] = {"energy.*", NULL};
    const struct gc_bench *b = NULL;

    for (int i = 0; gc__bench_at(i); i++)
        if (strcmp(gc__bench_at(i)->info.name, "energy.idle") == 0)
            b = gc__bench_at(i);
    assert_non_null(b);
    *res = gc__results_new();
    assert_non_null(*res);
    struct gc_bench_result *r = gc__results_add_bench(*res, "energy.idle", "energy");
    sess.patterns = pats;
    int rc = b->run(&sess, b, r);
    gc__energy_state_free(sess.energy);
    sess.energy = NULL;
    sess.patterns = NULL;
    if (rc != want_rc)
        print_error("energy.idle returned %d: %s\n", rc, r->error);
    assert_int_equal(rc, want_rc);
    return r;
}

/* A board drawing exactly its limit (100 W), measured to +-2% on the
 * coarse counter: whichever side of the limit the figure falls, it is a
 * figure, never a failure, and above the limit it carries a warning that
 * says so; the uncertainty, source and window are reported. */
static void test_limit_within_uncertainty(void **state)
{
    struct gc_results *res;
    struct gc_bench_result *r;

    (void)state;
    open_coarse(100.0, 100.0);
    r = run_idle_bench(&res, 0);
    assert_int_equal(r->status, GC_BENCH_OK);
    if (r->warning[0])
        assert_non_null(strstr(r->warning, "within its uncertainty"));
    const struct gc_metric *u = gc__bench_find_metric(r, "idle_power_uncertainty_pct");
    const struct gc_metric *uw = gc__bench_find_metric(r, "idle_power_uncertainty");
    const struct gc_metric *wl = gc__bench_find_metric(r, "idle_window_length");
    const struct gc_metric *p = gc__bench_find_metric(r, "idle_power_avg");
    assert_non_null(u);
    assert_non_null(uw);
    assert_non_null(wl);
    assert_non_null(p);
    assert_true(u->value > 0 && u->value <= 100 * GC_ENERGY_TARGET_REL + 1e-9);
    assert_true(fabs(uw->value / p->value * 100 - u->value) < 1e-9);
    assert_true(fabs(p->value - 100.0) <= uw->value);
    assert_true(wl->value > 0.1);
    assert_non_null(strstr(u->note, "source: counter"));
    assert_non_null(strstr(p->note, "source: counter"));
    gc_results_free(res);
}

/* Twice the limit, sustained for seconds: impossible, the benchmark fails
 * naming the limit. */
static void test_limit_twice_fails(void **state)
{
    struct gc_results *res;
    struct gc_bench_result *r;

    (void)state;
    open_coarse(100.0, 50.0);
    r = run_idle_bench(&res, GC_ERANGE);
    assert_int_equal(r->status, GC_BENCH_ERROR);
    assert_non_null(strstr(r->error, "above the enforced power limit 50 W"));
    gc_results_free(res);
}

/* A counter that never moves (steps far above anything the device draws):
 * the meter does not open, and the family says "not available" with the
 * reason rather than failing. */
static void test_unmoving_counter(void **state)
{
    struct gc_null_config cfg = {
        .launch_s = 1e-3, .seed = 7, .power_w = 100.0, .energy_quantum_j = 1e12};
    struct gc_energy_meter *m = NULL;
    struct gc_results *res;
    struct gc_bench_result *r;
    char why[600] = "";

    (void)state;
    open_null_cfg(&cfg);
    assert_int_equal(gc__energy_open(dev, &m, why, sizeof(why)), GC_ENOTSUP);
    assert_null(m);
    assert_non_null(strstr(why, "did not advance"));
    r = run_idle_bench(&res, 0);
    assert_int_equal(r->status, GC_BENCH_NOT_AVAILABLE);
    assert_non_null(strstr(r->error, "did not advance"));
    gc_results_free(res);
}

/* A 1 GW reading: at opening (the sensor and the counter read it), or as a
 * jump of the counter during a measurement: "not available", never a
 * figure and never a failed benchmark. */
static void test_implausible_power(void **state)
{
    struct gc_null_config gw = {.launch_s = 1e-3, .seed = 7, .power_w = 1e9};
    struct gc_null_config jump = {.launch_s = 1e-3,
                                  .seed = 7,
                                  .power_w = 100.0,
                                  .energy_period_s = 0.01,
                                  .energy_jump_j = 2.5e8,
                                  .energy_jump_at = 40};
    struct gc_energy_meter *m = NULL;
    struct gc_energy_cfg cfg;
    struct gc_energy_run run;
    char why[600] = "";

    (void)state;
    open_null_cfg(&gw);
    assert_int_equal(gc__energy_open(dev, &m, why, sizeof(why)), GC_ENOTSUP);
    assert_non_null(strstr(why, "implausible"));
    null_teardown(NULL);
    open_null_cfg(&jump);
    assert_int_equal(gc__energy_open(dev, &m, why, sizeof(why)), 0);
    assert_true(gc__energy_ceiling(m) < 1e9);
    gc__energy_cfg_defaults(&cfg, GC_PROFILE_QUICK, &dev->info);
    cfg.settle_s = 0.0;
    cfg.window_s = 0.2;
    cfg.min_windows = 4;
    cfg.max_windows = 4;
    assert_int_equal(gc__energy_measure(&sess, m, NULL, NULL, &cfg, &run), GC_ENOTSUP);
    assert_non_null(strstr(run.redo_why, "implausible"));
    gc__energy_close(m);
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
    /* The peer links are opt-in too (in a one-device run they only say
     * "not available: one device"), and application.jacobi (a minute of
     * variants and host checks on a GPU). */
    for (int i = 0; gc__bench_at(i); i++)
        assert_true(gc__bench_at(i)->opt_in ==
                    (strncmp(gc__bench_at(i)->info.name, "energy.", 7) == 0 ||
                     strncmp(gc__bench_at(i)->info.name, "link.", 5) == 0 ||
                     strcmp(gc__bench_at(i)->info.name, "application.jacobi") == 0));
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
        cmocka_unit_test(test_window_for),
        cmocka_unit_test(test_power_limit_check),
        cmocka_unit_test_teardown(test_coarse_counter, null_teardown),
        cmocka_unit_test_teardown(test_coarse_counter_integral, null_teardown),
        cmocka_unit_test_teardown(test_limit_within_uncertainty, null_teardown),
        cmocka_unit_test_teardown(test_limit_twice_fails, null_teardown),
        cmocka_unit_test_teardown(test_unmoving_counter, null_teardown),
        cmocka_unit_test_teardown(test_implausible_power, null_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
