/* Frames between the compile plan and its workers (see kwire.h). They travel
 * over a stream socket, written with MSG_NOSIGNAL so that a peer that ended
 * is an error to handle, never a SIGPIPE that ends the run. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"
#include "core/kwire.h"
#include "util/bytes.h"

static const char magic[4] = {'G', 'C', 'K', 'W'};

static bool valid_key(const char *key, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((key[i] >= '0' && key[i] <= '9') || (key[i] >= 'a' && key[i] <= 'f')))
            return false;
    return true;
}

static int send_full(int fd, const void *buf, size_t n)
{
    const unsigned char *p = buf;

    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return GC_EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int gc__kwire_send(int fd, const struct gc_kwire_msg *m)
{
    unsigned char h[GC_KWIRE_HEADER];
    size_t kl = strlen(m->key);
    uint64_t sum = GC_FNV1A_OFFSET;
    int rc;

    if ((kl != 0 && kl != 32) || !valid_key(m->key, kl))
        return GC_EINVAL;
    for (int i = 0; i < 2; i++) {
        if ((uint64_t)m->len[i] > GC_KWIRE_MAX_PART || (m->len[i] && !m->part[i]))
            return GC_EINVAL;
        sum = gc__fnv1a(sum, m->part[i], m->len[i]);
    }
    memset(h, 0, sizeof(h));
    memcpy(h, magic, 4);
    gc__put_le(h + 4, GC_KWIRE_VERSION, 4);
    gc__put_le(h + 8, m->type, 4);
    gc__put_le(h + 12, m->id, 4);
    gc__put_le(h + 16, (uint32_t)m->status, 4);
    memset(h + 20, ' ', 32);
    memcpy(h + 20, m->key, kl);
    gc__put_le(h + 56, m->len[0], 8);
    gc__put_le(h + 64, m->len[1], 8);
    gc__put_le(h + 72, sum, 8);
    rc = send_full(fd, h, sizeof(h));
    for (int i = 0; i < 2 && rc == 0; i++)
        rc = send_full(fd, m->part[i], m->len[i]);
    return rc;
}

static int fail(char *why, size_t whylen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *why, size_t whylen, int rc, const char *fmt, ...)
{
    va_list ap;

    if (why && whylen) {
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* Reads exactly n bytes; returns how many came before the end or an error.
 * *timed_out: the socket's receive time limit passed (SO_RCVTIMEO). */
static size_t read_full(int fd, void *buf, size_t n, bool *timed_out)
{
    unsigned char *p = buf;
    size_t got = 0;

    *timed_out = false;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);

        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            *timed_out = true;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got;
}

/* Checks a header; fills m's type, id, status, key and lengths. */
static int parse_header(const unsigned char *h, struct gc_kwire_msg *m, char *why, size_t whylen)
{
    uint64_t l0 = gc__get_le(h + 56, 8), l1 = gc__get_le(h + 64, 8);
    size_t kl = 32;

    if (memcmp(h, magic, 4) != 0)
        return fail(why, whylen, GC_EINVAL, "not a frame (bad magic)");
    if (gc__get_le(h + 4, 4) != GC_KWIRE_VERSION)
        return fail(why, whylen, GC_EINVAL, "frame version %u, expected %u",
                    (unsigned)gc__get_le(h + 4, 4), GC_KWIRE_VERSION);
    if (l0 > GC_KWIRE_MAX_PART || l1 > GC_KWIRE_MAX_PART)
        return fail(why, whylen, GC_EINVAL, "a part of %llu bytes is too long",
                    (unsigned long long)(l0 > l1 ? l0 : l1));
    while (kl > 0 && h[20 + kl - 1] == ' ')
        kl--;
    if ((kl != 0 && kl != 32) || !valid_key((const char *)h + 20, kl))
        return fail(why, whylen, GC_EINVAL, "malformed key");
    m->type = (uint32_t)gc__get_le(h + 8, 4);
    m->id = (uint32_t)gc__get_le(h + 12, 4);
    m->status = (int32_t)(uint32_t)gc__get_le(h + 16, 4);
    memcpy(m->key, h + 20, kl);
    m->key[kl] = '\0';
    m->len[0] = (size_t)l0;
    m->len[1] = (size_t)l1;
    return 0;
}

int gc__kwire_recv(int fd, struct gc_kwire_msg *m, char *why, size_t whylen)
{
    unsigned char h[GC_KWIRE_HEADER];
    uint64_t sum = GC_FNV1A_OFFSET;
    bool late;
    size_t got;
    int rc;

    memset(m, 0, sizeof(*m));
    if (why && whylen)
        why[0] = '\0';
    got = read_full(fd, h, sizeof(h), &late);
    if (late)
        return fail(why, whylen, GC_EIO, "no answer within the time limit");
    if (got == 0)
        return GC_EIO;
    if (got < sizeof(h))
        return fail(why, whylen, GC_EIO, "the stream ended %zu bytes into a frame's header", got);
    rc = parse_header(h, m, why, whylen);
    if (rc)
        return rc;
    for (int i = 0; i < 2; i++) {
        if (m->len[i] == 0)
            continue;
        m->part[i] = malloc(m->len[i] + 1);
        if (!m->part[i]) {
            gc__kwire_free(m);
            return fail(why, whylen, GC_ENOMEM, "no memory for a %zu-byte part", m->len[i]);
        }
        got = read_full(fd, m->part[i], m->len[i], &late);
        if (got < m->len[i]) {
            size_t want = m->len[i];

            gc__kwire_free(m);
            return fail(why, whylen, GC_EIO, "the stream ended %zu of %zu bytes into part %d", got,
                        want, i);
        }
        ((char *)m->part[i])[m->len[i]] = '\0';
        sum = gc__fnv1a(sum, m->part[i], m->len[i]);
    }
    if (sum != gc__get_le(h + 72, 8)) {
        gc__kwire_free(m);
        return fail(why, whylen, GC_EINVAL, "checksum mismatch");
    }
    return 0;
}

void gc__kwire_free(struct gc_kwire_msg *m)
{
    for (int i = 0; i < 2; i++) {
        free(m->part[i]);
        m->part[i] = NULL;
        m->len[i] = 0;
    }
}
