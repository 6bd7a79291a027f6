/* Output files written atomically (a temporary file beside the target,
 * flushed and renamed over it), and the check that a path can be written,
 * made before any work so that a long rendering never ends in "cannot
 * write". */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/outfile.h"

static void dir_of(const char *path, char *dir, size_t len)
{
    char *copy = strdup(path);

    if (!copy) {
        snprintf(dir, len, ".");
        return;
    }
    snprintf(dir, len, "%s", dirname(copy));
    free(copy);
}

int gc__outfile_open(const char *path, struct gc_outfile *o, char *err, size_t errlen)
{
    char dir[4096];
    struct stat st;
    int fd;

    memset(o, 0, sizeof(*o));
    if (!path || !path[0]) {
        snprintf(err, errlen, "no output file given");
        return GC_EINVAL;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: it is a folder", path);
        return GC_EIO;
    }
    dir_of(path, dir, sizeof(dir));
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: folder %s does not exist", path, dir);
        return GC_EIO;
    }
    snprintf(o->path, sizeof(o->path), "%s", path);
    snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.XXXXXX", path);
    fd = mkstemp(o->tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return GC_EIO;
    }
    /* mkstemp makes the file private; the result is an ordinary file, as
     * the umask allows. */
    {
        mode_t mask = umask(022);

        umask(mask);
        fchmod(fd, 0644 & ~mask);
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        return GC_EIO;
    }
    return 0;
}

int gc__outfile_commit(struct gc_outfile *o, char *err, size_t errlen)
{
    int rc = 0;

    if (!o->f)
        return GC_EINVAL;
    if (fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0) {
        snprintf(err, errlen, "writing %s: %s", o->path, strerror(errno ? errno : EIO));
        rc = GC_EIO;
    }
    if (fclose(o->f) != 0 && rc == 0) {
        snprintf(err, errlen, "writing %s: %s", o->path, strerror(errno));
        rc = GC_EIO;
    }
    o->f = NULL;
    if (rc == 0 && rename(o->tmp, o->path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", o->tmp, o->path, strerror(errno));
        rc = GC_EIO;
    }
    if (rc)
        unlink(o->tmp);
    return rc;
}

void gc__outfile_abort(struct gc_outfile *o)
{
    if (!o->f)
        return;
    fclose(o->f);
    o->f = NULL;
    unlink(o->tmp);
}

int gc_check_output_path(const char *path, char *err, size_t errlen)
{
    struct gc_outfile o;
    int rc = gc__outfile_open(path, &o, err, errlen);

    if (rc == 0)
        gc__outfile_abort(&o);
    return rc;
}

int gc__mkdir_writable(const char *dir, char *err, size_t errlen)
{
    char *tmp = strdup(dir), probe[4200];
    int fd;

    if (!tmp)
        return GC_ENOMEM;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(tmp, 0755);
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create folder %s: %s", dir, strerror(errno));
        free(tmp);
        return GC_EIO;
    }
    free(tmp);
    snprintf(probe, sizeof(probe), "%s/.gpuchar.XXXXXX", dir);
    fd = mkstemp(probe);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write into folder %s: %s", dir, strerror(errno));
        return GC_EIO;
    }
    close(fd);
    unlink(probe);
    return 0;
}

int gc_check_output_dir(const char *dir, char *err, size_t errlen)
{
    if (!dir || !dir[0]) {
        snprintf(err, errlen, "no folder given");
        return GC_EINVAL;
    }
    return gc__mkdir_writable(dir, err, errlen);
}
