/* The device layer's host buffers (gc__dev_hostbuf_alloc): pinned where the
 * backend has it, kept after a free for the next allocation that fits, else
 * malloc'ed without an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "backend/null/null.h"
#include "core/device.h"

static struct gc_device *open_null(const struct gc_null_config *cfg)
{
    struct gc_device *dev = NULL;
    char why[64], err[256];

    gc__null_configure(cfg);
    assert_int_equal(gc__null_ops.init(why, sizeof(why)), 0);
    assert_int_equal(gc__device_open(&gc__null_ops, 0, &dev, err, sizeof(err)), 0);
    return dev;
}

static void test_pinned_kept_and_reused(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-5};
    struct gc_device *d = open_null(&cfg);
    struct gc_hostbuf a, b, c;

    (void)state;
    assert_int_equal(gc__dev_hostbuf_alloc(d, 4096, &a), 0);
    assert_non_null(a.mem);
    assert_ptr_equal(a.ptr, a.mem->ptr);
    assert_int_equal(a.mem->kind, GC_HOST_PINNED);
    memset(a.ptr, 0xA5, 4096);
    void *first = a.ptr;
    gc__dev_hostbuf_free(d, &a);
    assert_null(a.ptr);
    /* A smaller request takes the kept buffer; a larger one a new one. */
    assert_int_equal(gc__dev_hostbuf_alloc(d, 1000, &b), 0);
    assert_ptr_equal(b.ptr, first);
    assert_int_equal(gc__dev_hostbuf_alloc(d, 8192, &c), 0);
    assert_ptr_not_equal(c.ptr, first);
    assert_true(c.mem->bytes >= 8192);
    gc__dev_hostbuf_free(d, &b);
    gc__dev_hostbuf_free(d, &c);
    /* More buffers than the device keeps: the largest stay, the rest are
     * freed (the sanitizers see a leak otherwise). */
    struct gc_hostbuf many[GC_PARKED_HOST + 3];
    for (int i = 0; i < GC_PARKED_HOST + 3; i++)
        assert_int_equal(gc__dev_hostbuf_alloc(d, 100000 + 1000 * (size_t)i, &many[i]), 0);
    for (int i = 0; i < GC_PARKED_HOST + 3; i++)
        gc__dev_hostbuf_free(d, &many[i]);
    for (int i = 0; i < GC_PARKED_HOST; i++) {
        assert_non_null(d->parked_host[i]);
        assert_true(d->parked_host[i]->bytes >= 100000 + 1000 * 3);
    }
    /* Released between benchmarks: nothing stays pinned. */
    gc__dev_hostbuf_release(d);
    for (int i = 0; i < GC_PARKED_HOST; i++)
        assert_null(d->parked_host[i]);
    assert_int_equal(gc__dev_hostbuf_alloc(d, 4096, &a), 0);
    gc__dev_hostbuf_free(d, &a);
    gc__device_close(d);
    gc__null_configure(NULL);
}

static void test_malloc_without_pinned(void **state)
{
    struct gc_null_config cfg = {.launch_s = 1e-5, .host_lock_limit = 1024};
    struct gc_device *d = open_null(&cfg);
    struct gc_hostbuf a;

    (void)state;
    d->err[0] = '\0';
    assert_int_equal(gc__dev_hostbuf_alloc(d, 1 << 20, &a), 0);
    assert_non_null(a.ptr);
    assert_null(a.mem);
    assert_string_equal(d->err, "");
    memset(a.ptr, 0, 1 << 20);
    gc__dev_hostbuf_free(d, &a);
    assert_null(d->parked_host[0]);
    gc__device_close(d);
    gc__null_configure(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pinned_kept_and_reused),
        cmocka_unit_test(test_malloc_without_pinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
