/* The canned results tree used by the golden tests of the JSON, CSV and text
 * emitters, and the helpers that compare output with golden files. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "canned.h"
#include "core/present.h"
#include "core/results.h"
#include "core/stats.h"

#ifndef GC_GOLDEN_DIR
#define GC_GOLDEN_DIR "golden"
#endif

static const char *golden = GC_GOLDEN_DIR;

void canned_declare(struct gc_results *r)
{
    for (int i = 0; i < r->nbenches; i++) {
        const struct gc_bench *b = gc__bench_find(r->benches[i].name);

        free(r->benches[i].report);
        r->benches[i].report = NULL;
        if (b && gc__report_pack(b->report, &r->benches[i].report) != 0)
            abort();
    }
}

void golden_init(int argc, char **argv)
{
    if (argc > 1 && argv[1][0])
        golden = argv[1];
}

const char *golden_dir(void)
{
    return golden;
}

/* The canned tree is built without checks at every call; running out of
 * memory here ends the test program. */
static void *need(void *p)
{
    if (!p) {
        fprintf(stderr, "out of memory building the canned results\n");
        abort();
    }
    return p;
}

static void canned_meta(struct gc_results *r)
{
    struct gc_run_meta *m = &r->meta;

    snprintf(m->tool_version, sizeof(m->tool_version), "0.1.0");
    snprintf(m->git_revision, sizeof(m->git_revision), "0123456789ab");
    snprintf(m->date, sizeof(m->date), "2024-05-01T12:00:00Z");
    snprintf(m->host, sizeof(m->host), "testhost");
    snprintf(m->command_line, sizeof(m->command_line), "gpuchar run --json out.json");
    snprintf(m->profile, sizeof(m->profile), "default");
    snprintf(m->device.spec, sizeof(m->device.spec), "cuda:0");
    m->device.backend = "cuda";
    m->device.index = 0;
    snprintf(m->device.name, sizeof(m->device.name), "Example GPU 80GB");
    snprintf(m->device.vendor, sizeof(m->device.vendor), "Example Corp");
    snprintf(m->device.arch, sizeof(m->device.arch), "sm_90");
    snprintf(m->device.driver, sizeof(m->device.driver), "550.54.15");
    m->device.type = GC_DEVICE_GPU;
    m->device.compute_units = 132;
    m->device.clock_mhz = 1980;
    m->device.global_mem = (size_t)80 << 30;
    snprintf(m->device_extra, sizeof(m->device_extra), "pci=0000:3b:00.0; ecc=on");
    snprintf(m->data_init, sizeof(m->data_init),
             "xorshift64* random words, base seed 0x6770756368617231");
    m->repeat = 25;
    m->min_time_ms = 10;
    r->wall_s = 42.5;
}

static void canned_copy(struct gc_results *r)
{
    /* Bandwidth samples in B/s around 3.02 TB/s. */
    static const double bw[7] = {3.02e12, 3.01e12, 3.03e12, 3.02e12, 3.00e12, 3.04e12, 3.02e12};
    struct gc_bench_result *b = need(gc__results_add_bench(r, "memory.copy", "memory"));
    struct gc_series *s;
    struct gc_stats st;

    b->wall_s = 12.5;
    b->compile_s = 0.52;
    b->kernels_compiled = 3;
    b->kernels_cached = 1;
    snprintf(b->stop_rule, sizeof(b->stop_rule), "spread<=0.50%%");
    b->context.sm_clock_mhz = 1980;
    snprintf(b->context.sm_clock_source, sizeof(b->context.sm_clock_source), "clock64/globaltimer");
    b->context.sm_clock_min_mhz = 1965;
    b->context.sm_clock_max_mhz = 1980;
    b->context.mem_clock_mhz = 2619;
    b->context.temp_start_c = 41;
    b->context.temp_end_c = 47;
    b->context.power_limit_w = 700;
    b->context.power_avg_w = 412.25;
    b->context.ecc_enabled = 1;
    b->context.redone_samples = 1;
    gc__stats_compute(bw, 7, &st);
    gc__bench_add_metric(b, "bandwidth", st.median, "B/s", 3.35e12, &st,
                         "copy, \"warm\" L2, 16 B elements");
    gc__bench_add_metric(b, "bytes per clock per SM", 11.5625, "B/clk/SM", NAN, NULL, "");
    gc__bench_add_metric(b, "footprint", 4294967296.0, "B", NAN, NULL, "4 GiB");
    s = need(gc__bench_add_series(b, "bw_vs_size", "size", "B", "bandwidth", "B/s"));
    gc__series_add(s, 65536, 1.5e12, NULL, "L2");
    gc__series_add(s, 1048576, 2.5e12, NULL, "");
    gc__series_add(s, 67108864, st.median, &st, "DRAM, cold");
    gc__series_add(s, 268435456, NAN, NULL, "");
}

