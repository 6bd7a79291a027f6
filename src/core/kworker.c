/* The compile plan's side of a compile worker (see kworker.h). */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"
#include "core/kworker.h"
#include "core/kwire.h"
#include "util/spawn.h"

static atomic_bool offered;

bool gc__kworker_offered(void)
{
    return atomic_load(&offered);
}

void gc__kworker_offer(void)
{
    atomic_store(&offered, true);
}

int gc__kworker_start(const char *backend, int index, const char *pci, struct gc_kworker *w,
                      char *why, size_t whylen)
{
    char env[160];
    int rc;

    memset(w, 0, sizeof(*w));
    w->fd = -1;
    snprintf(env, sizeof(env), GC_KWORKER_ENV "=%s:%d%s%s", backend, index,
             pci && pci[0] ? "@" : "", pci && pci[0] ? pci : "");
    rc = gc__spawn_self("gpuchar-compile-worker", env, &w->pid, &w->fd, why, whylen);
    if (rc) {
        w->dead = true;
        return GC_EIO;
    }
    /* A worker that hangs (a driver that deadlocks) must not hold the run:
     * past the limit it counts as failed and the plan compiles its program
     * itself. No single compilation comes near it. */
    struct timeval tv = {.tv_sec = GC_KWORKER_TIMEOUT_S};
    (void)setsockopt(w->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    (void)setsockopt(w->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    return 0;
}

void gc__kworker_attach(struct gc_kworker *w, int fd)
{
    memset(w, 0, sizeof(*w));
    w->pid = -1;
    w->fd = fd;
}

static int dead(struct gc_kworker *w, int rc)
{
    w->dead = true;
    return rc;
}

/* Waits for the worker's HELLO (or its refusal) before its first answer. */
static int await_ready(struct gc_kworker *w, char *why, size_t whylen)
{
    struct gc_kwire_msg m;
    int rc;

    if (w->ready)
        return 0;
    rc = gc__kwire_recv(w->fd, &m, why, whylen);
    if (rc) {
        if (!why[0])
            snprintf(why, whylen, "it ended before it was ready");
        return dead(w, rc);
    }
    if (m.type == GC_KWIRE_HELLO) {
        snprintf(w->device, sizeof(w->device), "%s", m.part[0] ? (char *)m.part[0] : "");
        w->ready = true;
    } else {
        snprintf(why, whylen, "it could not start: %.600s",
                 m.type == GC_KWIRE_REFUSE && m.part[0] ? (char *)m.part[0] : "(no reason)");
        rc = GC_EBACKEND;
    }
    gc__kwire_free(&m);
    return rc ? dead(w, rc) : 0;
}

/* Checks that reply m answers request id for key. */
static int check_reply(const struct gc_kwire_msg *m, unsigned id, const char *key, char *why,
                       size_t whylen)
{
    if (m->type != GC_KWIRE_BINARY && m->type != GC_KWIRE_FAILED) {
        snprintf(why, whylen, "it sent a message of type %u where an answer was due",
                 (unsigned)m->type);
        return GC_EINVAL;
    }
    if (m->id != id) {
        snprintf(why, whylen, "it answered request %u where %u was due", (unsigned)m->id, id);
        return GC_EINVAL;
    }
    if (strcmp(m->key, key) != 0) {
        snprintf(why, whylen, "it compiled for another device or version (key %s, expected %s)",
                 m->key, key);
        return GC_EINVAL;
    }
    if (m->type == GC_KWIRE_BINARY && m->len[0] == 0) {
        snprintf(why, whylen, "it sent an empty binary");
        return GC_EINVAL;
    }
    if (m->type == GC_KWIRE_FAILED && m->status >= 0) {
        snprintf(why, whylen, "it reported a failure without an error code");
        return GC_EINVAL;
    }
    return 0;
}

int gc__kworker_compile(struct gc_kworker *w, const char *key, const char *src, const char *options,
                        struct gc_kworker_out *out, char *why, size_t whylen)
{
    struct gc_kwire_msg m = {.type = GC_KWIRE_REQUEST, .id = ++w->next_id};
    int rc;

    memset(out, 0, sizeof(*out));
    why[0] = '\0';
    if (w->dead) {
        snprintf(why, whylen, "it failed before");
        return GC_EIO;
    }
    snprintf(m.key, sizeof(m.key), "%s", key);
    m.part[0] = (void *)(options ? options : "");
    m.len[0] = options ? strlen(options) : 0;
    m.part[1] = (void *)src;
    m.len[1] = strlen(src);
    rc = await_ready(w, why, whylen);
    if (rc)
        return rc;
    rc = gc__kwire_send(w->fd, &m);
    if (rc) {
        snprintf(why, whylen, "it ended before it took a request");
        return dead(w, rc);
    }
    rc = gc__kwire_recv(w->fd, &m, why, whylen);
    if (rc) {
        if (!why[0])
            snprintf(why, whylen, "it ended before it answered");
        return dead(w, rc);
    }
    rc = check_reply(&m, w->next_id, key, why, whylen);
    if (rc) {
        gc__kwire_free(&m);
        return dead(w, rc);
    }
    w->compiled++;
    out->err = m.type == GC_KWIRE_BINARY ? 0 : m.status;
    out->bin = m.type == GC_KWIRE_BINARY ? m.part[0] : NULL;
    out->len = m.type == GC_KWIRE_BINARY ? m.len[0] : 0;
    out->log = m.part[1];
    if (m.type != GC_KWIRE_BINARY)
        free(m.part[0]);
    return 0;
}

int gc__kworker_stop(struct gc_kworker *w, double *cpu_s, char *why, size_t whylen)
{
    int status = 0;

    *cpu_s = 0;
    why[0] = '\0';
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    if (w->pid <= 0)
        return 0;
    /* A worker that failed may still be running (hung, or waiting after a
     * wrong answer): it is of no further use. */
    if (w->dead)
        kill(w->pid, SIGKILL);
    if (gc__spawn_wait(w->pid, &status, cpu_s) != 0) {
        snprintf(why, whylen, "cannot wait for process %ld", (long)w->pid);
        w->pid = -1;
        return GC_EIO;
    }
    w->pid = -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status))
        snprintf(why, whylen, "exit status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(why, whylen, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    return GC_EIO;
}
