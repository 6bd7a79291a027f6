/* What the pointer chase sweeps: footprints per path from the device's
 * (and on CPUs the host's) cache sizes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/chase/chase.h"
#include "core/cpucache.h"

/* ---- What to sweep ------------------------------------------------------ */

void gc__chase_cpu_caches(struct chase_cpu_caches *c)
{
    const struct gc_cpu_caches *h = gc__cpu_caches();

    c->l1d = h->l1d;
    c->l2 = h->l2;
    c->l3 = h->l3;
    c->line = h->line;
    snprintf(c->source, sizeof(c->source), "%s", h->source);
}

static void sweep(struct plan *pl, size_t lo, size_t hi, int per_oct)
{
    pl->n = 0;
    if (hi < lo)
        hi = lo;
    for (int k = 0; pl->n < CHASE_MAX_POINTS; k++) {
        double v = (double)lo * pow(2.0, (double)k / per_oct);
        size_t f = (size_t)v / pl->spacing * pl->spacing;
        if (f < 2 * pl->spacing)
            f = 2 * pl->spacing;
        if (f > hi)
            f = hi / pl->spacing * pl->spacing;
        if (pl->n == 0 || f > pl->fp[pl->n - 1])
            pl->fp[pl->n++] = f;
        if (v >= (double)hi)
            break;
    }
    pl->bytes = pl->fp[pl->n - 1];
}

size_t gc__chase_clamp_sz(size_t v, size_t lo, size_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void gc__chase_make_plan(const struct gc_session *s, enum chase_path p, struct plan *pl)
{
    const struct gc_device_info *info = &s->dev->info;
    bool gpu = info->type == GC_DEVICE_GPU;
    int per_oct = s->profile == GC_PROFILE_QUICK ? 2 : s->profile == GC_PROFILE_FULL ? 8 : 4;
    struct chase_cpu_caches cc;
    size_t hi, mem_cap = (size_t)1 << 40;

    memset(pl, 0, sizeof(*pl));
    gc__chase_cpu_caches(&cc);
    if (info->max_alloc)
        mem_cap = info->max_alloc;
    if (info->global_mem && mem_cap > info->global_mem / 2)
        mem_cap = info->global_mem / 2;
    pl->line = gpu ? 128 : cc.line ? cc.line : 64;
    pl->spacing = pl->line;
    pl->esize = gc__chase_words_path(p) ? 4 : 8;
    pl->llc = gpu ? info->l2_size : cc.l3 ? cc.l3 : cc.l2 ? cc.l2 : info->l2_size;
    switch (p) {
    case PATH_TLB:
        pl->paged = true;
        pl->spacing = gpu ? (size_t)2 << 20 : 4096;
        if (gpu)
            hi = s->profile == GC_PROFILE_QUICK  ? (size_t)4 << 30
                 : s->profile == GC_PROFILE_FULL ? (size_t)64 << 30
                                                 : (size_t)16 << 30;
        else
            hi = s->profile == GC_PROFILE_QUICK  ? (size_t)64 << 20
                 : s->profile == GC_PROFILE_FULL ? (size_t)1 << 30
                                                 : (size_t)256 << 20;
        if (hi > mem_cap)
            hi = mem_cap;
        sweep(pl, 16 * pl->spacing, hi, per_oct);
        break;
    case PATH_CONSTANT:
        pl->spacing = 64;
        sweep(pl, 512, 64 << 10, per_oct);
        break;
    case PATH_SHARED:
        /* The opt-in limit (equal to the default where there is no opt-in). */
        hi = info->shared_per_block_optin;
        if (!gpu && hi > (256u << 10))
            hi = 256u << 10;
        sweep(pl, 1024, hi, per_oct);
        break;
    case PATH_PRIVATE:
        sweep(pl, 512, CHASE_PRIVATE_BYTES, per_oct);
        break;
    default:
        if (gpu) {
            /* DRAM's plateau starts within 1.3x L2 (a split L2's far
             * partition holds the last footprints before it): 2x L2 gives it
             * four planned quarter-octave points, and every point past L2
             * costs a warm pass over its whole footprint at DRAM latency.
             * The quick profile's half-octave steps need 3x for three. */
            size_t mult = s->profile == GC_PROFILE_FULL    ? 4
                          : s->profile == GC_PROFILE_QUICK ? 3
                                                           : 2;
            hi = info->l2_size ? mult * info->l2_size : (size_t)256 << 20;
            hi = gc__chase_clamp_sz(hi, (size_t)16 << 20, (size_t)2 << 30);
        } else {
            /* A few times the last-level cache, bounded so that CPU runs stay
             * short (the warm pass walks the whole footprint every launch). */
            size_t cap = s->profile == GC_PROFILE_QUICK  ? (size_t)32 << 20
                         : s->profile == GC_PROFILE_FULL ? (size_t)1 << 30
                                                         : (size_t)64 << 20;
            hi =
                gc__chase_clamp_sz(4 * (pl->llc ? pl->llc : (size_t)8 << 20), (size_t)4 << 20, cap);
        }
        if (p == PATH_TEXTURE && hi > ((size_t)1 << 30))
            hi = (size_t)1 << 30; /* 2^27 texels of 8 bytes */
        if (hi > mem_cap)
            hi = mem_cap;
        sweep(pl, 1024, hi, per_oct);
        break;
    }
}
