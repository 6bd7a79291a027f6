/* Node runs without a device: the device lists --device takes, the
 * resources benchmarks declare, the PCI bus id's spellings, and the node
 * document (writer, reader, text/CSV/HTML views) with its summary across
 * simulated devices, one of which is planted slow. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "canned.h"
#include "core/kclaim.h"
#include "core/numa.h"
#include "core/resource.h"
#include "gpuchar/node.h"
#include "report/node_phases.h"

static int setup(void **state)
{
    (void)state;
    setenv("GPUCHAR_NULL_DEVICES", "3", 1);
    setenv("GPUCHAR_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    setenv("GPUCHAR_LIBOPENCL", "/nonexistent/libOpenCL.so.1", 1);
    unsetenv("GPUCHAR_FAULT");
    unsetenv("GPUCHAR_FAULT_DEVICE");
    return 0;
}

static int resolve(const char *value, struct gc_device_summary **d, int *n, bool *list, char *err,
                   size_t errlen)
{
    gc_context *ctx = NULL;
    int rc;

    assert_int_equal(gc_context_create(&ctx), 0);
    rc = gc_device_list_resolve(ctx, value, d, n, list, err, errlen);
    gc_context_destroy(ctx);
    return rc;
}

static void test_device_lists(void **state)
{
    struct gc_device_summary *d = NULL;
    char err[512];
    bool list;
    int n;

    (void)state;
    /* Only simulated devices: "all" takes them. */
    assert_int_equal(resolve("all", &d, &n, &list, err, sizeof(err)), 0);
    assert_int_equal(n, 3);
    assert_true(list);
    free(d);
    assert_int_equal(resolve("null", &d, &n, &list, err, sizeof(err)), 0);
    assert_int_equal(n, 3);
    assert_true(list);
    assert_string_equal(d[2].spec, "null:2");
    free(d);
    assert_int_equal(resolve("null:2,null:0", &d, &n, &list, err, sizeof(err)), 0);
    assert_int_equal(n, 2);
    assert_string_equal(d[0].spec, "null:2");
    free(d);
    assert_int_equal(resolve("null:1", &d, &n, &list, err, sizeof(err)), 0);
    assert_int_equal(n, 1);
    assert_false(list);
    free(d);
    assert_int_equal(resolve("null:1,null:1", &d, &n, &list, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "twice"));
    assert_null(d);
    assert_int_equal(resolve("null:1,", &d, &n, &list, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "empty item"));
    assert_int_equal(resolve("null:0,all", &d, &n, &list, err, sizeof(err)), GC_EINVAL);
    assert_int_equal(resolve("null:0,null:9", &d, &n, &list, err, sizeof(err)), GC_ENODEV);
    assert_non_null(strstr(err, "null:9"));
    /* One simulated device: a backend name is that device alone. */
    setenv("GPUCHAR_NULL_DEVICES", "1", 1);
    assert_int_equal(resolve("null", &d, &n, &list, err, sizeof(err)), 0);
    assert_int_equal(n, 1);
    assert_false(list);
    free(d);
    assert_int_equal(resolve("all", &d, &n, &list, err, sizeof(err)), 0);
    assert_int_equal(n, 1);
    assert_true(list);
    free(d);
    setenv("GPUCHAR_NULL_DEVICES", "3", 1);
}

static int bench_index(const char *name)
{
    for (int i = 0; i < gc_bench_count(); i++)
        if (strcmp(gc_bench_get(i)->name, name) == 0)
            return i;
    return -1;
}

static void test_resources(void **state)
{
    char buf[64];

    (void)state;
    assert_true(gc_bench_resources(bench_index("transfer.pinned")) & GC_RES_HOST_LINK);
    assert_int_equal(gc_bench_resources(bench_index("transfer.d2d")), 0);
    assert_true(gc_bench_resources(bench_index("energy.idle")) & GC_RES_POWER_METER);
    assert_true(gc_bench_resources(bench_index("overhead.launch.roundtrip")) & GC_RES_HOST_CPU);
    assert_int_equal(gc_bench_resources(-1), 0);
    /* Every benchmark of the host-link, power-meter and host-side groups
     * declares its resource; the device's own work declares none. */
    for (int i = 0; i < gc_bench_count(); i++) {
        const struct gc_bench_info *b = gc_bench_get(i);
        unsigned r = gc_bench_resources(i);

        if (strcmp(b->group, "energy") == 0)
            assert_true(r & GC_RES_POWER_METER);
        else if (strcmp(b->group, "overhead") == 0)
            assert_true(r & GC_RES_HOST_CPU);
        else if (strcmp(b->group, "memory") == 0 || strcmp(b->group, "compute") == 0)
            assert_int_equal(r, 0);
    }
    assert_string_equal(gc_resource_names(GC_RES_HOST_LINK | GC_RES_POWER_METER, buf, 64),
                        "host link, power meter");
    assert_string_equal(gc_resource_names(0, buf, sizeof(buf)), "");
    /* A resource that is held cannot be taken without waiting; taking two
     * where one is busy takes neither. */
    assert_true(gc__resources_try(GC_RES_HOST_LINK));
    assert_false(gc__resources_try(GC_RES_HOST_LINK));
    assert_false(gc__resources_try(GC_RES_POWER_METER | GC_RES_HOST_LINK));
    assert_true(gc__resources_try(GC_RES_POWER_METER));
    gc__resources_release(GC_RES_POWER_METER | GC_RES_HOST_LINK);
    assert_true(gc__resources_try(GC_RES_ALL));
    gc__resources_release(GC_RES_ALL);
}

