/* Figures through gnuplot: each figure becomes a short script (its data as
 * inline data blocks, so nothing else is read), all scripts run in one
 * gnuplot process, and gnuplot's SVG and PNG terminals write the files. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/outfile.h"
#include "report/plot.h"
#include "report/units.h"

extern char **environ;

/* Colours of the curves (gnuplot's default cycle is hard to tell apart in
 * print beyond six). Marks use their own darker tones. */
static const char *const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
static const char *const mark_colours[] = {"#444444", "#b2182b", "#2166ac",
                                           "#1b7837", "#762a83", "#e08214"};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))
#define NMARKCOLOURS (sizeof(mark_colours) / sizeof(mark_colours[0]))

/* A gnuplot single-quoted string: no escapes but '' for a quote. */
static void put_str(FILE *out, const char *s)
{
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', out);
        if (*s == '\n' || *s == '\r')
            fputc(' ', out);
        else
            fputc(*s, out);
    }
    fputc('\'', out);
}

/* How one axis is written: values divided by div; the label's unit is the
 * scaled one. A log axis in bytes keeps raw values and prints binary
 * prefixes itself. */
struct axis {
    double div;
    char unit[48];
    bool bytes_log;
};

static void choose_axis(const struct gc_figure *f, bool x, struct axis *a)
{
    const char *unit = x ? f->xunit : f->yunit;
    bool logax = x ? f->logx : f->logy;
    double big = 0;
    struct gc_unit_scale sc;

    a->div = 1;
    snprintf(a->unit, sizeof(a->unit), "%s", unit);
    a->bytes_log = logax && strcmp(unit, "B") == 0;
    if (a->bytes_log)
        return;
    for (int i = 0; i < f->nlayers; i++)
        for (int j = 0; j < f->layers[i].s->npoints; j++) {
            double v = x ? f->layers[i].s->points[j].x : f->layers[i].s->points[j].y;

            if (isfinite(v) && fabs(v) > big)
                big = fabs(v);
        }
    gc__unit_scale(big, unit, &sc);
    if (!(sc.div > 0) || !isfinite(sc.div))
        return;
    a->div = sc.div;
    snprintf(a->unit, sizeof(a->unit), "%s", sc.unit);
}

static void put_label(FILE *out, const char *cmd, const char *label, const char *unit_from,
                      const struct axis *a)
{
    char buf[192];
    const char *br = strrchr(label, '[');
    size_t l = br ? (size_t)(br - label) : strlen(label);

    /* The label is "name [unit]"; the unit is replaced by the scaled one. */
    while (l > 0 && label[l - 1] == ' ')
        l--;
    if (unit_from[0] && a->unit[0])
        snprintf(buf, sizeof(buf), "%.*s [%s]", (int)l, label, a->unit);
    else
        snprintf(buf, sizeof(buf), "%s", label);
    fprintf(out, "set %s ", cmd);
    put_str(out, buf);
    fputc('\n', out);
}

/* Whether a point can be drawn on the axes (log axes take positive values). */
static bool drawable(const struct gc_figure *f, double x, double y)
{
    return isfinite(x) && isfinite(y) && (!f->logx || x > 0) && (!f->logy || y > 0);
}

static void put_num(FILE *out, double v)
{
    fprintf(out, "%.10g", v);
}

static void log_axis(FILE *out, const char *ax, int base, const struct axis *a, double lo,
                     double hi)
{
    fprintf(out, "set logscale %s %d\n", ax, base);
    if (a->bytes_log && lo > 0 && hi >= lo) {
        /* Ticks at powers of two, at most about ten of them, labelled with
         * binary prefixes ("64 KiB"). */
        int e0 = (int)floor(log2(lo)), e1 = (int)ceil(log2(hi));
        int step = (e1 - e0 + 9) / 10;
        bool first = true;

        if (step < 1)
            step = 1;
        fprintf(out, "set %stics (", ax);
        for (int e = e0; e <= e1; e += step) {
            char q[64];

            gc__fmt_quantity(q, sizeof(q), ldexp(1, e), "B");
            fprintf(out, "%s'%s' %.17g", first ? "" : ", ", q, ldexp(1, e));
            first = false;
        }
        fprintf(out, ")\n");
    } else if (base == 2) {
        fprintf(out, "set format %s '%%g'\n", ax);
    }
}

