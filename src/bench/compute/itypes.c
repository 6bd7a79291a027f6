/* The instruction catalogue (data), and the check of a launch against its
 * rows' host models (the chains' inputs, the arguments, the comparison).
 * Each entry names its class of the arithmetic-throughput table; the rates
 * per compute capability live in the architecture table (core/arch.c).
 * Every CUDA form was checked against the SASS ptxas emits for sm_80 and
 * sm_90 (tests/gpu/test_sass.c checks it on every run). Where ptxas
 * legitimately implements a step with another instruction, the expectation
 * says so (see struct gc_sass_expect): alternatives whose counts add up when
 * it spreads one operation over two pipes (HADD2|HFMA2.MMA), an
 * architecture prefix when the instruction changed (I2F became
 * I2FP.F32.S32 in sm_86), a packing factor when one instruction serves two
 * chains (F2FP/2). The vendor rate stays the comparison: it is the rate of
 * the whole SM, which ptxas's split over both FMA pipes is how the hardware
 * reaches. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/compute/compute.h"
#include "core/devfill.h"
#include "core/minifloat.h"
#include "util/parallel.h"
#include "util/random.h"

/* ---- host models --------------------------------------------------------- */

static float f32(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    float f;

    memcpy(&f, &u, 4);
    return f;
}

