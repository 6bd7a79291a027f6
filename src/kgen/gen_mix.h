/* Volkov's synthetic instruction mixes (§4.1, §4.7, §5.1-5.2, §5.10, §6.2,
 * §6.3, §6.6, §6.7): every thread runs ILP independent chains; each step of
 * a chain ("group") is one instruction of the studied type followed by alpha
 * dependent fp32 adds of zero, all back to back dependent. The chain value
 * is a float whose bit pattern is an index biased into the normal range, so
 * that the adds leave it bit-exact and the host knows where every chain must
 * end. Also the kernels that lay out the chase arrays on the device and the
 * empty kernel of the block-replacement measurement (§3.7), and the host
 * model of every chain. */
#ifndef GC_KGEN_GEN_MIX_H
#define GC_KGEN_GEN_MIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kgen/kgen.h"

/* Chain values are GC_MIX_BIAS + index: the smallest normal float's bit
 * pattern, so that no value is a denormal (§5.1) and adding +0.0f returns
 * the value itself. */
#define GC_MIX_BIAS 0x00800000u

/* Float bit patterns of the start values of the add and SFU chains. */
#define GC_MIX_ONE_BITS 0x3F800000u

/* Entries of one shared-memory ring: a prime, so that the end position of a
 * chain proves the number of loads modulo it. Ring 0 occupies words 0..30,
 * ring 1 words 32..62, word k and word k + 32 in the same bank. */
#define GC_MIX_RING 31

/* The type of the first instruction of a group. */
enum gc_mix_op {
    GC_MIX_ADD,     /* none: the group is alpha adds (the "add" column) */
    GC_MIX_SFU,     /* reciprocal square root of 1.0 (MUFU.RSQ) */
    GC_MIX_SHARED,  /* shared-memory load, every lane the same word (broadcast) */
    GC_MIX_SHARED2, /* shared-memory load, two words of one bank: 2-way conflict */
    GC_MIX_GLOBAL,  /* global load, streaming pointer chase (§5.10) */
    GC_MIX_RANDOM,  /* global load, pseudo-random pointer chase (§6.7) */
    GC_MIX_NOPS
};

struct gc_mix_cfg {
    enum gc_mix_op op;
    int alpha;   /* dependent fp32 adds after the instruction (>= 1 for GC_MIX_ADD) */
    int ilp;     /* independent chains per thread, 1 .. GC_MIX_MAX_ILP */
    int unroll;  /* groups of every chain in one trip of the timed loop */
    int trips;   /* trips of the loop: a chain has unroll x trips groups */
    int lines;   /* GC_MIX_RANDOM: distinct 128-byte lines per warp access,
                    1 .. 32, a power of two (32: fully divergent) */
    bool sample; /* GC_MIX_GLOBAL on CUDA: warp 0 of block 0 times one load
                    of chain 0 in eight into shared memory (§6.6) */
};

#define GC_MIX_MAX_ILP 8

/* Name of an op for labels ("add", "sfu", "shared", "shared2", "global",
 * "random"). */
const char *gc__mix_op_name(enum gc_mix_op op);

/* Groups per chain of one launch. */
static inline int gc__mix_groups(const struct gc_mix_cfg *c)
{
    return c->unroll * c->trips;
}

/* 0 or GC_EINVAL when the configuration cannot be generated (ranges above,
 * unroll a multiple of 8 when sampling, sampling only with GC_MIX_GLOBAL). */
int gc__mix_check(const struct gc_mix_cfg *c);

/* The kernel "gc_mix" with the parameters
 *   (GC_GLOBAL const GC_U32 *chain, GC_GLOBAL GC_U32 *out, GC_GLOBAL GC_U32 *lat,
 *    float b0, float b1, GC_U32 seed, GC_U32 base, GC_U32 spacing GC_TS_PARAM)
 * chain: the chase array (global ops; any buffer otherwise). out: the end
 * value of chain c of thread t at out[t * ilp + c]. lat: the latency
 * samples (sample only). b0, b1: 0.0f; thread t adds b1 when t is odd, b0
 * otherwise, so the addend lives in an ordinary register (a uniform one
 * lets ptxas fold the add that feeds a shared load's address). seed: the
 * start of the add chains (GC_MIX_ONE_BITS), of the SFU chains (the bits of
 * 1.0f), the ring position of the shared chains (0 .. GC_MIX_RING - 1), the
 * log2 of the lines of the random array. base, spacing: see gc__mix_expect.
 * NULL on out-of-memory or an invalid configuration. */
