/* A sampling thread that reads the device's sensors (clocks, throttle
 * reasons, power, temperature) while kernels run, so each sample can be
 * judged by the conditions it ran under. */
#ifndef GC_CORE_SENSORS_H
#define GC_CORE_SENSORS_H

#include "core/device.h"

struct gc_sampler;

/* Conditions over a time window. Fields are NAN when nothing was read. */
struct gc_sensor_window {
    int n; /* readings inside (or nearest to) the window */
    bool throttled;
    unsigned long long reasons;
    double sm_min, sm_max, sm_median;
    double mem_median;
    double power_avg, power_limit;
    double temp_first, temp_last;
};

/* One reading of the device's sensors (the backend's op sensors);
 * GC_ENOTSUP when it has none. */
int gc__dev_sensors(struct gc_device *d, struct gc_sensor_sample *out);

/* Host monotonic clock in seconds. */
double gc__now(void);

/* Starts sampling every period_s. Returns GC_ENOTSUP (and *out NULL) when
 * the device has no sensors. */
int gc__sampler_start(struct gc_device *d, double period_s, struct gc_sampler **out);
/* Ends the sampling; the sampler may be parked on its device for the next
 * start (start and stop are called from one thread per device). */
void gc__sampler_stop(struct gc_sampler *s);
/* Ends the device's parked sampler (before the device closes). */
void gc__sampler_release(struct gc_device *d);
/* Summarises the readings between t0 and t1; when none falls inside, the
 * last reading before t1 stands for the window. */
void gc__sampler_window(struct gc_sampler *s, double t0, double t1, struct gc_sensor_window *w);

#endif
