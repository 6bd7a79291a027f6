#!/usr/bin/env bash
# The kernel cache and the run's status on an NVIDIA GPU machine: the cache
# test (tests/cli/run_cache.sh: truncated, swapped, random and old-version
# entries are compiled again and the run succeeds; two runs share one cache
# directory) on cuda:0 (CUBIN entries from NVRTC) and on NVIDIA's OpenCL
# (its program binaries), then a run with an injected failure that must be
# marked incomplete. Results and logs go to $OUT (or ./device-out). Takes a
# few minutes, most of it the build.
#
# Packages the machine lacks (jansson, cmocka) may be carried as .deb files in
# .deps/; they are unpacked first.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
log() { printf '\n== %s\n' "$*"; }
status=0

if [ ! -f /usr/include/jansson.h ] && ls .deps/*.deb >/dev/null 2>&1; then
    for f in .deps/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi

log "build"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j 16 --target gpuchar-cli >>"$out/cmake.log" 2>&1 ||
    { tail -50 "$out/cmake.log"; exit 1; }
bin=$PWD/build-gpu/gpuchar

log "kernel cache on cuda:0"
GPUCHAR_CACHE_TEST_DEVICE=cuda:0 bash tests/cli/run_cache.sh "$bin" 2>&1 | tee "$out/kcache_cuda.log"
rc=${PIPESTATUS[0]}
echo "run_cache.sh on cuda:0: exit $rc (0 pass, 77 skipped)"
[ "$rc" -eq 0 ] || status=1

log "kernel cache on NVIDIA's OpenCL"
icd=$(mktemp -d)
echo libnvidia-opencl.so.1 >"$icd/nvidia.icd"
cp /etc/OpenCL/vendors/*.icd "$icd/" 2>/dev/null
ocldev=$(OCL_ICD_VENDORS=$icd "$bin" list --json 2>/dev/null | python3 -c 'import json,sys
d=json.load(sys.stdin)
print(next((x["spec"] for x in d["devices"] if x["backend"]=="opencl" and "NVIDIA" in (x["vendor"]+x["name"]).upper()), ""))')
if [ -n "$ocldev" ]; then
    OCL_ICD_VENDORS=$icd GPUCHAR_CACHE_TEST_DEVICE=$ocldev bash tests/cli/run_cache.sh "$bin" 2>&1 |
        tee "$out/kcache_opencl.log"
    rc=${PIPESTATUS[0]}
    echo "run_cache.sh on $ocldev: exit $rc"
    [ "$rc" -eq 0 ] || status=1
else
    echo "no NVIDIA OpenCL device found"
    status=1
fi

log "a failed benchmark marks the run incomplete (cuda:0)"
GPUCHAR_FAULT=alloc:1 "$bin" run --device cuda:0 --bench memory.copy,compute.fp32.fma --quick \
    --no-progress --quiet --no-cache --json "$out/fault.json" >"$out/fault.txt" 2>&1
rc=$?
echo "exit $rc (expected 1)"
python3 - "$out/fault.json" "$rc" <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
st = {b["name"]: b["status"] for b in d["benchmarks"]}
print("statuses:", st, "complete:", d["complete"], "reason:", d["incomplete_reason"])
# memory.copy selects memory.dram.copy, which runs after compute.fp32.fma:
# the first allocation is the FMA benchmark's.
ok = sys.argv[2] == "1" and d["complete"] is False and st.get("compute.fp32.fma") == "error" \
    and st.get("memory.dram.copy") == "ok"
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY

log "result"
[ "$status" -eq 0 ] && echo "device-kcache: PASS" || echo "device-kcache: FAIL"
exit "$status"
