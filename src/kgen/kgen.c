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
    "#define GC_RESTRICT __restrict__\n";

static const char cuda_timestamps[] =
    "static __device__ __forceinline__ unsigned long long gc_globaltimer(void)\n"
    "{ unsigned long long t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); return t; "
    "}\n"
    "static __device__ __forceinline__ unsigned int gc_smid(void)\n"
    "{ unsigned int r; asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(r)); return r; }\n"
    "#define GC_TS_PARAM , unsigned long long *gc_ts\n"
    "#define GC_TS_BEGIN unsigned long long gc_c0 = clock64(), gc_t0 = gc_globaltimer();\n"
    "#ifndef GC_TS_STRIDE\n"
    "#define GC_TS_STRIDE 1\n"
    "#endif\n"
    "#define GC_TS_END if (threadIdx.x == 0 && blockIdx.x % GC_TS_STRIDE == 0) { \\\n"
    "    unsigned long long gc_c1 = clock64(), gc_t1 = gc_globaltimer(); \\\n"
    "    unsigned long long *gc_w = gc_ts + (unsigned long long)(blockIdx.x / GC_TS_STRIDE) * 5; "
    "\\\n"
    "    gc_w[0] = gc_smid(); gc_w[1] = gc_c0; gc_w[2] = gc_c1; gc_w[3] = gc_t0; gc_w[4] = gc_t1; "
    "}\n";

/* Per-warp records (Volkov §5.5-5.6): lane 0 of every warp writes its own
 * {smid, clock64 start, end, globaltimer start, end} after the timed work,
 * at slot global-thread-index / 32 (blocks are whole warps). */
static const char cuda_warp_timestamps[] =
    "#define GC_TS_PARAM , unsigned long long *gc_ts\n"
    "#define GC_TS_BEGIN unsigned long long gc_c0 = clock64(), gc_t0 = gc_globaltimer();\n"
    "#define GC_TS_END if ((threadIdx.x & 31u) == 0) { \\\n"
    "    unsigned long long gc_c1 = clock64(), gc_t1 = gc_globaltimer(); \\\n"
    "    unsigned long long *gc_w = gc_ts + ((unsigned long long)blockIdx.x * blockDim.x + "
    "threadIdx.x) / 32u * 5u; \\\n"
    "    gc_w[0] = gc_smid(); gc_w[1] = gc_c0; gc_w[2] = gc_c1; gc_w[3] = gc_t0; gc_w[4] = gc_t1; "
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
    "#define GC_RESTRICT restrict\n";

void gc__kgen_prelude(struct gc_sbuf *b, enum gc_dialect d, unsigned flags)
{
    gc__sbuf_puts(b, "/* generated by gpuchar */\n");
    if (d == GC_DIALECT_CUDA) {
        gc__sbuf_puts(b, cuda_prelude);
        if (flags & GC_KGEN_WARP_TIMESTAMPS) {
            /* The helpers (globaltimer, smid) come with the block variant. */
            gc__sbuf_puts(b, cuda_timestamps);
            gc__sbuf_puts(b, "#undef GC_TS_PARAM\n#undef GC_TS_BEGIN\n#undef GC_TS_END\n");
            gc__sbuf_puts(b, cuda_warp_timestamps);
        } else {
            gc__sbuf_puts(b, (flags & GC_KGEN_TIMESTAMPS) ? cuda_timestamps : no_timestamps);
        }
    } else {
        gc__sbuf_puts(b, opencl_prelude);
        gc__sbuf_puts(b, no_timestamps);
    }
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

const char *gc__kgen_form(enum gc_dialect d, const char *cuda, const char *opencl)
{
    return d == GC_DIALECT_CUDA ? cuda : opencl;
}

bool gc__kgen_vector_arith(enum gc_dialect d)
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