static uint64_t uf32(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

static double f64(uint64_t v)
{
    double d;

    memcpy(&d, &v, 8);
    return d;
}

static uint64_t uf64(double d)
{
    uint64_t u;

    memcpy(&u, &d, 8);
    return u;
}

/* Packed pairs: op applied per 16-bit lane, computed exactly in double and
 * rounded once (products of two 11-bit mantissas are exact in double). */
enum { P_ADD, P_MUL, P_FMA };

static uint64_t packed(uint64_t x, uint64_t y, uint64_t b, int op, bool bf)
{
    uint32_t r = 0;

    for (int l = 0; l < 2; l++) {
        uint16_t hx = (uint16_t)(x >> (16 * l)), hy = (uint16_t)(y >> (16 * l)),
                 hb = (uint16_t)(b >> (16 * l));
        double dx = bf ? gc__bf16_to_double(hx) : gc__half_to_double(hx);
        double dy = bf ? gc__bf16_to_double(hy) : gc__half_to_double(hy);
        double db = bf ? gc__bf16_to_double(hb) : gc__half_to_double(hb);
        double v = op == P_ADD ? dx + dy : op == P_MUL ? dx * dy : dx * dy + db;
        uint16_t o = bf ? gc__bf16_from_double(v) : gc__half_from_double(v);

        r |= (uint32_t)o << (16 * l);
    }
    return r;
}

static uint64_t h_f32_add(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32(f32(x) + f32(y));
}
static uint64_t h_f32_mul(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32(f32(x) * f32(y));
}
static uint64_t h_f32_fma(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32(fmaf(f32(x), f32(y), f32(b)));
}
static uint64_t h_f32_div(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32(f32(y) / f32(x));
}
static uint64_t h_f32_rcp(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32(1.0f / f32(x));
}
static uint64_t h_f32_rcp_abs(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32(1.0f / fabsf(f32(x)));
}
static uint64_t h_f32_sqrt(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32(sqrtf(f32(x)));
}
static uint64_t h_f32_rsqrt(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32((float)(1.0 / sqrt((double)f32(x))));
}
static uint64_t h_f32_sin_b(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32((float)sin((double)f32(x)) + f32(b));
}
static uint64_t h_f32_cos(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32((float)cos((double)f32(x)));
}
static uint64_t h_f32_exp2_neg(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32((float)exp2(-(double)f32(x)));
}
static uint64_t h_f32_log2_b(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32((float)log2((double)f32(x)) + f32(b));
}
static uint64_t h_cvt_i32(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32((float)(int32_t)truncf(f32(x)));
}
static uint64_t h_cvt_f16(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf32((float)gc__half_to_double(gc__half_from_double((double)f32(x))));
}

static uint64_t h_f64_add(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf64(f64(x) + f64(y));
}
static uint64_t h_f64_mul(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf64(f64(x) * f64(y));
}
static uint64_t h_f64_fma(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf64(fma(f64(x), f64(y), f64(b)));
}
static uint64_t h_f64_div(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return uf64(f64(y) / f64(x));
}

static uint64_t h_h2_add(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return packed(x, y, b, P_ADD, false);
}
static uint64_t h_h2_mul(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return packed(x, y, b, P_MUL, false);
}
static uint64_t h_h2_fma(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return packed(x, y, b, P_FMA, false);
}
static uint64_t h_bf2_add(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return packed(x, y, b, P_ADD, true);
}
static uint64_t h_bf2_mul(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return packed(x, y, b, P_MUL, true);
}
static uint64_t h_bf2_fma(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return packed(x, y, b, P_FMA, true);
}

static uint64_t h_u32_add(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return (uint32_t)(x + y);
}
static uint64_t h_u32_sub(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return (uint32_t)(x - y);
}
static uint64_t h_u32_mul(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return (uint32_t)((uint32_t)x * (uint32_t)y);
}
static uint64_t h_u32_mad(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return (uint32_t)((uint32_t)x * (uint32_t)y + (uint32_t)b);
}
static uint64_t h_u32_rot(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    uint32_t v = (uint32_t)x, s = (uint32_t)y & 31u;

    return s ? (uint32_t)((v << s) | (v >> (32u - s))) : v;
}
static uint64_t h_u32_and_rot(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return h_u32_rot(x & y, b, a, b);
}
static uint64_t h_u32_or_rot(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return h_u32_rot(x | y, b, a, b);
}
static uint64_t h_u32_xor_rot(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return h_u32_rot(x ^ y, b, a, b);
}
static uint64_t h_u32_popc(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return (uint64_t)__builtin_popcount((uint32_t)x);
}
static uint64_t h_u32_clz(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return (uint32_t)x ? (uint64_t)__builtin_clz((uint32_t)x) : 32;
}
static uint64_t h_u32_brev(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    uint32_t v = (uint32_t)x, r = 0;

    for (int i = 0; i < 32; i++)
        r |= ((v >> i) & 1u) << (31 - i);
    return r;
}
static uint32_t field_mask(uint32_t len)
{
    return len >= 32 ? 0xffffffffu : (1u << len) - 1u;
}
static uint64_t h_u32_bfe(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    uint32_t pos = (uint32_t)y & 0xff, len = (uint32_t)b & 0xff;

    if (len == 0)
        return 0;
    if (pos >= 32)
        return 0;
    return ((uint32_t)x >> pos) & field_mask(len);
}
static uint64_t h_u32_bfi(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    uint32_t pos = (uint32_t)y & 0xff, len = (uint32_t)b & 0xff, v = (uint32_t)x;
    uint32_t m;

    if (len == 0 || pos >= 32)
        return v;
    m = field_mask(len) << pos;
    return (v & ~m) | ((v << pos) & m);
}
static uint64_t h_u32_min(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return (uint32_t)x < (uint32_t)y ? (uint32_t)x : (uint32_t)y;
}
static uint64_t h_u32_max(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return (uint32_t)x > (uint32_t)y ? (uint32_t)x : (uint32_t)y;
}
static uint64_t h_u32_setlt(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return (uint32_t)x < (uint32_t)y ? 0xffffffffu : 0u;
}
static uint64_t h_u32_dp4a(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    uint32_t s = (uint32_t)b;

    for (int i = 0; i < 4; i++)
        s += ((uint32_t)(x >> (8 * i)) & 0xffu) * ((uint32_t)(y >> (8 * i)) & 0xffu);
    return s;
}
static uint64_t h_u64_add(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return x + y;
}
static uint64_t h_u64_mul(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
    return x * y;
}

/* ---- the table ----------------------------------------------------------- */

/* Half-precision constants as bit pairs (both lanes equal). */
#define H2(lo) ((uint64_t)(lo) | ((uint64_t)(lo) << 16))
#define H_2M9 0x1800u    /* 2^-9 */
#define H_1M2M11 0x3bffu /* 1 - 2^-11 */
#define H_2M8 0x1c00u    /* 2^-8 */
#define BF_2M6 0x3c80u   /* 2^-6 */
#define BF_1M2M8 0x3f7fu /* 1 - 2^-8 */
#define BF_2M5 0x3d00u   /* 2^-5 */

#define F32_RANGE .lo = 0.5, .hi = 2.0

/* Integer chains in OpenCL C: LLVM reassociates them (x * a * a becomes
 * x * (a * a), xor chains cancel), so a step would not be one operation.
 * Only the CUDA spelling's inline PTX pins the instruction: the spelling of
 * an OpenCL device that takes inline PTX (NVIDIA's, gc__kgen_form). */
#define REASSOC                                                                                    \
    "the OpenCL compiler reassociates integer chains (two steps fold into one operation); only "   \
    "inline PTX pins the instruction"

static const struct gc_itype table[] = {
    /* fp32 ----------------------------------------------------------------- */
    {.name = "fp32.add",
     .summary = "fp32 add, x = x + a (FADD)",
     .vt = GC_VT_F32,
     .cuda = "asm(\"add.rn.f32 %0, %0, %1;\" : \"+f\"(x) : \"f\"(y));",
     .opencl = "x = x + y;",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 1,
     .sass = {{"FADD", 1}},
     .rate = GC_RATE_F32,
     .cpu_op = GC_CPU_FADD,
     F32_RANGE,
     .a = 0.0009765625,
     .host = h_f32_add},
    {.name = "fp32.mul",
     .summary = "fp32 multiply, x = x * a (FMUL)",
     .vt = GC_VT_F32,
     .cuda = "asm(\"mul.rn.f32 %0, %0, %1;\" : \"+f\"(x) : \"f\"(y));",
     .opencl = "x = x * y;",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 1,
     .sass = {{"FMUL", 1}},
     .rate = GC_RATE_F32,
     .cpu_op = GC_CPU_FMUL,
     F32_RANGE,
     .a = 0.99999,
     .host = h_f32_mul},
    {.name = "fp32.fma",
     .summary = "fp32 fused multiply-add, x = x * a + b (FFMA)",
     .vt = GC_VT_F32,
     /* a as a literal (1 - 2^-14, the value of .a): the FFMA then reads one
      * register and the constant bank, free of register-bank conflicts. */
     .cuda = "asm(\"fma.rn.f32 %0, %0, 0f3F7FFC00, %1;\" : \"+f\"(x) : \"f\"(b)); (void)y;",
     .opencl = "x = fma(x, y, b);",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 2,
     .work = 1,
     .sass = {{"FFMA", 1}},
     .rate = GC_RATE_F32,
     .cpu_op = GC_CPU_FMA,
     F32_RANGE,
     .a = 0.99993896484375,
     .b = 0.000732421875,
     .host = h_f32_fma},
    {.name = "fp32.div",
     .summary = "fp32 IEEE division, x = a / x (compiled sequence around MUFU.RCP)",
     .vt = GC_VT_F32,
     .cuda = "x = y / x;",
     .opencl = "x = y / x;",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 16,
     .sass = {{"MUFU.RCP", 1}},
     .rate = GC_RATE_NONE,
     F32_RANGE,
     .a = 1.5,
     .host = h_f32_div,
     .tol = 1e-5,
     .ocl_ulp = 2.5},
    {.name = "fp32.div.fast",
     .summary = "fp32 fast division, x = __fdividef(a, x) / native_divide",
     .vt = GC_VT_F32,
     .cuda = "x = __fdividef(y, x);",
     .opencl = "x = native_divide(y, x);",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 8,
     .sass = {{"MUFU.RCP", 1}},
     .rate = GC_RATE_NONE,
     F32_RANGE,
     .a = 1.5,
     .host = h_f32_div,
     .tol = 1e-3},
    {.name = "fp32.rcp",
     .summary = "fp32 IEEE reciprocal, x = 1 / x (compiled sequence around MUFU.RCP)",
     .vt = GC_VT_F32,
     .cuda = "x = 1.0f / x;",
     .opencl = "x = 1.0f / x;",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 16,
     .sass = {{"MUFU.RCP", 1}},
     .rate = GC_RATE_NONE,
     F32_RANGE,
     .host = h_f32_rcp,
     .tol = 1e-5,
     .ocl_ulp = 2.5},
    {.name = "fp32.rcp.fast",
     .summary = "fp32 approximate reciprocal of |x|, rcp.approx.ftz (MUFU.RCP)",
     .vt = GC_VT_F32,
     .cuda = "asm(\"{ .reg .f32 t; abs.f32 t, %0; rcp.approx.ftz.f32 %0, t; }\" : \"+f\"(x));",
     .opencl = "x = native_recip(fabs(x));",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 8,
     .sass = {{"MUFU.RCP", 1}},
     .rate = GC_RATE_MUFU,
     F32_RANGE,
     .host = h_f32_rcp_abs,
     .tol = 1e-3},
    {.name = "fp32.sqrt",
     .summary = "fp32 IEEE square root, x = sqrtf(x) (compiled sequence around MUFU.RSQ)",
     .vt = GC_VT_F32,
     .cuda = "x = sqrtf(x);",
     .opencl = "x = sqrt(x);",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 16,
     .sass = {{"MUFU.RSQ", 1}},
     .rate = GC_RATE_NONE,
     F32_RANGE,
     .host = h_f32_sqrt,
     .tol = 1e-5,
     .ocl_ulp = 3},
    {.name = "fp32.sqrt.fast",
     .summary = "fp32 approximate square root, sqrt.approx.ftz (MUFU.SQRT) / native_sqrt",
     .vt = GC_VT_F32,
     .cuda = "asm(\"sqrt.approx.ftz.f32 %0, %0;\" : \"+f\"(x));",
     .opencl = "x = native_sqrt(x);",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 8,
     .sass = {{"MUFU.SQRT", 1}},
     .rate = GC_RATE_NONE,
     F32_RANGE,
     .host = h_f32_sqrt,
     .tol = 1e-4},
    {.name = "fp32.rsqrt",
     .summary = "fp32 reciprocal square root, rsqrtf / rsqrt (MUFU.RSQ with denormal handling)",
     .vt = GC_VT_F32,
     .cuda = "x = rsqrtf(x);",
     .opencl = "x = rsqrt(x);",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 8,
     .sass = {{"MUFU.RSQ", 1}},
     .rate = GC_RATE_MUFU,
     F32_RANGE,
     .host = h_f32_rsqrt,
     .tol = 1e-4,
     .ocl_ulp = 2},
    {.name = "fp32.rsqrt.fast",
     .summary = "fp32 approximate reciprocal square root, rsqrt.approx.ftz (MUFU.RSQ)",
     .vt = GC_VT_F32,
     .cuda = "asm(\"rsqrt.approx.ftz.f32 %0, %0;\" : \"+f\"(x));",
     .opencl = "x = native_rsqrt(x);",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 8,
     .sass = {{"MUFU.RSQ", 1}},
     .rate = GC_RATE_MUFU,
     F32_RANGE,
     .host = h_f32_rsqrt,
     .tol = 1e-3},
    {.name = "fp32.sin",
     .summary = "fp32 sine, x = sinf(x) + b (precise library sequence plus an add)",
     .vt = GC_VT_F32,
     .cuda = "x = sinf(x) + b;",
     .opencl = "x = sin(x) + b;",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 64,
     .sass = {{"FADD", 1}},
     .rate = GC_RATE_NONE,
     F32_RANGE,
     .b = 1.0,
     .host = h_f32_sin_b,
     .tol = 1e-4,
     .ocl_ulp = 4},
    {.name = "fp32.sin.fast",
     .summary = "fp32 fast sine plus an add, x = __sinf(x) + b (FMUL.RZ, MUFU.SIN, FADD)",
     .vt = GC_VT_F32,
     .cuda = "asm(\"sin.approx.ftz.f32 %0, %0;\" : \"+f\"(x)); "
             "asm(\"add.rn.f32 %0, %0, %1;\" : \"+f\"(x) : \"f\"(b));",
     .opencl = "x = native_sin(x) + b;",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 8,
     .sass = {{"MUFU.SIN", 1}, {"FADD", 1}},
     .rate = GC_RATE_MUFU,
     F32_RANGE,
     .b = 1.0,
     .host = h_f32_sin_b,
     .tol = 1e-3},
    {.name = "fp32.cos",
     .summary = "fp32 cosine, x = cosf(x) (precise library sequence)",
     .vt = GC_VT_F32,
     .cuda = "x = cosf(x);",
     .opencl = "x = cos(x);",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 64,
     .rate = GC_RATE_NONE,
     F32_RANGE,
     .host = h_f32_cos,
     .tol = 1e-4,
     .ocl_ulp = 4},
    {.name = "fp32.cos.fast",
     .summary = "fp32 fast cosine, x = __cosf(x) (FMUL.RZ, MUFU.COS)",
     .vt = GC_VT_F32,
     .cuda = "asm(\"cos.approx.ftz.f32 %0, %0;\" : \"+f\"(x));",
     .opencl = "x = native_cos(x);",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 8,
     .sass = {{"MUFU.COS", 1}},
     .rate = GC_RATE_MUFU,
     F32_RANGE,
     .host = h_f32_cos,
     .tol = 1e-3},
    {.name = "fp32.exp2",
     .summary = "fp32 base-2 exponential, x = exp2f(-x) (MUFU.EX2 with range scaling)",
     .vt = GC_VT_F32,
     .cuda = "x = exp2f(-x);",
     .opencl = "x = exp2(-x);",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 8,
     .sass = {{"MUFU.EX2", 1}},
     .rate = GC_RATE_MUFU,
     F32_RANGE,
     .host = h_f32_exp2_neg,
     .tol = 1e-4,
     .ocl_ulp = 3},
    {.name = "fp32.exp2.fast",
     .summary = "fp32 approximate base-2 exponential, x = ex2.approx.ftz(-x) (MUFU.EX2)",
     .vt = GC_VT_F32,
     .cuda = "asm(\"{ .reg .f32 t; neg.f32 t, %0; ex2.approx.ftz.f32 %0, t; }\" : \"+f\"(x));",
     .opencl = "x = native_exp2(-x);",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 8,
     .sass = {{"MUFU.EX2", 1}},
     .rate = GC_RATE_MUFU,
     F32_RANGE,
     .host = h_f32_exp2_neg,
     .tol = 1e-3},
    {.name = "fp32.log2",
     .summary = "fp32 base-2 logarithm plus an add, x = log2f(x) + b (precise sequence)",
     .vt = GC_VT_F32,
     .cuda = "x = log2f(x) + b;",
     .opencl = "x = log2(x) + b;",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 16,
     .rate = GC_RATE_NONE,
     F32_RANGE,
     .b = 2.0,
     .host = h_f32_log2_b,
     .tol = 1e-4,
     .ocl_ulp = 3},
    {.name = "fp32.log2.fast",
     .summary = "fp32 approximate base-2 logarithm plus an add, x = lg2.approx.ftz(x) + b "
                "(MUFU.LG2, FADD)",
     .vt = GC_VT_F32,
     .cuda = "asm(\"lg2.approx.ftz.f32 %0, %0;\" : \"+f\"(x)); "
             "asm(\"add.rn.f32 %0, %0, %1;\" : \"+f\"(x) : \"f\"(b));",
     .opencl = "x = native_log2(x) + b;",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 8,
     .sass = {{"MUFU.LG2", 1}, {"FADD", 1}},
     .rate = GC_RATE_MUFU,
     F32_RANGE,
     .b = 2.0,
     .host = h_f32_log2_b,
     .tol = 1e-3},
    /* fp64 ----------------------------------------------------------------- */
    {.name = "fp64.add",
     .summary = "fp64 add, x = x + a (DADD)",
     .vt = GC_VT_F64,
     .cuda = "asm(\"add.rn.f64 %0, %0, %1;\" : \"+d\"(x) : \"d\"(y));",
     .opencl = "x = x + y;",
     .opencl_vector = true,
     .needs_caps = GC_CAP_FP64,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 2,
     .sass = {{"DADD", 1}},
     .rate = GC_RATE_F64,
     .cpu_op = GC_CPU_FADD,
     F32_RANGE,
     .a = 0.0009765625,
     .host = h_f64_add},
    {.name = "fp64.mul",
     .summary = "fp64 multiply, x = x * a (DMUL)",
     .vt = GC_VT_F64,
     .cuda = "asm(\"mul.rn.f64 %0, %0, %1;\" : \"+d\"(x) : \"d\"(y));",
     .opencl = "x = x * y;",
     .opencl_vector = true,
     .needs_caps = GC_CAP_FP64,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 2,
     .sass = {{"DMUL", 1}},
     .rate = GC_RATE_F64,
     .cpu_op = GC_CPU_FMUL,
     F32_RANGE,
     .a = 0.99999,
     .host = h_f64_mul},
    {.name = "fp64.fma",
     .summary = "fp64 fused multiply-add, x = x * a + b (DFMA)",
     .vt = GC_VT_F64,
     .cuda = "asm(\"fma.rn.f64 %0, %0, %1, %2;\" : \"+d\"(x) : \"d\"(y), \"d\"(b));",
     .opencl = "x = fma(x, y, b);",
     .opencl_vector = true,
     .needs_caps = GC_CAP_FP64,
     .counted = 1,
     .lanes = 1,
     .flops = 2,
     .work = 2,
     .sass = {{"DFMA", 1}},
     .rate = GC_RATE_F64,
     .cpu_op = GC_CPU_FMA,
     F32_RANGE,
     .a = 0.99993896484375,
     .b = 0.000732421875,
     .host = h_f64_fma},
    {.name = "fp64.div",
     .summary = "fp64 IEEE division, x = a / x (compiled sequence around MUFU.RCP64H)",
     .vt = GC_VT_F64,
     .cuda = "x = y / x;",
     .opencl = "x = y / x;",
     .opencl_vector = true,
     .needs_caps = GC_CAP_FP64,
     .counted = 1,
     .lanes = 1,
     .flops = 1,
     .work = 64,
     .sass = {{"MUFU.RCP64H", 1}},
     .rate = GC_RATE_NONE,
     F32_RANGE,
     .a = 1.5,
     .host = h_f64_div},
    /* packed 16-bit floating point ------------------------------------------ */
    {.name = "fp16x2.add",
     .summary = "fp16 packed-pair add, x = x + a (HADD2; on sm_90 ptxas issues half the adds "
                "as HFMA2.MMA, x * 1 + a on the second FMA pipe: the rate is that of the split "
                "over both pipes, as the vendor's is)",
     .vt = GC_VT_H2,
     .cuda = "asm(\"add.rn.f16x2 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));",
     .opencl = "x = as_uint(as_half2(x) + as_half2(y));",
     .opencl_caps = GC_CAP_FP16,
     .min_cc = 53,
     .counted = 1,
     .lanes = 2,
     .flops = 1,
     .work = 1,
     .sass = {{"HADD2|HFMA2.MMA", 1}},
     .rate = GC_RATE_H2,
     .lo = 0.5,
     .hi = 2.0,
     .ia = H2(H_2M9),
     .host = h_h2_add},
    {.name = "fp16x2.mul",
     .summary = "fp16 packed-pair multiply, x = x * a (HMUL2; on sm_80 and sm_90 ptxas issues "
                "half the multiplies as HFMA2.MMA, x * a + 0 on the second FMA pipe: the rate "
                "is that of the split over both pipes, as the vendor's is)",
     .vt = GC_VT_H2,
     .cuda = "asm(\"mul.rn.f16x2 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));",
     .opencl = "x = as_uint(as_half2(x) * as_half2(y));",
     .opencl_caps = GC_CAP_FP16,
     .min_cc = 53,
     .counted = 1,
     .lanes = 2,
     .flops = 1,
     .work = 1,
     .sass = {{"HMUL2|HFMA2.MMA", 1}},
     .rate = GC_RATE_H2,
     .lo = 0.5,
     .hi = 2.0,
     .ia = H2(H_1M2M11),
     .host = h_h2_mul},
    {.name = "fp16x2.fma",
     .summary = "fp16 packed-pair fused multiply-add, x = x * a + b (HFMA2)",
     .vt = GC_VT_H2,
     /* a as a constant inside the asm (the bits of .ia), as for fp32.fma:
      * ptxas can then encode it in the instruction and the HFMA2 reads two
      * registers instead of three. */
     .cuda = "asm(\"{.reg .b32 m; mov.b32 m, 0x3bff3bff; fma.rn.f16x2 %0, %0, m, %1;}\" "
             ": \"+r\"(x) : \"r\"(b)); (void)y;",
     .opencl = "x = as_uint(fma(as_half2(x), as_half2(y), as_half2(b)));",
     .opencl_caps = GC_CAP_FP16,
     .min_cc = 53,
     .counted = 1,
     .lanes = 2,
     .flops = 2,
     .work = 1,
     .sass = {{"HFMA2", 1}},
     .rate = GC_RATE_H2,
     .lo = 0.5,
     .hi = 2.0,
     .ia = H2(H_1M2M11),
     .ib = H2(H_2M8),
     .host = h_h2_fma},
    {.name = "bf16x2.add",
     .summary = "bf16 packed-pair add, x = x + a (HADD2.BF16_V2, half of them issued as "
                "HFMA2.MMA.BF16_V2 on the second FMA pipe: the rate is that of the split)",
     .vt = GC_VT_BF2,
     .cuda = "asm(\"add.rn.bf16x2 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));",
     .min_cc = 90,
     .counted = 1,
     .lanes = 2,
     .flops = 1,
     .work = 1,
     .sass = {{"HADD2.BF16_V2|HFMA2.MMA.BF16_V2", 1}},
     .rate = GC_RATE_BF2,
     .lo = 0.5,
     .hi = 2.0,
     .ia = H2(BF_2M6),
     .host = h_bf2_add},
    {.name = "bf16x2.mul",
     .summary = "bf16 packed-pair multiply, x = x * a (HMUL2.BF16_V2, half of them issued as "
                "HFMA2.MMA.BF16_V2 on the second FMA pipe: the rate is that of the split)",
     .vt = GC_VT_BF2,
     .cuda = "asm(\"mul.rn.bf16x2 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));",
     .min_cc = 90,
     .counted = 1,
     .lanes = 2,
     .flops = 1,
     .work = 1,
     .sass = {{"HMUL2.BF16_V2|HFMA2.MMA.BF16_V2", 1}},
     .rate = GC_RATE_BF2,
     .lo = 0.5,
     .hi = 2.0,
     .ia = H2(BF_1M2M8),
     .host = h_bf2_mul},
    {.name = "bf16x2.fma",
     .summary = "bf16 packed-pair fused multiply-add, x = x * a + b (HFMA2.BF16_V2)",
     .vt = GC_VT_BF2,
     /* a as a constant inside the asm (the bits of .ia), see fp16x2.fma. */
     .cuda = "asm(\"{.reg .b32 m; mov.b32 m, 0x3f7f3f7f; fma.rn.bf16x2 %0, %0, m, %1;}\" "
             ": \"+r\"(x) : \"r\"(b)); (void)y;",
     .min_cc = 80,
     .counted = 1,
     .lanes = 2,
     .flops = 2,
     .work = 1,
     .sass = {{"HFMA2", 1}},
     .rate = GC_RATE_BF2,
     .lo = 0.5,
     .hi = 2.0,
     .ia = H2(BF_1M2M8),
     .ib = H2(BF_2M5),
     .host = h_bf2_fma},
    /* int32 ---------------------------------------------------------------- */
    {.name = "int32.add",
     .summary = "int32 add of two chains, x_j = x_j + x_j+1 (half IADD3 on the ALU, half "
                "IMAD.IADD on the FMA pipe: the rate is that of the split; no vendor rate: "
                "Hopper sustains twice the guide's 64/clk/SM, see docs/methodology.md)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"add.u32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));",
     .opencl_why = REASSOC,
     .coupled = true,
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .work = 2,
     .sass = {{"IADD3|IMAD.IADD", 1}},
     .rate = GC_RATE_NONE,
     .cpu_op = GC_CPU_VINT,
     .mask = 0xffffffffu,
     .host = h_u32_add},
    {.name = "int32.sub",
     .summary = "int32 subtract of two chains, x_j = x_j - x_j+1 (half IADD3, half IMAD.IADD: "
                "the rate is that of the split over the ALU and FMA pipes)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"sub.u32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));",
     .opencl_why = REASSOC,
     .coupled = true,
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .work = 2,
     .sass = {{"IADD3|IMAD.IADD", 1}},
     .rate = GC_RATE_NONE,
     .cpu_op = GC_CPU_VINT,
     .mask = 0xffffffffu,
     .host = h_u32_sub},
    {.name = "int32.mul",
     .summary = "int32 multiply (low word), x = x * a (IMAD; a per-thread operand)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"mul.lo.u32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));",
     .opencl_why = REASSOC,
     .opencl_vector = true,
     .thread_operand = true,
     .counted = 1,
     .lanes = 1,
     .work = 2,
     .sass = {{"IMAD", 1}},
     .rate = GC_RATE_I32,
     .cpu_op = GC_CPU_VIMUL,
     .mask = 0xffffffffu,
     .ia = 0x9e3779b1u,
     .host = h_u32_mul},
    {.name = "int32.mad",
     .summary = "int32 multiply-add (low word), x = x * a + b (IMAD)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"mad.lo.u32 %0, %0, %1, %2;\" : \"+r\"(x) : \"r\"(y), \"r\"(b));",
     .opencl_why = REASSOC,
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .work = 2,
     .sass = {{"IMAD", 1}},
     .rate = GC_RATE_I32,
     .cpu_op = GC_CPU_VIMUL,
     .mask = 0xffffffffu,
     .ia = 0x9e3779b1u,
     .ib = 0x7f4a7c15u,
     .host = h_u32_mad},
    {.name = "int32.shift",
     .summary = "int32 funnel shift (rotate left by a), shf.l.wrap (SHF)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"shf.l.wrap.b32 %0, %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));",
     .opencl_why = REASSOC,
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .work = 2,
     .sass = {{"SHF.L.W", 1}},
     .rate = GC_RATE_I32,
     .cpu_op = GC_CPU_VINT,
     .mask = 0xffffffffu,
     .ia = 5,
     .host = h_u32_rot},
    {.name = "int32.and",
     .summary = "int32 bitwise and then a funnel shift, x = rotl(x & a, b) (LOP3 and SHF: "
                "2 counted; the shift keeps ptxas from fusing the chain into fewer LOP3s)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"and.b32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y)); "
             "asm(\"shf.l.wrap.b32 %0, %0, %0, %1;\" : \"+r\"(x) : \"r\"(b));",
     .opencl_why = REASSOC,
     .counted = 2,
     .lanes = 1,
     .work = 2,
     .sass = {{"LOP3", 1}, {"SHF.L.W", 1}},
     .rate = GC_RATE_I32,
     .cpu_op = GC_CPU_VINT,
     .mask = 0xffffffffu,
     .ia = 0x5bd1e995u,
     .ib = 7,
     .host = h_u32_and_rot},
    {.name = "int32.or",
     .summary = "int32 bitwise or then a funnel shift, x = rotl(x | a, b) (LOP3 and SHF: "
                "2 counted; the shift keeps ptxas from fusing the chain into fewer LOP3s)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"or.b32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y)); "
             "asm(\"shf.l.wrap.b32 %0, %0, %0, %1;\" : \"+r\"(x) : \"r\"(b));",
     .opencl_why = REASSOC,
     .counted = 2,
     .lanes = 1,
     .work = 2,
     .sass = {{"LOP3", 1}, {"SHF.L.W", 1}},
     .rate = GC_RATE_I32,
     .cpu_op = GC_CPU_VINT,
     .mask = 0xffffffffu,
     .ia = 0x5bd1e995u,
     .ib = 7,
     .host = h_u32_or_rot},
    {.name = "int32.xor",
     .summary = "int32 bitwise xor then a funnel shift, x = rotl(x ^ a, b) (LOP3 and SHF: "
                "2 counted; the shift keeps ptxas from fusing the chain into fewer LOP3s)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"xor.b32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y)); "
             "asm(\"shf.l.wrap.b32 %0, %0, %0, %1;\" : \"+r\"(x) : \"r\"(b));",
     .opencl_why = REASSOC,
     .counted = 2,
     .lanes = 1,
     .work = 2,
     .sass = {{"LOP3", 1}, {"SHF.L.W", 1}},
     .rate = GC_RATE_I32,
     .cpu_op = GC_CPU_VINT,
     .mask = 0xffffffffu,
     .ia = 0x5bd1e995u,
     .ib = 7,
     .host = h_u32_xor_rot},
    {.name = "int32.popc",
     .summary = "int32 population count, x = popc(x) (POPC)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"popc.b32 %0, %0;\" : \"+r\"(x));",
     .opencl = "x = popcount(x);",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .work = 8,
     .sass = {{"POPC", 1}},
     .rate = GC_RATE_I32_SLOW,
     .mask = 0xffffffffu,
     .host = h_u32_popc},
    {.name = "int32.clz",
     .summary = "int32 count leading zeros, x = clz(x) (FLO and IADD3)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"clz.b32 %0, %0;\" : \"+r\"(x));",
     .opencl = "x = clz(x);",
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .work = 8,
     .sass = {{"FLO", 1}},
     .rate = GC_RATE_I32_SLOW,
     .mask = 0xffffffffu,
     .host = h_u32_clz},
    {.name = "int32.brev",
     .summary = "int32 bit reverse, x = brev(x) (BREV)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"brev.b32 %0, %0;\" : \"+r\"(x));",
     .counted = 1,
     .lanes = 1,
     .work = 8,
     .sass = {{"BREV", 1}},
     .rate = GC_RATE_I32_SLOW,
     .mask = 0xffffffffu,
     .host = h_u32_brev},
    {.name = "int32.bfe",
     .summary = "int32 bit-field extract, bfe.u32 (SHF and SGXT on sm_70+)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"bfe.u32 %0, %0, %1, %2;\" : \"+r\"(x) : \"r\"(y), \"r\"(b));",
     .counted = 1,
     .lanes = 1,
     .work = 4,
     .sass = {{"SGXT", 1}},
     .rate = GC_RATE_NONE,
     .mask = 0xffffffffu,
     .ia = 3,
     .ib = 28,
     .host = h_u32_bfe},
    {.name = "int32.bfi",
     .summary = "int32 bit-field insert, bfi.b32 (BMSK, SHF, LOP3 on sm_70+)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"bfi.b32 %0, %0, %0, %1, %2;\" : \"+r\"(x) : \"r\"(y), \"r\"(b));",
     .counted = 1,
     .lanes = 1,
     .work = 8,
     .sass = {{"BMSK", 1}},
     .rate = GC_RATE_NONE,
     .mask = 0xffffffffu,
     .ia = 3,
     .ib = 12,
     .host = h_u32_bfi},
    {.name = "int32.min",
     .summary = "int32 unsigned minimum of two chains (IMNMX)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"min.u32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));",
     .opencl_why = REASSOC,
     .coupled = true,
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .work = 2,
     .rate = GC_RATE_I32,
     .cpu_op = GC_CPU_VINT,
     .mask = 0xffffffffu,
     .host = h_u32_min},
    {.name = "int32.max",
     .summary = "int32 unsigned maximum of two chains (IMNMX)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"max.u32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));",
     .opencl_why = REASSOC,
     .coupled = true,
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .work = 2,
     .rate = GC_RATE_I32,
     .cpu_op = GC_CPU_VINT,
     .mask = 0xffffffffu,
     .host = h_u32_max},
    {.name = "int32.compare",
     .summary = "int32 compare-and-set, x = (x < a) ? ~0 : 0 (ISETP and SEL: 2 counted)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"set.lt.u32.u32 %0, %0, %1;\" : \"+r\"(x) : \"r\"(y));",
     .opencl = "x = (x < y) ? 0xffffffffu : 0u;",
     .counted = 2,
     .lanes = 1,
     .work = 4,
     .sass = {{"ISETP.LT.U32", 1}, {"SEL", 1}},
     .rate = GC_RATE_I32,
     .cpu_op = GC_CPU_VINT,
     .mask = 0xffffffffu,
     .ia = 0x80000000u,
     .host = h_u32_setlt},
    {.name = "int32.dp4a",
     .summary = "4-way byte dot product with accumulate, dp4a.u32.u32 (IDP.4A)",
     .vt = GC_VT_U32,
     .cuda = "asm(\"dp4a.u32.u32 %0, %0, %1, %2;\" : \"+r\"(x) : \"r\"(y), \"r\"(b));",
     .counted = 1,
     .lanes = 1,
     .work = 2,
     .sass = {{"IDP.4A", 1}},
     .rate = GC_RATE_NONE,
     .mask = 0xffffffffu,
     .ia = 0x03050709u,
     .ib = 0x1234567u,
     .host = h_u32_dp4a},
    /* int64 ---------------------------------------------------------------- */
    {.name = "int64.add",
     .summary = "int64 add of two chains (IADD3 for the low words; the high words with the "
                "carry as IADD3.X or IMAD.X, which ptxas spreads over the ALU and FMA pipes)",
     .vt = GC_VT_U64,
     .cuda = "asm(\"add.u64 %0, %0, %1;\" : \"+l\"(x) : \"l\"(y));",
     .opencl_why = REASSOC,
     .coupled = true,
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .work = 4,
     .sass = {{"IADD3.X|IMAD.X", 1}, {"IADD3|IMAD.X", 2}},
     .rate = GC_RATE_NONE,
     .cpu_op = GC_CPU_VINT,
     .mask = ~0ULL,
     .host = h_u64_add},
    {.name = "int64.mul",
     .summary = "int64 multiply (low word), x = x * a (IMAD.WIDE.U32 and IMADs)",
     .vt = GC_VT_U64,
     .cuda = "asm(\"mul.lo.u64 %0, %0, %1;\" : \"+l\"(x) : \"l\"(y));",
     .opencl_why = REASSOC,
     .opencl_vector = true,
     .counted = 1,
     .lanes = 1,
     .work = 8,
     .sass = {{"IMAD.WIDE.U32", 1}},
     .rate = GC_RATE_NONE,
     .mask = ~0ULL,
     .ia = 0x9e3779b97f4a7c15ULL,
     .host = h_u64_mul},
    /* conversions ---------------------------------------------------------- */
    {.name = "cvt.f32.i32",
     .summary = "f32 -> i32 -> f32 round trip, 2 conversions per step (F2I, and I2F; "
                "I2FP.F32.S32 from sm_86 on)",
     .vt = GC_VT_F32,
     .cuda = "asm(\"{ .reg .s32 t; cvt.rzi.s32.f32 t, %0; cvt.rn.f32.s32 %0, t; }\" : "
             "\"+f\"(x));",
     .opencl = "x = convert_float(convert_int_rtz(x));",
     .counted = 2,
     .lanes = 1,
     .work = 8,
     .sass = {{"F2I", 1}, {"sm_86+:I2FP.F32.S32", 1}, {"sm_70-85:I2F", 1}},
     .rate = GC_RATE_NONE,
     .lo = -1000.0,
     .hi = 1000.0,
     .host = h_cvt_i32},
    {.name = "cvt.f32.f16",
     .summary = "f32 -> f16 -> f32 round trip, 2 conversions per step (HADD2.F32, and F2FP: "
                "with 2 or more chains one F2FP.PACK_AB converts two chains' values)",
     .vt = GC_VT_F32,
     .cuda = "asm(\"{ .reg .b16 t; cvt.rn.f16.f32 t, %0; cvt.f32.f16 %0, t; }\" : \"+f\"(x));",
     .opencl = "{ ushort t; vstore_half(x, 0, (__private half *)&t); "
               "x = vload_half(0, (const __private half *)&t); }",
     .counted = 2,
     .lanes = 1,
     .work = 8,
     .sass = {{"HADD2.F32", 1}, {"F2FP/2", 1}},
     .rate = GC_RATE_NONE,
     F32_RANGE,
     .host = h_cvt_f16},
};

