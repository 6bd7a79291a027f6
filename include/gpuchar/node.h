/* gpuchar nodes: one run over several devices of one host ('gpuchar run
 * --device all', a backend name or a list). Each device is measured by its
 * own gc_run, concurrently where the benchmarks share nothing and one after
 * another where they share a resource of the host; the node document holds a
 * section per device (its whole results tree and its identity), the links
 * between the devices and a summary of every headline figure across them
 * (docs/schema.md, "gpuchar node"; docs/methodology.md, "Nodes"). */
#ifndef GPUCHAR_NODE_H
#define GPUCHAR_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gpuchar/fleet.h"
#include "gpuchar/gpuchar.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the node document. */
#define GC_NODE_SCHEMA_VERSION 1

/* ---- Resources of the host ---------------------------------------------- */

/* What benchmarks of different devices may share: while one device's
 * benchmark holds a resource, another device's benchmark that needs it
 * waits (a lock per resource across the process). */
enum gc_resource {
    GC_RES_HOST_LINK = 1u << 0,   /* the host's PCIe root and memory: host<->device copies */
    GC_RES_POWER_METER = 1u << 1, /* the power readings: energy per operation */
    GC_RES_HOST_CPU = 1u << 2,    /* host-side timing (launch, allocation, compile overheads)
                                     and every benchmark of a CPU device */
};
#define GC_RES_ALL (GC_RES_HOST_LINK | GC_RES_POWER_METER | GC_RES_HOST_CPU)

/* The resources catalogue entry i (gc_bench_get) declares; 0 for none or an
 * index out of range. */
GC_EXTERN unsigned gc_bench_resources(int i);

/* "host link, power meter" for a mask ("" for 0), into buf; returns buf. */
GC_EXTERN const char *gc_resource_names(unsigned mask, char *buf, size_t len);

/* ---- Device lists ------------------------------------------------------- */

/* The devices a --device value names: "all" (every device of every backend
 * that does not simulate them; the simulated null devices when there is no
 * other), a backend name ("cuda": all its devices), a comma-separated list
 * of specs ("cuda:0,cuda:1"), or a single spec as gc_device_resolve takes
 * it. *out is malloc'ed (free()), *n its length (at least 1 on success);
 * *is_list is true for "all", a backend name with more than one device and
 * any comma list. GC_ENODEV when a spec names no device or "all" finds none;
 * GC_EINVAL for a device named twice, devices of different backends in one
 * list or an empty item; err says which. */
GC_EXTERN int gc_device_list_resolve(gc_context *ctx, const char *value,
                                     struct gc_device_summary **out, int *n, bool *is_list,
                                     char *err, size_t errlen);

/* ---- The node document -------------------------------------------------- */

/* A device's identity, read from its results tree (device_extra and the
 * device summary). "" or -1: unknown. */
struct gc_node_identity {
    char pci[32];
    char uuid[96];
    int numa_node; /* -1 unknown or no NUMA */
    char driver[128];
    int ecc; /* 1 on, 0 off, -1 unknown */
    double max_sm_clock_mhz, max_mem_clock_mhz;
};

/* One device of a node run. */
struct gc_node_device {
    char spec[32];
    char name[256];
    int rc;            /* its gc_run's return code */
    bool lost;         /* the device stopped answering during the run */
    char message[512]; /* what happened to it ("" when it ran cleanly) */
    struct gc_node_identity id;
    struct gc_results *results; /* its whole results tree; owned */
};

/* How a benchmark was scheduled across the devices. */
struct gc_node_sched {
    char bench[64];
    unsigned resources; /* GC_RES_* held while it ran */
    bool concurrent;    /* ran on the devices at the same time */
};

/* One headline figure across the devices (from the fleet analysis). */
struct gc_node_figure {
    char key[160]; /* "<table>/<row>/<column>" */
    char unit[32];
    int direction; /* +1 higher is better, -1 lower is better, 0 neither */
    int n;         /* devices with a value */
    double median, min, max;
    double spread; /* (max - min) / |median|; NAN when undefined */
    int deviant;   /* index into devices of the one furthest from the median on the
                      worse side; -1 when fewer than two values */
    bool flagged;  /* spread beyond the threshold (1 - low_ratio of the fleet analysis) */
};

struct gc_node {
    char tool_version[32], git_revision[64];
    char date[40], host[128], command_line[1024], profile[16];
    double wall_s;
    /* The run's phases: every device's own run (at once), then the links. */
    double devices_s, links_s;
    bool complete; /* every device ran completely */
    struct gc_node_device *devices;
    int ndevices;
    struct gc_node_sched *sched;
    int nsched;
    struct gc_results *links; /* link.* rows between the devices; NULL none */
    char links_note[256];     /* why there are none, "" otherwise */
    struct gc_node_figure *figures;
    int nfigures;
    double flag_spread; /* the spread above which a figure is flagged */
};

/* An empty node (free with gc_node_free). */
GC_EXTERN int gc_node_create(struct gc_node **out);
GC_EXTERN void gc_node_free(struct gc_node *n);

/* Adds a device's run; takes ownership of r (NULL allowed: nothing was
 * measured). rc is its gc_run's return code, message what to say about it. */
GC_EXTERN int gc_node_add_device(struct gc_node *n, const char *spec, const char *name,
                                 struct gc_results *r, int rc, bool lost, const char *message);

/* Reads each device's identity from its results tree and builds the
 * cross-device summary (every headline figure, through the fleet analysis).
 * Sets complete. GC_ENOMEM. */
GC_EXTERN int gc_node_summarise(struct gc_node *n);

/* The node document (docs/schema.md, "gpuchar node"), written atomically;
 * "-" is standard output. */
GC_EXTERN int gc_write_node_json(const struct gc_node *n, const char *path);
/* Reads a node document. 0; GC_EIO (cannot read) or GC_EINVAL (not a node
 * document, another version, a bad device section) with err saying what. */
GC_EXTERN int gc_read_node_json(const char *path, struct gc_node **out, char *err, size_t errlen);
/* True when the file at path is a node document (its "schema" says so). */
GC_EXTERN bool gc_is_node_json(const char *path);

/* Aligned text: the node, a section per device (its whole report), the
 * schedule, the links and the cross-device summary. */
GC_EXTERN int gc_write_node_text(const struct gc_node *n, FILE *f);
/* DIR/summary.csv, DIR/schedule.csv and a folder per device
 * (DIR/<backend>_<index>/, as gc_write_csv). */
GC_EXTERN int gc_write_node_csv(const struct gc_node *n, const char *dir);
/* One HTML page: identity of every device, the summary table, the
 * schedule and each device's summary tables. */
GC_EXTERN int gc_write_node_html(const struct gc_node *n, const char *path, char *err,
                                 size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
