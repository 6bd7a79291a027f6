#!/usr/bin/env python3
"""Checks that no function in src/ is longer than 100 lines (house style).

A function is counted from the first line of its signature (a line at column
0 that names it and opens its parameter list) to its closing brace at column
0. A long function is one step too many: split it into static helpers that
each do one step.

ALLOWED lists functions still over the limit (none today), with their
length when listed; each may only shrink. One that grows fails; one that has
shrunk under its entry, or under the limit, is reported so that its entry is
lowered or removed. A new long function belongs split, not on the list.

Usage: check_fnlen.py ROOT        check the tree at ROOT
       check_fnlen.py --self-test check that the rule catches its breach
"""
import os
import re
import sys
import tempfile

LIMIT = 100
# "file:function": lines when listed. Only shrinks; empty since every
# function in src/ was split to 100 lines or fewer.
ALLOWED = {
}
SIGNATURE = re.compile(r"^[a-z].*\(.*[^;]$")
NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def functions(path):
    """Yields (name, lines) for each function defined at column 0 in path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    start, name = None, None
    for i, line in enumerate(lines):
        if SIGNATURE.match(line) and not line.startswith("static const"):
            m = NAME.search(line)
            start, name = i, m.group(1) if m else line[:40]
        elif line.startswith("}") and start is not None:
            yield name, i - start
            start = None


def check(root):
    problems, notes = [], []
    seen = set()
    src = os.path.join(root, "src")
    for dirpath, _, files in sorted(os.walk(src)):
        for fn in sorted(files):
            if not fn.endswith(".c"):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            for name, n in functions(path):
                key = f"{rel}:{name}"
                allowed = ALLOWED.get(key)
                if allowed is not None:
                    seen.add(key)
                if n <= LIMIT:
                    if allowed is not None:
                        notes.append(f"{key}: {n} lines, under the limit now: remove its entry")
                    continue
                if allowed is None:
                    problems.append(f"{key}: {n} lines (limit {LIMIT}): split it into steps")
                elif n > allowed:
                    problems.append(f"{key}: {n} lines, grew past its allowed {allowed}")
                elif n < allowed:
                    notes.append(f"{key}: {n} lines, shrunk from {allowed}: lower its entry")
    for key in sorted(set(ALLOWED) - seen):
        notes.append(f"{key}: not found any more: remove its entry")
    return problems, notes


def self_test():
    """A long function fails, a short one passes, an allowed one may not grow."""
    def body(name, n):
        return f"static int {name}(int a)\n{{\n" + "  a++;\n" * (n - 3) + "  return a;\n}\n"
    cases = [
        ({"src/core/a.c": body("short_one", LIMIT)}, {}, 0),
        ({"src/core/a.c": body("long_one", LIMIT + 1)}, {}, 1),
        ({"src/core/a.c": body("old", LIMIT + 5)}, {"src/core/a.c:old": LIMIT + 5}, 0),
        ({"src/core/a.c": body("old", LIMIT + 6)}, {"src/core/a.c:old": LIMIT + 5}, 1),
        ({"src/core/a.c": "int f(void);\n" + body("ok", 10)
          + "static const int t[] = {\n" + "  1,\n" * 200 + "};\n"}, {}, 0),
    ]
    global ALLOWED
    saved, failed = ALLOWED, 0
    for files, allowed, want in cases:
        ALLOWED = allowed
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                path = os.path.join(root, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            got = len(check(root)[0])
        if got != want:
            print(f"self-test: {sorted(files)} {allowed}: {got} problem(s), expected {want}")
            failed += 1
    ALLOWED = saved
    print(f"self-test: {len(cases) - failed} of {len(cases)} cases right")
    return 1 if failed else 0


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "--self-test":
        return self_test()
    problems, notes = check(sys.argv[1])
    for n in notes:
        print(n)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} function(s) longer than {LIMIT} lines")
        return 1
    print(f"every function in src/ is at most {LIMIT} lines (or shrinking on the allow-list)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
