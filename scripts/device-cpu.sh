#!/usr/bin/env bash
# The README's quick command on the device machine's host CPU through PoCL
# (16 cores on the H100/H200 hosts): it must exit 0, and no metric may exceed
# its limit (fraction <= 1.005). Also the hiding kernels against their host
# model at odd launch shapes and the hiding benchmarks on 16 compute units.
# Results go to $OUT (or ./device-out).
#
# Packages the machine lacks (jansson, cmocka) may be carried as .deb files in
# .deps/; they are unpacked first.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out

unpack_deps

log "host"
nproc
lscpu | grep -E "Model name|L3|MHz"

log "build"
build_release build-cpu -j "$(nproc)"
bin=build-cpu/gpuchar
"$bin" list

# The PoCL device: the first OpenCL device of type cpu.
dev=$("$bin" list 2>/dev/null | awk '$2 == "cpu" && $1 ~ /^opencl:/ {print $1; exit}')
[ -n "$dev" ] || { echo "no PoCL CPU device"; exit 1; }

log "gpuchar run --device $dev --quick"
new_kcache
start=$(date +%s)
"$bin" run --device "$dev" --quick --no-progress --cache-dir "$cache" \
    --json "$out/cpu_quick.json" >"$out/cpu_quick.txt" 2>"$out/cpu_quick.err"
rc=$?
echo "exit $rc, wall $(( $(date +%s) - start )) s"
tail -5 "$out/cpu_quick.err"
python3 - "$out/cpu_quick.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad, top = 0, []
for b in d["benchmarks"]:
    if b["status"] not in ("ok", "not_available"):
        print("FAILED", b["name"], b.get("error", "")[:300]); bad += 1
    if b["status"] == "not_available" and (b["name"].startswith("memory.dram") or b["name"] == "memory.copy"):
        print("n/a", b["name"], b.get("error", "")[:300])
    for m in b.get("metrics", []):
        f = m.get("fraction")
        if f is not None:
            top.append((f, b["name"], m["name"], m["value"], m["limit"]))
            if f > 1.005:
                print("ABOVE LIMIT", b["name"], m["name"], m["value"], m["limit"]); bad += 1
top.sort(reverse=True)
for t in top[:15]:
    print("%.4f %s %s %.4g (limit %.4g)" % t)
for b in d["benchmarks"]:
    if b["name"] in ("memory.copy", "memory.dram.copy", "memory.dram.read", "memory.shared"):
        for m in b.get("metrics", []):
            if m["name"].endswith("bandwidth") or m["name"] == "buffer_size":
                print(b["name"], m["name"], "%.4g" % m["value"], m.get("note", "")[:160])
print("complete:", d["complete"], "problems:", bad)
sys.exit(1 if bad else 0)
PY
check=$?

log "hiding kernels against the host model; hiding benchmarks on 16 CUs"
(cd build-cpu && ctest --output-on-failure -R 'test_mix_shapes|test_hiding_bench' 2>&1) | tail -15

[ "$rc" -eq 0 ] && [ "$check" -eq 0 ]
