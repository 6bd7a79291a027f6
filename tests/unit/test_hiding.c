/* Tests of the latency-hiding model (src/model/hiding.c): the worked numbers
 * of Volkov, "Understanding Latency Hiding on GPUs", reproduced from the
 * thesis' own inputs to the precision it prints them; properties of the
 * model on random inputs; and the profile contract, including the fixtures
 * under tests/cli/fixtures that the command-line cases read. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "canned.h"
#include "util/random.h"
#include "core/results.h"
#include "model/hiding.h"

#define FIXTURES GC_GOLDEN_DIR "/../../cli/fixtures"

/* Equal to the printed value at the printed number of decimals. */
#define assert_printed(value, printed, decimals)                                                   \
    assert_printed_at((value), (printed), (decimals), #value)

static void assert_printed_at(double value, double printed, int decimals, const char *what)
{
    double scale = pow(10, decimals);

    if (round(value * scale) != round(printed * scale))
        fail_msg("%s = %.6g, printed as %.*f", what, value, decimals, printed);
}

static void assert_rel(double a, double b, double tol)
{
    if (!(fabs(a - b) <= tol * fmax(fabs(a), fabs(b))))
        fail_msg("%.17g and %.17g differ by more than %g relative", a, b, tol);
}

static double min3(double a, double b, double c)
{
    return fmin(a, fmin(b, c));
}

/* ---- The thesis' hardware ------------------------------------------------ */

/* Table 4.1, with the SM counts (Table 2.6), clocks (Table 2.7), warps per
 * SM (Table 2.8) and schedulers per SM (Table 2.6) of the same GPUs. */
struct gpu {
    const char *name;
    double mem_lat, mem_thru, alu_lat, alu_thru, issue_thru;
    int sms;
    double clock_ghz;
    int max_warps, schedulers;
};

enum { G80, GT200, FERMI, KEPLER, MAXWELL, NGPUS };

static const struct gpu gpus[NGPUS] = {
    {"G80", 444, 0.0268, 20, 0.25, 0.5, 16, 1.35, 24, 1},
    {"GT200", 434, 0.0277, 24, 0.25, 0.5, 30, 1.296, 32, 1},
    {"Fermi", 513, 0.0599, 18, 1, 1, 15, 1.4, 48, 2},
    {"Kepler", 301, 0.1338, 9, 4, 4, 8, 1.124, 64, 4},
    {"Maxwell", 368, 0.0814, 6, 4, 4, 16, 1.266, 64, 4},
};

static struct gc_hiding_hw hw_of(const struct gpu *g)
{
    struct gc_hiding_hw hw;

    memset(&hw, 0, sizeof(hw));
    hw.unit[GC_HIDING_ALU] = (struct gc_hiding_unit){true, g->alu_lat, g->alu_thru, 1};
    hw.unit[GC_HIDING_MEM] = (struct gc_hiding_unit){true, g->mem_lat, g->mem_thru, 1};
    hw.issue_thru = g->issue_thru;
    hw.mem_bytes_per_inst = 128;
    hw.max_warps = g->max_warps;
    hw.clock_hz = g->clock_ghz * 1e9;
    hw.sm_count = g->sms;
    return hw;
}

/* The kernel of §4.1: alpha adds per memory access, no ILP. */
static struct gc_hiding_mix alpha_mix(double alpha)
{
    struct gc_hiding_mix m;

    memset(&m, 0, sizeof(m));
    m.count[GC_HIDING_ALU] = alpha;
    m.count[GC_HIDING_MEM] = 1;
    m.ilp = 1;
    return m;
}

static struct gc_hiding_mix only(int type)
{
    struct gc_hiding_mix m;

    memset(&m, 0, sizeof(m));
    m.count[type] = 1;
    m.ilp = 1;
    return m;
}

/* ---- Reproductions ------------------------------------------------------- */

/* Table 4.1, mem_thru: the peaks of Table 6.4 (GB/s) divided by the SMs,
 * the clock and 128 B per instruction (§4.1), to the 4 decimals printed. */
static void test_table_4_1_mem_thru(void **state)
{
    static const double peak_gbps[NGPUS] = {74, 138, 161, 154, 211};

    (void)state;
    for (int i = 0; i < NGPUS; i++) {
        struct gc_hiding_hw hw = hw_of(&gpus[i]);
        double per_sm = peak_gbps[i] * 1e9 / (hw.sm_count * hw.clock_hz);

        assert_printed(per_sm / 128, gpus[i].mem_thru, 4);
        assert_rel(gc__hiding_gbps(&hw, per_sm), peak_gbps[i], 1e-12);
    }
}

/* Table 4.2: the model's arithmetic throughput, 32 alpha x, equals the
 * closed forms printed for each GPU at every alpha of the sqrt(2) grid (§7.9)
 * and every occupancy. */
static double table_4_2(int gpu, double a, double n)
{
    switch (gpu) {
    case G80:
        return 32 * a * min3(n / (444 + 20 * a), 0.0268, 0.25 / a);
    case GT200:
        return 32 * a * min3(n / (434 + 24 * a), 0.0277, 0.25 / a);
    case FERMI:
        return 32 * a * min3(n / (513 + 18 * a), 0.0599, 1 / (a + 1));
    case KEPLER:
        return 32 * a * min3(n / (301 + 9 * a), 0.1338, 4 / (a + 1));
    default:
        return 32 * a * min3(n / (368 + 6 * a), 0.0814, 4 / (a + 1));
    }
}

static void test_table_4_2_closed_forms(void **state)
{
    (void)state;
    for (int g = 0; g < NGPUS; g++) {
        struct gc_hiding_hw hw = hw_of(&gpus[g]);

        for (int k = 0; k <= 18; k++) {
            double alpha = pow(2, k / 2.0);
            struct gc_hiding_mix mix = alpha_mix(alpha);

            for (int n = 1; n <= gpus[g].max_warps; n++) {
                struct gc_hiding_point p;

                assert_int_equal(gc__hiding_basic(&hw, &mix, n, &p), 0);
                assert_rel(32 * alpha * p.thru, table_4_2(g, alpha, n), 1e-12);
            }
        }
    }
}

/* Table 3.1 and §4.3: on Maxwell, hiding arithmetic latency needs 6 x 4 =
 * 24 warps and hiding memory latency 368 x 0.0814 = 30 warps (§4.2 limits
 * alpha = infinity and alpha = 0). §3.2: the 224 GB/s pin bandwidth is 0.086
 * IPC/SM. */
static void test_table_3_1_limits(void **state)
{
    struct gc_hiding_hw hw = hw_of(&gpus[MAXWELL]);
    struct gc_hiding_mix alu = only(GC_HIDING_ALU), mem = only(GC_HIDING_MEM);

    (void)state;
    assert_printed(gc__hiding_needed(&hw, &alu, 1, false), 24, 0);
    assert_printed(gc__hiding_needed(&hw, &mem, 1, false), 30, 0);
    assert_printed(224e9 / (16 * 1.266e9 * 128), 0.086, 3);
    /* §4.2: with adds alone the model is min(n / alu_lat, alu_thru). */
    for (int n = 1; n <= 64; n++) {
        struct gc_hiding_point p;

        assert_int_equal(gc__hiding_basic(&hw, &alu, n, &p), 0);
        assert_rel(p.thru, fmin(n / 6.0, 4), 1e-15);
    }
}

/* Table 3.4: the worksheet of the mix of Table 3.2 on the limits of Table
 * 3.3, with the CPIs as printed (12.3 and 24.6 are 128 / 10.4 and twice it
 * rounded). Totals 25, 5, 30, 184.5 and 36.25 cycles per warp; memory is the
 * tightest: 184.5 cycles per warp, 0.00542 warps per cycle per SM. */
static void test_table_3_4_worksheet(void **state)
{
    static const struct gc_hiding_row rows[] = {
        {GC_HIDING_ALU, 0.25, 100},   {GC_HIDING_SFU, 1, 5},      {GC_HIDING_SHARED, 1, 10},
        {GC_HIDING_SHARED, 2, 10},    {GC_HIDING_MEM, 12.3, 5},   {GC_HIDING_MEM, 24.6, 5},
        {GC_HIDING_ISSUE, 0.25, 125}, {GC_HIDING_ISSUE, 0.25, 5}, {GC_HIDING_ISSUE, 0.25, 15},
    };
    struct gc_hiding_sheet s;

    (void)state;
    assert_printed(128 / 10.4, 12.3, 1);
    assert_printed(2 * 128 / 10.4, 24.6, 1);
    gc__hiding_worksheet(rows, (int)(sizeof(rows) / sizeof(rows[0])), &s);
    assert_printed(s.cycles[GC_HIDING_ALU], 25, 0);
    assert_printed(s.cycles[GC_HIDING_SFU], 5, 0);
    assert_printed(s.cycles[GC_HIDING_SHARED], 30, 0);
    assert_printed(s.cycles[GC_HIDING_MEM], 184.5, 1);
    assert_printed(s.cycles[GC_HIDING_ISSUE], 36.25, 2);
    assert_int_equal(s.tightest, GC_HIDING_MEM);
    assert_printed(s.tightest_cycles, 184.5, 1);
    assert_printed(1 / s.tightest_cycles, 0.00542, 5);
}

/* §3.8, the vector add on Kepler: 154 GB/s is 17.1 B/(cycle SM); with
 * 3 x 128 B per warp the bound is 0.0445 warps/(cycle SM), below issue (8
 * issues per warp, 4 per cycle per SM: 0.5) and CUDA cores (7 cycles per
 * warp per scheduler). With the 544-cycle latency bound the estimate in GB/s
 * is min(n 6.35 GB/s, 154 GB/s). */
static void test_section_3_8_vector_add(void **state)
{
    struct gc_hiding_hw hw = hw_of(&gpus[KEPLER]);
    const double bytes_clk_sm = 154e9 / (8 * 1.124e9);
    const struct gc_hiding_row rows[] = {
        {GC_HIDING_MEM, 128 / 17.1, 3},
        {GC_HIDING_ISSUE, 0.25, 8},
        {GC_HIDING_ALU, 7.0 / 4, 1},
    };
    struct gc_hiding_sheet s;

    (void)state;
    assert_printed(bytes_clk_sm, 17.1, 1);
    gc__hiding_worksheet(rows, 3, &s);
    assert_int_equal(s.tightest, GC_HIDING_MEM);
    assert_printed(1 / s.tightest_cycles, 0.0445, 4);
    assert_printed(1 / s.cycles[GC_HIDING_ISSUE], 0.5, 1);
    assert_printed(gc__hiding_gbps(&hw, 3 * 128 / 544.0), 6.35, 2);
    assert_printed(gc__hiding_gbps(&hw, bytes_clk_sm), 154, 0);
}

/* §4.5 and Figure 4.5: the cusp on Maxwell. Bound by arithmetic capability
 * (the thesis' assumption for the closed form), the maximum lies at alpha =
 * alu_thru / mem_thru ~ 49 and equals alu_lat alu_thru + mem_lat mem_thru =
 * 24 + 30 ~ 54 warps; the ends of the graph approach 30 (alpha -> 0) and 24
 * (alpha -> infinity). With the issue bound of Table 4.1 the maximum is
 * "slightly smaller". */
static void test_section_4_5_cusp(void **state)
{
    struct gc_hiding_hw hw = hw_of(&gpus[MAXWELL]);
    struct gc_hiding_mix mem = only(GC_HIDING_MEM);
    double alpha, warps, alpha_issue, warps_issue, prev = 0;
    int k;

    (void)state;
    hw.issue_thru = INFINITY;
    assert_int_equal(gc__hiding_cusp(&hw, &mem, &alpha, &warps), 0);
    assert_rel(alpha, 4 / 0.0814, 1e-12);
    assert_rel(warps, 6 * 4 + 368 * 0.0814, 1e-12);
    assert_printed(alpha, 49, 0);
    assert_printed(warps, 54, 0);
    {
        struct gc_hiding_mix small = alpha_mix(1e-9), large = alpha_mix(1e9);

        assert_printed(gc__hiding_needed(&hw, &small, 1, false), 30, 0);
        assert_printed(gc__hiding_needed(&hw, &large, 1, false), 24, 0);
    }
    /* The cusp's shape on the sqrt(2) grid: rising to the maximum, then
     * falling, never above it. */
    for (k = 0; k <= 18; k++) {
        struct gc_hiding_mix mix = alpha_mix(pow(2, k / 2.0));
        double n = gc__hiding_needed(&hw, &mix, 1, false);

        assert_true(n <= warps * (1 + 1e-12));
        if (pow(2, k / 2.0) <= alpha)
            assert_true(n > prev);
        else
            assert_true(n < prev);
        prev = n;
    }
    hw.issue_thru = 4;
    assert_int_equal(gc__hiding_cusp(&hw, &mem, &alpha_issue, &warps_issue), 0);
    assert_rel(alpha_issue, 4 / 0.0814 - 1, 1e-12);
    assert_true(warps_issue < warps && warps_issue > 53);
}

/* §4.6, Figure 4.7: alpha = 4, alu_lat = 3, mem_lat = 12, alu_thru = 1 IPC
 * sustained: 3 arithmetic and 3 memory instructions in execution, 6 warps. */
static void test_figure_4_7(void **state)
{
    struct gc_hiding_hw hw;
    struct gc_hiding_mix mix = alpha_mix(4);
    double x;

    (void)state;
    memset(&hw, 0, sizeof(hw));
    hw.unit[GC_HIDING_ALU] = (struct gc_hiding_unit){true, 3, 1, 1};
    hw.unit[GC_HIDING_MEM] = (struct gc_hiding_unit){true, 12, 1, 1};
    hw.issue_thru = INFINITY;
    hw.mem_bytes_per_inst = 128;
    hw.max_warps = 64;
    x = gc__hiding_bound(&hw, &mix, NULL);
    assert_rel(x, 0.25, 1e-15);
    assert_rel(gc__hiding_in_execution(&hw, &mix, GC_HIDING_ALU, x, false), 3, 1e-15);
    assert_rel(gc__hiding_in_execution(&hw, &mix, GC_HIDING_MEM, x, false), 3, 1e-15);
    assert_rel(gc__hiding_needed(&hw, &mix, 1, false), 6, 1e-15);
    /* "Executing 5 or fewer warps ... less than peak arithmetic throughput." */
    {
        struct gc_hiding_point p;

        assert_int_equal(gc__hiding_basic(&hw, &mix, 5, &p), 0);
        assert_true(p.thru < x);
        assert_int_equal(p.limit, GC_HIDING_LATENCY);
    }
}

/* Table 4.3 (§4.8): the programming guide's estimate is the number of
 * memory instructions in execution at the arithmetic-bound rate,
 * mem_lat alu_thru / alpha: 6.9, 6.8, 16, 38 and 23 warps. The better
 * estimate adds alu_lat alu_thru: 74 warps on Kepler. The guide's
 * "instruction time" is 1 / alu_thru, so issue is not a separate bound. */
static void test_table_4_3_guide(void **state)
{
    static const double alpha[NGPUS] = {16, 16, 32, 32, 64};
    static const double printed[NGPUS] = {6.9, 6.8, 16, 38, 23};
    static const int decimals[NGPUS] = {1, 1, 0, 0, 0};

    (void)state;
    for (int g = 0; g < NGPUS; g++) {
        struct gc_hiding_hw hw = hw_of(&gpus[g]);
        struct gc_hiding_mix mix = alpha_mix(alpha[g]);
        int limit;
        double x;

        hw.issue_thru = INFINITY;
        x = gc__hiding_bound(&hw, &mix, &limit);
        assert_int_equal(limit, GC_HIDING_ALU);
        assert_printed(gc__hiding_in_execution(&hw, &mix, GC_HIDING_MEM, x, false), printed[g],
                       decimals[g]);
        if (g == KEPLER)
            assert_printed(gc__hiding_needed(&hw, &mix, 1, false), 74, 0);
    }
}

/* Table 6.4, column "linear": latency (Table 6.2) times peak throughput
 * (Table 6.1, ops per cycle per scheduler) over the SIMD width, in warps per
 * scheduler, printed to the nearest half warp. §6.1: SFU on Kepler, 9 cycles
 * at 8 ops/cycle per scheduler, is 2.25 instructions per scheduler, 9 per
 * SM. */
static void test_table_6_4_linear(void **state)
{
    static const double ops[NGPUS] = {0.86, 0.89, 0.97, 1.07, 0.65};
    static const double printed[NGPUS] = {12, 12, 15.5, 10, 7.5};

    (void)state;
    for (int g = 0; g < NGPUS; g++) {
        struct gc_hiding_hw hw = hw_of(&gpus[g]);
        struct gc_hiding_mix mem = only(GC_HIDING_MEM);
        double per_sched;

        hw.unit[GC_HIDING_MEM].thru = ops[g] * gpus[g].schedulers / 32;
        per_sched = gc__hiding_needed(&hw, &mem, 1, false) / gpus[g].schedulers;
        assert_true(round(per_sched * 2) == printed[g] * 2);
    }
    {
        struct gc_hiding_hw hw = hw_of(&gpus[KEPLER]);
        struct gc_hiding_mix sfu = only(GC_HIDING_SFU);

        hw.unit[GC_HIDING_SFU] = (struct gc_hiding_unit){true, 9, 8.0 * 4 / 32, 1};
        assert_rel(gc__hiding_needed(&hw, &sfu, 1, false) / 4, 2.25, 1e-15);
        assert_rel(gc__hiding_needed(&hw, &sfu, 1, false), 9, 1e-15);
    }
}

/* The contention fit of Table 6.5 in the model's units: c in GB/s divided
 * by 128 B, the SMs and the clock. */
static struct gc_hiding_hw hw_refined(int g)
{
    static const double a[NGPUS] = {453, 438, 501, 300, 372};
    static const double b[NGPUS] = {61, 17, 41, 32, 22};
    static const double c_gbps[NGPUS] = {81, 140, 170, 170, 221};
    struct gc_hiding_hw hw = hw_of(&gpus[g]);

    hw.cont.present = true;
    hw.cont.a = a[g];
    hw.cont.b = b[g];
    hw.cont.c = c_gbps[g] * 1e9 / (hw.sm_count * hw.clock_hz * 128);
    return hw;
}

/* Table 6.4, "% of peak at linear", is measured; the refined model at the
 * linear occupancy (mem_lat mem_thru) comes within 2 points of it on all five
 * GPUs (75, 84, 80, 78, 80%). A consistency check of the refinement, not a
 * reproduction. */
static void test_table_6_4_refined_at_linear(void **state)
{
    static const double measured[NGPUS] = {0.75, 0.84, 0.80, 0.78, 0.80};

    (void)state;
    for (int g = 0; g < NGPUS; g++) {
        struct gc_hiding_hw hw = hw_refined(g);
        struct gc_hiding_mix mem = only(GC_HIDING_MEM);
        struct gc_hiding_point p;
        double linear = gc__hiding_needed(&hw, &mem, 1, false);

        assert_int_equal(gc__hiding_refined(&hw, &mem, linear, &p), 0);
        assert_true(fabs(p.thru / gpus[g].mem_thru - measured[g]) <= 0.02);
    }
}

/* The root in (0, c) of x (L0 + b x / (c - x)) = n, from the quadratic
 * (b - L0) x^2 + (L0 c + n) x - n c = 0 (§6.5: "can be solved
 * analytically"). */
static double kepler_analytic(double n, double alpha, double c)
{
    double l0 = 300 + 9 * alpha, qa = 32 - l0, qb = l0 * c + n, qc = -n * c;
    double d = sqrt(qb * qb - 4 * qa * qc);
    double r1 = (-qb + d) / (2 * qa), r2 = (-qb - d) / (2 * qa);

    return r1 > 0 && r1 < c ? r1 : r2;
}

/* §6.5: on Kepler the refined model is x = min(n / (300 + 32 x / (0.1477 -
 * x) + 9 alpha), 0.1338, 4 / (alpha + 1)). The coefficients come from Table
 * 6.5 (c = 170 GB/s is 0.1477 IPC/SM); the bisection solves the printed
 * equation, agrees with its analytic solution, and alpha = 0 .. 512 and n =
 * 1 .. 64 all converge. The basic model it replaces is x = min(n / (301 + 9
 * alpha), 0.1338, 4 / (alpha + 1)). */
static void test_section_6_5_kepler(void **state)
{
    struct gc_hiding_hw hw = hw_refined(KEPLER);

    (void)state;
    assert_printed(hw.cont.c, 0.1477, 4);
    assert_printed(154e9 / (8 * 1.124e9 * 128), 0.1338, 4);
    hw.cont.c = 0.1477;
    for (int k = -1; k <= 18; k++) {
        double alpha = k < 0 ? 0 : pow(2, k / 2.0);
        struct gc_hiding_mix mix = alpha_mix(alpha);

        for (int n = 1; n <= 64; n++) {
            struct gc_hiding_point r, b;
            double x, rhs, want;

            assert_int_equal(gc__hiding_refined(&hw, &mix, n, &r), 0);
            assert_int_equal(gc__hiding_basic(&hw, &mix, n, &b), 0);
            x = r.thru;
            rhs = min3(n / (300 + 32 * x / (0.1477 - x) + 9 * alpha), 0.1338, 4 / (alpha + 1));
            assert_rel(x, rhs, 1e-12);
            want = min3(kepler_analytic(n, alpha, 0.1477), 0.1338, 4 / (alpha + 1));
            assert_rel(x, want, 1e-12);
            assert_rel(b.thru, min3(n / (301 + 9 * alpha), 0.1338, 4 / (alpha + 1)), 1e-12);
            assert_true(r.iterations < 200);
        }
    }
}

/* ---- Properties on random inputs ----------------------------------------- */

static double uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(gc__xorshift64s(s) >> 11) / 9007199254740992.0;
}

