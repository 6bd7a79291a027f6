/* The progress display of 'gpuchar run' on stderr: one line rewritten in
 * place on a terminal, or one plain line per finished benchmark. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

/* Moves to the start of the line and erases it (ANSI "erase in line"). */
#define CLEAR_LINE "\r\033[K"

static int terminal_width(void)
{
    struct winsize ws;
    const char *env;

    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    env = getenv("COLUMNS");
    if (env && atoi(env) > 0)
        return atoi(env);
    return 80;
}

void gc__progress_init(struct gc_cli_progress *p, bool quiet, bool no_progress, bool verbose)
{
    const char *term = getenv("TERM");

    memset(p, 0, sizeof(*p));
    /* A dumb terminal would print the escape sequence literally. */
    p->live =
        !quiet && !no_progress && isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
    p->lines = verbose && !p->live;
    p->width = p->live ? terminal_width() : 0;
}

bool gc__progress_enabled(const struct gc_cli_progress *p)
{
    return p->live || p->lines;
}

void gc__progress_update(void *user, int done, int total, const char *bench,
                         const char *status_line)
{
    struct gc_cli_progress *p = user;
    char line[512];
    int n;

    if (!p || !gc__progress_enabled(p))
        return;
    n = snprintf(line, sizeof(line), "[%d/%d] %s  %s", done, total, bench ? bench : "?",
                 status_line ? status_line : "");
    if (n < 0)
        return;
    if (p->lines) {
        fprintf(stderr, "%s\n", line);
        return;
    }
    /* A line longer than the terminal wraps, and '\r' would then return to
     * the wrapped part only: cut it to one column less than the width. */
    if (p->width > 1 && (size_t)p->width - 1 < sizeof(line))
        line[p->width - 1] = '\0';
    fprintf(stderr, CLEAR_LINE "%s", line);
    fflush(stderr);
    p->shown = true;
}

/* "42 s", "3m05s", "1h02m". */
static void fmt_duration(char *buf, size_t len, double s)
{
    long t = isfinite(s) && s > 0 ? (long)(s + 0.5) : 0;

    if (t < 60)
        snprintf(buf, len, "%lds", t);
    else if (t < 3600)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
}

int gc__progress_format(char *buf, size_t len, const struct gc_progress_info *info)
{
    char spent[32], left[32], cfg[48];
    bool eta = isfinite(info->eta_s);

    fmt_duration(spent, sizeof(spent), info->elapsed_s);
    if (eta)
        fmt_duration(left, sizeof(left), info->eta_s);
    /* "config 3/31" where the benchmark said how many; a count that ran
     * past its total (a search that measured more) shows the count only. */
    if (info->configs_total > 0 && info->configs <= info->configs_total)
        snprintf(cfg, sizeof(cfg), "config %d/%d", info->configs, info->configs_total);
    else
        snprintf(cfg, sizeof(cfg), "%d config%s", info->configs, info->configs == 1 ? "" : "s");
    return snprintf(buf, len, "[%d/%d] %s  %s, %.0f s  elapsed %s  ETA %s%s", info->done + 1,
                    info->total, info->bench ? info->bench : "?", cfg, info->bench_s, spent,
                    eta ? "~" : "", eta ? left : "-");
}

void gc__progress_detail(void *user, const struct gc_progress_info *info)
{
    struct gc_cli_progress *p = user;
    char line[512];

    /* Finished benchmarks are shown by gc__progress_update. */
    if (!p || !p->live || !info || info->finished)
        return;
    if (gc__progress_format(line, sizeof(line), info) < 0)
        return;
    if (p->width > 1 && (size_t)p->width - 1 < sizeof(line))
        line[p->width - 1] = '\0';
    fprintf(stderr, CLEAR_LINE "%s", line);
    fflush(stderr);
    p->shown = true;
}

void gc__progress_clear(struct gc_cli_progress *p)
{
    if (!p->shown)
        return;
    fputs(CLEAR_LINE, stderr);
    fflush(stderr);
    p->shown = false;
}

void gc__progress_note(struct gc_cli_progress *p, const char *fmt, ...)
{
    va_list ap;

    gc__progress_clear(p);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
