/* Helper processes of this program (see spawn.h): posix_spawn, which glibc
 * implements with a vfork-style clone followed at once by exec, so that the
 * child never runs the parent's drivers. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"
#include "util/spawn.h"

extern char **environ;

/* The environment this program started with, copied string by string before
 * main. A library loaded later may rewrite its environment in place (an
 * OpenCL ICD loader cuts OCL_ICD_FILENAMES at its first colon while it
 * tokenises it, and PoCL adds a variable of its own): a helper given the
 * environment as it is then would list other devices than this process. */
static char **g_start_env;

__attribute__((constructor)) static void keep_start_env(void)
{
    size_t n = 0;

    while (environ && environ[n])
        n++;
    g_start_env = calloc(n + 1, sizeof(*g_start_env));
    if (!g_start_env)
        return;
    for (size_t i = 0; i < n; i++)
        if (!(g_start_env[i] = strdup(environ[i]))) {
            while (i > 0)
                free(g_start_env[--i]);
            free(g_start_env);
            g_start_env = NULL;
            return;
        }
}

char **gc_start_environment_with(const char *env)
{
    char **from = g_start_env ? g_start_env : environ;
    const char *eq = strchr(env, '=');
    size_t nl = eq ? (size_t)(eq - env) + 1 : strlen(env), n = 0, k = 0;
    char **e;

    while (from && from[n])
        n++;
    e = malloc((n + 2) * sizeof(*e));
    if (!e)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strncmp(from[i], env, nl) != 0)
            e[k++] = from[i];
    e[k++] = (char *)env;
    e[k] = NULL;
    return e;
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#define GC_HAVE_CLOSEFROM 1
#else
#define GC_HAVE_CLOSEFROM 0
#endif

#if !GC_HAVE_CLOSEFROM
/* The last descriptor worth checking where closefrom is missing. */
static int fd_ceiling(void)
{
    long max = sysconf(_SC_OPEN_MAX);

    return max > 0 && max < 65536 ? (int)max : 65536;
}
#endif

/* The child keeps standard input, output and error only. A driver's own
 * descriptors (a GPU's control and device files, opened without
 * close-on-exec) would otherwise reach it; with them, a child's driver may
 * not find the device that this process holds. */
static int close_the_rest(posix_spawn_file_actions_t *fa)
{
#if GC_HAVE_CLOSEFROM
    return posix_spawn_file_actions_addclosefrom_np(fa, 3);
#else
    int rc = 0, top = fd_ceiling();

    for (int d = 3; rc == 0 && d < top; d++)
        if (fcntl(d, F_GETFD) >= 0)
            rc = posix_spawn_file_actions_addclose(fa, d);
    return rc;
#endif
}

int gc__spawn_self(const char *argv0, const char *env, pid_t *pid, int *fd, char *why,
                   size_t whylen)
{
    posix_spawn_file_actions_t fa;
    char *argv[2] = {(char *)argv0, NULL};
    char **envp = gc_start_environment_with(env);
    int sv[2] = {-1, -1}, rc;

    *pid = -1;
    *fd = -1;
    if (!envp) {
        snprintf(why, whylen, "out of host memory");
        return -ENOMEM;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        rc = -errno;
        snprintf(why, whylen, "socketpair: %s", strerror(errno));
        free(envp);
        return rc;
    }
    rc = posix_spawn_file_actions_init(&fa);
    if (rc == 0) {
        /* dup2 clears close-on-exec on the copy; sv[1] is never 0 or 1 here
         * as long as standard input and output are open. */
        if ((rc = posix_spawn_file_actions_adddup2(&fa, sv[1], 0)) == 0 &&
            (rc = posix_spawn_file_actions_adddup2(&fa, 2, 1)) == 0 &&
            (rc = close_the_rest(&fa)) == 0)
            rc = posix_spawn(pid, "/proc/self/exe", &fa, NULL, argv, envp);
        posix_spawn_file_actions_destroy(&fa);
    }
    free(envp);
    close(sv[1]);
    if (rc != 0) {
        snprintf(why, whylen, "cannot start /proc/self/exe: %s", strerror(rc));
        close(sv[0]);
        *pid = -1;
        return -rc;
    }
    *fd = sv[0];
    return 0;
}

int gc__spawn_wait(pid_t pid, int *status, double *cpu_s)
{
    struct rusage ru;
    pid_t r;

    do
        r = wait4(pid, status, 0, &ru);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return -errno;
    if (cpu_s)
        *cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                 (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    return 0;
}
