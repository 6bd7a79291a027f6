/* Device-side fill, poison and check kernels with their host fallbacks, and
 * the pool of filled buffers a run's benchmarks share. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/devfill.h"
#include "core/sensors.h"
#include "util/random.h"
#include "kgen/gen_fill.h"
#include "core/kcache.h"

#define POOL_MAX 8
#define HOST_CHUNK ((size_t)4 << 20) /* words generated on the host at a time */

struct pool_ent {
    char key[48];
    size_t bytes;  /* allocated */
    size_t filled; /* of an input: the leading bytes that hold its words */
    uint64_t seed;
    bool input;
    struct gc_buf *buf;
    unsigned long long used; /* tick of the last use, for eviction */
    unsigned long long gen;  /* the benchmark that used it last (gc__pool_begin) */
};

struct gc_devfill {
    int built; /* 0 not tried, 1 built, -1 not available */
    struct gc_kreq req;
    struct gc_kern *fill_hash, *fill_word, *check_eq, *check_pattern, *check_triad, *check_hash,
        *check_read, *read_ref, *copyk_ref;
    bool fill_ok, word_ok, check_ok; /* each device path proved itself (or not yet failed) */
    bool fill_tested, word_tested;
    struct gc_buf *res; /* a check's two counters */
    struct pool_ent pool[POOL_MAX];
    unsigned long long tick, gen;
};

static struct gc_devfill *state(struct gc_session *s)
{
    if (!s->devfill) {
        s->devfill = calloc(1, sizeof(*s->devfill));
        if (s->devfill)
            s->devfill->fill_ok = s->devfill->word_ok = s->devfill->check_ok = true;
    }
    return s->devfill;
}

void gc__devfill_free(struct gc_session *s)
{
    struct gc_devfill *f = s->devfill;

    if (!f)
        return;
    for (int i = 0; i < POOL_MAX; i++)
        gc__dev_free(s->dev, f->pool[i].buf);
    gc__dev_free(s->dev, f->res);
    if (f->built == 1)
        gc__kreq_release(s, &f->req, 1);
    free(f);
    s->devfill = NULL;
}

char *gc__devfill_source(const struct gc_session *s)
{
    return gc__gen_fill(s->dev->ops->dialect, s->dev->info.type == GC_DEVICE_CPU);
}

/* Builds the fill program once per session; false when it cannot be had
 * (no cache, a compile error): the callers then use the host. A build
 * failure is not the benchmark's error, so the device's message is kept. */
static bool build(struct gc_session *s, struct gc_devfill *f)
{
    struct gc_device *d = s->dev;
    char saved[GC_ERRLEN];

    if (f->built)
        return f->built > 0;
    f->built = -1;
    if (!s->kcache)
        return false;
    memcpy(saved, d->err, sizeof(saved));
    f->req.label = "gc_fill";
    f->req.src = gc__devfill_source(s);
    if (f->req.src && gc__kcache_build(s, &f->req, 1) == 0 &&
        d->ops->kernel(f->req.prog, "gc_fill_hash", &f->fill_hash) == 0 &&
        d->ops->kernel(f->req.prog, "gc_fill_word", &f->fill_word) == 0 &&
        d->ops->kernel(f->req.prog, "gc_check_eq", &f->check_eq) == 0 &&
        d->ops->kernel(f->req.prog, "gc_check_pattern", &f->check_pattern) == 0 &&
        d->ops->kernel(f->req.prog, "gc_check_triad", &f->check_triad) == 0 &&
        d->ops->kernel(f->req.prog, "gc_check_hash", &f->check_hash) == 0 &&
        d->ops->kernel(f->req.prog, "gc_check_read", &f->check_read) == 0 &&
        d->ops->kernel(f->req.prog, "gc_read_ref", &f->read_ref) == 0 &&
        d->ops->kernel(f->req.prog, "gc_copyk_ref", &f->copyk_ref) == 0 &&
        gc__dev_alloc(d, 8, &f->res) == 0) {
        f->built = 1;
    } else {
        gc__kreq_release(s, &f->req, 1);
        memset(&f->req, 0, sizeof(f->req));
    }
    memcpy(d->err, saved, sizeof(saved));
    return f->built > 0;
}

