#!/usr/bin/env python3
"""Checks that a shared libgpuchar exports the public API and nothing else.

Every function declared GC_EXTERN in include/gpuchar/*.h must be a defined
dynamic symbol of the library, and every defined dynamic symbol must be one
of them (names starting with '_' are the linker's own: _init, _edata...).

Usage: check_exports.py NM LIBRARY INCLUDE_DIR
"""
import glob
import os
import re
import subprocess
import sys

DECL = re.compile(r"\bGC_EXTERN\b[^;{]*?\b(gc_\w+)\s*\(", re.S)


def declared(include_dir):
    names = set()
    for path in sorted(glob.glob(os.path.join(include_dir, "gpuchar", "*.h"))):
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
        # The macro's own definition is not a declaration.
        text = re.sub(r"#\s*define\s+GC_EXTERN[^\n]*", "", text)
        names.update(DECL.findall(text))
    return names


def exported(nm, lib):
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True, capture_output=True,
                         text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3 and not fields[2].startswith("_"):
            names.add(fields[2].split("@")[0])
    return names


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    nm, lib, include_dir = sys.argv[1:]
    want = declared(include_dir)
    have = exported(nm, lib)
    if not want:
        print(f"no GC_EXTERN declaration found under {include_dir}")
        return 1
    missing = sorted(want - have)
    extra = sorted(have - want)
    for name in missing:
        print(f"declared in the public headers but not exported: {name}")
    for name in extra:
        print(f"exported but not in the public headers: {name}")
    if missing or extra:
        return 1
    print(f"{os.path.basename(lib)} exports the {len(want)} public functions and nothing else")
    return 0


if __name__ == "__main__":
    sys.exit(main())
