/* Tests of the fleet analysis (src/model/fleet.c) on synthetic summaries,
 * the summary's round trip, the reference file, and the fleet's JSON and
 * CSV against golden copies of a canned fleet. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "canned.h"
#include "gpuchar/fleet.h"
#include "model/fleet.h"

static struct gc_fleet *sim(int n, int nfig, const int *slow, int nslow)
{
    struct gc_fleet *f = NULL;

    assert_int_equal(gc_fleet_create(&f), 0);
    assert_int_equal(gc_fleet_simulate(f, 0, n, nfig, 7, slow, nslow), 0);
    return f;
}

static bool flagged(const struct gc_fleet *f, int gpu)
{
    for (int k = 0; k < f->nflags; k++)
        if (f->flags[k].gpu == gpu)
            return true;
    return false;
}

static void test_median_mad(void **state)
{
    double x[] = {4, 100, 1, 3, 2}, med, mad;

    (void)state;
    gc__fleet_median_mad(x, 5, &med, &mad);
    assert_true(med == 3 && mad == 1);
    assert_true(fabs(gc__fleet_robust_z(5, 3, 1) - 2 * 0.6745) < 1e-12);
    assert_true(gc__fleet_robust_z(3, 3, 0) == 0);
    assert_true(isinf(gc__fleet_robust_z(2, 3, 0)) && gc__fleet_robust_z(2, 3, 0) < 0);
}

/* Exactly the slowed devices are flagged, each on every figure, by the
 * relative rule; a latency figure is flagged when it is higher. */
static void test_slow_flagged(void **state)
{
    const int slow[] = {5, 22};
    struct gc_fleet *f = sim(40, 10, slow, 2);

    (void)state;
    assert_int_equal(gc_fleet_analyse(f, NULL, NULL), 0);
    assert_int_equal(f->ngroups, 2);
    assert_int_equal(f->nflagged_gpus, 2);
    assert_int_equal(f->nflags, 2 * 10);
    for (int i = 0; i < f->ngpus; i++)
        assert_int_equal(flagged(f, i), i == 5 || i == 22);
    for (int k = 0; k < f->nflags; k++) {
        const struct gc_fleet_flag *fl = &f->flags[k];
        const struct gc_fleet_stat *st = &f->stats[fl->stat];

        assert_int_equal(fl->kind, GC_FLEET_LOW);
        assert_string_equal(fl->rule, "relative");
        if (f->figures[fl->figure].direction > 0)
            assert_true(fl->value < st->floor && fl->z < 0);
        else
            assert_true(fl->value > st->floor && fl->z > 0);
    }
    gc_fleet_free(f);
}

static void test_none_flagged(void **state)
{
    struct gc_fleet *f = sim(24, 5, NULL, 0);

    (void)state;
    assert_int_equal(gc_fleet_analyse(f, NULL, NULL), 0);
    assert_int_equal(f->nflags, 0);
    assert_int_equal(f->nfailed, 0);
    gc_fleet_free(f);
}

/* A device far above its group is flagged "high" only with a robust z
 * beyond the limit. */
static void test_high(void **state)
{
    struct gc_fleet *f = sim(12, 1, NULL, 0);

    (void)state;
    f->gpus[4].v[0] *= 1.5;
    assert_int_equal(gc_fleet_analyse(f, NULL, NULL), 0);
    assert_int_equal(f->nflags, 1);
    assert_int_equal(f->flags[0].gpu, 4);
    assert_int_equal(f->flags[0].kind, GC_FLEET_HIGH);
    assert_true(f->flags[0].z > f->opt.high_z);
    gc_fleet_free(f);
}

/* The absolute floor applies where it is stricter; groups under min_group
 * get no relative rule. */
static void test_reference(void **state)
{
    struct gc_fleet *f = sim(6, 1, NULL, 0);
    struct gc_fleet_ref_entry e = {.sku = "Simulated GPU A", .limit = 1000};
    struct gc_fleet_reference ref = {.path = "ref.json", .e = &e, .n = 1};

    (void)state;
    snprintf(e.figure, sizeof(e.figure), "%s", f->figures[0].key);
    assert_int_equal(gc_fleet_analyse(f, NULL, &ref), 0);
    /* Devices 0, 1, 2, 4, 5 are model A (at ~100), 3 is B: one device. */
    assert_int_equal(f->nflagged_gpus, 5);
    for (int k = 0; k < f->nflags; k++)
        assert_string_equal(f->flags[k].rule, "absolute");
    for (int s = 0; s < f->nstats; s++)
        if (f->stats[s].n < 3)
            assert_true(isnan(f->stats[s].rel_floor));
    assert_int_equal(f->nnotes, 0);
    snprintf(e.sku, sizeof(e.sku), "No Such GPU");
    assert_int_equal(gc_fleet_analyse(f, NULL, &ref), 0);
    assert_int_equal(f->nflags, 0);
    assert_int_equal(f->nnotes, 1);
    assert_non_null(strstr(f->notes[0], "No Such GPU"));
    gc_fleet_free(f);
}