/* The curve a series belongs to: a model or a fit takes the colour of the
 * measurement it models ("a2_ilp1_basic" goes with "a2_ilp1"). */
static size_t base_len(const char *name)
{
    static const char *const tails[] = {"_basic", "_refined", "_fit", "_model"};
    size_t l = strlen(name);

    for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
        size_t t = strlen(tails[i]);

        if (l > t && strcmp(name + l - t, tails[i]) == 0)
            return l - t;
    }
    return l;
}

static int colour_index(const struct gc_figure *f, int layer)
{
    const char *name = f->layers[layer].s->name;
    size_t l = base_len(name);
    int idx = 0;

    for (int k = 0; k < f->nlayers; k++) {
        const char *other = f->layers[k].s->name;
        size_t lo = base_len(other);
        bool seen = false;

        if (f->layers[k].run != 0)
            continue;
        if (lo == l && strncmp(other, name, l) == 0)
            return idx;
        /* Count distinct bases that appear before this one. */
        for (int j = 0; j < k && !seen; j++)
            seen = f->layers[j].run == 0 && base_len(f->layers[j].s->name) == lo &&
                   strncmp(f->layers[j].s->name, other, lo) == 0;
        idx += !seen;
    }
    return idx;
}

/* The extent of the drawn points, for the log axes' ticks and the y range. */
struct extent {
    double xlo, xhi, ylo, yhi;
};

/* Data blocks: x, y, and the sample range of y (min, max) where the point
 * was sampled. */
static void put_layer_data(const struct gc_figure *f, int idx, const struct axis *ax,
                           const struct axis *ay, struct extent *e, FILE *out)
{
    for (int i = 0; i < f->nlayers; i++) {
        const struct gc_series *s = f->layers[i].s;

        fprintf(out, "$F%dL%d << EOD\n", idx, i);
        for (int j = 0; j < s->npoints; j++) {
            const struct gc_point *p = &s->points[j];
            double lo = p->y, hi = p->y;

            if (!drawable(f, p->x, p->y))
                continue;
            if (p->stats.n > 1 && isfinite(p->stats.min) && isfinite(p->stats.max) &&
                (!f->logy || p->stats.min > 0)) {
                lo = p->stats.min;
                hi = p->stats.max;
            }
            put_num(out, p->x / ax->div);
            fputc(' ', out);
            put_num(out, p->y / ay->div);
            fputc(' ', out);
            put_num(out, lo / ay->div);
            fputc(' ', out);
            put_num(out, hi / ay->div);
            fputc('\n', out);
            e->xlo = p->x < e->xlo ? p->x : e->xlo;
            e->xhi = p->x > e->xhi ? p->x : e->xhi;
            e->ylo = p->y < e->ylo ? p->y : e->ylo;
            e->yhi = p->y > e->yhi ? p->y : e->yhi;
        }
        fprintf(out, "EOD\n");
    }
}

/* A data block for each drawable level mark (a segment from..to). */
static void put_mark_data(const struct gc_figure *f, int idx, const struct axis *ax,
                          const struct axis *ay, FILE *out)
{
    for (int i = 0; i < f->nmarks; i++) {
        const struct gc_fig_mark *m = &f->marks[i];

        if (m->kind != GC_FIG_LEVEL || !isfinite(m->from) || !drawable(f, m->from, m->v) ||
            !drawable(f, m->to, m->v))
            continue;
        fprintf(out, "$F%dM%d << EOD\n", idx, i);
        put_num(out, m->from / ax->div);
        fputc(' ', out);
        put_num(out, m->v / ay->div);
        fputc('\n', out);
        put_num(out, m->to / ax->div);
        fputc(' ', out);
        put_num(out, m->v / ay->div);
        fprintf(out, "\nEOD\n");
    }
}

/* The terminal (SVG, or PNG through cairo where gnuplot has it), the
 * output, the title, the labels and the axes. */