int gc__itype_count(void)
{
    return (int)(sizeof(table) / sizeof(table[0]));
}

const struct gc_itype *gc__itype_get(int i)
{
    return i >= 0 && i < gc__itype_count() ? &table[i] : NULL;
}

double gc__itype_spec(const struct gc_itype *t, const struct gc_arch *a)
{
    return a->rate[t->rate];
}

/* ---- the check of a launch ------------------------------------------------
 *
 * The chains' random inputs, the kernel arguments, and the check of a
 * launch's chains against the host model of one step above. */

size_t gc__compute_vt_bytes(enum gc_vtype vt)
{
    return vt == GC_VT_F64 || vt == GC_VT_U64 ? 8 : 4;
}

/* Host model of one thread: all its chains (and vector lanes) from the
 * inputs, exactly as the kernel steps them. */
static void host_thread(const struct gc_itype *t, const struct compute_cfg *c, const uint64_t *init,
                        uint64_t a, uint64_t b, uint64_t *res)
{
    int n = c->nch, rounds = c->unroll * c->trips;

    for (int l = 0; l < c->vw; l++) {
        uint64_t x[16];

        for (int j = 0; j < n; j++)
            x[j] = init[j * c->vw + l];
        for (int r = 0; r < rounds; r++) {
            if (!t->coupled) {
                for (int j = 0; j < n; j++)
                    x[j] = t->host(x[j], a, a, b);
            } else if (n == 2) {
                x[0] = t->host(x[0], x[1], a, b);
                x[1] = t->host(x[1], x[0], a, b);
            } else {
                uint64_t t0 = x[0];
                for (int j = 0; j + 1 < n; j++)
                    x[j] = t->host(x[j], x[j + 1], a, b);
                x[n - 1] = t->host(x[n - 1], t0, a, b);
            }
        }
        for (int j = 0; j < n; j++)
            res[j * c->vw + l] = x[j];
    }
}

