/* Kernel-cache entries on disk: written aside and renamed into place, read
 * back only after the header, the size and the checksum prove that the bytes
 * are the whole binary compiled for this very key. A backend's binary loader
 * trusts its input (PoCL reads past the end of a truncated binary), so
 * nothing unverified may reach it. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"
#include "core/kentry.h"
#include "util/bytes.h"

static const char magic[8] = {'G', 'C', 'K', 'C', 'A', 'C', 'H', 'E'};

uint64_t gc__kentry_checksum(const void *p, size_t n)
{
    return gc__fnv1a(GC_FNV1A_OFFSET, p, n);
}

static bool valid_key(const char *key)
{
    if (!key || strlen(key) != GC_KENTRY_KEYLEN)
        return false;
    for (const char *c = key; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
            return false;
    return true;
}

static int invalid(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int invalid(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;

    if (why && whylen) {
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return GC_EINVAL;
}

/* Reads exactly n bytes; false on a short read or an error. */
static bool read_full(int fd, void *buf, size_t n)
{
    unsigned char *p = buf;

    while (n > 0) {
        ssize_t r = read(fd, p, n);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
    }
    return true;
}

static bool write_full(int fd, const void *buf, size_t n)
{
    const unsigned char *p = buf;

    while (n > 0) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Checks everything the header alone can prove, against the file's size. */
static int check_header(const unsigned char *h, const char *key, uint64_t file_size,
                        uint64_t *payload_len, char *why, size_t whylen)
{
    uint32_t version = (uint32_t)gc__get_le(h + 8, 4);
    uint32_t hsize = (uint32_t)gc__get_le(h + 12, 4);
    uint64_t n = gc__get_le(h + 48, 8);

    if (memcmp(h, magic, sizeof(magic)) != 0)
        return invalid(why, whylen, "not a gpuchar kernel-cache entry (bad magic)");
    if (version != GC_KENTRY_VERSION)
        return invalid(why, whylen, "entry format version %u, this gpuchar reads %u", version,
                       GC_KENTRY_VERSION);
    if (hsize != GC_KENTRY_HEADER)
        return invalid(why, whylen, "header size %u, expected %d", hsize, GC_KENTRY_HEADER);
    if (memcmp(h + 16, key, GC_KENTRY_KEYLEN) != 0) {
        char other[GC_KENTRY_KEYLEN + 1];

        memcpy(other, h + 16, GC_KENTRY_KEYLEN);
        other[GC_KENTRY_KEYLEN] = '\0';
        if (!valid_key(other))
            return invalid(why, whylen, "the entry's key field is malformed");
        return invalid(why, whylen, "the entry was written for key %s, not for %s", other, key);
    }
    if (n == 0 || n > GC_KENTRY_MAX_PAYLOAD)
        return invalid(why, whylen, "payload length %llu is out of range", (unsigned long long)n);
    if (file_size - GC_KENTRY_HEADER != n)
        return invalid(why, whylen, "the header announces %llu payload bytes, the file holds %llu",
                       (unsigned long long)n, (unsigned long long)(file_size - GC_KENTRY_HEADER));
    *payload_len = n;
    return 0;
}

int gc__kentry_read(const char *path, const char *key, void **bin, size_t *len, char *why,
                    size_t whylen)
{
    unsigned char h[GC_KENTRY_HEADER];
    struct stat st;
    uint64_t n = 0;
    void *buf = NULL;
    int fd = -1, rc;

    *bin = NULL;
    *len = 0;
    if (why && whylen)
        why[0] = '\0';
    if (!valid_key(key))
        return invalid(why, whylen, "invalid key");
    /* O_NONBLOCK: a FIFO planted under the entry's name must not hang the
     * run; it is then refused as not a regular file. */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        rc = GC_EIO;
        goto out;
    }
    if (fstat(fd, &st) != 0) {
        rc = GC_EIO;
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = invalid(why, whylen, "not a regular file");
        goto out;
    }
    if (st.st_size < GC_KENTRY_HEADER) {
        rc = invalid(why, whylen, "truncated: %lld bytes, shorter than the %d-byte header",
                     (long long)st.st_size, GC_KENTRY_HEADER);
        goto out;
    }
    /* Entries are replaced by rename, never rewritten in place, so the open
     * file keeps the size just read; a shorter read still fails below. */
    if (!read_full(fd, h, sizeof(h))) {
        rc = invalid(why, whylen, "the header cannot be read");
        goto out;
    }
    rc = check_header(h, key, (uint64_t)st.st_size, &n, why, whylen);
    if (rc)
        goto out;
    buf = malloc((size_t)n);
    if (!buf) {
        rc = GC_ENOMEM;
        goto out;
    }
    if (!read_full(fd, buf, (size_t)n)) {
        rc = invalid(why, whylen, "truncated while reading the payload");
        goto out;
    }
    if (gc__kentry_checksum(buf, (size_t)n) != gc__get_le(h + 56, 8)) {
        rc = invalid(why, whylen, "the payload's checksum does not match the header");
        goto out;
    }
    *bin = buf;
    *len = (size_t)n;
    buf = NULL;
    rc = 0;
out:
    free(buf);
    if (fd >= 0)
        close(fd);
    return rc;
}

int gc__kentry_write(const char *path, const char *key, const void *bin, size_t len)
{
    unsigned char h[GC_KENTRY_HEADER];
    size_t tlen = strlen(path) + sizeof(".XXXXXX");
    char *tmp = NULL;
    int fd = -1, rc = GC_EIO;
    bool created = false;

    if (!valid_key(key) || !bin || len == 0 || (uint64_t)len > GC_KENTRY_MAX_PAYLOAD)
        return GC_EINVAL;
    memset(h, 0, sizeof(h));
    memcpy(h, magic, sizeof(magic));
    gc__put_le(h + 8, GC_KENTRY_VERSION, 4);
    gc__put_le(h + 12, GC_KENTRY_HEADER, 4);
    memcpy(h + 16, key, GC_KENTRY_KEYLEN);
    gc__put_le(h + 48, (uint64_t)len, 8);
    gc__put_le(h + 56, gc__kentry_checksum(bin, len), 8);

    tmp = malloc(tlen);
    if (!tmp)
        return GC_ENOMEM;
    snprintf(tmp, tlen, "%s.XXXXXX", path);
    /* mkstemp gives each writer, thread or process, a file of its own. */
    fd = mkstemp(tmp);
    if (fd < 0)
        goto out;
    created = true;
    /* mkstemp creates the file private; the cache may be shared. */
    if (fchmod(fd, 0644) != 0)
        goto out;
    if (!write_full(fd, h, sizeof(h)) || !write_full(fd, bin, len))
        goto out;
    /* No fsync: an entry lost or cut short by a crash is found invalid on
     * the next read and compiled again, which costs only time. */
    if (close(fd) != 0) {
        fd = -1;
        goto out;
    }
    fd = -1;
    if (rename(tmp, path) != 0)
        goto out;
    created = false;
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    if (created)
        unlink(tmp);
    free(tmp);
    return rc;
}