static void random_case(uint64_t *s, struct gc_hiding_hw *hw, struct gc_hiding_mix *mix)
{
    memset(hw, 0, sizeof(*hw));
    memset(mix, 0, sizeof(*mix));
    for (int t = 0; t < GC_HIDING_NTYPES; t++) {
        hw->unit[t].present = true;
        hw->unit[t].latency = uniform(s, 1, t == GC_HIDING_MEM ? 1500 : 60);
        hw->unit[t].thru = uniform(s, 0.002, 8);
        hw->unit[t].issue_cycles = 1 + floor(uniform(s, 0, 3));
        if (uniform(s, 0, 1) < 0.6)
            mix->count[t] =
                uniform(s, 0, 1) < 0.2 ? floor(uniform(s, 1, 8)) : uniform(s, 0.01, 600);
    }
    mix->count[GC_HIDING_MEM] = uniform(s, 0, 1) < 0.9 ? uniform(s, 0.05, 4) : 0;
    if (mix->count[GC_HIDING_ALU] == 0 && mix->count[GC_HIDING_MEM] == 0)
        mix->count[GC_HIDING_ALU] = 1;
    mix->ilp = uniform(s, 0, 1) < 0.5 ? 1 : uniform(s, 1, 8);
    hw->issue_thru = uniform(s, 0.25, 8);
    hw->mem_bytes_per_inst = 128;
    hw->max_warps = 64;
    hw->cont.present = true;
    /* a at or above the unloaded latency: then refined <= basic holds. */
    hw->cont.a = hw->unit[GC_HIDING_MEM].latency * uniform(s, 1, 1.3);
    hw->cont.b = uniform(s, 0, 200);
    hw->cont.c = hw->unit[GC_HIDING_MEM].thru * uniform(s, 1.0001, 2);
}

