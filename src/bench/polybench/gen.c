/* Kernel text of application.polybench: each kernel from its PolyBench
 * definition, one output element per thread, sizes as literals. Every
 * kernel writes a separate output buffer (PolyBench updates C, ey, ex and
 * hz in place): the engine launches a kernel many times back to back, and
 * each launch must compute the result the host checks. The loads and
 * stores per element are those of the in-place form. */
#include <stdio.h>

#include "bench/polybench/polybench.h"

void gc__pb_kname(const struct pb_kernel *k, char *buf, size_t len)
{
    snprintf(buf, len, "pb_%s", k->name);
}

/* The thread's output element: i (row) and j (column) from the 32 x 8
 * block shape spelled in one dimension (polybench.h). */
static void index_prologue(struct gc_sbuf *b, const struct pb_size *z)
{
    gc__sbuf_printf(b,
                    "    unsigned int tx = GC_TID & 31u, ty = GC_TID >> 5;\n"
                    "    unsigned int j = (GC_BID %% %uu) * %uu + tx;\n"
                    "    unsigned int i = (GC_BID / %uu) * %uu + ty;\n"
                    "    if (i >= %uu || j >= %uu)\n"
                    "        return;\n",
                    (unsigned)(z->cols / PB_BX), PB_BX, (unsigned)(z->cols / PB_BX), PB_BY,
                    (unsigned)z->rows, (unsigned)z->cols);
}

static void params(struct gc_sbuf *b, const char *const *names, int n)
{
    for (int p = 0; p < n; p++)
        gc__sbuf_printf(b, "GC_GLOBAL const float *GC_RESTRICT %s, ", names[p]);
    gc__sbuf_puts(b, "GC_GLOBAL float *GC_RESTRICT out)\n{\n");
}

static void body_fdtd(struct gc_sbuf *b, const struct pb_kernel *k, const struct pb_size *z)
{
    unsigned ny = (unsigned)z->cols;

    if (k->kind == PB_FDTD1)
        gc__sbuf_printf(b,
                        "    out[i * %uu + j] = i == 0u ? %.9gf\n"
                        "        : in0[i * %uu + j] - 0.5f * (in1[i * %uu + j] - in1[(i - 1u) * "
                        "%uu + j]);\n",
                        ny, (double)PB_FICT, ny, ny, ny);
    else if (k->kind == PB_FDTD2)
        gc__sbuf_printf(b,
                        "    out[i * %uu + j] = j == 0u ? in0[i * %uu]\n"
                        "        : in0[i * %uu + j] - 0.5f * (in1[i * %uu + j] - in1[i * %uu + j - "
                        "1u]);\n",
                        ny, ny, ny, ny, ny);
    else
        gc__sbuf_printf(
            b,
            "    if (i < %uu && j < %uu)\n"
            "        out[i * %uu + j] = in0[i * %uu + j] - 0.7f * (in1[i * %uu + j + 1u] "
            "- in1[i * %uu + j]\n"
            "            + in2[(i + 1u) * %uu + j] - in2[i * %uu + j]);\n"
            "    else\n"
            "        out[i * %uu + j] = in0[i * %uu + j];\n",
            (unsigned)z->rows - 1u, ny - 1u, ny, ny, ny, ny, ny, ny, ny, ny);
}

/* The inner products: a register accumulator over k, then the output. */
static void body_matrix(struct gc_sbuf *b, const struct pb_kernel *k, const struct pb_size *z)
{
    unsigned nk = (unsigned)z->k, nj = (unsigned)z->cols;

    gc__sbuf_puts(b, "    float acc = 0.0f;\n");
    gc__sbuf_printf(b, "    for (unsigned int k = 0; k < %uu; k++) {\n", nk);
    switch (k->kind) {
    case PB_GEMM:
    case PB_MM:
        gc__sbuf_printf(b, "        acc = GC_FMAF(in0[i * %uu + k], in1[k * %uu + j], acc);\n", nk,
                        nj);
        break;
    case PB_SYRK:
        gc__sbuf_printf(b, "        acc = GC_FMAF(in0[i * %uu + k], in0[j * %uu + k], acc);\n", nk,
                        nk);
        break;
    default:
        gc__sbuf_printf(b,
                        "        acc = GC_FMAF(in0[i * %uu + k], in1[j * %uu + k], acc);\n"
                        "        acc = GC_FMAF(in1[i * %uu + k], in0[j * %uu + k], acc);\n",
                        nk, nk, nk, nk);
    }
    gc__sbuf_puts(b, "    }\n");
    if (k->kind == PB_MM)
        gc__sbuf_printf(b, "    out[i * %uu + j] = acc;\n", nj);
    else
        gc__sbuf_printf(b,
                        "    out[i * %uu + j] = GC_FMAF(%.9gf, in%d[i * %uu + j], %.9gf * acc);\n",
                        nj, (double)PB_BETA, k->nin - 1, nj, (double)PB_ALPHA);
}

char *gc__pb_source(const struct pb_kernel *k, const struct pb_size *z, enum gc_dialect d)
{
    static const char *const names[PB_MAX_IN] = {"in0", "in1", "in2"};
    struct gc_sbuf b;
    char kn[64];

    gc__pb_kname(k, kn, sizeof(kn));
    gc__sbuf_init(&b);
    gc__kgen_prelude(&b, d, 0);
    gc__sbuf_printf(&b, "/* %s (%s), %d x %d outputs%s */\n", k->name, k->program, z->rows, z->cols,
                    k->kind >= PB_GEMM ? ", inner dimension in the loop" : "");
    gc__sbuf_printf(&b, "GC_KERNEL void %s(", kn);
    params(&b, names, k->nin);
    index_prologue(&b, z);
    if (k->kind <= PB_FDTD3)
        body_fdtd(&b, k, z);
    else
        body_matrix(&b, k, z);
    gc__sbuf_puts(&b, "}\n");
    return gc__sbuf_take(&b);
}

size_t gc__pb_out_elems(const struct pb_size *z)
{
    return (size_t)z->rows * (size_t)z->cols;
}

size_t gc__pb_in_elems(const struct pb_kernel *k, const struct pb_size *z, int i)
{
    size_t r = (size_t)z->rows, c = (size_t)z->cols, n = (size_t)z->k;

    switch (k->kind) {
    case PB_GEMM:
    case PB_MM:
        return i == 0 ? r * n : i == 1 ? n * c : r * c;
    case PB_SYRK:
    case PB_SYR2K:
        return i < k->nin - 1 ? r * n : r * c;
    default:
        return r * c;
    }
}
