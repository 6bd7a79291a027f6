/* Output files: the rules a path must meet before anything is written to it,
 * checked before any work so that a long run never ends in "cannot write" or,
 * worse, replaces a device node, a FIFO, a read-only file or its own input;
 * and files written atomically (a temporary file beside the target, flushed
 * and renamed over it). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/outfile.h"

/* ---- What a path is ---------------------------------------------------- */

static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m))
        return "a folder";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISLNK(m))
        return "a symbolic link";
    if (S_ISREG(m))
        return "a regular file";
    return "a special file";
}

/* Why the regular file PATH (st) may not be replaced; "" when it may. A file
 * without any write bit is read-only whoever runs the command: root, whom
 * access(2) lets write anything, must not replace it either. */
static void regular_refusal(const char *path, const struct stat *st, char *why, size_t len)
{
    why[0] = '\0';
    if ((st->st_mode & 0222) == 0)
        snprintf(why, len, "it is read-only (mode %04o) and is never replaced",
                 (unsigned)(st->st_mode & 07777));
    else if (access(path, W_OK) != 0)
        snprintf(why, len, "it is not writable (%s) and is not replaced", strerror(errno));
}

int gc__output_file_refusal(const char *path, char **target, bool *via_link, char *why,
                            size_t whylen)
{
    struct stat lst, st;
    bool link = false, exists = true;
    char *t;

    why[0] = '\0';
    if (target)
        *target = NULL;
    if (via_link)
        *via_link = false;
    if (lstat(path, &lst) != 0) {
        /* Nothing there (or a name the system refuses, which the write
         * itself reports): nothing is replaced. */
        exists = false;
        t = strdup(path);
    } else if (S_ISLNK(lst.st_mode)) {
        if (stat(path, &st) != 0) {
            snprintf(why, whylen, "it is a symbolic link to nothing (%s)", strerror(errno));
            return GC_EINVAL;
        }
        if (!S_ISREG(st.st_mode)) {
            snprintf(why, whylen, "it is a symbolic link to %s, not to a regular file",
                     kind_of(st.st_mode));
            return GC_EINVAL;
        }
        t = realpath(path, NULL);
        if (!t && errno != ENOMEM) {
            snprintf(why, whylen, "its symbolic link cannot be followed (%s)", strerror(errno));
            return GC_EINVAL;
        }
        link = true;
    } else if (!S_ISREG(lst.st_mode)) {
        if (S_ISDIR(lst.st_mode))
            snprintf(why, whylen, "it is a folder");
        else
            snprintf(why, whylen, "it is %s, not a regular file", kind_of(lst.st_mode));
        return GC_EINVAL;
    } else {
        st = lst;
        t = strdup(path);
    }
    if (!t)
        return GC_ENOMEM;
    if (exists)
        regular_refusal(t, &st, why, whylen);
    if (why[0]) {
        free(t);
        return GC_EINVAL;
    }
    if (target)
        *target = t;
    else
        free(t);
    if (via_link)
        *via_link = link;
    return 0;
}

/* ---- Atomic writes ----------------------------------------------------- */

/* The folder of path (malloc'ed), or NULL without memory. */
static char *dir_of(const char *path)
{
    char *copy = strdup(path), *dir;

    if (!copy)
        return NULL;
    dir = strdup(dirname(copy));
    free(copy);
    return dir;
}

static void outfile_free(struct gc_outfile *o)
{
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
}

/* Makes the temporary file beside o->path and opens it as o->f. */
static int open_tmp(struct gc_outfile *o, const char *shown, char *err, size_t errlen)
{
    size_t tlen = strlen(o->path) + sizeof(".tmp.XXXXXX");
    mode_t mask;
    int fd;

    o->tmp = malloc(tlen);
    if (!o->tmp)
        return GC_ENOMEM;
    snprintf(o->tmp, tlen, "%s.tmp.XXXXXX", o->path);
    fd = mkstemp(o->tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", shown, strerror(errno));
        return GC_EIO;
    }
    /* mkstemp makes the file private; the result is an ordinary file, as
     * the umask allows. */
    mask = umask(022);
    umask(mask);
    fchmod(fd, 0644 & ~mask);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        snprintf(err, errlen, "cannot write %s: %s", shown, strerror(errno));
        close(fd);
        unlink(o->tmp);
        return GC_EIO;
    }
    return 0;
}

