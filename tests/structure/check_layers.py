#!/usr/bin/env python3
"""Checks that the sources import downward only.

The layers, lowest first:

    util     leaf utilities that need only libc (the random generator)
    backend  the devices: CUDA, OpenCL, the null backend
    kgen     kernel source text, nothing else
    core     the engine: devices, measurement, kernel cache, run loop
    model    the analytic models the benchmarks fit (math over results)
    bench    the benchmark descriptions
    report   the output formats
    cli      the command-line tool: the public API only (include/gpuchar/)

A file under src/<layer>/ may include the headers of its own layer and of
the layers below it, and the public headers (gpuchar/...). Calls follow the
same rule: a function defined (with external linkage) in a file of a higher
layer may not be called from a lower one, whatever header declares it. The
reporters read the results tree only: report/ neither includes nor calls
bench/. The command-line
tool may include only the public headers and its own headers (no slash).
Public headers include only each other and system headers. No include, in
src/, include/, tests/ or tools/, may climb with "../". A folder under src/
that is not a known layer fails the check, so that a new layer is placed
here first.

Usage: check_layers.py ROOT        check the tree at ROOT
       check_layers.py --self-test check that each rule catches its breach
"""
import os
import re
import sys
import tempfile

LAYERS = ["util", "backend", "kgen", "core", "model", "bench", "report", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}
# Pairs (layer, lower layer) that may not meet although the ranks allow it:
# the reporters read the results tree only, never the benchmarks.
APART = {("report", "bench")}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
SOURCE_EXT = (".c", ".h")


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    # Comments may mention includes; only directives count.
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    for m in INCLUDE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        yield line, m.group(1), m.group(2)


