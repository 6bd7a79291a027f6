/* SASS inspection (see sass.h): parse disassembler text into functions of
 * instructions, find loops from backward branches, count opcodes. */
#include "core/sass.h"

#include <ctype.h>
#include <errno.h>
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
    bool never = false;
    if (*tok == '@') {
        never = (size_t)(c - tok) == 4 && memcmp(tok, "@!PT", 4) == 0;
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
    in->never = never;
    in->target = -1;
    /* Labels seen since the last instruction name this one. */
    for (int l = p->labels.n - 1; l >= 0 && p->labels.v[l].index < 0; l--)
        p->labels.v[l].index = f->n;
    f->n++;
    if (gc__sass_match("BRA", in->op))
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

            if (t < 0 || t >= i || f->insn[i].never)
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

int gc__sass_count(const struct gc_sass *s, const struct gc_sass_loop *loop, const char *mnemonic)
{
    int c = 0;

    for (int fi = 0; fi < s->nfn; fi++) {
        const struct gc_sass_func *f = &s->fn[fi];
        int first = 0, last = f->n - 1;

        if (loop) {
            if (loop->fn != fi)
                continue;
            first = loop->first;
            last = loop->last;
        }
        for (int i = first; i <= last; i++)
            if (!f->insn[i].never && gc__sass_match(mnemonic, f->insn[i].op))
                c++;
    }
    return c;
}

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

int gc__sass_check(const struct gc_sass *s, const struct gc_sass_expect *e, int ne,
                   struct gc_sass_result *res)
{
    struct gc_sass_loop *loops = NULL;
    const struct gc_sass_loop *range = NULL;
    struct gc_sbuf b;
    int nloops = 0, best = -1, bc = -1, bspan = 0, rc;

    memset(res, 0, sizeof(*res));
    if (!s || ne < 0 || ne > GC_SASS_MAX_EXPECT || (ne > 0 && !e))
        return GC_EINVAL;
    for (int i = 0; i < ne; i++)
        if (!e[i].mnemonic || !e[i].mnemonic[0])
            return GC_EINVAL;
    rc = gc__sass_loops(s, &loops, &nloops);
    if (rc)
        return rc;
    for (int i = 0; i < nloops; i++) {
        int c = ne > 0 ? gc__sass_count(s, &loops[i], e[0].mnemonic) : 0;
        int span = loops[i].last - loops[i].first;
        bool better = c > bc || (c == bc && (c > 0 ? span < bspan : span > bspan));

        if (better) {
            best = i;
            bc = c;
            bspan = span;
        }
    }
    res->nloops = nloops;
    if (best >= 0) {
        res->has_loop = true;
        res->loop = loops[best];
        range = &res->loop;
    }
    free(loops);
    res->ok = true;
    for (int i = 0; i < ne; i++) {
        res->found[i] = gc__sass_count(s, range, e[i].mnemonic);
        if (res->found[i] != e[i].per_loop)
            res->ok = false;
    }

    gc__sbuf_init(&b);
    if (range) {
        const struct gc_sass_func *f = &s->fn[range->fn];

        gc__sbuf_printf(&b, "timed loop: %s /*%04x*/../*%04x*/ (loop %d of %d; rule: most %s)\n",
                        f->name, f->insn[range->first].addr, f->insn[range->last].addr, best + 1,
                        nloops, ne > 0 ? e[0].mnemonic : "instructions");
    } else {
        gc__sbuf_printf(&b, "no loop: counted over the whole of %d function%s\n", s->nfn,
                        s->nfn == 1 ? "" : "s");
    }
    for (int i = 0; i < ne; i++)
        gc__sbuf_printf(&b, "  %-24s expected %6d  found %6d  %s\n", e[i].mnemonic, e[i].per_loop,
                        res->found[i], res->found[i] == e[i].per_loop ? "ok" : "MISMATCH");
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
