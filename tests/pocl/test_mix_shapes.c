/* The latency-hiding kernels against their host model on the first OpenCL
 * device (PoCL in CI), at launch shapes that no one device gives: blocks of
 * 1, 2, 3, 16, 17, 48 and 64 threads, grids of 1 to 16 blocks. Every chain
 * of every thread must end where gc__mix_expect says, so that a kernel and a
 * model that index threads differently (local against global id) disagree
 * here rather than on some host whose core count happens to expose it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/opencl/opencl.h"
#include "kgen/gen_mix.h"

static const struct gc_backend_ops *const ops = &gc__opencl_ops;
static struct gc_dev *g_dev;
static struct gc_device_info g_info;

static int setup(void **state)
{
    char why[512] = "", err[GC_ERRLEN] = "";
    int index = 0;

    (void)state;
    if (ops->init(why, sizeof(why)) != 0 || ops->device_count() < 1) {
        fprintf(stderr, "no OpenCL device: %s\n", why);
        return -1;
    }
    /* A PoCL device where there is one, as the other PoCL tests. */
    for (int i = 0; i < ops->device_count(); i++)
        if (ops->device_info(i, &g_info) == 0 &&
            strstr(g_info.driver, "Portable Computing Language")) {
            index = i;
            break;
        }
    if (ops->open(index, &g_dev, err, sizeof(err)) != 0) {
        fprintf(stderr, "open: %s\n", err);
        return -1;
    }
    return ops->device_info(index, &g_info);
}

static int teardown(void **state)
{
    (void)state;
    ops->close(g_dev);
    ops->fini();
    return 0;
}

static struct gc_kern *build(const struct gc_mix_cfg *c, struct gc_prog **prog)
{
    char *src = gc__gen_mix(GC_DIALECT_OPENCL, 0, c);
    struct gc_kern *k = NULL;
    void *bin = NULL;
    size_t len = 0;
    char *log = NULL;
    int rc;

    assert_non_null(src);
    rc = ops->compile(g_dev, src, NULL, &bin, &len, &log);
    if (rc)
        fprintf(stderr, "compile: %s\n%s\n", ops->last_error(g_dev), log ? log : "");
    assert_int_equal(rc, 0);
    assert_int_equal(ops->load(g_dev, bin, len, prog), 0);
    assert_int_equal(ops->kernel(*prog, "gc_mix", &k), 0);
    free(src);
    free(bin);
    free(log);
    return k;
}

/* The chase array of a stream layout with STRIDE (entry i holds the index of
 * entry i + stride) or of the random layout over 2^log2 lines. */
static uint32_t *layout(bool random, uint32_t n, uint32_t stride, int log2)
{
    uint32_t *a = malloc((size_t)n * 4);

    assert_non_null(a);
    for (uint32_t i = 0; i < n; i++) {
        if (!random) {
            a[i] = GC_MIX_BIAS + i + stride;
            continue;
        }
        uint32_t p = i >> 5, w = i & 31u;
        a[32u * gc__mix_hash(p, log2) + w] = GC_MIX_BIAS + 32u * gc__mix_hash(p + 1u, log2) + w;
    }
    return a;
}

/* One launch of C at GRID x BLOCK, every chain checked; returns the number
 * of chains that ended elsewhere (printing the first). */
