/* Value formatting with unit prefixes for the text report and exact decimal
 * formatting for CSV. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/units.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);

    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* True when a rate unit already carries a decimal or binary prefix ("GB/s",
 * "MiB/s", "Gop/s", "TFLOP/s"): a prefix letter followed by the start of a
 * base unit. */
static bool has_prefix(const char *unit)
{
    return unit[0] && strchr("kKMGTPE", unit[0]) && unit[1] && strchr("BFIOoi", unit[1]);
}

static bool is_rate(const char *unit)
{
    return ends_with(unit, "/s") && strlen(unit) > 2 && !has_prefix(unit);
}

void gc__unit_scale(double v, const char *unit, struct gc_unit_scale *out)
{
    static const char *const si[] = {"p", "n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
    double a = fabs(v);
    int lo = 0, hi = 0, e;

    if (!unit)
        unit = "";
    out->div = 1;
    out->whole = true;
    snprintf(out->unit, sizeof(out->unit), "%s", unit);
    if (!isfinite(v) || v == 0)
        return;
    if (strcmp(unit, "B") == 0) {
        int k = 0;

        while (a >= 1024 && k < 5) {
            a /= 1024;
            out->div *= 1024;
            k++;
        }
        snprintf(out->unit, sizeof(out->unit), "%sB", bin[k]);
        return;
    }
    if (is_rate(unit)) {
        lo = 0;
        hi = 6;
    } else if (strcmp(unit, "s") == 0) {
        lo = -4;
        hi = 0;
    } else if (strcmp(unit, "Hz") == 0 || strcmp(unit, "W") == 0 || strcmp(unit, "J") == 0) {
        lo = -4;
        hi = 4;
    } else {
        return;
    }
    /* The exponent of 1000 that puts the mantissa in [1, 1000), moved up
     * once more when rounding to three digits would print "1000". */
    e = (int)floor(log10(a) / 3);
    if (a / pow(1000, e) >= 999.5)
        e++;
    e = e < lo ? lo : e > hi ? hi : e;
    out->div = pow(1000, e);
    out->whole = e == 0;
    snprintf(out->unit, sizeof(out->unit), "%s%s", si[e + 4], unit);
}

void gc__fmt_sig(char *buf, size_t len, double v)
{
    double a = fabs(v);
    int decimals;

    if (isnan(v)) {
        snprintf(buf, len, "-");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, len, "%s", v > 0 ? "inf" : "-inf");
        return;
    }
    if (v == 0) {
        snprintf(buf, len, "0");
        return;
    }
    if (a < 1e-3 || a >= 1e9) {
        snprintf(buf, len, "%.3g", v);
        return;
    }
    decimals = 2 - (int)floor(log10(a));
    if (decimals < 0)
        decimals = 0;
    /* 9.996 rounds to 10.0, not 10.00: one digit fewer once rounding
     * carried into the next decade. */
    if (decimals > 0 && round(a * pow(10, decimals)) >= 1000)
        decimals--;
    snprintf(buf, len, "%.*f", decimals, v);
}

void gc__fmt_scaled(char *buf, size_t len, double v, const struct gc_unit_scale *sc)
{
    double m = v / sc->div;

    /* Counts, sizes and exact capacities read better without ".00". */
    if (sc->whole && isfinite(m) && m == floor(m) && fabs(m) < 1e9) {
        snprintf(buf, len, "%.0f", m);
        return;
    }
    gc__fmt_sig(buf, len, m);
}

void gc__fmt_quantity(char *buf, size_t len, double v, const char *unit)
{
    struct gc_unit_scale sc;
    char num[64];

    if (isnan(v)) {
        snprintf(buf, len, "-");
        return;
    }
    gc__unit_scale(v, unit, &sc);
    gc__fmt_scaled(num, sizeof(num), v, &sc);
    if (sc.unit[0])
        snprintf(buf, len, "%s %s", num, sc.unit);
    else
        snprintf(buf, len, "%s", num);
}

void gc__fmt_double(char *buf, size_t len, double v)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", "");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static bool contains(const char *s, const char *word)
{
    return strstr(s, word) != NULL;
}

/* Which way is better: +1 for rates and bandwidths (more per second, per
 * clock), -1 for latencies, times and costs, 0 for what is neither
 * (capacities, occupancies, counts, clocks, configuration facts). */
int gc__metric_direction(const char *name, const char *unit)
{
    if (contains(name, "latency") || contains(name, "cpi") || contains(name, "cpmr") ||
        contains(name, "overhead") || contains(name, "energy") || contains(name, "_error") ||
        contains(name, "time"))
        return strcmp(unit, "cycles") == 0 || strcmp(unit, "s") == 0 || strcmp(unit, "ns") == 0 ||
                       ends_with(unit, "/load") || strcmp(unit, "J") == 0 ||
                       contains(unit, "cycles") || ends_with(unit, "J/op")
                   ? -1
                   : 0;
    if (ends_with(unit, "/s") && !ends_with(unit, "J/s"))
        return +1;
    if (contains(unit, "/clk") || contains(name, "per_clk"))
        return +1;
    if (contains(name, "bandwidth") || contains(name, "throughput") || contains(name, "flops"))
        return strcmp(unit, "") == 0 || strcmp(unit, "%") == 0 ? 0 : +1;
    return 0;
}
