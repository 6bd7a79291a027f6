/* Random input data: every buffer a kernel reads is filled from an
 * xorshift64* stream, so that memory compression cannot inflate results. */
#include <math.h>
#include <string.h>

#include "util/parallel.h"
#include "util/random.h"

/* xorshift's state must never be zero (the stream would stay zero). */
#define GC_RANDOM_SEED0 0x9E3779B97F4A7C15ULL

void gc__random_fill(void *dst, size_t n, uint64_t seed)
{
    unsigned char *p = dst;
    uint64_t state = seed ? seed : GC_RANDOM_SEED0;
    uint64_t v;

    for (; n >= sizeof(v); n -= sizeof(v), p += sizeof(v)) {
        v = gc__xorshift64s(&state);
        memcpy(p, &v, sizeof(v));
    }
    if (n) {
        v = gc__xorshift64s(&state);
        memcpy(p, &v, n);
    }
}

/* A 64 x 64 matrix over GF(2), column c the image of bit c. */
static uint64_t gf2_apply(const uint64_t *m, uint64_t v)
{
    uint64_t r = 0;

    for (int c = 0; v; c++, v >>= 1)
        if (v & 1)
            r ^= m[c];
    return r;
}

uint64_t gc__xorshift64s_jump(uint64_t state, uint64_t n)
{
    uint64_t m[64], sq[64];

    /* m is the update of one call; squared, it jumps twice as far. */
    for (int c = 0; c < 64; c++) {
        uint64_t x = (uint64_t)1 << c;

        (void)gc__xorshift64s(&x);
        m[c] = x;
    }
    for (; n; n >>= 1) {
        if (n & 1)
            state = gf2_apply(m, state);
        if (n == 1)
            break;
        for (int c = 0; c < 64; c++)
            sq[c] = gf2_apply(m, m[c]);
        memcpy(m, sq, sizeof(m));
    }
    return state;
}

float gc__random_float(uint64_t *state, float lo, float hi)
{
    if (*state == 0)
        *state = GC_RANDOM_SEED0;
    /* The top 24 bits are the best of the generator and fill a float's
     * mantissa exactly. */
    return gc__float_from_bits((uint32_t)(gc__xorshift64s(state) >> 40), lo, hi);
}

float gc__float_from_bits(uint32_t u24, float lo, float hi)
{
    double u = (double)(u24 & 0xFFFFFFu) * (1.0 / 16777216.0);
    float r = (float)(lo + (hi - lo) * u);

    /* Rounding to float can land on hi itself; the range is half-open. */
    if (r >= hi && hi > lo)
        r = nextafterf(hi, lo);
    return r;
}

struct hash_job {
    uint32_t *dst;
    uint64_t first, seed;
};

static void hash_range(void *ctx, size_t lo, size_t hi)
{
    const struct hash_job *j = ctx;

    for (size_t k = lo; k < hi; k++)
        j->dst[k] = gc__hash32(j->seed, j->first + k);
}

void gc__hash_fill(uint32_t *dst, uint64_t first, size_t n, uint64_t seed)
{
    struct hash_job j = {dst, first, seed};

    /* Every word on its own: the parts are made in parallel (fills and
     * checks of hundreds of MB). */
    gc__parallel_for(n, (size_t)1 << 18, hash_range, &j);
}
