/* The worker's side of a compile worker (see kworker.h): a start of this
 * program with GPUCHAR_COMPILE_WORKER=BACKEND:INDEX[@PCI] opens that device
 * for compiling (gc__device_open_compiler), says it is ready, then compiles
 * each request with the backend's compile() and answers with the binary or
 * the compiler's log, until the plan closes its end of the socket. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/device.h"
#include "core/kcache.h"
#include "core/kworker.h"
#include "core/kwire.h"

/* Tells the plan why this worker cannot serve; returns the exit status. */
static int refuse(int fd, const char *why)
{
    struct gc_kwire_msg m = {.type = GC_KWIRE_REFUSE};

    m.part[0] = (void *)why;
    m.len[0] = strlen(why);
    (void)gc__kwire_send(fd, &m);
    fprintf(stderr, "gpuchar compile worker: %s\n", why);
    return 1;
}

static const struct gc_backend_ops *find_backend(const char *name, size_t len)
{
    for (int i = 0; gc__backends[i]; i++)
        if (strlen(gc__backends[i]->name) == len && strncmp(gc__backends[i]->name, name, len) == 0)
            return gc__backends[i];
    return NULL;
}

/* Answers one request: the key computed from this worker's own device, and
 * the binary or the failure. */
static int answer(int fd, struct gc_device *d, const struct gc_kwire_msg *req)
{
    const char *opts = req->part[0] ? (const char *)req->part[0] : NULL;
    const char *src = req->part[1] ? (const char *)req->part[1] : "";
    struct gc_kwire_msg m = {.id = req->id};
    void *bin = NULL;
    size_t len = 0;
    char *log = NULL;
    int err, rc;

    gc__kcache_key(&d->info, d->ops->name, src, opts, m.key);
    err = d->ops->compile(d->dev, src, opts, &bin, &len, &log);
    if (err && !log)
        log = strdup(d->ops->last_error(d->dev));
    m.type = err ? GC_KWIRE_FAILED : GC_KWIRE_BINARY;
    m.status = err;
    m.part[0] = err ? NULL : bin;
    m.len[0] = err ? 0 : len;
    m.part[1] = log;
    m.len[1] = log ? strlen(log) : 0;
    rc = gc__kwire_send(fd, &m);
    free(bin);
    free(log);
    return rc;
}

/* Serves requests on fd until the plan closes it; the exit status. */
static int serve(int fd, struct gc_device *d, long fault_at)
{
    struct gc_kwire_msg hello = {.type = GC_KWIRE_HELLO}, req;
    char why[256];
    long n = 0;
    int rc;

    hello.part[0] = d->info.name;
    hello.len[0] = strlen(d->info.name);
    if (gc__kwire_send(fd, &hello) != 0)
        return 1;
    for (;;) {
        rc = gc__kwire_recv(fd, &req, why, sizeof(why));
        if (rc == GC_EIO && !why[0])
            return 0; /* the plan is done */
        if (rc) {
            fprintf(stderr, "gpuchar compile worker: bad request: %s\n", why[0] ? why : "?");
            return 1;
        }
        /* GPUCHAR_FAULT=worker[:N]: this worker dies at its N-th request. */
        if (++n == fault_at)
            _exit(70);
        rc =
            req.type == GC_KWIRE_REQUEST && strlen(req.key) == 32 ? answer(fd, d, &req) : GC_EINVAL;
        gc__kwire_free(&req);
        if (rc)
            return 1;
    }
}

/* What this process lists, for a refusal: a list that differs from the
 * run's (another order, a device left out, one whose facts cannot be read)
 * tells why the device was not found here. */