/* A summary read back equals the device it came from; another version is
 * refused and named. */
static void test_summary_round_trip(void **state)
{
    struct gc_fleet *f = sim(3, 4, NULL, 0), *g = NULL;
    char *text = NULL, err[256], *at;
    size_t len;

    (void)state;
    assert_int_equal(gc_fleet_create(&g), 0);
    assert_int_equal(gc_fleet_gpu_encode(f, 2, &text, &len), 0);
    assert_int_equal(gc_fleet_add_summary(g, text, len, err, sizeof(err)), 0);
    assert_int_equal(g->ngpus, 1);
    assert_int_equal(g->gpus[0].status, GC_FLEET_OK);
    assert_string_equal(g->gpus[0].uuid, f->gpus[2].uuid);
    assert_string_equal(g->gpus[0].group, f->gpus[2].group);
    for (int i = 0; i < 4; i++)
        assert_true(g->gpus[0].v[i] == f->gpus[2].v[i]);
    at = strstr(text, gc_version());
    assert_non_null(at);
    at[0] = '9';
    assert_int_equal(gc_fleet_add_summary(g, text, len, err, sizeof(err)), 0);
    assert_int_equal(g->gpus[1].status, GC_FLEET_REFUSED);
    assert_non_null(strstr(g->gpus[1].message, "this is gpuchar"));
    assert_int_equal(gc_fleet_add_summary(g, "{\"x\": 1}", 8, err, sizeof(err)), GC_EINVAL);
    free(text);
    gc_fleet_free(f);
    gc_fleet_free(g);
}

