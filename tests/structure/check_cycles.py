#!/usr/bin/env python3
"""Checks that the files of src/ depend on each other without cycles.

File A depends on file B when A includes B (B a header of src/), or when A
is a .c file that calls a function B, another .c file, defines. No chain of
such dependencies may lead from a file back to itself: two .c files that
call each other are one concept split in two (or a step that belongs to
neither), and headers that include each other have no order to be read in.
A cycle is undone by moving the shared declarations and the step both need
to the file of the concept that owns them.

Usage: check_cycles.py ROOT        check the tree at ROOT
       check_cycles.py --self-test check that the rule catches its breach
"""
import os
import sys
import tempfile

from check_layers import INCLUDE, calls, code_text, defined_in, definitions, src_files


def resolve(root, rel, name):
    """The src/ path of an included header; None for others."""
    near = os.path.join(os.path.dirname(rel), name)
    for cand in (near, "src/" + name):
        if os.path.exists(os.path.join(root, cand)):
            return os.path.normpath(cand).replace(os.sep, "/")
    return None


def graph(root):
    """{file: {file: reason}} of src/."""
    where = defined_in(root)
    edges = {}
    for rel in src_files(root, (".c", ".h")):
        out = edges.setdefault(rel, {})
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            raw = f.read()
        for m in INCLUDE.finditer(code_text_keep_includes(raw)):
            dep = resolve(root, rel, m.group(2))
            if dep and dep != rel:
                out.setdefault(dep, f"{rel} includes {dep}")
        if not rel.endswith(".c"):
            continue  # a header's names are declarations, not calls
        text = code_text(os.path.join(root, rel))
        local = {name for name, _ in definitions(text)}
        for line, name in calls(text):
            home = where.get(name)
            if home and name not in local and home != rel:
                out.setdefault(home, f"{rel}:{line} calls {name}() of {home}")
    return edges


def code_text_keep_includes(text):
    """The text with comments removed but string literals kept (the names
    of quoted includes)."""
    import re
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def cycles(edges):
    """The strongly connected components of more than one concept (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        # Iterative, so that deep graphs do not hit the recursion limit.
        work = [(v, iter(sorted(edges.get(v, {}))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, {})))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def check(root):
    edges = graph(root)
    problems = []
    for comp in cycles(edges):
        names = " <-> ".join(c[len("src/"):] for c in comp)
        why = [edges[a][b] for a in comp for b in comp if b in edges.get(a, {})]
        problems.append(f"cycle: {names}\n    " + "\n    ".join(why))
    return problems


def self_test():
    """A cycle through includes, one through calls and one through both must
    be found; a chain and a header shared by its own .c file must not."""
    fn = "int {0}(void)\n{{\n    return {1};\n}}\n"
    cases = {
        "headers": ({"src/core/a.h": '#include "core/b.h"\n',
                     "src/core/b.h": '#include "core/a.h"\n'}, 1),
        "calls": ({"src/bench/x.c": fn.format("gc__x", "gc__y()"),
                   "src/bench/y.c": fn.format("gc__y", "gc__x()")}, 1),
        "three": ({"src/bench/p.c": fn.format("gc__p", "gc__q()"),
                   "src/bench/q.c": fn.format("gc__q", "gc__r()"),
                   "src/bench/r.c": fn.format("gc__r", "gc__p()")}, 1),
        "chain": ({"src/core/m.h": "int gc__m(void);\n",
                   "src/core/m.c": '#include "core/m.h"\n#include "core/n.h"\n' +
                                   fn.format("gc__m", "gc__n()"),
                   "src/core/n.h": "int gc__n(void);\nint gc__m(void);\n",
                   "src/core/n.c": '#include "core/n.h"\n' + fn.format("gc__n", "0")}, 0),
        "static": ({"src/bench/u.c": fn.format("gc__u", "gc__v()"),
                    "src/bench/v.c": "static " + fn.format("gc__u", "1") +
                                     fn.format("gc__v", "gc__u()")}, 0),
        "comment": ({"src/kgen/c.c": "/* gc__d() */\n" + fn.format("gc__c", "0"),
                     "src/kgen/d.c": fn.format("gc__d", "gc__c()")}, 0),
    }
    failed = 0
    for name, (files, want) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w") as f:
                    f.write(text)
            got = len(check(root))
            if got != want:
                print(f"self-test: {name}: {got} cycle(s) found, expected {want}")
                failed += 1
    print(f"self-test: {len(cases) - failed} of {len(cases)} cases right")
    return 1 if failed else 0


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "--self-test":
        return self_test()
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} cycle(s) between the files of src/")
        return 1
    print("no cycle between the files of src/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
