/* The fleet's CSV: one row per device with its identity, status, whether it
 * is flagged, and every headline figure (a column "<figure> [unit]" each;
 * empty where the device has no value). */
#include <math.h>
#include <stdlib.h>

#include "model/fleet.h"
#include "report/csv.h"
#include "report/outfile.h"
#include "report/units.h"

static void put_row(FILE *o, const struct gc_fleet *f, const struct gc_fleet_gpu *g, bool flagged)
{
    char buf[40];

    fprintf(o, "%d,", g->rank);
    gc__csv_text(o, g->host);
    fputc(',', o);
    gc__csv_text(o, g->spec);
    fputc(',', o);
    gc__csv_text(o, g->name);
    fputc(',', o);
    gc__csv_text(o, g->pci);
    fputc(',', o);
    gc__csv_text(o, g->uuid);
    fprintf(o, ",%s,%s,", gc_fleet_status_name(g->status), flagged ? "yes" : "no");
    gc__csv_text(o, g->group);
    for (int i = 0; i < f->nfig; i++) {
        gc__fmt_double(buf, sizeof(buf), i < g->nv ? g->v[i] : (double)NAN);
        fprintf(o, ",%s", buf);
    }
    fputc('\n', o);
}

int gc_write_fleet_csv(const struct gc_fleet *f, const char *path)
{
    bool *flagged = calloc((size_t)(f->ngpus ? f->ngpus : 1), sizeof(*flagged));
    struct gc_outfile of;
    char err[512], head[256];
    int rc;

    if (!flagged)
        return GC_ENOMEM;
    rc = gc__outfile_open(path, &of, err, sizeof(err));
    if (rc) {
        free(flagged);
        return rc;
    }
    for (int k = 0; k < f->nflags; k++)
        flagged[f->flags[k].gpu] = true;
    fputs("rank,host,spec,name,pci,uuid,status,flagged,group", of.f);
    for (int i = 0; i < f->nfig; i++) {
        snprintf(head, sizeof(head), f->figures[i].unit[0] ? "%s [%s]" : "%s", f->figures[i].key,
                 f->figures[i].unit);
        fputc(',', of.f);
        gc__csv_text(of.f, head);
    }
    fputc('\n', of.f);
    for (int i = 0; i < f->ngpus; i++)
        put_row(of.f, f, &f->gpus[i], flagged[i]);
    free(flagged);
    if (ferror(of.f)) {
        gc__outfile_abort(&of);
        return GC_EIO;
    }
    return gc__outfile_commit(&of, err, sizeof(err));
}
