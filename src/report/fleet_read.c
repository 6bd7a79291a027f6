/* A fleet from files: the results files of 'gpuchar run --json' (or of the
 * ranks of 'gpuchar run --mpi') named one by one or found in folders, each
 * read, reduced to its summary and freed, so that a fleet of any size
 * holds only summaries. A "<name>.started" marker without its results file
 * is a rank that started and never finished. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpuchar/node.h"
#include "model/fleet.h"

#define NOT_RESULTS "not a gpuchar results document"
/* How a rank's marker begins when its measurement outlived --rank-timeout. */
#define TIMEOUT_MSG "exceeded --rank-timeout"

static bool has_suffix(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);

    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* The rank in a file name "<host>_<device>_r<rank>.json" of 'gpuchar run
 * --mpi'; -1 for any other name. */
static int rank_in_name(const char *path)
{
    const char *r = strrchr(path, '_');
    char *end;
    long v;

    if (!r || r[1] != 'r' || r[2] < '0' || r[2] > '9')
        return -1;
    v = strtol(r + 2, &end, 10);
    return strcmp(end, ".json") == 0 && v <= 0x7fffffff ? (int)v : -1;
}

/* A node document ('gpuchar run --device all'): its devices and links. */
static int add_node_file(struct gc_fleet *f, const char *path, int *nadded, char *err,
                         size_t errlen)
{
    struct gc_node *n = NULL;
    char why[512];
    int rc = gc_read_node_json(path, &n, why, sizeof(why));

    if (rc < 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        return rc == GC_EIO ? GC_EIO : GC_EINVAL;
    }
    for (int i = 0; rc == 0 && f->declare && i < n->ndevices; i++)
        if (n->devices[i].results && (rc = f->declare(n->devices[i].results)) != 0)
            snprintf(err, errlen, "%s: %s: %s", path, n->devices[i].spec, gc_strerror(rc));
    if (rc == 0)
        rc = gc_fleet_add_node(f, n, rank_in_name(path), path);
    gc_node_free(n);
    if (rc == 0)
        (*nadded)++;
    return rc;
}

/* Reads one results file (or node document) into f. Found in a folder
 * (listed false), a JSON document that is neither (a fleet document) is
 * passed over. */
static int add_file(struct gc_fleet *f, const char *path, bool listed, int *nadded, char *err,
                    size_t errlen)
{
    struct gc_results *r = NULL;
    char why[512];
    int rc;

    if (gc_is_node_json(path))
        return add_node_file(f, path, nadded, err, errlen);
    rc = gc_read_json(path, &r, why, sizeof(why));

    if (rc < 0) {
        if (!listed && strstr(why, NOT_RESULTS))
            return 0;
        snprintf(err, errlen, "%s: %s", path, why);
        return rc == GC_EIO ? GC_EIO : GC_EINVAL;
    }
    rc = f->declare ? f->declare(r) : 0;
    if (rc)
        snprintf(err, errlen, "%s: %s", path, gc_strerror(rc));
    else
        rc = gc_fleet_add_results(f, r, rank_in_name(path), path);
    gc_results_free(r);
    if (rc == 0)
        (*nadded)++;
    return rc;
}

/* A marker whose results file is missing: the rank crashed or was killed. */
static int add_marker(struct gc_fleet *f, const char *path, int *nadded)
{
    char json[4096], host[128] = "", msg[256], why[256];
    struct stat st;
    int rank = -1;
    FILE *m;

    snprintf(json, sizeof(json), "%.*s.json", (int)(strlen(path) - strlen(".started")), path);
    if (stat(json, &st) == 0)
        return 0;
    snprintf(msg, sizeof(msg), "started (%.200s) but wrote no results: crashed or killed", path);
    if ((m = fopen(path, "r"))) {
        if (fscanf(m, "%127s %d", host, &rank) < 1)
            host[0] = '\0';
        /* A second line: why, as the rank reported it. */
        if (fscanf(m, " %255[^\n]", why) == 1)
            snprintf(msg, sizeof(msg), "%s", why);
        fclose(m);
    }
    (*nadded)++;
    return gc_fleet_add_missing(
        f, rank, host,
        strncmp(msg, TIMEOUT_MSG, strlen(TIMEOUT_MSG)) == 0 ? GC_FLEET_TIMEOUT : GC_FLEET_FAILED,
        msg);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_dir(struct gc_fleet *f, const char *dir, int *nadded, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    char **names = NULL, path[4096];
    int n = 0, cap = 0, rc = 0;
    struct dirent *e;

    if (!d) {
        snprintf(err, errlen, "%s: cannot read the folder", dir);
        return GC_EIO;
    }
    while ((e = readdir(d))) {
        if (!has_suffix(e->d_name, ".json") && !has_suffix(e->d_name, ".started"))
            continue;
        if (n == cap) {
            char **p = realloc(names, (size_t)(cap = cap ? 2 * cap : 64) * sizeof(*p));
            if (!p) {
                rc = GC_ENOMEM;
                break;
            }
            names = p;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = GC_ENOMEM;
            break;
        }
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, (size_t)n, sizeof(*names), by_name);
    for (int i = 0; i < n && rc == 0; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        rc = has_suffix(names[i], ".started") ? add_marker(f, path, nadded)
                                              : add_file(f, path, false, nadded, err, errlen);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

int gc_fleet_add_paths(struct gc_fleet *f, const char *const *paths, int npaths, char *err,
                       size_t errlen)
{
    int nadded = 0, rc = 0;
    struct stat st;

    for (int i = 0; i < npaths && rc == 0; i++) {
        if (stat(paths[i], &st) != 0) {
            snprintf(err, errlen, "%s: no such file or folder", paths[i]);
            return GC_EIO;
        }
        rc = S_ISDIR(st.st_mode) ? add_dir(f, paths[i], &nadded, err, errlen)
                                 : add_file(f, paths[i], true, &nadded, err, errlen);
    }
    if (rc == 0 && nadded == 0) {
        snprintf(err, errlen,
                 "no gpuchar results files (*.json of 'gpuchar run --json', or node documents "
                 "of --device all) in %s%s",
                 npaths > 0 ? paths[0] : "(nothing given)", npaths > 1 ? " and the others" : "");
        return GC_ENODEV;
    }
    return rc;
}
