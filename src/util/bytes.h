/* Byte-level helpers of the on-disk and on-the-wire formats (core/kentry.c,
 * core/kwire.c): FNV-1a over a byte range, little-endian fields. */
#ifndef GC_UTIL_BYTES_H
#define GC_UTIL_BYTES_H

#include <stddef.h>
#include <stdint.h>

#define GC_FNV1A_OFFSET 0xcbf29ce484222325ULL

/* FNV-1a of n bytes at p, continuing from h (GC_FNV1A_OFFSET to start). */
static inline uint64_t gc__fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;

    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ULL;
    return h;
}

/* The low `bytes` bytes of v at p, least significant first. */
static inline void gc__put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* The `bytes`-byte little-endian number at p. */
static inline uint64_t gc__get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;

    for (int i = bytes - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

#endif
