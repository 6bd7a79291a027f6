/* Every CUDA kernel a benchmark declares (its sources callback) compiles with
 * NVRTC for a described H100 (sm_90) and A100 (sm_80), and its timed loop
 * holds exactly the SASS instructions it declares. Needs the CUDA toolkit's
 * NVRTC and nvdisasm (or cuobjdump), no GPU and no driver. Exit status: 0
 * pass, 1 failure, 77 skipped (no NVRTC, or no disassembler: then the
 * kernels are still compiled and a compile error still fails).
 * GPUCHAR_SASS_DUMP=DIR writes the source and disassembly of each failing
 * kernel there. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/cuda/nvrtc.h"
#include "bench/bench.h"
#include "support/sass.h"

#define KiB ((size_t)1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)

/* Threads compiling at once, at most one per core: NVRTC compiles one
 * program on one thread, and a benchmark can declare kernels that take it
 * seconds each (hundreds of kernels in all). */
#define MAX_THREADS 16

/* Capabilities of both described devices: everything an H100 or an A100
 * offers through the CUDA backend. */
#define CAPS_NVIDIA                                                                                \
    (GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER | GC_CAP_SMID | GC_CAP_INLINE_ASM |                       \
     GC_CAP_OCCUPANCY_API | GC_CAP_DYN_SHARED | GC_CAP_FP64 | GC_CAP_FP16 | GC_CAP_SENSOR_CLOCK |  \
     GC_CAP_SENSOR_POWER | GC_CAP_SENSOR_THROTTLE | GC_CAP_ENERGY | GC_CAP_CACHE_HINTS)

static void describe_h100(struct gc_device_info *d, const char *compiler)
{
    memset(d, 0, sizeof(*d));
    snprintf(d->name, sizeof(d->name), "NVIDIA H100 80GB HBM3 (described)");
    snprintf(d->vendor, sizeof(d->vendor), "NVIDIA Corporation");
    snprintf(d->driver, sizeof(d->driver), "none");
    snprintf(d->compiler, sizeof(d->compiler), "%s", compiler);
    snprintf(d->arch, sizeof(d->arch), "sm_90");
    d->cc_major = 9;
    d->cc_minor = 0;
    d->type = GC_DEVICE_GPU;
    d->compute_units = 132;
    d->simd_width = 32;
    d->max_threads_per_block = 1024;
    d->max_threads_per_cu = 2048;
    d->max_blocks_per_cu = 32;
    d->regs_per_cu = 65536;
    d->shared_per_cu = 228 * KiB;
    d->shared_per_block = 48 * KiB;
    d->shared_per_block_optin = 227 * KiB;
    d->shared_reserved_per_block = 1 * KiB;
    d->global_mem = 80 * GiB;
    d->max_alloc = 80 * GiB;
    d->l2_size = 50 * MiB;
    d->clock_mhz = 1980;
    d->mem_clock_mhz = 2619;
    d->mem_bus_width = 5120;
    d->mem_bw_spec = 3.35e12;
    d->ecc_enabled = 1;
    d->caps = CAPS_NVIDIA;
}

static void describe_a100(struct gc_device_info *d, const char *compiler)
{
    describe_h100(d, compiler);
    snprintf(d->name, sizeof(d->name), "NVIDIA A100-SXM4-40GB (described)");
    snprintf(d->arch, sizeof(d->arch), "sm_80");
    d->cc_major = 8;
    d->compute_units = 108;
    d->shared_per_cu = 164 * KiB;
    d->shared_per_block_optin = 163 * KiB;
    d->global_mem = 40 * GiB;
    d->max_alloc = 40 * GiB;
    d->l2_size = 40 * MiB;
    d->clock_mhz = 1410;
    d->mem_clock_mhz = 1215;
    d->mem_bw_spec = 1.555e12;
}

/* One kernel to compile and check. Kernels with the same source, options
 * and architecture (a benchmark family sharing a kernel, or two benchmarks
 * declaring one) are compiled once: the first is the one built, the others
 * point to it through same. */
struct job {
    const char *bench;
    const char *arch;
    const struct gc_ksrc *k;
    struct job *same;
    /* outputs of the build (compile + disassemble), on the built job */
    int rc;
    const char *stage; /* where it failed */
    char err[4096];
    char *sass; /* disassembly */
    double compile_s, disasm_s;
    /* output of the check, on every job */
    struct gc_sass_result res;
};