/* A grid-stride launch over words: 256-thread blocks, 8 per CU at most. */
static struct gc_launch words_launch(const struct gc_device *d, size_t words,
                                     const struct gc_arg *args, int nargs)
{
    unsigned block = 256, cus = d->info.compute_units > 0 ? (unsigned)d->info.compute_units : 1;
    size_t want = (words + block - 1) / block;
    unsigned grid = want > (size_t)cus * 8 ? cus * 8 : want ? (unsigned)want : 1;

    if (d->info.max_threads_per_block > 0 && block > (unsigned)d->info.max_threads_per_block)
        block = (unsigned)d->info.max_threads_per_block;
    return (struct gc_launch){{grid, 1, 1}, {block, 1, 1}, 0, args, nargs, 1};
}

static int launch(struct gc_session *s, struct gc_kern *k, const struct gc_launch *l)
{
    double el;

    return gc__dev_launch(s->dev, k, l, &el);
}

/* Words 0, n / 2 and n - 1 of b against want(i): the first device fill of a
 * session proves that the kernel ran and spells the generator right. */
static bool spot_ok(struct gc_session *s, struct gc_buf *b, size_t words, uint64_t seed, bool hash,
                    uint32_t w)
{
    size_t at[3] = {0, words / 2, words - 1};

    for (int i = 0; i < 3; i++) {
        uint32_t got = 0, want = hash ? gc__hash32(seed, at[i]) : w;

        if (gc__dev_read(s->dev, b, at[i] * 4, &got, 4) || got != want)
            return false;
    }
    return true;
}

static int host_fill(struct gc_session *s, struct gc_buf *b, size_t words, uint64_t seed, bool hash,
                     uint32_t w)
{
    size_t n = words < HOST_CHUNK ? words : HOST_CHUNK;
    uint32_t *tmp = malloc((n ? n : 1) * 4);
    int rc = 0;

    if (!tmp) {
        snprintf(s->dev->err, sizeof(s->dev->err), "out of host memory filling a buffer");
        return GC_ENOMEM;
    }
    if (!hash)
        for (size_t k = 0; k < n; k++)
            tmp[k] = w;
    for (size_t off = 0; off < words && rc == 0; off += n) {
        size_t len = words - off < n ? words - off : n;

        if (hash)
            gc__hash_fill(tmp, off, len, seed);
        rc = gc__dev_write(s->dev, b, off * 4, tmp, len * 4);
    }
    free(tmp);
    return rc;
}

static int fill(struct gc_session *s, struct gc_buf *b, size_t bytes, uint64_t seed, bool hash,
                uint32_t w)
{
    struct gc_devfill *f = state(s);
    size_t words = bytes / 4;
    bool *ok = f ? (hash ? &f->fill_ok : &f->word_ok) : NULL;
    bool *tested = f ? (hash ? &f->fill_tested : &f->word_tested) : NULL;

    if (words == 0)
        return 0;
    if (f && *ok && build(s, f)) {
        struct gc_arg a[3] = {{.type = GC_ARG_BUF, .v.buf = b},
                              {.type = GC_ARG_U64, .v.u64 = words}};
        struct gc_launch l;
        int rc;

        if (hash)
            a[2] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = seed};
        else
            a[2] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = w};
        l = words_launch(s->dev, words, a, 3);
        rc = launch(s, hash ? f->fill_hash : f->fill_word, &l);
        if (rc)
            return rc;
        if (*tested)
            return 0;
        *tested = true;
        if (spot_ok(s, b, words, seed, hash, w))
            return 0;
        *ok = false; /* the kernels do not run here: the host fills from now on */
    }
    return host_fill(s, b, words, seed, hash, w);
}

int gc__devfill_hash(struct gc_session *s, struct gc_buf *b, size_t bytes, uint64_t seed)
{
    return fill(s, b, bytes, seed, true, 0);
}

int gc__devfill_word(struct gc_session *s, struct gc_buf *b, size_t bytes, uint32_t w)
{
    return fill(s, b, bytes, 0, false, w);
}

