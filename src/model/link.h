/* The host link: its limit (PCIe data rate per direction from the
 * generation and width a device reports, the link read from Linux sysfs
 * where the backend cannot say), and the transfers over it as the Hockney
 * model t(n) = t0 + n / r_inf: the latency t0, the asymptotic bandwidth
 * r_inf and the half-performance size n_half = t0 r_inf (the size at which
 * half of r_inf is reached), fitted to measured (size, time) points
 * (hockney.c). */
#ifndef GC_MODEL_LINK_H
#define GC_MODEL_LINK_H

#include "backend/backend.h"
#include "core/device.h"

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

/* The device's host link: the backend's link_info, else sysfs from its PCI
 * bus id. *limit gets the per-direction limit in B/s (NAN unknown) and note
 * a description ("PCIe gen 5 x16 (NVML): 32 GT/s x 16 x 128/130 / 8 =
 * 63.0 GB/s per direction", or why unknown). */
void gc__device_link(struct gc_device *d, struct gc_link_info *info, double *limit, char *note,
                     size_t notelen);

struct gc_hockney {
    double latency_s;     /* t0, >= 0 */
    double bandwidth;     /* r_inf, bytes/s */
    double n_half;        /* bytes: t0 r_inf */
    double max_rel_resid; /* largest |fit - measured| / measured over the points */
    int npoints;
};

/* Fits t = t0 + n / r_inf to n points (bytes[i], seconds[i]) by least squares
 * on relative errors (weights 1 / t^2), so that microsecond copies of a few
 * bytes weigh as much as second-long ones of a gigabyte. A negative intercept
 * (latency below the timer's reach) is refitted as a line through the origin,
 * t0 = 0. Points with a non-finite or non-positive size or time are skipped.
 * Returns 0, or GC_EINVAL when fewer than two distinct sizes remain or the
 * fitted slope is not positive. */
int gc__hockney_fit(const double *bytes, const double *seconds, int n, struct gc_hockney *out);

#endif
