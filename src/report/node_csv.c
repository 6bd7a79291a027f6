/* The node's CSV view: the summary across the devices, the schedule, and
 * each device's own CSV files in a folder named after it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuchar/node.h"
#include "report/csv.h"
#include "report/outfile.h"

static void num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.17g", v);
    else
        fputs(",", f);
}

static int write_file(const char *dir, const char *name, const struct gc_node *n,
                      void (*body)(const struct gc_node *, FILE *))
{
    char path[1200], err[256];
    struct gc_outfile of;
    int rc;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    rc = gc__outfile_open(path, &of, err, sizeof(err));
    if (rc)
        return rc;
    body(n, of.f);
    if (ferror(of.f)) {
        gc__outfile_abort(&of);
        return GC_EIO;
    }
    return gc__outfile_commit(&of, err, sizeof(err));
}

static void summary_body(const struct gc_node *n, FILE *f)
{
    fputs("figure,unit,direction,n,median,min,max,spread,deviant,flagged\n", f);
    for (int i = 0; i < n->nfigures; i++) {
        const struct gc_node_figure *g = &n->figures[i];

        gc__csv_text(f, g->key);
        fputc(',', f);
        gc__csv_text(f, g->unit);
        fprintf(f, ",%d,%d", g->direction, g->n);
        num(f, g->median);
        num(f, g->min);
        num(f, g->max);
        num(f, g->spread);
        fputc(',', f);
        gc__csv_text(f, g->deviant >= 0 ? n->devices[g->deviant].spec : "");
        fprintf(f, ",%s\n", g->flagged ? "yes" : "no");
    }
}

static void schedule_body(const struct gc_node *n, FILE *f)
{
    char res[64];

    fputs("bench,mode,resources\n", f);
    for (int i = 0; i < n->nsched; i++) {
        gc__csv_text(f, n->sched[i].bench);
        fprintf(f, ",%s,", n->sched[i].concurrent ? "concurrent" : "serialized");
        gc__csv_text(f, gc_resource_names(n->sched[i].resources, res, sizeof(res)));
        fputc('\n', f);
    }
}

int gc_write_node_csv(const struct gc_node *n, const char *dir)
{
    char err[256], sub[1200];
    int rc = gc__mkdir_writable(dir, err, sizeof(err));

    if (rc == 0)
        rc = write_file(dir, "summary.csv", n, summary_body);
    if (rc == 0)
        rc = write_file(dir, "schedule.csv", n, schedule_body);
    for (int i = 0; rc == 0 && i < n->ndevices; i++) {
        char name[32];

        if (!n->devices[i].results)
            continue;
        snprintf(name, sizeof(name), "%s", n->devices[i].spec);
        for (char *p = name; *p; p++)
            if (*p == ':' || *p == '/')
                *p = '_';
        snprintf(sub, sizeof(sub), "%s/%s", dir, name);
        rc = gc_write_csv(n->devices[i].results, sub);
    }
    if (rc == 0 && n->links)
        rc = gc_write_csv(n->links, (snprintf(sub, sizeof(sub), "%s/links", dir), sub));
    return rc;
}