static void test_pci_bus_id(void **state)
{
    char c[32];

    (void)state;
    assert_true(gc__pci_bus_canonical("00000000:3B:00.0", c, sizeof(c)));
    assert_string_equal(c, "0000:3b:00.0");
    assert_true(gc__pci_bus_canonical("3b:00.1", c, sizeof(c)));
    assert_string_equal(c, "0000:3b:00.1");
    assert_false(gc__pci_bus_canonical("", c, sizeof(c)));
    assert_false(gc__pci_bus_canonical("0000:3b:00.0 ", c, sizeof(c)));
    assert_false(gc__pci_bus_canonical("../../etc", c, sizeof(c)));
    assert_int_equal(gc__pci_numa_node("not a bus id"), -1);
    assert_int_equal(gc__pci_numa_node(NULL), -1);
}

/* A claim is the caller's until released; a released key can be claimed
 * again. */
static void test_kclaim(void **state)
{
    (void)state;
    assert_true(gc__kclaim_acquire("0123456789abcdef0123456789abcdef"));
    assert_true(gc__kclaim_acquire("fedcba9876543210fedcba9876543210"));
    gc__kclaim_release("0123456789abcdef0123456789abcdef");
    assert_true(gc__kclaim_acquire("0123456789abcdef0123456789abcdef"));
    gc__kclaim_release("0123456789abcdef0123456789abcdef");
    gc__kclaim_release("fedcba9876543210fedcba9876543210");
}

/* Device i measured alone on the null backend (transfers: kernels do not
 * execute there). */
static struct gc_results *measure(int i, int *rc)
{
    static const char *const pats[] = {"transfer.pageable", "transfer.d2d", NULL};
    struct gc_run_options o;
    struct gc_results *r = NULL;
    gc_context *ctx = NULL;
    char spec[16];

    snprintf(spec, sizeof(spec), "null:%d", i);
    assert_int_equal(gc_context_create(&ctx), 0);
    gc_run_options_init(&o);
    o.device = spec;
    o.patterns = pats;
    o.profile = GC_PROFILE_QUICK;
    o.no_cache = true;
    *rc = gc_run(ctx, &o, &r);
    gc_context_destroy(ctx);
    assert_non_null(r);
    return r;
}

/* Three devices, null:1 planted at half the host-to-device bandwidth. */
static struct gc_node *three_devices(void)
{
    struct gc_node *n = NULL;

    assert_int_equal(gc_node_create(&n), 0);
    setenv("GPUCHAR_FAULT", "scale:h2d_bandwidth:0.5", 1);
    setenv("GPUCHAR_FAULT_DEVICE", "null:1", 1);
    for (int i = 0; i < 3; i++) {
        char spec[16];
        int rc;
        struct gc_results *r = measure(i, &rc);

        snprintf(spec, sizeof(spec), "null:%d", i);
        assert_int_equal(gc_node_add_device(n, spec, NULL, r, rc, false, ""), 0);
    }
    unsetenv("GPUCHAR_FAULT");
    unsetenv("GPUCHAR_FAULT_DEVICE");
    n->sched = calloc(1, sizeof(*n->sched));
    assert_non_null(n->sched);
    n->nsched = 1;
    snprintf(n->sched[0].bench, sizeof(n->sched[0].bench), "transfer.pageable");
    n->sched[0].resources = GC_RES_HOST_LINK;
    snprintf(n->links_note, sizeof(n->links_note), "not available: test");
    assert_int_equal(gc_node_summarise(n), 0);
    return n;
}

static const struct gc_node_figure *figure(const struct gc_node *n, const char *key)
{
    for (int i = 0; i < n->nfigures; i++)
        if (strcmp(n->figures[i].key, key) == 0)
            return &n->figures[i];
    return NULL;
}

static void check_summary(const struct gc_node *n)
{
    const struct gc_node_figure *h2d = figure(n, "transfers/pageable H2D/bandwidth");
    const struct gc_node_figure *d2h = figure(n, "transfers/pageable D2H/bandwidth");

    assert_non_null(h2d);
    assert_non_null(d2h);
    assert_int_equal(h2d->n, 3);
    assert_true(h2d->min <= h2d->median && h2d->median <= h2d->max);
    /* The planted device is the minimum, about half the others. */
    assert_true(h2d->min < 0.6 * h2d->max);
    assert_true(fabs(h2d->spread - (h2d->max - h2d->min) / h2d->median) < 1e-12);
    assert_int_equal(h2d->deviant, 1);
    assert_true(h2d->flagged);
    assert_false(d2h->flagged);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(n->devices[i].id.driver, n->devices[i].results->meta.device.driver);
        assert_int_equal(n->devices[i].id.numa_node, -1);
    }
    assert_true(n->complete);
}

