/* Small binary floating-point formats (see minifloat.h). */
#include <math.h>
#include <string.h>

#include "core/minifloat.h"

/* The host models round and widen millions of operands per benchmark: the
 * normal range works on the double's bits (no libm calls). */
static uint64_t bits_of(double v)
{
    uint64_t b;

    memcpy(&b, &v, sizeof(b));
    return b;
}

static double double_of(uint64_t b)
{
    double v;

    memcpy(&v, &b, sizeof(v));
    return v;
}

/* a (finite, > 0) as a mantissa of mbits + 1 bits rounded to nearest even,
 * and its exponent: a ~ ri * 2^(e - mbits), ri in [2^mbits, 2^(mbits+1)].
 * False where a double subnormal or an exponent below emin needs the
 * general path. */
static bool round_normal(double a, int mbits, int emin, uint64_t *ri, int *e)
{
    uint64_t b = bits_of(a);
    int ex = (int)((b >> 52) & 0x7ff);
    int shift = 52 - mbits;

    if (ex == 0 || ex - 1023 < emin || shift < 1)
        return false;
    uint64_t mant = (b & ((1ULL << 52) - 1)) | (1ULL << 52);
    uint64_t r = mant >> shift, rem = mant & ((1ULL << shift) - 1), half = 1ULL << (shift - 1);
    if (rem > half || (rem == half && (r & 1)))
        r++;
    *ri = r;
    *e = ex - 1023;
    return true;
}

uint32_t gc__minifloat_encode(double v, int ebits, int mbits, bool ieee_specials)
{
    uint32_t sign = signbit(v) ? 1u << (mbits + ebits) : 0;
    uint32_t allexp = ((1u << ebits) - 1) << mbits;
    uint32_t nan = ieee_specials ? allexp | (1u << (mbits - 1)) : allexp | ((1u << mbits) - 1);
    int bias = (1 << (ebits - 1)) - 1, e;
    /* Largest biased exponent of a finite number. */
    int emax = ieee_specials ? (1 << ebits) - 2 : (1 << ebits) - 1;
    double a = fabs(v), r;
    uint64_t ri;

    if (isnan(v))
        return sign | nan;
    if (isinf(a))
        return sign | (ieee_specials ? allexp : nan);
    if (a == 0)
        return sign;
    if (!round_normal(a, mbits, 1 - bias, &ri, &e)) {
        frexp(a, &e);
        e -= 1; /* a in [2^e, 2^(e+1)) */
        if (e < 1 - bias)
            e = 1 - bias; /* subnormal range: the quantum stays 2^(1-bias-mbits) */
        r = nearbyint(ldexp(a, mbits - e));
        ri = (uint64_t)r;
    }
    if (ri >= (1ULL << (mbits + 1))) {
        ri >>= 1;
        e++;
    }
    if (ri < (1ULL << mbits))
        return sign | (uint32_t)ri;
    uint32_t enc = (uint32_t)((uint64_t)(e + bias) << mbits | (ri - (1ULL << mbits)));
    /* Past the largest finite number (for e4m3 the all-ones pattern is NaN). */
    if (e + bias > emax || (!ieee_specials && enc == (allexp | ((1u << mbits) - 1))))
        return sign | (ieee_specials ? allexp : nan);
    return sign | enc;
}

double gc__minifloat_decode(uint32_t bits, int ebits, int mbits, bool ieee_specials)
{
    int bias = (1 << (ebits - 1)) - 1;
    int ex = (int)((bits >> mbits) & ((1u << ebits) - 1));
    uint32_t m = bits & ((1u << mbits) - 1);
    double s = (bits >> (mbits + ebits)) & 1 ? -1.0 : 1.0;

    if (ex == (1 << ebits) - 1) {
        if (ieee_specials)
            return m ? NAN : s * INFINITY;
        if (m == (1u << mbits) - 1)
            return NAN;
    }
    if (ex == 0)
        return s * ldexp((double)m, 1 - bias - mbits);
    /* A normal number: its exponent and mantissa as a double's fields
     * (every format here has fewer than 11 exponent and 52 mantissa bits). */
    uint64_t d = (uint64_t)(ex - bias + 1023) << 52 | (uint64_t)m << (52 - mbits);
    return s < 0 ? -double_of(d) : double_of(d);
}
