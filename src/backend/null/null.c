/* The null backend: simulated devices with host-memory buffers, the source as
 * "binary" and launches that take a modelled time with deterministic noise. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/null/null.h"
#include "util/random.h"

#define NULL_MAX_DEVICES 64
#define NULL_DEFAULT_GLOBAL_MEM ((size_t)1 << 30)
#define NULL_CLOCK_MHZ 1500.0
#define NULL_THROTTLED_MHZ 1200.0
/* NVML's "software power cap" reason bit, the usual cause of a lowered clock. */
#define NULL_THROTTLE_REASON 0x4ULL

/* 10 us per launch with 0.2% noise: a short kernel on a quiet device. */
#define NULL_DEFAULTS                                                                              \
    {                                                                                              \
        .launch_s = 10e-6, .noise_rel = 0.002, .throttle_prob = 0.0,                               \
        .seed = 0x6e756c6c64657631ULL, .fail_alloc_after = 0                                       \
    }

static const struct gc_null_config default_config = NULL_DEFAULTS;

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gc_null_config config = NULL_DEFAULTS;
static bool configured;

struct null_hostmem;

struct gc_dev {
    int index;
    struct gc_null_config cfg;
    /* The lock guards everything below: the sampling thread reads sensors
     * while the main thread launches, and compilation runs on a pool. */
    pthread_mutex_t lock;
    uint64_t launch_rng, sensor_rng;
    double t_open; /* host time the device was opened: the energy counter's origin */
    size_t allocated;
    long allocs;
    struct null_hostmem *hostmems; /* live host allocations, for their kind */
    char err[GC_ERRLEN];
};

struct gc_buf {
    struct gc_dev *dev;
    size_t size;
    unsigned char *mem;
    bool borrowed; /* the view of a mapped host allocation: memory not ours */
};

/* Host memory: the public part first, so that the pointer converts. */
struct null_hostmem {
    struct gc_hostmem h;
    struct gc_dev *dev;
    struct null_hostmem *next;
    struct gc_buf view;
};

struct gc_graph {
    struct gc_dev *dev;
    int count;
};

struct gc_kern {
    struct gc_prog *prog;
    struct gc_kern *next;
    char name[128];
};

/* A program owns its kernels: the interface has no call to release one. */
struct gc_prog {
    struct gc_dev *dev;
    char *src;
    struct gc_kern *kernels;
};

static void set_err(struct gc_dev *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_err(struct gc_dev *d, const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&d->lock);
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof(d->err), fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&d->lock);
}

/* A uniform double in [0, 1) from the top 53 bits of the stream. */
static double uniform(uint64_t *state)
{
    return (double)(gc__xorshift64s(state) >> 11) * (1.0 / 9007199254740992.0);
}

void gc__null_configure(const struct gc_null_config *cfg)
{
    struct gc_null_config c = cfg ? *cfg : default_config;

    /* Out-of-range settings are clamped so that times stay positive and
     * probabilities stay probabilities. */
    if (!(c.launch_s > 0) || !isfinite(c.launch_s))
        c.launch_s = default_config.launch_s;
    c.noise_rel = c.noise_rel > 0 ? (c.noise_rel < 0.9 ? c.noise_rel : 0.9) : 0;
    c.throttle_prob = c.throttle_prob > 0 ? (c.throttle_prob < 1 ? c.throttle_prob : 1) : 0;
    pthread_mutex_lock(&config_lock);
    config = c;
    configured = cfg != NULL;
    pthread_mutex_unlock(&config_lock);
}

/* The memory of a simulated device: the configuration's, else 1 GiB. */
static size_t global_mem_now(void)
{
    size_t m;

    pthread_mutex_lock(&config_lock);
    m = config.global_mem;
    pthread_mutex_unlock(&config_lock);
    return m ? m : NULL_DEFAULT_GLOBAL_MEM;
}

static size_t dev_mem(const struct gc_dev *d)
{
    return d->cfg.global_mem ? d->cfg.global_mem : NULL_DEFAULT_GLOBAL_MEM;
}

