/* SASS inspection (see sass.h): parse disassembler text into functions of
 * instructions, find loops from backward branches, count opcodes. */
#include "support/sass.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuchar/gpuchar.h"
#include "kgen/kgen.h"

/* Opcodes shown in a report's histogram. */
#define TOP_OPCODES 10

/* ---- Parsing ----------------------------------------------------------- */

/* A label or a branch target still to resolve within the current function. */
struct label {
    char name[128];
    int index; /* labels: the instruction that follows; refs: the branch */
    unsigned addr;
    bool by_addr; /* refs: the target is a hex address (cuobjdump) */
};

struct labels {
    struct label *v;
    int n, cap;
};

static int labels_add(struct labels *l, const char *name, size_t namelen, int index)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        struct label *v = realloc(l->v, (size_t)cap * sizeof(*v));

        if (!v)
            return GC_ENOMEM;
        l->v = v;
        l->cap = cap;
    }
    struct label *x = &l->v[l->n++];
    memset(x, 0, sizeof(*x));
    if (namelen >= sizeof(x->name))
        namelen = sizeof(x->name) - 1;
    memcpy(x->name, name, namelen);
    x->index = index;
    return 0;
}

/* The parser's state between lines. */
struct parser {
    struct gc_sass *s;
    struct gc_sass_func *cur; /* function receiving instructions; NULL outside code */
    bool headers;             /* a section or function header was seen */
    struct labels labels, refs;
};

static int func_begin(struct parser *p, const char *name, size_t namelen);

/* Resolves the current function's branch targets, then forgets its labels. */
static void func_end(struct parser *p)
{
    struct gc_sass_func *f = p->cur;

    for (int r = 0; f && r < p->refs.n; r++) {
        const struct label *ref = &p->refs.v[r];
        int t = -1;

        if (ref->by_addr) {
            /* Addresses ascend through a function: a binary search. */
            int lo = 0, hi = f->n - 1;

            while (lo <= hi) {
                int mid = lo + (hi - lo) / 2;

                if (f->insn[mid].addr == ref->addr) {
                    t = mid;
                    break;
                }
                if (f->insn[mid].addr < ref->addr)
                    lo = mid + 1;
                else
                    hi = mid - 1;
            }
        } else {
            for (int l = 0; l < p->labels.n; l++)
                if (strcmp(p->labels.v[l].name, ref->name) == 0) {
                    t = p->labels.v[l].index;
                    break;
                }
        }
        /* A label after the last instruction is the end of the function. */
        f->insn[ref->index].target = t >= 0 && t < f->n ? t : -1;
    }
    p->labels.n = 0;
    p->refs.n = 0;
    p->cur = NULL;
}

static int func_begin(struct parser *p, const char *name, size_t namelen)
{
    struct gc_sass *s = p->s;
    struct gc_sass_func *v, *f;

    func_end(p);
    v = realloc(s->fn, (size_t)(s->nfn + 1) * sizeof(*v));
    if (!v)
        return GC_ENOMEM;
    s->fn = v;
    f = &s->fn[s->nfn++];
    memset(f, 0, sizeof(*f));
    if (namelen >= sizeof(f->name))
        namelen = sizeof(f->name) - 1;
    memcpy(f->name, name, namelen);
    p->cur = f;
    p->headers = true;
    return 0;
}

static const char *skip_space(const char *c, const char *end)
{
    while (c < end && isspace((unsigned char)*c))
        c++;
    return c;
}

/* Records the target of a branch whose operands are ops[0..n). */
static int branch_target(struct parser *p, int index, const char *ops, size_t n)
{
    const char *end = ops + n;
    const char *q = memchr(ops, '`', n);
    int rc;

    /* nvdisasm: `(.L_x_3); the name ends at the parenthesis. */
    if (q && q + 1 < end && q[1] == '(') {
        const char *name = q + 2;
        const char *close = memchr(name, ')', (size_t)(end - name));

        if (!close)
            return 0;
        return labels_add(&p->refs, name, (size_t)(close - name), index);
    }
    /* cuobjdump: the last operand is an absolute offset, 0x... */
    const char *hex = NULL;
    for (const char *c = ops; c + 1 < end; c++)
        if (c[0] == '0' && c[1] == 'x' && (c == ops || !isalnum((unsigned char)c[-1])))
            hex = c;
    if (!hex)
        return 0;
    rc = labels_add(&p->refs, "", 0, index);
    if (rc)
        return rc;
    p->refs.v[p->refs.n - 1].addr = (unsigned)strtoul(hex, NULL, 16);
    p->refs.v[p->refs.n - 1].by_addr = true;
    return 0;
}

/* Parses "ADDR*" followed by an instruction (c points just after the opening
 * slash-star, end at the line's end). Lines that are not instructions are
 * ignored. */