static uint64_t get_elem(const void *buf, size_t i, enum gc_vtype vt)
{
    if (gc__compute_vt_bytes(vt) == 8) {
        uint64_t v;
        memcpy(&v, (const char *)buf + i * 8, 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, (const char *)buf + i * 4, 4);
    return v;
}

/* The relative tolerance of a chain of `rounds` steps: the row's own, or on
 * OpenCL the specification's per-step bound times the steps (each step's
 * relative error passes through the next ones undiminished when the
 * operation's condition number is at most 1, as for 1/x, a/x and sqrt). */
static double chain_tol(const struct gc_itype *t, enum gc_dialect d, int rounds)
{
    double ulp = t->vt == GC_VT_F64 ? ldexp(1.0, -52) : ldexp(1.0, -23);

    if (d != GC_DIALECT_OPENCL || t->ocl_ulp <= 0)
        return t->tol;
    return fmax(t->tol, (double)rounds * t->ocl_ulp * ulp);
}

static bool close_enough(const struct gc_itype *t, double tol, uint64_t got, uint64_t want)
{
    double g, w;

    if (got == want)
        return true;
    if (tol <= 0)
        return false;
    if (t->vt == GC_VT_F32) {
        float fg, fw;
        uint32_t ug = (uint32_t)got, uw = (uint32_t)want;
        memcpy(&fg, &ug, 4);
        memcpy(&fw, &uw, 4);
        g = fg;
        w = fw;
    } else if (t->vt == GC_VT_F64) {
        memcpy(&g, &got, 8);
        memcpy(&w, &want, 8);
    } else {
        return false;
    }
    if (!isfinite(g) || !isfinite(w))
        return false;
    return fabs(g - w) <= tol * fmax(fabs(w), 1e-3);
}

/* The kernel argument a and b as bit patterns of the chain's type. */
static void arg_bits(const struct gc_itype *t, uint64_t *a, uint64_t *b)
{
    if (t->vt == GC_VT_F32) {
        float fa = (float)t->a, fb = (float)t->b;
        uint32_t ua, ub;
        memcpy(&ua, &fa, 4);
        memcpy(&ub, &fb, 4);
        *a = ua;
        *b = ub;
    } else if (t->vt == GC_VT_F64) {
        memcpy(a, &t->a, 8);
        memcpy(b, &t->b, 8);
    } else {
        *a = t->ia;
        *b = t->ib;
    }
}

void gc__compute_fill_args(const struct gc_itype *t, struct gc_arg *args)
{
    switch (t->vt) {
    case GC_VT_F32:
        args[2] = (struct gc_arg){.type = GC_ARG_F32, .v.f32 = (float)t->a};
        args[3] = (struct gc_arg){.type = GC_ARG_F32, .v.f32 = (float)t->b};
        break;
    case GC_VT_F64:
        args[2] = (struct gc_arg){.type = GC_ARG_F64, .v.f64 = t->a};
        args[3] = (struct gc_arg){.type = GC_ARG_F64, .v.f64 = t->b};
        break;
    case GC_VT_U64:
        args[2] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = t->ia};
        args[3] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = t->ib};
        break;
    default:
        args[2] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)t->ia};
        args[3] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = (uint32_t)t->ib};
        break;
    }
}