static void put_frame(const struct gc_figure *f, bool svg, bool pngcairo, const char *path,
                      const struct axis *ax, const struct axis *ay, const struct extent *e,
                      FILE *out)
{
    fprintf(out, "reset\n");
    if (svg)
        fprintf(out, "set terminal svg size 760,470 dynamic noenhanced "
                     "font 'DejaVu Sans,11' background '#ffffff'\n");
    else if (pngcairo)
        fprintf(out, "set terminal pngcairo size 1280,790 noenhanced "
                     "font 'DejaVu Sans,13' background '#ffffff'\n");
    else
        fprintf(out, "set terminal png size 1280,790 noenhanced background '#ffffff'\n");
    fprintf(out, "set output ");
    put_str(out, path);
    fprintf(out, "\nset encoding utf8\nset title ");
    put_str(out, f->title);
    fputc('\n', out);
    put_label(out, "xlabel", f->xlabel, f->xunit, ax);
    put_label(out, "ylabel", f->ylabel, f->yunit, ay);
    fprintf(out, "set grid xtics ytics lc rgb '#dddddd' lt 1\n"
                 "set key below left Left reverse samplen 3 spacing 1.1\n"
                 "set border 3\nset xtics nomirror\nset ytics nomirror\n"
                 "set bars small\n");
    if (!f->logx && !f->logy)
        fprintf(out, "set offsets 0, 0, graph 0.05, graph 0.02\n");
    if (f->logx)
        log_axis(out, "x", f->logx_base, ax, e->xlo, e->xhi);
    if (f->logy)
        log_axis(out, "y", f->logy_base, ay, e->ylo, e->yhi);
    if (!f->logy && e->ylo >= 0)
        fprintf(out, "set yrange [0:*]\n");
}

/* Bands first, behind the curves; vertical marks as arrows. */
static void put_mark_objects(const struct gc_figure *f, const struct axis *ax,
                             const struct axis *ay, FILE *out)
{
    for (int i = 0; i < f->nmarks; i++) {
        const struct gc_fig_mark *m = &f->marks[i];
        const char *c = mark_colours[(size_t)i % NMARKCOLOURS];
        bool band = isfinite(m->band_lo) && isfinite(m->band_hi) && m->band_lo < m->band_hi;

        if (m->kind == GC_FIG_XMARK) {
            if (!drawable(f, m->v, 1))
                continue;
            if (band && drawable(f, m->band_lo, 1))
                fprintf(out,
                        "set object rect from %.10g, graph 0 to %.10g, graph 1 "
                        "fc rgb '%s' fs transparent solid 0.12 noborder behind\n",
                        m->band_lo / ax->div, m->band_hi / ax->div, c);
            fprintf(out,
                    "set arrow from %.10g, graph 0 to %.10g, graph 1 nohead "
                    "dt 3 lw 1.5 lc rgb '%s' front\n",
                    m->v / ax->div, m->v / ax->div, c);
        } else if (m->kind == GC_FIG_LEVEL && band && isfinite(m->from) &&
                   drawable(f, m->from, m->band_lo) && drawable(f, m->to, m->band_hi)) {
            fprintf(out,
                    "set object rect from %.10g, %.10g to %.10g, %.10g "
                    "fc rgb '%s' fs transparent solid 0.18 noborder behind\n",
                    m->from / ax->div, m->band_lo / ay->div, m->to / ax->div, m->band_hi / ay->div,
                    c);
        }
    }
}

/* The plot command's curves, one per layer. */
static void put_layer_plots(const struct gc_figure *f, int idx, FILE *out)
{
    int nplots = 0;

    for (int i = 0; i < f->nlayers; i++) {
        const struct gc_fig_layer *l = &f->layers[i];
        int run = l->run;
        const char *c;
        bool sampled = false;

        /* A series keeps its colour in every run of a comparison (the runs
         * differ by dash and point type), and a model shares the colour of
         * what it models. */
        c = colours[(size_t)colour_index(f, i) % NCOLOURS];
        for (int j = 0; j < l->s->npoints; j++)
            sampled |= l->s->points[j].stats.n > 1;
        fprintf(out, "%s$F%dL%d ", nplots++ ? ", \\\n     " : "", idx, i);
        switch (l->style) {
        case GC_FIG_MODEL:
            fprintf(out, "using 1:2 with lines lw 2 dt %d lc rgb '%s'",
                    strstr(l->s->name, "refined") ? 3 : 2 + 2 * (run % 2), c);
            break;
        case GC_FIG_SCATTER:
            fprintf(out, "using 1:2 with points pt %d ps 1.2 lc rgb '%s'", 7 + 2 * (run % 3), c);
            break;
        case GC_FIG_MEASURED:
            if (sampled)
                fprintf(out,
                        "using 1:2:3:4 with yerrorlines lw 1.5 dt %d pt %d ps 0.8 "
                        "lc rgb '%s'",
                        1 + run % 4, 7 + 2 * (run % 3), c);
            else
                fprintf(out, "using 1:2 with linespoints lw 1.5 dt %d pt %d ps 0.8 lc rgb '%s'",
                        1 + run % 4, 7 + 2 * (run % 3), c);
            break;
        }
        fprintf(out, " title ");
        put_str(out, l->title);
    }
}