static struct {
    struct job *jobs;
    int n, next;
    bool disasm; /* a disassembler exists: check, not only compile */
    pthread_mutex_t lock;
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void build(struct job *j)
{
    void *cubin = NULL;
    size_t len = 0;
    double t0 = now_s();

    j->stage = "compile";
    j->rc = gc__nvrtc_compile_offline(j->k->src, j->k->options, j->arch, &cubin, &len, NULL, j->err,
                                      sizeof(j->err));
    j->compile_s = now_s() - t0;
    if (j->rc || !g.disasm)
        goto out;
    t0 = now_s();
    j->stage = "disassemble";
    j->rc = gc__sass_disasm(cubin, len, &j->sass, j->err, sizeof(j->err));
    j->disasm_s = now_s() - t0;
out:
    free(cubin);
}

/* The compute capability of "sm_90" (or "sm_90a"): 90; 0 when unknown. */
static int arch_cc(const char *arch)
{
    return strncmp(arch, "sm_", 3) == 0 ? atoi(arch + 3) : 0;
}

/* Parses the built kernel's disassembly and checks j's expectations. */
static void check(struct job *j)
{
    struct job *b = j->same ? j->same : j;
    struct gc_sass s = {0};

    if (b->rc || !g.disasm) {
        j->rc = b->rc;
        j->stage = b->stage;
        if (j != b)
            snprintf(j->err, sizeof(j->err), "%s", b->err);
        return;
    }
    j->stage = "parse";
    j->rc = gc__sass_parse(b->sass, &s);
    if (j->rc == 0 && s.nfn == 0) {
        snprintf(j->err, sizeof(j->err), "the disassembly holds no function");
        j->rc = GC_EIO;
    }
    if (j->rc == 0) {
        j->stage = "check";
        j->rc = gc__sass_check(&s, j->k->expect, j->k->nexpect, arch_cc(j->arch), &j->res);
    }
    gc__sass_free(&s);
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        int i;

        pthread_mutex_lock(&g.lock);
        i = g.next++;
        pthread_mutex_unlock(&g.lock);
        if (i >= g.n)
            return NULL;
        if (!g.jobs[i].same)
            build(&g.jobs[i]);
    }
}

static int cmp_input(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
    int c = strcmp(x->arch, y->arch);

    if (c == 0)
        c = strcmp(x->k->options, y->k->options);
    if (c == 0)
        c = strcmp(x->k->src, y->k->src);
    /* Equal inputs keep their declaration order: the first one is built. */
    return c ? c : x < y ? -1 : x > y;
}

/* Points every job whose input an earlier job shares to that job; returns
 * how many are built. */
static int dedupe(void)
{
    struct job **v = malloc((size_t)(g.n ? g.n : 1) * sizeof(*v));
    int built = 0;

    if (!v)
        return g.n;
    for (int i = 0; i < g.n; i++)
        v[i] = &g.jobs[i];
    qsort(v, (size_t)g.n, sizeof(*v), cmp_input);
    for (int i = 0; i < g.n; i++) {
        if (i > 0 && strcmp(v[i]->arch, v[i - 1]->arch) == 0 &&
            strcmp(v[i]->k->options, v[i - 1]->k->options) == 0 &&
            strcmp(v[i]->k->src, v[i - 1]->k->src) == 0)
            v[i]->same = v[i - 1]->same ? v[i - 1]->same : v[i - 1];
        else
            built++;
    }
    free(v);
    return built;
}

static int add_job(const char *bench, const char *arch, const struct gc_ksrc *k)
{
    struct job *v = realloc(g.jobs, (size_t)(g.n + 1) * sizeof(*v));

    if (!v)
        return -1;
    g.jobs = v;
    memset(&v[g.n], 0, sizeof(v[g.n]));
    v[g.n].bench = bench;
    v[g.n].arch = arch;
    v[g.n].k = k;
    g.n++;
    return 0;
}

static void dump_failure(const struct job *j)
{
    const char *dir = getenv("GPUCHAR_SASS_DUMP"), *sass;
    char path[1024];
    FILE *f;

    if (!dir || !*dir)
        return;
    snprintf(path, sizeof(path), "%s/%s.%s.cu", dir, j->k->label, j->arch);
    f = fopen(path, "w");
    if (f) {
        fputs(j->k->src, f);
        fclose(f);
    }
    /* A kernel built once for several declarations has one disassembly. */
    sass = j->same ? j->same->sass : j->sass;
    if (!sass)
        return;
    snprintf(path, sizeof(path), "%s/%s.%s.sass", dir, j->k->label, j->arch);
    f = fopen(path, "w");
    if (f) {
        fputs(sass, f);
        fclose(f);
    }
}