struct inputs_job {
    const struct gc_itype *t;
    unsigned char *buf;
    uint64_t seed;
};

/* Elements lo..hi of the inputs: element i from word i of the counter-based
 * stream, so that any part is made on its own (in parallel) and the whole
 * does not depend on how it was split. */
static void make_inputs_range(void *ctx, size_t lo, size_t hi)
{
    const struct inputs_job *j = ctx;
    const struct gc_itype *t = j->t;

    for (size_t i = lo; i < hi; i++) {
        uint64_t r = gc__hash64(j->seed, i);
        switch (t->vt) {
        case GC_VT_F32: {
            float f = gc__float_from_bits((uint32_t)(r >> 40), (float)t->lo, (float)t->hi);
            memcpy(j->buf + 4 * i, &f, 4);
            break;
        }
        case GC_VT_F64: {
            double u = (double)(r >> 11) * 0x1.0p-53;
            double v = t->lo + (t->hi - t->lo) * u;
            memcpy(j->buf + 8 * i, &v, 8);
            break;
        }
        case GC_VT_H2:
        case GC_VT_BF2: {
            uint32_t w = 0;
            for (int l = 0; l < 2; l++) {
                double v =
                    gc__float_from_bits((uint32_t)(r >> (40 - 24 * l)), (float)t->lo, (float)t->hi);
                uint16_t h = t->vt == GC_VT_H2 ? gc__half_from_double(v) : gc__bf16_from_double(v);
                w |= (uint32_t)h << (16 * l);
            }
            memcpy(j->buf + 4 * i, &w, 4);
            break;
        }
        case GC_VT_U64: {
            uint64_t v = r & t->mask;
            memcpy(j->buf + 8 * i, &v, 8);
            break;
        }
        default: {
            uint32_t v = (uint32_t)(r & t->mask);
            if (v == 0)
                v = 0x9e3779b9u;
            memcpy(j->buf + 4 * i, &v, 4);
            break;
        }
        }
    }
}