static void write_ref(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_reference_file(void **state)
{
    struct gc_fleet_reference ref;
    char *dir = make_temp_dir(), path[512], err[512];

    (void)state;
    snprintf(path, sizeof(path), "%s/ref.json", dir);
    write_ref(path, "{\"schema\": \"gpuchar-fleet-reference\", \"skus\": {\"NVIDIA H100 80GB "
                    "HBM3\": {\"memory/DRAM/bandwidth\": 20, \"compute/fp32.add/per clk/SM\": "
                    "120}}}");
    assert_int_equal(gc_fleet_reference_read(path, &ref, err, sizeof(err)), 0);
    assert_int_equal(ref.n, 2);
    gc_fleet_reference_free(&ref);
    write_ref(path, "{\"schema\": \"gpuchar-fleet-reference\", \"skus\": {\"X\": "
                    "{\"memory/DRAM/bandwidth\": -3}}}");
    assert_int_equal(gc_fleet_reference_read(path, &ref, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "positive number"));
    write_ref(path, "{\"schema\": \"gpuchar-fleet-reference\", \"skus\": {\"X\": "
                    "{\"memory/Dram/bandwidth\": 3}}}");
    assert_int_equal(gc_fleet_reference_read(path, &ref, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "not a headline figure"));
    write_ref(path, "{\"schema\": \"gpuchar-fleet-reference\", \"skus\": {\"X\": {\"a\": }}}");
    assert_int_equal(gc_fleet_reference_read(path, &ref, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "line 1"));
    rm_rf(dir);
    free(dir);
}

/* A fleet with a failed device and a slow one, written as JSON and CSV. */
static void test_golden(void **state)
{
    const int slow[] = {2};
    struct gc_fleet *f = sim(8, 3, slow, 1);
    char *dir = make_temp_dir(), path[512], *text;
    size_t len;

    (void)state;
    assert_int_equal(gc_fleet_add_missing(f, 8, "node00002", GC_FLEET_TIMEOUT, "no result"), 0);
    assert_int_equal(gc_fleet_analyse(f, NULL, NULL), 0);
    snprintf(path, sizeof(path), "%s/fleet.json", dir);
    assert_int_equal(gc_write_fleet_json(f, path), 0);
    text = slurp(path, &len);
    assert_true(text && golden_check("fleet/fleet.json", text, len));
    free(text);
    snprintf(path, sizeof(path), "%s/fleet.csv", dir);
    assert_int_equal(gc_write_fleet_csv(f, path), 0);
    text = slurp(path, &len);
    assert_true(text && golden_check("fleet/fleet.csv", text, len));
    free(text);
    rm_rf(dir);
    free(dir);
    gc_fleet_free(f);
}

/* A node summary of topology topo with link.ce_write 0->1 = bw (B/s) and
 * link.latency 0->1 = 2 us, appended to the JSON array text. */
static void node_summary(char *text, size_t len, int rank, const char *topo, double bw)
{
    size_t used = strlen(text);

    snprintf(text + used, len - used,
             "%s{\"schema\": \"gpuchar-fleet-node-summary\", \"schema_version\": 1, "
             "\"rank\": %d, \"host\": \"node%d\", \"source\": \"\", \"topology\": \"%s\", "
             "\"devices\": 2, \"figures\": [[\"link.ce_write/0->1\", \"B/s\", 1, %.17g], "
             "[\"link.latency/0->1\", \"s\", -1, 2e-6]]}",
             used > 1 ? ", " : "", rank, rank, topo, bw);
}

/* Nodes are judged within their topology: the one whose link is below
 * low_ratio x its group's median is flagged, with the pair; a topology
 * with fewer than min_group nodes is not judged. */
static void test_nodes(void **state)
{
    static const double bw[] = {100e9, 101e9, 99e9, 30e9, 102e9};
    struct gc_fleet *f = NULL, *g = NULL;
    char text[8192] = "[", err[256], *again = NULL;
    size_t len;

    (void)state;
    for (int i = 0; i < 5; i++)
        node_summary(text, sizeof(text), i, "A x2 | 0->1 NV18", bw[i]);
    node_summary(text, sizeof(text), 5, "B x2 | 0->1 PCIe", 10e9);
    node_summary(text, sizeof(text), 6, "B x2 | 0->1 PCIe", 50e9);
    strcat(text, "]");
    assert_int_equal(gc_fleet_create(&f), 0);
    assert_int_equal(gc_fleet_add_summary(f, text, strlen(text), err, sizeof(err)), 0);
    assert_int_equal(f->nnodes, 7);
    assert_int_equal(f->nnode_fig, 2);
    assert_int_equal(gc_fleet_analyse(f, NULL, NULL), 0);
    assert_int_equal(f->nflagged_nodes, 1);
    assert_int_equal(f->nnode_flags, 1);
    assert_int_equal(f->node_flags[0].node, 3);
    assert_string_equal(f->node_figures[f->node_flags[0].figure].key, "link.ce_write/0->1");
    assert_int_equal(f->node_flags[0].n, 5);
    assert_true(f->node_flags[0].median == 100e9);
    assert_true(f->node_flags[0].floor == f->opt.low_ratio * 100e9);
    /* The same nodes through the encoding rank 0 receives. */
    assert_int_equal(gc_fleet_encode_all(f, &again, &len), 0);
    assert_int_equal(gc_fleet_create(&g), 0);
    assert_int_equal(gc_fleet_add_summary(g, again, len, err, sizeof(err)), 0);
    assert_int_equal(g->nnodes, 7);
    assert_string_equal(g->nodes[6].topology, "B x2 | 0->1 PCIe");
    assert_int_equal(gc_fleet_analyse(g, NULL, NULL), 0);
    assert_int_equal(g->nflagged_nodes, 1);
    assert_int_equal(g->node_flags[0].node, 3);
    free(again);
    gc_fleet_free(g);
    /* Fewer nodes than min_group in the group: not judged. */
    f->opt.min_group = 6;
    assert_int_equal(gc_fleet_analyse(f, &f->opt, NULL), 0);
    assert_int_equal(f->nflagged_nodes, 0);
    gc_fleet_free(f);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median_mad),     cmocka_unit_test(test_slow_flagged),
        cmocka_unit_test(test_none_flagged),   cmocka_unit_test(test_high),
        cmocka_unit_test(test_reference),      cmocka_unit_test(test_summary_round_trip),
        cmocka_unit_test(test_reference_file), cmocka_unit_test(test_golden),
        cmocka_unit_test(test_nodes),
    };

    golden_init(argc, argv);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