static int null_init(char *why, size_t whylen)
{
    if (why && whylen)
        why[0] = '\0';
    return 0;
}

/* The count is read on every call so that a test can set the environment
 * after the backend was initialised. */
static int null_device_count(void)
{
    const char *env = getenv("GPUCHAR_NULL_DEVICES");
    bool cfg;

    if (env && *env) {
        char *end;
        long n = strtol(env, &end, 10);

        if (*end == '\0' && n >= 1)
            return n > NULL_MAX_DEVICES ? NULL_MAX_DEVICES : (int)n;
    }
    pthread_mutex_lock(&config_lock);
    cfg = configured;
    pthread_mutex_unlock(&config_lock);
    return cfg ? 1 : 0;
}

static int null_device_info(int index, struct gc_device_info *out)
{
    if (index < 0 || index >= null_device_count())
        return GC_ENODEV;
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "null simulated device");
    snprintf(out->vendor, sizeof(out->vendor), "gpuchar");
    /* The version from the public header's numbers: a backend calls no
     * function of the layers above it (gc_version() is the core's). */
    snprintf(out->driver, sizeof(out->driver), "null backend %d.%d.%d", GC_VERSION_MAJOR,
             GC_VERSION_MINOR, GC_VERSION_PATCH);
    snprintf(out->compiler, sizeof(out->compiler), "null compiler %d.%d.%d", GC_VERSION_MAJOR,
             GC_VERSION_MINOR, GC_VERSION_PATCH);
    snprintf(out->arch, sizeof(out->arch), "null");
    out->type = GC_DEVICE_OTHER;
    out->compute_units = 4;
    out->simd_width = 32;
    out->max_threads_per_block = 1024;
    out->max_threads_per_cu = 2048;
    out->max_blocks_per_cu = 16;
    out->regs_per_cu = 65536;
    out->shared_per_cu = 64 << 10;
    out->shared_per_block = 48 << 10;
    out->shared_per_block_optin = 48 << 10;
    out->global_mem = global_mem_now();
    out->max_alloc = out->global_mem / 4;
    out->l2_size = 1 << 20;
    out->clock_mhz = NULL_CLOCK_MHZ;
    out->mem_clock_mhz = NAN;
    out->mem_bw_spec = NAN;
    out->ecc_enabled = -1;
    out->caps = GC_CAP_SENSOR_CLOCK | GC_CAP_SENSOR_THROTTLE | GC_CAP_DYN_SHARED;
    return 0;
}

static int null_open(int index, struct gc_dev **out, char *err, size_t errlen)
{
    struct gc_dev *d;

    *out = NULL;
    if (index < 0 || index >= null_device_count()) {
        snprintf(err, errlen, "null: no device %d", index);
        return GC_ENODEV;
    }
    d = calloc(1, sizeof(*d));
    if (!d) {
        snprintf(err, errlen, "null: out of host memory");
        return GC_ENOMEM;
    }
    if (pthread_mutex_init(&d->lock, NULL) != 0) {
        free(d);
        snprintf(err, errlen, "null: cannot create a mutex");
        return GC_EBACKEND;
    }
    d->index = index;
    {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        d->t_open = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
    pthread_mutex_lock(&config_lock);
    d->cfg = config;
    pthread_mutex_unlock(&config_lock);
    /* Separate streams: the sampling thread's reads must not change the
     * noise a launch sees, or timings would depend on thread scheduling. */
    d->launch_rng = d->cfg.seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(index + 1));
    d->sensor_rng = d->launch_rng ^ 0xD1B54A32D192ED03ULL;
    if (d->launch_rng == 0)
        d->launch_rng = 1;
    if (d->sensor_rng == 0)
        d->sensor_rng = 1;
    *out = d;
    return 0;
}

static void null_close(struct gc_dev *d)
{
    if (!d)
        return;
    pthread_mutex_destroy(&d->lock);
    free(d);
}

static const char *null_last_error(struct gc_dev *d)
{
    return d ? d->err : "";
}

