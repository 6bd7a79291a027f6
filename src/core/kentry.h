/* One entry of the compiled-kernel cache on disk: a header that names the
 * entry's key, the payload's length and its checksum, then the binary. An
 * entry is verified in full before its bytes reach a backend's loader. */
#ifndef GC_CORE_KENTRY_H
#define GC_CORE_KENTRY_H

#include <stddef.h>
#include <stdint.h>

/* Layout, every integer little-endian:
 *   0  8  magic "GCKCACHE"
 *   8  4  format version (GC_KENTRY_VERSION)
 *  12  4  header size in bytes (GC_KENTRY_HEADER)
 *  16 32  the cache key, 32 hex digits (the file's name without ".bin")
 *  48  8  payload length in bytes (> 0)
 *  56  8  64-bit FNV-1a of the payload
 *  64     the payload: the binary the backend's compile() produced */
#define GC_KENTRY_VERSION 1u
#define GC_KENTRY_HEADER 64
#define GC_KENTRY_KEYLEN 32
/* No backend's binary comes near this; a larger file is not an entry. */
#define GC_KENTRY_MAX_PAYLOAD ((uint64_t)1 << 30)

/* 64-bit FNV-1a of n bytes. */
uint64_t gc__kentry_checksum(const void *p, size_t n);

/* Reads the entry at path and checks that it is a complete, intact entry
 * for key (32 hex digits): magic, version, header size, key, the payload
 * length against the file's size (before anything is allocated), then the
 * checksum. Returns 0 with *bin (malloc'ed) and *len set; GC_EIO when there
 * is no file or it cannot be read; GC_EINVAL when the file is not a valid
 * entry for key, with why saying what is wrong; GC_ENOMEM. *bin is NULL on
 * every failure. */
int gc__kentry_read(const char *path, const char *key, void **bin, size_t *len, char *why,
                    size_t whylen);

/* Writes an entry for key holding len > 0 bytes to path: to a fresh
 * temporary file in the same directory, then renamed over path, so that a
 * reader (another thread or process) sees either the old file or the whole
 * new one, and concurrent writers never share a file. Returns 0, GC_EINVAL
 * (bad key or length), GC_ENOMEM or GC_EIO; the temporary file is removed on
 * failure. */
int gc__kentry_write(const char *path, const char *key, const void *bin, size_t len);

#endif
