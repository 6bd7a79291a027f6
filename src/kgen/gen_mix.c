/* Volkov's synthetic instruction mixes, the chase-array layouts and the
 * empty kernel, in the GC_* kernel vocabulary, and the host model of every
 * chain (§4.1, §4.7, §5.1-5.2, §5.10, §6.2-6.3, §6.6-6.7, §3.7). */
#include <stdio.h>
#include <string.h>

#include "kgen/gen_mix.h"

static const char *const op_names[GC_MIX_NOPS] = {"add",     "sfu",    "shared",
                                                  "shared2", "global", "random"};

const char *gc__mix_op_name(enum gc_mix_op op)
{
    return op >= 0 && op < GC_MIX_NOPS ? op_names[op] : "?";
}

static bool shared_op(enum gc_mix_op op)
{
    return op == GC_MIX_SHARED || op == GC_MIX_SHARED2;
}

int gc__mix_check(const struct gc_mix_cfg *c)
{
    if (c->op < 0 || c->op >= GC_MIX_NOPS || c->alpha < 0 || c->ilp < 1 ||
        c->ilp > GC_MIX_MAX_ILP || c->unroll < 1 || c->trips < 1)
        return GC_EINVAL;
    if (c->op == GC_MIX_ADD && c->alpha < 1)
        return GC_EINVAL;
    if (c->op == GC_MIX_RANDOM &&
        (c->lines < 1 || c->lines > 32 || (c->lines & (c->lines - 1)) != 0))
        return GC_EINVAL;
    if (c->sample && (c->op != GC_MIX_GLOBAL || c->unroll % 8 != 0))
        return GC_EINVAL;
    /* Chain indices and sample slots are 32-bit. */
    if ((long long)c->unroll * c->trips > (1LL << 24))
        return GC_EINVAL;
    return 0;
}

/* ---- The pseudo-random line order ------------------------------------- */

/* Three rounds of an odd multiply and an xor-shift, each a bijection of the
 * k-bit integers: consecutive positions land on unrelated lines, so neither
 * the caches nor the DRAM pages see any locality. The kernels carry the same
 * function as text (hash_src). */
uint32_t gc__mix_hash(uint32_t p, int log2_lines)
{
    uint32_t m = log2_lines >= 32 ? ~0u : (1u << log2_lines) - 1u;
    uint32_t s = ((uint32_t)log2_lines + 1u) >> 1;
    uint32_t x = p & m;

    x = (x * 0x9E3779B1u) & m;
    x ^= x >> s;
    x = (x * 0x85EBCA77u) & m;
    x ^= x >> s;
    x = (x * 0xC2B2AE3Du) & m;
    x ^= x >> s;
    return x;
}

static const char hash_src[] =
    "GC_MIX_FN GC_U32 gc_mix_hash(GC_U32 p, GC_U32 k)\n"
    "{\n"
    "    const GC_U32 m = k >= 32u ? 0xFFFFFFFFu : (1u << k) - 1u, s = (k + 1u) >> 1;\n"
    "    GC_U32 x = p & m;\n"
    "    x = (x * 0x9E3779B1u) & m;\n"
    "    x ^= x >> s;\n"
    "    x = (x * 0x85EBCA77u) & m;\n"
    "    x ^= x >> s;\n"
    "    x = (x * 0xC2B2AE3Du) & m;\n"
    "    x ^= x >> s;\n"
    "    return x;\n"
    "}\n";

/* ---- Dialect helpers --------------------------------------------------- */

/* CUDA: inline PTX wherever the instruction is the subject (§5.1: one load
 * instruction per access; rsqrt.approx.ftz is a single MUFU.RSQ), and the
 * adds as add.rn.f32, which ptxas may neither contract nor reassociate. The
 * shared load takes the chain value itself as its address register with the
 * bias as the (24-bit) immediate offset, so it needs no address arithmetic;
 * the global load needs one IMAD.WIDE.U32 to form a 64-bit address from the
 * 32-bit index. */
