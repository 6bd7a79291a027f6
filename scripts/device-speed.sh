#!/usr/bin/env bash
# The memory benchmarks' own speed on an NVIDIA GPU: a Release build, then
# `gpuchar run --bench 'memory.*'` on cuda:0 with a fresh kernel cache (cold)
# and again with the same cache (warm), each under /usr/bin/time -v (wall
# time, peak host RSS). Prints per-benchmark wall time and the headline
# figures beside their limits, and checks each run with scripts/check-run.py.
# Results go to $OUT (or ./device-out).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out
status=0

unpack_deps

show_device name,driver_version,clocks.max.sm,clocks.max.mem,power.limit

log "build (Release)"
build_release build-speed
bin=build-speed/gpuchar
new_kcache

for run in cold warm; do
    log "memory.* ($run kernel cache)"
    timev -o "$out/time_$run.txt" "$bin" run --device cuda:0 --bench 'memory.*' \
        --no-progress --cache-dir "$cache" --json "$out/mem_$run.json" >"$out/mem_$run.txt" 2>&1
    rc=$?
    echo "exit $rc"
    time_lines "$out/time_$run.txt"
    python3 - "$out/mem_$run.json" <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
print("%-28s %-8s %8s %8s  %s" % ("benchmark", "status", "wall_s", "compile", "headline"))
head = ("bandwidth", "peak", "plateau")
for b in d["benchmarks"]:
    ms = [m for m in b["metrics"] if m["unit"] == "B/s" and any(h in m["name"] for h in head)]
    figs = ", ".join("%s %.3f TB/s (%.1f%% of %s)" % (
        m["name"], m["value"] / 1e12,
        100 * m["value"] / m["limit"] if m.get("limit") else float("nan"),
        "%.2f TB/s" % (m["limit"] / 1e12) if m.get("limit") else "no limit") for m in ms[:3])
    print("%-28s %-8s %8.1f %8.2f  %s" % (b["name"], b["status"], b.get("wall_s") or 0,
                                          b.get("compile_s") or 0, figs))
print("total wall %.1f s, complete %s" % (d.get("wall_s") or 0, d["complete"]))
PY
    python3 scripts/check-run.py "$out/mem_$run.json" "$rc" >"$out/check_$run.txt" 2>&1 ||
        status=1
    tail -5 "$out/check_$run.txt"
done
rm -rf "$cache"

log "result"
echo "status $status"
exit $status
