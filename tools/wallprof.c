/* A wall-clock sampling profiler for finding where a run's time goes, host
 * work and waits on the device alike (the device machines have no perf).
 * Built apart and preloaded into gpuchar (scripts/device.sh quickprof):
 *
 *   gcc -O2 -shared -fPIC -o libwallprof.so tools/wallprof.c -lrt
 *   WALLPROF_OUT=prof.txt LD_PRELOAD=$PWD/libwallprof.so gpuchar run ...
 *
 * A timer on the monotonic clock interrupts the main thread every
 * WALLPROF_US microseconds (default 1000) and records its call stack; at
 * exit the stacks (return addresses) and the process's mappings are written
 * to WALLPROF_OUT for tools/wallprof.py to symbolize and sum. Diagnosis
 * only: not linked into gpuchar. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WP_MAX 400000
#define WP_DEPTH 32

static void *stacks[WP_MAX][WP_DEPTH];
static unsigned char depths[WP_MAX];
static volatile sig_atomic_t nsamples;
/* Resident pages every WP_RSS_EVERY samples (from /proc/self/statm). */
#define WP_RSS_EVERY 20
static long rss_pages[WP_MAX / WP_RSS_EVERY];
static timer_t timer;
static int armed;

static void on_tick(int sig)
{
    int i = nsamples;

    (void)sig;
    if (i >= WP_MAX)
        return;
    depths[i] = (unsigned char)backtrace(stacks[i], WP_DEPTH);
    if (i % WP_RSS_EVERY == 0) {
        char buf[64] = "";
        int fd = open("/proc/self/statm", O_RDONLY);
        if (fd >= 0) {
            ssize_t got = read(fd, buf, sizeof(buf) - 1);
            long size = 0, res = 0;
            close(fd);
            /* sscanf is not async-signal-safe: parse by hand. */
            for (ssize_t k = 0, f = 0; k < got; k++) {
                if (buf[k] == ' ') {
                    if (++f == 2)
                        break;
                } else if (f == 0) {
                    size = size * 10 + (buf[k] - '0');
                } else {
                    res = res * 10 + (buf[k] - '0');
                }
            }
            (void)size;
            rss_pages[i / WP_RSS_EVERY] = res;
        }
    }
    nsamples = i + 1;
}

__attribute__((constructor)) static void wallprof_start(void)
{
    const char *us_env = getenv("WALLPROF_US");
    long us = us_env ? atol(us_env) : 1000;
    struct sigaction sa;
    struct sigevent ev;
    struct itimerspec its;
    void *warm[4];

    if (!getenv("WALLPROF_OUT"))
        return;
    backtrace(warm, 4); /* loads the unwinder outside the handler */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_tick;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGRTMIN + 3, &sa, NULL);
    memset(&ev, 0, sizeof(ev));
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGRTMIN + 3;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0)
        return;
    its.it_interval.tv_sec = us / 1000000;
    its.it_interval.tv_nsec = (us % 1000000) * 1000;
    its.it_value = its.it_interval;
    if (timer_settime(timer, 0, &its, NULL) == 0)
        armed = 1;
}

__attribute__((destructor)) static void wallprof_stop(void)
{
    const char *path = getenv("WALLPROF_OUT");
    FILE *out, *maps;
    char line[512];
    int n;

    if (!armed || !path)
        return;
    timer_delete(timer);
    n = nsamples;
    out = fopen(path, "w");
    if (!out)
        return;
    fprintf(out, "interval_us %s\n", getenv("WALLPROF_US") ? getenv("WALLPROF_US") : "1000");
    maps = fopen("/proc/self/maps", "r");
    while (maps && fgets(line, sizeof(line), maps))
        fprintf(out, "map %s", line);
    if (maps)
        fclose(maps);
    fprintf(out, "page_size %ld\n", sysconf(_SC_PAGESIZE));
    for (int i = 0; i < n; i++) {
        if (i % WP_RSS_EVERY == 0)
            fprintf(out, "r %ld\n", rss_pages[i / WP_RSS_EVERY]);
        fputs("s", out);
        for (int j = 0; j < depths[i]; j++)
            fprintf(out, " %lx", (unsigned long)stacks[i][j]);
        fputc('\n', out);
    }
    fclose(out);
}
