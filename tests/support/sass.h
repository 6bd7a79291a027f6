/* Checking compiled CUDA kernels, for the tests: disassembles a CUBIN with
 * the CUDA toolkit's nvdisasm (or cuobjdump), finds the timed loop in the
 * SASS and counts the instructions a benchmark declared it must contain. */
#ifndef GC_TESTS_SASS_H
#define GC_TESTS_SASS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/benchdef.h"

/* One SASS instruction of a function. */
struct gc_sass_insn {
    unsigned addr;  /* byte offset in the function, as the disassembler prints it */
    char op[64];    /* opcode with its modifiers ("FFMA.FTZ"), without the predicate */
    char args[160]; /* operands as printed ("P0, PT, R8, RZ, PT"), possibly truncated */
    char guard[8];  /* guard predicate ("P0" for @P0 or @!P0); empty when none */
    bool guard_neg; /* the guard is negated (@!P0) */
    bool never;     /* predicated on @!PT: never executes, so never counted */
    int target;     /* BRA, CALL.REL.NOINC: index of the target instruction; else -1 */
};

/* One function (an ELF .text section; for cuobjdump one "Function :"). */
struct gc_sass_func {
    char name[256];
    struct gc_sass_insn *insn;
    int n, cap;
};

struct gc_sass {
    struct gc_sass_func *fn;
    int nfn;
};

/* Parses disassembler output: nvdisasm's (labels, `(.L_x_N) branch targets,
 * .section headers) or cuobjdump -sass's ("Function :" headers, hex branch
 * targets). Lines outside code sections (.nv.info data, encodings, comments)
 * are ignored; text with no section header at all is taken as one function.
 * Returns 0 (out then holds nfn >= 0 functions; free with gc__sass_free) or
 * GC_ENOMEM. */
int gc__sass_parse(const char *text, struct gc_sass *out);
void gc__sass_free(struct gc_sass *s);

/* Whether an expected mnemonic matches an opcode: equal, or a prefix of it
 * that ends where a modifier begins (at a '.'). So "FFMA" matches "FFMA" and
 * "FFMA.FTZ", "MUFU.SIN" matches "MUFU.SIN", "HMMA.16816" matches
 * "HMMA.16816.F32", but "LDG" does not match "LDGSTS" nor "I2F" "I2FP.F32.S32":
 * each of those is another instruction. */
bool gc__sass_match(const char *mnemonic, const char *opcode);

/* Whether an expectation expression (see struct gc_sass_expect in
 * core/benchdef.h: "[sm_90+:]A|B/2") is well formed, and whether it applies
 * to compute capability cc (10 * major + minor; cc <= 0: only expressions
 * without an architecture prefix apply). */
bool gc__sass_expect_valid(const char *expr);
bool gc__sass_expect_applies(const char *expr, int cc);

/* A loop: in function fn, the instructions first..last (indexes, inclusive)
 * from the target of a backward branch to that branch. Several backward
 * branches to one target (continue statements) make one loop that ends at
 * the last of them. A branch to itself (the trap after EXIT) is no loop. */
struct gc_sass_loop {
    int fn;
    int first, last;
};

/* Every loop of every function, by function and then by head in code order
 * (so an outer loop comes before the loops it contains). *out is malloc'ed (NULL when
 * n is 0). Returns 0 or GC_ENOMEM. */
int gc__sass_loops(const struct gc_sass *s, struct gc_sass_loop **out, int *n);

/* Instructions matching an expression's terms within loop, or in every
 * function when loop is NULL; the architecture prefix and packing factors
 * are ignored, every instruction of the range is seen (loop control
 * included). Instructions predicated on @!PT are not counted. Returns the
 * count, or GC_EINVAL for a malformed expression. */
int gc__sass_count(const struct gc_sass *s, const struct gc_sass_loop *loop, const char *mnemonic);

/* The loop's control: its backward branch and the instructions that compute
 * the branch's predicate, found by following the predicate's and then the
 * registers' nearest definitions backwards (around the loop for a value
 * carried from the previous trip). When the backward branch is
 * unconditional, the loop's one conditional exit takes its place: a BRA, or
 * the @!P0 CALL.REL.NOINC out of the loop that sm_80 code uses. The control
 * is identified only when that slice is a trip counter: at most
 * GC_SASS_MAX_CONTROL instructions, each integer or predicate ALU work or a
 * reload of a kernel argument (LDC/ULDC of a fixed constant-bank address),
 * so no other load, store or atomic (a loop that spins on a value from
 * memory is data, not control), none inside a nested loop. Writes their
 * indexes (ascending) to idx and returns how many, or 0 when the control
 * could not be identified (nothing is then excluded). loops/nloops (may be
 * NULL/0) are all loops of s, to recognise nested ones. */
#define GC_SASS_MAX_CONTROL 6
int gc__sass_loop_control(const struct gc_sass *s, const struct gc_sass_loop *loop,
                          const struct gc_sass_loop *loops, int nloops,
                          int idx[GC_SASS_MAX_CONTROL]);

/* The outcome of checking a kernel's expectations. */
struct gc_sass_result {
    bool ok;       /* every applicable expectation met */
    bool has_loop; /* false: no loop anywhere, counted over whole functions */
    struct gc_sass_loop loop;
    int nloops;                       /* loops found in all functions */
    int ncontrol;                     /* loop-control instructions left out of the counts */
    bool applies[GC_SASS_MAX_EXPECT]; /* per expectation: for this architecture */
    int found[GC_SASS_MAX_EXPECT];    /* per expectation: instructions (0 if not applied) */
    char *report;                     /* malloc'ed, multi-line; NULL on GC_ENOMEM */
};

/* Checks e[0..ne) against the timed loop for compute capability cc
 * (10 * major + minor; expectations for other architectures are skipped).
 * The timed loop is the loop holding the most instructions matching the
 * first applicable expectation; among loops holding equally many, the
 * shortest (innermost) one, so that a loop of 8 atomics, each a compare-and-
 * swap spin loop of its own, is timed as the outer loop with its 8. When no
 * loop holds any, the longest loop is shown so that the report lists what
 * the timed loop does contain. With no loop at all, counts run over every
 * function and the report says so. The loop's control
 * (gc__sass_loop_control) is left out of the counts. Every applicable
 * expectation must then match: found == per_loop, or for packed terms
 * found <= per_loop <= K x found. The report lists the loop-control
 * instructions, expected and found per expectation and the loop's most
 * frequent opcodes. Returns 0 (res filled; free res->report) or GC_EINVAL
 * (a malformed expression, ne out of range) / GC_ENOMEM. */
int gc__sass_check(const struct gc_sass *s, const struct gc_sass_expect *e, int ne, int cc,
                   struct gc_sass_result *res);

/* Finds the disassembler: $GPUCHAR_NVDISASM (a path to nvdisasm or
 * cuobjdump), else nvdisasm then cuobjdump in $CUDA_HOME/bin,
 * /usr/local/cuda/bin and $PATH. Writes its path; returns 0 or GC_ENOLIB
 * with why naming the places tried. */
int gc__sass_tool(char *path, size_t pathlen, char *why, size_t whylen);

/* Disassembles a CUBIN: writes it to a temporary file and runs the tool
 * found by gc__sass_tool() on it. *text (malloc'ed) is the tool's output.
 * Returns 0, GC_ENOLIB (no tool), GC_EIO (temporary file, or the tool
 * failed: err holds the start of its output) or GC_ENOMEM. Thread-safe. */
int gc__sass_disasm(const void *cubin, size_t len, char **text, char *err, size_t errlen);

#endif
