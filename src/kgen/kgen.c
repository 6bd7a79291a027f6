/* The string buffer generators append to, and the dialect layer: one prelude
 * per dialect defining the GC_* vocabulary that every generator writes in. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgen/kgen.h"

void gc__sbuf_init(struct gc_sbuf *b)
{
    memset(b, 0, sizeof(*b));
}

void gc__sbuf_free(struct gc_sbuf *b)
{
    free(b->s);
    gc__sbuf_init(b);
}

static bool reserve(struct gc_sbuf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t ncap = b->cap ? b->cap : 1024;
    while (ncap < b->len + extra + 1)
        ncap *= 2;
    char *p = realloc(b->s, ncap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->s = p;
    b->cap = ncap;
    return true;
}

void gc__sbuf_printf(struct gc_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void gc__sbuf_puts(struct gc_sbuf *b, const char *s)
{
    size_t n = strlen(s);

    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

char *gc__sbuf_take(struct gc_sbuf *b)
{
    char *s = b->oom ? NULL : b->s;

    if (b->oom)
        free(b->s);
    else if (!s)
        s = calloc(1, 1);
    gc__sbuf_init(b);
    return s;
}

static const char cuda_prelude[] =
    "#define GC_KERNEL extern \"C\" __global__\n"
    "#define GC_GLOBAL\n"
    "#define GC_CONSTANT const\n"
    "#define GC_SHARED __shared__\n"
    "#define GC_DYN_SHARED_PARAM(T, name)\n"
    "#define GC_DYN_SHARED_DECL(T, name) extern __shared__ T name[];\n"
    "#define GC_TID threadIdx.x\n"
    "#define GC_BID blockIdx.x\n"
    "#define GC_BDIM blockDim.x\n"
    "#define GC_NBLK gridDim.x\n"
    "#define GC_GID (blockIdx.x * blockDim.x + threadIdx.x)\n"
    "#define GC_BARRIER() __syncthreads()\n"
    "#define GC_FENCE_BLOCK() __threadfence_block()\n"
    "#define GC_CONSTANT_ARRAY __constant__\n"
    "#define GC_SHARED_PTR\n"
    "#define GC_ATOMIC_ADD_U32(p, v) atomicAdd((p), (v))\n"
    "#define GC_ATOMIC_ADD_U64(p, v) atomicAdd((p), (v))\n"
    "#define GC_ATOMIC_ADD_F32(p, v) atomicAdd((p), (v))\n"
    "#define GC_FMAF(a, b, c) __fmaf_rn((a), (b), (c))\n"
    "#define GC_U8 unsigned char\n"
    "#define GC_U32 unsigned int\n"
    "#define GC_U64 unsigned long long\n"
    "#define GC_I64 long long\n"
    "#define GC_RESTRICT __restrict__\n"
    "#define GC_DEVFN static __device__ __forceinline__\n";

/* The in-kernel clocks (GC_KGEN_CLOCKS): the SM's cycle counter, the
 * device's ns timer and the SM id, as GC_CLOCK64(), GC_GLOBALTIMER() and
 * GC_SMID(). CUDA C has clock64(); the timer and the id are PTX special
 * registers. Not static, so that a kernel that reads one of them only draws
 * no unused-function warning. */
static const char cuda_clocks[] =
    "__device__ __forceinline__ unsigned long long gc_globaltimer(void)\n"
    "{ unsigned long long t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); return t; "
    "}\n"
    "__device__ __forceinline__ unsigned int gc_smid(void)\n"
    "{ unsigned int r; asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(r)); return r; }\n"
    "#define GC_CLOCK64() clock64()\n"
    "#define GC_GLOBALTIMER() gc_globaltimer()\n"
    "#define GC_SMID() gc_smid()\n";

/* OpenCL C has no clock; NVIDIA's compiler takes the same PTX special
 * registers through inline asm (the backend sets the caps only where a probe
 * kernel of these reads built and ran). */
static const char opencl_clocks[] =
    "static inline ulong gc_clock64(void)\n"
    "{ ulong t; asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(t)); return t; }\n"
    "static inline ulong gc_globaltimer(void)\n"
    "{ ulong t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); return t; }\n"
    "static inline uint gc_smid(void)\n"
    "{ uint r; asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(r)); return r; }\n"
    "#define GC_CLOCK64() gc_clock64()\n"
    "#define GC_GLOBALTIMER() gc_globaltimer()\n"
    "#define GC_SMID() gc_smid()\n";

/* Per-block records, in the vocabulary (both dialects). */
static const char block_timestamps[] =
    "#define GC_TS_PARAM , GC_GLOBAL GC_U64 *gc_ts\n"
    "#define GC_TS_BEGIN GC_U64 gc_c0 = GC_CLOCK64(), gc_t0 = GC_GLOBALTIMER();\n"
    "#ifndef GC_TS_STRIDE\n"
    "#define GC_TS_STRIDE 1\n"
    "#endif\n"
    "#define GC_TS_END if (GC_TID == 0 && GC_BID % GC_TS_STRIDE == 0) { \\\n"
    "    GC_U64 gc_c1 = GC_CLOCK64(), gc_t1 = GC_GLOBALTIMER(); \\\n"
    "    GC_GLOBAL GC_U64 *gc_w = gc_ts + (GC_U64)(GC_BID / GC_TS_STRIDE) * 5; \\\n"
    "    gc_w[0] = GC_SMID(); gc_w[1] = gc_c0; gc_w[2] = gc_c1; gc_w[3] = gc_t0; gc_w[4] = gc_t1; "
    "}\n";

/* Per-warp records (Volkov §5.5-5.6): lane 0 of every warp writes its own
 * {smid, clock64 start, end, globaltimer start, end} after the timed work,
 * at slot global-thread-index / 32 (blocks are whole warps). */
