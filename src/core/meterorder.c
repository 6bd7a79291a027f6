/* The physical orderings between energy figures of one run, each given as
 * data by a description (struct gc_meter_order: DFMA above FFMA, tensor
 * cores below FFMA per FLOP, L2 below DRAM per byte...): each figure is
 * recorded under its key, and a later one is checked against the reference
 * measured earlier. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/meter.h"

static void record(struct gc_session *s, const char *key, double total, double dyn,
                   const char *unit)
{
    struct gc_energy_state *st = gc__meter_state(s);

    if (!st || !key)
        return;
    for (int i = 0; i < st->nrec; i++)
        if (strcmp(st->rec[i].key, key) == 0) {
            st->rec[i].total_j = total;
            st->rec[i].dynamic_j = dyn;
            return;
        }
    if (st->nrec >= GC_ENERGY_MAX_RECORDS)
        return;
    struct gc_energy_record *x = &st->rec[st->nrec++];
    snprintf(x->key, sizeof(x->key), "%s", key);
    snprintf(x->unit, sizeof(x->unit), "%s", unit);
    x->total_j = total;
    x->dynamic_j = dyn;
}

static const struct gc_energy_record *find_rec(struct gc_session *s, const char *key)
{
    struct gc_energy_state *st = gc__meter_state(s);

    for (int i = 0; st && i < st->nrec; i++)
        if (strcmp(st->rec[i].key, key) == 0)
            return &st->rec[i];
    return NULL;
}

/* One ordering: this workload's dynamic energy per unit must be above
 * (want_above) or below the reference recorded earlier in the run. The
 * physics is about the work's own energy: where either dynamic energy is not
 * resolved the check is not made (said in a note), total energy being
 * ordered by throughput as much as by the operation. Adds a metric saying
 * what was checked; false with the error set on a violation. */
static bool order_check(struct gc_session *s, struct gc_bench_result *r, const char *ref_key,
                        double total, double dyn, bool want_above, const char *what)
{
    const struct gc_energy_record *ref = find_rec(s, ref_key);
    char note[300];

    if (!ref) {
        snprintf(note, sizeof(note), "not checked: %s was not measured earlier in this run (%s)",
                 ref_key, what);
        gc__bench_add_metric(r, "ordering_check", NAN, "", NAN, NULL, note);
        return true;
    }
    if (!isfinite(dyn) || !isfinite(ref->dynamic_j)) {
        snprintf(note, sizeof(note),
                 "not checked: dynamic energy not resolved here or for %s (%s; total %.4g vs "
                 "%.4g pJ/%s)",
                 ref_key, what, total * 1e12, ref->total_j * 1e12, ref->unit);
        gc__bench_add_metric(r, "ordering_check", NAN, "", NAN, NULL, note);
        return true;
    }
    double a = dyn, b = ref->dynamic_j;
    bool ok = want_above ? a > b : a < b;
    snprintf(note, sizeof(note), "%s: dynamic %.4g pJ/%s %s %s %.4g pJ/%s%s", what, a * 1e12,
             ref->unit, ok ? "is" : "is NOT", want_above ? "above" : "below", b * 1e12, ref->unit,
             ok ? "" : " (violation)");
    if (!ok) {
        gc__bench_set_error(r, GC_BENCH_ERROR, "physical ordering violated: %s", note);
        return false;
    }
    gc__bench_add_metric(r, "ordering_check", a / b, "", NAN, NULL, note);
    return true;
}

/* The launch's total and dynamic energy per `per`; false for a per-FLOP
 * figure of a launch that counts no FLOPs. */
static bool per_unit(const struct gc_meter_launch *w, const struct gc_meter_figures *f,
                     enum gc_meter_per per, double *total, double *dyn)
{
    if (per == GC_METER_PER_FLOP) {
        if (!(w->flops > 0))
            return false;
        double fpo = w->flops / w->ops;
        *total = f->per_op_j / fpo;
        *dyn = f->dyn_op_j / fpo;
    } else if (per == GC_METER_PER_BYTE) {
        *total = f->per_op_j * w->ops / w->bytes;
        *dyn = f->dyn_op_j * w->ops / w->bytes;
    } else {
        *total = f->per_op_j;
        *dyn = f->dyn_op_j;
    }
    return true;
}

/* d's ordering (core/meter.h). */
bool gc__meter_orderings(struct gc_session *s, struct gc_bench_result *r,
                         const struct gc_meter_desc *d, const struct gc_meter_launch *w,
                         const struct gc_meter_figures *f)
{
    const struct gc_meter_order *o = &d->order;
    double total, dyn;

    if (!o->ref || (o->gpu_only && s->dev->info.type != GC_DEVICE_GPU))
        return true;
    if (!per_unit(w, f, o->per, &total, &dyn))
        return true;
    return order_check(s, r, o->ref, total, dyn, o->above, o->what);
}

/* Per byte for a description of bytes; else per operation, and per FLOP
 * under "<key>/FLOP" where the launch counts FLOPs. */
void gc__meter_remember(struct gc_session *s, const struct gc_meter_desc *d,
                        const struct gc_meter_launch *w, const struct gc_meter_figures *f)
{
    double total, dyn;

    if (!d->key)
        return;
    if (d->per == GC_METER_PER_BYTE) {
        per_unit(w, f, GC_METER_PER_BYTE, &total, &dyn);
        record(s, d->key, total, dyn, "B");
        return;
    }
    record(s, d->key, f->per_op_j, f->dyn_op_j, w->op_unit);
    if (per_unit(w, f, GC_METER_PER_FLOP, &total, &dyn)) {
        char k[48];

        snprintf(k, sizeof(k), "%s/FLOP", d->key);
        record(s, k, total, dyn, "FLOP");
    }
}