void gc__compute_make_inputs(const struct gc_itype *t, void *buf, size_t n, uint64_t seed)
{
    struct inputs_job j = {t, buf, seed};

    gc__parallel_for(n, 65536, make_inputs_range, &j);
}

/* ---- the run ------------------------------------------------------------- */

int gc__compute_vrun_init(struct compute_vrun *v, struct compute_ctx *x,
                          const struct compute_cfg *c, size_t nthreads)
{
    size_t n = nthreads * (size_t)c->nch * (size_t)c->vw;

    memset(v, 0, sizeof(*v));
    v->x = x;
    v->c = c;
    v->nthreads = nthreads;
    v->bytes = n * gc__compute_vt_bytes(x->t->vt);
    v->on_device = x->out2 && v->bytes % 4 == 0;
    /* Read whole only where the device does not compare the outputs; else
     * only the sampled threads' elements are written into g[0]. */
    v->g[0] = malloc(v->bytes ? v->bytes : 1);
    v->g[1] = malloc(v->bytes ? v->bytes : 1);
    return v->g[0] && v->g[1] ? 0 : GC_ENOMEM;
}

void gc__compute_vrun_free(struct compute_vrun *v)
{
    free(v->g[0]);
    free(v->g[1]);
    v->g[0] = v->g[1] = NULL;
}

