/* overhead.compile: run-time compilation cost vs kernel size (uCLbench
 * §2.4, §3.4): NVRTC / clBuildProgram plus module load of generated kernels
 * of 10 to 10 000 lines, cold (a source no cache has seen) and from
 * gpuchar's kernel cache, with a linear fit per line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/overhead/overhead.h"
#include "util/random.h"
#include "core/stats.h"
#include "core/kcache.h"
#include "kgen/kgen.h"

#define CP_THREADS 32
#define CP_MAX_SIZES 8
#define CP_MAX_REPS 16 /* cold compiles per size at most (an explicit --repeat) */

/* The constants of line i, a float in [0.5, 1) so that x stays bounded. */
static float line_const(uint64_t nonce, int i)
{
    uint64_t st = nonce ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1));
    return 0.5f + (float)(gc__xorshift64s(&st) >> 40) * (0.5f / 16777216.0f);
}

/* A kernel of lines dependent fused multiply-adds, x = fma(x, c_i, a), each
 * line its own constant; the nonce (in a comment and in the constants) makes
 * the source new to every cache. */
static char *gen_lines(enum gc_dialect dl, int lines, uint64_t nonce)
{
    struct gc_sbuf b;

    gc__sbuf_init(&b);
    gc__sbuf_printf(&b, "/* overhead.compile nonce %016llx */\n", (unsigned long long)nonce);
    gc__kgen_prelude(&b, dl, 0);
    gc__sbuf_puts(&b, "GC_KERNEL void gc_lines(GC_GLOBAL float *p, float a)\n{\n"
                      "    float x = p[GC_GID];\n");
    for (int i = 0; i < lines; i++)
        gc__sbuf_printf(&b, "    x = GC_FMAF(x, %.9gf, a);\n", (double)line_const(nonce, i));
    gc__sbuf_puts(&b, "    p[GC_GID] = x;\n}\n");
    return gc__sbuf_take(&b);
}

static int sizes_for(const struct gc_session *s, int *out)
{
    static const int gpu_q[] = {10, 100, 300}, gpu_d[] = {10, 30, 100, 300, 1000, 3000},
                     gpu_f[] = {10, 30, 100, 300, 1000, 3000, 10000};
    static const int cpu_q[] = {10, 1000}, cpu_d[] = {10, 100, 1000},
                     cpu_f[] = {10, 100, 300, 1000, 3000};
    bool gpu = s->dev->info.type == GC_DEVICE_GPU;
    const int *v;
    int n;

    if (s->profile == GC_PROFILE_QUICK) {
        v = gpu ? gpu_q : cpu_q;
        n = gpu ? 3 : 2;
    } else if (s->profile == GC_PROFILE_FULL) {
        v = gpu ? gpu_f : cpu_f;
        n = gpu ? 7 : 5;
    } else {
        v = gpu ? gpu_d : cpu_d;
        n = gpu ? 6 : 3;
    }
    memcpy(out, v, (size_t)n * sizeof(*v));
    return n;
}

/* Runs the kernel on CP_THREADS random floats and compares with the host's
 * fmaf chain: exact, both are correctly rounded fused multiply-adds. */
static int verify(struct gc_session *s, struct gc_bench_result *r, struct gc_prog *prog, int lines,
                  uint64_t nonce, struct gc_buf *buf)
{
    struct gc_device *d = s->dev;
    struct gc_kern *k;
    float in[CP_THREADS], out[CP_THREADS];
    const float a = 0.0625f;
    uint64_t st = nonce | 1;
    double el;
    int rc;

    if (d->ops->kernel(prog, "gc_lines", &k)) {
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        return GC_EBACKEND;
    }
    for (int i = 0; i < CP_THREADS; i++)
        in[i] = gc__random_float(&st, -1.0f, 1.0f);
    struct gc_arg args[2] = {{.type = GC_ARG_BUF, .v.buf = buf}, {.type = GC_ARG_F32, .v.f32 = a}};
    struct gc_launch l = {{1, 1, 1}, {CP_THREADS, 1, 1}, 0, args, 2, 1};
    if ((rc = gc__dev_write(d, buf, 0, in, sizeof(in))) || (rc = gc__dev_launch(d, k, &l, &el)) ||
        (rc = gc__dev_read(d, buf, 0, out, sizeof(out))))
        return rc;
    for (int t = 0; t < CP_THREADS; t++) {
        float x = in[t];
        for (int i = 0; i < lines; i++)
            x = fmaf(x, line_const(nonce, i), a);
        if (memcmp(&x, &out[t], sizeof(x)) != 0) {
            gc__bench_set_error(r, GC_BENCH_ERROR,
                                "verification failed: the %d-line kernel gave %.9g for thread %d, "
                                "expected %.9g",
                                lines, (double)out[t], t, (double)x);
            return GC_EVERIFY;
        }
    }
    return 0;
}

/* A first compile, not timed: it pays for loading the compiler itself (PoCL
 * starts LLVM, NVRTC its builtins), which no later one does. */
