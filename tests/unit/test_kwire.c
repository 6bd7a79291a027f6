/* The hand-back protocol between the compile plan and its workers: frames
 * round-trip byte for byte; a truncated, corrupted or foreign frame is
 * refused before anything is allocated from it; the plan's side of a worker
 * refuses an answer for another key or request, a worker that could not
 * start, and one that ends before it answers, marking it dead so that the
 * caller compiles in its own process. No process is started: the worker's
 * end of the socket is played by the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/device.h"
#include "core/kpool.h"
#include "core/kwire.h"
#include "core/kworker.h"

static const char key_a[] = "0123456789abcdef0123456789abcdef";
static const char key_b[] = "fedcba9876543210fedcba9876543210";

static void pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void send_msg(int fd, uint32_t type, uint32_t id, int32_t status, const char *key,
                     const char *p0, const char *p1)
{
    struct gc_kwire_msg m = {.type = type, .id = id, .status = status};

    snprintf(m.key, sizeof(m.key), "%s", key ? key : "");
    m.part[0] = (void *)p0;
    m.len[0] = p0 ? strlen(p0) : 0;
    m.part[1] = (void *)p1;
    m.len[1] = p1 ? strlen(p1) : 0;
    assert_int_equal(gc__kwire_send(fd, &m), 0);
}

/* One frame's bytes, as a worker would write them. */
static unsigned char *frame_bytes(const char *p1, size_t *n)
{
    int sv[2];
    unsigned char *buf = malloc(4096);
    ssize_t r;

    assert_non_null(buf);
    pair(sv);
    send_msg(sv[0], GC_KWIRE_BINARY, 7, 0, key_a, "options", p1);
    close(sv[0]);
    r = read(sv[1], buf, 4096);
    assert_true(r > GC_KWIRE_HEADER);
    close(sv[1]);
    *n = (size_t)r;
    return buf;
}

static void test_round_trip(void **state)
{
    struct gc_kwire_msg m;
    char why[256];
    int sv[2];

    (void)state;
    pair(sv);
    send_msg(sv[0], GC_KWIRE_REQUEST, 3, 0, key_a, "-cl-fast", "kernel void k() {}");
    send_msg(sv[0], GC_KWIRE_FAILED, 4, GC_ECOMPILE, key_b, NULL, "error: x");
    close(sv[0]);
    assert_int_equal(gc__kwire_recv(sv[1], &m, why, sizeof(why)), 0);
    assert_int_equal(m.type, GC_KWIRE_REQUEST);
    assert_int_equal(m.id, 3);
    assert_string_equal(m.key, key_a);
    assert_int_equal(m.len[0], strlen("-cl-fast"));
    assert_string_equal((char *)m.part[0], "-cl-fast");
    assert_string_equal((char *)m.part[1], "kernel void k() {}");
    gc__kwire_free(&m);
    assert_int_equal(gc__kwire_recv(sv[1], &m, why, sizeof(why)), 0);
    assert_int_equal(m.status, GC_ECOMPILE);
    assert_string_equal(m.key, key_b);
    assert_null(m.part[0]);
    assert_string_equal((char *)m.part[1], "error: x");
    gc__kwire_free(&m);
    /* The end of the stream between frames is a clean end. */
    assert_int_equal(gc__kwire_recv(sv[1], &m, why, sizeof(why)), GC_EIO);
    assert_string_equal(why, "");
    close(sv[1]);
}

/* Every cut of a frame short of its end is refused as an end mid-frame. */
static void test_truncated(void **state)
{
    size_t n;
    unsigned char *b = frame_bytes("binary bytes", &n);

    (void)state;
    for (size_t cut = 1; cut < n; cut++) {
        struct gc_kwire_msg m;
        char why[256];
        int sv[2];

        pair(sv);
        assert_int_equal(write(sv[0], b, cut), (ssize_t)cut);
        close(sv[0]);
        assert_int_equal(gc__kwire_recv(sv[1], &m, why, sizeof(why)), GC_EIO);
        assert_non_null(strstr(why, "ended"));
        assert_null(m.part[0]);
        assert_null(m.part[1]);
        close(sv[1]);
    }
    free(b);
}

/* recv of the frame b with byte at flipped, expecting rc and text in why. */
static void expect_refused(unsigned char *b, size_t n, size_t at, unsigned char v, int rc,
                           const char *text)
{
    unsigned char old = b[at];
    struct gc_kwire_msg m;
    char why[256];
    int sv[2];

    b[at] = v;
    pair(sv);
    assert_int_equal(write(sv[0], b, n), (ssize_t)n);
    close(sv[0]);
    assert_int_equal(gc__kwire_recv(sv[1], &m, why, sizeof(why)), rc);
    assert_non_null(strstr(why, text));
    close(sv[1]);
    b[at] = old;
}

