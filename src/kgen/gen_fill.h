/* Device-side fill and check kernels: the counter-based random fill
 * (gc__hash32 of core/random.h, spelled in kernel code), a constant word
 * (poison), and checks that count the words of an output that differ from
 * what a kernel must have produced, computed from its inputs on the device.
 * Text only: core/devfill.c builds and launches them. */
#ifndef GC_KGEN_GEN_FILL_H
#define GC_KGEN_GEN_FILL_H

#include "kgen/kgen.h"

/* One program with the kernels below, all grid-stride loops over 32-bit
 * words (n a 64-bit count); a check adds its count of wrong words to res[0]
 * and of words it compared to res[1] (so that a check that did not run is
 * told from one that found nothing):
 *   gc_fill_hash(u32 *dst, u64 n, u64 seed)        dst[i] = gc__hash32(seed, i)
 *   gc_fill_word(u32 *dst, u64 n, u32 w)           dst[i] = w
 *   gc_check_eq(const u32 *want, const u32 *got, u64 n, u32 *res)
 *   gc_check_pattern(const u32 *got, u64 n, u32 seed, u32 *res)
 *                                                  want = gc__stream_pattern(seed, i)
 *   gc_check_triad(const u32 *b, const u32 *c, const u32 *got, u64 n, u32 s, u32 *res)
 *                                                  want = b[i] + s x c[i] (mod 2^32)
 *   gc_check_read(const u32 *src, u32 tiles, u32 tile_vecs, u32 vw, u32 grid, u32 block,
 *                 const u32 *got, u64 n, u32 *res)
 *       got[th] (th < n = grid x block) against the per-thread sum of a stream
 *       read kernel (kgen/gen_stream.h) launched with grid and block: thread g
 *       of block b sums the vw words of vectors t x tile_vecs + p for tiles
 *       t = b, b + grid, ... < tiles and positions p = g, g + block, ... <
 *       tile_vecs.
 *   gc_read_ref(const u32 *src, u32 *ref, u32 tiles, u32 tile_vecs, u32 vw)
 *       the per-thread sums of the same read kernel into ref[gid], for the
 *       launch's own grid and block.
 *   gc_copyk_ref(const u8 *src, u32 *ref, u32 elem, u32 reads, u64 stride, u64 threads,
 *                u32 poison)
 *       what work-item id of the copy kernel (bench/copykernel/copykernel.c) stores: the
 *       sum over r < reads of element id + r x stride (elem bytes, its 32-bit
 *       little-endian words summed), or poison where that sum is 0. */
/* contiguous: each thread takes one run of items (CPU devices) instead of
 * items a grid apart (GPUs); what every kernel computes is the same. */
char *gc__gen_fill(enum gc_dialect d, bool contiguous);

#endif