int gc__compute_vrun_poison(struct compute_vrun *v, int pass)
{
    /* On the device: the host buffer is overwritten by the read anyway. */
    return gc__devfill_word(v->x->s, v->x->out, v->bytes, pass ? 0x00000000u : 0xFFFFFFFFu);
}

int gc__compute_vrun_read(struct compute_vrun *v, int pass)
{
    struct gc_device *d = v->x->s->dev;

    if (v->on_device)
        return pass == 0 ? gc__dev_copy(d, v->x->out2, v->x->out, v->bytes) : 0;
    return gc__dev_read(d, v->x->out, 0, v->g[pass], v->bytes);
}

/* Both outputs on the host: pass 0's from out2, pass 1's from out (a
 * difference to locate, or a device that cannot compare). */
static int read_both(struct compute_vrun *v)
{
    struct gc_device *d = v->x->s->dev;
    int rc = gc__dev_read(d, v->x->out2, 0, v->g[0], v->bytes);

    v->on_device = false;
    return rc ? rc : gc__dev_read(d, v->x->out, 0, v->g[1], v->bytes);
}

/* With the outputs compared on the device: equal, and the sampled threads'
 * elements read into g[0] (n of them, per elements each). */
static int compare_on_device(struct compute_vrun *v, const size_t *ths, int n, size_t per)
{
    struct compute_ctx *x = v->x;
    size_t eb = gc__compute_vt_bytes(x->t->vt);
    struct gc_check ck = {
        .kind = GC_CHECK_EQ, .want = x->out2, .got = x->out, .words = v->bytes / 4};
    char msg[160];
    int rc = gc__devcheck(x->s, &ck, msg, sizeof(msg));

    if (rc == GC_ENOTSUP || rc == GC_EVERIFY)
        return read_both(v);
    for (int i = 0; i < n && rc == 0; i++)
        rc = gc__dev_read(x->s->dev, x->out, ths[i] * per * eb, v->g[0] + ths[i] * per * eb,
                          per * eb);
    return rc;
}

/* The host model of several threads of a launch, each on a host thread of
 * its own (gc__parallel_for): a sampled thread runs the whole chain (10^5
 * steps on a GPU, with a software minifloat for the 16-bit types), so eight
 * of them one after the other took ~0.1 s per check of an fp16x2 kernel. */
struct model_job {
    const struct compute_ctx *x;
    const struct compute_cfg *c;
    const size_t *ths;
    size_t per;
    uint64_t a, b, *want;
};