static void test_corrupted(void **state)
{
    size_t n;
    unsigned char *b = frame_bytes("binary bytes", &n);

    (void)state;
    expect_refused(b, n, 0, 'X', GC_EINVAL, "magic");
    expect_refused(b, n, 4, 9, GC_EINVAL, "version");
    expect_refused(b, n, 25, 'Z', GC_EINVAL, "key");
    /* A length of 2^56 bytes: refused before any allocation. */
    expect_refused(b, n, 63, 1, GC_EINVAL, "too long");
    expect_refused(b, n, n - 1, (unsigned char)(b[n - 1] ^ 1), GC_EINVAL, "checksum");
    free(b);
}

/* A peer that stays silent past the socket's receive limit (a hung
 * worker): an error that says so, not a wait without end. */
static void test_silent_peer(void **state)
{
    struct timeval tv = {.tv_usec = 50000};
    struct gc_kwire_msg m;
    char why[256];
    int sv[2];

    (void)state;
    pair(sv);
    assert_int_equal(setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
    assert_int_equal(gc__kwire_recv(sv[1], &m, why, sizeof(why)), GC_EIO);
    assert_non_null(strstr(why, "time limit"));
    close(sv[0]);
    close(sv[1]);
}

static void test_send_refuses_bad_input(void **state)
{
    struct gc_kwire_msg m = {.type = GC_KWIRE_REQUEST};
    int sv[2];

    (void)state;
    pair(sv);
    snprintf(m.key, sizeof(m.key), "not hex");
    assert_int_equal(gc__kwire_send(sv[0], &m), GC_EINVAL);
    snprintf(m.key, sizeof(m.key), "%s", key_a);
    m.len[0] = 4; /* without its bytes */
    assert_int_equal(gc__kwire_send(sv[0], &m), GC_EINVAL);
    close(sv[1]);
    m.len[0] = 0;
    /* The reader ended: an error, not a SIGPIPE that ends the test. */
    assert_int_equal(gc__kwire_send(sv[0], &m), GC_EIO);
    close(sv[0]);
}

/* A worker whose answers the test wrote beforehand. */
static int compile_with(int sv[2], struct gc_kworker *w, struct gc_kworker_out *o, char *why,
                        size_t len)
{
    gc__kworker_attach(w, sv[1]);
    return gc__kworker_compile(w, key_a, "kernel void k() {}", "-O2", o, why, len);
}

static void test_worker_answers(void **state)
{
    struct gc_kworker w;
    struct gc_kworker_out o;
    struct gc_kwire_msg req;
    char why[512];
    int sv[2];

    (void)state;
    pair(sv);
    send_msg(sv[0], GC_KWIRE_HELLO, 0, 0, NULL, "test device", NULL);
    send_msg(sv[0], GC_KWIRE_BINARY, 1, 0, key_a, "BIN", "warning: y");
    send_msg(sv[0], GC_KWIRE_FAILED, 2, GC_ECOMPILE, key_a, NULL, "error: z");
    assert_int_equal(compile_with(sv, &w, &o, why, sizeof(why)), 0);
    assert_string_equal(w.device, "test device");
    assert_int_equal(o.err, 0);
    assert_int_equal(o.len, 3);
    assert_memory_equal(o.bin, "BIN", 3);
    assert_string_equal(o.log, "warning: y");
    free(o.bin);
    free(o.log);
    /* The request the worker got: the plan's key, options and source. */
    assert_int_equal(gc__kwire_recv(sv[0], &req, why, sizeof(why)), 0);
    assert_int_equal(req.type, GC_KWIRE_REQUEST);
    assert_string_equal(req.key, key_a);
    assert_string_equal((char *)req.part[0], "-O2");
    assert_string_equal((char *)req.part[1], "kernel void k() {}");
    gc__kwire_free(&req);
    assert_int_equal(gc__kworker_compile(&w, key_a, "s", NULL, &o, why, sizeof(why)), 0);
    assert_int_equal(o.err, GC_ECOMPILE);
    assert_null(o.bin);
    assert_string_equal(o.log, "error: z");
    free(o.log);
    assert_int_equal(w.compiled, 2);
    assert_false(w.dead);
    close(sv[0]);
    close(sv[1]);
}

/* A worker that answers wrongly (first) is dead afterwards and why has
 * text. */
static void expect_dead(uint32_t type, uint32_t id, int32_t status, const char *key, const char *p0,
                        bool hello, const char *text)
{
    struct gc_kworker w;
    struct gc_kworker_out o;
    char why[512];
    int sv[2];

    pair(sv);
    if (hello)
        send_msg(sv[0], GC_KWIRE_HELLO, 0, 0, NULL, "dev", NULL);
    if (type)
        send_msg(sv[0], type, id, status, key, p0, NULL);
    shutdown(sv[0], SHUT_WR);
    assert_int_not_equal(compile_with(sv, &w, &o, why, sizeof(why)), 0);
    assert_true(w.dead);
    assert_null(o.bin);
    assert_non_null(strstr(why, text));
    /* Never asked again. */
    assert_int_not_equal(gc__kworker_compile(&w, key_a, "s", NULL, &o, why, sizeof(why)), 0);
    close(sv[0]);
    close(sv[1]);
}

static void test_worker_failures(void **state)
{
    (void)state;
    expect_dead(GC_KWIRE_BINARY, 1, 0, key_b, "BIN", true, "another device or version");
    expect_dead(GC_KWIRE_BINARY, 2, 0, key_a, "BIN", true, "answered request 2");
    expect_dead(GC_KWIRE_BINARY, 1, 0, key_a, NULL, true, "empty binary");
    expect_dead(GC_KWIRE_FAILED, 1, 0, key_a, NULL, true, "without an error code");
    expect_dead(GC_KWIRE_HELLO, 1, 0, NULL, NULL, true, "type 1");
    expect_dead(GC_KWIRE_REFUSE, 0, 0, NULL, "no such device", false,
                "could not start: no such device");
    expect_dead(0, 0, 0, NULL, NULL, true, "ended before it answered");
    expect_dead(0, 0, 0, NULL, NULL, false, "ended before it was ready");
}

static bool in_processes(struct gc_dev *d)
{
    (void)d;
    return true;
}

/* How many workers: the setting, the backend's flag, the work, and
 * whether the program offers the entry. */
static void test_pool_size(void **state)
{
    struct gc_backend_ops ops = {.name = "test"};
    struct gc_device d = {.ops = &ops};
    char note[512];

    (void)state;
    unsetenv(GC_KPOOL_ENV);
    assert_int_equal(gc__kpool_size(&d, 100, note, sizeof(note)), 0);
    assert_string_equal(note, "");
    /* Asked for, but this test program never offered the entry. */
    setenv(GC_KPOOL_ENV, "2", 1);
    assert_int_equal(gc__kpool_size(&d, 100, note, sizeof(note)), 0);
    assert_non_null(strstr(note, "does not offer"));
    ops.compile_in_processes = in_processes;
    unsetenv(GC_KPOOL_ENV);
    assert_int_equal(gc__kpool_size(&d, 100, note, sizeof(note)), 0);
    assert_non_null(strstr(note, "does not offer"));
    gc__kworker_offer();
    assert_true(gc__kpool_size(&d, 100, note, sizeof(note)) >= 1);
    assert_true(gc__kpool_size(&d, 100, note, sizeof(note)) <= GC_KPOOL_MAX);
    /* No more than the work. */
    assert_int_equal(gc__kpool_size(&d, 1, note, sizeof(note)), 1);
    assert_int_equal(gc__kpool_size(&d, 0, note, sizeof(note)), 0);
    setenv(GC_KPOOL_ENV, "0", 1);
    assert_int_equal(gc__kpool_size(&d, 100, note, sizeof(note)), 0);
    ops.compile_in_processes = NULL;
    setenv(GC_KPOOL_ENV, "3", 1);
    assert_int_equal(gc__kpool_size(&d, 100, note, sizeof(note)), 3);
    assert_int_equal(gc__kpool_size(&d, 2, note, sizeof(note)), 2);
    setenv(GC_KPOOL_ENV, "17", 1);
    assert_int_equal(gc__kpool_size(&d, 100, note, sizeof(note)), 0);
    assert_non_null(strstr(note, "ignored"));
    setenv(GC_KPOOL_ENV, "two", 1);
    assert_int_equal(gc__kpool_size(&d, 100, note, sizeof(note)), 0);
    assert_non_null(strstr(note, "ignored"));
    unsetenv(GC_KPOOL_ENV);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_corrupted),
        cmocka_unit_test(test_silent_peer),
        cmocka_unit_test(test_send_refuses_bad_input),
        cmocka_unit_test(test_worker_answers),
        cmocka_unit_test(test_worker_failures),
        cmocka_unit_test(test_pool_size),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
