/* What one launch of an application.polybench kernel does, counted from the
 * kernel as gen.c writes it (model/appwork.h):
 *   fp32   the kernel's adds, multiplies and FMAs (one FMA is one operation);
 *   int32  its index arithmetic: 8 per thread for the element's indices and
 *          3 per inner-loop trip (two addresses and the counter);
 *   L1     on a GPU the 32-byte sectors each warp instruction asks for (a
 *          warp is 32 consecutive columns of a row): 4 for 32 consecutive
 *          floats, 5 when they straddle a sector more, 1 when every lane
 *          reads the same word, 32 when the lanes walk down a column; on a
 *          CPU device the 4 bytes of each work-item's load or store;
 *   L1 wavefronts (GPU only) the 128-byte lines each warp request
 *          touches: 1 for 32 consecutive aligned floats or a broadcast, 2
 *          when they straddle a line, 32 for a column walk;
 *   L2     the distinct sectors each block touches (what reaches L2 when L1
 *          serves every reuse within a block and none across blocks; a
 *          count per warp, as if the warps of a block missed alike on the
 *          lines they share, put GEMM's attained L2 bandwidth 17% above the
 *          measured L2 peak on an H200);
 *   DRAM   the compulsory traffic: every element read at least once read
 *          once, every output written once. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bench/polybench/polybench.h"
#include "gpuchar/gpuchar.h"
#include "util/parallel.h"

#define SECTOR 32.0
#define FLOATS_PER_SECTOR 8
#define FLOATS_PER_LINE ((long)(GC_APP_L1_LINE / 4))

/* Sectors spanned by floats lo..hi of a row (rows are whole sectors). */
static double sectors(long lo, long hi)
{
    return (double)(hi / FLOATS_PER_SECTOR - lo / FLOATS_PER_SECTOR + 1);
}

/* L1 lines spanned by floats lo..hi of a row (rows are whole lines). */
static double lines(long lo, long hi)
{
    return (double)(hi / FLOATS_PER_LINE - lo / FLOATS_PER_LINE + 1);
}

/* A range of columns of one row of one array, touched by a warp. */
struct span {
    int arr; /* 0 .. nin-1 the inputs, 3 the output */
    long row, lo, hi;
};

#define NARR 4
#define MAX_SPANS 8

/* The spans warp (row i, columns j0 .. j0 + 31) touches in a stencil
 * kernel, as the source's conditions select its lanes. */
static int stencil_spans(enum pb_kind kind, const struct pb_size *z, long i, long j0,
                         struct span *s)
{
    long j1 = j0 + PB_BX - 1, last_row = z->rows - 1, last_col = z->cols - 1;
    int n = 0;

    s[n++] = (struct span){3, i, j0, j1};
    if (kind == PB_FDTD1) {
        if (i == 0)
            return n;
        s[n++] = (struct span){0, i, j0, j1};
        s[n++] = (struct span){1, i, j0, j1};
        s[n++] = (struct span){1, i - 1, j0, j1};
    } else if (kind == PB_FDTD2) {
        long lo = j0 == 0 ? 1 : j0; /* lane of column 0 copies in0 only */

        s[n++] = (struct span){0, i, j0, j1};
        s[n++] = (struct span){1, i, lo, j1};
        s[n++] = (struct span){1, i, lo - 1, j1 - 1};
    } else {
        long hi = j1 > last_col - 1 ? last_col - 1 : j1; /* interior lanes */

        s[n++] = (struct span){0, i, j0, j1};
        if (i == last_row)
            return n;
        s[n++] = (struct span){1, i, j0 + 1, hi + 1};
        s[n++] = (struct span){1, i, j0, hi};
        s[n++] = (struct span){2, i + 1, j0, hi};
        s[n++] = (struct span){2, i, j0, hi};
    }
    return n;
}

static void merge(struct span *u, int *nu, const struct span *s)
{
    for (int q = 0; q < *nu; q++)
        if (u[q].arr == s->arr && u[q].row == s->row) {
            u[q].lo = s->lo < u[q].lo ? s->lo : u[q].lo;
            u[q].hi = s->hi > u[q].hi ? s->hi : u[q].hi;
            return;
        }
    u[(*nu)++] = *s;
}

/* Per array and row, the columns touched (lo > hi: none) over the rows
 * first .. first + n - 1; the union is contiguous in these kernels. */
struct extent {
    long first, n;
    long *lo, *hi;
};

