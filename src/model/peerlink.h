/* The peer links between devices: the limit of a pair's figure from what the
 * driver says of the link (NVLink links x per-link rate, else the PCIe path),
 * and the names of the ordered pairs in the results ("0->1"). */
#ifndef GC_MODEL_PEERLINK_H
#define GC_MODEL_PEERLINK_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"

/* Bytes/s per direction of one NVLink link of NVML's version enumeration
 * (nvmlNvlinkVersion_t: 1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1,
 * 6 = 4.0, 7 = 5.0), for a driver that does not report the link speed:
 * 20, 25, 25, 25, 25, 26.5625 (4.0: 53.125 Gb/s x 4 lanes / 8), 50 GB/s;
 * NAN unknown. */
double gc__nvlink_rate(int version);

/* The per-direction limit in bytes/s of the link from a to b: NVLink:
 * links x per-link rate; a backend's own limit (a simulation); else the
 * PCIe path: the lower of the two devices' host-link limits pcie_a, pcie_b
 * (a peer copy over PCIe crosses both). note gets how it was derived.
 * NAN (note why) when unknown. */
double gc__peer_limit(const struct gc_peer_info *p, double pcie_a, double pcie_b, char *note,
                      size_t len);

/* A short name of the link: "NV18", "PCIe PXB", "simulated", "none". */
void gc__peer_label(const struct gc_peer_info *p, char *buf, size_t len);

/* The name of the ordered pair from -> to, "0->1", followed by suffix when
 * not NULL ("0->1.latency"). */
void gc__pair_name(char *buf, size_t len, int from, int to, const char *suffix);

/* Parses a metric or series name "i->j" or "i->j.suffix": *from, *to and
 * *suffix (NULL without one). False when name is not a pair's. */
bool gc__pair_parse(const char *name, int *from, int *to, const char **suffix);

#endif
