#!/usr/bin/env bash
# Power and energy on an NVIDIA GPU (MIPP Tables I-IV) in one go, under eight
# minutes: build, the energy counter's resolution and update period, the
# whole energy.* family on cuda:0 (idle/static power, every compute itype and
# matrix unit, every memory level, the occupancy sweeps), each run preceded
# in the same process by the performance benchmarks whose peak configuration
# the energy workloads then run at, a second run of a few benchmarks for
# run-to-run agreement (when time is left), NVIDIA's OpenCL (no power meter:
# "not available" with the reason), the GPU tests. JSON, CSV and the reports
# go to $OUT (or ./device-out); the MIPP tables, the configuration each
# workload ran at and the checks are printed.
#
# PHASES=uncertainty runs the acceptance of the 2% rule instead: `gpuchar run
# --device cuda:0 --quick --bench 'energy.*' --json` (GC_ENERGY_PROFILE=default
# or full for the other profiles), its exit status and wall time, and a table
# of every figure's source, uncertainty (W, %) and window length; it ends
# "UNCERTAINTY OK" when the run exited 0 and no figure is above 2%.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out
t_start=$(date +%s)
unpack_deps
show_device name,driver_version,clocks.max.sm,clocks.sm,power.draw,power.limit,temperature.gpu
log "build"
build_release build-gpu
bin=build-gpu/gpuchar
new_kcache

# The family in two runs (each measures its own idle and static power): the
# memory levels and occupancy sweeps, then every compute itype and matrix
# unit. The ordering checks stay within one run (DRAM, L2, shared; FFMA,
# DFMA, tensor cores). Each run names the performance benchmarks of its
# workloads too: they run first (the registry's order) and store the
# configuration of their peak, which the energy workloads of the same run
# use. SIGINT at a run's budget keeps what it measured (the JSON is written,
# marked incomplete).
energy_run() { # name budget patterns...
    local name=$1 budget=$2
    shift 2
    local args=()
    for p in "$@"; do args+=(--bench "$p"); done
    log "gpuchar run ${args[*]} (cuda:0, at most ${budget} s)"
    wall_ms --stdout "$out/$name.txt" --stderr "$out/$name.err" \
        timeout -s INT "$budget" "$bin" run --device cuda:0 "${args[@]}" --no-progress -v \
        --cache-dir "$cache" --json "$out/$name.json" --csv "$out/$name-csv"
    tail -3 "$out/$name.err"
}
# PHASES (default: all but uncertainty) picks parts: memory compute repeat
# opencl ctest uncertainty.
phases=" ${PHASES:-memory compute repeat opencl ctest} "
has() { [[ $phases == *" $1 "* ]]; }

if has uncertainty; then
    prof=${GC_ENERGY_PROFILE:-quick}
    popt=()
    [ "$prof" = quick ] && popt=(--quick)
    [ "$prof" = full ] && popt=(--full)
    log "gpuchar run --device cuda:0 ${popt[*]} --bench 'energy.*' (the 2% rule)"
    t0=$(date +%s)
    "$bin" run --device cuda:0 "${popt[@]}" --bench 'energy.*' --no-progress \
        --cache-dir "$cache" --json "$out/energy_unc_$prof.json" >"$out/energy_unc_$prof.txt" \
        2>"$out/energy_unc_$prof.err"
    rc=$?
    echo "exit status $rc, wall $(( $(date +%s) - t0 )) s (profile $prof)"
    tail -3 "$out/energy_unc_$prof.err"
    python3 - "$out/energy_unc_$prof.json" "$rc" <<'PY'
import json, math, sys
doc = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
def num(v):
    return float("nan") if v is None else v
worst, bad, rows = 0.0, [], []
print(f"{'benchmark':40s} {'status':13s} {'figure':9s} {'power W':>9s} {'+-W':>7s} "
      f"{'+-%':>6s} {'window s':>8s}  source")