static int extent_init(struct extent *ex, long first, long n)
{
    ex->first = first;
    ex->n = n;
    ex->lo = malloc(sizeof(long) * NARR * (size_t)n);
    ex->hi = malloc(sizeof(long) * NARR * (size_t)n);
    if (!ex->lo || !ex->hi)
        return GC_ENOMEM;
    for (long e = 0; e < NARR * n; e++) {
        ex->lo[e] = LONG_MAX;
        ex->hi[e] = -1;
    }
    return 0;
}

static void extent_free(struct extent *ex)
{
    free(ex->lo);
    free(ex->hi);
}

static void extent_add(struct extent *ex, int arr, long row, long lo, long hi)
{
    long e = arr * ex->n + row - ex->first;

    ex->lo[e] = lo < ex->lo[e] ? lo : ex->lo[e];
    ex->hi[e] = hi > ex->hi[e] ? hi : ex->hi[e];
}

/* The counts of a stencil kernel's grid, summed over its rows of blocks in
 * parallel: every count is a whole number of bytes far below 2^53, so the
 * sums are exact in any order. */
struct stencil_job {
    enum pb_kind kind;
    const struct pb_size *z;
    bool lanes;
    struct gc_app_work *w;
    struct extent ex; /* the whole grid's */
    pthread_mutex_t lock;
    bool oom;
};

/* Block rows lo .. hi - 1: their L1 and L2 counts, and the columns they
 * touch (rows one above and below theirs too), merged into the job's. */
static void stencil_blocks(void *ctx, size_t lo, size_t hi)
{
    struct stencil_job *J = ctx;
    const struct pb_size *z = J->z;
    struct span s[MAX_SPANS], u[PB_BY * MAX_SPANS];
    long r0 = (long)lo * PB_BY - 1, r1 = (long)hi * PB_BY + 1;
    double l1 = 0, waves = 0, l2 = 0;
    struct extent ex;

    r0 = r0 < 0 ? 0 : r0;
    r1 = r1 > z->rows ? z->rows : r1;
    if (extent_init(&ex, r0, r1 - r0)) {
        extent_free(&ex);
        J->oom = true;
        return;
    }
    for (long i0 = (long)lo * PB_BY; i0 < (long)hi * PB_BY && i0 < z->rows; i0 += PB_BY)
        for (long j0 = 0; j0 < z->cols; j0 += PB_BX) {
            int nu = 0;

            for (long i = i0; i < i0 + PB_BY && i < z->rows; i++) {
                int n = stencil_spans(J->kind, z, i, j0, s);

                for (int q = 0; q < n; q++) {
                    l1 += J->lanes ? 4.0 * (double)(s[q].hi - s[q].lo + 1)
                                   : SECTOR * sectors(s[q].lo, s[q].hi);
                    waves += J->lanes ? 0 : lines(s[q].lo, s[q].hi);
                    merge(u, &nu, &s[q]);
                    extent_add(&ex, s[q].arr, s[q].row, s[q].lo, s[q].hi);
                }
            }
            for (int q = 0; q < nu; q++)
                l2 += SECTOR * sectors(u[q].lo, u[q].hi);
        }
    pthread_mutex_lock(&J->lock);
    J->w->bytes[GC_APP_LVL_L1] += l1;
    J->w->l1_wavefronts += waves;
    J->w->bytes[GC_APP_LVL_L2] += l2;
    for (int a = 0; a < NARR; a++)
        for (long r = r0; r < r1; r++)
            extent_add(&J->ex, a, r, ex.lo[a * ex.n + r - r0], ex.hi[a * ex.n + r - r0]);
    pthread_mutex_unlock(&J->lock);
    extent_free(&ex);
}

static void stencil_work(enum pb_kind kind, const struct pb_size *z, bool lanes,
                         struct gc_app_work *w)
{
    double r = z->rows, c = z->cols;
    struct stencil_job J = {.kind = kind, .z = z, .lanes = lanes, .w = w};