static void test_properties(void **state)
{
    uint64_t s = 0x6869646967ULL;

    (void)state;
    for (int i = 0; i < 3000; i++) {
        struct gc_hiding_hw hw;
        struct gc_hiding_mix mix;
        double bound, prev_b = 0, prev_r = 0;
        char err[256];

        random_case(&s, &hw, &mix);
        assert_int_equal(gc__hiding_hw_check(&hw, err, sizeof(err)), 0);
        assert_int_equal(gc__hiding_mix_check(&hw, &mix, err, sizeof(err)), 0);
        bound = gc__hiding_bound(&hw, &mix, NULL);
        for (int t = 0; t < GC_HIDING_NTYPES; t++)
            assert_true(bound * mix.count[t] <= hw.unit[t].thru * (1 + 1e-12));
        for (double n = 0.25; n <= 256; n *= 1.5) {
            struct gc_hiding_point b, r;
            double ib = 0, ir = 0;

            assert_int_equal(gc__hiding_basic(&hw, &mix, n, &b), 0);
            assert_int_equal(gc__hiding_refined(&hw, &mix, n, &r), 0);
            /* Never above any bound, issue included. */
            for (int t = 0; t < GC_HIDING_NTYPES; t++) {
                assert_true(b.thru * mix.count[t] <= hw.unit[t].thru * (1 + 1e-12));
                assert_true(r.thru * mix.count[t] <= hw.unit[t].thru * (1 + 1e-12));
                ib += b.thru * mix.count[t] * hw.unit[t].issue_cycles;
                ir += r.thru * mix.count[t] * hw.unit[t].issue_cycles;
            }
            assert_true(ib <= hw.issue_thru * (1 + 1e-12));
            assert_true(ir <= hw.issue_thru * (1 + 1e-12));
            assert_true(b.thru <= n / b.latency * (1 + 1e-12));
            assert_true(r.thru <= n / gc__hiding_latency(&hw, &mix, r.thru, true) * (1 + 1e-9));
            /* Monotone non-decreasing in n; the refinement never adds. */
            assert_true(b.thru >= prev_b);
            assert_true(r.thru >= prev_r * (1 - 1e-12));
            assert_true(r.thru <= b.thru * (1 + 1e-12));
            /* A latency-bound solution satisfies x = n / Latency(x). */
            if (r.limit == GC_HIDING_LATENCY) {
                assert_rel(r.thru, n / gc__hiding_latency(&hw, &mix, r.thru, true), 1e-9);
                assert_true(r.iterations < 200);
                if (mix.count[GC_HIDING_MEM] > 0)
                    assert_true(r.iterations > 0);
            }
            prev_b = b.thru;
            prev_r = r.thru;
        }
        /* Needed occupancy, fed back into the model, reaches its fraction. */
        for (int k = 0; k < 3; k++) {
            static const double f[3] = {0.9, 0.95, 1.0};
            struct gc_hiding_point b, r;
            double nb = gc__hiding_needed(&hw, &mix, f[k], false);
            double nr = gc__hiding_needed(&hw, &mix, f[k], true);

            assert_true(isfinite(nb) && nb > 0 && nr >= nb * (1 - 1e-12));
            assert_int_equal(gc__hiding_basic(&hw, &mix, nb, &b), 0);
            assert_rel(b.thru, f[k] * bound, 1e-9);
            if (!isfinite(nr))
                continue;
            assert_int_equal(gc__hiding_refined(&hw, &mix, nr, &r), 0);
            assert_rel(r.thru, f[k] * bound, 1e-9);
        }
    }
}