static void model_range(void *arg, size_t lo, size_t hi)
{
    const struct model_job *j = arg;
    const struct gc_itype *t = j->x->t;
    uint64_t init[16 * 16];

    for (size_t i = lo; i < hi; i++) {
        for (size_t e = 0; e < j->per; e++)
            init[e] = get_elem(j->x->hin, j->ths[i] * j->per + e, t->vt);
        host_thread(t, j->c, init, j->a, j->b, j->want + i * j->per);
    }
}

/* want[i * per ..] = the model of thread ths[i], for i < n (n <= 8). */
static void model_threads(const struct compute_ctx *x, const struct compute_cfg *c,
                          const size_t *ths, int n, uint64_t *want)
{
    struct model_job j = {x, c, ths, (size_t)c->nch * (size_t)c->vw, 0, 0, want};

    arg_bits(x->t, &j.a, &j.b);
    gc__parallel_for((size_t)n, 1, model_range, &j);
}

/* Threads 0 and 1 of n configurations: job i is thread i % 2 of cfg[i / 2],
 * into x->want01[slot[i / 2]]. */
struct model01_job {
    const struct compute_ctx *x;
    const struct compute_cfg *cfg[MAX_CFG];
    int slot[MAX_CFG];
    uint64_t a, b;
};

static void model01_range(void *arg, size_t lo, size_t hi)
{
    const struct model01_job *j = arg;
    const struct gc_itype *t = j->x->t;
    uint64_t init[16 * 16];

    for (size_t i = lo; i < hi; i++) {
        const struct compute_cfg *c = j->cfg[i / 2];
        size_t per = (size_t)c->nch * (size_t)c->vw, th = i % 2;

        for (size_t e = 0; e < per; e++)
            init[e] = get_elem(j->x->hin, th * per + e, t->vt);
        host_thread(t, c, init, j->a, j->b, j->x->want01[j->slot[i / 2]] + th * per);
    }
}

/* x->want01[slot[i]] of configuration cfg[i], for i < n, where not yet
 * computed. */
static int model01(struct compute_ctx *x, const struct compute_cfg *const *cfg, const int *slot,
                   int n)
{
    struct model01_job j = {.x = x};
    int nj = 0;

    for (int i = 0; i < n; i++) {
        if (slot[i] < 0 || x->want01[slot[i]])
            continue;
        size_t per = (size_t)cfg[i]->nch * (size_t)cfg[i]->vw;
        x->want01[slot[i]] = malloc(2 * per * sizeof(uint64_t));
        if (!x->want01[slot[i]])
            return GC_ENOMEM;
        j.cfg[nj] = cfg[i];
        j.slot[nj++] = slot[i];
    }
    arg_bits(x->t, &j.a, &j.b);
    gc__parallel_for((size_t)nj * 2, 1, model01_range, &j);
    return 0;
}

int gc__compute_model01(struct compute_ctx *x, const struct compute_cfg *cfgs, const int *ci, int n)
{
    const struct compute_cfg *cfg[MAX_CFG];

    for (int i = 0; i < n && i < MAX_CFG; i++)
        cfg[i] = ci[i] >= 0 ? &cfgs[ci[i]] : NULL;
    return model01(x, cfg, ci, n < MAX_CFG ? n : MAX_CFG);
}

int gc__compute_vrun_check(struct compute_vrun *v, int nsample, int cache_slot, const char *what)
{
    struct compute_ctx *x = v->x;
    const struct gc_itype *t = x->t;
    const struct compute_cfg *c = v->c;
    size_t per = (size_t)c->nch * (size_t)c->vw, eb = gc__compute_vt_bytes(t->vt);
    size_t n = v->bytes / eb, nthreads = v->nthreads, ths[8];
    const unsigned char *g1 = v->g[0], *g2 = v->g[1];
    uint64_t *want = NULL;
    int rc = 0;

    if (nsample > (cache_slot >= 0 ? 2 : 8))
        nsample = cache_slot >= 0 ? 2 : 8;
    /* Threads 0 and 1 of a cached configuration (the sweep's points share
     * them), else nsample threads spread over the grid. */
    for (int si = 0; si < nsample; si++)
        ths[si] = cache_slot >= 0 ? (size_t)si
                  : nsample == 1  ? 0
                                  : (nthreads - 1) * (size_t)si / (size_t)(nsample - 1);
    if (v->on_device && (rc = compare_on_device(v, ths, nsample, per)))
        return rc;
    if (!v->on_device && memcmp(g1, g2, n * eb) != 0) {
        size_t i = 0;
        while (i < n * eb && g1[i] == g2[i])
            i++;
        gc__bench_set_error(x->r, GC_BENCH_ERROR,
                            "verification failed (%s): output element %zu (thread %zu) was not "
                            "written or is not deterministic",
                            what, i / eb, i / eb / per);
        return GC_EVERIFY;
    }
    if (cache_slot >= 0 && (rc = model01(x, &c, &cache_slot, 1)))
        return rc;
    if (cache_slot >= 0) {
        want = x->want01[cache_slot];
    } else {
        want = malloc((size_t)nsample * per * sizeof(uint64_t));
        if (!want)
            return GC_ENOMEM;
        model_threads(x, c, ths, nsample, want);
    }
    double tol = chain_tol(t, x->s->dev->ops->dialect, c->unroll * c->trips);

    for (int si = 0; si < nsample && rc == 0; si++) {
        size_t th = ths[si];

        for (size_t e = 0; e < per; e++) {
            uint64_t got = get_elem(g1, th * per + e, t->vt);
            uint64_t w = want[(size_t)si * per + e];
            if (!close_enough(t, tol, got, w)) {
                gc__bench_set_error(x->r, GC_BENCH_ERROR,
                                    "verification failed (%s): thread %zu chain %zu gave 0x%llx, "
                                    "the host model 0x%llx (relative tolerance %.3g)",
                                    what, th, e, (unsigned long long)got, (unsigned long long)w,
                                    tol);
                rc = GC_EVERIFY;
                break;
            }
        }
    }
    if (cache_slot < 0)
        free(want);
    return rc;
}

int gc__compute_verify(struct compute_ctx *x, struct gc_kern *k, const struct gc_launch *l,
                       const struct compute_cfg *c, size_t nthreads, int nsample, int cache_slot,
                       const char *what)
{
    struct compute_vrun v;
    struct gc_launch one = *l;
    double el;
    int rc = gc__compute_vrun_init(&v, x, c, nthreads);

    one.count = 1;
    for (int pass = 0; pass < 2 && !rc; pass++) {
        rc = gc__compute_vrun_poison(&v, pass);
        if (!rc)
            rc = gc__dev_launch(x->s->dev, k, &one, &el);
        if (!rc)
            rc = gc__compute_vrun_read(&v, pass);
    }
    if (!rc)
        rc = gc__compute_vrun_check(&v, nsample, cache_slot, what);
    gc__compute_vrun_free(&v);
    return rc;
}

int gc__compute_check_before(void *u, int rep)
{
    struct compute_sweep_check *sc = u;

    return rep < 2 ? gc__compute_vrun_poison(&sc->v, rep) : 0;
}

int gc__compute_check_after(void *u, int rep)
{
    struct compute_sweep_check *sc = u;
    int rc;

    if (rep >= 2)
        return 0;
    if ((rc = gc__compute_vrun_read(&sc->v, rep)) || rep == 0)
        return rc;
    rc = gc__compute_vrun_check(&sc->v, 2, sc->ci, sc->what);
    sc->checked = rc == 0;
    return rc;
}
