/* The instruction catalogue's data and host models, the sweep helpers and
 * the pipeline-model equations (Lemeire eqs. 3-5). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/compute/compute.h"
#include "core/benchdef.h"
#include "kgen/kgen.h"
#include "core/arch.h"
#include "core/minifloat.h"
#include "util/random.h"
#include "core/sweep.h"
#include "model/pipeline.h"

/* Every finite half converts to double and back unchanged; values halfway
 * between two halves round to the even one. */
static void test_half_round_trip(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x10000; h++) {
        double v = gc__half_to_double((uint16_t)h);
        if (isnan(v))
            continue;
        assert_int_equal(gc__half_from_double(v), h);
    }
    assert_int_equal(gc__half_from_double(1.0), 0x3c00);
    assert_int_equal(gc__half_from_double(65504.0), 0x7bff);
    assert_int_equal(gc__half_from_double(65520.0), 0x7c00);               /* rounds to infinity */
    assert_int_equal(gc__half_from_double(1.0 + ldexp(1.0, -11)), 0x3c00); /* tie to even */
    assert_int_equal(gc__half_from_double(1.0 + 3 * ldexp(1.0, -11)), 0x3c02);
    assert_int_equal(gc__half_from_double(ldexp(1.0, -24)), 0x0001); /* smallest subnormal */
    assert_int_equal(gc__half_from_double(ldexp(1.0, -25)), 0x0000); /* tie to even zero */
    for (uint32_t h = 0; h < 0x10000; h++) {
        double v = gc__bf16_to_double((uint16_t)h);
        if (isnan(v))
            continue;
        assert_int_equal(gc__bf16_from_double(v), h);
    }
    assert_int_equal(gc__bf16_from_double(1.0), 0x3f80);
    /* fp8 e4m3: no infinities; 0x7f is NaN, 448 the largest number. */
    for (uint32_t b = 0; b < 0x100; b++) {
        double v = gc__minifloat_decode(b, 4, 3, false);
        if ((b & 0x7f) == 0x7f) {
            assert_true(isnan(v));
            continue;
        }
        assert_int_equal(gc__minifloat_encode(v, 4, 3, false), b);
    }
    assert_true(gc__minifloat_decode(0x7e, 4, 3, false) == 448.0);
    assert_int_equal(gc__minifloat_encode(480.0, 4, 3, false), 0x7f); /* past 448: NaN */
    assert_int_equal(gc__minifloat_encode(-3.0, 4, 3, false), 0xc4);
}

/* The rounding of the general formulation (frexp, nearbyint, ldexp): the
 * model the bit-level paths of gc__minifloat_encode/decode must match. */
static uint32_t ref_encode(double v, int ebits, int mbits, bool ieee)
{
    uint32_t sign = signbit(v) ? 1u << (mbits + ebits) : 0;
    uint32_t allexp = ((1u << ebits) - 1) << mbits;
    uint32_t nan = ieee ? allexp | (1u << (mbits - 1)) : allexp | ((1u << mbits) - 1);
    int bias = (1 << (ebits - 1)) - 1, e, emax = ieee ? (1 << ebits) - 2 : (1 << ebits) - 1;
    double a = fabs(v);

    if (a == 0)
        return sign;
    frexp(a, &e);
    e -= 1;
    if (e < 1 - bias)
        e = 1 - bias;
    uint64_t ri = (uint64_t)nearbyint(ldexp(a, mbits - e));
    if (ri >= (1ULL << (mbits + 1))) {
        ri >>= 1;
        e++;
    }
    if (ri < (1ULL << mbits))
        return sign | (uint32_t)ri;
    uint32_t enc = (uint32_t)((uint64_t)(e + bias) << mbits | (ri - (1ULL << mbits)));
    if (e + bias > emax || (!ieee && enc == (allexp | ((1u << mbits) - 1))))
        return sign | (ieee ? allexp : nan);
    return sign | enc;
}

