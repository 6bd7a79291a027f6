/* Streaming memory kernels (read, write, copy, triad) shared by the DRAM and
 * copy benchmarks and the load/store helpers that select a cache path. The
 * host-side verification of what each kernel must have produced is in
 * bench/dram/verify.h. */
#ifndef GC_KGEN_GEN_STREAM_H
#define GC_KGEN_GEN_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kgen/kgen.h"

enum gc_stream_op { GC_STREAM_READ, GC_STREAM_WRITE, GC_STREAM_COPY, GC_STREAM_TRIAD };

/* Which cache path a load takes. Only CUDA distinguishes them (inline PTX);
 * OpenCL always uses an ordinary global load. */
enum gc_ldpath {
    GC_LD_DEFAULT, /* ld.global: L1 and L2 */
    GC_LD_CG,      /* ld.global.cg: L2 only */
    GC_LD_NC,      /* ld.global.nc: read-only (texture) path */
    /* Streaming hints (PTX ISA 7.4+, sm_80+): data read once need not be
     * kept in L1, and L2 may fetch whole 256-byte blocks from DRAM. */
    GC_LD_NC_NOALLOC,       /* ld.global.nc.L1::no_allocate */
    GC_LD_NC_NOALLOC_PF256, /* ld.global.nc.L1::no_allocate.L2::256B */
    GC_LD_PF256,            /* ld.global.L2::256B */
};

/* The PTX load operator of a path ("ld.global.nc.L1::no_allocate", ...). */
const char *gc__ldpath_ptx(enum gc_ldpath ld);

/* One streaming kernel. The buffer is a sequence of tiles of block x unroll
 * vectors; thread t of a block handles vectors t, t + block, ... of a tile,
 * and block b handles tiles b, b + grid, b + 2 grid, ... (a grid-stride loop
 * whose bound, the tile count, is a literal; the grid is chosen at launch). */
struct gc_stream_cfg {
    enum gc_stream_op op;
    /* 4, 8 or 16; read on CUDA also 32: two 16-byte loads back to back from
     * one address (one asm statement), 32 contiguous bytes per thread. */
    int vec_bytes;
    int block;  /* threads per block */
    int unroll; /* vectors per thread per tile, all loaded before use */
    unsigned tiles;
    enum gc_ldpath ld;
    bool st_cs;         /* CUDA: streaming (evict-first) stores */
    unsigned ts_stride; /* one block in ts_stride records timestamps (>= 1) */
};

/* Bytes one tile spans in each buffer. */
static inline size_t gc__stream_tile_bytes(const struct gc_stream_cfg *c)
{
    return (size_t)c->block * (size_t)c->unroll * (size_t)c->vec_bytes;
}

/* Buffers the kernel reads and writes (read: 1 + a small per-thread output,
 * write: 1, copy: 2, triad: 3), and the kernel arguments before the
 * timestamp buffer. */
int gc__stream_nbufs(enum gc_stream_op op);
const char *gc__stream_op_name(enum gc_stream_op op);

/* Kernel "gc_stream". Arguments by op:
 *   read:  const V *src, u32 *out (one word per thread: the sum of the words
 *          it read, mod 2^32)
 *   write: V *dst, u32 seed (word i gets gc__stream_pattern(seed, i))
 *   copy:  const V *src, V *dst
 *   triad: const V *b, const V *c, V *a, u32 s (a = b + s * c per 32-bit word)
 * then the timestamp buffer when flags has GC_KGEN_TIMESTAMPS. */
char *gc__gen_stream(enum gc_dialect d, unsigned flags, const struct gc_stream_cfg *c);

/* Emits, after the prelude, the element type GC_V of vec_bytes (4, 8, 16)
 * with its word count GC_VW, and gc_ld(p) / gc_st(p, v) for that type
 * through the given load path and store kind (plain C on OpenCL). */
void gc__gen_ldst(struct gc_sbuf *b, enum gc_dialect d, int vec_bytes, enum gc_ldpath ld,
                  bool st_cs);
/* Appends the 32-bit word c of vector variable name (".x" ... or nothing). */
const char *gc__vec_comp(int vec_bytes, int c);

/* The value a write kernel stores in 32-bit word i. */
static inline uint32_t gc__stream_pattern(uint32_t seed, uint64_t i)
{
    return ((uint32_t)i * 0x9E3779B1u) ^ seed;
}

#endif
