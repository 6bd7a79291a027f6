#!/usr/bin/env python3
"""Lists every metric of gpuchar JSON results (value, unit, limit) and, given
a second file of the same benchmarks, the two side by side with their
relative difference; metrics that moved by more than --tol (default 1%) and
benchmarks whose status or metric set changed are flagged.

    arch-compare.py NEW.json [BASE.json] [--tol 0.01]
"""
import json
import math
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    rows = {}
    status = {}
    for b in d.get("benchmarks", []):
        status[b["name"]] = b.get("status", "?")
        for m in b.get("metrics", []):
            rows[(b["name"], m["name"])] = (m.get("value"), m.get("unit", ""), m.get("limit"))
    return rows, status


def num(v):
    return v is not None and isinstance(v, (int, float)) and math.isfinite(v)


def main(argv):
    tol = 0.01
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--tol":
            tol = float(argv[i + 1])
            i += 2
            continue
        args.append(argv[i])
        i += 1
    if not args:
        print(__doc__)
        return 2
    new, nst = load(args[0])
    if len(args) < 2:
        for (b, m), (v, u, lim) in sorted(new.items()):
            print(f"{b:34s} {m:40s} {v!s:>14} {u:14s} limit {lim}")
        return 0
    base, bst = load(args[1])
    flagged = 0
    for b in sorted(set(nst) | set(bst)):
        if nst.get(b) != bst.get(b):
            print(f"STATUS {b}: base {bst.get(b)} -> new {nst.get(b)}")
            flagged += 1
    for key in sorted(set(new) | set(base)):
        b, m = key
        if key not in new or key not in base:
            print(f"ONLY-{'BASE' if key in base else 'NEW'} {b} {m}")
            flagged += 1
            continue
        (v1, u, l1), (v0, _, l0) = new[key], base[key]
        if num(v0) and num(v1) and v0 != 0:
            d = (v1 - v0) / abs(v0)
            mark = "  <-- moved" if abs(d) > tol else ""
            flagged += bool(mark)
            print(f"{b:34s} {m:40s} {v0:14.6g} {v1:14.6g} {u:14s} {100 * d:+7.2f}%{mark}")
        else:
            same = v0 == v1
            flagged += not same
            print(f"{b:34s} {m:40s} {v0!s:>14} {v1!s:>14} {u:14s}{'' if same else '  <-- differs'}")
        # Limits scale with the observed clock: only a move beyond tol counts.
        if (num(l0) and num(l1) and l0 and abs(l1 - l0) / abs(l0) > tol) or (num(l0) != num(l1)):
            print(f"{'':34s} {'  limit':40s} {l0!s:>14} {l1!s:>14}  <-- limit changed")
            flagged += 1
    print(f"\n{flagged} flagged (tolerance {100 * tol:.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
