/* The compiled-kernel cache cannot hurt a run: entries are verified before a
 * loader sees them (every truncation, every changed byte, foreign bytes,
 * another format version, an entry swapped between keys), a bad entry is
 * compiled again and rewritten, a binary the loader refuses is compiled
 * again, and concurrent writers (threads and processes) never leave a
 * reader a broken entry. The null backend compiles source text to "binaries"
 * that hold no NUL byte, and its loader refuses any that does. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/null/null.h"
#include "core/session.h"
#include "core/kcache.h"
#include "core/kentry.h"

#define OPTS "-O3"

static const char *const sources[] = {
    "__kernel void a(__global int *p) { p[0] = 1; }",
    "__kernel void b(__global long *p, int n) { for (int i = 0; i < n; i++) p[i] = i; }",
    "__kernel void c(__global float *p) { p[get_global_id(0)] *= 2.0f; }",
    "__kernel void d(__global uint *p) { p[1] = p[0] ^ 0x9e3779b9u; }",
};
#define NSRC ((int)(sizeof(sources) / sizeof(sources[0])))

struct fixture {
    char dir[256];
    struct gc_device *dev;
    struct gc_session s;
};

static struct fixture fx;

/* ---- Helpers ---------------------------------------------------------- */

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];

    if (!d)
        return;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* Files in dir: total count, and how many end in ".bin". */
static int count_files(const char *dir, int *bins)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    *bins = 0;
    assert_non_null(d);
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);

        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        *bins += len > 4 && strcmp(e->d_name + len - 4, ".bin") == 0;
    }
    closedir(d);
    return n;
}

static struct gc_device *open_null_device(void)
{
    struct gc_null_config cfg = {.launch_s = 1e-5, .seed = 7};
    struct gc_device *dev = NULL;
    char why[128], err[256];

    gc__null_configure(&cfg);
    assert_int_equal(gc__null_ops.init(why, sizeof(why)), 0);
    assert_int_equal(gc__device_open(&gc__null_ops, 0, &dev, err, sizeof(err)), 0);
    return dev;
}