/* Zeroes the counters, launches k over words, reads them back. */
static int count(struct gc_session *s, struct gc_devfill *f, struct gc_kern *k,
                 const struct gc_launch *l, uint32_t res[2])
{
    int rc;

    res[0] = res[1] = 0;
    if ((rc = gc__dev_write(s->dev, f->res, 0, res, 8)) || (rc = launch(s, k, l)))
        return rc;
    return gc__dev_read(s->dev, f->res, 0, res, 8);
}

/* Runs check kernel k over the `words` items of got; a holds its own
 * arguments first (na of them, room for three more: got, the count, the
 * counters). 0 when none differs, GC_EVERIFY with the count of `what` in
 * msg, GC_ENOTSUP when the device cannot check or the check did not see
 * every item (it proves nothing then: the caller checks on the host). */
static int run_check(struct gc_session *s, struct gc_devfill *f, struct gc_kern *k,
                     struct gc_arg *a, int na, struct gc_buf *got, uint64_t words, const char *what,
                     char *msg, size_t len)
{
    uint32_t res[2];
    int rc;

    if (words >= ((uint64_t)1 << 32))
        return GC_ENOTSUP;
    a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = got};
    a[na++] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = words};
    a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = f->res};
    struct gc_launch l = words_launch(s->dev, words, a, na);
    if ((rc = count(s, f, k, &l, res)))
        return rc;
    if (res[1] != (uint32_t)words) {
        f->check_ok = false;
        return GC_ENOTSUP;
    }
    if (res[0]) {
        snprintf(msg, len, "%u of %llu %s", res[0], (unsigned long long)words, what);
        return GC_EVERIFY;
    }
    return 0;
}

int gc__devcheck(struct gc_session *s, const struct gc_check *c, char *msg, size_t len)
{
    struct gc_devfill *f = state(s);
    struct gc_arg a[6];
    struct gc_kern *k;
    int na = 0;

    if (!f || !f->check_ok || !build(s, f))
        return GC_ENOTSUP;
    switch (c->kind) {
    case GC_CHECK_EQ:
        k = f->check_eq;
        a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->want};
        break;
    case GC_CHECK_PATTERN:
        k = f->check_pattern;
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = c->arg};
        break;
    case GC_CHECK_HASH:
        k = f->check_hash;
        a[na++] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = c->seed};
        a[na++] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = c->first};
        a[na++] = (struct gc_arg){.type = GC_ARG_U64, .v.u64 = c->got_off};
        break;
    default:
        k = f->check_triad;
        a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->b};
        a[na++] = (struct gc_arg){.type = GC_ARG_BUF, .v.buf = c->c};
        a[na++] = (struct gc_arg){.type = GC_ARG_U32, .v.u32 = c->arg};
        break;
    }
    return run_check(s, f, k, a, na, c->got, c->words,
                     "words differ from what the kernel must have written", msg, len);
}

int gc__devcheck_read(struct gc_session *s, const struct gc_check_read *c, char *msg, size_t len)
{
    struct gc_devfill *f = state(s);
    struct gc_arg a[9] = {
        {.type = GC_ARG_BUF, .v.buf = c->src},       {.type = GC_ARG_U32, .v.u32 = c->tiles},
        {.type = GC_ARG_U32, .v.u32 = c->tile_vecs}, {.type = GC_ARG_U32, .v.u32 = c->vw},
        {.type = GC_ARG_U32, .v.u32 = c->grid},      {.type = GC_ARG_U32, .v.u32 = c->block},
    };

    if (!f || !f->check_ok || !build(s, f))
        return GC_ENOTSUP;
    return run_check(s, f, f->check_read, a, 6, c->got, (uint64_t)c->grid * c->block,
                     "per-thread sums differ from the input's", msg, len);
}

int gc__devcheck_read_ref(struct gc_session *s, struct gc_buf *src, struct gc_buf *ref,
                          unsigned tiles, unsigned tile_vecs, unsigned vw, unsigned grid,
                          unsigned block)
{
    struct gc_devfill *f = state(s);
    struct gc_arg a[5] = {
        {.type = GC_ARG_BUF, .v.buf = src},   {.type = GC_ARG_BUF, .v.buf = ref},
        {.type = GC_ARG_U32, .v.u32 = tiles}, {.type = GC_ARG_U32, .v.u32 = tile_vecs},
        {.type = GC_ARG_U32, .v.u32 = vw},
    };
    struct gc_launch l = {{grid, 1, 1}, {block, 1, 1}, 0, a, 5, 1};

    if (!f || !f->check_ok || !build(s, f))
        return GC_ENOTSUP;
    return launch(s, f->read_ref, &l);
}