static void canned_fma(struct gc_results *r)
{
    struct gc_bench_result *b = need(gc__results_add_bench(r, "compute.fma_fp32", "compute"));
    struct gc_series *s;
    struct gc_stats st;
    static const double t[5] = {1.0e-3, 1.01e-3, 0.99e-3, 1.0e-3, 1.02e-3};

    b->wall_s = 3.25;
    snprintf(b->stop_rule, sizeof(b->stop_rule), "max-samples");
    b->context.sm_clock_mhz = 1755;
    snprintf(b->context.sm_clock_source, sizeof(b->context.sm_clock_source), "nvml");
    b->context.throttle_reasons = 0x4;
    b->context.throttled_samples = 2;
    b->context.ecc_enabled = 0;
    /* 61.3 TFLOP/s from the times of a kernel doing 6.13e10 FLOP. */
    gc__stats_inverse(t, 5, 6.13e10, &st);
    gc__bench_add_metric(b, "fp32 FMA", st.median, "FLOP/s", 66.9e12, &st, "ILP 4");
    gc__bench_add_metric(b, "latency", 4, "cycles", NAN, NULL, "dependent chain");
    gc__bench_add_metric(b, "launch overhead", 2.5e-6, "s", NAN, NULL, "");
    s = need(gc__bench_add_series(b, "cpi vs occupancy", "warps per SM", "warps", "throughput",
                                  "FLOP/s"));
    for (int i = 1; i <= 4; i++)
        gc__series_add(s, 8 * i, 1.6e13 * i - (i == 4 ? 0.2e13 : 0), NULL, NULL);
    gc__bench_add_series(b, "empty", "x", "", "y", "");
}

struct gc_results *canned_results(void)
{
    struct gc_results *r = need(gc__results_new());
    struct gc_bench_result *b;

    canned_meta(r);
    canned_copy(r);
    canned_fma(r);
    b = need(gc__results_add_bench(r, "cache.latency", "cache"));
    gc__bench_set_error(b, GC_BENCH_NOT_AVAILABLE,
                        "not available on this device: it lacks in-kernel cycle counter");
    b = need(gc__results_add_bench(r, "launch.overhead", "launch"));
    b->wall_s = 0.125;
    gc__bench_set_error(b, GC_BENCH_ERROR,
                        "kernel compilation failed: line 1: \"bad\", token\nsecond line\ttab");
    return r;
}

char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;

    if (!f)
        return NULL;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            char *p = realloc(buf, cap = 2 * cap + 8192);

            if (!p) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = p;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got < 4096)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

bool golden_check(const char *name, const char *text, size_t len)
{
    char path[1024];
    const char *upd = getenv("GPUCHAR_UPDATE_GOLDEN");
    char *want;
    size_t wlen, line = 1;

    snprintf(path, sizeof(path), "%s/%s", golden, name);
    if (upd && strcmp(upd, "1") == 0) {
        FILE *f = fopen(path, "wb");

        if (!f || fwrite(text, 1, len, f) != len) {
            fprintf(stderr, "cannot write golden file %s\n", path);
            if (f)
                fclose(f);
            return false;
        }
        return fclose(f) == 0;
    }
    want = slurp(path, &wlen);
    if (!want) {
        fprintf(stderr, "cannot read golden file %s: %s\n", path, strerror(errno));
        return false;
    }
    if (wlen == len && memcmp(want, text, len) == 0) {
        free(want);
        return true;
    }
    for (size_t i = 0; i < len && i < wlen && want[i] == text[i]; i++)
        if (text[i] == '\n')
            line++;
    fprintf(stderr, "%s differs from the output at line %zu (%zu vs %zu bytes)\n", path, line, wlen,
            len);
    {
        const char *a = want, *b = text;

        for (size_t l = 1; l < line; l++) {
            a = strchr(a, '\n') + 1;
            b = strchr(b, '\n') + 1;
        }
        fprintf(stderr, "  golden: %.*s\n  output: %.*s\n", (int)strcspn(a, "\n"), a,
                (int)strcspn(b, "\n"), b);
    }
    free(want);
    return false;
}

char *make_temp_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    char *path = malloc(1024);

    if (!path)
        return NULL;
    snprintf(path, 1024, "%s/gctest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(path)) {
        free(path);
        return NULL;
    }
    return path;
}

void rm_rf(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[2048];

    if (!d)
        return;
    while ((e = readdir(d))) {
        struct stat st;

        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            rm_rf(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}
