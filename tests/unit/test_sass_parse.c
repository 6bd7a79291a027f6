/* SASS parsing and loop checking on canned disassembler output: nvdisasm's
 * and cuobjdump's formats, loops, nested loops, predicates, no loop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/sass.h"
#include "kgen/kgen.h"

static char *read_golden(const char *name)
{
    char path[1024];
    FILE *f;
    long n;
    char *s;

    snprintf(path, sizeof(path), "%s/sass/%s", GC_GOLDEN_DIR, name);
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static void parse_golden(const char *name, struct gc_sass *s)
{
    char *text = read_golden(name);

    assert_int_equal(gc__sass_parse(text, s), 0);
    free(text);
}

/* Checks e for compute capability cc and returns the result; the report
 * must name every expectation. */
static struct gc_sass_result check_cc(const struct gc_sass *s, const struct gc_sass_expect *e,
                                      int ne, int cc)
{
    struct gc_sass_result r;

    assert_int_equal(gc__sass_check(s, e, ne, cc, &r), 0);
    assert_non_null(r.report);
    for (int i = 0; i < ne; i++)
        assert_non_null(strstr(r.report, e[i].mnemonic));
    return r;
}

static struct gc_sass_result check(const struct gc_sass *s, const struct gc_sass_expect *e, int ne)
{
    return check_cc(s, e, ne, 90);
}

/* Parses a listing in nvdisasm's layout, written as one function's lines:
 * "name:" lines are labels, the others instructions, numbered 0x10 apart. */
static void parse_lines(const char *const *lines, int n, struct gc_sass *s)
{
    struct gc_sbuf b;
    unsigned a = 0;

    gc__sbuf_init(&b);
    gc__sbuf_puts(&b, "\t.section\t.text.gc_op,\"ax\",@progbits\ngc_op:\n");
    for (int i = 0; i < n; i++) {
        size_t len = strlen(lines[i]);

        if (len > 0 && lines[i][len - 1] == ':') {
            gc__sbuf_printf(&b, "%s\n", lines[i]);
            continue;
        }
        gc__sbuf_printf(&b, "        /*%04x*/ %22s ;\n", a, lines[i]);
        a += 16;
    }
    assert_false(b.oom);
    assert_int_equal(gc__sass_parse(b.s, s), 0);
    gc__sbuf_free(&b);
    assert_int_equal(s->nfn, 1);
}

#define NLINES(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_match_rules(void **state)
{
    (void)state;
    assert_true(gc__sass_match("FFMA", "FFMA"));
    assert_true(gc__sass_match("FFMA", "FFMA.FTZ"));
    assert_true(gc__sass_match("FFMA", "FFMA.FTZ.SAT"));
    assert_true(gc__sass_match("MUFU.SIN", "MUFU.SIN"));
    assert_true(gc__sass_match("MUFU", "MUFU.EX2"));
    assert_true(gc__sass_match("HMMA.16816", "HMMA.16816.F32.BF16"));
    assert_false(gc__sass_match("MUFU.SIN", "MUFU.COS"));
    assert_false(gc__sass_match("MUFU.SIN", "MUFU"));
    /* A longer opcode is another instruction, not a modifier. */
    assert_false(gc__sass_match("LDG", "LDGSTS.E.128"));
    assert_false(gc__sass_match("FFMA", "FFMA32I"));
    assert_false(gc__sass_match("I2F", "I2FP.F32.S32"));
    assert_false(gc__sass_match("HMMA.168", "HMMA.16816.F32"));
    assert_false(gc__sass_match("", "FFMA"));
}

/* A loop of 64 FFMA (4 chains x 16) with FFMAs before and after it, a
 * forward branch around it, .nv.info data before the code and the trap
 * branch-to-self after EXIT. */