static const char cuda_common[] = "#define GC_MIX_FN static __device__ __forceinline__\n"
                                  "#define GC_MIX_AS_F(u) __uint_as_float(u)\n"
                                  "#define GC_MIX_AS_U(f) __float_as_uint(f)\n"
                                  "#define GC_MIX_ADDF(x, b) __fadd_rn((x), (b))\n";

static const char cuda_ldg[] = "GC_MIX_FN float gc_mix_ldg(GC_U64 pb, float x)\n"
                               "{\n"
                               "    GC_U32 v;\n"
                               "    asm volatile(\"ld.global.u32 %0, [%1];\" : \"=r\"(v) : "
                               "\"l\"(pb + (GC_U64)__float_as_uint(x) "
                               "* 4ull));\n"
                               "    return __uint_as_float(v);\n"
                               "}\n";

static const char cuda_lds[] = "GC_MIX_FN float gc_mix_lds(float x)\n"
                               "{\n"
                               "    GC_U32 v;\n"
                               "    asm volatile(\"ld.shared.u32 %0, [%1+-8388608];\" : \"=r\"(v) "
                               ": \"r\"(__float_as_uint(x)));\n"
                               "    return __uint_as_float(v);\n"
                               "}\n";

static const char cuda_rsqrt[] = "GC_MIX_FN float gc_mix_rsqrt(float x)\n"
                                 "{\n"
                                 "    asm volatile(\"rsqrt.approx.ftz.f32 %0, %0;\" : \"+f\"(x));\n"
                                 "    return x;\n"
                                 "}\n";

/* The shared store consumes the chain's value, so the clock read that follows
 * it in issue order happens only once that value is there: before a sampled
 * load (its address is ready, the previous load has completed, whether that
 * one was sampled or not) and after it (the load has completed). A plain clock
 * read before the load would be taken when the previous load was merely
 * issued, and the interval would span two loads. */
static const char cuda_stamp[] =
    "GC_MIX_FN GC_U32 gc_mix_stamp(GC_U32 sink, float x)\n"
    "{\n"
    "    GC_U32 t;\n"
    "    asm volatile(\"st.shared.u32 [%1], %2;\\n\\tmov.u32 %0, %%clock;\" : \"=r\"(t) : "
    "\"r\"(sink), \"r\"(__float_as_uint(x)) : \"memory\");\n"
    "    return t;\n"
    "}\n";

static const char opencl_helpers[] = "#define GC_MIX_FN static inline\n"
                                     "#define GC_MIX_AS_F(u) as_float(u)\n"
                                     "#define GC_MIX_AS_U(f) as_uint(f)\n"
                                     "#define GC_MIX_ADDF(x, b) ((x) + (b))\n";

/* ---- The mix kernel ---------------------------------------------------- */

static void emit_op(struct gc_sbuf *b, bool cuda, enum gc_mix_op op, int c)
{
    switch (op) {
    case GC_MIX_SFU:
        gc__sbuf_printf(b, cuda ? "x%d = gc_mix_rsqrt(x%d);\n" : "x%d = native_rsqrt(x%d);\n", c,
                        c);
        break;
    case GC_MIX_SHARED:
    case GC_MIX_SHARED2:
        if (cuda)
            gc__sbuf_printf(b, "x%d = gc_mix_lds(x%d);\n", c, c);
        else
            gc__sbuf_printf(b, "x%d = GC_MIX_AS_F(gc_ring[(GC_MIX_AS_U(x%d) - %uu) >> 2]);\n", c, c,
                            GC_MIX_BIAS);
        break;
    case GC_MIX_GLOBAL:
    case GC_MIX_RANDOM:
        if (cuda)
            gc__sbuf_printf(b, "x%d = gc_mix_ldg(pb, x%d);\n", c, c);
        else
            gc__sbuf_printf(b, "x%d = GC_MIX_AS_F(chain[GC_MIX_AS_U(x%d) - %uu]);\n", c, c,
                            GC_MIX_BIAS);
        break;
    default:
        break;
    }
}