static const char warp_timestamps[] =
    "#define GC_TS_PARAM , GC_GLOBAL GC_U64 *gc_ts\n"
    "#define GC_TS_BEGIN GC_U64 gc_c0 = GC_CLOCK64(), gc_t0 = GC_GLOBALTIMER();\n"
    "#define GC_TS_END if ((GC_TID & 31u) == 0) { \\\n"
    "    GC_U64 gc_c1 = GC_CLOCK64(), gc_t1 = GC_GLOBALTIMER(); \\\n"
    "    GC_GLOBAL GC_U64 *gc_w = gc_ts + ((GC_U64)GC_BID * GC_BDIM + GC_TID) / 32u * 5u; \\\n"
    "    gc_w[0] = GC_SMID(); gc_w[1] = gc_c0; gc_w[2] = gc_c1; gc_w[3] = gc_t0; gc_w[4] = gc_t1; "
    "}\n";

static const char no_timestamps[] = "#define GC_TS_PARAM\n"
                                    "#define GC_TS_BEGIN\n"
                                    "#define GC_TS_END\n";

static const char opencl_prelude[] =
    "#define GC_KERNEL __kernel\n"
    "#define GC_GLOBAL __global\n"
    "#define GC_CONSTANT __constant\n"
    "#define GC_SHARED __local\n"
    "#define GC_DYN_SHARED_PARAM(T, name) , __local T *name\n"
    "#define GC_DYN_SHARED_DECL(T, name)\n"
    "#define GC_TID ((unsigned int)get_local_id(0))\n"
    "#define GC_BID ((unsigned int)get_group_id(0))\n"
    "#define GC_BDIM ((unsigned int)get_local_size(0))\n"
    "#define GC_NBLK ((unsigned int)get_num_groups(0))\n"
    "#define GC_GID ((unsigned int)get_global_id(0))\n"
    "#define GC_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)\n"
    "#define GC_FENCE_BLOCK() mem_fence(CLK_LOCAL_MEM_FENCE)\n"
    "#define GC_CONSTANT_ARRAY __constant\n"
    "#define GC_SHARED_PTR __local\n"
    "#define GC_ATOMIC_ADD_U32(p, v) atomic_add((p), (v))\n"
    "#ifdef cl_khr_int64_base_atomics\n#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : "
    "enable\n#endif\n"
    "#define GC_ATOMIC_ADD_U64(p, v) atom_add((p), (v))\n"
    "#define GC_ATOMIC_ADD_F32(p, v) { float gc_v_ = (v); while ((gc_v_ = atomic_xchg((p), "
    "atomic_xchg((p), 0.0f) + gc_v_)) != 0.0f) ; }\n"
    "#define GC_FMAF(a, b, c) fma((a), (b), (c))\n"
    "#define GC_U8 uchar\n"
    "#define GC_U32 uint\n"
    "#define GC_U64 ulong\n"
    "#define GC_I64 long\n"
    "#define GC_RESTRICT restrict\n"
    "#define GC_DEVFN static inline\n";

void gc__kgen_prelude(struct gc_sbuf *b, enum gc_dialect d, unsigned flags)
{
    bool cuda = d == GC_DIALECT_CUDA;

    if (flags & (GC_KGEN_TIMESTAMPS | GC_KGEN_WARP_TIMESTAMPS))
        flags |= GC_KGEN_CLOCKS;
    gc__sbuf_puts(b, "/* generated by gpuchar */\n");
    gc__sbuf_puts(b, cuda ? cuda_prelude : opencl_prelude);
    if (flags & GC_KGEN_CLOCKS)
        gc__sbuf_puts(b, cuda ? cuda_clocks : opencl_clocks);
    gc__sbuf_puts(b, (flags & GC_KGEN_WARP_TIMESTAMPS) ? warp_timestamps
                     : (flags & GC_KGEN_TIMESTAMPS)    ? block_timestamps
                                                       : no_timestamps);
}

const char *gc__kgen_elem_type(int bytes)
{
    switch (bytes) {
    case 1:
        return "unsigned char";
    case 2:
        return "unsigned short";
    case 4:
        return "GC_U32";
    case 8:
        return "uint2";
    default:
        return "uint4";
    }
}

const char *gc__kgen_ext(enum gc_dialect d)
{
    return d == GC_DIALECT_CUDA ? ".cu" : ".cl";
}

enum gc_dialect gc__kgen_inspect_dialect(void)
{
    return GC_DIALECT_CUDA;
}

struct gc_kform gc__kgen_form(enum gc_dialect d, unsigned caps, const char *cuda,
                              const char *opencl, unsigned opencl_caps)
{
    struct gc_kform f = {NULL, false};

    if (d == GC_DIALECT_CUDA)
        f.text = cuda;
    else if (opencl && (caps & opencl_caps) == opencl_caps)
        f.text = opencl;
    else if ((caps & GC_CAP_INLINE_ASM) && cuda && gc__kgen_pure_ptx(cuda))
        f = (struct gc_kform){cuda, true};
    return f;
}

bool gc__kgen_vector_arith(enum gc_dialect d)
{
    return d == GC_DIALECT_OPENCL;
}

bool gc__kgen_constant_args(enum gc_dialect d)
{
    return d == GC_DIALECT_OPENCL;
}

void gc__kgen_extensions(struct gc_sbuf *b, enum gc_dialect d, bool fp64, bool fp16)
{
    if (d != GC_DIALECT_OPENCL)
        return;
    if (fp64)
        gc__sbuf_puts(b, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    if (fp16)
        gc__sbuf_puts(b, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
}

const char *gc__kgen_no_unroll(enum gc_dialect d)
{
    return d == GC_DIALECT_CUDA ? "#pragma unroll 1\n" : "";
}
