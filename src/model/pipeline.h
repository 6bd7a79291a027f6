/* The pipeline model of Lemeire et al. (§IV-V): cycles per warp instruction
 * of one run with the timeOfRun correction (eqs. 3-5), issue latency
 * lambda = min and completion latency Lambda = max over an occupancy sweep,
 * and the occupancy roofline's ridge point (§III) with Volkov's 90%/95%
 * occupancies (§6.3). Pure functions of measured numbers. */
#ifndef GC_MODEL_PIPELINE_H
#define GC_MODEL_PIPELINE_H

#include <stdbool.h>

/* Lemeire's launch description and device limits (all counts >= 1). */
struct gc_lemeire_launch {
    double work_items;     /* total work items */
    double wg_size;        /* work-group size */
    double max_conc_wg;    /* MaxConcWG: work groups per CU the device allows */
    double local_mem;      /* localMemSize per work group (bytes; 0: none) */
    double max_local_mem;  /* MaxLocalMem per CU (bytes) */
    double warp_size;      /* WarpSize */
    double max_conc_warps; /* MaxConcWarps per CU */
    double cus;            /* NbrCUs */
    double instr_kernel;   /* instructions per work item (instrKernel) */
    double runtime_s;      /* measured runtime */
    double clock_hz;       /* ClockFrequency */
};

struct gc_lemeire_cpi {
    double wg, conc_wg, warps_wg, actual_warp_size, conc_warps, total_warps, runs_cu;
    double time_of_run, cycles_of_run, instr_run;
    double cpi_cu, cpi_warp;
    double cpi_gpu;       /* runtime x clock / instructions */
    double cpi_cu_approx; /* eq. 3: CPI_GPU x NbrCU */
};

/* Evaluates Lemeire's equations (eq. 3 and the timeOfRun set). */
void gc__lemeire_cpi(const struct gc_lemeire_launch *l, struct gc_lemeire_cpi *out);

/* One occupancy point timed as a whole kernel: Lemeire's timeOfRun set on
 * the launch l, read as a point of the roofline. Time units are those of
 * l->clock_hz (cycles at a clock; 1e9 gives ns). */
struct gc_ktime_point {
    double warps; /* concWarps: warps running at once on one CU */
    double cpi;   /* CPI per warp: time units of one run / warp-instructions of
                     one run per CU (CPI_warp) */
    double thr;   /* results per CU per time unit: instrRun x results per
                     work-item instruction / cyclesOfRun */
};

void gc__ktime_point(const struct gc_lemeire_launch *l, double results_per_instr,
                     struct gc_ktime_point *out);

/* The pipeline model over kernel-timed curves (one per ILP): lambda = min and
 * Lambda = max of CPI per warp over every point (eqs. 4-5), the roofline's
 * peak = max throughput over every point, and per curve the ridge (smallest
 * warps within 5% of that peak, NAN if none), the 90% occupancy and whether
 * throughput is monotone non-decreasing within tol. */
#define GC_KTIME_CURVES 4
struct gc_ktime_marks {
    double lambda, Lambda, peak;
    double ridge[GC_KTIME_CURVES], w90[GC_KTIME_CURVES];
    bool monotone[GC_KTIME_CURVES];
};

/* curves[i] holds n[i] points in ascending warps; ncurves <= GC_KTIME_CURVES. */
void gc__ktime_marks(const struct gc_ktime_point *const *curves, const int *n, int ncurves,
                     double tol, struct gc_ktime_marks *out);

/* Smallest x (x ascending) whose y reaches frac x peak; NAN if none. With
 * frac = 0.95 this is Lemeire's ridge point (first point within 5% of peak). */
double gc__occupancy_for(const double *x, const double *y, int n, double peak, double frac);

/* True when y is monotone non-decreasing in x within a relative tolerance
 * (a drop of more than tol x the running maximum breaks it). */
bool gc__monotone_within(const double *y, int n, double tol);

#endif
