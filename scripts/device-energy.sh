#!/usr/bin/env bash
# Power and energy on an NVIDIA GPU (MIPP Tables I-IV) in one go, under eight
# minutes: build, the energy counter's resolution and update period, the
# whole energy.* family on cuda:0 (idle/static power, every compute itype and
# matrix unit, every memory level, the occupancy sweeps), a second run of a
# few benchmarks for run-to-run agreement, NVIDIA's OpenCL (no power meter:
# "not available" with the reason), the GPU tests. JSON, CSV and the reports
# go to $OUT (or ./device-out); the MIPP tables and the checks are printed.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
log() { printf '\n== %s\n' "$*"; }
t_start=$(date +%s)
if [ ! -f /usr/include/jansson.h ] && ls .deps/*.deb >/dev/null 2>&1; then
    for f in .deps/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
log "device"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.draw,power.limit,temperature.gpu --format=csv 2>&1
log "build"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j 16 >>"$out/cmake.log" 2>&1 || { tail -50 "$out/cmake.log"; exit 1; }
bin=build-gpu/gpuchar
cache=$(mktemp -d)

# The whole family. SIGINT after the budget keeps what was measured (the
# JSON is written, marked incomplete).
log "gpuchar run --bench 'energy.*' (cuda:0)"
start=$(date +%s%N)
timeout -s INT "${GC_ENERGY_BUDGET:-300}" "$bin" run --device cuda:0 --bench 'energy.*' \
    --no-progress -v --cache-dir "$cache" --json "$out/energy.json" --csv "$out/energy-csv" \
    >"$out/energy.txt" 2>"$out/energy.err"
rc=$?
end=$(date +%s%N)
echo "exit $rc, wall $(( (end - start) / 1000000 )) ms"
tail -3 "$out/energy.err"

log "run-to-run agreement: a second run of idle, FFMA, DFMA, DRAM read"
timeout -s INT 90 "$bin" run --device cuda:0 --bench energy.idle --bench energy.compute.fp32.fma \
    --bench energy.compute.fp64.fma --bench energy.memory.dram.read --no-progress \
    --cache-dir "$cache" --json "$out/energy_repeat.json" >"$out/energy_repeat.txt" \
    2>"$out/energy_repeat.err"
echo "exit $?"

log "MIPP tables (text report)"
awk '/^== summary: (energy|idle)/{p=1} /^== summary:/ && !/energy|idle/{p=0} p' "$out/energy.txt"

log "energy counter, baseline and checks"
python3 - "$out/energy.json" "$out/energy_repeat.json" <<'PY'
import json, math, sys
def load(p):
    try:
        return {b["name"]: b for b in json.load(open(p))["benchmarks"]}
    except Exception as e:
        print(f"{p}: {e}"); return {}
def metric(b, name):
    for m in (b or {}).get("metrics", []):
        if m["name"] == name:
            v = m.get("value")
            return float("nan") if v is None else v
    return float("nan")
a, r = load(sys.argv[1]), load(sys.argv[2])
idle = a.get("energy.idle")
if idle:
    print(f"counter resolution   {metric(idle, 'counter_resolution')*1e3:.3f} mJ (smallest step)")
    print(f"counter update       {metric(idle, 'counter_update_period')*1e3:.2f} ms (median interval)")
    print(f"counter poll         {metric(idle, 'counter_poll_period')*1e6:.1f} us per read")
    print(f"power limit          {metric(idle, 'power_limit'):.0f} W")
    print(f"idle power           {metric(idle, 'idle_power_avg'):.1f} W")
    print(f"static power         {metric(idle, 'static_power_avg'):.1f} W (one warp/SM asleep)")
st = {}
for b in a.values():
    st.setdefault(b["status"], []).append(b["name"])
print("status: " + ", ".join(f"{k} {len(v)}" for k, v in sorted(st.items())))
for b in a.values():
    if b["status"] == "error":
        print(f"  FAILED {b['name']}: {b.get('error', '')[:300]}")
worst = max((metric(b, "counter_vs_integral") for b in a.values()
             if not math.isnan(metric(b, "counter_vs_integral"))), default=float("nan"))
print(f"counter vs integral: worst benchmark {worst:.2f}% (bound 5% per window)")
for b in a.values():
    for m in b.get("metrics", []):
        if m["name"] == "ordering_check":
            print(f"  ordering {b['name']}: {m.get('note', '')}")
print("run-to-run (energy per op / idle power), bound 3%:")
for name, met in [("energy.idle", "idle_power_avg"), ("energy.compute.fp32.fma", "energy_per_op"),
                  ("energy.compute.fp64.fma", "energy_per_op"),
                  ("energy.memory.dram.read", "energy_per_byte")]:
    x, y = metric(a.get(name), met), metric(r.get(name), met)
    d = abs(x - y) / x * 100 if x and not math.isnan(x) and not math.isnan(y) else float("nan")
    print(f"  {name:28s} {met:18s} {x:10.4g} {y:10.4g}  {d:5.2f}%{'  OVER' if d > 3 else ''}")
fma = a.get("energy.compute.fp32.fma")
dr = a.get("energy.memory.dram.read")
print(f"sanity: FFMA {metric(fma, 'energy_per_op'):.1f} pJ/result total, "
      f"{metric(fma, 'dynamic_energy_per_op'):.1f} dynamic (tens of pJ expected); "
      f"DRAM read {metric(dr, 'energy_per_byte'):.1f} pJ/B total, "
      f"{metric(dr, 'dynamic_energy_per_byte'):.1f} dynamic (a few tens expected)")
PY

log "occupancy sweeps (power, energy per op, clock)"
for f in "$out"/energy-csv/energy.occupancy.*; do
    [ -e "$f" ] && { echo "-- $(basename "$f")"; cat "$f"; }
done 2>/dev/null | head -80

log "NVIDIA OpenCL (no power meter: not available with the reason)"
icd=$(mktemp -d)
echo libnvidia-opencl.so.1 >"$icd/nvidia.icd"
cp /etc/OpenCL/vendors/*.icd "$icd/" 2>/dev/null
export OCL_ICD_VENDORS=$icd
ocldev=$("$bin" list --json 2>/dev/null | python3 -c 'import json,sys
d=json.load(sys.stdin)
print(next((x["spec"] for x in d["devices"] if x["backend"]=="opencl" and "NVIDIA" in (x["vendor"]+x["name"]).upper()), ""))')
if [ -n "$ocldev" ]; then
    "$bin" run --device "$ocldev" --bench energy.idle --bench energy.compute.fp32.fma \
        --no-progress --json "$out/energy_opencl.json" 2>&1 | tee "$out/energy_opencl.txt" | tail -8
else
    echo "no NVIDIA OpenCL device found"
fi
unset OCL_ICD_VENDORS

left=$(( 470 - ($(date +%s) - t_start) ))
if [ -z "${GC_SKIP_CTEST:-}" ] && [ "$left" -gt 30 ]; then
    log "ctest -L gpu (${left} s left)"
    (cd build-gpu && timeout "$left" ctest --output-on-failure -L gpu 2>&1) | tail -30
fi
echo "done in $(( $(date +%s) - t_start )) s; results in $out"
