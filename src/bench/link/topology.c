/* link.topology: each ordered pair's link as the driver reports it and the
 * per-direction limit the other link.* rows are held to. The metric "i->j"
 * is the limit; its note begins with the link's short label ("NV18",
 * "PCIe PXB", "none") up to the first ';', which the matrix writers show. */
#include <math.h>
#include <stdio.h>

#include "bench/link/link.h"
#include "model/peerlink.h"

int gc__link_run_topology(struct gc_link_session *ls, const struct gc_link_desc *self,
                          struct gc_bench_result *r)
{
    int n = ls->n, reach = 0;

    (void)self;
    gc__link_add_devices(ls, r);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            const struct gc_peer_info *p = &ls->peer[a * n + b];
            char name[32], label[32], note[256];

            if (a == b)
                continue;
            gc__pair_name(name, sizeof(name), a, b, NULL);
            gc__peer_label(p, label, sizeof(label));
            if (!ls->enabled[a * n + b]) {
                snprintf(note, sizeof(note), "%s; not reachable: %.200s", label,
                         p->why[0] ? p->why : "peer access not supported");
                gc__bench_add_metric(r, name, NAN, "B/s", NAN, NULL, note);
                continue;
            }
            reach++;
            snprintf(note, sizeof(note), "%s; P2P access yes, atomics %s; %.180s", label,
                     p->atomics ? "yes" : "no", ls->limit_note[a * n + b]);
            /* The limit is the figure itself here: no limit of its own. */
            gc__bench_add_metric(r, name, ls->limit[a * n + b], "B/s", NAN, NULL, note);
        }
    for (int i = 0; i < n; i++) {
        char name[32];

        snprintf(name, sizeof(name), "%d->host", i);
        gc__bench_add_metric(r, name, ls->host_limit[i], "B/s", NAN, NULL, ls->host_note[i]);
    }
    gc__bench_add_metric(r, "reachable_pairs", reach, "", n * (n - 1), NULL,
                         "ordered pairs with peer access enabled, of n x (n - 1)");
    return 0;
}
