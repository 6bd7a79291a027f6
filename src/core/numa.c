/* The NUMA node of a PCI device (numa.h). */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/numa.h"

bool gc__pci_bus_canonical(const char *bus_id, char *out, size_t len)
{
    unsigned dom = 0, bus, dev, fn;
    int used = 0;

    if (!bus_id || !*bus_id)
        return false;
    if (sscanf(bus_id, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &used) == 4 &&
        bus_id[used] == '\0') {
        /* domain given */
    } else if (sscanf(bus_id, "%x:%x.%x%n", &bus, &dev, &fn, &used) == 3 && bus_id[used] == '\0') {
        dom = 0;
    } else {
        return false;
    }
    if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
        return false;
    snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
    return true;
}

int gc__pci_numa_node(const char *bus_id)
{
    char canon[32], path[96];
    int node = -1;
    FILE *f;

    if (!gc__pci_bus_canonical(bus_id, canon, sizeof(canon)))
        return -1;
    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", canon);
    f = fopen(path, "r");
    if (!f)
        return -1;
    if (fscanf(f, "%d", &node) != 1 || node < 0)
        node = -1;
    fclose(f);
    return node;
}