static int prime_compiler(struct gc_device *d, uint64_t *st)
{
    char *src = gen_lines(d->ops->dialect, 1, gc__xorshift64s(st)), *log = NULL;
    void *bin = NULL;
    size_t binlen = 0;
    int rc;

    if (!src)
        return GC_ENOMEM;
    rc = d->ops->compile(d->dev, src, NULL, &bin, &binlen, &log);
    if (rc)
        snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
    free(src);
    free(bin);
    free(log);
    return rc;
}

/* Cold compiles and loads of `reps` fresh kernels of `lines` lines (a new
 * nonce each, so that no cache can answer); the first one is verified. */
static int time_cold(struct gc_session *s, struct gc_bench_result *r, struct gc_buf *buf, int lines,
                     int reps, uint64_t *st, double *tc, double *tl)
{
    struct gc_device *d = s->dev;
    int rc = 0;

    for (int k = 0; k < reps && rc == 0; k++) {
        uint64_t nonce = gc__xorshift64s(st);
        char *src = gen_lines(d->ops->dialect, lines, nonce), *log = NULL;
        void *bin = NULL;
        size_t binlen = 0;
        struct gc_prog *prog = NULL;

        if (!src)
            return GC_ENOMEM;
        if (gc__stopped(s)) {
            free(src);
            return GC_EINTR;
        }
        double t0 = gc__mono_now();
        rc = d->ops->compile(d->dev, src, NULL, &bin, &binlen, &log);
        double t1 = gc__mono_now();
        if (rc == 0)
            rc = d->ops->load(d->dev, bin, binlen, &prog);
        double t2 = gc__mono_now();
        if (rc)
            snprintf(d->err, sizeof(d->err), "%s", d->ops->last_error(d->dev));
        if (rc == 0 && k == 0)
            rc = verify(s, r, prog, lines, nonce, buf);
        tc[k] = t1 - t0;
        tl[k] = t2 - t1;
        s->compile_s += t1 - t0;
        s->kernels_compiled++;
        if (prog)
            d->ops->unload(prog);
        free(bin);
        free(log);
        free(src);
    }
    return rc;
}

/* From the cache: built once through the cache (stored), then again (read
 * back and loaded). The second build's time, when it was a hit, goes to the
 * series and to ych. */
static int time_cached(struct gc_session *s, int lines, uint64_t *st, struct gc_series *sh,
                       double *ych, int *nch)
{
    struct gc_kreq q[2];
    uint64_t nonce = gc__xorshift64s(st);
    int rc = 0;

    memset(q, 0, sizeof(q));
    for (int k = 0; k < 2 && rc == 0; k++) {
        q[k].label = "overhead_compile";
        q[k].src = gen_lines(s->dev->ops->dialect, lines, nonce);
        if (!q[k].src) {
            rc = GC_ENOMEM;
            break;
        }
        double t0 = gc__mono_now();
        rc = gc__kcache_build(s, &q[k], 1);
        double t1 = gc__mono_now();
        if (rc == 0 && k == 1 && q[k].cached) {
            gc__series_add(sh, lines, t1 - t0, NULL, NULL);
            ych[(*nch)++] = t1 - t0;
        }
    }
    gc__kreq_release(s, q, 2);
    return rc;
}

/* The fits over the sizes: per-line and fixed costs, the smallest and the
 * largest kernel, the load alone, and a cache hit. */
static void add_compile_metrics(struct gc_bench_result *r, int smallest, const double *xl,
                                const double *yc, const double *yl, const double *uc,
                                const double *ul, int np, const double *ych, int nch)
{
    struct gc_line f;
    char note[128];

    /* Fitted parameters: within their resolution of zero they are below
     * resolution, never a negative time. */
    gc__line_fit(xl, yc, uc, np, &f);
    gc__bench_add_difference(r, "compile_per_line", f.b, f.b_res, "s",
                             "slope of cold compile + load time vs lines (least squares); a "
                             "line is one dependent fused multiply-add");
    gc__bench_add_difference(r, "compile_fixed_cost", f.a, f.a_res, "s",
                             "intercept of the same fit: the cost of compiling an empty kernel");
    snprintf(note, sizeof(note), "cold compile + load of a %d-line kernel (median)", smallest);
    gc__bench_add_metric(r, "compile_small_kernel", yc[0], "s", NAN, NULL, note);
    snprintf(note, sizeof(note), "cold compile + load of a %d-line kernel", (int)xl[np - 1]);
    gc__bench_add_metric(r, "compile_large_kernel", yc[np - 1], "s", NAN, NULL, note);
    gc__line_fit(xl, yl, ul, np, &f);
    gc__bench_add_difference(r, "load_per_line", f.b, f.b_res, "s",
                             "slope of the module / program load time alone vs lines");
    if (nch > 0) {
        struct gc_stats hs;
        gc__stats_compute(ych, nch, &hs);
        gc__bench_add_metric(r, "cached_load", hs.median, "s", NAN, &hs,
                             "a kernel from gpuchar's cache: file read + load (median over "
                             "sizes up to 300 lines)");
    } else {
        gc__bench_add_metric(r, "cached_load", NAN, "s", NAN, NULL,
                             "not available: the kernel cache is off (--no-cache) or unwritable");
    }
}