/* The plot command's marks: limits and levels as lines, the rest as key
 * entries. */
static void put_mark_plots(const struct gc_figure *f, int idx, const struct axis *ay, FILE *out)
{
    int mc = 0;

    for (int i = 0; i < f->nmarks; i++) {
        const struct gc_fig_mark *m = &f->marks[i];
        const char *c = mark_colours[(size_t)(mc++) % NMARKCOLOURS];

        fprintf(out, ", \\\n     ");
        if (m->kind == GC_FIG_LIMIT)
            fprintf(out, "%.10g with lines lw 2 dt 2 lc rgb '%s' title ", m->v / ay->div, c);
        else if (m->kind == GC_FIG_LEVEL && isfinite(m->from) && drawable(f, m->from, m->v) &&
                 drawable(f, m->to, m->v))
            fprintf(out, "$F%dM%d using 1:2 with lines lw 3 lc rgb '%s' title ", idx, i, c);
        else if (m->kind == GC_FIG_LEVEL)
            fprintf(out, "%.10g with lines lw 2 dt 4 lc rgb '%s' title ", m->v / ay->div, c);
        else
            fprintf(out, "keyentry with lines dt 3 lw 1.5 lc rgb '%s' title ", c);
        put_str(out, m->label);
    }
}

int gc__plot_script(const struct gc_figure *f, int idx, const char *svg_path, const char *png_path,
                    bool pngcairo, FILE *out)
{
    struct axis ax, ay;
    struct extent e = {INFINITY, -INFINITY, INFINITY, -INFINITY};

    if (!f || !out || f->nlayers < 1)
        return GC_EINVAL;
    choose_axis(f, true, &ax);
    choose_axis(f, false, &ay);
    put_layer_data(f, idx, &ax, &ay, &e, out);
    put_mark_data(f, idx, &ax, &ay, out);
    for (int t = 0; t < 2; t++) {
        const char *path = t == 0 ? svg_path : png_path;

        if (!path)
            continue;
        put_frame(f, t == 0, pngcairo, path, &ax, &ay, &e, out);
        put_mark_objects(f, &ax, &ay, out);
        fprintf(out, "plot ");
        put_layer_plots(f, idx, out);
        put_mark_plots(f, idx, &ay, out);
        fprintf(out, "\nunset output\n");
    }
    return ferror(out) ? GC_EIO : 0;
}

/* Runs prog with the arguments, stdout to /dev/null and stderr to errfile.
 * Returns the exit status, 127 when the program could not be started, or -1
 * when the process could not be created. */
static int spawn(const char *prog, char *const argv[], const char *errfile, const char *outfile)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int st, rc;

    if (posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, outfile ? outfile : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, errfile, O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    rc = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return rc == ENOENT || rc == EACCES ? 127 : -1;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* The first line of f that names an error ("line 12: ..."), else the
 * first line. */
static void first_error(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char line[512], first[512] = "";

    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!first[0] && line[0])
            snprintf(first, sizeof(first), "%s", line);
        if (strstr(line, "line ") && strstr(line, ":")) {
            snprintf(first, sizeof(first), "%s", line);
            break;
        }
    }
    fclose(f);
    if (errlen && first[0])
        snprintf(err, errlen, "%s", first);
}

static const char *tmp_root(void)
{
    const char *t = getenv("TMPDIR");

    return t && *t ? t : "/tmp";
}

