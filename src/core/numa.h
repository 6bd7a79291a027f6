/* The NUMA node of a PCI device, from sysfs. */
#ifndef GC_CORE_NUMA_H
#define GC_CORE_NUMA_H

#include <stdbool.h>
#include <stddef.h>

/* The NUMA node /sys/bus/pci/devices/<bus id>/numa_node gives for a bus id
 * in any of the spellings the drivers use ("0000:3b:00.0", NVML's
 * "00000000:3B:00.0"); -1 when the id is empty or malformed, the file is
 * missing or the kernel says -1 (no NUMA). */
int gc__pci_numa_node(const char *bus_id);

/* The bus id in the kernel's spelling (4-digit domain, lower case) into
 * out; false when bus_id is not "[domain:]bus:device.function". */
bool gc__pci_bus_canonical(const char *bus_id, char *out, size_t len);

#endif