static void describe(const struct gc_backend_ops *ops, char *why, size_t whylen)
{
    size_t l = strlen(why);
    int n = ops->device_count();

    if (l + 1 < whylen)
        snprintf(why + l, whylen - l, " (this worker lists %d %s device%s", n, ops->name,
                 n == 1 ? "" : "s");
    for (int i = 0; i < n && i < 8; i++) {
        struct gc_device_info info;

        l = strlen(why);
        if (l + 1 >= whylen)
            break;
        if (ops->device_info(i, &info) != 0)
            snprintf(why + l, whylen - l, "%s %d: facts not readable", i ? ";" : ":", i);
        else
            snprintf(why + l, whylen - l, "%s %d: %s %s", i ? ";" : ":", i, info.name,
                     info.pci_bus_id[0] ? info.pci_bus_id : "(no PCI id)");
    }
    l = strlen(why);
    if (l + 1 < whylen)
        snprintf(why + l, whylen - l, ")");
}

/* The index in this process of the device the plan named: the one with
 * its PCI bus id where the plan gave one, else the plan's index. -1 when
 * no device here has that id. */
static int resolve(const struct gc_backend_ops *ops, long index, const char *pci)
{
    struct gc_device_info info;
    int n = ops->device_count();

    if (!pci[0])
        return (int)index;
    if (index < n && ops->device_info((int)index, &info) == 0 && strcmp(info.pci_bus_id, pci) == 0)
        return (int)index;
    for (int i = 0; i < n; i++)
        if (ops->device_info(i, &info) == 0 && strcmp(info.pci_bus_id, pci) == 0)
            return i;
    return -1;
}

/* Opens the device "BACKEND:INDEX[@PCI]" of spec and serves on fd. */
static int worker_main(char *spec, int fd)
{
    char *at = strchr(spec, '@');
    const char *pci = at ? at + 1 : "";
    const char *colon;
    const struct gc_backend_ops *ops;
    struct gc_device *d = NULL;
    char why[1024], *end = NULL;
    long index;
    int status, here;

    if (at)
        *at = '\0';
    colon = strrchr(spec, ':');
    ops = colon ? find_backend(spec, (size_t)(colon - spec)) : NULL;
    index = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!ops || index < 0 || !end || *end != '\0')
        return refuse(fd, "bad " GC_KWORKER_ENV " setting");
    why[0] = '\0';
    if (ops->init(why, sizeof(why)) != 0)
        return refuse(fd, why[0] ? why : "the backend did not initialise");
    here = resolve(ops, index, pci);
    if (here < 0) {
        snprintf(why, sizeof(why), "%s: no device with PCI bus id %s", ops->name, pci);
        describe(ops, why, sizeof(why));
        status = refuse(fd, why);
    } else if (gc__device_open_compiler(ops, here, &d, why, sizeof(why)) != 0) {
        if (!why[0])
            snprintf(why, sizeof(why), "cannot open the device");
        describe(ops, why, sizeof(why));
        status = refuse(fd, why);
    } else {
        status = serve(fd, d, d->fault_worker_at);
        gc__device_close(d);
    }
    if (ops->fini)
        ops->fini();
    return status;
}

int gc_compile_worker_entry(void)
{
    const char *spec = getenv(GC_KWORKER_ENV);
    struct stat st;
    char copy[160];
    int status;

    if (!spec) {
        gc__kworker_offer();
        return -1;
    }
    /* Only a plan starts workers, with a socket for standard input. */
    if (fstat(0, &st) != 0 || !S_ISSOCK(st.st_mode)) {
        fprintf(stderr, "gpuchar: " GC_KWORKER_ENV " is set but standard input is not the "
                        "socket of a compile plan: unset it\n");
        return 2;
    }
    /* The socket is standard input (util/spawn.h). The worker's own
     * children, if a driver starts any, must not be workers. */
    snprintf(copy, sizeof(copy), "%s", spec);
    unsetenv(GC_KWORKER_ENV);
    /* An interrupt from the terminal reaches the whole process group: the
     * plan that started this worker stops and closes the socket, which
     * ends it; killed mid-answer, it would only cost the plan a fallback. */
    signal(SIGINT, SIG_IGN);
    status = worker_main(copy, 0);
    close(0);
    return status;
}