def code_text(path):
    """The file's text without comments, string and character literals (the
    lines kept, so that positions still give line numbers)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    pattern = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return pattern.sub(lambda m: "\n" * m.group(0).count("\n")
                       if m.group(0).startswith("/") else '""', text)


# A definition at column 0: its return type and name, the parameter list, then
# the body's brace (house style puts it on its own line).
DEFINITION = re.compile(r"^([A-Za-z_][^;{}()=#]*?)\b([A-Za-z_]\w*)\s*\(([^;{}]*?)\)\s*"
                        r"(?:__attribute__\s*\(\(.*?\)\)\s*)?\{", re.M | re.S)
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "_Alignof",
            "alignof", "_Static_assert", "__attribute__", "typeof", "__typeof__"}


def definitions(text):
    """(name, static) of each function the text defines."""
    for m in DEFINITION.finditer(text):
        head = m.group(1)
        if m.group(2) in KEYWORDS or "typedef" in head or "struct" == head.strip():
            continue
        yield m.group(2), bool(re.search(r"\bstatic\b", head))


def calls(text):
    """(line, name) of each call in the text (definitions and keywords too:
    callers filter by the names they know)."""
    for m in CALL.finditer(text):
        if m.group(1) not in KEYWORDS:
            yield text.count("\n", 0, m.start()) + 1, m.group(1)


def src_files(root, ext=(".c",)):
    """Relative paths of the sources under src/ with these endings."""
    out = []
    for dirpath, _, files in os.walk(os.path.join(root, "src")):
        for f in sorted(files):
            if f.endswith(ext):
                out.append(os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/"))
    return sorted(out)


def defined_in(root):
    """{function: file} of the functions with external linkage in src/."""
    where = {}
    for rel in src_files(root):
        for name, static in definitions(code_text(os.path.join(root, rel))):
            if not static:
                where.setdefault(name, rel)
    return where


def check_calls(root, problems):
    """A call from a file of a lower layer to a function a higher one defines."""
    where = defined_in(root)
    for rel in src_files(root):
        layer = rel.split("/")[1]
        if layer not in RANK:
            continue
        text = code_text(os.path.join(root, rel))
        local = {name for name, _ in definitions(text)}
        seen = set()
        for line, name in calls(text):
            home = where.get(name)
            if not home or name in local or name in seen:
                continue
            other = home.split("/")[1]
            if other in RANK and RANK[other] > RANK[layer]:
                seen.add(name)
                problems.append(f"{rel}:{line}: calls {name}() of {home}: {layer} calls "
                                f"into {other}, a higher layer")
            elif (layer, other) in APART:
                seen.add(name)
                problems.append(f"{rel}:{line}: calls {name}() of {home}: {layer} may not "
                                f"use {other}")


def check_file(root, rel, problems):
    parts = rel.split("/")
    path = os.path.join(root, rel)
    for line, kind, name in includes(path):
        close = ">" if kind == "<" else '"'
        where = f"{rel}:{line}: #include {kind}{name}{close}"
        comps = name.split("/")
        if ".." in comps or name.startswith("/"):
            problems.append(f"{where}: climbs out of the include path (use the layer's path)")
            continue
        if parts[0] not in ("src", "include"):
            continue  # tests and tools may use any layer
        first = comps[0]
        project = first == "gpuchar" or first in RANK
        if kind == "<" and not project:
            continue  # a system header
        if parts[0] == "include":
            if first != "gpuchar" and len(comps) > 1:
                problems.append(f"{where}: a public header may include only public headers")
            continue
        layer = parts[1]
        if first == "gpuchar":
            continue
        if len(comps) == 1:
            if not os.path.exists(os.path.join(os.path.dirname(path), name)):
                problems.append(f"{where}: no such header next to the file")
            continue
        if first not in RANK:
            problems.append(f"{where}: '{first}' is not a layer")
            continue
        if layer == "cli" and first != "cli":
            problems.append(f"{where}: the command-line tool uses the public API only")
        elif RANK[first] > RANK[layer]:
            problems.append(f"{where}: {layer} imports from {first}, a higher layer")
        elif (layer, first) in APART:
            problems.append(f"{where}: {layer} may not use {first}")


def check(root):
    problems = []
    src = os.path.join(root, "src")
    for entry in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, entry)) and entry not in RANK:
            problems.append(f"src/{entry}: not a known layer")
    for top in ("src", "include", "tests", "tools"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(SOURCE_EXT):
                    rel = os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")
                    if rel.split("/")[1] in RANK or top != "src":
                        check_file(root, rel, problems)
    check_calls(root, problems)
    return problems


def self_test():
    """Each rule must catch a tree that breaks it, and pass one that keeps it."""
    cases = {
        "src/core/a.c": ('#include "core/b.h"\n#include "kgen/k.h"\n'
                         '#include "util/random.h"\n#include <stdio.h>\n', 0),
        "src/core/up.c": ('#include "bench/bench.h"\n', 1),
        "src/kgen/up.c": ('#include "core/session.h"\n', 1),
        "src/backend/null/up.c": ('#include "core/random.h"\n', 1),
        "src/cli/priv.c": ('#include "cli.h"\n#include "../model/hiding.h"\n', 1),
        "src/cli/inner.c": ('#include "cli.h"\n#include "core/fault.h"\n', 1),
        "src/cli/ok.c": ('#include "cli.h"\n#include <gpuchar/gpuchar.h>\n', 0),
        "src/cli/cli.h": ('#include <gpuchar/gpuchar.h>\n', 0),
        "src/bench/angle.c": ('#include <report/summary.h>\n', 1),
        "src/report/reads_bench.c": ('#include "bench/bench.h"\n#include "core/results.h"\n', 1),
        "src/model/cmt.c": ('/* #include "cli/cli.h" */\n#include "core/results.h"\n', 0),
        "include/gpuchar/x.h": ('#include "gpuchar.h"\n#include "core/results.h"\n', 1),
        "tests/unit/t.c": ('#include "bench/bench.h"\n#include "../../src/core/x.h"\n', 1),
        "src/stray/s.c": ('', 1),
        # Calls: core calling a function the benchmarks define, through a
        # declaration of its own, breaks the rule; the reverse keeps it, and
        # so does a static function of the same name in the lower file.
        "src/core/calls_up.c": ('int gc__bench_x(void);\nint f(void)\n{\n'
                                '    return gc__bench_x();\n}\n', 1),
        "src/core/own_static.c": ('static int gc__bench_x(void)\n{\n    return 1;\n}\n'
                                  'int g(void)\n{\n    return gc__bench_x();\n}\n', 0),
        "src/report/calls_bench.c": ('/* gc__bench_x() in a comment */\n'
                                     'int h(void)\n{\n    return gc__bench_x() + 1;\n}\n', 1),
        "src/cli/calls_down.c": ('int k(void)\n{\n    return gc__bench_x();\n}\n', 0),
    }
    failed = 0
    for rel, (text, want) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            for layer in LAYERS:
                os.makedirs(os.path.join(root, "src", layer), exist_ok=True)
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            if rel.startswith("src/cli/") and rel != "src/cli/cli.h":
                open(os.path.join(root, "src/cli/cli.h"), "w").close()
            with open(os.path.join(root, "src/bench/defines.c"), "w") as f:
                f.write("int gc__bench_x(void)\n{\n    return 0;\n}\n")
            got = len(check(root))
            if got != want:
                print(f"self-test: {rel}: {got} problem(s) found, expected {want}")
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
        print(f"{len(problems)} include(s) or call(s) break the layering")
        return 1
    print("every include and every call points down a layer or stays in it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