int gc__devcheck_copyk_ref(struct gc_session *s, struct gc_buf *src, struct gc_buf *ref,
                           unsigned elem, unsigned reads, uint64_t stride, uint64_t threads,
                           uint32_t poison)
{
    struct gc_devfill *f = state(s);
    struct gc_arg a[7] = {
        {.type = GC_ARG_BUF, .v.buf = src},    {.type = GC_ARG_BUF, .v.buf = ref},
        {.type = GC_ARG_U32, .v.u32 = elem},   {.type = GC_ARG_U32, .v.u32 = reads},
        {.type = GC_ARG_U64, .v.u64 = stride}, {.type = GC_ARG_U64, .v.u64 = threads},
        {.type = GC_ARG_U32, .v.u32 = poison},
    };

    if (!f || !f->check_ok || !build(s, f))
        return GC_ENOTSUP;
    struct gc_launch l = words_launch(s->dev, threads, a, 7);
    return launch(s, f->copyk_ref, &l);
}

/* ---- the device timer against the host's clock ----------------------------- */

int gc__timer_calibrate(struct gc_session *s, double *raw)
{
    struct gc_device *d = s->dev;
    struct gc_devfill *f = state(s);
    const size_t bytes = (size_t)64 << 20;
    struct gc_buf *b = NULL;
    double el = 0, ratio[3];
    int rc, n = 0;

    *raw = NAN;
    /* A simulated device's times are no clock. */
    if (d->info.type != GC_DEVICE_GPU || d->ops->simulated || !f || !f->word_ok || !build(s, f))
        return GC_ENOTSUP;
    if ((rc = gc__dev_alloc(d, bytes, &b)))
        return rc;
    struct gc_arg a[3] = {{.type = GC_ARG_BUF, .v.buf = b},
                          {.type = GC_ARG_U64, .v.u64 = bytes / 4},
                          {.type = GC_ARG_U32, .v.u32 = 0}};
    struct gc_launch l = words_launch(d, bytes / 4, a, 3);
    double keep = d->timer_scale;

    d->timer_scale = 0; /* raw device times while calibrating */
    rc = gc__dev_launch(d, f->fill_word, &l, &el);
    if (rc == 0 && !(el > 0))
        rc = GC_ENOTSUP;
    /* Back-to-back launches for about 0.1 s: the device is busy from the
     * first to the last, the host waits around them; the host's share (the
     * first launch's latency and the wake-up, tens of microseconds) is a few
     * 1e-4 of the interval. */
    if (rc == 0) {
        double want = 0.1 / el;
        l.count = want < 1 ? 1 : want > 200000 ? 200000 : (int)want;
    }
    for (int i = 0; rc == 0 && i < 3; i++) {
        double t0 = gc__now();

        rc = gc__dev_launch(d, f->fill_word, &l, &el);
        double t1 = gc__now();
        if (rc == 0 && el > 0)
            ratio[n++] = (t1 - t0) / el;
    }
    gc__dev_free(d, b);
    d->timer_scale = keep;
    if (rc)
        return rc;
    if (n < 3)
        return GC_ENOTSUP;
    /* The median of three. */
    double lo = fmin(ratio[0], fmin(ratio[1], ratio[2]));
    double hi = fmax(ratio[0], fmax(ratio[1], ratio[2]));
    *raw = ratio[0] + ratio[1] + ratio[2] - lo - hi;
    /* Beyond what the host's share can explain: the device's timer runs at
     * another rate than the host's clock. */
    if (fabs(*raw - 1) > GC_TIMER_TOLERANCE)
        d->timer_scale = *raw;
    return 0;
}

/* ---- the pool ------------------------------------------------------------ */

/* Total bytes the pool may keep: an eighth of the device's memory, so that
 * benchmarks that allocate on their own still find room. */
