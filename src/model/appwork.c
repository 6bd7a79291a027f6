/* The per-launch work record of an application kernel in the results tree
 * (model/appwork.h). */
#include "model/appwork.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/results.h"

#define KERNEL_MAX 40

static const char *const op_names[GC_APP_OP_N] = {"fp32", "fp64", "int32", "sfu"};
static const char *const level_names[GC_APP_LVL_N] = {"dram", "l2", "l1", "shared", "const"};

const char *gc__app_op_name(enum gc_app_op op)
{
    return (op >= 0 && op < GC_APP_OP_N) ? op_names[op] : "?";
}

const char *gc__app_level_name(enum gc_app_level lv)
{
    return (lv >= 0 && lv < GC_APP_LVL_N) ? level_names[lv] : "?";
}

void gc__app_work_init(struct gc_app_work *w)
{
    memset(w, 0, sizeof(*w));
    w->regs_per_thread = -1;
}

static bool count_ok(double v)
{
    return isfinite(v) && v >= 0.0;
}

static bool work_ok(const struct gc_app_work *w)
{
    for (int i = 0; i < GC_APP_OP_N; i++)
        if (!count_ok(w->ops[i]))
            return false;
    for (int i = 0; i < GC_APP_LVL_N; i++)
        if (!count_ok(w->bytes[i]))
            return false;
    return count_ok(w->threads) && count_ok(w->l1_wavefronts) && count_ok(w->access_bytes) &&
           w->block_threads > 0 && count_ok(w->shared_per_block);
}

static int put(struct gc_bench_result *b, const char *kernel, const char *what, double v,
               const char *unit)
{
    char name[64];
    snprintf(name, sizeof(name), "%s.%s", kernel, what);
    return gc__bench_add_metric(b, name, v, unit, NAN, NULL, "counted by the kernel's generator")
               ? 0
               : GC_ENOMEM;
}

int gc__app_work_put(struct gc_bench_result *b, const char *kernel, const struct gc_app_work *w)
{
    char what[32];
    int rc = 0;

    if (!kernel || !kernel[0] || strlen(kernel) > KERNEL_MAX || !work_ok(w))
        return GC_EINVAL;
    for (int i = 0; i < GC_APP_OP_N && rc == 0; i++) {
        snprintf(what, sizeof(what), "ops.%s", op_names[i]);
        rc = put(b, kernel, what, w->ops[i], "ops");
    }
    for (int i = 0; i < GC_APP_LVL_N && rc == 0; i++) {
        snprintf(what, sizeof(what), "bytes.%s", level_names[i]);
        rc = put(b, kernel, what, w->bytes[i], "B");
    }
    if (rc == 0 && w->l1_wavefronts > 0)
        rc = put(b, kernel, "l1_wavefronts", w->l1_wavefronts, "1");
    if (rc == 0 && w->access_bytes > 0)
        rc = put(b, kernel, "access_bytes", w->access_bytes, "B");
    if (rc == 0)
        rc = put(b, kernel, "threads", w->threads, "1");
    if (rc == 0)
        rc = put(b, kernel, "block_threads", w->block_threads, "1");
    if (rc == 0)
        rc = put(b, kernel, "regs", w->regs_per_thread >= 0 ? w->regs_per_thread : NAN, "1");
    if (rc == 0)
        rc = put(b, kernel, "shared_bytes", w->shared_per_block, "B");
    return rc;
}

static double get(const struct gc_bench_result *b, const char *kernel, const char *what)
{
    char name[64];
    snprintf(name, sizeof(name), "%s.%s", kernel, what);
    const struct gc_metric *m = gc__bench_find_metric(b, name);
    return (m && isfinite(m->value)) ? m->value : 0.0;
}

bool gc__app_work_get(const struct gc_bench_result *b, const char *kernel, struct gc_app_work *w)
{
    char name[64], what[32];

    gc__app_work_init(w);
    snprintf(name, sizeof(name), "%s.threads", kernel);
    if (!gc__bench_find_metric(b, name))
        return false;
    for (int i = 0; i < GC_APP_OP_N; i++) {
        snprintf(what, sizeof(what), "ops.%s", op_names[i]);
        w->ops[i] = get(b, kernel, what);
    }
    for (int i = 0; i < GC_APP_LVL_N; i++) {
        snprintf(what, sizeof(what), "bytes.%s", level_names[i]);
        w->bytes[i] = get(b, kernel, what);
    }
    w->l1_wavefronts = get(b, kernel, "l1_wavefronts");
    w->access_bytes = get(b, kernel, "access_bytes");
    w->threads = get(b, kernel, "threads");
    w->block_threads = (int)get(b, kernel, "block_threads");
    snprintf(name, sizeof(name), "%s.regs", kernel);
    const struct gc_metric *m = gc__bench_find_metric(b, name);
    w->regs_per_thread = (m && isfinite(m->value)) ? (int)m->value : -1;
    w->shared_per_block = get(b, kernel, "shared_bytes");
    return true;
}
