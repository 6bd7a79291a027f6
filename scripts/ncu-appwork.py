#!/usr/bin/env python3
"""Checks the work record of application kernels against Nsight Compute.

gpuchar's application benchmarks record, per kernel, the bytes one launch
moves at each level as the kernel's generator counts them ("<kernel>.bytes.
<level>" in the results JSON, docs/schema.md). This script reads an ncu CSV
of the same kernels (one row per profiled launch) and sets ncu's bytes per
level beside the counts, with ncu's busiest unit beside gpuchar's dominant
resource (Table IV, "<kernel>.attained").

Make the CSV on the GPU machine with (kernels are named pb_<kernel>):

  ncu --csv --page raw --print-units base --cache-control all \\
      -k regex:'^pb_' --metrics METRICS \\
      ./build/gpuchar run --quick --repeat 2 --bench application.polybench \\
      > ncu.csv

with METRICS the comma-joined names of NCU_METRICS below, and check with

  scripts/ncu-appwork.py results.json ncu.csv [--bench application.polybench]
                         [--tolerance 0.25]

DRAM (compulsory, caches flushed before each profiled launch by
--cache-control all) and L1 (sectors requested, l1tex__t_bytes) must agree
within the tolerance; L2 (the generator's distinct sectors per block, a
model of L1's reuse) is shown with its ratio and not judged. Exit status 0
when every judged level agrees, 1 when one does not, 2 on bad input.
"""
import argparse
import csv
import json
import statistics
import sys

LEVELS = {  # gpuchar level -> ncu metric
    "dram": "dram__bytes.sum",
    "l2": "lts__t_bytes.sum",
    "l1": "l1tex__t_bytes.sum",
    "shared": "smsp__sass_data_bytes_mem_shared.sum",
}
UNITS = {  # ncu unit -> gpuchar resource, by their % of peak
    "dram": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "l2": "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "l1": "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "fp32": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "issue": "sm__inst_issued.avg.pct_of_peak_sustained_active",
}
NCU_METRICS = sorted(set(LEVELS.values()) | set(UNITS.values()))
JUDGED = ("dram", "l1")


def number(text):
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def read_ncu(path):
    """Per kernel name (without pb_), per metric: the values of its launches."""
    out = {}
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        lines = [l for l in f if l.startswith('"')]  # ncu's own messages are not CSV rows
    rows = list(csv.DictReader(lines))
    for row in rows:
        name = (row.get("Kernel Name") or "").split("(")[0].strip()
        if not name.startswith("pb_"):
            continue
        per = out.setdefault(name[3:], {})
        for metric in NCU_METRICS:
            v = number(row.get(metric))
            if v is not None:
                per.setdefault(metric, []).append(v)
    return out


def read_results(path, bench):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    for b in doc.get("benchmarks", []):
        if b.get("name") == bench:
            return {m["name"]: m for m in b.get("metrics", [])}
    raise KeyError(f"{path} has no benchmark {bench}")


def dominant(metrics, kernel):
    m = metrics.get(f"{kernel}.attained")
    note = (m or {}).get("note") or ""
    return note.split("dominant: ", 1)[1].split(",")[0] if "dominant: " in note else "-"


def check_kernel(kernel, metrics, per, tol):
    bad = 0
    for level, metric in LEVELS.items():
        counted = (metrics.get(f"{kernel}.bytes.{level}") or {}).get("value")
        vals = per.get(metric)
        if counted is None or not vals:
            print(f"  {kernel:<12} {level:<6} {'-' if counted is None else f'{counted:.4g}':>12}"
                  f" {'-' if not vals else f'{statistics.median(vals):.4g}':>12}  (not compared)")
            continue
        seen = statistics.median(vals)
        ratio = seen / counted if counted else (1.0 if seen == 0 else float("inf"))
        judged = level in JUDGED
        ok = (not judged) or (1 - tol <= ratio <= 1 + tol) or (counted == 0 and seen < 1024)
        bad += 0 if ok else 1
        verdict = "ok" if ok and judged else ("MISMATCH" if not ok else "model, not judged")
        print(f"  {kernel:<12} {level:<6} {counted:>12.4g} {seen:>12.4g}  x{ratio:.3f}  {verdict}")
    pcts = {u: statistics.median(per[m]) for u, m in UNITS.items() if per.get(m)}
    busiest = max(pcts, key=pcts.get) if pcts else "-"
    print(f"  {kernel:<12} busiest unit (ncu): {busiest}"
          f"{f' {pcts[busiest]:.0f}%' if pcts else ''}; dominant (gpuchar): "
          f"{dominant(metrics, kernel)}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("ncu_csv")
    ap.add_argument("--bench", default="application.polybench")
    ap.add_argument("--tolerance", type=float, default=0.25)
    ap.add_argument("--metrics", action="store_true", help="print the ncu metric list and exit")
    if "--metrics" in sys.argv:
        print(",".join(NCU_METRICS))
        return 0
    a = ap.parse_args()
    try:
        metrics = read_results(a.results, a.bench)
        ncu = read_ncu(a.ncu_csv)
    except (OSError, ValueError, KeyError) as e:
        print(f"ncu-appwork: {e}", file=sys.stderr)
        return 2
    kernels = sorted({n.rsplit(".", 2)[0] for n in metrics if n.endswith(".threads")})
    if not kernels or not ncu:
        print("ncu-appwork: no kernels to compare (results or CSV empty)", file=sys.stderr)
        return 2
    print(f"  {'kernel':<12} {'level':<6} {'counted B':>12} {'ncu B':>12}")
    bad = 0
    for k in kernels:
        if k not in ncu:
            print(f"  {k:<12} not in the ncu CSV")
            bad += 1
            continue
        bad += check_kernel(k, metrics, ncu[k], a.tolerance)
    print(f"{'all judged levels agree' if bad == 0 else f'{bad} mismatch(es)'}"
          f" (tolerance {a.tolerance:.0%})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