static double cubic(double x, void *user)
{
    double r = *(double *)user;

    return x * x * x - r;
}

/* Bisection converges to the root for random brackets, and refuses an
 * interval over which the function does not change sign. */
static void test_bisect(void **state)
{
    uint64_t s = 0x62697365637400ULL;
    double root;
    int it;

    (void)state;
    for (int i = 0; i < 1000; i++) {
        double r = uniform(&s, 1e-6, 1e6), lo = 0, hi = cbrt(r) * uniform(&s, 1.01, 100);

        assert_int_equal(gc__hiding_bisect(cubic, &r, lo, hi, 1e-14, &root, &it), 0);
        assert_rel(root, cbrt(r), 1e-13);
        assert_true(it > 0 && it < 200);
    }
    root = 8;
    assert_int_equal(gc__hiding_bisect(cubic, &root, 3, 4, 1e-14, &root, &it), GC_EINVAL);
    assert_int_equal(gc__hiding_bisect(cubic, &root, 4, 3, 1e-14, &root, &it), GC_EINVAL);
}

/* ---- Contention fit and percentiles (§6.4, §6.6) -------------------------- */

/* A memory system like an H200's in B/clk/SM: about 650 cycles unloaded,
 * diverging at 16.5 B/clk/SM. */
#define FIT_A 650.0
#define FIT_B 90.0
#define FIT_C 16.5

