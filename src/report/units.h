/* Number formatting shared by the reports: SI prefixes for rates and times,
 * binary prefixes for capacities, shortest exact doubles for CSV. */
#ifndef GC_REPORT_UNITS_H
#define GC_REPORT_UNITS_H

#include <stdbool.h>
#include <stddef.h>

/* How a value in a unit is displayed: divided by div, followed by unit. */
struct gc_unit_scale {
    double div;
    char unit[48];
    bool whole; /* whole numbers print without decimals: unscaled
                   values and binary capacities ("4", "64") */
};

/* Chooses the display scale of v in unit:
 *  - "B" (a capacity): B, KiB, MiB, GiB, TiB, PiB (powers of 1024);
 *  - a rate, a unit ending in "/s" that does not already start with a prefix
 *    ("B/s", "FLOP/s", "op/s" but not "GB/s"): k, M, G, T, P, E (powers of
 *    1000) for |v| >= 1000;
 *  - "s", "Hz", "W", "J": p, n, u, m, k, M, G, T ("s" is never scaled up);
 *  - anything else ("cycles", "%", "B/clk/SM") unchanged.
 * NaN, infinity and 0 keep the plain unit. */
void gc__unit_scale(double v, const char *unit, struct gc_unit_scale *out);

/* v with three significant digits, without an exponent for 1e-3 <= |v| < 1e9
 * ("3.02", "61.3", "1980", "0.00512"); "-" for NaN. */
void gc__fmt_sig(char *buf, size_t len, double v);

/* The number part of v displayed in the scale sc (see gc__unit_scale): with
 * sc->whole, a whole number below 1e9 without decimals ("4", "50"); else as
 * gc__fmt_sig, so that "62.0 TFLOP/s" keeps its three digits. */
void gc__fmt_scaled(char *buf, size_t len, double v, const struct gc_unit_scale *sc);

/* Value and unit with the best prefix: "3.02 TB/s", "61.3 TFLOP/s",
 * "50 MiB", "1.25 us". "-" for NaN; no unit part when unit is empty. */
void gc__fmt_quantity(char *buf, size_t len, double v, const char *unit);

/* The shortest decimal text that reads back as exactly v ("0.1", not
 * "0.10000000000000001"); the empty string for NaN and infinities. */
void gc__fmt_double(char *buf, size_t len, double v);

/* Which way is better for a metric of this name and unit: +1 for rates and
 * bandwidths, -1 for latencies, times and costs, 0 for what is neither
 * (capacities, occupancies, counts, clocks, configuration facts). */
int gc__metric_direction(const char *name, const char *unit);

#endif
