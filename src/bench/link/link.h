/* The link.* family: what its benchmarks share. A link benchmark runs over
 * several open devices at once (struct gc_link_session, made by
 * gc_run_links); registered in the catalogue, it runs in an ordinary
 * one-device run too, where it says "not available: one device". */
#ifndef GC_BENCH_LINK_LINK_H
#define GC_BENCH_LINK_LINK_H

#include "bench/bench.h"

struct gc_progress_state;

/* The open devices and what every link benchmark needs of them. Device i
 * of the list is "i" in the pair names ("0->1"). */
struct gc_link_session {
    gc_context *ctx;
    int n;
    struct gc_device **devs;
    struct gc_session *sess;   /* one per device: kernels, fills (shared kernel cache) */
    struct gc_peer_info *peer; /* n x n, [from * n + to] */
    bool *enabled;             /* n x n: peer access from -> to enabled */
    double *limit;             /* n x n: per-direction limit, B/s; NAN unknown */
    char (*limit_note)[256];   /* n x n */
    double *host_limit;        /* n: each device's host link, B/s per direction */
    char (*host_note)[256];    /* n */
    enum gc_profile profile;
    struct gc_sampling sampling;
    volatile sig_atomic_t *stop;
    uint64_t seed;
    struct gc_progress_state *progress;
};

static inline bool gc__link_stopped(const struct gc_link_session *ls)
{
    return ls->stop && *ls->stop;
}

/* Whether from can reach to (peer access enabled); why gets the reason
 * when not. */
bool gc__link_reachable(const struct gc_link_session *ls, int from, int to, char *why, size_t len);

/* False when every enabled pair crosses by the backend's copies only (a
 * kernel on one device cannot read or write another's memory in place: the
 * SM copies and the chase need that); why gets "not available: " and the
 * backend's reason. True otherwise, also when no pair is enabled. */
bool gc__link_kernels_cross(const struct gc_link_session *ls, char *why, size_t len);

/* One link benchmark (its catalogue entry is the struct gc_bench whose param
 * it is): its run over the devices of ls fills r. Returns 0 or
 * a negative GC_E code after recording the message in r. */
struct gc_link_desc {
    int (*run)(struct gc_link_session *ls, const struct gc_link_desc *self,
               struct gc_bench_result *r);
    int kind; /* the run function's own variant */
};

/* The family's table: count and entries (registry and gc_run_links); each
 * entry's param is its struct gc_link_desc. */
int gc__link_count(void);
const struct gc_bench *gc__link_bench_at(int i);

/* Adds the "devices" metric (value n, note "0=cuda:0 <bus id>; 1=...") to r. */
void gc__link_add_devices(const struct gc_link_session *ls, struct gc_bench_result *r);

/* ---- Shared measurement (measure.c) ---------------------------------- */

#define GC_LINK_MAX_SIZES 64
#define GC_LINK_MAX_SAMPLES 64
/* Source offsets change with the size (multiples of a page), so that a copy
 * that did nothing leaves another offset's words behind and fails. */
#define GC_LINK_OFF_STEP ((size_t)4096)
#define GC_LINK_SLACK (8 * GC_LINK_OFF_STEP)

/* Each device's source buffer (words gc__hash32(seed of the device, i))
 * and destination buffer. */
struct gc_link_bufs {
    struct gc_buf **src, **dst;
    uint64_t *seed;
    size_t src_bytes, dst_bytes;
    /* With gc__link_bufs_ref: per device a reference buffer of dst_bytes
     * holding the words of device ref_of[i]'s source (-1: none yet), so
     * that a copy is checked on the device that received it. */
    struct gc_buf **ref;
    int *ref_of;
};

/* The sizes of the copy rows up to the profile's largest (quick 64 MiB,
 * default 1 GiB, full 2 GiB), the largest bounded so that a buffer of
 * dst_per_size copies (and the slack) fits every device's largest buffer
 * and nbufs buffers of the size 2/5 of its free memory; why names the
 * bound. --full: 4 B in half octaves (the whole curve); otherwise the
 * ladder of gc__link_ladder. Returns the count (0: too little memory). */
int gc__link_sizes(const struct gc_link_session *ls, int dst_per_size, int nbufs, size_t *sizes,
                   int cap, char *why, size_t whylen);
/* The sizes of the quick and default profiles up to max: 4 B x 16^k up to
 * 64 MiB (the latency points and the knee of the Hockney fit), then with
 * bandwidth_points 256 MiB and 1 GiB (the bandwidth plateau); max itself
 * when it bounds the ladder below its top. Returns the count. */
int gc__link_ladder(size_t max, bool bandwidth_points, size_t *sizes, int cap);

/* Allocates and fills each device's source (src_bytes) and destination
 * (dst_bytes) buffers. Releases with gc__link_bufs_free. A caller that copies
 * from source offsets adds GC_LINK_SLACK to its largest size; the others ask
 * for exactly their largest size: on NVLink an SM read from a source of
 * 1 GiB + 32 KiB ran 0.1-0.4% slower than from one of exactly 1 GiB. */