static size_t pool_cap(const struct gc_session *s)
{
    size_t g = s->dev->info.global_mem;

    return g ? g / 8 : (size_t)1 << 30;
}

static void evict(struct gc_session *s, struct gc_devfill *f, int i)
{
    gc__dev_free(s->dev, f->pool[i].buf);
    memset(&f->pool[i], 0, sizeof(f->pool[i]));
}

/* The entry of key (reallocated when it is smaller than asked), or a new
 * one made room for by evicting the least recently used. A larger entry
 * serves a smaller request with its leading bytes: the benchmarks that share
 * a key stream different sizes of one kind of data (a CPU's DRAM streams
 * split one footprint among 1 to 3 buffers), and an input's words depend on
 * their index only, so its prefix is the smaller fill. */
static int pool_get(struct gc_session *s, const char *key, size_t bytes, bool *fresh,
                    struct pool_ent **out)
{
    struct gc_devfill *f = state(s);
    size_t held = 0;
    int slot = -1, rc;

    *out = NULL;
    if (!f) {
        snprintf(s->dev->err, sizeof(s->dev->err), "out of host memory");
        return GC_ENOMEM;
    }
    f->tick++;
    for (int i = 0; i < POOL_MAX; i++)
        if (f->pool[i].buf && strcmp(f->pool[i].key, key) == 0) {
            if (f->pool[i].bytes >= bytes) {
                f->pool[i].used = f->tick;
                f->pool[i].gen = f->gen;
                *fresh = false;
                *out = &f->pool[i];
                return 0;
            }
            evict(s, f, i);
        }
    for (;;) {
        int lru = -1;

        held = 0;
        slot = -1;
        for (int i = 0; i < POOL_MAX; i++) {
            if (!f->pool[i].buf) {
                slot = slot < 0 ? i : slot;
                continue;
            }
            held += f->pool[i].bytes;
            /* What the running benchmark holds is never evicted. */
            if (f->pool[i].gen != f->gen && (lru < 0 || f->pool[i].used < f->pool[lru].used))
                lru = i;
        }
        if (lru < 0 || (slot >= 0 && held + bytes <= pool_cap(s)))
            break;
        evict(s, f, lru);
    }
    if (slot < 0) {
        snprintf(s->dev->err, sizeof(s->dev->err), "the buffer pool is full (%d buffers)",
                 POOL_MAX);
        return GC_ENOMEM;
    }
    struct pool_ent *e = &f->pool[slot];
    if ((rc = gc__dev_alloc(s->dev, bytes, &e->buf)))
        return rc;
    snprintf(e->key, sizeof(e->key), "%s", key);
    e->bytes = bytes;
    e->used = f->tick;
    e->gen = f->gen;
    *fresh = true;
    *out = e;
    return 0;
}

int gc__pool_input(struct gc_session *s, const char *key, size_t bytes, uint64_t seed,
                   struct gc_buf **out)
{
    struct pool_ent *e;
    bool fresh;
    int rc = pool_get(s, key, bytes, &fresh, &e);

    *out = NULL;
    if (rc)
        return rc;
    if (fresh || !e->input || e->seed != seed || e->filled < bytes) {
        e->input = false; /* until the fill succeeded */
        if ((rc = gc__devfill_hash(s, e->buf, bytes, seed)))
            return rc;
        e->input = true;
        e->seed = seed;
        e->filled = bytes;
    }
    *out = e->buf;
    return 0;
}

int gc__pool_output(struct gc_session *s, const char *key, size_t bytes, struct gc_buf **out)
{
    struct pool_ent *e;
    bool fresh;
    int rc = pool_get(s, key, bytes, &fresh, &e);

    *out = NULL;
    if (rc)
        return rc;
    e->input = false;
    *out = e->buf;
    return 0;
}

void gc__pool_begin(struct gc_session *s)
{
    struct gc_devfill *f = state(s);

    if (f)
        f->gen++;
}

int gc__pool_count(const struct gc_session *s, size_t *bytes)
{
    int n = 0;

    *bytes = 0;
    if (!s->devfill)
        return 0;
    for (int i = 0; i < POOL_MAX; i++)
        if (s->devfill->pool[i].buf) {
            n++;
            *bytes += s->devfill->pool[i].bytes;
        }
    return n;
}