static void test_minifloat_against_reference(void **state)
{
    (void)state;
    static const int fmt[][3] = {{5, 10, 1}, {8, 7, 1}, {4, 3, 0}, {5, 2, 1}};
    uint64_t st = 0xF10A7ULL;

    for (int f = 0; f < 4; f++) {
        int eb = fmt[f][0], mb = fmt[f][1], bias = (1 << (eb - 1)) - 1;
        bool ieee = fmt[f][2];
        /* Decoding every finite code matches ldexp. */
        for (uint32_t b = 0; b < (1u << (1 + eb + mb)); b++) {
            int ex = (int)((b >> mb) & ((1u << eb) - 1));
            uint32_t m = b & ((1u << mb) - 1);
            double v = gc__minifloat_decode(b, eb, mb, ieee);
            if (isnan(v) || isinf(v))
                continue;
            double want = ex == 0 ? ldexp((double)m, 1 - bias - mb)
                                  : ldexp((double)(m + (1u << mb)), ex - bias - mb);
            assert_true(v == ((b >> (eb + mb)) & 1 ? -want : want));
        }
        /* Random doubles over the format's range and past it, their
         * midpoints between neighbours (ties) and double subnormals. */
        for (int i = 0; i < 200000; i++) {
            uint64_t r = gc__xorshift64s(&st);
            double v =
                ldexp(1.0 + (double)(r >> 12) * 0x1p-52, (int)(r % (2 * bias + 8)) - bias - mb - 4);
            if (i % 4 == 1) {
                uint32_t b = (uint32_t)(r % ((1u << (eb + mb)) - 1));
                double x = gc__minifloat_decode(b, eb, mb, ieee),
                       y = gc__minifloat_decode(b + 1, eb, mb, ieee);
                if (isnan(x) || isnan(y) || isinf(y))
                    continue;
                v = 0.5 * (x + y);
            } else if (i % 4 == 2) {
                v = ldexp((double)(r >> 12), -1074 - 12 + (int)(r % 40));
            }
            if (r & 1)
                v = -v;
            assert_int_equal(gc__minifloat_encode(v, eb, mb, ieee), ref_encode(v, eb, mb, ieee));
        }
    }
}

static void test_catalogue_entries(void **state)
{
    (void)state;
    assert_true(gc__itype_count() >= 40);
    for (int i = 0; i < gc__itype_count(); i++) {
        const struct gc_itype *t = gc__itype_get(i);
        assert_non_null(t->name);
        assert_non_null(t->cuda);
        assert_non_null(t->host);
        assert_true(t->counted >= 1 && t->lanes >= 1 && t->work >= 1);
        /* No OpenCL form must come with the reason, unless it simply has none. */
        if (t->opencl_why)
            assert_null(t->opencl);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(gc__itype_get(j)->name, t->name);
    }
    assert_null(gc__itype_get(gc__itype_count()));
}

static const struct gc_itype *by_name(const char *n)
{
    for (int i = 0; i < gc__itype_count(); i++)
        if (strcmp(gc__itype_get(i)->name, n) == 0)
            return gc__itype_get(i);
    return NULL;
}

static double spec(const struct gc_itype *t, int major, int minor)
{
    struct gc_device_info info = {.cc_major = major, .cc_minor = minor};
    struct gc_arch a;

    gc__arch_lookup(&info, &a);
    return gc__itype_spec(t, &a);
}

static void test_specs(void **state)
{
    (void)state;
    const struct gc_itype *ffma = by_name("fp32.fma"), *dfma = by_name("fp64.fma");
    assert_true(spec(ffma, 9, 0) == 128);
    assert_true(spec(ffma, 8, 0) == 64);
    assert_true(spec(ffma, 8, 6) == 128);
    assert_true(spec(ffma, 8, 7) == 128); /* nearest lower column, same major */
    assert_true(spec(dfma, 9, 0) == 64);
    assert_true(spec(dfma, 7, 5) == 2);
    assert_true(isnan(spec(ffma, 6, 1)));                /* before the table */
    assert_true(isnan(spec(ffma, 0, 0)));                /* OpenCL */
    assert_true(isnan(spec(by_name("fp32.sin"), 9, 0))); /* multiple instructions */
}

