/* overhead.alloc: what allocating and freeing memory costs, device buffers
 * and pinned host memory, against the size: the calls users put in loops. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/overhead/overhead.h"
#include "util/hostmem.h"
#include "util/random.h"
#include "core/stats.h"

#define AL_CHECK 4096 /* bytes written and read back at each end of a buffer */

static const size_t al_sizes[] = {4096, 65536, 1u << 20, 16u << 20, 64u << 20, 256u << 20};
/* Pinned host memory is resident while it is held: past 64 MiB only with
 * --full, so that the run's host memory stays what its other benchmarks
 * need (the cost per MiB of pinning is flat by then). */
#define AL_PINNED_MAX (64u << 20)
#define AL_NSIZES ((int)(sizeof(al_sizes) / sizeof(al_sizes[0])))

/* Proves a fresh device buffer is real memory: random bytes written at both
 * ends come back. */
static int check_buffer(struct gc_session *s, struct gc_bench_result *r, struct gc_buf *b,
                        size_t bytes, unsigned char *tmp)
{
    size_t n = bytes < AL_CHECK ? bytes : AL_CHECK;
    int rc;

    for (int end = 0; end < 2; end++) {
        size_t off = end ? bytes - n : 0;
        gc__random_fill(tmp, n, s->seed ^ (bytes + (size_t)end));
        if ((rc = gc__dev_write(s->dev, b, off, tmp, n)) ||
            (rc = gc__dev_read(s->dev, b, off, tmp + AL_CHECK, n)))
            return rc;
        if (memcmp(tmp, tmp + AL_CHECK, n) != 0) {
            gc__bench_set_error(r, GC_BENCH_ERROR,
                                "verification failed: a fresh %zu-byte buffer did not return the "
                                "bytes written at offset %zu",
                                bytes, off);
            return GC_EVERIFY;
        }
    }
    return 0;
}

/* n allocations and frees of `bytes` of one kind (0: device, 1: pinned
 * host), timed one by one into ta and tf; the first of each is checked. A
 * refused pinned allocation (locked-memory limit) ends the pinned rows, not
 * the benchmark: *pinned turns false and why says so. *fatal asks the caller
 * to end the benchmark at once (a stop, a failed check). */
static int time_allocs(struct gc_session *s, struct gc_bench_result *r, int kind, size_t bytes,
                       int n, double *ta, double *tf, unsigned char *tmp, bool *pinned, char *why,
                       bool *fatal)
{
    struct gc_device *d = s->dev;
    int rc = 0;

    for (int i = 0; i < n; i++) {
        struct gc_buf *b = NULL;
        struct gc_hostmem *h = NULL;
        double t0, t1, t2;

        if (gc__stopped(s)) {
            *fatal = true;
            return GC_EINTR;
        }
        t0 = gc__mono_now();
        if (kind == 0)
            rc = gc__dev_alloc(d, bytes, &b);
        else
            rc = gc__dev_host_alloc(d, bytes, GC_HOST_PINNED, &h);
        t1 = gc__mono_now();
        if (rc) {
            if (kind == 1 && (rc == GC_ENOMEM || rc == GC_ENOTSUP)) {
                snprintf(why, GC_ERRLEN, "%s", d->err);
                *pinned = false;
                rc = 0;
            }
            return rc;
        }
        if (i == 0 && kind == 0)
            rc = check_buffer(s, r, b, bytes, tmp);
        if (i == 0 && kind == 1) {
            gc__random_fill(h->ptr, bytes < AL_CHECK ? bytes : AL_CHECK, s->seed);
        }
        t2 = gc__mono_now();
        if (kind == 0)
            gc__dev_free(d, b);
        else
            gc__dev_host_free(d, h);
        tf[i] = gc__mono_now() - t2;
        ta[i] = t1 - t0;
        if (rc) {
            *fatal = true;
            return rc;
        }
    }
    return 0;
}

/* One size of one kind: the medians on the series, and at 1 MiB the
 * percentiles and the free time as metrics. At 1 MiB *rc takes the
 * percentiles' return code (whatever it held before); true when that is an
 * error. */
static bool record_kind(struct gc_bench_result *r, struct gc_series *ser[4], int kind, size_t bytes,
                        const double *ta, const double *tf, int n, int *rc)
{
    struct gc_stats sa, sf;
    gc__stats_compute(ta, n, &sa);
    gc__stats_compute(tf, n, &sf);
    gc__series_add(ser[2 * kind], (double)bytes, sa.median, &sa, NULL);
    gc__series_add(ser[2 * kind + 1], (double)bytes, sf.median, &sf, NULL);
    if (bytes == (1u << 20)) {
        const char *what = kind == 0 ? "device" : "pinned";
        char name[64], note[128];
        snprintf(name, sizeof(name), "%s_alloc_1MiB", what);
        snprintf(note, sizeof(note), "%s allocation of 1 MiB (%s)", what,
                 kind == 0 ? "cuMemAlloc / clCreateBuffer + first write"
                           : "cuMemHostAlloc / mapped CL_MEM_ALLOC_HOST_PTR");
        if ((*rc = gc__add_percentile_metrics(r, name, ta, n, "s", note)))
            return true;
        snprintf(name, sizeof(name), "%s_free_1MiB", what);
        snprintf(note, sizeof(note), "%s free of 1 MiB", what);
        gc__bench_add_metric(r, name, sf.median, "s", NAN, &sf, note);
    }
    return false;
}