static int null_compile(struct gc_dev *d, const char *src, const char *options, void **bin,
                        size_t *binlen, char **log)
{
    size_t n;

    /* Options have no effect on a simulated compiler; the kernel cache
     * still keys on them. */
    (void)options;
    *bin = NULL;
    *binlen = 0;
    *log = NULL;
    if (!src) {
        set_err(d, "null: no source to compile");
        return GC_EINVAL;
    }
    /* "#error" is how the tests (and GPUCHAR_FAULT=compile) ask for a
     * failed compilation. */
    if (strstr(src, "#error")) {
        *log = strdup("null: #error found");
        set_err(d, "null: #error found");
        return GC_ECOMPILE;
    }
    n = strlen(src);
    *bin = malloc(n + 1);
    if (!*bin) {
        set_err(d, "null: out of host memory compiling");
        return GC_ENOMEM;
    }
    memcpy(*bin, src, n + 1);
    *binlen = n;
    return 0;
}

static int null_load(struct gc_dev *d, const void *bin, size_t binlen, struct gc_prog **out)
{
    struct gc_prog *p = NULL;

    *out = NULL;
    /* The simulated compiler's binaries are source text, which never holds
     * a NUL byte: refusing one is how this loader, like a real one, rejects
     * bytes that its compiler did not produce. */
    if (binlen > 0 && memchr(bin, '\0', binlen)) {
        set_err(d, "null: not a program binary");
        return GC_EINVAL;
    }
    p = calloc(1, sizeof(*p));
    if (p)
        p->src = malloc(binlen + 1);
    if (!p || !p->src) {
        free(p);
        set_err(d, "null: out of host memory loading a program");
        return GC_ENOMEM;
    }
    memcpy(p->src, bin, binlen);
    p->src[binlen] = '\0';
    p->dev = d;
    *out = p;
    return 0;
}

static void null_unload(struct gc_prog *p)
{
    if (!p)
        return;
    while (p->kernels) {
        struct gc_kern *k = p->kernels;

        p->kernels = k->next;
        free(k);
    }
    free(p->src);
    free(p);
}

static int null_kernel(struct gc_prog *p, const char *name, struct gc_kern **out)
{
    struct gc_kern *k = calloc(1, sizeof(*k));

    *out = NULL;
    if (!k) {
        set_err(p->dev, "null: out of host memory");
        return GC_ENOMEM;
    }
    k->prog = p;
    snprintf(k->name, sizeof(k->name), "%s", name ? name : "");
    pthread_mutex_lock(&p->dev->lock);
    k->next = p->kernels;
    p->kernels = k;
    pthread_mutex_unlock(&p->dev->lock);
    *out = k;
    return 0;
}

static int null_kernel_attrs(struct gc_kern *k, int *regs, size_t *static_shared, int *max_threads)
{
    (void)k;
    *regs = 32;
    *static_shared = 0;
    *max_threads = 1024;
    return 0;
}

static int null_alloc(struct gc_dev *d, size_t bytes, struct gc_buf **out)
{
    struct gc_buf *b = NULL;
    int rc = 0;

    *out = NULL;
    pthread_mutex_lock(&d->lock);
    d->allocs++;
    if (d->cfg.fail_alloc_after > 0 && d->allocs > d->cfg.fail_alloc_after) {
        snprintf(d->err, sizeof(d->err),
                 "null: allocation %ld of %zu bytes refused (fail_alloc_after=%d)", d->allocs,
                 bytes, d->cfg.fail_alloc_after);
        rc = GC_EDEVMEM;
    } else if (bytes > dev_mem(d) - d->allocated) {
        snprintf(d->err, sizeof(d->err),
                 "null: out of device memory: %zu bytes requested, %zu of %zu in use", bytes,
                 d->allocated, dev_mem(d));
        rc = GC_EDEVMEM;
    } else {
        d->allocated += bytes;
    }
    pthread_mutex_unlock(&d->lock);
    if (rc)
        return rc;
    b = calloc(1, sizeof(*b));
    if (b)
        b->mem = malloc(bytes ? bytes : 1);
    if (!b || !b->mem) {
        free(b);
        pthread_mutex_lock(&d->lock);
        d->allocated -= bytes;
        snprintf(d->err, sizeof(d->err), "null: host memory for a %zu-byte buffer", bytes);
        pthread_mutex_unlock(&d->lock);
        return GC_EDEVMEM;
    }
    b->dev = d;
    b->size = bytes;
    *out = b;
    return 0;
}