for b in doc["benchmarks"]:
    ms = {m["name"]: m for m in b.get("metrics", [])}
    pcts = [k for k in ms if k.endswith("power_uncertainty_pct")]
    if not pcts and "power_uncertainty_pct_max" not in ms:
        print(f"{b['name']:40s} {b['status']:13s} {(b.get('error') or '')[:90]}")
        if b["status"] == "error":
            bad.append(b["name"])
        continue
    for k in pcts:
        pre = k[: -len("power_uncertainty_pct")]
        pct = num(ms[k]["value"])
        pw = num(ms.get(pre + "power_avg", {}).get("value"))
        uw = num(ms.get(pre + "power_uncertainty", {}).get("value"))
        wl = num(ms.get(pre + "window_length", {}).get("value"))
        note = ms[k].get("note", "")
        src = "integral" if "sampled-power integral" in note else "counter"
        fig = pre.rstrip("_") or "power"
        print(f"{b['name']:40s} {b['status']:13s} {fig:9s} {pw:9.1f} {uw:7.2f} {pct:6.2f} "
              f"{wl:8.3f}  {src}")
        if not math.isnan(pct):
            worst = max(worst, pct)
        if not pct <= 2.0:
            bad.append(f"{b['name']} {fig} {pct:.2f}%")
    if "power_uncertainty_pct_max" in ms:
        pct = num(ms["power_uncertainty_pct_max"]["value"])
        print(f"{b['name']:40s} {b['status']:13s} {'sweep':9s} {'':9s} {'':7s} {pct:6.2f}")
        worst = max(worst, pct) if not math.isnan(pct) else worst
        if not pct <= 2.0:
            bad.append(f"{b['name']} sweep {pct:.2f}%")
    if b.get("warning"):
        print(f"  warning: {b['warning'][:300]}")
    if b["status"] == "error":
        bad.append(b["name"])
print(f"worst uncertainty {worst:.2f}% (bound 2%)")
for x in bad:
    print(f"  OVER/FAILED {x}")
print("UNCERTAINTY OK" if rc == 0 and not bad else "UNCERTAINTY NOT OK")
PY
    if [ "$(echo "$phases" | wc -w)" -eq 1 ]; then
        echo "done in $(( $(date +%s) - t_start )) s; results in $out"
        exit 0
    fi
fi
has memory && energy_run energy_memory "${GC_ENERGY_MEM_BUDGET:-150}" memory.bandwidth \
    memory.shared memory.constant memory.atomics memory.dram.read memory.dram.write \
    energy.idle 'energy.memory.*' 'energy.occupancy.*'
has compute && energy_run energy_compute "${GC_ENERGY_COMPUTE_BUDGET:-260}" 'compute.*' \
    'energy.compute.*'
# Run-to-run agreement: the same benchmarks twice, back to back, in the same
# conditions (the same process start, the same load before each), when the
# 8 minutes leave room for both (else: PHASES=repeat on its own).
if has repeat; then
    if [ $(( 470 - ($(date +%s) - t_start) )) -ge 110 ]; then
        for rep in a b; do
            energy_run energy_repeat_$rep 50 energy.idle compute.fp32.fma compute.fp64.fma \
                energy.compute.fp32.fma energy.compute.fp64.fma energy.memory.dram.read \
                memory.dram.read
        done
    else
        log "repeat skipped: too little time left (run PHASES=repeat on its own)"
    fi
fi

log "MIPP tables (text reports)"
for f in "$out/energy_memory.txt" "$out/energy_compute.txt"; do
    awk '/^== summary: (energy|idle)/{p=1} /^== summary:/ && !/energy|idle/{p=0} p' "$f"
done

log "energy counter, baseline and checks"
python3 - "$out/energy_memory.json" "$out/energy_compute.json" "$out/energy_repeat_a.json" \
    "$out/energy_repeat_b.json" <<'PY'
import json, math, sys
def load(*paths):
    res = {}
    for p in paths:
        try:
            res.update({b["name"]: b for b in json.load(open(p))["benchmarks"]})
        except Exception as e:
            print(f"{p}: {e}")
    return res
