/* Limits and names of the peer links (model/peerlink.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/peerlink.h"

double gc__nvlink_rate(int version)
{
    static const double rate[] = {NAN, 20e9, 25e9, 25e9, 25e9, 25e9, 26.5625e9, 50e9};

    return version >= 1 && version < (int)(sizeof(rate) / sizeof(rate[0])) ? rate[version] : NAN;
}

double gc__peer_limit(const struct gc_peer_info *p, double pcie_a, double pcie_b, char *note,
                      size_t len)
{
    double rate = p->link_rate;
    bool from_version = false;

    if (p->nvlinks > 0 && !(isfinite(rate) && rate > 0)) {
        /* NVML gave the links but not their speed: the version's rate. */
        rate = gc__nvlink_rate(p->nvlink_version);
        from_version = true;
    }
    if (p->nvlinks > 0 && isfinite(rate) && rate > 0) {
        double lim = p->nvlinks * rate;

        snprintf(note, len, "NVLink%s%.0d: %d links x %.3f GB/s = %.1f GB/s per direction (%s%s)",
                 p->nvlink_version ? " version enum " : "", p->nvlink_version, p->nvlinks,
                 rate * 1e-9, lim * 1e-9, p->source,
                 from_version ? "; the rate of that version: NVML gave no link speed" : "");
        return lim;
    }
    if (isfinite(p->limit) && p->limit > 0) {
        snprintf(note, len, "%s link: %.1f GB/s per direction (%s)", p->kind[0] ? p->kind : "peer",
                 p->limit * 1e-9, p->source);
        return p->limit;
    }
    double lim = isfinite(pcie_a) && isfinite(pcie_b) ? fmin(pcie_a, pcie_b)
                 : isfinite(pcie_a)                   ? pcie_a
                                                      : pcie_b;
    if (!isfinite(lim)) {
        snprintf(note, len, "link limit unknown (no NVLink and no PCIe link reported)");
        return NAN;
    }
    snprintf(note, len, "PCIe%s%s: the lower host link of the two, %.1f GB/s per direction",
             p->path[0] ? " path " : "", p->path, lim * 1e-9);
    return lim;
}

void gc__peer_label(const struct gc_peer_info *p, char *buf, size_t len)
{
    if (!p->access)
        snprintf(buf, len, "none");
    else if (p->nvlinks > 0)
        snprintf(buf, len, "NV%d", p->nvlinks);
    else if (p->path[0])
        snprintf(buf, len, "PCIe %s", p->path);
    else
        snprintf(buf, len, "%s", p->kind[0] ? p->kind : "peer");
}

void gc__pair_name(char *buf, size_t len, int from, int to, const char *suffix)
{
    snprintf(buf, len, "%d->%d%s%s", from, to, suffix ? "." : "", suffix ? suffix : "");
}

bool gc__pair_parse(const char *name, int *from, int *to, const char **suffix)
{
    char *end;
    long a, b;

    if (!name || name[0] < '0' || name[0] > '9')
        return false;
    a = strtol(name, &end, 10);
    if (end[0] != '-' || end[1] != '>' || end[2] < '0' || end[2] > '9')
        return false;
    b = strtol(end + 2, &end, 10);
    if (*end != '\0' && *end != '.')
        return false;
    if (a > 1024 || b > 1024)
        return false;
    *from = (int)a;
    *to = (int)b;
    *suffix = *end == '.' ? end + 1 : NULL;
    return true;
}
