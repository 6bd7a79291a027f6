/* The sampling policy: the profiles' defaults, the user's --repeat and
 * --min-time, and the method rules that shape the defaults only. */
#include "core/sampling.h"

void gc__sampling_defaults(struct gc_sampling *p, enum gc_profile prof, bool gpu, int repeat,
                           double min_time_ms)
{
    *p = (struct gc_sampling){.warmup = 2, .redo_throttled = true, .max_redo = 10};
    switch (prof) {
    case GC_PROFILE_QUICK:
        p->min_samples = 3;
        /* A CPU device's spread rule hardly ever stops a measurement (see
         * the default profile): its quick runs end at the fifth sample. */
        p->max_samples = gpu ? 7 : 5;
        p->target_sample_s = gpu ? 0.003 : 0.005;
        p->rel_spread = 0.01;
        p->time_cap_s = 2.0;
        break;
    case GC_PROFILE_FULL:
        p->min_samples = 10;
        p->max_samples = 50;
        p->target_sample_s = 0.05;
        p->rel_spread = 0.0025;
        p->time_cap_s = 30.0;
        break;
    case GC_PROFILE_DEFAULT:
    default:
        /* A GPU's event timer resolves about half a microsecond, so a 3 ms
         * sample is timed to 0.02%; its L launches are timed together, so
         * the sample's length does not change one launch's cost. Three
         * samples whose 95% interval (t quantile 4.30: a coefficient of
         * variation of at most 0.2%) lies within 0.5% of the median stop
         * the sampling; wider ones go on, as the spread rule asks. A CPU
         * device's launches and timers are noisier: its samples stay at
         * 20 ms (the latency staircase resolves its levels from them), and
         * there are at most 6 of them: the spread rule hardly ever stops a
         * CPU's measurement, so 25 samples cost 4x the time of 6 for a
         * median that moves within their spread. */
        p->min_samples = gpu ? 3 : 5;
        p->max_samples = gpu ? 25 : 6;
        p->target_sample_s = gpu ? 0.003 : 0.02;
        p->rel_spread = 0.005;
        p->time_cap_s = 10.0;
        break;
    }
    if (repeat > 0) {
        p->max_samples = repeat;
        if (p->min_samples > repeat)
            p->min_samples = repeat;
        p->samples_set = true;
    }
    if (min_time_ms > 0) {
        p->target_sample_s = min_time_ms * 1e-3;
        p->sample_time_set = true;
    }
}

struct gc_sampling gc__sampling_for_bench(struct gc_sampling run, double min_sample_s,
                                          double max_sampling_s, bool quick)
{
    struct gc_sampling p = run;

    gc__sampling_time_floor(&p, min_sample_s);
    /* A sustained rate's calibration launch runs at the burst clock. */
    if (min_sample_s > 0)
        p.discard_calibration = true;
    if (max_sampling_s > 0 && p.target_sample_s > 0) {
        int most = (int)(max_sampling_s * (quick ? 0.5 : 1.0) / p.target_sample_s);
        if (most < p.min_samples)
            most = p.min_samples;
        gc__sampling_most(&p, most);
    }
    return p;
}

void gc__sampling_least(struct gc_sampling *p, int n)
{
    if (p->samples_set || n < 1)
        return;
    p->min_samples = n;
    if (p->max_samples < n)
        p->max_samples = n;
}

void gc__sampling_most(struct gc_sampling *p, int n)
{
    if (p->samples_set || n < 1)
        return;
    if (p->max_samples > n)
        p->max_samples = n;
    if (p->min_samples > p->max_samples)
        p->min_samples = p->max_samples;
}

void gc__sampling_time_floor(struct gc_sampling *p, double s)
{
    if (!p->sample_time_set && p->target_sample_s < s)
        p->target_sample_s = s;
}

void gc__sampling_time(struct gc_sampling *p, double s)
{
    if (!p->sample_time_set && s > 0)
        p->target_sample_s = s;
}

void gc__sampling_record(const struct gc_sampling *p, struct gc_sampling_info *out)
{
    *out = (struct gc_sampling_info){
        .min_samples = p->min_samples,
        .max_samples = p->max_samples,
        .min_time_s = p->target_sample_s,
        .spread_target = p->rel_spread,
        .time_cap_s = p->time_cap_s,
        .repeat_explicit = p->samples_set,
        .min_time_explicit = p->sample_time_set,
    };
}
