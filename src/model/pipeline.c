/* Lemeire's pipeline-model equations and occupancy-roofline landmarks. */
#include <math.h>

#include "model/pipeline.h"

static double dmin(double a, double b)
{
    return a < b ? a : b;
}

void gc__lemeire_cpi(const struct gc_lemeire_launch *l, struct gc_lemeire_cpi *o)
{
    double nbr_instr = l->instr_kernel * l->work_items;

    o->wg = ceil(l->work_items / l->wg_size);
    o->conc_wg = dmin(l->max_conc_wg, o->wg);
    if (l->local_mem > 0)
        o->conc_wg = dmin(o->conc_wg, floor(l->max_local_mem / l->local_mem));
    o->warps_wg = ceil(l->wg_size / l->warp_size);
    o->actual_warp_size = l->wg_size / o->warps_wg;
    o->conc_warps = dmin(l->max_conc_warps, o->warps_wg * o->conc_wg);
    o->total_warps = l->work_items / o->actual_warp_size;
    o->runs_cu = ceil(o->total_warps / l->cus / o->conc_warps);
    o->time_of_run = l->runtime_s / o->runs_cu;
    o->cycles_of_run = o->time_of_run * l->clock_hz;
    o->instr_run = l->instr_kernel * l->wg_size * o->conc_wg;
    o->cpi_cu = o->cycles_of_run / o->instr_run;
    o->cpi_warp = o->cpi_cu * o->actual_warp_size;
    o->cpi_gpu = l->runtime_s * l->clock_hz / nbr_instr;
    o->cpi_cu_approx = o->cpi_gpu * l->cus;
}

double gc__occupancy_for(const double *x, const double *y, int n, double peak, double frac)
{
    if (!(peak > 0))
        return NAN;
    for (int i = 0; i < n; i++)
        if (y[i] >= frac * peak)
            return x[i];
    return NAN;
}

bool gc__monotone_within(const double *y, int n, double tol)
{
    double best = -INFINITY;

    for (int i = 0; i < n; i++) {
        if (y[i] < best * (1.0 - tol))
            return false;
        if (y[i] > best)
            best = y[i];
    }
    return true;
}

void gc__ktime_point(const struct gc_lemeire_launch *l, double results_per_instr,
                     struct gc_ktime_point *o)
{
    struct gc_lemeire_cpi c;

    gc__lemeire_cpi(l, &c);
    o->warps = c.conc_warps;
    o->cpi = c.cpi_warp;
    o->thr = c.instr_run * results_per_instr / c.cycles_of_run;
}

void gc__ktime_marks(const struct gc_ktime_point *const *curves, const int *n, int ncurves,
                     double tol, struct gc_ktime_marks *o)
{
    double x[64], y[64];

    o->lambda = INFINITY;
    o->Lambda = -INFINITY;
    o->peak = 0;
    for (int c = 0; c < ncurves && c < GC_KTIME_CURVES; c++)
        for (int i = 0; i < n[c]; i++) {
            o->lambda = dmin(o->lambda, curves[c][i].cpi);
            o->Lambda = fmax(o->Lambda, curves[c][i].cpi);
            o->peak = fmax(o->peak, curves[c][i].thr);
        }
    if (!isfinite(o->lambda))
        o->lambda = o->Lambda = NAN;
    for (int c = 0; c < GC_KTIME_CURVES; c++) {
        int m = c < ncurves ? (n[c] < 64 ? n[c] : 64) : 0;

        for (int i = 0; i < m; i++) {
            x[i] = curves[c][i].warps;
            y[i] = curves[c][i].thr;
        }
        o->ridge[c] = m ? gc__occupancy_for(x, y, m, o->peak, 0.95) : NAN;
        o->w90[c] = m ? gc__occupancy_for(x, y, m, o->peak, 0.90) : NAN;
        o->monotone[c] = m > 0 && gc__monotone_within(y, m, tol);
    }
}