static double fit_truth(double x)
{
    return FIT_A + FIT_B * x / (FIT_C - x);
}

/* Exact samples of the model are fitted exactly, with c above the peak the
 * caller names and above every sample. */
static void test_fit_exact(void **state)
{
    double x[24], lat[24];
    struct gc_hiding_fit f;

    (void)state;
    for (int i = 0; i < 24; i++) {
        x[i] = FIT_C * (0.03 + 0.92 * i / 23.0);
        lat[i] = fit_truth(x[i]);
    }
    assert_int_equal(gc__hiding_fit_contention(x, lat, 24, x[23], &f), 0);
    assert_int_equal(f.npoints, 24);
    assert_int_equal(f.nenvelope, 24);
    assert_rel(f.a, FIT_A, 1e-4);
    assert_rel(f.b, FIT_B, 1e-3);
    assert_rel(f.c, FIT_C, 1e-5);
    assert_true(f.rms_rel < 1e-5);
    assert_rel(gc__hiding_fit_eval(&f, 8), fit_truth(8), 1e-5);
    assert_true(isinf(gc__hiding_fit_eval(&f, f.c)));
    /* A peak above the true c moves c above the peak: the fitted latency
     * must stay finite wherever throughput was attained. */
    assert_int_equal(gc__hiding_fit_contention(x, lat, 24, 1.05 * FIT_C, &f), 0);
    assert_true(f.c > 1.05 * FIT_C);
}

/* Noisy samples with an inner scatter of samples that reached less
 * throughput at the same latency (occupancy variation): the fit follows the
 * outer envelope, so a and c come back within 1% and b within 10% (its
 * uncertainty is the larger), and no inner sample takes part. Five seeds. */
static void test_fit_envelope_noise(void **state)
{
    enum { NOUT = 40, NIN = 60, N = NOUT + NIN };
    double x[N], lat[N];
    bool on[N];
    struct gc_hiding_fit f;

    (void)state;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        uint64_t s = 0x636f6e74656e74ULL * seed;

        for (int i = 0; i < NOUT; i++) {
            x[i] = FIT_C * uniform(&s, 0.02, 0.95);
            lat[i] = fit_truth(x[i]) * uniform(&s, 0.99, 1.01);
        }
        for (int i = NOUT; i < N; i++) {
            int k = (int)(gc__xorshift64s(&s) % NOUT);

            x[i] = x[k] * uniform(&s, 0.4, 0.85);
            lat[i] = lat[k] * uniform(&s, 1.0, 1.3);
        }
        assert_int_equal(gc__hiding_fit_contention(x, lat, N, 0, &f), 0);
        assert_int_equal(f.npoints, N);
        assert_true(f.nenvelope >= GC_HIDING_FIT_MIN && f.nenvelope <= NOUT);
        assert_rel(f.a, FIT_A, 0.01);
        assert_rel(f.c, FIT_C, 0.01);
        assert_rel(f.b, FIT_B, 0.1);
        assert_true(f.rms_rel < 0.02);
        gc__hiding_envelope(x, lat, N, on);
        for (int i = NOUT; i < N; i++)
            assert_false(on[i]);
    }
}

