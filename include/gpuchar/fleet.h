/* gpuchar fleets: the headline figures of many devices' runs analysed
 * together (docs/methodology.md, "Fleets"). Each device's run is reduced to
 * a compact summary (identity, conditions, headline figures); the analysis
 * groups the devices by model and configuration and names those whose
 * figures fall below their group or a per-SKU floor. 'gpuchar run --mpi' and
 * 'gpuchar fleet' share every function here. */
#ifndef GPUCHAR_FLEET_H
#define GPUCHAR_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gpuchar/gpuchar.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the fleet document (docs/schema.md, "gpuchar fleet") and of the
 * compact summary a rank sends. */
#define GC_FLEET_SCHEMA_VERSION 1

enum gc_fleet_status {
    GC_FLEET_OK,      /* measured; its figures are in the analysis */
    GC_FLEET_FAILED,  /* the rank's run failed or it crashed: message says how */
    GC_FLEET_TIMEOUT, /* no summary within the rank timeout */
    GC_FLEET_REFUSED  /* another gpuchar or schema version: not analysed */
};

/* "ok", "failed", "timeout", "refused". */
GC_EXTERN const char *gc_fleet_status_name(enum gc_fleet_status s);

/* One device of the fleet: who it is, under which conditions it ran, and its
 * headline figures (v[i] for fleet figure i; NAN or i >= nv: not measured). */
struct gc_fleet_gpu {
    int rank; /* MPI rank; -1 when the summary came from a file */
    enum gc_fleet_status status;
    char message[256]; /* why it failed or was refused; "" when ok */
    char source[256];  /* its results file, "" when none */
    char host[128], spec[32], name[128];
    char pci[32], uuid[96]; /* "" unknown */
    char tool_version[32];
    int schema_version;
    char profile[16];
    char group[320];                            /* model and configuration: the grouping key */
    double max_sm_clock_mhz, max_mem_clock_mhz; /* 0 unknown */
    int pcie_gen, pcie_width, pcie_gen_max, pcie_width_max; /* 0 unknown */
    int ecc;                                                /* 1 on, 0 off, -1 unknown */
    unsigned long long throttle_reasons;                    /* OR over the benchmarks */
    int throttled_samples;                                  /* summed over the benchmarks */
    bool complete;                                          /* the run's own complete flag */
    double *v;
    int nv;
};

/* A headline figure: a cell of the summary tables, "<table>/<row>/<column>". */
struct gc_fleet_figure {
    char key[160];
    char unit[32];
    int direction; /* +1 higher is better, -1 lower is better, 0 neither (not judged) */
};

/* One figure's statistics in one group. floor is the threshold a device of
 * the group must not fall below (direction +1) or rise above (-1). */
struct gc_fleet_stat {
    int group, figure;
    int n; /* devices with a value */
    double median, mad;
    double rel_floor, abs_floor; /* NAN: rule not applied (too few devices, no reference) */
    double floor;                /* the stricter of the two; NAN when neither applies */
    double high;                 /* above this (and robust z over the limit): "high" */
};

enum gc_fleet_flag_kind {
    GC_FLEET_LOW, /* worse than the floor: a slow device */
    GC_FLEET_HIGH /* better than its group by far: a wrong limit or a measurement error */
};

struct gc_fleet_flag {
    int gpu, figure, stat;
    enum gc_fleet_flag_kind kind;
    double value, z;
    char rule[16]; /* "relative", "absolute", "above" */
};

struct gc_fleet_group {
    char key[320];
    char name[128];
    int ngpus;
};

/* The thresholds of the analysis (gc_fleet_options_init sets the defaults). */
struct gc_fleet_options {
    double low_ratio;  /* relative floor: flagged below low_ratio x the group median (0.90) */
    double high_ratio; /* flagged above high_ratio x the median... (1.10) */
    double high_z;     /* ...and a robust z above this (3.5) */
    int min_group;     /* the relative rules need this many devices with a value (3) */
};

GC_EXTERN void gc_fleet_options_init(struct gc_fleet_options *o);

/* Per-SKU absolute floors: for a device name, the value each figure must
 * reach (direction +1) or not exceed (-1). */
struct gc_fleet_ref_entry {
    char sku[128];
    char figure[160];
    double limit;
};

struct gc_fleet_reference {
    char path[256];
    struct gc_fleet_ref_entry *e;
    int n;
};

/* A node of the fleet: a run over every device of a host ('gpuchar run
 * --device all', the node document), reduced to the figures of its links:
 * one per link.* row and ordered pair, keyed "<row>/<i>-><j>" (device i of
 * the node's list). Nodes are compared with the nodes of the same topology
 * (the devices' names in order and each pair's link type). */
struct gc_fleet_node {
    int rank; /* MPI rank; -1 when it came from a file */
    char host[128];
    char source[256];   /* its node document, "" none */
    char topology[320]; /* the grouping key */
    int ndevices;
    double *v; /* v[i]: node figure i (f->node_figures); NAN or i >= nv: none */
    int nv;
};

/* A node whose pair figure is worse than its topology group's floor. */
struct gc_fleet_node_flag {
    int node, figure;
    int n;                /* nodes of the group with a value */
    double value, median; /* the node's and the group's */
    double floor;         /* low_ratio x median (lower is better: median / low_ratio) */
};

