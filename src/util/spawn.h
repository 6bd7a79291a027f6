/* Helper processes that run this very program again: the running
 * executable (/proc/self/exe) started through exec, never a bare fork of a
 * process whose device drivers are initialised, with one setting added to
 * its environment and a stream socket to talk to it. */
#ifndef GC_UTIL_SPAWN_H
#define GC_UTIL_SPAWN_H

#include <sys/types.h>

/* Starts /proc/self/exe with argv { argv0, NULL } and the environment this
 * program started with, NAME=VALUE (env) added in place of any NAME= there
 * (gc_start_environment_with, gpuchar.h). The child's standard input is its
 * end of a socket pair, its standard output this process's standard error
 * (so that nothing it prints reaches this process's output), its standard
 * error this process's; no other descriptor of this process is open in it.
 * The parent's end goes to *fd (close-on-exec, so later children do not
 * hold it). Returns 0 with *pid and *fd set, else -errno (what failed is in
 * why). */
int gc__spawn_self(const char *argv0, const char *env, pid_t *pid, int *fd, char *why,
                   size_t whylen);

/* Waits for child pid to end. *status gets its wait status, *cpu_s (may be
 * NULL) the user and system time it used. Returns 0 or -errno. */
int gc__spawn_wait(pid_t pid, int *status, double *cpu_s);

#endif
