/* The stop signals of a run: the first SIGINT or SIGTERM asks every
 * measured device's context to stop at its next safe point; a second one
 * quits at once. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* What the handler needs; set before the handler is installed: the
 * context of every device the run measures. */
static gc_context *stop_ctxs[GC_CLI_MAX_DEVICES];
static volatile sig_atomic_t nstop_ctxs;
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t stop_live_line;

static void write_stderr(const char *s, size_t n)
{
    ssize_t r = write(STDERR_FILENO, s, n);

    (void)r;
}

/* Monotonic time of the first stop signal, seconds. */
static volatile double stop_first_s;

/* A signal arriving within this time of the first one is the same request
 * delivered twice, not a user insisting: timeout(1) and a kill of the
 * process group both send the signal to the process and to its group. */
#define STOP_REPEAT_WINDOW_S 1.0

static double monotonic_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The first SIGINT or SIGTERM asks the library to stop at its next safe
 * point, so the results so far are kept and written. A second one (later
 * than STOP_REPEAT_WINDOW_S after the first) restores the default action and
 * raises the signal again, so a user who does not want to wait can still
 * quit at once. Only async-signal-safe calls here (clock_gettime is one). */
static void on_stop_signal(int sig)
{
    static const char clear[] = "\r\033[K";
    static const char msg[] =
        "gpuchar: stopping at the next safe point; interrupt again to quit at once\n";
    int saved_errno = errno;

    if (stop_signal == 0) {
        stop_signal = sig;
        stop_first_s = monotonic_s();
        for (int i = 0; i < nstop_ctxs; i++)
            gc_request_stop(stop_ctxs[i]);
        if (stop_live_line)
            write_stderr(clear, sizeof(clear) - 1);
        write_stderr(msg, sizeof(msg) - 1);
    } else if (monotonic_s() - stop_first_s < STOP_REPEAT_WINDOW_S) {
        /* the same request, delivered twice */
    } else {
        struct sigaction sa;

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = SIG_DFL;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, NULL);
        /* The signal is blocked while its handler runs: it is delivered,
         * with the default action, as soon as the handler returns. */
        raise(sig);
    }
    errno = saved_errno;
}

static void install_handlers(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    /* Restart interrupted reads and writes: the stop is polled, not
     * delivered through EINTR. */
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

static void restore_handlers(const struct sigaction *old_int, const struct sigaction *old_term)
{
    sigaction(SIGINT, old_int, NULL);
    sigaction(SIGTERM, old_term, NULL);
}

static struct sigaction old_int, old_term;

void gc__run_signals_install(gc_context *const *ctxs, int n, bool live_line)
{
    nstop_ctxs = 0;
    for (int i = 0; i < n && i < GC_CLI_MAX_DEVICES; i++)
        stop_ctxs[i] = ctxs[i];
    nstop_ctxs = n < GC_CLI_MAX_DEVICES ? n : GC_CLI_MAX_DEVICES;
    stop_signal = 0;
    stop_live_line = live_line;
    install_handlers(&old_int, &old_term);
}

int gc__run_signals_restore(void)
{
    restore_handlers(&old_int, &old_term);
    nstop_ctxs = 0;
    return stop_signal;
}

int gc__run_stop_signal(void)
{
    return stop_signal;
}