def metric(b, name):
    for m in (b or {}).get("metrics", []):
        if m["name"] == name:
            v = m.get("value")
            return float("nan") if v is None else v
    return float("nan")
a, r = load(sys.argv[1], sys.argv[2]), load(sys.argv[4])
if "energy.idle" not in a:  # only the repeat phase ran
    a = load(sys.argv[3])
else:
    r0 = load(sys.argv[3])
    print("repeat pair (same conditions):")
    for name, met in [("energy.idle", "idle_power_avg"), ("energy.idle", "static_power_avg"),
                      ("energy.compute.fp32.fma", "energy_per_op"),
                      ("energy.compute.fp64.fma", "energy_per_op"),
                      ("energy.memory.dram.read", "energy_per_byte")]:
        x, y = metric(r0.get(name), met), metric(r.get(name), met)
        d = abs(x - y) / x * 100 if x and not math.isnan(x) and not math.isnan(y) else float("nan")
        print(f"  {name:28s} {met:18s} {x:10.4g} {y:10.4g}  {d:5.2f}%{'  OVER' if d > 3 else ''}")
    print("against the family run (after other loads):")
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
# The configuration each workload ran at: its performance benchmark's peak
# in this run, or the fixed one and why.
origin = {"found": [], "not used": [], "did not run": [], "?": []}
for b in a.values():
    if not b["name"].startswith("energy.") or b["status"] != "ok":
        continue
    note = next((m.get("note", "") for m in b.get("metrics", []) if m["name"] == "throughput"), "")
    k = ("found" if "found in this run" in note else "not used" if "was not used" in note
         else "did not run" if "did not run" in note else "?")
    origin[k].append((b["name"], note))
print("configurations: " + ", ".join(f"{k} {len(v)}" for k, v in origin.items()))
for k in ("not used", "did not run", "?"):
    for name, note in origin[k]:
        print(f"  {k:11s} {name}: {note[:200]}")
for name, note in origin["found"]:
    if name in ("energy.compute.fp32.fma", "energy.compute.fp64.fma", "energy.memory.l2",
                "energy.memory.shared", "energy.memory.dram.read"):
        print(f"  found       {name}: {note[:200]}")
fma = a.get("energy.compute.fp32.fma")
dr = a.get("energy.memory.dram.read")
print(f"sanity: FFMA {metric(fma, 'energy_per_op'):.1f} pJ/result total, "
      f"{metric(fma, 'dynamic_energy_per_op'):.1f} dynamic (tens of pJ expected); "
      f"DRAM read {metric(dr, 'energy_per_byte'):.1f} pJ/B total, "
      f"{metric(dr, 'dynamic_energy_per_byte'):.1f} dynamic (a few tens expected)")
PY

log "occupancy sweeps (power, energy per op, clock)"
for f in "$out"/energy_memory-csv/energy.occupancy.*; do
    [ -e "$f" ] && { echo "-- $(basename "$f")"; cat "$f"; }
done 2>/dev/null | head -80

log "NVIDIA OpenCL (no power meter: not available with the reason)"
nvidia_opencl_on "$bin" --with-system
if [ -n "$ocldev" ] && has opencl; then
    "$bin" run --device "$ocldev" --bench energy.idle --bench energy.compute.fp32.fma \
        --no-progress --json "$out/energy_opencl.json" 2>&1 | tee "$out/energy_opencl.txt" | tail -8
else
    echo "no NVIDIA OpenCL device found"
fi
unset OCL_ICD_VENDORS

left=$(( 470 - ($(date +%s) - t_start) ))
if [ -z "${GC_SKIP_CTEST:-}" ] && has ctest && [ "$left" -gt 30 ]; then
    log "ctest -L gpu (${left} s left)"
    (cd build-gpu && timeout "$left" ctest --output-on-failure -L gpu 2>&1) | tail -30
fi
echo "done in $(( $(date +%s) - t_start )) s; results in $out"