static void test_fit_refusals(void **state)
{
    double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, lat[8], bad[8];
    bool on[8];
    struct gc_hiding_fit f;

    (void)state;
    for (int i = 0; i < 8; i++) {
        lat[i] = 100 + i;
        bad[i] = NAN;
    }
    /* The envelope: the best of equal throughputs, and nothing unusable. */
    {
        double ex[5] = {1, 2, 2, 3, -1}, el[5] = {10, 12, 11, 20, 5};
        bool eon[5];

        assert_int_equal(gc__hiding_envelope(ex, el, 5, eon), 3);
        assert_true(eon[0] && !eon[1] && eon[2] && eon[3] && !eon[4]);
    }
    assert_int_equal(gc__hiding_envelope(x, bad, 8, on), 0);
    /* Too few points, too narrow a span: "not enough points", with counts. */
    assert_int_equal(gc__hiding_fit_contention(x, lat, 4, 0, &f), GC_ERANGE);
    assert_int_equal(f.npoints, 4);
    assert_int_equal(f.nenvelope, 4);
    assert_true(isnan(f.c));
    assert_int_equal(gc__hiding_fit_contention(x + 4, lat + 4, 4, 0, &f), GC_ERANGE);
    assert_int_equal(gc__hiding_fit_contention(x, bad, 8, 0, &f), GC_ERANGE);
    assert_int_equal(f.npoints, 0);
    assert_int_equal(gc__hiding_fit_contention(x, lat, 0, 0, &f), GC_EINVAL);
    assert_int_equal(gc__hiding_fit_contention(x, lat, 8, NAN, &f), GC_EINVAL);
    /* Enough points spanning enough throughput: a fit, b >= 0. */
    assert_int_equal(gc__hiding_fit_contention(x, lat, 8, 0, &f), 0);
    assert_true(f.a > 0 && f.b >= 0 && f.c > 8);
    /* A flat latency: only the highest throughput is on the envelope. */
    for (int i = 0; i < 8; i++)
        lat[i] = 300;
    assert_int_equal(gc__hiding_envelope(x, lat, 8, on), 1);
    assert_true(on[7]);
    assert_int_equal(gc__hiding_fit_contention(x, lat, 8, 0, &f), GC_ERANGE);
}

static void test_percentiles(void **state)
{
    double v[100], out[7];
    const double p[7] = {0, 5, 25, 50, 75, 95, 100};
    uint64_t s = 0x70657263ULL;

    (void)state;
    /* 1 .. 100 shuffled: order statistics interpolated linearly. */
    for (int i = 0; i < 100; i++)
        v[i] = i + 1;
    for (int i = 99; i > 0; i--) {
        int j = (int)(gc__xorshift64s(&s) % (uint64_t)(i + 1));
        double t = v[i];

        v[i] = v[j];
        v[j] = t;
    }
    double first = v[0];
    assert_int_equal(gc__hiding_percentiles(v, 100, p, 7, out), 0);
    assert_true(v[0] == first);
    assert_rel(out[0], 1, 1e-15);
    assert_rel(out[1], 5.95, 1e-12);
    assert_rel(out[2], 25.75, 1e-12);
    assert_rel(out[3], 50.5, 1e-12);
    assert_rel(out[4], 75.25, 1e-12);
    assert_rel(out[5], 95.05, 1e-12);
    assert_rel(out[6], 100, 1e-15);
    assert_int_equal(gc__hiding_percentiles(v, 1, p, 7, out), 0);
    for (int i = 0; i < 7; i++)
        assert_true(out[i] == v[0]);
    const double badp[1] = {101};
    assert_int_equal(gc__hiding_percentiles(v, 100, badp, 1, out), GC_EINVAL);
    assert_int_equal(gc__hiding_percentiles(v, 0, p, 7, out), GC_EINVAL);
}

/* ---- Validation ---------------------------------------------------------- */

static void test_checks(void **state)
{
    struct gc_hiding_hw hw = hw_refined(MAXWELL), bad;
    struct gc_hiding_mix mix = alpha_mix(8), m;
    struct gc_hiding_point p;
    char err[512];

    (void)state;
    assert_int_equal(gc__hiding_hw_check(&hw, err, sizeof(err)), 0);
    bad = hw;
    bad.unit[GC_HIDING_ALU].latency = -6;
    assert_int_equal(gc__hiding_hw_check(&bad, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "alu latency"));
    bad = hw;
    bad.unit[GC_HIDING_MEM].thru = NAN;
    assert_int_equal(gc__hiding_hw_check(&bad, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "mem throughput"));
    bad = hw;
    bad.cont.c = hw.unit[GC_HIDING_MEM].thru;
    assert_int_equal(gc__hiding_hw_check(&bad, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "contention c"));
    bad = hw;
    bad.max_warps = 0;
    assert_int_equal(gc__hiding_hw_check(&bad, err, sizeof(err)), GC_EINVAL);
    m = mix;
    m.count[GC_HIDING_SFU] = 1;
    assert_int_equal(gc__hiding_mix_check(&hw, &m, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "sfu_latency_cycles"));
    m = mix;
    m.ilp = 0.5;
    assert_int_equal(gc__hiding_mix_check(&hw, &m, err, sizeof(err)), GC_EINVAL);
    m = mix;
    m.mem_ilp = 0.5;
    assert_int_equal(gc__hiding_mix_check(&hw, &m, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "memory ILP"));
    /* mem_ilp divides the memory term alone; 0 reads as 1. */
    m = mix;
    m.count[GC_HIDING_MEM] = 2;
    m.mem_ilp = 0;
    double l1 = gc__hiding_latency(&hw, &m, 0, false);
    m.mem_ilp = 4;
    assert_int_equal(gc__hiding_mix_check(&hw, &m, err, sizeof(err)), 0);
    double l4 = gc__hiding_latency(&hw, &m, 0, false);
    assert_rel(l1 - l4, 2 * hw.unit[GC_HIDING_MEM].latency * (1 - 0.25) / m.ilp, 1e-12);
    memset(&m, 0, sizeof(m));
    m.ilp = 1;
    assert_int_equal(gc__hiding_mix_check(&hw, &m, err, sizeof(err)), GC_EINVAL);
    assert_int_equal(gc__hiding_basic(&hw, &mix, 0, &p), GC_EINVAL);
    assert_int_equal(gc__hiding_refined(&hw, &mix, -1, &p), GC_EINVAL);
    assert_true(isnan(gc__hiding_needed(&hw, &mix, 0, false)));
    assert_true(isnan(gc__hiding_needed(&hw, &mix, 1.5, true)));
    /* The refined latency diverges at c: with c at the peak, 100% of the
     * peak would take infinitely many warps. */
    bad = hw;
    bad.cont.c = hw.unit[GC_HIDING_MEM].thru;
    mix = only(GC_HIDING_MEM);
    assert_true(isinf(gc__hiding_needed(&bad, &mix, 1, true)));
    assert_string_equal(gc__hiding_name(GC_HIDING_LATENCY), "latency");
    assert_string_equal(gc__hiding_name(GC_HIDING_ISSUE), "issue");
    assert_string_equal(gc__hiding_name(99), "?");
}

/* ---- Profile contract ---------------------------------------------------- */

struct metric_def {
    const char *name, *unit;
    double value;
};

