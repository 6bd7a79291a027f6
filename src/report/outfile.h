/* Atomically written output files and checks that a path or a folder can be
 * written, for the emitters that write files (HTML, figures). */
#ifndef GC_REPORT_OUTFILE_H
#define GC_REPORT_OUTFILE_H

#include <stdio.h>

#include "gpuchar/gpuchar.h"

struct gc_outfile {
    char path[4096];
    char tmp[4200];
    FILE *f; /* write here; NULL once committed or aborted */
};

/* Creates the temporary file beside path. GC_EIO with the reason in err
 * when path is a folder or its folder cannot take a new file. */
int gc__outfile_open(const char *path, struct gc_outfile *o, char *err, size_t errlen);

/* Flushes, syncs and renames the temporary file over path. */
int gc__outfile_commit(struct gc_outfile *o, char *err, size_t errlen);

/* Closes and removes the temporary file. Safe after commit. */
void gc__outfile_abort(struct gc_outfile *o);

/* Creates dir (and its parents) when missing and checks that a file can be
 * created in it. GC_EIO with the reason in err otherwise. */
int gc__mkdir_writable(const char *dir, char *err, size_t errlen);

#endif