static char *text_of(const struct gc_node *n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(gc_write_node_text(n, f), 0);
    fclose(f);
    return buf;
}

static void test_document(void **state)
{
    struct gc_node *n = three_devices(), *back = NULL;
    struct gc_results *single = NULL;
    char *dir = make_temp_dir(), path[512], err[512], *text;
    struct stat st;

    (void)state;
    check_summary(n);
    /* Device 1 waited for the host link and put a row back. */
    n->devices_s = 12.5;
    n->links_s = 3.25;
    n->devices[1].results->benches[0].wall_s += 0.75;
    n->devices[1].results->benches[0].wait_s = 0.75;
    n->devices[1].results->benches[0].deferred = true;
    snprintf(path, sizeof(path), "%s/node.json", dir);
    assert_int_equal(gc_write_node_json(n, path), 0);
    assert_true(gc_is_node_json(path));
    assert_int_equal(gc_read_node_json(path, &back, err, sizeof(err)), 0);
    assert_int_equal(back->ndevices, 3);
    assert_int_equal(back->nfigures, n->nfigures);
    assert_int_equal(back->nsched, 1);
    assert_int_equal(back->sched[0].resources, GC_RES_HOST_LINK);
    assert_false(back->sched[0].concurrent);
    assert_string_equal(back->links_note, n->links_note);
    /* The phases: the run's and, per device, its serialized rows and the
     * rows put back (transfer.pageable of the canned devices). */
    assert_true(back->devices_s == n->devices_s && back->links_s == n->links_s);
    for (int i = 0; i < 3; i++) {
        struct gc_node_phase p;

        gc__node_phase(back, i, &p);
        assert_int_equal(p.deferred, i == 1);
        /* The canned devices ran one after another: nothing waited but the
         * row set here. */
        assert_true(p.wait_s == (i == 1 ? 0.75 : 0));
        assert_true(p.serialized_s >= p.wait_s);
    }
    for (int i = 0; i < 3; i++) {
        assert_string_equal(back->devices[i].spec, n->devices[i].spec);
        assert_int_equal(back->devices[i].results->nbenches, n->devices[i].results->nbenches);
    }
    for (int i = 0; i < n->nfigures; i++) {
        assert_string_equal(back->figures[i].key, n->figures[i].key);
        assert_true(back->figures[i].median == n->figures[i].median);
        assert_int_equal(back->figures[i].deviant, n->figures[i].deviant);
        assert_int_equal(back->figures[i].flagged, n->figures[i].flagged);
    }
    /* The one-device reader names what the file is. */
    assert_int_equal(gc_read_json(path, &single, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "node document"));
    text = text_of(back);
    assert_non_null(strstr(text, "== Device null:1"));
    assert_non_null(strstr(text, "Across the devices"));
    assert_non_null(strstr(text, "== Time =="));
    assert_non_null(strstr(text, "transfer.pageable"));
    free(text);
    snprintf(path, sizeof(path), "%s/csv", dir);
    assert_int_equal(gc_write_node_csv(back, path), 0);
    snprintf(path, sizeof(path), "%s/csv/null_2/metrics.csv", dir);
    assert_int_equal(stat(path, &st), 0);
    snprintf(path, sizeof(path), "%s/csv/summary.csv", dir);
    assert_int_equal(stat(path, &st), 0);
    snprintf(path, sizeof(path), "%s/node.html", dir);
    assert_int_equal(gc_write_node_html(back, path, err, sizeof(err)), 0);
    gc_node_free(back);
    gc_node_free(n);
    rm_rf(dir);
    free(dir);
}

/* A device whose run measured nothing keeps its section and its message;
 * the others' figures are still summarised; the node is incomplete. */
static void test_device_without_results(void **state)
{
    struct gc_node *n = NULL;
    int rc;

    (void)state;
    assert_int_equal(gc_node_create(&n), 0);
    assert_int_equal(gc_node_add_device(n, "null:0", "a", measure(0, &rc), rc, false, ""), 0);
    assert_int_equal(gc_node_add_device(n, "null:1", "b", NULL, GC_EBACKEND, true, "lost"), 0);
    assert_int_equal(gc_node_summarise(n), 0);
    assert_false(n->complete);
    assert_true(n->nfigures > 0);
    for (int i = 0; i < n->nfigures; i++) {
        assert_int_equal(n->figures[i].n, 1);
        assert_int_equal(n->figures[i].deviant, -1);
    }
    gc_node_free(n);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_lists), cmocka_unit_test(test_resources),
        cmocka_unit_test(test_pci_bus_id),   cmocka_unit_test(test_kclaim),
        cmocka_unit_test(test_document),     cmocka_unit_test(test_device_without_results),
    };

    golden_init(argc, argv);
    return cmocka_run_group_tests(tests, setup, NULL);
}
