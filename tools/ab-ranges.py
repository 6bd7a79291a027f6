#!/usr/bin/env python3
"""Two trees' runs on one machine, metric by metric: each side's range over
its runs (every run's value of a benchmark's metric), and the metrics whose
ranges lie more than a tolerance apart. A change is judged against the
spread each tree shows by itself, not against one run.

usage: ab-ranges.py A.json[,A2.json...] B.json[,B2.json...] [--tol FRACTION] [--list]
       ab-ranges.py --self-test

--tol     a gap between the ranges beyond FRACTION of the larger magnitude
          counts (default 0.01)
--list    one line per such metric

Prints how many metrics both sides have, how many lie apart (by benchmark),
and the metrics one side lacks. Exit status 0; 2 for bad arguments or files.
"""
import collections
import json
import os
import sys
import tempfile


def load(paths):
    """(benchmark, metric) -> [value per run] over the finite numbers."""
    out = collections.defaultdict(list)
    for p in paths:
        with open(p) as f:
            doc = json.load(f)
        for b in doc.get("benchmarks", []):
            for m in b.get("metrics", []):
                v = m.get("value")
                if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v \
                        and abs(v) != float("inf"):
                    out[(b["name"], m["name"])].append(float(v))
    return out


def gap(a, b):
    """How far apart the ranges of a and b lie, as a fraction of the larger
    magnitude; 0 when they overlap."""
    lo_a, hi_a, lo_b, hi_b = min(a), max(a), min(b), max(b)
    ref = max(abs(lo_a), abs(hi_a), abs(lo_b), abs(hi_b))
    if ref == 0:
        return 0.0
    return max(lo_b - hi_a, lo_a - hi_b, 0.0) / ref


def compare(A, B, tol):
    both = sorted(set(A) & set(B))
    apart = [(k, A[k], B[k], gap(A[k], B[k])) for k in both if gap(A[k], B[k]) > tol]
    return both, apart, sorted(set(A) - set(B)), sorted(set(B) - set(A))


def report(A, B, tol, listing, out=sys.stdout):
    both, apart, only_a, only_b = compare(A, B, tol)
    if listing:
        for (bench, metric), a, b, g in apart:
            print("%-34s %-40s A %.4g..%.4g  B %.4g..%.4g  (%.1f%%)"
                  % (bench, metric, min(a), max(a), min(b), max(b), 100 * g), file=out)
    print("metrics on both sides: %d; ranges more than %g%% apart: %d"
          % (len(both), 100 * tol, len(apart)), file=out)
    for bench, n in collections.Counter(k[0] for k, _, _, _ in apart).most_common():
        print("  %-34s %d" % (bench, n), file=out)
    for side, keys in (("A", only_a), ("B", only_b)):
        if keys:
            print("only in %s: %s" % (side, ", ".join("%s/%s" % k for k in keys)), file=out)


def self_test():
    def doc(values):
        return {"benchmarks": [{"name": b, "metrics": [{"name": m, "value": v}
                                                      for (bb, m), v in values.items() if bb == b]}
                               for b in sorted({b for b, _ in values})]}

    runs_a = [{("x", "rate"): 100.0, ("x", "lat"): 10.0, ("y", "n"): 5, ("y", "gone"): 1.0},
              {("x", "rate"): 101.0, ("x", "lat"): 10.1, ("y", "n"): None}]
    runs_b = [{("x", "rate"): 100.5, ("x", "lat"): 10.4, ("y", "n"): 5.02, ("z", "new"): 2.0},
              {("x", "rate"): 103.5, ("x", "lat"): 10.5, ("y", "n"): float("nan")}]
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, r in enumerate(runs_a + runs_b):
            p = os.path.join(d, "r%d.json" % i)
            with open(p, "w") as f:
                json.dump(doc({k: v for k, v in r.items() if v is None or v == v}), f)
            paths.append(p)
        A, B = load(paths[:2]), load(paths[2:])
    assert A[("y", "n")] == [5.0], A[("y", "n")]  # null and NaN are no values
    both, apart, only_a, only_b = compare(A, B, 0.01)
    assert [k for k, _, _, _ in apart] == [("x", "lat")], apart  # overlapping rate, 2.9% gap
    assert abs(apart[0][3] - (10.4 - 10.1) / 10.5) < 1e-12
    assert only_a == [("y", "gone")] and only_b == [("z", "new")]
    assert ("y", "n") in both and gap([5.0], [5.02]) < 0.01
    assert compare(A, B, 0.05)[1] == []  # a wider tolerance: nothing apart
    assert gap([0.0], [0.0]) == 0.0 and gap([-2.0], [-1.0]) == 0.5
    print("ab-ranges self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    args, tol, listing = [], 0.01, False
    i = 1
    while i < len(argv):
        if argv[i] == "--tol" and i + 1 < len(argv):
            tol = float(argv[i + 1])
            i += 2
        elif argv[i] == "--list":
            listing = True
            i += 1
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2 or not tol >= 0:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        A, B = (load([p for p in a.split(",") if p]) for a in args)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("ab-ranges.py: %s" % e, file=sys.stderr)
        return 2
    report(A, B, tol, listing)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
