/* A canned results tree and golden-file helpers shared by the emitter tests. */
#ifndef GC_TESTS_CANNED_H
#define GC_TESTS_CANNED_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuchar/gpuchar.h"

/* A fixed tree covering every status, NaN values, stats and no stats,
 * labels, and strings that need quoting or escaping. No volatile field:
 * date, host and git revision are set. */
struct gc_results *canned_results(void);

/* Attaches to every benchmark of r the report declaration (summary cells,
 * figure rules) its description in the registry declares, as a run does:
 * trees built by hand carry none otherwise. Asserts on failure. */
void canned_declare(struct gc_results *r);

/* The golden directory: argv[1] when given, else GC_GOLDEN_DIR. */
void golden_init(int argc, char **argv);
const char *golden_dir(void);

/* Reads a whole file (NUL-terminated, *len without it). NULL on failure. */
char *slurp(const char *path, size_t *len);

/* Compares text with the golden file NAME (relative to the golden dir).
 * With GPUCHAR_UPDATE_GOLDEN=1 in the environment the golden file is
 * rewritten instead and the comparison passes. On a mismatch prints the
 * first differing line to stderr. Returns true when equal. */
bool golden_check(const char *name, const char *text, size_t len);

/* A fresh empty directory under TMPDIR; the caller removes it with rm_rf. */
char *make_temp_dir(void);
void rm_rf(const char *dir);

#endif
