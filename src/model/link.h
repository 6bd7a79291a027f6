/* The host link's limit: PCIe data rate per direction from the generation
 * and width a device reports, and the link read from Linux sysfs where the
 * backend cannot say. */
#ifndef GC_MODEL_LINK_H
#define GC_MODEL_LINK_H

#include "backend/backend.h"

/* Transfer rate of one PCIe lane in GT/s (gen 1..6), NAN for others. */
double gc__pcie_gts(int gen);

/* Encoding efficiency of a PCIe generation: 8b/10b for gen 1-2, 128b/130b
 * for gen 3-5, and for gen 6 the FLIT's 242 payload bytes of 256 (FEC and
 * CRC). NAN for others. */
double gc__pcie_encoding(int gen);

/* Data rate of the link in one direction in bytes/s:
 *     GT/s x lanes x encoding / 8,
 * e.g. gen 5 x16 = 32e9 x 16 x 128/130 / 8 = 63.0e9 B/s. Packet headers and
 * flow control (TLP/DLLP overhead) are not subtracted: a copy stays some
 * 10-15% below this. NAN when gen or width is unknown. */
double gc__pcie_bytes_per_s(int gen, int width);

/* The link of the PCI device bus_id ("0000:3b:00.0") from
 * /sys/bus/pci/devices/<id>/{current,max}_link_{speed,width}; the maximum is
 * the lower of the device's and its upstream port's. Under root, a test may
 * point GPUCHAR_SYSFS_PCI at another directory. Returns 0 or GC_ENOTSUP. */
int gc__link_from_sysfs(const char *bus_id, struct gc_link_info *out);

/* The link limit of info in bytes/s per direction, from the larger of the
 * maximum and the current generation and width; NAN when unknown. */
double gc__link_limit(const struct gc_link_info *info);

#endif