static void emit_start(struct gc_sbuf *b, bool cuda, const struct gc_mix_cfg *c)
{
    switch (c->op) {
    case GC_MIX_ADD:
        for (int j = 0; j < c->ilp; j++)
            gc__sbuf_printf(b, "    float x%d = GC_MIX_AS_F(seed + gid * %uu + %uu);\n", j,
                            (unsigned)c->ilp, (unsigned)j);
        break;
    case GC_MIX_SFU:
        for (int j = 0; j < c->ilp; j++)
            gc__sbuf_printf(b, "    float x%d = GC_MIX_AS_F(seed);\n", j);
        break;
    case GC_MIX_SHARED:
    case GC_MIX_SHARED2:
        /* Ring r word k holds the address of word (k + 1) mod GC_MIX_RING of
         * the same ring; chains read ring 0, or ring 1 for the upper half
         * warp of the conflicting variant (same bank, another word). */
        gc__sbuf_puts(b, "    GC_SHARED GC_U32 gc_ring[64];\n");
        gc__sbuf_puts(b, cuda
                             ? "    const GC_U32 smb = (GC_U32)__cvta_generic_to_shared(gc_ring);\n"
                             : "    const GC_U32 smb = 0u;\n");
        gc__sbuf_printf(b,
                        "    for (GC_U32 e = tid; e < 64u; e += GC_BDIM)\n"
                        "        gc_ring[e] = %uu + smb + 4u * ((e & 32u) + ((e & 31u) + 1u) %% "
                        "%uu);\n"
                        "    GC_BARRIER();\n",
                        GC_MIX_BIAS, (unsigned)GC_MIX_RING);
        gc__sbuf_printf(b, "    const GC_U32 ring = %s;\n",
                        c->op == GC_MIX_SHARED2 ? "((tid & 31u) >> 4) * 32u" : "0u");
        for (int j = 0; j < c->ilp; j++)
            gc__sbuf_printf(b,
                            "    float x%d = GC_MIX_AS_F(%uu + smb + 4u * (ring + (seed + %uu) "
                            "%% %uu));\n",
                            j, GC_MIX_BIAS, (unsigned)j, (unsigned)GC_MIX_RING);
        break;
    case GC_MIX_GLOBAL:
        if (cuda)
            gc__sbuf_printf(b, "    const GC_U64 pb = (GC_U64)chain - %lluull;\n",
                            4ull * GC_MIX_BIAS);
        for (int j = 0; j < c->ilp; j++)
            gc__sbuf_printf(b,
                            "    float x%d = GC_MIX_AS_F(%uu + base + GC_BID * spacing + %uu * "
                            "GC_BDIM + tid);\n",
                            j, GC_MIX_BIAS, (unsigned)j);
        break;
    case GC_MIX_RANDOM: {
        unsigned g = 32u / (unsigned)c->lines;

        if (cuda)
            gc__sbuf_printf(b, "    const GC_U64 pb = (GC_U64)chain - %lluull;\n",
                            4ull * GC_MIX_BIAS);
        gc__sbuf_printf(b,
                        "    const GC_U32 lane = gid & 31u, w = lane %% %uu;\n"
                        "    const GC_U32 ch = ((gid >> 5) * %uu + lane / %uu) * %uu;\n",
                        g, (unsigned)c->lines, g, (unsigned)c->ilp);
        for (int j = 0; j < c->ilp; j++)
            gc__sbuf_printf(b,
                            "    float x%d = GC_MIX_AS_F(%uu + 32u * gc_mix_hash(base + (ch + %uu) "
                            "* spacing, seed) + w);\n",
                            j, GC_MIX_BIAS, (unsigned)j);
        break;
    }
    default:
        break;
    }
}