int gc__outfile_open(const char *path, struct gc_outfile *o, char *err, size_t errlen)
{
    char shown[GC_PATH_SHOWN_LEN], shown_dir[GC_PATH_SHOWN_LEN], why[256];
    struct stat st;
    char *dir = NULL;
    int rc;

    memset(o, 0, sizeof(*o));
    if (!path || !path[0]) {
        snprintf(err, errlen, "no output file given");
        return GC_EINVAL;
    }
    gc_path_shown(path, shown, sizeof(shown));
    rc = gc__output_file_refusal(path, &o->path, NULL, why, sizeof(why));
    if (rc == GC_EINVAL)
        snprintf(err, errlen, "cannot write %s: %s", shown, why);
    if (rc)
        return rc;
    dir = dir_of(o->path);
    if (!dir) {
        rc = GC_ENOMEM;
    } else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: folder %s does not exist", shown,
                 gc_path_shown(dir, shown_dir, sizeof(shown_dir)));
        rc = GC_EIO;
    } else {
        rc = open_tmp(o, shown, err, errlen);
    }
    free(dir);
    if (rc)
        outfile_free(o);
    return rc;
}

int gc__outfile_commit(struct gc_outfile *o, char *err, size_t errlen)
{
    char shown[GC_PATH_SHOWN_LEN];
    int rc = 0;

    if (!o->f)
        return GC_EINVAL;
    gc_path_shown(o->path, shown, sizeof(shown));
    if (fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0) {
        snprintf(err, errlen, "writing %s: %s", shown, strerror(errno ? errno : EIO));
        rc = GC_EIO;
    }
    if (fclose(o->f) != 0 && rc == 0) {
        snprintf(err, errlen, "writing %s: %s", shown, strerror(errno));
        rc = GC_EIO;
    }
    o->f = NULL;
    if (rc == 0 && rename(o->tmp, o->path) != 0) {
        snprintf(err, errlen, "cannot replace %s: %s", shown, strerror(errno));
        rc = GC_EIO;
    }
    if (rc)
        unlink(o->tmp);
    outfile_free(o);
    return rc;
}

void gc__outfile_abort(struct gc_outfile *o)
{
    if (o->f) {
        fclose(o->f);
        o->f = NULL;
        unlink(o->tmp);
    }
    outfile_free(o);
}

int gc_check_output_path(const char *path, char *err, size_t errlen)
{
    struct gc_outfile o;
    int rc = gc__outfile_open(path, &o, err, errlen);

    if (rc == 0)
        gc__outfile_abort(&o);
    return rc;
}

/* ---- The paths of one command together ---------------------------------- */

/* Where a path is, whether or not it exists yet: the device and inode of the
 * file, or of its nearest existing folder and the rest of the path below it
 * ("a/b" with "." and empty parts dropped). */
struct place {
    bool known;
    dev_t dev;
    ino_t ino;
    char *rest;
};

/* Appends the parts of s other than "" and "." to out (which has room). */
static void normalise(const char *s, char *out)
{
    size_t used = 0;

    out[0] = '\0';
    while (*s) {
        size_t n = strcspn(s, "/");

        if (n > 0 && !(n == 1 && s[0] == '.')) {
            if (used)
                out[used++] = '/';
            memcpy(out + used, s, n);
            used += n;
            out[used] = '\0';
        }
        s += n;
        s += *s == '/';
    }
}

static int place_of(const char *path, struct place *p)
{
    size_t n = strlen(path);
    char *buf = malloc(n + 1);
    struct stat st;

    memset(p, 0, sizeof(*p));
    memset(&st, 0, sizeof(st));
    p->rest = malloc(n + 1);
    if (!buf || !p->rest) {
        free(buf);
        return GC_ENOMEM;
    }
    p->rest[0] = '\0';
    memcpy(buf, path, n + 1);
    if (stat(path, &st) == 0) {
        p->known = true;
    } else {
        /* buf keeps path's offsets: each folder tried is cut at a '/'. */
        for (;;) {
            char *slash = strrchr(buf, '/');
            const char *base = !slash ? "." : slash == buf ? "/" : buf;

            if (slash && slash != buf)
                *slash = '\0';
            if (stat(base, &st) == 0) {
                normalise(path + (slash ? slash - buf + 1 : 0), p->rest);
                p->known = true;
                break;
            }
            if (!slash || slash == buf)
                break;
        }
    }
    free(buf);
    p->dev = st.st_dev;
    p->ino = st.st_ino;
    return 0;
}

static bool same_place(const struct place *a, const struct place *b)
{
    return a->known && b->known && a->dev == b->dev && a->ino == b->ino &&
           strcmp(a->rest, b->rest) == 0;
}