int gc__link_bufs_alloc(struct gc_link_session *ls, struct gc_link_bufs *b, size_t src_bytes,
                        size_t dst_bytes);
void gc__link_bufs_free(struct gc_link_session *ls, struct gc_link_bufs *b);
/* Adds the reference buffers (dst_bytes on each device). */
int gc__link_bufs_ref(struct gc_link_session *ls, struct gc_link_bufs *b);

/* Before a copy from -> to of bytes at offset 0 of both buffers: to's
 * destination is poisoned (a copy that did nothing fails), and to's
 * reference is filled with from's words when it holds another's. */
int gc__link_prepare(struct gc_link_session *ls, struct gc_link_bufs *b, int from, int to,
                     size_t bytes);
/* After it: the first bytes of to's destination must equal from's source
 * words: checked on the device against the reference where the device can
 * (gc__devcheck), else on the host (gc__link_verify). */
int gc__link_check(struct gc_link_session *ls, struct gc_bench_result *r, struct gc_link_bufs *b,
                   int from, int to, size_t bytes, const char *what);

/* The samples a link measurement takes: the user's --repeat where set,
 * else the profile's least raised to at least `least`; at most
 * GC_LINK_MAX_SAMPLES. */
int gc__link_samples(const struct gc_link_session *ls, int least);

/* The samples of n copies at once: a warm-up call, a probe that sets the
 * repetitions per sample (a sample lasts the run's sample time, at least
 * 20 ms from 64 MiB on), then the samples. per[c][k]: seconds per copy of
 * copy c in sample k (its own stream's events), tot[k]: of the whole.
 * *ns gets the samples taken. first: the index of the device that issues
 * c[0], whose error gets the message of a failure. */
int gc__link_sample(struct gc_link_session *ls, int first, const struct gc_peer_copy *c, int n,
                    double (*per)[GC_LINK_MAX_SAMPLES], double *tot, int *ns);

/* Checks that dst device buffer `dst` (of device `dev`) holds bytes of the
 * words of seed from word first on; a wrong byte fails r with the byte's
 * place. what names the copy. */
int gc__link_verify(struct gc_link_session *ls, struct gc_bench_result *r, int dev,
                    struct gc_buf *dst, size_t dst_off, size_t bytes, uint64_t seed, size_t first,
                    const char *what);

/* What one ordered pair measured: per size the median time per copy and
 * the bandwidth statistics. */
struct gc_link_curve {
    int n;
    double size[GC_LINK_MAX_SIZES], med[GC_LINK_MAX_SIZES];
    struct gc_stats bw[GC_LINK_MAX_SIZES];
};

/* Records one size of a curve (series "name" bandwidth vs size and
 * "name.time" time vs size, created on first use). */
int gc__link_curve_add(struct gc_bench_result *r, const char *name, struct gc_link_curve *cv,
                       size_t bytes, const double *per_copy, int ns);

/* The pair's metrics from its curve: "name" (best size's median bandwidth
 * against limit), "name.latency", "name.bandwidth_fit", "name.n_half"
 * (Hockney fit). */
void gc__link_curve_metrics(struct gc_bench_result *r, const char *name,
                            const struct gc_link_curve *cv, double limit, const char *limit_note);

/* A pair that cannot be measured: its metric "from->to" without a value
 * (in unit), the reason in its note and in the row's warning. */
void gc__link_unreachable(struct gc_bench_result *r, int from, int to, const char *unit,
                          const char *why);

/* The runs of the family's files. */
int gc__link_run_topology(struct gc_link_session *ls, const struct gc_link_desc *self,
                          struct gc_bench_result *r);
int gc__link_run_copy(struct gc_link_session *ls, const struct gc_link_desc *self,
                      struct gc_bench_result *r);
int gc__link_run_group(struct gc_link_session *ls, const struct gc_link_desc *self,
                       struct gc_bench_result *r);
int gc__link_run_host(struct gc_link_session *ls, const struct gc_link_desc *self,
                      struct gc_bench_result *r);
int gc__link_run_latency(struct gc_link_session *ls, const struct gc_link_desc *self,
                         struct gc_bench_result *r);
int gc__link_run_sm(struct gc_link_session *ls, const struct gc_link_desc *self,
                    struct gc_bench_result *r);
int gc__link_run_chase(struct gc_link_session *ls, const struct gc_link_desc *self,
                       struct gc_bench_result *r);

/* Kinds of gc__link_run_copy and gc__link_run_group. */
enum {
    GC_LINK_WRITE, /* the source device issues (pushes) */
    GC_LINK_READ,  /* the destination device issues (pulls) */
    GC_LINK_BIDIR, /* both directions at once, each pushed by its source */
    GC_LINK_ALL_TO_ONE,
    GC_LINK_ONE_TO_ALL,
    GC_LINK_TO_HOST,
    GC_LINK_FROM_HOST,
    GC_LINK_SM_READ,
    GC_LINK_SM_WRITE,
};

#endif
