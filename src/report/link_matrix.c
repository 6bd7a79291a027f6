/* The link.* rows as matrices (report/link_matrix.h). */
#include <stdlib.h>
#include <string.h>

#include "model/peerlink.h"
#include "report/link_matrix.h"

bool gc__link_row(const struct gc_bench_result *b)
{
    return strncmp(b->name, "link.", 5) == 0;
}

bool gc__link_labelled(const struct gc_bench_result *b)
{
    for (int i = 0; i < b->nmetrics; i++)
        if (strcmp(b->metrics[i].name, "reachable_pairs") == 0)
            return true;
    return false;
}

bool gc__link_is_cell(const struct gc_metric *m)
{
    int a, b;
    const char *suf;

    return gc__pair_parse(m->name, &a, &b, &suf);
}

static bool same_suffix(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int gc__link_matrix(const struct gc_bench_result *b, const char *suffix, struct gc_link_matrix *m)
{
    int n = 0, from, to;
    const char *suf;

    memset(m, 0, sizeof(*m));
    m->b = b;
    m->suffix = suffix;
    for (int i = 0; i < b->nmetrics; i++) {
        const struct gc_metric *x = &b->metrics[i];

        if (strcmp(x->name, "devices") == 0 && x->value >= 1 && x->value <= 1024)
            n = n > (int)x->value ? n : (int)x->value;
        if (gc__pair_parse(x->name, &from, &to, &suf) && same_suffix(suf, suffix)) {
            n = n > from + 1 ? n : from + 1;
            n = n > to + 1 ? n : to + 1;
        }
    }
    bool any = false;
    for (int i = 0; i < b->nmetrics && !any; i++)
        any = gc__pair_parse(b->metrics[i].name, &from, &to, &suf) && same_suffix(suf, suffix);
    if (!any)
        return 0;
    m->cell = calloc((size_t)n * (size_t)n, sizeof(*m->cell));
    if (!m->cell)
        return GC_ENOMEM;
    m->n = n;
    for (int i = 0; i < b->nmetrics; i++) {
        const struct gc_metric *x = &b->metrics[i];

        if (!gc__pair_parse(x->name, &from, &to, &suf) || !same_suffix(suf, suffix) || from >= n ||
            to >= n)
            continue;
        m->cell[from * n + to] = x;
        if (!m->unit[0])
            memcpy(m->unit, x->unit, sizeof(m->unit));
    }
    return 0;
}

void gc__link_matrix_free(struct gc_link_matrix *m)
{
    free(m->cell);
    memset(m, 0, sizeof(*m));
}

void gc__link_label(const struct gc_metric *m, char *buf, size_t len)
{
    size_t k = 0;

    for (const char *p = m->note; *p && *p != ';' && k + 1 < len; p++)
        buf[k++] = *p;
    buf[k] = '\0';
}