static int refuse(char *err, size_t errlen, const struct gc_io_path *p, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "cannot write WHAT 'PATH': <reason>"; returns GC_EINVAL. */
static int refuse(char *err, size_t errlen, const struct gc_io_path *p, const char *fmt, ...)
{
    char shown[GC_PATH_SHOWN_LEN];
    int used;
    va_list ap;

    used = snprintf(err, errlen, "cannot write %s '%s': ", p->what,
                    gc_path_shown(p->path, shown, sizeof(shown)));
    if (used >= 0 && (size_t)used < errlen) {
        va_start(ap, fmt);
        vsnprintf(err + used, errlen - (size_t)used, fmt, ap);
        va_end(ap);
    }
    return GC_EINVAL;
}

static void add_note(char *note, size_t len, const struct gc_io_path *p, const char *target)
{
    char shown[GC_PATH_SHOWN_LEN], shown_target[GC_PATH_SHOWN_LEN];
    size_t used;

    if (!note || len == 0)
        return;
    used = strlen(note);
    snprintf(note + used, len - used,
             "%s%s '%s' is a symbolic link: the regular file it names, "
             "'%s', is replaced",
             used ? "; " : "", p->what, gc_path_shown(p->path, shown, sizeof(shown)),
             gc_path_shown(target, shown_target, sizeof(shown_target)));
}

/* The rules for one output path (not "-"). */
static int check_output(const struct gc_io_path *p, char *note, size_t notelen, char *err,
                        size_t errlen)
{
    char why[256], *target = NULL;
    bool via_link;
    struct stat st;
    int rc;

    if (p->role == GC_IO_OUTPUT_DIR) {
        if (stat(p->path, &st) == 0 && !S_ISDIR(st.st_mode))
            return refuse(err, errlen, p, "it is %s, not a folder", kind_of(st.st_mode));
        if (lstat(p->path, &st) == 0 && S_ISLNK(st.st_mode) && stat(p->path, &st) != 0)
            return refuse(err, errlen, p, "it is a symbolic link to nothing");
        return 0;
    }
    rc = gc__output_file_refusal(p->path, &target, &via_link, why, sizeof(why));
    if (rc == GC_EINVAL)
        return refuse(err, errlen, p, "%s", why);
    if (rc == 0 && via_link)
        add_note(note, notelen, p, target);
    free(target);
    return rc;
}

/* The first two paths of the list that are the same file or folder, where
 * that is not allowed: an output and an input, or two outputs. */
static int check_places(const struct gc_io_path *paths, const struct place *pl, int n, char *err,
                        size_t errlen)
{
    char shown[GC_PATH_SHOWN_LEN];

    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const struct gc_io_path *a = &paths[i], *b = &paths[j], *out, *other;

            if (!same_place(&pl[i], &pl[j]) || (a->role == GC_IO_INPUT && b->role == GC_IO_INPUT))
                continue;
            out = a->role == GC_IO_INPUT ? b : a;
            other = out == a ? b : a;
            if (other->role == GC_IO_INPUT)
                return refuse(err, errlen, out, "it is %s '%s', an input of this command",
                              other->what, gc_path_shown(other->path, shown, sizeof(shown)));
            return refuse(err, errlen, other, "%s names the same path", out->what);
        }
    return 0;
}

int gc_check_io_paths(const struct gc_io_path *paths, int n, char *note, size_t notelen, char *err,
                      size_t errlen)
{
    struct place *pl = calloc(n > 0 ? (size_t)n : 1, sizeof(*pl));
    int stdout_user = -1, rc = 0;

    if (note && notelen)
        note[0] = '\0';
    if (err && errlen)
        err[0] = '\0';
    if (!pl)
        return GC_ENOMEM;
    for (int i = 0; i < n && rc == 0; i++) {
        const struct gc_io_path *p = &paths[i];

        if (!p->path)
            continue;
        if (strcmp(p->path, "-") == 0) {
            if (p->role != GC_IO_INPUT && stdout_user >= 0)
                rc = refuse(err, errlen, p, "%s writes standard output too",
                            paths[stdout_user].what);
            else if (p->role != GC_IO_INPUT)
                stdout_user = i;
            continue;
        }
        if (p->role != GC_IO_INPUT)
            rc = check_output(p, note, notelen, err, errlen);
        if (rc == 0)
            rc = place_of(p->path, &pl[i]);
    }
    if (rc == 0)
        rc = check_places(paths, pl, n, err, errlen);
    for (int i = 0; i < n; i++)
        free(pl[i].rest);
    free(pl);
    return rc;
}

/* ---- Folders ------------------------------------------------------------ */

int gc__mkdir_writable(const char *dir, char *err, size_t errlen)
{
    char shown[GC_PATH_SHOWN_LEN], *tmp = strdup(dir), *probe;
    size_t plen = strlen(dir) + sizeof("/.gpuchar.XXXXXX");
    int fd;

    if (!tmp)
        return GC_ENOMEM;
    gc_path_shown(dir, shown, sizeof(shown));
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(tmp, 0755);
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create folder %s: %s", shown, strerror(errno));
        free(tmp);
        return GC_EIO;
    }
    free(tmp);
    probe = malloc(plen);
    if (!probe)
        return GC_ENOMEM;
    snprintf(probe, plen, "%s/.gpuchar.XXXXXX", dir);
    fd = mkstemp(probe);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write into folder %s: %s", shown, strerror(errno));
        free(probe);
        return GC_EIO;
    }
    close(fd);
    unlink(probe);
    free(probe);
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