static int setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof(fx));
    snprintf(fx.dir, sizeof(fx.dir), "%s/gpuchar-kcache.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(fx.dir));
    fx.dev = open_null_device();
    fx.s.dev = fx.dev;
    assert_int_equal(gc__kcache_open(fx.dir, false, &fx.s.kcache), 0);
    assert_string_equal(gc__kcache_dir(fx.s.kcache), fx.dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gc__kcache_close(fx.s.kcache);
    gc__device_close(fx.dev);
    gc__null_configure(NULL);
    remove_dir(fx.dir);
    return 0;
}

static void key_of(const struct gc_device *dev, const char *src, char key[33])
{
    gc__kcache_key(&dev->info, dev->ops->name, src, OPTS, key);
}

static void path_of(const char *src, char *path, size_t len)
{
    char key[33];

    key_of(fx.dev, src, key);
    snprintf(path, len, "%s/%s.bin", fx.dir, key);
}

/* Builds the first n sources through the cache; every program must load.
 * cached[i] says which came from the cache. */
static void build_ok(struct gc_session *s, int n, bool *cached)
{
    struct gc_kreq reqs[NSRC];

    memset(reqs, 0, sizeof(reqs));
    for (int i = 0; i < n; i++) {
        reqs[i].label = "k";
        reqs[i].src = strdup(sources[i]);
        reqs[i].options = OPTS;
        assert_non_null(reqs[i].src);
    }
    assert_int_equal(gc__kcache_build(s, reqs, n), 0);
    for (int i = 0; i < n; i++) {
        assert_int_equal(reqs[i].err, 0);
        assert_non_null(reqs[i].prog);
        cached[i] = reqs[i].cached;
    }
    gc__kreq_release(s, reqs, n);
}

/* The entry of source i is a valid entry holding exactly that source (the
 * null backend's binary). */
static void assert_entry_holds(int i)
{
    char path[512], key[33], why[256];
    void *bin = NULL;
    size_t len = 0;

    key_of(fx.dev, sources[i], key);
    path_of(sources[i], path, sizeof(path));
    assert_int_equal(gc__kentry_read(path, key, &bin, &len, why, sizeof(why)), 0);
    assert_int_equal(len, strlen(sources[i]));
    assert_memory_equal(bin, sources[i], len);
    free(bin);
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");

    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static unsigned char *read_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *p;
    long len;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    len = ftell(f);
    assert_true(len >= 0);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    p = malloc((size_t)len + 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return p;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* gc__kentry_read on path for key must refuse: GC_EINVAL, no buffer. */
static void assert_refused(const char *path, const char *key, const char *why_part)
{
    char why[256] = "";
    void *bin = (void *)1;
    size_t len = 1;

    assert_int_equal(gc__kentry_read(path, key, &bin, &len, why, sizeof(why)), GC_EINVAL);
    assert_null(bin);
    assert_int_equal(len, 0);
    assert_true(why[0] != '\0');
    if (why_part && !strstr(why, why_part))
        fail_msg("reason '%s' does not mention '%s'", why, why_part);
}

/* ---- The entry format ------------------------------------------------- */

static void test_entry_round_trip(void **state)
{
    const char key[] = "0123456789abcdef0123456789abcdef";
    const char other[] = "fedcba9876543210fedcba9876543210";
    const char payload[] = "binary\0with a NUL and \xff bytes";
    char path[512], why[256];
    void *bin = NULL;
    size_t len = 0, n;
    unsigned char *raw;

    (void)state;
    snprintf(path, sizeof(path), "%s/%s.bin", fx.dir, key);
    /* A missing entry is a miss, not an invalid entry. */
    assert_int_equal(gc__kentry_read(path, key, &bin, &len, why, sizeof(why)), GC_EIO);
    assert_null(bin);

    assert_int_equal(gc__kentry_write(path, key, payload, sizeof(payload)), 0);
    assert_int_equal(gc__kentry_read(path, key, &bin, &len, why, sizeof(why)), 0);
    assert_int_equal(len, sizeof(payload));
    assert_memory_equal(bin, payload, len);
    free(bin);

    /* The documented layout. */
    raw = read_bytes(path, &n);
    assert_int_equal(n, GC_KENTRY_HEADER + sizeof(payload));
    assert_memory_equal(raw, "GCKCACHE", 8);
    assert_int_equal(raw[8], GC_KENTRY_VERSION);
    assert_int_equal(raw[12], GC_KENTRY_HEADER);
    assert_memory_equal(raw + 16, key, 32);
    assert_int_equal(raw[48], sizeof(payload));
    free(raw);

    /* The same file read as another key's entry: the swap case. */
    assert_refused(path, other, "written for key 0123456789abcdef0123456789abcdef");
    /* Nothing else may be written or read as an entry. */
    assert_int_equal(gc__kentry_write(path, key, payload, 0), GC_EINVAL);
    assert_int_equal(gc__kentry_write(path, "not a key", payload, 4), GC_EINVAL);
    assert_int_equal(gc__kentry_read(path, "ABC", &bin, &len, why, sizeof(why)), GC_EINVAL);
    /* No temporary file is left behind. */
    int bins;
    assert_int_equal(count_files(fx.dir, &bins), 1);
    assert_int_equal(bins, 1);
}

/* Every length short of the whole file is refused before any byte reaches
 * a caller (ASan would see a read past the buffer). */
static void test_entry_every_truncation(void **state)
{
    const char key[] = "00000000000000000000000000000001";
    unsigned char payload[300];
    char path[512], cut[512];
    unsigned char *raw;
    size_t n;
    uint64_t rs = 99;

    (void)state;
    for (size_t i = 0; i < sizeof(payload); i++)
        payload[i] = (unsigned char)xorshift(&rs);
    snprintf(path, sizeof(path), "%s/%s.bin", fx.dir, key);
    snprintf(cut, sizeof(cut), "%s/cut.bin", fx.dir);
    assert_int_equal(gc__kentry_write(path, key, payload, sizeof(payload)), 0);
    raw = read_bytes(path, &n);
    for (size_t len = 0; len < n; len++) {
        write_bytes(cut, raw, len);
        assert_refused(cut, key, len < GC_KENTRY_HEADER ? "truncated" : "announces");
    }
    /* Bytes appended after the payload are refused too. */
    unsigned char *longer = malloc(n + 1);
    assert_non_null(longer);
    memcpy(longer, raw, n);
    longer[n] = 0;
    write_bytes(cut, longer, n + 1);
    assert_refused(cut, key, "announces");
    free(longer);
    free(raw);
}

/* Every single changed byte, header or payload, is detected. */
static void test_entry_every_byte_changed(void **state)
{
    const char key[] = "00000000000000000000000000000002";
    const char payload[] = "a payload of some length, long enough to matter";
    char path[512], bad[512];
    unsigned char *raw;
    size_t n;

    (void)state;
    snprintf(path, sizeof(path), "%s/%s.bin", fx.dir, key);
    snprintf(bad, sizeof(bad), "%s/bad.bin", fx.dir);
    assert_int_equal(gc__kentry_write(path, key, payload, sizeof(payload)), 0);
    raw = read_bytes(path, &n);
    for (size_t i = 0; i < n; i++) {
        for (int bit = 0; bit < 8; bit += 7) {
            raw[i] ^= (unsigned char)(1u << bit);
            write_bytes(bad, raw, n);
            assert_refused(bad, key, NULL);
            raw[i] ^= (unsigned char)(1u << bit);
        }
    }
    free(raw);
}

static void test_entry_random_bytes(void **state)
{
    const char key[] = "00000000000000000000000000000003";
    static const size_t sizes[] = {1, 7, 63, 64, 65, 200, 4096, 100000};
    char path[512];
    uint64_t rs = 12345;

    (void)state;
    snprintf(path, sizeof(path), "%s/%s.bin", fx.dir, key);
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        unsigned char *p = malloc(sizes[k]);

        assert_non_null(p);
        for (size_t i = 0; i < sizes[k]; i++)
            p[i] = (unsigned char)xorshift(&rs);
        write_bytes(path, p, sizes[k]);
        assert_refused(path, key, NULL);
        /* Random bytes behind a genuine magic and version are refused too. */
        if (sizes[k] >= GC_KENTRY_HEADER) {
            memcpy(p, "GCKCACHE\x01\0\0\0\x40\0\0\0", 16);
            write_bytes(path, p, sizes[k]);
            assert_refused(path, key, NULL);
        }
        free(p);
    }
    /* A directory or an empty file under the entry's name. */
    write_bytes(path, "", 0);
    assert_refused(path, key, "truncated");
    unlink(path);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_refused(path, key, "not a regular file");
    rmdir(path);
}

static void test_entry_wrong_version(void **state)
{
    const char key[] = "00000000000000000000000000000004";
    const char payload[] = "payload";
    char path[512];
    unsigned char *raw;
    size_t n;

    (void)state;
    snprintf(path, sizeof(path), "%s/%s.bin", fx.dir, key);
    assert_int_equal(gc__kentry_write(path, key, payload, sizeof(payload)), 0);
    raw = read_bytes(path, &n);
    for (unsigned v = 0; v < 4; v++) {
        if (v == GC_KENTRY_VERSION)
            continue;
        raw[8] = (unsigned char)v;
        write_bytes(path, raw, n);
        assert_refused(path, key, "version");
    }
    /* A file of the old format (the bare binary) is not an entry either. */
    write_bytes(path, payload, sizeof(payload));
    assert_refused(path, key, NULL);
    free(raw);
}

/* ---- The cache in a build --------------------------------------------- */

static void test_build_compiles_then_reuses(void **state)
{
    bool cached[NSRC];
    int bins;

    (void)state;
    build_ok(&fx.s, NSRC, cached);
    for (int i = 0; i < NSRC; i++)
        assert_false(cached[i]);
    assert_int_equal(fx.s.kernels_compiled, NSRC);
    build_ok(&fx.s, NSRC, cached);
    for (int i = 0; i < NSRC; i++) {
        assert_true(cached[i]);
        assert_entry_holds(i);
    }
    assert_int_equal(fx.s.kernels_cached, NSRC);
    assert_int_equal(gc__kcache_rejected(fx.s.kcache, NULL, 0), 0);
    assert_int_equal(count_files(fx.dir, &bins), NSRC);
    assert_int_equal(bins, NSRC);
}

/* Builds once more and checks that source i was compiled again (not taken
 * from the cache), that the cache counted one more rejected entry whose
 * reason mentions why_part, and that the rewritten entry is valid and is
 * used by the build after. */
static void assert_recovers(int i, int rejected_before, const char *why_part)
{
    bool cached[NSRC];
    char last[2048];

    build_ok(&fx.s, NSRC, cached);
    assert_false(cached[i]);
    assert_int_equal(gc__kcache_rejected(fx.s.kcache, last, sizeof(last)), rejected_before + 1);
    if (why_part && !strstr(last, why_part))
        fail_msg("reason '%s' does not mention '%s'", last, why_part);
    assert_entry_holds(i);
    build_ok(&fx.s, NSRC, cached);
    for (int k = 0; k < NSRC; k++)
        assert_true(cached[k]);
}

static void test_build_recovers_truncated(void **state)
{
    bool cached[NSRC];
    char path[512];
    static const size_t cuts[] = {0, 1, 63, 64, 65};

    (void)state;
    build_ok(&fx.s, NSRC, cached);
    path_of(sources[1], path, sizeof(path));
    for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
        assert_int_equal(truncate(path, (off_t)cuts[k]), 0);
        assert_recovers(1, (int)k, cuts[k] < GC_KENTRY_HEADER ? "truncated" : "announces");
    }
    /* Half the payload: a cut after the header. */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, GC_KENTRY_HEADER + (st.st_size - GC_KENTRY_HEADER) / 2), 0);
    assert_recovers(1, (int)(sizeof(cuts) / sizeof(cuts[0])), "announces");
}