/* The totals, and the slowest kernels to build, where the time goes. */
static void summary(int nbench, int nbuilt, int nthreads, double elapsed, int failures)
{
    double compile_s = 0, disasm_s = 0;
    const struct job *slow[3] = {NULL, NULL, NULL};

    for (int i = 0; i < g.n; i++) {
        const struct job *j = &g.jobs[i];

        if (j->same)
            continue;
        compile_s += j->compile_s;
        disasm_s += j->disasm_s;
        for (int k = 0; k < 3; k++) {
            if (slow[k] && slow[k]->compile_s >= j->compile_s)
                continue;
            for (int m = 2; m > k; m--)
                slow[m] = slow[m - 1];
            slow[k] = j;
            break;
        }
    }
    printf("%d kernels (%d distinct) from %d benchmarks with sources, %s in %.1f s on %d "
           "threads (NVRTC %.1f s, disassembler %.1f s in all); %d failure%s\n",
           g.n, nbuilt, nbench, g.disasm ? "compiled and checked" : "compiled", elapsed, nthreads,
           compile_s, disasm_s, failures, failures == 1 ? "" : "s");
    for (int k = 0; k < 3 && slow[k]; k++)
        printf("  slowest to compile: %s %s %.2f s\n", slow[k]->k->label, slow[k]->arch,
               slow[k]->compile_s);
}

/* A loop of exactly 64 fused multiply-adds (4 independent chains of 16) on a
 * trip count known only at run time, kept rolled by the pragma. */
static const char selftest_src[] =
    "extern \"C\" __global__ void gc_sass_selftest(const float *in, float *out, float a,\n"
    "                                              float c, int n)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float x0 = in[4 * i], x1 = in[4 * i + 1], x2 = in[4 * i + 2], x3 = in[4 * i + 3];\n"
    "#pragma unroll 1\n"
    "    for (int k = 0; k < n; k++) {\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < 16; u++) {\n"
    "            x0 = fmaf(x0, a, c);\n"
    "            x1 = fmaf(x1, a, c);\n"
    "            x2 = fmaf(x2, a, c);\n"
    "            x3 = fmaf(x3, a, c);\n"
    "        }\n"
    "    }\n"
    "    out[4 * i] = x0;\n"
    "    out[4 * i + 1] = x1;\n"
    "    out[4 * i + 2] = x2;\n"
    "    out[4 * i + 3] = x3;\n"
    "}\n";

