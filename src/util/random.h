/* xorshift64* generator used for every buffer a kernel reads. A leaf below
 * every layer (it needs only libc), so that the null backend's simulated
 * noise and the core's buffer fill share one generator. */
#ifndef GC_UTIL_RANDOM_H
#define GC_UTIL_RANDOM_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t gc__xorshift64s(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Fills n bytes with the stream of seed (seed 0 is replaced by a constant). */
void gc__random_fill(void *dst, size_t n, uint64_t seed);

/* A float in [lo, hi) from the stream. */
float gc__random_float(uint64_t *state, float lo, float hi);

#endif
