/* Kernel generation: a growable string buffer with a printf-checked append,
 * and the dialect layer. Generators write kernels in one vocabulary of GC_*
 * macros (defined by the prelude for CUDA C or OpenCL C) and never spell a
 * dialect's qualifiers themselves. */
#ifndef GC_KGEN_KGEN_H
#define GC_KGEN_KGEN_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"

struct gc_sbuf {
    char *s;
    size_t len, cap;
    bool oom; /* an append failed: the text is truncated */
};

void gc__sbuf_init(struct gc_sbuf *b);
void gc__sbuf_free(struct gc_sbuf *b);
void gc__sbuf_printf(struct gc_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gc__sbuf_puts(struct gc_sbuf *b, const char *s);
/* Takes the string (caller frees); the buffer is reset. NULL when oom. */
char *gc__sbuf_take(struct gc_sbuf *b);

enum {
    /* Per-block clock64/globaltimer/smid records (implies GC_KGEN_CLOCKS). */
    GC_KGEN_TIMESTAMPS = 1u << 0,
    /* Per-warp records instead of per-block ones: the same five words per
     * warp at slot (global thread index) / 32; every thread must reach
     * GC_TS_END and blocks must be whole warps of 32 (implies GC_KGEN_CLOCKS). */
    GC_KGEN_WARP_TIMESTAMPS = 1u << 1,
    /* The in-kernel clock reads GC_CLOCK64(), GC_GLOBALTIMER(), GC_SMID().
     * Only for devices whose caps have GC_CAP_CLOCK64, GC_CAP_GLOBALTIMER and
     * GC_CAP_SMID: the caller asks the caps, the prelude spells the reads in
     * the dialect (CUDA C's clock64 and PTX special registers; on OpenCL the
     * same registers through inline PTX, which NVIDIA's compiler accepts). */
    GC_KGEN_CLOCKS = 1u << 2,
};

/* Appends the dialect prelude. The vocabulary it defines:
 *   GC_KERNEL            kernel qualifier (extern "C" __global__ / __kernel)
 *   GC_GLOBAL            global address-space qualifier for pointer params
 *   GC_CONSTANT          constant address space for pointer params
 *   GC_SHARED            shared / __local qualifier for static declarations
 *   GC_DYN_SHARED_PARAM(T, name)  dynamic shared memory as the very last
 *                        parameter, leading comma included (empty on CUDA;
 *                        ", __local T *name" on OpenCL). Only in kernels that
 *                        are always launched with dyn_shared > 0.
 *   GC_DYN_SHARED_DECL(T, name)   first statement of the body
 *                        (extern __shared__ on CUDA; empty on OpenCL)
 *   GC_TS_PARAM          ", GC_GLOBAL GC_U64 *gc_ts" when timestamps are on, else empty;
 *                        put it after the last ordinary parameter
 *   GC_TS_BEGIN / GC_TS_END  first and last statements of the body: thread 0
 *                        of each block records %smid, clock64 and %globaltimer
 *                        at its start and end (no barrier, so the kernel's own
 *                        overlap is unchanged); thread 0 must reach GC_TS_END.
 *                        Only blocks whose index is a multiple of GC_TS_STRIDE
 *                        (default 1; #define it before the prelude) record, at
 *                        slot blockIdx / GC_TS_STRIDE, so that kernels of many
 *                        short blocks are not slowed by the records.
 *   GC_TID GC_BID GC_BDIM GC_NBLK GC_GID   thread/block ids (dimension 0)
 *   GC_BARRIER()         block-wide barrier with shared-memory fence
 *   GC_FENCE_BLOCK()     shared-memory fence for the block, no barrier
 *   GC_SHARED_PTR        address space of a pointer into shared memory, for casts
 *                        (empty on CUDA, __local on OpenCL)
 *   GC_CONSTANT_ARRAY    qualifier of a file-scope constant-memory array
 *                        (__constant__ / __constant), initialised in the source
 *   GC_ATOMIC_ADD_U32/U64/F32(p, v)  atomic add on a global or shared pointer
 *                        (OpenCL: 64-bit needs cl_khr_int64_base_atomics; f32 is
 *                        emulated with two atomic_xchg, OpenCL 1.2 has no float add)
 *   GC_FMAF(a,b,c)       fp32 fused multiply-add
 *   GC_U32 GC_U64 GC_I64 fixed-width integer types
 *   GC_RESTRICT          restrict qualifier
 *   GC_DEVFN             qualifiers of a helper function called by kernels
 *   GC_CLOCK64() GC_GLOBALTIMER() GC_SMID()   (GC_KGEN_CLOCKS) the SM's cycle
 *                        counter, the ns timer and the SM id, as GC_U64/GC_U32
 * Vector types int2/int4/float2/float4 exist in both dialects (assignment
 * only: CUDA defines no arithmetic on them). */
void gc__kgen_prelude(struct gc_sbuf *b, enum gc_dialect d, unsigned flags);

/* The kernel type of an element of BYTES (1, 2, 4, 8 or 16) bytes, the same
 * spelling in both dialects: unsigned char, unsigned short, GC_U32, uint2,
 * uint4. */
const char *gc__kgen_elem_type(int bytes);

/* File-name extension of a dialect's source (".cu", ".cl"). */
const char *gc__kgen_ext(enum gc_dialect d);

/* The dialect's enabling of the fp64 / fp16 types, where it needs one
 * (OpenCL C's extension pragmas); append before the prelude. */
void gc__kgen_extensions(struct gc_sbuf *b, enum gc_dialect d, bool fp64, bool fp16);

/* A line that keeps the compiler from unrolling the loop that follows
 * ("#pragma unroll 1\n" in CUDA C), or "" where the dialect has none. */
const char *gc__kgen_no_unroll(enum gc_dialect d);

/* The dialect of the kernels benchmarks declare for inspection (their
 * sources callbacks): CUDA C, whose binaries the GPU tests disassemble. */
enum gc_dialect gc__kgen_inspect_dialect(void);

/* The spelling of one piece of kernel text (a statement, a macro body) that
 * a device takes, chosen by gc__kgen_form. */
struct gc_kform {
    const char *text; /* NULL: no spelling the device takes */
    /* The CUDA spelling's inline PTX, taken as it is by an OpenCL compiler
     * that accepts inline PTX (NVIDIA's): its asm operands are scalar
     * registers, so it applies to scalar variables only, never to OpenCL C
     * vector types. */
    bool ptx;
};

/* Of a benchmark's two spellings of one piece of kernel text, the one a
 * device of dialect d and capabilities caps takes:
 *   CUDA     cuda;
 *   OpenCL   opencl, where the device has the capabilities it needs
 *            (opencl_caps, e.g. GC_CAP_FP16 for OpenCL C's half); else, on
 *            a device with GC_CAP_INLINE_ASM, cuda when it is pure inline PTX
 *            on scalar registers (gc__kgen_pure_ptx), with .ptx set;
 *            else none (.text NULL).
 * Either spelling may be NULL (none in that dialect). */
struct gc_kform gc__kgen_form(enum gc_dialect d, unsigned caps, const char *cuda,
                              const char *opencl, unsigned opencl_caps);

/* True when text is only asm statements ("asm(...);", "asm volatile(...);")
 * whose operands are all scalar registers (constraints r, l, f, d, h with
 * an optional + or =; clobbers any), and "(void)name;" statements: text
 * that means the same in CUDA C and in an OpenCL C that takes inline PTX. */
bool gc__kgen_pure_ptx(const char *text);

/* True when the dialect defines arithmetic on vector types (OpenCL C's
 * float4 x float4; CUDA C's vector types are storage only). */
bool gc__kgen_vector_arith(enum gc_dialect d);

/* True when a kernel of dialect d takes constant memory as a buffer argument
 * (OpenCL C's __constant pointers); false where constant data must sit in
 * the program's own constant array (CUDA C's __constant__), whose bank also
 * holds nothing else. */
bool gc__kgen_constant_args(enum gc_dialect d);

#endif
