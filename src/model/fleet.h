/* Building a fleet (include/gpuchar/fleet.h) from its devices: the helpers
 * the readers of summaries use to add a device and its figures. */
#ifndef GC_MODEL_FLEET_H
#define GC_MODEL_FLEET_H

#include "gpuchar/fleet.h"

/* A new device at the end of f, zeroed with ecc -1 and rank -1; NULL when
 * out of memory. The pointer is valid until the next device is added. */
struct gc_fleet_gpu *gc__fleet_new_gpu(struct gc_fleet *f);

/* The index of figure key (added with unit and direction when new); hint is
 * where it probably is (the same place as in the previous device). -1 when
 * out of memory. */
int gc__fleet_figure(struct gc_fleet *f, const char *key, const char *unit, int direction,
                     int hint);

/* Sets figure fig of gpu g to v, growing g->v (NAN-filled). GC_ENOMEM. */
int gc__fleet_set(struct gc_fleet_gpu *g, int fig, double v);

/* The grouping key of g: name, profile, maximum clocks and link type. */
void gc__fleet_group_key(struct gc_fleet_gpu *g);

/* Robust z of x against median and MAD: 0.6745 (x - median) / MAD; for a
 * MAD of 0, 0 at the median and +-INFINITY elsewhere. */
double gc__fleet_robust_z(double x, double median, double mad);

/* Median and median absolute deviation of x[0..n) (x is reordered). */
void gc__fleet_median_mad(double *x, int n, double *median, double *mad);

/* The likely causes the data of device gi states (throttle reasons,
 * samples under a lowered clock, a PCIe link below its maximum width or
 * generation, ECC off where its group has it on), "; "-separated; "" when
 * it states none. */
void gc__fleet_causes(const struct gc_fleet *f, int gi, char *buf, size_t len);

/* Nodes (model/fleet_node.c): a new node at the end of f (zeroed, rank -1;
 * NULL out of memory), the index of a node figure (added when new; -1 out
 * of memory), a node's value, freeing them, and their analysis (the flags
 * of nodes below their topology group; replaces earlier flags). */
struct gc_fleet_node *gc__fleet_new_node(struct gc_fleet *f);
int gc__fleet_node_figure(struct gc_fleet *f, const char *key, const char *unit, int direction);
int gc__fleet_node_set(struct gc_fleet_node *n, int fig, double v);
void gc__fleet_free_nodes(struct gc_fleet *f);
int gc__fleet_analyse_nodes(struct gc_fleet *f);

#endif