static void null_free(struct gc_buf *b)
{
    if (!b || b->borrowed)
        return;
    pthread_mutex_lock(&b->dev->lock);
    b->dev->allocated -= b->size;
    pthread_mutex_unlock(&b->dev->lock);
    free(b->mem);
    free(b);
}

/* Checks that [off, off + n) lies inside b, without overflow. */
static int in_range(struct gc_buf *b, size_t off, size_t n, const char *what)
{
    if (off <= b->size && n <= b->size - off)
        return 0;
    set_err(b->dev, "null: %s of %zu bytes at offset %zu exceeds the %zu-byte buffer", what, n, off,
            b->size);
    return GC_EINVAL;
}

static int null_write(struct gc_buf *b, size_t off, const void *src, size_t n)
{
    int rc = in_range(b, off, n, "write");

    if (rc == 0 && n)
        memcpy(b->mem + off, src, n);
    return rc;
}

static int null_read(struct gc_buf *b, size_t off, void *dst, size_t n)
{
    int rc = in_range(b, off, n, "read");

    if (rc == 0 && n)
        memcpy(dst, b->mem + off, n);
    return rc;
}

static int null_copy(struct gc_buf *dst, size_t dst_off, struct gc_buf *src, size_t src_off,
                     size_t n)
{
    int rc = in_range(dst, dst_off, n, "copy destination");

    if (rc == 0)
        rc = in_range(src, src_off, n, "copy source");
    /* memmove: a copy within one buffer may overlap. */
    if (rc == 0 && n)
        memmove(dst->mem + dst_off, src->mem + src_off, n);
    return rc;
}

/* Device memory is host memory, so a mapping is the buffer itself. */
static int null_map(struct gc_buf *b, size_t off, size_t n, void **host)
{
    int rc = in_range(b, off, n, "map");

    *host = rc == 0 ? b->mem + off : NULL;
    return rc;
}

static int null_unmap(struct gc_buf *b, void *host)
{
    unsigned char *p = host;

    if (p && p >= b->mem && p <= b->mem + b->size)
        return 0;
    set_err(b->dev, "null: unmap of a pointer that was not mapped from this buffer");
    return GC_EINVAL;
}

static int null_launch(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                       double *elapsed_s)
{
    unsigned long long threads;
    double noise;

    *elapsed_s = 0;
    if (!k || !l || l->count < 1) {
        set_err(d, "null: launch without a kernel or with a count below 1");
        return GC_EINVAL;
    }
    for (int i = 0; i < 3; i++)
        if (l->grid[i] == 0 || l->block[i] == 0) {
            set_err(d, "null: launch of %s with a zero grid or block dimension", k->name);
            return GC_EINVAL;
        }
    threads = (unsigned long long)l->block[0] * l->block[1] * l->block[2];
    if (threads > 1024) {
        set_err(d, "null: block of %llu threads exceeds the limit of 1024", threads);
        return GC_ELAUNCH;
    }
    if (l->dyn_shared > (48u << 10)) {
        set_err(d, "null: %zu bytes of dynamic shared memory exceed the limit of %u", l->dyn_shared,
                48u << 10);
        return GC_ELAUNCH;
    }
    for (int i = 0; i < l->nargs; i++)
        if (l->args[i].type == GC_ARG_BUF && !l->args[i].v.buf) {
            set_err(d, "null: argument %d of %s is a NULL buffer", i, k->name);
            return GC_EINVAL;
        }
    pthread_mutex_lock(&d->lock);
    noise = d->cfg.noise_rel * (2 * uniform(&d->launch_rng) - 1);
    pthread_mutex_unlock(&d->lock);
    *elapsed_s = l->count * d->cfg.launch_s * (1 + noise);
    return 0;
}