static int run_compile(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    struct gc_device *d = s->dev;
    int sizes[CP_MAX_SIZES], n = sizes_for(s, sizes), rc = 0, np = 0;
    double xl[CP_MAX_SIZES], yc[CP_MAX_SIZES], yl[CP_MAX_SIZES], ych[CP_MAX_SIZES];
    double uc[CP_MAX_SIZES], ul[CP_MAX_SIZES];
    int nch = 0;
    struct gc_buf *buf = NULL;
    struct gc_series *sc, *sl, *sh;
    uint64_t st = s->seed ^ (uint64_t)(gc__mono_now() * 1e9);

    (void)self;
    sc = gc__bench_add_series(r, "compile_time_vs_lines", "lines of kernel code", "lines",
                              "cold compile (NVRTC / clBuildProgram)", "s");
    sl = gc__bench_add_series(r, "load_time_vs_lines", "lines of kernel code", "lines",
                              "module / program load of the binary", "s");
    sh = gc__bench_add_series(r, "cached_time_vs_lines", "lines of kernel code", "lines",
                              "from gpuchar's kernel cache (read + load)", "s");
    if (!sc || !sl || !sh)
        return GC_ENOMEM;
    if ((rc = gc__dev_alloc(d, CP_THREADS * sizeof(float), &buf)))
        return rc;
    if ((rc = prime_compiler(d, &st)))
        goto out;
    for (int i = 0; i < n && rc == 0; i++) {
        int reps = sizes[i] <= 300 && s->profile != GC_PROFILE_QUICK ? 3 : 1;
        /* An explicit --repeat is the number of samples (at most CP_MAX_REPS). */
        if (s->sampling.samples_set)
            reps = s->sampling.max_samples < CP_MAX_REPS ? s->sampling.max_samples : CP_MAX_REPS;
        double tc[CP_MAX_REPS], tl[CP_MAX_REPS];

        if ((rc = time_cold(s, r, buf, sizes[i], reps, &st, tc, tl)))
            break;
        struct gc_stats cs, ls;
        gc__stats_compute(tc, reps, &cs);
        gc__stats_compute(tl, reps, &ls);
        gc__series_add(sc, sizes[i], cs.median, &cs, NULL);
        gc__series_add(sl, sizes[i], ls.median, &ls, NULL);
        xl[np] = sizes[i];
        yc[np] = cs.median + ls.median;
        yl[np] = ls.median;
        /* One sample: no spread (NAN); the fit then rests on its residuals. */
        uc[np] = reps > 1 ? sqrt(cs.ci95 * cs.ci95 + ls.ci95 * ls.ci95) : NAN;
        ul[np] = reps > 1 ? ls.ci95 : NAN;
        np++;
        /* For kernels up to 300 lines: a cache hit costs a file read and a
         * load, nearly the same for every size. */
        if (sizes[i] <= 300)
            rc = time_cached(s, sizes[i], &st, sh, ych, &nch);
    }
    if (rc)
        goto out;
    add_compile_metrics(r, sizes[0], xl, yc, yl, uc, ul, np, ych, nch);
out:
    gc__dev_free(d, buf);
    return rc;
}

static const struct gc_sum_cell compile_cells[] = {
    GC_SUM_US(gc__sum_overheads, "compile per line", 0, "compile_per_line"),
    GC_SUM_US(gc__sum_overheads, "compile fixed cost", 0, "compile_fixed_cost"),
    GC_SUM_US(gc__sum_overheads, "kernel from gpuchar's cache", 0, "cached_load"),
    {0},
};
static const struct gc_bench_report compile_report = {.cells = compile_cells};

const struct gc_bench gc__bench_compile = {
    .info =
        {
            .name = "overhead.compile",
            .group = "overhead",
            .summary = "run-time compile time (NVRTC / clBuildProgram + load) vs kernel size, "
                       "cold and from gpuchar's cache, time per line",
            .method =
                "Kernels of 10 to 3000 lines (10 000 with --full; 10-300 --quick; on a CPU "
                "device 10-1000, 10 and 1000 --quick) of dependent fused multiply-adds x = fma(x, "
                "c_i, a), each "
                "line its own constant, each source made new by a random nonce so that no "
                "cache (the driver's, PoCL's, gpuchar's) has seen it. Cold: the host time of "
                "the backend's compile (NVRTC to a cubin for the device's architecture; "
                "clBuildProgram + binary query) and load (cuModuleLoadData; "
                "clCreateProgramWithBinary + build), 3 samples up to 300 lines, 1 above. "
                "Cached: the same source built through gpuchar's kernel cache twice, the "
                "second time timed (file read + load), for kernels up to 300 lines. Fit: compile + "
                "load = fixed + per_line "
                "x lines (least squares), as uCLbench §3.4 reports it linear in code size. One "
                "sample per size with --quick. "
                "Every kernel is run once on 32 random floats and checked exactly against the "
                "host's fmaf chain.",
        },
    .run = run_compile,
    .report = &compile_report,
    .resources = GC_RES_HOST_CPU,
};