/* Maxwell as the thesis measured it: Tables 4.1, 6.1, 6.2 and 6.5 in the
 * contract's units (B/clk/SM: GB/s over 16 SMs at 1.266 GHz), with the issue
 * costs §4.7 suggests for SFU and shared-memory instructions. */
static const struct metric_def maxwell[] = {
    {"alu_latency_cycles", "cycles", 6},
    {"alu_thru_per_clk_sm", "inst/clk/SM", 4},
    {"sfu_latency_cycles", "cycles", 13},
    {"sfu_thru_per_clk_sm", "inst/clk/SM", 1},
    {"sfu_issue_cycles", "cycles", 2},
    {"shared_latency_cycles", "cycles", 24},
    {"shared_thru_per_clk_sm", "inst/clk/SM", 1},
    {"shared_issue_cycles", "cycles", 3},
    {"mem_latency_cycles", "cycles", 368},
    {"mem_thru_bytes_per_clk_sm", "B/clk/SM", 211e9 / (16 * 1.266e9)},
    {"mem_bytes_per_inst", "B/inst", 128},
    {"issue_thru_per_clk_sm", "inst/clk/SM", 4},
    {"contention_a_cycles", "cycles", 372},
    {"contention_b_cycles", "cycles", 22},
    {"contention_c_bytes_per_clk_sm", "B/clk/SM", 221e9 / (16 * 1.266e9)},
    {"max_warps_per_sm", "warps/SM", 64},
    {"clock_hz", "Hz", 1.266e9},
    {"sm_count", "SMs", 16},
};

#define NMAXWELL ((int)(sizeof(maxwell) / sizeof(maxwell[0])))

/* A results tree holding hiding.params with the Maxwell metrics, except
 * that metric SKIP is left out and metric PATCH gets PATCH_VALUE (either may
 * be NULL). */
static struct gc_results *profile(const char *skip, const char *patch, double patch_value)
{
    struct gc_results *r = gc__results_new();
    struct gc_run_meta *m;
    struct gc_bench_result *b;

    assert_non_null(r);
    m = &r->meta;
    snprintf(m->tool_version, sizeof(m->tool_version), "0.1.0");
    snprintf(m->git_revision, sizeof(m->git_revision), "0123456789ab");
    snprintf(m->date, sizeof(m->date), "2016-01-01T00:00:00Z");
    snprintf(m->host, sizeof(m->host), "testhost");
    snprintf(m->command_line, sizeof(m->command_line),
             "gpuchar run --bench hiding.params --json profile.json");
    snprintf(m->profile, sizeof(m->profile), "default");
    snprintf(m->device.spec, sizeof(m->device.spec), "cuda:0");
    m->device.backend = "cuda";
    snprintf(m->device.name, sizeof(m->device.name), "GeForce GTX 980");
    snprintf(m->device.vendor, sizeof(m->device.vendor), "NVIDIA Corporation");
    snprintf(m->device.arch, sizeof(m->device.arch), "sm_52");
    m->device.type = GC_DEVICE_GPU;
    m->device.compute_units = 16;
    m->device.clock_mhz = 1266;
    m->device.global_mem = (size_t)4 << 30;
    m->repeat = 25;
    m->min_time_ms = 10;
    b = gc__results_add_bench(r, GC_HIDING_BENCH, "model");
    assert_non_null(b);
    b->status = GC_BENCH_OK;
    gc__context_info_init(&b->context);
    for (int i = 0; i < NMAXWELL; i++) {
        double v = maxwell[i].value;

        if (skip && strcmp(skip, maxwell[i].name) == 0)
            continue;
        if (patch && strcmp(patch, maxwell[i].name) == 0)
            v = patch_value;
        assert_non_null(gc__bench_add_metric(b, maxwell[i].name, v, maxwell[i].unit, NAN, NULL,
                                             "Volkov (2016), Tables 4.1, 6.1, 6.2, 6.5"));
    }
    return r;
}

static int from(struct gc_results *r, struct gc_hiding_hw *hw, char *err, size_t len)
{
    int e = gc__hiding_from_results(r, hw, err, len);

    gc_results_free(r);
    return e;
}

/* Removes the metrics whose names start with PREFIX. */
static void drop_metrics(struct gc_bench_result *b, const char *prefix)
{
    int kept = 0;

    for (int i = 0; i < b->nmetrics; i++)
        if (strncmp(b->metrics[i].name, prefix, strlen(prefix)) != 0)
            b->metrics[kept++] = b->metrics[i];
    b->nmetrics = kept;
}

static void test_profile_reader(void **state)
{
    struct gc_hiding_hw hw;
    struct gc_results *r;
    char err[512];

    (void)state;
    assert_int_equal(from(profile(NULL, NULL, 0), &hw, err, sizeof(err)), 0);
    assert_rel(hw.unit[GC_HIDING_MEM].thru, 0.0814, 1e-3);
    assert_rel(hw.cont.c, 221e9 / (16 * 1.266e9 * 128), 1e-15);
    assert_true(hw.unit[GC_HIDING_SFU].present && hw.unit[GC_HIDING_SFU].issue_cycles == 2);
    assert_true(hw.unit[GC_HIDING_ALU].issue_cycles == 1);
    assert_int_equal(hw.sm_count, 16);

    /* Each required metric, left out, is named. */
    for (int i = 0; i < NMAXWELL; i++) {
        const char *n = maxwell[i].name;
        int e = from(profile(n, NULL, 0), &hw, err, sizeof(err));

        if (strstr(n, "sfu_") || strstr(n, "shared_") || strstr(n, "issue_cycles")) {
            /* An optional pair with one half missing is refused, naming it. */
            if (strstr(n, "issue_cycles"))
                assert_int_equal(e, 0);
            else
                assert_non_null(strstr(err, n));
            continue;
        }
        if (strncmp(n, "contention_", 11) == 0) {
            assert_int_equal(e, GC_EINVAL);
            assert_non_null(strstr(err, "only some of"));
            continue;
        }
        assert_int_equal(e, GC_EINVAL);
        assert_non_null(strstr(err, n));
    }
    /* Nonsense values. */
    assert_int_equal(from(profile(NULL, "alu_latency_cycles", -6), &hw, err, sizeof(err)),
                     GC_EINVAL);
    assert_non_null(strstr(err, "\"alu_latency_cycles\" of hiding.params is -6 cycles"));
    assert_int_equal(from(profile(NULL, "mem_thru_bytes_per_clk_sm", 0), &hw, err, sizeof(err)),
                     GC_EINVAL);
    assert_int_equal(from(profile(NULL, "clock_hz", NAN), &hw, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "null"));
    assert_int_equal(from(profile(NULL, "issue_thru_per_clk_sm", INFINITY), &hw, err, sizeof(err)),
                     GC_EINVAL);
    assert_int_equal(from(profile(NULL, "sm_count", 15.5), &hw, err, sizeof(err)), GC_EINVAL);
    assert_int_equal(from(profile(NULL, "max_warps_per_sm", 0.5), &hw, err, sizeof(err)),
                     GC_EINVAL);
    assert_int_equal(from(profile(NULL, "sfu_issue_cycles", 0), &hw, err, sizeof(err)), GC_EINVAL);
    assert_int_equal(from(profile(NULL, "contention_b_cycles", -1), &hw, err, sizeof(err)),
                     GC_EINVAL);
    assert_int_equal(
        from(profile(NULL, "contention_c_bytes_per_clk_sm", 10), &hw, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "must exceed mem_thru_bytes_per_clk_sm"));
    /* Without the contention fit the refinement is off, not an error. */
    r = profile(NULL, NULL, 0);
    drop_metrics(&r->benches[0], "contention_");
    assert_int_equal(from(r, &hw, err, sizeof(err)), 0);
    assert_false(hw.cont.present);
    /* A wrong unit. */
    r = profile(NULL, NULL, 0);
    snprintf(r->benches[0].metrics[0].unit, sizeof(r->benches[0].metrics[0].unit), "ns");
    assert_int_equal(from(r, &hw, err, sizeof(err)), GC_EINVAL);
    assert_non_null(strstr(err, "has unit \"ns\"; the model requires \"cycles\""));
    /* A failed or absent benchmark. */
    r = profile(NULL, NULL, 0);
    gc__bench_set_error(&r->benches[0], GC_BENCH_ERROR, "kernel result verification failed");
    assert_int_equal(from(r, &hw, err, sizeof(err)), GC_ENOBENCH);
    assert_non_null(strstr(err, "did not complete: kernel result verification failed"));
    r = profile(NULL, NULL, 0);
    snprintf(r->benches[0].name, sizeof(r->benches[0].name), "memory.copy");
    assert_int_equal(from(r, &hw, err, sizeof(err)), GC_ENOBENCH);
    assert_non_null(strstr(err, "no benchmark \"hiding.params\""));
}

