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

#include "core/sass.h"
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

/* Checks e and returns the result; the report must name every mnemonic. */
static struct gc_sass_result check(const struct gc_sass *s, const struct gc_sass_expect *e, int ne)
{
    struct gc_sass_result r;

    assert_int_equal(gc__sass_check(s, e, ne, &r), 0);
    assert_non_null(r.report);
    for (int i = 0; i < ne; i++)
        assert_non_null(strstr(r.report, e[i].mnemonic));
    return r;
}

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
    free(loops);
    /* Over the whole function: the loop's 64, FFMA.FTZ and a predicated one. */
    assert_int_equal(gc__sass_count(&s, NULL, "FFMA"), 66);

    struct gc_sass_expect ok[] = {{"FFMA", 64}, {"IADD3", 1}, {"ISETP.NE", 1}, {"BRA", 1}};
    struct gc_sass_result r = check(&s, ok, 4);
    assert_true(r.ok);
    assert_true(r.has_loop);
    assert_int_equal(r.nloops, 1);
    assert_int_equal(r.found[0], 64);
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
    assert_int_equal(gc__sass_check(&s, e, GC_SASS_MAX_EXPECT + 1, &r), GC_EINVAL);
    e[0].mnemonic = NULL;
    assert_int_equal(gc__sass_check(&s, e, 1, &r), GC_EINVAL);
    gc__sass_free(&s);
    /* Text that is not a disassembly holds no function. */
    assert_int_equal(gc__sass_parse("nvdisasm fatal : Input file 'x' is not a cubin\n", &s), 0);
    assert_int_equal(s.nfn, 0);
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
        cmocka_unit_test(test_match_rules),       cmocka_unit_test(test_single_loop),
        cmocka_unit_test(test_nested_loops),      cmocka_unit_test(test_no_loop),
        cmocka_unit_test(test_cuobjdump_format),  cmocka_unit_test(test_large_unrolled_loop),
        cmocka_unit_test(test_empty_and_invalid), cmocka_unit_test(test_disasm_tool),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