static int parse_insn(struct parser *p, const char *c, const char *end)
{
    struct gc_sass_func *f;
    struct gc_sass_insn *in;
    const char *stop, *tok, *op;
    unsigned long addr;
    char *after;
    size_t n;

    if (c >= end || !isxdigit((unsigned char)*c))
        return 0;
    errno = 0;
    addr = strtoul(c, &after, 16);
    if (errno || after + 1 >= end || after[0] != '*' || after[1] != '/')
        return 0;
    c = skip_space(after + 2, end);
    /* The dual-issue braces of older architectures. */
    if (c < end && *c == '{')
        c = skip_space(c + 1, end);
    /* Data directives (.byte, .word) of non-code sections and empty lines. */
    if (c >= end || *c == '.' || *c == '/' || *c == '}')
        return 0;
    if (!p->cur) {
        /* Instructions outside any header: one anonymous function. */
        if (p->headers)
            return 0;
        int rc = func_begin(p, "(anonymous)", 11);
        if (rc)
            return rc;
    }
    /* The statement ends at ';' (cuobjdump then prints the encoding). */
    stop = memchr(c, ';', (size_t)(end - c));
    if (!stop) {
        const char *cm = memmem(c, (size_t)(end - c), "/*", 2);

        stop = cm ? cm : end;
    }
    tok = c;
    while (c < stop && !isspace((unsigned char)*c))
        c++;
    bool never = false, neg = false;
    const char *guard = NULL;
    size_t guardlen = 0;
    if (*tok == '@') {
        never = (size_t)(c - tok) == 4 && memcmp(tok, "@!PT", 4) == 0;
        neg = c - tok > 1 && tok[1] == '!';
        guard = tok + (neg ? 2 : 1);
        guardlen = (size_t)(c - guard);
        c = skip_space(c, stop);
        tok = c;
        while (c < stop && !isspace((unsigned char)*c))
            c++;
    }
    op = tok;
    n = (size_t)(c - op);
    while (n > 0 && op[n - 1] == '}')
        n--;
    if (n == 0)
        return 0;
    f = p->cur;
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 256;
        struct gc_sass_insn *v = realloc(f->insn, (size_t)cap * sizeof(*v));

        if (!v)
            return GC_ENOMEM;
        f->insn = v;
        f->cap = cap;
    }
    in = &f->insn[f->n];
    memset(in, 0, sizeof(*in));
    in->addr = (unsigned)addr;
    if (n >= sizeof(in->op))
        n = sizeof(in->op) - 1;
    memcpy(in->op, op, n);
    /* The operands, for the loop-control analysis; an always-true guard
     * (@PT) is no guard. */
    {
        const char *a = skip_space(c, stop), *ae = stop;

        while (ae > a && isspace((unsigned char)ae[-1]))
            ae--;
        size_t an = (size_t)(ae - a);
        if (an >= sizeof(in->args))
            an = sizeof(in->args) - 1;
        memcpy(in->args, a, an);
    }
    /* ptxas moves an immediate into a register with an HFMA2.MMA of zeros
     * plus the immediate ("HFMA2.MMA R5, -RZ, RZ, 1.875, 0"): a move, not
     * packed fp16 work, so it is counted as MOV. */
    if (gc__sass_match("HFMA2", in->op)) {
        const char *comma = strchr(in->args, ',');

        if (comma && strncmp(comma, ", -RZ, RZ, ", 11) == 0)
            snprintf(in->op, sizeof(in->op), "MOV");
    }
    if (guard && guardlen < sizeof(in->guard) && !(guardlen == 2 && memcmp(guard, "PT", 2) == 0)) {
        memcpy(in->guard, guard, guardlen);
        in->guard_neg = neg;
    }
    in->never = never;
    in->target = -1;
    /* Labels seen since the last instruction name this one. */
    for (int l = p->labels.n - 1; l >= 0 && p->labels.v[l].index < 0; l--)
        p->labels.v[l].index = f->n;
    f->n++;
    /* sm_80 code leaves a loop with a predicated CALL.REL.NOINC to the
     * loop's exit (a jump that pushes no return address). */
    if (gc__sass_match("BRA", in->op) || gc__sass_match("CALL.REL.NOINC", in->op))
        return branch_target(p, f->n - 1, c, (size_t)(stop - c));
    return 0;
}

/* One line of disassembler output, without its newline. */
static int parse_line(struct parser *p, const char *c, const char *end)
{
    static const char func_hdr[] = "Function : ";
    const char *h;

    c = skip_space(c, end);
    while (end > c && isspace((unsigned char)end[-1]))
        end--;
    if (c == end)
        return 0;
    if (end - c > 2 && c[0] == '/' && c[1] == '*')
        return parse_insn(p, c + 2, end);
    if (end - c > 8 && memcmp(c, ".section", 8) == 0 && isspace((unsigned char)c[8])) {
        const char *name = skip_space(c + 8, end), *e = name;

        while (e < end && *e != ',' && !isspace((unsigned char)*e))
            e++;
        if (e - name > 6 && memcmp(name, ".text.", 6) == 0)
            return func_begin(p, name + 6, (size_t)(e - name - 6));
        func_end(p);
        p->headers = true;
        return 0;
    }
    /* Searches within the line only: strstr would scan the rest of the text
     * for each line. */
    h = memmem(c, (size_t)(end - c), func_hdr, sizeof(func_hdr) - 1);
    if (h) {
        const char *name = h + sizeof(func_hdr) - 1;

        return func_begin(p, name, (size_t)(end - name));
    }
    /* A label: one word ending with ':' ("/" excludes "//" comments). */
    if (end[-1] == ':' && *c != '/') {
        for (const char *q = c; q < end - 1; q++)
            if (isspace((unsigned char)*q))
                return 0;
        if (!p->cur)
            return 0;
        return labels_add(&p->labels, c, (size_t)(end - 1 - c), -1);
    }
    return 0;
}

