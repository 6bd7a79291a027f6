/* Launches the memory.bandwidth points whose plateaus are named after a
 * memory level (L1, L2, DRAM), each twice (a warm-up, then the launch that
 * counts), for Nsight Compute to read which level served the bytes
 * (tools/ncu-levels.sh). Writes one line per counted launch:
 *
 *     launch-ordinal  level  footprint-bytes  bytes-read
 *
 * where launch-ordinal is the 1-based position of the launch among all the
 * kernel launches of this process (the order ncu reports them in). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda.h"
#include "bench/cachebw/cachebw.h"

static const struct gc_backend_ops *ops = &gc__cuda_ops;

struct probe {
    const char *level; /* "l1", "l2", "dram"; "l2-info": shown, not judged */
    enum gc_ldpath ld;
    size_t fp;
};

static void fill(unsigned char *p, size_t n, unsigned long long s)
{
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        p[i] = (unsigned char)(s >> 24);
    }
}

static int run_probe(struct gc_dev *dev, const struct gc_device_info *info, const struct probe *p,
                     int *ordinal, FILE *out)
{
    struct gc_cachebw_point pt;
    struct gc_prog *prog = NULL;
    struct gc_kern *k = NULL;
    struct gc_buf *src = NULL, *dst = NULL;
    unsigned char *host = NULL;
    void *bin = NULL;
    size_t len = 0;
    char *log = NULL;
    int per_cu = info->max_threads_per_cu / GC_CACHEBW_BLOCK, api = 0, rc;
    double el;

    rc = gc__cachebw_point(info, GC_DIALECT_CUDA, 16, p->ld, p->fp, 1, &pt);
    if (rc)
        return rc;
    if ((rc = ops->compile(dev, pt.src, NULL, &bin, &len, &log)) ||
        (rc = ops->load(dev, bin, len, &prog)) || (rc = ops->kernel(prog, "gc_cachebw", &k)))
        goto out;
    if (ops->max_active_blocks && ops->max_active_blocks(k, GC_CACHEBW_BLOCK, 0, &api) == 0 &&
        api > 0 && api < per_cu)
        per_cu = api;
    unsigned grid = (unsigned)(per_cu * info->compute_units);
    free(pt.src);
    /* The shape again, now for the real grid. */
    if ((rc = gc__cachebw_point(info, GC_DIALECT_CUDA, 16, p->ld, p->fp, grid, &pt)))
        goto out;
    host = malloc(p->fp);
    if (!host) {
        rc = GC_ENOMEM;
        goto out;
    }
    fill(host, p->fp, 0x1e7e15ULL + p->fp);
    if ((rc = ops->alloc(dev, p->fp, &src)) || (rc = ops->write(src, 0, host, p->fp)) ||
        (rc = ops->alloc(dev, (size_t)grid * GC_CACHEBW_BLOCK * 4, &dst)))
        goto out;
    struct gc_arg args[5] = {
        {.type = GC_ARG_BUF, .v.buf = src},
        {.type = GC_ARG_BUF, .v.buf = dst},
        {.type = GC_ARG_U32, .v.u32 = (unsigned)pt.nchunks},
        {.type = GC_ARG_U32, .v.u32 = pt.passes},
        {.type = GC_ARG_U32, .v.u32 = 0},
    };
    struct gc_launch l = {{grid, 1, 1}, {GC_CACHEBW_BLOCK, 1, 1}, 0, args, 5, 1};
    for (int i = 0; i < 2 && !rc; i++) {
        rc = ops->launch(dev, k, &l, &el);
        (*ordinal)++;
    }
    /* The L2 plateau is taken only from footprints of at least
     * gc__cachebw_l2_min_fp(grid); the smaller ones are shown as info. */
    if (!rc)
        fprintf(out, "%d\t%s\t%zu\t%.0f\n", *ordinal,
                strcmp(p->level, "l2") == 0 && p->fp < gc__cachebw_l2_min_fp(grid) ? "l2-info"
                                                                                   : p->level,
                p->fp, pt.bytes_read);
out:
    if (rc)
        fprintf(stderr, "%s probe at %zu B: %s\n%s\n", p->level, p->fp, ops->last_error(dev),
                log ? log : "");
    free(log);
    free(bin);
    free(host);
    free(pt.src);
    if (src)
        ops->free(src);
    if (dst)
        ops->free(dst);
    if (prog)
        ops->unload(prog);
    return rc;
}

int main(int argc, char **argv)
{
    struct gc_device_info info;
    struct gc_dev *dev = NULL;
    char why[512] = "", err[GC_ERRLEN] = "";
    struct probe probes[64];
    int n = 0, ordinal = 0, rc = 0;
    FILE *out;

    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT.tsv\n", argv[0]);
        return 2;
    }
    if (ops->init(why, sizeof(why)) || ops->device_count() < 1 || ops->device_info(0, &info) ||
        ops->open(0, &dev, err, sizeof(err))) {
        fprintf(stderr, "no usable CUDA device: %s %s\n", why, err);
        return 77;
    }
    /* Every footprint that memory.bandwidth may pick for a plateau: L1 =
     * caching loads up to 64 KiB, L2 = L2-only loads up to half the L2,
     * DRAM = the largest footprint (16x the L2, at most 1 GiB). */
    for (size_t fp = 4096; fp <= ((size_t)64 << 10); fp *= 2)
        probes[n++] = (struct probe){"l1", GC_LD_DEFAULT, fp};
    for (size_t fp = 4096; fp <= info.l2_size / 2 && n < 60; fp *= 2)
        probes[n++] = (struct probe){"l2", GC_LD_CG, fp};
    size_t big = 16 * info.l2_size;
    if (big > ((size_t)1 << 30))
        big = (size_t)1 << 30;
    size_t top = 4096;
    while (top * 2 <= big)
        top *= 2;
    probes[n++] = (struct probe){"dram", GC_LD_DEFAULT, top};
    out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        rc = 1;
        goto done;
    }
    for (int i = 0; i < n && !rc; i++)
        rc = run_probe(dev, &info, &probes[i], &ordinal, out);
    fclose(out);
done:
    ops->close(dev);
    ops->fini();
    return rc ? 1 : 0;
}