static int run_shape(const struct gc_mix_cfg *c, struct gc_kern *k, unsigned grid, unsigned block)
{
    const int log2 = 14;
    size_t nthreads = (size_t)grid * block, nout = nthreads * (size_t)c->ilp;
    uint32_t groups = (uint32_t)gc__mix_groups(c), n = 32u << log2, *chain = NULL;
    struct gc_mix_args a = {0};
    struct gc_buf *chb = NULL, *outb = NULL, *latb = NULL;
    uint32_t *out = malloc(nout * 4);
    double el;
    int bad = 0;

    assert_non_null(out);
    a.block = block;
    a.log2_lines = log2;
    switch (c->op) {
    case GC_MIX_ADD:
    case GC_MIX_SFU:
        a.seed = GC_MIX_ONE_BITS;
        break;
    case GC_MIX_SHARED:
    case GC_MIX_SHARED2:
        a.seed = 7;
        break;
    case GC_MIX_GLOBAL:
        a.base = 5;
        a.spacing = (uint32_t)c->ilp * block * groups;
        n = a.base + grid * a.spacing;
        chain = layout(false, n, (uint32_t)c->ilp * block, 0);
        break;
    case GC_MIX_RANDOM:
        a.seed = (uint32_t)log2;
        a.base = 3;
        a.spacing = gc__mix_random_spacing(log2, (nthreads + 31) / 32 * (uint64_t)c->lines *
                                                     (uint64_t)c->ilp);
        assert_true(a.spacing >= groups);
        chain = layout(true, n, 0, log2);
        break;
    default:
        fail();
    }
    assert_int_equal(ops->alloc(g_dev, (size_t)n * 4, &chb), 0);
    assert_int_equal(ops->alloc(g_dev, nout * 4, &outb), 0);
    assert_int_equal(ops->alloc(g_dev, 4096, &latb), 0);
    if (chain)
        assert_int_equal(ops->write(chb, 0, chain, (size_t)n * 4), 0);
    memset(out, 0xFF, nout * 4);
    assert_int_equal(ops->write(outb, 0, out, nout * 4), 0);

    struct gc_arg args[8] = {
        {.type = GC_ARG_BUF, .v.buf = chb},    {.type = GC_ARG_BUF, .v.buf = outb},
        {.type = GC_ARG_BUF, .v.buf = latb},   {.type = GC_ARG_F32, .v.f32 = 0.0f},
        {.type = GC_ARG_F32, .v.f32 = 0.0f},   {.type = GC_ARG_U32, .v.u32 = a.seed},
        {.type = GC_ARG_U32, .v.u32 = a.base}, {.type = GC_ARG_U32, .v.u32 = a.spacing},
    };
    struct gc_launch l = {{grid, 1, 1}, {block, 1, 1}, 0, args, 8, 1};

    assert_int_equal(ops->launch(g_dev, k, &l, &el), 0);
    assert_int_equal(ops->read(outb, 0, out, nout * 4), 0);
    for (size_t t = 0; t < nthreads; t++)
        for (int j = 0; j < c->ilp; j++) {
            uint32_t want = gc__mix_expect(c, &a, t, j), got = out[t * (size_t)c->ilp + j];
            float f;

            memcpy(&f, &got, 4);
            /* native_rsqrt(1) may be off in its last bits (gen_mix.h). */
            if (got == want || (c->op == GC_MIX_SFU && fabsf(f - 1.0f) <= 1.0f / 1024))
                continue;
            if (bad++ == 0)
                fprintf(stderr,
                        "%s, grid %u x block %u: thread %zu chain %d ended at 0x%08x, the host "
                        "model says 0x%08x\n",
                        gc__mix_op_name(c->op), grid, block, t, j, got, want);
        }
    ops->free(chb);
    ops->free(outb);
    ops->free(latb);
    free(chain);
    free(out);
    return bad;
}

/* Every op, two chains per thread, at every shape. */
static void test_kernel_matches_model(void **state)
{
    static const unsigned blocks[] = {1, 2, 3, 16, 17, 48, 64};
    static const unsigned grids[] = {1, 3, 16};
    int bad = 0;

    (void)state;
    for (int op = 0; op < GC_MIX_NOPS; op++) {
        struct gc_mix_cfg c = {.op = (enum gc_mix_op)op,
                               .alpha = op == GC_MIX_ADD ? 2 : 1,
                               .ilp = 2,
                               .unroll = 4,
                               .trips = 5,
                               .lines = op == GC_MIX_RANDOM ? 4 : 0};
        struct gc_prog *prog = NULL;
        struct gc_kern *k = build(&c, &prog);

        for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
            if (g_info.max_threads_per_block > 0 &&
                blocks[b] > (unsigned)g_info.max_threads_per_block)
                continue;
            for (size_t g = 0; g < sizeof(grids) / sizeof(grids[0]); g++)
                bad += run_shape(&c, k, grids[g], blocks[b]);
        }
        ops->unload(prog);
    }
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_matches_model),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
