/* Synthetic fleets: devices with made-up summaries, run through the same
 * analysis as measured ones, to measure what the analysis costs at 10 to
 * 100 000 devices and to test it on a known answer. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/fleet.h"
#include "util/random.h"

/* Uniform in [-1, 1). */
static double unit_noise(uint64_t *s)
{
    return (double)(gc__xorshift64s(s) >> 11) * 0x1.0p-52 - 1.0;
}

static bool is_slow(int i, const int *slow, int nslow)
{
    for (int k = 0; k < nslow; k++)
        if (slow[k] == i)
            return true;
    return false;
}

static void identity(struct gc_fleet_gpu *g, int i)
{
    bool b = i % 4 == 3; /* a quarter of the fleet is a second model */

    g->rank = i;
    snprintf(g->host, sizeof(g->host), "node%05d", i / 4);
    snprintf(g->spec, sizeof(g->spec), "cuda:%d", i % 4);
    snprintf(g->name, sizeof(g->name), "Simulated GPU %s", b ? "B" : "A");
    snprintf(g->pci, sizeof(g->pci), "00000000:%02X:00.0", 0x18 + 0x20 * (i % 4));
    snprintf(g->uuid, sizeof(g->uuid), "GPU-sim-%08d", i);
    snprintf(g->tool_version, sizeof(g->tool_version), "%s", gc_version());
    snprintf(g->profile, sizeof(g->profile), "quick");
    g->max_sm_clock_mhz = b ? 1755 : 1980;
    g->max_mem_clock_mhz = b ? 2619 : 2619;
    g->pcie_gen = g->pcie_gen_max = 5;
    g->pcie_width = g->pcie_width_max = 16;
    g->ecc = 1;
    g->complete = true;
    gc__fleet_group_key(g);
}

int gc_fleet_simulate(struct gc_fleet *f, int first, int n, int nfig, unsigned long long seed,
                      const int *slow, int nslow)
{
    char key[64];

    for (int i = first; i < first + n; i++) {
        uint64_t s = (seed ? seed : 1) + 0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1);
        struct gc_fleet_gpu *g = gc__fleet_new_gpu(f);
        bool sl = is_slow(i, slow, nslow);

        if (!g)
            return GC_ENOMEM;
        identity(g, i);
        for (int k = 0; k < nfig; k++) {
            /* Every fifth figure is a latency (lower is better). */
            int dir = k % 5 == 4 ? -1 : +1;
            double level = 100.0 * (k + 1) * (i % 4 == 3 ? 0.8 : 1.0);
            double v = level * (1.0 + 0.01 * unit_noise(&s));

            if (sl)
                v = dir > 0 ? v * 0.7 : v / 0.7;
            snprintf(key, sizeof(key), "sim/figure %03d/%s", k, dir > 0 ? "bandwidth" : "latency");
            int fig = gc__fleet_figure(f, key, dir > 0 ? "B/s" : "cycles", dir, k);
            if (fig < 0 || gc__fleet_set(&f->gpus[f->ngpus - 1], fig, v))
                return GC_ENOMEM;
        }
    }
    return 0;
}
