/* application.polybench: the nine kernels gpumembench §V profiles (five
 * polybench-gpu programs: FDTD-2D steps 1-3, GEMM, 3MM x3, SYR2K, SYRK),
 * written from PolyBench's mathematical definitions. The description
 * (desc.c) is a table of the kernels; gen.c writes their source, work.c
 * counts what one launch does, host.c computes the reference each output
 * is checked against. */
#ifndef GC_BENCH_POLYBENCH_H
#define GC_BENCH_POLYBENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"
#include "kgen/kgen.h"
#include "model/appwork.h"

/* The launch shape of polybench-gpu: blocks of 32 x 8 threads, x along a
 * row of the output (consecutive columns), y down the rows. Spelled as a
 * 1-D block of 256 threads with x = id mod 32 and y = id / 32 (the same
 * warps), and a 1-D grid whose block b covers block column b mod (cols/32)
 * and block row b / (cols/32) (the same order as CUDA's 2-D grid). */
#define PB_BX 32
#define PB_BY 8

enum pb_kind {
    PB_FDTD1, /* ey = ey - 0.5 (hz - hz[i-1]); row 0 = fict */
    PB_FDTD2, /* ex = ex - 0.5 (hz - hz[j-1]); column 0 unchanged */
    PB_FDTD3, /* hz = hz - 0.7 (ex[j+1] - ex + ey[i+1] - ey); last row and column unchanged */
    PB_GEMM,  /* C = alpha A B + beta C */
    PB_MM,    /* E = A B (one of 3MM's three products) */
    PB_SYRK,  /* C = alpha A A^T + beta C */
    PB_SYR2K, /* C = alpha A B^T + alpha B A^T + beta C */
};

/* One kernel of the table. */
struct pb_kernel {
    const char *name;    /* "gemm", "mm3_kernel1"...: the record's prefix */
    const char *program; /* "GEMM", "3MM"... */
    enum pb_kind kind;
    int nin; /* input buffers; one output besides */
};

/* Sizes of one kernel: the output is rows x cols, the inner dimension k
 * (the matrix kernels). */
struct pb_size {
    int rows, cols, k;
};

#define PB_MAX_IN 3
#define PB_ALPHA 1.5f
#define PB_BETA 1.2f
#define PB_FICT 0.25f

/* The sizes of the benchmark's PB_NKERNELS kernels on device info in
 * profile p, in the table's order (FDTD-2D steps 1-3, GEMM, 3MM x3, SYR2K,
 * SYRK): the rule of desc.c; true when the time bound of a CPU device
 * stopped FDTD-2D's growth below the last-level cache. */
#define PB_NKERNELS 9
bool gc__pb_plan_sizes(const struct gc_device_info *info, enum gc_profile p, struct pb_size *z);

/* The kernel's name in its source ("pb_<name>"). */
void gc__pb_kname(const struct pb_kernel *k, char *buf, size_t len);

/* Source of kernel k at size z in dialect d; NULL when out of memory. */
char *gc__pb_source(const struct pb_kernel *k, const struct pb_size *z, enum gc_dialect d);

/* Elements of input i (0 .. nin-1) and of the output. */
size_t gc__pb_in_elems(const struct pb_kernel *k, const struct pb_size *z, int i);
size_t gc__pb_out_elems(const struct pb_size *z);

/* The work one launch does (model/appwork.h), counted from the kernel as
 * generated: operations per class, bytes per level, the launch shape. On a
 * GPU (lanes false) L1 counts the 32-byte sectors of each warp request; on
 * a CPU device (lanes true) the 4 bytes each work-item's load or store
 * asks for (a CPU's L1 has no sector of a 32-lane warp). */
void gc__pb_work(const struct pb_kernel *k, const struct pb_size *z, bool lanes,
                 struct gc_app_work *w);

/* The host reference of every output element (double precision) and the
 * error bound each device value must lie within; ref and tol hold
 * gc__pb_out_elems entries. */
void gc__pb_reference(const struct pb_kernel *k, const struct pb_size *z, const float *const *in,
                      double *ref, double *tol);

/* Compares the device's output with the reference of each element,
 * computed as it is compared (never stored: FDTD-2D's reference and bound
 * at a CPU's sizes would take 1 GiB per kernel): 0, or GC_EVERIFY with the
 * first element out of bounds and how many are in msg. */
int gc__pb_check(const struct pb_kernel *k, const struct pb_size *z, const float *const *in,
                 const float *out, char *msg, size_t len);

#endif
