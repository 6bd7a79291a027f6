#!/usr/bin/env bash
# memory.bandwidth on the harness, on an NVIDIA GPU: a Release build, one run
# to fill a fresh kernel cache, then `gpuchar run --bench memory.bandwidth` on
# cuda:0 in the default profile and with --quick, each under /usr/bin/time -v
# (wall time, peak host RSS), the same through NVIDIA's OpenCL, and the GPU
# tests (ctest -L gpu: the hardware-counter check of each plateau's level
# among them). A Python check prints the headline figures beside their
# physical limits and the figures before the port, and fails when a figure
# is above its limit, a curve lost a footprint, or a plateau figure did not
# come from a full measurement. Results go to $OUT (or ./device-out).
#
# Before (H200, warm cache, every point measured in full): 16.8 s; L1 125.2,
# L2 35.8 B/clk/SM, DRAM 4.578 TB/s. H100: L2 30.3 B/clk/SM. Limits: L1 128
# B/clk/SM; DRAM 4.8 TB/s (H200), 3.35 TB/s (H100). Goal: <= 4 s default.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out
status=0

unpack_deps

show_device name,driver_version,clocks.max.sm,clocks.max.mem,power.limit

log "build (Release)"
build_release build-cachebw
bin=build-cachebw/gpuchar
new_kcache

log "kernel cache fill (cold run, not timed here)"
"$bin" run --device cuda:0 --bench memory.bandwidth --quick --quiet --no-progress \
    --cache-dir "$cache" >/dev/null 2>&1
"$bin" run --device cuda:0 --bench memory.bandwidth --quiet --no-progress \
    --cache-dir "$cache" >/dev/null 2>&1

check() { # JSON, exit status, profile
    python3 - "$1" "$2" "$3" <<'PY'
import json, math, sys
path, rc, profile = sys.argv[1], int(sys.argv[2]), sys.argv[3]
d = json.load(open(path))
dev = d["meta"]["device"]
name = (dev.get("name") or "").upper()
fails = 0
def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1
check(rc == 0, f"gpuchar exit status {rc}")
b = next(x for x in d["benchmarks"] if x["name"] == "memory.bandwidth")
check(b["status"] == "ok", f"status {b['status']} {b.get('error', '')[:300]}")
m = {x["name"]: x for x in b["metrics"]}
print(f"wall {b.get('wall_s', 0):.2f} s (before: 16.8 s default on an H200; goal <= 4 s)")
dram_lim = 4.8e12 if "H200" in name else 3.35e12 if "H100" in name else math.inf
hard = {"l1_bytes_per_clk_per_sm": 128.0, "dram_read_bandwidth": dram_lim}
before = {"l1_bytes_per_clk_per_sm": "125.2 (H200)", "l2_bytes_per_clk_per_sm":
          "35.8 (H200), 30.3 (H100)", "dram_read_bandwidth": "4.578e12 (H200)"}
for k in ("l1_bytes_per_clk_per_sm", "l2_bytes_per_clk_per_sm", "l2_copy_bytes_per_clk_per_sm",
          "l1_bandwidth", "l2_bandwidth", "dram_read_bandwidth", "dram_read_bytes_per_clk_per_sm"):
    x = m.get(k)
    if not x:
        print(f"     {k}: not reported")
        continue
    lim = x.get("limit")
    lim = lim if isinstance(lim, (int, float)) and math.isfinite(lim) else math.inf
    lim = min(lim, hard.get(k, math.inf))
    print(f"     {k} = {x['value']:.4g} {x['unit']} (limit {lim:.4g}; before {before.get(k, '-')})")
    check(x["value"] <= lim, f"{k} within its physical limit")
for x in b["metrics"]:
    lim = x.get("limit")
    if isinstance(lim, (int, float)) and math.isfinite(lim) and lim > 0:
        check(x["value"] <= 1.005 * lim, f"{x['name']} <= its limit")
    if x["unit"] == "B/s":
        check(x.get("stats", {}).get("n", 0) >= 3,
              f"{x['name']} from a full measurement ({x.get('stats', {}).get('n', 0)} samples)")
# Every curve has every footprint, the screened ones labelled.
xs = [sorted(p["x"] for p in s["points"]) for s in b["series"]]
check(len(b["series"]) >= 2 and all(x == xs[0] for x in xs),
      f"{len(b['series'])} curves, each with the same {len(xs[0]) if xs else 0} footprints")
n = sum(len(s["points"]) for s in b["series"])
scr = sum("(screened)" in (p.get("label") or "") for s in b["series"] for p in s["points"])
print(f"     {n} points, {scr} screened, {n - scr} measured in full")
check(0 < n - scr < n, "some points measured in full, the others screened")
sys.exit(1 if fails else 0)
PY
}

for prof in default quick; do
    flag=()
    [ "$prof" = quick ] && flag=(--quick)
    log "cuda:0 memory.bandwidth ($prof, warm kernel cache)"
    timev -o "$out/time_$prof.txt" "$bin" run --device cuda:0 \
        --bench memory.bandwidth "${flag[@]}" --no-progress --cache-dir "$cache" \
        --json "$out/cachebw_$prof.json" >"$out/cachebw_$prof.txt" 2>&1
    rc=$?
    time_lines "$out/time_$prof.txt"
    check "$out/cachebw_$prof.json" "$rc" "$prof" | tee "$out/check_$prof.txt" || status=1
    grep -q '^FAIL' "$out/check_$prof.txt" && status=1
done

log "NVIDIA OpenCL"
nvidia_opencl_on "$bin"
if [ -n "$ocldev" ]; then
    timev -o "$out/time_opencl.txt" "$bin" run --device "$ocldev" \
        --bench memory.bandwidth --no-progress --cache-dir "$cache" \
        --json "$out/cachebw_opencl.json" >"$out/cachebw_opencl.txt" 2>&1
    rc=$?
    time_lines "$out/time_opencl.txt"
    check "$out/cachebw_opencl.json" "$rc" opencl | tee "$out/check_opencl.txt" || status=1
    grep -q '^FAIL' "$out/check_opencl.txt" && status=1
else
    echo "no NVIDIA OpenCL device"
fi
unset OCL_ICD_VENDORS

log "ctest -L gpu"
(cd build-cachebw && ctest --output-on-failure -L gpu --timeout 300 2>&1) | tee "$out/ctest.log" |
    tail -20
grep -q "tests passed, 0 tests failed" "$out/ctest.log" || status=1
rm -rf "$cache"

log "result"
echo "status $status"
exit $status
