#!/usr/bin/env bash
# Validation of the memory-hierarchy changes on the H200.
# Runs the same benchmarks twice: the second run checks that latencies are stable to +-1 cycle.
# Results go to $OUT (or /tmp/memcheck), the build's log to $OUT/cmake.log.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
out=${OUT:-/tmp/memcheck}
mkdir -p "$out"
unpack_deps
build_release build-gpu
# 1. SASS of every declared kernel (new: shmem_load_*, read_*_ncna*/_pf256/_v32*, chase_l2_all_sms).
(cd build-gpu && ctest -R test_sass --output-on-failure) 2>&1 | tee "$out/sass.txt" |
    grep -E "shmem_load|ncna|pf256|read_v32|all_sms|^FAIL|tests passed|tests failed"
# 2. The benchmarks, twice.
for i in 1 2; do
    build-gpu/gpuchar run --device cuda:0 --no-progress --json "$out/mem$i.json" \
        --bench memory.shared --bench memory.latency.global --bench memory.latency.l2 \
        --bench memory.latency.l2_partition --bench memory.dram.read --bench memory.dram.write \
        --bench memory.bandwidth >"$out/mem$i.txt" 2>&1
    echo "run $i: exit $?"
done
python3 - "$out/mem1.json" "$out/mem2.json" <<'PY'
import json, sys
runs = [json.load(open(p)) for p in sys.argv[1:3]]
def metrics(d):
    return {(b["name"], m["name"]): m for b in d["benchmarks"] for m in b["metrics"]}
m1, m2 = metrics(runs[0]), metrics(runs[1])
walls = {b["name"]: b["wall_s"] for b in runs[0]["benchmarks"]}
fails = 0
def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    fails += 0 if cond else 1
def get(b, n):
    return m1.get((b, n))
sh = get("memory.shared", "shared_bandwidth")
check(sh is not None and sh["fraction"] is not None and 0.97 <= sh["fraction"] <= 1.0,
      "shared_bandwidth %s" % (sh and "%.4g B/s = %.1f%% (%s)" % (sh["value"], 100 * (sh["fraction"] or 0), sh["note"])))
for n in ("shared_bytes_per_clk_per_cu", "swap_bytes_per_clk_per_cu", "shared_load_bytes_per_clk_per_cu",
          "broadcast_bytes_per_clk_per_cu"):
    x = get("memory.shared", n)
    print("     %-34s %s" % (n, x and "%.1f B/clk/CU; %s" % (x["value"], x["note"])))
l1bw = get("memory.bandwidth", "l1_bytes_per_clk_per_sm")
check(l1bw is not None and (l1bw["fraction"] or 0) >= 0.90, "L1 bandwidth %s" % (l1bw and "%.1f%%" % (100 * (l1bw["fraction"] or 0))))
l1 = get("memory.latency.global", "l1_size_bytes")
check(l1 is not None and l1["limit"] and abs(l1["value"] / l1["limit"] - 1) <= 0.10,
      "L1 size %s" % (l1 and "%.0f B vs %s B (%s)" % (l1["value"], l1["limit"], l1["note"])))
l2 = get("memory.latency.l2", "l2_all_sms_size_bytes")
check(l2 is not None and l2["limit"] and abs(l2["value"] / l2["limit"] - 1) <= 0.10,
      "whole L2 %s" % (l2 and "%.0f B vs %s B (%s)" % (l2["value"], l2["limit"], l2["note"])))
for b in ("memory.latency.global", "memory.latency.l2"):
    x = get(b, "l2_size_bytes")
    print("     %s one-SM L2: %s" % (b, x and "%.0f B (%s)" % (x["value"], x["note"])))
    x = get(b, "l2_spill_size_bytes")
    if x:
        print("     %s l2_spill: %.0f B (%s)" % (b, x["value"], x["note"]))
for b, n in (("memory.latency.global", "l1_latency_cycles"), ("memory.latency.global", "l2_latency_cycles"),
             ("memory.latency.global", "dram_latency_cycles"), ("memory.latency.l2", "l2_latency_cycles"),
             ("memory.latency.l2", "dram_latency_cycles"), ("memory.latency.l2", "l2_all_sms_latency_cycles"),
             ("memory.latency.l2", "dram_all_sms_latency_cycles")):
    a, c = m1.get((b, n)), m2.get((b, n))
    check(a is not None and c is not None and abs(a["value"] - c["value"]) <= 1.0,
          "%s %s stable: %s" % (b, n, a and c and "%.2f / %.2f" % (a["value"], c["value"])))
rd = get("memory.dram.read", "read_bandwidth")
print("     read %s" % (rd and "%.4g B/s = %.1f%%; %s" % (rd["value"], 100 * (rd["fraction"] or 0), rd["note"])))
check(walls.get("memory.dram.read", 1e9) <= 40, "memory.dram.read wall %.1f s (aim <= 40)" % walls.get("memory.dram.read", -1))
for b in ("memory.latency.global", "memory.latency.l2"):
    for k in ("footprints", "footprints_all_sms"):
        x = get(b, k)
        if x:
            print("     %s %s: %s" % (b, k, x["note"]))
sys.exit(1 if fails else 0)
PY