int gc__sass_parse(const char *text, struct gc_sass *out)
{
    struct parser p;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    memset(&p, 0, sizeof(p));
    p.s = out;
    for (const char *c = text ? text : ""; *c && rc == 0;) {
        const char *nl = strchr(c, '\n');
        const char *end = nl ? nl : c + strlen(c);

        rc = parse_line(&p, c, end);
        c = nl ? nl + 1 : end;
    }
    if (rc == 0)
        func_end(&p);
    free(p.labels.v);
    free(p.refs.v);
    if (rc)
        gc__sass_free(out);
    return rc;
}

void gc__sass_free(struct gc_sass *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nfn; i++)
        free(s->fn[i].insn);
    free(s->fn);
    s->fn = NULL;
    s->nfn = 0;
}

/* ---- Expectation expressions -------------------------------------------- */

/* Alternatives one expression may name. */
#define MAX_TERMS 8

struct term {
    const char *mn; /* not NUL-terminated: len characters */
    size_t len;
    int pack; /* operations one instruction may carry (1: exactly one) */
};

struct expr {
    bool arch;  /* an architecture prefix restricts it to lo..hi */
    int lo, hi; /* compute capabilities it applies to, inclusive */
    struct term t[MAX_TERMS];
    int nt;
};

static bool mnemonic_char(char c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '_';
}

/* Reads a decimal number of 1-3 digits at *c; advances past it. */
static int number(const char **c, int *v)
{
    int n = 0, x = 0;

    while (isdigit((unsigned char)**c) && n < 3) {
        x = 10 * x + (**c - '0');
        (*c)++;
        n++;
    }
    if (n == 0 || isdigit((unsigned char)**c))
        return GC_EINVAL;
    *v = x;
    return 0;
}

/* Parses "[sm_A[+|-B]:]TERM[/K](|TERM[/K])*" (see bench.h). */
static int expr_parse(const char *s, struct expr *x)
{
    const char *c = s, *colon;

    memset(x, 0, sizeof(*x));
    x->lo = 0;
    x->hi = INT_MAX;
    if (!s || !*s)
        return GC_EINVAL;
    colon = strchr(s, ':');
    if (colon) {
        if (strncmp(c, "sm_", 3) != 0)
            return GC_EINVAL;
        x->arch = true;
        c += 3;
        if (number(&c, &x->lo))
            return GC_EINVAL;
        if (*c == '+') {
            c++;
        } else if (*c == '-') {
            c++;
            if (number(&c, &x->hi) || x->hi < x->lo)
                return GC_EINVAL;
        } else {
            x->hi = x->lo;
        }
        if (c != colon)
            return GC_EINVAL;
        c++;
    }
    for (;;) {
        struct term *t;

        if (x->nt == MAX_TERMS || !isupper((unsigned char)*c))
            return GC_EINVAL;
        t = &x->t[x->nt++];
        t->mn = c;
        while (mnemonic_char(*c))
            c++;
        t->len = (size_t)(c - t->mn);
        t->pack = 1;
        if (t->mn[t->len - 1] == '.')
            return GC_EINVAL;
        if (*c == '/') {
            c++;
            if (!isdigit((unsigned char)*c) || *c == '0' || isdigit((unsigned char)c[1]))
                return GC_EINVAL;
            t->pack = *c++ - '0';
        }
        if (*c == '\0')
            return 0;
        if (*c++ != '|')
            return GC_EINVAL;
    }
}

static bool term_match(const struct term *t, const char *opcode)
{
    if (strncmp(t->mn, opcode, t->len) != 0)
        return false;
    return opcode[t->len] == '\0' || opcode[t->len] == '.';
}

/* The first term matching opcode, or -1. */
static int expr_match(const struct expr *x, const char *opcode)
{
    for (int i = 0; i < x->nt; i++)
        if (term_match(&x->t[i], opcode))
            return i;
    return -1;
}

static bool expr_applies(const struct expr *x, int cc)
{
    return !x->arch || (cc > 0 && cc >= x->lo && cc <= x->hi);
}

bool gc__sass_expect_valid(const char *expr)
{
    struct expr x;

    return expr_parse(expr, &x) == 0;
}

bool gc__sass_expect_applies(const char *expr, int cc)
{
    struct expr x;

    return expr_parse(expr, &x) == 0 && expr_applies(&x, cc);
}

/* ---- Loops and counts -------------------------------------------------- */