static void test_single_loop(void **state)
{
    struct gc_sass s;
    struct gc_sass_loop *loops;
    int n;

    (void)state;
    parse_golden("loop_ffma.sass", &s);
    assert_int_equal(s.nfn, 1);
    assert_string_equal(s.fn[0].name, "gc_sass_selftest");
    /* 95 instructions: the .byte/.word lines of .nv.info are not code. */
    assert_int_equal(s.fn[0].n, 95);
    assert_int_equal(gc__sass_loops(&s, &loops, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(s.fn[0].insn[loops[0].first].addr, 0x100);
    assert_string_equal(s.fn[0].insn[loops[0].first].op, "IADD3");
    assert_string_equal(s.fn[0].insn[loops[0].last].op, "BRA");
    /* The counter update, its compare and the branch are the loop's
     * control: in the loop, but not counted against expectations. */
    assert_int_equal(gc__sass_count(&s, &loops[0], "IADD3"), 1);
    assert_int_equal(gc__sass_count(&s, &loops[0], "BRA"), 1);
    free(loops);
    /* Over the whole function: the loop's 64, FFMA.FTZ and a predicated one. */
    assert_int_equal(gc__sass_count(&s, NULL, "FFMA"), 66);

    struct gc_sass_expect ok[] = {{"FFMA", 64}, {"IADD3", 0}, {"ISETP.NE", 0}, {"BRA", 0}};
    struct gc_sass_result r = check(&s, ok, 4);
    assert_true(r.ok);
    assert_true(r.has_loop);
    assert_int_equal(r.nloops, 1);
    assert_int_equal(r.ncontrol, 3);
    assert_int_equal(r.found[0], 64);
    assert_non_null(strstr(r.report, "loop control, not counted: IADD3 /*0100*/, "
                                     "ISETP.NE.AND /*0310*/, BRA /*0520*/"));
    assert_non_null(strstr(r.report, "top opcodes: FFMA 64"));
    assert_non_null(strstr(r.report, "67 instructions"));
    free(r.report);

    struct gc_sass_expect off[] = {{"FFMA", 63}};
    r = check(&s, off, 1);
    assert_false(r.ok);
    assert_int_equal(r.found[0], 64);
    assert_non_null(strstr(r.report, "MISMATCH"));
    free(r.report);
    gc__sass_free(&s);
}

/* An outer loop (loads) around an inner loop (FFMA) that has two backward
 * branches to its head, as a continue makes; a second function without a
 * loop follows. */
static void test_nested_loops(void **state)
{
    struct gc_sass s;
    struct gc_sass_loop *loops;
    int n;

    (void)state;
    parse_golden("nested.sass", &s);
    assert_int_equal(s.nfn, 2);
    assert_string_equal(s.fn[0].name, "gc_nested");
    assert_string_equal(s.fn[1].name, "gc_other");
    assert_int_equal(gc__sass_loops(&s, &loops, &n), 0);
    /* The two backward branches to the inner head make one loop. */
    assert_int_equal(n, 2);
    assert_true(loops[0].first < loops[1].first);
    assert_true(loops[0].last > loops[1].last);
    assert_int_equal(gc__sass_count(&s, &loops[1], "BRA"), 2);
    assert_int_equal(gc__sass_count(&s, &loops[1], "FFMA"), 8);
    assert_int_equal(gc__sass_count(&s, &loops[0], "FFMA"), 8);

    /* Both loops hold the 8 FFMA: the innermost is the timed loop. */
    struct gc_sass_expect inner[] = {{"FFMA", 8}, {"LDG", 0}};
    struct gc_sass_result r = check(&s, inner, 2);
    assert_true(r.ok);
    assert_int_equal(r.loop.first, loops[1].first);
    assert_int_equal(r.loop.last, loops[1].last);
    free(r.report);

    /* Only the outer loop holds loads: it is chosen, with the inner's FFMA. */
    struct gc_sass_expect outer[] = {{"LDG", 2}, {"FFMA", 8}};
    r = check(&s, outer, 2);
    assert_true(r.ok);
    assert_int_equal(r.loop.first, loops[0].first);
    free(r.report);

    /* No loop holds a DFMA: the longest loop is reported, found 0. */
    struct gc_sass_expect none[] = {{"DFMA", 4}};
    r = check(&s, none, 1);
    assert_false(r.ok);
    assert_true(r.has_loop);
    assert_int_equal(r.found[0], 0);
    assert_int_equal(r.loop.first, loops[0].first);
    free(r.report);
    free(loops);
    gc__sass_free(&s);
}

/* Straight-line code: predicated instructions count, @!PT ones never run,
 * a forward branch and the trap make no loop. */
static void test_no_loop(void **state)
{
    struct gc_sass s;

    (void)state;
    parse_golden("noloop.sass", &s);
    assert_int_equal(s.nfn, 1);
    struct gc_sass_expect e[] = {{"MUFU.SIN", 4}, {"MUFU", 6}, {"SHFL", 0}, {"EXIT", 2}};
    struct gc_sass_result r = check(&s, e, 4);
    assert_true(r.ok);
    assert_false(r.has_loop);
    assert_int_equal(r.nloops, 0);
    assert_non_null(strstr(r.report, "no loop"));
    free(r.report);
    gc__sass_free(&s);
}

/* cuobjdump -sass: "Function :" header, hex branch targets, encodings. */
static void test_cuobjdump_format(void **state)
{
    struct gc_sass s;

    (void)state;
    parse_golden("cuobjdump.sass", &s);
    assert_int_equal(s.nfn, 1);
    assert_string_equal(s.fn[0].name, "gc_dfma");
    assert_int_equal(s.fn[0].n, 21);
    struct gc_sass_expect e[] = {{"DFMA", 8}, {"LDG", 0}};
    struct gc_sass_result r = check(&s, e, 2);
    assert_true(r.ok);
    assert_true(r.has_loop);
    assert_int_equal(r.nloops, 1);
    assert_int_equal(s.fn[0].insn[r.loop.first].addr, 0x70);
    free(r.report);
    gc__sass_free(&s);
}

/* An unrolled body of thousands of instructions, in text without headers. */
static void test_large_unrolled_loop(void **state)
{
    struct gc_sbuf b;
    struct gc_sass s;
    unsigned a = 0;

    (void)state;
    gc__sbuf_init(&b);
    gc__sbuf_printf(&b, "        /*%04x*/                   MOV R4, RZ ;\n", a);
    a += 16;
    gc__sbuf_puts(&b, ".L_x_7:\n");
    for (int i = 0; i < 8192; i++, a += 16)
        gc__sbuf_printf(&b, "        /*%04x*/               %s FFMA R%d, R%d, R2, R3 ;\n", a,
                        i % 7 == 0 ? "@P1" : "   ", 4 + i % 8, 4 + i % 8);
    gc__sbuf_printf(&b, "        /*%04x*/               @P0 BRA `(.L_x_7) ;\n", a);
    a += 16;
    gc__sbuf_printf(&b, "        /*%04x*/                   EXIT ;\n", a);
    assert_false(b.oom);
    assert_int_equal(gc__sass_parse(b.s, &s), 0);
    gc__sbuf_free(&b);
    assert_int_equal(s.nfn, 1);
    assert_string_equal(s.fn[0].name, "(anonymous)");
    struct gc_sass_expect e[] = {{"FFMA", 8192}};
    struct gc_sass_result r = check(&s, e, 1);
    assert_true(r.ok);
    assert_true(r.has_loop);
    free(r.report);
    gc__sass_free(&s);
}

static void test_empty_and_invalid(void **state)
{
    struct gc_sass s;
    struct gc_sass_result r;
    struct gc_sass_expect e[GC_SASS_MAX_EXPECT + 1] = {{"FFMA", 1}};

    (void)state;
    assert_int_equal(gc__sass_parse("", &s), 0);
    assert_int_equal(s.nfn, 0);
    r = check(&s, e, 1);
    assert_false(r.ok);
    assert_false(r.has_loop);
    assert_int_equal(r.found[0], 0);
    free(r.report);
    assert_int_equal(gc__sass_check(&s, e, GC_SASS_MAX_EXPECT + 1, 90, &r), GC_EINVAL);
    e[0].mnemonic = "FFMA|";
    assert_int_equal(gc__sass_check(&s, e, 1, 90, &r), GC_EINVAL);
    e[0].mnemonic = NULL;
    assert_int_equal(gc__sass_check(&s, e, 1, 90, &r), GC_EINVAL);
    gc__sass_free(&s);
    /* Text that is not a disassembly holds no function. */
    assert_int_equal(gc__sass_parse("nvdisasm fatal : Input file 'x' is not a cubin\n", &s), 0);
    assert_int_equal(s.nfn, 0);
    gc__sass_free(&s);
}

/* Expressions: well-formed ones and the architectures they apply to. */
static void test_expressions(void **state)
{
    static const char *const good[] = {
        "FFMA",         "HMMA.16816.F32", "HGMMA.64x256x16.F32", "HADD2|HFMA2.MMA", "sm_90+:FFMA",
        "sm_80-89:I2F", "sm_90:A|B/2",    "sm_100+:F2FP/2|F2F",  "IDP.4A",          "sm_0-89:I2F",
    };
    static const char *const bad[] = {
        "",
        "sm_90",
        ":FFMA",
        "sm_90:",
        "sm_9x:FFMA",
        "sm_90-80:FFMA",
        "sm_90*:FFMA",
        "sm_1000:FFMA",
        "FFMA|",
        "|FFMA",
        "FFMA||FADD",
        "FFMA/0",
        "FFMA/10",
        "FFMA/x",
        "FFMA.",
        "FF MA",
        "ffma",
        "sm_90+:sm_80:X",
        "A|B|C|D|E|F|G|H|I",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_true(gc__sass_expect_valid(good[i]));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (gc__sass_expect_valid(bad[i]))
            fail_msg("accepted: '%s'", bad[i]);
    }
    assert_false(gc__sass_expect_valid(NULL));
    assert_true(gc__sass_expect_applies("FFMA", 0));
    assert_true(gc__sass_expect_applies("FFMA", 80));
    assert_true(gc__sass_expect_applies("sm_90+:FFMA", 90));
    assert_true(gc__sass_expect_applies("sm_90+:FFMA", 100));
    assert_false(gc__sass_expect_applies("sm_90+:FFMA", 89));
    assert_false(gc__sass_expect_applies("sm_90+:FFMA", 0));
    assert_true(gc__sass_expect_applies("sm_80-89:FFMA", 86));
    assert_false(gc__sass_expect_applies("sm_80-89:FFMA", 90));
    assert_true(gc__sass_expect_applies("sm_90:FFMA", 90));
    assert_false(gc__sass_expect_applies("sm_90:FFMA", 100));
    assert_false(gc__sass_expect_applies("FFMA|", 90));
}

/* The fp16 add loop ptxas emits for sm_90: half the adds as HADD2, half as
 * HFMA2.MMA (x * 1 + y on the second FMA pipe); counted as one operation. */
static const char *const fp16_add[] = {
    "MOV R8, RZ",
    ".L_x_1:",
    "HADD2 R4, R4, R2.H0_H0",
    "HFMA2.MMA R5, R5, 1, 1, R2",
    "HADD2 R6, R6, R2.H0_H0",
    "HFMA2.MMA R7, R7, 1, 1, R2",
    "HADD2 R4, R4, R2.H0_H0",
    "HFMA2.MMA R5, R5, 1, 1, R2",
    "HADD2 R6, R6, R2.H0_H0",
    "HFMA2.MMA R7, R7, 1, 1, R2",
    "VIADD R8, R8, 0x1",
    "ISETP.NE.AND P0, PT, R8, 0x100, PT",
    "@P0 BRA `(.L_x_1)",
    "EXIT",
};

static void test_alternatives(void **state)
{
    struct gc_sass s;

    (void)state;
    parse_lines(fp16_add, NLINES(fp16_add), &s);
    struct gc_sass_expect e[] = {{"HADD2|HFMA2.MMA", 8},
                                 {"HADD2", 4},
                                 {"HFMA2|HFMA2.MMA", 4}, /* each instruction counted once */
                                 {"HMUL2|HFMA2.MMA", 4}};
    struct gc_sass_result r = check(&s, e, 4);
    assert_true(r.ok);
    assert_int_equal(r.found[0], 8);
    assert_int_equal(r.found[2], 4);
    assert_int_equal(r.ncontrol, 3);
    free(r.report);
    assert_int_equal(gc__sass_count(&s, NULL, "HADD2|HFMA2.MMA|VIADD"), 9);
    assert_int_equal(gc__sass_count(&s, NULL, "HADD2|"), GC_EINVAL);

    /* One of the two alone is a mismatch. */
    struct gc_sass_expect one[] = {{"HADD2", 8}};
    r = check(&s, one, 1);
    assert_false(r.ok);
    assert_int_equal(r.found[0], 4);
    assert_non_null(strstr(r.report, "MISMATCH"));
    free(r.report);
    gc__sass_free(&s);
}

/* An HFMA2.MMA of -RZ and RZ plus an immediate is ptxas' move of a constant,
 * counted as MOV and not as packed fp16 work. */
static const char *const hfma2_with_move[] = {
    ".L_x_2:",
    "HFMA2 R4, R4, R9, R2",
    "HFMA2.MMA R9, -RZ, RZ, 1.9990234375, 1.9990234375",
    "HFMA2 R6, R6, R9, R2",
    "HFMA2.MMA R7, R7, 1, 1, R2",
    "IADD3 R8, R8, 0x1, RZ",
    "ISETP.NE.AND P0, PT, R8, 0x100, PT",
    "@P0 BRA `(.L_x_2)",
    "EXIT",
};

static void test_move_idiom(void **state)
{
    struct gc_sass s;

    (void)state;
    parse_lines(hfma2_with_move, NLINES(hfma2_with_move), &s);
    struct gc_sass_expect e[] = {{"HFMA2", 3}, {"MOV", 1}};
    struct gc_sass_result r = check(&s, e, 2);
    assert_true(r.ok);
    assert_int_equal(r.found[0], 3);
    assert_int_equal(r.found[1], 1);
    free(r.report);
    gc__sass_free(&s);
}

/* Per-architecture expectations: only those for the architecture checked
 * count, and the first of them chooses the timed loop. */
static void test_per_arch(void **state)
{
    struct gc_sass s;

    (void)state;
    parse_lines(fp16_add, NLINES(fp16_add), &s);
    struct gc_sass_expect e[] = {{"sm_80-89:HADD2", 8},
                                 {"sm_90+:HADD2|HFMA2.MMA", 8},
                                 {"sm_90:HFMA2.MMA", 4},
                                 {"sm_80:HFMA2", 0}};
    struct gc_sass_result r = check_cc(&s, e, 4, 90);
    assert_true(r.ok);
    assert_false(r.applies[0]);
    assert_true(r.applies[1]);
    assert_true(r.applies[2]);
    assert_false(r.applies[3]);
    assert_int_equal(r.found[0], 0);
    assert_int_equal(r.found[1], 8);
    assert_non_null(strstr(r.report, "rule: most sm_90+:HADD2|HFMA2.MMA"));
    assert_non_null(strstr(r.report, "not for this architecture (sm_90)"));
    free(r.report);

    /* The same code judged as sm_80 code: all adds had to be HADD2. */
    r = check_cc(&s, e, 4, 80);
    assert_false(r.ok);
    assert_true(r.applies[0]);
    assert_false(r.applies[1]);
    assert_true(r.applies[3]);
    assert_int_equal(r.found[0], 4);
    assert_int_equal(r.found[3], 4);
    free(r.report);

    /* An architecture none applies to: nothing to fail. */
    r = check_cc(&s, e, 4, 75);
    assert_true(r.ok);
    free(r.report);
    gc__sass_free(&s);
}

/* Packed conversions: with two independent chains ptxas converts both
 * values with one F2FP.F16.F32.PACK_AB, with one chain it cannot. */
static void test_packed(void **state)
{
    static const char *const lines[] = {
        ".L_x_0:",
        "F2FP.F16.F32.PACK_AB R6, R5, R4",
        "HADD2.F32 R4, -RZ, R6.H0_H0",
        "HADD2.F32 R5, -RZ, R6.H1_H1",
        "F2FP.F16.F32.PACK_AB R6, R5, R4",
        "HADD2.F32 R4, -RZ, R6.H0_H0",
        "HADD2.F32 R5, -RZ, R6.H1_H1",
        "IADD3 R2, R2, -0x1, RZ",
        "ISETP.NE.AND P0, PT, R2, RZ, PT",
        "@P0 BRA `(.L_x_0)",
        "EXIT",
    };
    struct gc_sass s;

    (void)state;
    parse_lines(lines, NLINES(lines), &s);
    /* 4 conversions each way: 2 packed instructions carry the first 4. */
    struct gc_sass_expect e[] = {{"HADD2.F32", 4}, {"F2FP/2", 4}};
    struct gc_sass_result r = check(&s, e, 2);
    assert_true(r.ok);
    assert_int_equal(r.found[1], 2);
    assert_non_null(strstr(r.report, "expected      4 operations (2..4 instructions)"));
    free(r.report);
    /* 2 instructions carry 2 to 4 operations, no more, no fewer. */
    static const int want[] = {1, 2, 3, 4, 5};
    static const bool pass[] = {false, true, true, true, false};
    for (int i = 0; i < 5; i++) {
        struct gc_sass_expect p[] = {{"F2FP/2", want[i]}};
        r = check(&s, p, 1);
        assert_int_equal(r.ok, pass[i]);
        free(r.report);
    }
    /* Without the packing factor the count is exact. */
    struct gc_sass_expect exact[] = {{"F2FP", 4}};
    r = check(&s, exact, 1);
    assert_false(r.ok);
    free(r.report);
    gc__sass_free(&s);
}

/* The loop's counter is identified however ptxas writes it, so that adds
 * and compares are counted without the loop's own. */
static void test_loop_control(void **state)
{
    /* int32 add chains with an IADD3 counter (sm_80). */
    static const char *const add[] = {
        ".L_x_1:",
        "IADD3 R4, R4, R5, RZ",
        "IMAD.IADD R5, R5, 0x1, R4",
        "IADD3 R6, R6, R7, RZ",
        "IMAD.IADD R7, R7, 0x1, R6",
        "IADD3 R2, R2, 0x1, RZ",
        "ISETP.NE.AND P0, PT, R2, 0x100, PT",
        "@P0 BRA `(.L_x_1)",
        "EXIT",
    };
    /* A counter on the uniform datapath, its predicate copied by PLOP3. */
    static const char *const uni[] = {
        ".L_x_1:",
        "UIADD3 UR4, UR4, 0x1, URZ",
        "ISETP.LT.U32.AND P1, PT, R4, R9, PT",
        "SEL R4, RZ, 0xffffffff, !P1",
        "ISETP.LT.U32.AND P2, PT, R5, R9, PT",
        "SEL R5, RZ, 0xffffffff, !P2",
        "UISETP.NE.AND UP0, UPT, UR4, 0x80, UPT",
        "PLOP3.LUT P0, PT, PT, PT, UP0, 0x80, 0x0",
        "@P0 BRA `(.L_x_1)",
        "EXIT",
    };
    /* The compare reads the counter before its update (a value carried
     * from the previous trip), and an unrelated write of P0 earlier. */
    static const char *const carried[] = {
        ".L_x_1:",
        "IADD3 R4, P0, R4, R6, RZ",
        "IADD3.X R5, R5, R7, RZ, P0, !PT",
        "ISETP.NE.AND P0, PT, R2, 0xff, PT",
        "IADD3 R6, P1, R6, R4, RZ",
        "IMAD.X R7, R7, 0x1, R5, P1",
        "VIADD R2, R2, 0x1",
        "@P0 BRA `(.L_x_1)",
        "EXIT",
    };
    /* sm_80: an unconditional branch back, the exit a predicated
     * CALL.REL.NOINC past the loop; the counter updated at the top. */
    static const char *const call[] = {
        ".L_x_0:",
        "IADD3 R10, R10, 0x1, RZ",
        "IADD3 R4, R4, R5, RZ",
        "ISETP.NE.AND P0, PT, R10, 0x100, PT",
        "IMAD.IADD R5, R5, 0x1, R4",
        "@!P0 CALL.REL.NOINC `(.L_x_1)",
        "BRA `(.L_x_0)",
        ".L_x_1:",
        "STG.E desc[UR4][R2.64], R4",
        "EXIT",
    };
    /* A run-time trip count reloaded from the kernel's arguments. */
    static const char *const bound[] = {
        ".L_x_1:",
        "REDG.E.ADD.STRONG.GPU desc[UR6][R2.64], R5",
        "REDG.E.ADD.STRONG.GPU desc[UR6][R2.64], R5",
        "LDC R7, c[0x0][0x21c]",
        "IADD3 R4, R4, 0x1, RZ",
        "ISETP.GE.U32.AND P0, PT, R4, R7, PT",
        "@!P0 BRA `(.L_x_1)",
        "EXIT",
    };
    /* A rotated loop: the exit test at the top, an unconditional branch
     * back. */
    static const char *const rotated[] = {
        ".L_x_0:",
        "ISETP.GE.AND P0, PT, R2, 0x10, PT",
        "@P0 BRA `(.L_x_1)",
        "FFMA R4, R4, R5, R6",
        "FFMA R4, R4, R5, R6",
        "IADD3 R2, R2, 0x1, RZ",
        "BRA `(.L_x_0)",
        ".L_x_1:",
        "EXIT",
    };
    struct gc_sass s;
    struct gc_sass_result r;

    (void)state;
    parse_lines(add, NLINES(add), &s);
    assert_int_equal(gc__sass_count(&s, NULL, "IADD3|IMAD.IADD"), 5);
    struct gc_sass_expect ea[] = {{"IADD3|IMAD.IADD", 4}, {"ISETP", 0}};
    r = check(&s, ea, 2);
    assert_true(r.ok);
    assert_int_equal(r.ncontrol, 3);
    assert_non_null(strstr(r.report, "IADD3 /*0040*/, ISETP.NE.AND /*0050*/, BRA /*0060*/"));
    free(r.report);
    gc__sass_free(&s);

    parse_lines(uni, NLINES(uni), &s);
    struct gc_sass_expect eu[] = {{"ISETP", 2}, {"SEL", 2}, {"UIADD3", 0}};
    r = check(&s, eu, 3);
    assert_true(r.ok);
    assert_int_equal(r.ncontrol, 4);
    free(r.report);
    gc__sass_free(&s);

    parse_lines(carried, NLINES(carried), &s);
    struct gc_sass_expect ec[] = {{"IADD3.X|IMAD.X", 2}, {"ISETP", 0}, {"VIADD", 0}};
    r = check(&s, ec, 3);
    assert_true(r.ok);
    assert_int_equal(r.ncontrol, 3);
    assert_non_null(strstr(r.report, "ISETP.NE.AND /*0020*/, VIADD /*0050*/, BRA /*0060*/"));
    free(r.report);
    gc__sass_free(&s);

    parse_lines(call, NLINES(call), &s);
    assert_int_equal(s.fn[0].insn[4].target, 6);
    struct gc_sass_expect ecall[] = {{"IADD3|IMAD.IADD", 2}, {"CALL", 0}};
    r = check(&s, ecall, 2);
    assert_true(r.ok);
    assert_int_equal(r.nloops, 1);
    assert_int_equal(r.ncontrol, 4);
    assert_non_null(strstr(r.report, "IADD3 /*0000*/, ISETP.NE.AND /*0020*/, "
                                     "CALL.REL.NOINC /*0040*/, BRA /*0050*/"));
    free(r.report);
    gc__sass_free(&s);

    parse_lines(bound, NLINES(bound), &s);
    struct gc_sass_expect eb[] = {{"sm_90+:REDG.E.ADD.STRONG.GPU", 2}, {"IADD3", 0}, {"LDC", 0}};
    r = check(&s, eb, 3);
    assert_true(r.ok);
    assert_int_equal(r.ncontrol, 4);
    free(r.report);
    gc__sass_free(&s);

    parse_lines(rotated, NLINES(rotated), &s);
    struct gc_sass_expect er[] = {{"FFMA", 2}, {"IADD3", 0}, {"BRA", 0}};
    r = check(&s, er, 3);
    assert_true(r.ok);
    assert_int_equal(r.ncontrol, 4);
    free(r.report);
    gc__sass_free(&s);
}

/* A loop of 64-bit shared atomic adds: each is a compare-and-swap spin loop
 * (ATOMS.CAST.SPIN.64) inside the timed loop. The spin loops' exits depend
 * on memory, so they have no counter; the timed loop is the outer one, which
 * holds every CAS. */
static void test_spin_loops(void **state)
{
    static const char *const lines[] = {
        "MOV R10, RZ",
        ".L_x_0:",
        "BSSY B0, `(.L_x_2)",
        ".L_x_1:",
        "LDS.64 R4, [R3]",
        "IADD3 R6, P0, R4, R8, RZ",
        "IMAD.X R7, R5, 0x1, R9, P0",
        "ATOMS.CAST.SPIN.64 P0, [R3], R4, R6",
        "@!P0 BRA `(.L_x_1)",
        "BSYNC B0",
        ".L_x_2:",
        "BSSY B0, `(.L_x_4)",
        ".L_x_3:",
        "LDS.64 R4, [R3]",
        "IADD3 R6, P0, R4, R8, RZ",
        "IMAD.X R7, R5, 0x1, R9, P0",
        "ATOMS.CAST.SPIN.64 P0, [R3], R4, R6",
        "@!P0 BRA `(.L_x_3)",
        "BSYNC B0",
        ".L_x_4:",
        "VIADD R10, R10, 0x1",
        "ISETP.GE.U32.AND P0, PT, R10, R11, PT",
        "@!P0 BRA `(.L_x_0)",
        "EXIT",
    };
    struct gc_sass s;
    struct gc_sass_loop *loops;
    int n, ctl[GC_SASS_MAX_CONTROL];

    (void)state;
    parse_lines(lines, NLINES(lines), &s);
    assert_int_equal(gc__sass_loops(&s, &loops, &n), 0);
    assert_int_equal(n, 3);
    /* A spin loop's exit is data: no control identified. */
    assert_int_equal(gc__sass_loop_control(&s, &loops[1], loops, n, ctl), 0);
    assert_int_equal(gc__sass_loop_control(&s, &loops[0], loops, n, ctl), 3);
    free(loops);
    struct gc_sass_expect e[] = {{"ATOMS.CAST.SPIN.64", 2}, {"LDS.64", 2}, {"BSSY", 2}};
    struct gc_sass_result r = check(&s, e, 3);
    assert_true(r.ok);
    assert_int_equal(s.fn[0].insn[r.loop.first].addr, 0x10);
    assert_int_equal(r.ncontrol, 3);
    free(r.report);
    gc__sass_free(&s);
}

/* Where the slice of the branch's predicate reaches a load, or a counter
 * updated inside a nested loop, nothing is taken for control. */
static void test_control_not_identified(void **state)
{
    static const char *const data[] = {
        ".L_x_0:",
        "LDG.E R2, desc[UR4][R6.64]",
        "IADD3 R6, P1, R6, 0x4, RZ",
        "IADD3.X R7, RZ, R7, RZ, P1, !PT",
        "ISETP.NE.AND P0, PT, R2, RZ, PT",
        "@P0 BRA `(.L_x_0)",
        "EXIT",
    };
    struct gc_sass s;

    (void)state;
    parse_lines(data, NLINES(data), &s);
    struct gc_sass_expect e[] = {{"LDG", 1}, {"ISETP", 1}, {"BRA", 1}};
    struct gc_sass_result r = check(&s, e, 3);
    assert_true(r.ok);
    assert_int_equal(r.ncontrol, 0);
    assert_non_null(strstr(r.report, "loop control not identified"));
    free(r.report);
    gc__sass_free(&s);
}

/* Writes an executable shell script standing in for nvdisasm. */
static void write_tool(const char *path, const char *body)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    assert_int_equal(chmod(path, 0755), 0);
}

/* The disassembler path: tool lookup through GPUCHAR_NVDISASM, the CUBIN in
 * a temporary file given as the last argument, the output read back, a
 * failing tool reported with its output. */
static void test_disasm_tool(void **state)
{
    char dir[] = "/tmp/gc-sass-test-XXXXXX";
    char tool[256], golden[1024], body[2048], err[2048], path[256];
    static const char cubin[] = "\177ELF fake cubin";
    char *text = NULL;
    struct gc_sass s;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(tool, sizeof(tool), "%s/nvdisasm", dir);
    snprintf(golden, sizeof(golden), "%s/sass/loop_ffma.sass", GC_GOLDEN_DIR);
    /* It checks its options and input, as nvdisasm would read the file. */
    snprintf(body, sizeof(body),
             "[ \"$1\" = --print-code ] || exit 3\n"
             "[ \"$(head -c 4 \"$2\" | tail -c 3)\" = ELF ] || exit 4\n"
             "cat '%s'",
             golden);
    write_tool(tool, body);
    setenv("GPUCHAR_NVDISASM", tool, 1);
    assert_int_equal(gc__sass_tool(path, sizeof(path), err, sizeof(err)), 0);
    assert_string_equal(path, tool);
    assert_int_equal(gc__sass_disasm(cubin, sizeof(cubin), &text, err, sizeof(err)), 0);
    assert_non_null(text);
    assert_int_equal(gc__sass_parse(text, &s), 0);
    free(text);
    struct gc_sass_expect e[] = {{"FFMA", 64}};
    struct gc_sass_result r = check(&s, e, 1);
    assert_true(r.ok);
    free(r.report);
    gc__sass_free(&s);

    /* A failing tool: its status and output make the error. */
    write_tool(tool, "echo 'nvdisasm fatal : not a cubin'; exit 2");
    assert_int_equal(gc__sass_disasm(cubin, sizeof(cubin), &text, err, sizeof(err)), GC_EIO);
    assert_null(text);
    assert_non_null(strstr(err, "not a cubin"));
    assert_non_null(strstr(err, "status 2"));

    /* A tool that is not there. */
    assert_int_equal(unlink(tool), 0);
    assert_int_equal(gc__sass_tool(path, sizeof(path), err, sizeof(err)), GC_ENOLIB);
    assert_non_null(strstr(err, "GPUCHAR_NVDISASM"));
    assert_int_equal(gc__sass_disasm(cubin, sizeof(cubin), &text, err, sizeof(err)), GC_ENOLIB);
    unsetenv("GPUCHAR_NVDISASM");
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_rules),
        cmocka_unit_test(test_single_loop),
        cmocka_unit_test(test_nested_loops),
        cmocka_unit_test(test_no_loop),
        cmocka_unit_test(test_cuobjdump_format),
        cmocka_unit_test(test_large_unrolled_loop),
        cmocka_unit_test(test_empty_and_invalid),
        cmocka_unit_test(test_disasm_tool),
        cmocka_unit_test(test_expressions),
        cmocka_unit_test(test_alternatives),
        cmocka_unit_test(test_move_idiom),
        cmocka_unit_test(test_per_arch),
        cmocka_unit_test(test_packed),
        cmocka_unit_test(test_loop_control),
        cmocka_unit_test(test_spin_loops),
        cmocka_unit_test(test_control_not_identified),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
