/* PCIe link rates, the link read from sysfs and the device's host link
 * (see link.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/link.h"

double gc__pcie_gts(int gen)
{
    static const double gts[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};

    return gen >= 1 && gen <= 6 ? gts[gen - 1] : NAN;
}

double gc__pcie_encoding(int gen)
{
    if (gen == 1 || gen == 2)
        return 8.0 / 10.0;
    if (gen >= 3 && gen <= 5)
        return 128.0 / 130.0;
    if (gen == 6)
        return 242.0 / 256.0;
    return NAN;
}

double gc__pcie_bytes_per_s(int gen, int width)
{
    if (width < 1 || width > 32)
        return NAN;
    return gc__pcie_gts(gen) * 1e9 * width * gc__pcie_encoding(gen) / 8.0;
}

/* The generation of a sysfs link speed ("32.0 GT/s PCIe", "8 GT/s"). */
static int gen_of_speed(const char *s)
{
    double gts = strtod(s, NULL);

    for (int g = 1; g <= 6; g++)
        if (fabs(gts - gc__pcie_gts(g)) < 0.3)
            return g;
    return 0;
}

static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
    char path[PATH_MAX];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "r");
    if (!f)
        return -1;
    if (!fgets(buf, (int)len, f)) {
        fclose(f);
        return -1;
    }
    fclose(f);
    return 0;
}

static void read_link(const char *dir, const char *which, int *gen, int *width)
{
    char name[64], buf[64];

    *gen = *width = 0;
    snprintf(name, sizeof(name), "%s_link_speed", which);
    if (read_line(dir, name, buf, sizeof(buf)) == 0)
        *gen = gen_of_speed(buf);
    snprintf(name, sizeof(name), "%s_link_width", which);
    if (read_line(dir, name, buf, sizeof(buf)) == 0)
        *width = atoi(buf);
}

int gc__link_from_sysfs(const char *bus_id, struct gc_link_info *out)
{
    const char *root = getenv("GPUCHAR_SYSFS_PCI");
    char dir[PATH_MAX], real[PATH_MAX];
    int ug = 0, uw = 0;

    memset(out, 0, sizeof(*out));
    if (!bus_id || !bus_id[0])
        return GC_ENOTSUP;
    snprintf(dir, sizeof(dir), "%s/%s", root && *root ? root : "/sys/bus/pci/devices", bus_id);
    read_link(dir, "current", &out->gen_cur, &out->width_cur);
    read_link(dir, "max", &out->gen_max, &out->width_max);
    if (out->gen_cur == 0 && out->gen_max == 0)
        return GC_ENOTSUP;
    /* The upstream port (the parent in the device tree) may allow less than
     * the device: the link trains to the lower of the two. */
    if (realpath(dir, real)) {
        char *slash = strrchr(real, '/');
        if (slash) {
            *slash = '\0';
            read_link(real, "max", &ug, &uw);
            if (ug > 0 && (out->gen_max == 0 || ug < out->gen_max))
                out->gen_max = ug;
            if (uw > 0 && (out->width_max == 0 || uw < out->width_max))
                out->width_max = uw;
        }
    }
    snprintf(out->kind, sizeof(out->kind), "PCIe");
    snprintf(out->source, sizeof(out->source), "sysfs");
    return 0;
}

double gc__link_limit(const struct gc_link_info *info)
{
    int gen = info->gen_max > info->gen_cur ? info->gen_max : info->gen_cur;
    int width = info->width_max > info->width_cur ? info->width_max : info->width_cur;

    if (strcmp(info->kind, "PCIe") != 0)
        return NAN;
    return gc__pcie_bytes_per_s(gen, width);
}

void gc__device_link(struct gc_device *d, struct gc_link_info *info, double *limit, char *note,
                     size_t notelen)
{
    int rc = GC_ENOTSUP;

    memset(info, 0, sizeof(*info));
    if (d->ops->link_info)
        rc = d->ops->link_info(d->dev, info);
    if (rc)
        rc = gc__link_from_sysfs(d->info.pci_bus_id, info);
    *limit = rc ? NAN : gc__link_limit(info);
    if (!isfinite(*limit)) {
        snprintf(note, notelen, "host link unknown (%s)",
                 d->info.pci_bus_id[0] ? "neither the driver nor sysfs reports it"
                                       : "the device has no PCI bus id");
        return;
    }
    int gen = info->gen_max > info->gen_cur ? info->gen_max : info->gen_cur;
    int width = info->width_max > info->width_cur ? info->width_max : info->width_cur;
    snprintf(note, notelen,
             "PCIe gen %d x%d (%s; now gen %d x%d): %g GT/s x %d lanes x %s / 8 = %.1f GB/s "
             "per direction",
             gen, width, info->source, info->gen_cur, info->width_cur, gc__pcie_gts(gen), width,
             gen <= 2   ? "8/10"
             : gen <= 5 ? "128/130"
                        : "242/256",
             *limit * 1e-9);
}
