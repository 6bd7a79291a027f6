/* A benchmark's report declaration copied into its result (present.h):
 * the cells and figure rules with their strings, in one block. */
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/present.h"
#include "gpuchar/gpuchar.h"

int gc__report_ncells(const struct gc_bench_report *r)
{
    int n = 0;

    while (r && r->cells && r->cells[n].table)
        n++;
    return n;
}

int gc__report_nfigures(const struct gc_bench_report *r)
{
    int n = 0;

    while (r && r->figures && r->figures[n].series)
        n++;
    return n;
}

/* Bytes of a string copied into the block (NULL takes none). */
static size_t str_size(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

/* Copies s to *pool and returns the copy; NULL stays NULL. */
static const char *pool_copy(char **pool, const char *s)
{
    char *d = *pool;
    size_t n = str_size(s);

    if (!s)
        return NULL;
    memcpy(d, s, n);
    *pool += n;
    return d;
}

static size_t round_up(size_t n)
{
    size_t a = alignof(max_align_t);

    return (n + a - 1) / a * a;
}

int gc__report_pack(const struct gc_bench_report *decl, struct gc_bench_report **out)
{
    int nc = gc__report_ncells(decl), nf = gc__report_nfigures(decl);
    size_t head = round_up(sizeof(struct gc_bench_report));
    size_t cells = round_up((size_t)(nc + 1) * sizeof(struct gc_sum_cell));
    size_t figs = round_up((size_t)(nf + 1) * sizeof(struct gc_fig_rule));
    size_t strs = 0;

    *out = NULL;
    if (nc == 0 && nf == 0)
        return 0;
    for (int i = 0; i < nc; i++)
        strs += str_size(decl->cells[i].row) + str_size(decl->cells[i].metric) +
                str_size(decl->cells[i].unit);
    for (int i = 0; i < nf; i++)
        strs += str_size(decl->figures[i].series) + str_size(decl->figures[i].title) +
                str_size(decl->figures[i].key_end);
    char *block = calloc(1, head + cells + figs + strs);
    if (!block)
        return GC_ENOMEM;
    struct gc_bench_report *r = (struct gc_bench_report *)(void *)block;
    struct gc_sum_cell *c = (struct gc_sum_cell *)(void *)(block + head);
    struct gc_fig_rule *f = (struct gc_fig_rule *)(void *)(block + head + cells);
    char *pool = block + head + cells + figs;

    for (int i = 0; i < nc; i++) {
        c[i] = decl->cells[i];
        c[i].row = pool_copy(&pool, decl->cells[i].row);
        c[i].metric = pool_copy(&pool, decl->cells[i].metric);
        c[i].unit = pool_copy(&pool, decl->cells[i].unit);
    }
    for (int i = 0; i < nf; i++) {
        f[i] = decl->figures[i];
        f[i].series = pool_copy(&pool, decl->figures[i].series);
        f[i].title = pool_copy(&pool, decl->figures[i].title);
        f[i].key_end = pool_copy(&pool, decl->figures[i].key_end);
    }
    r->cells = nc > 0 ? c : NULL;
    r->figures = nf > 0 ? f : NULL;
    *out = r;
    return 0;
}
