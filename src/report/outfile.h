/* Output files: the rules a path must meet before anything is written to it
 * (no device node, FIFO, socket, folder or read-only file is replaced; a
 * symbolic link is followed only to a regular file), and files written
 * atomically, for the emitters that write files (JSON, HTML, figures). */
#ifndef GC_REPORT_OUTFILE_H
#define GC_REPORT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "gpuchar/gpuchar.h"

struct gc_outfile {
    char *path; /* the file replaced: the path given, or the regular file its link names */
    char *tmp;  /* the temporary file beside it, renamed over path on commit */
    FILE *f;    /* write here; NULL once committed or aborted */
};

/* Why PATH may not be written as an output file, in words that follow
 * "cannot write PATH: " ("it is a FIFO, not a regular file"), or "" when it
 * may. *target receives the file to replace (malloc'ed: PATH itself, or the
 * regular file a symbolic link PATH points to) and *via_link whether it is a
 * link's target; both may be NULL. Returns 0, GC_EINVAL (refused: why is
 * set) or GC_ENOMEM. */
int gc__output_file_refusal(const char *path, char **target, bool *via_link, char *why,
                            size_t whylen);

/* Creates the temporary file beside the file path names (following a link
 * to a regular file). GC_EINVAL with the reason in err when path is refused
 * (gc__output_file_refusal), GC_EIO when its folder cannot take a new
 * file. */
int gc__outfile_open(const char *path, struct gc_outfile *o, char *err, size_t errlen);

/* Flushes, syncs and renames the temporary file over path. */
int gc__outfile_commit(struct gc_outfile *o, char *err, size_t errlen);

/* Closes and removes the temporary file. Safe after commit. */
void gc__outfile_abort(struct gc_outfile *o);

/* Creates dir (and its parents) when missing and checks that a file can be
 * created in it. GC_EIO with the reason in err otherwise. */
int gc__mkdir_writable(const char *dir, char *err, size_t errlen);

#endif