char *gc__gen_mix(enum gc_dialect d, unsigned flags, const struct gc_mix_cfg *c);

/* True when the mixes of dialect d can stamp single accesses (the §6.6
 * latency samples: PTX stamps around a load through a shared-memory
 * address, written in CUDA C only). */
bool gc__gen_mix_samples(enum gc_dialect d);

/* Two kernels that lay out the chase arrays (no timestamps):
 *   gc_mix_fill_stream(GC_GLOBAL GC_U32 *chain, GC_U32 n, GC_U32 stride):
 *       chain[i] = GC_MIX_BIAS + i + stride for i < n (§5.10: entry i holds
 *       the index of entry i + stride);
 *   gc_mix_fill_random(GC_GLOBAL GC_U32 *chain, GC_U32 log2_lines):
 *       for position p < 2^log2_lines and word w < 32,
 *       chain[32 h(p) + w] = GC_MIX_BIAS + 32 h(p + 1) + w, h = gc__mix_hash,
 *       so that following the chain from any word visits all lines in one
 *       pseudo-random cycle (§6.7).
 * Both use a grid-stride loop; any launch shape covers the array. */
char *gc__gen_mix_fill(enum gc_dialect d);

/* The empty kernel gc_mix_empty(GC_GLOBAL GC_U32 *unused GC_TS_PARAM) of
 * §3.7: only the timestamps. */
char *gc__gen_mix_empty(enum gc_dialect d, unsigned flags);

/* The pseudo-random bijection of [0, 2^log2_lines) that orders the lines of
 * the random array (p is reduced modulo 2^log2_lines). The kernels compute
 * the same function. log2_lines 1 .. 26. */
uint32_t gc__mix_hash(uint32_t p, int log2_lines);

/* What the host passes to a launch of gc_mix and what it knows of it. */
struct gc_mix_args {
    uint32_t seed, base, spacing;
    unsigned block; /* threads per block */
    int log2_lines; /* GC_MIX_RANDOM */
};

/* The word chain c of global thread t (block t / block, thread t % block)
 * must write to out[t * ilp + c]:
 *   GC_MIX_ADD: seed + t * ilp + c (the start value; the adds add zero);
 *   GC_MIX_SFU: the bits of 1.0f (rsqrt(1) = 1);
 *   GC_MIX_SHARED/2: GC_MIX_BIAS + 4 (32 r + (seed + c + groups) mod GC_MIX_RING),
 *       r the ring (1 for lanes 16..31 of GC_MIX_SHARED2, the lane being
 *       (t % block) % 32, the local id's: else 0);
 *   GC_MIX_GLOBAL: GC_MIX_BIAS + s + groups x stride, with the start
 *       s = base + blockIdx x spacing + c x block + threadIdx and the
 *       stride ilp x block (the array must be filled with that stride and
 *       hold s + groups x stride entries);
 *   GC_MIX_RANDOM: GC_MIX_BIAS + 32 h(p + groups) + w, with the chain's
 *       position p = base + chain x spacing, chain = ((t / 32) x lines + q) x
 *       ilp + c, q = (t % 32) / g, w = (t % 32) % g, g = 32 / lines.
 * The SFU value is exact on CUDA (MUFU.RSQ of 1.0); an OpenCL native_rsqrt
 * may differ in the last bits, so callers compare it with a tolerance. */
uint32_t gc__mix_expect(const struct gc_mix_cfg *c, const struct gc_mix_args *a, uint64_t t,
                        int chain);

/* Lines and positions of the random chase: the most chains whose regions of
 * `groups` positions fit in 2^log2_lines positions at spacing spacing. */
static inline uint32_t gc__mix_random_spacing(int log2_lines, uint64_t chains)
{
    uint64_t n = (uint64_t)1 << log2_lines;

    return chains ? (uint32_t)(n / chains) : (uint32_t)n;
}

#endif
