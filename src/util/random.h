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

/* The state gc__xorshift64s leaves after n calls from state, found in
 * O(log n) steps (the state update is linear over GF(2)): parts of one
 * stream can be generated in parallel, each from its own first state, and
 * give exactly the words one pass would. */
uint64_t gc__xorshift64s_jump(uint64_t state, uint64_t n);

/* Word i of the counter-based stream of seed: splitmix64's finaliser of
 * seed + (i + 1) x golden ratio, high half. Any word is computable on its own,
 * so a device kernel can fill a buffer (kgen/gen_fill.h spells the same
 * function) and the host can check any word without generating the others. */
static inline uint32_t gc__hash32(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (uint32_t)(z >> 32);
}

/* Word i of the counter-based 64-bit stream of seed (splitmix64). */
static inline uint64_t gc__hash64(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Words first .. first + n - 1 of the counter-based stream of seed. */
void gc__hash_fill(uint32_t *dst, uint64_t first, size_t n, uint64_t seed);

/* Fills n bytes with the stream of seed (seed 0 is replaced by a constant). */
void gc__random_fill(void *dst, size_t n, uint64_t seed);

/* A float in [lo, hi) from the stream. */
float gc__random_float(uint64_t *state, float lo, float hi);
/* A float in [lo, hi) from 24 random bits (the low 24 of u24). */
float gc__float_from_bits(uint32_t u24, float lo, float hi);

#endif
