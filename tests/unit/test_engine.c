/* The measurement engine on the simulated (null) device: calibration,
 * stopping rules, throttled samples redone, interruption, cycle conversion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/null/null.h"
#include "core/measure.h"
#include "core/sensors.h"
#include "core/session.h"

struct fixture {
    struct gc_device *dev;
    struct gc_session s;
    struct gc_kern *k;
    struct gc_prog *p;
    volatile sig_atomic_t stop;
};

static struct fixture fx;

static void open_null(const struct gc_null_config *cfg)
{
    char why[256], err[256];
    void *bin = NULL;
    size_t len = 0;
    char *log = NULL;

    gc__null_configure(cfg);
    assert_int_equal(gc__null_ops.init(why, sizeof(why)), 0);
    assert_true(gc__null_ops.device_count() >= 1);
    assert_int_equal(gc__device_open(&gc__null_ops, 0, &fx.dev, err, sizeof(err)), 0);
    memset(&fx.s, 0, sizeof(fx.s));
    fx.stop = 0;
    fx.s.dev = fx.dev;
    fx.s.stop = &fx.stop;
    gc__sampling_defaults(&fx.s.sampling, GC_PROFILE_DEFAULT, true, 0, 0);
    assert_int_equal(fx.dev->ops->compile(fx.dev->dev, "kernel", NULL, &bin, &len, &log), 0);
    assert_int_equal(fx.dev->ops->load(fx.dev->dev, bin, len, &fx.p), 0);
    assert_int_equal(fx.dev->ops->kernel(fx.p, "k", &fx.k), 0);
    free(bin);
    free(log);
}

static int teardown(void **state)
{
    (void)state;
    if (fx.p)
        fx.dev->ops->unload(fx.p);
    fx.p = NULL;
    gc__device_close(fx.dev);
    fx.dev = NULL;
    if (gc__null_ops.fini)
        gc__null_ops.fini();
    return 0;
}

static const struct gc_launch one_launch = {{1, 1, 1}, {32, 1, 1}, 0, NULL, 0, 1};

static void test_noiseless_stops_on_spread(void **state)
{
    struct gc_null_config c = {.launch_s = 1e-3, .seed = 1};
    struct gc_measurement m;

    (void)state;
    open_null(&c);
    assert_int_equal(gc__measure(&fx.s, fx.s.sampling, fx.k, &one_launch, NULL, NULL, 0, &m), 0);
    assert_int_equal(m.samples, fx.s.sampling.min_samples);
    assert_string_equal(m.stop_rule, "spread<=0.50%");
    assert_float_equal(m.seconds.median, 1e-3, 1e-12);
    assert_float_equal(m.seconds.cv, 0.0, 1e-12);
    /* One sample lasts at least the target time. */
    assert_true(m.launches_per_sample * 1e-3 >= 0.8 * fx.s.sampling.target_sample_s);
    /* Cycles come from the simulated clock sensor (1500 MHz). */
    assert_string_equal(m.clock_source, "sensor");
    assert_float_equal(m.clock_mhz, 1500.0, 1e-9);
    assert_float_equal(m.cycles.median, 1e-3 * 1500e6, 1e-3);
    gc__measurement_free(&m);
}

static void test_noise_runs_to_max_samples(void **state)
{
    struct gc_null_config c = {.launch_s = 1e-3, .noise_rel = 0.2, .seed = 7};
    struct gc_measurement m;

    (void)state;
    open_null(&c);
    fx.s.sampling.max_samples = 9;
    fx.s.sampling.rel_spread = 1e-9;
    assert_int_equal(gc__measure(&fx.s, fx.s.sampling, fx.k, &one_launch, NULL, NULL, 0, &m), 0);
    assert_int_equal(m.samples, 9);
    assert_string_equal(m.stop_rule, "max-samples");
    assert_true(m.seconds.cv > 0);
    assert_true(m.seconds.min <= m.seconds.median && m.seconds.median <= m.seconds.max);
    gc__measurement_free(&m);
}

static void test_throttled_samples_are_redone_then_flagged(void **state)
{
    struct gc_null_config c = {.launch_s = 2e-3, .throttle_prob = 1.0, .seed = 3};
    struct gc_measurement m;

    (void)state;
    open_null(&c);
    fx.s.sampling.max_redo = 4;
    assert_int_equal(gc__measure(&fx.s, fx.s.sampling, fx.k, &one_launch, NULL, NULL, 0, &m), 0);
    assert_int_equal(m.redone, 4);
    assert_int_equal(m.throttled, m.samples);
    assert_int_equal(m.ctx.throttled_samples, m.samples);
    assert_int_equal(m.ctx.redone_samples, 4);
    gc__measurement_free(&m);
}

