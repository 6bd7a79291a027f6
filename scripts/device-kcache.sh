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
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out
status=0

unpack_deps

log "build"
build_release build-gpu --target gpuchar-cli
bin=$PWD/build-gpu/gpuchar

log "kernel cache on cuda:0"
GPUCHAR_CACHE_TEST_DEVICE=cuda:0 bash tests/cli/run_cache.sh "$bin" 2>&1 | tee "$out/kcache_cuda.log"
rc=${PIPESTATUS[0]}
echo "run_cache.sh on cuda:0: exit $rc (0 pass, 77 skipped)"
[ "$rc" -eq 0 ] || status=1

log "kernel cache on NVIDIA's OpenCL"
nvidia_opencl_on "$bin" --with-system
if [ -n "$ocldev" ]; then
    GPUCHAR_CACHE_TEST_DEVICE=$ocldev bash tests/cli/run_cache.sh "$bin" 2>&1 |
        tee "$out/kcache_opencl.log"
    rc=${PIPESTATUS[0]}
    echo "run_cache.sh on $ocldev: exit $rc"
    [ "$rc" -eq 0 ] || status=1
else
    echo "no NVIDIA OpenCL device found"
    status=1
fi
unset OCL_ICD_VENDORS

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