static int run_alloc(struct gc_session *s, const struct gc_bench *self, struct gc_bench_result *r)
{
    struct gc_device *d = s->dev;
    bool gpu = d->info.type == GC_DEVICE_GPU;
    int nsizes = gpu ? (s->profile == GC_PROFILE_QUICK ? 4 : AL_NSIZES)
                     : (s->profile == GC_PROFILE_FULL ? AL_NSIZES : 3);
    int reps = s->profile == GC_PROFILE_QUICK ? 5 : s->profile == GC_PROFILE_FULL ? 50 : 15;
    /* An explicit --repeat is the number of allocations per size. */
    bool explicit_reps = s->sampling.samples_set;
    if (explicit_reps)
        reps = s->sampling.max_samples;
    double *ta = calloc((size_t)reps, sizeof(double)), *tf = calloc((size_t)reps, sizeof(double));
    unsigned char *tmp = malloc(2 * AL_CHECK);
    struct gc_series *ser[4];
    bool pinned = d->ops->host_alloc != NULL;
    char pinned_why[GC_ERRLEN] = "";
    int rc = 0;
    bool fatal = false;

    (void)self;
    if (!ta || !tf || !tmp) {
        rc = GC_ENOMEM;
        goto out;
    }
    ser[0] = gc__bench_add_series(r, "device_alloc_time_vs_size", "size", "B",
                                  "device buffer allocation (median)", "s");
    ser[1] = gc__bench_add_series(r, "device_free_time_vs_size", "size", "B",
                                  "device buffer free (median)", "s");
    ser[2] = gc__bench_add_series(r, "pinned_alloc_time_vs_size", "size", "B",
                                  "pinned host allocation (median)", "s");
    ser[3] = gc__bench_add_series(r, "pinned_free_time_vs_size", "size", "B",
                                  "pinned host free (median)", "s");
    for (int i = 0; i < 4; i++)
        if (!ser[i]) {
            rc = GC_ENOMEM;
            goto out;
        }
    for (int k = 0; k < nsizes && rc == 0; k++) {
        size_t bytes = al_sizes[k];
        int n = bytes > (16u << 20) && !explicit_reps && reps > 3 ? 3 : reps;

        if (bytes > d->info.max_alloc ||
            (gc__host_mem_available() > 0 && bytes > gc__host_mem_available() / 4) ||
            bytes > gc__host_as_room(NULL) / 4)
            break;
        for (int kind = 0; kind < 2 && rc == 0; kind++) {
            if (kind == 1 && !pinned)
                break;
            if (kind == 1 && bytes > AL_PINNED_MAX && s->profile != GC_PROFILE_FULL)
                break;
            rc = time_allocs(s, r, kind, bytes, n, ta, tf, tmp, &pinned, pinned_why, &fatal);
            /* A failed allocation ends the benchmark: its times are not
             * recorded (nor overwritten by the next size's return code). */
            if (fatal || rc)
                goto out;
            if (kind == 1 && !pinned)
                break;
            if (record_kind(r, ser, kind, bytes, ta, tf, n, &rc))
                goto out;
        }
    }
    if (!pinned_why[0] && !d->ops->host_alloc)
        snprintf(pinned_why, sizeof(pinned_why), "the backend has no pinned host memory");
    if (pinned_why[0])
        gc__bench_add_metric(r, "pinned_alloc_1MiB", NAN, "s", NAN, NULL, "not available");
    if (pinned_why[0])
        snprintf(r->warning, sizeof(r->warning), "pinned host memory not measured: %.900s",
                 pinned_why);
out:
    free(ta);
    free(tf);
    free(tmp);
    return rc;
}

static const struct gc_sum_cell alloc_cells[] = {
    GC_SUM_US_PCT(gc__sum_overheads, "device alloc 1 MiB", "device_alloc_1MiB"),
    GC_SUM_US_PCT(gc__sum_overheads, "pinned host alloc 1 MiB", "pinned_alloc_1MiB"),
    {0},
};
static const struct gc_bench_report alloc_report = {.cells = alloc_cells};

const struct gc_bench gc__bench_alloc = {
    .info =
        {
            .name = "overhead.alloc",
            .group = "overhead",
            .summary = "device buffer and pinned host memory allocation / free time vs size",
            .method =
                "Host wall time of the backend's allocate and free calls for 4 KiB, 64 KiB, 1 "
                "MiB, 16 MiB, 64 MiB and 256 MiB (a CPU device stops at 1 MiB, at 256 MiB with "
                "--full; a GPU at 16 MiB with --quick; pinned host memory at 64 MiB but with "
                "--full): device "
                "buffers (cuMemAlloc / cuMemFree; clCreateBuffer plus the one-byte write that "
                "makes the implementation allocate now, clReleaseMemObject) and pinned host "
                "memory (cuMemHostAlloc / cuMemFreeHost; a CL_MEM_ALLOC_HOST_PTR buffer mapped "
                "/ unmapped and released). 15 samples per size (5 --quick, 50 --full; 3 above "
                "16 MiB); median and, at 1 MiB, p5/p95/p99. Every first device buffer of a "
                "size is checked with random bytes written and read back at both ends. A "
                "refused pinned allocation (locked-memory limit) ends only the pinned rows.",
        },
    .run = run_alloc,
    .report = &alloc_report,
    .resources = GC_RES_HOST_CPU | GC_RES_HOST_LINK,
};