static void test_stop_request_interrupts(void **state)
{
    struct gc_null_config c = {.launch_s = 1e-3, .seed = 1};
    struct gc_measurement m;

    (void)state;
    open_null(&c);
    fx.stop = 1;
    assert_int_equal(gc__measure(&fx.s, fx.s.sampling, fx.k, &one_launch, NULL, NULL, 0, &m),
                     GC_EINTR);
    gc__measurement_free(&m);
}

static void test_flush_buffer_is_overwritten_before_samples(void **state)
{
    struct gc_null_config c = {.launch_s = 1e-3, .seed = 1};
    struct gc_measurement m;
    struct gc_buf *flush = NULL;
    unsigned char half[4096];

    (void)state;
    open_null(&c);
    /* The engine copies the first half of the flush buffer onto the second
     * before every sample: after a measurement the halves are equal. */
    assert_int_equal(gc__dev_alloc(fx.dev, 8192, &flush), 0);
    assert_int_equal(gc__dev_fill_random(fx.dev, flush, 8192, 42), 0);
    assert_int_equal(gc__measure(&fx.s, fx.s.sampling, fx.k, &one_launch, NULL, flush, 8192, &m),
                     0);
    assert_true(m.samples >= fx.s.sampling.min_samples);
    unsigned char a[4096];
    assert_int_equal(gc__dev_read(fx.dev, flush, 0, a, sizeof(a)), 0);
    assert_int_equal(gc__dev_read(fx.dev, flush, 4096, half, sizeof(half)), 0);
    assert_memory_equal(a, half, sizeof(a));
    gc__dev_free(fx.dev, flush);
    gc__measurement_free(&m);
}

static void test_profiles_and_overrides(void **state)
{
    struct gc_sampling q, d, f, o;

    (void)state;
    gc__sampling_defaults(&q, GC_PROFILE_QUICK, true, 0, 0);
    gc__sampling_defaults(&d, GC_PROFILE_DEFAULT, true, 0, 0);
    gc__sampling_defaults(&f, GC_PROFILE_FULL, true, 0, 0);
    assert_int_equal(d.max_samples, 25);
    assert_true(q.max_samples < d.max_samples && d.max_samples < f.max_samples);
    /* Quick samples are no longer than the default's; it takes no more and
     * a looser spread, with fewer at most. Every profile's floor leaves the
     * spread rule at least two degrees of freedom. */
    assert_true(q.target_sample_s <= d.target_sample_s);
    assert_true(q.min_samples <= d.min_samples && q.rel_spread > d.rel_spread);
    assert_true(q.max_samples < d.max_samples && d.min_samples < f.min_samples);
    assert_true(q.min_samples >= 3 && d.min_samples >= 3);
    assert_true(d.target_sample_s < f.target_sample_s);
    gc__sampling_defaults(&o, GC_PROFILE_DEFAULT, true, 2, 7.5);
    assert_int_equal(o.max_samples, 2);
    assert_true(o.min_samples <= 2);
    assert_float_equal(o.target_sample_s, 7.5e-3, 1e-15);
    /* A CPU device's samples are longer than a GPU's; an explicit
     * --min-time holds for both. */
    struct gc_sampling c;
    gc__sampling_defaults(&c, GC_PROFILE_DEFAULT, false, 0, 0);
    assert_true(c.target_sample_s > d.target_sample_s);
    /* ... and fewer: at least a CPU's quick profile's cap, at most the
     * GPU's. */
    struct gc_sampling cq;
    gc__sampling_defaults(&cq, GC_PROFILE_QUICK, false, 0, 0);
    assert_true(c.max_samples >= cq.max_samples && c.max_samples <= d.max_samples);
    assert_true(c.min_samples <= c.max_samples);
    gc__sampling_defaults(&c, GC_PROFILE_DEFAULT, false, 30, 0);
    assert_int_equal(c.max_samples, 30);
    gc__sampling_defaults(&c, GC_PROFILE_DEFAULT, false, 2, 7.5);
    assert_float_equal(c.target_sample_s, 7.5e-3, 1e-15);
}

/* A method's rules shape the defaults, and give way to what the user set:
 * --repeat holds against a least or most count, --min-time against a floor
 * or a sample time of the method's own; the record says which. */