bool gc__sass_match(const char *mnemonic, const char *opcode)
{
    size_t n = strlen(mnemonic);

    if (n == 0 || strncmp(mnemonic, opcode, n) != 0)
        return false;
    return opcode[n] == '\0' || opcode[n] == '.';
}

static int cmp_loop(const void *a, const void *b)
{
    const struct gc_sass_loop *x = a, *y = b;

    if (x->fn != y->fn)
        return x->fn < y->fn ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

int gc__sass_loops(const struct gc_sass *s, struct gc_sass_loop **out, int *n)
{
    struct gc_sass_loop *v = NULL;
    int cnt = 0, cap = 0;

    *out = NULL;
    *n = 0;
    for (int fi = 0; fi < s->nfn; fi++) {
        const struct gc_sass_func *f = &s->fn[fi];

        for (int i = 0; i < f->n; i++) {
            int t = f->insn[i].target;
            int k;

            if (t < 0 || t >= i || f->insn[i].never || !gc__sass_match("BRA", f->insn[i].op))
                continue;
            for (k = 0; k < cnt; k++)
                if (v[k].fn == fi && v[k].first == t)
                    break;
            if (k < cnt) {
                v[k].last = i; /* branches are visited in code order */
                continue;
            }
            if (cnt == cap) {
                int nc = cap ? 2 * cap : 16;
                struct gc_sass_loop *nv = realloc(v, (size_t)nc * sizeof(*nv));

                if (!nv) {
                    free(v);
                    return GC_ENOMEM;
                }
                v = nv;
                cap = nc;
            }
            v[cnt++] = (struct gc_sass_loop){.fn = fi, .first = t, .last = i};
        }
    }
    /* Outer loops first: heads in code order. */
    if (cnt > 1)
        qsort(v, (size_t)cnt, sizeof(*v), cmp_loop);
    *out = v;
    *n = cnt;
    return 0;
}

/* Counts per term over the range (loop, or every function), leaving out the
 * instructions listed in skip (indexes in loop->fn, ascending). Returns the
 * total. */
static int expr_count(const struct gc_sass *s, const struct gc_sass_loop *loop,
                      const struct expr *x, const int *skip, int nskip, int per_term[MAX_TERMS])
{
    int total = 0;

    if (per_term)
        memset(per_term, 0, MAX_TERMS * sizeof(*per_term));
    for (int fi = 0; fi < s->nfn; fi++) {
        const struct gc_sass_func *f = &s->fn[fi];
        int first = 0, last = f->n - 1, k = 0;

        if (loop) {
            if (loop->fn != fi)
                continue;
            first = loop->first;
            last = loop->last;
        }
        for (int i = first; i <= last; i++) {
            int t;

            while (k < nskip && skip[k] < i)
                k++;
            if (f->insn[i].never || (k < nskip && skip[k] == i))
                continue;
            t = expr_match(x, f->insn[i].op);
            if (t < 0)
                continue;
            total++;
            if (per_term)
                per_term[t]++;
        }
    }
    return total;
}

int gc__sass_count(const struct gc_sass *s, const struct gc_sass_loop *loop, const char *mnemonic)
{
    struct expr x;

    if (expr_parse(mnemonic, &x))
        return GC_EINVAL;
    return expr_count(s, loop, &x, NULL, 0, NULL);
}

/* ---- Loop control ------------------------------------------------------- */

/* Registers an instruction writes or reads. */
#define MAX_REGS 24

struct regs {
    char r[MAX_REGS][8];
    int n;
};

static void regs_add(struct regs *v, const char *name, size_t n)
{
    if (v->n == MAX_REGS || n >= sizeof(v->r[0]))
        return;
    memcpy(v->r[v->n], name, n);
    v->r[v->n][n] = '\0';
    v->n++;
}

static bool regs_has(const struct regs *v, const char *name)
{
    for (int i = 0; i < v->n; i++)
        if (strcmp(v->r[i], name) == 0)
            return true;
    return false;
}

/* Whether id[0..n) names a register whose value flows: R7, UR4, P0, UP1
 * (RZ, URZ, PT and UPT are constants). */
static bool is_reg(const char *id, size_t n)
{
    size_t p = id[0] == 'U' ? 1 : 0;

    if (n < p + 2 || (id[p] != 'R' && id[p] != 'P'))
        return false;
    for (size_t i = p + 1; i < n; i++)
        if (!isdigit((unsigned char)id[i]))
            return false;
    return true;
}

static bool is_pred(const char *id, size_t n)
{
    size_t p = n > 0 && id[0] == 'U' ? 1 : 0;

    return n > p && id[p] == 'P';
}

/* Whether an operand is a register or a predicate alone (the constants RZ,
 * URZ, PT and UPT included), without negation, modifier or address; *pred
 * tells whether it is a predicate. */
static bool bare(const char *op, size_t n, bool *pred)
{
    bool zero = (n == 2 && memcmp(op, "RZ", 2) == 0) || (n == 3 && memcmp(op, "URZ", 3) == 0);
    bool always = (n == 2 && memcmp(op, "PT", 2) == 0) || (n == 3 && memcmp(op, "UPT", 3) == 0);

    *pred = always || (is_reg(op, n) && is_pred(op, n));
    return zero || always || is_reg(op, n);
}

/* Splits an instruction's operands into the registers it writes (the
 * destination: the first operand, then the predicates that follow it, e.g.
 * the carry of IADD3 R4, P0, ...; with a predicate first, as in ISETP and
 * PLOP3, the first two operands) and those it reads (every other register
 * named, in addresses too, and the guard). */
static void insn_regs(const struct gc_sass_insn *in, struct regs *dst, struct regs *src)
{
    const char *c = in->args;
    bool pred_first = false, dst_open = true;

    dst->n = 0;
    src->n = 0;
    if (in->guard[0] && is_reg(in->guard, strlen(in->guard)))
        regs_add(src, in->guard, strlen(in->guard));
    for (int k = 0; *c; k++) {
        const char *end = strchr(c, ',');
        const char *a = c, *e;
        bool pred = false, is_dst = false;

        if (!end)
            end = c + strlen(c);
        while (a < end && isspace((unsigned char)*a))
            a++;
        e = end;
        while (e > a && isspace((unsigned char)e[-1]))
            e--;
        if (bare(a, (size_t)(e - a), &pred)) {
            if (k == 0) {
                is_dst = true;
                pred_first = pred;
            } else if (dst_open && pred && (!pred_first || k == 1)) {
                is_dst = true;
            }
        }
        if (!is_dst)
            dst_open = false;
        /* Every identifier of the operand that names a register. */
        for (const char *q = a; q < e;) {
            const char *id = q;

            if (!isalnum((unsigned char)*q) && *q != '_') {
                q++;
                continue;
            }
            while (q < e && (isalnum((unsigned char)*q) || *q == '_'))
                q++;
            if (is_reg(id, (size_t)(q - id)))
                regs_add(is_dst ? dst : src, id, (size_t)(q - id));
        }
        c = *end ? end + 1 : end;
        if (pred_first && k >= 1)
            dst_open = false;
    }
}

/* Opcodes a trip counter is made of: integer and predicate ALU work. */
static bool counter_op(const char *op)
{
    static const char *const ok[] = {
        "IADD3", "IADD",   "IADD32I", "VIADD", "IMAD",   "UIADD3", "UIMAD",  "ISETP",  "UISETP",
        "PLOP3", "UPLOP3", "LOP3",    "ULOP3", "LEA",    "ULEA",   "SHF",    "USHF",   "SEL",
        "USEL",  "MOV",    "UMOV",    "IMNMX", "VIMNMX", "R2UR",   "ISCADD", "IMAD32I"};

    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        if (gc__sass_match(ok[i], op))
            return true;
    return false;
}

/* The instruction of the loop that last wrote reg before position pos in
 * execution order: scanning back from pos to the head, then from the loop's
 * end back to pos (a value carried from the previous trip, pos itself last:
 * an update of a register from itself). -1 when the loop never writes reg. */
static int reaching_def(const struct gc_sass_func *f, const struct gc_sass_loop *loop,
                        const char *reg, int pos)
{
    struct regs d, u;

    for (int step = 0, j = pos - 1; step <= loop->last - loop->first; step++, j--) {
        if (j < loop->first)
            j = loop->last;
        if (f->insn[j].never)
            continue;
        insn_regs(&f->insn[j], &d, &u);
        if (regs_has(&d, reg))
            return j;
    }
    return -1;
}

/* The predicate a branch depends on (@P0 BRA, or BRA.U !UP0, target), or
 * NULL for an unconditional branch. */
static const char *branch_pred(const struct gc_sass_insn *in, char *buf, size_t len)
{
    const char *a = in->args;
    size_t n = 0;

    if (in->guard[0])
        return in->guard;
    if (*a == '!')
        a++;
    while (isalnum((unsigned char)a[n]))
        n++;
    if (n == 0 || n >= len || !is_reg(a, n) || !is_pred(a, n))
        return NULL;
    memcpy(buf, a, n);
    buf[n] = '\0';
    return buf;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return x < y ? -1 : x > y;
}

int gc__sass_loop_control(const struct gc_sass *s, const struct gc_sass_loop *loop,
                          const struct gc_sass_loop *loops, int nloops,
                          int idx[GC_SASS_MAX_CONTROL])
{
    const struct gc_sass_func *f;
    struct {
        char reg[8];
        int pos;
    } work[4 * GC_SASS_MAX_CONTROL];
    int nwork = 0, n = 0, exit_br = -1;
    const char *p;
    char buf[8];

    if (!s || !loop || loop->fn < 0 || loop->fn >= s->nfn)
        return 0;
    f = &s->fn[loop->fn];
    idx[n++] = loop->last;
    p = branch_pred(&f->insn[loop->last], buf, sizeof(buf));
    if (!p) {
        /* An unconditional back branch: the loop leaves through one
         * conditional branch out of it. */
        for (int i = loop->first; i < loop->last; i++) {
            const struct gc_sass_insn *in = &f->insn[i];

            if (in->target < 0 || (in->target >= loop->first && in->target <= loop->last) ||
                in->never)
                continue;
            if (exit_br >= 0)
                return 0;
            exit_br = i;
        }
        if (exit_br < 0 || !(p = branch_pred(&f->insn[exit_br], buf, sizeof(buf))))
            return 0;
        idx[n++] = exit_br;
    }
    snprintf(work[0].reg, sizeof(work[0].reg), "%s", p);
    work[0].pos = exit_br >= 0 ? exit_br : loop->last;
    nwork = 1;
    while (nwork > 0) {
        int pos = work[nwork - 1].pos, j, k;
        char reg[8];
        struct regs d, u;

        snprintf(reg, sizeof(reg), "%s", work[nwork - 1].reg);
        nwork--;
        j = reaching_def(f, loop, reg, pos);
        if (j < 0)
            continue; /* invariant in the loop */
        for (k = 0; k < n && idx[k] != j; k++)
            ;
        if (k < n)
            continue;
        insn_regs(&f->insn[j], &d, &u);
        /* A kernel argument reloaded in the loop (LDC R5, c[0x0][0x218])
         * is a bound, not data. */
        bool bound =
            (gc__sass_match("LDC", f->insn[j].op) || gc__sass_match("ULDC", f->insn[j].op)) &&
            u.n == 0;
        if (n == GC_SASS_MAX_CONTROL || !(counter_op(f->insn[j].op) || bound))
            return 0;
        for (int l = 0; l < nloops; l++) {
            const struct gc_sass_loop *o = &loops[l];

            if (o->fn == loop->fn && o->first >= loop->first && o->last <= loop->last &&
                !(o->first == loop->first && o->last == loop->last) && j >= o->first &&
                j <= o->last)
                return 0;
        }
        idx[n++] = j;
        for (int r = 0; r < u.n; r++) {
            if (nwork == (int)(sizeof(work) / sizeof(work[0])))
                return 0;
            snprintf(work[nwork].reg, sizeof(work[nwork].reg), "%s", u.r[r]);
            work[nwork].pos = j;
            nwork++;
        }
    }
    qsort(idx, (size_t)n, sizeof(*idx), cmp_int);
    return n;
}

/* ---- The check ---------------------------------------------------------- */

struct opcount {
    const char *op;
    int n;
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_count(const void *a, const void *b)
{
    const struct opcount *x = a, *y = b;

    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return strcmp(x->op, y->op);
}

/* Appends "N instructions; top opcodes: A n, B m, ..." for the range. */
static int histogram(struct gc_sbuf *b, const struct gc_sass *s, const struct gc_sass_loop *loop)
{
    const char **ops = NULL;
    struct opcount *runs = NULL;
    int n = 0, total = 0, nr = 0;

    for (int fi = 0; fi < s->nfn; fi++)
        if (!loop || loop->fn == fi)
            total += loop ? loop->last - loop->first + 1 : s->fn[fi].n;
    ops = malloc((size_t)(total ? total : 1) * sizeof(*ops));
    runs = malloc((size_t)(total ? total : 1) * sizeof(*runs));
    if (!ops || !runs) {
        free(ops);
        free(runs);
        return GC_ENOMEM;
    }
    for (int fi = 0; fi < s->nfn; fi++) {
        const struct gc_sass_func *f = &s->fn[fi];
        int first = loop ? loop->first : 0, last = loop ? loop->last : f->n - 1;

        if (loop && loop->fn != fi)
            continue;
        for (int i = first; i <= last; i++)
            if (!f->insn[i].never)
                ops[n++] = f->insn[i].op;
    }
    qsort(ops, (size_t)n, sizeof(*ops), cmp_str);
    for (int i = 0; i < n; i++) {
        if (nr > 0 && strcmp(runs[nr - 1].op, ops[i]) == 0)
            runs[nr - 1].n++;
        else
            runs[nr++] = (struct opcount){ops[i], 1};
    }
    qsort(runs, (size_t)nr, sizeof(*runs), cmp_count);
    gc__sbuf_printf(b, "  %d instructions; top opcodes:", n);
    for (int i = 0; i < nr && i < TOP_OPCODES; i++)
        gc__sbuf_printf(b, "%s %s %d", i ? "," : "", runs[i].op, runs[i].n);
    if (nr > TOP_OPCODES)
        gc__sbuf_printf(b, ", ... (%d kinds)", nr);
    gc__sbuf_puts(b, "\n");
    free(ops);
    free(runs);
    return 0;
}

/* Whether found instructions (per term) meet want: exactly want when no
 * term packs; else found <= want <= the most they can carry. */
static bool met(const struct expr *x, const int *per_term, int want)
{
    int lo = 0, hi = 0;

    for (int t = 0; t < x->nt; t++) {
        lo += per_term[t];
        hi += x->t[t].pack * per_term[t];
    }
    return lo <= want && want <= hi;
}

static int max_pack(const struct expr *x)
{
    int k = 1;

    for (int t = 0; t < x->nt; t++)
        if (x->t[t].pack > k)
            k = x->t[t].pack;
    return k;
}

int gc__sass_check(const struct gc_sass *s, const struct gc_sass_expect *e, int ne, int cc,
                   struct gc_sass_result *res)
{
    struct gc_sass_loop *loops = NULL;
    const struct gc_sass_loop *range = NULL;
    struct expr x[GC_SASS_MAX_EXPECT];
    int ctl[GC_SASS_MAX_CONTROL], nctl = 0;
    struct gc_sbuf b;
    int nloops = 0, best = -1, bc = -1, bspan = 0, lead = -1, rc;

    memset(res, 0, sizeof(*res));
    if (!s || ne < 0 || ne > GC_SASS_MAX_EXPECT || (ne > 0 && !e))
        return GC_EINVAL;
    for (int i = 0; i < ne; i++) {
        if (!e[i].mnemonic || expr_parse(e[i].mnemonic, &x[i]) || e[i].per_loop < 0)
            return GC_EINVAL;
        res->applies[i] = expr_applies(&x[i], cc);
        if (res->applies[i] && lead < 0)
            lead = i;
    }
    rc = gc__sass_loops(s, &loops, &nloops);
    if (rc)
        return rc;
    for (int i = 0; i < nloops; i++) {
        int c = 0, span = loops[i].last - loops[i].first;

        if (lead >= 0) {
            nctl = gc__sass_loop_control(s, &loops[i], loops, nloops, ctl);
            c = expr_count(s, &loops[i], &x[lead], ctl, nctl, NULL);
        }
        bool better = c > bc || (c == bc && (c > 0 ? span < bspan : span > bspan));

        if (better) {
            best = i;
            bc = c;
            bspan = span;
        }
    }
    res->nloops = nloops;
    nctl = 0;
    if (best >= 0) {
        res->has_loop = true;
        res->loop = loops[best];
        range = &res->loop;
        nctl = gc__sass_loop_control(s, range, loops, nloops, ctl);
    }
    free(loops);
    res->ncontrol = nctl;
    res->ok = true;
    for (int i = 0; i < ne; i++) {
        int per_term[MAX_TERMS];

        if (!res->applies[i])
            continue;
        res->found[i] = expr_count(s, range, &x[i], ctl, nctl, per_term);
        if (!met(&x[i], per_term, e[i].per_loop))
            res->ok = false;
    }

    gc__sbuf_init(&b);
    if (range) {
        const struct gc_sass_func *f = &s->fn[range->fn];

        gc__sbuf_printf(&b, "timed loop: %s /*%04x*/../*%04x*/ (loop %d of %d; rule: most %s)\n",
                        f->name, f->insn[range->first].addr, f->insn[range->last].addr, best + 1,
                        res->nloops, lead >= 0 ? e[lead].mnemonic : "instructions");
        if (nctl > 0) {
            gc__sbuf_puts(&b, "  loop control, not counted:");
            for (int i = 0; i < nctl; i++)
                gc__sbuf_printf(&b, "%s %s /*%04x*/", i ? "," : "", f->insn[ctl[i]].op,
                                f->insn[ctl[i]].addr);
            gc__sbuf_puts(&b, "\n");
        } else {
            gc__sbuf_puts(&b, "  loop control not identified: every instruction counted\n");
        }
    } else {
        gc__sbuf_printf(&b, "no loop: counted over the whole of %d function%s\n", s->nfn,
                        s->nfn == 1 ? "" : "s");
    }
    for (int i = 0; i < ne; i++) {
        int per_term[MAX_TERMS], k = max_pack(&x[i]);
        bool ok;

        if (!res->applies[i]) {
            gc__sbuf_printf(&b, "  %-24s not for this architecture (sm_%d)\n", e[i].mnemonic, cc);
            continue;
        }
        expr_count(s, range, &x[i], ctl, nctl, per_term);
        ok = met(&x[i], per_term, e[i].per_loop);
        if (k > 1)
            gc__sbuf_printf(
                &b, "  %-24s expected %6d operations (%d..%d instructions)  found %6d  %s\n",
                e[i].mnemonic, e[i].per_loop, (e[i].per_loop + k - 1) / k, e[i].per_loop,
                res->found[i], ok ? "ok" : "MISMATCH");
        else
            gc__sbuf_printf(&b, "  %-24s expected %6d  found %6d  %s\n", e[i].mnemonic,
                            e[i].per_loop, res->found[i], ok ? "ok" : "MISMATCH");
    }
    rc = histogram(&b, s, range);
    res->report = gc__sbuf_take(&b);
    if (rc || !res->report) {
        free(res->report);
        res->report = NULL;
        return GC_ENOMEM;
    }
    return 0;
}

/* ---- The disassembler -------------------------------------------------- */

static bool executable(const char *path)
{
    return access(path, X_OK) == 0;
}

/* Looks for name in dir; writes the path when it is executable. */
static bool in_dir(const char *dir, const char *name, char *path, size_t pathlen)
{
    if (!dir || !*dir)
        return false;
    snprintf(path, pathlen, "%s/%s", dir, name);
    return executable(path);
}

int gc__sass_tool(char *path, size_t pathlen, char *why, size_t whylen)
{
    static const char *const tools[] = {"nvdisasm", "cuobjdump"};
    const char *env = getenv("GPUCHAR_NVDISASM");
    const char *home = getenv("CUDA_HOME");
    const char *pathenv = getenv("PATH");
    char home_bin[512] = "";

    if (env && *env) {
        snprintf(path, pathlen, "%s", env);
        if (executable(path))
            return 0;
        snprintf(why, whylen, "GPUCHAR_NVDISASM=%s is not an executable", env);
        return GC_ENOLIB;
    }
    if (home && *home)
        snprintf(home_bin, sizeof(home_bin), "%s/bin", home);
    for (size_t t = 0; t < 2; t++) {
        if (in_dir(home_bin, tools[t], path, pathlen) ||
            in_dir("/usr/local/cuda/bin", tools[t], path, pathlen))
            return 0;
        for (const char *d = pathenv; d && *d;) {
            const char *colon = strchr(d, ':');
            size_t n = colon ? (size_t)(colon - d) : strlen(d);
            char dir[1024];

            if (n > 0 && n < sizeof(dir)) {
                memcpy(dir, d, n);
                dir[n] = '\0';
                if (in_dir(dir, tools[t], path, pathlen))
                    return 0;
            }
            d = colon ? colon + 1 : d + n;
        }
    }
    snprintf(why, whylen,
             "no SASS disassembler: nvdisasm and cuobjdump are neither in $CUDA_HOME/bin%s, "
             "/usr/local/cuda/bin nor $PATH (set GPUCHAR_NVDISASM to one of them)",
             home && *home ? "" : " (unset)");
    return GC_ENOLIB;
}

/* Whether s can go between single quotes in a shell command. */
static bool quotable(const char *s)
{
    return strchr(s, '\'') == NULL;
}

int gc__sass_disasm(const void *cubin, size_t len, char **text, char *err, size_t errlen)
{
    const char *tmpdir = getenv("TMPDIR");
    char tool[1024], file[1024], *cmd = NULL;
    const char *base;
    FILE *pipe = NULL;
    struct gc_sbuf out;
    char chunk[8192];
    size_t got;
    int fd = -1, rc, status;

    *text = NULL;
    gc__sbuf_init(&out);
    rc = gc__sass_tool(tool, sizeof(tool), err, errlen);
    if (rc)
        return rc;
    if (!tmpdir || !*tmpdir)
        tmpdir = "/tmp";
    snprintf(file, sizeof(file), "%s/gpuchar-sass-XXXXXX", tmpdir);
    fd = mkstemp(file);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create a temporary file in %s: %s", tmpdir, strerror(errno));
        return GC_EIO;
    }
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, (const char *)cubin + off, len - off);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, errlen, "cannot write %s: %s", file, strerror(errno));
            rc = GC_EIO;
            goto out;
        }
        off += (size_t)w;
    }
    close(fd);
    fd = -1;
    if (!quotable(tool) || !quotable(file)) {
        snprintf(err, errlen, "cannot quote the path %s or %s for the shell", tool, file);
        rc = GC_EINVAL;
        goto out;
    }
    /* nvdisasm --print-code prints the code sections only; cuobjdump needs -sass. */
    base = strrchr(tool, '/');
    base = base ? base + 1 : tool;
    size_t cl = strlen(tool) + strlen(file) + 32;
    cmd = malloc(cl);
    if (!cmd) {
        rc = GC_ENOMEM;
        goto out;
    }
    snprintf(cmd, cl, "'%s' %s '%s' 2>&1", tool,
             strstr(base, "cuobjdump") ? "-sass" : "--print-code", file);
    pipe = popen(cmd, "r");
    if (!pipe) {
        snprintf(err, errlen, "cannot run %s: %s", tool, strerror(errno));
        rc = GC_EIO;
        goto out;
    }
    while ((got = fread(chunk, 1, sizeof(chunk) - 1, pipe)) > 0) {
        chunk[got] = '\0';
        gc__sbuf_puts(&out, chunk);
    }
    status = pclose(pipe);
    pipe = NULL;
    if (out.oom) {
        rc = GC_ENOMEM;
        goto out;
    }
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "%s failed (status %d) on a %zu-byte CUBIN: %.1000s", tool,
                 status == -1        ? -1
                 : WIFEXITED(status) ? WEXITSTATUS(status)
                                     : 128,
                 len, out.s ? out.s : "");
        rc = GC_EIO;
        goto out;
    }
    *text = gc__sbuf_take(&out);
    if (!*text)
        rc = GC_ENOMEM;
out:
    if (pipe)
        pclose(pipe);
    if (fd >= 0)
        close(fd);
    unlink(file);
    free(cmd);
    gc__sbuf_free(&out);
    return rc;
}