static int null_sensors(struct gc_dev *d, struct gc_sensor_sample *out)
{
    struct timespec ts;
    bool throttled;

    pthread_mutex_lock(&d->lock);
    throttled = uniform(&d->sensor_rng) < d->cfg.throttle_prob;
    pthread_mutex_unlock(&d->lock);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    memset(out, 0, sizeof(*out));
    out->valid = GC_SENSOR_SM_CLOCK | GC_SENSOR_THROTTLE;
    out->t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    out->sm_clock_mhz = throttled ? NULL_THROTTLED_MHZ : NULL_CLOCK_MHZ;
    out->throttle = throttled ? NULL_THROTTLE_REASON : 0;
    out->throttled = throttled;
    if (d->cfg.power_limit_w > 0) {
        out->valid |= GC_SENSOR_POWER_LIMIT;
        out->power_limit_w = d->cfg.power_limit_w;
    }
    return 0;
}

static int null_power(struct gc_dev *d, unsigned what, struct gc_power_reading *out)
{
    struct timespec ts;
    double period = d->cfg.energy_period_s > 0 ? d->cfg.energy_period_s : 0.01;

    memset(out, 0, sizeof(*out));
    if (!(d->cfg.power_w > 0)) {
        set_err(d, "null: no simulated power meter (power_w is 0)");
        return GC_ENOTSUP;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - d->t_open;
    long update = (long)floor(t / period);
    double ex = d->cfg.power_excess_w > 0 && d->cfg.power_tau_s > 0 ? d->cfg.power_excess_w : 0;
    double tau = ex > 0 ? d->cfg.power_tau_s : 1;
    if (what & GC_POWER_ENERGY) {
        /* Whole millijoules, as NVML counts them: the integral of the power
         * up to the last update. */
        double tu = (double)update * period;
        double q = d->cfg.energy_quantum_j > 0 ? d->cfg.energy_quantum_j : 1e-3;
        double ej = d->cfg.power_w * tu + ex * tau * (1 - exp(-tu / tau));
        double mj = floor(floor(ej / q) * q * 1e3 + 1e-6);

        if (d->cfg.energy_backwards_at > 0 && update == d->cfg.energy_backwards_at)
            mj -= 1000;
        if (d->cfg.energy_jump_j > 0 && update >= d->cfg.energy_jump_at)
            mj += floor(d->cfg.energy_jump_j * 1e3);
        out->energy_j = mj * 1e-3;
        out->valid |= GC_POWER_ENERGY;
    }
    if (what & GC_POWER_INSTANT) {
        out->power_w = d->cfg.power_w + ex * exp(-t / tau);
        out->valid |= GC_POWER_INSTANT;
    }
    return 0;
}

static void null_describe(struct gc_dev *d, char *buf, size_t len)
{
    snprintf(buf, len, "simulated=1; launch_s=%g; noise_rel=%g; throttle_prob=%g; seed=0x%llx",
             d->cfg.launch_s, d->cfg.noise_rel, d->cfg.throttle_prob, d->cfg.seed);
}

/* ---- Runtime overheads: simulated host memory, transfers and launches ---- */

static double mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One noise factor 1 +- noise_rel from the launch stream. */
static double noise_factor(struct gc_dev *d)
{
    double f;

    pthread_mutex_lock(&d->lock);
    f = 1 + d->cfg.noise_rel * (2 * uniform(&d->launch_rng) - 1);
    pthread_mutex_unlock(&d->lock);
    return f;
}

static int null_host_alloc(struct gc_dev *d, size_t bytes, enum gc_host_kind kind,
                           struct gc_hostmem **out)
{
    struct null_hostmem *m;

    *out = NULL;
    if (bytes == 0 || kind > GC_HOST_MAPPED) {
        set_err(d, "null: host allocation of %zu bytes of kind %d", bytes, (int)kind);
        return GC_EINVAL;
    }
    if (kind != GC_HOST_PAGEABLE && d->cfg.host_lock_limit > 0 && bytes > d->cfg.host_lock_limit) {
        set_err(d, "null: %zu bytes of page-locked host memory refused (locked-memory limit %zu)",
                bytes, d->cfg.host_lock_limit);
        return GC_ENOMEM;
    }
    m = calloc(1, sizeof(*m));
    if (m)
        m->h.ptr = malloc(bytes);
    if (!m || !m->h.ptr) {
        free(m);
        set_err(d, "null: out of host memory for %zu bytes", bytes);
        return GC_ENOMEM;
    }
    m->h.bytes = bytes;
    m->h.kind = kind;
    m->dev = d;
    if (kind == GC_HOST_MAPPED) {
        m->view.dev = d;
        m->view.size = bytes;
        m->view.mem = m->h.ptr;
        m->view.borrowed = true;
        m->h.view = &m->view;
    }
    pthread_mutex_lock(&d->lock);
    m->next = d->hostmems;
    d->hostmems = m;
    pthread_mutex_unlock(&d->lock);
    *out = &m->h;
    return 0;
}

static void null_host_free(struct gc_hostmem *h)
{
    struct null_hostmem *m = (struct null_hostmem *)h;

    if (!m)
        return;
    pthread_mutex_lock(&m->dev->lock);
    for (struct null_hostmem **pp = &m->dev->hostmems; *pp; pp = &(*pp)->next)
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    pthread_mutex_unlock(&m->dev->lock);
    free(m->h.ptr);
    free(m);
}

/* Whether host memory at p is page-locked (pinned, write-combined, mapped). */
static bool host_locked(struct gc_dev *d, const void *p)
{
    const unsigned char *c = p;
    bool locked = false;

    pthread_mutex_lock(&d->lock);
    for (struct null_hostmem *m = d->hostmems; m && !locked; m = m->next) {
        const unsigned char *lo = m->h.ptr;
        locked = m->h.kind != GC_HOST_PAGEABLE && c >= lo && c < lo + m->h.bytes;
    }
    pthread_mutex_unlock(&d->lock);
    return locked;
}

static int null_transfer(struct gc_dev *d, const struct gc_xfer *x, double *elapsed_s)
{
    double lat, bw;
    int rc = 0;

    *elapsed_s = 0;
    if (!x || x->count < 1 || !x->buf) {
        set_err(d, "null: invalid transfer");
        return GC_EINVAL;
    }
    for (int i = 0; i < x->count && rc == 0; i++) {
        switch (x->dir) {
        case GC_XFER_H2D:
            rc = null_write(x->buf, x->buf_off, x->host, x->bytes);
            break;
        case GC_XFER_D2H:
            rc = null_read(x->buf, x->buf_off, x->host, x->bytes);
            break;
        case GC_XFER_D2D:
            rc =
                x->buf2 ? null_copy(x->buf, x->buf_off, x->buf2, x->buf2_off, x->bytes) : GC_EINVAL;
            break;
        case GC_XFER_BIDIR:
            rc =
                x->buf2 && x->host2 ? null_write(x->buf, x->buf_off, x->host, x->bytes) : GC_EINVAL;
            if (rc == 0)
                rc = null_read(x->buf2, x->buf2_off, x->host2, x->bytes);
            break;
        default:
            rc = GC_EINVAL;
        }
    }
    if (rc) {
        if (rc == GC_EINVAL && !d->err[0])
            set_err(d, "null: invalid transfer");
        return rc;
    }
    if (x->dir == GC_XFER_D2D) {
        lat = GC_NULL_XFER_LATENCY_S;
        bw = GC_NULL_D2D_BW;
    } else {
        bool locked = host_locked(d, x->host);
        lat = GC_NULL_XFER_LATENCY_S;
        bw = locked ? GC_NULL_PINNED_BW : GC_NULL_PAGEABLE_BW;
        if (x->method == GC_XFER_MAP)
            lat *= 2;
        /* Both directions share the link: each gets a part more than half. */
        if (x->dir == GC_XFER_BIDIR)
            bw *= 0.75;
    }
    *elapsed_s = x->count * (lat + (double)x->bytes / bw) * noise_factor(d);
    return 0;
}

static int null_launch_timed(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                             unsigned flags, struct gc_launch_times *out)
{
    double el = 0;
    int rc;

    out->t_begin = mono_now();
    rc = null_launch(d, k, l, &el);
    out->t_enqueued = mono_now();
    out->t_done = (flags & GC_LT_NOWAIT) ? NAN : out->t_enqueued;
    out->device_s = (flags & GC_LT_EVENTS) && !(flags & GC_LT_NOWAIT) ? el : NAN;
    /* The simulated queue takes 1 us to submit and 2 us to start. */
    out->queued_to_submit_s = 1e-6 * noise_factor(d);
    out->submit_to_start_s = 2e-6 * noise_factor(d);
    out->start_to_end_s = el / l->count;
    return rc;
}

static int null_sync(struct gc_dev *d)
{
    (void)d;
    return 0;
}

static int null_graph_create(struct gc_dev *d, struct gc_kern *k, const struct gc_launch *l,
                             struct gc_graph **out)
{
    *out = NULL;
    if (!k || !l || l->count < 1) {
        set_err(d, "null: graph without a kernel or with a count below 1");
        return GC_EINVAL;
    }
    *out = calloc(1, sizeof(**out));
    if (!*out) {
        set_err(d, "null: out of host memory");
        return GC_ENOMEM;
    }
    (*out)->dev = d;
    (*out)->count = l->count;
    return 0;
}

static int null_graph_launch(struct gc_graph *g, unsigned flags, struct gc_launch_times *out)
{
    out->t_begin = mono_now();
    out->t_enqueued = mono_now();
    out->t_done = (flags & GC_LT_NOWAIT) ? NAN : out->t_enqueued;
    /* A graph's launches cost less than single ones: 80% of launch_s each. */
    out->device_s = (flags & GC_LT_EVENTS) && !(flags & GC_LT_NOWAIT)
                        ? 0.8 * g->count * g->dev->cfg.launch_s * noise_factor(g->dev)
                        : NAN;
    out->queued_to_submit_s = out->submit_to_start_s = out->start_to_end_s = NAN;
    return 0;
}

static void null_graph_destroy(struct gc_graph *g)
{
    free(g);
}

static int null_link_info(struct gc_dev *d, struct gc_link_info *out)
{
    (void)d;
    memset(out, 0, sizeof(*out));
    snprintf(out->kind, sizeof(out->kind), "PCIe");
    snprintf(out->source, sizeof(out->source), "simulated");
    out->gen_cur = out->gen_max = GC_NULL_PCIE_GEN;
    out->width_cur = out->width_max = GC_NULL_PCIE_WIDTH;
    return 0;
}

static int null_mem_info(struct gc_dev *d, size_t *free_bytes, size_t *total_bytes)
{
    pthread_mutex_lock(&d->lock);
    *free_bytes = dev_mem(d) - d->allocated;
    pthread_mutex_unlock(&d->lock);
    *total_bytes = dev_mem(d);
    return 0;
}

/* ---- Simulated peer links ------------------------------------------------ */

static bool peer_unreachable(const struct gc_dev *a, const struct gc_dev *b)
{
    const int *u = a->cfg.unreachable;

    return u[0] != u[1] &&
           ((a->index == u[0] && b->index == u[1]) || (a->index == u[1] && b->index == u[0]));
}

static double peer_bw(int a, int b)
{
    return GC_NULL_PEER_BW * (double)(1 + (a + b) % 3);
}

static int null_peer_info(struct gc_dev *a, struct gc_dev *b, struct gc_peer_info *out)
{
    memset(out, 0, sizeof(*out));
    out->link_rate = NAN;
    snprintf(out->source, sizeof(out->source), "null");
    snprintf(out->kind, sizeof(out->kind), "simulated");
    out->limit = GC_NULL_PEER_LIMIT * peer_bw(a->index, b->index);
    if (a == b || peer_unreachable(a, b)) {
        snprintf(out->why, sizeof(out->why),
                 "peer access not supported between null:%d and null:%d "
                 "(the simulated unreachable pair)",
                 a->index, b->index);
        return 0;
    }
    out->access = out->atomics = true;
    return 0;
}

static int null_peer_enable(struct gc_dev *a, struct gc_dev *b)
{
    if (a != b && !peer_unreachable(a, b))
        return 0;
    set_err(a,
            "null: peer access from null:%d to null:%d refused (the simulated unreachable "
            "pair)",
            a->index, b->index);
    return GC_ENOTSUP;
}

/* Copies of c[0..n) that share copy i's destination or source device. */
static int peer_sharing(const struct gc_peer_copy *c, int n, int i)
{
    int dst = 0, src = 0;

    for (int j = 0; j < n; j++) {
        dst += c[j].dst->dev == c[i].dst->dev;
        src += c[j].src->dev == c[i].src->dev;
    }
    return dst > src ? dst : src;
}

static int null_peer_copies(const struct gc_peer_copy *c, int n, int count,
                            struct gc_peer_times *out)
{
    memset(out, 0, sizeof(*out));
    if (!c || n < 1 || n > GC_PEER_MAX_COPIES || count < 1)
        return GC_EINVAL;
    for (int i = 0; i < n; i++) {
        struct gc_dev *issuer = c[i].by_dst ? c[i].dst->dev : c[i].src->dev;
        struct gc_dev *other = c[i].by_dst ? c[i].src->dev : c[i].dst->dev;
        int rc = 0;

        if (issuer != other && peer_unreachable(issuer, other)) {
            set_err(c[0].by_dst ? c[0].dst->dev : c[0].src->dev,
                    "null: copy between null:%d and null:%d: peer access not enabled",
                    issuer->index, other->index);
            return GC_ENOTSUP;
        }
        for (int k = 0; k < count && rc == 0; k++)
            rc = null_copy(c[i].dst, c[i].dst_off, c[i].src, c[i].src_off, c[i].bytes);
        if (rc)
            return rc;
        if (issuer->cfg.peer_corrupt && c[i].bytes > 0)
            c[i].dst->mem[c[i].dst_off + c[i].bytes - 1] ^= 0xff;
        double bw = peer_bw(c[i].src->dev->index, c[i].dst->dev->index) / peer_sharing(c, n, i);
        double lat =
            GC_NULL_PEER_LATENCY_S * (1 + abs(c[i].src->dev->index - c[i].dst->dev->index));
        out->each[i] = count * (lat + (double)c[i].bytes / bw) * noise_factor(issuer);
        out->total_s = out->each[i] > out->total_s ? out->each[i] : out->total_s;
    }
    out->host_s = out->total_s + GC_NULL_XFER_LATENCY_S;
    return 0;
}

const struct gc_backend_ops gc__null_ops = {
    .name = "null",
    .dialect = GC_DIALECT_OPENCL,
    .simulated = true,
    .init = null_init,
    .fini = NULL,
    .device_count = null_device_count,
    .device_info = null_device_info,
    .open = null_open,
    .close = null_close,
    .last_error = null_last_error,
    .compile = null_compile,
    .compile_threads = 2,
    .load = null_load,
    .unload = null_unload,
    .kernel = null_kernel,
    .kernel_attrs = null_kernel_attrs,
    .max_active_blocks = NULL,
    .alloc = null_alloc,
    .free = null_free,
    .write = null_write,
    .read = null_read,
    .copy = null_copy,
    .map = null_map,
    .unmap = null_unmap,
    .launch = null_launch,
    .sensors = null_sensors,
    .describe = null_describe,
    .power = null_power,
    .host_alloc = null_host_alloc,
    .host_free = null_host_free,
    .transfer = null_transfer,
    .launch_timed = null_launch_timed,
    .sync = null_sync,
    .graph_create = null_graph_create,
    .graph_launch = null_graph_launch,
    .graph_destroy = null_graph_destroy,
    .link_info = null_link_info,
    .mem_info = null_mem_info,
    .peer_info = null_peer_info,
    .peer_enable = null_peer_enable,
    .peer_copies = null_peer_copies,
};