static void test_build_recovers_swapped(void **state)
{
    bool cached[NSRC];
    char pa[512], pb[512], tmp[520];

    (void)state;
    build_ok(&fx.s, NSRC, cached);
    path_of(sources[0], pa, sizeof(pa));
    path_of(sources[2], pb, sizeof(pb));
    snprintf(tmp, sizeof(tmp), "%s.swap", pa);
    assert_int_equal(rename(pa, tmp), 0);
    assert_int_equal(rename(pb, pa), 0);
    assert_int_equal(rename(tmp, pb), 0);
    build_ok(&fx.s, NSRC, cached);
    assert_false(cached[0]);
    assert_false(cached[2]);
    assert_true(cached[1]);
    assert_true(cached[3]);
    assert_int_equal(gc__kcache_rejected(fx.s.kcache, NULL, 0), 2);
    /* Each key holds its own kernel again. */
    assert_entry_holds(0);
    assert_entry_holds(2);
    build_ok(&fx.s, NSRC, cached);
    for (int k = 0; k < NSRC; k++)
        assert_true(cached[k]);
}

static void test_build_recovers_random_and_version(void **state)
{
    bool cached[NSRC];
    char path[512];
    unsigned char junk[777], *raw;
    uint64_t rs = 4242;
    size_t n;

    (void)state;
    build_ok(&fx.s, NSRC, cached);
    path_of(sources[3], path, sizeof(path));
    raw = read_bytes(path, &n);
    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = (unsigned char)xorshift(&rs);
    write_bytes(path, junk, sizeof(junk));
    assert_recovers(3, 0, "magic");
    raw[8] = GC_KENTRY_VERSION + 1;
    write_bytes(path, raw, n);
    assert_recovers(3, 1, "version");
    /* One flipped payload byte. */
    raw[8] = GC_KENTRY_VERSION;
    raw[n - 1] ^= 0x20;
    write_bytes(path, raw, n);
    assert_recovers(3, 2, "checksum");
    free(raw);
}