/* ---- Fixtures ------------------------------------------------------------ */

/* The fixtures of the command-line cases, written by gc_write_json (the bad
 * schema version by editing its output, which the writer cannot produce).
 * Each must equal what the writer makes now; GPUCHAR_UPDATE_GOLDEN=1
 * rewrites them. */
struct fixture {
    const char *file;
    const char *skip, *patch;
    double patch_value;
    bool bad_schema, no_bench;
};

static const struct fixture fixtures[] = {
    {"hiding-maxwell.json", NULL, NULL, 0, false, false},
    {"hiding-missing-metric.json", "mem_latency_cycles", NULL, 0, false, false},
    {"hiding-bad-schema.json", NULL, NULL, 0, true, false},
    {"hiding-nonsense.json", NULL, "alu_latency_cycles", -6, false, false},
    {"hiding-no-bench.json", NULL, NULL, 0, false, true},
};

static char *fixture_text(const struct fixture *f, const char *dir)
{
    struct gc_results *r = profile(f->skip, f->patch, f->patch_value);
    char path[4096];
    char *text, *at;
    size_t len;

    if (f->no_bench)
        snprintf(r->benches[0].name, sizeof(r->benches[0].name), "memory.copy");
    snprintf(path, sizeof(path), "%s/out.json", dir);
    assert_int_equal(gc_write_json(r, path), 0);
    gc_results_free(r);
    text = slurp(path, &len);
    assert_non_null(text);
    unlink(path);
    if (f->bad_schema) {
        at = strstr(text, "\"schema_version\": 1,");
        assert_non_null(at);
        memcpy(at, "\"schema_version\": 9,", 20);
    }
    return text;
}

static void test_fixtures(void **state)
{
    const char *update = getenv("GPUCHAR_UPDATE_GOLDEN");
    char *dir = make_temp_dir();

    (void)state;
    assert_non_null(dir);
    for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
        const struct fixture *f = &fixtures[i];
        char path[4096], err[512];
        char *want = fixture_text(f, dir), *have;
        struct gc_results *r = NULL;
        struct gc_hiding_hw hw;
        size_t len;
        int e;

        snprintf(path, sizeof(path), "%s/%s", FIXTURES, f->file);
        if (update && strcmp(update, "1") == 0) {
            FILE *out = fopen(path, "w");

            assert_non_null(out);
            assert_int_equal(fputs(want, out) >= 0, 1);
            assert_int_equal(fclose(out), 0);
        }
        have = slurp(path, &len);
        if (!have)
            fail_msg("cannot read %s", path);
        if (strcmp(have, want) != 0)
            fail_msg("%s differs from what gc_write_json writes now "
                     "(GPUCHAR_UPDATE_GOLDEN=1 rewrites it)",
                     path);
        free(have);
        free(want);

        e = gc_read_json(path, &r, err, sizeof(err));
        if (f->bad_schema) {
            assert_int_equal(e, GC_EINVAL);
            assert_non_null(strstr(err, "unsupported schema_version 9"));
            continue;
        }
        assert_int_equal(e, 0);
        e = from(r, &hw, err, sizeof(err));
        if (f->no_bench)
            assert_int_equal(e, GC_ENOBENCH);
        else if (f->skip || f->patch)
            assert_int_equal(e, GC_EINVAL);
        else
            assert_int_equal(e, 0);
    }
    rm_rf(dir);
    free(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_4_1_mem_thru),
        cmocka_unit_test(test_table_4_2_closed_forms),
        cmocka_unit_test(test_table_3_1_limits),
        cmocka_unit_test(test_table_3_4_worksheet),
        cmocka_unit_test(test_section_3_8_vector_add),
        cmocka_unit_test(test_section_4_5_cusp),
        cmocka_unit_test(test_figure_4_7),
        cmocka_unit_test(test_table_4_3_guide),
        cmocka_unit_test(test_table_6_4_linear),
        cmocka_unit_test(test_table_6_4_refined_at_linear),
        cmocka_unit_test(test_section_6_5_kepler),
        cmocka_unit_test(test_properties),
        cmocka_unit_test(test_bisect),
        cmocka_unit_test(test_fit_exact),
        cmocka_unit_test(test_fit_envelope_noise),
        cmocka_unit_test(test_fit_refusals),
        cmocka_unit_test(test_percentiles),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_profile_reader),
        cmocka_unit_test(test_fixtures),
    };

    golden_init(argc, argv);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
