/* Whether a piece of CUDA kernel text is pure inline PTX on scalar
 * registers: the text an OpenCL compiler that takes inline PTX (NVIDIA's)
 * compiles exactly as CUDA C does (gc__kgen_form). A small scanner of asm
 * statements, not a C parser: anything it does not know makes the answer
 * false. */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "kgen/kgen.h"

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* p at a keyword: the character after it, or NULL when p does not start
 * with the whole word. */
static const char *word(const char *p, const char *w)
{
    size_t n = strlen(w);

    if (strncmp(p, w, n) != 0 || isalnum((unsigned char)p[n]) || p[n] == '_')
        return NULL;
    return p + n;
}

/* p at a double quote: the character after the literal's closing quote
 * (escapes honoured); NULL when it does not close. Its contents, without
 * the quotes, in [*s, *s + *n). */
static const char *string_lit(const char *p, const char **s, size_t *n)
{
    const char *q = p + 1;

    while (*q && *q != '"') {
        if (*q == '\\' && q[1])
            q++;
        q++;
    }
    if (*q != '"')
        return NULL;
    *s = p + 1;
    *n = (size_t)(q - p - 1);
    return q + 1;
}

/* An operand constraint of a scalar register: r (32 bits), l (64), f
 * (fp32), d (fp64), h (16), with an optional + (read-write) or =
 * (written). */
static bool scalar_constraint(const char *s, size_t n)
{
    if (n == 2 && (s[0] == '+' || s[0] == '='))
        s++, n--;
    return n == 1 && strchr("rlfdh", s[0]) != NULL;
}

/* p after "asm" (and "volatile"), at the opening parenthesis: the character
 * after the statement's closing parenthesis, or NULL when an operand is not
 * a scalar register or the statement does not close. Sections: the
 * template, then outputs, inputs and clobbers, separated by colons. */
static const char *asm_body(const char *p)
{
    int depth = 0, section = 0;
    bool templ = false;

    if (*p != '(')
        return NULL;
    for (;;) {
        const char *s;
        size_t n;

        switch (*p) {
        case '\0':
            return NULL;
        case '(':
            depth++;
            p++;
            break;
        case ')':
            p++;
            if (--depth == 0)
                return templ ? p : NULL;
            break;
        case ':':
            if (depth == 1)
                section++;
            p++;
            break;
        case '"':
            if (!(p = string_lit(p, &s, &n)))
                return NULL;
            if (section == 0)
                templ = true;
            else if ((section == 1 || section == 2) && depth == 1 && !scalar_constraint(s, n))
                return NULL;
            break;
        default:
            p++;
        }
    }
}

/* One statement at p: "asm [volatile] (...);" or "(void)name;". The
 * character after it, or NULL. */
static const char *statement(const char *p)
{
    const char *q;

    if ((q = word(p, "asm")) || (q = word(p, "__asm__"))) {
        q = skip_space(q);
        const char *v = word(q, "volatile");
        if (v)
            q = skip_space(v);
        if (!(q = asm_body(q)))
            return NULL;
    } else if (strncmp(p, "(void)", 6) == 0) {
        q = skip_space(p + 6);
        if (!(isalpha((unsigned char)*q) || *q == '_'))
            return NULL;
        while (isalnum((unsigned char)*q) || *q == '_')
            q++;
    } else {
        return NULL;
    }
    q = skip_space(q);
    return *q == ';' ? q + 1 : NULL;
}

bool gc__kgen_pure_ptx(const char *text)
{
    int nasm = 0;

    if (!text)
        return false;
    for (const char *p = skip_space(text); *p; p = skip_space(p)) {
        if (word(p, "asm") || word(p, "__asm__"))
            nasm++;
        if (!(p = statement(p)))
            return false;
    }
    return nasm > 0;
}