/* An intact entry (right key, length and checksum) whose binary the loader
 * refuses is compiled again, not a failure. */
static void test_build_recovers_loader_refusal(void **state)
{
    bool cached[NSRC];
    char path[512], key[33];
    static const char not_a_program[] = "looks fine\0but is not a program";

    (void)state;
    build_ok(&fx.s, NSRC, cached);
    path_of(sources[2], path, sizeof(path));
    key_of(fx.dev, sources[2], key);
    assert_int_equal(gc__kentry_write(path, key, not_a_program, sizeof(not_a_program)), 0);
    assert_recovers(2, 0, "loader refused");
}

/* A disabled cache neither reads nor writes. */
static void test_disabled_cache(void **state)
{
    struct gc_session s = fx.s;
    bool cached[NSRC];
    int bins;

    (void)state;
    assert_int_equal(gc__kcache_open(fx.dir, true, &s.kcache), 0);
    assert_string_equal(gc__kcache_dir(s.kcache), "");
    build_ok(&s, NSRC, cached);
    build_ok(&s, NSRC, cached);
    for (int i = 0; i < NSRC; i++)
        assert_false(cached[i]);
    assert_int_equal(count_files(fx.dir, &bins), 0);
    gc__kcache_close(s.kcache);
}

/* ---- Concurrency ------------------------------------------------------ */