/* A fleet and, once analysed, its groups, statistics and flags. */
struct gc_fleet {
    struct gc_fleet_figure *figures;
    int nfig, fig_cap;
    struct gc_fleet_gpu *gpus;
    int ngpus, gpu_cap;
    struct gc_fleet_group *groups;
    int ngroups;
    struct gc_fleet_stat *stats;
    int nstats;
    struct gc_fleet_flag *flags;
    int nflags;
    int nflagged_gpus; /* devices with at least one flag */
    int nfailed;       /* devices not ok (failed, timeout, refused) */
    struct gc_fleet_options opt;
    char reference[256]; /* the reference file used, "" none */
    char (*notes)[256];  /* reference SKUs no device has, ... */
    int nnotes;
    /* Nodes (node documents) and their link figures; once analysed, the
     * flags of nodes below their topology group. */
    struct gc_fleet_node *nodes;
    int nnodes, node_cap;
    struct gc_fleet_figure *node_figures;
    int nnode_fig, node_fig_cap;
    struct gc_fleet_node_flag *node_flags;
    int nnode_flags;
    int nflagged_nodes;
    /* Optional: called on each results tree gc_fleet_add_paths reads, before
     * it is summarised (gc_results_declare: files older than the report
     * record); NULL: none. */
    int (*declare)(struct gc_results *r);
};

/* An empty fleet (*out freed with gc_fleet_free). */
GC_EXTERN int gc_fleet_create(struct gc_fleet **out);
GC_EXTERN void gc_fleet_free(struct gc_fleet *f);

/* Adds one device's run, reduced to its summary; rank -1 outside MPI, source
 * the results file ("" none). GC_ENOMEM. */
GC_EXTERN int gc_fleet_add_results(struct gc_fleet *f, const struct gc_results *r, int rank,
                                   const char *source);

/* Adds a device that gave no summary (status failed or timeout). */
GC_EXTERN int gc_fleet_add_missing(struct gc_fleet *f, int rank, const char *host,
                                   enum gc_fleet_status status, const char *message);

/* The compact summary of a run as text (a small JSON object): what a rank
 * sends to rank 0. *out malloc'ed, *len its length without the NUL. */
GC_EXTERN int gc_fleet_summary_encode(const struct gc_results *r, int rank, char **out,
                                      size_t *len);

/* Adds a device from its encoded summary (or, given a JSON array of
 * summaries, each device and node of it). A summary that does not parse is
 * GC_EINVAL with the reason in err; a device of another gpuchar version or
 * schema is added as refused, naming both versions. */
GC_EXTERN int gc_fleet_add_summary(struct gc_fleet *f, const char *text, size_t len, char *err,
                                   size_t errlen);

/* Adds a node: every device of a node document (gc_fleet_add_results, or a
 * failed device when it measured nothing) and the node's link figures.
 * rank -1 outside MPI; source its file. GC_ENOMEM. */
struct gc_node;
GC_EXTERN int gc_fleet_add_node(struct gc_fleet *f, const struct gc_node *n, int rank,
                                const char *source);

/* Everything f holds as one text for rank 0: a JSON array of the devices'
 * summaries and the nodes' (docs/schema.md, "fleet summary");
 * gc_fleet_add_summary reads it back. */
GC_EXTERN int gc_fleet_encode_all(const struct gc_fleet *f, char **out, size_t *len);

/* Reads every results file of paths (files, or folders whose *.json files
 * are read; node documents add their devices and links; fleet documents and
 * other JSON are skipped) into f. GC_EINVAL
 * with err naming the file when one cannot be read (bad JSON, another
 * schema version), GC_ENODEV when no file holds a device's results. */
GC_EXTERN int gc_fleet_add_paths(struct gc_fleet *f, const char *const *paths, int npaths,
                                 char *err, size_t errlen);

/* Reads a reference file (docs/schema.md, "fleet reference"). GC_EIO or
 * GC_EINVAL with the line and reason in err: bad JSON, a number that is not a
 * positive finite number, a figure that is not a headline figure. */
GC_EXTERN int gc_fleet_reference_read(const char *path, struct gc_fleet_reference *out, char *err,
                                      size_t errlen);
GC_EXTERN void gc_fleet_reference_free(struct gc_fleet_reference *ref);

/* Groups, per-figure statistics and flags (replacing any earlier analysis).
 * ref may be NULL. Reference SKUs that no device of f has become notes. The
 * nodes are judged too (gc__fleet_analyse_nodes): a pair figure worse than
 * low_ratio x the median of the nodes of its topology, with at least
 * min_group nodes having it. */
GC_EXTERN int gc_fleet_analyse(struct gc_fleet *f, const struct gc_fleet_options *opt,
                               const struct gc_fleet_reference *ref);

/* Adds n synthetic devices numbered first.. (two groups; every figure drawn around its
 * group's level with seed's noise; devices whose index is in slow[0..nslow)
 * scaled to 0.7 of their figures): the scale test of the analysis. */
GC_EXTERN int gc_fleet_simulate(struct gc_fleet *f, int first, int n, int nfig,
                                unsigned long long seed, const int *slow, int nslow);

/* Device i of f as its encoded summary (as gc_fleet_summary_encode). */
GC_EXTERN int gc_fleet_gpu_encode(const struct gc_fleet *f, int i, char **out, size_t *len);

/* The outputs (docs/schema.md, "gpuchar fleet"): the fleet document, a CSV
 * of every device's headline figures, an HTML page with a distribution per
 * figure (gnuplot; without it, tables only, info says so). */
GC_EXTERN int gc_write_fleet_text(const struct gc_fleet *f, FILE *out);
GC_EXTERN int gc_write_fleet_json(const struct gc_fleet *f, const char *path);
GC_EXTERN int gc_write_fleet_csv(const struct gc_fleet *f, const char *path);
/* The nodes' CSV: one row per node, one column per link figure. */
GC_EXTERN int gc_write_fleet_nodes_csv(const struct gc_fleet *f, const char *path);
GC_EXTERN int gc_write_fleet_html(const struct gc_fleet *f, const char *path,
                                  struct gc_html_info *info, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
