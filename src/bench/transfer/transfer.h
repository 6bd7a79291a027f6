/* The sizes transfer.* copies (bench/link's copies take the same ladder). */
#ifndef GC_BENCH_TRANSFER_H
#define GC_BENCH_TRANSFER_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuchar/gpuchar.h"

/* The sizes of transfer.*: 4 B x 2^(k/2) rounded to 4-byte words, up to
 * max, at most cap of them; returns how many. steps per octave: 2 (every
 * k), or 1 (even k: whole octaves). */
int gc__transfer_sizes(size_t max, int steps, size_t *out, int cap);

/* The largest transfer size of a profile (before memory bounds): on a GPU
 * by default 64 MiB for copies through host memory (host), 256 MiB for the
 * others, quick as well; full: 2 GiB for full-range modes (pinned,
 * device-to-device), 1 GiB else. On other devices 32 MiB, 1 MiB quick,
 * 256 MiB full. */
size_t gc__transfer_max_size(enum gc_profile p, bool gpu, bool full_range, bool host);

#endif
