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
the layers below it, and the public headers (gpuchar/...). The command-line
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
        "src/model/cmt.c": ('/* #include "cli/cli.h" */\n#include "core/results.h"\n', 0),
        "include/gpuchar/x.h": ('#include "gpuchar.h"\n#include "core/results.h"\n', 1),
        "tests/unit/t.c": ('#include "bench/bench.h"\n#include "../../src/core/x.h"\n', 1),
        "src/stray/s.c": ('', 1),
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
        print(f"{len(problems)} include(s) break the layering")
        return 1
    print("every include points down a layer or stays in it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