    pthread_mutex_init(&J.lock, NULL);
    J.oom = extent_init(&J.ex, 0, z->rows) != 0;
    if (!J.oom)
        gc__parallel_for((size_t)(z->rows + PB_BY - 1) / PB_BY, 4, stencil_blocks, &J);
    for (long e = 0; e < (long)NARR * z->rows && !J.oom; e++)
        if (J.ex.hi[e] >= J.ex.lo[e])
            w->bytes[GC_APP_LVL_DRAM] += 4.0 * (double)(J.ex.hi[e] - J.ex.lo[e] + 1);
    if (J.oom) {
        /* Out of memory: the record says nothing rather than something wrong. */
        w->bytes[GC_APP_LVL_DRAM] = w->bytes[GC_APP_LVL_L2] = w->bytes[GC_APP_LVL_L1] = 0;
        w->l1_wavefronts = 0;
    }
    extent_free(&J.ex);
    pthread_mutex_destroy(&J.lock);
    w->ops[GC_APP_OP_FP32] = kind == PB_FDTD1   ? 2.0 * (r - 1) * c
                             : kind == PB_FDTD2 ? 2.0 * r * (c - 1)
                                                : 4.0 * (r - 1) * (c - 1);
    w->ops[GC_APP_OP_INT32] = 8.0 * r * c;
}

/* Distinct units (per_unit floats: 8 a sector, 32 a line) of a column
 * walk's requests over the whole inner loop: trip t's warp reads rows
 * j0 .. j0 + 31 at column t, k floats apart. */
static double walk_units(long k, long per_unit)
{
    double n = 0;

    for (long t = 0; t < k; t++)
        for (long j = 0, prev = -1; j < PB_BX; j++) {
            long u = (j * k + t) / per_unit;

            n += u != prev;
            prev = u;
        }
    return n;
}

/* Distinct rows of an N x K operand that a block reads when it needs rows
 * i0 .. i0+7 and j0 .. j0+31 (SYRK, SYR2K: the same matrix on both sides). */
static double union_rows(long i0, long j0)
{
    long lo = i0 > j0 ? i0 : j0, hi = (i0 + PB_BY < j0 + PB_BX) ? i0 + PB_BY : j0 + PB_BX;
    long overlap = hi > lo ? hi - lo : 0;

    return (double)(PB_BY + PB_BX - overlap);
}

static void matrix_work(enum pb_kind kind, const struct pb_size *z, bool lanes,
                        struct gc_app_work *w)
{
    double r = z->rows, c = z->cols, k = z->k, warps = r * c / PB_BX;
    bool has_c = kind != PB_MM, walk = kind == PB_SYRK || kind == PB_SYR2K;
    double io = has_c ? 2 : 1;           /* output, and C read where the kernel scales it */
    double m = kind == PB_SYR2K ? 2 : 1; /* operand pairs per inner trip */

    /* Per warp and operand pair: the broadcast row operand (1 sector, 1
     * line a trip) and either a row of 32 consecutive floats (4 sectors, 1
     * line a trip) or a column walk (its distinct sectors and lines). */
    double sec = m * (k + (walk ? walk_units(z->k, FLOATS_PER_SECTOR) : 4 * k));
    double wave = m * (k + (walk ? walk_units(z->k, FLOATS_PER_LINE) : k));
    w->bytes[GC_APP_LVL_L1] =
        lanes ? r * c * 4.0 * (2 * m * k + io) : warps * SECTOR * (sec + 4 * io);
    if (!lanes)
        w->l1_wavefronts = warps * (wave + io);
    double blocks = warps / PB_BY, l2_ops = 0;
    if (!walk)
        l2_ops = blocks * 4.0 * k * (PB_BY + PB_BX);
    else
        for (long i0 = 0; i0 < z->rows; i0 += PB_BY)
            for (long j0 = 0; j0 < z->cols; j0 += PB_BX)
                l2_ops += m * 4.0 * k * union_rows(i0, j0);
    w->bytes[GC_APP_LVL_L2] = l2_ops + blocks * io * PB_BY * PB_BX * 4.0;
    if (kind == PB_GEMM || kind == PB_MM)
        w->bytes[GC_APP_LVL_DRAM] = 4.0 * (r * k + k * c + io * r * c);
    else
        w->bytes[GC_APP_LVL_DRAM] = 4.0 * (m * r * k + io * r * c);
    w->ops[GC_APP_OP_FP32] = r * c * (m * k + (has_c ? 2 : 0));
    w->ops[GC_APP_OP_INT32] = r * c * (8 + 3 * k);
}

void gc__pb_work(const struct pb_kernel *k, const struct pb_size *z, bool lanes,
                 struct gc_app_work *w)
{
    gc__app_work_init(w);
    w->access_bytes = 4; /* every load a float */
    if (k->kind <= PB_FDTD3)
        stencil_work(k->kind, z, lanes, w);
    else
        matrix_work(k->kind, z, lanes, w);
    w->threads = (double)z->rows * z->cols;
    w->block_threads = PB_BX * PB_BY;
}
