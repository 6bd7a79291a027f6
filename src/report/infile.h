/* Input files read whole, with the checks that name what is wrong with a
 * file that cannot be a results document (a folder, an empty, huge or binary
 * file) before a JSON parser reports it as a syntax error. */
#ifndef GC_REPORT_INFILE_H
#define GC_REPORT_INFILE_H

#include <stddef.h>

/* Reads PATH ("-": standard input) whole into *data (malloc'ed, NUL-
 * terminated, *len bytes without the NUL). At most max bytes are accepted.
 * Returns 0; GC_EIO ("cannot open PATH: ...", "it is a folder, not a
 * results file", a read error) or GC_EINVAL ("it is empty", "it is N MiB,
 * larger than the M MiB a results file can be", "it is binary data, not
 * JSON (a NUL byte at offset N)") with the reason in err; GC_ENOMEM. */
int gc__infile_read(const char *path, size_t max, char **data, size_t *len, char *err,
                    size_t errlen);

#endif