int gc_plot_probe(struct gc_plot_tool *out)
{
    const char *env = getenv("GPUCHAR_GNUPLOT");
    char dir[512], script[600], errf[600], outf[600], line[256];
    char *argv[3];
    FILE *f;
    int st;

    if (!out)
        return GC_EINVAL;
    memset(out, 0, sizeof(*out));
    snprintf(out->path, sizeof(out->path), "%s", env && *env ? env : "gnuplot");
    snprintf(dir, sizeof(dir), "%s/gpuchar-plot.XXXXXX", tmp_root());
    if (!mkdtemp(dir)) {
        snprintf(out->reason, sizeof(out->reason), "cannot create a temporary folder in %s: %s",
                 tmp_root(), strerror(errno));
        return 0;
    }
    snprintf(script, sizeof(script), "%s/probe.gp", dir);
    snprintf(errf, sizeof(errf), "%s/err", dir);
    snprintf(outf, sizeof(outf), "%s/out", dir);
    f = fopen(script, "w");
    if (f) {
        fputs("set print '-'\n"
              "print sprintf('gnuplot %.1f patchlevel %s', GPVAL_VERSION, GPVAL_PATCHLEVEL)\n"
              "print strstrt(GPVAL_TERMINALS, 'pngcairo') > 0 ? 'pngcairo' : 'gd'\n"
              "print strstrt(GPVAL_TERMINALS, 'svg') > 0 ? 'svg' : 'nosvg'\n",
              f);
        fclose(f);
    }
    argv[0] = out->path;
    argv[1] = script;
    argv[2] = NULL;
    st = spawn(out->path, argv, errf, outf);
    if (st == 127 || st < 0) {
        snprintf(out->reason, sizeof(out->reason),
                 "%.120s not found (install the Debian package gnuplot-nox; "
                 "scripts/install-deps.sh does)",
                 out->path);
    } else if (st != 0) {
        char e[200] = "";

        first_error(errf, e, sizeof(e));
        snprintf(out->reason, sizeof(out->reason), "%.100s failed (exit status %d): %.120s",
                 out->path, st, e[0] ? e : "no message");
    } else if ((f = fopen(outf, "r")) != NULL) {
        int k = 0;

        while (fgets(line, sizeof(line), f)) {
            line[strcspn(line, "\n")] = '\0';
            if (k == 0)
                snprintf(out->version, sizeof(out->version), "%.63s", line);
            else if (k == 1)
                out->pngcairo = strcmp(line, "pngcairo") == 0;
            else if (k == 2 && strcmp(line, "svg") == 0)
                out->available = true;
            k++;
        }
        fclose(f);
        if (!out->available)
            snprintf(out->reason, sizeof(out->reason),
                     "%.120s has no svg terminal (install the Debian package gnuplot-nox)",
                     out->path);
    }
    unlink(script);
    unlink(errf);
    unlink(outf);
    rmdir(dir);
    return 0;
}

/* Writes the scripts of figures [from, to) into one file and runs it. */
static int run_batch(const struct gc_plot_tool *t, const char *dir, const struct gc_figure *f,
                     int from, int to, const char *const *svg, const char *const *png, char *err,
                     size_t errlen)
{
    char script[600], errf[600];
    char *argv[3];
    FILE *out;
    int rc = 0, st;

    snprintf(script, sizeof(script), "%s/figures.gp", dir);
    snprintf(errf, sizeof(errf), "%s/gnuplot.err", dir);
    out = fopen(script, "w");
    if (!out) {
        char shown[GC_PATH_SHOWN_LEN];

        snprintf(err, errlen, "cannot write %s: %s", gc_path_shown(script, shown, sizeof(shown)),
                 strerror(errno));
        return GC_EIO;
    }
    for (int i = from; i < to && rc == 0; i++)
        rc = gc__plot_script(&f[i], i, svg ? svg[i] : NULL, png ? png[i] : NULL, t->pngcairo, out);
    if (fclose(out) != 0 && rc == 0)
        rc = GC_EIO;
    if (rc) {
        char shown[GC_PATH_SHOWN_LEN];

        snprintf(err, errlen, "cannot write %s", gc_path_shown(script, shown, sizeof(shown)));
        return rc;
    }
    argv[0] = (char *)t->path;
    argv[1] = script;
    argv[2] = NULL;
    st = spawn(t->path, argv, errf, NULL);
    if (st == 127 || st < 0) {
        snprintf(err, errlen, "cannot run %s", t->path);
        rc = GC_ENOLIB;
    } else if (st != 0) {
        char e[400] = "";

        first_error(errf, e, sizeof(e));
        snprintf(err, errlen, "%s: figure %s: %s", t->path, f[from].id, e[0] ? e : "failed");
        rc = GC_EIO;
    }
    unlink(script);
    unlink(errf);
    return rc;
}