int main(void)
{
    struct gc_device_info infos[2];
    struct {
        const struct gc_bench *b;
        struct gc_ksrc *k;
        int n;
    } decl[512];
    int ndecl = 0, nbench = 0, failures = 0, major = 0, minor = 0, nthreads, nbuilt;
    char why[1024], tool[1024], compiler[64];
    struct gc_ksrc self[2];
    pthread_t th[MAX_THREADS];
    double t0;
    long ncpu;

    if (gc__nvrtc_offline_load(&major, &minor, why, sizeof(why))) {
        printf("skipped: %s\n", why);
        return 77;
    }
    snprintf(compiler, sizeof(compiler), "NVRTC %d.%d", major, minor);
    g.disasm = gc__sass_tool(tool, sizeof(tool), why, sizeof(why)) == 0;
    printf("%s; disassembler: %s\n", compiler, g.disasm ? tool : why);
    /* Without a disassembler nothing can be checked: skip before compiling
     * every kernel (minutes on a small machine). */
    if (!g.disasm) {
        printf("skipped: the SASS checks need nvdisasm or cuobjdump\n");
        return 77;
    }
    describe_h100(&infos[0], compiler);
    describe_a100(&infos[1], compiler);

    /* The self-test: the same kernel must pass with its true count and fail
     * with one less, which proves that a wrong expectation is caught. */
    memset(self, 0, sizeof(self));
    for (int i = 0; i < 2; i++) {
        snprintf(self[i].label, sizeof(self[i].label), "sass_selftest_%d", 64 - i);
        self[i].src = (char *)selftest_src;
        self[i].expect[0] = (struct gc_sass_expect){"FFMA", 64 - i};
        self[i].nexpect = 1;
        if (add_job("(self-test)", "sm_90", &self[i]))
            return 1;
    }

    for (int i = 0; gc__bench_at(i); i++) {
        const struct gc_bench *b = gc__bench_at(i);

        if (!b->sources)
            continue;
        nbench++;
        for (int d = 0; d < 2; d++) {
            struct gc_ksrc *k = NULL;
            int n = 0, rc;

            if (b->needs_caps & ~infos[d].caps) {
                printf("note  %-28s %s: needs capabilities the described device lacks\n",
                       b->info.name, infos[d].arch);
                continue;
            }
            rc = b->sources(b, &infos[d], &k, &n);
            if (rc == GC_ENOTSUP || (rc == 0 && n == 0)) {
                gc__ksrc_free(k, n);
                continue;
            }
            if (rc) {
                printf("FAIL  %-28s %s: sources() returned %s\n", b->info.name, infos[d].arch,
                       gc_err_name(rc));
                failures++;
                continue;
            }
            if (ndecl == (int)(sizeof(decl) / sizeof(decl[0]))) {
                printf("FAIL  more than %d source declarations\n", ndecl);
                gc__ksrc_free(k, n);
                failures++;
                continue;
            }
            decl[ndecl].b = b;
            decl[ndecl].k = k;
            decl[ndecl].n = n;
            ndecl++;
            for (int j = 0; j < n; j++) {
                if (!k[j].src || k[j].nexpect < 0 || k[j].nexpect > GC_SASS_MAX_EXPECT) {
                    printf("FAIL  %-28s %s %s: no source or nexpect %d out of range\n",
                           b->info.name, infos[d].arch, k[j].label, k[j].nexpect);
                    failures++;
                    continue;
                }
                if (add_job(b->info.name, infos[d].arch, &k[j]))
                    return 1;
            }
        }
    }

    nbuilt = dedupe();
    ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    nthreads = ncpu < 2 ? 2 : ncpu > MAX_THREADS ? MAX_THREADS : (int)ncpu;
    if (nthreads > nbuilt)
        nthreads = nbuilt;
    t0 = now_s();
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], NULL, worker, NULL)) {
            nthreads = i;
            break;
        }
    if (nthreads == 0)
        worker(NULL);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < g.n; i++)
        check(&g.jobs[i]);
    double elapsed = now_s() - t0;

    for (int i = 0; i < g.n; i++) {
        struct job *j = &g.jobs[i];
        /* The second self-test job carries a deliberately wrong count. */
        bool want_ok = !(j->k == &self[1]);
        bool passed;

        if (j->rc) {
            printf("FAIL  %-28s %-6s %s: %s failed: %s\n%s\n", j->bench, j->arch, j->k->label,
                   j->stage, gc_err_name(j->rc), j->err);
            dump_failure(j);
            failures++;
            continue;
        }
        if (!g.disasm) {
            printf("built %-28s %-6s %s\n", j->bench, j->arch, j->k->label);
            continue;
        }
        passed = j->res.ok == want_ok;
        int applied = 0;
        for (int e = 0; e < j->k->nexpect; e++)
            applied += j->res.applies[e];
        if (!passed || !want_ok || applied == 0) {
            printf("%s  %-28s %-6s %s%s\n%s", passed ? "ok  " : "FAIL", j->bench, j->arch,
                   j->k->label,
                   !want_ok  ? " (a wrong count, must be caught)"
                   : applied ? ""
                             : " (declares no expectation for this architecture: compiled only)",
                   j->res.report ? j->res.report : "");
        } else {
            printf("ok    %-28s %-6s %s:", j->bench, j->arch, j->k->label);
            for (int e = 0; e < j->k->nexpect; e++)
                if (j->res.applies[e])
                    printf(" %s %d", j->k->expect[e].mnemonic, j->res.found[e]);
            printf("%s%s\n", j->res.has_loop ? "" : " (no loop: whole function)",
                   j->res.has_loop && j->res.ncontrol == 0 ? " (loop control not identified)" : "");
        }
        if (!passed) {
            dump_failure(j);
            failures++;
        }
    }
    summary(nbench, nbuilt, nthreads, elapsed, failures);

    for (int i = 0; i < g.n; i++) {
        free(g.jobs[i].sass);
        free(g.jobs[i].res.report);
    }
    free(g.jobs);
    for (int i = 0; i < ndecl; i++)
        gc__ksrc_free(decl[i].k, decl[i].n);
    return failures ? 1 : 0;
}