char *gc__gen_mix(enum gc_dialect d, unsigned flags, const struct gc_mix_cfg *c)
{
    struct gc_sbuf b;
    bool cuda = d == GC_DIALECT_CUDA;
    bool sample = c->sample && gc__gen_mix_samples(d);
    int nsamples = gc__mix_groups(c) / 8;

    if (gc__mix_check(c) != 0)
        return NULL;
    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, flags);
    gc__sbuf_puts(&b, cuda ? cuda_common : opencl_helpers);
    if (cuda && (c->op == GC_MIX_GLOBAL || c->op == GC_MIX_RANDOM))
        gc__sbuf_puts(&b, cuda_ldg);
    if (cuda && shared_op(c->op))
        gc__sbuf_puts(&b, cuda_lds);
    if (cuda && c->op == GC_MIX_SFU)
        gc__sbuf_puts(&b, cuda_rsqrt);
    if (sample)
        gc__sbuf_puts(&b, cuda_stamp);
    if (c->op == GC_MIX_RANDOM)
        gc__sbuf_puts(&b, hash_src);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_mix(GC_GLOBAL const GC_U32 *chain, GC_GLOBAL GC_U32 *out, "
                      "GC_GLOBAL GC_U32 *lat, float b0, float b1, GC_U32 seed, GC_U32 base, "
                      "GC_U32 spacing GC_TS_PARAM)\n{\n");
    gc__sbuf_puts(&b, "    GC_TS_BEGIN\n    const GC_U32 tid = GC_TID, gid = GC_GID;\n");
    if (sample)
        gc__sbuf_printf(&b, "    GC_SHARED GC_U32 gc_lat[%d];\n    GC_SHARED GC_U32 gc_sink[1];\n",
                        nsamples);
    /* The addend of every add: zero at run time, in an ordinary register. */
    gc__sbuf_puts(&b, "    const float b = (tid & 1u) ? b1 : b0;\n");
    gc__sbuf_puts(&b, "    (void)chain;\n    (void)lat;\n    (void)base;\n    (void)spacing;\n    "
                      "(void)seed;\n    (void)b;\n");
    emit_start(&b, cuda, c);
    if (sample)
        gc__sbuf_puts(&b, "    const bool rec = GC_BID == 0u && tid < 32u;\n"
                          "    const GC_U32 sink = (GC_U32)__cvta_generic_to_shared(gc_sink);\n"
                          "    GC_U32 t0 = 0u;\n");
    if (cuda)
        gc__sbuf_puts(&b, "#pragma unroll 1\n");
    gc__sbuf_printf(&b, "    for (GC_U32 i = 0u; i < %uu; i++) {\n", (unsigned)c->trips);
    for (int u = 0; u < c->unroll; u++) {
        for (int j = 0; j < c->ilp; j++) {
            bool timed = sample && j == 0 && u % 8 == 0;

            if (timed)
                gc__sbuf_puts(&b, "        if (rec)\n            t0 = gc_mix_stamp(sink, x0);\n");
            gc__sbuf_puts(&b, "        ");
            emit_op(&b, cuda, c->op, j);
            if (timed)
                gc__sbuf_printf(&b,
                                "        if (rec)\n            gc_lat[i * %uu + %uu] = "
                                "gc_mix_stamp(sink, x0) - t0;\n",
                                (unsigned)(c->unroll / 8), (unsigned)(u / 8));
            for (int a = 0; a < c->alpha; a++)
                gc__sbuf_printf(&b, "        x%d = GC_MIX_ADDF(x%d, b);\n", j, j);
        }
    }
    gc__sbuf_puts(&b, "    }\n");
    for (int j = 0; j < c->ilp; j++)
        gc__sbuf_printf(&b, "    out[gid * %uu + %uu] = GC_MIX_AS_U(x%d)%s;\n", (unsigned)c->ilp,
                        (unsigned)j, j, shared_op(c->op) ? " - smb" : "");
    if (sample)
        gc__sbuf_printf(&b,
                        "    if (rec && tid == 0u)\n"
                        "        for (GC_U32 k = 0u; k < %uu; k++)\n"
                        "            lat[k] = gc_lat[k];\n",
                        (unsigned)nsamples);
    gc__sbuf_puts(&b, "    GC_TS_END\n}\n");
    return gc__sbuf_take(&b);
}

