/* Input files read whole, with the checks that name what is wrong with a
 * file that cannot be a results document: a folder, an empty file, one
 * larger than any results document, binary data. Regular files are sized
 * before they are read; streams (standard input, a FIFO) are read up to the
 * cap. A NUL byte ends the reading at once: 200 MB of zeros is found binary
 * from its first block. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"
#include "report/infile.h"

/* Bytes read per call. */
#define CHUNK ((size_t)1 << 20)

#define MIB(x) ((double)(x) / (1024.0 * 1024.0))

static int too_large(char *err, size_t errlen, double size_mib, size_t max)
{
    if (size_mib > 0)
        snprintf(err, errlen, "it is %.0f MiB, larger than the %.0f MiB a results file can be",
                 size_mib, MIB(max));
    else
        snprintf(err, errlen, "it is larger than the %.0f MiB a results file can be", MIB(max));
    return GC_EINVAL;
}

/* Reads fd to its end or past max; checks each block for a NUL byte. */
static int read_all(int fd, size_t max, char **data, size_t *len, char *err, size_t errlen)
{
    size_t cap = 0, used = 0;
    char *buf = NULL;

    for (;;) {
        ssize_t got;
        const char *nul;

        if (used + CHUNK + 1 > cap) {
            size_t ncap = cap ? 2 * cap : CHUNK + 1;
            char *nb;

            if (ncap > max + CHUNK + 1)
                ncap = max + CHUNK + 1;
            nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                return GC_ENOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        got = read(fd, buf + used, CHUNK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(err, errlen, "cannot read it: %s", strerror(errno));
            free(buf);
            return GC_EIO;
        }
        if (got == 0)
            break;
        nul = memchr(buf + used, '\0', (size_t)got);
        if (nul) {
            snprintf(err, errlen, "it is binary data, not JSON (a NUL byte at offset %zu)",
                     (size_t)(nul - buf));
            free(buf);
            return GC_EINVAL;
        }
        used += (size_t)got;
        if (used > max) {
            free(buf);
            return too_large(err, errlen, 0, max);
        }
    }
    if (used == 0) {
        snprintf(err, errlen, "it is empty");
        free(buf);
        return GC_EINVAL;
    }
    buf[used] = '\0';
    *data = buf;
    *len = used;
    return 0;
}

int gc__infile_read(const char *path, size_t max, char **data, size_t *len, char *err,
                    size_t errlen)
{
    char shown[GC_PATH_SHOWN_LEN];
    struct stat st;
    int fd, rc;

    *data = NULL;
    *len = 0;
    if (strcmp(path, "-") == 0) {
        fd = STDIN_FILENO;
    } else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        snprintf(err, errlen, "cannot open %s: %s", gc_path_shown(path, shown, sizeof(shown)),
                 strerror(errno));
        return GC_EIO;
    }
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot read it: %s", strerror(errno));
        rc = GC_EIO;
    } else if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "it is a folder, not a results file");
        rc = GC_EIO;
    } else if (S_ISREG(st.st_mode) && st.st_size == 0) {
        snprintf(err, errlen, "it is empty");
        rc = GC_EINVAL;
    } else if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max) {
        rc = too_large(err, errlen, MIB(st.st_size), max);
    } else {
        rc = read_all(fd, max, data, len, err, errlen);
    }
    if (fd != STDIN_FILENO)
        close(fd);
    return rc;
}