#define NWRITERS 4
#define NKEYS 6
#define ROUNDS 150

static void writer_key(int k, char key[33])
{
    snprintf(key, 33, "%032x", 0xabc000 + k);
}

/* Payload of writer w, round r, key k: lengths differ between writers and
 * rounds, so that a mix of two writes could not pass the length check, and
 * the text names its key, so that the reader can check it got the right
 * entry. */
static size_t writer_payload(int w, int r, int k, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "key %d writer %d round %d;", k, w, r);
    size_t want = 100 + (size_t)((w * 977 + r * 131 + k * 17) % 3000);

    for (; n < want && n + 1 < cap; n++)
        buf[n] = (char)('a' + (n + (size_t)w) % 26);
    buf[n] = '\0';
    return n;
}

static void test_concurrent_writers(void **state)
{
    pid_t pids[NWRITERS];
    int status[NWRITERS];
    bool reaped[NWRITERS] = {false};
    char path[NKEYS][512], key[NKEYS][33], want[32];
    int seen = 0, bins;

    (void)state;
    for (int k = 0; k < NKEYS; k++) {
        writer_key(k, key[k]);
        snprintf(path[k], sizeof(path[k]), "%s/%s.bin", fx.dir, key[k]);
    }
    for (int w = 0; w < NWRITERS; w++) {
        pids[w] = fork();
        assert_true(pids[w] >= 0);
        if (pids[w] > 0)
            continue;
        /* The child writes, then leaves without running any test code. */
        char buf[4096];
        int bad = 0;

        for (int r = 0; r < ROUNDS; r++)
            for (int k = 0; k < NKEYS; k++) {
                size_t n = writer_payload(w, r, k, buf, sizeof(buf));

                bad |= gc__kentry_write(path[k], key[k], buf, n) != 0;
            }
        _exit(bad);
    }
    /* Meanwhile every read sees either no entry or a whole, right one. */
    for (;;) {
        int alive = 0;

        for (int w = 0; w < NWRITERS; w++) {
            if (!reaped[w] && waitpid(pids[w], &status[w], WNOHANG) == pids[w])
                reaped[w] = true;
            alive += !reaped[w];
        }
        for (int k = 0; k < NKEYS; k++) {
            char why[256];
            void *bin = NULL;
            size_t len = 0;
            int rc = gc__kentry_read(path[k], key[k], &bin, &len, why, sizeof(why));

            if (rc == GC_EIO)
                continue;
            if (rc != 0)
                fail_msg("a reader saw an invalid entry: %s", why);
            snprintf(want, sizeof(want), "key %d writer ", k);
            assert_true(len > strlen(want));
            assert_memory_equal(bin, want, strlen(want));
            free(bin);
            seen++;
        }
        if (!alive)
            break;
    }
    for (int w = 0; w < NWRITERS; w++) {
        assert_true(WIFEXITED(status[w]));
        assert_int_equal(WEXITSTATUS(status[w]), 0);
    }
    assert_true(seen > 0);
    for (int k = 0; k < NKEYS; k++) {
        void *bin = NULL;
        size_t len = 0;
        char why[256];

        assert_int_equal(gc__kentry_read(path[k], key[k], &bin, &len, why, sizeof(why)), 0);
        free(bin);
    }
    /* Every temporary file was renamed into place. */
    assert_int_equal(count_files(fx.dir, &bins), NKEYS);
    assert_int_equal(bins, NKEYS);
}

/* Two processes (and their compile threads) fill one cache directory with
 * the same kernels at once, as two gpuchar runs would. */
