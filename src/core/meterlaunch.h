/* A benchmark's kernel launch at one configuration, built, filled with its
 * random inputs and verified once, ready to be launched back to back for as
 * long as a meter needs (the meter runner, core/meter.h). A benchmark
 * description builds it through its launch_at hook (core/benchdef.h) from
 * the configuration the benchmark wrote into its result in the results tree
 * (core/benchcfg.h), so that energy is measured on exactly the kernel and
 * configuration the performance figure came from. */
#ifndef GC_CORE_METERLAUNCH_H
#define GC_CORE_METERLAUNCH_H

#include "core/kcache.h"
#include "core/session.h"

#define GC_MLAUNCH_MAX_HOST 5
#define GC_MLAUNCH_MAX_BUFS 6

struct gc_meter_launch {
    char what[512]; /* the kernel, its configuration and where it came from, for notes */
    struct gc_kern *k;
    struct gc_launch l; /* args points into args; count is ignored */
    struct gc_arg args[8];
    /* Work one launch does. */
    double ops;             /* counted operations (compute) or accesses of one thread (memory) */
    const char *op_unit;    /* "op", "FLOP", "access" */
    double flops;           /* floating-point operations (0: integer) */
    double bytes;           /* bytes moved at the memory level (0: compute) */
    double transactions;    /* 32-byte sectors (global memory) or warp-wide requests (on-chip) */
    double spec_per_clk_cu; /* vendor rate in ops per clock per CU; NAN unknown */
    int warps_per_cu;       /* resident warps per CU of the launch */
    char why[1024];         /* GC_ENOTSUP: why this launch does not exist here */
    /* Owned: released by gc__meter_launch_release. */
    struct gc_kreq req[2];
    int nreq;
    struct gc_buf *bufs[GC_MLAUNCH_MAX_BUFS];
    void *host[GC_MLAUNCH_MAX_HOST];
};

/* What a meter asks of a benchmark's launch_at hook. */
struct gc_config_ask {
    /* The benchmark's result in this run's results tree, whose "config" is
     * the configuration to build; NULL: the benchmark's default
     * configuration, why_default saying why ("did not run in this run"). */
    const struct gc_bench_result *from;
    const char *why_default;
    /* Which of the benchmark's kernels: "l1" or "l2" for memory.bandwidth's
     * plateaus; NULL for a benchmark with one. */
    const char *part;
    /* > 0: that many resident warps per CU at the default configuration (a
     * point of an occupancy sweep); GC_ERANGE when it cannot be laid out. */
    int warps;
};

enum gc_cfg_origin {
    GC_CFG_DEFAULT, /* the benchmark's result was not given: why says why */
    GC_CFG_RESULT,  /* the configuration in the benchmark's result */
    GC_CFG_REFUSED, /* a configuration the launch cannot run as it stands (a
                       footprint outside its level, a shape the device does
                       not hold, an ILP the generator does not build), or
                       none in a result: why says so, the default is run */
};
/* Where the configuration of a launch came from. */
struct gc_cfg_pick {
    enum gc_cfg_origin origin;
    char bench[64]; /* the benchmark whose result was asked for */
    char why[200];
};

/* Starts the pick of `bench` for ask: the default configuration with ask's
 * reason. Returns the result to read the configuration from (NULL: keep the
 * default; so for an occupancy sweep's point). */
const struct gc_bench_result *gc__cfg_pick_start(struct gc_cfg_pick *p, const char *bench,
                                                 const struct gc_config_ask *ask);
/* Refuses the configuration of the result: the default, with the reason. */
void gc__cfg_refuse(struct gc_cfg_pick *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* w->what = "<kernel> at the configuration <bench> found in this run:
 * <configuration>", or "<kernel>, default configuration (the performance
 * benchmark <bench> <why>): <configuration>", or "<kernel>, default
 * configuration (<bench>'s was not used: <why>): <configuration>". */
void gc__meter_launch_describe(struct gc_meter_launch *w, const struct gc_cfg_pick *p,
                               const char *kernel, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

void gc__meter_launch_init(struct gc_meter_launch *w);
void gc__meter_launch_release(struct gc_session *s, struct gc_meter_launch *w);
/* Launches it once (its verification launch). */
int gc__meter_launch_once(struct gc_device *d, struct gc_meter_launch *w);

#endif
