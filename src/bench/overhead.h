/* Helpers shared by the runtime-overhead benchmarks (transfer.*,
 * overhead.*, control.divergence): tail percentiles as metrics, the host
 * link and its limit, host memory available. */
#ifndef GC_BENCH_OVERHEAD_H
#define GC_BENCH_OVERHEAD_H

#include "backend/backend.h"
#include "bench/bench.h"
#include "util/hostmem.h"

/* Adds the metric name (the median of x[0..n), with its statistics) and
 * name_p5, name_p95, name_p99: overheads have tails, and the median alone
 * hides them. Returns 0 or GC_ENOMEM. */
int gc__add_percentile_metrics(struct gc_bench_result *r, const char *name, const double *x, int n,
                               const char *unit, const char *note);

/* The device's host link: the backend's link_info, else sysfs from its PCI
 * bus id. *limit gets the per-direction limit in B/s (NAN unknown) and note
 * a description ("PCIe gen 5 x16 (NVML): 32 GT/s x 16 x 128/130 / 8 =
 * 63.0 GB/s per direction", or why unknown). */
void gc__device_link(struct gc_device *d, struct gc_link_info *info, double *limit, char *note,
                     size_t notelen);

/* control.divergence's description (plan, derive, release), run whole by
 * gc__harness_bench. */
struct gc_hbench;
extern const struct gc_hbench gc__divergence_hbench;

/* Seconds on the host's monotonic clock (the backends' launch timestamps). */
double gc__mono_now(void);

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