/* Host models against hand-computed values. */
static void test_host_models(void **state)
{
    (void)state;
    const struct gc_itype *h2 = by_name("fp16x2.fma"), *dp = by_name("int32.dp4a"),
                          *rot = by_name("int32.shift"), *cvt = by_name("cvt.f32.i32");
    uint64_t one = 0x3c003c00u, two = 0x40004000u, half = 0x38003800u;
    assert_int_equal(h2->host(one, two, 0, half), 0x41004100u); /* 1 * 2 + 0.5 = 2.5 */
    assert_int_equal(dp->host(0x01020304u, 0x01010101u, 0, 10), 20);
    assert_int_equal(rot->host(0x80000001u, 1, 0, 0), 0x00000003u);
    float f = -3.75f, g;
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t r = (uint32_t)cvt->host(u, 0, 0, 0);
    memcpy(&g, &r, 4);
    assert_true(g == -3.0f);
}

static void test_sweep_warps(void **state)
{
    int w[32];
    (void)state;
    int n = gc__sweep_warps(64, w, 32);
    assert_int_equal(w[0], 1);
    assert_int_equal(w[n - 1], 64);
    for (int i = 1; i < n; i++)
        assert_true(w[i] > w[i - 1]);
    assert_int_equal(w[7], 8);
    n = gc__sweep_warps(48, w, 32); /* 48 warps/SM (sm_86): the end is visited */
    assert_int_equal(w[n - 1], 48);
}

/* Three warps on SM 0 (two overlapping, one after), one on SM 5. */
static void test_warp_times(void **state)
{
    unsigned long long ts[] = {
        0, 100, 200, 1000, 101000, /* SM 0: [100, 200] */
        0, 150, 250, 1000, 101000, /* SM 0: [150, 250] */
        0, 250, 300, 1000, 101000, /* SM 0: [250, 300] */
        5, 10,  90,  1000, 101000, /* SM 5: [10, 90] */
        7, 0,   0,   0,    0,      /* never ran: ignored */
    };
    struct gc_warp_times wt;
    (void)state;
    assert_int_equal(gc__warp_times(ts, 5, &wt), 0);
    assert_int_equal(wt.sms, 2);
    assert_int_equal(wt.warps, 4);
    assert_int_equal(wt.occ_max_max, 2);
    assert_int_equal(wt.occ_max_min, 1);
    assert_true(wt.span_max_cycles == 200);
    assert_true(fabs(wt.warp_cycles - (100 + 100 + 50 + 80) / 4.0) < 1e-9);
    unsigned long long none[5] = {0};
    assert_int_equal(gc__warp_times(none, 1, &wt), GC_EVERIFY);
}

/* Lemeire eqs. 3-5 on a worked launch: 10 CUs, 2 work groups of 256 fit per
 * CU (64 warps max), 50 x 512 work items, 100 instructions each, 1 ms at 1 GHz. */
static void test_lemeire_cpi(void **state)
{
    struct gc_lemeire_launch l = {.work_items = 25600,
                                  .wg_size = 256,
                                  .max_conc_wg = 2,
                                  .local_mem = 0,
                                  .max_local_mem = 49152,
                                  .warp_size = 32,
                                  .max_conc_warps = 64,
                                  .cus = 10,
                                  .instr_kernel = 100,
                                  .runtime_s = 1e-3,
                                  .clock_hz = 1e9};
    struct gc_lemeire_cpi c;
    (void)state;
    gc__lemeire_cpi(&l, &c);
    assert_true(c.wg == 100 && c.conc_wg == 2 && c.warps_wg == 8 && c.conc_warps == 16);
    assert_true(c.total_warps == 800 && c.runs_cu == 5);
    assert_true(fabs(c.cycles_of_run - 2e5) < 1e-6);
    assert_true(fabs(c.instr_run - 51200) < 1e-9);
    assert_true(fabs(c.cpi_warp - 2e5 / 51200 * 32) < 1e-9);
    assert_true(fabs(c.cpi_cu_approx - 1e6 / 2.56e6 * 10) < 1e-9);
    /* A local-memory allocation that lets one group per CU halves concWG. */
    l.local_mem = 30000;
    gc__lemeire_cpi(&l, &c);
    assert_true(c.conc_wg == 1 && c.runs_cu == 10);
}