static bool nonempty(const char *path)
{
    struct stat st;

    return !path || (stat(path, &st) == 0 && st.st_size > 0);
}

int gc__plot_render(const struct gc_plot_tool *t, const struct gc_figure *f, int n,
                    const char *const *svg, const char *const *png, bool *ok, char *err,
                    size_t errlen)
{
    char dir[512], e[512] = "";
    int rc, failed = 0;

    if (errlen)
        err[0] = '\0';
    for (int i = 0; i < n; i++)
        ok[i] = false;
    if (!t || !t->available) {
        snprintf(err, errlen, "%s", t ? t->reason : "gnuplot not probed");
        return GC_ENOLIB;
    }
    if (n == 0)
        return 0;
    snprintf(dir, sizeof(dir), "%s/gpuchar-plot.XXXXXX", tmp_root());
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a temporary folder in %s: %s", tmp_root(),
                 strerror(errno));
        return GC_EIO;
    }
    rc = run_batch(t, dir, f, 0, n, svg, png, e, sizeof(e));
    if (rc == GC_EIO) {
        /* Some figure failed: draw each alone to keep the others. */
        snprintf(err, errlen, "%s", e);
        for (int i = 0; i < n; i++) {
            int r1 = run_batch(t, dir, f, i, i + 1, svg, png, e, sizeof(e));

            if (r1 == 0)
                continue;
            if (r1 == GC_ENOLIB) {
                rc = r1;
                break;
            }
        }
    }
    for (int i = 0; i < n && rc != GC_ENOLIB; i++) {
        ok[i] = nonempty(svg ? svg[i] : NULL) && nonempty(png ? png[i] : NULL);
        failed += !ok[i];
        if (!ok[i] && !err[0])
            snprintf(err, errlen, "figure %s was not written", f[i].id);
    }
    rmdir(dir);
    if (rc == GC_ENOLIB) {
        snprintf(err, errlen, "%s", e);
        return rc;
    }
    return failed ? GC_EIO : 0;
}

int gc_write_plots(const struct gc_results *r, const char *dir, int *nfig, char *err, size_t errlen)
{
    const struct gc_results *runs[1] = {r};
    struct gc_plot_tool t;
    struct gc_figure *f = NULL;
    char **svg = NULL, **png = NULL;
    bool *ok = NULL;
    int n = 0, rc;

    if (nfig)
        *nfig = 0;
    if (!r || !dir)
        return GC_EINVAL;
    rc = gc__mkdir_writable(dir, err, errlen);
    if (rc)
        return rc;
    gc_plot_probe(&t);
    if (!t.available) {
        snprintf(err, errlen, "no figures: %s", t.reason);
        return GC_ENOLIB;
    }
    rc = gc__figures_build(runs, NULL, 1, &f, &n);
    if (rc)
        goto out;
    svg = calloc((size_t)(n ? n : 1), sizeof(*svg));
    png = calloc((size_t)(n ? n : 1), sizeof(*png));
    ok = calloc((size_t)(n ? n : 1), sizeof(*ok));
    if (!svg || !png || !ok) {
        rc = GC_ENOMEM;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        size_t l = strlen(dir) + strlen(f[i].id) + 8;

        svg[i] = malloc(l);
        png[i] = malloc(l);
        if (!svg[i] || !png[i]) {
            rc = GC_ENOMEM;
            goto out;
        }
        snprintf(svg[i], l, "%s/%s.svg", dir, f[i].id);
        snprintf(png[i], l, "%s/%s.png", dir, f[i].id);
    }
    rc = gc__plot_render(&t, f, n, (const char *const *)svg, (const char *const *)png, ok, err,
                         errlen);
    if (nfig)
        for (int i = 0; i < n; i++)
            *nfig += ok[i];
out:
    for (int i = 0; svg && png && i < n; i++) {
        free(svg[i]);
        free(png[i]);
    }
    free(svg);
    free(png);
    free(ok);
    gc__figures_free(f, n);
    return rc;
}
