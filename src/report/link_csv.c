/* The link.* rows as CSV (gc_write_link_csv): one line per row and pair,
 * the matrices in long form. */
#include <math.h>
#include <stdio.h>

#include "gpuchar/link.h"
#include "model/peerlink.h"
#include "report/csv.h"
#include "report/link_matrix.h"
#include "report/units.h"

static void num(FILE *f, double v)
{
    char buf[40];

    gc__fmt_double(buf, sizeof(buf), v);
    fprintf(f, ",%s", buf);
}

int gc_write_link_csv(const struct gc_results *links, FILE *f)
{
    if (!links || !f)
        return GC_EINVAL;
    fprintf(f, "bench,metric,from,to,value,unit,limit,fraction,note\n");
    for (int i = 0; i < links->nbenches; i++) {
        const struct gc_bench_result *b = &links->benches[i];

        if (!gc__link_row(b))
            continue;
        for (int k = 0; k < b->nmetrics; k++) {
            const struct gc_metric *x = &b->metrics[k];
            const char *suf;
            int from, to;

            if (!gc__pair_parse(x->name, &from, &to, &suf))
                continue;
            gc__csv_text(f, b->name);
            fputc(',', f);
            gc__csv_text(f, x->name);
            fprintf(f, ",%d,%d", from, to);
            num(f, x->value);
            fputc(',', f);
            gc__csv_text(f, x->unit);
            num(f, x->limit);
            num(f, x->fraction);
            fputc(',', f);
            gc__csv_text(f, x->note);
            fputc('\n', f);
        }
    }
    return ferror(f) ? GC_EIO : 0;
}