static void test_landmarks(void **state)
{
    double x[] = {1, 2, 4, 8, 16}, y[] = {10, 20, 40, 76, 80};
    (void)state;
    assert_true(gc__occupancy_for(x, y, 5, 80, 0.95) == 8);
    assert_true(gc__occupancy_for(x, y, 5, 80, 0.99) == 16);
    assert_true(isnan(gc__occupancy_for(x, y, 5, 100, 0.95)));
    assert_true(gc__monotone_within(y, 5, 0.0));
    double dip[] = {10, 20, 19.9, 40};
    assert_true(gc__monotone_within(dip, 4, 0.01));
    assert_false(gc__monotone_within(dip, 4, 0.001));
}

/* A GPU through an OpenCL platform whose compiler takes inline PTX
 * (NVIDIA's: the clock probe's capabilities, no cl_khr_fp16), and one
 * whose compiler does not (PoCL). */
static void describe_opencl(struct gc_device_info *d, bool ptx)
{
    memset(d, 0, sizeof(*d));
    d->type = GC_DEVICE_GPU;
    d->compute_units = 132;
    d->simd_width = 32;
    d->max_threads_per_block = 1024;
    d->caps = GC_CAP_DYN_SHARED | GC_CAP_FP64;
    if (ptx) {
        d->cc_major = 9;
        d->caps |= GC_CAP_CLOCK64 | GC_CAP_GLOBALTIMER | GC_CAP_SMID | GC_CAP_INLINE_ASM;
    }
}

/* Every catalogue entry has a spelling on an OpenCL device that takes
 * inline PTX: its OpenCL C form where the device has what that needs, else
 * the CUDA form's PTX verbatim in scalar kernels (no vector loads, no half
 * type), with the same SASS expectations as on CUDA. Without inline PTX,
 * exactly the entries whose OpenCL C form the device takes have kernels. */
static void test_opencl_spellings(void **state)
{
    (void)state;
    for (int i = 0; i < gc__itype_count(); i++) {
        const struct gc_itype *t = gc__itype_get(i);
        struct gc_device_info nv, pocl;
        struct gc_ksrc *k = NULL, *kc = NULL;
        int n = 0, nc = 0;
        char op[2048];
        bool ptx = !t->opencl || t->opencl_caps;

        describe_opencl(&nv, true);
        assert_int_equal(gc__compute_itype_sources(t, GC_DIALECT_OPENCL, &nv, &k, &n), 0);
        if (n != 4)
            fail_msg("%s: %d kernels on an OpenCL device with inline PTX", t->name, n);
        assert_int_equal(gc__compute_itype_sources(t, GC_DIALECT_CUDA, &nv, &kc, &nc), 0);
        assert_int_equal(nc, 4);
        snprintf(op, sizeof(op), "#define GC_OP(x, y) %s\n", ptx ? t->cuda : t->opencl);
        for (int j = 0; j < n; j++) {
            assert_non_null(strstr(k[j].src, "__kernel"));
            if (!strstr(k[j].src, op))
                fail_msg("%s: the kernel's step is not %s", t->name, op);
            if (ptx) {
                assert_null(strstr(k[j].src, "vload"));
                assert_null(strstr(k[j].src, "cl_khr_fp16"));
                assert_true(gc__kgen_pure_ptx(t->cuda));
            }
            /* The same loop as the CUDA kernel's, so the same SASS. */
            assert_int_equal(k[j].nexpect, kc[j].nexpect);
            for (int e = 0; e < k[j].nexpect; e++) {
                assert_string_equal(k[j].expect[e].mnemonic, kc[j].expect[e].mnemonic);
                assert_int_equal(k[j].expect[e].per_loop, kc[j].expect[e].per_loop);
            }
        }
        gc__ksrc_free(k, n);
        gc__ksrc_free(kc, nc);

        describe_opencl(&pocl, false);
        assert_int_equal(gc__compute_itype_sources(t, GC_DIALECT_OPENCL, &pocl, &k, &n), 0);
        assert_int_equal(n, t->opencl && !t->opencl_caps ? 4 : 0);
        gc__ksrc_free(k, n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minifloat_against_reference),
        cmocka_unit_test(test_half_round_trip),
        cmocka_unit_test(test_catalogue_entries),
        cmocka_unit_test(test_opencl_spellings),
        cmocka_unit_test(test_specs),
        cmocka_unit_test(test_host_models),
        cmocka_unit_test(test_sweep_warps),
        cmocka_unit_test(test_warp_times),
        cmocka_unit_test(test_lemeire_cpi),
        cmocka_unit_test(test_landmarks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
