/* The messages between the run's compile plan and its worker processes
 * (core/kworker.h): framed records over a pipe, each checked in full
 * (magic, version, lengths before anything is allocated, checksum) before
 * the receiver uses a byte of it. */
#ifndef GC_CORE_KWIRE_H
#define GC_CORE_KWIRE_H

#include <stddef.h>
#include <stdint.h>

/* Layout of a frame, every integer little-endian:
 *   0  4  magic "GCKW"
 *   4  4  format version (GC_KWIRE_VERSION)
 *   8  4  type (enum gc_kwire_type)
 *  12  4  the request's number (a reply carries its request's)
 *  16  4  status: 0, or the GC_E code of a failed compilation
 *  20 32  a cache key, 32 hex digits, or 32 spaces (none)
 *  52  4  reserved, 0
 *  56  8  length of part 0
 *  64  8  length of part 1
 *  72  8  64-bit FNV-1a over both parts
 *  80     part 0, then part 1 */
#define GC_KWIRE_VERSION 1u
#define GC_KWIRE_HEADER 80
/* No source, binary or log comes near this; a larger part is not a frame. */
#define GC_KWIRE_MAX_PART ((uint64_t)1 << 30)

enum gc_kwire_type {
    GC_KWIRE_HELLO = 1,   /* worker -> plan: ready; part 0 the device's name */
    GC_KWIRE_REFUSE = 2,  /* worker -> plan: cannot serve; part 0 why */
    GC_KWIRE_REQUEST = 3, /* plan -> worker: key, part 0 options, part 1 source */
    GC_KWIRE_BINARY = 4,  /* worker -> plan: key, part 0 the binary, part 1 the log */
    GC_KWIRE_FAILED = 5,  /* worker -> plan: key, status, part 1 the compiler's log */
};

struct gc_kwire_msg {
    uint32_t type;
    uint32_t id;
    int32_t status;
    char key[33];  /* "" for none */
    void *part[2]; /* received: malloc'ed with a NUL after the bytes; NULL when empty */
    size_t len[2];
};

/* Writes m as one frame to fd, retrying short writes and EINTR. Returns 0,
 * GC_EINVAL (a part too long, a malformed key) or GC_EIO (the pipe is
 * closed: the reader ended). */
int gc__kwire_send(int fd, const struct gc_kwire_msg *m);
/* Reads one frame from fd into m. Returns 0; GC_EIO at the end of the
 * stream (why: "" when it ended cleanly between frames, else how many bytes
 * of a frame came), on a read error or when fd's receive time limit passed; GC_EINVAL when the
 * bytes are not a valid frame (why says what is wrong); GC_ENOMEM. m's parts are NULL on every
 * failure. */
int gc__kwire_recv(int fd, struct gc_kwire_msg *m, char *why, size_t whylen);
/* Frees the parts of a received message. */
void gc__kwire_free(struct gc_kwire_msg *m);

#endif