char *gc__gen_mix_fill(enum gc_dialect d)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, 0);
    gc__sbuf_puts(&b, d == GC_DIALECT_CUDA ? cuda_common : opencl_helpers);
    gc__sbuf_puts(&b, hash_src);
    gc__sbuf_printf(&b,
                    "GC_KERNEL void gc_mix_fill_stream(GC_GLOBAL GC_U32 *chain, GC_U32 n, GC_U32 "
                    "stride)\n"
                    "{\n"
                    "    for (GC_U32 i = GC_GID; i < n; i += GC_NBLK * GC_BDIM)\n"
                    "        chain[i] = %uu + i + stride;\n"
                    "}\n",
                    GC_MIX_BIAS);
    gc__sbuf_printf(
        &b,
        "GC_KERNEL void gc_mix_fill_random(GC_GLOBAL GC_U32 *chain, GC_U32 log2_lines)\n"
        "{\n"
        "    const GC_U32 n = 32u << log2_lines;\n"
        "    for (GC_U32 j = GC_GID; j < n; j += GC_NBLK * GC_BDIM) {\n"
        "        const GC_U32 p = j >> 5, w = j & 31u;\n"
        "        chain[32u * gc_mix_hash(p, log2_lines) + w] =\n"
        "            %uu + 32u * gc_mix_hash(p + 1u, log2_lines) + w;\n"
        "    }\n"
        "}\n",
        GC_MIX_BIAS);
    return gc__sbuf_take(&b);
}

char *gc__gen_mix_empty(enum gc_dialect d, unsigned flags)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, flags);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_mix_empty(GC_GLOBAL GC_U32 *unused GC_TS_PARAM)\n"
                      "{\n"
                      "    GC_TS_BEGIN\n"
                      "    (void)unused;\n"
                      "    GC_TS_END\n"
                      "}\n");
    return gc__sbuf_take(&b);
}

/* ---- Host model -------------------------------------------------------- */

uint32_t gc__mix_expect(const struct gc_mix_cfg *c, const struct gc_mix_args *a, uint64_t t,
                        int chain)
{
    uint32_t groups = (uint32_t)gc__mix_groups(c);
    uint32_t ilp = (uint32_t)c->ilp, j = (uint32_t)chain;

    switch (c->op) {
    case GC_MIX_ADD:
        return a->seed + (uint32_t)t * ilp + j;
    case GC_MIX_SFU:
        return GC_MIX_ONE_BITS;
    case GC_MIX_SHARED:
    case GC_MIX_SHARED2: {
        /* The kernel picks the ring by the lane of its work-item in its
         * work-group: the half warp is that of the local id, which is the
         * global one only where blocks are multiples of 32 threads (a CPU
         * device's blocks of one or two work-items are not). */
        uint32_t lid = a->block ? (uint32_t)(t % a->block) : (uint32_t)t;
        uint32_t ring = c->op == GC_MIX_SHARED2 ? ((lid & 31u) >> 4) * 32u : 0u;
        uint32_t pos = (uint32_t)(((uint64_t)a->seed + j + groups) % GC_MIX_RING);

        return GC_MIX_BIAS + 4u * (ring + pos);
    }
    case GC_MIX_GLOBAL: {
        uint32_t blk = (uint32_t)(t / a->block), tid = (uint32_t)(t % a->block);
        uint32_t s = a->base + blk * a->spacing + j * a->block + tid;

        return GC_MIX_BIAS + s + groups * ilp * a->block;
    }
    case GC_MIX_RANDOM: {
        uint32_t g = 32u / (uint32_t)c->lines, lane = (uint32_t)(t & 31u);
        uint32_t ch = ((uint32_t)(t >> 5) * (uint32_t)c->lines + lane / g) * ilp + j;
        uint32_t p = a->base + ch * a->spacing;

        return GC_MIX_BIAS + 32u * gc__mix_hash(p + groups, a->log2_lines) + lane % g;
    }
    default:
        return 0;
    }
}

bool gc__gen_mix_samples(enum gc_dialect d)
{
    return d == GC_DIALECT_CUDA;
}
