/* Linux powercap (RAPL) counters: zones are the class directory's entries
 * named <driver>-rapl:<package>[:<subzone>], each with a "name" file
 * (package-N, core, uncore, dram) and a cumulative energy_uj counter that
 * wraps at max_energy_range_uj. The MMIO interface repeats the package
 * counter and is left out, so that no energy is counted twice. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/powercap.h"
#include "gpuchar/gpuchar.h"

/* Reads the first line of a small file into buf; 0 or an errno value. */
static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    int err = 0;

    buf[0] = '\0';
    if (!f)
        return errno ? errno : EIO;
    if (!fgets(buf, (int)len, f))
        err = ferror(f) ? (errno ? errno : EIO) : ENODATA;
    fclose(f);
    buf[strcspn(buf, "\r\n")] = '\0';
    return err;
}

static int read_uj(const char *path, double *uj)
{
    char line[64], *end;
    int err = read_line(path, line, sizeof(line));

    if (err)
        return err;
    errno = 0;
    unsigned long long v = strtoull(line, &end, 10);
    if (end == line || errno)
        return EINVAL;
    *uj = (double)v;
    return 0;
}

static void explain(char *why, size_t len, const char *path, int err)
{
    snprintf(why, len, "%s: %s%s", path, strerror(err),
             err == EACCES || err == EPERM
                 ? " (RAPL counters are readable by root only since Linux 5.10; run as root or "
                   "grant read access to energy_uj)"
                 : "");
}

static int cmp_zone(const void *a, const void *b)
{
    return strcmp(((const struct gc_powercap_zone *)a)->path,
                  ((const struct gc_powercap_zone *)b)->path);
}

int gc__powercap_open(const char *root, struct gc_powercap *pc, char *why, size_t whylen)
{
    const char *env = getenv("GPUCHAR_POWERCAP_ROOT");
    DIR *dir;
    struct dirent *de;
    char first_err[600] = "";

    memset(pc, 0, sizeof(*pc));
    if (!root)
        root = env && *env ? env : "/sys/class/powercap";
    snprintf(pc->root, sizeof(pc->root), "%s", root);
    dir = opendir(root);
    if (!dir) {
        snprintf(why, whylen, "no powercap interface: %s: %s", root, strerror(errno));
        return GC_ENOTSUP;
    }
    while ((de = readdir(dir)) && pc->nzones < GC_POWERCAP_MAX_ZONES) {
        struct gc_powercap_zone *z = &pc->z[pc->nzones];
        char path[512], name[64];
        double uj;
        int err;

        if (!strstr(de->d_name, "rapl:") || strstr(de->d_name, "mmio"))
            continue;
        snprintf(path, sizeof(path), "%s/%s/name", root, de->d_name);
        if (read_line(path, name, sizeof(name)) != 0)
            continue;
        bool pkg = strncmp(name, "package", 7) == 0, dram = strcmp(name, "dram") == 0;
        if (!pkg && !dram)
            continue;
        snprintf(z->path, sizeof(z->path), "%s/%s/energy_uj", root, de->d_name);
        snprintf(z->name, sizeof(z->name), "%s", name);
        z->dram = dram;
        z->range_j = NAN;
        snprintf(path, sizeof(path), "%s/%s/max_energy_range_uj", root, de->d_name);
        if (read_uj(path, &uj) == 0)
            z->range_j = uj * 1e-6;
        err = read_uj(z->path, &uj);
        if (err) {
            if (!first_err[0])
                explain(first_err, sizeof(first_err), z->path, err);
            continue;
        }
        pc->nzones++;
        pc->npackages += !dram;
        pc->ndram += dram;
    }
    closedir(dir);
    /* Directory order is arbitrary; reading in path order keeps the
     * description stable. */
    qsort(pc->z, (size_t)pc->nzones, sizeof(pc->z[0]), cmp_zone);
    if (pc->npackages == 0) {
        if (first_err[0])
            snprintf(why, whylen, "RAPL package counter not readable: %s", first_err);
        else
            snprintf(why, whylen, "no RAPL package zone under %s", root);
        return GC_ENOTSUP;
    }
    return 0;
}

int gc__powercap_read(const struct gc_powercap *pc, double *pkg_j, double *dram_j, char *why,
                      size_t whylen)
{
    double pkg = 0, dram = 0;

    for (int i = 0; i < pc->nzones; i++) {
        double uj;
        int err = read_uj(pc->z[i].path, &uj);

        if (err) {
            explain(why, whylen, pc->z[i].path, err);
            return GC_EIO;
        }
        if (pc->z[i].dram)
            dram += uj * 1e-6;
        else
            pkg += uj * 1e-6;
    }
    *pkg_j = pkg;
    *dram_j = pc->ndram ? dram : NAN;
    return 0;
}
