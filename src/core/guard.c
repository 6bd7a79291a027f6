/* The limit guard and the plausibility floors (see guard.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/guard.h"
#include "core/results.h"

static void append(char *buf, size_t len, const char *text)
{
    size_t used = strlen(buf);

    if (used + 3 >= len)
        return;
    snprintf(buf + used, len - used, "%s%s", used ? "; " : "", text);
}

bool gc__unit_nonnegative(const char *unit)
{
    static const char *const exact[] = {"s", "ms", "us", "ns", "ps", "cycles", "clk"};
    size_t n = strlen(unit);

    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
        if (strcmp(unit, exact[i]) == 0)
            return true;
    /* Per-item times (cycles/load, ns/load), bytes per time (B/s,
     * B/clk/CU) and any rate per second. */
    return strncmp(unit, "cycles/", 7) == 0 || strncmp(unit, "ns/", 3) == 0 ||
           strncmp(unit, "B/", 2) == 0 || (n > 2 && strcmp(unit + n - 2, "/s") == 0);
}

/* Rejects the negative times, latencies and bandwidths of b (see guard.h);
 * appends what was rejected to msg. */
static int reject_negative(struct gc_bench_result *b, char *msg, size_t len)
{
    int rejected = 0;

    for (int i = 0; i < b->nmetrics; i++) {
        struct gc_metric *m = &b->metrics[i];
        char one[256], note[sizeof(m->note)];

        if (!(isfinite(m->value) && m->value < 0) || !gc__unit_nonnegative(m->unit))
            continue;
        snprintf(one, sizeof(one), "%s = %.4g %s is negative", m->name, m->value, m->unit);
        append(msg, len, one);
        snprintf(note, sizeof(note), "rejected: %.4g %s measured, negative; %.150s", m->value,
                 m->unit, m->note);
        memcpy(m->note, note, sizeof(m->note));
        m->value = NAN;
        m->fraction = NAN;
        rejected++;
    }
    return rejected;
}

int gc__negative_guard(struct gc_bench_result *b)
{
    char msg[sizeof(b->error)] = "", err[sizeof(b->error)];
    int rejected = reject_negative(b, msg, sizeof(msg));

    if (!rejected)
        return 0;
    snprintf(err, sizeof(err),
             "negative figure: %.480s. A time, latency or bandwidth cannot be negative: a "
             "difference of two measurements larger than their noise but of the wrong sign, "
             "or a wrong count%s%.200s",
             msg, b->error[0] ? ". Earlier: " : "", b->error);
    memcpy(b->error, err, sizeof(b->error));
    b->status = GC_BENCH_ERROR;
    return rejected;
}

int gc__limit_guard(struct gc_bench_result *b)
{
    int rejected = 0;
    char msg[sizeof(b->error)] = "";

    for (int i = 0; i < b->nmetrics; i++) {
        struct gc_metric *m = &b->metrics[i];
        char one[512], note[sizeof(m->note)];

        if (!isfinite(m->value) || !isfinite(m->limit) || !(m->limit > 0))
            continue;
        if (m->value <= m->limit * (1.0 + GC_LIMIT_MARGIN))
            continue;
        double over = m->value / m->limit - 1.0;
        double spread =
            m->stats.n > 1 && m->stats.median > 0 ? m->stats.ci95 / m->stats.median : NAN;
        if (isfinite(spread))
            snprintf(one, sizeof(one),
                     "%s = %.4g %s is %.1f%% above its limit %.4g %s (its 95%% CI is +-%.2f%%)",
                     m->name, m->value, m->unit, 100.0 * over, m->limit, m->unit, 100.0 * spread);
        else
            snprintf(one, sizeof(one), "%s = %.4g %s is %.1f%% above its limit %.4g %s", m->name,
                     m->value, m->unit, 100.0 * over, m->limit, m->unit);
        append(msg, sizeof(msg), one);
        snprintf(note, sizeof(note), "rejected: %.4g %s measured, above the limit; %.120s",
                 m->value, m->unit, m->note);
        memcpy(m->note, note, sizeof(m->note));
        m->value = NAN;
        m->fraction = NAN;
        rejected++;
    }
    if (!rejected)
        return 0;
    char err[sizeof(b->error)];
    snprintf(err, sizeof(err),
             "figure above its physical limit: %.480s. Likely causes: the bytes or operations were "
             "served by a faster level than the one named (cache hits), work counted that the "
             "kernel did not do (removed by the compiler, counted twice), or a wrong limit "
             "(clock, unit count, bus width)%s%.200s",
             msg, b->error[0] ? ". Earlier: " : "", b->error);
    memcpy(b->error, err, sizeof(b->error));
    b->status = GC_BENCH_ERROR;
    return rejected;
}

