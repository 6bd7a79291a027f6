/* The physical orderings between energy figures of one run (DFMA above
 * FFMA, tensor cores below FFMA per FLOP, DRAM above L2 above shared per
 * byte): each figure is recorded, and a later one is checked against the
 * reference measured earlier. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/energy/energy.h"

static void record(struct gc_session *s, const char *key, double total, double dyn,
                   const char *unit)
{
    struct gc_energy_state *st = gc__en_state(s);

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
    struct gc_energy_state *st = gc__en_state(s);

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

/* The ordering checks that concern a launch (energy.h). */
bool gc__en_orderings(struct gc_session *s, struct gc_bench_result *r, const struct eparam *p,
                      const struct gc_meter_launch *w, const struct gc_en_figures *f)
{
    if (p->kind == EK_ITYPE && p->key && strcmp(p->key, "fp64.fma") == 0)
        return order_check(s, r, "fp32.fma", f->per_op_j, f->dyn_op_j, true,
                           "energy per DFMA above energy per FFMA");
    if (p->kind == EK_MMA && w->flops > 0) {
        double fpo = w->flops / w->ops;
        return order_check(s, r, "fp32.fma/FLOP", f->per_op_j / fpo, f->dyn_op_j / fpo, false,
                           "tensor-core energy per FLOP below FFMA's");
    }
    /* Memory levels are a GPU's: on a CPU "shared" memory is cached global
     * memory and the device's cache figures are the host's. */
    if (s->dev->info.type != GC_DEVICE_GPU)
        return true;
    if (p->kind == EK_MEM && p->ml == ML_L2)
        return order_check(s, r, "dram.read", f->per_op_j * w->ops / w->bytes,
                           f->dyn_op_j * w->ops / w->bytes, false,
                           "energy per byte from L2 below DRAM's");
    if (p->kind == EK_MEM && p->ml == ML_SHARED)
        return order_check(s, r, "l2", f->per_op_j * w->ops / w->bytes,
                           f->dyn_op_j * w->ops / w->bytes, false,
                           "energy per byte from shared memory below L2's");
    return true;
}

void gc__en_remember(struct gc_session *s, const struct eparam *p, const struct gc_meter_launch *w,
                     const struct gc_en_figures *f)
{
    if (!p->key)
        return;
    if (p->kind == EK_MEM) {
        record(s, p->key, f->per_op_j * w->ops / w->bytes, f->dyn_op_j * w->ops / w->bytes, "B");
        return;
    }
    record(s, p->key, f->per_op_j, f->dyn_op_j, w->op_unit);
    if (w->flops > 0) {
        char k[48];
        double fpo = w->flops / w->ops;

        snprintf(k, sizeof(k), "%s/FLOP", p->key);
        record(s, k, f->per_op_j / fpo, f->dyn_op_j / fpo, "FLOP");
    }
}
