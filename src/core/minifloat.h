/* Small binary floating-point formats on the host (fp16, bf16, fp8 e4m3):
 * exact encoding with round-to-nearest-even, subnormals included, for input
 * generation and host models of what the device computes. */
#ifndef GC_CORE_MINIFLOAT_H
#define GC_CORE_MINIFLOAT_H

#include <stdbool.h>
#include <stdint.h>

/* Rounds v to the format with ebits exponent and mbits stored mantissa bits
 * (nearest-even) and returns its encoding. ieee_specials: the all-ones
 * exponent holds infinities and NaNs (fp16, bf16); otherwise it holds normal
 * numbers except the all-ones pattern, NaN, and overflow gives NaN (fp8
 * e4m3). */
uint32_t gc__minifloat_encode(double v, int ebits, int mbits, bool ieee_specials);
double gc__minifloat_decode(uint32_t bits, int ebits, int mbits, bool ieee_specials);

static inline uint16_t gc__half_from_double(double v)
{
    return (uint16_t)gc__minifloat_encode(v, 5, 10, true);
}

static inline double gc__half_to_double(uint16_t h)
{
    return gc__minifloat_decode(h, 5, 10, true);
}

static inline uint16_t gc__bf16_from_double(double v)
{
    return (uint16_t)gc__minifloat_encode(v, 8, 7, true);
}

static inline double gc__bf16_to_double(uint16_t h)
{
    return gc__minifloat_decode(h, 8, 7, true);
}

#endif