static void test_concurrent_builds(void **state)
{
    pid_t pids[3];
    bool cached[NSRC];
    int bins;

    (void)state;
    for (int p = 0; p < 3; p++) {
        pids[p] = fork();
        assert_true(pids[p] >= 0);
        if (pids[p] > 0)
            continue;
        struct gc_session s;
        struct gc_device *dev = open_null_device();
        int bad = 0;

        memset(&s, 0, sizeof(s));
        s.dev = dev;
        if (gc__kcache_open(fx.dir, false, &s.kcache) != 0)
            _exit(2);
        for (int r = 0; r < 40 && !bad; r++) {
            struct gc_kreq reqs[NSRC];

            memset(reqs, 0, sizeof(reqs));
            for (int i = 0; i < NSRC; i++) {
                reqs[i].label = "k";
                reqs[i].src = strdup(sources[i]);
                reqs[i].options = OPTS;
            }
            bad |= gc__kcache_build(&s, reqs, NSRC) != 0;
            for (int i = 0; i < NSRC; i++)
                bad |= reqs[i].prog == NULL;
            gc__kreq_release(&s, reqs, NSRC);
            /* Forget the entries now and then, so writes keep racing. */
            if (r % 4 == p)
                for (int i = 0; i < NSRC; i++) {
                    char key[33], path[512];

                    key_of(dev, sources[i], key);
                    snprintf(path, sizeof(path), "%s/%s.bin", fx.dir, key);
                    unlink(path);
                }
        }
        bad |= gc__kcache_rejected(s.kcache, NULL, 0) != 0;
        _exit(bad);
    }
    for (int p = 0; p < 3; p++) {
        int st = 0;

        assert_int_equal(waitpid(pids[p], &st, 0), pids[p]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
    build_ok(&fx.s, NSRC, cached);
    build_ok(&fx.s, NSRC, cached);
    for (int i = 0; i < NSRC; i++) {
        assert_true(cached[i]);
        assert_entry_holds(i);
    }
    assert_int_equal(gc__kcache_rejected(fx.s.kcache, NULL, 0), 0);
    assert_int_equal(count_files(fx.dir, &bins), NSRC);
    assert_int_equal(bins, NSRC);
}

/* One device's build of every source in its own session, as each device
 * of a node run does. */
struct device_build {
    struct gc_session s;
    int rc;
};

static void *build_on_device(void *arg)
{
    struct device_build *b = arg;
    struct gc_kreq reqs[NSRC];

    memset(reqs, 0, sizeof(reqs));
    for (int i = 0; i < NSRC; i++) {
        reqs[i].label = "k";
        reqs[i].src = strdup(sources[i]);
        reqs[i].options = OPTS;
    }
    b->rc = gc__kcache_build(&b->s, reqs, NSRC);
    for (int i = 0; i < NSRC && b->rc == 0; i++)
        if (!reqs[i].prog)
            b->rc = GC_EBACKEND;
    gc__kreq_release(&b->s, reqs, NSRC);
    return NULL;
}

/* Two devices of one architecture in one process build the same kernels at
 * once into an empty cache: each kernel is compiled once, by one of them,
 * and the other takes it from the cache, whatever the interleaving. */
static void test_two_devices_compile_once(void **state)
{
    struct device_build b[2];
    pthread_t t[2];
    bool cached[NSRC];

    (void)state;
    for (int d = 0; d < 2; d++) {
        memset(&b[d], 0, sizeof(b[d]));
        b[d].s.dev = open_null_device();
        assert_int_equal(gc__kcache_open(fx.dir, false, &b[d].s.kcache), 0);
    }
    for (int d = 0; d < 2; d++)
        assert_int_equal(pthread_create(&t[d], NULL, build_on_device, &b[d]), 0);
    for (int d = 0; d < 2; d++) {
        assert_int_equal(pthread_join(t[d], NULL), 0);
        assert_int_equal(b[d].rc, 0);
    }
    assert_int_equal(b[0].s.kernels_compiled + b[1].s.kernels_compiled, NSRC);
    assert_int_equal(b[0].s.kernels_cached + b[1].s.kernels_cached, NSRC);
    for (int d = 0; d < 2; d++) {
        gc__kcache_close(b[d].s.kcache);
        gc__device_close(b[d].s.dev);
    }
    build_ok(&fx.s, NSRC, cached);
    for (int i = 0; i < NSRC; i++)
        assert_true(cached[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_entry_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entry_every_truncation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entry_every_byte_changed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entry_random_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entry_wrong_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_build_compiles_then_reuses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_build_recovers_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_build_recovers_swapped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_build_recovers_random_and_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_build_recovers_loader_refusal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disabled_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_writers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_builds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_devices_compile_once, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
