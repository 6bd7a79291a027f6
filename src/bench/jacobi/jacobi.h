/* application.jacobi: the ω-Jacobi relaxation of uCLbench §4 in the 17
 * variants of §4.2. The grid, its storage and the launch of a variant with
 * a work-group shape; the generator; the host reference. */
#ifndef GC_BENCH_JACOBI_H
#define GC_BENCH_JACOBI_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"
#include "model/appwork.h"
#include "model/jacobi.h"

/* The unit square's grid: n x n interior points inside a ring of Dirichlet
 * boundary points (N = n + 2 per side, h = 1 / (N - 1)). Point (x, y) is
 * stored at y * pitch + x + off: off = 3 and a pitch a multiple of 16 put
 * the first interior point of every row, and so every vector of 4, 8 or
 * 16 points of a work-item, on a 16-byte boundary (CUDA's float4). */
struct gc_jgrid {
    unsigned n, N, pitch, off;
    size_t elems; /* floats per array (rows x pitch plus the vector overhang) */
};

#define GC_JACOBI_OFF 3u

void gc__jacobi_grid(unsigned n, struct gc_jgrid *g);

/* The launch of variant v with bx x by work-items per work-group (a 1-D
 * launch of bx * by; the kernel derives the 2-D position). */
struct gc_jlaunch {
    unsigned tx, ty;     /* work-items per row and rows of the thread grid */
    unsigned nbx, nby;   /* work-groups per row and rows of work-groups */
    unsigned tw, th, tp; /* manual caching: tile columns, rows, pitch (floats) */
    size_t tile_bytes;   /* 0 without manual caching */
};

/* 0, or GC_ERANGE when the shape does not fit the variant on this grid:
 * branch elimination needs whole work-groups (no bounds test), why says so. */
int gc__jacobi_launch(const struct gc_jvariant *v, const struct gc_jgrid *g, int bx, int by,
                      struct gc_jlaunch *out, char *why, size_t len);

/* The kernel "gc_jacobi" of variant v for the launch (malloc'ed; NULL on
 * ENOMEM). Arguments: u, f, un (global floats), omega, h2 (float). */
char *gc__jacobi_gen(enum gc_dialect d, const struct gc_jvariant *v, const struct gc_jgrid *g,
                     int bx, int by, const struct gc_jlaunch *l);

/* The work of one launch as the generator counts it. */
void gc__jacobi_work(const struct gc_jvariant *v, const struct gc_jgrid *g, int bx, int by,
                     const struct gc_jlaunch *l, struct gc_app_work *w);

/* The L1 wavefronts of one launch on a GPU as the generator's requests
 * touch lines (bench/jacobi/jacobi_wave.c); 0 where they are not counted
 * (OpenCL C's vector loads, W > 1). */
double gc__jacobi_wavefronts(enum gc_dialect d, const struct gc_jvariant *v,
                             const struct gc_jgrid *g, int bx, int by, const struct gc_jlaunch *l);

/* Bytes per work-item of one of the variant's global loads of u and f (the
 * loads that carry its DRAM traffic): 4 for the scalar variants, 16 for
 * CUDA C's float4 pieces of a vector variant; 0 (not known) for OpenCL C's
 * vloadW, whose load width is the compiler's choice (vloadW promises only
 * a float's alignment). */
int gc__jacobi_access_bytes(enum gc_dialect d, const struct gc_jvariant *v);

/* Host reference and check: the relaxed value of every point the variant
 * writes (all points; the interior with branch elimination, whose
 * boundary a separate step keeps) against got. 0 or GC_EVERIFY with msg. */
int gc__jacobi_check(const struct gc_jgrid *g, const float *u, const float *f, float omega,
                     float h2, bool interior_only, const float *got, char *msg, size_t len);

#endif