static const struct gc_metric *find_metric(const struct gc_bench_result *b, const char *name)
{
    for (int i = 0; b && i < b->nmetrics; i++)
        if (strcmp(b->metrics[i].name, name) == 0)
            return &b->metrics[i];
    return NULL;
}

int gc__plausibility(const struct gc_results *r, struct gc_bench_result *b,
                     const struct gc_floor *floors)
{
    int added = 0;

    for (const struct gc_floor *f = floors; f && f->metric; f++) {
        const struct gc_metric *m = find_metric(b, f->metric);
        const struct gc_bench_result *rb =
            strcmp(f->ref_bench, b->name) == 0 ? b : gc__results_find(r, f->ref_bench);
        const struct gc_metric *ref = rb ? find_metric(rb, f->ref_metric) : NULL;
        char one[512];

        if (!m || !ref || !isfinite(m->value) || !isfinite(ref->value) || !(ref->value > 0))
            continue;
        if (m->value >= f->min_ratio * ref->value)
            continue;
        snprintf(one, sizeof(one),
                 "%s = %.4g %s is %.0f%% of %s %s (%.4g %s) measured in the same run, below the "
                 "plausible %.0f%%: %s",
                 m->name, m->value, m->unit, 100.0 * m->value / ref->value, f->ref_bench,
                 f->ref_metric, ref->value, ref->unit, 100.0 * f->min_ratio, f->why);
        append(b->warning, sizeof(b->warning), one);
        added++;
    }
    return added;
}

enum gc_power_verdict gc__power_limit_check(double power_w, double u_w, double span_s,
                                            double limit_w, char *msg, size_t len)
{
    double over = power_w - limit_w, u = isfinite(u_w) && u_w > 0 ? u_w : 0;

    if (len)
        msg[0] = '\0';
    if (!isfinite(limit_w) || !(limit_w > 0) || !(over > 0))
        return GC_POWER_WITHIN;
    if (over <= u) {
        snprintf(msg, len,
                 "average power %.1f W is %.1f W above the enforced power limit %.0f W, within its "
                 "uncertainty (+-%.1f W): not a violation",
                 power_w, over, limit_w, u);
        return GC_POWER_WARN;
    }
    if (!(span_s >= GC_POWER_LIMIT_PERIOD_S)) {
        snprintf(msg, len,
                 "average power %.1f W is %.1f W above the enforced power limit %.0f W (beyond its "
                 "uncertainty +-%.1f W) over only %.3f s, shorter than the %.1f s the power "
                 "controller averages over: a short excursion, not a violation",
                 power_w, over, limit_w, u, span_s, GC_POWER_LIMIT_PERIOD_S);
        return GC_POWER_WARN;
    }
    snprintf(msg, len,
             "average power %.1f W over %.3f s is above the enforced power limit %.0f W by %.1f W, "
             "more than its uncertainty (+-%.1f W), for at least the %.1f s the power controller "
             "averages over",
             power_w, span_s, limit_w, over, u, GC_POWER_LIMIT_PERIOD_S);
    return GC_POWER_OVER;
}

void gc__bench_warn(struct gc_bench_result *b, const char *text)
{
    append(b->warning, sizeof(b->warning), text);
}