static void test_method_rules_and_user_settings(void **state)
{
    struct gc_sampling d, u, b;
    struct gc_sampling_info rec;

    (void)state;
    gc__sampling_defaults(&d, GC_PROFILE_DEFAULT, false, 0, 0);
    assert_false(d.samples_set || d.sample_time_set);
    u = d;
    gc__sampling_least(&u, d.max_samples + 4);
    assert_int_equal(u.min_samples, d.max_samples + 4);
    assert_int_equal(u.max_samples, d.max_samples + 4);
    gc__sampling_most(&u, 3);
    assert_int_equal(u.max_samples, 3);
    assert_true(u.min_samples <= 3);
    gc__sampling_time_floor(&u, 4 * d.target_sample_s);
    assert_float_equal(u.target_sample_s, 4 * d.target_sample_s, 0);
    gc__sampling_time(&u, d.target_sample_s / 5);
    assert_float_equal(u.target_sample_s, d.target_sample_s / 5, 0);

    gc__sampling_defaults(&u, GC_PROFILE_DEFAULT, false, 2, 1);
    assert_true(u.samples_set && u.sample_time_set);
    b = u;
    gc__sampling_least(&b, 6);
    gc__sampling_most(&b, 1);
    gc__sampling_time_floor(&b, 0.02);
    gc__sampling_time(&b, 2e-4);
    assert_int_equal(b.max_samples, 2);
    assert_int_equal(b.min_samples, u.min_samples);
    assert_float_equal(b.target_sample_s, 1e-3, 0);

    /* A description's sustained-rate floor and sampling-time cap: on the
     * defaults, and not on the user's settings. */
    b = gc__sampling_for_bench(d, 0.02, 0.1, false);
    assert_float_equal(b.target_sample_s, 0.02, 0);
    assert_true(b.discard_calibration);
    assert_int_equal(b.max_samples, b.min_samples > 5 ? b.min_samples : 5);
    b = gc__sampling_for_bench(u, 0.02, 0.1, false);
    assert_float_equal(b.target_sample_s, 1e-3, 0);
    assert_int_equal(b.max_samples, 2);
    gc__sampling_record(&b, &rec);
    assert_int_equal(rec.max_samples, 2);
    assert_true(rec.repeat_explicit && rec.min_time_explicit);
    assert_float_equal(rec.min_time_s, 1e-3, 0);
}

/* A stopped sampler is parked on its device, still sampling, and the next
 * start takes it over: of the readings before the restart only the latest
 * is kept (the window's first); a second sampler started while one runs is
 * separate, and stopping both parks one and ends the other; the device's
 * close ends the parked one (ASan: no leak). */
static void test_sampler_parked_and_reused(void **state)
{
    struct gc_null_config c = {.launch_s = 1e-3, .seed = 5};
    struct gc_sampler *a = NULL, *b = NULL, *a2 = NULL;
    struct gc_sensor_window w;
    struct timespec nap = {0, 20 * 1000 * 1000};

    (void)state;
    open_null(&c);
    assert_int_equal(gc__sampler_start(fx.dev, 0.001, &a), 0);
    assert_int_equal(gc__sampler_start(fx.dev, 0.001, &b), 0);
    assert_ptr_not_equal(a, b);
    nanosleep(&nap, NULL);
    gc__sampler_window(a, 0, gc__now(), &w);
    assert_true(w.n >= 2); /* the probe and the thread's readings */
    gc__sampler_stop(a);
    assert_ptr_equal(fx.dev->parked_sampler, a);
    gc__sampler_stop(b); /* a is parked already: b ends */
    assert_ptr_equal(fx.dev->parked_sampler, a);
    nanosleep(&nap, NULL);
    double t_restart = gc__now();
    assert_int_equal(gc__sampler_start(fx.dev, 0.001, &a2), 0);
    assert_ptr_equal(a2, a);
    assert_null(fx.dev->parked_sampler);
    /* At most one reading from before the restart, taken while parked. */
    gc__sampler_window(a2, 0, t_restart, &w);
    assert_true(w.n <= 1);
    nanosleep(&nap, NULL);
    gc__sampler_window(a2, t_restart, gc__now(), &w);
    assert_true(w.n >= 1);
    gc__sampler_stop(a2);
    assert_ptr_equal(fx.dev->parked_sampler, a2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_noiseless_stops_on_spread, teardown),
        cmocka_unit_test_teardown(test_noise_runs_to_max_samples, teardown),
        cmocka_unit_test_teardown(test_throttled_samples_are_redone_then_flagged, teardown),
        cmocka_unit_test_teardown(test_stop_request_interrupts, teardown),
        cmocka_unit_test_teardown(test_flush_buffer_is_overwritten_before_samples, teardown),
        cmocka_unit_test(test_profiles_and_overrides),
        cmocka_unit_test(test_method_rules_and_user_settings),
        cmocka_unit_test_teardown(test_sampler_parked_and_reused, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
