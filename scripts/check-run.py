#!/usr/bin/env python3
"""Acceptance of one saved run (gpuchar run --json FILE): every benchmark ok or
not available, no metric above its limit (fraction <= 1.005), no plausibility
warning (other warnings are printed), and the headline figures inside their documented bands
(docs/methodology.md, "Acceptance bands"). Usage: check-run.py RUN.json [EXIT]
where EXIT is the exit status gpuchar returned. Prints one line per check and
exits 1 when any fails."""
import json, sys

run = json.load(open(sys.argv[1]))
exit_status = int(sys.argv[2]) if len(sys.argv) > 2 else None
fails = 0


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    fails += 0 if cond else 1


dev = run["meta"]["device"]
gpu = dev.get("type") == "gpu"
if exit_status is not None:
    check(exit_status == 0, f"gpuchar exit status {exit_status}")
check(run.get("complete", False), "run complete")
metrics = {}
for b in run["benchmarks"]:
    check(b["status"] in ("ok", "not_available"),
          f"{b['name']}: {b['status']}" + (f" ({b['error'][:300]})" if b["status"] != "ok" and b.get("error") else ""))
    w = b.get("warning") or ""
    # A plausibility floor's warning is a failed check; other warnings
    # (measurement notes) are shown.
    if "below the plausible" in w:
        check(False, f"{b['name']}: warning: {w[:300]}")
    elif w:
        print(f"note {b['name']}: {w[:300]}")
    for m in b["metrics"]:
        metrics[(b["name"], m["name"])] = m
        f = m.get("fraction")
        if f is not None and f > 1.005:
            check(False, f"{b['name']} {m['name']} = {m['value']:.4g} {m['unit']} is {100*f:.1f}% of its limit")
over = [k for k, m in metrics.items() if m.get("fraction") is not None and m["fraction"] > 1.005]
check(not over, f"no metric above 100.5% of its limit ({len(metrics)} metrics)")

# Bands: (benchmark, metric, lowest fraction of its limit) on GPUs, where the
# limit is exact (vendor rate x SMs x observed clock, or the DRAM spec).
# FFMA's default-profile peak varies by 0.3% from run to run on one H200
# (98.97-99.26% in 23 runs of one day, with 10 or 20 ms samples alike): its
# band sits below that spread, not inside it.
bands = [
    ("compute.fp32.fma", "flops", 0.985),
    ("compute.fp64.fma", "flops", 0.97),
    ("memory.dram.read", "read_bandwidth", 0.85),
    ("memory.dram.copy", "copy_bandwidth", 0.80),
    ("memory.shared", "shared_bandwidth", 0.95),
]
# A compute limit taken at the nominal clock (no in-kernel clock and no
# sensor: OpenCL on an NVIDIA GPU) is exact only while the GPU holds its
# maximum clock; its band is 2 points lower.
ctx = {b["name"]: b.get("context") or {} for b in run["benchmarks"]}
if gpu:
    for bench, name, lo in bands:
        m = metrics.get((bench, name))
        if m is None or m.get("fraction") is None:
            continue
        if bench.startswith("compute.") and ctx.get(bench, {}).get("sm_clock_source") == "nominal":
            lo -= 0.02
        # --quick times the compute peaks with 5 ms samples, whose launch
        # boundaries cost 0.2-0.3% against the default's 10 ms.
        if bench.startswith("compute.") and run["meta"].get("profile") == "quick":
            lo -= 0.005
        check(m["fraction"] >= lo, f"{bench} {name} {100*m['fraction']:.2f}% of its limit >= {100*lo:.1f}%")
    # The DRAM plateau of memory.bandwidth within 25% of memory.dram.read.
    a, r = metrics.get(("memory.bandwidth", "dram_read_bandwidth")), metrics.get(("memory.dram.read", "read_bandwidth"))
    if a and r and a["value"] and r["value"]:
        check(0.75 <= a["value"] / r["value"] <= 1.05,
              f"memory.bandwidth DRAM plateau / memory.dram.read = {a['value']/r['value']:.3f}")
print(f"{fails} check(s) failed" if fails else "all checks passed")
sys.exit(1 if fails else 0)
